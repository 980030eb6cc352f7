#!/bin/bash
# proto_kcheck.sh [SERIES...]: compile proto/ as a scratch kernel module with
# W=1, sparse (C=2, when installed) and -Wframe-larger-than=512 against each
# cached kernel (default: 6.1 6.12), and run checkpatch --strict over proto/. Nothing is ever loaded: the
# module is built in a temporary directory and thrown away. Prints TAP.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${V9FS_CACHE:-$HOME/.cache/v9fs}
[ $# -gt 0 ] || set -- 6.1 6.12
tmp=$(mktemp -d "${TMPDIR:-/tmp}/v9p-kcheck.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
status=0
sparse=
what="W=1"
if command -v sparse >/dev/null; then
	sparse=C=2
	what="W=1 and sparse"
fi

cp "$top"/proto/*.c "$top"/proto/*.h "$tmp/"
objs=$(cd "$top/proto" && ls *.c | sed 's/\.c$/.o/' | tr '\n' ' ')
cat >"$tmp/v9pk_main.c" <<'EOF'
// SPDX-License-Identifier: GPL-2.0
#include <linux/module.h>
#include "v9p.h"

static int __init v9pk_init(void)
{
	return v9p_type_valid(V9P_TVERSION, V9P_9P2000L) ? 0 : -EINVAL;
}
module_init(v9pk_init);
MODULE_DESCRIPTION("compile check of the v9fs 9P codec; never loaded");
MODULE_LICENSE("GPL");
EOF
cat >"$tmp/Kbuild" <<EOF
obj-m := v9pk.o
v9pk-y := v9pk_main.o $objs
ccflags-y := -Wframe-larger-than=512
EOF

for series in "$@"; do
	env=$cache/kernels/$series/env
	if [ ! -f "$env" ]; then
		echo "not ok - proto builds as kernel code for $series # SKIP no kernel in $cache (tests/vm/kernel.sh $series)"
		continue
	fi
	KDIR=$(sed -n 's/^KDIR=//p' "$env")
	make -s -C "$KDIR" M="$tmp" clean >/dev/null 2>&1
	if make -s -C "$KDIR" M="$tmp" W=1 $sparse modules >"$tmp/log" 2>&1 &&
	   ! grep -E 'warning:|error:' "$tmp/log" | grep -v 'modpost' >/dev/null; then
		echo "ok - proto builds as kernel code for $series with $what, frames under 512 bytes"
	else
		echo "not ok - proto builds as kernel code for $series"
		sed 's/^/# /' "$tmp/log" | head -n 40
		status=1
	fi
done

cp=$cache/linux-source/scripts/checkpatch.pl
if [ -x "$cp" ] || [ -f "$cp" ]; then
	bad=0
	for f in "$top"/proto/*.[ch]; do
		out=$(perl "$cp" --strict --no-tree --file "$f" 2>&1)
		if ! printf '%s\n' "$out" | grep -q 'total: 0 errors, 0 warnings, 0 checks'; then
			printf '%s\n' "$out" | sed 's/^/# /' | head -n 20
			bad=1
		fi
	done
	if [ $bad -eq 0 ]; then
		echo "ok - checkpatch --strict is clean on proto/"
	else
		echo "not ok - checkpatch --strict is clean on proto/"
		status=1
	fi
else
	echo "ok - checkpatch --strict on proto/ # SKIP no $cp"
fi
exit $status
