#!/bin/sh
# timeout: 1500
# 54-access: who the server is told is acting, through both clients on v9fsd
# (tcp) in 9P2000.u and 9P2000.L:
#   - access=user (and client in .L): each local user attaches as itself, so
#     a file it creates is its own in the export, and the server's refusal of
#     that user reaches it even where the client's own check would let it
#     through; with access=any everyone acts as the mount's one attach;
#   - access=<uid>: that uid alone may use the mount, root gets EPERM too;
#   - posix-suite -g users answers as on tmpfs (ours in .u and .L, the in-tree
#     client in .u; its .L run is in 20-v9fsd-intree);
#   - 8 users x 4 processes first touching one tree at once, then a SIGKILL
#     storm during such first touches: no hang, no kernel warning, and every
#     fid is gone after the umount.
. /v9fs/tests/lib.sh

P=5654
EXP=/export/access
M=/mnt/access
OUT=/tmp/access.$$
LIVE=/sys/module/9p2000/parameters/live_fids
STORM_UIDS="2011 2012 2013 2014 2015 2016 2017 2018"

rm -rf "$EXP" "$OUT"
mkdir -p "$EXP" "$OUT" "$M"
chmod 777 "$EXP"

# as USER CMD: run the shell command CMD as USER (a name from users_setup).
as() { su -s /bin/sh -c "$2" "$1"; }

klog_mark() { KLOG_BASE=$(dmesg | wc -l); }
klog_bad() {
	dmesg | tail -n +$((KLOG_BASE + 1)) |
		grep -E 'WARNING|BUG|Oops|leak|refcount_t|general protection'
}

# mnt CLIENT DIALECT OPTS: mount the export on $M; 0 when it worked.
mnt() {
	mount_9p "$1" tcp "$2" $P $M "$3" > "$OUT/mount.txt" 2>&1 && return 0
	not_ok "$1/$2 $3: mount: $(tail -n 1 "$OUT/mount.txt")"
	return 1
}

# live_zero: the module's fid count is back to 0 within 5 s (a clunk of the
# last fids is answered after umount returns).
live_zero() {
	_i=0
	while [ $_i -lt 50 ]; do
		[ "$(cat $LIVE)" = 0 ] && return 0
		sleep 0.1
		_i=$((_i + 1))
	done
	return 1
}

# owner C D: who owns a file a user creates, under access=user and any.
owner() {
	_c=$1 _d=$2 _l="$1/$2"
	rm -rf "$EXP/own"
	mkdir -m 777 "$EXP/own"
	if mnt $_c $_d "access=user"; then
		as powner "echo x > $M/own/by-user"
		_u=$(stat -c %u "$EXP/own/by-user" 2> /dev/null)
		[ "$_u" = 2001 ] && ok "$_l access=user: a file uid 2001 creates is 2001's in the export" ||
			not_ok "$_l access=user: a file uid 2001 creates is 2001's in the export (owner '$_u')"
		umount_9p $M
	fi
	# access=any: the mount's attach acts (root: uname=root for the in-tree
	# client, whose attach sends no numeric id)
	if mnt $_c $_d "access=any,uname=root"; then
		as powner "echo x > $M/own/by-any"
		_u=$(stat -c %u "$EXP/own/by-any" 2> /dev/null)
		[ "$_u" = 0 ] && ok "$_l access=any: the same file is the attach's (root) in the export" ||
			not_ok "$_l access=any: the same file is the attach's (root) in the export (owner '$_u')"
		umount_9p $M
	fi
	rm -rf "$EXP/own"
}

