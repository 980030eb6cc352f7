// SPDX-License-Identifier: GPL-2.0
/*
 * server_defaults.c - v9fsd's safe defaults: loopback-only listening
 * without -l, root squash for TCP attaches unless -o no_root_squash, the
 * allow= list of client addresses, bad -o options refused at start-up.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "server_client.h"
#include "tap.h"

static char *dir;

/* A name in the test's scratch export. */
static char *at(const char *name)
{
	return tc_path(dir, name);
}

/* Attach as root over addr and create name; the host owner of name, or -1. */
static long root_creates(const char *addr, const char *name)
{
	struct stat st;
	struct tc c;
	int fd = tc_dial(addr);

	if (fd < 0 || tc_use_fd(&c, fd) < 0)
		return -1;
	if (tc_version(&c, "9P2000.L", 65536) < 0 || tc_attach(&c, 0, "root", 0) < 0 ||
	    tc_create(&c, 0, name, 0644, V9P_DOTL_WRONLY) < 0) {
		tc_stop(&c);
		return -1;
	}
	tc_stop(&c);
	if (stat(at(name), &st) < 0)
		return -1;
	return (long)st.st_uid;
}

/* Whether a session over addr works (the server did not close it). */
static bool served(const char *addr)
{
	struct tc c;
	int fd = tc_dial(addr);
	bool ok;

	if (fd < 0 || tc_use_fd(&c, fd) < 0)
		return false;
	ok = tc_version(&c, "9P2000.L", 65536) == 0;
	tc_stop(&c);
	return ok;
}

static void test_squash(void)
{
	char sock[4200];
	struct tc_daemon d;
	long uid;

	if (geteuid() != 0) {
		tap_ok(1, "# SKIP root squash needs a root v9fsd");
		return;
	}
	chmod(dir, 0777);
	snprintf(sock, sizeof(sock), "unix:%s", at("sock"));
	{
		const char *args[] = { "-e", dir, "-l", "tcp:127.0.0.1:0", "-l", sock, NULL };

		if (tc_daemon_start(&d, args, 2) != 2) {
			tap_ok(0, "v9fsd starts on tcp and unix");
			return;
		}
	}
	uid = root_creates(d.addrs[0], "tcp-root");
	tap_ok(uid == 65534, "a root attach over tcp is squashed to 65534 (%ld)", uid);
	uid = root_creates(d.addrs[1], "unix-root");
	tap_ok(uid == 0, "a root attach over a unix socket stays root (%ld)", uid);
	tc_daemon_stop(&d);
	{
		const char *args[] = { "-e", dir, "-l", "tcp:127.0.0.1:0", "-o", "no_root_squash",
				       NULL };

		if (tc_daemon_start(&d, args, 1) != 1) {
			tap_ok(0, "v9fsd starts with -o no_root_squash");
			return;
		}
	}
	uid = root_creates(d.addrs[0], "tcp-noroot");
	tap_ok(uid == 0, "-o no_root_squash: a root attach over tcp stays root (%ld)", uid);
	tc_daemon_stop(&d);
	chmod(dir, 0755);
}

static void test_allow(void)
{
	struct tc_daemon d;

	{
		const char *args[] = { "-e", dir, "-l", "tcp:127.0.0.1:0", "-o",
				       "allow=10.0.0.0/8,allow=::1", NULL };

		if (tc_daemon_start(&d, args, 1) != 1) {
			tap_ok(0, "v9fsd starts with allow=");
			return;
		}
	}
	tap_ok(!served(d.addrs[0]), "a client outside the allow= list is refused");
	tc_daemon_stop(&d);
	{
		const char *args[] = { "-e", dir, "-l", "tcp:127.0.0.1:0", "-o",
				       "allow=10.0.0.0/8", "-o", "allow=127.0.0.0/8", NULL };

		if (tc_daemon_start(&d, args, 1) != 1) {
			tap_ok(0, "v9fsd starts with two allow=");
			return;
		}
	}
	tap_ok(served(d.addrs[0]), "a client inside an allow= network is served");
	tc_daemon_stop(&d);
}

