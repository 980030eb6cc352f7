#!/bin/sh
# 62-dirbuf: a directory is read in replies as large as the msize allows (as
# the in-tree client reads it), into a buffer allocated at the first read and
# freed at the end of the listing. With msize=1 MiB: a small directory lists
# in one Tread (plus the empty ones that end it); a directory of 3000 long
# names (about 500 KiB of stat records) lists completely and in the server's
# order; a listing read with a small getdents buffer across many calls sees
# every entry once; and over 9P2000.u and .L our client sends no more Treads
# (Treaddirs) for it than the in-tree client on the same server.
# timeout: 300
. /v9fs/tests/lib.sh

P=5663
EXP=/tmp/dirbuf-export
M=/mnt/dirbuf
mkdir -p "$EXP/small" "$EXP/big"
for n in a b c; do : > "$EXP/small/$n"; done
pad=0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890
i=0
while [ $i -lt 3000 ]; do
	: > "$EXP/big/$pad-$i"
	i=$((i + 1))
done

ours_and_v9fsd "$EXP" $P || exit 0
if ! mount_9p 9P tcp 9p2000.u $P $M msize=1048576 > /tmp/dirbuf.mount 2>&1; then
	not_ok "mount 9P with msize=1048576: $(tail -n 1 /tmp/dirbuf.mount 2> /dev/null)"
	v9fsd_stop
	exit 0
fi
diag "$(grep " $M " /proc/mounts)"

r0=$(v9fsd_count $P Tread)
got=$(ls $M/small | tr '\n' ' ')
r1=$(v9fsd_count $P Tread)
check "a small directory lists whole ($got)" [ "$got" = "a b c " ]
# one Tread with the entries, then the empty one(s) that end the listing
check "a small directory costs at most 3 Treads (took $((r1 - r0)))" [ $((r1 - r0)) -le 3 ]

r0=$(v9fsd_count $P Tread)
n=$(ls -1 $M/big | wc -l)
r1=$(v9fsd_count $P Tread)
diag "3000 long names: $((r1 - r0)) Treads"
check "3000 long names list whole ($n)" [ "$n" -eq 3000 ]
check "the big directory takes fewer Treads than 8 KiB chunks would (took $((r1 - r0)))" \
	[ $((r1 - r0)) -lt 40 ]
ls $EXP/big | sort > /tmp/dirbuf.want
ls $M/big | sort > /tmp/dirbuf.got
check "every name of the big directory, once" cmp /tmp/dirbuf.want /tmp/dirbuf.got
# find reads with its own buffer size; a second pass sees the same set
find $M/big -mindepth 1 | sed 's,.*/,,' | sort > /tmp/dirbuf.got2
check "a second listing (find) sees the same names" cmp /tmp/dirbuf.want /tmp/dirbuf.got2

umount_9p $M

# listing_requests CLIENT DIALECT TYPE: the TYPE requests that reading the big
# directory to its end (getdents64 alone, no stat) takes through a fresh mount
# of CLIENT, or "" if it did not mount or the listing was not whole
listing_requests() {
	mount_9p "$1" tcp "$2" $P $M msize=1048576 > /tmp/dirbuf.mount 2>&1 || return 0
	_r0=$(v9fsd_count $P "$3")
	_got=$(/v9fs/bin/lprobe readdir $M/big)
	_r1=$(v9fsd_count $P "$3")
	umount_9p $M
	_n=${_got#ok }
	_n=${_n%% *}
	case $_got in
	"ok "*) [ "$_n" -ge 3000 ] && echo $((_r1 - _r0)) && return 0 ;;
	esac
	echo "$1 $2: lprobe readdir: ${_got%% \[*}" > /tmp/dirbuf.mount
}
for d in 9p2000.u:Tread 9p2000.L:Treaddir; do
	t=${d#*:}
	d=${d%:*}
	if ! load_client 9p; then
		skip "$d: no more ${t}s than the in-tree client" "the in-tree client did not load"
		continue
	fi
	theirs=$(listing_requests 9p $d $t)
	ours=$(listing_requests 9P $d $t)
	if [ -z "$theirs" ] || [ -z "$ours" ]; then
		not_ok "$d: the side-by-side listing: $(tail -n 1 /tmp/dirbuf.mount)"
		continue
	fi
	check "$d: 3000 long names in no more ${t}s than the in-tree client ($ours against $theirs)" \
		[ "$ours" -le "$theirs" ]
done
unload_client 9p 2> /dev/null
rmmod 9p2000 2> /dev/null
v9fsd_stop
rm -rf "$EXP" /tmp/dirbuf.*
exit 0
