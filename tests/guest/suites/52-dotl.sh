#!/bin/sh
# timeout: 1200
# 52-dotl: the 9P2000.L interop matrix. Servers and transports:
#   diod   tcp               Debian's diod, an independent 9P2000.L server
#   v9fsd  tcp, unix, fd     ours
# each mounted by the in-tree client (9p, the reference) and then by ours (9P),
# except that the in-tree client mounts v9fsd over tcp only: the transport
# does not change what v9fsd answers, and its other transports are the
# in-tree client's, not ours (ours over unix and fd is judged against the
# in-tree client's tcp run on v9fsd).
# On every mount: posix-suite with the opt-in groups (locks, xattr, statfs-df
# against the export, xdir-rename) and a small directory listing (50-posix does
# the 10,000-entry one); on diod with a second mount of the export, where
# unlink-other removes the name of a file the first mount holds open. fsx, one run then four at once on the mount:
#   ours          10,000 ops (4 x 2,500) over tcp on diod, the only run of ours
#                 against another server; 2,500 (4 x 625) on v9fsd over unix
#                 and fd, our other two transports; none on v9fsd over tcp:
#                 70-fsx runs ours there (9P2000.L, cache=none) at 2,500 ops
#                 (4 x 625), with mapped reads on top; this diod run is the
#                 long one of ours over 9P2000.L with cache=none
#   in-tree       1,000 ops (4 x 250) on diod only, as the reference: its
#                 failures are notes and only turn a shared failure of ours
#                 into a SKIP; an in-tree fsx costs minutes under TCG
# make soak runs 10,000 ops in every one of them.
# (ours has no fsx reference on v9fsd: its failures there fail.)
# Locks between two mounts of one server (two connections), on diod and v9fsd,
# each client (pair_locks below).
# cache=loose on diod, each client (ours with actimeo=1): a file made, changed,
# replaced and removed on the export seen through the mount (stat after actimeo,
# an open right after, close-to-open; tests/guest/loose-coherence.sh), then an
# fsx on the loose mount: ours 2,500 ops, the in-tree reference 1,000 (10,000
# each in make soak). Ours is asserted, the in-tree client's differences are
# notes.
#
# What is asserted and what is a note:
#   - the in-tree client on diod is the reference: its failures are notes (neither
#     is ours), and a failure there is what "the client cannot" means below
#   - the in-tree client on v9fsd: a failure it does not also have on diod is
#     v9fsd's and fails here; one it has on diod too is a note
#   - ours: a failure the in-tree client has on the same server (v9fsd: over
#     tcp) is a SKIP that says so; anything else fails, except a byte-range lock beside
#     another's (another process's, or through the other mount) on diod, which
#     locks whole files (DIOD_LOCKS below)
#   - ours refusing version=9p2000.L (EINVAL, the option named in the kernel log)
#     SKIPs its runs: "our client does not speak 9P2000.L"; any other mount
#     failure fails
. /v9fs/tests/lib.sh
. /v9fs/tests/loose-coherence.sh

PORT=5652
DPORT=5653
EXPORT=/export/dotl
DEXPORT=/export/dotl-diod
OUT=/tmp/dotl.$$
SUITE=/v9fs/bin/posix-suite
XGROUPS=locks,xattr,statfs-df,xdir-rename
ENTRIES=100
OPS=10000
OPS_SHORT=$(soak 2500 10000)
# the in-tree client's fsx on diod: a reference (its failures are notes)
REF_OPS=$(soak 1000 10000)
SEED=${V9FS_FSX_SEED:-$(date +%s)}
NO_DOTL="our client does not speak 9P2000.L"
# diod answers Tlock with a whole-file flock(2) on the fid's descriptor, ignoring
# the range: a lock on bytes 20-29 beside another process's on 0-9 conflicts
# there. The in-tree client passes that check only because its lock on 0-9 is
# gone from diod by then: every close(2) of a descriptor of a file with POSIX
# locks unlocks for the closing process, and the in-tree client sends that as a
# Tlock F_UNLCK on the open file's fid even for a process that holds no lock, so
# the exit of a child that inherited the holder's descriptor (posix-suite's
# first child, lockrun's shell or its commands) makes diod drop the holder's
# flock(2). Ours tells the server only for an owner that holds a lock here
# (module/vfs/lock.c), so the holder keeps it. Through the other mount the in-tree
# client's loss shows: bytes 15-19 and flock -n are not refused there (notes).
DIOD_LOCKS="diod locks whole files (flock), not byte ranges"
DIOD_BESIDE="locks: another process locks bytes 20-29 beside it"
DIOD_BESIDE_PAIR="locks across mounts: F_SETLK on bytes 40-49 through the second mount succeeds beside it"
mkdir -p "$OUT" "$EXPORT" "$DEXPORT"

