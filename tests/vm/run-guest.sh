#!/bin/bash
# run-guest.sh SERIES: boot Debian's SERIES kernel in QEMU with the test initramfs
# and bring the verdict back.
#   V9FS_MODE=test|run|bench|bench-ab|shell   what the guest's /init does (default test)
#   V9FS_SUITES=a,b                  test mode: only these suites (names without .sh)
#   V9FS_SUITEDIR=/v9fs/selftest     test mode: another suite folder in the guest
#   V9FS_TIMEOUT=seconds             host-side bound on the whole boot (default 2400)
#   V9FS_TSCALE=N                    test mode: every suite's own timeout times N
#   V9FS_FULL=1                      test mode: the suites' long counts (make soak)
#   V9FS_EXTRA=file.cpio.gz          one more archive for the initramfs (make run)
#   V9FS_INTERACTIVE=1               run/shell mode: the console is this terminal
#   V9FS_ACCEL=kvm                   use KVM instead of software emulation
#   V9FS_APPEND='k=v ...'            more kernel parameters (/init's environment)
#   V9FS_BENCH_SECTIONS=a,b          bench mode: bench/run.sh's sections; with
#                                    virtiofs, two virtiofsd (cache=auto, none)
#   V9FS_BENCH_ROUNDS=N              bench mode: rounds of each workload
# Every boot has two virtio 9P devices (mount tags v9share0 and v9share1) on one
# host scratch folder $vm/share, QEMU's own 9P server, seeded with host-seed.txt
# and removed with the boot's folder when QEMU is done.
# Test mode prints the guest's TAP, then "kernel SERIES: N passed, N failed";
# it exits non-zero when a test failed, the guest panicked, hung, or its kernel
# log shows a bug. Run mode exits with the status of the user's command.
set -uo pipefail
series=${1:?usage: run-guest.sh SERIES}
top=$(cd "$(dirname "$0")/../.." && pwd)
eval "$("$top/tests/vm/kernel.sh" "$series")"

mode=${V9FS_MODE:-test}
limit=${V9FS_TIMEOUT:-2400}
# Each boot has its own folder, so runs can go on side by side; the newest is
# also reachable as build/SERIES/vm/last.
mkdir -p "$top/build/$series/vm"
vm=$(mktemp -d "$top/build/$series/vm/run.XXXXXX")
ln -sfn "$(basename "$vm")" "$top/build/$series/vm/last"
con=$vm/console.log
res=$vm/results.txt
initrd=$vm/initrd.img
cat "$top/build/guest/base.cpio.gz" "$top/build/$series/modules.cpio.gz" \
	${V9FS_EXTRA:+"$V9FS_EXTRA"} > "$initrd"
: > "$con"
: > "$res"
share=$vm/share
mkdir -p "$share"
# Written here, read in the guest: coherence from the host side.
printf 'written on the host %s\n' "$(date +%s)" > "$share/host-seed.txt"
# What the guest wrote is checked inside the guest; the host copy goes with QEMU.
trap 'rm -rf "$share"' EXIT
virtfs=()
for i in 0 1; do
	virtfs+=(-fsdev "local,id=v9fsdev$i,path=$share,security_model=mapped-xattr"
		-device "virtio-9p-pci,fsdev=v9fsdev$i,mount_tag=v9share$i")
done

