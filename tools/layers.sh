#!/bin/bash
# layers.sh [-g] [GROUP...]: the circles among the objects of each GROUP, drawn
# from their symbols: a.o uses b.o when nm lists a name undefined in a.o that
# b.o defines. Prints each circle (a strongly connected set of two or more
# objects) with the names that tie it; exits 1 when there is one, 0 when the
# groups have none, 2 on a usage or build error.
#
# A GROUP is a folder of objects (a module build tree's module/ and proto/, as
# build/6.12/src/module) or a folder of user-space sources (server/), which is
# compiled here, one object per file, into a scratch folder. A folder of
# objects may be followed by more folders joined with ':' (module:proto) to
# draw them as one group. With no GROUP: the module as last built in build/
# and server/. -g also prints every use, as "a.o -> b.o: name ...".
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
edges_too=0
if [ "${1:-}" = -g ]; then
	edges_too=1
	shift
fi
case "${1:-}" in -*)
	echo "usage: layers.sh [-g] [DIR[:DIR...]]..." >&2
	exit 2
	;;
esac

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

if [ $# -eq 0 ]; then
	mod=
	for d in "$top"/build/*/src/module; do
		[ -e "$d/vfs/inode.o" ] || continue
		if [ -z "$mod" ] || [ "$d/vfs/inode.o" -nt "$mod/vfs/inode.o" ]; then
			mod=$d
		fi
	done
	if [ -z "$mod" ]; then
		echo "layers.sh: no module objects under $top/build (make module first)" >&2
		exit 2
	fi
	set -- "$mod:$mod/vfs:$mod/client:$mod/trans:${mod%/module}/proto" "$top/server"
fi

# objects GROUP OUT: list the objects of GROUP in OUT, compiling sources if
# the folder has no objects.
objects() {
	local dir n=0 f
	: >"$2"
	IFS=: read -ra dirs <<<"$1"
	for dir in "${dirs[@]}"; do
		for f in "$dir"/*.o; do
			[ -e "$f" ] || continue
			echo "$f" >>"$2"
			n=$((n + 1))
		done
	done
	[ "$n" -gt 0 ] && return 0
	local out="$scratch/obj.$RANDOM"
	mkdir -p "$out"
	for dir in "${dirs[@]}"; do
		for f in "$dir"/*.c; do
			[ -e "$f" ] || continue
			${CC:-cc} -std=gnu11 -c -I"$dir" -I"$top/proto" \
				-o "$out/$(basename "${f%.c}").o" "$f" || exit 2
			echo "$out/$(basename "${f%.c}").o" >>"$2"
			n=$((n + 1))
		done
	done
	if [ "$n" -eq 0 ]; then
		echo "layers.sh: $1: neither objects nor C sources" >&2
		exit 2
	fi
}

status=0
for group in "$@"; do
	list="$scratch/list"
	objects "$group" "$list"
	# One line per symbol: "D obj name" defined (global), "U obj name" used.
	while read -r o; do
		nm "$o" | awk -v o="$(basename "$o")" '
			$1 == "U" { print "U", o, $2; next }
			NF == 3 && $2 ~ /^[A-TV-Z]$/ { print "D", o, $3 }'
	done <"$list" >"$scratch/syms"
	echo "== ${group//"$top"\//}"
	awk -v edges_too="$edges_too" '
	$1 == "D" { def[$3] = $2; next }
	$1 == "U" { if (($3 in def) && def[$3] != $2) use[$2, def[$3]] = use[$2, def[$3]] " " $3
		    else if (!($3 in def)) pend[++np] = $2 SUBSEP $3 }
	END {
		# Undefined names seen before their definition.
		for (i = 1; i <= np; i++) {
			split(pend[i], p, SUBSEP)
			if ((p[2] in def) && def[p[2]] != p[1])
				use[p[1], def[p[2]]] = use[p[1], def[p[2]]] " " p[2]
		}
		n = 0
		for (k in use) {
			split(k, e, SUBSEP)
			if (!(e[1] in id)) { id[e[1]] = ++n; name[n] = e[1] }
			if (!(e[2] in id)) { id[e[2]] = ++n; name[n] = e[2] }
			adj[id[e[1]]] = adj[id[e[1]]] " " id[e[2]]
		}
		# The uses in one order, to compare runs by (insertion sort).
		m = 0
		for (k in use) {
			split(k, e, SUBSEP)
			line[++m] = e[1] " -> " e[2] ":" use[k]
			from[m] = e[1]; to[m] = e[2]
		}
		for (i = 2; i <= m; i++) {
			t = line[i]; tf = from[i]; tt = to[i]
			for (j = i - 1; j > 0 && line[j] > t; j--) {
				line[j + 1] = line[j]; from[j + 1] = from[j]; to[j + 1] = to[j]
			}
			line[j + 1] = t; from[j + 1] = tf; to[j + 1] = tt
		}
		if (edges_too)
			for (i = 1; i <= m; i++)
				print line[i]
		# Tarjan, iteratively: the strongly connected sets.
		idx = 0; sp = 0; found = 0
		for (v = 1; v <= n; v++) {
			if (v in order)
				continue
			top = 0
			frame[++top] = v; pos[top] = 0
			order[v] = low[v] = ++idx; stack[++sp] = v; on[v] = 1
			succ[v] = adj[v]
			while (top > 0) {
				u = frame[top]
				cnt = split(succ[u], nb, " ")
				if (pos[top] < cnt) {
					w = nb[++pos[top]]
					if (!(w in order)) {
						order[w] = low[w] = ++idx
						stack[++sp] = w; on[w] = 1
						succ[w] = adj[w]
						frame[++top] = w; pos[top] = 0
					} else if (on[w] && order[w] < low[u]) {
						low[u] = order[w]
					}
					continue
				}
				if (low[u] == order[u]) {
					members = ""; size = 0
					do {
						w = stack[sp--]; on[w] = 0
						members = members " " name[w]; size++
						comp[w] = u
					} while (w != u)
					if (size > 1) {
						found++
						print "circle:" members
						for (i = 1; i <= m; i++)
							if (comp[id[from[i]]] == u &&
							    comp[id[to[i]]] == u)
								print "  " line[i]
					}
				}
				top--
				if (top > 0 && low[u] < low[frame[top]])
					low[frame[top]] = low[u]
			}
		}
		if (!found)
			print "no circle"
		exit found ? 1 : 0
	}' "$scratch/syms" || status=1
done
exit $status
