#!/bin/sh
# timeout: 900
# 60-faults: a 9P client facing a server that dies, stalls or lies must give an
# error, never hang, and leave a module that unloads.
#   - v9fsd killed (SIGKILL) during a large read and during a large write
#   - over trans=fd on a socketpair (fdmount, `v9fsd -s`): the server killed with
#     the mount idle, then during a large read; the end of file must fail the
#     requests with EIO at once, without timeout=; the server stopped (SIGSTOP)
#     under a reader blocked in read(2): umount and umount -f return within
#     seconds, the read fails with EIO
#   - v9fsd stopped (SIGSTOP) under a reader, then the reader SIGKILLed: gone in 1 s
#   - hostile-9p in each mode: the read fails (or, in mode none, succeeds), no hang
#   - rmmod 9p2000 after the last umount, no slab objects left behind
# Each scenario runs on the in-tree client first (the reference) and then on ours.
# A reference failure is shown as a SKIP (it is not our bug); a failure of ours that
# the reference shares is a SKIP naming that; any other failure of ours is not ok.
. /v9fs/tests/lib.sh

PORT=5660
HPORT=5661
EXPORT=/export/faults
OUT=/tmp/faults.$$
HOSTILE=/v9fs/bin/hostile-9p
DIALECT=9p2000.u
mkdir -p "$OUT" "$EXPORT"
: > "$OUT/ref-fails"

# result CLIENT PASSED TEXT [DETAIL]: one TAP line, with the reference rule above.
result() {
	_c=$1 _p=$2 _t=$3 _why=${4:-}
	if [ "$_p" = 1 ]; then
		ok "$_c: $_t"
	elif [ "$_c" = 9p ]; then
		echo "$_t" >> "$OUT/ref-fails"
		skip "9p: $_t" "reference (in-tree) client fails this: $_why"
	elif grep -qxF "$_t" "$OUT/ref-fails"; then
		skip "9P: $_t" "the in-tree client fails this too: $_why"
	else
		not_ok "9P: $_t${_why:+: $_why}"
	fi
}

# gone PID TENTHS: wait until PID has exited (zombie counts as exited); 0 if it did
# within TENTHS tenths of a second. Sets WAITED to the tenths it took.
gone() {
	WAITED=0
	while [ $WAITED -lt "$2" ]; do
		[ -e /proc/$1/stat ] || return 0
		case $(cut -d' ' -f3 /proc/$1/stat 2> /dev/null) in Z | X | "") return 0 ;; esac
		sleep 0.1
		WAITED=$((WAITED + 1))
	done
	return 1
}

# moving PID read|write: PID has read (written) its first bytes: the transfer
# is under way
moving() {
	_f=rchar
	[ "$2" = write ] && _f=wchar
	[ "$(awk -v f="$_f:" '$1 == f { print $2 }' /proc/$1/io 2> /dev/null)" -gt 0 ] 2> /dev/null
}

# under_way PID read|write: wait (up to 10 s) until PID is moving
under_way() {
	wait_until 10 moving "$1" "$2" || diag "no $2 under way after 10 s: $(cat /proc/$1/io 2> /dev/null | tr '\n' ' ')"
}

# stuck PID: wait (up to 10 s) until PID is blocked (lib.sh): asleep, no byte moving
stuck() {
	poll_until 50 0 "blocked $1" || diag "PID $1 not blocked after 10 s: state $(cut -d' ' -f3 /proc/$1/stat 2> /dev/null)"
}

# unstick MNT PID...: after a failed check, free whatever is still blocked.
unstick() {
	_m=$1
	shift
	for _p in "$@"; do kill -9 "$_p" 2> /dev/null; done
	umount -f "$_m" 2> /dev/null
	umount -l "$_m" 2> /dev/null
}

start_server() {
	v9fsd_start "$EXPORT" $PORT || { not_ok "v9fsd serves $EXPORT"; return 1; }
}

mount_client() { # mount_client CLIENT MNT: mount v9fsd (tcp, $DIALECT)
	mount_9p "$1" tcp $DIALECT $PORT "$2" > "$OUT/mount.txt" 2>&1 && return 0
	result "$1" 0 "mount v9fsd for the fault tests" "$(tail -n 1 "$OUT/mount.txt")"
	return 1
}

# --- v9fsd killed during a large read / write ------------------------------------
# kill_server: SIGKILL the server of the mount (v9fsd_start's or fdmount's).
kill_server() {
	kill -9 $SRV_PID 2> /dev/null
	if [ "$SRV_PID" = "${V9FSD_PID:-}" ]; then
		wait $V9FSD_PID 2> /dev/null
		V9FSD_PID=
	else
		gone $SRV_PID 50	# fdmount's server is not our child
	fi
}

