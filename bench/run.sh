#!/bin/sh
# bench/run.sh: side-by-side figures from one guest boot (`make bench`; the guest's
# /init runs this in v9fs_mode=bench). Same v9fsd export, same msize, same dialect:
#   9P.u       ours, 9p2000.u, v9fsd
#   9p.u       in-tree, 9p2000.u, cache=none, v9fsd        (ours/in-tree pair)
#   9P.L       ours, 9p2000.L, v9fsd
#   9p.L       in-tree, 9p2000.L, cache=none, v9fsd        (ours/in-tree pair)
#   9P.L-diod  ours, 9p2000.L, diod
#   9p.L-diod  in-tree, 9p2000.L, cache=none, diod         (ours/in-tree, v9fsd/diod pairs)
#   tmpfs      the local ceiling
# Workloads (bench/v9bench.c): 64 MiB sequential write+fsync, sequential read after
# dropping caches, 2000 random 4 KiB reads, 1000 small files (create, write 4 KiB,
# stat, read, unlink), `ls -l` of a 10,000-entry directory.
# Every configuration is mounted at once, and each workload runs on every one of
# them in turn, so that a change in the load of the machine during the boot falls
# on all of them alike, not on whichever ran last. The short workloads run ROUNDS
# times (default 3), the long ones (small files, ls -l) SLOW_ROUNDS times (default
# 1); the median is kept.
# For every v9fsd run, the 9P requests it received (v9fsd -S, read with SIGUSR1).
# Then the serial section: ours against the in-tree client, both in plain 9P2000
# (version=9p2000, no .u) with msize 8192, over tcp to `v9fsd -o serial` (one
# request at a time per connection, Nagle left on, as the simplest servers are):
# 100 x stat, 100 x cat of a small file, 100 creates, a 4 MiB file written in
# 64 KiB writes and read back in 64 KiB reads; with each run the 9P requests and
# the TCP segments sent on the guest (both ends are on its loopback).
# Then the virtio section: ours and the in-tree client over virtio to QEMU's own
# server, on the boot's two shares of one host folder (v9share0 with ours, v9share1
# moved to 9pnet_virtio), 9p2000.u, msize 512 KiB, the in-tree one with cache=none:
# the main section's workloads, the sequential write without its fsync (QEMU 7.2
# never answers fsync over 9P2000.u once data was written), the sequential file
# V9FS_BENCH_VMIB MiB (default 256) and V9FS_BENCH_VROUNDS rounds of the short
# workloads (default 7): 64 MiB take 0.05 s there on 6.1, so that 3 rounds of it
# measured the machine's hiccups more than the clients.
# Then the loose section: cache=loose, over 9p2000.L to one v9fsd export with msize
# MSIZE, every configuration mounted at once: ours cache=loose (attributes
# cached for actimeo=1 s, the default), ours cache=loose,actimeo=0 (attributes
# asked for at every stat), ours cache=loose,nocto (no attributes asked for at an
# open while they are trusted; untar and the cats only), ours
# cache=loose,nocto,actimeo=3600 (names and attributes trusted for an hour: the
# promise of the 6.1 in-tree client's loose mode, which never checks a cached
# name or attribute; not the 64 MiB file), the in-tree client
# cache=loose, ours cache=none, and tmpfs. Workloads: the 64 MiB
# sequential write+fsync; a re-read of that file without dropping caches (it
# is read once untimed, then the second read is timed); a tree of 1,300 files
# of 1-64 KiB in 60 directories (v9bench mktree, tarred to /tmp once) untarred
# onto the mount and synced (timed together), then `cat` of every file, once
# after drop_caches (cat-cold) and once warm (an untimed cat first: cat-warm);
# `ls -l` of 10,000 entries after drop_caches; the 1000 small files. With each,
# the 9P requests v9fsd received. V9FS_BENCH_LWORKLOADS="seqwrite reread" picks
# some of them.
# Then the anchor sections, asked for by name only (bench/anchors.sh): virtiofs
# (ours over virtio against virtiofs on one host folder) and nfs (ours over tcp to
# v9fsd against NFSv4.2 to the guest's knfsd, one export): make bench
# SECTIONS="virtiofs nfs".
# V9FS_BENCH_SECTIONS="main serial virtio loose" (the default) picks sections; for
# one alone: make run KERNEL=6.12 CMD='V9FS_BENCH_SECTIONS=serial sh /v9fs/bench/run.sh'
# V9FS_BENCH_WORKLOADS (main and virtio) and V9FS_BENCH_SWORKLOADS (serial) pick
# workloads as V9FS_BENCH_LWORKLOADS does; a read needs its write before it.
# V9FS_BENCH_OURS=1 mounts our client's configurations alone: no tmpfs, no
# in-tree client (bench/ab.sh, which compares two builds of ours, runs that).
# Timing only: nothing here passes or fails; a run that cannot be made says why.
. /v9fs/tests/lib.sh

