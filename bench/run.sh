#!/bin/sh
# bench/run.sh: side-by-side figures from one guest boot (`make bench`; the guest's
# /init runs this in v9fs_mode=bench). Same v9fsd export, same msize, same dialect:
#   9P.u       ours, 9p2000.u, v9fsd
#   9p.u       in-tree, 9p2000.u, cache=none, v9fsd        (ours/in-tree pair)
#   9p.L       in-tree, 9p2000.L, cache=none, v9fsd
#   9p.L-diod  in-tree, 9p2000.L, cache=none, diod         (v9fsd/diod pair)
#   tmpfs      the local ceiling
# Workloads (bench/v9bench.c): 64 MiB sequential write+fsync, sequential read after
# dropping caches, 2000 random 4 KiB reads, 1000 small files (create, write 4 KiB,
# stat, read, unlink), `ls -l` of a 10,000-entry directory.
# For every v9fsd run, the 9P requests it received (v9fsd -S, read with SIGUSR1).
# Timing only: nothing here passes or fails; a run that cannot be made says why.
. /v9fs/tests/lib.sh

B=/v9fs/bin/v9bench
MSIZE=${V9FS_BENCH_MSIZE:-65536}
MIB=${V9FS_BENCH_MIB:-64}
RAND=2000
SMALL=1000
ENTRIES=10000
PORT=5680
DPORT=5681
EXPORT=/export/bench
DEXPORT=/export/bench-diod
STATS=/tmp/v9fsd.$PORT.stats
RES=/tmp/bench.results
W=/tmp/bench.work
mkdir -p "$EXPORT" "$DEXPORT" "$W" /tmp/bench-tmpfs
: > "$RES"

say() { echo "$*"; }

