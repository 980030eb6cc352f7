# mount.9P, the mount helper of the 9P file system (tools/), and its host test.
#
# build/bin/mount.9P         host build
# build/guest/bin/mount.9P   static build for the guest's /v9fs/bin
# build/unit/mount_helper    host test of its source and option parsing (TAP)

MOUNT9P_SRCS := tools/mount.9P.c tools/mount9p_opts.c
MOUNT9P_DEPS := $(MOUNT9P_SRCS) tools/mount9p.h

$(BUILD)/bin/mount.9P: $(MOUNT9P_DEPS)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -o $@ $(MOUNT9P_SRCS)

# static: glibc's getaddrinfo still reads /etc/hosts without loading a module
$(BUILD)/guest/bin/mount.9P: $(MOUNT9P_DEPS)
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) -o $@ $(MOUNT9P_SRCS)

GUEST_PROGS += $(BUILD)/guest/bin/mount.9P

$(BUILD)/unit/mount_helper: tests/unit/mount_helper.c tools/mount9p_opts.c tools/mount9p.h
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -Itools -Itests/unit -o $@ $< tools/mount9p_opts.c

UNIT_TESTS += $(BUILD)/unit/mount_helper

.PHONY: mount-helper mount-helper-unit
mount-helper: $(BUILD)/bin/mount.9P $(BUILD)/guest/bin/mount.9P
mount-helper-unit: $(BUILD)/unit/mount_helper
	@tests/run-tap.sh unit $(BUILD)/unit/mount_helper
