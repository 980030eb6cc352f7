# lib.sh: helpers for guest suites (busybox sh). Source it: . /v9fs/tests/lib.sh
# A suite prints TAP lines: "ok - text", "not ok - text", "# text"; the runner
# numbers them. Clients: "9P" is ours (9p2000.ko), "9p" the in-tree reference.

# Only inside the test guest (tests/vm/init names it): these helpers load
# kernel modules, which never happens on the host.
if [ "$(cat /proc/sys/kernel/hostname 2> /dev/null)" != v9fs-guest ]; then
	echo "lib.sh: only for the v9fs test guest (it loads kernel modules)" >&2
	exit 1
fi

V9FS_KO=/v9fs/9p2000.ko
V9FSD=/v9fs/bin/v9fsd

# soak IN_CHECK IN_SOAK: what a suite runs (a count, a list of cases),
# IN_CHECK in `make check`, IN_SOAK under `make soak` (v9fs_full=1 on the
# kernel command line).
soak() {
	[ "${v9fs_full:-0}" = 1 ] && echo "$2" || echo "$1"
}

# timed CMD...: run CMD (a suite's function, in this shell), then a diagnostic
# with the seconds it took. Not nested.
timed() {
	_timed_t0=$(date +%s)
	"$@"
	diag "$* took $(($(date +%s) - _timed_t0)) s"
}

# poll_until TRIES PAUSE CONDITION: evaluate the shell text CONDITION (in
# this shell: its functions and variables are there) until it is true, at most
# TRIES more times PAUSE seconds apart; 0 once it held, 1 when it never did.
poll_until() {
	_pu_n=$1 _pu_p=$2
	shift 2
	while ! eval "$*"; do
		[ "$_pu_n" -gt 0 ] || return 1
		sleep "$_pu_p"
		_pu_n=$((_pu_n - 1))
	done
	return 0
}

# wait_until SECONDS CMD...: run CMD (a command or a function of this shell)
# every 50 ms until it succeeds, for up to SECONDS (by the clock, however long
# CMD itself takes); 0 once it did, 1 when the time ran out. For an event (a
# process started, a line logged, a count reached); a wait for time itself to
# pass stays a sleep.
wait_until() {
	_wu_now
	_wu_end=$((_wu_cs + $1 * 100))
	shift
	until "$@"; do
		_wu_now
		[ "$_wu_cs" -lt "$_wu_end" ] || return 1
		sleep 0.05
	done
	return 0
}

# _wu_now: the uptime in centiseconds in $_wu_cs (read without a process)
_wu_now() {
	read -r _wu_cs _wu_x < /proc/uptime
	_wu_cs=${_wu_cs%.*}${_wu_cs#*.}
}

# next_second FILE: wait until the clock is past the second of FILE's mtime,
# so that a change made next gets a later mtime even where times are whole
# seconds (9P2000.u)
next_second() {
	wait_until 3 _next_second "$1"
	sleep 0.02	# the kernel's coarse clock may lag behind date by a tick
}
_next_second() { [ "$(date +%s)" -gt "$(stat -c %Y "$1" 2> /dev/null || echo 0)" ]; }

# xfer PID: bytes the process PID has read and written so far (0 if gone)
xfer() {
	awk '$1 == "rchar:" || $1 == "wchar:" { n += $2 } END { print n + 0 }' \
		"/proc/$1/io" 2> /dev/null || echo 0
}

# blocked PID: PID is asleep and moves no byte for 0.2 s (its request waits
# for a server that does not answer)
blocked() {
	_bl=$(xfer "$1")
	sleep 0.2
	case $(cut -d' ' -f3 "/proc/$1/stat" 2> /dev/null) in S | D) ;; *) return 1 ;; esac
	[ "$(xfer "$1")" = "$_bl" ]
}

# wait_listen PORT PID: 0 once something listens on tcp 127.0.0.1:PORT (polled
# every 50 ms, for up to 5 s); 1 when PID exits first or the time runs out.
wait_listen() {
	_wl=$(printf '0100007F:%04X 00000000:0000 0A' "$1")
	_i=0
	while [ $_i -lt 100 ]; do
		grep -q "$_wl" /proc/net/tcp && return 0
		kill -0 "$2" 2> /dev/null || return 1
		sleep 0.05
		_i=$((_i + 1))
	done
	return 1
}

ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; }
skip() { echo "ok - $1 # SKIP ${2:-}"; }
diag() { echo "# $*"; }