# snap FILE: the v9fsd counters as of now (SIGUSR1 makes v9fsd rewrite $STATS)
snap() {
	rm -f "$STATS"
	kill -USR1 "$V9FSD_PID" 2> /dev/null || { : > "$1"; return; }
	_i=0
	while [ ! -s "$STATS" ] && [ $_i -lt 50 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	cp "$STATS" "$1" 2> /dev/null || : > "$1"
}

# msgdiff BEFORE AFTER: "TOTAL Tfoo:n Tbar:m ..." (types that changed)
msgdiff() {
	awk 'FNR == NR { b[$1] = $2; next }
		{ d = $2 - b[$1]; if (d > 0) { t += d; s = s " " $1 ":" d } }
		END { print t + 0 s }' "$1" "$2"
}

# one CONFIG WORKLOAD COUNTED CMD...: run one timed workload, record it
one() {
	_cfg=$1 _wl=$2 _counted=$3
	shift 3
	[ "$_counted" = 1 ] && snap "$W/before"
	_out=$("$@" 2> "$W/err")
	_rc=$?
	_secs=$(echo "$_out" | sed -n 's/.*seconds=\([0-9.]*\).*/\1/p')
	if [ $_rc -ne 0 ] || [ -z "$_secs" ]; then
		say "# $_cfg $_wl: FAILED: $(tail -n 1 "$W/err")"
		echo "$_cfg $_wl - -" >> "$RES"
		return
	fi
	_msgs=-
	if [ "$_counted" = 1 ]; then
		snap "$W/after"
		_diff=$(msgdiff "$W/before" "$W/after")
		_msgs=${_diff%% *}
		say "# $_cfg $_wl: ${_secs}s, $_diff"
	else
		say "# $_cfg $_wl: ${_secs}s"
	fi
	echo "$_cfg $_wl $_secs $_msgs" >> "$RES"
}

drop_caches() { sync; echo 3 > /proc/sys/vm/drop_caches; }

# workloads CONFIG DIR COUNTED: the five workloads in DIR (the ls directory is
# DIR/ls, made beforehand on the server side so its creation is not timed)
workloads() {
	_c=$1 _d=$2 _n=$3
	one "$_c" seqwrite "$_n" $B seqwrite "$_d/seq" "$MIB"
	drop_caches
	one "$_c" seqread "$_n" $B seqread "$_d/seq"
	drop_caches
	one "$_c" randread "$_n" $B randread "$_d/seq" $RAND
	rm -f "$_d/seq"
	mkdir -p "$_d/small"
	one "$_c" smallfiles "$_n" $B smallfiles "$_d/small" $SMALL
	rmdir "$_d/small"
	drop_caches
	one "$_c" ls-l "$_n" $B time ls -l "$_d/ls"
	# a listing that stops early is fast and wrong: count what it saw (untimed)
	_seen=$(ls "$_d/ls" 2> /dev/null | wc -l)
	if [ "$_seen" -ne $ENTRIES ]; then
		say "# $_c ls-l: INVALID, the listing saw $_seen of $ENTRIES entries"
		echo "$_c ls-l - -" >> "$RES"
	fi
}

# bench_mount CONFIG CLIENT DIALECT PORT EXTRA COUNTED
# (lib.sh's mount_9p uses _c _t _d _p _m _x, so names here are longer)
bench_mount() {
	_cfg=$1 _cl=$2 _dia=$3 _port=$4 _opts=$5 _cnt=$6 _mnt=/mnt/bench
	if ! mount_9p "$_cl" tcp "$_dia" "$_port" $_mnt "$_opts" > "$W/mount" 2>&1; then
		say "# $_cfg: mount failed: $(tail -n 1 "$W/mount")"
		dmesg | tail -n 3 | sed 's/^/#   /'
		for wl in seqwrite seqread randread smallfiles ls-l; do
			echo "$_cfg $wl - -" >> "$RES"
		done
		return
	fi
	say "# $_cfg: $(grep " $_mnt " /proc/mounts)"
	workloads "$_cfg" $_mnt "$_cnt"
	umount_9p $_mnt || say "# $_cfg: umount failed"
}

say "# bench: kernel $(uname -r), msize $MSIZE, ${MIB} MiB sequential, $RAND random reads," \
	"$SMALL small files, ls -l of $ENTRIES entries"

# --- tmpfs, the ceiling ----------------------------------------------------------------
mkdir -p /tmp/bench-tmpfs/ls
$B mkfiles /tmp/bench-tmpfs/ls $ENTRIES > /dev/null
workloads tmpfs /tmp/bench-tmpfs 0
rm -rf /tmp/bench-tmpfs

# --- v9fsd: ours and the in-tree client -------------------------------------------------
mkdir -p "$EXPORT/ls" "$DEXPORT/ls"
$B mkfiles "$EXPORT/ls" $ENTRIES > /dev/null
$B mkfiles "$DEXPORT/ls" $ENTRIES > /dev/null
if v9fsd_start "$EXPORT" $PORT -m "$MSIZE"; then
	if load_client 9P > "$W/insmod" 2>&1; then
		bench_mount 9P.u 9P 9p2000.u $PORT "msize=$MSIZE" 1
		rmmod 9p2000
	else
		say "# 9P.u: our module did not load: $(cat "$W/insmod")"
		for wl in seqwrite seqread randread smallfiles ls-l; do echo "9P.u $wl - -" >> "$RES"; done
	fi
	if load_client 9p; then
		bench_mount 9p.u 9p 9p2000.u $PORT "msize=$MSIZE" 1
		bench_mount 9p.L 9p 9p2000.L $PORT "msize=$MSIZE" 1
	else
		say "# the in-tree 9p client did not load"
	fi
	v9fsd_stop
else
	say "# v9fsd did not start"
fi

# --- diod, with the in-tree client --------------------------------------------------------
if command -v diod > /dev/null && load_client 9p; then
	diod -f -n -l 127.0.0.1:$DPORT -e "$DEXPORT" -c /dev/null -L /tmp/diod.log &
	diod_pid=$!
	sleep 1
	bench_mount 9p.L-diod 9p 9p2000.L $DPORT "msize=$MSIZE,aname=$DEXPORT,uname=root" 0
	kill $diod_pid
	wait $diod_pid 2> /dev/null
else
	say "# diod or the in-tree client is missing: no diod figures"
fi
unload_client 9p 2> /dev/null

# --- summary --------------------------------------------------------------------------------
# ratio a/b of seconds: how many times faster b is than a ("-" when one is missing)
say ""
say "# summary: seconds (9P requests counted by v9fsd); ratio = slower/faster time, >1 is a win"
awk '
	{ t[$1 " " $2] = $3; m[$1 " " $2] = $4 }
	function r(a, b) { return (a == "-" || b == "-" || b == 0) ? "-" : sprintf("%.2f", a / b) }
	function v(c, w) { x = t[c " " w]; return x == "" ? "-" : x }
	function n(c, w) { x = m[c " " w]; return (x == "" || x == "-") ? "" : "(" x ")" }
	END {
		split("seqwrite seqread randread smallfiles ls-l", wl, " ")
		printf "%-11s %9s %18s %18s %16s %18s %16s %10s\n", "workload", "tmpfs", "9P.u ours",
			"9p.u in-tree", "in-tree/ours", "9p.L v9fsd", "9p.L diod", "diod/v9fsd"
		for (i = 1; i <= 5; i++) {
			w = wl[i]
			printf "%-11s %9s %18s %18s %16s %18s %16s %10s\n", w, v("tmpfs", w),
				v("9P.u", w) n("9P.u", w), v("9p.u", w) n("9p.u", w),
				r(v("9p.u", w), v("9P.u", w)),
				v("9p.L", w) n("9p.L", w), v("9p.L-diod", w),
				r(v("9p.L-diod", w), v("9p.L", w))
		}
	}' "$RES"
say "# in-tree/ours > 1: ours is faster; diod/v9fsd > 1: v9fsd is faster"
rm -rf "$W" "$RES" "$EXPORT" "$DEXPORT"
