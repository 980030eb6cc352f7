#!/bin/sh
# timeout: 600
# 66-hostile-pairs: requests sent together, answered badly. With cache=loose
# over 9P2000.L our client sends two independent requests before waiting for
# either: a name check after actimeo that ends a stat's path walk sends its
# Twalk beside a Tgetattr on the dentry's fid, and an open (no O_TRUNC) its
# Tlopen beside the close-to-open Tgetattr of the same fid. hostile-9p's
# pair-* modes (tests/guest/hostile.c) change the file's bytes and ctime at
# each close of an opened fid (a writer elsewhere), see the two requests
# arrive together and then:
#   - pair-swap: answer every request after the next one (a pair in reverse
#     order): a stat after actimeo gives the right size and mode, an open
#     sees the new bytes (no stale page), a whole read is of one version
#   - pair-fail: the Twalk of a name check fails with ENOENT (the file is
#     gone: stat fails ENOENT), with EMFILE once (walked again alone: stat
#     works); its Tgetattr fails (EIO: asked again alone, stat works); an
#     open's Tlopen fails (EIO: open fails EIO; EACCES for the O_RDWR that a
#     write-only open asks for: opened O_WRONLY, the write works); an open's
#     Tgetattr fails (EIO: open fails EIO, the opened fid is clunked); the
#     next open works, and reads the new bytes, not the pages an open before
#     the failed one left cached
#   - pair-otherfile: the Twalk finds another file, the Tgetattr on the old
#     fid answers for the old one: stat shows the new file's size, mode and
#     inode, and a read its bytes
#   - pair-silent: one of the two never answered. Without timeout= the
#     stat or open waits, and kill -9 ends it at once; with timeout=1 it ends
#     with ETIMEDOUT (or works when only the Tgetattr was lost and the one
#     asked alone is answered), and the mount stays usable (the next open
#     reads the new bytes, not cached pages)
# Triples: an open after actimeo whose dentry keeps a spare fid (walked by
# an earlier stat's name check) sends three requests together: the name
# check's Twalk, and the Tlopen and Tgetattr of the spare. hostile-9p serves
# them as a group of three (log "pair triple"):
#   - pair-swap: answered newest first (Rgetattr, Rlopen, Rwalk): the open
#     reads the current bytes, and the walked fid is the next open's spare
#   - pair-fail on the Twalk: ENOENT (file removed): open fails ENOENT (the
#     VFS walks again and finds no name); EMFILE once: walked again alone,
#     the open works; EIO: open fails EIO, the next open works
#   - pair-otherfile: the Twalk finds another file, the Tlopen and Tgetattr
#     answer for the old one: the open goes to the new file (the VFS walks
#     again): its bytes, size, mode and inode, never the old one's; with
#     every Twalk to the name finding another file than the last (-t walk:
#     the lookups too), one check only, the open ends and reads the bytes of
#     the file it opened, not the pages cached from an earlier open of it
#   - pair-fail on the Tlopen (the Twalk finds the same file): open fails
#     EIO; on the Tgetattr: open fails EIO, the opened fid is clunked, the
#     next open reads the bytes changed meanwhile
#   - pair-silent on a member: kill -9 ends the open at once, a Tflush
#     is sent; with timeout=1 the open fails ETIMEDOUT, the next one works
#   - an O_TRUNC open checks the name first, alone (pair-otherfile -t walk):
#     the name now means another file: that one is truncated, not the old
# After each case: no request in flight, the server holds as many fids as the
# client counts (none opened), umount returns, live_* are 0.
# Ours only: the in-tree client sends no such pairs or triples. Our client
# SKIPs while it refuses version=9p2000.L.
. /v9fs/tests/lib.sh

HPORT=5666
OUT=/tmp/pairs.$$
BIN=/v9fs/bin
PARAMS=/sys/module/9p2000/parameters
LOG=$OUT/hostile.log
M=/mnt/pairs66
mkdir -p "$OUT" "$M"

