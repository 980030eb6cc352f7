#!/bin/bash
# server_layers.sh [CC]: v9fsd's files call each other in one direction only.
# tools/layers.sh compiles each server/*.c on its own and draws the calls
# from nm (a use in a of what b defines is an edge a -> b); any circle among
# them fails. Prints TAP: one line for the circles, one line per header
# included by a header that includes it back.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
cc=${1:-${CC:-cc}}

echo "1..2"
status=0
if out=$(CC=$cc tools/layers.sh server 2>&1); then
	echo "ok 1 - no loop among server/ files, drawn from calls"
else
	printf '%s\n' "$out" | sed 's/^/# /'
	status=1
	echo "not ok 1 - no loop among server/ files, drawn from calls"
fi

bad=0
for h in server/*.h; do
	for inc in $(sed -n 's/^#include "\(.*\)"/\1/p' "$h"); do
		[ -f "server/$inc" ] || continue
		if grep -q "^#include \"$(basename "$h")\"" "server/$inc"; then
			echo "# $h and server/$inc include each other"
			bad=1
		fi
	done
done
if [ $bad = 0 ]; then
	echo "ok 2 - no two server/ headers include each other"
else
	echo "not ok 2 - no two server/ headers include each other"
	status=1
fi
exit $status
