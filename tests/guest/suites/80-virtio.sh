#!/bin/sh
# timeout: 2400
# 80-virtio: trans=virtio against QEMU's own 9P server, side by side with the
# in-tree client on the same host folder. The boot has two 9P devices on it
# (tests/vm/run-guest.sh): v9share0 stays with ours (9p2000_virtio), v9share1
# moves to the in-tree 9pnet_virtio, so each client's writes are read back
# through the other. Then: refusals (tag in use, unknown tag, tag held by the
# other driver), msize clamp, racing mounts, coherence with the host and
# between the clients, exec, fsx, the POSIX suite, readers and writers killed
# mid-transfer, umount with requests in flight, the device unbound under a
# mount, rebind; all that over 9P2000.u, then the POSIX suite and fsx again on
# both clients over 9P2000.L, and cache=loose over 9P2000.L: each client's
# loose mount sees what the other client (cache=none) makes, changes, replaces
# and removes on the shared folder (tests/guest/loose-coherence.sh; ours with
# actimeo=1 sends a stat's Twalk beside a Tgetattr and an open's Tlopen beside
# a Tgetattr of the same fid, in flight together in QEMU), then an fsx on the
# loose mount (ours 2,500 ops, the in-tree reference 1,000; 10,000 each in make
# soak); rmmod.
# A failure of ours that the in-tree client shares is a SKIP that says so.
. /v9fs/tests/lib.sh
. /v9fs/tests/loose-coherence.sh

OUT=/tmp/virtio.$$
M0=/mnt/vt-ours
M1=/mnt/vt-intree
PARAMS=/sys/module/9p2000/parameters
OURS=trans=virtio,version=9p2000.u,msize=524288
INTREE=trans=virtio,version=9p2000.u,msize=524288,cache=none
SUITE=/v9fs/bin/posix-suite
ENTRIES=100
OPS=10000
# The in-tree client's fsx is the reference only (a failure of ours it shares
# becomes a SKIP): it runs 1,000 ops, four at once 250 each; make soak, 10,000.
REF_OPS=$(soak 1000 10000)
SEED=${V9FS_FSX_SEED:-$(date +%s)}
mkdir -p "$OUT" "$M0" "$M1" "$M0.b"
: > "$OUT/ref-fails"

# Every TAP line goes to the kernel log too: the runner shows a suite's output
# only once it ends, the console shows how far a long run got.
kmsg() { echo "80-virtio: $*" > /dev/kmsg 2> /dev/null; }
ok() { echo "ok - $*"; kmsg "ok - $*"; }
not_ok() { echo "not ok - $*"; kmsg "not ok - $*"; }
diag() { echo "# $*"; kmsg "# $*"; }

live() { cat "$PARAMS/live_$1" 2> /dev/null || echo '?'; }
settle() {
	_i=0
	while [ "$(live $1)" != 0 ] && [ $_i -lt 30 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	live $1
}
mounted() { awk -v m="$1" '$2 == m { f = 1 } END { exit !f }' /proc/mounts; }
opt_of() {
	awk -v m="$1" -v k="$2" '$2 == m {
		n = split($4, o, ",")
		for (i = 1; i <= n; i++) if (index(o[i], k "=") == 1) print substr(o[i], length(k) + 2)
	}' /proc/mounts
}
mount_ours() { timeout 60 mount -t 9P -o "$OURS${3:+,$3}" "$1" "$2"; }

result() { # result CLIENT PASSED TEXT [DETAIL]
	_c=$1 _p=$2 _t=$3 _why=${4:-}
	if [ "$_p" = 1 ]; then
		ok "$_c: $_t"
	elif [ "$_c" = 9p ]; then
		echo "$_t" >> "$OUT/ref-fails"
		not_ok "9p: $_t${_why:+: $_why}"
	elif grep -qxF "$_t" "$OUT/ref-fails"; then
		skip "9P: $_t" "the in-tree client fails this too: $_why"
	else
		not_ok "$_c: $_t${_why:+: $_why}"
	fi
}

if ! load_client 9P > "$OUT/insmod.txt" 2>&1; then
	not_ok "9p2000.ko loads: $(cat "$OUT/insmod.txt")"
	exit 0
