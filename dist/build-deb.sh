#!/bin/bash
# build-deb.sh: `make deb`. Builds the 9p2000-dkms and v9fsd packages with
# dpkg-buildpackage from a copy of the tree in build/deb/v9fs-VERSION (so that
# the parent-directory outputs land in build/deb), then runs lintian on them.
# Installs missing build dependencies and lintian with apt-get first.
# Exit status: non-zero if the build fails or lintian reports an error.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
ver=$(cat VERSION)
out=$top/build/deb
src=$out/v9fs-$ver

need="build-essential dpkg-dev debhelper dh-dkms lintian fakeroot"
"$top/tests/vm/need-packages.sh" deb $need

rm -rf "$out"
mkdir -p "$src"
# The files the tree tracks or would track (uncommitted work included).
if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
	git ls-files -z --cached --others --exclude-standard |
		tar --null -T - --ignore-failed-read -cf - 2> /dev/null | tar -xf - -C "$src"
else
	tar --exclude=./build -cf - . | tar -xf - -C "$src"
fi

echo "deb: dpkg-buildpackage in ${src#"$top"/} (log: build/deb/build.log)"
if ! (cd "$src" && dpkg-buildpackage -us -uc -b) > "$out/build.log" 2>&1; then
	tail -n 30 "$out/build.log"
	echo "deb: dpkg-buildpackage failed" >&2
	exit 1
fi

changes=$out/v9fs_${ver}_$(dpkg --print-architecture).changes
for deb in "$out"/*.deb; do
	echo "deb: $(basename "$deb")"
	dpkg-deb -c "$deb" | awk '{ print "  " $1, $2, $6, $7, $8 }'
	dpkg-deb -c "$deb" > "${deb%.deb}.contents"
done

# Every tag down to info and pedantic is printed; only errors fail the build.
echo "deb: lintian $(basename "$changes")"
rc=0
lintian --display-info --pedantic --fail-on error "$changes" > "$out/lintian.log" 2>&1 || rc=$?
grep -E '^[EWIPX]: ' "$out/lintian.log" | sort -u || true
if [ $rc -ne 0 ]; then
	echo "deb: lintian reports errors (build/deb/lintian.log)" >&2
	exit 1
fi
echo "deb: lintian: $(grep -c '^E: ' "$out/lintian.log" || true) errors," \
	"$(grep -c '^W: ' "$out/lintian.log" || true) warnings"