# key LINE: what identifies a check across runs: the text after the run's label,
# without measured values in parentheses or an errno text after ": ".
KEY_AWK='{ sub(/^(not )?ok - [^ ]* /, ""); sub(/ \(.*$/, ""); n = index($0, ": ");
	if (n) { g = substr($0, 1, n + 1); r = substr($0, n + 2); m = index(r, ": ");
	if (m) r = substr(r, 1, m - 1); $0 = g r } print }'

klog_mark() { KLOG_BASE=$(dmesg | wc -l); }
klog_new() { dmesg | tail -n +$((KLOG_BASE + 1)); }

# ref_conf CONF: the in-tree client's run that ours on CONF is judged against:
# the same, but v9fsd's over tcp for v9fsd's unix and fd (the in-tree client
# mounts v9fsd over tcp only).
ref_conf() {
	case $1 in
	v9fsd-unix | v9fsd-fd) echo v9fsd-tcp ;;
	*) echo "$1" ;;
	esac
}

# verdict CLIENT CONF LINE: print LINE (a TAP line of a run of CLIENT on CONF,
# "diod-tcp", "v9fsd-unix"...) as the rules above say. Failures of the in-tree
# client are kept in $OUT/fails.9p.CONF, keyed.
verdict() {
	_vc=$1 _vconf=$2 _vl=$3
	case $_vl in
	"not ok - "*) ;;
	*) echo "$_vl"; return ;;
	esac
	_k=$(echo "$_vl" | awk "$KEY_AWK")
	if [ "$_vc" = 9p ]; then
		echo "$_k" >> "$OUT/fails.9p.$_vconf"
		case $_vconf in
		diod-*)
			diag "note: reference (in-tree 9p on diod) fails: ${_vl#not ok - }" ;;
		*)
			_dref=diod-tcp
			[ "${_vconf#*-}" = pair ] && _dref=diod-pair
			if grep -qxF "$_k" "$OUT/fails.9p.$_dref" 2> /dev/null; then
				diag "note: in-tree 9p fails on diod too: ${_vl#not ok - }"
			else
				echo "$_vl"
			fi ;;
		esac
	elif grep -qxF "$_k" "$OUT/fails.9p.$(ref_conf "$_vconf")" 2> /dev/null; then
		echo "ok - ${_vl#not ok - } # SKIP the in-tree client fails this too"
	elif [ "${_vconf%%-*}" = diod ] && { [ "$_k" = "$DIOD_BESIDE" ] ||
		[ "$_k" = "$DIOD_BESIDE_PAIR" ]; }; then
		echo "ok - ${_vl#not ok - } # SKIP $DIOD_LOCKS"
	else
		echo "$_vl"
	fi
}

# posix CLIENT CONF DIR EXPORT_DIR [OTHER_DIR]: posix-suite in DIR; OTHER_DIR is
# DIR on a second mount of the export (unlink-other). Where the file of an
# unlinked name cannot be reached (diod works on paths), and for the in-tree
# client, the unlink-calls and unlink-other checks are notes (-R).
posix() {
	_pl="$1/$2:" _pn=
	case $1/$2 in 9p/* | */diod-*) _pn="-R unlink-calls,unlink-other" ;; esac
	timeout 600 "$SUITE" -n $ENTRIES -x $XGROUPS -E "$4" ${5:+-O "$5"} $_pn -p "$_pl " "$3" \
		> "$OUT/posix.txt" 2>&1
	_rc=$?
	[ $_rc -eq 124 ] && echo "not ok - $_pl posix-suite: finished within 600 s" \
		>> "$OUT/posix.txt"
	while IFS= read -r _line; do
		verdict "$1" "$2" "$_line"
	done < "$OUT/posix.txt"
}

