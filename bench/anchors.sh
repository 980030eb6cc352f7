# bench/anchors.sh: the two anchor sections of bench/run.sh (sourced by it; its
# helpers drop_caches, snap, msgdiff, medians, table, set_work, work_of are used
# here): ours against what users leave 9P for, in one guest boot.
#   virtiofs  one host folder shared twice: as virtio-9p (v9share0 and v9share1,
#             QEMU's 9P server, ours with 9p2000.L and msize AMSIZE) and through
#             QEMU's virtiofsd (tags vfs-auto and vfs-none, run by run-guest.sh).
#             Pairs: "cached" = ours cache=loose against virtiofs cache=auto;
#             "uncached" = ours cache=none against virtiofs cache=none (virtiofsd
#             opens every file direct_io: no O_DIRECT asked on either side).
#   nfs       one guest tmpfs folder, served at once by v9fsd on tcp 127.0.0.1
#             and by the guest's own knfsd (NFSv4.2 only, fsid=0, sync, the
#             default); the NFS client mounts it over the guest's loopback.
#             Pairs: "cached" = ours cache=loose against NFS with its default
#             caching; "uncached" = ours cache=none against NFS noac, where the
#             64 MiB write, the 64 MiB read and the random reads open the file
#             O_DIRECT on NFS (our cache=none keeps no page cache either: the
#             fair pairing); the tree workloads use plain opens on both.
# Workloads (bench/v9bench.c, one process each, no fork per file):
#   seqwrite    64 MiB (AMIB) in 1 MiB writes, fsync
#   seqread     that file after drop_caches
#   randread    ARAND 4 KiB preads of it after drop_caches
#   untar-small a tar of ASMALL files of 1-16 KiB (v9bench mksrc), then sync
#   untar-big   the same with ABIG files (default 2,000): the tree of the
#               workloads below. Under TCG an untar costs 0.1-0.2 s a file
#               through either system, so 10,000 files (V9FS_BENCH_ABIG=10000)
#               take some 20 minutes per configuration: the default keeps a
#               section near 20 minutes
#   walk-cold   lstat of every name of the tree after drop_caches
#   walk-warm   the same again at once
#   readall     read every file of the tree after drop_caches
#   build       ABUILD x (read 8 files of the tree, write 4 KiB to a temporary
#               name, rename it into place)
#   rm          rm -rf of the tree
# The two systems of a pair are mounted at once and take turns, workload by
# workload and round by round; the pairs run one after the other (two trees
# at most at a time: the nfs section keeps them in the guest's memory).
# ROUNDS (V9FS_BENCH_ROUNDS, default 2 here) rounds of each workload but
# untar-big and rm, which run SLOW_ROUNDS times (default 1); the median is kept.
# Each workload prints "ratio SECTION-PAIR WORKLOAD X", X = the anchor's
# seconds / ours, >1 when ours was faster, "-" when either failed; then a table.
# For ours over tcp, the 9P requests v9fsd received per workload; QEMU's 9P
# server counts none, nor does the module (it shows only what is in flight).
# V9FS_BENCH_AWORKLOADS picks workloads (a read needs seqwrite, the tree
# workloads untar-big, in the same list).

AROUNDS=${V9FS_BENCH_ROUNDS:-2}
AMIB=${V9FS_BENCH_AMIB:-64}
ARAND=${V9FS_BENCH_ARAND:-2000}
ASMALL=${V9FS_BENCH_ASMALL:-1000}
ABIG=${V9FS_BENCH_ABIG:-2000}
ABUILD=${V9FS_BENCH_ABUILD:-300}
AMSIZE=${V9FS_BENCH_AMSIZE:-524288}
AWORKLOADS=${V9FS_BENCH_AWORKLOADS:-seqwrite seqread randread untar-small untar-big walk-cold walk-warm readall build rm}
ASMALL_TAR=/tmp/anchor-small.tar
ABIG_TAR=/tmp/anchor-big.tar
APORT=5684
AEXPORT=/export/anchor
# configurations whose requests v9fsd counts; those whose streams open O_DIRECT
ACOUNTED=
ADIRECT=

# atrees: the two source trees as tar files in /tmp (set-up, untimed)
atrees() {
	for _t in small:$ASMALL:20:$ASMALL_TAR big:$ABIG:100:$ABIG_TAR; do
		# shellcheck disable=SC2046
		set -- $(echo "$_t" | tr : ' ')
		_n=$1 _files=$2 _dirs=$3 _tar=$4
		[ -s "$_tar" ] && continue
		rm -rf "$W/mk"
		mkdir -p "$W/mk"
		$B mksrc "$W/mk" "$_dirs" "$_files" > /dev/null &&
			(cd "$W/mk" && tar -cf "$_tar" .) || say "# anchors: the $_n tree could not be made"
		rm -rf "$W/mk"
	done
}

