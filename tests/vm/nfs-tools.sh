#!/bin/bash
# nfs-tools.sh: the NFS server's and client's user-space tools for the guest of
# `make bench SECTIONS=nfs`, unpacked from Debian's packages into
# $V9FS_CACHE/nfs-tools/root; prints that folder. The packages are fetched with
# apt-get download and unpacked with dpkg-deb -x, never installed: installing
# nfs-kernel-server would start nfsd in the host's own kernel. Libraries the
# tools link that the host lacks come the same way (only those packages the
# host does not have installed), so that ldd finds them below the root.
set -euo pipefail
cache=${V9FS_CACHE:-$HOME/.cache/v9fs}/nfs-tools
root=$cache/root
stamp=$cache/unpacked

if [ ! -e "$stamp" ]; then
	rm -rf "$cache"
	mkdir -p "$cache/debs" "$root"
	# the tools and the libraries they link beyond libc
	pkgs="nfs-kernel-server nfs-common"
	for lib in libtirpc3 libtirpc-common libwrap0 libnsl2 libgssapi-krb5-2 libkrb5-3 \
		libk5crypto3 libkrb5support0 libkeyutils1 libcom-err2 libblkid1 libuuid1 \
		libmount1 libselinux1 libpcre2-8-0; do
		dpkg-query -W -f='${Status}' "$lib" 2> /dev/null | grep -q 'ok installed' ||
			pkgs="$pkgs $lib"
	done
	echo "nfs-tools.sh: fetching $pkgs into $cache/debs" >&2
	# apt's download user must be able to write there
	chmod 777 "$cache/debs"
	(cd "$cache/debs" && apt-get download -q $pkgs > /dev/null) ||
		{ echo "nfs-tools.sh: apt-get download $pkgs failed" >&2; exit 1; }
	chmod 755 "$cache/debs"
	for deb in "$cache"/debs/*.deb; do
		dpkg-deb -x "$deb" "$root"
	done
	for tool in usr/sbin/rpc.nfsd usr/sbin/exportfs usr/sbin/rpc.mountd sbin/mount.nfs; do
		[ -x "$root/$tool" ] || { echo "nfs-tools.sh: $tool is not in the packages" >&2; exit 1; }
	done
	touch "$stamp"
fi
echo "$root"
