#!/bin/sh
# 62-dirbuf: a directory is read into a buffer that starts at 8 KiB and grows
# only while replies fill it, whatever the msize. With msize=1 MiB: a small
# directory lists in one Tread (plus the empty ones that end it); a directory of
# 3000 long names (about 500 KiB of stat records) lists completely and in the
# server's order, in fewer Treads than 8 KiB chunks would need; a listing read
# with a small getdents buffer across many calls sees every entry once.
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

if ! v9fsd_start "$EXP" $P; then
	not_ok "v9fsd serves $EXP"
	exit 0
fi
if ! load_client 9P > /tmp/dirbuf.insmod 2>&1 ||
	! mount_9p 9P tcp 9p2000.u $P $M msize=1048576 > /tmp/dirbuf.mount 2>&1; then
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
rmmod 9p2000 2> /dev/null
v9fsd_stop
rm -rf "$EXP" /tmp/dirbuf.*
exit 0
