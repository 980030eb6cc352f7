#!/bin/bash
# pkg-test.sh: the packaging checks that take seconds (make pkg-test), TAP.
#   man pages render without warnings; 9p2000(5) is what docs/mount-options.md
#   makes; the versions agree with VERSION; make install and make install-dkms
#   install exactly their files; the unit passes systemd-analyze verify; and
#   the installed unit's v9fsd, run without systemd, serves (unit-run.sh).
# Needs build/install/v9fsd and build/pkg/serve-probe (make pkg-test builds them).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
ver=$(cat VERSION)
scratch=$top/build/pkg/test
rm -rf "$scratch"
mkdir -p "$scratch"
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
check() { local d=$1; shift; if "$@"; then ok "$d"; else not_ok "$d"; return 1; fi; }
quiet() { # quiet CMD...: succeeds, and prints nothing on standard error
	local out
	out=$("$@" 2>&1 > /dev/null) || { printf '# %s\n' "$out"; return 1; }
	[ -z "$out" ] || { printf '# %s\n' "$out"; return 1; }
}

# --- man pages: groff's warnings, and man's as lintian runs it
for page in docs/v9fsd.8 docs/9p2000.5; do
	check "$page: groff -wall renders it without a warning" \
		quiet groff -wall -man -Tutf8 "$page"
	check "$page: man --warnings -l renders it without a warning" \
		quiet env LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 \
		man --warnings -E UTF-8 -l -Tutf8 -Z "$page"
	# an installed page speaks of the program, not of this source tree
	check "$page: names no source-tree path, test program or design seed" \
		bash -c "! grep -n -iE 'seed|\\.\\./shared|tests/|test guest|test suite|dist/|docs/' '$page'"
done

# --- 9p2000(5) is generated from docs/mount-options.md
dist/mount-options-man.py docs/mount-options.md "$ver" > "$scratch/9p2000.5"
check "docs/9p2000.5 is what docs/mount-options.md makes (make man)" \
	cmp -s "$scratch/9p2000.5" docs/9p2000.5
# every option row of the reference table is a tagged paragraph of the page
rows=$(awk '/^## Reference/ { s = 1; next } /^## / { s = 0 } s && /^\| `/' docs/mount-options.md | wc -l)
tags=$(awk '/^\.SH REFERENCE/ { s = 1; next } /^\.SH / { s = 0 } s && /^\.TP/' docs/9p2000.5 | wc -l)
check "9p2000(5) has one entry per option row of mount-options.md ($tags of $rows)" \
	test "$rows" -gt 0 -a "$rows" = "$tags"
# a construct the generator does not know fails it, instead of being lost
printf '# T\n\n> a quote\n' > "$scratch/bad.md"
check "the generator refuses Markdown it does not know" \
	bash -c "! dist/mount-options-man.py '$scratch/bad.md' 0 > /dev/null 2>&1"

# --- one version
check "VERSION is a version number ($ver)" bash -c "[[ '$ver' =~ ^[0-9]+(\\.[0-9]+)*\$ ]]"
cl=$(sed -n '1s/^v9fs (\([^)]*\)).*/\1/p' debian/changelog)
check "debian/changelog's version is VERSION ($cl)" test "$cl" = "$ver"
check "dkms.conf takes its version from the install (#MODULE_VERSION#)" \
	grep -qx 'PACKAGE_VERSION="#MODULE_VERSION#"' dkms.conf
check "dkms.conf builds the module Kbuild makes (9p2000)" \
	bash -c 'grep -qx "BUILT_MODULE_NAME\[0\]=\"9p2000\"" dkms.conf &&
		grep -qx "obj-m := 9p2000.o" Kbuild'
