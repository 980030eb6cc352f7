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

# The host sections run side by side (much of their time is spent waiting:
# on the servers the unit tests start, on the harness self-test's hung guest)
# and are shown in this order once all have ended.
host=
host_section() { # host_section NAME CMD...: section NAME in the background
	local name=$1
	shift
	host="$host $name"
	section "$name" "$@" > "$out/$name.show" &
}
host_section unit make --no-print-directory unit
host_section pkg make --no-print-directory pkg-test
if [ -x tests/fuzz/run.sh ]; then
	host_section fuzz tests/fuzz/run.sh "${FUZZ_SECONDS:-4}"
fi
host_section lint tests/vm/lint.sh $kernels
host_section harness tests/vm/selftest.sh "${kernels%% *}"
wait
for name in $host; do
	cat "$out/$name.show"
	rm -f "$out/$name.show"
done
for k in $kernels; do
	section "guest-$k" tests/vm/run-guest.sh "$k"
done

passed=$(cat "$out"/*.tap | grep -c '^ok')
failed=$(cat "$out"/*.tap | grep -c '^not ok')
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
