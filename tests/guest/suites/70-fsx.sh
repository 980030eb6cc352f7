#!/bin/sh
# timeout: 2400
# 70-fsx: fsx (random operations checked against a shadow copy, one run and
# then four at once of a quarter each) on tmpfs, the in-tree client and ours
# (9p2000.u, and ours again as 9P.L on 9p2000.L), all on v9fsd over tcp:
#   ours          10,000 ops (4 x 2,500) in every cache mode, one dialect
#                 each: cache=none on 9p2000.u (-R), cache=mmap on 9p2000.u
#                 and cache=loose on 9p2000.L (-R -W); the other dialect runs
#                 2,500 (4 x 625) with cache=none and cache=mmap and 1,250
#                 (4 x 312) with cache=loose. Ours on 9p2000.L with
#                 cache=none has its 10,000 ops in 52-dotl, on diod.
#   in-tree       2,500 ops (4 x 625), 9p2000.u, cache=none; no fsx with
#                 cache=mmap (a reference only)
#   tmpfs         2,500 ops (4 x 625), -R -W: the checks themselves
# make soak runs 10,000 ops (4 x 2,500) in every one of them.
# A static binary copied onto the mount runs; a
# read-only mapping of a file on the mount shows the file's bytes.
# A failure of ours that the in-tree client shares is a SKIP that says so.
# Ours runs fsx with mapped reads (-R) on cache=none; then both clients mount
# with cache=mmap (labels +mmap) and fsx adds mapped writes (-W), and shared
# writable mappings are checked against the export (mmap-check -s): the
# in-tree client there is a reference only, its outcome shown as a diag.
# Ours mounts once more with cache=loose (labels +loose), where read(2) and
# write(2) go through the page cache too: fsx -R -W, exec, mappings and the
# shared-mapping checks again.
# Last, a write-back to a stopped server (ours, cache=mmap,timeout=3) fails
# msync and fsync instead of hanging, and the umount leaves no fid behind.
. /v9fs/tests/lib.sh

PORT=5670
EXPORT=/export/fsx
OUT=/tmp/fsx.$$
OPS=10000
# tmpfs (the checks themselves) and the in-tree client over 9p2000.u (the
# server's reference; no other suite runs the in-tree client's fsx on v9fsd)
# run fewer: neither is our client, and 2,500 ops, four at once too, cover every
# operation fsx has many times over. make soak runs 10,000.
REF_OPS=$(soak 2500 10000)
SEED=${V9FS_FSX_SEED:-$(date +%s)}
mkdir -p "$OUT" "$EXPORT"
: > "$OUT/ref-fails"

result() { # result CLIENT PASSED TEXT [DETAIL]
	_c=$1 _p=$2 _t=$3 _why=${4:-}
	if [ "$_c" = 9p+mmap ]; then
		[ "$_p" = 1 ] && diag "9p+mmap (reference only): $_t: yes" ||
			diag "9p+mmap (reference only): $_t: no${_why:+: $_why}"
	elif [ "$_p" = 1 ]; then
		ok "$_c: $_t"
	elif [ "$_c" = 9p ]; then
		echo "$_t" >> "$OUT/ref-fails"
		not_ok "9p: $_t${_why:+: $_why}"
	elif [ "${_c%.L}" = 9P ] && grep -qxF "$_t" "$OUT/ref-fails"; then
		skip "$_c: $_t" "the in-tree client fails this too: $_why"
	else
		not_ok "$_c: $_t${_why:+: $_why}"
	fi
}

# checks CLIENT DIR [FSX_FLAGS [OPS]]: the checks of this suite in DIR, fsx with
# OPS operations (default $OPS; 0: no fsx)
checks() {
	_c=$1 _d=$2 _fl=${3:-} _n=${4:-$OPS}
	[ "$_n" -gt 0 ] && fsx_checks
	checks_rest
}