# server_mount CLIENT MNT tcp|fd: a server and a mount of it; sets SRV_PID.
# fd: a private `v9fsd -s` on a socketpair (lib.sh's mount_9p, tests/guest/fdmount.c).
server_mount() {
	if [ "$3" = fd ]; then
		if ! V9FS_FD_EXPORT=$EXPORT mount_9p "$1" fd $DIALECT 0 "$2" \
			> "$OUT/mount.txt" 2>&1; then
			result "$1" 0 "fd: mount v9fsd -s over a socketpair" \
				"$(tail -n 1 "$OUT/mount.txt")"
			return 1
		fi
		SRV_PID=$V9FS_FD_PID
		return 0
	fi
	start_server || return 1
	mount_client "$1" "$2" || { v9fsd_stop; return 1; }
	SRV_PID=$V9FSD_PID
}

kill_during() { # kill_during CLIENT read|write [fd]
	_c=$1 _what=$2 _m=/mnt/faults-$1
	_tr=${3:-tcp} _pre=${3:+$3: }	# tcp results keep their old names
	server_mount $_c $_m $_tr || return
	if [ $_what = read ]; then
		timeout 120 dd if=$_m/big of=/dev/null bs=1M > "$OUT/dd.txt" 2>&1 &
	else
		timeout 120 dd if=/dev/zero of=$_m/wfile bs=1M count=256 conv=fsync \
			> "$OUT/dd.txt" 2>&1 &
	fi
	_dd=$!
	under_way $_dd $_what
	if gone $_dd 1; then
		result $_c 0 "${_pre}v9fsd killed during a large $_what: $_what still running at the kill" \
			"finished in under a second, test inconclusive"
	fi
	kill_server
	if gone $_dd 300; then
		wait $_dd
		_rc=$?
		_err=$(grep -v 'records\|copied' "$OUT/dd.txt" | tail -n 1)
		result $_c "$([ $_rc -ne 0 ] && [ $_rc -ne 124 ] && [ $_rc -ne 143 ] && echo 1)" \
			"${_pre}v9fsd killed during a large $_what: $_what fails (took $((WAITED / 10)) s)" \
			"dd exit $_rc: $_err"
		case $_err in
		*"Input/output error"* | *"I/O error"*) _eio=1 ;;
		*) _eio=0 ;;
		esac
		result $_c $_eio "${_pre}v9fsd killed during a large $_what: the error is EIO" "$_err"
	else
		result $_c 0 "${_pre}v9fsd killed during a large $_what: $_what fails" \
			"still blocked 30 s after the kill"
		unstick $_m $_dd
	fi
	timeout 30 ls $_m > /dev/null 2> "$OUT/ls.txt"
	_rc=$?
	result $_c "$([ $_rc -ne 0 ] && [ $_rc -ne 124 ] && [ $_rc -ne 143 ] && echo 1)" \
		"${_pre}after the server died ($_what), a new request fails at once" \
		"ls exit $_rc: $(cat "$OUT/ls.txt")"
	if timeout 30 umount $_m 2> "$OUT/umount.txt" || timeout 30 umount -f $_m \
		2>> "$OUT/umount.txt"; then
		result $_c 1 "${_pre}umount after the server died ($_what)"
	else
		result $_c 0 "${_pre}umount after the server died ($_what)" "$(cat "$OUT/umount.txt")"
		umount -l $_m 2> /dev/null
	fi
	rm -f "$EXPORT/wfile"
}

