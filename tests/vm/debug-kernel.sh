#!/bin/bash
# debug-kernel.sh: build Debian's own 6.12 source (the linux-source-6.12 package)
# with the checks of tests/vm/debug.config (KASAN, KFENCE, lockdep, kmemleak,
# UBSAN, list and object debugging) into $V9FS_CACHE/kernels/6.12-debug, once;
# then print the same assignments as kernel.sh: ABI, KDIR, VMLINUZ, MODROOT.
# KDIR is the build tree itself, so `make -C $KDIR M=...` builds 9p2000.ko for it.
# The first build takes a while on two cores; a cached kernel is reused as long
# as the config fragment is unchanged.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${V9FS_CACHE:-$HOME/.cache/v9fs}
dir=$cache/kernels/6.12-debug
frag=$top/tests/vm/debug.config
sum=$(sha256sum "$frag" | cut -c1-16)

if [ -f "$dir/env" ] && [ "$(cat "$dir/config.sum" 2> /dev/null)" = "$sum" ]; then
	cat "$dir/env"
	exit 0
fi

need="flex bison bc libelf-dev libssl-dev cpio xz-utils python3 make gcc"
"$top/tests/vm/need-packages.sh" debug-kernel $need

mkdir -p "$dir"
src=$dir/src
if [ ! -f "$src/Makefile" ]; then
	echo "debug-kernel: fetching linux-source-6.12" >&2
	tmp=$(mktemp -d "$cache/fetch.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	(cd "$tmp" && apt-get download -q linux-source-6.12 >&2)
	dpkg-deb --fsys-tarfile "$tmp"/linux-source-6.12_*.deb |
		tar -x -C "$tmp" --wildcards '*/linux-source-6.12.tar.xz'
	rm -rf "$src.new"
	mkdir -p "$src.new"
	tar -xJf "$tmp"/usr/src/linux-source-6.12.tar.xz -C "$src.new" --strip-components=1
	rm -rf "$src"
	mv "$src.new" "$src"
fi

obj=$dir/obj
mkdir -p "$obj"
jobs=$(nproc)
echo "debug-kernel: configuring and building in $obj (-j$jobs)" >&2
make -s -C "$src" O="$obj" x86_64_defconfig >&2
"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$frag" > /dev/null
make -s -C "$src" O="$obj" olddefconfig >&2
# Every line of the fragment must have survived olddefconfig: a symbol that
# Kconfig dropped (a dependency missing) would silently weaken the gate.
bad=0
while IFS= read -r line; do
	case $line in CONFIG_*=n) sym=${line%=n}
		grep -q "^$sym=" "$obj/.config" && { echo "debug-kernel: $sym is still set" >&2; bad=1; } ;;
	CONFIG_*=*) grep -qxF "$line" "$obj/.config" ||
		{ echo "debug-kernel: '$line' did not survive olddefconfig" >&2; bad=1; } ;;
	esac
done < "$frag"
[ $bad -eq 0 ] || exit 1
make -s -C "$src" O="$obj" -j"$jobs" bzImage modules >&2

abi=$(make -s -C "$src" O="$obj" kernelrelease)
rm -rf "$dir/root"
make -s -C "$src" O="$obj" INSTALL_MOD_PATH="$dir/root" INSTALL_MOD_STRIP=1 \
	modules_install >&2
mkdir -p "$dir/root/boot"
cp "$obj/arch/x86/boot/bzImage" "$dir/root/boot/vmlinuz-$abi"
cat > "$dir/env" <<EOT
ABI=$abi
KDIR=$obj
VMLINUZ=$dir/root/boot/vmlinuz-$abi
MODROOT=$dir/root
EOT
echo "$sum" > "$dir/config.sum"
cat "$dir/env"
