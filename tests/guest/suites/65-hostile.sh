#!/bin/sh
# timeout: 900
# 65-hostile: replies a server may send that must not crash, wedge or leak in
# the kernel (hostile-9p, tests/guest/hostile.c):
#   - Rerror errcodes that are kernel-internal (ERESTART* 512-517, EIOCBQUEUED
#     529, anything >= 512) in reply to Tread, Twrite, Twalk and Topen: read(2),
#     O_DIRECT pread(2), AIO, write(2) and open(2) get EIO, or the errno of the
#     error string when the string names one; errcodes below 512 pass as such
#   - a server that never answers Tversion: the mount SIGKILLed, no Tflush is
#     sent (version(5) forbids one for Tversion), nothing leaks (live_*)
#   - a server that echoes msize=4294967295: the msize is clamped to the
#     transport's limit (named in the kernel log) and the mount works
#   - one read(2) of 256 KiB from a stream file (length 0, offsets ignored,
#     Treads answered newest first): the bytes come back in stream order
#   - our slab cache has a name of its own (9p2000_inode)
#   - F_SETLEASE is refused (EINVAL): nothing would break a lease when another
#     client opens the file
#   - rename(2) onto an existing name, on a server that refuses that (EEXIST)
#     and then refuses the rename itself: the target is still there; and
#     when the rename is allowed, the target is replaced, nothing left over
#   - one write(2) of 256 KiB whose 2nd Twrite fails: the count returned is
#     what the server's file holds (nothing landed past it), or an error;
#     with the file's length at 0 (a new file) and at 1 MiB
#   - a server that never answers Tclunk and refuses fids past 6 (cache=loose,
#     ours only): opens fail with EMFILE once it refuses, none hangs (one at a
#     time and four at once), and umount returns
# 9P2000.L (hostile-9p negotiates .L, then misbehaves): every call below must
# return, within its bound, an error errno below 512 (no kernel-internal errno
# reaches user space), no oops or WARN, and the mount must unmount:
#   - Rgetattr of "data" cut after the qid, with a mode of no file type, and
#     claiming every field in valid[8] yet ending after the ctime: stat(2)
#   - Rreaddir whose count is 1000 more than its bytes, with an entry whose
#     name runs past the end: getdents(2); an entry named "a/b" or "": never
#     shown; one named "..": the listing ends; offsets that never advance:
#     getdents(2) ends (an error or the end) within 10,000 entries
#   - Rlerror with errno 0, 512, 529, 4095 and 2^31 to Tread and Tgetattr
#   - Rlopen with iounit 4294967295: the file still reads back whole (64 KiB)
#   - Rreadlink of 5000 bytes, longer than PATH_MAX: readlink(2) and a path
#     through the link fail
#   - Rstatfs with bsize 0: statfs(2) fails, or says a nonzero block size
#   - Rxattrwalk of 2^40 bytes: getxattr(2), its size query and listxattr(2)
#     fail; of 4096 bytes for a buffer of 256: ERANGE, and the size query says
#     4096; an Rread of the xattr fid 100 bytes longer than asked: getxattr(2)
#     fails; a name list without its final NUL: listxattr(2) fails
#   - Rlock with status 7: fcntl(F_SETLK) fails (not run with the in-tree
#     client, which WARNs on a status it does not know); Rgetlock of a range
#     past 2^63 or of lock type 9: fcntl(F_GETLK) fails
# Made directories and sizes, over 9P2000.u and 9P2000.L (ours asserted, the
# in-tree client's differences shown as notes):
#   - a directory whose Tmkdir (Tcreate with DMDIR in .u) and the Twalk and
#     Tgetattr (Tstat) after it answer with its parent's qid, cache=loose:
#     rmdir of it, mv from it to its parent and ls of it each return within
#     15 s (an error is fine), each on a fresh mount; a task asleep in D
#     state is a deadlock (the same directory inode locked twice)
#   - an Rstat of "data" with length 2^63 and 2^64-1 (9P2000, .u; .L as a
#     control): stat(2) fails rather than showing a negative size, and an
#     O_APPEND write(2) sends no Twrite at an offset past 2^63-1
#   - cache=mmap: an fstat(2) whose reply the server sends after a write(2)
#     that extended the file, with the old length: the size stays the
#     written one, and a store through a shared mapping into the new page
#     works (no SIGBUS)
# Our client SKIPs these while it refuses version=9p2000.L (EINVAL, the option
# named in the kernel log); any other mount failure fails.
# Our client (9P) is asserted; the in-tree client (9p) runs the same cases and
# where it differs its result is shown as a note, not as a failure.
. /v9fs/tests/lib.sh

HPORT=5665
OUT=/tmp/hostile.$$
HOSTILE=/v9fs/bin/hostile-9p
PROBE=/v9fs/bin/ioprobe
LPROBE=/v9fs/bin/lprobe
NO_DOTL="our client does not speak 9P2000.L"
PARAMS=/sys/module/9p2000/parameters
DIALECT=9p2000.u
NAME_UNKNOWN="hostile: no such error"
mkdir -p "$OUT"