# --- fd: the server killed under an idle mount ---------------------------------------
# On a socketpair the client reads end of file when the server dies: the next
# request must fail with EIO within 2 s (no timeout= given), and umount works.
fd_dead_idle() { # fd_dead_idle CLIENT
	_c=$1 _m=/mnt/faults-fd-$1
	server_mount $_c $_m fd || return
	if ! ls $_m > /dev/null 2> "$OUT/ls.txt"; then
		result $_c 0 "fd: the mount works before the kill" "$(cat "$OUT/ls.txt")"
	fi
	kill_server
	timeout 30 stat $_m/big > /dev/null 2> "$OUT/stat.txt" &
	_st=$!
	if gone $_st 20; then
		wait $_st
		_rc=$?
		_err=$(tail -n 1 "$OUT/stat.txt")
		diag "$_c: fd: stat after the kill: exit $_rc in $((WAITED / 10)).$((WAITED % 10)) s: $_err"
		result $_c "$([ $_rc -ne 0 ] && [ $_rc -ne 124 ] && [ $_rc -ne 143 ] && echo 1)" \
			"fd: server killed, idle mount: the next request fails within 2 s" \
			"stat exit $_rc: $_err"
		case $_err in
		*"Input/output error"* | *"I/O error"*) _eio=1 ;;
		*) _eio=0 ;;
		esac
		result $_c $_eio "fd: server killed, idle mount: the error is EIO" "$_err"
	else
		result $_c 0 "fd: server killed, idle mount: the next request fails within 2 s" \
			"stat still blocked 2 s after the kill"
		gone $_st 300 || unstick $_m $_st
	fi
	timeout 30 cat $_m/big > /dev/null 2> "$OUT/cat.txt"
	_rc=$?
	result $_c "$([ $_rc -ne 0 ] && [ $_rc -ne 124 ] && [ $_rc -ne 143 ] && echo 1)" \
		"fd: server killed, idle mount: later requests fail too" \
		"cat exit $_rc: $(cat "$OUT/cat.txt")"
	if timeout 30 umount $_m 2> "$OUT/umount.txt"; then
		result $_c 1 "fd: umount after the server died"
	else
		result $_c 0 "fd: umount after the server died" "$(cat "$OUT/umount.txt")"
		unstick $_m
	fi
}

# --- fd: the server stopped under a reader, then umount and umount -f ---------------
# A reader blocked in read(2) on a server that stopped answering (SIGSTOP, the
# socketpair stays open, so no end of file): umount must return (busy) within
# seconds, umount -f must return within seconds and end the read with EIO, and the
# mount must then go away.
# bg_gone TENTHS CMD...: run CMD in the background; 0 if it ended within TENTHS
# tenths of a second (its status in BG_RC), else 1 with it killed.
bg_gone() {
	_n=$1
	shift
	"$@" > "$OUT/bg.txt" 2>&1 &
	_bg=$!
	if gone $_bg "$_n"; then
		wait $_bg
		BG_RC=$?
		return 0
	fi
	kill -9 $_bg 2> /dev/null
	wait $_bg 2> /dev/null
	BG_RC=-
	return 1
}

# fifo_mount CLIENT MNT: trans=fd over two FIFOs held open read-write by the
# mounter, `v9fsd -s` at their other ends; sets SRV_PID.
fifo_mount() {
	_f=$OUT/fifo.$1
	rm -f "$_f.c2s" "$_f.s2c"
	mkfifo "$_f.c2s" "$_f.s2c"
	"$V9FSD" -s -e "$EXPORT" < "$_f.c2s" > "$_f.s2c" 2> "$_f.log" &
	SRV_PID=$!
	case $1 in 9P) _o=trans=fd ;; *) _o=trans=fd,cache=none ;; esac
	mkdir -p "$2"
	if ! timeout 30 mount -t "$1" -o "$_o,rfdno=3,wfdno=4,version=$DIALECT" \
		none "$2" 3<> "$_f.s2c" 4<> "$_f.c2s" > "$OUT/mount.txt" 2>&1; then
		result "$1" 0 "fifo: mount v9fsd -s over a FIFO pair" "$(tail -n 1 "$OUT/mount.txt")"
		kill -9 $SRV_PID 2> /dev/null
		wait $SRV_PID 2> /dev/null
		return 1
	fi
}