fi
ok "9p2000.ko loads"
D0=$(virtio_dev v9share0)
D1=$(virtio_dev v9share1)
if [ -z "$D0" ] || [ -z "$D1" ]; then
	not_ok "both 9P devices show their mount_tag in sysfs (v9share0 '$D0', v9share1 '$D1')"
	ls -l /sys/bus/virtio/devices/ | sed 's/^/#   /'
	exit 0
fi
ok "both 9P devices show their mount_tag in sysfs ($D0, $D1)"
check "$D0 and $D1 are bound to 9p2000_virtio" \
	test "$(virtio_driver_of "$D0")/$(virtio_driver_of "$D1")" = 9p2000_virtio/9p2000_virtio
check "9p2000.ko carries no virtio device alias (udev never loads it for a 9P device)" \
	sh -c "! grep -aq 'alias=virtio:' $V9FS_KO"

# --- refusals before anything is mounted ---------------------------------------
_o=$(mount_ours nosuchtag "$M0" 2>&1)
check "an unknown mount tag is refused" sh -c "! mounted $M0"
check "... with 'no 9P device with mount_tag nosuchtag bound to this driver' in the log" \
	sh -c "dmesg | grep -q 'no 9P device with mount_tag nosuchtag bound to this driver'"
case $_o in
*"No such file"*) ok "... and ENOENT" ;;
*) not_ok "... and ENOENT (mount said: $_o)" ;;
esac

if mount_ours v9share0 "$M0" msize=1048576 > "$OUT/m.txt" 2>&1; then
	check "msize=1048576 is clamped to 524288 (/proc/mounts)" test "$(opt_of $M0 msize)" = 524288
	check "... and the clamp is logged" \
		sh -c "dmesg | grep -q 'msize 1048576 is above the virtio transport.s limit of 524288'"
	umount_9p "$M0"
else
	not_ok "mount v9share0 with msize=1048576: $(cat "$OUT/m.txt")"
fi

# Two mounts racing for one tag: exactly one wins, the other is EBUSY.
(mount_ours v9share0 "$M0" > "$OUT/ra.txt" 2>&1; echo $? > "$OUT/ra.rc") &
(mount_ours v9share0 "$M0.b" > "$OUT/rb.txt" 2>&1; echo $? > "$OUT/rb.rc") &
wait
_wins=0
mounted "$M0" && _wins=$((_wins + 1))
mounted "$M0.b" && _wins=$((_wins + 1))
check "two mounts racing for v9share0: exactly one wins" test $_wins = 1
check "... the other fails with EBUSY" grep -q "busy" "$OUT/ra.txt" "$OUT/rb.txt"
mounted "$M0" && umount_9p "$M0"
mounted "$M0.b" && umount_9p "$M0.b"

# --- v9share1 to the in-tree driver ----------------------------------------------
echo "$D1" > "$VIRTIO_DRV/9p2000_virtio/unbind"
check "$D1 unbinds from 9p2000_virtio" test -z "$(virtio_driver_of "$D1")"
modprobe 9p 2> /dev/null
modprobe 9pnet_virtio 2> "$OUT/mp.txt"
intree=0
if virtio_move "$D1" 9pnet_virtio; then
	ok "$D1 (v9share1) is bound to 9pnet_virtio, $D0 stays with 9p2000_virtio"
	intree=1
else
	not_ok "$D1 (v9share1) binds to 9pnet_virtio: $(cat "$OUT/mp.txt")"
fi
_o=$(mount_ours v9share1 "$M0.b" 2>&1)
check "ours refuses v9share1 while the in-tree driver holds it" sh -c "! mounted $M0.b"

if ! mount_ours v9share0 "$M0" > "$OUT/m.txt" 2>&1; then
	not_ok "mount -t 9P -o $OURS v9share0: $(cat "$OUT/m.txt")"
	dmesg | tail -n 10 | sed 's/^/#   /'
	exit 0
fi
ok "mount -t 9P -o $OURS v9share0"
check "/proc/mounts: trans=virtio, msize=524288, version=9p2000.u" \
	test "$(opt_of $M0 trans)/$(opt_of $M0 msize)/$(opt_of $M0 version)" = virtio/524288/9p2000.u