klog_mark() { KLOG_BASE=$(dmesg | wc -l); }
klog_new() { dmesg | tail -n +$((KLOG_BASE + 1)); }
live() { cat "$PARAMS/live_$1" 2> /dev/null || echo '?'; }

# expect CLIENT TEXT GOT WANT: ok when GOT = WANT; for the in-tree client a
# difference is a note (lib.sh).
expect() { ref_expect "$@"; }

# hostile_start ARGS...: hostile-9p on tcp 127.0.0.1:$HPORT; sets H_PID.
hostile_start() {
	"$HOSTILE" "$@" -l tcp:127.0.0.1:$HPORT 2> "$OUT/hostile.log" &
	H_PID=$!
	wait_listen $HPORT $H_PID
}

hostile_stop() {
	kill $H_PID 2> /dev/null
	wait $H_PID 2> /dev/null
}

# probe OP FILE [COUNT]: ioprobe's line, killed after 20 s ("killed" then).
probe() {
	timeout -s KILL 20 "$PROBE" "$@" > "$OUT/probe.txt" 2>&1
	_rc=$?
	[ $_rc -eq 137 ] && echo killed && return
	cat "$OUT/probe.txt"
}

# errcase CLIENT TRIGGER ERRCODE ENAME WANT OPS...: every OP on "data" with the
# trigger answered by Rerror(ERRCODE, ENAME) must print WANT.
# (mount_9p uses _c _t _d _p _m _x: the trigger is kept in e_trig)
errcase() {
	_c=$1 e_trig=$2 e_code=$3 e_name=$4 e_want=$5 _m=/mnt/hostile65-$1
	shift 5
	hostile_start -m rerror -t $e_trig -e $e_code -E "$e_name"
	if ! mount_9p $_c tcp $DIALECT $HPORT $_m > "$OUT/mount.txt" 2>&1; then
		expect $_c "rerror $e_code to T$e_trig: mount" "$(tail -n 1 "$OUT/mount.txt")" mounted
		hostile_stop
		return
	fi
	for e_op in "$@"; do
		expect $_c "Rerror $e_code '$e_name' to T$e_trig: $e_op" \
			"$(probe $e_op $_m/data)" "$e_want"
	done
	hostile_stop
	umount_9p $_m 2> /dev/null || umount -l $_m
}

errors() { # errors CLIENT
	_c=$1
	for e in 512 513 514 515 516 517 529 600; do
		errcase $_c read $e "$NAME_UNKNOWN" "err 5" read
	done
	errcase $_c read 529 "$NAME_UNKNOWN" "err 5" pread-direct aio-read
	errcase $_c read 529 "Permission denied" "err 13" read
	errcase $_c read 13 "$NAME_UNKNOWN" "err 13" read
	errcase $_c read 511 "$NAME_UNKNOWN" "err 511" read
	errcase $_c write 529 "$NAME_UNKNOWN" "err 5" write aio-write
	errcase $_c write 512 "$NAME_UNKNOWN" "err 5" write
	errcase $_c walk 529 "$NAME_UNKNOWN" "err 5" open
	errcase $_c walk 516 "No such file or directory" "err 2" open
	errcase $_c open 529 "$NAME_UNKNOWN" "err 5" open
	errcase $_c open 517 "$NAME_UNKNOWN" "err 5" open
}

# --- Tversion never answered, the mount SIGKILLed ----------------------------
noversion() { # noversion CLIENT
	_c=$1 _m=/mnt/hostile65-$1
	hostile_start -m noversion
	mkdir -p $_m
	case $_c in
	9P) _o=proto=tcp ;;
	9p) _o=trans=tcp ;;
	esac
	klog_mark
	mount -t $_c -o "$_o,port=$HPORT,version=$DIALECT" 127.0.0.1 $_m \
		> "$OUT/mount.txt" 2>&1 &
	_p=$!
	wait_until 10 grep -q 'Tversion tag .*never answered' "$OUT/hostile.log" ||
		diag "$_c: hostile-9p logged no Tversion within 10 s"
	sleep 0.5
	if ! kill -0 $_p 2> /dev/null; then
		expect $_c "Tversion unanswered: mount still waiting 0.5 s after the server got it" \
			"exited: $(tail -n 1 "$OUT/mount.txt")" waiting
		hostile_stop
		return
	fi
	kill -9 $_p
	_i=0
	while kill -0 $_p 2> /dev/null && [ $_i -lt 30 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	wait $_p 2> /dev/null
	expect $_c "Tversion unanswered: SIGKILLed mount returns within 3 s" \
		"$([ $_i -lt 30 ] && echo returned || echo blocked)" returned
	# a Tflush would come before the connection's end
	wait_until 5 grep -q 'connection closed' "$OUT/hostile.log" ||
		diag "$_c: the connection was not closed within 5 s of the kill"
	_fl=$(grep -c 'Tflush' "$OUT/hostile.log")
	expect $_c "Tversion unanswered: no Tflush sent after the kill" "$_fl Tflush" "0 Tflush"
	if [ "$_fl" != 0 ]; then
		grep 'Tflush' "$OUT/hostile.log" | head -n 3 | sed 's/^/#   /'
	fi
	if [ $_c = 9P ]; then
		_i=0
		while [ "$(live clients)$(live reqs)$(live fids)" != 000 ] && [ $_i -lt 20 ]; do
			sleep 0.1
			_i=$((_i + 1))
		done
		expect 9P "Tversion unanswered: nothing left (clients reqs fids)" \
			"$(live clients) $(live reqs) $(live fids)" "0 0 0"
		_w=$(klog_new | grep -c 'WARNING\|BUG')
		expect 9P "Tversion unanswered: no WARNING in the kernel log" "$_w" 0
	fi
	hostile_stop
	mountpoint -q $_m 2> /dev/null && umount -l $_m
}