# check TEXT CMD...: one TAP line from a command's exit status; output is kept
# as diagnostics when it fails.
check() {
	_text=$1
	shift
	if _out=$("$@" 2>&1); then
		ok "$_text"
	else
		not_ok "$_text (exit $?)"
		printf '%s\n' "$_out" | tail -n 20 | sed 's/^/#   /'
	fi
}

# ref_expect CLIENT TEXT GOT WANT: ok when GOT = WANT; for the in-tree
# client (9p, a reference) a difference is a note, for ours a failure.
ref_expect() {
	if [ "$3" = "$4" ]; then
		ok "$1: $2 ($3)"
	elif [ "$1" = 9p ]; then
		diag "note: in-tree 9p: $2: got '$3', ours must give '$4'"
	else
		not_ok "$1: $2: got '$3', want '$4'"
	fi
}

# The virtio core: modules on 6.1 (9p2000.ko needs their symbols), built into
# 6.12. Loaded for every suite, so that what 9p2000.ko needs is always there.
virtio_core() {
	modprobe -q virtio_pci 2> /dev/null
	return 0
}
virtio_core

# load_client 9P|9p: make the filesystem type available; 0 on success.
load_client() {
	case $1 in
	9P)
		grep -qw 9P /proc/filesystems && return 0
		virtio_core
		# insmod loads none of the modules it links against (fscache,
		# netfs): the ones its .modinfo names, through modprobe.
		for _dep in $(tr '\0' '\n' < "$V9FS_KO" | sed -n 's/^depends=//p' | tr , ' '); do
			modprobe -q "$_dep"
		done
		insmod "$V9FS_KO" ;;
	9p)
		grep -qw 9p /proc/filesystems || modprobe 9p || return 1
		modprobe 9pnet_fd ;;
	*) return 2 ;;
	esac
}

# unload_client 9P|9p
unload_client() {
	case $1 in
	9P) rmmod 9p2000 ;;
	9p) rmmod 9p && rmmod 9pnet_fd && rmmod 9pnet ;;
	esac
}

# v9fsd_start DIR PORT [ARGS...]: serve DIR on tcp 127.0.0.1:PORT and on the unix
# socket /tmp/v9fsd.PORT.sock; counters go to /tmp/v9fsd.PORT.stats. The suites
# mount as root over the guest's own loopback, so root attaches over tcp are not
# squashed (-o no_root_squash). Its descriptor limit is raised to 65536 (the
# guest's default hard limit leaves it a budget of about 2,000 fids, fewer
# than a client caching thousands of names holds; see max_total_fids in
# v9fsd(8)); the subshell execs, so its pid is v9fsd's.
# Sets V9FSD_PID; returns non-zero if the server does not listen within 5 s.
v9fsd_start() {
	_dir=$1 _port=$2
	shift 2
	rm -f "/tmp/v9fsd.$_port.sock"
	(
		ulimit -n 65536 2> /dev/null
		exec "$V9FSD" -f -e "$_dir" -l "tcp:127.0.0.1:$_port" \
			-l "unix:/tmp/v9fsd.$_port.sock" -o no_root_squash \
			-S "/tmp/v9fsd.$_port.stats" "$@"
	) > "/tmp/v9fsd.$_port.log" 2>&1 &
	V9FSD_PID=$!
	_i=0
	while [ $_i -lt 50 ]; do
		[ -S "/tmp/v9fsd.$_port.sock" ] && return 0
		kill -0 $V9FSD_PID 2> /dev/null || break
		sleep 0.1
		_i=$((_i + 1))
	done
	diag "v9fsd did not start:"
	sed 's/^/#   /' "/tmp/v9fsd.$_port.log"
	return 1
}

# ours_and_v9fsd EXPORT PORT: our client loaded and v9fsd serving EXPORT on
# PORT; a "not ok" line and false if either cannot be had
ours_and_v9fsd() {
	if ! load_client 9P > /tmp/insmod.$$ 2>&1; then
		not_ok "9p2000.ko loads: $(cat /tmp/insmod.$$)"
		rm -f /tmp/insmod.$$
		return 1
	fi
	rm -f /tmp/insmod.$$
	v9fsd_start "$1" "$2" && return 0
	not_ok "v9fsd serves $1"
	return 1
}

# ours_unload: after a suite's last umount of ours, one TAP line that
# 9p2000.ko holds no fid, request or client any more, then unload it
ours_unload() {
	_pm=/sys/module/9p2000/parameters
	check "no fid, request or client left after the umounts" \
		test "$(cat $_pm/live_fids)/$(cat $_pm/live_reqs)/$(cat $_pm/live_clients)" = 0/0/0
	rmmod 9p2000 || not_ok "rmmod 9p2000"
}