B=/v9fs/bin/v9bench
MSIZE=${V9FS_BENCH_MSIZE:-65536}
MIB=${V9FS_BENCH_MIB:-64}
ROUNDS=${V9FS_BENCH_ROUNDS:-3}
SLOW_ROUNDS=${V9FS_BENCH_SLOW_ROUNDS:-1}
RAND=${V9FS_BENCH_RAND:-2000}
SMALL=${V9FS_BENCH_SMALL:-1000}
ENTRIES=${V9FS_BENCH_ENTRIES:-10000}
PORT=5680
DPORT=5681
EXPORT=/export/bench
DEXPORT=/export/bench-diod
STATS=/tmp/v9fsd.$PORT.stats
RES=/tmp/bench.results
W=/tmp/bench.work
OURS=${V9FS_BENCH_OURS:-0}
CONFIGS="tmpfs 9P.u 9p.u 9P.L 9p.L 9P.L-diod 9p.L-diod"
[ "$OURS" = 1 ] && CONFIGS="9P.u 9P.L 9P.L-diod"
WORKLOADS=${V9FS_BENCH_WORKLOADS:-seqwrite seqread randread smallfiles ls-l}
mkdir -p "$EXPORT/ls" "$DEXPORT/ls" "$W" /tmp/bench-tmpfs/ls
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

drop_caches() { sync; echo 3 > /proc/sys/vm/drop_caches; }

# Where each configuration works: its own directory (work) and the shared
# 10,000-entry directory (ls); "-" when it could not be mounted.
work_of() { eval echo "\${work_$(echo "$1" | tr '.-' '__'):--}"; }
set_work() { eval "work_$(echo "$1" | tr '.-' '__')=$2"; }
TMPFS_LS=/tmp/bench-tmpfs/ls
ls_of() { case $1 in tmpfs) echo "$TMPFS_LS" ;; *) echo "$(dirname "$(work_of "$1")")/ls" ;; esac; }
counted() { case $1 in 9P.u | 9p.u | 9P.L | 9p.L | lo-*) return 0 ;; esac; return 1; }

# one CONFIG WORKLOAD CMD...: run one timed workload, record it
one() {
	_cfg=$1 _wl=$2
	shift 2
	counted "$_cfg" && snap "$W/before"
	_out=$("$@" 2> "$W/err")
	_rc=$?
	_secs=$(echo "$_out" | sed -n 's/.*seconds=\([0-9.]*\).*/\1/p')
	if [ $_rc -ne 0 ] || [ -z "$_secs" ]; then
		say "# $_cfg $_wl: FAILED: $(tail -n 1 "$W/err")"
		echo "$_cfg $_wl - -" >> "$RES"
		return
	fi
	_msgs=-
	if counted "$_cfg"; then
		snap "$W/after"
		_diff=$(msgdiff "$W/before" "$W/after")
		_msgs=${_diff%% *}
		say "# $_cfg $_wl: ${_secs}s, $_diff"
	else
		say "# $_cfg $_wl: ${_secs}s"
	fi
	echo "$_cfg $_wl $_secs $_msgs" >> "$RES"
}

