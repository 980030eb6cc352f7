#!/bin/bash
# deb-check.sh: after `make deb`, what the packages hold (dpkg-deb -c) against
# where Debian policy puts each kind of file, their control data, lintian's
# verdict, and the v9fsd package's unit run without systemd from the
# extracted .deb (unit-run.sh). Prints TAP.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
ver=$(cat VERSION)
arch=$(dpkg --print-architecture)
out=$top/build/deb
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
check() { local d=$1; shift; if "$@"; then ok "$d"; else not_ok "$d"; return 1; fi; }

v9fsd=$out/v9fsd_${ver}_$arch.deb
dkms=$out/9p2000-dkms_${ver}_all.deb
check "make deb built v9fsd_${ver}_$arch.deb and 9p2000-dkms_${ver}_all.deb" \
	test -f "$v9fsd" -a -f "$dkms" || { echo "1..$n"; exit 1; }

files() { dpkg-deb -c "$1" | awk '$1 !~ /^d/ { sub(/^\.\//, "", $6); print substr($1, 2, 9), $2, $6 }' | sort; }

# v9fsd: a daemon for the administrator in /usr/sbin, its page in section 8,
# compressed; the unit where systemd looks; the config in /etc; the
# copyright and changelog in /usr/share/doc/v9fsd.
unit=$(dpkg-deb -c "$v9fsd" | awk '{ print $6 }' | grep '/systemd/system/v9fsd.service$' | sed 's|^\./||')
sort > "$out/want-v9fsd" <<EOT
rw-r--r-- root/root etc/default/v9fsd
rw-r--r-- root/root $unit
rw-r--r-- root/root ${unit%.service}.socket
rw-r--r-- root/root ${unit%.service}@.service
rwxr-xr-x root/root usr/sbin/v9fsd
rw-r--r-- root/root usr/share/doc/v9fsd/changelog.gz
rw-r--r-- root/root usr/share/doc/v9fsd/copyright
rw-r--r-- root/root usr/share/man/man8/v9fsd.8.gz
EOT
check "v9fsd: exactly its files, where policy puts them (dpkg-deb -c)" \
	diff -u "$out/want-v9fsd" <(files "$v9fsd")
check "v9fsd: the unit is in /lib/systemd/system or /usr/lib/systemd/system ($unit)" \
	bash -c "[[ '$unit' =~ ^(usr/)?lib/systemd/system/v9fsd.service\$ ]]"
dpkg-deb -e "$v9fsd" "$out/ctl-v9fsd"
check "v9fsd: /etc/default/v9fsd is a conffile" grep -qx /etc/default/v9fsd "$out/ctl-v9fsd/conffiles"
check "v9fsd: postinst enables and starts v9fsd.service" \
	bash -c "grep -q \"deb-systemd-helper enable 'v9fsd.service'\" '$out/ctl-v9fsd/postinst' &&
		grep -q \"deb-systemd-invoke .* 'v9fsd.service'\" '$out/ctl-v9fsd/postinst'"
check "v9fsd: version $ver, depends on libc6" \
	bash -c "test \"\$(dpkg-deb -f '$v9fsd' Version)\" = '$ver' &&
		dpkg-deb -f '$v9fsd' Depends | grep -q libc6"
# purge removes the unit's StateDirectory, the default export, when it is
# empty, and keeps what someone put there: the postrm run in a mount
# namespace of its own over a scratch /var/lib
purge_leaves() { # purge_leaves empty|full
	unshare -m --propagation private sh -c '
		mount -t tmpfs none /var/lib || exit 2
		mkdir /var/lib/v9fsd
		[ "$1" = full ] && echo kept > /var/lib/v9fsd/file
		"$0" purge > /dev/null 2>&1 || exit 3
		if [ "$1" = full ]; then
			test "$(cat /var/lib/v9fsd/file)" = kept
		else
			test ! -e /var/lib/v9fsd
		fi' "$out/ctl-v9fsd/postrm" "$1"
}
if [ -x "$out/ctl-v9fsd/postrm" ] && unshare -m true 2> /dev/null; then
	check "v9fsd: purge removes an empty /var/lib/v9fsd (postrm purge)" purge_leaves empty
	check "v9fsd: purge keeps /var/lib/v9fsd holding a file, and the file" purge_leaves full