live() { cat "$PARAMS/live_$1" 2> /dev/null || echo '?'; }

expect() { # expect TEXT GOT WANT
	if [ "$2" = "$3" ]; then
		ok "9P: $1 ($2)"
	else
		not_ok "9P: $1: got '$2', want '$3'"
		tail -n 8 "$LOG" | sed 's/^/#   /'
	fi
}

# a call, killed after 20 s ("killed" then)
lprobe() {
	timeout -s KILL 20 "$BIN/lprobe" "$@" > "$OUT/lprobe.txt" 2>&1
	[ $? -eq 137 ] && echo killed && return
	cat "$OUT/lprobe.txt"
}
probe() {
	timeout -s KILL 20 "$BIN/ioprobe" "$@" > "$OUT/probe.txt" 2>&1
	[ $? -eq 137 ] && echo killed && return
	cat "$OUT/probe.txt"
}

# the server's fids after its last request that made or ended one: "N open M"
server_fids() {
	sed -n 's/.*: fids \([0-9]*\) open \([0-9]*\)$/\1 open \2/p' "$LOG" | tail -n 1
}
pairs() { grep -c "pair $1:" "$LOG"; }
# the server logged its fids after the last request: as many as the client
# counts, none opened (the line comes after the reply, so it may trail it)
fids_agree() { [ "$(server_fids)" = "$(live fids) open 0" ]; }
# none of the server's fids is opened (its last fids line)
none_opened() { [ "$(server_fids | sed 's/.* open /open /')" = "open 0" ]; }

# pstart TEXT OPTS HOSTILE_ARGS...: hostile-9p and a cache=loose,actimeo=1
# mount of it (OPTS added) on $M; 1 (verdict given) when it did not mount.
pstart() {
	_t=$1 _o=$2
	shift 2
	CASE=$_t
	: > "$LOG"
	"$BIN/hostile-9p" "$@" -l tcp:127.0.0.1:$HPORT 2> "$LOG" &
	H_PID=$!
	wait_listen $HPORT $H_PID
	mount_9p 9P tcp 9p2000.L $HPORT $M "cache=loose,actimeo=1$_o" \
		> "$OUT/mount.txt" 2>&1 && return 0
	if grep -q 'Invalid argument' "$OUT/mount.txt" &&
		dmesg | tail -n 5 | grep '9P' | grep -q 'version'; then
		skip "9P: $_t" "our client does not speak 9P2000.L"
	else
		expect "$_t: mount" "$(tail -n 1 "$OUT/mount.txt")" mounted
	fi
	kill $H_PID 2> /dev/null
	wait $H_PID 2> /dev/null
	return 1
}

# pstop: nothing in flight, the fids of both sides agree, none is left
# opened; umount (plain) returns while the server runs; nothing left.
pstop() {
	poll_until 40 0.05 '[ "$(live reqs)" = 0 ]'
	wait_until 2 fids_agree
	expect "$CASE: no request left in flight" "$(live reqs)" 0
	expect "$CASE: the server holds the fids the client counts, none opened" \
		"$(server_fids)" "$(live fids) open 0"
	if timeout 30 umount $M 2> "$OUT/umount.txt"; then
		expect "$CASE: umount" unmounted unmounted
	else
		expect "$CASE: umount" "$(tail -n 1 "$OUT/umount.txt")" unmounted
		umount -f $M 2> /dev/null || umount -l $M
	fi
	kill $H_PID 2> /dev/null
	wait $H_PID 2> /dev/null
	poll_until 40 0.05 '[ "$(live clients)$(live reqs)$(live fids)" = 000 ]'
	expect "$CASE: after umount: live clients reqs fids" \
		"$(live clients) $(live reqs) $(live fids)" "0 0 0"
}

# a lookup of data, then its name and attributes expire (actimeo=1)
looked_up() {
	lprobe stat $M/data > /dev/null
	sleep 1.1
}