# workload CONFIG WORKLOAD: one run of WORKLOAD in CONFIG's directory
workload() {
	_w=$(work_of "$1")
	case $2 in
	seqwrite) one "$1" "$2" $B seqwrite "$_w/seq" "$MIB" $SEQSYNC ;;
	seqread) drop_caches; one "$1" "$2" $B seqread "$_w/seq" ;;
	randread) drop_caches; one "$1" "$2" $B randread "$_w/seq" $RAND ;;
	smallfiles)
		mkdir -p "$_w/small"
		one "$1" "$2" $B smallfiles "$_w/small" $SMALL
		rmdir "$_w/small" ;;
	ls-l)
		_l=$(ls_of "$1")
		drop_caches
		one "$1" "$2" $B time ls -l "$_l"
		# a listing that stops early is fast and wrong: count what it saw (untimed)
		_seen=$(ls "$_l" 2> /dev/null | wc -l)
		if [ "$_seen" -ne $ENTRIES ]; then
			say "# $1 ls-l: INVALID, the listing saw $_seen of $ENTRIES entries"
			echo "$1 ls-l invalid -" >> "$RES"
		fi ;;
	esac
}

# run_workloads "CONFIGS" ["WORKLOADS" [FUNCTION]]: every workload (default
# $WORKLOADS), its rounds, each on every mounted configuration in turn, run by
# FUNCTION CONFIG WORKLOAD (default workload); the long ones SLOW_ROUNDS times
run_workloads() {
	for wl in ${2:-$WORKLOADS}; do
		rounds=$ROUNDS
		case $wl in smallfiles | ls-l | untar | cat-*) rounds=$SLOW_ROUNDS ;; esac
		r=0
		while [ $r -lt "$rounds" ]; do
			r=$((r + 1))
			for cfg in $1; do
				[ "$(work_of $cfg)" = - ] && continue
				${3:-workload} $cfg $wl
			done
		done
	done
}

# unmount_all "CONFIGS": empty and unmount every mounted configuration but tmpfs
unmount_all() {
	for cfg in $1; do
		[ "$cfg" = tmpfs ] && continue
		[ "$(work_of $cfg)" = - ] && continue
		rm -rf "$(work_of $cfg)"
		umount_9p /mnt/bench-$cfg || say "# $cfg: umount failed"
	done
}

# bench_mount CONFIG CLIENT DIALECT PORT OPTS: mount CONFIG at /mnt/bench-CONFIG
# (lib.sh's mount_9p uses _c _t _d _p _m _x, so names here are longer)
bench_mount() {
	_cfg=$1 _mnt=/mnt/bench-$1
	if ! mount_9p "$2" tcp "$3" "$4" "$_mnt" "$5" > "$W/mount" 2>&1; then
		say "# $_cfg: mount failed: $(tail -n 1 "$W/mount")"
		dmesg | tail -n 3 | sed 's/^/#   /'
		return
	fi
	say "# $_cfg: $(grep " $_mnt " /proc/mounts)"
	mkdir -p "$_mnt/w.$_cfg" && set_work "$_cfg" "$_mnt/w.$_cfg"
}

# medians FILE: one line "CONFIG WORKLOAD SECONDS EXTRA..." per pair in FILE, whose
# lines are "CONFIG WORKLOAD SECONDS EXTRA...": the median of the seconds (the mean of
# the middle two for an even count) with the extra columns (requests, segments) of
# the lower middle run. A failed or invalid run ("-", "invalid") wins over any time.
medians() {
	awk '
		{
			k = $1 " " $2
			if ($3 == "-" || $3 == "invalid") { bad[k] = $3; next }
			if (!(k in n)) order[++keys] = k
			n[k]++; v[k, n[k]] = $3
			x[k, n[k]] = ""
			for (i = 4; i <= NF; i++) x[k, n[k]] = x[k, n[k]] " " $i
		}
		END {
			for (q in bad) if (!(q in n)) order[++keys] = q
			for (o = 1; o <= keys; o++) {
				k = order[o]
				if (k in bad) { print k, bad[k]; continue }
				c = n[k]
				for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++)
					if (v[k, j] + 0 < v[k, i] + 0) {
						t = v[k, i]; v[k, i] = v[k, j]; v[k, j] = t
						t = x[k, i]; x[k, i] = x[k, j]; x[k, j] = t
					}
				h = int((c + 1) / 2)
				m = c % 2 ? v[k, h] : sprintf("%.3f", (v[k, h] + v[k, h + 1]) / 2)
				print k, m x[k, h]
			}
		}' "$1"
}

