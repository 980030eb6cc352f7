// SPDX-License-Identifier: GPL-2.0
/*
 * server_activate.c - v9fsd under a service manager: listening sockets
 * passed as systemd passes them (LISTEN_PID, LISTEN_FDS, descriptors from
 * 3), READY=1 and STOPPING=1 sent to NOTIFY_SOCKET, and what it must
 * refuse: descriptors that are not listening stream sockets, a count past
 * its listeners, sockets meant for another process, -s beside them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "server_client.h"
#include "tap.h"

static char *dir;

/* A v9fsd started with passed descriptors; its stderr is read from err. */
struct run {
	pid_t pid;
	FILE *err;
};

/*
 * Start v9fsd -f -e dir extra... with fds[0..n-1] as descriptors 3.. and
 * LISTEN_FDS set to fds_env (NULL: unset), LISTEN_PID to this child's
 * pid (or other_pid if nonzero), NOTIFY_SOCKET to notify (NULL: unset).
 */
static int start(struct run *r, const int *fds, int n, const char *fds_env,
		 pid_t other_pid, const char *notify, const char *const *extra)
{
	const char *argv[16];
	int pipefd[2], k = 0;

	argv[k++] = "v9fsd";
	argv[k++] = "-f";
	argv[k++] = "-e";
	argv[k++] = dir;
	while (extra && *extra && k < 15)
		argv[k++] = *extra++;
	argv[k] = NULL;
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -1;
	r->pid = fork();
	if (r->pid < 0)
		return -1;
	if (r->pid == 0) {
		int high[8];
		char pid[32];

		dup2(pipefd[1], 2);
		/* out of the way of 3.. first, then into place */
		for (int i = 0; i < n; i++)
			high[i] = fcntl(fds[i], F_DUPFD, 100);
		for (int i = 0; i < n; i++) {
			dup2(high[i], 3 + i);
			close(high[i]);
		}
		snprintf(pid, sizeof(pid), "%ld", (long)(other_pid ? other_pid : getpid()));
		if (fds_env) {
			setenv("LISTEN_PID", pid, 1);
			setenv("LISTEN_FDS", fds_env, 1);
		} else {
			unsetenv("LISTEN_PID");
			unsetenv("LISTEN_FDS");
		}
		if (notify)
			setenv("NOTIFY_SOCKET", notify, 1);
		else
			unsetenv("NOTIFY_SOCKET");
		execv(V9FSD_BIN, (char *const *)argv);
		_exit(127);
	}
	close(pipefd[1]);
	r->err = fdopen(pipefd[0], "r");
	return r->err ? 0 : -1;
}

/* The first n "listening on" lines v9fsd prints, joined by ' '. */
static void listening(struct run *r, int n, char *out, size_t len)
{
	char line[256];

	out[0] = '\0';
	while (n-- > 0 && fgets(line, sizeof(line), r->err)) {
		char *p = strstr(line, "listening on ");

		if (!p)
			break;
		p += 13;
		p[strcspn(p, "\n")] = '\0';
		if (out[0])
			strncat(out, " ", len - strlen(out) - 1);
		strncat(out, p, len - strlen(out) - 1);
	}
}

/*
 * Wait up to 3 s for the exit of r; its status, or -1 (then killed).
 * What is left of its stderr goes to out (if not NULL).
 */
static int reap(struct run *r, char *out, size_t len)
{
	int status, ret = -1;

	for (int i = 0; i < 300; i++) {
		if (waitpid(r->pid, &status, WNOHANG) == r->pid) {
			ret = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
			break;
		}
		usleep(10000);
	}
	if (ret < 0 && kill(r->pid, SIGKILL) == 0)
		waitpid(r->pid, &status, 0);
	if (out)
		out[fread(out, 1, len - 1, r->err)] = '\0';
	fclose(r->err);
	return ret;
}

static int stop(struct run *r, char *out, size_t len)
{
	kill(r->pid, SIGTERM);
	return reap(r, out, len);
}

static int tcp_listener(char *name, size_t len)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(fd, 8) < 0 || getsockname(fd, (struct sockaddr *)&sa, &sl) < 0)
		return -1;
	snprintf(name, len, "tcp:127.0.0.1:%u", ntohs(sa.sin_port));
	return fd;
}

static int unix_socket(int type, const char *path, bool listening)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	unlink(path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0 ||
	    (listening && listen(fd, 8) < 0))
		return -1;
	return fd;
}

