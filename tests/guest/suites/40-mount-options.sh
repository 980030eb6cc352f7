#!/bin/sh
# Mount options of 9p2000.ko (-t 9P) against v9fsd: each of the seed's options
# (and the later standard names) is accepted, has its effect and shows in
# /proc/mounts; an unknown or malformed option fails the mount with EINVAL and
# is named in the kernel log; nothing is left behind after the umounts.
# timeout: 300
. /v9fs/tests/lib.sh

P=5640
EXP=/tmp/opt-export
M=/mnt/opt
SOCK=/tmp/v9fsd.$P.sock
PARAMS=/sys/module/9p2000/parameters
LPROBE=/v9fs/bin/lprobe

opts_of() { awk -v m="$1" '$2 == m { print $4 }' /proc/mounts; }
mounted() { awk -v m="$1" '$2 == m { f = 1 } END { exit !f }' /proc/mounts; }

# has_opt WORD: the /proc/mounts options of $M contain WORD exactly.
has_opt() { opts_of $M | tr ',' '\n' | grep -qx -- "$1"; }

# Kernel log since the last klog_mark (the log is never cleared: the runner
# scans it for bugs after the suite).
klog_mark() { KLOG_BASE=$(dmesg | wc -l); }
klog_new() { dmesg | tail -n +$((KLOG_BASE + 1)); }

# try_mount OPTS [SOURCE]: mount $M with -t 9P; output in $OUT.
try_mount() {
	OUT=$(timeout 30 mount -t 9P -o "$1" "${2:-127.0.0.1}" $M 2>&1)
}

umount_m() { mounted $M && umount_9p $M; }

# good OPTS SOURCE TEXT WORD...: mounting must work and /proc/mounts must
# show every WORD; leaves $M mounted when it worked.
good() {
	_o=$1 _s=$2 _t=$3
	shift 3
	if ! try_mount "$_o" "$_s"; then
		not_ok "$_t: mount -o $_o"
		diag "$OUT"
		return 1
	fi
	_missing=
	for _w in "$@"; do
		has_opt "$_w" || _missing="$_missing $_w"
	done
	if [ $# -eq 0 ]; then
		ok "$_t: mount -o $_o"
	elif [ -z "$_missing" ]; then
		ok "$_t: mount -o $_o shows $*"
	else
		not_ok "$_t: mount -o $_o shows $* (missing:$_missing)"
		diag "/proc/mounts: $(opts_of $M)"
	fi
	return 0
}

# bad OPTS NAME: the mount must fail with EINVAL and the new kernel log lines
# from 9P must contain NAME.
bad() {
	klog_mark
	if try_mount "$1" "127.0.0.1"; then
		not_ok "-o $1 is refused"
		umount_m
		return
	fi
	case $OUT in
	*"Invalid argument"*) ;;
	*)
		not_ok "-o $1 fails with EINVAL"
		diag "$OUT"
		return ;;
	esac
	if klog_new | grep '9P' | grep -qF -- "$2"; then
		ok "-o $1 fails with EINVAL and the log names $2"
	else
		not_ok "-o $1 fails with EINVAL and the log names $2"
		klog_new | tail -n 5 | sed 's/^/#   /'
	fi
}

mkdir -p "$EXP/sub" $M
echo "option test" > "$EXP/file"
chmod 644 "$EXP/file"
echo owned > "$EXP/owned"
chown 4321:8765 "$EXP/owned"
mkfifo "$EXP/fifo"
mknod "$EXP/null" c 1 3
mknod "$EXP/blk" b 7 0

if ! load_client 9P; then
	not_ok "9p2000.ko loads"
	exit 0
fi
if ! v9fsd_start "$EXP" $P; then
	not_ok "v9fsd starts"
	exit 0
fi