# table MEDIANS WORKLOADS "CONFIG[:N] ..." "A/B ..."
# A table of MEDIANS (from medians): a row per workload; a column per CONFIG, its
# seconds followed by its first N extra columns in parentheses; a column per ratio
# A/B of two configurations' seconds ("-" where either has none), above 1 when B
# was faster.
table() {
	awk -v wls="$2" -v cols="$3" -v ratios="$4" '
		{ k = $1 " " $2; s[k] = $3; for (i = 4; i <= NF; i++) ex[k, i - 3] = $i }
		function num(z) { return z ~ /^[0-9.]+$/ }
		function cell(c, w,    d, k, i, t) {
			split(c, d, ":"); k = d[1] " " w
			if (!(k in s)) return "-"
			t = s[k]
			if (d[2] + 0 == 0 || !num(t)) return t
			for (i = 1; i <= d[2] + 0; i++)
				t = t (i == 1 ? " (" : ", ") ((k, i) in ex ? ex[k, i] : "-")
			return t ")"
		}
		function ratio(rt, w,    d, a, b) {
			split(rt, d, "/"); a = s[d[1] " " w]; b = s[d[2] " " w]
			return (!num(a) || !num(b) || b == 0) ? "-" : sprintf("%.2f", a / b)
		}
		END {
			nw = split(wls, wl, " "); nc = split(cols, cl, " "); nr = split(ratios, rl, " ")
			printf "%-11s", "workload"
			for (i = 1; i <= nc; i++) { split(cl[i], d, ":"); printf " %18s", d[1] }
			for (i = 1; i <= nr; i++) printf " %18s", rl[i]
			printf "\n"
			for (j = 1; j <= nw; j++) {
				printf "%-11s", wl[j]
				for (i = 1; i <= nc; i++) printf " %18s", cell(cl[i], wl[j])
				for (i = 1; i <= nr; i++) printf " %18s", ratio(rl[i], wl[j])
				printf "\n"
			}
		}' "$1"
}

SEQSYNC=
SECTIONS=${V9FS_BENCH_SECTIONS:-main serial virtio loose}
want() { case " $SECTIONS " in *" $1 "*) return 0 ;; esac; return 1; }

# --- serial section ---------------------------------------------------------------------------
SPORT=5682
SEXPORT=/export/bench-serial
SMSIZE=8192
SCONFIGS="ours in-tree"
[ "$OURS" = 1 ] && SCONFIGS=ours
SWORKLOADS=${V9FS_BENCH_SWORKLOADS:-stat cat creates write4m read4m}

tcp_segs() { awk '$1 == "Tcp:" && !h { for (i = 2; i <= NF; i++) if ($i == "OutSegs") c = i; h = 1; next }
	$1 == "Tcp:" { print $c }' /proc/net/snmp; }

# sone CONFIG WORKLOAD CMD...: one timed run with its requests and segments
sone() {
	_cfg=$1 _wl=$2
	shift 2
	snap "$W/before"
	_s0=$(tcp_segs)
	_out=$("$@" 2> "$W/err")
	_rc=$?
	_s1=$(tcp_segs)
	_secs=$(echo "$_out" | sed -n 's/.*seconds=\([0-9.]*\).*/\1/p')
	if [ $_rc -ne 0 ] || [ -z "$_secs" ]; then
		say "# serial $_cfg $_wl: FAILED: $(tail -n 1 "$W/err")"
		echo "$_cfg $_wl - - -" >> "$SRES"
		return
	fi
	snap "$W/after"
	_diff=$(msgdiff "$W/before" "$W/after")
	say "# serial $_cfg $_wl: ${_secs}s, $((_s1 - _s0)) segments, $_diff"
	echo "$_cfg $_wl $_secs ${_diff%% *} $((_s1 - _s0))" >> "$SRES"
}

sworkload() {
	_w=/mnt/serial-$1/w.$1
	case $2 in
	stat) sone "$1" "$2" $B stat "$_w/small" 100 ;;
	cat) drop_caches; sone "$1" "$2" $B cat "$_w/small" 100 ;;
	creates)
		rm -rf "$_w/cr"; mkdir -p "$_w/cr"
		sone "$1" "$2" $B creates "$_w/cr" 100 ;;
	write4m) sone "$1" "$2" $B writes "$_w/big" 64 64 ;;
	read4m) drop_caches; sone "$1" "$2" $B reads "$_w/big" 64 ;;
	esac
}

