#!/bin/bash
# setup-host.sh: everything a fresh Debian 12 machine needs for `make check` and
# `make run`: Debian packages, then Debian's 6.1 and 6.12 kernel images and headers
# (and checkpatch from linux-source-6.1) in $V9FS_CACHE. Idempotent and quiet when
# all is there; never installs a kernel into the host's /boot.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${V9FS_CACHE:-$HOME/.cache/v9fs}

pkgs="gcc make libc6-dev qemu-system-x86 busybox-static diod sparse dwarves clang
libclang-rt-14-dev cpio kmod xz-utils gzip python3 ca-certificates groff-base man-db systemd
e2fsprogs"
"$top/tests/vm/need-packages.sh" setup $pkgs

# apt-get download needs package lists; a machine that never ran update has none.
if ! apt-cache show linux-image-amd64 > /dev/null 2>&1; then
	sudo=
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	$sudo apt-get update -q
fi

for k in ${KERNELS:-6.1 6.12}; do
	"$top/tests/vm/kernel.sh" "$k" > /dev/null
done

# checkpatch.pl and its data files live only in the linux-source tarball.
src=$cache/linux-source
if [ ! -x "$src/scripts/checkpatch.pl" ]; then
	echo "setup: fetching checkpatch.pl from linux-source-6.1"
	tmp=$(mktemp -d "$cache/src.XXXXXX")
	(cd "$tmp" && apt-get download -q linux-source-6.1 > /dev/null 2>&1)
	dpkg-deb --fsys-tarfile "$tmp"/linux-source-6.1_*.deb |
		tar -x -C "$tmp" --wildcards '*/linux-source-6.1.tar.xz'
	mkdir -p "$src"
	tar -xJf "$tmp"/usr/src/linux-source-6.1.tar.xz -C "$src" --strip-components=1 \
		--wildcards '*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch'
	rm -rf "$tmp"
fi