# --- refused: unknown and malformed options, before any connection -------
bad "port=$P,bogus" "bogus"
bad "port=$P,cache=bogus" "cache"
bad "port=abc" "'port'"
bad "port=0" "port=0"
bad "port=70000" "port=70000"
bad "port=$P,msize=abc" "'msize'"
bad "port=$P,msize=2048" "msize=2048"
bad "port=$P,maxdata=100" "maxdata=100"
bad "proto=udp,port=$P" "'proto'"
bad "trans=rdma,port=$P" "'trans'"
bad "port=$P,version=9p2000.X" "'version'"
bad "port=$P,uid=abc" "'uid'"
bad "port=$P,uid=4294967295" "uid=4294967295"
bad "port=$P,gid=x" "'gid'"
bad "port=$P,afid=x" "'afid'"
bad "port=$P,access=bogus" "access=bogus"
bad "port=$P,access=" "access="
bad "port=$P,access=4294967295" "access=4294967295"
bad "port=$P,dfltuid=abc" "'dfltuid'"
bad "port=$P,dfltgid=x" "'dfltgid'"
bad "port=$P,debug=zz" "'debug'"
bad "port=$P,timeout=-1" "'timeout'"
bad "port=$P,noextend=1" "'noextend'"
bad "port=$P,tcp=yes" "'tcp'"
bad "port=$P,name=" "'name'"
bad "trans=fd,rfdno=3" "trans=fd"
bad "trans=fd,rfdno=x,wfdno=4" "'rfdno'"
bad "port=$P,actimeo=abc" "'actimeo'"
bad "port=$P,actimeo=-1" "'actimeo'"
bad "port=$P,actimeo=99999" "actimeo=99999"

# --- the dialects ------------------------------------------------------------
if good "port=$P,version=9p2000.L" 127.0.0.1 "9P2000.L" version=9p2000.L; then
	check "9P2000.L: a file reads back" grep -qx "option test" $M/file
	umount_m
fi

# --- the defaults: the seed's, but 9P2000.L (as the in-tree client) asked for
if good "port=$P" 127.0.0.1 "defaults" trans=tcp port=$P msize=9000 \
	version=9p2000.L name=nobody uid=0 gid=0 access=client; then
	check "defaults: a file reads back" grep -qx "option test" $M/file
	umount_m
fi

# --- transports: proto= (seed), bare tcp/unix (seed), trans= (later) -------
good "proto=tcp,port=$P" 127.0.0.1 "proto=tcp" trans=tcp port=$P && umount_m
good "tcp,port=$P" 127.0.0.1 "bare tcp" trans=tcp && umount_m
good "trans=tcp,port=$P" 127.0.0.1 "trans=tcp" trans=tcp && umount_m
if good "proto=unix" $SOCK "proto=unix" trans=unix; then
	check "proto=unix: a file reads back" grep -qx "option test" $M/file
	umount_m
fi
good "unix" $SOCK "bare unix" trans=unix && umount_m
good "trans=unix" $SOCK "trans=unix" trans=unix && umount_m
if V9FS_FD_EXPORT=$EXP mount_9p 9P fd 9p2000.u 0 $M > /dev/null 2>&1 && mounted $M; then
	if has_opt trans=fd && has_opt rfdno=3 && has_opt wfdno=4; then
		ok "trans=fd,rfdno=3,wfdno=4 shows trans=fd rfdno=3 wfdno=4"
	else
		not_ok "trans=fd,rfdno=3,wfdno=4 shows trans=fd rfdno=3 wfdno=4"
		diag "/proc/mounts: $(opts_of $M)"
	fi
	check "trans=fd: a file reads back" grep -qx "option test" $M/file
	umount_m
else
	not_ok "trans=fd,rfdno=3,wfdno=4 mounts"
fi

# --- names, sizes, versions ------------------------------------------------
good "port=$P,name=root" 127.0.0.1 "name=" name=root && umount_m
good "port=$P,uname=root" 127.0.0.1 "uname= (alias of name=)" name=root && umount_m
good "port=$P,aname=/" 127.0.0.1 "aname=" aname=/ && umount_m
klog_mark
if try_mount "port=$P,aname=/no/such/tree"; then
	not_ok "aname= reaches the server (an unknown tree is refused)"
	umount_m
else
	check "aname= reaches the server (an unknown tree is refused)" \
		sh -c 'case "$1" in *"Invalid argument"*) exit 1 ;; esac' - "$OUT"
fi
good "port=$P,msize=16384" 127.0.0.1 "msize=" msize=16384 && umount_m
good "port=$P,maxdata=32768" 127.0.0.1 "maxdata= (alias of msize=)" msize=32768 && umount_m
good "port=$P,version=9p2000.u" 127.0.0.1 "version=9p2000.u" version=9p2000.u && umount_m
good "port=$P,version=9p2000" 127.0.0.1 "version=9p2000" version=9p2000 noextend && umount_m
good "port=$P,timeout=7" 127.0.0.1 "timeout=" timeout=7 && umount_m
good "port=$P,cache=loose" 127.0.0.1 "cache=loose" cache=loose && umount_m
good "port=$P,cache=loose,actimeo=0" 127.0.0.1 "actimeo=" cache=loose actimeo=0 && umount_m
# A kernel without fscache (the debug kernel) has no /proc/fs/fscache.
if [ -d /proc/fs/fscache ]; then
	good "port=$P,cache=fscache" 127.0.0.1 "cache=fscache (no cache bound)" cache=fscache && umount_m
