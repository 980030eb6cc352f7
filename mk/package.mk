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

# The module's version comes from VERSION (module/Kbuild reads it).
$(foreach k,$(KERNELS),$(BUILD)/$(k)/9p2000.ko): VERSION

.PHONY: deb deb-check dkms-check man pkg-test syscall-check
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