# make bench SECTIONS=virtiofs: the same host folder also through QEMU's
# virtiofsd twice, with cache=auto (tag vfs-auto) and cache=none (tag
# vfs-none); vhost-user needs the guest's memory in a shared memfd. A
# virtiofsd ends with QEMU's connection, so each boot attempt starts its own.
virtiofs=()
vfs_pids=()
vfs_start() {
	[ ${#virtiofs[@]} -gt 0 ] || return 0
	[ ${#vfs_pids[@]} -gt 0 ] && { kill "${vfs_pids[@]}" 2> /dev/null; wait "${vfs_pids[@]}"; }
	vfs_pids=()
	for c in auto none; do
		rm -f "$vm/vfs-$c.sock"
		/usr/lib/qemu/virtiofsd --socket-path="$vm/vfs-$c.sock" -o source="$share" \
			-o cache=$c > "$vm/virtiofsd-$c.log" 2>&1 &
		vfs_pids+=($!)
	done
	for c in auto none; do
		for _ in $(seq 50); do [ -S "$vm/vfs-$c.sock" ] && break; sleep 0.1; done
		[ -S "$vm/vfs-$c.sock" ] || {
			echo "run-guest: virtiofsd (cache=$c) did not start:" >&2
			cat "$vm/virtiofsd-$c.log" >&2
			exit 1
		}
	done
}
if [ "$mode" = bench ] && [[ ",${V9FS_BENCH_SECTIONS:-}," == *,virtiofs,* ]]; then
	for c in auto none; do
		virtiofs+=(-chardev "socket,id=vfs$c,path=$vm/vfs-$c.sock"
			-device "vhost-user-fs-pci,chardev=vfs$c,tag=vfs-$c")
	done
	virtiofs+=(-object "memory-backend-memfd,id=mem,size=2048M,share=on" -numa "node,memdev=mem")
	trap '[ ${#vfs_pids[@]} -gt 0 ] && kill "${vfs_pids[@]}" 2> /dev/null; wait; rm -rf "$share"' EXIT
fi

# KVM only when asked: /dev/kvm exists on these machines but a guest under it
# never gets going, so software emulation is the default.
accel=${V9FS_ACCEL:-tcg}
# -cpu max without 5-level paging: one 6.12 boot died of a double fault with a
# corrupt saved EFLAGS (an emulation fault, not a kernel one, as far as we can
# tell) while `-cpu max` gave the guest LA57; ordinary machines use 4 levels.
cpu=max,la57=off
append="console=ttyS0 panic=-1 quiet v9fs_mode=$mode"
[ -n "${V9FS_SUITES:-}" ] && append="$append v9fs_suites=$V9FS_SUITES"
[ -n "${V9FS_SUITEDIR:-}" ] && append="$append v9fs_suitedir=$V9FS_SUITEDIR"
[ -n "${V9FS_TSCALE:-}" ] && append="$append v9fs_tscale=$V9FS_TSCALE"
[ "${V9FS_FULL:-0}" = 1 ] && append="$append v9fs_full=1"
[ "${V9FS_INTERACTIVE:-0}" = 1 ] && append="$append v9fs_interactive=1"
[ -n "${V9FS_APPEND:-}" ] && append="$append $V9FS_APPEND"
if [ "$mode" = bench ]; then
	[ -n "${V9FS_BENCH_SECTIONS:-}" ] && append="$append v9fs_bench_sections=$V9FS_BENCH_SECTIONS"
	[ -n "${V9FS_BENCH_ROUNDS:-}" ] && append="$append v9fs_bench_rounds=$V9FS_BENCH_ROUNDS"
fi

console=file:$con
[ "${V9FS_INTERACTIVE:-0}" = 1 ] && console=stdio

stdin=/dev/null
[ "${V9FS_INTERACTIVE:-0}" = 1 ] && stdin=/dev/stdin
start=$(date +%s)
# Under software emulation a boot can die before /init runs: seen once, an
# int3 Oops in sched_clock_cpu 2.5 s into a 6.12 boot (kernel code patched
# while the other vCPU ran it). A boot that panicked with an untainted kernel
# (nothing of ours loaded: our module taints it) and wrote no result at all
# is run once more, and says so; any other death counts.
for attempt in 1 2; do
	vfs_start
	timeout -k 10 --foreground "$limit" qemu-system-x86_64 -accel "$accel" -cpu "$cpu" -m 2048 -smp 2 \
		-display none -monitor none -no-reboot \
		-kernel "$VMLINUZ" -initrd "$initrd" -append "$append" \
		-serial "$console" -serial "file:$res" "${virtfs[@]}" "${virtiofs[@]}" \
		-device isa-debug-exit,iobase=0xf4,iosize=0x04 < "$stdin"
	rc=$?
	if [ $attempt = 2 ] || [ -s "$res" ] || ! grep -q 'Kernel panic' "$con" ||
	   grep -q 'Tainted: ' "$con"; then
		break
	fi
	mv "$con" "$con.1"
	echo "# kernel $series: the boot panicked before the guest ran anything," \
		"kernel not tainted (console in $con.1): booting again" >&2
done
rm -f "$initrd"
elapsed=$(($(date +%s) - start))

# Why a guest did not finish, from its exit status and its console.
why=
if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
	why="hung: no verdict within ${limit}s (host timeout)"
elif grep -q 'Kernel panic' "$con"; then
	why="kernel panic"
elif [ $rc -ne 1 ]; then
	why="QEMU exited with status $rc without the guest's verdict"
elif ! grep -q '^V9FS-DONE' "$res"; then
	why="the guest gave no result line"
fi
klog_bad=$(cat "$top/tests/vm/klog-bad")

case $mode in
test)
	grep -v '^V9FS-DONE' "$res"
	passed=$(grep -c '^ok ' "$res")
	failed=$(grep -c '^not ok ' "$res")
	if [ -n "$why" ]; then
		failed=$((failed + 1))
		echo "not ok - [vm $series] guest finished: $why"
	fi
	if [ -n "$why" ] || grep -Eq "$klog_bad" "$con"; then
		echo "# kernel $series console (excerpt, full log in $con):"
		if grep -Eq "$klog_bad" "$con"; then
			grep -E -B5 -A30 "$klog_bad" "$con" | head -n 80 | sed 's/^/#   /'
			[ -z "$why" ] && { failed=$((failed + 1)); echo "not ok - [vm $series] console clean"; }
		else
			tail -n 30 "$con" | sed 's/^/#   /'
		fi
	fi
	echo "# kernel $series ($ABI): boot took ${elapsed}s"
	echo "kernel $series: $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	;;
*)
	[ "${V9FS_INTERACTIVE:-0}" = 1 ] || grep -v '^V9FS-DONE' "$res"
	if [ -n "$why" ]; then
		echo "run-guest: the guest did not finish: $why; console tail:" >&2
		tail -n 30 "$con" >&2
		exit 1
	fi
	status=$(sed -n 's/^V9FS-EXIT //p' "$res" | tail -n 1)
	exit "${status:-0}"
	;;
esac