fsx_checks() {
	timeout 600 /v9fs/bin/fsx -q $_fl -N $_n -l 131072 -o 16384 -S $SEED "$_d/fsx.file" > "$OUT/fsx.out" 2> "$OUT/fsx.err"
	_rc=$?
	result $_c "$([ $_rc -eq 0 ] && echo 1)" "fsx $_n ops${_fl:+ $_fl}, seed $SEED" \
		"exit $_rc: $(tail -n 1 "$OUT/fsx.out")"
	if [ $_rc -ne 0 ]; then
		head -n 40 "$OUT/fsx.err" | sed 's/^/#   /'
	else
		diag "$_c: $(tail -n 1 "$OUT/fsx.out")"
	fi
	rm -f "$_d/fsx.file"

	# four at once on one mount: the replies of several tasks interleave on one
	# connection, and whichever task waits reads them for the others
	_pids=
	for _i in 1 2 3 4; do
		timeout 600 /v9fs/bin/fsx -q $_fl -N $((_n / 4)) -l 131072 -o 16384 \
			-S $((SEED + _i)) "$_d/fsx.par$_i" > "$OUT/par$_i.out" 2>&1 &
		_pids="$_pids $!"
	done
	_bad=
	_i=0
	for _p in $_pids; do
		_i=$((_i + 1))
		wait "$_p" || _bad="$_bad $_i"
	done
	result $_c "$([ -z "$_bad" ] && echo 1)" "4 fsx${_fl:+ $_fl} at once, $((_n / 4)) ops each, seeds $SEED+1..4" \
		"failed:$_bad"
	for _i in $_bad; do
		tail -n 20 "$OUT/par$_i.out" | sed "s/^/#   [$_i] /"
	done
	rm -f "$_d"/fsx.par*
}

# the checks after fsx: exec, mappings
checks_rest() {
	# a static program from the mount: copy busybox, run an applet from it
	if cp /bin/busybox "$_d/busybox" 2> "$OUT/cp.txt" && chmod 755 "$_d/busybox"; then
		_o=$(timeout 30 "$_d/busybox" echo "ran from the mount" 2>&1)
		result $_c "$([ "$_o" = "ran from the mount" ] && echo 1)" \
			"a binary copied onto the mount runs" "$_o"
		cmp /bin/busybox "$_d/busybox" > /dev/null 2>&1
		result $_c "$([ $? -eq 0 ] && echo 1)" "the copied binary reads back identical"
	else
		result $_c 0 "a binary copied onto the mount runs" "cp: $(cat "$OUT/cp.txt")"
	fi
	rm -f "$_d/busybox"

	# mmap: the file is written through the mount, then mapped read-only
	dd if=/dev/urandom of="$_d/mapped" bs=1k count=300 2> /dev/null
	[ "$_c" != tmpfs ] && _b=$(v9fsd_count $PORT Tread)
	_o=$(timeout 30 /v9fs/bin/mmap-check "$_d/mapped" 2>&1)
	result $_c "$([ $? -eq 0 ] && echo 1)" "a read-only mapping of a file sees its contents" "$_o"
	# ours fills a mapping a readahead window at a time, in msize-sized Treads:
	# read(2) of the file and the mapping cost about the same, not a Tread a
	# page for the mapping (75 pages)
	case $_c in 9P*)
		_a=$(v9fsd_count $PORT Tread)
		_ms=$(mount_msize "$_d")
		_w=$(( 2 * ((300 * 1024 + ${_ms:-25} - 25) / (${_ms:-25} - 24)) + 16 ))
		result $_c "$([ -n "$_ms" ] && [ $((_a - _b)) -le $_w ] && echo 1)" \
			"read(2) and a mapping of 300 KiB take at most $_w Treads at msize ${_ms:-?}" \
			"$((_a - _b)) Treads"
		;;
	esac
	_o=$(timeout 30 /v9fs/bin/mmap-check -p "$_d/mapped" 2>&1)
	result $_c "$([ $? -eq 0 ] && echo 1)" \
		"a private writable mapping sees the file and does not change it" "$_o"
	# the file changed on the server after a first mapping: a new open sees new bytes
	# (the page cache is dropped when the file is opened); the in-tree
	# client promises no such thing, so its outcome is only shown
	if [ "$_c" != tmpfs ]; then
		# cache=loose over 9P2000.u sees a change by the file's mtime, in
		# whole seconds: this one comes in a later second than the open
		case $_c in 9P+loose) sleep 1.1 ;; esac
		dd if=/dev/urandom of="$EXPORT/mapped" bs=1k count=300 conv=notrunc 2> /dev/null
		_o=$(timeout 30 /v9fs/bin/mmap-check "$_d/mapped" 2>&1)
		_p="$([ $? -eq 0 ] && cmp -s "$EXPORT/mapped" "$_d/mapped" && echo 1)"
		_t="a mapping after the server-side file changed shows the new bytes"
		if [ $_c = 9p ]; then
			[ -n "$_p" ] && _o=yes || _o="no: $_o"
			diag "9p (reference only): $_t: $_o"
		elif [ $_c != 9p+mmap ]; then
			result $_c "$_p" "$_t" "$_o"
		fi
	fi
	rm -f "$_d/mapped"
	case $_c in *+mmap | *+loose) shared_checks $_c $_d ;; esac
}

