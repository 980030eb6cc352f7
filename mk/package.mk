# Packaging: Debian packages, the DKMS build check, the generated man page and
# the host tests of all three (tests/pkg/).
#
# make deb         9p2000-dkms and v9fsd .debs in build/deb, lintian-checked
# make dkms-check  dkms build in a scratch DKMS tree for every kernel in KERNELS,
#                  compared with `make module` (builds only; nothing is installed)
# make man         regenerate docs/9p2000.5 from docs/mount-options.md
# make pkg-test    the quick packaging tests (TAP): man pages, versions, make install,
#                  the installed unit's v9fsd serving without systemd
# make deb-check   make deb, then the v9fsd package's unit run from the extracted .deb
# make syscall-check  the unit's SystemCallFilter= against what v9fsd calls (strace)
# make caps-check  the unit's CapabilityBoundingSet= against the server tests (setpriv)
# make deb-guest [KERNEL=6.12]  one boot: the packaged v9fsd, started from its unit
#                  in the guest, mounted with the in-tree client and with 9p2000.ko

# The module's version comes from VERSION (Kbuild reads it).
$(foreach k,$(KERNELS),$(BUILD)/$(k)/9p2000.ko): VERSION

.PHONY: deb deb-check deb-guest dkms-check man pkg-test syscall-check caps-check
deb:
	@dist/build-deb.sh

dkms-check: module
	@tests/pkg/dkms-check.sh $(KERNELS)

man: docs/9p2000.5

docs/9p2000.5: docs/mount-options.md dist/mount-options-man.py VERSION
	dist/mount-options-man.py docs/mount-options.md $(V9FS_VERSION) > $@.tmp
	mv $@.tmp $@

# A raw 9P client for the unit runs (tests/pkg/unit-run.sh).
$(BUILD)/pkg/serve-probe: tests/pkg/serve_probe.c tests/unit/server_client.c \
		tests/unit/server_client.h tests/unit/tap.h $(PROTO_SRCS) $(PROTO_HDRS)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -Itests/unit -pthread -o $@ $< tests/unit/server_client.c $(PROTO_SRCS)

pkg-test: $(BUILD)/pkg/serve-probe $(INSTALL_BIN)
	@tests/run-tap.sh pkg tests/pkg/pkg-test.sh

deb-check: deb $(BUILD)/pkg/serve-probe
	@tests/run-tap.sh deb tests/pkg/deb-check.sh

syscall-check:
	@tests/run-tap.sh syscalls tests/pkg/syscall-check.sh

caps-check:
	@tests/run-tap.sh caps tests/pkg/caps-check.sh

deb-guest: deb
	@rm -rf $(BUILD)/deb/root && mkdir -p $(BUILD)/deb/root $(BUILD)/pkg
	@dpkg-deb -x $(BUILD)/deb/v9fsd_$(V9FS_VERSION)_$(shell dpkg --print-architecture).deb \
		$(BUILD)/deb/root
	@tests/pkg/guest-script.sh $(BUILD)/deb/root > $(BUILD)/pkg/guest-unit.sh
	@$(MAKE) --no-print-directory run KERNEL=$(KERNEL) SCRIPT=$(BUILD)/pkg/guest-unit.sh \
		HOSTPROGS=$(abspath $(BUILD)/deb/root/usr/sbin/v9fsd)