serial_section() {
	SRES=/tmp/bench.serial
	: > "$SRES"
	mkdir -p "$SEXPORT" "$W"
	say "# serial: kernel $(uname -r), v9fsd -o serial, version=9p2000, msize $SMSIZE, tcp;" \
		"$ROUNDS round(s), configurations interleaved"
	STATS=/tmp/v9fsd.$SPORT.stats
	if ! v9fsd_start "$SEXPORT" $SPORT -o serial -m $SMSIZE; then
		say "# serial: v9fsd -o serial did not start"
		return
	fi
	_ok=
	for cfg in $SCONFIGS; do
		case $cfg in ours) _cl=9P ;; *) _cl=9p ;; esac
		_mnt=/mnt/serial-$cfg
		if ! load_client $_cl > "$W/insmod" 2>&1 ||
			! mount_9p $_cl tcp 9p2000 $SPORT "$_mnt" "msize=$SMSIZE" > "$W/mount" 2>&1; then
			say "# serial $cfg: mount failed: $(tail -n 1 "$W/mount" 2> /dev/null)"
			continue
		fi
		say "# serial $cfg: $(grep " $_mnt " /proc/mounts)"
		mkdir -p "$_mnt/w.$cfg"
		printf 'a small file of a few bytes\n' > "$_mnt/w.$cfg/small"
		_ok="$_ok $cfg"
	done
	for wl in $SWORKLOADS; do
		r=0
		while [ $r -lt "$ROUNDS" ]; do
			r=$((r + 1))
			for cfg in $_ok; do
				sworkload $cfg $wl
			done
		done
	done
	for cfg in $_ok; do
		rm -rf "/mnt/serial-$cfg/w.$cfg"
		umount_9p "/mnt/serial-$cfg" || say "# serial $cfg: umount failed"
	done
	v9fsd_stop
	rmmod 9p2000 2> /dev/null
	unload_client 9p 2> /dev/null
	say ""
	say "# serial summary: seconds, median of the rounds (9P requests, TCP segments of" \
		"the median run); in-tree/ours > 1: ours is faster"
	medians "$SRES" > "$SRES.med"
	table "$SRES.med" "$SWORKLOADS" "ours:2 in-tree:2" "in-tree/ours"
	rm -f "$SRES.med"
	rm -f "$SRES"
}

# --- virtio section ---------------------------------------------------------------------------
VMSIZE=524288
VCONFIGS="vt-ours vt-intree"
[ "$OURS" = 1 ] && VCONFIGS=vt-ours

