// SPDX-License-Identifier: GPL-2.0
/*
 * server_cli.c - v9fsd's command line as an administrator meets it: --help
 * and --version, one line and exit status 2 for each configuration error
 * (naming the option, the address or the path at fault), --check, and the
 * log lines of attaches and refused attaches, rate-limited per peer.
 * Each case runs build/bin/v9fsd as a child and reads its exit status,
 * stdout and stderr.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "server_client.h"
#include "tap.h"

static char *dir;	/* 0711: a user other than root may pass through */
static char *export;	/* dir/export, 0755 */

struct out {
	int status;		/* exit status; -1: killed or not run */
	char out[8192];
	char err[8192];
};

/* Read what is left of both pipes until both close or 10 s pass. */
static void drain(int ofd, int efd, struct out *o)
{
	size_t on = 0, en = 0;
	struct pollfd p[2] = { { ofd, POLLIN, 0 }, { efd, POLLIN, 0 } };
	double end = tc_now() + 10;

	while ((p[0].fd >= 0 || p[1].fd >= 0) && tc_now() < end) {
		if (poll(p, 2, 500) <= 0)
			continue;
		for (int i = 0; i < 2; i++) {
			char *buf = i ? o->err : o->out;
			size_t *n = i ? &en : &on;
			ssize_t r;

			if (p[i].fd < 0 || !p[i].revents)
				continue;
			r = read(p[i].fd, buf + *n, sizeof(o->out) - 1 - *n);
			if (r <= 0) {
				close(p[i].fd);
				p[i].fd = -1;
				continue;
			}
			*n += (size_t)r;
			buf[*n] = '\0';
		}
	}
	for (int i = 0; i < 2; i++)
		if (p[i].fd >= 0)
			close(p[i].fd);
}

/*
 * Run v9fsd with argv (NULL-terminated, without the program name), as
 * uid (0: as this process), stdin /dev/null; fill o.
 */
static void run_as(uid_t uid, const char *const *args, struct out *o)
{
	const char *argv[48];
	int op[2], ep[2], n = 0, st;
	pid_t pid;

	memset(o, 0, sizeof(*o));
	o->status = -1;
	argv[n++] = "v9fsd";
	while (*args && n < 47)
		argv[n++] = *args++;
	argv[n] = NULL;
	if (pipe2(op, O_CLOEXEC) < 0 || pipe2(ep, O_CLOEXEC) < 0)
		return;
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		dup2(null, 0);
		dup2(op[1], 1);
		dup2(ep[1], 2);
		if (uid && (setgroups(0, NULL) < 0 || setgid(uid) < 0 || setuid(uid) < 0))
			_exit(126);
		unsetenv("LISTEN_PID");
		unsetenv("LISTEN_FDS");
		alarm(20);
		execv(V9FSD_BIN, (char *const *)argv);
		_exit(127);
	}
	close(op[1]);
	close(ep[1]);
	drain(op[0], ep[0], o);
	if (pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st))
		o->status = WEXITSTATUS(st);
}

static void run(const char *const *args, struct out *o)
{
	run_as(0, args, o);
}

static int lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* One configuration error: exit 2, one line on stderr holding want. */
static void config_error(const char *const *args, const char *want, const char *what)
{
	struct out o;

	run(args, &o);
	tap_ok(o.status == 2 && strstr(o.err, want) && lines(o.err) == 1,
	       "%s: exit 2 and one line naming '%s' (exit %d: %.200s)", what, want,
	       o.status, o.err);
}

/* -o opt must be refused with exit 2, the line naming the option. */
static void bad_o(const char *opt, const char *want)
{
	const char *args[] = { "-e", export, "-o", opt, "--check", NULL };
	char what[128];

	snprintf(what, sizeof(what), "-o %s", opt);
	config_error(args, want, what);
}

static void test_help_version(void)
{
	const char *h[] = { "--help", NULL }, *h2[] = { "-h", NULL };
	const char *v[] = { "--version", NULL }, *v2[] = { "-V", NULL };
	char want[64] = "v9fsd ", path[4096], *slash;
	struct out o;
	FILE *fp;

	run(h, &o);
	tap_ok(o.status == 0 && !strncmp(o.out, "usage: v9fsd", 12) && !o.err[0],
	       "--help: the usage on stdout, exit 0 (exit %d)", o.status);
	run(h2, &o);
	tap_ok(o.status == 0 && strstr(o.out, "--check") && !o.err[0],
	       "-h: the usage, which lists --check, exit 0 (exit %d)", o.status);

	/* build/bin/v9fsd: the VERSION file is two levels up */
	snprintf(path, sizeof(path), "%s", V9FSD_BIN);
	for (int i = 0; i < 3; i++) {
		slash = strrchr(path, '/');
		if (slash)
			*slash = '\0';
	}
	strcat(path, "/VERSION");
	fp = fopen(path, "r");
	if (!fp || !fgets(want + 6, (int)sizeof(want) - 6, fp))
		tap_diag("cannot read %s", path);
	if (fp)
		fclose(fp);
	want[strcspn(want, "\n")] = '\0';
	strcat(want, "\n");
	run(v, &o);
	tap_ok(o.status == 0 && !strcmp(o.out, want),
	       "--version prints the VERSION file's release, exit 0 ('%.40s', exit %d)",
	       o.out, o.status);
	run(v2, &o);
	tap_ok(o.status == 0 && !strcmp(o.out, want), "-V prints it too (exit %d)", o.status);
}

