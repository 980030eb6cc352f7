# Installation: v9fsd with its man page, systemd unit and default config, the
# mount-options man page, and the module's source tree for DKMS.
#
# make install [PREFIX=/usr/local] [DESTDIR=]   v9fsd, both man pages, the unit, the config
# make install-v9fsd                            the same without the module's man page
# make install-mount-helper                     mount.9P (SBINDIR) and its man page
# make install-dkms [DESTDIR=]                  /usr/src/9p2000-VERSION (then: dkms install 9p2000/VERSION)
# make uninstall / uninstall-dkms               remove what the above installed
#
# The installed v9fsd is build/install/v9fsd, compiled with the caller's CPPFLAGS,
# CFLAGS and LDFLAGS appended to the usual flags (Debian's hardening flags come in
# that way); the test binary build/bin/v9fsd is left as it is.

V9FS_VERSION := $(strip $(file < VERSION))

PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
# /usr's configuration lives in /etc, anything else's beside it
SYSCONFDIR ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)
SYSTEMD_PC_UNITDIR := $(shell pkg-config --variable=systemdsystemunitdir systemd 2> /dev/null)
SYSTEMD_USR_UNITDIR := $(or $(SYSTEMD_PC_UNITDIR),/lib/systemd/system)
SYSTEMDUNITDIR ?= $(if $(filter /usr,$(PREFIX)),$(SYSTEMD_USR_UNITDIR),$(PREFIX)/lib/systemd/system)
# DKMS looks for sources only here, whatever the prefix
DKMS_SRCDIR ?= /usr/src/9p2000-$(V9FS_VERSION)

INSTALL ?= install

INSTALL_BIN := $(BUILD)/install/v9fsd
# The module's sources, as Kbuild names them (mk/kernel.mk reads it, after this file).
DKMS_SOURCES = $(sort $(MODULE_SRCS) $(wildcard module/*.h module/*/*.h) $(PROTO_HDRS))

$(INSTALL_BIN): $(wildcard server/*.c server/*.h proto/*.c proto/*.h)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $(V9FSD_VERSION_DEF) $(CPPFLAGS) $(CFLAGS) -pthread $(LDFLAGS) -o $@ \
		$(SERVER_SRCS) $(PROTO_SRCS)

$(INSTALL_BIN): VERSION

# mount.9P with the caller's flags too
INSTALL_MOUNT9P := $(BUILD)/install/mount.9P

$(INSTALL_MOUNT9P): $(wildcard tools/mount.9P.c tools/mount9p_opts.c tools/mount9p.h)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $(MOUNT9P_SRCS)

# The unit names the binary and the config file by their /usr paths; other
# prefixes get them rewritten.
UNIT_SED := -e 's|/usr/sbin/v9fsd|$(SBINDIR)/v9fsd|g' -e 's|/etc/default/v9fsd|$(SYSCONFDIR)/default/v9fsd|g'

.PHONY: install-bin install-v9fsd install-man5 install-dkms uninstall uninstall-dkms
.PHONY: install-mount-helper
install-bin: $(INSTALL_BIN) $(INSTALL_MOUNT9P)

install-v9fsd: $(INSTALL_BIN)
	$(INSTALL) -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(MANDIR)/man8 \
		$(DESTDIR)$(SYSTEMDUNITDIR) $(DESTDIR)$(SYSCONFDIR)/default
	$(INSTALL) -m 755 $(INSTALL_BIN) $(DESTDIR)$(SBINDIR)/v9fsd
	$(INSTALL) -m 644 docs/v9fsd.8 $(DESTDIR)$(MANDIR)/man8/v9fsd.8
	sed $(UNIT_SED) dist/v9fsd.service > $(DESTDIR)$(SYSTEMDUNITDIR)/v9fsd.service
	chmod 644 $(DESTDIR)$(SYSTEMDUNITDIR)/v9fsd.service
	sed $(UNIT_SED) dist/v9fsd@.service > $(DESTDIR)$(SYSTEMDUNITDIR)/v9fsd@.service
	chmod 644 $(DESTDIR)$(SYSTEMDUNITDIR)/v9fsd@.service
	$(INSTALL) -m 644 dist/v9fsd.socket $(DESTDIR)$(SYSTEMDUNITDIR)/v9fsd.socket
	$(INSTALL) -m 644 dist/v9fsd.default $(DESTDIR)$(SYSCONFDIR)/default/v9fsd

# mount(8) runs /sbin/mount.TYPE: with PREFIX=/usr on a merged-/usr system
# (/sbin is /usr/sbin) SBINDIR is found; elsewhere link it into /sbin.
install-mount-helper: $(INSTALL_MOUNT9P)
	$(INSTALL) -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(MANDIR)/man8
	$(INSTALL) -m 755 $(INSTALL_MOUNT9P) $(DESTDIR)$(SBINDIR)/mount.9P
	$(INSTALL) -m 644 docs/mount.9P.8 $(DESTDIR)$(MANDIR)/man8/mount.9P.8

install-man5:
	$(INSTALL) -d $(DESTDIR)$(MANDIR)/man5
	$(INSTALL) -m 644 docs/9p2000.5 $(DESTDIR)$(MANDIR)/man5/9p2000.5

install: install-v9fsd install-man5 install-mount-helper

# The DKMS tree: the Kbuild, the sources it names at its paths, the version
# file it reads, and dkms.conf with its version filled in; the layout of the
# repository, so that the kernel's make builds it in place as it does a clone.
install-dkms:
	$(INSTALL) -d $(DESTDIR)$(DKMS_SRCDIR)/proto \
		$(addprefix $(DESTDIR)$(DKMS_SRCDIR)/,$(sort $(dir $(filter module/%,$(DKMS_SOURCES)))))
	$(INSTALL) -m 644 Kbuild $(DESTDIR)$(DKMS_SRCDIR)/Kbuild
	$(INSTALL) -m 644 VERSION $(DESTDIR)$(DKMS_SRCDIR)/VERSION
	sed 's/#MODULE_VERSION#/$(V9FS_VERSION)/' dkms.conf > $(DESTDIR)$(DKMS_SRCDIR)/dkms.conf
	chmod 644 $(DESTDIR)$(DKMS_SRCDIR)/dkms.conf
	for f in $(filter module/%,$(DKMS_SOURCES)); do \
		$(INSTALL) -m 644 $$f $(DESTDIR)$(DKMS_SRCDIR)/$$f || exit 1; \
	done
	$(INSTALL) -m 644 $(filter proto/%,$(DKMS_SOURCES)) $(DESTDIR)$(DKMS_SRCDIR)/proto/

uninstall:
	rm -f $(DESTDIR)$(SBINDIR)/v9fsd $(DESTDIR)$(MANDIR)/man8/v9fsd.8 \
		$(DESTDIR)$(MANDIR)/man5/9p2000.5 $(DESTDIR)$(SYSTEMDUNITDIR)/v9fsd.service \
		$(DESTDIR)$(SYSTEMDUNITDIR)/v9fsd@.service $(DESTDIR)$(SYSTEMDUNITDIR)/v9fsd.socket \
		$(DESTDIR)$(SBINDIR)/mount.9P $(DESTDIR)$(MANDIR)/man8/mount.9P.8 \
		$(DESTDIR)$(SYSCONFDIR)/default/v9fsd

uninstall-dkms:
	rm -rf $(DESTDIR)$(DKMS_SRCDIR)