virtio_section() {
	RES=/tmp/bench.virtio
	: > "$RES"
	mkdir -p "$W"
	SEQSYNC=nosync
	_rounds=$ROUNDS _mib=$MIB
	ROUNDS=${V9FS_BENCH_VROUNDS:-7} MIB=${V9FS_BENCH_VMIB:-256}
	say "# virtio: kernel $(uname -r), QEMU's server, version=9p2000.u, msize $VMSIZE;" \
		"${MIB} MiB sequential; $ROUNDS round(s) of the short workloads, $SLOW_ROUNDS of" \
		"the long ones, interleaved"
	if ! load_client 9P > "$W/insmod" 2>&1; then
		say "# virtio: our module did not load: $(cat "$W/insmod")"
		ROUNDS=$_rounds MIB=$_mib
		return
	fi
	_d0=$(virtio_dev v9share0) _d1=$(virtio_dev v9share1)
	[ "$OURS" = 1 ] && _d1=none
	if [ -z "$_d0" ] || [ -z "$_d1" ]; then
		say "# virtio: the boot has no two 9P devices (v9share0 '$_d0', v9share1 '$_d1')"
		rmmod 9p2000 2> /dev/null
		ROUNDS=$_rounds MIB=$_mib
		return
	fi
	if [ "$OURS" != 1 ]; then
		modprobe 9p 2> /dev/null
		modprobe 9pnet_virtio 2> /dev/null
		virtio_move "$_d1" 9pnet_virtio || say "# virtio: $_d1 did not move to 9pnet_virtio"
	fi
	mkdir -p /mnt/vb-ours /mnt/vb-intree
	if mount -t 9P -o trans=virtio,version=9p2000.u,msize=$VMSIZE v9share0 /mnt/vb-ours \
		2> "$W/mount"; then
		say "# vt-ours: $(grep " /mnt/vb-ours " /proc/mounts)"
		mkdir -p /mnt/vb-ours/w.vt-ours && set_work vt-ours /mnt/vb-ours/w.vt-ours
	else
		say "# vt-ours: mount failed: $(tail -n 1 "$W/mount")"
	fi
	if [ "$OURS" = 1 ]; then
		:
	elif mount -t 9p -o trans=virtio,version=9p2000.u,msize=$VMSIZE,cache=none v9share1 \
		/mnt/vb-intree 2> "$W/mount"; then
		say "# vt-intree: $(grep " /mnt/vb-intree " /proc/mounts)"
		mkdir -p /mnt/vb-intree/w.vt-intree && set_work vt-intree /mnt/vb-intree/w.vt-intree
	else
		say "# vt-intree: mount failed: $(tail -n 1 "$W/mount")"
	fi
	# one folder on the host: the listing directory is made once, through either
	for cfg in $VCONFIGS; do
		case " $WORKLOADS " in *" ls-l "*) ;; *) break ;; esac
		[ "$(work_of $cfg)" = - ] && continue
		mkdir -p "$(ls_of $cfg)" && $B mkfiles "$(ls_of $cfg)" $ENTRIES > /dev/null && break
	done
	run_workloads "$VCONFIGS"
	_ls=
	for cfg in $VCONFIGS; do
		[ "$(work_of $cfg)" = - ] && continue
		rm -rf "$(work_of $cfg)"
		_ls=$(ls_of $cfg)
	done
	[ -n "$_ls" ] && rm -rf "$_ls"
	umount_9p /mnt/vb-ours 2> /dev/null
	umount_9p /mnt/vb-intree 2> /dev/null
	rmmod 9p2000 2> /dev/null
	unload_client 9p 2> /dev/null
	SEQSYNC=
	ROUNDS=$_rounds MIB=$_mib
	say ""
	say "# virtio summary: seconds, median of the rounds; in-tree/ours > 1: ours is faster"
	medians "$RES" > "$RES.med"
	table "$RES.med" "$WORKLOADS" "vt-ours vt-intree" "vt-intree/vt-ours"
	rm -f "$RES.med"
	rm -f "$RES"
}

# --- loose section ----------------------------------------------------------------------------
LPORT=5683
LEXPORT=/export/bench-loose
LTMPFS=/tmp/bench-loose-tmpfs
TREE=/tmp/bench-tree.tar
TREE_DIRS=60
TREE_FILES=${V9FS_BENCH_TREE_FILES:-1300}
LCONFIGS="tmpfs lo-ours lo-ours-ac0 lo-ours-nocto lo-ours-trust lo-intree lo-ours-none"
[ "$OURS" = 1 ] && LCONFIGS="lo-ours lo-ours-ac0 lo-ours-nocto lo-ours-trust lo-ours-none"
LWORKLOADS=${V9FS_BENCH_LWORKLOADS:-seqwrite reread untar cat-cold cat-warm ls-l smallfiles}

# CATALL DIR: cat of every file under DIR, its output to /dev/null
CATALL='find "$1" -type f | xargs cat > /dev/null'

# lworkload CONFIG WORKLOAD: one run of a loose workload in CONFIG's directory
lworkload() {
	_w=$(work_of "$1")
	# nocto changes what an open asks for: only the tree's workloads
	[ "$1" = lo-ours-nocto ] && case $2 in untar | cat-*) ;; *) return ;; esac
	[ "$1" = lo-ours-trust ] && case $2 in seqwrite | reread) return ;; esac
	case $2 in
	reread)
		cat "$_w/seq" > /dev/null
		one "$1" "$2" $B seqread "$_w/seq" ;;
	untar)
		# the 64 MiB file is done with: room for the trees
		rm -rf "$_w/seq" "$_w/tree"
		mkdir -p "$_w/tree"
		one "$1" "$2" $B time sh -c "tar -xf $TREE -C $_w/tree && sync" ;;
	cat-cold) drop_caches; one "$1" "$2" $B time sh -c "$CATALL" catall "$_w/tree" ;;
	cat-warm)
		sh -c "$CATALL" catall "$_w/tree"
		one "$1" "$2" $B time sh -c "$CATALL" catall "$_w/tree" ;;
	*) workload "$1" "$2" ;;
	esac
}

