#!/bin/sh
# Client layer of 9p2000.ko (-t 9P) against v9fsd in the guest: version and
# msize negotiation as /proc/mounts shows them, every transport (fd over a
# socketpair and over a FIFO pair), many requests
# in flight, big pipelined reads and writes, a killed reader of a stalled
# server, timeout=, a dead server, umount -f, and no object left behind.
# timeout: 300
. /v9fs/tests/lib.sh

P=5643
EXP=/tmp/rpc-export
M=/mnt/rpc
PARAMS=/sys/module/9p2000/parameters

now_cs() { # uptime in centiseconds
	read -r _up _ < /proc/uptime
	echo "${_up%.*}${_up#*.}" | sed 's/^0*//;s/^$/0/'
}

live() { cat "$PARAMS/live_$1" 2> /dev/null || echo '?'; }

# opt_of MNT KEY: value of KEY= in the /proc/mounts line of MNT.
opt_of() {
	awk -v m="$1" -v k="$2" '$2 == m {
		n = split($4, o, ",")
		for (i = 1; i <= n; i++) if (index(o[i], k "=") == 1) print substr(o[i], length(k) + 2)
	}' /proc/mounts
}

# wait_gone PID CS: 0 if PID is gone within CS centiseconds.
wait_gone() {
	_t0=$(now_cs)
	while kill -0 "$1" 2> /dev/null; do
		[ $(($(now_cs) - _t0)) -gt "$2" ] && return 1
		sleep 0.05
	done
	return 0
}

# is_eio TEXT: TEXT is an EIO message (libc or busybox wording).
is_eio() {
	case $1 in
	*"I/O error"* | *"Input/output error"*) return 0 ;;
	esac
	return 1
}