# --- msize=4294967295 echoed by the server ------------------------------------
hugemsize() { # hugemsize CLIENT
	_c=$1 _m=/mnt/hostile65-$1
	hostile_start -m echomsize -M 1048576
	klog_mark
	if ! mount_9p $_c tcp $DIALECT $HPORT $_m msize=4294967295 \
		> "$OUT/mount.txt" 2>&1; then
		expect $_c "msize=4294967295, echoed: mount" \
			"$(tail -n 1 "$OUT/mount.txt")" mounted
		klog_new | tail -n 3 | sed 's/^/#   /'
		hostile_stop
		return
	fi
	_ms=$(awk -v m=$_m '$2 == m' /proc/mounts | tr ',' '\n' | sed -n 's/^msize=//p')
	expect $_c "msize=4294967295, echoed: msize in /proc/mounts" "$_ms" 1048576
	if [ $_c = 9P ]; then
		_l=$(klog_new | grep -c 'msize 4294967295.*limit of 1048576')
		expect 9P "msize=4294967295: the clamp is in the kernel log" "$_l" 1
		_b=$(cat $_m/data 2> /dev/null | wc -c)
		expect 9P "msize=4294967295: the 64 KiB file reads back" "$_b" 65536
		_b=$(ls $_m 2> /dev/null)
		expect 9P "msize=4294967295: the directory lists" "$_b" data
		_w=$(klog_new | grep -c 'WARNING\|BUG')
		expect 9P "msize=4294967295: no WARNING in the kernel log" "$_w" 0
	fi
	hostile_stop
	umount_9p $_m 2> /dev/null || umount -l $_m
}

# --- one read(2) of a stream, answered out of order ----------------------------
stream_read() { # stream_read CLIENT
	_c=$1 _m=/mnt/hostile65-$1
	hostile_start -m stream
	if ! mount_9p $_c tcp $DIALECT $HPORT $_m msize=65536 > "$OUT/mount.txt" 2>&1; then
		expect $_c "stream: mount" "$(tail -n 1 "$OUT/mount.txt")" mounted
		hostile_stop
		return
	fi
	expect $_c "stream read out of order: one 256 KiB read(2) is in stream order" \
		"$(probe readseq $_m/data 262144)" "ok 262144"
	hostile_stop
	umount_9p $_m 2> /dev/null || umount -l $_m
}

# --- one write(2) whose 2nd Twrite fails ------------------------------------------
fail_write() { # fail_write CLIENT LENGTH
	_c=$1 _len=$2 _m=/mnt/hostile65-$1
	hostile_start -m failwrite -S $_len
	if ! mount_9p $_c tcp $DIALECT $HPORT $_m msize=65536 > "$OUT/mount.txt" 2>&1; then
		expect $_c "failwrite: mount" "$(tail -n 1 "$OUT/mount.txt")" mounted
		hostile_stop
		return
	fi
	_r=$(probe write $_m/data 262144)
	sleep 0.3	# chunks still in flight when write(2) returned
	_held=$(sed -n 's/.*file holds \([0-9]*\) bytes.*/\1/p' "$OUT/hostile.log" | tail -n 1)
	_held=${_held:-0}
	case $_r in
	"err "*) _v="an error" ;;
	"ok $_held") _v="the count the file holds" ;;
	*) _v="$_r, the file holds $_held" ;;
	esac
	expect $_c "file of $_len bytes, 256 KiB write(2), 2nd Twrite fails: write(2) returns" \
		"$_v" "$(case $_r in "err "*) echo "an error" ;; *) echo "the count the file holds" ;; esac)"
	diag "$_c: write(2) gave '$_r'; the server's file holds $_held bytes"
	hostile_stop
	umount_9p $_m 2> /dev/null || umount -l $_m
}

lease() { # lease CLIENT
	_c=$1 _m=/mnt/hostile65-$1
	hostile_start -m none
	if ! mount_9p $_c tcp $DIALECT $HPORT $_m > "$OUT/mount.txt" 2>&1; then
		expect $_c "lease: mount" "$(tail -n 1 "$OUT/mount.txt")" mounted
		hostile_stop
		return
	fi
	expect $_c "F_SETLEASE F_RDLCK is refused with EINVAL" "$(probe lease $_m/data)" "err 22"
	hostile_stop
	umount_9p $_m 2> /dev/null || umount -l $_m
}