swap() {
	pstart "pair-swap" "" -m pair-swap || return
	looked_up
	expect "pair-swap: stat after actimeo: size and mode" \
		"$(stat -c '%s %a' $M/data 2>&1)" "65536 644"
	expect "pair-swap: the name check's Twalk and Tgetattr came together" \
		"$(pairs walk)" 1
	expect "pair-swap: first open reads the first bytes" \
		"$(head -c 7 $M/data)" hostile
	expect "pair-swap: the next open sees the bytes changed at the close (no stale page)" \
		"$(head -c 7 $M/data)" gen0001
	expect "pair-swap: each open sent its Tlopen and Tgetattr together" "$(pairs open)" 2
	expect "pair-swap: a whole read is of one version" \
		"$(sort -u $M/data | tr '\n' ' ')$(wc -c < $M/data)" "gen0002 65536"
	pstop
}

walkfail() {
	pstart "pair-fail, Twalk ENOENT" "" -m pair-fail -t walk -e 2 || return
	looked_up
	expect "pair-fail: the name check's Twalk fails ENOENT: stat fails ENOENT" \
		"$(lprobe stat $M/data)" "err 2"
	expect "pair-fail: that Twalk was paired" "$(pairs walk)" 1
	pstop

	pstart "pair-fail, Twalk EMFILE once" "" -m pair-fail -t walk -e 24 -c 1 || return
	looked_up
	expect "pair-fail: the name check's Twalk refused (EMFILE) once: stat works" \
		"$(lprobe stat $M/data)" "ok 100644"
	expect "pair-fail: that Twalk was paired" "$(pairs walk)" 1
	pstop

	pstart "pair-fail, name check's Tgetattr EIO" "" -m pair-fail -t getattr || return
	looked_up
	expect "pair-fail: the name check's Tgetattr fails EIO: asked again, stat works" \
		"$(stat -c '%s %a' $M/data 2>&1)" "65536 644"
	expect "pair-fail: that Tgetattr was paired" "$(pairs walk)" 1
	pstop
}

otherfile() {
	pstart "pair-otherfile" "" -m pair-otherfile -c 1 || return
	_i1=$(stat -c %i $M/data)
	sleep 1.1
	expect "pair-otherfile: data replaced: stat shows the new file's size and mode" \
		"$(stat -c '%s %a' $M/data 2>&1)" "4242 600"
	expect "pair-otherfile: the name check's Twalk and Tgetattr came together" \
		"$(pairs walk)" 1
	_i2=$(stat -c %i $M/data)
	expect "pair-otherfile: another inode" "$([ "$_i1" != "$_i2" ] && echo another)" another
	expect "pair-otherfile: a read gives the new file's bytes" "$(wc -c < $M/data)" 4242
	pstop
}

openfail() {
	pstart "pair-fail, Tlopen EIO" "" -m pair-fail -t open -c 1 || return
	expect "pair-fail: Tlopen fails EIO beside its Tgetattr: open fails EIO" \
		"$(probe open $M/data)" "err 5"
	expect "pair-fail: that Tlopen was paired" "$(pairs open)" 1
	expect "pair-fail: the next open reads" "$(probe read $M/data 4096)" "ok 4096"
	pstop

	pstart "pair-fail, Tlopen O_RDWR EACCES" "" -m pair-fail -t open -e 13 -c 1 || return
	expect "pair-fail: a write-only open's O_RDWR Tlopen refused (EACCES): opened O_WRONLY, writes" \
		"$(probe write $M/data 4096)" "ok 4096"
	expect "pair-fail: that Tlopen was paired" "$(pairs open)" 1
	pstop

	pstart "pair-fail, an open's Tgetattr EIO" "" -m pair-fail -t getattr -k 1 -c 1 ||
		return
	expect "pair-fail: a first open reads (its pages stay cached)" "$(head -c 7 $M/data)" hostile
	expect "pair-fail: the open's Tgetattr fails EIO, its Tlopen works: open fails EIO" \
		"$(probe open $M/data)" "err 5"
	wait_until 2 none_opened
	expect "pair-fail: the fid opened by that Tlopen is clunked" \
		"$(server_fids | sed 's/.* open /open /')" "open 0"
	expect "pair-fail: the next open reads the bytes changed meanwhile, not the cached ones" \
		"$(head -c 7 $M/data)" gen0002
	pstop
}

