# A suite that fails on purpose: the harness must report it.
echo "ok - this check passes"
echo "not ok - this check fails on purpose"
