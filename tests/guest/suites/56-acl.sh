#!/bin/sh
# timeout: 400
# 56-acl: POSIX ACLs through posixacl (9P2000.L, access=client), kept on the
# server as system.posix_acl_access / system.posix_acl_default, on v9fsd (tcp)
# and diod, through our client and the in-tree one (the reference: a check it
# fails is a note, not a failure). The export is a tmpfs, which keeps ACLs.
# Over virtio (QEMU's server, security_model=mapped-xattr) too, each client on
# its own tag of one host folder: QEMU keeps the ACLs as user.virtfs.*
# attributes of the host's files, which the guest cannot see, so the checks of
# the export itself are left out there.
# For each: a named-user entry lets a non-owner read, the mask limits it; chmod
# moves the mask; removing the ACL gives plain mode checks back; a default ACL
# is inherited by a new file and a new directory, whose mode follows it, and a
# directory without one still applies the umask; a malformed ACL is EINVAL.
# The ACLs are set and read with lprobe's xset/xget (no setfacl in the guest)
# and checked in the export too. A server whose ACL attribute is garbage
# (hostile-9p -m xattr-big: 4096 'x's) gets EIO from our client, named in the log.
. /v9fs/tests/lib.sh

P=5656
DP=5657
HP=5658
EXP=/export/acl-v9fsd
DEXP=/export/acl-diod
M=/mnt/acl
OUT=/tmp/acl.$$
LPROBE=/v9fs/bin/lprobe
A=system.posix_acl_access
D=system.posix_acl_default
STRANGER=pstranger	# uid 2003, in none of the files' groups

rm -rf "$EXP" "$DEXP" "$OUT"
mkdir -p "$EXP" "$DEXP" "$OUT" "$M"
chmod 755 "$EXP" "$DEXP"

as() { su -s /bin/sh -c "$2" "$1"; }

# acl ENTRY...: the xattr form of an ACL in hex: version 2, then per entry
# tag[2] perm[2] id[4], little-endian. ENTRY is u::P, u:ID:P, g::P, g:ID:P,
# m::P or o::P (P an octal digit), in the order Linux keeps them.
le16() { printf '%02x%02x' $(($1 & 255)) $(($1 >> 8 & 255)); }
le32() {
	printf '%02x%02x%02x%02x' $(($1 & 255)) $(($1 >> 8 & 255)) \
		$(($1 >> 16 & 255)) $(($1 >> 24 & 255))
}
acl() {
	printf 02000000
	for _e in "$@"; do
		_t=${_e%%:*} _r=${_e#*:}
		_id=${_r%%:*} _p=${_r#*:}
		case $_t:$_id in
		u:) _tag=1 ;; u:*) _tag=2 ;; g:) _tag=4 ;; g:*) _tag=8 ;;
		m:) _tag=16 ;; o:) _tag=32 ;;
		esac
		le16 $_tag
		le16 $_p
		le32 "${_id:-4294967295}"
	done
}

# t LABEL CMD...: the verdict of CMD for the client under test; for the
# in-tree client (the reference) a failure is a note.
t() {
	_l=$1
	shift
	if "$@" > /dev/null 2>&1; then
		ok "$LBL: $_l"
	elif [ "$CL" = 9p ]; then
		diag "note: reference $LBL fails: $_l"
	else
		not_ok "$LBL: $_l"
	fi
}

# is CMD WANT: CMD's output is WANT (CMD a string for the shell).
is() { [ "$(eval "$1" 2> /dev/null)" = "$2" ]; }

# e LABEL CMD...: a check of the export itself, where the guest sees it.
e() { if [ -n "$X" ]; then t "$@"; fi; }