check "dkms.conf has AUTOINSTALL" grep -qx 'AUTOINSTALL="yes"' dkms.conf
for ko in build/*/9p2000.ko; do
	[ -f "$ko" ] || continue
	check "$ko: modinfo version is VERSION ($(modinfo -F version "$ko"))" \
		test "$(modinfo -F version "$ko")" = "$ver"
done

# --- make install: exactly these files, these modes
listing() { (cd "$1" && find . -type f -printf '%m %p\n' | sort); }
make -s install PREFIX=/usr DESTDIR="$scratch/usr-root" > "$scratch/install.log" 2>&1
unit=$(cd "$scratch/usr-root" && find . -name v9fsd.service)
unitdir=${unit#.}
unitdir=${unitdir%/v9fsd.service}
check "the unit is where systemd looks for packaged units (${unitdir:-nowhere})" \
	bash -c "[[ '$unitdir' =~ ^(/usr)?/lib/systemd/system\$ ]]"
cat > "$scratch/want" <<EOT
644 ./etc/default/v9fsd
644 .$unitdir/v9fsd.service
644 .$unitdir/v9fsd.socket
644 .$unitdir/v9fsd@.service
644 ./usr/share/man/man5/9p2000.5
644 ./usr/share/man/man8/mount.9P.8
644 ./usr/share/man/man8/v9fsd.8
755 ./usr/sbin/mount.9P
755 ./usr/sbin/v9fsd
EOT
sort -o "$scratch/want" "$scratch/want"
check "make install PREFIX=/usr DESTDIR=: binaries, man pages, units, config" \
	diff -u "$scratch/want" <(listing "$scratch/usr-root")
check "the installed v9fsd is the one make builds (build/install/v9fsd)" \
	cmp -s build/install/v9fsd "$scratch/usr-root/usr/sbin/v9fsd"
make -s install PREFIX=/usr/local DESTDIR="$scratch/local-root" > /dev/null 2>&1
lunit=$scratch/local-root/usr/local/lib/systemd/system/v9fsd.service
check "PREFIX=/usr/local: the unit runs /usr/local/sbin/v9fsd with /usr/local/etc/default/v9fsd" \
	bash -c "grep -q '^ExecStart=/usr/local/sbin/v9fsd ' '$lunit' &&
		grep -qx 'EnvironmentFile=-/usr/local/etc/default/v9fsd' '$lunit' &&
		test -x '$scratch/local-root/usr/local/sbin/v9fsd'"
make -s uninstall PREFIX=/usr DESTDIR="$scratch/usr-root" > /dev/null 2>&1
check "make uninstall removes every file make install put there" \
	test -z "$(find "$scratch/usr-root" -type f)"

# --- make install-dkms: the DKMS tree
make -s install-dkms DESTDIR="$scratch/dkms-root" > /dev/null 2>&1
d=./usr/src/9p2000-$ver
{
	printf '%s\n' "$d/Kbuild" "$d/VERSION" "$d/dkms.conf"
	for f in module/*.[ch] module/*/*.[ch] proto/*.[ch]; do echo "$d/$f"; done
} | sort > "$scratch/want-dkms"
check "make install-dkms: Kbuild, VERSION, dkms.conf and every module/ and proto/ source" \
	diff -u "$scratch/want-dkms" <(cd "$scratch/dkms-root" && find . -type f | sort)
check "the installed dkms.conf says PACKAGE_VERSION=\"$ver\"" \
	grep -qx "PACKAGE_VERSION=\"$ver\"" "$scratch/dkms-root/$d/dkms.conf"

# --- systemd-analyze verify: the installed unit, its binary and man page
# found in the DESTDIR tree (paths rewritten there; nothing else changes)
make -s install PREFIX=/usr DESTDIR="$scratch/usr-root" > /dev/null 2>&1
r=$scratch/usr-root
if command -v systemd-analyze > /dev/null; then
	mkdir -p "$scratch/verify"
	sed -e "s|/usr/sbin/v9fsd|$r/usr/sbin/v9fsd|" -e "s|/etc/default/v9fsd|$r/etc/default/v9fsd|" \
		"$r$unitdir/v9fsd.service" > "$scratch/verify/v9fsd.service"
	check "systemd-analyze verify v9fsd.service: exit 0, no message" \
		quiet env MANPATH="$r/usr/share/man" systemd-analyze verify "$scratch/verify/v9fsd.service"
	expo=$(MANPATH="$r/usr/share/man" systemd-analyze security --offline=yes \
		"$scratch/verify/v9fsd.service" 2>&1 | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
	check "systemd-analyze security: exposure ${expo:-unknown} (at most 4.5)" \
		awk -v e="${expo:-99}" 'BEGIN { exit !(e <= 4.5) }'
else
	ok "# SKIP systemd-analyze is not installed"
fi

# --- the unit's v9fsd, without systemd
tests/pkg/unit-run.sh "$r" build/pkg/serve-probe > "$scratch/unit-run.tap" 2>&1
while IFS= read -r l; do
	case $l in
	"ok "*) ok "unit run: ${l#ok [0-9]* - }" ;;
	"not ok "*) not_ok "unit run: ${l#not ok [0-9]* - }" ;;
	"#"*) echo "$l" ;;
	esac
done < "$scratch/unit-run.tap"
grep -q '^1\.\.' "$scratch/unit-run.tap" || not_ok "unit run: unit-run.sh finished"

echo "1..$n"
[ $failed -eq 0 ]