_o=$(mount_ours v9share0 "$M0.b" 2>&1)
case $_o in
*busy*) ok "a second mount of v9share0 is EBUSY" ;;
*) not_ok "a second mount of v9share0 is EBUSY (mount said: $_o)" ;;
esac
mounted "$M0.b" && umount_9p "$M0.b"

if [ $intree = 1 ] && timeout 60 mount -t 9p -o "$INTREE" v9share1 "$M1" 2> "$OUT/m.txt"; then
	ok "mount -t 9p (in-tree) -o $INTREE v9share1"
else
	not_ok "mount -t 9p (in-tree) v9share1: $(cat "$OUT/m.txt")"
	intree=0
fi

# --- coherence ------------------------------------------------------------------------
check "9P: the file written on the host reads back" grep -q "written on the host" "$M0/host-seed.txt"
[ $intree = 1 ] && check "9p: the file written on the host reads back" \
	grep -q "written on the host" "$M1/host-seed.txt"
dd if=/dev/urandom of="$OUT/a.bin" bs=1024k count=3 2> /dev/null
dd if=/dev/urandom of="$OUT/b.bin" bs=1024k count=3 2> /dev/null
check "9P: 3 MiB written through ours reads back through ours" \
	sh -c "cp $OUT/a.bin $M0/ours.bin && cmp $OUT/a.bin $M0/ours.bin"
if [ $intree = 1 ]; then
	check "3 MiB written through ours reads back through the in-tree client" \
		cmp "$OUT/a.bin" "$M1/ours.bin"
	check "3 MiB written through the in-tree client reads back through ours" \
		sh -c "cp $OUT/b.bin $M1/intree.bin && cmp $OUT/b.bin $M0/intree.bin"
	echo "changed by the in-tree client" > "$M1/host-seed.txt"
	check "a file rewritten through the other client reads back new at open" \
		grep -q "changed by the in-tree client" "$M0/host-seed.txt"
fi