static void test_config_errors(void)
{
	const char *unk[] = { "-e", export, "-Z", NULL };
	const char *unk_long[] = { "-e", export, "--bogus", NULL };
	const char *noarg[] = { "-e", export, "-l", NULL };
	const char *noe[] = { "-l", "tcp:127.0.0.1:0", NULL };
	const char *extra[] = { "-e", export, "stray", NULL };
	const char *bad_l[] = { "-e", export, "-l", "tcp:127.0.0.1:notaport", NULL };
	const char *bad_l6[] = { "-e", export, "-l", "tcp:[::1:564", NULL };
	const char *bad_host[] = { "-e", export, "-l", "tcp:no.such.host:564", NULL };
	const char *bad_m[] = { "-e", export, "-m", "12", NULL };
	const char *bad_c[] = { "-e", export, "-c", "-1", NULL };
	const char *bad_t[] = { "-e", export, "-t", "0", NULL };
	const char *bad_u[] = { "-e", export, "-u", "no_such_user_v9", NULL };
	const char *missing[] = { "-e", "/nonexistent/v9fsd-export", NULL };

	config_error(unk, "unknown option '-Z'", "an unknown short option");
	config_error(unk_long, "unknown option '--bogus'", "an unknown long option");
	config_error(noarg, "'-l' needs a value", "-l without its address");
	config_error(noe, "no export: -e DIR is required", "no -e");
	config_error(extra, "unexpected argument 'stray'", "a stray argument");
	config_error(bad_l, "bad tcp address '127.0.0.1:notaport'", "-l with a port that is no number");
	config_error(bad_l6, "[::1:564", "-l with an unclosed IPv6 bracket");
	config_error(bad_host, "no.such.host", "-l with a host name (numeric only)");
	config_error(bad_m, "-m 12", "-m below the smallest msize");
	config_error(bad_c, "-c -1", "-c negative");
	config_error(bad_t, "-t 0", "-t 0");
	config_error(bad_u, "no_such_user_v9", "-u unknown user");
	config_error(missing, "/nonexistent/v9fsd-export: No such file or directory",
		     "-e of a missing directory");
}

static void test_options(void)
{
	bad_o("allow=10.0.0.0/33", "prefix length 33 is out of range for IPv4");
	bad_o("allow=::1/129", "prefix length 129 is out of range for IPv6");
	bad_o("allow=10.0.0.0/x", "allow=10.0.0.0/x");
	bad_o("allow=10.0.0.300", "'10.0.0.300' is not an IPv4 or IPv6 address");
	bad_o("allow", "allow: needs a value");
	bad_o("unix_group=no_such_group_v9", "no group 'no_such_group_v9'");
	bad_o("unix_map=1000", "unix_map=1000: PEERUID:UID expected");
	bad_o("unix_map=a:b", "unix_map=a:b: PEERUID:UID expected");
	bad_o("unix_map=1000:", "unix_map=1000:: PEERUID:UID expected");
	bad_o("unix_map=-1:0", "unix_map=-1:0: PEERUID:UID expected");
	bad_o("max_peer_conns=-1", "max_peer_conns=-1: '-1' is not a number");
	bad_o("max_peer_conns=99999999999999999999", "max_peer_conns=99999999999999999999");
	bad_o("max_peer_conns=lots", "max_peer_conns=lots: 'lots' is not a number");
	bad_o("max_peer_conns", "max_peer_conns: needs a value");
	bad_o("handshake_timeout=soon", "handshake_timeout=soon: 'soon' is not a number");
	bad_o("handshake_timeout=86401", "handshake_timeout=86401: '86401' is not a number from 0 to 86400");
	bad_o("handshake_timeout=-5", "handshake_timeout=-5");
	bad_o("max_fids=0", "max_fids=0: '0' is not a number from 1");
	bad_o("max_total_fids=x", "max_total_fids=x");
	bad_o("fd_reserve=7", "fd_reserve=7: '7' is not a number from 8");
	bad_o("max_reqs=65001", "max_reqs=65001");
	bad_o("max_total_reqs=0", "max_total_reqs=0");
	bad_o("max_threads=4097", "max_threads=4097");
	bad_o("msg_timeout= 5", "msg_timeout= 5");
	bad_o("stall_timeout=1e3", "stall_timeout=1e3");
	bad_o("idle_timeout=0x10", "idle_timeout=0x10");
	bad_o("max_version=9P2001", "max_version=9P2001: not 9P2000, 9P2000.u or 9P2000.L");
	bad_o("serial=1", "serial=1: takes no value");
	bad_o("no_such_option", "no_such_option: unknown option");
}