# v9fsd_count PORT TYPE: how many TYPE messages (Twrite, ...) the v9fsd of
# v9fsd_start on PORT has received so far (0 if none).
v9fsd_count() {
	_st=/tmp/v9fsd.$1.stats
	rm -f "$_st"
	kill -USR1 "$V9FSD_PID"
	_i=0
	while [ ! -s "$_st" ] && [ $_i -lt 50 ]; do sleep 0.1; _i=$((_i + 1)); done
	awk -v t="$2" '$1 == t { n = $2 } END { print n + 0 }' "$_st"
}

# v9fsd_stop: stop the server started by v9fsd_start and wait for it.
v9fsd_stop() {
	[ -n "${V9FSD_PID:-}" ] || return 0
	kill $V9FSD_PID 2> /dev/null
	wait $V9FSD_PID 2> /dev/null
	V9FSD_PID=
}

# diod_start EXPORT PORT LOG: serve EXPORT with diod on tcp 127.0.0.1:PORT, its
# log to LOG. Prints the pid once the port listens (within 5 s); otherwise stops
# it, shows the log and returns 1. Sets DIOD_PID, so call it in the suite's own
# shell (not in $(...)) for diod_stop to find it.
diod_start() {
	DIOD_PID=
	command -v diod > /dev/null || { diag "diod is not in the guest"; return 1; }
	diod -f -n -l "127.0.0.1:$2" -e "$1" -c /dev/null -L "$3" >> "$3" 2>&1 &
	_dpid=$!
	_i=0
	while [ $_i -lt 50 ]; do
		if netstat -ltn 2> /dev/null | grep -q ":$2 "; then
			DIOD_PID=$_dpid
			echo $_dpid
			return 0
		fi
		kill -0 $_dpid 2> /dev/null || break
		sleep 0.1
		_i=$((_i + 1))
	done
	kill $_dpid 2> /dev/null
	wait $_dpid 2> /dev/null
	diag "diod did not listen on 127.0.0.1:$2:"
	sed 's/^/#   /' "$3" 2> /dev/null
	return 1
}

# diod_stop: stop the server started by diod_start and wait for it.
diod_stop() {
	[ -n "${DIOD_PID:-}" ] || return 0
	kill $DIOD_PID 2> /dev/null
	wait $DIOD_PID 2> /dev/null
	DIOD_PID=
}

# mount_9p CLIENT TRANS DIALECT PORT MNT [EXTRA_OPTS]: mount the server of
# v9fsd_start PORT with CLIENT (9P or 9p) over TRANS (tcp, unix or fd) speaking
# DIALECT (9p2000, 9p2000.u, 9p2000.L). For fd, a private `v9fsd -s` serves the
# export $V9FS_FD_EXPORT (default /export) on one end of a socketpair, the client
# has the other end as rfdno=3 and wfdno=4 (see fdmount.c); V9FS_FD_PID is set to
# that server's pid, and its log is /tmp/fd.<shell pid>.PORT.log.
mount_9p() {
	_c=$1 _t=$2 _d=$3 _p=$4 _m=$5 _x=${6:+,$6}
	mkdir -p "$_m"
	# Plain 9P2000 carries no numeric uid: the attach name alone says who we
	# are, and both clients default to "nobody", who may not write the
	# root-owned export. Attach as root unless the caller names a user.
	if [ "$_d" = 9p2000 ]; then
		case ",$_x," in *,name=* | *,uname=*) ;; *) _x="$_x,uname=root" ;; esac
	fi
	case $_c in
	9P) _proto=proto _cache= ;;
	9p) _proto=trans _cache=,cache=none ;;
	esac
	case $_t in
	tcp)
		timeout 30 mount -t "$_c" -o "$_proto=tcp,port=$_p,version=$_d$_cache$_x" \
			127.0.0.1 "$_m" ;;
	unix)
		timeout 30 mount -t "$_c" -o "$_proto=unix,version=$_d$_cache$_x" \
			"/tmp/v9fsd.$_p.sock" "$_m" ;;
	fd)
		_f=/tmp/fd.$$.$_p
		rm -f "$_f.pid"
		V9FS_FD_PID=
		timeout 30 /v9fs/bin/fdmount -t "$_c" \
			-o "trans=fd,rfdno=3,wfdno=4,version=$_d$_cache$_x" \
			-p "$_f.pid" -l "$_f.log" none "$_m" -- \
			"$V9FSD" -s -e "${V9FS_FD_EXPORT:-/export}"
		_rc=$?
		V9FS_FD_PID=$(cat "$_f.pid" 2> /dev/null)
		return $_rc ;;
	esac
}