# aone CONFIG WORKLOAD CMD...: one timed run, recorded in $ARES
aone() {
	_cfg=$1 _wl=$2
	shift 2
	_cnt=
	case " $ACOUNTED " in *" $_cfg "*) _cnt=1; snap "$W/before" ;; esac
	_out=$("$@" 2> "$W/err")
	_rc=$?
	_secs=$(echo "$_out" | sed -n 's/.*seconds=\([0-9.]*\).*/\1/p')
	if [ $_rc -ne 0 ] || [ -z "$_secs" ]; then
		say "# $ASEC $_cfg $_wl: FAILED: $(tail -n 1 "$W/err")"
		echo "$_cfg $_wl - -" >> "$ARES"
		return
	fi
	_msgs=-
	if [ -n "$_cnt" ]; then
		snap "$W/after"
		_diff=$(msgdiff "$W/before" "$W/after")
		_msgs=${_diff%% *}
		say "# $ASEC $_cfg $_wl: ${_secs}s, $_diff"
	else
		say "# $ASEC $_cfg $_wl: ${_secs}s"
	fi
	echo "$_cfg $_wl $_secs $_msgs" >> "$ARES"
}

# aworkload CONFIG WORKLOAD: one run of WORKLOAD in CONFIG's directory
aworkload() {
	_w=$(work_of "$1")
	_d=
	case " $ADIRECT " in *" $1 "*) _d=d ;; esac
	case $2 in
	seqwrite) aone "$1" "$2" $B ${_d}seqwrite "$_w/seq" "$AMIB" ;;
	seqread) drop_caches; aone "$1" "$2" $B ${_d}seqread "$_w/seq" ;;
	randread) drop_caches; aone "$1" "$2" $B ${_d}randread "$_w/seq" "$ARAND" ;;
	untar-small)
		rm -rf "$_w/small"
		mkdir -p "$_w/small"
		aone "$1" "$2" $B time sh -c "tar -xf $ASMALL_TAR -C $_w/small && sync"
		rm -rf "$_w/small" ;;
	untar-big)
		# the 64 MiB file is done with; an earlier round's tree goes untimed
		rm -rf "$_w/seq" "$_w/tree"
		mkdir -p "$_w/tree"
		aone "$1" "$2" $B time sh -c "tar -xf $ABIG_TAR -C $_w/tree && sync" ;;
	walk-cold) drop_caches; aone "$1" "$2" $B walk "$_w/tree" ;;
	walk-warm)
		$B walk "$_w/tree" > /dev/null 2>&1
		aone "$1" "$2" $B walk "$_w/tree" ;;
	readall) drop_caches; aone "$1" "$2" $B readall "$_w/tree" ;;
	build)
		rm -rf "$_w/out"
		mkdir -p "$_w/out"
		aone "$1" "$2" $B build "$_w/tree" "$_w/out" "$ABUILD" ;;
	rm)
		rm -rf "$_w/out"
		aone "$1" "$2" $B time rm -rf "$_w/tree" ;;
	esac
}

# apair PAIR OURS ANCHOR: both mounted; every workload, its rounds, in turns
apair() {
	for _wl in $AWORKLOADS; do
		_rounds=$AROUNDS
		case $_wl in untar-big | rm) _rounds=$SLOW_ROUNDS ;; esac
		_r=0
		while [ $_r -lt "$_rounds" ]; do
			_r=$((_r + 1))
			for _cfg in "$2" "$3"; do
				[ "$(work_of "$_cfg")" = - ] && continue
				aworkload "$_cfg" "$_wl"
			done
		done
	done
}

# amount CONFIG MNT TYPE SOURCE OPTS: mount, make CONFIG's work directory
amount() {
	mkdir -p "$2"
	if ! timeout 60 mount -t "$3" -o "$5" "$4" "$2" > "$W/mount" 2>&1; then
		say "# $ASEC $1: mount -t $3 -o $5 $4 failed: $(tail -n 1 "$W/mount")"
		dmesg | tail -n 3 | sed 's/^/#   /'
		return 1
	fi
	say "# $ASEC $1: $(grep " $2 " /proc/mounts)"
	mkdir -p "$2/w.$1" && set_work "$1" "$2/w.$1"
}