# acls X: the checks, with the export X mounted at $M; X empty when the
# guest cannot see the export (the files are then made through the mount).
acls() {
	X=$1
	d=$M/t x=${X:-$M}/t
	rm -rf "$x"
	mkdir -m 755 "$x"
	echo secret > "$x/f"
	chmod 600 "$x/f"

	t "without an ACL, a 0600 file is not readable by another user" \
		as $STRANGER "! cat $d/f"
	_a=$(acl u::6 u:2003:4 g::0 m::4 o::0)
	t "setxattr of $A with user:2003:r--" is "$LPROBE xset $d/f $A $_a" ok
	e "the ACL is in the export" is "$LPROBE xget $x/f $A" "ok $_a"
	t "getxattr of $A gives it back" is "$LPROBE xget $d/f $A" "ok $_a"
	t "the mode's group bits are the mask (0640)" is "stat -c %a $d/f" 640
	t "the named user (2003) reads the file" as $STRANGER "cat $d/f"
	t "the named user may not write it (r--)" as $STRANGER "! echo x >> $d/f"

	_a=$(acl u::6 u:2003:6 g::0 m::4 o::0)
	$LPROBE xset $d/f $A $_a > /dev/null
	t "user:2003:rw- with mask::r--: still reads" as $STRANGER "cat $d/f"
	t "user:2003:rw- with mask::r--: may not write" as $STRANGER "! echo x >> $d/f"

	chmod 600 $d/f
	_a=$(acl u::6 u:2003:6 g::0 m::0 o::0)
	t "chmod 600 makes the mask ---" is "$LPROBE xget $d/f $A" "ok $_a"
	e "chmod 600: the export's ACL has mask ---" is "$LPROBE xget $x/f $A" "ok $_a"
	t "chmod 600: the named user no longer reads" as $STRANGER "! cat $d/f"
	chmod 660 $d/f
	t "chmod 660 makes the mask rw-" is "$LPROBE xget $d/f $A" \
		"ok $(acl u::6 u:2003:6 g::0 m::6 o::0)"
	t "chmod 660: the named user writes" as $STRANGER "echo more >> $d/f"

	t "removexattr of $A" is "$LPROBE xdel $d/f $A" ok
	t "without the ACL, getxattr is ENODATA" is "$LPROBE xget $d/f $A" "err 61"
	t "without the ACL, the mode alone (0660, not the group): no read" \
		as $STRANGER "! cat $d/f"
	t "a truncated ACL is EINVAL" is "$LPROBE xset $d/f $A 0200000001000600" "err 22"
	t "an ACL without user:: is EINVAL" is \
		"$LPROBE xset $d/f $A $(acl g::4 o::0)" "err 22"

	mkdir -m 755 "$x/dd"
	_da=$(acl u::7 u:2003:5 g::5 m::5 o::0)
	t "setxattr of $D on a directory" is "$LPROBE xset $d/dd $D $_da" ok
	e "the default ACL is in the export" is "$LPROBE xget $x/dd $D" "ok $_da"
	t "$D on a file is refused (EACCES)" is "$LPROBE xset $d/f $D $_da" "err 13"
	sh -c "umask 022; echo inherited > $d/dd/nf; mkdir $d/dd/nd"
	t "a new file's mode follows the default ACL, not the umask (0640)" \
		is "stat -c %a $d/dd/nf" 640
	_fa=$(acl u::6 u:2003:5 g::5 m::4 o::0)
	t "a new file inherits the access ACL" is "$LPROBE xget $d/dd/nf $A" "ok $_fa"
	e "the new file's ACL is in the export" is "$LPROBE xget $x/dd/nf $A" "ok $_fa"
	t "the named user reads the new file" as $STRANGER "cat $d/dd/nf"
	t "a new directory's mode follows the default ACL (0750)" \
		is "stat -c %a $d/dd/nd" 750
	t "a new directory inherits the access ACL" \
		is "$LPROBE xget $d/dd/nd $A" "ok $_da"
	t "a new directory inherits the default ACL" \
		is "$LPROBE xget $d/dd/nd $D" "ok $_da"
	e "the new directory's default ACL is in the export" \
		is "$LPROBE xget $x/dd/nd $D" "ok $_da"
	sh -c "umask 027; echo plain > $d/pf; mkdir $d/pd"
	t "without a default ACL the umask applies (file 0640)" is "stat -c %a $d/pf" 640
	t "without a default ACL the umask applies (directory 0750)" is "stat -c %a $d/pd" 750
	t "without a default ACL a new file has none" is "$LPROBE xget $d/pf $A" "err 61"

	# the server's copy changed behind the client: seen once attributes are
	# fetched again (the ctime moved)
	if [ -n "$X" ]; then
		$LPROBE xset $x/f $A "$(acl u::6 u:2003:4 g::0 m::4 o::0)" > /dev/null
		t "an ACL set in the export is seen through the mount" as $STRANGER "cat $d/f"
	fi
	rm -rf "$x"
}

