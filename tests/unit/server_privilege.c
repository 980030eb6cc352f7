// SPDX-License-Identifier: GPL-2.0
/*
 * server_privilege.c - what a client of v9fsd may become and what it may
 * make root do: a local user on the unix socket (its file's mode, the
 * peer's credentials, unix_map=), a numeric user unknown to this host
 * (which groups it gets), the counters file (-S) against planted symlinks,
 * and walks that other clients' directory reads and renames must not
 * stall. The test runs as root (v9fsd acts as each attached user) and
 * plays other local users from forked children.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <grp.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "server_client.h"
#include "tap.h"

static char *dir;	/* the export */
static char *sdir;	/* sockets and counters: outside the export */

/* What a child reports: 0 attached (and did what it was asked), else why not. */
enum { R_DONE = 0, R_NOCONNECT = 10, R_NOVERSION, R_NOATTACH, R_NOCREATE,
       R_NOSETUID = 100, R_CRASH };

/* Run fn(arg) in a child acting as uid:gid (no supplementary groups). */
static int as_user(uid_t uid, gid_t gid, int (*fn)(void *), void *arg)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return R_CRASH;
	if (pid == 0) {
		alarm(30);
		if (setgroups(0, NULL) < 0 || setresgid(gid, gid, gid) < 0 ||
		    setresuid(uid, uid, uid) < 0)
			_exit(R_NOSETUID);
		_exit(fn(arg));
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return R_CRASH;
	return WEXITSTATUS(status);
}

struct try {
	const char *addr;
	const char *version;
	const char *uname;
	uint32_t n_uname;
	const char *create;	/* a file to create after attaching, or NULL */
	uint32_t mode;
};

