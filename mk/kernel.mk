# Kernel module: one 9p2000.ko per kernel series, and its lint.
#
# Kbuild (read by the kernel's make) names the module's objects; outside the
# kernel's make it defines only those lists, which this make reads.
include Kbuild
MODULE_SRCS := $(patsubst %.o,%.c,$(ninep-objects) $(ninep-objects-virtio) \
	$(ninep-objects-fscache))
MODULE_INPUTS := $(MODULE_SRCS) $(wildcard module/*.h module/*/*.h) $(PROTO_HDRS) Kbuild VERSION

module: $(foreach k,$(KERNELS),$(BUILD)/$(k)/9p2000.ko)

# The client core hands its transports whole messages (make unit).
UNIT_TESTS += tests/unit/module_trans_shape.sh

# '+': the kernel's make takes its jobs from this make's job slots.
$(BUILD)/%/9p2000.ko: $(MODULE_INPUTS) tests/vm/build-module.sh
	+tests/vm/build-module.sh $*

# checkpatch (from Debian's linux-source-6.1) and sparse over module/ and proto/.
lint:
	@tests/vm/lint.sh $(KERNELS)

# 9p2000.ko built by the kernel's make in a fresh clone, for each kernel in KERNELS.
.PHONY: inplace-check
inplace-check:
	@tests/vm/inplace-check.sh $(KERNELS)