# settle WHAT: wait up to 2 s for live_WHAT to reach 0 (clunks are sent
# without waiting, so a reply may still be on its way); prints the count.
settle() {
	_i=0
	while [ "$(live $1)" != 0 ] && [ $_i -lt 20 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	live $1
}

mounted() { awk -v m="$1" '$2 == m { f = 1 } END { exit !f }' /proc/mounts; }

# waiting PID: a request of ours is in flight and PID is blocked (lib.sh) on it
waiting() { [ "$(live reqs)" != 0 ] && blocked "$1"; }

# asleep PID...: every PID is there and asleep (S or D), twice 0.2 s apart
asleep() {
	for _r in 1 2; do
		awk '$3 != "S" && $3 != "D" { bad = 1 } END { exit bad }' \
			$(for _p in "$@"; do echo /proc/$_p/stat; done) 2> /dev/null || return 1
		[ $_r = 2 ] || sleep 0.2
	done
}

mkdir -p "$EXP" "$M"
dd if=/dev/urandom of="$EXP/blob" bs=64k count=64 2> /dev/null # 4 MiB
for i in 1 2 3 4 5 6 7 8; do
	dd if=/dev/urandom of="$EXP/small$i" bs=1k count=$((i * 9)) 2> /dev/null
done

if ! grep -qw 9P /proc/filesystems; then
	check "insmod with live_fids=7 is refused (the counters are read-only)" \
		sh -c "! insmod $V9FS_KO live_fids=7 2> /dev/null"
fi
if ! load_client 9P; then
	not_ok "9p2000.ko loads"
	exit 0
fi
ok "9p2000.ko loads"
check "live counters start at zero" \
	test "$(live clients)/$(live fids)/$(live reqs)" = "0/0/0"

if ! v9fsd_start "$EXP" $P -m 16384; then
	not_ok "v9fsd starts (msize capped at 16384)"
	exit 0
fi

# --- negotiation -----------------------------------------------------------
if mount_9p 9P tcp 9p2000.u $P $M msize=65536; then
	ok "mount over tcp asking msize=65536 of a server capped at 16384"
	check "/proc/mounts shows the adopted msize=16384" test "$(opt_of $M msize)" = 16384
	check "/proc/mounts shows version=9p2000.u" test "$(opt_of $M version)" = 9p2000.u
	check "a file reads back through 16 KiB messages" cmp "$EXP/blob" "$M/blob"
	umount_9p $M
else
	not_ok "mount over tcp asking msize=65536 of a server capped at 16384"
fi

if mount_9p 9P tcp 9p2000 $P $M; then
	check "version=9p2000 negotiates legacy 9P2000" test "$(opt_of $M version)" = 9p2000
	check "legacy 9P2000 reads a file" cmp "$EXP/small3" "$M/small3"
	umount_9p $M
else
	not_ok "mount with version=9p2000"
fi

check "msize=2048 (below 4096) is refused" \
	sh -c "! mount -t 9P -o proto=tcp,port=$P,msize=2048 127.0.0.1 $M"
mounted $M && umount $M

# fake_version NAME REPLY [VOPT [LATER]]: mount over trans=fd against a scripted
# peer that reads the 21-byte Tversion (VOPT, default version=9p2000.u; "" asks
# for the default, 9P2000.L, of the same length) and answers with REPLY (printf
# octal escapes), then, if given, sends LATER once the next request (the
# Tattach) has begun to arrive, then goes silent; the mount has timeout=1 for
# the request left unanswered. Sets FAKE_RC and FAKE_LOG (new kernel log).
fake_version() {
	_v=${3-version=9p2000.u,}
	_f=/tmp/fake.$1
	rm -f "$_f.c2s" "$_f.s2c"
	mkfifo "$_f.c2s" "$_f.s2c"
	(dd bs=1 count=21 < "$_f.c2s" > /dev/null 2>&1 && printf "$2" > "$_f.s2c" &&
		{ [ -z "${4:-}" ] || { dd bs=1 count=1 < "$_f.c2s" > /dev/null 2>&1 &&
			printf "$4" > "$_f.s2c"; }; } &&
		sleep 8) &
	_pid=$!
	_n=$(dmesg | wc -l)
	timeout 20 mount -t 9P -o trans=fd,rfdno=3,wfdno=4,${_v}msize=65536,timeout=1 \
		none $M 3<> "$_f.s2c" 4<> "$_f.c2s" 2> /dev/null
	FAKE_RC=$?
	FAKE_LOG=$(dmesg | tail -n +$((_n + 1)))
	kill $_pid 2> /dev/null
	wait $_pid 2> /dev/null
	mounted $M && umount $M
}

# Rversion: size[4] type[1]=101 tag[2]=NOTAG msize[4] version[s]
if [ "$(printf '\023\000\000\000\145' | wc -c)" = 5 ]; then
	fake_version legacy '\023\000\000\000\145\377\377\000\000\001\000\006\0009P2000'
	case $FAKE_LOG in
	*"speaks 9P2000, not 9P2000.u: using 9P2000"*) ok "a server answering 9P2000 to 9P2000.u: fallback to 9P2000" ;;
	*) not_ok "a server answering 9P2000 to 9P2000.u: fallback to 9P2000"
		printf '%s\n' "$FAKE_LOG" | tail -n 5 | sed 's/^/#   /' ;;
	esac
	# No version=: 9P2000.L is asked for, and the .u or 9P2000 answer taken.
	fake_version dflt-u '\025\000\000\000\145\377\377\000\000\001\000\010\0009P2000.u' ""
	case $FAKE_LOG in
	*"speaks 9P2000.u, not 9P2000.L: using 9P2000.u"*) ok "no version=: asks for 9P2000.L, a server answering 9P2000.u gets 9P2000.u" ;;
	*) not_ok "no version=: asks for 9P2000.L, a server answering 9P2000.u gets 9P2000.u"
		printf '%s\n' "$FAKE_LOG" | tail -n 5 | sed 's/^/#   /' ;;
	esac
	fake_version dflt-legacy '\023\000\000\000\145\377\377\000\000\001\000\006\0009P2000' ""
	case $FAKE_LOG in
	*"speaks 9P2000, not 9P2000.L: using 9P2000"*) ok "no version=: a server answering 9P2000 to 9P2000.L gets 9P2000" ;;
	*) not_ok "no version=: a server answering 9P2000 to 9P2000.L gets 9P2000"
		printf '%s\n' "$FAKE_LOG" | tail -n 5 | sed 's/^/#   /' ;;
	esac
	fake_version unknown '\024\000\000\000\145\377\377\000\000\001\000\007\000unknown'
	case $FAKE_RC:$FAKE_LOG in
	0:*) not_ok "a server answering \"unknown\": the mount fails" ;;
	*'answered "unknown"'*) ok "a server answering \"unknown\": the mount fails, the log says why" ;;
	*) not_ok "a server answering \"unknown\": the log says why"
		printf '%s\n' "$FAKE_LOG" | tail -n 5 | sed 's/^/#   /' ;;
	esac
	fake_version absurd '\025\000\000\000\145\377\377\000\010\000\000\010\0009P2000.u'
	case $FAKE_RC:$FAKE_LOG in
	0:*) not_ok "a server offering msize 2048: the mount fails" ;;
	*"absurd msize of 2048"*) ok "a server offering msize 2048: refused as absurd" ;;
	*) not_ok "a server offering msize 2048: the log says why"
		printf '%s\n' "$FAKE_LOG" | tail -n 5 | sed 's/^/#   /' ;;
	esac
	fake_version raised '\025\000\000\000\145\377\377\000\000\002\000\010\0009P2000.u'
	case $FAKE_RC:$FAKE_LOG in
	0:*) not_ok "a server raising msize 65536 to 131072: the mount fails" ;;
	*"raised msize from 65536 to 131072"*) ok "a server raising msize to 131072: refused" ;;
	*) not_ok "a server raising msize: the log says why"
		printf '%s\n' "$FAKE_LOG" | tail -n 5 | sed 's/^/#   /' ;;
	esac
	# The Tattach goes out under tag 0, the first in turn; a reply under a
	# tag that shares its slot in the tag table (64; 0x8000, outside the
	# range of tags) must match nothing, as a late reply to a retired tag.
	_rv='\025\000\000\000\145\377\377\000\000\001\000\010\0009P2000.u'
	for _t in 64:'\100\000' 32768:'\000\200'; do
		fake_version tag${_t%%:*} "$_rv" version=9p2000.u, \
			'\024\000\000\000\151'"${_t#*:}"'\200\000\000\000\000\001\000\000\000\000\000\000\000'
		case $FAKE_RC:$FAKE_LOG in
		0:*) not_ok "an Rattach under tag ${_t%%:*} (Tattach sent as tag 0): the mount fails" ;;
		*"reply Rattach with tag ${_t%%:*} matches no request"*)
			ok "an Rattach under tag ${_t%%:*} (Tattach sent as tag 0) matches no request" ;;
		*) not_ok "an Rattach under tag ${_t%%:*}: the log says it matches no request"
			printf '%s\n' "$FAKE_LOG" | tail -n 5 | sed 's/^/#   /' ;;
		esac
	done
