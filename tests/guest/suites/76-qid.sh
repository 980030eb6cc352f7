#!/bin/sh
# timeout: 600
# 76-qid: inode numbers through v9fsd when the export holds other filesystems.
# The export holds two tmpfs mounts whose files have the same inode numbers
# (the same names made in the same order), a hard link on the export's own
# filesystem and one on a tmpfs. Through our client (9P) and the in-tree one
# (9p), over 9P2000.u and 9P2000.L:
#   - stat's inode numbers of all the files differ, but hard links share one;
#   - each directory entry's d_ino (readdir) is the st_ino stat gives it,
#     mount points and files on the tmpfs mounts included;
#   - v9fsd restarted and the mount made again: every file has the number
#     it had.
. /v9fs/tests/lib.sh

PORT=5760
EXPORT=/export/qid
OUT=/tmp/qid.$$
DIRINO=/v9fs/bin/dirino
NAMES="a a-link sub sub/f m1 m1/x m1/x-link m1/y m1/d m1/d/z m2 m2/x m2/y m2/d m2/d/z"
DIRS=". sub m1 m1/d m2 m2/d"

cleanup() {
	umount "$EXPORT/m1" 2> /dev/null
	umount "$EXPORT/m2" 2> /dev/null
	rm -rf "$EXPORT" "$OUT"
}

cleanup
mkdir -p "$EXPORT/sub" "$EXPORT/m1" "$EXPORT/m2" "$OUT"
: > "$EXPORT/a"
: > "$EXPORT/sub/f"
ln "$EXPORT/a" "$EXPORT/a-link"
for m in m1 m2; do
	if ! mount -t tmpfs tmpfs "$EXPORT/$m"; then
		not_ok "mount a tmpfs on $EXPORT/$m"
		cleanup
		exit 0
	fi
	: > "$EXPORT/$m/x"
	: > "$EXPORT/$m/y"
	mkdir "$EXPORT/$m/d"
	: > "$EXPORT/$m/d/z"
done
ln "$EXPORT/m1/x" "$EXPORT/m1/x-link"
diag "on the export side: m1/x inode $(stat -c %i "$EXPORT/m1/x") device $(stat -c %d "$EXPORT/m1/x")," \
	"m2/x inode $(stat -c %i "$EXPORT/m2/x") device $(stat -c %d "$EXPORT/m2/x")"

# inos MNT FILE: "name inode" of every name, in FILE
inos() {
	: > "$2"
	for _n in $NAMES; do
		echo "$_n $(stat -c %i "$1/$_n" 2> /dev/null || echo -)" >> "$2"
	done
}

# check LABEL MNT: the numbers through the mount, kept in $OUT/LABEL
check() {
	_l=$1 _m=$2 _f=$OUT/$(echo "$1" | tr / _)
	inos "$_m" "$_f"
	if grep -q ' -$' "$_f"; then
		not_ok "$_l: stat of every file ($(grep ' -$' "$_f" | tr '\n' ' '))"
	else
		ok "$_l: stat of every file"
	fi
	_all=$(grep -v -- '-link ' "$_f" | wc -l)
	_uniq=$(grep -v -- '-link ' "$_f" | awk '{ print $2 }' | sort -u | wc -l)
	if [ "$_all" -eq "$_uniq" ]; then
		ok "$_l: $_all files on three filesystems, $_uniq inode numbers"
	else
		not_ok "$_l: $_all files on three filesystems, $_uniq inode numbers"
		sed 's/^/#   /' "$_f"
	fi
	_a=$(awk '$1 == "a" || $1 == "a-link" { print $2 }' "$_f" | sort -u | wc -l)
	_x=$(awk '$1 == "m1/x" || $1 == "m1/x-link" { print $2 }' "$_f" | sort -u | wc -l)
	if [ "$_a" -eq 1 ] && [ "$_x" -eq 1 ]; then
		ok "$_l: hard links share an inode number, on the export and on a tmpfs"
	else
		not_ok "$_l: hard links share an inode number, on the export and on a tmpfs"
	fi
	_bad=0 _seen=0
	for _d in $DIRS; do
		if ! "$DIRINO" "$_m/$_d" > "$OUT/dirino.txt" 2>&1; then
			not_ok "$_l: list $_d: $(cat "$OUT/dirino.txt")"
			_bad=$((_bad + 1))
			continue
		fi
		_seen=$((_seen + $(wc -l < "$OUT/dirino.txt")))
		_b=$(awk '$2 != $3' "$OUT/dirino.txt")
		if [ -n "$_b" ]; then
			_bad=$((_bad + $(echo "$_b" | wc -l)))
			echo "$_b" | sed "s|^|#   $_d: name d_ino st_ino: |"
		fi
	done
	if [ "$_bad" -eq 0 ] && [ "$_seen" -ge 14 ]; then
		ok "$_l: readdir's d_ino is stat's st_ino for all $_seen entries"
	else
		not_ok "$_l: readdir's d_ino is stat's st_ino for all $_seen entries ($_bad differ)"
	fi
}

# again LABEL MNT: after the restart, the numbers kept by check
again() {
	_l=$1 _m=$2 _f=$OUT/$(echo "$1" | tr / _)
	inos "$_m" "$_f.again"
	if [ -s "$_f" ] && cmp -s "$_f" "$_f.again"; then
		ok "$_l: v9fsd restarted, every file has the inode number it had"
	else
		not_ok "$_l: v9fsd restarted, every file has the inode number it had"
		paste "$_f" "$_f.again" 2> /dev/null | sed 's/^/#   before, after: /'
	fi
}

if ! load_client 9p; then
	not_ok "load the in-tree 9p client (modprobe 9p 9pnet_fd)"
	cleanup
	exit 0
fi
if ! ours_and_v9fsd "$EXPORT" $PORT; then
	cleanup
	exit 0
fi

# each ACTION in check again: every client and dialect, a fresh mount
each() {
	for _c in 9P 9p; do
		for _v in 9p2000.u 9p2000.L; do
			_mnt=/mnt/qid-$_c-$_v
			if ! mount_9p $_c tcp $_v $PORT $_mnt > "$OUT/mount.txt" 2>&1; then
				not_ok "$_c/$_v: mount v9fsd: $(tail -n 1 "$OUT/mount.txt")"
				continue
			fi
			$1 "$_c/$_v" "$_mnt"
			umount_9p "$_mnt" || not_ok "$_c/$_v: umount"
		done
	done
}

each check
v9fsd_stop
if v9fsd_start "$EXPORT" $PORT; then
	each again
	v9fsd_stop
else
	not_ok "v9fsd starts again on $EXPORT"
fi
cleanup
