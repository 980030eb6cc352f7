#!/bin/sh
# 75-tmpfile-idmap: O_TMPFILE on ours over 9P2000.L, one v9fsd export, in
# cache=none, mmap and loose (tests/guest/tmpfile.c): the file written, read
# back, fstat'd (no link), truncated, chmod'ed and mapped through its
# descriptor; a link onto an existing name refused with EEXIST; its first
# name by linkat(AT_EMPTY_PATH), a second by /proc/self/fd; the bytes then
# read from the export itself, through the mount after drop_caches and
# through a second mount. O_TMPFILE | O_EXCL may never be linked (ENOENT).
# A file closed without a link shows one hidden name in the export while
# open and none after close; after the umount no hidden name is left.
# 9P2000.u and 9P2000 refuse O_TMPFILE (EOPNOTSUPP). The in-tree client's
# answer on 9P2000.L is printed as a reference (it has no O_TMPFILE).
# timeout: 600
. /v9fs/tests/lib.sh

P=5675
EXP=/tmp/tmpf-export
M=/mnt/tmpf
M2=/mnt/tmpf2
T=/tmp/tmpf.$$
TF=/v9fs/bin/tmpfile
PARAMS=/sys/module/9p2000/parameters
mkdir -p "$EXP" "$T"
chmod 755 "$EXP"

ours_and_v9fsd "$EXP" $P || exit 0

# hidden_names DIR: how many hidden O_TMPFILE names DIR holds
hidden_names() {
	ls -A "$1" | grep -c '^\.9P-tmp-'
}

for c in none mmap loose; do
	l=".L cache=$c"
	D=$EXP/$c
	mkdir -p "$D"
	if ! mount_9p 9P tcp 9p2000.L $P $M cache=$c > $T/mount.txt 2>&1; then
		not_ok "9P $l: mount: $(tail -n 1 $T/mount.txt)"
		continue
	fi
	w=
	[ $c = none ] || w=-w
	timeout 120 $TF run $w -p "9P $l: " $M/$c n1 n2 taken
	rc=$?
	[ $rc -le 1 ] || not_ok "9P $l: tmpfile run ended (exit $rc)"
	check "9P $l: the first name's bytes, read in the export" $TF verify "$D/n1"
	echo 3 > /proc/sys/vm/drop_caches
	check "9P $l: the first name's bytes through the mount after drop_caches" \
		$TF verify "$M/$c/n1"
	if mount_9p 9P tcp 9p2000.L $P $M2 > $T/mount.txt 2>&1; then
		check "9P $l: the second name's bytes through another mount" \
			$TF verify "$M2/$c/n2"
		umount_9p $M2 || not_ok "9P $l: umount of the second mount"
	else
		not_ok "9P $l: second mount: $(tail -n 1 $T/mount.txt)"
	fi
	ref_expect 9P "$l: linkat of an O_TMPFILE | O_EXCL" "$(timeout 60 $TF excl $M/$c)" ENOENT
	timeout 60 $TF unlinked -p "9P $l: " $M/$c "$D"
	umount_9p $M || not_ok "9P $l: umount"
	ref_expect 9P "$l: hidden names left in the export after the umount" \
		"$(hidden_names "$D")" 0
done

for d in 9p2000.u 9p2000; do
	l=${d#9p2000}
	[ $d = 9p2000 ] && l=9P2000
	if ! mount_9p 9P tcp $d $P $M > $T/mount.txt 2>&1; then
		not_ok "9P $l: mount: $(tail -n 1 $T/mount.txt)"
		continue
	fi
	ref_expect 9P "$l: open(O_TMPFILE)" "$(timeout 60 $TF open $M)" EOPNOTSUPP
	umount_9p $M || not_ok "9P $l: umount"
done

v9fsd_stop
check "no fid, request or client left after the umounts" \
	test "$(cat $PARAMS/live_fids)/$(cat $PARAMS/live_reqs)/$(cat $PARAMS/live_clients)" = 0/0/0
rmmod 9p2000 || not_ok "rmmod 9p2000"

# The in-tree client on the same export, a reference: its answer is a note.
if load_client 9p > $T/load.txt 2>&1 && v9fsd_start "$EXP" $P; then
	if mount_9p 9p tcp 9p2000.L $P $M > $T/mount.txt 2>&1; then
		r=$(timeout 60 $TF open $M/none)
		diag "in-tree 9p .L: open(O_TMPFILE): $r"
		ref_expect 9p ".L: open(O_TMPFILE)" "$r" ok
		umount_9p $M
	else
		diag "in-tree 9p .L: mount: $(tail -n 1 $T/mount.txt)"
	fi
	v9fsd_stop
	unload_client 9p
else
	diag "in-tree 9p: not loaded or no v9fsd: $(cat $T/load.txt)"
fi

rm -rf "$T" "$EXP"
exit 0