# --- zero-copy reads and writes ------------------------------------------------------
# read(2)/write(2) of user memory from a page up go between the device and the
# caller's pages, no copy. Buffers an odd number of bytes into a page, sizes no
# multiple of 4 KiB, calls of several msize chunks (some in flight at once) and
# calls that run past the end of the file, five scattered iovecs, O_DIRECT:
# every file written through ours from a guest file, read back through ours
# into another, both compared with the original. Then memory the caller may
# not write: a read into it is EFAULT (as for any read(2)), a write from it
# works, and the mount reads right after.
PROBE=/v9fs/bin/ioprobe
dd if=/dev/urandom of="$OUT/zc.bin" bs=1000 count=3000 2> /dev/null
for op in copy copyv copy-direct; do
	for b in 1572865:1 524287:4095 100003:1 4194304:7; do
		_bs=${b%%:*} _al=${b#*:}
		rm -f "$M0/zc.bin" "$OUT/zc.back"
		_w=$($PROBE $op "$OUT/zc.bin" "$M0/zc.bin" $_bs $_al 2>&1)
		_r=$($PROBE $op "$M0/zc.bin" "$OUT/zc.back" $_bs $_al 2>&1)
		check "9P: $op of 3000000 bytes through a $_bs byte buffer $_al bytes into a page, there ($_w) and back ($_r)" \
			sh -c "[ '$_w/$_r' = 'ok 3000000/ok 3000000' ] && cmp $OUT/zc.bin $M0/zc.bin && cmp $OUT/zc.bin $OUT/zc.back"
	done
done
_o=$($PROBE read-ro "$M0/zc.bin" 1000000 2>&1)
check "9P: read(2) of 1000000 bytes into a read-only mapping is EFAULT ($_o)" test "$_o" = "err 14"
: > "$M0/zc.ro"
_o=$($PROBE write-ro "$M0/zc.ro" 1000000 2>&1)
check "9P: write(2) of 1000000 bytes from a read-only mapping works ($_o)" \
	sh -c "[ '$_o' = 'ok 1000000' ] && head -c 1000000 /dev/zero | cmp - $M0/zc.ro"
check "... and the mount still reads right after" cmp "$OUT/zc.bin" "$M0/zc.bin"
rm -f "$M0/zc.bin" "$M0/zc.ro" "$OUT/zc.back"
_n=$(settle reqs)
check "... and no request is left in flight (live_reqs $_n)" test "$_n" = 0

# --- exec ---------------------------------------------------------------------------
for c in 9p 9P; do
	[ $c = 9p ] && { [ $intree = 1 ] || continue; d=$M1; }
	[ $c = 9P ] && d=$M0
	rm -f "$d/busybox.$c"
	if cp /bin/busybox "$d/busybox.$c" 2> "$OUT/cp.txt" && chmod 755 "$d/busybox.$c"; then
		_o=$(timeout 60 "$d/busybox.$c" echo "ran from the share" 2>&1)
		result $c "$([ "$_o" = "ran from the share" ] && echo 1)" \
			"a binary copied onto the share runs" "$_o"
	else
		result $c 0 "a binary copied onto the share runs" "cp: $(cat "$OUT/cp.txt")"
	fi
	rm -f "$d/busybox.$c"
done

# --- POSIX suite ----------------------------------------------------------------------
# 9p2000.u skips rw: QEMU 7.2 does not answer, over 9P2000.u, the "don't touch"
# Twstat that fsync sends after writes (the probe below shows it for 32 KiB
# already): both clients would hang in the group's fsync; unlink-calls, which
# fsyncs after writes too, is skipped for the same reason. And xdev-rename: .u
# renames within a directory. 9p2000.L (Tfsync, Trenameat, Tlock) adds the
# opt-in groups locks, statfs-df (sane figures: the export is the host's) and
# xdir-rename. The calls on a file whose name is gone (unlink-calls, and
# unlink-other through the other client's mount) test what QEMU's server does
# with such a file's fid, not a client: their outcomes are notes (-R).
POSIX_U="-s rw,xdev-rename,unlink-calls"
POSIX_L="-x locks,statfs-df,xdir-rename -R unlink-calls,unlink-other"
KEY_AWK='{ sub(/^(not )?ok - [^ ]*: /, ""); sub(/ \(.*$/, ""); n = index($0, ": ");
	if (n) { g = substr($0, 1, n + 1); r = substr($0, n + 2); m = index(r, ": ");
	if (m) r = substr(r, 1, m - 1); $0 = g r } print }'
# posix_run LABEL DIR OPTS [REFERENCE]: with REFERENCE (the in-tree client's run
# on the same share) a failure of ours that the reference shares is a SKIP. The
# reference run itself (no REFERENCE) only reports its failures as diagnostics:
# it tells which checks QEMU's server cannot pass, it is not a test of ours.
posix_run() {
	mkdir -p "$2"
	diag "$1: posix-suite $3 starts"
	timeout 600 "$SUITE" -n $ENTRIES $3 -p "$1: " "$2" > "$OUT/posix.txt" 2>&1
	_rc=$?
	[ $_rc -ge 124 ] && not_ok "$1: posix-suite finished within 600 s (status $_rc)"
	if [ -n "${4:-}" ]; then
		grep '^not ok' "$4" | awk "$KEY_AWK" > "$OUT/posix-ref.txt"
	else
		: > "$OUT/posix-ref.txt"
	fi
	while IFS= read -r _line; do
		case $_line in
		"not ok - "*)
			if [ -z "${4:-}" ]; then
				echo "# reference client fails: ${_line#not ok - }"
				continue
			fi
			_k=$(echo "$_line" | awk "$KEY_AWK")
			if grep -qxF "$_k" "$OUT/posix-ref.txt"; then
				echo "ok - ${_line#not ok - } # SKIP the in-tree client fails this too"
			else
				echo "$_line"
			fi ;;
		*) echo "$_line" ;;
		esac
	done < "$OUT/posix.txt"
}