rename_fail() { # rename_fail CLIENT
	_c=$1 _m=/mnt/hostile65-$1
	hostile_start -m renamefail
	if ! mount_9p $_c tcp $DIALECT $HPORT $_m > "$OUT/mount.txt" 2>&1; then
		expect $_c "renamefail: mount" "$(tail -n 1 "$OUT/mount.txt")" mounted
		hostile_stop
		return
	fi
	mv $_m/src $_m/data 2> "$OUT/mv.txt"
	_r=$?
	expect $_c "rename src onto data, refused by the server: rename(2) fails" \
		"$([ $_r -ne 0 ] && echo fails || echo succeeds)" fails
	expect $_c "rename src onto data, refused by the server: both names are left" \
		"$(ls -a $_m | grep -v '^\.\.\?$' | sort | tr '\n' ' ')" "data src "
	mv $_m/data $_m/src 2> "$OUT/mv.txt"
	_r=$?
	expect $_c "rename data onto src, allowed: rename(2) succeeds" \
		"$([ $_r -eq 0 ] && echo succeeds || echo "fails: $(cat "$OUT/mv.txt")")" succeeds
	expect $_c "rename data onto src, allowed: src replaced, nothing left over" \
		"$(ls -a $_m | grep -v '^\.\.\?$' | sort | tr '\n' ' ')" "src "
	grep 'rename\|remove' "$OUT/hostile.log" | sed "s/^/#   $_c: /"
	hostile_stop
	umount_9p $_m 2> /dev/null || umount -l $_m
}

# --- Tclunk never answered, fids running out ----------------------------------
# hostile-9p answers no Tclunk and holds each clunked fid, refusing fids beyond
# 6 with EMFILE. Ours only: the in-tree client waits for the Rclunk at close.
noclunk() { # noclunk CLIENT
	_c=$1 _m=/mnt/hostile65-$1
	hostile_start -m noclunk -F 6
	if ! mount_9p $_c tcp 9p2000.L $HPORT $_m cache=loose > "$OUT/mount.txt" 2>&1; then
		expect $_c "noclunk: mount" "$(tail -n 1 "$OUT/mount.txt")" mounted
		hostile_stop
		return
	fi
	# Each open takes a fid the server keeps; once it refuses them, the
	# client gives back what it can and waits (1 s at most) for Tclunks
	# that never come, then fails the open.
	_r=
	for _i in 1 2 3 4 5 6 7 8; do
		_r="$_r$(probe open $_m/data | tr ' ' '-') "
	done
	diag "$_c: noclunk: 8 opens: $_r"
	_v=$(echo $_r | tr ' ' '\n' | uniq | tr '\n' ' ')
	expect $_c "noclunk: opens succeed until the server refuses fids, then fail with EMFILE, none hangs" \
		"$_v" "ok-0 err-24 "
	# four at once, each giving back and waiting
	_p=
	for _i in 1 2 3 4; do
		timeout -s KILL 20 "$PROBE" open $_m/data > "$OUT/noclunk.$_i" 2>&1 &
		_p="$_p $!"
	done
	wait $_p
	_r=$(cat "$OUT"/noclunk.? | sort | uniq -c | tr -s ' ' | tr '\n' ';')
	expect $_c "noclunk: four opens at once fail with EMFILE, none hangs" "$_r" " 4 err 24;"
	expect $_c "noclunk: umount returns although no Tclunk is answered" \
		"$(timeout 30 umount $_m 2>&1 && echo unmounted)" unmounted
	hostile_stop
	mountpoint -q $_m 2> /dev/null && umount -l $_m
}

# --- 9P2000.L ----------------------------------------------------------------

# lprobe OP PATH: lprobe's line, killed after 20 s ("killed" then).
lprobe() {
	timeout -s KILL 20 "$LPROBE" "$@" > "$OUT/lprobe.txt" 2>&1
	[ $? -eq 137 ] && echo killed && return
	cat "$OUT/lprobe.txt"
}

# an_error RESULT: "an error below 512" for "err N" with N < 512, else RESULT.
an_error() {
	case $1 in
	"err "*)
		if [ "${1#err }" -lt 512 ] 2> /dev/null; then
			echo "an error below 512"
			return
		fi ;;
	esac
	echo "$1"
}

# lstart CLIENT TEXT HOSTILE_ARGS...: hostile-9p, then a 9P2000.L mount of it
# on $LM. 0 when mounted; otherwise the verdict is printed (ours refusing .L
# is the SKIP) and the server stopped.
lstart() {
	_lc=$1 _lt=$2
	shift 2
	LM=/mnt/hostile65-$_lc
	hostile_start "$@"
	klog_mark
	mount_9p $_lc tcp 9p2000.L $HPORT $LM > "$OUT/mount.txt" 2>&1 && return 0
	if [ $_lc = 9P ] && grep -q 'Invalid argument' "$OUT/mount.txt" &&
		klog_new | grep '9P' | grep -q 'version'; then
		skip "9P: .L $_lt" "$NO_DOTL"
	else
		expect $_lc ".L $_lt: mount" "$(tail -n 1 "$OUT/mount.txt")" mounted
		klog_new | tail -n 3 | sed 's/^/#   /'
	fi
	hostile_stop
	return 1
}

