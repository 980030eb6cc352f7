#!/bin/sh
# timeout: 1500
# 20-v9fsd-intree: the in-tree Linux client (an independent 9P implementation)
# against v9fsd, in the three dialects, over tcp, unix and fd:
#   - a mount works and shows exactly what is in the export, both ways;
#   - posix-suite passes (groups a dialect cannot express are skipped by name);
#   - its users group (several users, access=user) answers as on tmpfs;
#   - the -S counters saw the traffic; v9fsd -r refuses changes through a mount.
# This suite tests the server: the client is the kernel's own.
. /v9fs/tests/lib.sh

PORT=5620
EXPORT=/export/v9fsd-intree
OUT=/tmp/v9fsd-intree.$$
SUITE=/v9fs/bin/posix-suite
ENTRIES=10000		# the large directory every run lists: made on the export side
SMALL=$(soak 300 2000)	# names made, listed and removed through the mount

rm -rf "$EXPORT" "$OUT"
mkdir -p "$EXPORT" "$OUT"

skips_for() {
	case $1 in
	# plain 9P2000 has no links, link counts, symlinks, special files or
	# numeric owners
	9p2000) echo "links,nlink,symlinks,xdev-rename,fifo,chown" ;;
	# wstat renames within a directory only (v9fsd sends the link count
	# as "HARDLINKCOUNT n" in the .u extension, which the client reads)
	9p2000.u) echo "xdev-rename" ;;
	*) echo "" ;;
	esac
}

# both_ways MNT LABEL: what the client writes the export holds, and back.
both_ways() {
	_m=$1 _l=$2 _sub=$EXPORT/bw.$$
	rm -rf "$_sub"
	if mkdir "$_m/bw.$$" && echo "from client" > "$_m/bw.$$/c.txt" &&
	   [ "$(cat "$_sub/c.txt" 2> /dev/null)" = "from client" ]; then
		ok "$_l: a file written through the mount is in the export"
	else
		not_ok "$_l: a file written through the mount is in the export"
	fi
	echo "from server side" > "$_sub/s.txt"
	if [ "$(cat "$_m/bw.$$/s.txt" 2> /dev/null)" = "from server side" ]; then
		ok "$_l: a file placed in the export reads through the mount"
	else
		not_ok "$_l: a file placed in the export reads through the mount"
	fi
	_a=$(ls "$_sub" | sort | tr '\n' ' ')
	_b=$(ls "$_m/bw.$$" | sort | tr '\n' ' ')
	if [ "$_a" = "$_b" ] && [ -n "$_a" ]; then
		ok "$_l: directory listings agree ($_a)"
	else
		not_ok "$_l: directory listings agree (export '$_a', mount '$_b')"
	fi
	# ".." at the mount root is the client's business; the server's root stays put
	if [ "$(ls -d "$_m/bw.$$/../bw.$$" 2> /dev/null)" = "$_m/bw.$$/../bw.$$" ]; then
		ok "$_l: .. inside the mount resolves within the export"
	else
		not_ok "$_l: .. inside the mount resolves within the export"
	fi
	rm -rf "$_m/bw.$$"
	if [ -e "$_sub" ]; then
		not_ok "$_l: rm -rf through the mount empties the export"
	else
		ok "$_l: rm -rf through the mount empties the export"
	fi
}

# posix LABEL MNT DIALECT
# posix-suite with SMALL readdir names made and removed through the mount, then
# its readdir and seekdir checks again over a directory of ENTRIES names made
# beforehand in the export (posix-suite -M, then -D): listing them is what tests
# the server, and making as many through a TCG guest's client costs minutes per
# run while exercising the same Tlcreate/Tcreate and Tremove/Tunlinkat paths the
# SMALL ones do.
posix() {
	_l=$1 _m=$2 _d=$3
	_s=$(skips_for "$_d")
	diag "posix-suite on $_l (skips: ${_s:-none}, $SMALL directory entries made through the mount)"
	mkdir -p "$_m/posix"
	_t0=$(date +%s)
	timeout 600 "$SUITE" -n "$SMALL" ${_s:+-s "$_s"} -p "$_l: " "$_m/posix" > "$OUT/posix.txt" 2>&1
	_rc=$?
	cat "$OUT/posix.txt"
	case $_rc in
	0|1) ;;
	124|137|143) not_ok "$_l: posix-suite finished within 600 s" ;;
	*) not_ok "$_l: posix-suite ran (exit $_rc)" ;;
	esac
	diag "$_l: posix-suite took $(($(date +%s) - _t0)) s"
	_t0=$(date +%s)
	if "$SUITE" -n "$ENTRIES" -M "$EXPORT/posix/rd$ENTRIES"; then
		timeout 600 "$SUITE" -g readdir,seekdir -n "$ENTRIES" -D "rd$ENTRIES" \
			-p "$_l: $ENTRIES made in the export: " "$_m/posix" > "$OUT/posix.txt" 2>&1
		_rc=$?
		cat "$OUT/posix.txt"
		case $_rc in
		0|1) ;;
		*) not_ok "$_l: posix-suite -g readdir,seekdir over $ENTRIES names ran (exit $_rc)" ;;
		esac
	else
		not_ok "$_l: make $ENTRIES entries in the export for the readdir checks"
	fi
	rm -rf "$EXPORT/posix/rd$ENTRIES"
	rm -rf "$_m/posix"
	diag "$_l: listing $ENTRIES names took $(($(date +%s) - _t0)) s"
}

if ! load_client 9p; then
	not_ok "load the in-tree 9p client (modprobe 9p 9pnet_fd)"
	exit 0
