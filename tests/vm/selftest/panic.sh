# A suite that panics the guest on purpose.
echo c > /proc/sysrq-trigger