# aumount CONFIG MNT: empty CONFIG's work directory, unmount
aumount() {
	[ "$(work_of "$1")" = - ] || rm -rf "$(work_of "$1")"
	set_work "$1" -
	grep -q " $2 " /proc/mounts || return 0
	umount "$2" 2> /dev/null || umount -f "$2" 2> /dev/null ||
		say "# $ASEC $1: umount failed"
}

# asummary PAIR OURS ANCHOR: the pair's table and its ratio lines
asummary() {
	medians "$ARES" > "$ARES.med"
	say ""
	if [ -n "$ACOUNTED" ]; then
		say "# $ASEC $1: seconds, median of the rounds (the 9P requests v9fsd" \
			"received from $2); $3/$2 > 1: ours is faster"
		table "$ARES.med" "$AWORKLOADS" "$2:1 $3" "$3/$2"
	else
		say "# $ASEC $1: seconds, median of the rounds; $3/$2 > 1: ours is faster"
		table "$ARES.med" "$AWORKLOADS" "$2 $3" "$3/$2"
	fi
	for _wl in $AWORKLOADS; do
		awk -v s="$ASEC-$1" -v w="$_wl" -v o="$2" -v a="$3" '
			$2 == w && $1 == o { t[o] = $3 } $2 == w && $1 == a { t[a] = $3 }
			function num(z) { return z ~ /^[0-9.]+$/ }
			END {
				if (num(t[o]) && num(t[a]) && t[o] > 0)
					printf "ratio %s %s %.2f\n", s, w, t[a] / t[o]
				else
					printf "ratio %s %s -\n", s, w
			}' "$ARES.med"
	done
	rm -f "$ARES.med"
}

# arun PAIR OURS ANCHOR: one pair, its results and its summary
arun() {
	ARES=/tmp/bench.anchors.$ASEC.$1
	: > "$ARES"
	if [ "$(work_of "$2")" = - ] || [ "$(work_of "$3")" = - ]; then
		say "# $ASEC $1: not both of $2 and $3 are mounted: the pair is left out"
	fi
	apair "$1" "$2" "$3"
	asummary "$1" "$2" "$3"
	rm -f "$ARES"
}

aheader() {
	say "# $ASEC: kernel $(uname -r); ${AMIB} MiB sequential, $ARAND random reads," \
		"trees of $ASMALL and $ABIG files (1-16 KiB), $ABUILD build steps;" \
		"$AROUNDS round(s), $SLOW_ROUNDS of untar-big and rm; the two of a pair" \
		"interleaved"
}

# --- virtiofs --------------------------------------------------------------------------------
virtiofs_section() {
	ASEC=virtiofs
	ACOUNTED='' ADIRECT=''
	mkdir -p "$W"
	aheader
	atrees
	if ! load_client 9P > "$W/insmod" 2>&1; then
		say "# virtiofs: our module did not load: $(cat "$W/insmod")"
		return
	fi
	modprobe virtiofs 2> /dev/null
	# both 9P devices to our driver (the virtio section may have moved one)
	for _t in v9share0 v9share1; do
		_dev=$(virtio_dev $_t) && virtio_move "$_dev" 9p2000_virtio ||
			say "# virtiofs: $_t is not bound to our driver"
	done
	set_work v9-loose -
	set_work v9-none -
	set_work vfs-auto -
	set_work vfs-none -
	amount v9-loose /mnt/av-loose 9P v9share0 \
		"trans=virtio,version=9p2000.L,msize=$AMSIZE,cache=loose"
	amount vfs-auto /mnt/av-vfs-auto virtiofs vfs-auto rw
	arun cached v9-loose vfs-auto
	aumount v9-loose /mnt/av-loose
	aumount vfs-auto /mnt/av-vfs-auto
	amount v9-none /mnt/av-none 9P v9share1 \
		"trans=virtio,version=9p2000.L,msize=$AMSIZE,cache=none"
	amount vfs-none /mnt/av-vfs-none virtiofs vfs-none rw
	arun uncached v9-none vfs-none
	aumount v9-none /mnt/av-none
	aumount vfs-none /mnt/av-vfs-none
	rmmod 9p2000 2> /dev/null
}

