// SPDX-License-Identifier: GPL-2.0
/*
 * mount_helper.c - mount.9P's reading of its source and options
 * (tools/mount9p_opts.c), without mounting: which options reach the
 * kernel and in what form, which become mount flags, which are dropped,
 * which sources are refused and why, and names resolved to the numeric
 * address the kernel takes (from /etc/hosts: localhost; nothing here
 * leaves the host).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>

#include "mount9p.h"
#include "tap.h"

/* Parse, resolve, and give "SOURCE|DATA|FLAGS" or "error: ..." in out. */
static void run(const char *spec, const char *opts, char *out, size_t len)
{
	struct m9_mount m;
	char err[512], data[4096];

	if (m9_parse(spec, opts, &m, err, sizeof(err)) < 0 ||
	    m9_resolve(&m, err, sizeof(err)) < 0) {
		snprintf(out, len, "error: %s", err);
		m9_free(&m);
		return;
	}
	m9_data(&m, data, sizeof(data));
	snprintf(out, len, "%s|%s|%#lx", m.source, data, m.ms_flags);
	m9_free(&m);
}

static void is(const char *spec, const char *opts, const char *want, const char *what)
{
	char out[8192];

	run(spec, opts, out, sizeof(out));
	if (!tap_ok(!strcmp(out, want), "%s: '%s' -o '%s' gives '%s'", what, spec,
		    opts ? opts : "", want))
		tap_diag("got '%s'", out);
}

static void fails(const char *spec, const char *opts, const char *want, const char *what)
{
	char out[8192];

	run(spec, opts, out, sizeof(out));
	tap_ok(!strncmp(out, "error: ", 7) && strstr(out, want),
	       "%s: '%s' -o '%s' is refused, saying '%s' (got '%s')", what, spec,
	       opts ? opts : "", want, out);
}

int main(void)
{
	char flags[64], want[256];

	is("127.0.0.1:/srv", "port=5640,version=9p2000.L",
	   "127.0.0.1|port=5640,version=9p2000.L,aname=/srv,trans=tcp|0",
	   "a numeric IPv4 source: the path becomes aname=, trans=tcp added");
	is("[::1]:/", NULL, "::1|aname=/,trans=tcp|0", "a bracketed IPv6 address");
	is("[fe80::2]:/data", "trans=tcp", "fe80::2|trans=tcp,aname=/data|0",
	   "trans=tcp given is kept, not doubled");
	is("127.0.0.1:", NULL, "127.0.0.1|trans=tcp|0", "no path: no aname=");
	is("127.0.0.1:/a", "aname=/a", "127.0.0.1|aname=/a,trans=tcp|0",
	   "aname= that agrees with the path");
	is("127.0.0.1:/x", "proto=tcp", "127.0.0.1|proto=tcp,aname=/x|0",
	   "the seed's proto=tcp counts as the transport");

	{
		char out[8192];

		run("localhost:/srv", "port=564", out, sizeof(out));
		tap_ok(!strcmp(out, "127.0.0.1|port=564,aname=/srv,trans=tcp|0") ||
		       !strcmp(out, "::1|port=564,aname=/srv,trans=tcp|0"),
		       "localhost is resolved to its numeric address (got '%s')", out);
	}

	snprintf(flags, sizeof(flags), "%#lx", (unsigned long)(MS_RDONLY | MS_NOSUID | MS_NODEV |
								MS_NOEXEC | MS_NOATIME));
	snprintf(want, sizeof(want), "10.1.2.3|msize=65536,aname=/e,trans=tcp|%s", flags);
	is("10.1.2.3:/e", "_netdev,defaults,ro,nosuid,nodev,noexec,noatime,auto,noauto,user,users,"
	   "nofail,x-systemd.automount,x-systemd.idle-timeout=60,comment=systemd.automount,"
	   "msize=65536", want,
	   "mount(8)'s options are dropped, the generic ones become flags");
	snprintf(want, sizeof(want), "10.1.2.3|trans=tcp|%#lx", (unsigned long)MS_RELATIME);
	is("10.1.2.3:", "ro,rw,relatime", want, "a later rw undoes ro");

	is("unix:/run/v9fsd.sock", "version=9p2000.L",
	   "/run/v9fsd.sock|version=9p2000.L,trans=unix|0",
	   "unix:PATH is a unix socket, trans=unix added");
	is("/run/v9fsd.sock", "trans=unix", "/run/v9fsd.sock|trans=unix|0",
	   "-o trans=unix takes the source as the socket's path");
	is("/run/v9fsd.sock", "unix", "/run/v9fsd.sock|unix|0", "the seed's unix flag too");
	is("host0", "trans=virtio,version=9p2000.L", "host0|trans=virtio,version=9p2000.L|0",
	   "trans=virtio: the mount tag passes untouched");
	is("some:tag:with:colons", "trans=virtio", "some:tag:with:colons|trans=virtio|0",
	   "trans=virtio: a tag is never split or resolved");
	is("none", "trans=fd,rfdno=3,wfdno=4", "none|trans=fd,rfdno=3,wfdno=4|0",
	   "trans=fd passes untouched");

	fails("server", NULL, "HOST:/PATH, [IPV6ADDR]:/PATH or unix:/SOCKET expected",
	      "a source with no ':'");
	fails(":/srv", NULL, "no host before the ':'", "an empty host");
	fails("fe80::1:/srv", NULL, "an IPv6 address goes in brackets", "an IPv6 address bare");
	fails("[::1/srv", NULL, "[IPV6ADDR]:/PATH expected", "an unclosed bracket");
	fails("127.0.0.1:/a", "aname=/b", "the tree is '/a' in the source but aname=/b",
	      "a path and an aname= that disagree");
	fails("unix:run/sock", NULL, "absolute path expected", "a relative unix socket path");
	fails("unix:/run/sock", "trans=tcp", "is a unix socket, but trans=tcp",
	      "unix: with trans=tcp");
	fails("127.0.0.1:/", "trans=tcp,proto=unix", "two transports given",
	      "two different transports");
	fails("127.0.0.1:/", "trans=rdma", "unknown transport trans=rdma",
	      "a transport the helper cannot place");
	fails("", NULL, "no source given", "an empty source");
	return tap_done();
}