else
	skip "scripted Tversion replies" "printf cannot write NUL bytes"
fi

# The same fallback against a real server that does not speak 9P2000.L
# (v9fsd -o max_version=): no version= given, each client asks for .L. The
# in-tree client is the reference.
v9fsd_stop
for v in 9P2000.u 9P2000; do
	v9fsd_start "$EXP" $P -o max_version=$v || continue
	_n=$(dmesg | wc -l)
	_o=
	[ $v = 9P2000 ] && _o=,uname=root
	if timeout 30 mount -t 9P -o proto=tcp,port=$P$_o 127.0.0.1 $M; then
		ok "no version=, a server offering $v at most: the mount works"
		check "no version=, $v: the log says $v is used" \
			sh -c "dmesg | tail -n +$((_n + 1)) | grep -q 'speaks $v, not 9P2000.L: using $v'"
		check "no version=, $v: a file reads back" cmp "$EXP/small4" "$M/small4"
		echo "fallback $v" > "$M/fallback" &&
			check "no version=, $v: a file created reads back on the export" \
				test "$(cat "$EXP/fallback")" = "fallback $v"
		check "no version=, $v: owned by the attaching root on the export" \
			test "$(stat -c %u "$EXP/fallback")" = 0
		check "no version=, $v: no 9P2000.L message was sent ($(v9fsd_count $P Tgetattr) Tgetattr)" \
			test "$(v9fsd_count $P Tgetattr)/$(v9fsd_count $P Tlopen)" = 0/0
		check "no version=, $v: Tstat was used ($(v9fsd_count $P Tstat))" \
			test "$(v9fsd_count $P Tstat)" -gt 0
		rm -f "$M/fallback"
		umount_9p $M
	else
		not_ok "no version=, a server offering $v at most: the mount works"
	fi
	if load_client 9p && timeout 30 mount -t 9p -o trans=tcp,port=$P,cache=none$_o 127.0.0.1 $M; then
		cmp -s "$EXP/small4" "$M/small4" &&
			diag "in-tree client, no version=, $v: reads a file" ||
			diag "in-tree client, no version=, $v: cannot read a file"
		umount_9p $M
	else
		diag "in-tree client, no version=, a server offering $v at most: mount fails"
	fi
	v9fsd_stop