# posix_both DIALECT OPTS: the in-tree client's run first, as the reference.
# Over 9p2000.L each names the same folder on the other client's mount (-O).
posix_both() {
	_ref= _o9p= _o9P=
	if [ $1 = 9p2000.L ] && [ $intree = 1 ]; then
		_o9p="-O $M0/posix-9p" _o9P="-O $M1/posix-9P"
	fi
	if [ $intree = 1 ]; then
		posix_run "9p/virtio/$1" "$M1/posix-9p" "$2 $_o9p"
		cp "$OUT/posix.txt" "$OUT/posix.ref"
		_ref=$OUT/posix.ref
		rm -rf "$M1/posix-9p"
	fi
	posix_run "9P/virtio/$1" "$M0/posix-9P" "$2 $_o9P" $_ref
	rm -rf "$M0/posix-9P"
}

# mount_dir CLIENT: the mount point of CLIENT (9P ours on v9share0, 9p the
# in-tree one on v9share1), empty when the in-tree client is not mounted.
mount_dir() {
	case $1 in
	9P) echo "$M0" ;;
	9p) [ $intree = 1 ] && echo "$M1" ;;
	esac
}

# --- fsync probe --------------------------------------------------------------------
# fsync is a Twstat with every field "don't touch" over 9P2000.u, a Tfsync over
# 9P2000.L. Probe, on each client, whether QEMU answers it after 32 KiB and after
# 128 KiB (4 x 32 KiB) written through the file: fsx fsyncs at random and would
# hang where it is not. Sets fsync_9p and fsync_9P. An answered fsync of these
# sizes returns within a second here, so 10 s without an answer is a hang; once
# the first probe hangs the second is not tried (either hang means no fsync in
# fsx, and each hang costs its whole bound). The two clients probe at the same
# time, each on its own device and file.
fsync_probe() { # fsync_probe DIR NAME BS COUNT: 0 if answered within 10 s
	rm -f "$1/$2"
	timeout 10 dd if=/dev/zero of="$1/$2" bs=$3 count=$4 conv=fsync 2> /dev/null
}
fsync_probe_client() { # fsync_probe_client CLIENT DIR: the results into $OUT/fsync.CLIENT
	_r=
	for t in 32k:1 32k:4; do
		case $_r in
		*HUNG*) _r="$_r $t=not-tried" ;;
		*)
			if fsync_probe "$2" "fsync.$1" "${t%%:*}" "${t#*:}"; then
				_r="$_r $t=answered"
			else
				_r="$_r $t=HUNG"
			fi ;;
		esac
	done
	echo "$_r" > "$OUT/fsync.$1"
}
fsync_probes() { # fsync_probes DIALECT
	_pids=
	for c in 9p 9P; do
		d=$(mount_dir $c)
		rm -f "$OUT/fsync.$c"
		[ -n "$d" ] || continue
		fsync_probe_client $c "$d" &
		_pids="$_pids $!"
	done
	for p in $_pids; do
		wait "$p"
	done
	for c in 9p 9P; do
		d=$(mount_dir $c)
		[ -n "$d" ] || continue
		_r=$(cat "$OUT/fsync.$c" 2> /dev/null)
		eval "fsync_$c='$_r'"
		diag "$c/$1: fsync after writes (bs:count):$_r"
		rm -f "$d/fsync.$c"
	done
}