# fsx_runs CLIENT CONF DIR OPS: one fsx of OPS operations, then four at once.
fsx_runs() {
	_fl="$1/$2:" _ops=$4
	timeout 600 /v9fs/bin/fsx -q -N $_ops -l 131072 -o 16384 -S $SEED "$3/fsx.file" \
		> "$OUT/fsx.out" 2> "$OUT/fsx.err"
	_rc=$?
	if [ $_rc -eq 0 ]; then
		verdict "$1" "$2" "ok - $_fl fsx ($_ops ops)"
		diag "$_fl $(tail -n 1 "$OUT/fsx.out")"
	else
		verdict "$1" "$2" "not ok - $_fl fsx ($_ops ops, exit $_rc, seed $SEED)"
		head -n 40 "$OUT/fsx.err" | sed 's/^/#   /'
	fi
	rm -f "$3/fsx.file"
	_pids=
	for _i in 1 2 3 4; do
		timeout 600 /v9fs/bin/fsx -q -N $((_ops / 4)) -l 131072 -o 16384 \
			-S $((SEED + _i)) "$3/fsx.par$_i" > "$OUT/par$_i.out" 2> "$OUT/par$_i.err" &
		_pids="$_pids $!"
	done
	_bad=
	_i=0
	for _p in $_pids; do
		_i=$((_i + 1))
		wait "$_p" || _bad="$_bad $_i"
	done
	if [ -z "$_bad" ]; then
		verdict "$1" "$2" "ok - $_fl 4 fsx at once ($((_ops / 4)) ops each)"
	else
		verdict "$1" "$2" \
			"not ok - $_fl 4 fsx at once ($((_ops / 4)) ops each, failed:$_bad, seeds $SEED+i)"
		for _i in $_bad; do
			head -n 20 "$OUT/par$_i.err" | sed "s/^/#   [$_i] /"
		done
	fi
	rm -f "$3"/fsx.par*
}

# run CLIENT SERVER TRANS PORT EXPORT_DIR FSX_OPS [EXTRA_OPTS]: mount, the
# checks (no fsx when FSX_OPS is 0), umount.
run() {
	_c=$1 _conf=$2-$3 _rp=$4 _rx=$5 _rops=$6 _ro=${7:-}
	_mnt=/mnt/dotl-$1
	klog_mark
	if ! mount_9p "$_c" "$3" 9p2000.L "$_rp" "$_mnt" "$_ro" > "$OUT/mount.txt" 2>&1; then
		if [ "$_c" = 9P ] && grep -q 'Invalid argument' "$OUT/mount.txt" &&
			klog_new | grep '9P' | grep -q 'version'; then
			skip "9P/$_conf: posix-suite, fsx, 4 fsx at once" "$NO_DOTL"
		else
			verdict "$_c" "$_conf" \
				"not ok - $_c/$_conf: mount: $(tail -n 1 "$OUT/mount.txt")"
			klog_new | tail -n 5 | sed 's/^/#   /'
		fi
		return
	fi
	diag "$_c/$_conf: $(awk -v m="$_mnt" '$2 == m { print $4 }' /proc/mounts)"
	_t0=$(date +%s)
	# on diod, a second mount for unlink-other (50-posix has v9fsd's)
	_om=
	if [ "$2" = diod ]; then
		if mount_9p "$_c" "$3" 9p2000.L "$_rp" "$_mnt-other" "$_ro" > "$OUT/mount.txt" 2>&1; then
			_om=$_mnt-other
		else
			diag "$_c/$_conf: a second mount for unlink-other: $(tail -n 1 "$OUT/mount.txt")"
		fi
	fi
	posix "$_c" "$_conf" "$_mnt" "$_rx" $_om
	[ -z "$_om" ] || umount_9p "$_om" || not_ok "$_c/$_conf: umount of the second mount"
	diag "$_c/$_conf: posix-suite took $(($(date +%s) - _t0)) s"
	_t0=$(date +%s)
	[ "$_rops" -gt 0 ] && fsx_runs "$_c" "$_conf" "$_mnt" "$_rops" &&
		diag "$_c/$_conf: fsx took $(($(date +%s) - _t0)) s"
	umount_9p "$_mnt" || not_ok "$_c/$_conf: umount"
}

# --- locks between two mounts ------------------------------------------------------
# Two mounts of one export are two connections: only the server can see that
# a lock taken through one conflicts with a request through the other. What is
# asserted: a conflicting F_SETLK is refused with EAGAIN, one on bytes beside
# the held range is granted, F_GETLK reports the holder's type and range (its
# l_pid is whatever the server answers in Rgetlock, shown, not asserted), flock
# conflicts the same way, and both are free once the holder exited.
LOCKRUN=/v9fs/bin/lockrun