fi
if ! v9fsd_start "$EXPORT" $PORT; then
	not_ok "v9fsd serves $EXPORT on tcp 127.0.0.1:$PORT"
	exit 0
fi
ok "v9fsd serves $EXPORT on tcp 127.0.0.1:$PORT and a unix socket"

for d in 9p2000 9p2000.u 9p2000.L; do
	m=/mnt/v9fsd-$d
	# uname=root: plain 9P2000 carries only names and the default is "nobody"
	if mount_9p 9p tcp $d $PORT $m "uname=root" > "$OUT/mount.txt" 2>&1; then
		ok "9p/tcp/$d: mount v9fsd"
	else
		not_ok "9p/tcp/$d: mount v9fsd: $(tail -n 1 "$OUT/mount.txt")"
		dmesg | tail -n 5 | sed 's/^/#   /'
		continue
	fi
	both_ways $m "9p/tcp/$d"
	posix "9p/tcp/$d" $m $d
	umount_9p $m && ok "9p/tcp/$d: umount" || not_ok "9p/tcp/$d: umount"
done

# users: the rules that depend on who asks (posix-suite -g users), through the
# in-tree client acting as each user (access=user, 9P2000.L), with tmpfs as the
# reference. v9fsd knows users from /etc/passwd and /etc/group, as the client's
# processes do not tell it their groups: the suite's users are added for the run.
users_run() {
	posix_users "$1" "$2" "$OUT/users.txt"
}

if users_setup "$OUT"; then
	mkdir -p /tmp/users-tmpfs
	if mount -t tmpfs tmpfs /tmp/users-tmpfs; then
		users_run "tmpfs" /tmp/users-tmpfs
		umount /tmp/users-tmpfs
	else
		not_ok "tmpfs: mount for posix-suite -g users"
	fi
	m=/mnt/v9fsd-users
	if mount_9p 9p tcp 9p2000.L $PORT $m "uname=root,access=user" > "$OUT/mount.txt" 2>&1; then
		ok "9p/tcp/9p2000.L access=user: mount v9fsd"
		users_run "9p/tcp/9p2000.L access=user" $m
		umount_9p $m && ok "9p/tcp/9p2000.L access=user: umount" ||
			not_ok "9p/tcp/9p2000.L access=user: umount"
	else
		not_ok "9p/tcp/9p2000.L access=user: mount v9fsd: $(tail -n 1 "$OUT/mount.txt")"
	fi
	users_teardown
else
	not_ok "users for posix-suite -g users (bind mounts over /etc/passwd and /etc/group)"
fi

# other transports, .L
# fd: msize=65536, one pipe's capacity; with the default 128 KiB the in-tree
# client's fd transport stalled on the first 1 MiB transfer over FIFOs.
for t in unix fd; do
	m=/mnt/v9fsd-$t
	export V9FS_FD_EXPORT=$EXPORT
	x=uname=root
	[ $t = fd ] && x=$x,msize=65536
	if mount_9p 9p $t 9p2000.L $PORT $m "$x" > "$OUT/mount.txt" 2>&1; then
		ok "9p/$t/9p2000.L: mount v9fsd"
		both_ways $m "9p/$t/9p2000.L"
		posix "9p/$t/9p2000.L" $m 9p2000.L
		umount_9p $m && ok "9p/$t/9p2000.L: umount" || not_ok "9p/$t/9p2000.L: umount"
	else
		not_ok "9p/$t/9p2000.L: mount v9fsd: $(tail -n 1 "$OUT/mount.txt")"
	fi
done

# counters: SIGUSR1 writes them; the runs above walked and read
stats=/tmp/v9fsd.$PORT.stats
rm -f "$stats"
kill -USR1 "$V9FSD_PID"
poll_until 100 0.05 '[ -s "$stats" ]'
w=$(awk '$1 == "Twalk" { print $2 }' "$stats" 2> /dev/null)
r=$(awk '$1 == "Treaddir" { print $2 }' "$stats" 2> /dev/null)
if [ "${w:-0}" -gt 0 ] && [ "${r:-0}" -gt 0 ]; then
	ok "v9fsd -S counters after SIGUSR1: Twalk $w, Treaddir $r"
else
	not_ok "v9fsd -S counters after SIGUSR1 (Twalk '${w:-}', Treaddir '${r:-}')"
	sed 's/^/#   /' "$stats" 2> /dev/null | head -n 40
fi
v9fsd_stop

# a read-only export through the in-tree client
echo "keep" > "$EXPORT/ro.txt"
if v9fsd_start "$EXPORT" $((PORT + 1)) -r; then
	m=/mnt/v9fsd-ro
	if mount_9p 9p tcp 9p2000.L $((PORT + 1)) $m "uname=root" > "$OUT/mount.txt" 2>&1; then
		[ "$(cat $m/ro.txt 2> /dev/null)" = "keep" ] && ok "v9fsd -r: reads work" ||
			not_ok "v9fsd -r: reads work"
		if echo x > $m/new.txt 2> /dev/null || [ -e "$EXPORT/new.txt" ]; then
			not_ok "v9fsd -r: creating a file is refused"
		else
			ok "v9fsd -r: creating a file is refused"
		fi
		if rm $m/ro.txt 2> /dev/null || [ ! -e "$EXPORT/ro.txt" ]; then
			not_ok "v9fsd -r: removing a file is refused"
		else
			ok "v9fsd -r: removing a file is refused"
		fi
		umount_9p $m
	else
		not_ok "v9fsd -r: mount: $(tail -n 1 "$OUT/mount.txt")"
	fi
	v9fsd_stop
else
	not_ok "v9fsd -r starts"
fi

unload_client 9p
rm -rf "$OUT" "$EXPORT"
exit 0