# --- fsx ------------------------------------------------------------------------------
# fsx_client CLIENT DIALECT PARALLEL: fsx of $OPS ops ($REF_OPS for the in-tree
# client) on CLIENT's mount, with fsync where the probe saw it answered; with
# PARALLEL=1 four fsx at once too, a quarter of that each.
fsx_client() {
	_c=$1 _dl=$2 d=$(mount_dir $1)
	[ -n "$d" ] || return 0
	_n=$OPS
	[ "$_c" = 9p ] && _n=$REF_OPS
	_F= _fs="with fsync"
	case "$(eval echo "\$fsync_$_c")" in
	*HUNG*)
		_F=-F _fs="without fsync"
		diag "$_c/$_dl: fsx without fsync: QEMU does not answer fsync after writes (probe above)" ;;
	esac
	_t0=$(date +%s)
	diag "$_c/$_dl: fsx $_n ops starts"
	timeout 400 /v9fs/bin/fsx -q $_F -N $_n -l 131072 -o 16384 -S "$SEED" "$d/fsx.$_c" \
		> "$OUT/fsx.out" 2> "$OUT/fsx.err"
	_rc=$?
	result $_c "$([ $_rc -eq 0 ] && echo 1)" "$_dl: fsx $_fs against a shadow copy" \
		"$_n ops, exit $_rc: $(tail -n 1 "$OUT/fsx.out")"
	[ $_rc -ne 0 ] && head -n 30 "$OUT/fsx.err" | sed 's/^/#   /'
	diag "$_c/$_dl: fsx took $(($(date +%s) - _t0)) s: $(tail -n 1 "$OUT/fsx.out")"
	rm -f "$d/fsx.$_c"
	[ "$3" = 1 ] || return 0
	_t0=$(date +%s)
	_pids=
	for i in 1 2 3 4; do
		timeout 400 /v9fs/bin/fsx -q $_F -N $((_n / 4)) -l 131072 -o 16384 -S $((SEED + i)) \
			"$d/fsx.par$i" > "$OUT/par$i.out" 2>&1 &
		_pids="$_pids $!"
	done
	_bad= i=0
	for p in $_pids; do
		i=$((i + 1))
		wait "$p" || _bad="$_bad $i"
	done
	result $_c "$([ -z "$_bad" ] && echo 1)" \
		"$_dl: 4 fsx $_fs at once on one virtio mount" \
		"$((_n / 4)) ops each, failed:$_bad"
	for i in $_bad; do
		tail -n 10 "$OUT/par$i.out" | sed "s/^/#   [$i] /"
	done
	diag "$_c/$_dl: 4 parallel fsx ($((_n / 4)) ops each) took $(($(date +%s) - _t0)) s"
	rm -f "$d"/fsx.par*
}

diag "fsx seed $SEED (set V9FS_FSX_SEED to replay)"
posix_both 9p2000.u "$POSIX_U"
fsync_probes 9p2000.u
fsx_client 9p 9p2000.u 0
fsx_client 9P 9p2000.u 1

# Many requests at once on one ring, without fsync: four writers of 3 MiB
# files and four readers of the 8 MiB one, then every file is compared.
dd if=/dev/urandom of="$OUT/big.bin" bs=1024k count=8 2> /dev/null
cp "$OUT/big.bin" "$M0/big.bin"
_pids=
for i in 1 2 3 4; do
	dd if=/dev/urandom of="$OUT/w$i.bin" bs=1024k count=3 2> /dev/null
	(cp "$OUT/w$i.bin" "$M0/w$i.bin") &
	_pids="$_pids $!"
	(cmp "$OUT/big.bin" "$M0/big.bin") > "$OUT/r$i.txt" 2>&1 &
	_pids="$_pids $!"
done
_bad=0
for p in $_pids; do
	wait "$p" || _bad=$((_bad + 1))
done
for i in 1 2 3 4; do
	cmp "$OUT/w$i.bin" "$M0/w$i.bin" > /dev/null 2>&1 || _bad=$((_bad + 1))
	rm -f "$M0/w$i.bin" "$OUT/w$i.bin"
done
check "9P: 4 writers of 3 MiB and 4 readers of 8 MiB at once on one mount: all intact ($_bad bad)" \
	test $_bad = 0

# --- readers and writers killed mid-transfer ---------------------------------------------
# SIGKILL abandons their requests (Tflush) while the device may still be
# filling or reading their blocks; QEMU hands a flushed request back with no
# reply in it. A block is reused for a later request only once the device
# handed it back. The mount must stay up, every byte must still read back
# right afterwards, and no request may be left behind. Each round first
# reads the 8 MiB file 512 bytes at a time, 16384 Treads: over the five
# rounds the tags go round their whole range, so some kills flush tags from
# 0x8000 up, which QEMU's Tflush does not find (it reads the old tag as
# signed) if the client hands them out.
_killed=0
for r in 1 2 3 4 5; do
	dd if="$M0/big.bin" of=/dev/null bs=512 2> /dev/null
	_pids=
	for i in 1 2; do
		dd if="$M0/big.bin" of=/dev/null bs=512k 2> /dev/null &
		_pids="$_pids $!"
		dd if="$OUT/big.bin" of="$M0/kill$i.bin" bs=512k 2> /dev/null &
		_pids="$_pids $!"
	done
	sleep 0.$((r * 2))
	kill -9 $_pids 2> /dev/null
	for p in $_pids; do
		wait "$p"
		[ $? -eq 137 ] && _killed=$((_killed + 1))
	done