# refusal C D MODE: a file's mode changes in the export behind the client's
# back while the client holds it (root keeps it open), so the inode the
# client checks still says 0644; uid 2001 then opens it. The server refuses
# that user: access=user must give EACCES, access=any (root on the server)
# reads it.
refusal() {
	_c=$1 _d=$2 _a=$3 _l="$1/$2 access=$3"
	rm -rf "$EXP/ref"
	mkdir -m 755 "$EXP/ref"
	echo secret > "$EXP/ref/f"
	chmod 644 "$EXP/ref/f"
	mnt $_c $_d "access=$_a,uname=root" || return
	sleep 60 < $M/ref/f &
	_hold=$!
	as powner "cat $M/ref/f" > /dev/null 2>&1 ||
		diag "$_l: uid 2001 could not read the 0644 file before the change"
	chmod 600 "$EXP/ref/f"
	# no stat through the mount before the open: it would refresh the inode
	_got=$(as powner "cat $M/ref/f" 2>&1)
	_rc=$?
	_perm=$(stat -c %a $M/ref/f 2> /dev/null)
	case $_a in
	any)
		[ $_rc = 0 ] && [ "$_got" = secret ] &&
			ok "$_l: the attach (root) reads a 0600 file for uid 2001" ||
			not_ok "$_l: the attach (root) reads a 0600 file for uid 2001 ($_got)" ;;
	*)
		case $_got in
		*"Permission denied"*)
			ok "$_l: the server's refusal of uid 2001 reaches it (EACCES)" ;;
		*)
			not_ok "$_l: the server's refusal of uid 2001 reaches it (rc $_rc: $_got)" ;;
		esac ;;
	esac
	kill $_hold 2> /dev/null
	wait $_hold 2> /dev/null
	umount_9p $M
	diag "$_l: mode seen through the mount after the open: $_perm"
	rm -rf "$EXP/ref"
}

# single C D: access=2001 lets uid 2001 in and no one else.
single() {
	_c=$1 _d=$2 _l="$1/$2 access=2001"
	rm -rf "$EXP/single"
	mkdir -m 777 "$EXP/single"
	echo here > "$EXP/single/f"
	mnt $_c $_d "access=2001" || return
	_got=$(as powner "cat $M/single/f" 2>&1)
	[ "$_got" = here ] && ok "$_l: uid 2001 reads through the mount" ||
		not_ok "$_l: uid 2001 reads through the mount ($_got)"
	as powner "echo w > $M/single/g" 2> /dev/null
	_u=$(stat -c %u "$EXP/single/g" 2> /dev/null)
	if [ $_c = 9p ]; then
		# its one attach sends name= and no numeric id (nobody here)
		skip "$_l: what uid 2001 creates is 2001's" \
			"the in-tree client attaches access=<uid> by name= alone (owner $_u)"
	elif [ "$_u" = 2001 ]; then
		ok "$_l: what uid 2001 creates is 2001's"
	else
		not_ok "$_l: what uid 2001 creates is 2001's (owner '$_u')"
	fi
	_got=$(cat $M/single/f 2>&1)
	case $_got in
	*"not permitted"*) ok "$_l: root gets EPERM" ;;
	*) not_ok "$_l: root gets EPERM ($_got)" ;;
	esac
	_got=$(as pmember "cat $M/single/f" 2>&1)
	case $_got in
	*"not permitted"*) ok "$_l: uid 2002 gets EPERM" ;;
	*) not_ok "$_l: uid 2002 gets EPERM ($_got)" ;;
	esac
	umount_9p $M
	rm -rf "$EXP/single"
}

# fresh_tree NAME: a tree no dentry of the client has seen yet.
fresh_tree() {
	rm -rf "$EXP/$1"
	mkdir -p "$EXP/$1/a/b/c/d"
	for _f in 1 2 3 4; do
		echo "$_f" > "$EXP/$1/a/f$_f"
		echo "$_f" > "$EXP/$1/a/b/c/d/f$_f"
	done
	chmod -R a+rX "$EXP/$1"
}

# touchers TREE: 8 users x 4 processes first-touching TREE at once; each
# process in a session of its own (setsid), so its group can be killed.
# PIDS lists them.
touchers() {
	PIDS=
	for _u in $STORM_UIDS; do
		for _k in 1 2 3 4; do
			setsid su -s /bin/sh -c "stat $M/$1/a/b/c/d/f$_k > /dev/null &&
				cat $M/$1/a/f$_k > /dev/null && ls -R $M/$1 > /dev/null" \
				"u$_u" > /dev/null 2>> "$OUT/touch.err" &
			PIDS="$PIDS $!"
		done
	done
}