done
grep -qw 9p /proc/filesystems && unload_client 9p
v9fsd_start "$EXP" $P -m 16384 || exit 0

# --- transports ------------------------------------------------------------
if mount_9p 9P unix 9p2000.u $P $M; then
	check "unix socket transport reads a file" cmp "$EXP/blob" "$M/blob"
	umount_9p $M
else
	not_ok "mount over the unix socket"
fi

# fd: mount_9p gives the client one end of a socketpair (fdmount), v9fsd -s
# the other. 128 KiB messages are twice a pipe's or a small socket buffer's
# room, so each is written in parts.
V9FS_FD_EXPORT=$EXP
export V9FS_FD_EXPORT
if mount_9p 9P fd 9p2000.u $P $M msize=131072; then
	check "fd transport (socketpair) reads a file" cmp "$EXP/blob" "$M/blob"
	check "fd (socketpair), msize=$(opt_of $M msize): 4 MiB written and read back" \
		sh -c "timeout 120 cp $EXP/blob $M/fd-copy && timeout 120 cmp $EXP/blob $M/fd-copy"
	rm -f "$M/fd-copy"
	umount_9p $M
else
	not_ok "mount over trans=fd (socketpair)"
fi

# fd over two FIFOs held open read-write by the mounter, as before fdmount:
# still supported, and the case where a message larger than the pipe (64 KiB)
# must go in parts while the server drains it.
F=/tmp/rpc.fifo
rm -f "$F.c2s" "$F.s2c"
mkfifo "$F.c2s" "$F.s2c"
"$V9FSD" -s -e "$EXP" < "$F.c2s" > "$F.s2c" 2> "$F.log" &
fpid=$!
if timeout 30 mount -t 9P -o trans=fd,rfdno=3,wfdno=4,version=9p2000.u,msize=131072 \
	none $M 3<> "$F.s2c" 4<> "$F.c2s"; then
	check "fd (FIFO pair), msize=$(opt_of $M msize): 4 MiB written and read back" \
		sh -c "timeout 120 cp $EXP/blob $M/fifo-copy && timeout 120 cmp $EXP/blob $M/fifo-copy"
	rm -f "$M/fifo-copy"
	umount_9p $M
else
	not_ok "mount over trans=fd (FIFO pair)"
fi
kill $fpid 2> /dev/null
wait $fpid 2> /dev/null
rm -f "$F.c2s" "$F.s2c" "$F.log"

v9fsd_stop
if v9fsd_start "$EXP" $P -l "tcp:[::1]:$P"; then
	if timeout 30 mount -t 9P -o proto=tcp,port=$P,version=9p2000.u ::1 $M; then
		check "tcp over IPv6 (::1) reads a file" cmp "$EXP/small5" "$M/small5"
		umount_9p $M
	else
		not_ok "mount over tcp to ::1"
	fi
else
	skip "tcp over IPv6 (::1)" "v9fsd cannot listen on ::1"
	v9fsd_start "$EXP" $P || exit 0
