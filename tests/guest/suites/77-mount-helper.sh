#!/bin/sh
# timeout: 300
# 77-mount-helper: mount.9P, the helper mount(8) runs for `mount -t 9P`,
# with our client (9P) and v9fsd on the guest's loopback:
#   - `mount -t 9P localhost:/ DIR -o port=N,version=9p2000.L` mounts: the
#     name is resolved (the kernel takes only numeric addresses), the path
#     becomes aname=, and a file of the export reads through the mount;
#   - the helper run directly drops mount(8)'s options (_netdev, x-*, ...)
#     and makes mount flags of the generic ones (nosuid, noatime);
#   - unix:/SOCKET mounts over the unix socket;
#   - an option the kernel refuses prints the kernel's own reason (read
#     from the file system context), exit 32; so does it through mount -t 9P;
#   - a name that does not resolve: exit 32 and the name said;
#   - an fstab line with _netdev mounts through `mount -a`.
. /v9fs/tests/lib.sh

P=5677
EXP=/tmp/mh-export
M=/mnt/mh77
T=/tmp/mh.$$
HELPER=/v9fs/bin/mount.9P
mkdir -p "$EXP" "$T" "$M"
echo "through the helper" > "$EXP/hello"

if [ ! -x "$HELPER" ]; then
	not_ok "mount.9P is in the guest ($HELPER)"
	exit 0
fi
if ! ours_and_v9fsd "$EXP" $P; then
	rm -rf "$EXP" "$T"
	exit 0
fi
# without the helper (none in /sbin, nor in the PATH) the kernel gets the
# name as the address: shown, not asserted
rm -f /sbin/mount.9P
PATH=/sbin:/bin:/usr/sbin:/usr/bin timeout 60 mount -t 9P localhost:/ "$M" \
	-o port=$P,version=9p2000.L > $T/m0 2>&1
diag "without mount.9P: mount -t 9P localhost:/ exits $?: $(head -n 2 $T/m0 | tr '\n' ' ')"
umount "$M" 2> /dev/null
# where mount(8) looks for helpers
ln -sf "$HELPER" /sbin/mount.9P

mounted_opts() { awk -v m="$M" '$2 == m && $3 == "9P" { print $1 " " $4 }' /proc/mounts; }

# 1. mount -t 9P with a host name
if PATH=/sbin:/bin:/usr/sbin:/usr/bin timeout 60 mount -t 9P localhost:/ "$M" \
	-o port=$P,version=9p2000.L > $T/m1 2>&1; then
	ok "mount -t 9P localhost:/ -o port=$P,version=9p2000.L mounts"
	line=$(mounted_opts)
	case $line in
	"127.0.0.1 "*aname=/*|"::1 "*aname=/*)
		ok "the source is the numeric address, the path aname=/ ($line)" ;;
	*)
		not_ok "the source is the numeric address, the path aname=/ (got '$line')" ;;
	esac
	if [ "$(cat "$M/hello" 2> /dev/null)" = "through the helper" ]; then
		ok "a file of the export reads through the mount"
	else
		not_ok "a file of the export reads through the mount"
	fi
	umount "$M"
else
	not_ok "mount -t 9P localhost:/ -o port=$P,version=9p2000.L mounts: $(tail -n 3 $T/m1)"
fi

# 2. the helper directly, with fstab's and systemd's options
opts="port=$P,version=9p2000.L,_netdev,x-systemd.automount,nofail,noauto,nosuid,noatime"
if timeout 60 "$HELPER" localhost:/ "$M" -o "$opts" > $T/m2 2>&1; then
	line=$(mounted_opts)
	case $line in
	*nosuid*noatime*|*noatime*nosuid*)
		ok "mount(8)'s options dropped, nosuid and noatime are mount flags ($line)" ;;
	*)
		not_ok "mount(8)'s options dropped, nosuid and noatime are mount flags (got '$line')" ;;
	esac
	umount "$M"
else
	not_ok "mount.9P with _netdev, x-systemd.automount, nofail, noauto mounts: $(tail -n 3 $T/m2)"
fi

# 3. unix socket
if timeout 60 "$HELPER" "unix:/tmp/v9fsd.$P.sock" "$M" -o version=9p2000.L > $T/m3 2>&1 &&
   [ "$(cat "$M/hello" 2> /dev/null)" = "through the helper" ]; then
	ok "mount.9P unix:/tmp/v9fsd.$P.sock mounts over the unix socket"
else
	not_ok "mount.9P unix:/tmp/v9fsd.$P.sock mounts over the unix socket: $(tail -n 3 $T/m3)"
fi
umount "$M" 2> /dev/null

# 4. the kernel's reason for refusing an option
timeout 60 "$HELPER" localhost:/ "$M" -o port=$P,version=9p2000.L,msize=2048 > $T/m4 2>&1
rc=$?
if [ $rc -eq 32 ] && grep -q "msize=2048 is below the minimum 4096" $T/m4; then
	ok "a refused option: exit 32 and the kernel's reason ($(head -n 1 $T/m4))"
	sed 's/^/#   /' $T/m4
else
	not_ok "a refused option: exit 32 and the kernel's reason (exit $rc: $(cat $T/m4))"
fi
umount "$M" 2> /dev/null
PATH=/sbin:/bin:/usr/sbin:/usr/bin timeout 60 mount -t 9P localhost:/ "$M" \
	-o port=$P,version=9p2000.L,bogus=1 > $T/m5 2>&1
rc=$?
if [ $rc -ne 0 ] && grep -q "mount.9P: .*bogus" $T/m5; then
	ok "mount -t 9P with an unknown option fails with the kernel's words ($(grep mount.9P $T/m5 | head -n 1))"
else
	not_ok "mount -t 9P with an unknown option fails with the kernel's words (exit $rc: $(cat $T/m5))"
fi
umount "$M" 2> /dev/null

# 5. a name that does not resolve (the guest knows only /etc/hosts)
timeout 60 "$HELPER" no-such-host:/ "$M" -o port=$P > $T/m6 2>&1
rc=$?
if [ $rc -eq 32 ] && grep -q "cannot resolve 'no-such-host'" $T/m6; then
	ok "an unknown host name: exit 32, the name said"
else
	not_ok "an unknown host name: exit 32, the name said (exit $rc: $(cat $T/m6))"
fi

# 6. fstab and mount -a
cp /etc/fstab $T/fstab.saved 2> /dev/null
echo "localhost:/ $M 9P port=$P,version=9p2000.L,_netdev 0 0" >> /etc/fstab
if PATH=/sbin:/bin:/usr/sbin:/usr/bin timeout 60 mount -a -t 9P > $T/m7 2>&1 && [ "$(cat "$M/hello" 2> /dev/null)" = "through the helper" ]; then
	ok "an fstab line with _netdev mounts through mount -a"
else
	not_ok "an fstab line with _netdev mounts through mount -a: $(tail -n 3 $T/m7)"
fi
umount "$M" 2> /dev/null
if [ -f $T/fstab.saved ]; then cp $T/fstab.saved /etc/fstab; else rm -f /etc/fstab; fi

rm -f /sbin/mount.9P
v9fsd_stop
unload_client 9P > /dev/null 2>&1
rm -rf "$EXP" "$T"
