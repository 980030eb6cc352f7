#!/bin/bash
# debug-check.sh: one boot of the debug kernel (debug-kernel.sh) running every
# guest suite ($SUITES narrows them); the console must show no report of KASAN,
# KFENCE, lockdep, UBSAN, list or object debugging (tests/vm/klog-bad), and
# 99-kmemleak must find nothing of 9p2000.ko. Last line: N passed, N failed.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/build/debug-check.tap
mkdir -p "$top/build"
# Everything runs several times slower under KASAN and lockdep in emulation.
V9FS_TIMEOUT=${V9FS_TIMEOUT:-5400} V9FS_SUITES=${SUITES:-} \
	"$top/tests/vm/run-guest.sh" 6.12-debug > "$out" 2>&1
rc=$?
cat "$out"
echo "$(grep -c '^ok' "$out") passed, $(grep -c '^not ok' "$out") failed"
exit $rc
