#!/bin/bash
# dkms-check.sh SERIES...: `dkms add` and `dkms build` of the tree `make
# install-dkms` installs, in scratch DKMS, source and install trees under
# build/dkms, for each cached kernel's headers, and a comparison of the result
# with `make module`'s build/SERIES/9p2000.ko. Prints TAP. Nothing is
# installed or loaded: only `dkms build` runs, never `dkms install`.
#
# "Equal" means, for each kernel:
#  1. modinfo prints the same fields and values (version, srcversion, which
#     hashes the sources, vermagic, depends, alias, ...), filename aside;
#  2. the same sections (name, type, flags, alignment) in the same order;
#  3. the same bytes, once both are stripped of debug information as DKMS
#     strips (strip -g), apart from the linker's build-id note and the order
#     of the BTF types (6.12: same type-section length, same names), when
#     the DKMS build maps its build directory onto make module's
#     (-ffile-prefix-map in KCFLAGS). Unmapped, the only difference is that
#     directory: in __FILE__ strings (.rodata.str1.*), the relocations that
#     point past them (.rela.*) and the BTF order.
# Then that `dkms build` for kernels of other series than 6.1 and 6.12 is
# skipped, as dkms.conf's BUILD_EXCLUSIVE_KERNEL says.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
ver=$(cat VERSION)
scratch=$top/build/dkms
n=0
failed=0

ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
check() { # check DESCRIPTION CMD...
	local d=$1
	shift
	if "$@"; then ok "$d"; else not_ok "$d"; fi
}

# Never sign (that would make a key in /var/lib/dkms): point DKMS's signing
# tool at nothing. The trees are all under $scratch.
dkms_run() { # dkms_run TREE ACTION ARGS...
	local tree=$1
	shift
	sign_file=/nonexistent timeout 900 dkms "$@" --sourcetree "$scratch/root/usr/src" \
		--dkmstree "$tree" --installtree "$scratch/lib-modules"
}

# name, type, flags ("-" for none), alignment of each section but the null one
sections() {
	readelf -SW "$1" | sed -n 's/^ *\[ *[0-9]*\] *//p' |
		awk '$1 != "NULL" { print $1, $2, (NF == 10 ? $7 : "-"), $NF }'
}

# BTF of a module (6.12): header fields, the type section's length and the
# sorted names. pahole 1.24 emits the types in the order it meets them in
# the debug information, which the build directory changes; these do not.
btf_digest() {
	readelf -SW "$1" | grep -q ' \.BTF ' || { echo none; return; }
	objcopy --dump-section ".BTF=$scratch/btf" "$1" /dev/null
	python3 -c '
import hashlib, struct, sys
b = open(sys.argv[1], "rb").read()
magic, ver, flags, hl, to, tl, so, sl = struct.unpack_from("<HBBIIIII", b)
names = sorted(b[hl + so:hl + so + sl].split(b"\0"))
print(hex(magic), ver, flags, tl, sl, hashlib.sha256(b"\n".join(names)).hexdigest())
' "$scratch/btf"
}

same_bytes() { # same_bytes A B: the whole files, build-id note removed; else say where
	local a=$1 b=$2 s
	objcopy --remove-section=.note.gnu.build-id --remove-section=.BTF "$a" "$scratch/cmp.a"
	objcopy --remove-section=.note.gnu.build-id --remove-section=.BTF "$b" "$scratch/cmp.b"
	if cmp -s "$scratch/cmp.a" "$scratch/cmp.b"; then
		[ "$(btf_digest "$a")" = "$(btf_digest "$b")" ] && return 0
		echo "# .BTF differs in more than the order of its types"
		return 1
	fi
	for s in $(readelf -SW "$a" | sed -n 's/^ *\[ *[0-9]*\] *//p' | awk '$1 != "NULL" { print $1 }'); do
		cmp -s <(readelf -W -x "$s" "$a" 2>&1) <(readelf -W -x "$s" "$b" 2>&1) ||
			echo "# section $s differs"
	done
	return 1
}

if ! command -v dkms > /dev/null; then
	sudo=
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	echo "# dkms-check: installing dkms"
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends dkms > /dev/null
fi
rm -rf "$scratch"
mkdir -p "$scratch/plain" "$scratch/mapped" "$scratch/lib-modules"
before=$(ls -A /var/lib/dkms 2> /dev/null | sort)
make -s install-dkms DESTDIR="$scratch/root" > /dev/null
for t in plain mapped; do
	if ! dkms_run "$scratch/$t" add "9p2000/$ver" > "$scratch/add-$t.log" 2>&1; then
		sed 's/^/# /' "$scratch/add-$t.log"
		not_ok "dkms add 9p2000/$ver ($t tree)"
	fi
done

