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

#define MAXL 8

static pid_t srv_pid;
static char addrs[MAXL][160];
static int naddrs;

/* Start v9fsd -f with args; collect its "listening on" lines. */
static int start_daemon(const char *const *args, int want)
{
	const char *argv[32];
	int pipefd[2], n = 0;
	FILE *fp;
	char line[256];

	argv[n++] = "v9fsd";
	argv[n++] = "-f";
	while (*args)
		argv[n++] = *args++;
	argv[n] = NULL;
	if (pipe(pipefd) < 0)
		return -1;
	srv_pid = fork();
	if (srv_pid == 0) {
		dup2(pipefd[1], 2);
		close(pipefd[0]);
		execv(V9FSD_BIN, (char *const *)argv);
		_exit(127);
	}
	close(pipefd[1]);
	fp = fdopen(pipefd[0], "r");
	naddrs = 0;
	while (naddrs < MAXL && fgets(line, sizeof(line), fp)) {
		char *p = strstr(line, "listening on ");

		if (!p)
			break;
		p += 13;
		p[strcspn(p, "\n")] = '\0';
		snprintf(addrs[naddrs++], sizeof(addrs[0]), "%s", p);
		if (naddrs == want)
			break;
	}
	/* stderr of the daemon is not read further: leave the pipe open */
	return naddrs;
}

static int dial(const char *a)
{
	int fd = -1;

	if (!strncmp(a, "unix:", 5)) {
		struct sockaddr_un sun = { .sun_family = AF_UNIX };

		snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", a + 5);
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
			close(fd);
			return -1;
		}
	} else if (!strncmp(a, "tcp:[", 5)) {
		struct sockaddr_in6 s6 = { .sin6_family = AF_INET6 };
		char host[64];
		const char *end = strchr(a, ']');

		snprintf(host, sizeof(host), "%.*s", (int)(end - a - 5), a + 5);
		inet_pton(AF_INET6, host, &s6.sin6_addr);
		s6.sin6_port = htons((uint16_t)atoi(end + 2));
		fd = socket(AF_INET6, SOCK_STREAM, 0);
		if (connect(fd, (struct sockaddr *)&s6, sizeof(s6)) < 0) {
			close(fd);
			return -1;
		}
	} else if (!strncmp(a, "tcp:", 4)) {
		struct sockaddr_in s4 = { .sin_family = AF_INET };
		char host[64];
		const char *colon = strrchr(a, ':');

		snprintf(host, sizeof(host), "%.*s", (int)(colon - a - 4), a + 4);
		inet_pton(AF_INET, host, &s4.sin_addr);
		s4.sin_port = htons((uint16_t)atoi(colon + 1));
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (connect(fd, (struct sockaddr *)&s4, sizeof(s4)) < 0) {
			close(fd);
			return -1;
		}
	}
	return fd;
}

static int session(struct tc *c, const char *a)
{
	int fd = dial(a);

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
	int status = -1;

	kill(srv_pid, SIGTERM);
	for (int i = 0; i < 300; i++) {
		if (waitpid(srv_pid, &status, WNOHANG) == srv_pid)
			break;
		usleep(10000);
	}
	if (!WIFEXITED(status)) {
		kill(srv_pid, SIGKILL);
		waitpid(srv_pid, &status, 0);
	}
	tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "SIGTERM stops v9fsd with status 0");
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

		n = start_daemon(args, 3);
	}
	tap_ok(n == 3, "v9fsd reports three listeners (%d)", n);
	for (int i = 0; i < n; i++) {
		bool good = session(&cs[0], addrs[i]) == 0 && tc_walk(&cs[0], 0, 1, "") == 0;

		tap_ok(good, "version, attach and walk over %s", addrs[i]);
		tc_stop(&cs[0]);
	}

	/* eight connections at once, 64 requests in flight on each */
	ok = 0;
	for (int i = 0; i < 8; i++)
		ok += session(&cs[i], addrs[i % n]) == 0;
	for (int i = 0; i < 8; i++)
		ok += pipelined(&cs[i], 64);
	tap_ok(ok == 16, "8 connections with 64 pipelined requests each all answered (%d/16)", ok);

	/* the ninth is over -c 8: closed at once */
	{
		int fd = dial(addrs[0]);
		struct pollfd p = { .fd = fd, .events = POLLIN };
		char b;

		tap_ok(fd >= 0 && poll(&p, 1, 2000) == 1 && read(fd, &b, 1) == 0,
		       "a ninth connection over -c 8 is closed by the server");
		close(fd);
	}
	for (int i = 0; i < 8; i++)
		tc_stop(&cs[i]);
	usleep(100000);
	tap_ok(session(&cs[0], addrs[0]) == 0, "after they close, new connections are served");
	tc_stop(&cs[0]);
	stop_daemon();
	snprintf(sock, sizeof(sock), "%s.sock", dir);
	tap_ok(access(sock, F_OK) != 0, "the unix socket is removed at exit");

	/* Plan 9 dial strings */
	snprintf(dialstr, sizeof(dialstr), "unix!%s.sock9", dir);
	{
		const char *args[] = { "-e", dir, "-l", "tcp!127.0.0.1!0", "-l", dialstr, NULL };

		n = start_daemon(args, 2);
	}
	tap_ok(n == 2 && !strncmp(addrs[0], "tcp:127.0.0.1:", 14) && !strncmp(addrs[1], "unix:", 5),
	       "dial strings tcp!127.0.0.1!0 and unix!PATH are accepted");
	for (int i = 0; i < n; i++) {
		tap_ok(session(&cs[0], addrs[i]) == 0, "a session over %s", addrs[i]);
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
		tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 1,
		       "an address that is not numeric fails start-up with status 1");
	}
	tc_rmtree(dir);
	return tap_done();
}