/* tc_dial(), and unix:@NAME for an abstract socket. */
static int dial(const char *addr)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	size_t n;
	int fd;

	if (strncmp(addr, "unix:@", 6))
		return tc_dial(addr);
	n = strlen(addr + 6);
	if (n >= sizeof(sun.sun_path) - 1)
		return -1;
	memcpy(sun.sun_path + 1, addr + 6, n);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sun,
			       (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Connect, attach as t->uname/n_uname, create t->create with t->mode. */
static int try_attach(void *arg)
{
	const struct try *t = arg;
	struct tc c;
	int fd = dial(t->addr), ret = R_DONE;

	if (fd < 0)
		return R_NOCONNECT;
	if (tc_use_fd(&c, fd) < 0 || tc_version(&c, t->version, 65536) < 0)
		ret = R_NOVERSION;
	else if (tc_attach(&c, 0, t->uname, t->n_uname) < 0)
		ret = R_NOATTACH;
	else if (t->create &&
		 tc_create(&c, 0, t->create, t->mode,
			   c.d == V9P_9P2000L ? V9P_DOTL_RDWR : V9P_ORDWR) < 0)
		ret = R_NOCREATE;
	tc_stop(&c);
	return ret;
}

/* A file of the export owned by root with the set-uid bit: none may exist. */
static bool setuid_root_file(void)
{
	struct stat st;
	const char *names[] = { "suid-L", "suid-u", "suid-name", "suid-open", NULL };

	for (int i = 0; names[i]; i++)
		if (lstat(tc_path(dir, names[i]), &st) == 0 && st.st_uid == 0 &&
		    (st.st_mode & S_ISUID))
			return true;
	return false;
}

static int start_unix(struct tc_daemon *d, const char *sock, mode_t mask,
		      const char *const *opts)
{
	const char *args[16] = { "-e", dir, "-l", sock };
	int n = 4, got;
	mode_t old;

	while (opts && *opts && n < 14)
		args[n++] = *opts++;
	args[n] = NULL;
	old = umask(mask);
	got = tc_daemon_start(d, args, 1);
	umask(old);
	return got;
}

static mode_t sock_mode(const char *addr, gid_t *gid)
{
	struct stat st;

	if (stat(addr + 5, &st) < 0)
		return (mode_t)-1;
	if (gid)
		*gid = st.st_gid;
	return st.st_mode & 07777;
}

/* The socket's mode is 0600 whatever the umask; nobody cannot get root. */
static void test_socket_mode(void)
{
	const mode_t masks[] = { 0, 002 };
	struct tc_daemon d;
	char sock[4200];

	snprintf(sock, sizeof(sock), "unix:%s", tc_path(sdir, "mode.sock"));
	for (int i = 0; i < 2; i++) {
		struct try t = { d.addrs[0], "9P2000.L", "root", 0, "suid-open", 04755 };
		mode_t m;
		int r;

		if (start_unix(&d, sock, masks[i], NULL) != 1) {
			tap_ok(0, "v9fsd starts on a unix socket under umask %03o", masks[i]);
			continue;
		}
		m = sock_mode(d.addrs[0], NULL);
		tap_ok(m == 0600, "unix socket made under umask %03o has mode 0600 (got %04o)",
		       masks[i], m);
		t.addr = d.addrs[0];
		r = as_user(65534, 65534, try_attach, &t);
		tap_ok(r != R_DONE && !setuid_root_file(),
		       "under umask %03o, nobody cannot attach as root and make a set-uid root file (child: %d)",
		       masks[i], r);
		unlink(tc_path(dir, "suid-open"));
		tc_daemon_stop(&d);
	}
}

/*
 * With the socket opened to a group (unix_group=), the peer's credentials
 * alone decide who it may attach as: root never, itself always, the uids
 * unix_map= lists for it.
 */
static void test_peer_check(void)
{
	const char *opts[] = { "-o", "unix_group=nogroup", "-o", "unix_map=65533:65532",
			       "-o", "unix_map=65533:65531", NULL };
	struct tc_daemon d;
	char sock[4200];
	struct stat st;
	struct group *g = getgrnam("nogroup");
	gid_t sg = (gid_t)-1;
	mode_t m;
	int r;

	if (!g || g->gr_gid != 65534) {
		tap_ok(0, "group nogroup is gid 65534 on this host");
		return;
	}
	snprintf(sock, sizeof(sock), "unix:%s", tc_path(sdir, "group.sock"));
	if (start_unix(&d, sock, 0, opts) != 1) {
		tap_ok(0, "v9fsd starts with unix_group=nogroup and unix_map=");
		return;
	}
	m = sock_mode(d.addrs[0], &sg);
	tap_ok(m == 0660 && sg == 65534,
	       "unix_group=nogroup: socket mode 0660 group 65534 (got %04o group %d)",
	       m, (int)sg);

	{
		struct try t = { d.addrs[0], "9P2000.L", "root", 0, "suid-L", 04755 };

		r = as_user(65534, 65534, try_attach, &t);
		tap_ok(r == R_NOATTACH, "nobody peer: .L attach as n_uname 0 refused (child: %d)", r);
	}
	{
		struct try t = { d.addrs[0], "9P2000.u", "root", V9P_NONUNAME, "suid-u", 04755 };

		r = as_user(65534, 65534, try_attach, &t);
		tap_ok(r == R_NOATTACH, "nobody peer: .u attach as uname root refused (child: %d)", r);
	}
	{
		struct try t = { d.addrs[0], "9P2000", "root", V9P_NONUNAME, "suid-name", 04755 };

		r = as_user(65534, 65534, try_attach, &t);
		tap_ok(r == R_NOATTACH, "nobody peer: 9P2000 attach as root refused (child: %d)", r);
	}
	tap_ok(!setuid_root_file(), "no set-uid root file was made by the nobody peer");
	{
		struct try t = { d.addrs[0], "9P2000.L", "nobody", 65534, "by-nobody", 0644 };

		r = as_user(65534, 65534, try_attach, &t);
		if (lstat(tc_path(dir, "by-nobody"), &st) < 0)
			st.st_uid = (uid_t)-1;
		tap_ok(r == R_DONE && st.st_uid == 65534,
		       "nobody peer attaches as itself; its file is owned by 65534 (child: %d, uid %d)",
		       r, (int)st.st_uid);
	}
	{
		struct try t = { d.addrs[0], "9P2000.L", "", 65532, "by-mapped", 0644 };

		r = as_user(65533, 65534, try_attach, &t);
		if (lstat(tc_path(dir, "by-mapped"), &st) < 0)
			st.st_uid = (uid_t)-1;
		tap_ok(r == R_DONE && st.st_uid == 65532,
		       "unix_map=65533:65532: peer 65533 attaches as 65532; its file is owned by 65532 (child: %d, uid %d)",
		       r, (int)st.st_uid);
	}
	{
		struct try t = { d.addrs[0], "9P2000.L", "", 65531, NULL, 0 };

		r = as_user(65533, 65534, try_attach, &t);
		tap_ok(r == R_DONE, "unix_map=65533:65531: peer 65533 attaches as 65531 (child: %d)", r);
	}
	{
		struct try t = { d.addrs[0], "9P2000.L", "", 65530, "by-unmapped", 0644 };

		r = as_user(65533, 65534, try_attach, &t);
		tap_ok(r == R_NOATTACH, "peer 65533 attaching as 65530 (not mapped) is refused (child: %d)", r);
	}
	{
		struct try t = { d.addrs[0], "9P2000.L", "", 65533, NULL, 0 };

		r = as_user(65533, 65534, try_attach, &t);
		tap_ok(r == R_DONE, "peer 65533 still attaches as itself (child: %d)", r);
	}
	tc_daemon_stop(&d);
}

/* An abstract socket has no file: the peer check alone guards it. */
static void test_abstract_socket(void)
{
	const char *args[] = { "-e", dir, "-l", NULL, NULL };
	struct tc_daemon d;
	char sock[64];
	int r;

	snprintf(sock, sizeof(sock), "unix:@v9fsd-privilege-%d", (int)getpid());
	args[3] = sock;
	if (tc_daemon_start(&d, args, 1) != 1 || strcmp(d.addrs[0], sock)) {
		tap_ok(0, "v9fsd listens on %s", sock);
		tc_daemon_stop(&d);
		return;
	}
	{
		struct try t = { d.addrs[0], "9P2000.L", "root", 0, "suid-L", 04755 };

		r = as_user(65534, 65534, try_attach, &t);
		tap_ok(r == R_NOATTACH && !setuid_root_file(),
		       "abstract socket: a nobody peer connects but cannot attach as root (child: %d)", r);
	}
	{
		struct try t = { d.addrs[0], "9P2000.L", "", 65534, NULL, 0 };

		r = as_user(65534, 65534, try_attach, &t);
		tap_ok(r == R_DONE, "abstract socket: a nobody peer attaches as itself (child: %d)", r);
	}
	tc_daemon_stop(&d);
}

/*
 * A socket passed by a service manager keeps the mode the manager gave
 * its file (here 0666, systemd's default): its peers are checked as
 * those of -l's sockets.
 */
static void test_passed_socket(void)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	char addr[4200], line[256] = "";
	int lfd, pfd[2], status, r = -1;
	FILE *fp;
	pid_t pid;

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", tc_path(sdir, "passed.sock"));
	snprintf(addr, sizeof(addr), "unix:%s", sun.sun_path);
	lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sun, sizeof(sun)) < 0 ||
	    chmod(sun.sun_path, 0666) < 0 || listen(lfd, 8) < 0 || pipe(pfd) < 0) {
		tap_ok(0, "a listening unix socket to pass");
		return;
	}
	pid = fork();
	if (pid == 0) {
		char me[32];

		dup2(pfd[1], 2);
		dup2(lfd, 3);
		snprintf(me, sizeof(me), "%d", (int)getpid());
		setenv("LISTEN_PID", me, 1);
		setenv("LISTEN_FDS", "1", 1);
		execl(V9FSD_BIN, "v9fsd", "-f", "-e", dir, (char *)NULL);
		_exit(127);
	}
	close(lfd);
	close(pfd[1]);
	fp = fdopen(pfd[0], "r");
	if (fp && fgets(line, sizeof(line), fp) && strstr(line, "listening on")) {
		struct try t = { addr, "9P2000.L", "root", 0, "suid-L", 04755 };

		r = as_user(65534, 65534, try_attach, &t);
		tap_ok(r == R_NOATTACH && !setuid_root_file(),
		       "passed unix socket (mode 0666): a nobody peer cannot attach as root (child: %d)", r);
		t.uname = "";
		t.n_uname = 65534;
		t.create = NULL;
		r = as_user(65534, 65534, try_attach, &t);
		tap_ok(r == R_DONE, "passed unix socket: a nobody peer attaches as itself (child: %d)", r);
	} else {
		tap_ok(0, "v9fsd serves a passed unix socket (%s)", line);
	}
	kill(pid, SIGTERM);
	waitpid(pid, &status, 0);
	if (fp)
		fclose(fp);
	unlink(sun.sun_path);
}

