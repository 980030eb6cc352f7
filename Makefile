# v9fs: top-level build. `make run` and `make check` do all of their own set-up.
#
# Each area adds its own rules in mk/<area>.mk and appends to these lists:
#   UNIT_TESTS   host programs that print TAP (run by `make unit` and `make check`)
#   GUEST_PROGS  static programs copied into the guest's /v9fs/bin
#   FUZZ_TARGETS libFuzzer binaries; corpus in tests/fuzz/corpus/<name>/

V9FS_CACHE ?= $(HOME)/.cache/v9fs
KERNELS ?= 6.1 6.12
BUILD := build
export V9FS_CACHE KERNELS

CC := gcc
HOST_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Wno-unused-parameter -Iproto
GUEST_CFLAGS := $(HOST_CFLAGS) -static
FUZZ_CC := clang
FUZZ_CFLAGS := -std=gnu11 -g -O1 -Iproto -fsanitize=fuzzer,address,undefined

PROTO_SRCS := $(wildcard proto/*.c)
PROTO_HDRS := $(wildcard proto/*.h)

UNIT_TESTS :=
GUEST_PROGS :=
FUZZ_TARGETS :=

.PHONY: all setup module progs unit fuzz-smoke fuzz guest soak check run lint bench clean install deb dkms-check
all: module progs

include $(sort $(wildcard mk/*.mk))

setup:
	@tests/vm/setup-host.sh

progs: $(UNIT_TESTS) $(GUEST_PROGS)

unit: $(UNIT_TESTS)
	@tests/run-tap.sh unit $(UNIT_TESTS)

clean:
	rm -rf $(BUILD)

# What check.sh's host sections need beyond `all`, built before they run side
# by side (two makes never build one file at once).
CHECK_PREREQS = $(BUILD)/pkg/serve-probe $(INSTALL_BIN)

# Built with a job per core unless make was given its own -j.
CHECK_JOBS = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc))

check: setup
	@$(MAKE) --no-print-directory $(CHECK_JOBS) all $(FUZZ_TARGETS) $(GUEST_IMAGES) $(CHECK_PREREQS)
	@tests/check.sh

fuzz: $(FUZZ_TARGETS)
	@tests/fuzz/run.sh $${FUZZ_SECONDS:-120}