fd_stop_umount() { # fd_stop_umount CLIENT [fifo]
	_c=$1 _m=/mnt/faults-fdstop-$1
	if [ "${2:-}" = fifo ]; then
		fifo_mount $_c $_m || return
	else
		server_mount $_c $_m fd || return
	fi
	_k=${2:-fd}
	dd if=$_m/big of=/dev/null bs=1M > "$OUT/dd.txt" 2>&1 &
	_dd=$!
	under_way $_dd read
	kill -STOP $SRV_PID
	stuck $_dd
	if gone $_dd 1; then
		result $_c 0 "$_k: server stopped: reader blocked at the stop" \
			"the read finished first, test inconclusive"
	else
		diag "$_c: $_k: reader state with the server stopped: $(cut -d' ' -f3 /proc/$_dd/stat)"
	fi
	bg_gone 50 umount $_m
	_u=$?
	result $_c "$([ $_u = 0 ] && echo 1)" \
		"$_k: server stopped, reader blocked: umount returns within 5 s" \
		"umount exit $BG_RC: $(cat "$OUT/bg.txt")"
	if mountpoint -q $_m 2> /dev/null || grep -q " $_m " /proc/mounts; then
		bg_gone 50 umount -f $_m
		_u=$?
		result $_c "$([ $_u = 0 ] && echo 1)" \
			"$_k: server stopped, reader blocked: umount -f returns within 5 s" \
			"umount -f exit $BG_RC: $(cat "$OUT/bg.txt")"
	fi
	if gone $_dd 50; then
		wait $_dd
		_rc=$?
		_err=$(grep -v 'records\|copied' "$OUT/dd.txt" | tail -n 1)
		result $_c "$([ $_rc -ne 0 ] && echo 1)" \
			"$_k: server stopped: umount -f ends the blocked read (in $((WAITED / 10)) s)" \
			"dd exit $_rc: $_err"
		case $_err in
		*"Input/output error"* | *"I/O error"*) _eio=1 ;;
		*) _eio=0 ;;
		esac
		result $_c $_eio "$_k: server stopped: the blocked read fails with EIO" "$_err"
	else
		result $_c 0 "$_k: server stopped: umount -f ends the blocked read" \
			"dd still blocked 5 s after umount -f"
	fi
	if grep -q " $_m " /proc/mounts; then
		if bg_gone 100 umount $_m; then
			result $_c "$([ "$BG_RC" = 0 ] && echo 1)" \
				"$_k: server stopped: the mount goes once the reader is gone" \
				"umount exit $BG_RC: $(cat "$OUT/bg.txt")"
		else
			result $_c 0 "$_k: server stopped: the mount goes once the reader is gone" \
				"umount blocked for 10 s"
		fi
	else
		result $_c 1 "$_k: server stopped: the mount goes once the reader is gone"
	fi
	kill -9 $_dd 2> /dev/null
	kill -CONT $SRV_PID 2> /dev/null
	if [ "$_k" = fifo ]; then
		kill -9 $SRV_PID 2> /dev/null
		wait $SRV_PID 2> /dev/null
	else
		kill_server
	fi
	grep -q " $_m " /proc/mounts && unstick $_m
}

# --- v9fsd stalled, reader SIGKILLed -----------------------------------------------
stall_kill() { # stall_kill CLIENT
	_c=$1 _m=/mnt/faults-$1
	start_server || return
	mount_client $_c $_m || { v9fsd_stop; return; }
	dd if=$_m/big of=/dev/null bs=1M > /dev/null 2>&1 &
	_dd=$!
	under_way $_dd read
	kill -STOP $V9FSD_PID
	stuck $_dd
	kill -9 $_dd
	if gone $_dd 10; then
		result $_c 1 "server stopped: SIGKILLed reader returns within 1 s (took 0.$WAITED s)"
	else
		result $_c 0 "server stopped: SIGKILLed reader returns within 1 s" \
			"still there after 1 s"
		gone $_dd 30 || diag "$_c: reader still blocked 3 s after SIGKILL"
	fi
	kill -CONT $V9FSD_PID
	if gone $_dd 300; then
		wait $_dd 2> /dev/null
		if timeout 30 umount $_m 2> "$OUT/umount.txt"; then
			result $_c 1 "umount after the stall"
		else
			result $_c 0 "umount after the stall" "$(cat "$OUT/umount.txt")"
			unstick $_m
		fi
	else
		result $_c 0 "umount after the stall" "reader never exited"
		unstick $_m $_dd
	fi
	v9fsd_stop
}