fi

# --- debug= bits ------------------------------------------------------------
# 0x04 traces 9P messages, 0x20 the RPC layer, 0x40 the transport.
n=$(dmesg | wc -l)
if mount_9p 9P tcp 9p2000.u $P $M debug=0x64; then
	cat "$M/small1" > /dev/null
	umount_9p $M
	log=$(dmesg | tail -n +$((n + 1)))
	for want in ">>> Tread tag" "<<< Rread tag" "version 9P2000.u, msize" \
		"trans: tcp: connected to 127.0.0.1"; do
		case $log in
		*"$want"*) ok "debug=0x64 logs \"$want\"" ;;
		*) not_ok "debug=0x64 logs \"$want\"" ;;
		esac
	done
	n=$(dmesg | wc -l)
	mount_9p 9P tcp 9p2000.u $P $M && cat "$M/small1" > /dev/null && umount_9p $M
	case $(dmesg | tail -n +$((n + 1))) in
	*">>> T"*) not_ok "without debug= no message is traced" ;;
	*) ok "without debug= no message is traced" ;;
	esac
else
	not_ok "mount with debug=0x64"
fi

# --- many requests in flight, pipelined I/O --------------------------------
for ms in 8192 131072; do
	if ! mount_9p 9P tcp 9p2000.u $P $M msize=$ms; then
		not_ok "mount with msize=$ms"
		continue
	fi
	pids=
	for i in 1 2 3 4 5 6 7 8; do
		cmp "$EXP/small$i" "$M/small$i" > /tmp/rpc.cmp.$i 2>&1 &
		pids="$pids $!"
	done
	cmp "$EXP/blob" "$M/blob" > /tmp/rpc.cmp.0 2>&1 &
	pids="$pids $!"
	bad=0
	for p in $pids; do wait "$p" || bad=$((bad + 1)); done
	check "msize=$ms: 9 concurrent readers all see the right bytes" test $bad = 0
	check "msize=$ms: 4 MiB read with bs=1M" \
		sh -c "dd if=$M/blob bs=1M 2>/dev/null | cmp - $EXP/blob"
	rm -f "$EXP/copy"
	check "msize=$ms: 4 MiB write with bs=1M lands intact" \
		sh -c "dd if=$EXP/blob of=$M/copy bs=1M 2>/dev/null && cmp $EXP/blob $EXP/copy"
	check "msize=$ms: a read past the end gives 0 bytes" \
		test "$(dd if=$M/small1 bs=64k skip=10 2> /dev/null | wc -c)" = 0
	umount_9p $M
done
check "live fids and requests back to zero after umount" \
	test "$(live fids)/$(live reqs)" = "0/0"

# --- SIGKILL storm: flushes racing real replies ----------------------------
n=$(dmesg | wc -l)
if mount_9p 9P tcp 9p2000.u $P $M msize=8192,debug=0x20; then
	i=0
	while [ $i -lt 12 ]; do
		pids=
		for j in 1 2 3 4; do
			dd if="$M/blob" of=/dev/null bs=64k 2> /dev/null &
			pids="$pids $!"
		done
		cat "$M/small$((i % 8 + 1))" > /dev/null &
		pids="$pids $!"
		sleep 0.$((i % 4 + 1))
		kill -9 $pids 2> /dev/null
		for p in $pids; do wait "$p" 2> /dev/null; done
		i=$((i + 1))
	done
	check "after 60 readers killed mid-read the mount still reads right" \
		cmp "$EXP/blob" "$M/blob"
	r=$(settle reqs)
	check "no request left in flight after the storm ($r)" test "$r" = 0
	umount_9p $M
	check "and no fid left after umount ($(live fids))" test "$(live fids)" = 0
	diag "Tflush sent during the storm: $(dmesg | tail -n +$((n + 1)) | grep -c 'flushing tag')"

else
	not_ok "mount for the SIGKILL storm"
fi