else
	bad "port=$P,cache=fscache" "cache=fscache"
fi
good "port=$P,actimeo=3600" 127.0.0.1 "actimeo= without cache=loose" actimeo=3600 && umount_m

# --- access=: as given; the defaults of each dialect ------------------------
good "port=$P,version=9p2000.L" 127.0.0.1 ".L default access" access=client && umount_m
good "port=$P,version=9p2000" 127.0.0.1 "9P2000 default access" access=any && umount_m
for a in user any 1234; do
	good "port=$P,access=$a" 127.0.0.1 "access=$a" access=$a && umount_m
done
good "port=$P,version=9p2000.L,access=client" 127.0.0.1 "access=client" access=client &&
	umount_m
# 9P2000 has no numeric ids to attach each user as: user becomes any
good "port=$P,version=9p2000,access=user" 127.0.0.1 "9P2000 access=user" access=any &&
	umount_m
mkdir -m 777 "$EXP/dflt"
if good "port=$P,version=9p2000.u,access=any,dfltuid=1234,dfltgid=5678" 127.0.0.1 "dfltuid=,dfltgid=" \
	dfltuid=1234 dfltgid=5678; then
	check "dfltuid=: an access=any mount attaches as it (files it makes are 1234's)" \
		sh -c "echo x > $M/dflt/f && test \"\$(stat -c %u $EXP/dflt/f)\" = 1234"
	umount_m
fi
rm -rf "$EXP/dflt"

# --- owners: .u numeric ids, legacy mode through uid=/gid= ----------------
if good "port=$P,version=9p2000.u" 127.0.0.1 ".u owners"; then
	check ".u: owner and group come from n_uid/n_gid" \
		test "$(stat -c %u:%g $M/owned)" = 4321:8765
	umount_m
fi
if good "port=$P,noextend,uid=1234,gid=5678" 127.0.0.1 "noextend,uid=,gid=" \
	version=9p2000 noextend uid=1234 gid=5678; then
	check "noextend: every file is owned by uid=/gid=" \
		test "$(stat -c %u:%g $M/owned):$(stat -c %u:%g $M/file)" = 1234:5678:1234:5678
	check "noextend: a fifo shows as a plain file" test -f $M/fifo
	umount_m
fi

# --- special files and nodevmap -------------------------------------------
if good "port=$P,version=9p2000.u" 127.0.0.1 "devices mapped"; then
	check ".u: a fifo is a fifo" test -p $M/fifo
	check ".u: a character device is one, 1:3" \
		test "$(stat -c %F:%t:%T $M/null)" = "character special file:1:3"
	check ".u: a block device is one, 7:0" \
		test "$(stat -c %F:%t:%T $M/blk)" = "block special file:7:0"
	umount_m
fi
if good "port=$P,version=9p2000.u,nodevmap" 127.0.0.1 "nodevmap" nodevmap; then
	check "nodevmap: a fifo shows as a plain file" test -f $M/fifo
	check "nodevmap: a device shows as a plain file" test -f $M/null
	check "nodevmap: mknod of a fifo is refused" sh -c "! mkfifo $M/newfifo"
	umount_m
fi

# --- extended attributes (9P2000.L) and noxattr ----------------------------
# user.h on the export itself says whether its filesystem keeps xattrs: a .L
# mount then sets, reads and lists them; otherwise the server's EOPNOTSUPP
# comes back. noxattr and the other dialects refuse them (EOPNOTSUPP, 95).
echo x > "$EXP/xa"
if [ "$($LPROBE setxattr "$EXP/xa")" = ok ]; then
	XA_GET="ok 16" XA_SET=ok
else
	XA_GET="err 95" XA_SET="err 95"
fi
rm -f "$EXP/xa"
echo x > "$EXP/xb"
chmod 666 "$EXP/xb"
if good "port=$P,version=9p2000.L" 127.0.0.1 "9P2000.L xattrs" version=9p2000.L; then
	check "9P2000.L: setxattr(2) of user.h gives '$XA_SET'" \
		test "$($LPROBE setxattr $M/xb)" = "$XA_SET"
	check "9P2000.L: getxattr(2) of user.h gives '$XA_GET'" \
		test "$($LPROBE getxattr $M/xb)" = "$XA_GET"
	if [ "$XA_SET" = ok ]; then
		check "9P2000.L: listxattr(2) lists user.h (7 bytes)" \
			test "$($LPROBE listxattr $M/xb)" = "ok 7"
	fi
	umount_m
