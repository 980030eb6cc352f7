#!/bin/bash
# inplace-check.sh [SERIES...]: 9p2000.ko built where the sources stand, as a
# user of a fresh clone builds it: `make -C KDIR M=CLONE` with no tree of
# symlinks, no DKMS and none of the project's make. For each cached kernel
# (default: 6.1 6.12), in a clone of the committed tree (HEAD), prints TAP:
#  - the build succeeds with W=1 and prints no warning;
#  - its vermagic is the kernel's ABI, its version the VERSION file's;
#  - a .c file the object list does not name is not built in (a stray
#    module/ and proto/ file that would not compile sit in the clone);
#  - whatever the build leaves is ignored by git, and the kernel's
#    `make M=CLONE clean` removes all of it.
# Builds only: nothing is loaded or installed.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -gt 0 ] || set -- 6.1 6.12
tmp=$(mktemp -d "${TMPDIR:-/tmp}/inplace.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0
failed=0

ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
check() { # check DESCRIPTION CMD...
	local d=$1
	shift
	if "$@"; then ok "$d"; else not_ok "$d"; fi
}

src=$tmp/v9fs
if ! git clone -q "$top" "$src" 2> "$tmp/clone.log"; then
	sed 's/^/# /' "$tmp/clone.log"
	not_ok "git clone of $top"
	echo "1..$n"
	exit 1
fi
ver=$(cat "$src/VERSION")
strays="module/zz_stray.c proto/zz_stray.c"
for f in $strays; do
	printf '#error "%s is named by no object list"\n' "$f" > "$src/$f"
done

# Files git would list beyond what it tracks: untracked, or ignored too.
untracked() { git -C "$src" status --porcelain --untracked-files=all "$@" | grep -v 'zz_stray\.c$'; }

jobs=-j$(nproc)
case " ${MAKEFLAGS:-} " in *jobserver* | *" -j"*) jobs= ;; esac
for series in "$@"; do
	env=${V9FS_CACHE:-$HOME/.cache/v9fs}/kernels/$series/env
	if [ ! -f "$env" ]; then
		not_ok "$series: a cached kernel (tests/vm/kernel.sh $series)"
		continue
	fi
	eval "$(cat "$env")"
	log=$tmp/build-$series.log
	start=$(date +%s)
	rc=0
	timeout 900 make -s $jobs -C "$KDIR" M="$src" W=1 modules > "$log" 2>&1 || rc=$?
	warn=$(grep -Ei 'warning|error' "$log" | grep -v 'Skipping BTF')
	ko=$src/9p2000.ko
	if [ $rc -eq 0 ] && [ -z "$warn" ] && [ -f "$ko" ]; then
		ok "$series: make -C KDIR M=CLONE W=1 modules builds 9p2000.ko, no warning ($(($(date +%s) - start)) s)"
	else
		not_ok "$series: make -C KDIR M=CLONE W=1 modules builds 9p2000.ko, no warning (exit $rc$([ -f "$ko" ] || echo ', no 9p2000.ko'))"
		printf '%s\n' "${warn:-$(tail -n 20 "$log")}" | head -n 30 | sed 's/^/#   /'
	fi
	magic= kver=
	if [ -f "$ko" ]; then
		magic=$(modinfo -F vermagic "$ko" | cut -d' ' -f1)
		kver=$(modinfo -F version "$ko")
	fi
	check "$series: vermagic is the kernel's (${magic:-none}, want $ABI)" test "$magic" = "$ABI"
	check "$series: module version is VERSION (${kver:-none}, want $ver)" test "$kver" = "$ver"
	check "$series: no stray file built (zz_stray.o)" \
		test -z "$(find "$src" -name 'zz_stray.o' -o -name '.zz_stray.o.cmd')"
	left=$(untracked)
	check "$series: everything the build made is ignored by git${left:+ (not: $(echo $left))}" \
		test -z "$left"
	rc=0
	timeout 300 make -s -C "$KDIR" M="$src" clean > "$tmp/clean-$series.log" 2>&1 || rc=$?
	left=$(untracked --ignored)
	check "$series: make -C KDIR M=CLONE clean leaves nothing behind${left:+ (left: $(echo $left | cut -c1-200))}" \
		test $rc -eq 0 -a -z "$left"
done

echo "1..$n"
[ $failed -eq 0 ]