else
	ok "v9fsd: purge and /var/lib/v9fsd # SKIP no postrm, or no mount namespace here"
fi

# 9p2000-dkms: the source tree DKMS reads in /usr/src/NAME-VERSION, the
# mount-options page in section 5.
{
	for f in Kbuild VERSION dkms.conf module/*.[ch] module/*/*.[ch] proto/*.[ch]; do
		echo "rw-r--r-- root/root usr/src/9p2000-$ver/${f}"
	done
	echo "rw-r--r-- root/root usr/share/doc/9p2000-dkms/changelog.gz"
	echo "rw-r--r-- root/root usr/share/doc/9p2000-dkms/copyright"
	echo "rw-r--r-- root/root usr/share/man/man5/9p2000.5.gz"
} > "$out/want-dkms"
sort -o "$out/want-dkms" "$out/want-dkms"
check "9p2000-dkms: exactly its files, where policy puts them (dpkg-deb -c)" \
	diff -u "$out/want-dkms" <(files "$dkms")
dpkg-deb --fsys-tarfile "$dkms" | tar -xOf - "./usr/src/9p2000-$ver/dkms.conf" > "$out/dkms.conf"
check "9p2000-dkms: its dkms.conf says PACKAGE_VERSION=\"$ver\"" \
	grep -qx "PACKAGE_VERSION=\"$ver\"" "$out/dkms.conf"
dpkg-deb -e "$dkms" "$out/ctl-dkms"
check "9p2000-dkms: depends on dkms, postinst runs DKMS's common.postinst" \
	bash -c "dpkg-deb -f '$dkms' Depends | grep -q '^dkms' &&
		grep -q 'common.postinst' '$out/ctl-dkms/postinst'"
check "9p2000-dkms recommends kernel headers and suggests v9fsd, which suggests it" \
	bash -c "dpkg-deb -f '$dkms' Recommends | grep -q linux-headers &&
		dpkg-deb -f '$dkms' Suggests | grep -qw v9fsd &&
		dpkg-deb -f '$v9fsd' Suggests | grep -qw 9p2000-dkms"

# 9p2000-utils: the mount helper where mount(8) finds it (/sbin is /usr/sbin),
# its page in section 8.
utils=$out/9p2000-utils_${ver}_$arch.deb
sort > "$out/want-utils" <<EOT
rwxr-xr-x root/root usr/sbin/mount.9P
rw-r--r-- root/root usr/share/doc/9p2000-utils/changelog.gz
rw-r--r-- root/root usr/share/doc/9p2000-utils/copyright
rw-r--r-- root/root usr/share/man/man8/mount.9P.8.gz
EOT
check "9p2000-utils: exactly its files, where policy puts them (dpkg-deb -c)" \
	diff -u "$out/want-utils" <(files "$utils")
# --no-enable: postinst enables it again only where the admin had it enabled
check "v9fsd: v9fsd.socket is shipped, neither enabled nor started by postinst" \
	bash -c "grep -q \"deb-systemd-helper debian-installed 'v9fsd.socket'\" '$out/ctl-v9fsd/postinst' &&
		! grep -q \"deb-systemd-invoke .*'v9fsd.socket'\" '$out/ctl-v9fsd/postinst'"

check "lintian: no error ($(grep -c '^E: ' "$out/lintian.log") errors, $(grep -c '^W: ' "$out/lintian.log") warnings, $(grep -c '^[IP]: ' "$out/lintian.log") info/pedantic)" \
	bash -c "! grep -q '^E: ' '$out/lintian.log' && test -s '$out/build.log'"

# The package's unit, run from the extracted .deb.
rm -rf "$out/root"
mkdir -p "$out/root"
dpkg-deb -x "$v9fsd" "$out/root"
tests/pkg/unit-run.sh "$out/root" build/pkg/serve-probe > "$out/unit-run.tap" 2>&1
while IFS= read -r l; do
	case $l in
	"ok "*) ok "deb unit run: ${l#ok [0-9]* - }" ;;
	"not ok "*) not_ok "deb unit run: ${l#not ok [0-9]* - }" ;;
	"#"*) echo "$l" ;;
	esac
done < "$out/unit-run.tap"
grep -q '^1\.\.' "$out/unit-run.tap" || not_ok "deb unit run: unit-run.sh finished"
echo "1..$n"
[ $failed -eq 0 ]
