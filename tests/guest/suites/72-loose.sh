#!/bin/sh
# 72-loose: cache=loose, read(2) and write(2) through the page cache with
# close-to-open consistency. One v9fsd export, two mounts of ours: A with
# cache=loose, B without a cache; once over 9p2000.L and once over 9p2000.u.
# A file written through A is whole in B and the export once A closed it; what
# B or the export changed shows in A at A's next open; a second read of a file
# through A sends no Tread (through B it does); O_DIRECT reads and writes
# through A meet the cached bytes; a write-back to a stopped server fails
# fsync and close (not silently); nothing is left behind after the umounts.
# timeout: 600
. /v9fs/tests/lib.sh

P=5672
EXP=/tmp/loose-export
A=/mnt/loose-a
B=/mnt/loose-b
W=/mnt/loose-wb
T=/tmp/loose.$$
PARAMS=/sys/module/9p2000/parameters
mkdir -p "$EXP" "$T"
dd if=/dev/urandom of=$T/r1 bs=64k count=4 2> /dev/null
dd if=/dev/urandom of=$T/r2 bs=64k count=4 2> /dev/null
dd if=/dev/urandom of=$T/r3 bs=64k count=4 2> /dev/null
dd if=/dev/urandom of=$T/1m bs=64k count=16 2> /dev/null
dd if=/dev/urandom of=$T/big bs=1M count=8 2> /dev/null

# same TEXT FILE1 FILE2: ok when both have the same bytes
same() {
	if cmp "$2" "$3" > $T/cmp.txt 2>&1; then
		ok "$1"
	else
		not_ok "$1"
		sed 's/^/#   /' $T/cmp.txt
	fi
}

# treads CMD...: the Treads v9fsd received while CMD ran
treads() {
	_b=$(v9fsd_count $P Tread)
	"$@" > /dev/null 2>&1
	echo $(($(v9fsd_count $P Tread) - _b))
}