/* A port nothing listens on now (bound to 0 and closed again). */
static int free_port(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port = -1;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&sa, &sl) == 0)
		port = ntohs(sa.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

static void test_privilege_errors(void)
{
	char locked[4096], addr[64];
	const char *lk[] = { "-e", locked, "-f", "-l", addr, NULL };
	const char *low[] = { "-e", export, "-l", "tcp:127.0.0.1:564", NULL };
	const char *lowc[] = { "-e", export, "-l", "tcp:127.0.0.1:564", "--check", NULL };
	struct out o;

	snprintf(locked, sizeof(locked), "%s/locked", dir);
	snprintf(addr, sizeof(addr), "tcp:127.0.0.1:%d", free_port());
	mkdir(locked, 0);
	chmod(locked, 0);
	run_as(65534, lk, &o);
	tap_ok(o.status == 2 && strstr(o.err, locked) && strstr(o.err, "Permission denied") &&
	       !strstr(o.err, "Linux 5.6") && lines(o.err) == 1,
	       "an export the user may not open: exit 2, the path and Permission denied, "
	       "no kernel-version hint (exit %d: %.200s)", o.status, o.err);
	run_as(65534, low, &o);
	tap_ok(o.status == 2 &&
	       strstr(o.err, "binding port 564 needs root or CAP_NET_BIND_SERVICE"),
	       "port 564 as a user: exit 2, says it needs root or CAP_NET_BIND_SERVICE "
	       "(exit %d: %.200s)", o.status, o.err);
	run_as(65534, lowc, &o);
	tap_ok(o.status == 2 && strstr(o.err, "needs root or CAP_NET_BIND_SERVICE") &&
	       !strstr(o.out, "ok"),
	       "--check finds port 564 out of a user's reach: exit 2 (exit %d)", o.status);
}

static void test_check(void)
{
	char addr[64], busy_addr[64], sock[4096], usock[4200];
	const char *ok[] = { "-e", export, "-l", addr, "-l", usock, "--check", NULL };
	const char *busy[] = { "-e", export, "-l", busy_addr, "--check", NULL };
	const char *inuse[] = { "-e", export, "-l", busy_addr, NULL };
	const char *badx[] = { "-e", "/nonexistent/v9fsd-export", "-l", addr, "--check", NULL };
	const char *bado[] = { "-e", export, "-o", "allow=1.2.3.4/40", "--check", NULL };
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	struct stat st;
	struct out o;
	int lfd;

	snprintf(addr, sizeof(addr), "tcp:127.0.0.1:%d", free_port());
	snprintf(sock, sizeof(sock), "%s/check.sock", dir);
	snprintf(usock, sizeof(usock), "unix:%s", sock);
	run(ok, &o);
	tap_ok(o.status == 0 && !strcmp(o.out, "ok\n") && !o.err[0],
	       "--check of a good configuration prints ok, exit 0 (exit %d: %.100s%.100s)",
	       o.status, o.out, o.err);
	tap_ok(lstat(sock, &st) < 0 && errno == ENOENT,
	       "--check leaves no unix socket file behind");

	/* a port in use: told, not an error (it may be this server's own) */
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(lfd, 1) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&sa, &sl) < 0)
		tap_diag("cannot listen for the busy-port case");
	snprintf(busy_addr, sizeof(busy_addr), "tcp:127.0.0.1:%u", ntohs(sa.sin_port));
	run(busy, &o);
	tap_ok(o.status == 0 && !strcmp(o.out, "ok\n") && strstr(o.err, "in use") &&
	       strstr(o.err, "not checked"),
	       "--check of a busy port says it cannot check it, exit 0 (exit %d: %.150s)",
	       o.status, o.err);
	run(inuse, &o);
	tap_ok(o.status == 1 && strstr(o.err, "Address already in use"),
	       "a listen address in use at start is a run-time failure: exit 1 (exit %d: %.150s)",
	       o.status, o.err);
	close(lfd);

	run(badx, &o);
	tap_ok(o.status == 2 && strstr(o.err, "/nonexistent/v9fsd-export") && !strstr(o.out, "ok"),
	       "--check of a missing export: exit 2, the path named (exit %d)", o.status);
	run(bado, &o);
	tap_ok(o.status == 2 && strstr(o.err, "prefix length 40") && !strstr(o.out, "ok"),
	       "--check of a bad -o: exit 2 (exit %d)", o.status);
}

