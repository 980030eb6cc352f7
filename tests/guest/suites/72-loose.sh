#!/bin/sh
# 72-loose: cache=loose, read(2) and write(2) through the page cache with
# close-to-open consistency. One v9fsd export, two mounts of ours: A with
# cache=loose, B without a cache; once over 9p2000.L and once over 9p2000.u.
# A file written through A is whole in B and the export once A closed it; what
# B or the export changed shows in A at A's next open; a second read of a file
# through A sends no Tread (through B it does); O_DIRECT reads and writes
# through A meet the cached bytes; a write-back to a stopped server fails
# fsync and close (not silently); nothing is left behind after the umounts.
# Write-back of whole runs starts behind a writer, before fsync (early_wb;
# over 9P2000.L, and .u too under make soak).
# The attribute cache (actimeo=): `ls -l` costs one Tgetattr (Tstat in .u) per
# entry, not two; fstat of an open file within actimeo costs none, after it one;
# a chmod through the mount and a change on the export are seen (at once, and
# after at most actimeo); actimeo=0 keeps a request per stat(2).
# The dentry cache (names kept for actimeo, then checked by one Twalk each): a
# second stat of names within actimeo sends no Twalk, after it one per name; a
# file removed, made, renamed over another, a directory replaced by a file and
# the reverse on the export are seen after actimeo; a renamed directory's
# cached children, a name unlinked and made again and a removed directory are
# right at once through the mount; processes changing overlapping names through
# the mount while the export changes them see no EIO or ESTALE and end where
# the export is; a fid the server refuses makes the client give back the fids
# of unused cached names and walk again (a tree larger than the server's fid
# budget is read whole); with nothing to give back the refusal (EMFILE) reaches
# the caller and leaves no negative dentry.
# nocto: opens within actimeo send no Tgetattr (Tstat) and do not see a change
# made on the export, the first open after actimeo does; cto asks at each open;
# a lookup that would lower a cached file's size leaves its attributes
# untrusted; with cache=none nocto changes nothing.
# Opens: the requests of an open of a cached file within actimeo and after
# it (four with cto: the check's Twalk after actimeo is the open's fid), of
# a stat after it (two: the open that follows takes its Twalk's fid); a file renamed over, changed at the same size, or
# removed on the export between two opens is seen by the next one.
# An open after actimeo of a name a stat checked before: over 9p2000.L its
# check's Twalk goes beside the Tlopen and Tgetattr (four requests, no
# Tclunk of a kept fid); a name renamed over, removed, made a directory,
# replaced and opened O_TRUNC, a script replaced and run, on the export
# between the stat and the open, all end on the export's new file; opens
# while the export swaps two files read one of them whole.
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
dd if=/dev/urandom of=$T/big16 bs=1M count=16 2> /dev/null
dd if=/dev/urandom of=$T/big16b bs=1M count=16 2> /dev/null
PROBE=/v9fs/bin/ioprobe

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

# msgs TYPE CMD...: the TYPE messages v9fsd received while CMD ran
msgs() {
	_t=$1
	shift
	_b=$(v9fsd_count $P $_t)
	"$@" > /dev/null 2>&1
	echo $(($(v9fsd_count $P $_t) - _b))
}

# fsize FD: the size fstat(2) gives for the shell's descriptor FD (no lookup
# on the mount: /proc's link leads to the open file)
fsize() { stat -L -c %s /proc/self/fd/$1; }
fmode() { stat -L -c %a /proc/self/fd/$1; }

