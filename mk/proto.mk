# proto/: the 9P wire codec. Host unit tests and libFuzzer targets.
#
# Unit tests are built with ASan/UBSan as well, so an out-of-bounds access in
# the codec fails the test even where the assertion would not notice.
#
# proto_vectors    byte-exact messages of every type and dialect, truncations
# proto_reject     hostile input: counts, lengths, NULs, nesting, headers
# proto_roundtrip  random messages of every type: pack, unpack, pack again
# proto_errors     error strings <-> errno, version strings, type names
#
# Fuzz targets (build/fuzz/<name>, corpus tests/fuzz/corpus/<name>/):
# proto_unpack_9p, proto_unpack_u, proto_unpack_l, proto_stat, proto_dirent

PROTO_UNIT := proto_vectors proto_reject proto_roundtrip proto_errors
PROTO_FUZZ := proto_unpack_9p proto_unpack_u proto_unpack_l proto_stat proto_dirent

PROTO_TEST_CFLAGS := $(HOST_CFLAGS) -Itests/unit -fsanitize=address,undefined \
	-fno-sanitize-recover=all

UNIT_TESTS += $(addprefix $(BUILD)/unit/,$(PROTO_UNIT))
FUZZ_TARGETS += $(addprefix $(BUILD)/fuzz/,$(PROTO_FUZZ))

$(BUILD)/unit/proto_%: tests/unit/proto_%.c tests/unit/tap.h $(PROTO_SRCS) $(PROTO_HDRS)
	@mkdir -p $(@D)
	$(CC) $(PROTO_TEST_CFLAGS) -o $@ $< $(PROTO_SRCS)

# One source per fuzz family; the dialect is a macro.
$(BUILD)/fuzz/proto_unpack_9p: tests/fuzz/proto_unpack.c $(PROTO_SRCS) $(PROTO_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -DFUZZ_DIALECT=V9P_9P2000 -o $@ $< $(PROTO_SRCS)

$(BUILD)/fuzz/proto_unpack_u: tests/fuzz/proto_unpack.c $(PROTO_SRCS) $(PROTO_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -DFUZZ_DIALECT=V9P_9P2000U -o $@ $< $(PROTO_SRCS)

$(BUILD)/fuzz/proto_unpack_l: tests/fuzz/proto_unpack.c $(PROTO_SRCS) $(PROTO_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -DFUZZ_DIALECT=V9P_9P2000L -o $@ $< $(PROTO_SRCS)

$(BUILD)/fuzz/proto_stat: tests/fuzz/proto_stat.c $(PROTO_SRCS) $(PROTO_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(PROTO_SRCS)

$(BUILD)/fuzz/proto_dirent: tests/fuzz/proto_dirent.c $(PROTO_SRCS) $(PROTO_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(PROTO_SRCS)

.PHONY: proto-unit proto-fuzz proto-fuzz-smoke proto-kcheck
proto-unit: $(addprefix $(BUILD)/unit/,$(PROTO_UNIT))
	@tests/run-tap.sh proto $^

# FUZZ_SECONDS per target; run.sh prints one TAP line per target.
proto-fuzz: $(addprefix $(BUILD)/fuzz/,$(PROTO_FUZZ))
	@tests/fuzz/run.sh $(or $(FUZZ_SECONDS),60) $^

proto-fuzz-smoke: $(addprefix $(BUILD)/fuzz/,$(PROTO_FUZZ))
	@tests/fuzz/run.sh $(or $(FUZZ_SECONDS),4) $^

# Compile proto/ as a scratch kernel module against each cached kernel (W=1),
# never loaded: checks that the codec is kernel code.
proto-kcheck:
	@tests/unit/proto_kcheck.sh $(KERNELS)