# killed CALL TEXT: CALL (a command line) in the background must still wait
# 0.5 s after the server got the group it leaves unanswered, and end within 2 s
# of kill -9.
killed() {
	$1 > "$OUT/bg.txt" 2>&1 &
	_p=$!
	wait_until 10 grep -q ': pair-silent$' "$LOG" ||
		diag "$2: the server logged no unanswered group within 10 s"
	sleep 0.5
	expect "$2: still waiting 0.5 s after the server got the requests" \
		"$(kill -0 $_p 2> /dev/null && echo waiting || echo "ended: $(cat "$OUT/bg.txt")")" \
		waiting
	kill -9 $_p 2> /dev/null
	poll_until 40 0.05 '! kill -0 $_p 2> /dev/null'
	expect "$2: kill -9 ends it within 2 s" "$(kill -0 $_p 2> /dev/null || echo ended)" ended
	wait $_p 2> /dev/null
	wait_until 2 grep -q 'Tflush of tag' "$LOG"
	expect "$2: the unanswered request was flushed" \
		"$([ "$(grep -c 'Tflush of tag' "$LOG")" -ge 1 ] && echo flushed)" flushed
}

# timed_call TEXT WANT CALL...: CALL's line is WANT, within 8 s
timed_call() {
	_t=$1 _w=$2
	shift 2
	_s=$(date +%s)
	_r=$("$@")
	_e=$(($(date +%s) - _s))
	expect "$_t" "$_r" "$_w"
	expect "$_t: ended within 8 s" "$([ $_e -le 8 ] && echo yes || echo "no: $_e s")" yes
}

silent() {
	pstart "pair-silent, name check's Tgetattr" "" -m pair-silent -t getattr || return
	looked_up
	killed "$BIN/lprobe stat $M/data" "pair-silent: a stat whose paired Tgetattr is never answered"
	pstop

	pstart "pair-silent, name check's Twalk" "" -m pair-silent -t walk || return
	looked_up
	killed "$BIN/lprobe stat $M/data" "pair-silent: a stat whose name check's Twalk is never answered"
	pstop

	pstart "pair-silent, Tlopen" "" -m pair-silent -t open || return
	killed "$BIN/ioprobe open $M/data" "pair-silent: an open whose Tlopen is never answered"
	pstop

	pstart "pair-silent, Twalk, timeout=1" ",timeout=1" -m pair-silent -t walk -c 1 || return
	looked_up
	timed_call "pair-silent: the name check's Twalk unanswered: stat fails ETIMEDOUT" \
		"err 110" lprobe stat $M/data
	expect "pair-silent: then stat works" "$(lprobe stat $M/data)" "ok 100644"
	pstop

	pstart "pair-silent, name check's Tgetattr, timeout=1" ",timeout=1" \
		-m pair-silent -t getattr -c 1 || return
	looked_up
	timed_call "pair-silent: the name check's Tgetattr unanswered: asked again, stat works" \
		"ok 100644" lprobe stat $M/data
	pstop

	pstart "pair-silent, an open's Tgetattr, timeout=1" ",timeout=1" \
		-m pair-silent -t getattr -k 1 -c 1 || return
	expect "pair-silent: a first open reads (its pages stay cached)" \
		"$(head -c 7 $M/data)" hostile
	timed_call "pair-silent: the open's Tgetattr unanswered: open fails ETIMEDOUT" \
		"err 110" probe open $M/data
	wait_until 2 none_opened
	expect "pair-silent: the fid opened by that Tlopen is clunked" \
		"$(server_fids | sed 's/.* open /open /')" "open 0"
	expect "pair-silent: the next open reads the bytes changed meanwhile, not the cached ones" \
		"$(head -c 7 $M/data)" gen0002
	pstop
}