# mount_msize DIR: the msize /proc/mounts shows for the mount on DIR
mount_msize() {
	awk -v m="$1" '$2 == m { n = split($4, o, ",")
		for (i = 1; i <= n; i++) if (o[i] ~ /^msize=/) print substr(o[i], 7) }' /proc/mounts
}

# memcg_setup LIMIT: a fresh cgroup $MEMCG whose memory.max is LIMIT, no swap
MEMCG=/sys/fs/cgroup/fsx-mem
memcg_setup() {
	grep -q " /sys/fs/cgroup cgroup2 " /proc/mounts ||
		mount -t cgroup2 none /sys/fs/cgroup 2> /dev/null
	echo +memory > /sys/fs/cgroup/cgroup.subtree_control 2> /dev/null
	rmdir $MEMCG 2> /dev/null
	mkdir -p $MEMCG 2> /dev/null && echo "$1" > $MEMCG/memory.max 2> /dev/null || return 1
	echo 0 > $MEMCG/memory.swap.max 2> /dev/null
	return 0
}

# shared_checks CLIENT DIR: shared writable mappings (cache=mmap), against the export
shared_checks() {
	_c=$1 _d=$2
	for _t in msync nomsync truncate; do
		_o=$(timeout 120 /v9fs/bin/mmap-check -s $_t "$_d/shared" "$EXPORT/shared" 2>&1)
		_p=$([ $? -eq 0 ] && echo 1)
		case $_t in
		msync) _t="MAP_SHARED write + msync: read(2) and the export have the bytes" ;;
		nomsync) _t="MAP_SHARED write, munmap without msync, close: the export has the bytes" ;;
		truncate) _t="MAP_SHARED write, ftruncate smaller then larger: zeros past the smaller size" ;;
		esac
		result $_c "$_p" "$_t" "$_o"
		rm -f "$_d/shared"
	done
	# ours sends a run of dirty pages together: msync of a MAP_SHARED write of
	# 5 pages and 123 bytes costs what write(2) of those bytes would, not a
	# Twrite a page
	case $_c in 9P+mmap | 9P.L+mmap)
		_ms=$(mount_msize "$_d")
		_n=$((5 * 4096 + 123))
		_w=$(( (_n + ${_ms:-25} - 25) / (${_ms:-25} - 24) ))
		_b=$(v9fsd_count $PORT Twrite)
		_o=$(timeout 120 /v9fs/bin/mmap-check -s msync "$_d/shared" "$EXPORT/shared" 2>&1)
		_rc=$?
		_a=$(v9fsd_count $PORT Twrite)
		result $_c "$([ $_rc -eq 0 ] && [ -n "$_ms" ] && [ $((_a - _b)) -le $_w ] && echo 1)" \
			"msync of a 6-page MAP_SHARED write sends at most $_w Twrite(s) at msize ${_ms:-?}" \
			"$((_a - _b)) Twrites; $_o"
		rm -f "$_d/shared"
		# nothing lost under memory pressure: 32 MiB written through one
		# mapping by a process whose memory cgroup holds 12 MiB, so dirty
		# pages must go back to the server to make room
		if memcg_setup 12M; then
			_o=$(timeout 300 sh -c "echo \$\$ > $MEMCG/cgroup.procs &&
				exec /v9fs/bin/mmap-check -s big $_d/big $EXPORT/big" 2>&1)
			_rc=$?
			_e=$(awk '$1 == "max" { print $2 }' $MEMCG/memory.events)
			result $_c "$([ $_rc -eq 0 ] && [ "${_e:-0}" -gt 0 ] && echo 1)" \
				"32 MiB through a mapping in a 12 MiB memory cgroup: all in the export" \
				"$_o; the cgroup hit its limit ${_e:-0} times"
			rm -f "$_d/big"
		else
			skip "$_c: 32 MiB through a mapping in a 12 MiB memory cgroup" \
				"no cgroup2 memory controller"
		fi
		;;
	esac
	# ours drops the pages a write(2) through the mount covers, dirty ones sent
	# first: a mapping sees the write at once
	_o=$(timeout 120 /v9fs/bin/mmap-check -s other "$_d/shared" "$EXPORT/shared" 2>&1)
	result $_c "$([ $? -eq 0 ] && echo 1)" \
		"a mapping with dirty pages sees another process's write(2) at once, the export both" "$_o"
	rm -f "$_d/shared"
}