/*
 * Many peers at once, each a process of its own uid with threads: every
 * one is allowed itself and refused its neighbour, and its files are its own.
 */
#define NPEERS		12
#define NTHREADS	4
#define PEER_UID0	61000

struct peer_arg {
	const char *addr;
	uid_t uid;
	int th;
	int bad;
};

static void *peer_thread(void *p)
{
	struct peer_arg *a = p;
	char name[64];

	for (int k = 0; k < 5; k++) {
		struct try own = { a->addr, "9P2000.L", "", a->uid, name, 0600 };
		struct try other = { a->addr, "9P2000.L", "", a->uid + 1, NULL, 0 };

		snprintf(name, sizeof(name), "peer-%u-%d-%d", (unsigned int)a->uid, a->th, k);
		if (try_attach(&own) != R_DONE)
			a->bad++;
		if (try_attach(&other) != R_NOATTACH)
			a->bad++;
	}
	return NULL;
}

static int peer_main(void *p)
{
	struct peer_arg args[NTHREADS];
	pthread_t t[NTHREADS];
	int bad = 0;

	for (int i = 0; i < NTHREADS; i++) {
		args[i] = *(struct peer_arg *)p;
		args[i].th = i;
		pthread_create(&t[i], NULL, peer_thread, &args[i]);
	}
	for (int i = 0; i < NTHREADS; i++) {
		pthread_join(t[i], NULL);
		bad += args[i].bad;
	}
	return bad > 99 ? 99 : bad;
}