/* The dialect v9fsd answers over addr to a Tversion asking for version. */
static const char *answers(const char *addr, const char *version)
{
	struct tc c;
	int fd = tc_dial(addr);
	const char *name = "-";

	if (fd < 0 || tc_use_fd(&c, fd) < 0)
		return name;
	if (tc_version(&c, version, 65536) == 0)
		name = v9p_dialect_name(c.d);
	tc_stop(&c);
	return name;
}

/* max_version=: a later dialect asked for is answered with the newest offered. */
static void test_max_version(void)
{
	static const struct {
		const char *opt, *asked, *want;
	} cases[] = {
		{ "max_version=9p2000.u", "9P2000.L", "9P2000.u" },
		{ "max_version=9p2000.u", "9P2000.u", "9P2000.u" },
		{ "max_version=9p2000.u", "9P2000", "9P2000" },
		{ "max_version=9P2000", "9P2000.L", "9P2000" },
		{ "max_version=9P2000", "9P2000.u", "9P2000" },
		{ "max_version=9P2000.L", "9P2000.L", "9P2000.L" },
	};
	struct tc_daemon d;
	const char *got;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *args[] = { "-e", dir, "-l", "tcp:127.0.0.1:0", "-o",
				       cases[i].opt, NULL };

		if (tc_daemon_start(&d, args, 1) != 1) {
			tap_ok(0, "v9fsd starts with -o %s", cases[i].opt);
			continue;
		}
		got = answers(d.addrs[0], cases[i].asked);
		tap_ok(!strcmp(got, cases[i].want), "-o %s: %s is answered %s (%s)",
		       cases[i].opt, cases[i].asked, cases[i].want, got);
		tc_daemon_stop(&d);
	}
}

static int start_status(const char *opt)
{
	const char *argv[] = { "v9fsd", "-s", "-e", dir, "-o", opt, NULL };
	int status, nul;
	pid_t p = fork();

	if (p == 0) {
		nul = open("/dev/null", O_RDWR);
		dup2(nul, 0);
		dup2(nul, 1);
		dup2(nul, 2);
		execv(V9FSD_BIN, (char *const *)argv);
		_exit(127);
	}
	waitpid(p, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_bad_options(void)
{
	tap_ok(start_status("no_such_option") == 2, "an unknown -o option fails start-up");
	tap_ok(start_status("allow=10.0.0.0/33") == 2, "allow= with a bad prefix fails start-up");
	tap_ok(start_status("max_threads=0") == 2, "max_threads=0 fails start-up");
	tap_ok(start_status("max_fids=10") == 0, "max_fids=10 is accepted");
	tap_ok(start_status("max_version=9P2000.x") == 2, "max_version=9P2000.x fails start-up");
	tap_ok(start_status("max_version=9p2000.L") == 0, "max_version=9p2000.L is accepted");
}

/* Without -l: loopback only, IPv4 and IPv6, port 564. */
static void test_default_listen(void)
{
	const char *args[] = { "-e", dir, NULL };
	struct tc_daemon d;
	int n;

	if (geteuid() != 0) {
		tap_ok(1, "# SKIP port 564 needs root");
		return;
	}
	n = tc_daemon_start(&d, args, 2);
	if (n == 0) {
		tap_ok(1, "# SKIP port 564 is in use on this host");
		tc_daemon_stop(&d);
		return;
	}
	tap_ok(n >= 1 && !strcmp(d.addrs[0], "tcp:127.0.0.1:564"),
	       "without -l v9fsd listens on tcp:127.0.0.1:564 (%s)", n ? d.addrs[0] : "-");
	tap_ok(n < 2 || !strcmp(d.addrs[1], "tcp:[::1]:564"),
	       "and on tcp:[::1]:564 when the host has IPv6 (%s)", n > 1 ? d.addrs[1] : "-");
	tc_daemon_stop(&d);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	dir = tc_tmpdir();
	test_squash();
	test_allow();
	test_bad_options();
	test_max_version();
	test_default_listen();
	tc_rmtree(dir);
	free(dir);
	return tap_done();
}
