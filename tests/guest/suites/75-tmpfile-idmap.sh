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
#
# Idmapped mounts (tests/guest/idmap.c): a clone of a 9P2000.L access=client
# mount idmapped with a user namespace that maps ids 0-1999 to 1000-2999.
# Through it the export's owners show mapped (500 as 1500), and back: what
# uid 1500 makes there (file, directory, symlink, O_TMPFILE, a file in the
# directory it made) is owned by 500:500 in the export, a chown to 1600
# gives 600; uid 1500 reads a 0600 file of 500, uid 1600 may not, nor may
# uid 500, its owner on the server but nobody through the mapping; root,
# which has no id through it, cannot create (EOVERFLOW). Where the owners
# could not be right (access=user, 9P2000.u), the idmapping is refused:
# by mount_setattr (EINVAL) on 6.12, at first use (EOPNOTSUPP) on 6.1,
# whose VFS asks the file system type alone. The in-tree client's answer
# to mount_setattr is printed as a reference.
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

IDM=/v9fs/bin/idmap
MI=/mnt/tmpf-idmap
MAP=0:1000:2000
E=$EXP/idm
mkdir -p "$E" "$MI"
chmod 777 "$E"
echo secret > "$E/own500"
chown 500:500 "$E/own500"
chmod 600 "$E/own500"
echo shared > "$E/root0"
chmod 644 "$E/root0"
# v9fsd gives a uid the groups of its passwd entry: 500, 600 and 700 get theirs.
users_setup "$T" 500 600 700 || not_ok "users 500, 600, 700 for v9fsd"

# idm_expect TEXT WANT CMD...: ours must print WANT
idm_expect() {
	_t=$1 _w=$2
	shift 2
	ref_expect 9P ".L idmapped: $_t" "$(timeout 60 "$@" 2>&1)" "$_w"
}

if mount_9p 9P tcp 9p2000.L $P $M > $T/mount.txt 2>&1; then
	r=$(timeout 60 $IDM mount $M $MI $MAP 2>&1)
	ref_expect 9P ".L access=client: mount_setattr(MOUNT_ATTR_IDMAP)" "$r" ok
	if [ "$r" = ok ]; then
		idm_expect "server uid 500's file shows as" 1500:1500 $IDM owner $MI/idm/own500
		idm_expect "server uid 0's file shows as" 1000:1000 $IDM owner $MI/idm/root0
		ref_expect 9P ".L: the same file through the plain mount" \
			"$($IDM owner $M/idm/own500)" 500:500
		idm_expect "uid 1500 reads a 0600 file it owns through the mapping" ok \
			$IDM as 1500 1500 read $MI/idm/own500
		idm_expect "uid 1600 reads that file" EACCES \
			$IDM as 1600 1600 read $MI/idm/own500
		idm_expect "uid 500, its owner on the server only, reads that file" EACCES \
			$IDM as 500 500 read $MI/idm/own500
		ref_expect 9P ".L: uid 500 reads it through the plain mount" \
			"$($IDM as 500 500 read $M/idm/own500)" ok
		idm_expect "uid 1500 creates a file" ok $IDM as 1500 1500 create $MI/idm/c1500
		ref_expect 9P ".L idmapped: its owner in the export" "$($IDM owner $E/c1500)" 500:500
		idm_expect "its owner through the idmapped mount" 1500:1500 $IDM owner $MI/idm/c1500
		idm_expect "uid 1500 makes a directory" ok $IDM as 1500 1500 mkdir $MI/idm/d1500
		ref_expect 9P ".L idmapped: the directory's owner in the export" \
			"$($IDM owner $E/d1500)" 500:500
		idm_expect "uid 1500 creates a file in its directory" ok \
			$IDM as 1500 1500 create $MI/idm/d1500/f
		ref_expect 9P ".L idmapped: that file's owner in the export" \
			"$($IDM owner $E/d1500/f)" 500:500
		idm_expect "uid 1500 makes a symlink" ok \
			$IDM as 1500 1500 symlink own500 $MI/idm/l1500
		ref_expect 9P ".L idmapped: the symlink's owner in the export" \
			"$($IDM owner $E/l1500)" 500:500
		idm_expect "uid 1500 links an O_TMPFILE" ok \
			$IDM as 1500 1500 tmpfile $MI/idm t1500
		ref_expect 9P ".L idmapped: the O_TMPFILE's owner in the export" \
			"$($IDM owner $E/t1500)" 500:500
		idm_expect "root (no id through the mapping) creates a file" EOVERFLOW \
			$IDM as 0 0 create $MI/idm/c0
		idm_expect "root chowns uid 1500's file to 1600:1600" ok \
			$IDM as 0 0 chown $MI/idm/c1500 1600 1600
		ref_expect 9P ".L idmapped: the chowned file's owner in the export" \
			"$($IDM owner $E/c1500)" 600:600
		idm_expect "the chowned file's owner through the idmapped mount" 1600:1600 \
			$IDM owner $MI/idm/c1500
		ref_expect 9P ".L: uid 700 creates a file through the plain mount" \
			"$($IDM as 700 700 create $M/idm/c700)" ok
		idm_expect "uid 700's new file shows as" 1700:1700 $IDM owner $MI/idm/c700
		idm_expect "uid 1500 removes its symlink" ok $IDM as 1500 1500 unlink $MI/idm/l1500
		umount $MI || not_ok "9P .L idmapped: umount"
	fi
	umount_9p $M || not_ok "9P .L idmapped: umount of the plain mount"
else
	not_ok "9P .L idmapped: mount: $(tail -n 1 $T/mount.txt)"
fi

# Where owners could not be right the idmapping is refused.
case $(uname -r) in
6.1.*) refuse=first-use ;;
*) refuse=mount_setattr ;;
esac
for o in "9p2000.L access=user" "9p2000.u access=client"; do
	d=${o% *}
	a=${o#* }
	l="${d#9p2000} $a"
	if ! mount_9p 9P tcp $d $P $M $a > $T/mount.txt 2>&1; then
		not_ok "9P $l: mount: $(tail -n 1 $T/mount.txt)"
		continue
	fi
	r=$(timeout 60 $IDM mount $M $MI $MAP 2>&1)
	if [ $refuse = mount_setattr ]; then
		ref_expect 9P "$l: mount_setattr(MOUNT_ATTR_IDMAP)" "$r" EINVAL
	else
		ref_expect 9P "$l: mount_setattr(MOUNT_ATTR_IDMAP) (6.1 cannot refuse it)" "$r" ok
		ref_expect 9P "$l: stat of the idmapped mount" "$($IDM owner $MI 2>&1)" EOPNOTSUPP
		ref_expect 9P "$l: a read through the idmapped mount" \
			"$($IDM as 1500 1500 read $MI/idm/own500 2>&1)" EOPNOTSUPP
		ref_expect 9P "$l: the plain mount still works" "$($IDM owner $M/idm/own500)" 500:500
	fi
	[ "$r" = ok ] && { umount $MI || not_ok "9P $l: umount of the idmapped mount"; }
	umount_9p $M || not_ok "9P $l: umount"
done
users_teardown

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
		r=$(timeout 60 /v9fs/bin/idmap mount $M /mnt/tmpf-idmap 0:1000:2000 2>&1)
		diag "in-tree 9p .L: mount_setattr(MOUNT_ATTR_IDMAP): $r"
		ref_expect 9p ".L: mount_setattr(MOUNT_ATTR_IDMAP)" "$r" ok
		[ "$r" = ok ] && umount /mnt/tmpf-idmap
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
