#!/bin/sh
# run-mount.sh: what `make run` shows: v9fsd serves /export, our client mounts it
# at /mnt/v9fs; if our module cannot mount, the in-tree client does, and says so.
. /v9fs/tests/lib.sh

echo "hello from v9fsd" > /export/README
mkdir -p /export/dir
v9fsd_start /export 564 || exit 1
echo "# v9fsd serves /export on tcp 127.0.0.1:564 and unix:/tmp/v9fsd.564.sock"
if load_client 9P && mount_9p 9P tcp 9p2000.u 564 /mnt/v9fs; then
	echo "# mounted with our client (-t 9P)"
else
	echo "# our client (-t 9P) could not mount; using the in-tree client (-t 9p)"
	dmesg | tail -n 5 | sed 's/^/#   /'
	load_client 9p && mount_9p 9p tcp 9p2000.L 564 /mnt/v9fs || exit 1
fi
grep /mnt/v9fs /proc/mounts
ls -la /mnt/v9fs
cat /mnt/v9fs/README
echo "written in the guest" > /mnt/v9fs/dir/note && cat /export/dir/note
