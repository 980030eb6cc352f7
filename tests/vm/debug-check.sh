#!/bin/bash
# debug-check.sh: one boot of the debug kernel (debug-kernel.sh) running the
# client suites; the console must show no report of KASAN, KFENCE, lockdep,
# UBSAN, list or object debugging (tests/vm/klog-bad), and 99-kmemleak must
# find nothing of 9p2000.ko. Last line: N passed, N failed.
#   SUITES=a,b   these suites instead. By default every suite but those that
#                exercise v9fsd rather than a client (20-v9fsd-intree: an hour
#                under this kernel; `make check` runs it on Debian's kernels).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/build/debug-check.tap
mkdir -p "$top/build"
suites=${SUITES:-}
if [ -z "$suites" ]; then
	for s in "$top"/tests/guest/suites/*.sh; do
		s=$(basename "$s" .sh)
		case $s in 20-v9fsd-intree) continue ;; esac
		suites=${suites:+$suites,}$s
	done
fi
# Everything runs about ten times slower under KASAN and lockdep in emulation.
V9FS_TIMEOUT=${V9FS_TIMEOUT:-5400} V9FS_TSCALE=${V9FS_TSCALE:-10} V9FS_SUITES=$suites \
	"$top/tests/vm/run-guest.sh" 6.12-debug > "$out" 2>&1
rc=$?
cat "$out"
echo "$(grep -c '^ok' "$out") passed, $(grep -c '^not ok' "$out") failed"
exit $rc