static void test_many_peers(void)
{
	const char *opts[] = { "-o", "unix_group=nogroup", NULL };
	struct tc_daemon d;
	char sock[4200];
	pid_t pids[NPEERS];
	int failed = 0, wrong_owner = 0, files = 0;

	snprintf(sock, sizeof(sock), "unix:%s", tc_path(sdir, "many.sock"));
	if (start_unix(&d, sock, 0, opts) != 1) {
		tap_ok(0, "v9fsd starts for the concurrent peers");
		return;
	}
	for (int i = 0; i < NPEERS; i++) {
		struct peer_arg a = { d.addrs[0], PEER_UID0 + 2 * i, 0, 0 };

		pids[i] = fork();
		if (pids[i] == 0)
			_exit(as_user(a.uid, 65534, peer_main, &a));
	}
	for (int i = 0; i < NPEERS; i++) {
		int status;

		if (waitpid(pids[i], &status, 0) != pids[i] || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			failed++;
	}
	for (int i = 0; i < NPEERS; i++) {
		for (int th = 0; th < NTHREADS; th++) {
			for (int k = 0; k < 5; k++) {
				char name[64];
				struct stat st;

				snprintf(name, sizeof(name), "peer-%u-%d-%d",
					 PEER_UID0 + 2 * i, th, k);
				if (lstat(tc_path(dir, name), &st) < 0)
					continue;
				files++;
				if (st.st_uid != (uid_t)(PEER_UID0 + 2 * i))
					wrong_owner++;
				unlink(tc_path(dir, name));
			}
		}
	}
	tap_ok(failed == 0 && files == NPEERS * NTHREADS * 5 && wrong_owner == 0,
	       "%d peers x %d threads at once: each allowed only itself (%d peers saw a wrong answer, %d files, %d of another owner)",
	       NPEERS, NTHREADS, failed, files, wrong_owner);
	tc_daemon_stop(&d);
}

/*
 * A numeric user this host does not know gets no group of the same number:
 * a file of that group, mode 0640, stays unreadable to it.
 */
#define UNKNOWN_ID	64123

static int read_grpfile(struct tc *c, const char *version, const char *uname,
			uint32_t n_uname)
{
	char buf[16];
	int err;

	err = tc_version(c, version, 65536);
	if (!err)
		err = tc_attach(c, 0, uname, n_uname);
	if (!err)
		err = tc_walk(c, 0, 1, "grpfile");
	if (!err)
		err = tc_open(c, 1, 0);
	if (!err)
		err = tc_read(c, 1, 0, buf, sizeof(buf));
	return err;
}

static void test_unknown_uid_groups(void)
{
	const struct {
		const char *version, *uname;
		uint32_t n_uname;
	} cases[] = {
		{ "9P2000.L", "", UNKNOWN_ID },
		{ "9P2000.u", "", UNKNOWN_ID },
		{ "9P2000.u", "64123", V9P_NONUNAME },
		{ "9P2000", "64123", V9P_NONUNAME },
	};
	const char *tcp_args[] = { "-e", NULL, "-l", "tcp:127.0.0.1:0", NULL };
	struct tc_daemon d;
	int fd;

	if (getpwuid(UNKNOWN_ID) || getgrgid(UNKNOWN_ID)) {
		tap_ok(0, "uid/gid %d is unknown to this host", UNKNOWN_ID);
		return;
	}
	fd = open(tc_path(dir, "grpfile"), O_CREAT | O_WRONLY | O_TRUNC, 0640);
	if (fd < 0 || write(fd, "group-only", 10) != 10 ||
	    fchown(fd, 0, UNKNOWN_ID) < 0 || fchmod(fd, 0640) < 0) {
		tap_ok(0, "make a root:%d 0640 file", UNKNOWN_ID);
		return;
	}
	close(fd);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tc c;
		int err;

		if (tc_start(&c, dir, NULL) < 0) {
			tap_ok(0, "v9fsd -s starts");
			continue;
		}
		err = read_grpfile(&c, cases[i].version, cases[i].uname, cases[i].n_uname);
		tap_ok(err == -EACCES,
		       "%s attach as '%s'/%d (no passwd entry): root:%d 0640 file not readable (got %d)",
		       cases[i].version, cases[i].uname, (int)cases[i].n_uname,
		       UNKNOWN_ID, err);
		tc_stop(&c);
	}
	/* and over TCP, where attaches are squashed */
	tcp_args[1] = dir;
	if (tc_daemon_start(&d, tcp_args, 1) == 1) {
		struct tc c;
		int err = -1;

		fd = tc_dial(d.addrs[0]);
		if (fd >= 0 && tc_use_fd(&c, fd) == 0) {
			err = read_grpfile(&c, "9P2000.L", "", UNKNOWN_ID);
			tc_stop(&c);
		}
		tap_ok(err == -EACCES, "tcp .L attach as %d: group file not readable (got %d)",
		       UNKNOWN_ID, err);
		tc_daemon_stop(&d);
	} else {
		tap_ok(0, "v9fsd starts on tcp");
	}
	unlink(tc_path(dir, "grpfile"));
}

