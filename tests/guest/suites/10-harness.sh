# The plumbing every later suite relies on: the in-tree client mounts diod
# running in the guest, and a file written through it reads back identically.
# timeout: 120
. /v9fs/tests/lib.sh

check "in-tree 9p modules load" load_client 9p
mkdir -p /tmp/diod-export /mnt/diod
diod_start /tmp/diod-export 5640 /tmp/diod.log > /dev/null ||
	not_ok "diod listens on 127.0.0.1:5640"
check "in-tree client mounts diod on 127.0.0.1" timeout 30 mount -t 9p \
	-o trans=tcp,port=5640,version=9p2000.L,uname=root,aname=/tmp/diod-export \
	127.0.0.1 /mnt/diod
dd if=/dev/urandom of=/tmp/blob bs=64k count=16 2> /dev/null
check "a 1 MiB file written through the mount" cp /tmp/blob /mnt/diod/blob
check "reaches the export unchanged" cmp /tmp/blob /tmp/diod-export/blob
echo 3 > /proc/sys/vm/drop_caches
check "and reads back identically" cmp /tmp/blob /mnt/diod/blob
check "unmount" umount /mnt/diod
diod_stop
check "in-tree modules unload" unload_client 9p