done
rm -f "$M0/kill1.bin" "$M0/kill2.bin"
diag "9P: $_killed of 20 readers and writers were killed before they finished"
check "9P: readers and writers killed mid-transfer (5 x 4): the 8 MiB file reads back intact after" \
	cmp "$OUT/big.bin" "$M0/big.bin"
_n=$(settle reqs)
check "... and no request is left in flight (live_reqs $_n)" test "$_n" = 0

# --- umount with requests in flight, then a fresh connection on the same tag ------------
for i in 1 2 3 4; do
	(while cat "$M0/big.bin" > /dev/null 2>&1; do :; done) &
done
sleep 2
timeout 30 umount -f "$M0" 2> /dev/null
wait
if mounted "$M0"; then
	timeout 30 umount "$M0"
fi
check "umount -f with four readers in flight: the mount goes" sh -c "! mounted $M0"
check "live_clients and live_fids are 0 after it" test "$(settle clients)/$(settle fids)" = 0/0
if mount_ours v9share0 "$M0" > "$OUT/m.txt" 2>&1; then
	check "remount of v9share0 after it: 8 MiB read back intact (no stale reply delivered)" \
		cmp "$OUT/big.bin" "$M0/big.bin"
	check "... and the 3 MiB file too" cmp "$OUT/a.bin" "$M0/ours.bin"
else
	not_ok "remount v9share0 after umount -f: $(cat "$OUT/m.txt")"
fi

# --- the device unbound under a mount ----------------------------------------------------
if mounted "$M0"; then
	echo "unread" > "$M1/unread.txt" 2> /dev/null || echo "unread" > "$M0/unread.txt"
	echo "$D0" > "$VIRTIO_DRV/9p2000_virtio/unbind"
	check "$D0 unbinds from 9p2000_virtio under a mount" test -z "$(virtio_driver_of "$D0")"
	check "dmesg says the device went while in use" \
		sh -c "dmesg | grep -q 'mount_tag v9share0 removed while in use'"
	_o=$(timeout 30 cat "$M0/unread.txt" 2>&1)
	case $_o in
	*"I/O error"* | *"Input/output error"*) ok "a read after the unbind gives EIO" ;;
	*) not_ok "a read after the unbind gives EIO (got: $_o)" ;;
	esac
	_o=$(timeout 30 sh -c "echo x > $M0/new.txt" 2>&1)
	case $_o in
	*"I/O error"* | *"Input/output error"*) ok "a create after the unbind gives EIO" ;;
	*) not_ok "a create after the unbind gives EIO (got: $_o)" ;;
	esac
	timeout 30 umount "$M0" 2> "$OUT/u.txt" || timeout 30 umount -f "$M0" 2>> "$OUT/u.txt"
	check "umount works on the dead device" sh -c "! mounted $M0"
	check "live_clients and live_fids are 0 after umount" test "$(settle clients)/$(settle fids)" = 0/0
	echo "$D0" > "$VIRTIO_DRV/9p2000_virtio/bind"
	check "$D0 binds to 9p2000_virtio again" test "$(virtio_driver_of "$D0")" = 9p2000_virtio
	if mount_ours v9share0 "$M0" > "$OUT/m.txt" 2>&1; then
		check "remount after rebind: the file reads back" grep -qx unread "$M0/unread.txt"
		rm -f "$M0/unread.txt" "$M0/big.bin" "$M0/ours.bin" "$M0/intree.bin"
		umount_9p "$M0"
	else
		not_ok "remount after rebind: $(cat "$OUT/m.txt")"
	fi
fi

