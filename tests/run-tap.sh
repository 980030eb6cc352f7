#!/bin/bash
# run-tap.sh LABEL PROG...: run host test programs that print TAP, and print
# their results as "ok - [prog] text" lines. A program that crashes, exits
# non-zero with no failing line, or prints fewer results than its plan counts
# as one more failure.
# The programs run side by side, up to V9FS_TAP_JOBS at once (default 4: most
# of their time is spent waiting on the server they start), each bounded to
# 120 s; their results are printed in the order given.
set -uo pipefail
label=${1:?usage: run-tap.sh LABEL PROG...}
shift
jobs=${V9FS_TAP_JOBS:-4}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/run-tap.$label.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

i=0
for prog in "$@"; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
		wait -n
	done
	( timeout 120 "$prog" > "$tmp/$i.out" 2>&1; echo $? > "$tmp/$i.rc" ) &
	i=$((i + 1))
done
wait

status=0
i=0
for prog in "$@"; do
	name=$(basename "$prog")
	out=$(cat "$tmp/$i.out" 2> /dev/null)
	rc=$(cat "$tmp/$i.rc" 2> /dev/null)
	rc=${rc:-255}	# its shell was killed before it could say
	i=$((i + 1))
	printf '%s\n' "$out" | awk -v n="$name" '
		/^ok/ { sub(/^ok [0-9]* *-? */, ""); print "ok - [" n "] " $0; next }
		/^not ok/ { sub(/^not ok [0-9]* *-? */, ""); print "not ok - [" n "] " $0; next }
		/^1\.\.[0-9]+/ { next }
		{ print "# " $0 }'
	plan=$(printf '%s\n' "$out" | sed -n 's/^1\.\.\([0-9]*\).*/\1/p' | head -n 1)
	seen=$(printf '%s\n' "$out" | grep -Ec '^(not )?ok')
	fails=$(printf '%s\n' "$out" | grep -c '^not ok')
	if [ "$rc" -ne 0 ] && [ "$fails" -eq 0 ]; then
		echo "not ok - [$name] exited with status $rc"
	elif [ -n "$plan" ] && [ "$plan" -ne "$seen" ]; then
		echo "not ok - [$name] planned $plan results, printed $seen"
	fi
	[ "$rc" -eq 0 ] || status=1
done
exit $status