# stopped PID: every thread of PID is stopped (SIGSTOP only queues the stop)
stopped() {
	for _s in /proc/$1/task/*/stat; do
		case $(cut -d')' -f2 < $_s) in " T"* | " t"*) ;; *) return 1 ;; esac
	done
}

# wb_fail L DIALECT FSYNC: a write(2) through a cache=loose,timeout=1 mount
# with the server stopped; with FSYNC=1 dd's fsync must fail, else its close
# must. The file is opened (fd 3) while the server still answers.
wb_fail() {
	_l=$1 _what=close _conv=
	[ "$3" = 1 ] && _what=fsync _conv=conv=fsync
	if ! mount_9p 9P tcp $2 $P $W cache=loose,timeout=1 > $T/mount.txt 2>&1; then
		not_ok "$_l: mount cache=loose,timeout=1: $(tail -n 1 $T/mount.txt)"
		return
	fi
	exec 3<> $W/wberr
	kill -STOP $V9FSD_PID
	_i=0
	while ! stopped $V9FSD_PID && [ $_i -lt 100 ]; do sleep 0.1; _i=$((_i + 1)); done
	# no timeout(1) here: its watcher would hold the file open after dd;
	# timeout=1 bounds every request
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

# hold_start SRC DST [SIZE]: ioprobe hold SRC DST [SIZE] in the background
# ($_h), its input the FIFO $T/hold.in held open by fd 5; returns once it has
# written it all ("written" in $T/hold.out), or after 120 s
hold_start() {
	rm -f $T/hold.in
	mkfifo $T/hold.in
	$PROBE ${HOLD:-hold} "$@" < $T/hold.in > $T/hold.out 2>&1 &
	_h=$!
	exec 5> $T/hold.in
	poll_until 1200 0.1 "grep -q '^written\\|^err' $T/hold.out"
}

# hold_end: let the holder fsync and close; its lines after "written" in $_r
# (not in a subshell: the FIFO is this shell's and the holder its child)
hold_end() {
	exec 5>&-
	wait $_h
	_r=$(grep -v '^written' $T/hold.out | tr '\n' ' ')
}

# early_wb L DIALECT: write-back of whole runs (1 MiB) starts behind a writer
# through the cache, before fsync or close: Twrites reach the server while the
# bytes are still only written, and the file is exact after fsync; a MiB
# written twice at once ends with the second bytes; a truncate right after the
# writes and appends (O_APPEND) while they go out end at the right size and
# bytes; a file larger than the server's room (a 4 MiB tmpfs in the export)
# fails fsync, and close without fsync (never a lost error); fsx with writes
# larger than a run; an umount right after a large write leaves every byte on
# the server; no WARN, BUG or splat
early_wb() {
	_l=$1
	if ! mount_9p 9P tcp $2 $P $W cache=loose > $T/mount.txt 2>&1; then
		not_ok "$_l: mount cache=loose: $(tail -n 1 $T/mount.txt)"
		return
	fi
	_k0=$(dmesg | wc -l)
	_b=$(v9fsd_count $P Twrite)
	hold_start $T/big16 $W/ew
	poll_until 29 0.1 '[ $(v9fsd_count $P Twrite) -gt $_b ]'
	_n=$(($(v9fsd_count $P Twrite) - _b))
	check "$_l: 16 MiB written, no fsync yet: Twrites reached the server ($_n)" \
		test "$_n" -gt 0
	# each of the 16 runs was filled: all go out without fsync, within
	# seconds (the kernel's background write-back, which in this guest
	# also starts during a 16 MiB write, does not show the difference)
	_t0=$(date +%s)
	poll_until 100 0.1 'cmp -s $T/big16 "$EXP/ew"'
	same "$_l: ... the export has all 16 MiB before fsync (after $(($(date +%s) - _t0)) s)" \
		$T/big16 "$EXP/ew"
	hold_end
	check "$_l: ... then fsync and close succeed ($_r)" \
		test "$_r" = "fsync ok 0 close ok 0 "
	same "$_l: ... and the export has every byte" $T/big16 "$EXP/ew"

	_r=$($PROBE twice $T/big16 $T/big16b $W/tw | tr '\n' ' ')
	check "$_l: each MiB written twice at once, fsync ($_r)" \
		test "$_r" = "fsync ok 0 close ok 0 "
	same "$_l: ... the export has the second bytes" $T/big16b "$EXP/tw"

	hold_start $T/big16 $W/tt 5000000
	hold_end
	head -c 5000000 $T/big16 > $T/want
	check "$_l: 16 MiB written and at once truncated to 5000000 ($_r)" \
		test "$_r" = "fsync ok 0 close ok 0 "
	same "$_l: ... the export has the first 5000000 bytes" $T/want "$EXP/tt"

	cp $T/r1 $W/ta
	HOLD=hold-append
	hold_start $T/big16 $W/ta
	HOLD=
	hold_end
	cat $T/r1 $T/big16 > $T/want
	check "$_l: 16 MiB appended in 1 MiB O_APPEND writes ($_r)" \
		test "$_r" = "fsync ok 0 close ok 0 "
	same "$_l: ... the export has them after the first bytes" $T/want "$EXP/ta"

	mkdir -p "$EXP/small"
	if mount -t tmpfs -o size=4m tmpfs "$EXP/small"; then
		hold_start $T/big16 $W/small/f
		hold_end
		case $_r in
		"err "* | *"fsync err"*)
			ok "$_l: 16 MiB into 4 MiB of room on the server: fsync fails ($_r)" ;;
		*) not_ok "$_l: 16 MiB into 4 MiB of room on the server: fsync fails ($_r)" ;;
		esac
		rm -f $W/small/f
		dd if=$T/big16 of=$W/small/f bs=1M > $T/dd.txt 2>&1
		_rc=$?
		check "$_l: ... written by dd without fsync: close fails (dd exit $_rc: $(tail -n 1 $T/dd.txt))" \
			test $_rc -ne 0
		rm -f $W/small/f
	else
		not_ok "$_l: a 4 MiB tmpfs in the export"
	fi

	# random reads, writes, mapped writes and truncates of a file of up to
	# 4 MiB, writes up to 1.5 MiB: whole runs written back behind the writes
	_s=${V9FS_FSX_SEED:-$(date +%s)}
	timeout 300 /v9fs/bin/fsx -q -R -W -N 400 -l 4194304 -o 1572864 -S $_s \
		$W/fsx.file > $T/fsx.out 2>&1
	_rc=$?
	check "$_l: fsx of a file up to 4 MiB, writes up to 1.5 MiB, seed $_s (exit $_rc: $(tail -n 1 $T/fsx.out))" \
		test $_rc -eq 0
	rm -f $W/fsx.file

	dd if=$T/big16 of=$W/um bs=1M 2> /dev/null
	umount_9p $W || not_ok "$_l: umount"
	same "$_l: umount right after 16 MiB written: the export has every byte" \
		$T/big16 "$EXP/um"
	check "$_l: ... nothing in the kernel log" \
		sh -c "! dmesg | tail -n +$((_k0 + 1)) | grep -E 'BUG:|Oops|WARNING:|general protection|lockdep|circular locking'"
	rm -f "$EXP/ew" "$EXP/tw" "$EXP/tt" "$EXP/ta" "$EXP/um"
	# v9fsd holds the directory while a mount has its fid: after the umount
	poll_until 40 0.05 'umount "$EXP/small" 2> /dev/null' || umount -l "$EXP/small"
	rmdir "$EXP/small"
}

# attrs L DIALECT: the attribute cache over one dialect
attrs() {
	_l=$1 _d=$2 _g=Tgetattr _n=40
	[ $_d = 9p2000.u ] && _g=Tstat
	mkdir -p "$EXP/ls"
	_i=0 _names=
	while [ $_i -lt $_n ]; do
		: > "$EXP/ls/e$_i"
		_names="$_names $A/ls/e$_i"
		_i=$((_i + 1))
	done
	for _o in actimeo=30 actimeo=0 none; do
		_x=cache=loose,$_o
		[ $_o = none ] && _x=
		if ! mount_9p 9P tcp $_d $P $A "$_x" > $T/mount.txt 2>&1; then
			not_ok "$_l: mount ${_x:-cache=none}: $(tail -n 1 $T/mount.txt)"
			continue
		fi
		eval "_ls_$(echo $_o | tr = _)=$(msgs $_g ls -l $A/ls)"
		eval "_st_$(echo $_o | tr = _)=$(msgs Twalk stat $_names)"
		umount_9p $A
	done
	check "$_l: stat of the $_n names after ls -l, cache=loose: no Twalk (sent $_st_actimeo_30)" \
		test "$_st_actimeo_30" = 0
	check "$_l: ... cache=loose,actimeo=0: as many Twalk as cache=none (sent $_st_actimeo_0, none $_st_none)" \
		test "$_st_actimeo_0" -ge $_n -a "$_st_actimeo_0" = "$_st_none"
	check "$_l: ls -l of $_n entries, cache=loose: one $_g each (sent $_ls_actimeo_30)" \
		test "$_ls_actimeo_30" -ge $_n -a "$_ls_actimeo_30" -le $((_n + 4))
	check "$_l: ... cache=loose,actimeo=0: two each, as cache=none (sent $_ls_actimeo_0, none $_ls_none)" \
		test "$_ls_actimeo_0" -ge $((2 * _n)) -a "$_ls_actimeo_0" = "$_ls_none"
	if load_client 9p > /dev/null 2>&1 &&
	   mount_9p 9p tcp $_d $P $B cache=loose > $T/mount.txt 2>&1; then
		diag "$_l: in-tree cache=loose: ls -l of $_n entries sent $(msgs $_g ls -l $B/ls) $_g," \
			"again $(msgs $_g ls -l $B/ls); stat of the names then sent" \
			"$(msgs Twalk stat $(echo "$_names" | sed "s|$A/|$B/|g")) Twalk"
		umount_9p $B
	fi
	rm -rf "$EXP/ls"

	# an open file: fstat within actimeo asks nothing, a local change or the
	# end of actimeo makes the next one ask
	if ! mount_9p 9P tcp $_d $P $A cache=loose,actimeo=30 > $T/mount.txt 2>&1; then
		not_ok "$_l: mount cache=loose,actimeo=30: $(tail -n 1 $T/mount.txt)"
		return
	fi
	check "$_l: /proc/mounts shows actimeo=30" grep -q " $A .*actimeo=30" /proc/mounts
	printf 12345 > $A/at
	exec 5< $A/at
	_c=$(msgs $_g sh -c "stat -L /proc/self/fd/5 && stat -L /proc/self/fd/5")
	check "$_l: fstat twice after the open: no $_g (sent $_c)" test "$_c" = 0
	chmod 600 $A/at
	_c=$(msgs $_g fmode 5)
	_m=$(fmode 5)
	check "$_l: after a chmod through the mount fstat asks again (sent $_c) and sees 600 ($_m)" \
		test "$_c" = 1 -a "$_m" = 600
	printf 678 >> $A/at
	_s=$(fsize 5)
	check "$_l: after a write through the mount fstat sees its size (8: $_s)" test "$_s" = 8
	printf 9 >> "$EXP/at"
	_s=$(fsize 5)
	diag "$_l: the export grew the file to 9, fstat within actimeo=30 says $_s"
	exec 5<&-
	umount_9p $A

	if mount_9p 9P tcp $_d $P $A cache=loose,actimeo=0 > $T/mount.txt 2>&1; then
		exec 5< $A/at
		_c=$(msgs $_g sh -c "stat -L /proc/self/fd/5 && stat -L /proc/self/fd/5")
		check "$_l: actimeo=0: fstat twice sends two $_g (sent $_c)" test "$_c" = 2
		exec 5<&-
		umount_9p $A
	else
		not_ok "$_l: mount cache=loose,actimeo=0: $(tail -n 1 $T/mount.txt)"
	fi

	# actimeo=1: a change on the export shows once actimeo has passed,
	# without any open (once: over 9P2000.L)
	[ $_d = 9p2000.L ] || { rm -f "$EXP/at"; return; }
	if ! mount_9p 9P tcp $_d $P $A cache=loose,actimeo=1 > $T/mount.txt 2>&1; then
		not_ok "$_l: mount cache=loose,actimeo=1: $(tail -n 1 $T/mount.txt)"
		return
	fi
	exec 5< $A/at
	_s0=$(fsize 5)
	printf abc >> "$EXP/at"
	sleep 1.1
	_c=$(msgs $_g fsize 5)
	_s=$(fsize 5)
	check "$_l: actimeo=1, the export grew the file: 1.1 s later fstat asks (sent $_c) and sees 12 ($_s0, then $_s)" \
		test "$_c" = 1 -a "$_s" = 12
	exec 5<&-
	umount_9p $A
	rm -f "$EXP/at"
}

# ino PATH: the inode number of PATH, or "-" if it is not there
ino() { stat -c %i "$1" 2> /dev/null || echo -; }

# kind PATH: what stat says PATH is (type, mode, and a file's size), or "gone"
# (a directory's size is the server's business: the client keeps none)
kind() {
	_kd=$(stat -c '%F %a' "$1" 2> /dev/null) || { echo gone; return; }
	[ -d "$1" ] || _kd="$_kd $(stat -c %s "$1" 2> /dev/null)"
	echo "$_kd"
}

# mounted_names L DIALECT: changes made through the mount to cached names are
# right at once (actimeo=30: nothing is checked again on the server)
mounted_names() {
	_l=$1
	if ! mount_9p 9P tcp $2 $P $A cache=loose,actimeo=30 > $T/mount.txt 2>&1; then
		not_ok "$_l: mount cache=loose,actimeo=30: $(tail -n 1 $T/mount.txt)"
		return
	fi
	mkdir $A/rd && echo one > $A/rd/c1 && echo two > $A/rd/c2
	stat $A/rd/c1 $A/rd/c2 $A/rd/c3 > /dev/null 2>&1
	mv $A/rd $A/rd2
	check "$_l: a directory renamed with cached children: a child reads under the new name" \
		test "$(cat $A/rd2/c1 2>&1)" = one
	echo three > $A/rd2/c2
	check "$_l: ... a child written under the new name lands on the export" \
		test "$(cat "$EXP/rd2/c2" 2>&1)" = three
	echo four > $A/rd2/c3
	check "$_l: ... a child cached as missing is made under the new name" \
		test "$(cat "$EXP/rd2/c3" 2>&1)" = four
	check "$_l: ... the old name is gone" test ! -e $A/rd/c1 -a ! -e $A/rd
	echo old > $A/u
	_i0=$(ino $A/u)
	rm $A/u
	check "$_l: a cached name unlinked is gone at once" test ! -e $A/u
	echo new > $A/u
	check "$_l: ... made again: the new file, on the export too ($_i0, then $(ino $A/u), export $(ino "$EXP/u"))" \
		test "$(cat $A/u)" = new -a "$(cat "$EXP/u")" = new -a "$(ino $A/u)" = "$(ino "$EXP/u")"
	mkdir $A/rmd
	stat $A/rmd > /dev/null
	rmdir $A/rmd
	check "$_l: a cached directory removed is gone at once" test ! -e $A/rmd
	check "$_l: ... and made again" sh -c "mkdir $A/rmd && test -d '$EXP/rmd'"
	rm -rf $A/rd2 $A/u $A/rmd
	umount_9p $A
}

# export_names L DIALECT: names changed on the export are seen after actimeo=1,
# and each name still there is checked with one Twalk
export_names() {
	_l=$1 _n=20
	mkdir -p "$EXP/nm/dd"
	_names=
	_i=0
	while [ $_i -lt $_n ]; do
		echo "e$_i" > "$EXP/nm/e$_i"
		[ $_i -ge 3 ] && _names="$_names $A/nm/e$_i"
		_i=$((_i + 1))
	done
	echo ff > "$EXP/nm/ff"
	if ! mount_9p 9P tcp $2 $P $A cache=loose,actimeo=1 > $T/mount.txt 2>&1; then
		not_ok "$_l: mount cache=loose,actimeo=1: $(tail -n 1 $T/mount.txt)"
		return
	fi
	stat $A/nm/e0 $A/nm/e1 $A/nm/e2 $A/nm/new $A/nm/dd $A/nm/ff $_names > /dev/null 2>&1
	_i2=$(ino $A/nm/e2)
	rm "$EXP/nm/e0"
	echo new > "$EXP/nm/new"
	mv "$EXP/nm/e1" "$EXP/nm/e2"
	rmdir "$EXP/nm/dd" && echo dd > "$EXP/nm/dd"
	rm "$EXP/nm/ff" && mkdir "$EXP/nm/ff"
	sleep 1.1
	_c=$(msgs Twalk stat $_names)
	check "$_l: actimeo=1: stat of $((_n - 3)) cached names 1.1 s later checks each with one Twalk (sent $_c)" \
		test "$_c" -ge $((_n - 3)) -a "$_c" -le $((_n - 1))
	check "$_l: the export removed a cached name: gone" test ! -e $A/nm/e0
	check "$_l: the export made a name cached as missing: there" \
		test "$(cat $A/nm/new 2>&1)" = new
	check "$_l: the export renamed e1 over e2: e2 is the new inode ($_i2, then $(ino $A/nm/e2), export $(ino "$EXP/nm/e2"))" \
		test "$(ino $A/nm/e2)" = "$(ino "$EXP/nm/e2")" -a "$(cat $A/nm/e2 2>&1)" = e1
	check "$_l: ... and e1 is gone" test ! -e $A/nm/e1
	check "$_l: the export replaced a directory by a file: a file" \
		test -f $A/nm/dd -a "$(cat $A/nm/dd 2>&1)" = dd
	check "$_l: the export replaced a file by a directory: a directory" \
		sh -c "test -d $A/nm/ff && ls $A/nm/ff"
	umount_9p $A
	rm -rf "$EXP/nm"
}

# churn SECONDS CMD: run CMD (with $k a name index 0-3) in a loop until
# SECONDS have passed; errors go to stderr
churn() {
	_end=$(($(date +%s) + $1)) k=0
	while [ "$(date +%s)" -lt $_end ]; do
		eval "$2"
		k=$(((k + 1) % 4))
	done
}

# concurrent L DIALECT: processes stat, list, chmod, write and rename, create
# and unlink overlapping names through an actimeo=1 mount for 3 s while the
# export replaces them; no EIO or ESTALE, and after actimeo each name's stat
# through the mount is the export's
concurrent() {
	_l=$1
	mkdir -p "$EXP/cc"
	if ! mount_9p 9P tcp $2 $P $A cache=loose,actimeo=1 > $T/mount.txt 2>&1; then
		not_ok "$_l: mount cache=loose,actimeo=1: $(tail -n 1 $T/mount.txt)"
		return
	fi
	_pids=
	churn 3 'stat $A/cc/n$k > /dev/null; ls -l $A/cc > /dev/null' 2> $T/cc.1 &
	_pids="$_pids $!"
	churn 3 'chmod 60$((k + 4)) $A/cc/n$k' 2> $T/cc.2 &
	_pids="$_pids $!"
	churn 3 'echo w$k > $A/cc/t2 && mv $A/cc/t2 $A/cc/n$k' 2> $T/cc.3 &
	_pids="$_pids $!"
	churn 3 'touch $A/cc/n$k && rm -f $A/cc/n$k; cat $A/cc/n$k > /dev/null' 2> $T/cc.4 &
	_pids="$_pids $!"
	churn 3 'rm -rf "$EXP/cc/n$k"; if [ $k = 1 ]; then mkdir "$EXP/cc/n$k"; else echo x$k > "$EXP/cc/n$k"; fi; mv "$EXP/cc/n$k" "$EXP/cc/n$(((k + 1) % 4))"' 2> /dev/null &
	_pids="$_pids $!"
	wait $_pids
	cat $T/cc.1 $T/cc.2 $T/cc.3 $T/cc.4 > $T/cc.err
	_bad=$(grep -c -e "Input/output error" -e "Stale file handle" -e "I/O error" $T/cc.err)
	check "$_l: concurrent changes through the mount and on the export: no EIO or ESTALE ($_bad)" \
		test "$_bad" = 0
	diag "$_l: errors the processes saw: $(sed 's/.*: //' $T/cc.err | sort | uniq -c | tr '\n' ';')"
	grep -e "Input/output error" -e "Stale file handle" -e "I/O error" $T/cc.err | head -n 5 |
		sed 's/^/#   /'
	sleep 1.1
	_diff=
	for _k in n0 n1 n2 n3 t2; do
		[ "$(kind $A/cc/$_k)" = "$(kind "$EXP/cc/$_k")" ] ||
			_diff="$_diff $_k: $(kind $A/cc/$_k) / $(kind "$EXP/cc/$_k");"
	done
	check "$_l: ... 1.1 s later (actimeo=1) every name's stat through the mount is the export's$_diff" \
		test -z "$_diff"
	rm -rf $A/cc
	umount_9p $A
	check "$_l: ... umount" sh -c "! grep -q ' $A ' /proc/mounts"
	rm -rf "$EXP/cc"
}

# fidcap: a v9fsd with room for 16 fids per connection, a cache=loose mount
# of a tree of 45 files: a refused fid makes the client give back the fids of
# its unused cached names and walk again, so stat of every name and a read of
# the whole tree complete; opens that hold more fids than the server allows at
# once fail with EMFILE (nothing can be given back), and the names they were
# refused on open once those are closed
fidcap() {
	mkdir -p "$EXP/cap"
	_names=
	for _dd in d0 d1 d2; do
		mkdir -p "$EXP/cap/$_dd"
		_i=0
		while [ $_i -lt 15 ]; do
			echo "$_dd/f$_i" > "$EXP/cap/$_dd/f$_i"
			_names="$_names $A/cap/$_dd/f$_i"
			_i=$((_i + 1))
		done
	done
	if ! v9fsd_start "$EXP" $P -o max_fids=16; then
		not_ok "v9fsd -o max_fids=16 serves $EXP"
		return
	fi
	if mount_9p 9P tcp 9p2000.L $P $A cache=loose,actimeo=30 > $T/mount.txt 2>&1; then
		stat $_names > /dev/null 2> $T/cap.err
		check "fids refused (max_fids=16): stat of 45 cached names completes: $(sort -u $T/cap.err | head -n 2)" \
			test ! -s $T/cap.err
		(cd "$EXP/cap" && find . -type f | sort | xargs cat > $T/cap.want)
		(cd $A/cap && find . -type f | sort | xargs cat > $T/cap.got 2> $T/cap.err)
		check "... find and cat of the whole tree read what the export has: $(sort -u $T/cap.err | head -n 2)" \
			sh -c "cmp $T/cap.want $T/cap.got && test ! -s $T/cap.err && test -s $T/cap.got"
		# 10 files held open need 20 fids and more
		# (each shell's errors in a file of its own: a shell may write one
		# message in several writes, which others' would split)
		: > $T/cap.ok
		rm -f $T/cap.err.*
		_pids=
		_i=0
		while [ $_i -lt 10 ]; do
			sh -c "exec < $A/cap/d0/f$_i && echo f$_i && exec sleep 30" >> $T/cap.ok 2> $T/cap.err.$_i &
			_pids="$_pids $!"
			_i=$((_i + 1))
		done
		_i=0
		while [ $(($(wc -l < $T/cap.ok) + $(cat $T/cap.err.* | wc -l))) -lt 10 ] && [ $_i -lt 100 ]; do
			sleep 0.1
			_i=$((_i + 1))
		done
		cat $T/cap.err.* > $T/cap.err
		_e=$(grep -c "Too many open files" $T/cap.err)
		_o=$(grep -vc "Too many open files" $T/cap.err)
		check "... 10 files held open at once: $(wc -l < $T/cap.ok) open, the others fail with EMFILE ($_e), nothing else ($_o)" \
			test "$_e" -gt 0 -a "$_o" = 0 -a $(($(wc -l < $T/cap.ok) + _e)) = 10
		grep -v "Too many open files" $T/cap.err | head -n 3 | sed 's/^/#   other: /'
		kill $_pids 2> /dev/null
		wait $_pids 2> /dev/null
		_i=0 _bad=
		while [ $_i -lt 10 ]; do
			[ "$(cat $A/cap/d0/f$_i 2>&1)" = "d0/f$_i" ] || _bad="$_bad f$_i"
			_i=$((_i + 1))
		done
		check "... once closed, each of them reads (not cached as missing)$_bad" test -z "$_bad"
		umount_9p $A
	else
		not_ok "mount cache=loose,actimeo=30 (max_fids=16): $(tail -n 1 $T/mount.txt)"
	fi
	v9fsd_stop
	rm -rf "$EXP/cap"
}

# nocto_seen L OPTS PAUSE: over 9p2000.L with OPTS, the export changes a file
# read through the mount; after PAUSE seconds an open reads the change
nocto_seen() {
	printf aaaa > "$EXP/nc"
	if ! mount_9p 9P tcp 9p2000.L $P $A "$2" > $T/mount.txt 2>&1; then
		not_ok "$1: mount $2: $(tail -n 1 $T/mount.txt)"
		return
	fi
	_s0=$(cat $A/nc)
	printf bbbbbbbb > "$EXP/nc"
	[ "$3" = 0 ] || sleep "$3"
	_s=$(cat $A/nc)
	check "$1: $2: the export changed the file: an open $3 s later reads it ($_s0, then $_s)" \
		test "$_s0" = aaaa -a "$_s" = bbbbbbbb
	umount_9p $A
}

# nocto L DIALECT: cache=loose,nocto: opens of a file whose attributes are
# trusted (actimeo) send no Tgetattr (Tstat in .u), so a change on the export
# is not seen by an open within actimeo and is seen after it; cto (the
# default, given explicitly) asks at each open and sees it at once
nocto() {
	_nl=$1 _nd=$2 _ng=Tgetattr _no=Tlopen
	[ $_nd = 9p2000.u ] && _ng=Tstat _no=Topen
	for _nx in nocto cto; do
		printf aaaa > "$EXP/nc"
		if ! mount_9p 9P tcp $_nd $P $A cache=loose,actimeo=30,$_nx > $T/mount.txt 2>&1; then
			not_ok "$_nl: mount cache=loose,actimeo=30,$_nx: $(tail -n 1 $T/mount.txt)"
			continue
		fi
		_shown=no
		grep -q " $A .*,nocto" /proc/mounts && _shown=yes
		cat $A/nc > /dev/null
		_ten="for i in 1 2 3 4 5 6 7 8 9 10; do cat $A/nc; done"
		_c=$(msgs $_ng sh -c "$_ten")
		_o=$(msgs $_no sh -c "$_ten")
		printf bbbbbbbb > "$EXP/nc"
		_s=$(cat $A/nc)
		if [ $_nx = nocto ]; then
			check "$_nl: nocto: /proc/mounts shows it ($_shown)" test $_shown = yes
			check "$_nl: nocto: 10 opens within actimeo=30 send no $_ng (sent $_c; $_o $_no)" \
				test "$_c" = 0 -a "$_o" -ge 10
			check "$_nl: nocto: the export changed the file: an open within actimeo reads the cached bytes ($_s)" \
				test "$_s" = aaaa
		else
			check "$_nl: cto: /proc/mounts shows no nocto ($_shown)" test $_shown = no
			check "$_nl: cto: 10 opens send a $_ng each (sent $_c; $_o $_no)" \
				test "$_c" -ge 10 -a "$_o" -ge 10
			check "$_nl: cto: the export changed the file: the next open reads it ($_s)" \
				test "$_s" = bbbbbbbb
		fi
		umount_9p $A
	done
	rm -f "$EXP/nc"
	# the sleeps, and the cases that need 9P2000.L's link counts, once
	[ $_nd = 9p2000.L ] || return

	# actimeo=1: the change is seen by the first open after it
	nocto_seen "$_nl" cache=loose,actimeo=1,nocto 1.1

	# a lookup of a second name of a cached inode whose size went down on
	# the export: the smaller size is not taken from a lookup, so its
	# attributes are not trusted; stat and open ask again
	printf 12345678 > "$EXP/hl1"
	ln "$EXP/hl1" "$EXP/hl2"
	if mount_9p 9P tcp $_nd $P $A cache=loose,actimeo=30,nocto > $T/mount.txt 2>&1; then
		cat $A/hl1 > /dev/null
		printf 1234 > "$EXP/hl1"
		_s=$(stat -c %s $A/hl2)
		_t=$(cat $A/hl2)
		check "$_nl: nocto: a second name of a cached file the export shrank: stat says 4 ($_s), it reads 1234 ($_t)" \
			test "$_s" = 4 -a "$_t" = 1234
		umount_9p $A
	else
		not_ok "$_nl: mount cache=loose,actimeo=30,nocto: $(tail -n 1 $T/mount.txt)"
	fi
	rm -f "$EXP/hl1" "$EXP/hl2"

	# no cache: nocto is accepted and changes nothing
	nocto_seen "$_nl" cache=none,nocto 0
	rm -f "$EXP/nc"
}

# reqs CMD...: the requests v9fsd received while CMD ran, by type and sorted
# by name ("Tclunk:1 Tgetattr:1 ...")
reqs() {
	v9fsd_count $P Tversion > /dev/null
	cp /tmp/v9fsd.$P.stats $T/reqs.0
	"$@" > /dev/null 2>&1
	# a fid's last put (a close's) sends its Tclunk without waiting for
	# it: count once no request is left in flight
	poll_until 40 0.05 '[ "$(cat $PARAMS/live_reqs)" = 0 ]'
	v9fsd_count $P Tversion > /dev/null
	awk 'FNR == NR { b[$1] = $2; next }
		$1 ~ /^T/ && $2 > b[$1] { print $1 ":" $2 - b[$1] }' $T/reqs.0 /tmp/v9fsd.$P.stats |
		sort | tr '\n' ' ' | sed 's/ $//'
}

# sorted WORD...: the words sorted, as reqs prints them
sorted() { echo "$*" | tr ' ' '\n' | sort | tr '\n' ' ' | sed 's/ $//'; }

# opens L DIALECT: the requests of an open of a cached file (a file at the
# mount's top, so that no directory's name is checked on the way;
# actimeo=2). With cto, within actimeo and after it alike: one Twalk (a
# clone of the dentry's fid, or after actimeo the name check's, which the
# open takes as its fid), the Tlopen (Topen), the Tgetattr (Tstat) close-to-
# open asks for and the Tclunk of the close. With nocto no Tgetattr within
# actimeo, one after. A stat after actimeo: the name's check (Twalk, its fid
# kept for an open) and the Tgetattr (over .L sent beside the Twalk), and it
# sees what the export changed meanwhile; an open right after takes the
# check's fid (no Twalk) and reads the new bytes. The cto and the nocto
# mount ($A and $W) are both up, each step taken on one then the other, so
# that one wait for actimeo serves both. Then the export changes files
# between two opens: renames another file over one, changes one's bytes at
# the same size (seen at the next open with cto, within actimeo too, and
# after actimeo), removes one (ENOENT at the next open after actimeo); the
# three changes are made together and share the wait.
opens() {
	_l=$1 _d=$2 _g=Tgetattr _o=Tlopen
	[ $_d = 9p2000.u ] && _g=Tstat _o=Topen
	printf 12345678 > "$EXP/of"
	_ms=
	for _ox in cto nocto; do
		_m=$A
		[ $_ox = nocto ] && _m=$W
		if mount_9p 9P tcp $_d $P $_m cache=loose,actimeo=2,$_ox > $T/mount.txt 2>&1; then
			_ms="$_ms $_ox"
		else
			not_ok "$_l: mount cache=loose,actimeo=2,$_ox: $(tail -n 1 $T/mount.txt)"
		fi
	done
	for _ox in $_ms; do
		_m=$A
		[ $_ox = nocto ] && _m=$W
		cat $_m/of > /dev/null
		eval "_in_$_ox=\$(reqs cat $_m/of)"
	done
	sleep 2.1
	for _ox in $_ms; do
		_m=$A
		[ $_ox = nocto ] && _m=$W
		eval "_af_$_ox=\$(reqs cat $_m/of)"
	done
	sleep 2.1
	printf 123456789 > "$EXP/of"
	chmod 600 "$EXP/of"
	for _ox in $_ms; do
		_m=$A
		[ $_ox = nocto ] && _m=$W
		_st=$(reqs stat $_m/of)
		_sa=$(stat -c %s:%a $_m/of)
		_op=$(reqs cat $_m/of)
		eval "_in=\$_in_$_ox _af=\$_af_$_ox"
		_want=$(sorted Twalk:1 $_o:1 $_g:1 Tclunk:1)
		[ $_ox = nocto ] && _want=$(sorted Twalk:1 $_o:1 Tclunk:1)
		check "$_l: $_ox: an open of a cached file within actimeo sends $_want ($_in)" \
			test "$_in" = "$_want"
		_want=$(sorted Twalk:1 $_o:1 $_g:1 Tclunk:1)
		check "$_l: $_ox: an open after actimeo, the name checked, sends $_want ($_af)" \
			test "$_af" = "$_want"
		_want=$(sorted Twalk:1 $_g:1)
		check "$_l: $_ox: a stat after actimeo sends $_want ($_st)" test "$_st" = "$_want"
		check "$_l: $_ox: ... and sees the size and mode the export gave the file (9:600: $_sa)" \
			test "$_sa" = 9:600
		_want=$(sorted $_o:1 $_g:1 Tread:1 Tclunk:1)
		[ $_ox = nocto ] && _want=$(sorted $_o:1 Tread:1 Tclunk:1)
		check "$_l: $_ox: an open right after it takes the check's fid, reads the new bytes, sends $_want ($_op)" \
			test "$_op" = "$_want"
		umount_9p $_m
	done

	printf aaaa > "$EXP/of"
	printf bbbb > "$EXP/og"
	printf aaaa > "$EXP/oe"
	printf gone > "$EXP/od"
	if ! mount_9p 9P tcp $_d $P $A cache=loose,actimeo=2 > $T/mount.txt 2>&1; then
		not_ok "$_l: mount cache=loose,actimeo=2: $(tail -n 1 $T/mount.txt)"
		rm -f "$EXP/of" "$EXP/og" "$EXP/oe" "$EXP/od"
		return
	fi
	_s0=$(cat $A/of)
	_i0=$(ino $A/of)
	_e0=$(cat $A/oe)
	cat $A/od > /dev/null
	mv "$EXP/og" "$EXP/of"
	rm "$EXP/od"
	# 9P2000.u times are whole seconds: the change comes in a later one
	[ $_d = 9p2000.u ] && next_second "$EXP/oe"
	printf dddd > "$EXP/oe"
	sleep 2.1
	_s=$(cat $A/of)
	check "$_l: the export renamed another file over a cached one: the next open after actimeo reads it ($_s0, then $_s; inode $_i0, then $(ino $A/of), export $(ino "$EXP/of"))" \
		test "$_s0" = aaaa -a "$_s" = bbbb -a "$(ino $A/of)" = "$(ino "$EXP/of")"
	[ $_d = 9p2000.u ] && next_second "$EXP/of"
	printf cccc > "$EXP/of"
	_s=$(cat $A/of)
	check "$_l: the export changed the bytes at the same size: the next open (within actimeo) reads them ($_s)" \
		test "$_s" = cccc
	_s=$(cat $A/oe)
	check "$_l: ... the export changed another cached file at the same size: the next open after actimeo reads it ($_e0, then $_s)" \
		test "$_e0" = aaaa -a "$_s" = dddd
	cat $A/od > $T/of.txt 2>&1
	_rc=$?
	check "$_l: the export removed a cached file: the next open after actimeo fails with ENOENT ($_rc: $(cat $T/of.txt))" \
		sh -c "test $_rc != 0 && grep -q 'No such file' $T/of.txt"
	umount_9p $A
	rm -f "$EXP/of" "$EXP/og" "$EXP/oe" "$EXP/od"
}

# open_checks L DIALECT: a name past actimeo (1) that a stat checked before
# (its fid kept for an open). Over 9P2000.L the open checks the name itself,
# its Twalk sent beside the Tlopen and Tgetattr of the kept fid: Twalk,
# Tlopen, Tgetattr and the close's Tclunk, in one round trip less (over
# 9P2000.u the check goes first, as before: Twalk, the Tclunk of its
# surplus fid, Topen, Tstat, Tclunk). Between the stat and the open the
# export renames another file over the name (the open reads the new file),
# removes it (ENOENT), makes it a directory (the open gets the directory:
# cat fails with EISDIR), replaces it and the open truncates (the new file
# is empty, the old one, kept by a hard link on the export, is not),
# replaces a script (exec runs the new one). 200 opens while the export
# swaps two files back and forth each read one of them whole or fail with
# ENOENT, nothing else. No fid is left after the umount, nothing in the
# kernel log.
open_checks() {
	_l=$1 _d=$2 _g=Tgetattr _o=Tlopen
	[ $_d = 9p2000.u ] && _g=Tstat _o=Topen
	_f0=$(cat $PARAMS/live_fids)
	_k0=$(dmesg | wc -l)
	mkdir -p "$EXP/oc"
	printf 12345678 > "$EXP/ocn"
	printf aaaa > "$EXP/oc/ren"
	printf bbbbbb > "$EXP/oc/ren.new"
	printf gone > "$EXP/oc/rm"
	printf file > "$EXP/oc/dir"
	printf old-bytes > "$EXP/oc/tr"
	ln "$EXP/oc/tr" "$EXP/oc/tr.keep"
	printf new-bytes > "$EXP/oc/tr.new"
	printf '#!/bin/sh\necho one\n' > "$EXP/oc/x"
	printf '#!/bin/sh\necho two\n' > "$EXP/oc/x.new"
	chmod 755 "$EXP/oc/x" "$EXP/oc/x.new"
	yes a | head -c 6000 > $T/wa
	yes b | head -c 6000 > $T/wb
	cp $T/wa "$EXP/oc/la"
	cp $T/wb "$EXP/oc/lb"
	if ! mount_9p 9P tcp $_d $P $A cache=loose,actimeo=1 > $T/mount.txt 2>&1; then
		not_ok "$_l: mount cache=loose,actimeo=1: $(tail -n 1 $T/mount.txt)"
		rm -rf "$EXP/oc" "$EXP/ocn"
		return
	fi
	_names="$A/ocn $A/oc/ren $A/oc/rm $A/oc/dir $A/oc/tr $A/oc/x"
	cat $A/ocn $A/oc/ren $A/oc/x > /dev/null
	stat $_names > /dev/null
	sleep 1.1
	stat $_names > /dev/null
	mv "$EXP/oc/ren.new" "$EXP/oc/ren"
	rm "$EXP/oc/rm"
	rm "$EXP/oc/dir" && mkdir "$EXP/oc/dir"
	mv "$EXP/oc/tr.new" "$EXP/oc/tr"
	mv "$EXP/oc/x.new" "$EXP/oc/x"
	sleep 1.1
	# a file at the mount's top: no directory's name is checked on the way
	_c=$(reqs cat $A/ocn)
	_want=$(sorted Twalk:1 $_o:1 $_g:1 Tclunk:1)
	[ $_d = 9p2000.u ] && _want=$(sorted Twalk:1 $_o:1 $_g:1 Tclunk:2)
	check "$_l: a stat, then an open after actimeo: the name checked, sends $_want ($_c)" \
		test "$_c" = "$_want"
	_s=$(cat $A/oc/ren 2>&1)
	check "$_l: ... the export renamed another file over the name: the open reads it ($_s)" \
		test "$_s" = bbbbbb
	cat $A/oc/rm > $T/oc.txt 2>&1
	_rc=$?
	check "$_l: ... the export removed the file: ENOENT ($_rc: $(cat $T/oc.txt))" \
		sh -c "test $_rc != 0 && grep -q 'No such file' $T/oc.txt"
	cat $A/oc/dir > $T/oc.txt 2>&1
	_rc=$?
	check "$_l: ... the export made the name a directory: cat gets EISDIR ($_rc: $(cat $T/oc.txt))" \
		sh -c "test $_rc != 0 && grep -q 'Is a directory' $T/oc.txt && test -d $A/oc/dir"
	: > $A/oc/tr
	check "$_l: ... the export replaced the file, opened O_TRUNC: the new one is truncated ($(wc -c < "$EXP/oc/tr")), the old one kept ($(cat "$EXP/oc/tr.keep"))" \
		test ! -s "$EXP/oc/tr" -a "$(cat "$EXP/oc/tr.keep")" = old-bytes
	_s=$($A/oc/x 2>&1)
	check "$_l: ... the export replaced a script: exec runs the new one ($_s)" test "$_s" = two

	# 200 opens, the export swapping the two files
	if [ $_d = 9p2000.L ]; then
		: > $T/loop.err
		: > $T/loop.bad
		rm -f $T/loop.stop
		(
			while [ ! -e $T/loop.stop ]; do
				mv "$EXP/oc/la" "$EXP/oc/lt"
				mv "$EXP/oc/lb" "$EXP/oc/la"
				mv "$EXP/oc/lt" "$EXP/oc/lb"
			done
		) 2> /dev/null &
		_sw=$!
		_t0=$(date +%s)
		_i=0
		while [ $_i -lt 200 ]; do
			_f=$A/oc/la
			[ $((_i % 2)) = 1 ] && _f=$A/oc/lb
			if cat $_f > $T/loop.got 2>> $T/loop.err; then
				cmp -s $T/loop.got $T/wa || cmp -s $T/loop.got $T/wb ||
					echo "$_f: $(wc -c < $T/loop.got) bytes" >> $T/loop.bad
			fi
			_i=$((_i + 1))
		done
		touch $T/loop.stop
		wait $_sw
		_e=$(grep -c "No such file" $T/loop.err)
		check "$_l: 200 opens in $(($(date +%s) - _t0)) s while the export swaps two files: each reads one whole ($(wc -l < $T/loop.bad) not), $_e ENOENT, no other error" \
			sh -c "test ! -s $T/loop.bad && ! grep -v 'No such file' $T/loop.err"
		head -n 3 $T/loop.bad | sed 's/^/#   /'
	fi
	umount_9p $A
	check "$_l: ... no fid left after the umount ($_f0, then $(cat $PARAMS/live_fids))" \
		test "$(cat $PARAMS/live_fids)" = "$_f0"
	check "$_l: ... nothing in the kernel log" \
		sh -c "! dmesg | tail -n +$((_k0 + 1)) | grep -E 'BUG:|Oops|WARNING:|general protection'"
	rm -rf "$EXP/oc" "$EXP/ocn"
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
	[ $_d = 9p2000.u ] && next_second "$EXP/f"
	cp $T/r2 $B/f
	same "$_l: B wrote, A's next open reads B's bytes" $T/r2 $A/f
	# a descriptor A kept open may show either: close-to-open promises nothing
	if dd bs=64k <&4 2> /dev/null | cmp -s $T/r2 -; then _o="B's"; else _o="its old"; fi
	exec 4<&-
	diag "$_l: a descriptor of A open across B's write read $_o bytes"

	# changed on the server behind the client's back, same size again
	cat $A/f > /dev/null
	[ $_d = 9p2000.u ] && next_second "$EXP/f"
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
	timed wb_fail "$_l" $_d 1
	timed wb_fail "$_l" $_d 0
	# over 9P2000.u too under make soak: the write-back path is the same
	case " $(soak 9p2000.L '9p2000.L 9p2000.u') " in
	*" $_d "*) timed early_wb "$_l" $_d ;;
	esac
	timed attrs "$_l" $_d
	timed mounted_names "$_l" $_d
	timed nocto "$_l" $_d
	timed opens "$_l" $_d
	timed open_checks "$_l" $_d
	[ $_d = 9p2000.L ] || return
	timed export_names "$_l" $_d
	timed concurrent "$_l" $_d
}

ours_and_v9fsd "$EXP" $P || exit 0
run 9P.L 9p2000.L
run 9P.u 9p2000.u
v9fsd_stop
timed fidcap
ours_unload
unload_client 9p 2> /dev/null
rm -rf "$T" "$EXP"
exit 0
