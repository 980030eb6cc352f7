#!/bin/bash
# bench-ab.sh BASE SERIES...: our client and v9fsd at the git revision BASE against
# the work tree's, in one boot per kernel series (make bench-ab). BASE is unpacked
# with git archive into build/base/REV/src (the work tree is never touched) and
# built there by its own make: build/base/REV/src/build/guest/bin/v9fsd (static,
# for the guest) and build/base/REV/src/build/SERIES/9p2000.ko. The work tree's
# builds are the usual guest images (make bench-ab builds them first). The guest
# runs bench/ab.sh, which alternates the two builds pass by pass and prints, per
# line, each side's median and spread, their ratio and a verdict.
#   V9FS_AB_ROUNDS=N         passes of each side (default 3)
#   V9FS_AB_QUICK=1          a few short lines only (see bench/ab.sh)
#   V9FS_AB_SECTIONS=a,b     bench/run.sh sections (main,serial,virtio,loose)
#   V9FS_AB_WORKLOADS=a,b    only these workloads
#   V9FS_AB_SWAP=WHAT        what the base side takes from BASE: both (the
#                            default), server (v9fsd alone, the module current
#                            on both sides) or client (the module alone)
#   V9FS_TIMEOUT=seconds     host-side bound on each boot (default from the above)
# Exits non-zero when BASE cannot be built, or a boot or a pass failed.
set -euo pipefail
base=${1:?usage: bench-ab.sh BASE SERIES...}
shift
[ $# -gt 0 ] || { echo "usage: bench-ab.sh BASE SERIES..." >&2; exit 2; }
top=$(cd "$(dirname "$0")/../.." && pwd)

sha=$(git -C "$top" rev-parse --verify --quiet "$base^{commit}") ||
	{ echo "bench-ab: '$base' names no commit" >&2; exit 2; }
rev=$(git -C "$top" rev-parse --short=12 "$sha")
cur=$(git -C "$top" rev-parse --short=12 HEAD)
[ -z "$(git -C "$top" status --porcelain --untracked-files=no)" ] || cur="$cur+changes"

dir=$top/build/base/$rev
src=$dir/src
if [ ! -e "$dir/unpacked" ]; then
	echo "bench-ab: unpacking $rev into $src"
	rm -rf "$src"
	mkdir -p "$src"
	git -C "$top" archive "$sha" | tar -x -C "$src"
	touch "$dir/unpacked"
fi
targets=build/guest/bin/v9fsd
for k in "$@"; do
	targets="$targets build/$k/9p2000.ko"
done
echo "bench-ab: building $rev ($targets)"
# The base's own make, free of this make's command line and job server.
env -u MAKEFLAGS -u MAKEOVERRIDES -u MFLAGS -u MAKELEVEL \
	make -C "$src" --no-print-directory $targets

rounds=${V9FS_AB_ROUNDS:-3}
case $rounds in '' | *[!0-9]* | 0) echo "bench-ab: ROUNDS must be a positive number" >&2; exit 2 ;; esac
append="v9fs_ab_rounds=$rounds v9fs_ab_base=$rev v9fs_ab_cur=$cur"
# a pass of both sides' every line takes about 15 minutes under TCG; the
# quick one about 2
per_pass=1800
if [ "${V9FS_AB_QUICK:-0}" = 1 ]; then
	append="$append v9fs_ab_quick=1"
	per_pass=400
fi
swap=${V9FS_AB_SWAP:-both}
case $swap in both | server | client) ;; *)
	echo "bench-ab: SWAP is both, server or client, not '$swap'" >&2; exit 2 ;;
esac
append="$append v9fs_ab_swap=$swap"
for kv in "sections=${V9FS_AB_SECTIONS:-}" "workloads=${V9FS_AB_WORKLOADS:-}"; do
	[ -n "${kv#*=}" ] || continue
	case ${kv#*=} in *[!A-Za-z0-9,.-]*)
		echo "bench-ab: ${kv%%=*} is a comma-separated list of names" >&2; exit 2 ;;
	esac
	append="$append v9fs_ab_$kv"
done
limit=${V9FS_TIMEOUT:-$((300 + 2 * rounds * per_pass))}

rc=0
for k in "$@"; do
	extra=$dir/$k-ab.cpio.gz
	"$top/tests/vm/initramfs.sh" ab "$extra" "$src/build/$k/9p2000.ko" \
		"$src/build/guest/bin/v9fsd"
	echo "bench-ab: kernel $k, base $rev against $cur (swapping: $swap)," \
		"$rounds pass(es) each, at most ${limit}s"
	V9FS_MODE=bench-ab V9FS_EXTRA=$extra V9FS_APPEND=$append V9FS_TIMEOUT=$limit \
		"$top/tests/vm/run-guest.sh" "$k" || { rc=1; echo "bench-ab: kernel $k: FAILED" >&2; }
done
exit $rc