# --- SIGKILL of a reader while the server is stalled -----------------------
if mount_9p 9P tcp 9p2000.u $P $M; then
	cat "$M/small2" > /dev/null
	kill -STOP $V9FSD_PID
	cat "$M/blob" > /dev/null 2>&1 &
	rpid=$!
	poll_until 50 0 'waiting $rpid' || diag "the reader is not blocked after 10 s"
	t0=$(now_cs)
	kill -9 $rpid
	if wait_gone $rpid 100; then
		ok "a reader stuck on a stalled server dies within 1 s of SIGKILL ($(($(now_cs) - t0))0 ms)"
	else
		not_ok "a reader stuck on a stalled server dies within 1 s of SIGKILL"
	fi
	wait $rpid 2> /dev/null
	diag "while stalled: live reqs $(live reqs), fids $(live fids)"
	kill -CONT $V9FSD_PID
	settle reqs > /dev/null
	check "after Tflush the mount still works" cmp "$EXP/blob" "$M/blob"
	check "after Rflush no request is left in flight" test "$(settle reqs)" = 0
	umount_9p $M
else
	not_ok "mount for the SIGKILL test"
fi

# --- more requests in flight than the tag table's first 64 slots -----------
# 100 readers of distinct files started while the server is stopped. Only
# one request is in flight while it stays stopped (the diag line; the others
# wait behind it in the client), but once it resumes their lookups go out
# together, more than the table's first 64 slots: the table doubles with
# requests in it (the debug log says so), and every reply must still find
# its request.
mkdir -p "$EXP/many"
i=1
while [ $i -le 100 ]; do echo "file $i" > "$EXP/many/f$i"; i=$((i + 1)); done
n=$(dmesg | wc -l)
if mount_9p 9P tcp 9p2000.u $P $M debug=0x20; then
	ls "$M/many" > /dev/null
	kill -STOP $V9FSD_PID
	pids=
	i=1
	while [ $i -le 100 ]; do
		cat "$M/many/f$i" > /tmp/rpc.many.$i 2>&1 &
		pids="$pids $!"
		i=$((i + 1))
	done
	poll_until 50 0 'asleep $pids' || diag "not every reader asleep after 20 s"
	diag "while stopped: live reqs $(live reqs)"
	kill -CONT $V9FSD_PID
	for p in $pids; do wait "$p"; done
	bad=0
	i=1
	while [ $i -le 100 ]; do
		[ "$(cat /tmp/rpc.many.$i)" = "file $i" ] || bad=$((bad + 1))
		rm -f /tmp/rpc.many.$i
		i=$((i + 1))
	done
	check "100 readers started while the server was stopped all read their file ($bad wrong)" \
		test $bad = 0
	check "... and the tag table grew past 64 slots meanwhile (debug=0x20 log)" \
		sh -c "dmesg | tail -n +$((n + 1)) | grep -q 'tag table grows to 128 slots'"
	check "... and no request is left in flight ($(settle reqs))" test "$(settle reqs)" = 0
	umount_9p $M
else
	not_ok "mount for 100 readers"
fi
rm -rf "$EXP/many"