/* A 9P session works over addr: Tversion and Tattach answered. */
static bool serves(const char *addr)
{
	struct tc c;
	int fd = tc_dial(addr);
	bool ok;

	if (fd < 0 || tc_use_fd(&c, fd) < 0)
		return false;
	ok = tc_version(&c, "9P2000.L", 65536) == 0 && tc_attach(&c, 0, "root", 0) == 0;
	tc_stop(&c);
	return ok;
}

/* The next datagram on fd within 3 s, in out ("" if none). */
static void datagram(int fd, char *out, size_t len)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	ssize_t n = -1;

	if (poll(&pfd, 1, 3000) == 1)
		n = recv(fd, out, len - 1, 0);
	out[n > 0 ? n : 0] = '\0';
}

/* Whether descriptor fd of pid is close-on-exec (its fdinfo's flags). */
static bool cloexec(pid_t pid, int fd)
{
	char path[64], line[128];
	bool set = false;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%ld/fdinfo/%d", (long)pid, fd);
	fp = fopen(path, "r");
	if (!fp)
		return false;
	while (fgets(line, sizeof(line), fp))
		if (!strncmp(line, "flags:", 6))
			set = strtoul(line + 6, NULL, 8) & O_CLOEXEC;
	fclose(fp);
	return set;
}

/*
 * v9fsd started with fds as its passed sockets exits 2 (a configuration
 * error, which no restart mends) naming the problem.
 */
static void refused(const int *fds, int n, const char *env, const char *want,
		    const char *what)
{
	char out[2048];
	struct run r;
	int st;

	if (start(&r, fds, n, env, 0, NULL, NULL) < 0) {
		tap_ok(0, "%s: v9fsd started", what);
		return;
	}
	st = reap(&r, out, sizeof(out));
	tap_ok(st == 2 && strstr(out, want), "%s: exit 2 naming it (status %d: %.*s)", what, st,
	       (int)strcspn(out, "\n"), out);
}

