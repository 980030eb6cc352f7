#!/bin/bash
# build-module.sh SERIES [KBUILD ARGS...]: build 9p2000.ko for one kernel series in
# build/SERIES/src, a tree of symlinks to the sources, the Kbuild and VERSION at the
# repository's root, so that the objects of the two kernels never mix (kernels
# before 6.13 write an external module's objects beside its sources); copy the
# result to build/SERIES/9p2000.ko. The kernel's make reads the product's Kbuild
# there, as it does at the root of a clone or of the DKMS tree.
set -euo pipefail
series=${1:?usage: build-module.sh SERIES [args]}
shift
top=$(cd "$(dirname "$0")/../.." && pwd)
eval "$("$top/tests/vm/kernel.sh" "$series")"

tree=${V9FS_TREE:-$top/build/$series/src}
mkdir -p "$tree"
# Mirror the sources as symlinks; drop links whose source is gone.
find "$tree" -xtype l -delete
for d in module module/vfs module/client module/trans proto; do
	mkdir -p "$tree/$d"
	for f in "$top/$d"/*.[ch]; do
		[ -e "$f" ] && ln -sfn "$f" "$tree/$d/$(basename "$f")"
	done
done
ln -sfn "$top/Kbuild" "$tree/Kbuild"
ln -sfn "$top/VERSION" "$tree/VERSION"

# As many jobs as cores, unless a make above already shares its job slots.
jobs=-j$(nproc)
case " ${MAKEFLAGS:-} " in *jobserver* | *" -j"*) jobs= ;; esac
make -s $jobs -C "$KDIR" M="$tree" W=1 "$@" modules
[ -n "${V9FS_TREE:-}" ] || cp "$tree/9p2000.ko" "$top/build/$series/9p2000.ko"
