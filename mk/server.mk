# v9fsd, the user-space 9P server (server/), its host tests and fuzz target.
#
# build/bin/v9fsd          host build (used by the unit tests and `make run`)
# build/guest/bin/v9fsd    static build for the guest's /v9fs/bin
# build/bin/v9fsd-asan     the same under AddressSanitizer and UBSan (the -asan tests)
# build/unit/server_*      host tests (TAP), each drives v9fsd -s over a socketpair
#                          or a daemon's sockets; server_bench is a latency probe

SERVER_SRCS := $(sort $(wildcard server/*.c))
SERVER_HDRS := $(wildcard server/*.h)
SERVER_DEPS := $(SERVER_SRCS) $(SERVER_HDRS) $(PROTO_SRCS) $(PROTO_HDRS)

$(BUILD)/bin/v9fsd: $(SERVER_DEPS)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -pthread -o $@ $(SERVER_SRCS) $(PROTO_SRCS)

$(BUILD)/guest/bin/v9fsd: $(SERVER_DEPS)
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) -pthread -o $@ $(SERVER_SRCS) $(PROTO_SRCS)

GUEST_PROGS += $(BUILD)/guest/bin/v9fsd

# Host tests: tests/unit/server_<name>.c plus the shared client helper.
SERVER_TEST_SRCS := $(filter-out tests/unit/server_client.c tests/unit/server_bench.c,\
	$(wildcard tests/unit/server_*.c))
SERVER_TESTS := $(patsubst tests/unit/%.c,$(BUILD)/unit/%,$(SERVER_TEST_SRCS))

$(BUILD)/unit/server_%: tests/unit/server_%.c tests/unit/server_client.c \
		tests/unit/server_client.h $(PROTO_SRCS) $(PROTO_HDRS) $(BUILD)/bin/v9fsd
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -Itests/unit -DV9FSD_BIN='"$(abspath $(BUILD)/bin/v9fsd)"' \
		-pthread -o $@ $< tests/unit/server_client.c $(PROTO_SRCS)

# The attack and limits tests once more with every server under -o serial
# (one request at a time per connection): the same sources, built with
# TC_SERVER_OPT, which tests/unit/server_client.c adds to each v9fsd it starts.
SERVER_SERIAL_TESTS := $(BUILD)/unit/server_attack-serial $(BUILD)/unit/server_limits-serial

$(BUILD)/unit/server_%-serial: tests/unit/server_%.c tests/unit/server_client.c \
		tests/unit/server_client.h $(PROTO_SRCS) $(PROTO_HDRS) $(BUILD)/bin/v9fsd
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -Itests/unit -DV9FSD_BIN='"$(abspath $(BUILD)/bin/v9fsd)"' \
		-DTC_SERVER_OPT='"serial"' -pthread -o $@ $< tests/unit/server_client.c $(PROTO_SRCS)

SERVER_TESTS += $(SERVER_SERIAL_TESTS)

# server/ files call each other one way only (nm over each file's object).
SERVER_TESTS += tests/unit/server_layers.sh

# The attack tests once more against v9fsd built with AddressSanitizer and
# UndefinedBehaviorSanitizer (build/bin/v9fsd-asan): the same sources, with
# V9FSD_BIN pointing there. build/unit/server_<name>-asan is a small script
# that runs build/unit/asan/server_<name> with every server's reports going
# to files; the first error aborts that server (which the test sees as a
# server gone), and any report at all adds a failing TAP line.
SERVER_ASAN_CFLAGS := $(HOST_CFLAGS) -O1 -fno-omit-frame-pointer \
	-fsanitize=address,undefined -fno-sanitize-recover=all
SERVER_ASAN_NAMES := server_attack server_limits server_exhaust \
	$(if $(wildcard tests/unit/server_privilege.c),server_privilege)
SERVER_ASAN_TESTS := $(patsubst %,$(BUILD)/unit/%-asan,$(SERVER_ASAN_NAMES))
SERVER_ASAN_ENV := halt_on_error=1:abort_on_error=1:detect_leaks=0:quarantine_size_mb=1:allocator_release_to_os_interval_ms=100

$(BUILD)/bin/v9fsd-asan: $(SERVER_DEPS)
	@mkdir -p $(@D)
	$(CC) $(SERVER_ASAN_CFLAGS) -pthread -o $@ $(SERVER_SRCS) $(PROTO_SRCS)

$(BUILD)/unit/asan/server_%: tests/unit/server_%.c tests/unit/server_client.c \
		tests/unit/server_client.h $(PROTO_SRCS) $(PROTO_HDRS) $(BUILD)/bin/v9fsd-asan
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -Itests/unit -DV9FSD_BIN='"$(abspath $(BUILD)/bin/v9fsd-asan)"' \
		-pthread -o $@ $< tests/unit/server_client.c $(PROTO_SRCS)

$(BUILD)/unit/server_%-asan: $(BUILD)/unit/asan/server_%
	@printf '%s\n' '#!/bin/sh' \
		'# made by mk/server.mk: $(<F) against v9fsd-asan' \
		'd=$$(mktemp -d) || exit 1' \
		'ASAN_OPTIONS=$(SERVER_ASAN_ENV):log_path=$$d/report \' \
		'UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:log_path=$$d/report \' \
		'	$(abspath $<); rc=$$?' \
		'if ls "$$d"/report* > /dev/null 2>&1; then' \
		'	sed "s/^/# /" "$$d"/report*' \
		'	echo "not ok - v9fsd-asan reported an error (above)"; rc=1' \
		'fi' \
		'rm -rf "$$d"; exit $$rc' > $@
	@chmod +x $@

# the programs the scripts run are kept, not removed as intermediates
.SECONDARY: $(patsubst %,$(BUILD)/unit/asan/%,$(SERVER_ASAN_NAMES))

SERVER_TESTS += $(SERVER_ASAN_TESTS)
UNIT_TESTS += $(SERVER_TESTS)

# A host-side latency probe against v9fsd or diod (not a test): tests/unit/server_bench.c.
.PHONY: server-bench
server-bench: $(BUILD)/unit/server_bench

.PHONY: v9fsd server-unit
v9fsd: $(BUILD)/bin/v9fsd $(BUILD)/guest/bin/v9fsd
server-unit: $(SERVER_TESTS)
	@tests/run-tap.sh unit $(SERVER_TESTS)

# Fuzz target: the whole request path in-process (no main.c, no listeners).
SERVER_FUZZ_SRCS := $(filter-out server/main.c server/listen.c,$(SERVER_SRCS))

$(BUILD)/fuzz/server_dispatch: tests/fuzz/server_dispatch.c $(SERVER_DEPS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Iserver -pthread -o $@ $< $(SERVER_FUZZ_SRCS) $(PROTO_SRCS)

# The same stream on up to four connections at once, pipelined: races.
$(BUILD)/fuzz/server_race: tests/fuzz/server_race.c $(SERVER_DEPS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Iserver -pthread -o $@ $< $(SERVER_FUZZ_SRCS) $(PROTO_SRCS)

FUZZ_TARGETS += $(BUILD)/fuzz/server_dispatch $(BUILD)/fuzz/server_race

.PHONY: server-fuzz
server-fuzz: $(BUILD)/fuzz/server_dispatch $(BUILD)/fuzz/server_race
	@tests/fuzz/run.sh $(or $(FUZZ_SECONDS),60) $^

# server_qid also calls v9fsd's qid mapping directly: server/qid.c is linked in.
$(BUILD)/unit/server_qid: tests/unit/server_qid.c server/qid.c tests/unit/server_client.c \
		tests/unit/server_client.h $(SERVER_HDRS) $(PROTO_SRCS) $(PROTO_HDRS) $(BUILD)/bin/v9fsd
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -Itests/unit -Iserver -DV9FSD_BIN='"$(abspath $(BUILD)/bin/v9fsd)"' \
		-pthread -o $@ $< server/qid.c tests/unit/server_client.c $(PROTO_SRCS)

# v9fsd --version prints the release the VERSION file names
V9FSD_VERSION_DEF := -DV9FSD_VERSION='"$(strip $(file < VERSION))"'
$(BUILD)/bin/v9fsd: HOST_CFLAGS += $(V9FSD_VERSION_DEF)
$(BUILD)/guest/bin/v9fsd: GUEST_CFLAGS += $(V9FSD_VERSION_DEF)
$(BUILD)/bin/v9fsd-asan: SERVER_ASAN_CFLAGS += $(V9FSD_VERSION_DEF)
$(BUILD)/bin/v9fsd $(BUILD)/guest/bin/v9fsd $(BUILD)/bin/v9fsd-asan: VERSION
