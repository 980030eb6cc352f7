#!/bin/bash
# run.sh SECONDS [TARGET...]: run each libFuzzer target for SECONDS over its
# corpus tests/fuzz/corpus/<name>/ and print one TAP line per target:
#   ok - fuzz <name>: N execs, cov N
#   not ok - fuzz <name>: <why>
# Without TARGETs, every executable in build/fuzz/ is run. New inputs go to a
# temporary directory, never into the repository; a crashing input is kept in
# build/fuzz/artifacts/<name>/. Exits non-zero if any target failed.
set -uo pipefail

secs=${1:?usage: run.sh SECONDS [TARGET...]}
shift
case $secs in
'' | *[!0-9]*) echo "run.sh: SECONDS must be a whole number, not '$secs'" >&2; exit 2 ;;
esac
top=$(cd "$(dirname "$0")/../.." && pwd)
if [ $# -eq 0 ]; then
	set -- $(find "$top/build/fuzz" -maxdepth 1 -type f -perm -u+x 2>/dev/null | sort)
fi
if [ $# -eq 0 ]; then
	echo "not ok - fuzz: no targets built (make \$(FUZZ_TARGETS) first)"
	exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/v9fs-fuzz.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
status=0
for bin in "$@"; do
	name=$(basename "$bin")
	corpus=$top/tests/fuzz/corpus/$name
	new=$tmp/$name
	art=$top/build/fuzz/artifacts/$name
	mkdir -p "$new" "$art"
	[ -d "$corpus" ] || corpus=
	if [ ! -x "$bin" ]; then
		echo "not ok - fuzz $name: $bin is not built"
		status=1
		continue
	fi
	# the first directory receives new inputs; the corpus is only read
	timeout $((secs + 60)) "$bin" -max_total_time="$secs" -timeout=10 \
		-rss_limit_mb=1024 -print_final_stats=1 \
		-artifact_prefix="$art/" "$new" $corpus >"$tmp/$name.log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$tmp/$name.log" | tail -n 1)
	cov=$(grep -o 'cov: [0-9]*' "$tmp/$name.log" | tail -n 1 | sed 's/cov: //')
	if [ $rc -eq 0 ] && [ -n "$execs" ]; then
		echo "ok - fuzz $name: ${execs} execs, cov ${cov:-0}"
	else
		why=$(grep -m1 -E 'ERROR: |SUMMARY: |deadly signal|timeout' "$tmp/$name.log" |
			tr -s ' ' | cut -c1-160)
		echo "not ok - fuzz $name: exit $rc: ${why:-see log}"
		echo "# fuzz $name: crashing input and log in $art/"
		cp "$tmp/$name.log" "$art/last.log"
		sed 's/^/# /' "$tmp/$name.log" | tail -n 30
		status=1
	fi
done
exit $status