# --- cache=loose over 9P2000.L ----------------------------------------------------------
# loose_both: the in-tree client's loose mount of v9share1 first (the
# reference; ours on v9share0, cache=none, changes the files), then ours with
# actimeo=1 (the in-tree client, cache=none, changes them); fsx on each, with
# fsync where the probe saw it answered. Both mounts are up, cache=none, before
# and after.
loose_both() {
	_lops=$(soak 2500 10000)
	if [ $intree = 1 ] && umount_9p "$M1" &&
		timeout 60 mount -t 9p -o "$INTREE,cache=loose" v9share1 "$M1" 2> "$OUT/m.txt"; then
		loose_coherence 9p virtio "$M1" "$M0"
		loose_fsx 9p virtio "$M1" $REF_OPS "$(case $fsync_9p in *HUNG*) echo -F ;; esac)"
		umount_9p "$M1"
		timeout 60 mount -t 9p -o "$INTREE" v9share1 "$M1" 2> "$OUT/m.txt" || intree=0
	elif [ $intree = 1 ]; then
		diag "note: in-tree 9p: cache=loose mount of v9share1: $(cat "$OUT/m.txt")"
		mounted "$M1" || intree=0
	fi
	umount_9p "$M0"
	if ! mount_ours v9share0 "$M0" cache=loose,actimeo=1 > "$OUT/m.txt" 2>&1; then
		not_ok "9P: virtio: cache=loose: mount: $(cat "$OUT/m.txt")"
		return
	fi
	ok "9P: virtio: cache=loose: mount -t 9P -o $OURS,cache=loose,actimeo=1 v9share0"
	if [ $intree = 1 ]; then
		loose_coherence 9P virtio "$M0" "$M1"
	else
		skip "9P: virtio: cache=loose: changes made by another client" \
			"the in-tree client is not mounted"
	fi
	loose_fsx 9P virtio "$M0" $_lops "$(case $fsync_9P in *HUNG*) echo -F ;; esac)"
	_n=$(settle reqs)
	check "9P: virtio: cache=loose: no request left in flight (live_reqs $_n)" test "$_n" = 0
}

# --- 9p2000.L: both clients remount with version=9p2000.L ------------------------------
# QEMU's server is 9P2000.L first: the POSIX suite with the .L groups, the fsync
# probe (Tfsync), fsx and four fsx at once, on both clients, the in-tree one as
# the reference.
_tL=$(date +%s)
mounted "$M0" && umount_9p "$M0"
mounted "$M1" && umount_9p "$M1"
OURS=trans=virtio,version=9p2000.L,msize=524288
INTREE=trans=virtio,version=9p2000.L,msize=524288,cache=none
if ! mount_ours v9share0 "$M0" > "$OUT/m.txt" 2>&1; then
	not_ok "mount -t 9P -o $OURS v9share0: $(cat "$OUT/m.txt")"
else
	ok "mount -t 9P -o $OURS v9share0"
	check "/proc/mounts: version=9p2000.L" test "$(opt_of $M0 version)" = 9p2000.L
	if [ $intree = 1 ]; then
		if timeout 60 mount -t 9p -o "$INTREE" v9share1 "$M1" 2> "$OUT/m.txt"; then
			ok "mount -t 9p (in-tree) -o $INTREE v9share1"
		else
			not_ok "mount -t 9p (in-tree) -o $INTREE v9share1: $(cat "$OUT/m.txt")"
			intree=0
		fi
	fi
	posix_both 9p2000.L "$POSIX_L"
	fsync_probes 9p2000.L
	fsx_client 9p 9p2000.L 1
	fsx_client 9P 9p2000.L 1
	loose_both
	mounted "$M1" && umount_9p "$M1"
	mounted "$M0" && umount_9p "$M0"
fi
diag "9p2000.L phase took $(($(date +%s) - _tL)) s"

# --- teardown --------------------------------------------------------------------------
mounted "$M1" && umount_9p "$M1"
check "live_clients and live_fids are 0 at the end" test "$(settle clients)/$(settle fids)" = 0/0
if rmmod 9p2000 2> "$OUT/rmmod.txt"; then
	ok "9P: rmmod 9p2000 (driver unregistered with a device bound)"
else
	not_ok "9P: rmmod 9p2000: $(cat "$OUT/rmmod.txt")"
fi
rm -rf "$OUT"
