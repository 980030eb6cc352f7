# A suite that never returns: the host's timeout must end the boot.
# timeout: 100000
while :; do sleep 1; done