# --- nfs -------------------------------------------------------------------------------------
# nfs_up: knfsd serving $AEXPORT as the NFSv4 root, on the guest's loopback
nfs_up() {
	modprobe nfsd && modprobe nfsv4 || { say "# nfs: nfsd or nfsv4 did not load"; return 1; }
	mkdir -p /proc/fs/nfsd /var/lib/nfs/v4recovery /run
	grep -q ' /proc/fs/nfsd ' /proc/mounts || mount -t nfsd nfsd /proc/fs/nfsd ||
		{ say "# nfs: the nfsd file system did not mount"; return 1; }
	: > /var/lib/nfs/etab
	: > /var/lib/nfs/rmtab
	echo "$AEXPORT 127.0.0.1(rw,fsid=0,no_root_squash,no_subtree_check,insecure)" > /etc/exports
	exportfs -ra > "$W/nfs.log" 2>&1 || { say "# nfs: exportfs: $(tail -n 1 "$W/nfs.log")"; return 1; }
	# v4 exports still reach the kernel through mountd's answers to its cache upcalls
	rpc.mountd -N 2 -N 3 >> "$W/nfs.log" 2>&1 ||
		{ say "# nfs: rpc.mountd: $(tail -n 1 "$W/nfs.log")"; return 1; }
	rpc.nfsd -N 3 -V 4.2 -U -G 10 -L 10 -H 127.0.0.1 4 >> "$W/nfs.log" 2>&1 ||
		{ say "# nfs: rpc.nfsd: $(tail -n 1 "$W/nfs.log")"; return 1; }
	# no state to recover: no grace period before the first OPEN
	echo Y > /proc/fs/nfsd/v4_end_grace 2> /dev/null
	say "# nfs: knfsd versions $(cat /proc/fs/nfsd/versions), threads $(cat /proc/fs/nfsd/threads)"
}

nfs_down() {
	rpc.nfsd 0 > /dev/null 2>&1
	exportfs -ua > /dev/null 2>&1
	killall rpc.mountd 2> /dev/null
}

# nfs_mount CONFIG MNT OPTS: the kernel parses NFSv4 text options itself, so
# busybox mount (whose own NFS code speaks v2/v3 only) passes them as they
# are; mount.nfs is the fallback
nfs_mount() {
	_o="vers=4.2,addr=127.0.0.1,clientaddr=127.0.0.1${3:+,$3}"
	amount "$1" "$2" nfs4 127.0.0.1:/ "$_o" 2> /dev/null && return 0
	say "# nfs $1: trying mount.nfs4"
	mkdir -p "$2"
	if ! timeout 60 mount.nfs4 127.0.0.1:/ "$2" -n -o "vers=4.2${3:+,$3}" > "$W/mount" 2>&1; then
		say "# nfs $1: mount.nfs4 failed: $(tail -n 1 "$W/mount")"
		return 1
	fi
	say "# nfs $1: $(grep " $2 " /proc/mounts)"
	mkdir -p "$2/w.$1" && set_work "$1" "$2/w.$1"
}

nfs_section() {
	ASEC=nfs
	ACOUNTED="9P-loose 9P-none"
	ADIRECT=nfs-noac
	mkdir -p "$W" "$AEXPORT"
	aheader
	say "# nfs: ours over tcp to v9fsd (msize $AMSIZE) and NFSv4.2 to knfsd, one export;" \
		"nfs-noac opens the streaming files O_DIRECT"
	atrees
	set_work 9P-loose -
	set_work 9P-none -
	set_work nfs-def -
	set_work nfs-noac -
	# where snap (run.sh) reads the counters of this v9fsd
	STATS=/tmp/v9fsd.$APORT.stats
	if ! load_client 9P > "$W/insmod" 2>&1; then
		say "# nfs: our module did not load: $(cat "$W/insmod")"
	elif ! v9fsd_start "$AEXPORT" $APORT -m "$AMSIZE" -o max_fids=30000; then
		say "# nfs: v9fsd did not start"
	fi
	_nfs=0
	nfs_up && _nfs=1
	[ -n "${V9FSD_PID:-}" ] && amount 9P-loose /mnt/an-loose 9P 127.0.0.1 \
		"proto=tcp,port=$APORT,version=9p2000.L,msize=$AMSIZE,cache=loose"
	[ $_nfs = 1 ] && nfs_mount nfs-def /mnt/an-nfs
	arun cached 9P-loose nfs-def
	aumount 9P-loose /mnt/an-loose
	aumount nfs-def /mnt/an-nfs
	[ -n "${V9FSD_PID:-}" ] && amount 9P-none /mnt/an-none 9P 127.0.0.1 \
		"proto=tcp,port=$APORT,version=9p2000.L,msize=$AMSIZE,cache=none"
	[ $_nfs = 1 ] && nfs_mount nfs-noac /mnt/an-noac noac
	arun uncached 9P-none nfs-noac
	aumount 9P-none /mnt/an-none
	aumount nfs-noac /mnt/an-noac
	[ $_nfs = 1 ] && nfs_down
	v9fsd_stop
	rmmod 9p2000 2> /dev/null
	rm -rf "$AEXPORT"
}

anchors_done() { rm -f "$ASMALL_TAR" "$ABIG_TAR"; }