# lock_hold FILE LOCKRUN_OPTS...: hold the lock in the background until
# $OUT/release exists; returns once it is held or after 30 s. Sets HOLDER.
lock_hold() {
	_hf=$1
	shift
	rm -f "$OUT/held" "$OUT/release"
	timeout 120 $LOCKRUN "$@" "$_hf" \
		"touch $OUT/held; while [ ! -e $OUT/release ]; do sleep 0.1; done" &
	HOLDER=$!
	_i=0
	while [ ! -e "$OUT/held" ] && [ $_i -lt 300 ]; do
		kill -0 $HOLDER 2> /dev/null || break
		sleep 0.1
		_i=$((_i + 1))
	done
}

# lock_release: let the holder go and wait for it to exit.
lock_release() {
	touch "$OUT/release"
	wait $HOLDER
}

# lock_try TEXT EXPECT LOCKRUN_ARGS...: a TAP line for the pair run; EXPECT is
# lockrun's output and exit status as "OUTPUT/STATUS".
lock_try() {
	_lt=$1 _le=$2
	shift 2
	_lo=$(timeout 30 $LOCKRUN "$@" 2>&1)
	_lo="$_lo/$?"
	if [ "$_lo" = "$_le" ]; then
		verdict "$_pc" "$_pconf" "ok - $_pc/$_pconf: locks across mounts: $_lt"
	else
		verdict "$_pc" "$_pconf" \
			"not ok - $_pc/$_pconf: locks across mounts: $_lt: got '$_lo', expected '$_le'"
	fi
}

# pair_locks CLIENT SERVER PORT [EXTRA_OPTS]
pair_locks() {
	_pc=$1 _pconf=$2-pair _pa=/mnt/dotl-$1.a _pb=/mnt/dotl-$1.b
	if ! mount_9p "$_pc" tcp 9p2000.L "$3" "$_pa" "${4:-}" > "$OUT/mount.txt" 2>&1 ||
	   ! mount_9p "$_pc" tcp 9p2000.L "$3" "$_pb" "${4:-}" >> "$OUT/mount.txt" 2>&1; then
		verdict "$_pc" "$_pconf" \
			"not ok - $_pc/$_pconf: locks across mounts: mount twice: $(tail -n 1 "$OUT/mount.txt")"
		umount_9p "$_pa" 2> /dev/null
		return
	fi
	_pf=lockpair.$_pc
	: > "$_pa/$_pf"
	lock_hold "$_pa/$_pf" -r 10,20
	if [ ! -e "$OUT/held" ]; then
		verdict "$_pc" "$_pconf" \
			"not ok - $_pc/$_pconf: locks across mounts: fcntl write lock on bytes 10-29 through the first mount"
		lock_release
	else
		verdict "$_pc" "$_pconf" \
			"ok - $_pc/$_pconf: locks across mounts: fcntl write lock on bytes 10-29 through the first mount"
		lock_try "F_SETLK on bytes 15-19 through the second mount is refused with EAGAIN" \
			"refused 11/1" -n -v -r 15,5 "$_pb/$_pf" true
		lock_try "F_SETLK on bytes 40-49 through the second mount succeeds beside it" \
			"/0" -n -v -r 40,10 "$_pb/$_pf" true
		_g=$(timeout 30 $LOCKRUN -g "$_pb/$_pf" 2>&1)
		diag "$_pc/$_pconf: F_GETLK through the second mount: '$_g' (holder's pid in the guest $HOLDER)"
		case $_g in
		"W 10 20 "*) verdict "$_pc" "$_pconf" \
			"ok - $_pc/$_pconf: locks across mounts: F_GETLK through the second mount reports the write lock on bytes 10-29" ;;
		*) verdict "$_pc" "$_pconf" \
			"not ok - $_pc/$_pconf: locks across mounts: F_GETLK through the second mount reports the write lock on bytes 10-29: got '$_g'" ;;
		esac
		lock_release
		lock_try "F_SETLK on bytes 15-19 through the second mount succeeds once the holder exited" \
			"/0" -n -v -r 15,5 "$_pb/$_pf" true
		lock_try "F_GETLK through the second mount reports no lock once the holder exited" \
			"unlocked/0" -g "$_pb/$_pf"
	fi
	lock_hold "$_pa/$_pf"
	if [ -e "$OUT/held" ]; then
		verdict "$_pc" "$_pconf" "ok - $_pc/$_pconf: locks across mounts: flock through the first mount"
		lock_try "flock -n through the second mount is refused with EWOULDBLOCK" \
			"refused 11/1" -n -v "$_pb/$_pf" true
		lock_release
		lock_try "flock -n through the second mount succeeds once the holder exited" \
			"/0" -n -v "$_pb/$_pf" true
	else
		verdict "$_pc" "$_pconf" "not ok - $_pc/$_pconf: locks across mounts: flock through the first mount"
		lock_release
	fi
	rm -f "$_pa/$_pf"
	umount_9p "$_pb" || not_ok "$_pc/$_pconf: locks across mounts: umount"
	umount_9p "$_pa" || not_ok "$_pc/$_pconf: locks across mounts: umount"
}

