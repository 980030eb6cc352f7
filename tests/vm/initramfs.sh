#!/bin/bash
# initramfs.sh base OUT: the guest userland shared by every kernel: busybox, /init,
#   /v9fs/bin (GUEST_PROGS), /v9fs/tests (tests/guest), /v9fs/bench, diod and any
#   HOSTPROGS, each with the shared libraries ldd lists.
# initramfs.sh modules SERIES OUT: what is particular to one kernel: 9p2000.ko and the
#   in-tree 9p modules with their dependencies.
# initramfs.sh ab OUT KO V9FSD: the base side of make bench-ab, /v9fs/ab/base/9p2000.ko
#   and /v9fs/ab/base/v9fsd (bench/ab.sh).
# initramfs.sh anchors SERIES OUT SECTIONS: for make bench SECTIONS="virtiofs nfs"
#   only, loaded after the modules archive: the modules of the modules part and,
#   when SECTIONS names virtiofs, fuse and virtiofs; when it names nfs, nfsd and the
#   NFSv4 client (its modules.dep replaces the modules part's), and the NFS tools
#   rpc.nfsd, exportfs, rpc.mountd and mount.nfs (tests/vm/nfs-tools.sh, which
#   fetches them the first time) with their libraries.
# The kernel unpacks concatenated cpio archives, so initrd = base + modules [+ extra].
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
what=${1:?usage: initramfs.sh base OUT | modules SERIES OUT | extra OUT PROG... | ab OUT KO V9FSD | anchors SERIES OUT SECTIONS}

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
chmod 755 "$stage"

pack() { # pack OUT: write the staging tree as a gzip'd newc cpio
	(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) |
		gzip -1 > "$1.tmp"
	mv "$1.tmp" "$1"
}

copy_prog() { # copy_prog PATH: a host program and the libraries it links
	local prog=$1 lib
	install -D -m 755 "$prog" "$stage/usr/bin/$(basename "$prog")"
	for lib in $(ldd "$prog" 2>/dev/null | grep -o '/[^ ]*'); do
		[ -e "$stage$lib" ] || install -D -m 755 "$lib" "$stage$lib"
	done
}

# The in-tree client and its transports; a disk cache for cache=fscache
# (cachefiles on ext4 on a loop device).
MODULES_WANT="kernel/fs/9p/9p.ko kernel/net/9p/9pnet_fd.ko kernel/net/9p/9pnet_virtio.ko
kernel/drivers/virtio/virtio_pci.ko kernel/drivers/char/virtio_console.ko
kernel/fs/cachefiles/cachefiles.ko kernel/fs/ext4/ext4.ko
kernel/drivers/block/loop.ko kernel/crypto/crc32c_generic.ko"

stage_modules() { # stage_modules SERIES MODULE...: the modules, closed over modules.dep
	local series=$1 dep m f
	shift
	eval "$("$top/tests/vm/kernel.sh" "$series")"
	moddir=lib/modules/$ABI
	mkdir -p "$stage/$moddir"
	dep=$MODROOT/$moddir/modules.dep
	for m in "$@"; do
		awk -v m="$m" '{ k = $1; sub(/:$/, "", k); sub(/\.xz$/, "", k)
			if (k == m) { for (i = 1; i <= NF; i++) { f = $i; sub(/:$/, "", f); print f } } }' "$dep"
	done | sort -u | while read -r f; do
		install -D -m 644 "$MODROOT/$moddir/$f" "$stage/$moddir/$f"
	done
	cp "$MODROOT/$moddir"/modules.builtin* "$MODROOT/$moddir/modules.order" "$stage/$moddir/"
	depmod -b "$stage" "$ABI"
}

case $what in
base)
	out=${2:?}
	mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,mnt,etc,root,export,v9fs/bin}
	cp /bin/busybox "$stage/bin/busybox"
	for app in $(/bin/busybox --list-full); do
		[ "$(basename "$app")" = busybox ] && continue
		[ -e "$stage/$app" ] || ln -s /bin/busybox "$stage/$app"
	done
	install -m 755 "$top/tests/vm/init" "$stage/init"
	install -m 644 "$top/tests/vm/klog-bad" "$stage/v9fs/klog-bad"
	printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' \
		> "$stage/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' > "$stage/etc/group"
	printf '127.0.0.1 localhost\n::1 localhost\n' > "$stage/etc/hosts"
	printf 'passwd: files\ngroup: files\nhosts: files\n' > "$stage/etc/nsswitch.conf"
	[ -d "$top/build/guest/bin" ] && cp -a "$top/build/guest/bin/." "$stage/v9fs/bin/"
	cp -a "$top/tests/guest" "$stage/v9fs/tests"
	cp -a "$top/tests/vm/selftest" "$stage/v9fs/selftest"
	[ -d "$top/bench" ] && cp -a "$top/bench" "$stage/v9fs/bench"
	command -v diod > /dev/null && copy_prog "$(command -v diod)"
	# busybox's mke2fs makes ext2 without extended attributes, which
	# cachefiles needs: the host's, as /usr/bin/mke2fs.
	copy_prog "$(command -v mke2fs || echo /sbin/mke2fs)"
	pack "$out"
	;;
