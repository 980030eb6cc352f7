#!/bin/bash
# kernel.sh SERIES: fetch Debian's kernel image and headers for SERIES (6.1 or 6.12)
# into $V9FS_CACHE/kernels/SERIES without installing anything into the host's /boot,
# then print shell assignments: ABI, KDIR (headers tree for M= builds), VMLINUZ, MODROOT.
# The ABI name is resolved from the metapackage at fetch time; a cached kernel is reused.
# 6.12-debug is Debian's 6.12 source built with the kernel's own checks (debug-kernel.sh).
set -euo pipefail

series=${1:?usage: kernel.sh 6.1|6.12}
cache=${V9FS_CACHE:-$HOME/.cache/v9fs}
dir=$cache/kernels/$series

case $series in
6.1) meta=linux-image-amd64 ;;
6.12) meta=linux-image-6.12-amd64 ;;
6.12-debug) exec "$(dirname "$0")/debug-kernel.sh" ;;
*) echo "kernel.sh: unknown kernel series '$series' (want 6.1, 6.12 or 6.12-debug)" >&2; exit 2 ;;
esac

if [ -f "$dir/env" ]; then
	cat "$dir/env"
	exit 0
fi

dep() { # dep PACKAGE PATTERN: the first dependency of PACKAGE matching PATTERN
	apt-cache depends "$1" | sed -n "s/^ *|\\{0,1\\}Depends: \\($2\\)\$/\\1/p" | head -n 1
}

abi=$(dep "$meta" 'linux-image-.*' | sed 's/^linux-image-//')
[ -n "$abi" ] || { echo "kernel.sh: cannot resolve $meta (run apt-get update?)" >&2; exit 1; }
common=$(dep "linux-headers-$abi" 'linux-headers-.*-common')
kbuild=$(dep "linux-headers-$abi" 'linux-kbuild-.*')

echo "kernel.sh: fetching $series kernel $abi" >&2
mkdir -p "$cache"
tmp=$(mktemp -d "$cache/fetch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && apt-get download -q "linux-image-$abi-unsigned" "linux-headers-$abi" \
	"$common" "$kbuild" >&2)

mkdir -p "$tmp/root" "$tmp/hdr"
dpkg-deb -x "$tmp"/linux-image-*.deb "$tmp/root"
for deb in "$tmp"/linux-headers-*.deb "$tmp"/linux-kbuild-*.deb; do
	dpkg-deb -x "$deb" "$tmp/hdr"
done
depmod -b "$tmp/root" "$abi"

# The headers' Makefile includes the common tree by absolute path, and the
# kbuild scripts are reached through absolute symlinks: point both into the cache.
kdir=$dir/hdr/usr/src/linux-headers-$abi
sed -i "s|^include /usr/src/|include $dir/hdr/usr/src/|" "$tmp/hdr/usr/src/linux-headers-$abi/Makefile"
find "$tmp/hdr" -type l | while read -r l; do
	t=$(readlink "$l")
	case $t in /*) ln -sfn "$dir/hdr$t" "$l" ;; esac
done

rm -rf "$dir"
mkdir -p "$dir"
mv "$tmp/root" "$tmp/hdr" "$dir/"
cat > "$dir/env" <<EOT
ABI=$abi
KDIR=$kdir
VMLINUZ=$dir/root/boot/vmlinuz-$abi
MODROOT=$dir/root
EOT
cat "$dir/env"
