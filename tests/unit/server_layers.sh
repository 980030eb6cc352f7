#!/bin/bash
# server_layers.sh [CC]: v9fsd's files call each other in one direction only.
# Each server/*.c is compiled on its own; nm gives what it defines and what
# it uses, an edge a -> b is a use in a of a function or object b defines,
# and tsort finds any loop among them (a file's use of itself is no loop).
# Prints TAP: one line for the loops, one line per header included by a
# header that includes it back.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
cc=${1:-${CC:-cc}}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/server_layers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

echo "1..2"
for src in server/*.c; do
	obj=$tmp/$(basename "$src" .c).o
	if ! "$cc" -std=gnu11 -O0 -Iproto -c -o "$obj" "$src" 2> "$tmp/cc.err"; then
		sed 's/^/# /' "$tmp/cc.err"
		echo "not ok 1 - server/ compiles file by file"
		exit 1
	fi
done

# symbol -> the file that defines it
for obj in "$tmp"/*.o; do
	f=$(basename "$obj" .o)
	nm --defined-only "$obj" | awk -v f="$f" '$2 ~ /^[TDBR]$/ { print $3, f }'
done | sort > "$tmp/defs"
# file -> symbol it uses
for obj in "$tmp"/*.o; do
	f=$(basename "$obj" .o)
	nm --undefined-only "$obj" | awk -v f="$f" '{ print $NF, f }'
done | sort > "$tmp/uses"
# user -> definer, one line per pair, as tsort takes them
join "$tmp/uses" "$tmp/defs" | awk '$2 != $3 { print $3, $2 }' | sort -u > "$tmp/edges"
sed 's/^/# calls: /' "$tmp/edges"

status=0
if tsort "$tmp/edges" > /dev/null 2> "$tmp/loops"; then
	echo "ok 1 - no loop among server/ files, drawn from calls ($(wc -l < "$tmp/edges") edges)"
else
	sed -e 's/^tsort: [^:]*: input/loop: input/' -e 's/^tsort: /  /' -e 's/^/# /' "$tmp/loops"
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
