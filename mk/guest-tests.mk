# Guest test programs and benchmarks (static, copied into the guest's /v9fs/bin).
#
# posix-suite  POSIX file-operation suite, prints TAP (tests/guest/posix.c)
# fsx          randomized file-operation checker against a shadow copy (tests/guest/fsx.c)
# mmap-check   compares a read-only / private mapping with read(2) (tests/guest/mmap_check.c)
# hostile-9p   a 9P server that misbehaves on purpose (tests/guest/hostile.c, links proto/)
# v9bench      timed workloads for bench/run.sh (bench/v9bench.c)
# fdmount      mounts trans=fd on a socketpair with `v9fsd -s` on the other end (tests/guest/fdmount.c)
# ioprobe      one open/read/write/O_DIRECT/AIO call, prints the errno as a number (tests/guest/ioprobe.c)
# lockrun      runs a command while holding a flock(2) or fcntl(2) lock (tests/guest/lockrun.c)
# lprobe       one stat/readlink/statfs/getdents/read-all call, prints the errno (tests/guest/lprobe.c)
# cachebind    brings up a cachefiles cache and holds it, cachefilesd without culling (tests/guest/cachebind.c)
# trunc-race   ftruncate(2) or open(O_TRUNC) beside a writing shared mapping: the server keeps the new size (tests/guest/trunc_race.c)
# map-ro       a read-only shared mapping of a file open for writing: made, coherent, never writable (tests/guest/map_ro.c)
# wb-hold      dirties a file's pages, or pokes their write-back, a step per SIGUSR1 (tests/guest/wb_hold.c)
# size-race    fstat(2) answered after a write(2) with the old size, under a shared mapping (tests/guest/size_race.c)
# dirino       each directory entry's d_ino beside its st_ino (tests/guest/dirino.c)
# tmpfile      O_TMPFILE made, used, linked or dropped, prints TAP (tests/guest/tmpfile.c)
# idmap        an idmapped clone of a mount, and file operations as a given uid (tests/guest/idmap.c)

GUEST_BIN := $(BUILD)/guest/bin

GUEST_TEST_PROGS := $(GUEST_BIN)/posix-suite $(GUEST_BIN)/fsx $(GUEST_BIN)/mmap-check \
	$(GUEST_BIN)/v9bench $(GUEST_BIN)/fdmount $(GUEST_BIN)/ioprobe $(GUEST_BIN)/lockrun \
	$(GUEST_BIN)/lprobe $(GUEST_BIN)/cachebind $(GUEST_BIN)/trunc-race $(GUEST_BIN)/map-ro \
	$(GUEST_BIN)/wb-hold \
	$(GUEST_BIN)/size-race
GUEST_TEST_PROGS += $(GUEST_BIN)/dirino
GUEST_TEST_PROGS += $(GUEST_BIN)/tmpfile
GUEST_TEST_PROGS += $(GUEST_BIN)/idmap
# hostile-9p needs the proto/ codec; build it once proto/v9p.h exists.
ifneq ($(wildcard proto/v9p.h),)
GUEST_TEST_PROGS += $(GUEST_BIN)/hostile-9p
endif

GUEST_PROGS += $(GUEST_TEST_PROGS)

.PHONY: guest-progs guest-tests
guest-progs: $(GUEST_PROGS)
guest-tests: $(GUEST_TEST_PROGS)

$(GUEST_BIN)/posix-suite: tests/guest/posix.c
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) -o $@ $<

$(GUEST_BIN)/fsx: tests/guest/fsx.c
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) -o $@ $<

$(GUEST_BIN)/mmap-check: tests/guest/mmap_check.c
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) -o $@ $<

$(GUEST_BIN)/hostile-9p: tests/guest/hostile.c $(PROTO_SRCS) $(PROTO_HDRS)
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) -o $@ tests/guest/hostile.c $(PROTO_SRCS)

$(GUEST_BIN)/v9bench: bench/v9bench.c
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) -o $@ $<

$(GUEST_BIN)/fdmount: tests/guest/fdmount.c
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) -o $@ $<

$(GUEST_BIN)/ioprobe: tests/guest/ioprobe.c
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) -o $@ $<

$(GUEST_BIN)/lockrun: tests/guest/lockrun.c
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) -o $@ $<

$(GUEST_BIN)/lprobe: tests/guest/lprobe.c
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) -o $@ $<

$(GUEST_BIN)/cachebind: tests/guest/cachebind.c
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) -o $@ $<

$(GUEST_BIN)/trunc-race: tests/guest/trunc_race.c
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) -pthread -o $@ $<

$(GUEST_BIN)/map-ro: tests/guest/map_ro.c
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) -o $@ $<

$(GUEST_BIN)/wb-hold: tests/guest/wb_hold.c
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) -o $@ $<

$(GUEST_BIN)/size-race: tests/guest/size_race.c
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) -pthread -o $@ $<

$(GUEST_BIN)/dirino: tests/guest/dirino.c
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) -o $@ $<

$(GUEST_BIN)/tmpfile: tests/guest/tmpfile.c
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) -o $@ $<

$(GUEST_BIN)/idmap: tests/guest/idmap.c
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) -o $@ $<
