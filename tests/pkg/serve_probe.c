// SPDX-License-Identifier: GPL-2.0
/*
 * serve_probe.c - serve-probe ADDR FILE TEXT: a client's first steps against
 * an installed v9fsd, in the two dialects Linux clients use (9P2000.u as
 * 9p2000.ko asks, 9P2000.L as the in-tree client asks): attach, walk to
 * FILE, open and read it, and compare with TEXT; then a create, which a
 * read-only export refuses. Prints TAP.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server_client.h"
#include "tap.h"

static void probe(const char *addr, const char *version, const char *file, const char *text)
{
	char buf[4096];
	struct tc c;
	int fd, n, err;

	fd = tc_dial(addr);
	if (!tap_ok(fd >= 0, "%s: connect to %s", version, addr))
		return;
	if (tc_use_fd(&c, fd) < 0) {
		tap_ok(0, "%s: client set-up", version);
		return;
	}
	err = tc_version(&c, version, 65536);
	tap_ok(err == 0 && strcmp(version, v9p_dialect_name(c.d)) == 0,
	       "%s: Tversion answered %s (msize %u)", version,
	       err ? "an error" : v9p_dialect_name(c.d), c.msize);
	tap_ok(tc_attach(&c, 0, "root", 0) == 0, "%s: attach as root", version);
	tap_ok(tc_walk(&c, 0, 1, file) == 0, "%s: walk to %s", version, file);
	tap_ok(tc_open(&c, 1, c.d == V9P_9P2000L ? O_RDONLY : 0) == 0, "%s: open %s", version, file);
	n = tc_read(&c, 1, 0, buf, sizeof(buf) - 1);
	if (n >= 0)
		buf[n] = '\0';
	tap_ok(n >= 0 && strcmp(buf, text) == 0, "%s: read %d bytes, the file's text", version, n);
	err = tc_create(&c, 0, "new", 0644, c.d == V9P_9P2000L ? O_WRONLY : 1);
	tap_ok(err == -EROFS, "%s: create refused with EROFS (read-only export): %d", version, err);
	close(c.fd);
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: serve-probe ADDR FILE TEXT\n");
		return 2;
	}
	probe(argv[1], "9P2000.u", argv[2], argv[3]);
	probe(argv[1], "9P2000.L", argv[2], argv[3]);
	return tap_done();
}