# lstop CLIENT TEXT: stop the server, then the mount must come off (a plain
# umount; a forced or lazy one is a failure of the case).
lstop() {
	hostile_stop
	if timeout 30 umount $LM 2> "$OUT/umount.txt"; then
		expect $1 ".L $2: umount" unmounted unmounted
	else
		expect $1 ".L $2: umount" "$(tail -n 1 "$OUT/umount.txt")" unmounted
		umount -f $LM 2> /dev/null || umount -l $LM
	fi
}

dotl() { # dotl CLIENT
	_c=$1

	# the control: the tree serves well enough over .L
	if lstart $_c "control" -m none; then
		expect $_c ".L control: data reads whole" "$(lprobe readall $LM/data)" "ok 65536"
		expect $_c ".L control: the root lists" "$(lprobe readdir $LM)" "ok 1 [data]"
		lstop $_c "control"
	fi

	for m in getattr-short getattr-nomode getattr-lies; do
		lstart $_c $m -m $m || continue
		expect $_c ".L $m: stat(2) of data fails" \
			"$(an_error "$(lprobe stat $LM/data)")" "an error below 512"
		# a well-formed reply leaves the connection usable; after a malformed
		# one a client may drop it (a protocol error), so that is only shown
		if [ $m = getattr-nomode ]; then
			expect $_c ".L $m: the root still answers" "$(lprobe stat $LM)" "ok 40755"
		else
			diag "$_c: .L $m: stat(2) of the root after it: $(lprobe stat $LM)"
		fi
		lstop $_c $m
	done

	for m in readdir-count readdir-overrun; do
		lstart $_c $m -m $m || continue
		expect $_c ".L $m: getdents(2) fails" \
			"$(an_error "$(lprobe readdir $LM)")" "an error below 512"
		lstop $_c $m
	done
	for n in "a/b" "" ".."; do
		lstart $_c "readdir-name '$n'" -m readdir-name -N "$n" || continue
		_r=$(lprobe readdir $LM)
		_v=$(an_error "$_r")
		if [ "$n" = ".." ]; then
			case $_v in "ok "* | "an error below 512") _v=ended ;; esac
			expect $_c ".L an entry named '..': getdents(2) ends" "$_v" ended
		else
			case $_v in
			"ok "*"[$n]"*) _v="shown" ;;
			"ok "* | "an error below 512") _v="not shown" ;;
			esac
			expect $_c ".L an entry named '$n': never shown" "$_v" "not shown"
		fi
		diag "$_c: getdents with an entry '$n': $_r"
		lstop $_c "readdir-name '$n'"
	done
	if lstart $_c readdir-stuck -m readdir-stuck; then
		_r=$(lprobe readdir $LM)
		case $_r in
		"ok "*) _v=ends ;;
		*) _v="$(an_error "$_r")" ;;
		esac
		[ "$_v" = "an error below 512" ] && _v=ends
		expect $_c ".L Rreaddir offsets that never advance: getdents(2) ends" "$_v" ends
		diag "$_c: getdents on offsets that never advance: $_r"
		lstop $_c readdir-stuck
	fi

	if lstart $_c iounit -m iounit; then
		expect $_c ".L Rlopen iounit 4294967295: data reads whole" \
			"$(lprobe readall $LM/data)" "ok 65536"
		expect $_c ".L Rlopen iounit 4294967295: a 256 KiB write(2)" \
			"$(probe write $LM/data 262144)" "ok 262144"
		lstop $_c iounit
	fi
	if lstart $_c readlink-long -m readlink-long; then
		expect $_c ".L Rreadlink of 5000 bytes: readlink(2) fails" \
			"$(an_error "$(lprobe readlink $LM/link)")" "an error below 512"
		expect $_c ".L Rreadlink of 5000 bytes: a path through the link fails" \
			"$(an_error "$(lprobe stat $LM/link)")" "an error below 512"
		lstop $_c readlink-long
	fi
	if lstart $_c statfs-bsize0 -m statfs-bsize0; then
		_r=$(lprobe statfs $LM)
		case $_r in
		"ok 0 "*) _v="bsize 0" ;;
		"ok "*) _v="an error or a nonzero bsize" ;;
		*) _v="$(an_error "$_r")" ;;
		esac
		[ "$_v" = "an error below 512" ] && _v="an error or a nonzero bsize"
		expect $_c ".L Rstatfs bsize 0: statfs(2)" "$_v" "an error or a nonzero bsize"
		diag "$_c: statfs with bsize 0: $_r"
		lstop $_c statfs-bsize0
	fi

	if lstart $_c xattr-huge -m xattr-huge; then
		for op in getxattr xattrsize listxattr; do
			expect $_c ".L Rxattrwalk of 2^40 bytes: $op fails" \
				"$(an_error "$(lprobe $op $LM/data)")" "an error below 512"
		done
		lstop $_c xattr-huge
	fi
	if lstart $_c xattr-big -m xattr-big; then
		expect $_c ".L Rxattrwalk of 4096 bytes: getxattr(2) into 256 gives ERANGE" \
			"$(lprobe getxattr $LM/data)" "err 34"
		expect $_c ".L Rxattrwalk of 4096 bytes: the size query" \
			"$(lprobe xattrsize $LM/data)" "ok 4096"
		lstop $_c xattr-big
	fi
	if lstart $_c xattr-bigread -m xattr-bigread; then
		expect $_c ".L Rread of an xattr fid longer than asked: getxattr(2) fails" \
			"$(an_error "$(lprobe getxattr $LM/data)")" "an error below 512"
		lstop $_c xattr-bigread
	fi
	if lstart $_c xattr-nonul -m xattr-nonul; then
		expect $_c ".L a name list with no final NUL: listxattr(2) fails" \
			"$(an_error "$(lprobe listxattr $LM/data)")" "an error below 512"
		expect $_c ".L a name list with no final NUL: getxattr(2) of a value" \
			"$(lprobe getxattr $LM/data)" "ok 16"
		lstop $_c xattr-nonul
	fi
	for m in lock-status getlock-range getlock-type; do
		if [ $_c = 9p ] && [ $m = lock-status ]; then
			diag "note: in-tree 9p: $m not run (it WARNs on a status it does not know)"
			continue
		fi
		lstart $_c $m -m $m || continue
		case $m in
		lock-status) _r=$(lprobe setlk $LM/data) ;;
		*) _r=$(lprobe getlk $LM/data) ;;
		esac
		expect $_c ".L $m: fcntl fails" "$(an_error "$_r")" "an error below 512"
		diag "$_c: $m: $_r"
		lstop $_c $m
	done

	# Rlerror. The in-tree client passes the errno through unchecked (512 and
	# 4095 reach user space), so 529 (EIOCBQUEUED) to a Tread would come out
	# of its read_iter into BUG_ON(ret == -EIOCBQUEUED) in new_sync_read and
	# end the boot: that one case is not run with it.
	for e in 0 512 529 4095 2147483648; do
		for trig in read getattr; do
			[ $_c = 9p ] && [ $e = 529 ] && [ $trig = read ] && continue
			lstart $_c "Rlerror $e to T$trig" -m rerror -t $trig -e $e || continue
			case $trig in
			read) _r=$(probe read $LM/data) ;;
			getattr) _r=$(lprobe stat $LM/data) ;;
			esac
			expect $_c ".L Rlerror $e to T$trig: the call fails" \
				"$(an_error "$_r")" "an error below 512"
			lstop $_c "Rlerror $e to T$trig"
		done
	done
}

