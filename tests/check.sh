#!/bin/bash
# check.sh: what `make check` runs after building: every test, in sections, each
# printing TAP; the last line is "N passed, N failed" over all of them.
#   host unit tests, the packaging checks, a short fuzzing pass, the kernel style gate, the harness
#   self-test, and one guest boot per kernel running every guest suite.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
out=$top/build/check
rm -rf "$out"
mkdir -p "$out"
kernels=${KERNELS:-6.1 6.12}

section() { # section NAME CMD...: run one section, keep and show its TAP
	local name=$1 rc
	shift
	echo "# === $name"
	"$@" > "$out/$name.tap" 2>&1
	rc=$?
	if [ $rc -ne 0 ] && ! grep -q '^not ok' "$out/$name.tap"; then
		echo "not ok - [$name] exited with status $rc" >> "$out/$name.tap"
	fi
	cat "$out/$name.tap"
}

section unit make --no-print-directory unit
section pkg make --no-print-directory pkg-test
if [ -x tests/fuzz/run.sh ]; then
	section fuzz tests/fuzz/run.sh "${FUZZ_SECONDS:-4}"
fi
section lint tests/vm/lint.sh $kernels
section harness tests/vm/selftest.sh "${kernels%% *}"
for k in $kernels; do
	section "guest-$k" tests/vm/run-guest.sh "$k"
done

passed=$(cat "$out"/*.tap | grep -c '^ok')
failed=$(cat "$out"/*.tap | grep -c '^not ok')
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