for series in "$@"; do
	eval "$(tests/vm/kernel.sh "$series")"
	ref=$top/build/$series/9p2000.ko
	for t in plain mapped; do
		flags=
		[ $t = mapped ] &&
			flags="-ffile-prefix-map=$scratch/$t/9p2000/$ver/build/=$top/build/$series/src/"
		start=$(date +%s)
		if KCFLAGS=$flags dkms_run "$scratch/$t" build "9p2000/$ver" -k "$ABI" \
			--kernelsourcedir "$KDIR" > "$scratch/build-$t-$series.log" 2>&1; then
			ok "$series: dkms build 9p2000/$ver for $ABI ($t, $(($(date +%s) - start)) s)"
		else
			sed 's/^/# /' "$scratch/build-$t-$series.log" | tail -n 20
			not_ok "$series: dkms build 9p2000/$ver for $ABI ($t)"
		fi
	done
	plain=$scratch/plain/9p2000/$ver/$ABI/x86_64/module/9p2000.ko
	mapped=$scratch/mapped/9p2000/$ver/$ABI/x86_64/module/9p2000.ko
	if [ ! -f "$plain" ] || [ ! -f "$mapped" ] || [ ! -f "$ref" ]; then
		not_ok "$series: modules to compare exist ($plain, $mapped, $ref)"
		continue
	fi
	modinfo "$ref" | grep -v '^filename:' > "$scratch/modinfo-make-$series"
	modinfo "$plain" | grep -v '^filename:' > "$scratch/modinfo-dkms-$series"
	check "$series: modinfo of the dkms module equals make module's (srcversion $(modinfo -F srcversion "$plain"), version $(modinfo -F version "$plain"))" \
		cmp -s "$scratch/modinfo-make-$series" "$scratch/modinfo-dkms-$series"
	check "$series: module version is VERSION ($ver)" test "$(modinfo -F version "$plain")" = "$ver"
	check "$series: vermagic is the kernel's ($ABI)" \
		test "$(modinfo -F vermagic "$plain" | cut -d' ' -f1)" = "$ABI"
	cp "$ref" "$scratch/ref-$series.ko"
	strip -g "$scratch/ref-$series.ko"
	check "$series: same sections (name, type, flags, alignment) after strip -g" \
		diff <(sections "$scratch/ref-$series.ko") <(sections "$plain")
	check "$series: byte-identical to make module's after strip -g (build-id, BTF order aside), build directory mapped" \
		same_bytes "$scratch/ref-$series.ko" "$mapped"
	# the plain build: where it differs, and that it is only the path
	same_bytes "$scratch/ref-$series.ko" "$plain" > "$scratch/diff-$series" || true
	others=$(sed -n 's/^# section \(.*\) differs$/\1/p' "$scratch/diff-$series" |
		grep -Ev '^(\.note\.gnu\.build-id|\.BTF|\.rodata\.str1\.[0-9]+|\.rela\..*)$' | tr '\n' ' ')
	check "$series: unmapped, differs only in the build path strings and relocations to them ($(sed -n 's/^# section \(.*\) differs$/\1/p' "$scratch/diff-$series" | tr '\n' ' '))" \
		test -z "$others"
	check "$series: nothing in the host's /lib/modules/$ABI" test ! -e "/lib/modules/$ABI"
done

# BUILD_EXCLUSIVE_KERNEL: a kernel of a series the module was not tested on
# is skipped (DKMS's exit 77), never built, even with headers at hand (the
# last series' are given).
for k in 5.10.0-30-amd64 6.2.0-1-amd64 6.10.0-1-amd64 6.11.0-1-amd64 \
	6.13.0-1-amd64 6.120.0-1-amd64; do
	rc=0
	dkms_run "$scratch/plain" build "9p2000/$ver" -k "$k" --kernelsourcedir "${KDIR:-/nonexistent}" \
		> "$scratch/exclusive-$k.log" 2>&1 || rc=$?
	if [ $rc -eq 77 ] && grep -q BUILD_EXCLUSIVE "$scratch/exclusive-$k.log" &&
		[ ! -e "$scratch/plain/9p2000/$ver/$k" ]; then
		ok "dkms build for $k is skipped: not a tested series (BUILD_EXCLUSIVE_KERNEL)"
	else
		sed 's/^/# /' "$scratch/exclusive-$k.log" | tail -n 5
		not_ok "dkms build for $k is skipped: not a tested series (BUILD_EXCLUSIVE_KERNEL; exit $rc)"
	fi
done

check "nothing added to /var/lib/dkms" test "$(ls -A /var/lib/dkms 2> /dev/null | sort)" = "$before"
check "nothing installed into the scratch install tree" test -z "$(ls -A "$scratch/lib-modules")"
echo "1..$n"
[ $failed -eq 0 ]