# stopped PID: every thread of PID is stopped (SIGSTOP only queues the stop)
stopped() {
	for _s in /proc/$1/task/*/stat; do
		case $(cut -d')' -f2 < $_s) in " T"* | " t"*) ;; *) return 1 ;; esac
	done
}

# wb_fail L DIALECT FSYNC: a write(2) through a cache=loose,timeout=3 mount
# with the server stopped; with FSYNC=1 dd's fsync must fail, else its close
# must. The file is opened (fd 3) while the server still answers.
wb_fail() {
	_l=$1 _what=close _conv=
	[ "$3" = 1 ] && _what=fsync _conv=conv=fsync
	if ! mount_9p 9P tcp $2 $P $W cache=loose,timeout=3 > $T/mount.txt 2>&1; then
		not_ok "$_l: mount cache=loose,timeout=3: $(tail -n 1 $T/mount.txt)"
		return
	fi
	exec 3<> $W/wberr
	kill -STOP $V9FSD_PID
	_i=0
	while ! stopped $V9FSD_PID && [ $_i -lt 100 ]; do sleep 0.1; _i=$((_i + 1)); done
	# no timeout(1) here: its watcher would hold the file open after dd;
	# timeout=3 bounds every request
	dd if=$T/r1 bs=64k $_conv >&3 2> $T/dd.txt
	_rc=$?
	kill -CONT $V9FSD_PID
	exec 3>&-
	case $(cat $T/dd.txt) in
	*"timed out"* | *"Input/output error"* | *"I/O error"*) _e=1 ;;
	*) _e= ;;
	esac
	if [ $_rc -ne 0 ] && [ -n "$_e" ]; then
		ok "$_l: write-back to a stopped server: $_what fails (ETIMEDOUT or EIO)"
	else
		not_ok "$_l: write-back to a stopped server: $_what fails (ETIMEDOUT or EIO)"
		diag "dd exit $_rc: $(tail -n 2 $T/dd.txt)"
	fi
	umount_9p $W
	check "$_l: umount after the failed write-back" sh -c "! grep -q ' $W ' /proc/mounts"
	rm -f "$EXP/wberr"
}

# run L DIALECT: the checks over one dialect
run() {
	_l=$1 _d=$2
	if ! mount_9p 9P tcp $_d $P $A cache=loose > $T/mount.txt 2>&1 ||
	   ! mount_9p 9P tcp $_d $P $B > $T/mount.txt 2>&1; then
		not_ok "$_l: mount A (cache=loose) and B: $(tail -n 1 $T/mount.txt)"
		umount_9p $A 2> /dev/null
		return
	fi
	check "$_l: /proc/mounts shows cache=loose" grep -q " $A .*cache=loose" /proc/mounts

	# written through A, closed: B and the export have it
	cp $T/r1 $A/f
	same "$_l: written through A and closed: B reads the bytes" $T/r1 $B/f
	same "$_l: written through A and closed: the export has the bytes" $T/r1 "$EXP/f"
	same "$_l: A reads back its own bytes" $T/r1 $A/f

	# B writes (same size): A's next open sees it
	# (9P2000.u times are whole seconds: each change comes in a later one)
	cat $A/f > /dev/null
	exec 4< $A/f
	[ $_d = 9p2000.u ] && sleep 1.1
	cp $T/r2 $B/f
	same "$_l: B wrote, A's next open reads B's bytes" $T/r2 $A/f
	# a descriptor A kept open may show either: close-to-open promises nothing
	if dd bs=64k <&4 2> /dev/null | cmp -s $T/r2 -; then _o="B's"; else _o="its old"; fi
	exec 4<&-
	diag "$_l: a descriptor of A open across B's write read $_o bytes"

	# changed on the server behind the client's back, same size again
	cat $A/f > /dev/null
	[ $_d = 9p2000.u ] && sleep 1.1
	cp $T/r3 "$EXP/f"
	same "$_l: the export changed, A's next open reads the new bytes" $T/r3 $A/f
	: > "$EXP/f"
	_n=$(wc -c < $A/f)
	check "$_l: the export truncated the file, A's next open reads 0 bytes (got $_n)" \
		test "$_n" = 0

	# a second read of 1 MiB through A sends no Tread; through B it does
	cp $T/1m "$EXP/m"
	cat $A/m > /dev/null
	_a=$(treads cat $A/m)
	_b=$(treads cat $B/m)
	check "$_l: a second read of 1 MiB through A sends no Tread (sent $_a)" test "$_a" = 0
	check "$_l: through B (no cache) it sends some (sent $_b)" test "$_b" -gt 0
	same "$_l: A's cached read of 1 MiB has the export's bytes" $T/1m $A/m

	# O_DIRECT through A: reads see what was written through the cache; a
	# direct write replaces the cached pages, also for a descriptor opened
	# before it
	cp $T/r1 $A/d
	cat $A/d > /dev/null
	dd if=$A/d of=$T/dread bs=64k iflag=direct 2> /dev/null
	same "$_l: an O_DIRECT read after a cached write sees its bytes" $T/r1 $T/dread
	exec 4< $A/d
	dd if=$T/r2 of=$A/d bs=64k count=2 oflag=direct conv=notrunc 2> /dev/null
	dd bs=64k <&4 > $T/dcached 2> /dev/null
	exec 4<&-
	head -c 131072 $T/r2 > $T/want
	tail -c +131073 $T/r1 >> $T/want
	same "$_l: after an O_DIRECT write, a cached read (descriptor opened before) sees it" \
		$T/want $T/dcached
	same "$_l: ... and the export has it" $T/want "$EXP/d"

	# appends land at the end, through the cache too
	cp $T/r1 $A/app
	dd if=$T/r2 bs=64k oflag=append conv=notrunc of=$A/app 2> /dev/null
	cat $T/r1 $T/r2 > $T/want
	same "$_l: O_APPEND write through A lands at the end" $T/want "$EXP/app"

	# a large sequential write, the export after close
	dd if=$T/big of=$A/big bs=1M 2> /dev/null
	same "$_l: 8 MiB written through A: the export has it after close" $T/big "$EXP/big"
	# stat while the bytes are still only cached: a shell writes them with
	# its builtin printf (no close, so no write-back), then stat, whose
	# output goes to the same file, must count them
	sh -c "printf %0100000d 0; stat -c %s $A/st" > $A/st
	_s=$(tail -c 7 "$EXP/st")
	check "$_l: stat of bytes written and not yet sent counts them (got $_s)" \
		test "$_s" = 100000

	# truncate through A drops the cached tail
	cp $T/r1 $A/tr
	cat $A/tr > /dev/null
	truncate -s 1000 $A/tr
	truncate -s 262144 $A/tr
	head -c 1000 $T/r1 > $T/want
	dd if=/dev/zero bs=1 count=$((262144 - 1000)) 2> /dev/null >> $T/want
	same "$_l: truncate smaller then larger through A: zeros past the smaller size" \
		$T/want $A/tr
	same "$_l: ... and the export agrees" $T/want "$EXP/tr"

	rm -f $A/f $A/m $A/d $A/app $A/big $A/st $A/tr
	umount_9p $A || not_ok "$_l: umount A"
	umount_9p $B || not_ok "$_l: umount B"
	wb_fail "$_l" $_d 1
	wb_fail "$_l" $_d 0
}

if ! load_client 9P > $T/insmod.txt 2>&1; then
	not_ok "9p2000.ko loads: $(cat $T/insmod.txt)"
	exit 0
fi
if ! v9fsd_start "$EXP" $P; then
	not_ok "v9fsd serves $EXP"
	exit 0
fi
run 9P.L 9p2000.L
run 9P.u 9p2000.u
v9fsd_stop
check "no fid, request or client left after the umounts" \
	test "$(cat $PARAMS/live_fids)/$(cat $PARAMS/live_reqs)/$(cat $PARAMS/live_clients)" = 0/0/0
rmmod 9p2000 || not_ok "rmmod 9p2000"
rm -rf "$T" "$EXP"
exit 0