# lmount CONFIG CLIENT OPTS: mount CONFIG at /mnt/bench-CONFIG, 9p2000.L, msize MSIZE
lmount() {
	load_client "$2" > "$W/insmod" 2>&1 ||
		{ say "# $1: the $2 client did not load: $(tail -n 1 "$W/insmod")"; return; }
	bench_mount "$1" "$2" 9p2000.L $LPORT "msize=$MSIZE,$3"
}

loose_section() {
	RES=/tmp/bench.loose
	: > "$RES"
	mkdir -p "$LEXPORT/ls" "$LTMPFS/ls" "$LTMPFS/w" "$W"
	say "# loose: kernel $(uname -r), version=9p2000.L, msize $MSIZE, v9fsd; ${MIB} MiB" \
		"sequential, a tree of $TREE_FILES files, ls -l of $ENTRIES entries, $SMALL small" \
		"files; $ROUNDS round(s) of seqwrite and reread, $SLOW_ROUNDS of the others," \
		"configurations interleaved"
	case " $LWORKLOADS " in
	*" untar "*)
		mkdir -p "$W/tree"
		$B mktree "$W/tree" $TREE_DIRS "$TREE_FILES" > /dev/null &&
			(cd "$W/tree" && tar -cf "$TREE" .) || say "# loose: the tree could not be made"
		rm -rf "$W/tree" ;;
	esac
	case " $LWORKLOADS " in
	*" ls-l "*)
		$B mkfiles "$LTMPFS/ls" $ENTRIES > /dev/null
		$B mkfiles "$LEXPORT/ls" $ENTRIES > /dev/null ;;
	esac
	set_work tmpfs "$LTMPFS/w"
	TMPFS_LS=$LTMPFS/ls
	STATS=/tmp/v9fsd.$LPORT.stats
	# both loose clients keep a fid per cached name, one connection each:
	# past v9fsd's 4096 fids per connection, the 10,000-entry listing
	# (v9fsd_start raises the descriptor limit for the total)
	if v9fsd_start "$LEXPORT" $LPORT -m "$MSIZE" -o max_fids=30000; then
		lmount lo-ours 9P cache=loose
		lmount lo-ours-ac0 9P cache=loose,actimeo=0
		lmount lo-ours-nocto 9P cache=loose,nocto
		lmount lo-ours-trust 9P cache=loose,nocto,actimeo=3600
		[ "$OURS" = 1 ] || lmount lo-intree 9p cache=loose
		lmount lo-ours-none 9P cache=none
	else
		say "# loose: v9fsd did not start"
	fi
	run_workloads "$LCONFIGS" "$LWORKLOADS" lworkload
	unmount_all "$LCONFIGS"
	v9fsd_stop
	rmmod 9p2000 2> /dev/null
	unload_client 9p 2> /dev/null
	say ""
	say "# loose summary: seconds, median of the rounds (9P requests counted by v9fsd);" \
		"ratio = slower/faster time, >1 is a win for the second"
	medians "$RES" > "$RES.med"
	table "$RES.med" "$LWORKLOADS" \
		"tmpfs lo-ours:1 lo-ours-ac0:1 lo-ours-nocto:1 lo-ours-trust:1 lo-intree:1 lo-ours-none:1" \
		"lo-intree/lo-ours lo-intree/lo-ours-nocto lo-intree/lo-ours-trust lo-ours/tmpfs"
	rm -rf "$RES" "$RES.med" "$LEXPORT" "$LTMPFS" "$TREE"
}

# --- anchor sections: virtiofs and NFS ------------------------------------------------------
. /v9fs/bench/anchors.sh

anchor_sections() {
	if want virtiofs; then
		say ""
		virtiofs_section
	fi
	if want nfs; then
		say ""
		nfs_section
	fi
	anchors_done
}

if ! want main; then
	want serial && serial_section
	want virtio && virtio_section
	want loose && loose_section
	anchor_sections
	rm -rf "$W" "$SEXPORT"
	exit 0
fi

say "# bench: kernel $(uname -r), msize $MSIZE, ${MIB} MiB sequential, $RAND random reads," \
	"$SMALL small files, ls -l of $ENTRIES entries; configurations interleaved," \
	"$ROUNDS round(s) of the short workloads, $SLOW_ROUNDS of the long ones"

