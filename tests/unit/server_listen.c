// SPDX-License-Identifier: GPL-2.0
/*
 * server_listen.c - v9fsd as a daemon on loopback: tcp over IPv4 and IPv6,
 * unix sockets and Plan 9 dial strings, many connections each with many
 * requests in flight, the -c connection cap, and SIGTERM.
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
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "server_client.h"
#include "tap.h"

static struct tc_daemon dmn;

static int session(struct tc *c, const char *a)
{
	int fd = tc_dial(a);

	if (fd < 0 || tc_use_fd(c, fd) < 0)
		return -1;
	if (tc_version(c, "9P2000.L", 65536) < 0 || tc_attach(c, 0, "root", 0) < 0)
		return -1;
	return 0;
}

/* n Tgetattr in flight at once, then all replies, matched by tag. */
static bool pipelined(struct tc *c, int n)
{
	bool seen[256] = { false };
	struct v9p_fcall t, r;
	int got = 0;

	for (int i = 0; i < n; i++) {
		memset(&t, 0, sizeof(t));
		t.type = V9P_TGETATTR;
		t.tag = (uint16_t)(i + 1);
		t.tgetattr.fid = 0;
		t.tgetattr.request_mask = V9P_GETATTR_BASIC;
		if (tc_send(c, &t) < 0)
			return false;
	}
	for (int i = 0; i < n; i++) {
		if (tc_recv(c, &r) < 0 || r.type != V9P_RGETATTR || r.tag < 1 || r.tag > n ||
		    seen[r.tag])
			return false;
		seen[r.tag] = true;
		got++;
	}
	return got == n;
}

static void stop_daemon(void)
{
	tap_ok(tc_daemon_stop(&dmn) == 0, "SIGTERM stops v9fsd with status 0");
}

int main(void)
{
	char *dir = tc_tmpdir();
	char sock[4096], dialstr[4096];
	struct tc cs[10];
	int ok, n;

	signal(SIGPIPE, SIG_IGN);
	snprintf(sock, sizeof(sock), "unix:%s.sock", dir);
	{
		const char *args[] = { "-e", dir, "-l", "tcp:127.0.0.1:0", "-l", "tcp:[::1]:0",
				       "-l", sock, "-c", "8", NULL };

		n = tc_daemon_start(&dmn, args, 3);
	}
	tap_ok(n == 3, "v9fsd reports three listeners (%d)", n);
	for (int i = 0; i < n; i++) {
		bool good = session(&cs[0], dmn.addrs[i]) == 0 && tc_walk(&cs[0], 0, 1, "") == 0;

		tap_ok(good, "version, attach and walk over %s", dmn.addrs[i]);
		tc_stop(&cs[0]);
	}

	/* eight connections at once, 64 requests in flight on each */
	ok = 0;
	for (int i = 0; i < 8; i++)
		ok += session(&cs[i], dmn.addrs[i % n]) == 0;
	for (int i = 0; i < 8; i++)
		ok += pipelined(&cs[i], 64);
	tap_ok(ok == 16, "8 connections with 64 pipelined requests each all answered (%d/16)", ok);

	/* the ninth is over -c 8: closed at once */
	{
		int fd = tc_dial(dmn.addrs[0]);
		struct pollfd p = { .fd = fd, .events = POLLIN };
		char b;

		tap_ok(fd >= 0 && poll(&p, 1, 2000) == 1 && read(fd, &b, 1) == 0,
		       "a ninth connection over -c 8 is closed by the server");
		close(fd);
	}
	for (int i = 0; i < 8; i++)
		tc_stop(&cs[i]);
	usleep(100000);
	tap_ok(session(&cs[0], dmn.addrs[0]) == 0, "after they close, new connections are served");
	tc_stop(&cs[0]);
	stop_daemon();
	snprintf(sock, sizeof(sock), "%s.sock", dir);
	tap_ok(access(sock, F_OK) != 0, "the unix socket is removed at exit");

	/* Plan 9 dial strings */
	snprintf(dialstr, sizeof(dialstr), "unix!%s.sock9", dir);
	{
		const char *args[] = { "-e", dir, "-l", "tcp!127.0.0.1!0", "-l", dialstr, NULL };

		n = tc_daemon_start(&dmn, args, 2);
	}
	tap_ok(n == 2 && !strncmp(dmn.addrs[0], "tcp:127.0.0.1:", 14) && !strncmp(dmn.addrs[1], "unix:", 5),
	       "dial strings tcp!127.0.0.1!0 and unix!PATH are accepted");
	for (int i = 0; i < n; i++) {
		tap_ok(session(&cs[0], dmn.addrs[i]) == 0, "a session over %s", dmn.addrs[i]);
		tc_stop(&cs[0]);
	}
	stop_daemon();

	/* bad addresses are start-up errors */
	{
		const char *argv[] = { "v9fsd", "-f", "-e", dir, "-l", "tcp:no.such.host:1", NULL };
		pid_t p = fork();
		int status;

		if (p == 0) {
			int nul = open("/dev/null", O_WRONLY);

			dup2(nul, 2);
			execv(V9FSD_BIN, (char *const *)argv);
			_exit(127);
		}
		waitpid(p, &status, 0);
		tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 2,
		       "an address that is not numeric fails start-up with status 2 (configuration)");
	}
	tc_rmtree(dir);
	return tap_done();
}