# --- hostile-9p ----------------------------------------------------------------------
hostile() { # hostile CLIENT MODE
	_c=$1 _mode=$2 _m=/mnt/hostile-$1
	"$HOSTILE" -m $_mode -l tcp:127.0.0.1:$HPORT 2> "$OUT/hostile.log" &
	_h=$!
	wait_listen $HPORT $_h
	if ! mount_9p $_c tcp $DIALECT $HPORT $_m > "$OUT/mount.txt" 2>&1; then
		result $_c 0 "hostile $_mode: mount" "$(tail -n 1 "$OUT/mount.txt")"
		kill $_h
		wait $_h 2> /dev/null
		return
	fi
	rm -f "$OUT/data"
	# the in-tree client is the reference only (its failure is a SKIP), and
	# it never returns from some modes: it gets 10 s, ours 25 s
	_b=250
	[ $_c = 9p ] && _b=100
	timeout -s KILL 20 dd if=$_m/data of="$OUT/data" bs=4096 count=1 > "$OUT/dd.txt" 2>&1 &
	_dd=$!
	if [ $_mode = stall ]; then
		# nothing will ever come back: the reader must at least die when killed
		stuck $_dd
		kill -9 $_dd 2> /dev/null
		if gone $_dd 10; then
			result $_c 1 "hostile stall: SIGKILLed reader returns within 1 s"
		else
			result $_c 0 "hostile stall: SIGKILLed reader returns within 1 s" \
				"still blocked"
		fi
	elif gone $_dd $_b; then
		wait $_dd
		_rc=$?
		_err=$(grep -v 'records\|copied' "$OUT/dd.txt" | tail -n 1)
		if [ $_mode = none ]; then
			result $_c "$([ $_rc -eq 0 ] && head -c 8 "$OUT/data" | grep -qx hostile &&
				echo 1)" "hostile none (control): the read succeeds" "dd exit $_rc: $_err"
		else
			result $_c "$([ $_rc -ne 0 ] && [ $_rc -ne 137 ] && echo 1)" \
				"hostile $_mode: the read fails (in $((WAITED / 10)) s)" \
				"dd exit $_rc, $(wc -c < "$OUT/data" 2> /dev/null || echo 0) bytes: $_err"
		fi
	else
		result $_c 0 "hostile $_mode: the read returns" "dd blocked for $((_b / 10)) s"
	fi
	# hostile-9p takes its per-connection children with it on SIGTERM, so the
	# umount below meets a closed connection, whatever the mode left behind
	kill $_h 2> /dev/null
	wait $_h 2> /dev/null
	if timeout 30 umount $_m 2> "$OUT/umount.txt" ||
		timeout 30 umount -f $_m 2>> "$OUT/umount.txt"; then
		result $_c 1 "hostile $_mode: umount"
	else
		result $_c 0 "hostile $_mode: umount" "$(cat "$OUT/umount.txt")"
		unstick $_m $_dd
	fi
}

# --- the runs ----------------------------------------------------------------------
dd if=/dev/zero of="$EXPORT/big" bs=1M count=256 2> /dev/null

clients=
if load_client 9p; then
	clients=9p
else
	not_ok "load the in-tree 9p client (modprobe 9p 9pnet_fd)"
fi
if load_client 9P > "$OUT/insmod.txt" 2>&1; then
	clients="$clients 9P"
else
	not_ok "mount 9P: insmod $V9FS_KO failed: $(cat "$OUT/insmod.txt")"
	skip "9P: fault tests" "our module did not load"
fi

for c in $clients; do
	timed kill_during $c read
	timed kill_during $c write
	timed fd_dead_idle $c
	timed kill_during $c read fd
	timed fd_stop_umount $c
	timed fd_stop_umount $c fifo
	timed stall_kill $c
	if [ -x "$HOSTILE" ]; then
		for mode in none malformed oversized badtag badtype bigcount close stall; do
			timed hostile $c $mode
		done
	else
		skip "$c: hostile-9p modes" "$HOSTILE is not built"
	fi
done

# The in-tree client goes first, so that only our caches (9p2000_*) are left.
case " $clients " in *" 9p "*) unload_client 9p ;; esac
case " $clients " in
*" 9P "*)
	# Counting is the kernel's: kmem_cache_destroy() at rmmod checks each of our
	# caches for objects still allocated and complains in the log if any are.
	diag "9P module state before rmmod: refcnt $(cat /sys/module/9p2000/refcnt 2> /dev/null)"
	caches=$(awk '$1 ~ /^9p2000_/ { print $1 }' /proc/slabinfo 2> /dev/null | sort -u | tr '\n' ' ')
	grep -E '^9p2000_' /proc/slabinfo 2> /dev/null | sed 's/^/#   slab before rmmod: /'
	klog0=$(dmesg | wc -l)	# only what rmmod adds (never clear the log)
	if rmmod 9p2000 2> "$OUT/rmmod.txt"; then
		ok "9P: rmmod 9p2000 after the fault tests"
	else
		not_ok "9P: rmmod 9p2000 after the fault tests: $(cat "$OUT/rmmod.txt")"
	fi
	dmesg | tail -n +$((klog0 + 1)) > "$OUT/klog"
	if grep -Eq 'still has objects|Objects remaining|Slab cache' "$OUT/klog"; then
		not_ok "9P: no objects left in our slab caches at rmmod"
		grep -E -A3 'still has objects|Objects remaining|Slab cache' "$OUT/klog" |
			head -n 20 | sed 's/^/#   /'
	else
		ok "9P: no objects left in our slab caches at rmmod (checked: ${caches:-none})"
	fi
	left=$(awk '$1 ~ /^9p2000_/ { print $1 }' /proc/slabinfo 2> /dev/null)
	if [ -z "$left" ]; then
		ok "9P: our slab caches are gone after rmmod"
	else
		not_ok "9P: our slab caches are gone after rmmod (left: $left)"
	fi
	;;
esac

v9fsd_stop
rm -rf "$OUT" "$EXPORT"
exit 0