# wberr_check LABEL DIALECT: write-back to a stopped server fails, no hang
wberr_check() {
	_c=$1 _m=/mnt/fsx-wberr
	if ! mount_9p 9P tcp $2 $PORT $_m cache=mmap,timeout=3 > "$OUT/mount.txt" 2>&1; then
		not_ok "$_c: mount cache=mmap,timeout=3: $(tail -n 1 "$OUT/mount.txt")"
		return
	fi
	_o=$(timeout 120 /v9fs/bin/mmap-check -s wberr "$_m/wberr" $V9FSD_PID 2>&1)
	_rc=$?
	kill -CONT $V9FSD_PID 2> /dev/null
	result $_c "$([ $_rc -eq 0 ] && echo 1)" \
		"write-back to a stopped server: msync fails with EIO or ETIMEDOUT, no hang" "$_o"
	diag "$_c: $_o"
	umount_9p $_m
	result $_c "$(grep -q " $_m " /proc/mounts || echo 1)" "umount after the failed write-back"
	_f=$(cat /sys/module/9p2000/parameters/live_fids 2> /dev/null)
	result $_c "$([ "$_f" = 0 ] && echo 1)" "no live fid after that umount" "live fids $_f"
	rm -f "$EXPORT/wberr"
}

diag "fsx seed $SEED (set V9FS_FSX_SEED to replay)"
mkdir -p /tmp/fsx-tmpfs
checks tmpfs /tmp/fsx-tmpfs "-R -W" $REF_OPS
rm -rf /tmp/fsx-tmpfs

if ! v9fsd_start "$EXPORT" $PORT; then
	not_ok "v9fsd serves $EXPORT on tcp 127.0.0.1:$PORT"
	exit 0
fi

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
	skip "9P: fsx, exec and mmap checks" "our module did not load"
fi
# ours runs twice: 9P on 9p2000.u, 9P.L on 9p2000.L, then both clients again
# with cache=mmap (9p+mmap, 9P+mmap, 9P.L+mmap)
runs=
for c in $clients; do
	runs="$runs $c:9p2000.u"
	[ $c = 9P ] && runs="$runs 9P.L:9p2000.L"
