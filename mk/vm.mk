# Guest images and runs. The userland archive is shared by every kernel; each
# kernel adds one small archive with its modules.
GUEST_INPUTS := tests/vm/init tests/vm/klog-bad tests/vm/initramfs.sh $(shell find tests/guest tests/vm/selftest bench -type f 2>/dev/null)

$(BUILD)/guest/base.cpio.gz: $(GUEST_PROGS) $(GUEST_INPUTS)
	@mkdir -p $(@D)
	tests/vm/initramfs.sh base $@

$(BUILD)/%/modules.cpio.gz: $(BUILD)/%/9p2000.ko tests/vm/initramfs.sh
	tests/vm/initramfs.sh modules $* $@

GUEST_IMAGES = $(BUILD)/guest/base.cpio.gz $(foreach k,$(KERNELS),$(BUILD)/$(k)/modules.cpio.gz)

# make guest [KERNELS=6.1] [SUITES=50-posix,60-faults]: one boot per kernel.
guest: $(GUEST_IMAGES)
	@tests/vm/guest-all.sh

# make soak [KERNELS=6.1] [SUITES=70-fsx]: the guest suites with the long counts that
# make check shortens (fsx of the in-tree reference client, directory sizes),
# each suite's timeout doubled.
soak: $(GUEST_IMAGES)
	@V9FS_FULL=1 V9FS_TSCALE=2 V9FS_TIMEOUT=$${V9FS_TIMEOUT:-4800} tests/vm/guest-all.sh

# make run [CMD='...'] [SCRIPT=file] [HOSTPROGS='fio ...'] [KERNEL=6.12]
KERNEL ?= $(firstword $(KERNELS))
run: setup
	@$(MAKE) --no-print-directory KERNELS=$(KERNEL) $(BUILD)/guest/base.cpio.gz $(BUILD)/$(KERNEL)/modules.cpio.gz
	@tests/vm/run.sh $(KERNEL)

# make bench [KERNEL=6.1 | KERNELS='6.1 6.12'] [SECTIONS="virtiofs nfs"] [BENCH_ROUNDS=N]:
# side-by-side figures, one boot per kernel, one kernel after the other (every
# kernel by default). SECTIONS picks bench/run.sh's sections (default: main serial
# virtio loose); virtiofs and nfs, the anchors, boot with one more archive
# (initramfs.sh anchors) and, for virtiofs, two virtiofsd beside QEMU.
BENCH_KERNELS = $(if $(filter command line,$(origin KERNEL)),$(KERNEL),$(KERNELS))
BENCH_SECTIONS_ARG = $(subst $(eval) ,$(comma),$(strip $(SECTIONS)))
BENCH_ANCHORS = $(filter virtiofs nfs,$(SECTIONS))
comma := ,
bench: setup
	@$(MAKE) --no-print-directory KERNELS="$(BENCH_KERNELS)" $(BUILD)/guest/base.cpio.gz \
		$(foreach k,$(BENCH_KERNELS),$(BUILD)/$(k)/modules.cpio.gz)
	@for k in $(BENCH_KERNELS); do \
		extra=; \
		if [ -n "$(BENCH_ANCHORS)" ]; then \
			extra=$(BUILD)/$$k/anchors.cpio.gz; \
			tests/vm/initramfs.sh anchors $$k $$extra "$(BENCH_SECTIONS_ARG)" || exit 1; \
		fi; \
		V9FS_MODE=bench V9FS_TIMEOUT=$(if $(BENCH_ANCHORS),$$((3000 + 2400 * $(words $(BENCH_ANCHORS)))),3000) \
			V9FS_EXTRA=$$extra V9FS_BENCH_SECTIONS="$(BENCH_SECTIONS_ARG)" \
			V9FS_BENCH_ROUNDS="$(BENCH_ROUNDS)" tests/vm/run-guest.sh $$k || exit 1; \
	done

# Proof that the harness fails on a failing test, a panic and a hang.
selftest: $(BUILD)/guest/base.cpio.gz $(BUILD)/$(firstword $(KERNELS))/modules.cpio.gz
	@tests/vm/selftest.sh $(firstword $(KERNELS))

# make bench-ab BASE=<rev> [KERNEL=6.12 | KERNELS='6.1 6.12'] [ROUNDS=3] [BENCH_QUICK=1]
# [BENCH_SECTIONS=main,serial] [BENCH_WORKLOADS=seqwrite,stat] [SWAP=server|client]:
# our client and v9fsd at BASE against the work tree's, interleaved in one boot per
# kernel (tests/vm/bench-ab.sh, bench/ab.sh); SWAP=server takes only v9fsd from BASE,
# SWAP=client only the module (default both).
.PHONY: bench-ab
bench-ab: setup
	@test -n "$(BASE)" || { echo "make bench-ab: BASE=<git revision> is required" >&2; exit 2; }
	@$(MAKE) --no-print-directory KERNELS="$(BENCH_KERNELS)" $(BUILD)/guest/base.cpio.gz \
		$(foreach k,$(BENCH_KERNELS),$(BUILD)/$(k)/modules.cpio.gz)
	@V9FS_AB_ROUNDS=$(or $(ROUNDS),3) V9FS_AB_QUICK=$(BENCH_QUICK) \
		V9FS_AB_SECTIONS=$(BENCH_SECTIONS) V9FS_AB_WORKLOADS=$(BENCH_WORKLOADS) \
		V9FS_AB_SWAP=$(SWAP) tests/vm/bench-ab.sh $(BASE) $(BENCH_KERNELS)