# spared: a lookup of data, then a stat's name check after actimeo, which
# keeps the fid it walked as a spare; actimeo later the next open of data
# sends its name check's Twalk with the Tlopen and Tgetattr of that spare.
spared() {
	looked_up
	looked_up
}

t_swap() {
	pstart "triple, pair-swap" "" -m pair-swap -k 1 || return
	spared
	expect "triple-swap: an open answered newest first reads the bytes" \
		"$(head -c 7 $M/data)" hostile
	sleep 1.1
	expect "triple-swap: the next open (the walked fid its spare) sees the bytes changed at the close" \
		"$(head -c 7 $M/data)" gen0001
	expect "triple-swap: each open sent Twalk, Tlopen and Tgetattr together" \
		"$(pairs triple)" 2
	pstop
}

t_walkfail() {
	pstart "triple, Twalk ENOENT" "" -m pair-fail -t walk -e 2 -k 1 || return
	spared
	expect "triple-fail: the open's Twalk fails ENOENT (file removed): open fails ENOENT" \
		"$(probe open $M/data)" "err 2"
	expect "triple-fail: that Twalk came in a triple" "$(pairs triple)" 1
	pstop

	pstart "triple, Twalk EMFILE once" "" -m pair-fail -t walk -e 24 -k 1 -c 1 || return
	spared
	expect "triple-fail: the open's Twalk refused (EMFILE) once: walked again, the open reads" \
		"$(probe read $M/data 4096)" "ok 4096"
	expect "triple-fail: that Twalk came in a triple" "$(pairs triple)" 1
	pstop

	pstart "triple, Twalk EIO" "" -m pair-fail -t walk -k 1 -c 1 || return
	spared
	expect "triple-fail: the open's Twalk fails EIO: open fails EIO" \
		"$(probe open $M/data)" "err 5"
	expect "triple-fail: that Twalk came in a triple" "$(pairs triple)" 1
	expect "triple-fail: the next open reads" "$(probe read $M/data 4096)" "ok 4096"
	pstop
}

t_otherfile() {
	pstart "triple, pair-otherfile" "" -m pair-otherfile -k 1 -c 1 || return
	_i1=$(stat -c %i $M/data)
	sleep 1.1
	looked_up
	expect "triple-otherfile: data replaced: the open reads the new file's bytes" \
		"$(head -c 7 $M/data)" another
	expect "triple-otherfile: the open's Twalk, Tlopen and Tgetattr came together" \
		"$(pairs triple)" 1
	expect "triple-otherfile: stat shows the new file's size and mode" \
		"$(stat -c '%s %a' $M/data 2>&1)" "4242 600"
	_i2=$(stat -c %i $M/data)
	expect "triple-otherfile: another inode" "$([ "$_i1" != "$_i2" ] && echo another)" another
	expect "triple-otherfile: a whole read is the new file's: its length, its lines" \
		"$(wc -c < $M/data) $(sort -u $M/data | tr '\n' ' ')" "4242 an another "
	pstop

	pstart "triple, every Twalk another file" "" -m pair-otherfile -t walk -k 2 || return
	expect "triple-otherfile: a first open reads (its pages stay cached)" \
		"$(head -c 7 $M/data)" hostile
	sleep 1.1
	looked_up
	expect "triple-otherfile: every Twalk finds another file: the open ends, reads the current bytes" \
		"$(timeout -s KILL 20 head -c 7 $M/data 2>&1 || echo failed)" gen0002
	expect "triple-otherfile: one name check (the triple), no loop" "$(pairs triple)" 1
	expect "triple-otherfile: the open looked the name up again once" \
		"$(pairs 'lone walk')" 2
	pstop
}