/* v9fsd -s on a socketpair, its stderr on a pipe: for the log lines. */
static int start_logged(struct tc *c, int *errfd)
{
	int sv[2], ep[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0 || pipe2(ep, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(sv[1], 0);
		dup2(sv[1], 1);
		dup2(ep[1], 2);
		execl(V9FSD_BIN, "v9fsd", "-s", "-e", export, (char *)NULL);
		_exit(127);
	}
	close(sv[1]);
	close(ep[1]);
	if (pid < 0 || tc_use_fd(c, sv[0]) < 0)
		return -1;
	c->pid = pid;
	*errfd = ep[0];
	return 0;
}

/* What the server wrote to stderr within wait_s seconds. */
static void read_err(int fd, char *buf, size_t len, double wait_s)
{
	size_t n = strlen(buf);
	double end = tc_now() + wait_s;
	struct pollfd p = { fd, POLLIN, 0 };

	while (tc_now() < end && n < len - 1) {
		ssize_t r;

		if (poll(&p, 1, 100) <= 0)
			continue;
		r = read(fd, buf + n, len - 1 - n);
		if (r <= 0)
			break;
		n += (size_t)r;
		buf[n] = '\0';
	}
}

static int count(const char *s, const char *what)
{
	int n = 0;

	for (s = strstr(s, what); s; s = strstr(s + 1, what))
		n++;
	return n;
}

static void test_log(void)
{
	static char buf[16384];
	struct tc c;
	int efd = -1, err, refused = 0;

	buf[0] = '\0';
	if (start_logged(&c, &efd) < 0 || tc_version(&c, "9P2000.L", 65536) < 0) {
		tap_ok(0, "v9fsd -s starts for the log cases");
		return;
	}
	err = tc_attach_aname(&c, 1, "root", "/not/the/export", 0);
	read_err(efd, buf, sizeof(buf), 1.0);
	tap_ok(err == -ENOENT && strstr(buf, "attach from ") && strstr(buf, "refused") &&
	       strstr(buf, "user 'root'") && strstr(buf, "aname '/not/the/export'") &&
	       strstr(buf, "aname is not the export"),
	       "a refused attach is logged: who, which aname, why (%d: %.300s)", err, buf);

	/* a client looping on attaches gets no line each: one a second */
	buf[0] = '\0';
	for (int i = 0; i < 30; i++)
		refused += tc_attach_aname(&c, 1, "root", "/again", 0) == -ENOENT;
	read_err(efd, buf, sizeof(buf), 0.3);
	tap_ok(refused == 30 && count(buf, "refused") <= 1,
	       "30 refused attaches at once are not 30 lines (%d lines)", count(buf, "refused"));
	sleep(1);
	buf[0] = '\0';
	err = tc_attach_aname(&c, 2, "root", "", 0);
	read_err(efd, buf, sizeof(buf), 1.0);
	tap_ok(err == 0 && strstr(buf, "attach from unix peer uid=0 pid=") &&
	       strstr(buf, "user 'root'") &&
	       strstr(buf, "acting as") && strstr(buf, "more from") &&
	       strstr(buf, "not logged"),
	       "the next line a second later is the granted attach, as whom, with the count "
	       "held back (%d: %.300s)", err, buf);

	/* names the client sends cannot forge a line of their own */
	buf[0] = '\0';
	sleep(1);
	err = tc_attach_aname(&c, 3, "root", "/x\nv9fsd: attach from 10.0.0.1: forged", 0);
	read_err(efd, buf, sizeof(buf), 1.0);
	tap_ok(err == -ENOENT && strstr(buf, "aname '/x?v9fsd: attach from 10.0.0.1: forged'") &&
	       lines(buf) == 1,
	       "a newline in the aname is logged as '?', one line (%.300s)", buf);
	tc_stop(&c);
	close(efd);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	dir = tc_tmpdir();
	if (!dir)
		return 1;
	chmod(dir, 0711);
	export = strdup(tc_path(dir, "export"));
	mkdir(export, 0755);

	test_help_version();
	test_config_errors();
	test_options();
	test_privilege_errors();
	test_check();
	test_log();

	tc_rmtree(dir);
	return tap_done();
}