done
for c in $clients; do
	runs="$runs $c+mmap:9p2000.u"
	[ $c = 9P ] && runs="$runs 9P.L+mmap:9p2000.L"
done
case " $clients " in *" 9P "*) runs="$runs 9P+loose:9p2000.u 9P.L+loose:9p2000.L" ;; esac
for r in $runs; do
	label=${r%%:*}
	d=${r#*:}
	c=${label%+*}
	c=${c%.L}
	m=/mnt/fsx-$c
	# Every cache mode of ours runs the full count in one dialect:
	# cache=none and cache=mmap on 9p2000.u, cache=loose on 9p2000.L. The
	# dialects send the same Tread and Twrite; they differ in the open,
	# stat and truncate messages, which a quarter of the operations still
	# sends hundreds of times, and 52-dotl runs the full count of ours on
	# 9p2000.L with cache=none against diod. So in make check the other
	# dialect runs a quarter of the operations with cache=none and
	# cache=mmap and an eighth with cache=loose (mapped writes cost a
	# write-back of each page they dirty); make soak runs all of them in
	# both; the in-tree client's cache=mmap runs no fsx, it is only a
	# reference.
	case $label in
	9P.L) opts= fl=-R n=$(soak $((OPS / 4)) $OPS) ;;
	9p+mmap) opts=cache=mmap fl="-R -W" n=0 ;;
	9P+mmap) opts=cache=mmap fl="-R -W" n=$OPS ;;
	*+mmap) opts=cache=mmap fl="-R -W" n=$(soak $((OPS / 4)) $OPS) ;;
	9P.L+loose) opts=cache=loose fl="-R -W" n=$OPS ;;
	*+loose) opts=cache=loose fl="-R -W" n=$(soak $((OPS / 8)) $OPS) ;;
	9P*) opts= fl=-R n=$OPS ;;
	*) opts= fl= n=$REF_OPS ;;
	esac
	t0=$(date +%s)
	if ! mount_9p $c tcp $d $PORT $m $opts > "$OUT/mount.txt" 2>&1; then
		not_ok "mount $c tcp $d: $(tail -n 1 "$OUT/mount.txt")"
		dmesg | tail -n 5 | sed 's/^/#   /'
		[ $c = 9P ] && skip "$label: fsx, exec and mmap checks" "mount failed"
		continue
	fi
	grep -q " $m .*version=$d" /proc/mounts ||
		not_ok "$label: /proc/mounts shows version=$d: $(grep " $m " /proc/mounts)"
	case $label in
	9p+mmap)
		diag "9p+mmap (reference only): mounted as: $(grep " $m " /proc/mounts)" ;;
	9P*+mmap | 9P*+loose)
		grep -q " $m .*cache=${label#*+}" /proc/mounts
		result $label "$([ $? -eq 0 ] && echo 1)" "/proc/mounts shows cache=${label#*+}" \
			"$(grep " $m " /proc/mounts)" ;;
	9P*)
		# without cache=mmap a shared writable mapping is refused, as before
		_o=$(timeout 30 /v9fs/bin/mmap-check -s msync "$m/shared" "$EXPORT/shared" 2>&1)
		case $_o in *"Invalid argument"*) _p=1 ;; *) _p= ;; esac
		result $label "$_p" "cache=none: a shared writable mapping fails with EINVAL" "$_o"
		rm -f "$m/shared" ;;
	esac
	checks $label $m "$fl" $n
	umount_9p $m || not_ok "$label: umount after fsx"
	diag "$label: fsx $n ops and the checks took $(($(date +%s) - t0)) s"
done
case " $clients " in *" 9P "*)
	wberr_check 9P+mmap 9p2000.u
	wberr_check 9P.L+mmap 9p2000.L ;;
esac
case " $clients " in *" 9P "*) rmmod 9p2000 || not_ok "9P: rmmod after fsx" ;; esac
case " $clients " in *" 9p "*) unload_client 9p ;; esac

v9fsd_stop
rm -rf "$OUT" "$EXPORT"
exit 0