clients=
if load_client 9p; then
	clients=9p
else
	diag "note: the in-tree 9p client did not load"
fi
if load_client 9P > "$OUT/insmod.txt" 2>&1; then
	clients="$clients 9P"
else
	not_ok "9P: insmod $V9FS_KO failed: $(cat "$OUT/insmod.txt")"
fi

# errors last: on a client that lets 529 through, the BUG kills the prober
for c in $clients; do
	timed noversion $c
	timed hugemsize $c
	timed stream_read $c
	timed lease $c
	timed rename_fail $c
	timed fail_write $c 0
	timed fail_write $c 1048576
	[ $c = 9P ] && timed noclunk $c
	timed dotl $c
	timed errors $c
done

# --- a Tremove flushed: its fid number is not reused while the server has it --
# hostile-remove-flush holds every Tremove unanswered and answers its Tflush,
# the fid kept (the remove never happened); a Twalk to a fid in use fails.
# With timeout=1 the unlink fails with ETIMEDOUT; then every open walks a new
# fid, none of which may be the one the server still holds. Ours only: the
# in-tree client has no timeout= and would wait for the Rremove for ever.
remove_flush() { # remove_flush CLIENT
	_c=$1 _m=/mnt/hostile65-$1
	hostile_start -m remove-flush
	if ! mount_9p $_c tcp $DIALECT $HPORT $_m timeout=1 > "$OUT/mount.txt" 2>&1; then
		expect $_c "remove-flush: mount" "$(tail -n 1 "$OUT/mount.txt")" mounted
		hostile_stop
		return
	fi
	_r=$(timeout -s KILL 20 rm $_m/data 2>&1; echo "rc $?")
	diag "$_c: remove-flush: rm of data, Tremove flushed: $(echo $_r | tr '\n' ' ')"
	_r=
	for _i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do
		case $(probe read $_m/data) in
		"ok "*) _r="${_r}ok " ;;
		*) _r="$_r$(tr ' ' '-' < "$OUT/probe.txt") " ;;
		esac
	done
	_v=$(echo $_r | tr ' ' '\n' | sort | uniq -c | tr -s ' ' | tr '\n' ';')
	expect $_c "remove-flush: 16 opens and reads after a flushed Tremove all succeed" \
		"$_v" " 16 ok;"
	expect $_c "remove-flush: no Twalk or Tattach to a fid the server still holds" \
		"$(grep -c 'fid in use' "$OUT/hostile.log")" 0
	expect $_c "remove-flush: umount" \
		"$(timeout 30 umount $_m 2>&1 && echo unmounted)" unmounted
	hostile_stop
	mountpoint -q $_m 2> /dev/null && umount -l $_m
}

