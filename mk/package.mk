# Packaging: Debian packages, the DKMS build check, the generated man page and
# the host tests of all three (tests/pkg/).
#
# make deb         9p2000-dkms and v9fsd .debs in build/deb, lintian-checked
# make dkms-check  dkms build in a scratch DKMS tree for every kernel in KERNELS,
#                  compared with `make module` (builds only; nothing is installed)
# make man         regenerate docs/9p2000.5 from docs/mount-options.md
# make pkg-test    the quick packaging tests (TAP): man pages, versions, make install

# The module's version comes from VERSION (module/Kbuild reads it).
$(foreach k,$(KERNELS),$(BUILD)/$(k)/9p2000.ko): VERSION

.PHONY: deb dkms-check man pkg-test
deb:
	@dist/build-deb.sh

dkms-check: module
	@tests/pkg/dkms-check.sh $(KERNELS)

man: docs/9p2000.5

docs/9p2000.5: docs/mount-options.md dist/mount-options-man.py VERSION
	dist/mount-options-man.py docs/mount-options.md $(V9FS_VERSION) > $@.tmp
	mv $@.tmp $@

pkg-test:
	@tests/pkg/pkg-test.sh