fi
if good "port=$P,version=9p2000.L,noxattr" 127.0.0.1 "noxattr" noxattr; then
	for _op in getxattr xattrsize listxattr setxattr; do
		check "noxattr: $_op fails with EOPNOTSUPP" \
			test "$($LPROBE $_op $M/xb)" = "err 95"
	done
	check "noxattr: the file still reads" grep -qx x $M/xb
	umount_m
fi
if good "port=$P,version=9p2000.u" 127.0.0.1 "9P2000.u xattrs"; then
	check "9P2000.u: getxattr(2) fails with EOPNOTSUPP" \
		test "$($LPROBE getxattr $M/xb)" = "err 95"
	check "9P2000.u: setxattr(2) fails with EOPNOTSUPP" \
		test "$($LPROBE setxattr $M/xb)" = "err 95"
	umount_m
fi
rm -f "$EXP/xb"

# --- posixacl: 9P2000.L with access=client only; EINVAL named otherwise ----
# Without it the system.posix_acl_* names stay EOPNOTSUPP; 56-acl tests ACLs.
ACL0=0200000001000600ffffffff04000400ffffffff20000400ffffffff
echo x > "$EXP/xc"
if good "port=$P,posixacl" 127.0.0.1 "posixacl" posixacl version=9p2000.L access=client; then
	check "posixacl: setxattr of an ACL equal to the mode (0644) works" \
		test "$($LPROBE xset $M/xc system.posix_acl_access $ACL0)" = ok
	check "posixacl: the file reads" grep -qx x $M/xc
	umount_m
fi
bad "port=$P,version=9p2000.u,posixacl" "posixacl needs 9P2000.L"
bad "port=$P,version=9p2000,posixacl" "posixacl needs 9P2000.L"
bad "port=$P,access=user,posixacl" "posixacl needs access=client"
bad "port=$P,access=1234,posixacl" "posixacl needs access=client"
bad "port=$P,noxattr,posixacl" "posixacl needs extended attributes"
if good "port=$P" 127.0.0.1 "no posixacl" version=9p2000.L; then
	check "no posixacl: /proc/mounts does not say posixacl" sh -c "! grep ' $M ' /proc/mounts | grep -q posixacl"
	check "no posixacl: setxattr of system.posix_acl_access is EOPNOTSUPP" \
		test "$($LPROBE xset $M/xc system.posix_acl_access $ACL0)" = "err 95"
	check "no posixacl: getxattr of system.posix_acl_access is EOPNOTSUPP" \
		test "$($LPROBE xget $M/xc system.posix_acl_access)" = "err 95"
	umount_m
fi
rm -f "$EXP/xc"

# --- afid: parsed and sent in Tattach; v9fsd has no auth and refuses it ----
klog_mark
if try_mount "port=$P,afid=7"; then
	check "afid=7 shows in /proc/mounts" has_opt afid=7
	umount_m
else
	case $OUT in
	*"Invalid argument"*)
		not_ok "afid=7 is parsed (the refusal is the server's)"
		diag "$OUT" ;;
	*) ok "afid=7 is parsed and sent; v9fsd refuses authentication" ;;
	esac
fi

# --- debug bitmask: 0x08 traces the VFS -----------------------------------
klog_mark
if good "port=$P,debug=0x8" 127.0.0.1 "debug=" debug=0x8; then
	cat $M/file > /dev/null
	if klog_new | grep -q '9p2000: ninep_'; then
		ok "debug=0x8 traces VFS calls in the kernel log"
	else
		not_ok "debug=0x8 traces VFS calls in the kernel log"
	fi
	umount_m
fi

# --- remount changes only the generic flags --------------------------------
if good "port=$P" 127.0.0.1 "remount"; then
	if mount -o remount,ro $M 2> /dev/null; then
		check "remount,ro: /proc/mounts says ro" has_opt ro
		check "remount,ro: writes fail" sh -c "! touch $M/rofile 2> /dev/null"
		check "remount,ro: the 9P options stay" has_opt port=$P
	else
		not_ok "mount -o remount,ro"
	fi
	umount_m
fi

# --- nothing left behind ---------------------------------------------------
v9fsd_stop
if [ -r $PARAMS/live_fids ]; then
	check "no fid or client left after the umounts" \
		test "$(cat $PARAMS/live_fids)/$(cat $PARAMS/live_clients)" = 0/0
fi
