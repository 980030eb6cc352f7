# The debug-kernel gate: Debian's 6.12 source built with KASAN, KFENCE, lockdep,
# kmemleak, UBSAN and list/object debugging (tests/vm/debug.config), once, into
# $V9FS_CACHE/kernels/6.12-debug; then every guest suite on it, both clients side
# by side, and a kmemleak scan after the last umount and after rmmod (99-kmemleak).
#   make debug-kernel                  build (or reuse) the debug kernel
#   make debug-check [SUITES=a,b]      boot it and run the client suites
DEBUG_SERIES := 6.12-debug

.PHONY: debug-kernel debug-check
debug-kernel:
	@tests/vm/kernel.sh $(DEBUG_SERIES) > /dev/null

debug-check: setup debug-kernel
	@$(MAKE) --no-print-directory KERNELS=$(DEBUG_SERIES) all \
		$(BUILD)/guest/base.cpio.gz $(BUILD)/$(DEBUG_SERIES)/modules.cpio.gz
	@tests/vm/debug-check.sh