int main(void)
{
	char tcpname[64], sockpath[4096], notpath[4096], notenv[4200], names[1024],
	     msg[256], want[4400], abs[64], out[2048];
	const char *const minus_l[] = { "-l", "tcp:127.0.0.1:0", NULL };
	const char *const minus_s[] = { "-s", NULL };
	int lt, lu, nt, fds[2];
	struct stat st;
	struct run r;

	signal(SIGPIPE, SIG_IGN);
	dir = tc_tmpdir();
	snprintf(sockpath, sizeof(sockpath), "%s.sock", dir);
	snprintf(notpath, sizeof(notpath), "%s.notify", dir);
	lt = tcp_listener(tcpname, sizeof(tcpname));
	lu = unix_socket(SOCK_STREAM, sockpath, true);
	nt = unix_socket(SOCK_DGRAM, notpath, false);
	if (lt < 0 || lu < 0 || nt < 0) {
		tap_ok(0, "the test's sockets (%s)", strerror(errno));
		tap_done();
		return 1;
	}

	/* two passed listeners, nothing else: served on both, ready told */
	fds[0] = lt;
	fds[1] = lu;
	snprintf(notenv, sizeof(notenv), "%s", notpath);
	if (start(&r, fds, 2, "2", 0, notenv, NULL) == 0) {
		listening(&r, 2, names, sizeof(names));
		snprintf(want, sizeof(want), "%s unix:%s", tcpname, sockpath);
		tap_ok(!strcmp(names, want), "listens on the two passed sockets (%s)", names);
		datagram(nt, msg, sizeof(msg));
		tap_ok(!strcmp(msg, "READY=1"), "READY=1 sent to NOTIFY_SOCKET (got '%s')", msg);
		tap_ok(serves(tcpname), "a 9P session over the passed tcp socket");
		snprintf(want, sizeof(want), "unix:%s", sockpath);
		tap_ok(serves(want), "a 9P session over the passed unix socket");
		tap_ok(cloexec(r.pid, 3) && cloexec(r.pid, 4),
		       "the passed sockets are made close-on-exec");
		tap_ok(stop(&r, out, sizeof(out)) == 0, "SIGTERM: exit 0");
		tap_ok(!strstr(out, "listening on"), "and on nothing else (%s)", out);
		datagram(nt, msg, sizeof(msg));
		tap_ok(!strcmp(msg, "STOPPING=1"), "STOPPING=1 sent at SIGTERM (got '%s')", msg);
		tap_ok(stat(sockpath, &st) == 0 && S_ISSOCK(st.st_mode),
		       "the passed unix socket's file is left to its owner");
	} else {
		tap_ok(0, "v9fsd started with two passed sockets");
	}

	/* passed and -l together, notify to an abstract name */
	{
		int an;

		snprintf(abs, sizeof(abs), "@v9fsd-test-%ld", (long)getpid());
		an = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		{
			struct sockaddr_un sun = { .sun_family = AF_UNIX };
			size_t len = strlen(abs);

			memcpy(sun.sun_path + 1, abs + 1, len - 1);
			if (an < 0 || bind(an, (struct sockaddr *)&sun,
					   (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)) < 0)
				an = -1;
		}
		if (an >= 0 && start(&r, fds, 1, "1", 0, abs, minus_l) == 0) {
			listening(&r, 2, names, sizeof(names));
			tap_ok(!strncmp(names, tcpname, strlen(tcpname)) &&
			       strstr(names, " tcp:127.0.0.1:"),
			       "a passed socket beside -l: both listen (%s)", names);
			datagram(an, msg, sizeof(msg));
			tap_ok(!strcmp(msg, "READY=1"), "READY=1 to an abstract NOTIFY_SOCKET (got '%s')",
			       msg);
			tap_ok(serves(tcpname), "served over the passed socket");
			stop(&r, NULL, 0);
		} else {
			tap_ok(0, "v9fsd started with a passed socket and -l");
		}
		if (an >= 0)
			close(an);
	}

	/* meant for another process: left alone */
	if (start(&r, fds, 1, "1", 1, NULL, minus_l) == 0) {
		listening(&r, 1, names, sizeof(names));
		tap_ok(stop(&r, out, sizeof(out)) == 0, "LISTEN_PID of another process: v9fsd runs");
		tap_ok(!strstr(names, tcpname) && strstr(names, "tcp:127.0.0.1:") &&
		       !strstr(out, "listening on"),
		       "on -l alone: the socket is not taken (%s%s)", names, out);
	} else {
		tap_ok(0, "v9fsd started with another's LISTEN_PID");
	}

	/* a NOTIFY_SOCKET nobody listens on changes nothing */
	if (start(&r, fds, 1, "1", 0, "/nonexistent/notify", NULL) == 0) {
		listening(&r, 1, names, sizeof(names));
		tap_ok(serves(tcpname), "NOTIFY_SOCKET to nowhere: served all the same");
		stop(&r, NULL, 0);
	} else {
		tap_ok(0, "v9fsd started with a dead NOTIFY_SOCKET");
	}

	/* the hostile cases: what is not a listening stream socket */
	{
		int conn = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		int dg = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		int file = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		int pair[2], two[2];

		socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair);
		refused(&conn, 1, "1", "descriptor 3 is not a listening",
			"a stream socket that does not listen");
		refused(&dg, 1, "1", "descriptor 3 is not a listening", "a datagram socket");
		refused(&file, 1, "1", "descriptor 3 is not a listening", "a directory");
		refused(&pair[0], 1, "1", "descriptor 3 is not a listening",
			"a connected socket pair");
		two[0] = lt;
		two[1] = file;
		refused(two, 2, "2", "descriptor 4 is not a listening",
			"a listener then a directory");
		refused(fds, 1, "2", "descriptor 4 is not a listening",
			"LISTEN_FDS past the descriptors given");
		refused(fds, 1, "100000", "bad LISTEN_FDS", "LISTEN_FDS past its listeners");
		refused(fds, 1, "1x", "bad LISTEN_FDS", "LISTEN_FDS not a number");
		refused(fds, 1, "-1", "bad LISTEN_FDS", "LISTEN_FDS negative");
		close(conn);
		close(dg);
		close(file);
		close(pair[0]);
		close(pair[1]);
	}

	/* -s serves stdin: passed listeners beside it are a usage error */
	if (start(&r, fds, 1, "1", 0, NULL, minus_s) == 0) {
		int stat_ = reap(&r, msg, sizeof(msg));

		tap_ok(stat_ == 2 && strstr(msg, "exclude"), "-s with passed sockets: exit 2 (%d: %.*s)",
		       stat_, (int)strcspn(msg, "\n"), msg);
	} else {
		tap_ok(0, "v9fsd -s started with passed sockets");
	}

	close(lt);
	close(lu);
	close(nt);
	unlink(sockpath);
	unlink(notpath);
	tc_rmtree(dir);
	return tap_done();
}