/*
 * -S FILE: root writes it; symlinks planted at FILE and at FILE.tmp must
 * not make it write elsewhere, and FILE inside the export is refused.
 */
static void test_stats_file(void)
{
	char target[4200], stats[4200], tmp[4300], buf[64] = "";
	const char *extra[] = { "-S", stats, NULL };
	struct tc c;
	struct stat st;
	int fd, n = -1;

	snprintf(target, sizeof(target), "%s", tc_path(sdir, "precious"));
	snprintf(stats, sizeof(stats), "%s", tc_path(sdir, "counters"));
	snprintf(tmp, sizeof(tmp), "%s.tmp", stats);
	fd = open(target, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	if (fd < 0 || write(fd, "precious", 8) != 8) {
		tap_ok(0, "make the target file");
		return;
	}
	close(fd);
	if (symlink(target, tmp) < 0 || symlink(target, stats) < 0) {
		tap_ok(0, "plant symlinks at FILE and FILE.tmp");
		return;
	}
	if (tc_setup(&c, dir, "9P2000.L", extra) == 0)
		tc_clunk(&c, 0);
	tc_stop(&c);
	fd = open(target, O_RDONLY);
	if (fd >= 0) {
		n = (int)read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	tap_ok(n == 8 && !memcmp(buf, "precious", 8),
	       "-S with symlinks planted at FILE and FILE.tmp: the target is untouched (%d bytes: %.12s)",
	       n, n > 0 ? buf : "");
	tap_ok(lstat(stats, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0,
	       "-S FILE is written as a regular file over the planted symlink");
	unlink(tmp);
	unlink(stats);
	unlink(target);

	/* inside the export: refused before anything is served */
	snprintf(stats, sizeof(stats), "%s", tc_path(dir, "counters"));
	n = -1;
	if (tc_start(&c, dir, extra) == 0) {
		n = tc_version(&c, "9P2000.L", 65536);
		tc_stop(&c);
	}
	tap_ok(n < 0 && lstat(stats, &st) < 0,
	       "-S FILE inside the export is refused at start-up (version: %d)", n);
	unlink(stats);
}

/*
 * Walks are not stalled by other clients: one lists a 9P2000 directory of
 * thousands of files owned by 100 uids this host does not know (a name
 * lookup per entry) while another renames, over and over; a third
 * connection's walks must each take well under a second.
 */
#define BIG_FILES	15000
#define BIG_UIDS	100
#define WALK_BOUND	0.5	/* s: the slowest walk allowed */

static volatile int stop_load;
static char busy_addr[4200];

static void *lister(void *p)
{
	long *reads = p;
	struct tc c;
	uint32_t count = (1u << 20) - 64;
	int fd = tc_dial(busy_addr);

	if (fd < 0 || tc_use_fd(&c, fd) < 0)
		return NULL;
	if (tc_version(&c, "9P2000", 1u << 20) == 0 &&
	    tc_attach(&c, 0, "root", V9P_NONUNAME) == 0 &&
	    tc_walk(&c, 0, 1, "big") == 0 && tc_open(&c, 1, V9P_OREAD) == 0) {
		uint64_t off = 0;

		while (!stop_load) {
			struct v9p_fcall t;

			memset(&t, 0, sizeof(t));
			t.type = V9P_TREAD;
			t.tread.fid = 1;
			t.tread.offset = off;
			t.tread.count = count;
			if (tc_rpc(&c, &t) < 0)
				break;
			off = c.r.rread.count ? off + c.r.rread.count : 0;
			(*reads)++;
		}
	}
	tc_stop(&c);
	return NULL;
}

static void *renamer(void *p)
{
	long *renames = p;
	struct tc c;
	int fd = tc_dial(busy_addr);

	if (fd < 0 || tc_use_fd(&c, fd) < 0)
		return NULL;
	if (tc_version(&c, "9P2000.L", 65536) == 0 && tc_attach(&c, 0, "root", 0) == 0 &&
	    tc_walk(&c, 0, 1, "ren") == 0) {
		for (int k = 0; !stop_load; k++) {
			struct v9p_fcall t;

			memset(&t, 0, sizeof(t));
			t.type = V9P_TRENAMEAT;
			t.trenameat.olddirfid = 1;
			t.trenameat.newdirfid = 1;
			v9p_str_set(&t.trenameat.oldname, k & 1 ? "b" : "a");
			v9p_str_set(&t.trenameat.newname, k & 1 ? "a" : "b");
			if (tc_rpc(&c, &t) < 0)
				break;
			(*renames)++;
		}
	}
	tc_stop(&c);
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void test_walks_not_stalled(void)
{
	const char *args[] = { "-e", dir, "-l", busy_addr, NULL };
	static double lat[4000];
	struct tc_daemon d;
	pthread_t tl, tr;
	long reads = 0, renames = 0;
	struct tc c;
	int n = 0, fd, bad = 0;
	double t0;

	mkdir(tc_path(dir, "big"), 0755);
	mkdir(tc_path(dir, "ren"), 0755);
	mkdir(tc_path(dir, "ren/a"), 0755);
	for (int i = 0; i < BIG_FILES; i++) {
		char name[32];

		snprintf(name, sizeof(name), "big/f%05d", i);
		fd = open(tc_path(dir, name), O_CREAT | O_WRONLY | O_EXCL, 0644);
		if (fd < 0 || fchown(fd, 70000 + i % BIG_UIDS, 70000 + i % BIG_UIDS) < 0)
			bad++;
		if (fd >= 0)
			close(fd);
	}
	snprintf(busy_addr, sizeof(busy_addr), "unix:%s", tc_path(sdir, "busy.sock"));
	if (bad || tc_daemon_start(&d, args, 1) != 1) {
		tap_ok(0, "make %d files and start v9fsd (%d failed)", BIG_FILES, bad);
		return;
	}
	fd = tc_dial(busy_addr);
	if (fd < 0 || tc_use_fd(&c, fd) < 0 || tc_version(&c, "9P2000.L", 65536) < 0 ||
	    tc_attach(&c, 0, "root", 0) < 0) {
		tap_ok(0, "the walking client attaches");
		tc_daemon_stop(&d);
		return;
	}
	stop_load = 0;
	pthread_create(&tl, NULL, lister, &reads);
	pthread_create(&tr, NULL, renamer, &renames);
	usleep(200 * 1000);
	t0 = tc_now();
	while (n < (int)(sizeof(lat) / sizeof(lat[0])) && tc_now() - t0 < 6.0) {
		double w0 = tc_now();

		if (tc_walk(&c, 0, 1, "ren") < 0 || tc_clunk(&c, 1) < 0) {
			bad++;
			break;
		}
		lat[n++] = tc_now() - w0;
		usleep(2000);
	}
	stop_load = 1;
	pthread_join(tl, NULL);
	pthread_join(tr, NULL);
	tc_stop(&c);
	tc_daemon_stop(&d);
	qsort(lat, (size_t)n, sizeof(lat[0]), cmp_double);
	tap_diag("%d walks: median %.1f ms, 99th %.1f ms, max %.1f ms; meanwhile %ld directory reads of 1 MiB, %ld renames",
		 n, n ? lat[n / 2] * 1e3 : -1, n ? lat[n * 99 / 100] * 1e3 : -1,
		 n ? lat[n - 1] * 1e3 : -1, reads, renames);
	tap_ok(!bad && n > 10 && reads > 0 && renames > 0 && lat[n - 1] < WALK_BOUND,
	       "walks beside a lister of %d files of %d unknown uids and a renamer: max %.0f ms < %.0f ms",
	       BIG_FILES, BIG_UIDS, n ? lat[n - 1] * 1e3 : -1, WALK_BOUND * 1e3);
}

/*
 * v9fsd -s on a TCP connection (handed over by a super-server such as
 * inetd) serves a network client: a root attach is squashed as on a
 * listening socket.
 */
static void test_stdin_tcp_squashed(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	int lfd, cfd = -1, afd = -1, err = -1, status;
	struct stat st;
	struct tc c;
	pid_t pid;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(lfd, 1) < 0 || getsockname(lfd, (struct sockaddr *)&sa, &sl) < 0 ||
	    (cfd = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
	    connect(cfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    (afd = accept(lfd, NULL, NULL)) < 0) {
		tap_ok(0, "a loopback TCP connection for v9fsd -s");
		return;
	}
	close(lfd);
	pid = fork();
	if (pid == 0) {
		close(cfd);
		dup2(afd, 0);
		dup2(afd, 1);
		close(afd);
		execl(V9FSD_BIN, "v9fsd", "-s", "-e", dir, (char *)NULL);
		_exit(127);
	}
	close(afd);
	if (tc_use_fd(&c, cfd) == 0) {
		err = tc_version(&c, "9P2000.L", 65536);
		if (!err)
			err = tc_attach(&c, 0, "root", 0);
		if (!err)
			err = tc_create(&c, 0, "by-inetd-root", 0644, V9P_DOTL_RDWR);
		tc_stop(&c);
	}
	waitpid(pid, &status, 0);
	if (lstat(tc_path(dir, "by-inetd-root"), &st) < 0)
		st.st_uid = (uid_t)-1;
	tap_ok(err == 0 && st.st_uid == 65534,
	       "-s on a TCP connection: a root attach is squashed (create %d, owner %d)",
	       err, (int)st.st_uid);
	unlink(tc_path(dir, "by-inetd-root"));
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	if (geteuid() != 0) {
		printf("1..0 # SKIP needs root (plays other users)\n");
		return 0;
	}
	dir = tc_tmpdir();
	sdir = tc_tmpdir();
	if (!dir || !sdir)
		return 1;
	/* every user may make files in the export */
	chmod(dir, 0777);

	test_socket_mode();
	test_peer_check();
	test_abstract_socket();
	test_passed_socket();
	test_many_peers();
	test_stdin_tcp_squashed();
	test_unknown_uid_groups();
	test_stats_file();
	test_walks_not_stalled();

	tc_rmtree(dir);
	tc_rmtree(sdir);
	return tap_done();
}
