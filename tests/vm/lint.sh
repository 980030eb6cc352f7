#!/bin/bash
# lint.sh [SERIES...]: the kernel-side style gate, as TAP: checkpatch --strict on
# every file of module/ and proto/, then for each kernel a clean rebuild with W=1
# and sparse (C=2) that must print no warning. The checkpatch pass and the
# kernels' builds run side by side; the results are printed in that order.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${V9FS_CACHE:-$HOME/.cache/v9fs}
cd "$top"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lint.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

checkpatch_all() {
	local f out status=0

	for f in module/*.[ch] module/*/*.[ch] proto/*.[ch]; do
		[ -e "$f" ] || continue
		if out=$("$cache/linux-source/scripts/checkpatch.pl" --strict --no-tree \
			--quiet --no-summary --file "$f" 2>&1) && [ -z "$out" ]; then
			echo "ok - checkpatch --strict $f"
		else
			echo "not ok - checkpatch --strict $f"
			printf '%s\n' "$out" | head -n 30 | sed 's/^/#   /'
			status=1
		fi
	done
	return $status
}

build_clean() { # build_clean SERIES
	local k=$1 tree=$top/build/$1/lint out rc warn

	rm -rf "$tree"
	# a build of its own, whatever make this runs under (its job slots are
	# not passed to a script)
	out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL V9FS_TREE="$tree" \
		"$top/tests/vm/build-module.sh" "$k" C=2 2>&1)
	rc=$?
	warn=$(printf '%s\n' "$out" | grep -Ei 'warning|error' | grep -v 'Skipping BTF')
	if [ $rc -eq 0 ] && [ -z "$warn" ]; then
		echo "ok - $k: module builds with W=1 and sparse, no warning"
	else
		echo "not ok - $k: module builds with W=1 and sparse, no warning (exit $rc)"
		printf '%s\n' "${warn:-$out}" | head -n 40 | sed 's/^/#   /'
		return 1
	fi
}

parts=checkpatch
checkpatch_all > "$tmp/checkpatch" 2>&1 &
for k in "${@:-6.1}"; do
	parts="$parts $k"
	build_clean "$k" > "$tmp/$k" 2>&1 &
done
status=0
for p in $parts; do
	wait -n || status=1
done
for p in $parts; do
	cat "$tmp/$p"
done
exit $status
