#!/bin/bash
# run-tap.sh LABEL PROG...: run host test programs that print TAP, and print
# their results as "ok - [prog] text" lines. A program that crashes, exits
# non-zero with no failing line, or prints fewer results than its plan counts
# as one more failure.
set -uo pipefail
label=${1:?usage: run-tap.sh LABEL PROG...}
shift
status=0
for prog in "$@"; do
	name=$(basename "$prog")
	out=$(timeout 120 "$prog" 2>&1)
	rc=$?
	printf '%s\n' "$out" | awk -v n="$name" '
		/^ok/ { sub(/^ok [0-9]* *-? */, ""); print "ok - [" n "] " $0; next }
		/^not ok/ { sub(/^not ok [0-9]* *-? */, ""); print "not ok - [" n "] " $0; next }
		/^1\.\.[0-9]+/ { next }
		{ print "# " $0 }'
	plan=$(printf '%s\n' "$out" | sed -n 's/^1\.\.\([0-9]*\).*/\1/p' | head -n 1)
	seen=$(printf '%s\n' "$out" | grep -Ec '^(not )?ok')
	fails=$(printf '%s\n' "$out" | grep -c '^not ok')
	if [ $rc -ne 0 ] && [ "$fails" -eq 0 ]; then
		echo "not ok - [$name] exited with status $rc"
	elif [ -n "$plan" ] && [ "$plan" -ne "$seen" ]; then
		echo "not ok - [$name] planned $plan results, printed $seen"
	fi
	[ $rc -eq 0 ] || status=1
done
exit $status