modules)
	series=${2:?} out=${3:?}
	# shellcheck disable=SC2086
	stage_modules "$series" $MODULES_WANT
	install -D -m 644 "$top/build/$series/9p2000.ko" "$stage/v9fs/9p2000.ko"
	pack "$out"
	;;
anchors)
	series=${2:?} out=${3:?} sections=" $(echo "${4:?}" | tr , ' ') "
	want=$MODULES_WANT
	# (in 6.12, fuse and virtiofs are built in: then nothing matches them)
	case $sections in *" virtiofs "*)
		want="$want kernel/fs/fuse/fuse.ko kernel/fs/fuse/virtiofs.ko" ;;
	esac
	case $sections in *" nfs "*)
		want="$want kernel/fs/nfsd/nfsd.ko kernel/fs/nfs/nfsv4.ko" ;;
	esac
	# shellcheck disable=SC2086
	stage_modules "$series" $want
	case $sections in *" nfs "*) ;; *) pack "$out"; exit 0 ;; esac
	nfs=$("$top/tests/vm/nfs-tools.sh")
	libpath=
	for d in lib/x86_64-linux-gnu usr/lib/x86_64-linux-gnu; do
		[ -d "$nfs/$d" ] && libpath=$libpath${libpath:+:}$nfs/$d
	done
	for tool in usr/sbin/rpc.nfsd usr/sbin/exportfs usr/sbin/rpc.mountd sbin/mount.nfs; do
		install -D -m 755 "$nfs/$tool" "$stage/$tool"
		missing=$(LD_LIBRARY_PATH=$libpath ldd "$nfs/$tool" | grep 'not found' || true)
		[ -z "$missing" ] || { echo "initramfs.sh: $tool: $missing" >&2; exit 1; }
		for lib in $(LD_LIBRARY_PATH=$libpath ldd "$nfs/$tool" | grep -o '/[^ ]*'); do
			# a library unpacked from a package goes where the host keeps its own
			dst=${lib#"$nfs"}
			[ -e "$stage$dst" ] || install -D -m 755 "$lib" "$stage$dst"
		done
	done
	ln -s mount.nfs "$stage/sbin/mount.nfs4"
	# libtirpc reads the transports from /etc/netconfig
	if [ -e /etc/netconfig ]; then
		install -D -m 644 /etc/netconfig "$stage/etc/netconfig"
	else
		install -D -m 644 "$nfs/etc/netconfig" "$stage/etc/netconfig"
	fi
	for f in /etc/services /etc/protocols; do
		[ -e "$f" ] && install -D -m 644 "$f" "$stage$f"
	done
	mkdir -p "$stage/var/lib/nfs/v4recovery" "$stage/run"
	pack "$out"
	;;
extra)
	out=${2:?}
	shift 2
	for p in "$@"; do
		path=$(command -v "$p") || { echo "initramfs.sh: no host program '$p'" >&2; exit 1; }
		copy_prog "$path"
	done
	if [ -n "${V9FS_SCRIPT:-}" ]; then
		install -D -m 755 "$V9FS_SCRIPT" "$stage/v9fs/user/script"
	fi
	if [ -n "${V9FS_CMD:-}" ]; then
		mkdir -p "$stage/v9fs/user"
		printf '%s\n' "$V9FS_CMD" > "$stage/v9fs/user/cmd"
	fi
	pack "$out"
	;;
ab)
	out=${2:?} ko=${3:?} v9fsd=${4:?}
	install -D -m 644 "$ko" "$stage/v9fs/ab/base/9p2000.ko"
	install -D -m 755 "$v9fsd" "$stage/v9fs/ab/base/v9fsd"
	pack "$out"
	;;
*)
	echo "initramfs.sh: unknown part '$what'" >&2
	exit 2
	;;
esac