# --- timeout= --------------------------------------------------------------
# As an NFS soft mount: a request with no reply within timeout= fails (and is
# flushed), the mount stays; only a server that leaves that Tflush unanswered
# for a whole timeout too is given up, and then every request fails at once.
if mount_9p 9P tcp 9p2000.u $P $M timeout=1; then
	check "/proc/mounts shows timeout=1" test "$(opt_of $M timeout)" = 1
	kill -STOP $V9FSD_PID
	t0=$(now_cs)
	cat "$M/small4" > /dev/null 2> /tmp/rpc.err
	rc=$?
	dt=$(($(now_cs) - t0))
	check "a request to a stalled server fails after timeout=1 (${dt}0 ms)" \
		test $rc != 0 -a $dt -ge 75 -a $dt -le 600
	kill -CONT $V9FSD_PID
	out=$(timeout 10 cat "$M/small1" 2>&1 > /dev/null)
	rc=$?
	if [ $rc = 0 ]; then
		ok "after one timeout and a server that answers again, the mount works"
	else
		not_ok "after one timeout and a server that answers again, the mount works ($out)"
	fi
	kill -STOP $V9FSD_PID
	cat "$M/small4" > /dev/null 2> /tmp/rpc.err
	t0=$(now_cs)
	out=$(timeout 10 cat "$M/small1" 2>&1 > /dev/null)
	dt=$(($(now_cs) - t0))
	if [ -n "$out" ] && [ $dt -le 600 ]; then
		ok "a silent server: the next request fails within another timeout (${dt}0 ms)"
	else
		not_ok "a silent server: the next request fails within another timeout (${dt}0 ms: $out)"
	fi
	t0=$(now_cs)
	out=$(timeout 10 cat "$M/small2" 2>&1 > /dev/null)
	dt=$(($(now_cs) - t0))
	if is_eio "$out" && [ $dt -lt 150 ]; then
		ok "a silent server given up: later requests fail with EIO at once (${dt}0 ms)"
	else
		not_ok "a silent server given up: later requests fail with EIO at once (${dt}0 ms: $out)"
	fi
	kill -CONT $V9FSD_PID
	check "umount of a timed-out mount" umount_9p $M
else
	not_ok "mount with timeout=1"
fi

# --- dead server -----------------------------------------------------------
if mount_9p 9P tcp 9p2000.u $P $M; then
	cat "$M/small1" > /dev/null
	kill -9 $V9FSD_PID
	wait $V9FSD_PID 2> /dev/null
	V9FSD_PID=
	sleep 0.2
	out=$(timeout 10 cat "$M/small1" 2>&1 > /dev/null)
	rc=$?
	if [ $rc != 0 ] && is_eio "$out"; then
		ok "a killed server: reads fail with EIO"
	else
		not_ok "a killed server: reads fail with EIO (exit $rc: $out)"
	fi
	check "ls of the dead mount fails, does not hang" \
		sh -c "! timeout 10 ls -l $M > /dev/null 2>&1"
	check "umount of a mount whose server died" umount_9p $M
	dmesg | grep -q "9p2000: connection to 127.0.0.1 is dead" &&
		ok "the kernel log says the connection died" ||
		not_ok "the kernel log says the connection died"
else
	not_ok "mount for the dead-server test"
fi

# --- umount -f -------------------------------------------------------------
v9fsd_start "$EXP" $P || exit 0
if mount_9p 9P tcp 9p2000.u $P $M; then
	cat "$M/small1" > /dev/null
	kill -STOP $V9FSD_PID
	cat "$M/blob" > /dev/null 2> /tmp/rpc.err &
	rpid=$!
	poll_until 50 0 'waiting $rpid' || diag "the reader is not blocked after 10 s"
	t0=$(now_cs)
	timeout 10 umount -f $M 2> /dev/null
	if wait_gone $rpid 200; then
		ok "umount -f releases a reader of a stalled server ($(($(now_cs) - t0))0 ms)"
	else
		not_ok "umount -f releases a reader of a stalled server"
		kill -9 $rpid
	fi
	wait $rpid 2> /dev/null
	mounted $M && timeout 10 umount $M
	check "the mount is gone after umount -f" sh -c "! awk '\$2 == \"$M\"' /proc/mounts | grep -q ."
	kill -CONT $V9FSD_PID
else
	not_ok "mount for the umount -f test"
fi
v9fsd_stop

# --- nothing left -----------------------------------------------------------
poll_until 40 0.05 '[ "$(live clients)/$(live fids)/$(live reqs)" = 0/0/0 ]'
check "no client, fid or request left: $(live clients)/$(live fids)/$(live reqs)" \
	test "$(live clients)/$(live fids)/$(live reqs)" = "0/0/0"
check "9p2000.ko unloads" unload_client 9P
if dmesg | grep -qE "BUG:|Oops|WARNING:|general protection"; then
	not_ok "no oops or warning in the kernel log"
	dmesg | grep -E -A5 "BUG:|Oops|WARNING:|general protection" | head -n 30 | sed 's/^/#   /'
else
	ok "no oops or warning in the kernel log"
fi