# Virtio 9P devices (QEMU's server): the boot has tags v9share0 and v9share1 on
# one host folder. Our driver is 9p2000_virtio, the in-tree one 9pnet_virtio;
# a device is bound to at most one of them, and moves by sysfs unbind/bind.
VIRTIO_DRV=/sys/bus/virtio/drivers

# virtio_dev TAG: the virtio device (virtioN) whose mount tag is TAG; the tag
# shows in sysfs while the device is bound to either driver.
virtio_dev() {
	for _d in /sys/bus/virtio/devices/*; do
		[ "$(cat "$_d/mount_tag" 2> /dev/null)" = "$1" ] && { echo "${_d##*/}"; return 0; }
	done
	return 1
}

# virtio_driver_of DEV: name of the driver DEV is bound to, empty if none.
virtio_driver_of() {
	_l=$(readlink "/sys/bus/virtio/devices/$1/driver" 2> /dev/null) || return 0
	basename "$_l"
}

# virtio_move DEV DRIVER: bind DEV to DRIVER (9p2000_virtio or 9pnet_virtio).
virtio_move() {
	_cur=$(virtio_driver_of "$1")
	[ "$_cur" = "$2" ] && return 0
	[ -n "$_cur" ] && { echo "$1" > "$VIRTIO_DRV/$_cur/unbind" || return 1; }
	[ -d "$VIRTIO_DRV/$2" ] || return 1
	# A driver loaded meanwhile may have taken the free device already.
	[ "$(virtio_driver_of "$1")" = "$2" ] && return 0
	echo "$1" > "$VIRTIO_DRV/$2/bind" || return 1
	[ "$(virtio_driver_of "$1")" = "$2" ]
}

# users_setup DIR [UID...]: posix-suite's users (powner 2001, pmember 2002,
# pstranger 2003; groups pshared 2100, pownonly 2101, pnone 2102) and a user
# u<UID> with its own group for each UID, added to copies of /etc/passwd and
# /etc/group kept in DIR and bind-mounted over them: v9fsd learns a user's
# groups from them, as the client's processes do not send them. Undo with
# users_teardown.
users_setup() {
	_ud=$1
	shift
	cp /etc/passwd "$_ud/passwd" && cp /etc/group "$_ud/group" || return 1
	printf '%s\n' 'powner:x:2001:2001::/:/bin/sh' 'pmember:x:2002:2002::/:/bin/sh' \
		'pstranger:x:2003:2003::/:/bin/sh' >> "$_ud/passwd"
	printf '%s\n' 'powner:x:2001:' 'pmember:x:2002:' 'pstranger:x:2003:' \
		'pshared:x:2100:powner,pmember' 'pownonly:x:2101:powner' 'pnone:x:2102:' \
		>> "$_ud/group"
	for _u in "$@"; do
		echo "u$_u:x:$_u:$_u::/:/bin/sh" >> "$_ud/passwd"
		echo "u$_u:x:$_u:" >> "$_ud/group"
	done
	mount -o bind "$_ud/passwd" /etc/passwd || return 1
	mount -o bind "$_ud/group" /etc/group && return 0
	umount /etc/passwd
	return 1
}

users_teardown() {
	umount /etc/group
	umount /etc/passwd
}

# posix_users LABEL DIR OUTFILE [SKIPS]: posix-suite -g users in DIR/users (TAP
# on stdout, prefixed LABEL), as root acting as each of users_setup's users;
# SKIPS is posix-suite's -s list.
posix_users() {
	mkdir -p "$2/users"
	chmod 755 "$2/users"
	timeout 300 /v9fs/bin/posix-suite -g users ${4:+-s "$4"} -p "$1: " "$2/users" \
		> "$3" 2>&1
	_rc=$?
	cat "$3"
	case $_rc in
	0|1) ;;
	*) not_ok "$1: posix-suite -g users ran (exit $_rc)" ;;
	esac
	rm -rf "$2/users"
}

# umount_9p MNT: unmount, forcing it if a plain umount fails.
umount_9p() {
	timeout 30 umount "$1" 2> /dev/null || timeout 30 umount -f "$1"
}
