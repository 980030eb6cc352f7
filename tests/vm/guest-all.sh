#!/bin/bash
# guest-all.sh: one boot per kernel in $KERNELS, each running the guest suites
# ($SUITES narrows them); prints each kernel's TAP and its totals.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
status=0
for k in ${KERNELS:-6.1 6.12}; do
	V9FS_SUITES=${SUITES:-} "$top/tests/vm/run-guest.sh" "$k" || status=1
done
exit $status
