#!/bin/sh
# 71-truncate: ftruncate(2) of a file that a shared writable mapping keeps
# dirtying past the new end, while msync(2) and fsync(2) keep sending its
# dirty pages (trunc-race, tests/guest/trunc_race.c), on ours with cache=mmap
# and cache=loose over 9p2000.L and 9p2000.u, one v9fsd export; then the same
# with an open(O_TRUNC) of the file instead of the ftruncate. After each
# truncate, with the writer stopped and the file synced and closed, the
# export's file must be the new size (never larger: no page past the end may
# land after the server truncated) and hold the writer's last byte before
# the end. The flusher runs every 50 ms meanwhile (dirty_writeback and
# dirty_expire, put back after). Each of the two runs on a mount does up to
# 200 rounds or 3 s (10 s under make soak): with main's module before the
# fix about 3 rounds in 10 left the export larger, at 4 to 20 rounds a second.
# Nothing is left behind after the umounts.
# timeout: 300
. /v9fs/tests/lib.sh

P=5671
EXP=/tmp/trunc-export
M=/mnt/trunc
T=/tmp/trunc.$$
VM=/proc/sys/vm
mkdir -p "$EXP" "$T"

ours_and_v9fsd "$EXP" $P || exit 0

wb_was=$(cat $VM/dirty_writeback_centisecs)
exp_was=$(cat $VM/dirty_expire_centisecs)
echo 5 > $VM/dirty_writeback_centisecs
echo 5 > $VM/dirty_expire_centisecs

SECS=$(soak 3 10)

# race LABEL WHAT [-o]: trunc-race on $M/f, one TAP line
race() {
	_t0=$(date +%s)
	timeout 60 /v9fs/bin/trunc-race $3 $M/f "$EXP/f" 16 200 $SECS > $T/race.txt 2>&1
	_rc=$?
	diag "$1: $2: $(tail -n 1 $T/race.txt) ($(($(date +%s) - _t0)) s)"
	if [ $_rc -eq 0 ]; then
		ok "$1: $2 beside a writing shared mapping: the export keeps the new size and bytes"
	else
		not_ok "$1: $2 beside a writing shared mapping: the export keeps the new size and bytes (exit $_rc)"
		sed 's/^/#   /' $T/race.txt | head -n 12
	fi
}

for d in 9p2000.L 9p2000.u; do
	for c in mmap loose; do
		l="9P ${d#9p2000} cache=$c"
		if ! mount_9p 9P tcp $d $P $M cache=$c > $T/mount.txt 2>&1; then
			not_ok "$l: mount: $(tail -n 1 $T/mount.txt)"
			continue
		fi
		race "$l" ftruncate
		race "$l" "open(O_TRUNC)" -o
		rm -f $M/f
		umount_9p $M || not_ok "$l: umount"
	done
done

echo $wb_was > $VM/dirty_writeback_centisecs
echo $exp_was > $VM/dirty_expire_centisecs
v9fsd_stop
ours_unload
rm -rf "$T" "$EXP"
exit 0