# --- .L Rreaddir cookies in a circle ----------------------------------------
# Every entry is named "a/b" (never shown) and the cookies go 0 -> 5 -> 6 -> 5:
# getdents(2) must return an error within its bound (20 s) and not loop in the
# kernel under the directory's lock.
readdir_cycle() { # readdir_cycle CLIENT
	_c=$1
	lstart $_c readdir-cycle -m readdir-cycle || return
	_r=$(lprobe readdir $LM)
	case $_r in
	killed) _v="still looping after 20 s" ;;
	*) _v="$(an_error "$_r")" ;;
	esac
	expect $_c ".L Rreaddir cookies in a circle, no name shown: getdents(2) fails" \
		"$_v" "an error below 512"
	diag "$_c: getdents on cookies in a circle: $_r"
	lstop $_c readdir-cycle
}

# --- 9P2000 and .u directory reads cut at every entry boundary ---------------
# hostile-9p dirread-split serves 300 entries read(5)'s way, each reply ending
# at another entry boundary (1 to 7 entries); getdents(2) into 4 KiB buffers
# (lprobe) must count every one, in both dialects.
dirread_split() { # dirread_split CLIENT
	_c=$1 _m=/mnt/hostile65-$1
	for _d in 9p2000 9p2000.u; do
		hostile_start -m dirread-split
		if ! mount_9p $_c tcp $_d $HPORT $_m > "$OUT/mount.txt" 2>&1; then
			expect $_c "dirread-split $_d: mount" "$(tail -n 1 "$OUT/mount.txt")" mounted
			hostile_stop
			continue
		fi
		_r=$(lprobe readdir $_m)
		expect $_c "$_d: 300 entries in replies cut at every entry boundary: getdents(2) counts all" \
			"$(echo "$_r" | cut -d' ' -f1-2)" "ok 300"
		grep 'inside an entry' "$OUT/hostile.log" | head -n 3 | sed 's/^/#   /'
		hostile_stop
		umount_9p $_m 2> /dev/null || umount -l $_m
	done
}

# --- made directories and sizes ------------------------------------------------

# gone PID: PID has exited (a zombie counts as gone).
gone() {
	_gs=$(cut -d' ' -f3 "/proc/$1/stat" 2> /dev/null)
	[ -z "$_gs" ] || [ "$_gs" = Z ]
}

# alias_op CLIENT DIALECT OP: on a fresh cache=loose mount of hostile-9p -m
# mkdir-parentqid, mkdir x (one more name of the root, as the server answers),
# then OP (rmdir, mv, ls) in the background: it must return within 15 s. A
# task still there is killed; one asleep in D state is a deadlock, and its
# mount is left behind, lazily detached.
alias_op() {
	_c=$1 _d=$2 _op=$3 _m=/mnt/hostile65-$1
	hostile_start -m mkdir-parentqid
	if ! mount_9p $_c tcp $_d $HPORT $_m cache=loose > "$OUT/mount.txt" 2>&1; then
		expect $_c "$_d mkdir-parentqid: mount" "$(tail -n 1 "$OUT/mount.txt")" mounted
		hostile_stop
		return
	fi
	timeout -s KILL 15 mkdir $_m/x > "$OUT/mkdir.txt" 2>&1
	_rc=$?
	diag "$_c: $_d mkdir x (answered with the root's qid): exit $_rc $(cat "$OUT/mkdir.txt")"
	case $_op in
	rmdir) rmdir $_m/x > "$OUT/alias.txt" 2>&1 & ;;
	mv) mv $_m/x/data $_m/moved > "$OUT/alias.txt" 2>&1 & ;;
	ls) ls $_m/x > "$OUT/alias.txt" 2>&1 & ;;
	esac
	_p=$!
	if wait_until 15 gone $_p; then
		wait $_p
		_rc=$?
		_r=returned
		diag "$_c: $_d $_op: exit $_rc $(head -c 200 "$OUT/alias.txt" | tr '\n' ' ')"
	else
		_st=$(cut -d' ' -f3 "/proc/$_p/stat" 2> /dev/null)
		kill -9 $_p 2> /dev/null
		if wait_until 3 gone $_p; then
			_r="killed after 15 s (state $_st)"
		else
			_r="hung in state $(cut -d' ' -f3 "/proc/$_p/stat" 2> /dev/null)"
			grep -h 'lock\|down\|rwsem\|rename\|rmdir' "/proc/$_p/stack" 2> /dev/null |
				head -n 5 | sed 's/^/#   /'
		fi
	fi
	expect $_c "$_d mkdir answered with the parent's qid: $_op of it returns within 15 s" \
		"$_r" returned
	hostile_stop
	if [ "$_r" = returned ]; then
		umount_9p $_m 2> /dev/null || umount -l $_m
	else
		timeout 10 umount -l $_m 2> /dev/null
	fi
}

