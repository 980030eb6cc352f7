#!/bin/bash
# selftest.sh SERIES: prove that the harness fails a run on a failing test, a
# guest panic and a hang, each with a message that says so. Prints TAP.
# The hung guest idles once its suite runs, until the host's timeout ends it:
# its boot goes on in the background while the other two run one after the
# other; the results are printed in a fixed order.
set -uo pipefail
series=${1:?usage: selftest.sh SERIES}
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$top/build/$series"
tmp=$(mktemp -d "$top/build/$series/selftest.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

expect() { # expect TEXT SUITE TIMEOUT PATTERN: the run fails and prints PATTERN
	local text=$1 suite=$2 limit=$3 pattern=$4 rc out=$tmp/$2
	V9FS_SUITEDIR=/v9fs/selftest V9FS_SUITES=$suite V9FS_TIMEOUT=$limit \
		"$top/tests/vm/run-guest.sh" "$series" > "$out" 2>&1
	rc=$?
	if [ $rc -ne 0 ] && grep -Eq "$pattern" "$out"; then
		echo "ok - harness: $text"
	else
		echo "not ok - harness: $text (exit $rc)"
		sed 's/^/#   /' "$out" | tail -n 20
	fi
}

expect "a hung guest is stopped and fails the run" hang 60 \
	'guest finished: hung' > "$tmp/hang.tap" &
hang=$!
expect "a failing guest test fails the run" fail 300 \
	'^not ok .*fails on purpose'
expect "a guest panic fails the run" panic 300 \
	'guest finished: kernel panic'
wait $hang
cat "$tmp/hang.tap"
