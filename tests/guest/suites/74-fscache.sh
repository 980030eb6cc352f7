#!/bin/sh
# timeout: 300
# 74-fscache: cache=fscache, file data kept in a local disk cache (cachefiles)
# across mounts and memory pressure. The guest brings a cache up: ext4 on a
# loop device in /tmp, bound by cachebind (cachefilesd without culling).
# The in-tree client (9p, 9p2000.L, tcp, v9fsd) is the reference; asserted:
#   - a file read through a cache=fscache mount reads back whole, and again
#     after umount, a new mount and drop_caches;
# shown as notes:
#   - whether that second read came from the disk cache (no Tread reaches
#     v9fsd): it does on 6.1; Debian's 6.12 client writes nothing to the cache
#     (netfs statistics: no cache writes), so every read goes to the server;
#   - a file changed on the export between two mounts, same size: the in-tree
#     client keys its cached data on qid.version, which v9fsd (as diod) keeps 0.
# Ours refuses cache=fscache with EINVAL and names the option in the kernel
# log; its cache=fscache checks are SKIPped while that is so.
. /v9fs/tests/lib.sh

P=5674
EXP=/tmp/fscache-export
M=/mnt/fscache
C=/var/cache/fscache
T=/tmp/fscache.$$
mkdir -p "$EXP" "$T" "$C"

# treads CMD...: the Treads v9fsd received while CMD ran
treads() {
	_b=$(v9fsd_count $P Tread)
	"$@" > /dev/null 2>&1
	echo $(($(v9fsd_count $P Tread) - _b))
}

# cache_up: ext4 on a loop device at $C, bound as cache "v9fs"; sets BIND_PID
cache_up() {
	modprobe crc32c_generic && modprobe loop && modprobe ext4 &&
		modprobe cachefiles || return 1
	dd if=/dev/zero of=$T/cache.img bs=1M count=64 2> /dev/null || return 1
	LOOP=$(losetup -f) && losetup "$LOOP" $T/cache.img || return 1
	/usr/bin/mke2fs -q -t ext4 -E nodiscard "$LOOP" > $T/mkfs.txt 2>&1 || return 1
	mount -t ext4 "$LOOP" $C || return 1
	/v9fs/bin/cachebind $C v9fs > $T/bind.txt 2>&1 &
	BIND_PID=$!
	_i=0
	while [ $_i -lt 50 ]; do
		grep -qx bound $T/bind.txt && return 0
		kill -0 $BIND_PID 2> /dev/null || break
		sleep 0.1
		_i=$((_i + 1))
	done
	sed 's/^/#   /' $T/bind.txt
	return 1
}

cache_down() {
	[ -n "${BIND_PID:-}" ] && kill $BIND_PID 2> /dev/null && wait $BIND_PID 2> /dev/null
	umount $C 2> /dev/null
	[ -n "${LOOP:-}" ] && losetup -d "$LOOP" 2> /dev/null
	rm -f $T/cache.img
}

if ! v9fsd_start "$EXP" $P; then
	not_ok "v9fsd serves $EXP"
	exit 0
fi
if cache_up; then
	ok "a cachefiles cache on ext4 is bound"
else
	not_ok "a cachefiles cache on ext4 is bound"
	cache_down
	v9fsd_stop
	exit 0
fi

dd if=/dev/urandom of=$T/data bs=64k count=16 2> /dev/null
cp $T/data "$EXP/data"

# the in-tree client, the reference
if load_client 9p &&
   mount_9p 9p tcp 9p2000.L $P $M "cache=fscache" > $T/mount.txt 2>&1; then
	ok "9p: mount cache=fscache"
	check "9p: a file read through the mount is the export's" cmp $M/data $T/data
	umount_9p $M
	mount_9p 9p tcp 9p2000.L $P $M "cache=fscache" > $T/mount.txt 2>&1
	echo 3 > /proc/sys/vm/drop_caches
	n=$(treads cat $M/data)
	# A note where it does not: the reference shows what the cache can do
	# here, ours is held to it.
	if [ "$n" -eq 0 ]; then
		diag "9p: read again after a new mount, from the disk cache (0 Tread)"
	else
		diag "note: 9p: read again after a new mount: $n Tread, nothing came from the disk cache"
		grep -E "^(Reads|CaWrOps|CaRdOps)" /proc/fs/fscache/stats 2> /dev/null | sed 's/^/#   /'
	fi
	check "9p: read again after a new mount and drop_caches, the bytes are the export's" cmp $M/data $T/data
	umount_9p $M
	dd if=/dev/urandom of=$T/data bs=64k count=16 2> /dev/null
	cp $T/data "$EXP/data"
	touch -d '2001-01-01' "$EXP/data"
	mount_9p 9p tcp 9p2000.L $P $M "cache=fscache" > $T/mount.txt 2>&1
	# Not asserted: the in-tree client keys its cached data on qid.version,
	# which v9fsd (as diod) keeps 0, and on the size, which is the same here.
	if cmp -s $M/data $T/data; then
		diag "9p: a file changed on the export between mounts reads as changed"
	else
		diag "note: 9p: a file changed on the export (same size) between mounts reads as it was"
	fi
	umount_9p $M
	unload_client 9p
else
	not_ok "9p: mount cache=fscache: $(tail -n 1 $T/mount.txt)"
fi

# ours
if load_client 9P; then
	klog_base=$(dmesg | wc -l)
	if mount_9p 9P tcp 9p2000.L $P $M "cache=fscache" > $T/mount.txt 2>&1; then
		not_ok "9P: cache=fscache is refused while it is not implemented"
		umount_9p $M
	elif dmesg | tail -n +$((klog_base + 1)) | grep -q "cache=fscache"; then
		ok "9P: cache=fscache is refused, the option named in the kernel log"
	else
		not_ok "9P: cache=fscache is refused, the option named in the kernel log"
	fi
	skip "9P: read again after a new mount, from the disk cache" \
		"cache=fscache is not implemented in this module"
else
	not_ok "load our client"
fi

cache_down
v9fsd_stop
rm -rf "$EXP" "$T"