# huge_length CLIENT DIALECT LENGTH: "data" says LENGTH in every stat.
huge_length() {
	_c=$1 _d=$2 _len=$3 _m=/mnt/hostile65-$1
	hostile_start -m hugelength -S $_len
	if ! mount_9p $_c tcp $_d $HPORT $_m > "$OUT/mount.txt" 2>&1; then
		expect $_c "$_d hugelength: mount" "$(tail -n 1 "$OUT/mount.txt")" mounted
		hostile_stop
		return
	fi
	_s=$(timeout -s KILL 20 stat -c %s $_m/data 2> /dev/null)
	case $_s in
	"") _v=fails ;;
	-*) _v="shows a negative size ($_s)" ;;
	*) _v="shows $_s" ;;
	esac
	expect $_c "$_d a stat length of $_len: stat(2) of data" "$_v" fails
	timeout -s KILL 20 sh -c "echo appended >> $_m/data" 2> /dev/null
	_w=$(awk '/Twrite of data at/ && $NF + 0 >= 4611686018427387904 { print $NF }' \
		"$OUT/hostile.log" | head -n 1)
	expect $_c "$_d a stat length of $_len: an O_APPEND write(2) sends no Twrite past 2^63-1" \
		"${_w:+a Twrite at $_w}" ""
	hostile_stop
	umount_9p $_m 2> /dev/null || umount -l $_m
}

# stale_size CLIENT DIALECT: cache=mmap, size-race against -m stale-size.
stale_size() {
	_c=$1 _d=$2 _m=/mnt/hostile65-$1
	hostile_start -m stale-size
	if ! mount_9p $_c tcp $_d $HPORT $_m cache=mmap > "$OUT/mount.txt" 2>&1; then
		expect $_c "$_d stale-size: mount" "$(tail -n 1 "$OUT/mount.txt")" mounted
		hostile_stop
		return
	fi
	_r=$(timeout -s KILL 60 /v9fs/bin/size-race $_m/data 2>&1)
	grep -q 'answered after the Twrite' "$OUT/hostile.log" ||
		diag "$_c: $_d stale-size: the server answered no stat after a Twrite"
	expect $_c "$_d cache=mmap, fstat(2) answered after an extending write(2) with the old size: a store into the new page" \
		"$_r" "ok 69632"
	hostile_stop
	umount_9p $_m 2> /dev/null || umount -l $_m
}

made_and_sizes() { # made_and_sizes CLIENT
	for _md in 9p2000.u 9p2000; do
		for _ml in 9223372036854775808 18446744073709551615; do
			huge_length $1 $_md $_ml
		done
	done
	huge_length $1 9p2000.L 9223372036854775808
	stale_size $1 9p2000.u
	stale_size $1 9p2000.L
	# last: a deadlock leaves a task that nothing wakes
	for _md in 9p2000.L 9p2000.u; do
		for _mo in rmdir mv ls; do
			alias_op $1 $_md $_mo
		done
	done
}

for c in $clients; do
	[ $c = 9P ] && timed remove_flush $c
	timed readdir_cycle $c
	timed dirread_split $c
	timed made_and_sizes $c
done

# The in-tree client's last superblock may still be going away (its umount of a
# misbehaving server returned before the module was free): try for up to 10 s.
case " $clients " in
*" 9p "*)
	_i=0
	until [ ! -d /sys/module/9p ] || [ $_i -ge 20 ]; do
		rmmod 9p 2> /dev/null || sleep 0.5
		_i=$((_i + 1))
	done
	rmmod 9pnet_fd 2> /dev/null && rmmod 9pnet 2> /dev/null
	[ -d /sys/module/9p ] && diag "the in-tree 9p module is still loaded: $(lsmod | grep '^9p')"
	;;
esac
case " $clients " in
*" 9P "*)
	# With the in-tree client unloaded, a cache under its name would be ours.
	if [ -d /sys/module/9p ]; then
		_s="$(awk '$1 == "9p2000_inode" { print $1 }' /proc/slabinfo)"
	else
		_s="$(awk '$1 == "9p2000_inode" || $1 == "v9fs_inode_cache" { print $1 }' \
			/proc/slabinfo)"
	fi
	expect 9P "our inode cache is 9p2000_inode, not the in-tree v9fs_inode_cache" \
		"$_s" 9p2000_inode
	expect 9P "after the hostile cases: live clients reqs fids" \
		"$(live clients) $(live reqs) $(live fids)" "0 0 0"
	if rmmod 9p2000 2> "$OUT/rmmod.txt"; then
		ok "9P: rmmod 9p2000 after the hostile cases"
	else
		not_ok "9P: rmmod 9p2000 after the hostile cases: $(cat "$OUT/rmmod.txt")"
	fi
	;;
esac
rm -rf "$OUT"
exit 0