# run CLIENT SERVER PORT EXPORT OPTS
run() {
	CL=$1 LBL="$1/$2"
	if ! mount_9p $1 tcp 9p2000.L $3 $M "posixacl$5" > "$OUT/mount.txt" 2>&1; then
		if [ $CL = 9p ]; then
			diag "note: reference $LBL: mount: $(tail -n 1 "$OUT/mount.txt")"
		else
			not_ok "$LBL: mount with posixacl: $(tail -n 1 "$OUT/mount.txt")"
		fi
		return
	fi
	t "/proc/mounts shows posixacl" sh -c "grep ' $M ' /proc/mounts | grep -q posixacl"
	acls "$4"
	umount_9p $M || not_ok "$LBL: umount"
}

# run_virtio CLIENT TAG: the checks on QEMU's server, through the device of TAG.
run_virtio() {
	CL=$1 LBL="$1/virtio"
	_o=trans=virtio,version=9p2000.L,msize=524288,posixacl
	[ $CL = 9p ] && _o=$_o,cache=none
	if ! timeout 60 mount -t $CL -o $_o $2 $M > "$OUT/mount.txt" 2>&1; then
		if [ $CL = 9p ]; then
			diag "note: reference $LBL: mount: $(tail -n 1 "$OUT/mount.txt")"
		else
			not_ok "$LBL: mount with posixacl: $(tail -n 1 "$OUT/mount.txt")"
		fi
		return
	fi
	acls ""
	umount_9p $M || not_ok "$LBL: umount"
}

if ! users_setup "$OUT"; then
	not_ok "users_setup"
	exit 0
fi
if ! v9fsd_start "$EXP" $P; then
	not_ok "v9fsd serves $EXP"
	users_teardown
	exit 0
fi
diod_start "$DEXP" $DP "$OUT/diod.log" > /dev/null ||
	not_ok "diod listens on 127.0.0.1:$DP"

clients=
load_client 9p && clients=9p
if load_client 9P > "$OUT/insmod.txt" 2>&1; then
	clients="$clients 9P"
else
	not_ok "9P: insmod: $(cat "$OUT/insmod.txt")"
fi

for c in $clients; do
	run $c v9fsd $P "$EXP" ""
	if [ -n "$DIOD_PID" ]; then
		run $c diod $DP "$DEXP" ",aname=$DEXP,uname=root"
	elif [ $c = 9P ]; then
		skip "9P/diod: ACLs" "diod did not start"
	fi
done

# virtio: v9share0 to ours, v9share1 to the in-tree driver, and both back to
# ours afterwards, where 80-virtio expects to find them.
D0=$(virtio_dev v9share0)
D1=$(virtio_dev v9share1)
case " $clients " in *" 9P "*)
	if [ -z "$D0" ] || [ -z "$D1" ]; then
		not_ok "virtio: the devices of v9share0 and v9share1 are there"
	elif virtio_move "$D0" 9p2000_virtio; then
		run_virtio 9P v9share0
		if modprobe 9pnet_virtio 2> "$OUT/mp.txt" && virtio_move "$D1" 9pnet_virtio; then
			run_virtio 9p v9share1
		else
			diag "note: reference 9p/virtio: $D1 to 9pnet_virtio: $(cat "$OUT/mp.txt")"
		fi
		virtio_move "$D1" 9p2000_virtio || not_ok "virtio: $D1 back to 9p2000_virtio"
		rmmod 9pnet_virtio 2> /dev/null
	else
		not_ok "virtio: $D0 binds to 9p2000_virtio"
	fi ;;
esac

# hostile: an ACL that no Linux file system could have stored
case " $clients " in *" 9P "*)
	/v9fs/bin/hostile-9p -m xattr-big -l tcp:127.0.0.1:$HP 2> "$OUT/hostile.log" &
	H_PID=$!
	sleep 0.3
	_n=$(dmesg | wc -l)
	if mount_9p 9P tcp 9p2000.L $HP $M posixacl > "$OUT/mount.txt" 2>&1; then
		CL=9P LBL=9P/hostile
		t "a garbage $A from the server is EIO" is "$LPROBE xget $M/data $A" "err 5"
		t "the kernel log names it" sh -c \
			"dmesg | tail -n +$((_n + 1)) | grep -q '$A of data from the server is not a valid ACL'"
		umount_9p $M || not_ok "9P/hostile: umount"
	else
		not_ok "9P/hostile: mount with posixacl: $(tail -n 1 "$OUT/mount.txt")"
	fi
	kill $H_PID 2> /dev/null
	wait $H_PID 2> /dev/null ;;
esac

case " $clients " in *" 9p "*) unload_client 9p ;; esac
diod_stop
v9fsd_stop
users_teardown
rm -rf "$OUT" "$EXP" "$DEXP"
exit 0