t_lopenfail() {
	pstart "triple, Tlopen EIO" "" -m pair-fail -t open -c 1 || return
	spared
	expect "triple-fail: Tlopen fails EIO, its Twalk finds the same file: open fails EIO" \
		"$(probe open $M/data)" "err 5"
	expect "triple-fail: that Tlopen came in a triple" "$(pairs triple)" 1
	expect "triple-fail: the next open reads" "$(probe read $M/data 4096)" "ok 4096"
	pstop

	pstart "triple, Tgetattr EIO" "" -m pair-fail -t getattr -k 1 -c 1 || return
	spared
	expect "triple-fail: the open's Tgetattr fails EIO, its Twalk and Tlopen work: open fails EIO" \
		"$(probe open $M/data)" "err 5"
	expect "triple-fail: that Tgetattr came in a triple" "$(pairs triple)" 1
	wait_until 2 none_opened
	expect "triple-fail: the fid opened by that Tlopen is clunked" \
		"$(server_fids | sed 's/.* open /open /')" "open 0"
	expect "triple-fail: the next open reads the bytes changed meanwhile" \
		"$(head -c 7 $M/data)" gen0001
	pstop
}

# member walk|open|getattr: the request's name in $_tm, and in $_k the groups
# served honestly first (-k): the stat's name check that made the spare is a
# group with a Twalk and a Tgetattr too, but with no Tlopen
member() {
	_k=1 _tm=T$1
	[ $1 = open ] && _k=0 _tm=Tlopen
}

# Each member is left unanswered once: killed (Twalk, Tgetattr) or timed out
# (Tlopen); under make soak each in both ways.
t_silent() {
	for _mb in $(soak "walk getattr" "walk open getattr"); do
		member $_mb
		pstart "triple-silent, $_mb" "" -m pair-silent -t $_mb -k $_k || return
		spared
		killed "$BIN/ioprobe open $M/data" \
			"triple-silent: an open whose triple's $_tm is never answered"
		expect "triple-silent: that $_tm came in a triple" "$(pairs triple)" 1
		pstop
	done
	for _mb in $(soak open "walk open getattr"); do
		member $_mb
		pstart "triple-silent, $_mb, timeout=1" ",timeout=1" \
			-m pair-silent -t $_mb -k $_k -c 1 || return
		spared
		timed_call "triple-silent: the triple's $_tm unanswered: open fails ETIMEDOUT" \
			"err 110" probe open $M/data
		expect "triple-silent: then an open reads" "$(probe read $M/data 4096)" "ok 4096"
		pstop
	done
}

t_trunc() {
	pstart "O_TRUNC, name check's Twalk another file" "" -m pair-otherfile -t walk -k 1 -c 1 ||
		return
	looked_up
	expect "trunc: the name now means another file: the O_TRUNC open works" \
		"$( (: > $M/data) 2>&1 && echo opened)" opened
	expect "trunc: its name check's Twalk came alone (a lookup before and after it)" \
		"$(pairs 'lone walk')" 3
	expect "trunc: the old file is not truncated" \
		"$(grep -c 'qid path 2 truncated' "$LOG")" 0
	expect "trunc: the new file is" "$(grep -c 'qid path 5 truncated' "$LOG")" 1
	expect "trunc: stat shows the new file, empty" "$(stat -c '%s %a' $M/data 2>&1)" "0 600"
	pstop
}

if ! load_client 9P > "$OUT/insmod.txt" 2>&1; then
	not_ok "9P: insmod $V9FS_KO failed: $(cat "$OUT/insmod.txt")"
	exit 0
fi
timed swap
timed walkfail
timed otherfile
timed openfail
timed silent
timed t_swap
timed t_walkfail
timed t_otherfile
timed t_lopenfail
timed t_silent
timed t_trunc
rm -rf "$OUT"
exit 0