# storm C D OPTS: the concurrent first touches, then the SIGKILL storm.
storm() {
	_c=$1 _d=$2 _l="$1/$2 $3"
	klog_mark
	mnt $_c $_d "$3" || return
	fresh_tree t1
	: > "$OUT/touch.err"
	touchers t1
	_fail=0
	for _p in $PIDS; do
		wait $_p || _fail=$((_fail + 1))
	done
	[ $_fail = 0 ] && ok "$_l: 8 users x 4 processes first-touch one tree at once" ||
		not_ok "$_l: 8 users x 4 processes first-touch one tree at once ($_fail failed)"
	[ $_fail = 0 ] || sed 's/^/#   /' "$OUT/touch.err" | head -n 10

	fresh_tree t2
	touchers t2
	sleep 0.2
	for _p in $PIDS; do
		kill -9 -- -$_p 2> /dev/null
	done
	_hung=0
	for _p in $PIDS; do
		timeout 30 sh -c "while kill -0 $_p 2> /dev/null; do sleep 0.1; done" ||
			_hung=$((_hung + 1))
		wait $_p 2> /dev/null
	done
	[ $_hung = 0 ] && ok "$_l: a SIGKILL storm during first touches: every process ends" ||
		not_ok "$_l: a SIGKILL storm during first touches: $_hung processes still there after 30 s"
	_n=$(as u2011 "ls $M/t2/a/b/c/d" 2> /dev/null | wc -l)
	[ "$_n" = 4 ] && ok "$_l: the mount answers after the storm" ||
		not_ok "$_l: the mount answers after the storm ($_n names)"

	if umount_9p $M; then
		ok "$_l: umount after the storm"
	else
		not_ok "$_l: umount after the storm"
	fi
	if [ $_c = 9P ]; then
		live_zero && ok "$_l: live_fids is 0 after the umount" ||
			not_ok "$_l: live_fids is 0 after the umount ($(cat $LIVE))"
	fi
	_bad=$(klog_bad)
	[ -z "$_bad" ] && ok "$_l: no kernel warning" || {
		not_ok "$_l: no kernel warning"
		printf '%s\n' "$_bad" | head -n 10 | sed 's/^/#   /'
	}
	rm -rf "$EXP/t1" "$EXP/t2"
}

# users_group C D OPTS: posix-suite -g users through the mount (9P2000.u has
# whole-second times and no ctime: the checks that a time moves within a
# tick are skipped there).
users_group() {
	mnt $1 $2 "$3" || return
	_s=
	[ $2 = 9p2000.u ] && _s=subsec-times
	posix_users "$1/tcp/$2 $3" $M "$OUT/users.txt" "$_s"
	umount_9p $M
}

if ! load_client 9P; then
	not_ok "load 9p2000.ko"
	exit 0
fi
clients=9P
load_client 9p && clients="9P 9p" || diag "the in-tree client is not available: ours alone"
if ! v9fsd_start "$EXP" $P; then
	not_ok "v9fsd serves $EXP on tcp 127.0.0.1:$P"
	exit 0
fi
if ! users_setup "$OUT" $STORM_UIDS; then
	not_ok "users for the suite (bind mounts over /etc/passwd and /etc/group)"
	v9fsd_stop
	exit 0
fi

mkdir -p /tmp/access-tmpfs
if mount -t tmpfs tmpfs /tmp/access-tmpfs; then
	posix_users "tmpfs" /tmp/access-tmpfs "$OUT/users.txt"
	umount /tmp/access-tmpfs
else
	not_ok "tmpfs: mount for posix-suite -g users"
fi

for d in 9p2000.u 9p2000.L; do
	for c in $clients; do
		owner $c $d
		refusal $c $d user
		[ $d = 9p2000.L ] && refusal $c $d client
		refusal $c $d any
		single $c $d
	done
	users_group 9P $d "access=user"
	[ $d = 9p2000.L ] && users_group 9P $d "access=client"
	storm 9P $d "access=user"
done
# the in-tree client through the same storm, for comparison
case $clients in *9p*) storm 9p 9p2000.L "access=user" ;; esac
# the in-tree client's 9P2000.u users (its .L users run in 20-v9fsd-intree)
case $clients in *9p*) users_group 9p 9p2000.u "access=user" ;; esac

# the default: a root mounter acts as uid 0, as before access= existed
for d in 9p2000.u 9p2000.L; do
	mnt 9P $d "" || continue
	echo x > $M/by-root-default
	_u=$(stat -c %u "$EXP/by-root-default" 2> /dev/null)
	_a=$(awk -v m=$M '$2 == m { print $4 }' /proc/mounts | tr ',' '\n' | grep '^access=')
	[ "$_u" = 0 ] && ok "9P/$d default ($_a): what root creates is root's" ||
		not_ok "9P/$d default ($_a): what root creates is root's (owner '$_u')"
	rm -f $M/by-root-default
	umount_9p $M
done

users_teardown
v9fsd_stop
rm -rf "$EXP" "$OUT"