# --- set-up (untimed) ----------------------------------------------------------------------
case " $WORKLOADS " in
*" ls-l "*)
	[ "$OURS" = 1 ] || $B mkfiles /tmp/bench-tmpfs/ls $ENTRIES > /dev/null
	$B mkfiles "$EXPORT/ls" $ENTRIES > /dev/null
	$B mkfiles "$DEXPORT/ls" $ENTRIES > /dev/null ;;
esac
mkdir -p /tmp/bench-tmpfs/w
set_work tmpfs /tmp/bench-tmpfs/w

if v9fsd_start "$EXPORT" $PORT -m "$MSIZE"; then
	if load_client 9P > "$W/insmod" 2>&1; then
		bench_mount 9P.u 9P 9p2000.u $PORT "msize=$MSIZE"
		bench_mount 9P.L 9P 9p2000.L $PORT "msize=$MSIZE"
	else
		say "# 9P.u: our module did not load: $(cat "$W/insmod")"
	fi
	if [ "$OURS" = 1 ]; then
		:
	elif load_client 9p; then
		bench_mount 9p.u 9p 9p2000.u $PORT "msize=$MSIZE"
		bench_mount 9p.L 9p 9p2000.L $PORT "msize=$MSIZE"
	else
		say "# the in-tree 9p client did not load"
	fi
else
	say "# v9fsd did not start"
fi
diod_pid=
if command -v diod > /dev/null && { [ "$OURS" = 1 ] || load_client 9p; }; then
	diod -f -n -l 127.0.0.1:$DPORT -e "$DEXPORT" -c /dev/null -L /tmp/diod.log &
	diod_pid=$!
	# a loaded machine can take seconds to get it listening
	_i=0
	while [ $_i -lt 100 ] && ! netstat -ltn 2> /dev/null | grep -q ":$DPORT "; do
		sleep 0.1
		_i=$((_i + 1))
	done
	[ "$OURS" = 1 ] ||
		bench_mount 9p.L-diod 9p 9p2000.L $DPORT "msize=$MSIZE,aname=$DEXPORT,uname=root"
	load_client 9P > /dev/null 2>&1 &&
		bench_mount 9P.L-diod 9P 9p2000.L $DPORT "msize=$MSIZE,aname=$DEXPORT,uname=root"
	# diod's export is its own: the work directory is under it like the others'
else
	say "# diod or the in-tree client is missing: no diod figures"
fi

# --- the workloads, every configuration in turn ---------------------------------------------
run_workloads "$CONFIGS"

# --- tear-down -------------------------------------------------------------------------------
unmount_all "$CONFIGS"
[ -n "$diod_pid" ] && kill $diod_pid && wait $diod_pid 2> /dev/null
v9fsd_stop
rmmod 9p2000 2> /dev/null
unload_client 9p 2> /dev/null

# --- summary --------------------------------------------------------------------------------
# For each configuration and workload the median of its rounds ("invalid" or a
# failed run wins over any time); ratio a/b of seconds: how many times faster b is.
say ""
say "# summary: seconds, median of the rounds (9P requests counted by v9fsd);" \
	"ratio = slower/faster time, >1 is a win"
medians "$RES" > "$RES.med"
table "$RES.med" "$WORKLOADS" "tmpfs 9P.u:1 9p.u:1 9P.L:1 9p.L:1" "9p.u/9P.u 9p.L/9P.L"
say ""
table "$RES.med" "$WORKLOADS" "9P.L-diod 9p.L-diod" "9p.L-diod/9P.L-diod 9p.L-diod/9p.L"
say "# 9p/9P > 1: ours (9P) is faster than the in-tree client (9p) on the same server;"
say "# 9p.L-diod/9p.L > 1: v9fsd is faster than diod through the in-tree client"
rm -rf "$RES" "$RES.med" "$EXPORT" "$DEXPORT" /tmp/bench-tmpfs
if want serial; then
	say ""
	serial_section
fi
if want virtio; then
	say ""
	virtio_section
fi
if want loose; then
	say ""
	loose_section
fi
anchor_sections
rm -rf "$W" "$SEXPORT"
