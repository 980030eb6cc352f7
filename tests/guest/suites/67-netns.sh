#!/bin/sh
# timeout: 240
# 67-netns: a mount made from inside a network namespace of its own outlives
# every process of that namespace. The client's socket belongs to the
# namespace of the task that mounted; it must keep that namespace alive until
# the socket is gone, or the socket's release and its timers run on a freed
# struct net. Ours (9P), asserted:
#   - unix: mounted from `unshare -n` (v9fsd outside, its socket reached by
#     path); once the namespace's only process has exited (and a pause for its
#     teardown), a file is written, read back and listed through the mount,
#     and the umount returns;
#   - tcp: v9fsd and the mount both inside `unshare -n` (lo up, 127.0.0.1);
#     the data reads back while the server lives; the server, the namespace's
#     last process, is killed; then a read fails with an errno (or succeeds
#     from the cache) within its bound, and the umount returns;
#   - five unix rounds in a row, each from a namespace of its own;
#   - the kernel log shows no oops, WARN, BUG or refcount complaint.
# How many network namespaces the slab cache holds (net_namespace in
# /proc/slabinfo, when the cache is not merged) is shown as a note.
# Without KASAN a use of freed memory may pass unseen: these cases assert
# the lifetime (the mount works once the namespace has no process left, and
# comes off cleanly), not the absence of every use after free.
. /v9fs/tests/lib.sh

P=5667
P2=5668
EXP=/tmp/netns-export
M=/mnt/netns67
T=/tmp/netns.$$
mkdir -p "$EXP" "$T" "$M"

nets() {
	awk '$1 == "net_namespace" { print $2 }' /proc/slabinfo 2> /dev/null
}

klog_base=$(dmesg | wc -l)
if ! ours_and_v9fsd "$EXP" $P; then
	rm -rf "$EXP" "$T"
	exit 0
fi
echo "netns export" > "$EXP/hello"
diag "net_namespace objects at the start: $(nets)"

# unix_round N: mount from a namespace of its own, which then has no process;
# prints what went wrong, nothing when all went well.
unix_round() {
	if ! timeout 30 unshare -n sh -c "ip link set lo up &&
		mount -t 9P -o proto=unix,version=9p2000.L /tmp/v9fsd.$P.sock $M" \
		> $T/mount.txt 2>&1; then
		echo "round $1: mount from the new namespace: $(tail -n 1 $T/mount.txt)"
		return
	fi
	# its teardown runs in a work queue: give it time to run
	sleep 2
	if ! timeout 20 sh -c "echo round $1 > $M/r$1" 2> $T/io.txt; then
		echo "round $1: write: $(cat $T/io.txt)"
	elif [ "$(timeout 20 cat $M/r$1 2>&1)" != "round $1" ]; then
		echo "round $1: read back: $(timeout 20 cat $M/r$1 2>&1)"
	elif ! timeout 20 ls $M > $T/ls.txt 2>&1 || ! grep -qx hello $T/ls.txt; then
		echo "round $1: listing: $(cat $T/ls.txt)"
	fi
	if ! timeout 30 umount $M 2> $T/umount.txt; then
		echo "round $1: umount: $(cat $T/umount.txt)"
		umount -l $M 2> /dev/null
	fi
}

_r=$(unix_round 1)
check "9P: unix, mounted from a namespace whose only process has exited: write, read back, list, umount${_r:+ ($_r)}" \
	[ -z "$_r" ]
diag "net_namespace objects after the umount: $(nets)"

# tcp: the server and the mount inside the namespace
cat > $T/tcp.sh << EOF
ip link set lo up || exit 1
$V9FSD -f -e $EXP -l tcp:127.0.0.1:$P2 -o no_root_squash > $T/v9fsd2.log 2>&1 &
echo \$! > $T/v9fsd2.pid
i=0
while [ \$i -lt 50 ]; do
	grep -qi ":$(printf %04X $P2) 00000000:0000 0A" /proc/net/tcp && break
	sleep 0.1
	i=\$((i + 1))
done
mount -t 9P -o proto=tcp,port=$P2,version=9p2000.L,timeout=5 127.0.0.1 $M
EOF
if timeout 30 unshare -n sh $T/tcp.sh > $T/mount.txt 2>&1; then
	check "9P: tcp inside a namespace of its own: the data reads back" \
		[ "$(timeout 20 cat $M/hello 2>&1)" = "netns export" ]
	kill -9 "$(cat $T/v9fsd2.pid)" 2> /dev/null
	sleep 2
	_r=$(timeout -s KILL 30 cat $M/hello 2>&1; echo "rc $?")
	diag "9P: tcp: a read once the namespace's last process was killed: $(echo $_r | tr '\n' ' ')"
	case $_r in
	*"rc 137") _v=hung ;;
	*) _v=returned ;;
	esac
	check "9P: tcp: a read once the namespace's last process is gone returns ($_v)" [ $_v = returned ]
	check "9P: tcp: umount once the namespace's last process is gone" timeout 30 umount $M
	grep -q " $M " /proc/mounts && umount -l $M
else
	not_ok "9P: tcp inside a namespace of its own: mount: $(tail -n 3 $T/mount.txt | tr '\n' ' ')"
	[ -s $T/v9fsd2.pid ] && kill -9 "$(cat $T/v9fsd2.pid)" 2> /dev/null
fi

_r=
for i in 2 3 4 5 6; do
	_r="$_r$(unix_round $i)"
done
check "9P: five more unix rounds, each from a namespace of its own${_r:+ ($_r)}" [ -z "$_r" ]
sleep 2
diag "net_namespace objects at the end: $(nets)"

if dmesg | tail -n +$((klog_base + 1)) |
	grep -E "Oops|BUG:|WARNING:|general protection|unable to handle|refcount_t|use-after-free" \
	> $T/klog.txt; then
	not_ok "9P: no oops, WARN, BUG or refcount complaint in the kernel log"
	sed 's/^/#   /' $T/klog.txt | head -n 30
else
	ok "9P: no oops, WARN, BUG or refcount complaint in the kernel log"
fi

v9fsd_stop
unload_client 9P
rm -rf "$EXP" "$T"
exit 0
