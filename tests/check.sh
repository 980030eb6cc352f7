#!/bin/bash
# check.sh: what `make check` runs after building: every test, in sections, each
# printing TAP; the last line is "N passed, N failed" over all of them.
#   host unit tests, the packaging checks, a short fuzzing pass, the kernel style gate, the harness
#   self-test, and one guest boot per kernel running every guest suite.
# The guest boots take most of the time and none of them fills the host's CPU:
# they start first, side by side, and the host sections run meanwhile. Each
# section keeps its own TAP in build/check/NAME.tap and is printed whole once it
# is done: the host sections in turn, then the guest boots in kernel order.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
out=$top/build/check
rm -rf "$out"
mkdir -p "$out"
kernels=${KERNELS:-6.1 6.12}

run() { # run NAME CMD...: run one section, its TAP into $out/NAME.tap
	local name=$1 rc
	shift
	"$@" > "$out/$name.tap" 2>&1
	rc=$?
	if [ $rc -ne 0 ] && ! grep -q '^not ok' "$out/$name.tap"; then
		echo "not ok - [$name] exited with status $rc" >> "$out/$name.tap"
	fi
}

show() { # show NAME: print one finished section's TAP
	echo "# === $1"
	cat "$out/$1.tap"
}

section() { # section NAME CMD...: run one section, then show it
	run "$@"
	show "$1"
}

# Boots sharing the CPU each take longer than one alone: the host-side bound
# of each grows with their number (run-guest.sh's own default is for one).
boots=$(echo $kernels | wc -w)
guests=()
for k in $kernels; do
	V9FS_TIMEOUT=${V9FS_TIMEOUT:-$((1200 + 1200 * boots))} \
		run "guest-$k" tests/vm/run-guest.sh "$k" &
	guests+=($!)
done
echo "# guest boots started in the background: $kernels"

section unit make --no-print-directory unit
section pkg make --no-print-directory pkg-test
if [ -x tests/fuzz/run.sh ]; then
	section fuzz tests/fuzz/run.sh "${FUZZ_SECONDS:-4}"
fi
section lint tests/vm/lint.sh $kernels
section harness tests/vm/selftest.sh "${kernels%% *}"
wait "${guests[@]}"
for k in $kernels; do
	show "guest-$k"
done

passed=$(cat "$out"/*.tap | grep -c '^ok')
failed=$(cat "$out"/*.tap | grep -c '^not ok')
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