diag "fsx seed $SEED (set V9FS_FSX_SEED to replay)"

# --- baseline: the checks themselves, on tmpfs ---------------------------------
mkdir -p /tmp/dotl-tmpfs
timeout 300 "$SUITE" -n $ENTRIES -x $XGROUPS -E /tmp/dotl-tmpfs -p "tmpfs: " /tmp/dotl-tmpfs
rm -rf /tmp/dotl-tmpfs

# --- servers ---------------------------------------------------------------------
if ! v9fsd_start "$EXPORT" $PORT; then
	not_ok "v9fsd serves $EXPORT on tcp 127.0.0.1:$PORT"
	exit 0
fi
export V9FS_FD_EXPORT=$EXPORT
diod_start "$DEXPORT" $DPORT "$OUT/diod.log" > /dev/null ||
	not_ok "diod listens on 127.0.0.1:$DPORT (tests/vm/initramfs.sh copies it)"

clients=
if load_client 9p; then
	clients=9p
else
	not_ok "load the in-tree 9p client (modprobe 9p 9pnet_fd)"
fi
if load_client 9P > "$OUT/insmod.txt" 2>&1; then
	clients="$clients 9P"
else
	not_ok "9P: insmod $V9FS_KO failed: $(cat "$OUT/insmod.txt")"
fi

# the reference first: every run of ours is judged against it
for c in $clients; do
	if [ -n "$DIOD_PID" ]; then
		dops=$OPS
		[ $c = 9p ] && dops=$REF_OPS
		run $c diod tcp $DPORT "$DEXPORT" $dops "aname=$DEXPORT,uname=root"
		pair_locks $c diod $DPORT "aname=$DEXPORT,uname=root"
	elif [ $c = 9P ]; then
		skip "9P/diod-tcp: posix-suite, fsx, 4 fsx at once" "diod did not start"
	fi
	pair_locks $c v9fsd $PORT
	if [ $c = 9P ]; then
		run $c v9fsd tcp $PORT "$EXPORT" 0
		run $c v9fsd unix $PORT "$EXPORT" $OPS_SHORT
		run $c v9fsd fd $PORT "$EXPORT" $OPS_SHORT
	else
		run $c v9fsd tcp $PORT "$EXPORT" 0
	fi
done

# cache=loose on diod: over 9P2000.L ours sends a stat's name check beside a
# Tgetattr and an open's Tlopen beside a Tgetattr of the same fid
for c in $clients; do
	[ -n "$DIOD_PID" ] || break
	_lm=/mnt/dotl-loose-$c _lx=cache=loose
	[ $c = 9P ] && _lx=cache=loose,actimeo=1
	if mount_9p $c tcp 9p2000.L $DPORT $_lm "aname=$DEXPORT,uname=root,$_lx" \
		> "$OUT/mount.txt" 2>&1; then
		loose_coherence $c diod $_lm "$DEXPORT"
		_lo=$OPS_SHORT
		[ $c = 9p ] && _lo=$REF_OPS
		loose_fsx $c diod $_lm $_lo
		umount_9p $_lm || not_ok "$c/diod: cache=loose: umount"
	else
		ref_expect $c "diod: cache=loose: mount" "$(tail -n 1 "$OUT/mount.txt")" mounted
	fi
done

case " $clients " in *" 9P "*) rmmod 9p2000 || not_ok "9P: rmmod after the .L runs" ;; esac
case " $clients " in *" 9p "*) unload_client 9p ;; esac
diod_stop
v9fsd_stop
rm -rf "$OUT" "$EXPORT" "$DEXPORT"
exit 0
