# Last suite of a boot: with every mount gone, the kernel's leak detector
# (kmemleak, in the debug kernel only) finds no unreferenced object allocated
# by 9p2000.ko: first while the module is still loaded (its frames still
# resolve to names), then after it is unloaded. Stock kernels have no kmemleak.
# timeout: 300
. /v9fs/tests/lib.sh

kml=/sys/kernel/debug/kmemleak
mountpoint -q /sys/kernel/debug 2> /dev/null ||
	mount -t debugfs debugfs /sys/kernel/debug 2> /dev/null
if [ ! -e $kml ]; then
	skip "kmemleak finds nothing of 9p2000.ko" "this kernel has no kmemleak"
	exit 0
fi

# scan FILE: two scans (an object is reported once it stayed unreferenced
# across a whole scan), then the report.
scan() {
	echo scan > $kml
	sleep 6
	echo scan > $kml
	cat $kml > "$1"
}

remaining=$(grep -E ' (9P|9p) ' /proc/mounts | cut -d' ' -f2)
for m in $remaining; do
	umount_9p "$m"
done
[ -z "$remaining" ] && ok "no 9P mount left at the end of the boot" ||
	not_ok "no 9P mount left at the end of the boot (left: $(echo $remaining))"

# Old reports (the boot itself, earlier suites' in-tree modules) are cleared
# first, so that what remains is found by these scans alone.
echo clear > $kml
load_client 9P
scan /tmp/kmemleak.loaded
if grep -q '\[9p2000\]' /tmp/kmemleak.loaded; then
	not_ok "kmemleak: nothing of 9p2000.ko unreferenced while it is loaded"
	grep -B3 -A25 '\[9p2000\]' /tmp/kmemleak.loaded | head -n 80 | sed 's/^/#   /'
else
	ok "kmemleak: nothing of 9p2000.ko unreferenced while it is loaded"
fi
n=$(grep -c '^unreferenced object' /tmp/kmemleak.loaded)
diag "kmemleak with 9p2000.ko loaded: $n unreferenced objects in all"

if rmmod 9p2000; then
	ok "9p2000.ko unloads"
else
	not_ok "9p2000.ko unloads"
fi
echo clear > $kml
scan /tmp/kmemleak.unloaded
n=$(grep -c '^unreferenced object' /tmp/kmemleak.unloaded)
if [ "$n" -eq 0 ]; then
	ok "kmemleak: nothing new unreferenced after 9p2000.ko is unloaded"
else
	# Frames of an unloaded module print as bare addresses: show the report.
	diag "kmemleak after rmmod: $n unreferenced objects"
	head -n 60 /tmp/kmemleak.unloaded | sed 's/^/#   /'
	not_ok "kmemleak: nothing new unreferenced after 9p2000.ko is unloaded"
fi
