#!/bin/bash
# run.sh SERIES: the main job. Boot a guest, serve /export with v9fsd, mount it
# with our client, show it working, then run CMD / SCRIPT if given, or give a
# shell when stdin is a terminal.
set -euo pipefail
series=${1:?usage: run.sh SERIES}
top=$(cd "$(dirname "$0")/../.." && pwd)
extra=$top/build/$series/vm/extra.cpio.gz
mkdir -p "$(dirname "$extra")"
V9FS_CMD=${CMD:-} V9FS_SCRIPT=${SCRIPT:-} "$top/tests/vm/initramfs.sh" extra "$extra" ${HOSTPROGS:-}
interactive=0
if [ -t 0 ] && [ -t 1 ] && [ -z "${CMD:-}" ] && [ -z "${SCRIPT:-}" ]; then
	interactive=1
fi
echo "run: booting Debian's $series kernel in QEMU (software emulation, ~20 s)..."
V9FS_MODE=run V9FS_EXTRA=$extra V9FS_INTERACTIVE=$interactive V9FS_TIMEOUT=${TIMEOUT:-86400} \
	exec "$top/tests/vm/run-guest.sh" "$series"
