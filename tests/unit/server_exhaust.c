// SPDX-License-Identifier: GPL-2.0
/*
 * server_exhaust.c - v9fsd against clients that try to use up what the
 * server has, or to race it as root: a chain of Tflushes as deep as the
 * request limits allow, a non-owner's set-id drop racing the owner's
 * chmod, slow readers that would hold every worker, idle connections that
 * would hold every descriptor, extended-attribute buffers that would hold
 * memory without bound. Each attack is bounded in time, with several
 * connections at once where it uses them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "server_client.h"
#include "tap.h"

#ifndef V9FSD_BIN
#define V9FSD_BIN "build/bin/v9fsd"
#endif

#define NOBODY 65534

static char *dir;

/* A name in the test's scratch export. */
static char *at(const char *name)
{
	return tc_path(dir, name);
}

/* Start a daemon on a unix socket in the export with these -o options. */
static int start_daemon(struct tc_daemon *d, const char *opts, const char *const *more)
{
	static char sock[4200];
	const char *args[24] = { "-e", dir, "-l", sock, "-t", "2", "-o", opts };
	int n = 8;

	snprintf(sock, sizeof(sock), "unix:%s", at("sock"));
	while (more && *more && n < 22)
		args[n++] = *more++;
	args[n] = NULL;
	return tc_daemon_start(d, args, 1) == 1 ? 0 : -1;
}

/* A session on the daemon: Tversion, Tattach as uid (fid 0). */
static int session(struct tc *c, const struct tc_daemon *d, uint32_t msize, uint32_t uid)
{
	int fd = tc_dial(d->addrs[0]);

	if (fd < 0)
		return -1;
	if (tc_use_fd(c, fd) < 0) {
		close(fd);
		return -1;
	}
	if (tc_version(c, "9P2000.L", msize) < 0 ||
	    tc_attach(c, 0, uid == NOBODY ? "nobody" : uid ? "user" : "root", uid) < 0) {
		tc_stop(c);
		return -1;
	}
	return 0;
}

/* One reply within ms milliseconds: 0, or -1 (none, or the connection ended). */
static int recv_within(struct tc *c, struct v9p_fcall *r, int ms)
{
	struct pollfd p = { .fd = c->fd, .events = POLLIN };

	if (poll(&p, 1, ms) != 1 || tc_recv(c, r) < 0)
		return -1;
	return 0;
}

/* VmRSS of a process in KiB, or -1. */
static long rss_kb(pid_t pid)
{
	char p[64], line[256];
	long kb = -1;
	FILE *fp;

	snprintf(p, sizeof(p), "/proc/%d/status", (int)pid);
	fp = fopen(p, "r");
	if (!fp)
		return -1;
	while (fgets(line, sizeof(line), fp))
		sscanf(line, "VmRSS: %ld", &kb);
	fclose(fp);
	return kb;
}

static struct v9p_fcall *lock_msg(uint32_t fid, uint8_t type, bool wait)
{
	static struct v9p_fcall t;

	memset(&t, 0, sizeof(t));
	t.type = V9P_TLOCK;
	t.tlock.fid = fid;
	t.tlock.type = type;
	t.tlock.flags = wait ? V9P_LOCK_FLAGS_BLOCK : 0;
	t.tlock.length = 0;
	v9p_str_set(&t.tlock.client_id, "x");
	return &t;
}

/* Pack t with tag into buf at *len. */
static void pack_at(struct tc *c, struct v9p_fcall *t, uint16_t tag, uint8_t *buf,
		    size_t cap, size_t *len)
{
	int n;

	t->tag = tag;
	n = v9p_pack(t, c->d, buf + *len, cap - *len);
	if (n > 0)
		*len += (size_t)n;
}

/*
 * A chain of Tflushes, each naming the one before, the first naming a
 * request that cannot run yet: two blocking Tlocks take the connection's
 * share of workers (max_threads=8: 2), so the Tgetattr behind them waits
 * in the queue, and every flush waits on the one before it. When another
 * connection lets go of the lock the chain is answered in one go.
 */
#define CHAIN 8000

static void test_flush_chain(void)
{
	struct tc_daemon d;
	struct tc h, c;
	struct v9p_fcall r, *t;
	uint8_t *buf = malloc((CHAIN + 16) * 16);
	size_t len = 0;
	int fd, got = 0, inorder = 0, locks = 0, other = 0;
	uint16_t want = 4;
	double t0;

	fd = open(at("lk"), O_CREAT | O_RDWR, 0666);
	close(fd);
	if (start_daemon(&d, "max_threads=8,max_reqs=4096,max_total_reqs=8192", NULL) < 0 ||
	    session(&h, &d, 8192, 0) < 0 || session(&c, &d, 1024, 0) < 0) {
		tap_ok(0, "v9fsd starts for the flush chain");
		tc_daemon_stop(&d);
		free(buf);
		return;
	}
	/* the holder's write lock */
	tc_walk(&h, 0, 1, "lk");
	tc_open(&h, 1, V9P_DOTL_RDWR);
	tc_rpc(&h, lock_msg(1, V9P_LOCK_TYPE_WRLCK, false));
	tc_walk(&c, 0, 1, "lk");
	tc_open(&c, 1, V9P_DOTL_RDWR);
	tc_walk(&c, 0, 2, "lk");
	tc_open(&c, 2, V9P_DOTL_RDWR);

	pack_at(&c, lock_msg(1, V9P_LOCK_TYPE_RDLCK, true), 1, buf, (CHAIN + 16) * 16, &len);
	pack_at(&c, lock_msg(2, V9P_LOCK_TYPE_RDLCK, true), 2, buf, (CHAIN + 16) * 16, &len);
	{
		struct v9p_fcall g;

		memset(&g, 0, sizeof(g));
		g.type = V9P_TGETATTR;
		g.tgetattr.fid = 1;
		g.tgetattr.request_mask = V9P_GETATTR_BASIC;
		pack_at(&c, &g, 3, buf, (CHAIN + 16) * 16, &len);
		for (int i = 0; i < CHAIN; i++) {
			memset(&g, 0, sizeof(g));
			g.type = V9P_TFLUSH;
			g.tflush.oldtag = (uint16_t)(3 + i);
			pack_at(&c, &g, (uint16_t)(4 + i), buf, (CHAIN + 16) * 16, &len);
		}
	}
	tc_send_raw(&c, buf, len);
	usleep(300000);		/* read and chained */
	t = lock_msg(1, V9P_LOCK_TYPE_UNLCK, false);
	tc_rpc(&h, t);
	t0 = tc_now();
	while (got + locks + other < CHAIN + 2 && tc_now() - t0 < 20) {
		if (recv_within(&c, &r, 5000) < 0)
			break;
		if (r.type == V9P_RLOCK && (r.tag == 1 || r.tag == 2)) {
			locks++;
		} else if (r.type == V9P_RFLUSH) {
			inorder += r.tag == want;
			want = (uint16_t)(r.tag + 1);
			got++;
		} else {
			other++;
		}
	}
	tap_ok(got == CHAIN && inorder == CHAIN && locks == 2 && other == 0,
	       "a chain of %d Tflushes behind a waiting request: every Rflush, in order "
	       "(%d Rflush, %d in order, %d Rlock, %d other, %.1f s)",
	       CHAIN, got, inorder, locks, other, tc_now() - t0);
	tap_ok(tc_daemon_alive(&d) && tc_walk(&c, 0, 5, "") == 0,
	       "v9fsd lives through the chain and serves the connection");
	tc_stop(&c);
	tc_stop(&h);
	tap_ok(tc_daemon_stop(&d) == 0, "v9fsd exits 0 after the chain");
	unlink(at("lk"));
	free(buf);
}

/* Tsetattr of the mode alone on fid. */
static int set_mode(struct tc *c, uint32_t fid, mode_t mode)
{
	struct v9p_fcall t;

	memset(&t, 0, sizeof(t));
	t.type = V9P_TSETATTR;
	t.tsetattr.fid = fid;
	t.tsetattr.valid = V9P_SETATTR_MODE;
	t.tsetattr.mode = mode;
	return tc_rpc(c, &t);
}

struct dropper {
	const struct tc_daemon *d;
	volatile bool stop;
	long tries, ok;
	int err;
};

/*
 * A writer who is not the owner asks, over and over, for the drop of the
 * set-uid bit a client sends before a write: 04777 -> 0777.
 */
static void *drop_loop(void *p)
{
	struct dropper *a = p;
	struct tc c;

	if (session(&c, a->d, 8192, NOBODY) < 0 || tc_walk(&c, 0, 1, "setid") < 0) {
		a->err = -1;
		return NULL;
	}
	while (!a->stop) {
		int err = set_mode(&c, 1, 0777);

		a->tries++;
		a->ok += err == 0;
		if (err < 0 && err != -EACCES && err != -EPERM) {
			a->err = err;
			break;
		}
	}
	tc_stop(&c);
	return NULL;
}

/*
 * The owner flips its file between 04777 and 04700 while a non-owner who
 * may write it (while it is 04777) drops the set-uid bit: once the owner's
 * chmod to 04700 is answered, the file must stay 04700 (or lose set-id
 * bits at most), never be writable by others again. The owner's chmods go
 * through v9fsd, or (local) straight to the host file, where v9fsd's own
 * locks do not see them.
 */
#define OWNER 1		/* daemon */

static int owner_chmod(struct tc *o, bool local, mode_t mode)
{
	if (local)
		return chmod(at("setid"), mode) < 0 ? -errno : 0;
	return set_mode(o, 1, mode);
}

static void test_setid_race(bool local)
{
	const char *who = local ? "a local chmod" : "the owner's chmod";
	struct dropper a[2];
	pthread_t th[2];
	struct tc_daemon d;
	struct tc o;
	struct stat st;
	long flips = 0, bad = 0;
	mode_t worst = 0;
	double until;
	int fd, err = 0;

	fd = open(at("setid"), O_CREAT | O_WRONLY, 0644);
	if (fd < 0 || fchown(fd, OWNER, OWNER) < 0 || fchmod(fd, 04777) < 0) {
		tap_ok(0, "a set-uid file of uid %d", OWNER);
		return;
	}
	close(fd);
	if (start_daemon(&d, "max_threads=16", NULL) < 0 ||
	    session(&o, &d, 8192, OWNER) < 0 || tc_walk(&o, 0, 1, "setid") < 0) {
		tap_ok(0, "v9fsd starts for the set-id race");
		tc_daemon_stop(&d);
		return;
	}
	for (int i = 0; i < 2; i++) {
		memset(&a[i], 0, sizeof(a[i]));
		a[i].d = &d;
		pthread_create(&th[i], NULL, drop_loop, &a[i]);
	}
	until = tc_now() + 3.0;
	while (tc_now() < until && err == 0) {
		err = owner_chmod(&o, local, 04700);
		if (err == 0 && lstat(at("setid"), &st) == 0 && (st.st_mode & 0077)) {
			if (!bad++)
				worst = st.st_mode & 07777;
		}
		if (err == 0)
			err = owner_chmod(&o, local, 04777);
		flips++;
	}
	/* the owner's last word */
	if (err == 0)
		err = owner_chmod(&o, local, 04700);
	for (int i = 0; i < 2; i++) {
		a[i].stop = true;
		pthread_join(th[i], NULL);
	}
	lstat(at("setid"), &st);
	tap_diag("%ld flips by %s; the non-owners tried %ld drops, %ld done",
		 flips, who, a[0].tries + a[1].tries, a[0].ok + a[1].ok);
	tap_ok(err == 0 && a[0].err == 0 && a[1].err == 0 && a[0].ok + a[1].ok > 0,
	       "%s: owner and non-owners are served throughout (%d, %d, %d)", who, err,
	       a[0].err, a[1].err);
	tap_ok(bad == 0, "after %s to 04700 no non-owner's set-id drop makes "
	       "it writable by others (%ld times, e.g. %04o)", who, bad, worst);
	tap_ok((st.st_mode & 07777 & ~(mode_t)(S_ISUID | S_ISGID)) == 0700,
	       "%s: the last chmod stands: %04o", who, st.st_mode & 07777);
	tc_stop(&o);
	tc_daemon_stop(&d);
	unlink(at("setid"));
}

/* Connect to tcp:127.0.0.1:PORT with a small receive buffer; fd or -1. */
static int dial_small(const char *addr)
{
	struct sockaddr_in s4 = { .sin_family = AF_INET };
	const char *colon = strrchr(addr, ':');
	int fd, sz = 4096;

	if (strncmp(addr, "tcp:127.0.0.1:", 14) || !colon)
		return -1;
	s4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	s4.sin_port = htons((uint16_t)atoi(colon + 1));
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	if (connect(fd, (struct sockaddr *)&s4, sizeof(s4)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * A victim's Tfsync and eight Tgetattrs, pipelined (they need the worker
 * pool): every reply within limit seconds?
 */
static bool victim_served(const struct tc_daemon *d, double limit, double *took)
{
	uint8_t batch[1024];
	size_t len = 0;
	struct v9p_fcall r;
	struct tc c;
	double t0 = tc_now();
	bool ok;

	*took = -1;
	if (session(&c, d, 8192, 0) < 0)
		return false;
	ok = tc_walk(&c, 0, 1, "pub") == 0 && tc_open(&c, 1, V9P_DOTL_RDONLY) == 0;
	for (int k = 0; ok && k < 9; k++) {
		struct v9p_fcall t;

		memset(&t, 0, sizeof(t));
		t.type = k ? V9P_TGETATTR : V9P_TFSYNC;
		t.tgetattr.fid = 1;
		t.tgetattr.request_mask = V9P_GETATTR_BASIC;
		pack_at(&c, &t, (uint16_t)(200 + k), batch, sizeof(batch), &len);
	}
	ok = ok && tc_send_raw(&c, batch, len) == 0;
	for (int k = 0; ok && k < 9; k++) {
		int left = (int)((limit - (tc_now() - t0)) * 1000);

		ok = left > 0 && recv_within(&c, &r, left) == 0 &&
		     (r.type == V9P_RGETATTR || r.type == V9P_RFSYNC);
	}
	*took = tc_now() - t0;
	tc_stop(&c);
	return ok;
}

struct slow {
	int fd;
	volatile bool stop;
	long got;
	bool ended;		/* the server closed the connection */
};

/* Take a few bytes a second until told to stop or the server hangs up. */
static void *slow_read(void *p)
{
	struct slow *s = p;
	char b[8];

	while (!s->stop) {
		ssize_t n = recv(s->fd, b, sizeof(b), MSG_DONTWAIT);

		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
			s->ended = true;
			break;
		}
		if (n > 0)
			s->got += n;
		usleep(250000);
	}
	return NULL;
}

/*
 * K connections ask for 1 MiB replies and read them a few bytes a second:
 * with stall_timeout=3 each is cut off once a reply has not been taken
 * whole for 3 s, and meanwhile a victim's requests are answered at once,
 * the slow readers holding no worker.
 */
#define SLOW_K 6

static void test_slow_readers(void)
{
	const char *args[] = { "-e", dir, "-l", "tcp:127.0.0.1:0", "-t", "2", "-o",
			       "max_threads=16,stall_timeout=3", NULL };
	static char mib[1 << 20];
	struct slow s[SLOW_K];
	pthread_t th[SLOW_K];
	struct tc_daemon d;
	struct tc c[SLOW_K];
	double t0, took, worst = 0;
	int fd, served = 0, tries = 0, ended = 0, drained_open = 0;

	memset(c, 0, sizeof(c));
	fd = open(at("big"), O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (fd < 0 || write(fd, mib, sizeof(mib)) != (ssize_t)sizeof(mib)) {
		tap_ok(0, "a 1 MiB file");
		return;
	}
	close(fd);
	if (tc_daemon_start(&d, args, 1) != 1) {
		tap_ok(0, "v9fsd starts for the slow readers");
		return;
	}
	for (int i = 0; i < SLOW_K; i++) {
		static uint8_t batch[4096];
		size_t len = 0;

		memset(&s[i], 0, sizeof(s[i]));
		s[i].fd = dial_small(d.addrs[0]);
		if (s[i].fd < 0 || tc_use_fd(&c[i], s[i].fd) < 0 ||
		    tc_version(&c[i], "9P2000.L", 1024 * 1024 + 24) < 0 ||
		    tc_attach(&c[i], 0, "root", 0) < 0 || tc_walk(&c[i], 0, 1, "big") < 0 ||
		    tc_open(&c[i], 1, V9P_DOTL_RDONLY) < 0) {
			tap_ok(0, "slow reader %d attaches", i);
			for (int k = 0; k < i; k++) {
				s[k].stop = true;
				pthread_join(th[k], NULL);
			}
			goto out;
		}
		/* a Tfsync first, so that the Treads behind it go to the workers */
		for (int k = 0; k <= 8; k++) {
			struct v9p_fcall t;

			memset(&t, 0, sizeof(t));
			t.type = k ? V9P_TREAD : V9P_TFSYNC;
			t.tread.fid = 1;
			t.tread.count = k ? 1024 * 1024 : 0;
			pack_at(&c[i], &t, (uint16_t)(10 + k), batch, sizeof(batch), &len);
		}
		tc_send_raw(&c[i], batch, len);
		pthread_create(&th[i], NULL, slow_read, &s[i]);
	}
	t0 = tc_now();
	usleep(500000);		/* the replies are being sent */
	/* the victim, now and then, while the slow readers read */
	while (tc_now() - t0 < 6) {
		tries++;
		served += victim_served(&d, 2.0, &took);
		if (took > worst || took < 0)
			worst = took < 0 ? 99 : took;
		usleep(500000);
	}
	tap_ok(served == tries,
	       "%d slow readers: a victim's Tfsync and Tgetattrs are answered within 2 s, "
	       "%d times of %d (slowest %.2f s)", SLOW_K, served, tries, worst);
	/* by now (stall_timeout=3) every slow reader has been cut off */
	for (int i = 0; i < SLOW_K; i++) {
		s[i].stop = true;
		pthread_join(th[i], NULL);
	}
	for (int i = 0; i < SLOW_K; i++) {
		char b[65536];
		double t1 = tc_now();
		ssize_t n = 0;

		/* what the socket buffers still hold, then the end */
		if (!s[i].ended) {
			struct pollfd p = { .fd = s[i].fd, .events = POLLIN };

			while (tc_now() - t1 < 3 && poll(&p, 1, 1000) == 1 &&
			       (n = read(s[i].fd, b, sizeof(b))) > 0)
				;
			s[i].ended = n == 0 || (n < 0 && errno == ECONNRESET);
		}
		ended += s[i].ended;
		drained_open += !s[i].ended;
	}
	tap_diag("after %.1f s, %d of %d slow readers cut off", tc_now() - t0, ended, SLOW_K);
	tap_ok(ended == SLOW_K, "every slow reader is cut off by its reply deadline (%d of %d)",
	       ended, SLOW_K);
	tap_ok(tc_daemon_alive(&d) && victim_served(&d, 2.0, &took),
	       "v9fsd serves on after them");
out:
	for (int i = 0; i < SLOW_K; i++)
		if (c[i].tbuf)
			tc_stop(&c[i]);
	tc_daemon_stop(&d);
	unlink(at("big"));
}

/* Whether the server has closed fd within ms (EOF or reset; data is read past). */
static bool closed_within(int fd, int ms)
{
	double until = tc_now() + ms / 1000.0;
	char b[4096];

	while (tc_now() < until) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, 100) != 1)
			continue;
		n = read(fd, b, sizeof(b));
		if (n == 0 || (n < 0 && errno == ECONNRESET))
			return true;
	}
	return false;
}

/* Send a Tversion on a raw connection and read its reply; 0 or -1. */
static int version_only(int fd)
{
	struct tc c;
	int err;

	if (tc_use_fd(&c, fd) < 0)
		return -1;
	err = tc_version(&c, "9P2000.L", 8192);
	free(c.tbuf);
	free(c.rbuf);
	return err;
}

/*
 * With 256 descriptors, 150 TCP connections that send nothing or only a
 * Tversion (idle for the default timeouts): a client attached before them
 * still walks, and a newcomer on the unix socket still attaches and walks.
 */
#define FLOOD 150

static void test_idle_flood(void)
{
	const char *args[] = { "-e", dir, "-l", NULL, "-l", "tcp:127.0.0.1:0", "-t", "2",
			       NULL };
	struct rlimit saved, small = { 256, 256 };
	static char sock[4200];
	struct tc_daemon d;
	struct tc a, n;
	int fds[FLOOD], versioned = 0, walks = 0, err = 0, nerr;

	snprintf(sock, sizeof(sock), "unix:%s", at("sock"));
	args[3] = sock;
	getrlimit(RLIMIT_NOFILE, &saved);
	setrlimit(RLIMIT_NOFILE, &small);
	nerr = tc_daemon_start(&d, args, 2);
	setrlimit(RLIMIT_NOFILE, &saved);	/* the soft limit; the hard one stays */
	if (nerr != 2 || session(&a, &d, 8192, 0) < 0) {
		tap_ok(0, "v9fsd starts with 256 descriptors");
		tc_daemon_stop(&d);
		return;
	}
	for (int i = 0; i < FLOOD; i++) {
		fds[i] = tc_dial(d.addrs[1]);
		if (fds[i] >= 0 && i % 3 && version_only(fds[i]) == 0)
			versioned++;
	}
	tap_diag("%d connections, %d of them answered a Tversion, hold on", FLOOD, versioned);
	for (uint32_t f = 1; f <= 8; f++) {
		err = tc_walk(&a, 0, f, "pub");
		if (err < 0)
			break;
		walks++;
	}
	tap_ok(walks == 8, "a client attached before them walks on (%d of 8, %d)", walks, err);
	nerr = session(&n, &d, 8192, 0);
	if (nerr == 0)
		nerr = tc_walk(&n, 0, 1, "pub");
	tap_ok(nerr == 0, "a newcomer still attaches and walks (%d)", nerr);
	if (n.tbuf)
		tc_stop(&n);
	tc_stop(&a);
	for (int i = 0; i < FLOOD; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	tap_ok(tc_daemon_alive(&d), "v9fsd lives");
	tc_daemon_stop(&d);
}

/*
 * handshake_timeout=1: connections that send nothing, only a Tversion,
 * or clunk their last fid are closed within a few seconds; one that holds
 * a fid is not, however idle.
 */
static void test_handshake_timeout(void)
{
	struct tc_daemon d;
	struct tc held, gone;
	int fds[10], cut = 0;
	bool gone_cut, held_ok;

	if (start_daemon(&d, "handshake_timeout=1", NULL) < 0 ||
	    session(&held, &d, 8192, 0) < 0) {
		tap_ok(0, "v9fsd starts with handshake_timeout=1");
		tc_daemon_stop(&d);
		return;
	}
	for (int i = 0; i < 10; i++) {
		fds[i] = tc_dial(d.addrs[0]);
		if (i % 2 && fds[i] >= 0)
			version_only(fds[i]);
	}
	memset(&gone, 0, sizeof(gone));
	if (session(&gone, &d, 8192, 0) == 0)
		tc_clunk(&gone, 0);
	for (int i = 0; i < 10; i++)
		cut += fds[i] >= 0 && closed_within(fds[i], 4000);
	gone_cut = gone.tbuf && closed_within(gone.fd, 2000);
	tap_ok(cut == 10, "silent and Tversion-only connections are closed after the handshake "
	       "timeout (%d of 10)", cut);
	tap_ok(gone_cut, "a session that clunked its last fid is closed too");
	held_ok = tc_walk(&held, 0, 1, "pub") == 0;
	tap_ok(held_ok, "a session holding a fid is not, idle as long");
	for (int i = 0; i < 10; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	if (gone.tbuf)
		tc_stop(&gone);
	tc_stop(&held);
	tc_daemon_stop(&d);
}

/* Fid f: a clone of the root turned into a Txattrcreate of size bytes, filled. */
static int xattr_fill(struct tc *c, uint32_t f, uint32_t size)
{
	static uint8_t val[65536];
	struct v9p_fcall t;
	int err;

	err = tc_walk(c, 0, f, "pub");
	if (err < 0)
		return err;
	memset(&t, 0, sizeof(t));
	t.type = V9P_TXATTRCREATE;
	t.txattrcreate.fid = f;
	v9p_str_set(&t.txattrcreate.name, "user.big");
	t.txattrcreate.attr_size = size;
	err = tc_rpc(c, &t);
	if (err < 0) {
		tc_clunk(c, f);
		return err;
	}
	memset(val, 'x', size);
	err = tc_write(c, f, 0, val, size);
	return err < 0 ? err : 0;
}

/*
 * 24 connections each make 40 xattr fids of 64 KiB, filled and never
 * clunked (60 MiB asked): past the per-connection and server bounds each
 * gets ENOMEM, and v9fsd's RSS grows by less than 40 MiB. Clunked, the
 * buffers are returned: the same connections may make them again.
 * Txattrwalk is counted the same way.
 */
#define XCONNS 24
#define XFIDS 40

static void test_xattr_memory(void)
{
	static struct tc c[XCONNS];
	struct rlimit rl;
	struct tc_daemon d;
	/* 32 MiB of buffers and their bookkeeping; AddressSanitizer's allocator pads them */
	long rss_bound = strstr(V9FSD_BIN, "-asan") ? 60 * 1024 : 40 * 1024;
	char val[3000];
	long rss0, rss1, made = 0, enomem = 0, other = 0, again = 0, walks = 0;
	int err = 0;

	memset(c, 0, sizeof(c));
	memset(val, 'y', sizeof(val));
	if (setxattr(at("pub"), "user.walk", val, sizeof(val), 0) < 0) {
		tap_ok(1, "# SKIP no user xattrs on %s (%s)", dir, strerror(errno));
		return;
	}
	/* a thousand fids: v9fsd raises its descriptor limit to the hard one */
	getrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_max < 2 * (XCONNS * (XFIDS + 1) + 64) + 64) {
		tap_ok(1, "# SKIP the xattr buffers need %d descriptors",
		       2 * (XCONNS * (XFIDS + 1) + 64) + 64);
		removexattr(at("pub"), "user.walk");
		return;
	}
	if (start_daemon(&d, "max_threads=16", NULL) < 0) {
		tap_ok(0, "v9fsd starts for the xattr buffers");
		return;
	}
	rss0 = rss_kb(d.pid);
	for (int i = 0; i < XCONNS; i++) {
		if (session(&c[i], &d, 128 * 1024 + 24, 0) < 0) {
			other++;
			continue;
		}
		for (uint32_t f = 1; f <= XFIDS; f++) {
			err = xattr_fill(&c[i], f, 65536);
			made += err == 0;
			enomem += err == -ENOMEM;
			if (err < 0 && err != -ENOMEM && !other++)
				tap_diag("connection %d, fid %u: %d", i, f, err);
		}
	}
	rss1 = rss_kb(d.pid);
	tap_diag("%ld xattr buffers of 64 KiB made, %ld refused with ENOMEM, %ld other errors; "
		 "RSS %ld -> %ld KiB", made, enomem, other, rss0, rss1);
	tap_ok(enomem > 0 && other == 0 && made * 64 <= 32 * 1024,
	       "past the bounds Txattrcreate fails with ENOMEM (%ld made, %ld refused)", made,
	       enomem);
	tap_ok(rss1 - rss0 < rss_bound, "v9fsd grows by %ld KiB (at most %ld), not by the %d MiB "
	       "asked", rss1 - rss0, rss_bound, XCONNS * XFIDS / 16);
	/* clunked, the buffers are given back */
	for (int i = 0; i < XCONNS; i++)
		for (uint32_t f = 1; c[i].tbuf && f <= XFIDS; f++)
			tc_clunk(&c[i], f);
	/* Txattrwalk of a 3000-byte value, fids kept, once the others are gone */
	{
		struct tc w;

		if (session(&w, &d, 8192, 0) == 0 && tc_walk(&w, 0, 1, "pub") == 0) {
			for (uint32_t f = 2; f <= 2000; f++) {
				struct v9p_fcall t;

				memset(&t, 0, sizeof(t));
				t.type = V9P_TXATTRWALK;
				t.txattrwalk.fid = 1;
				t.txattrwalk.newfid = f;
				v9p_str_set(&t.txattrwalk.name, "user.walk");
				err = tc_rpc(&w, &t);
				if (err < 0)
					break;
				walks++;
			}
			tc_stop(&w);
		}
		tap_ok(err == -ENOMEM && walks < 2000,
		       "Txattrwalk counts too: ENOMEM after %ld fids of 3000 bytes (%d)",
		       walks, err);
	}
	for (int i = 0; i < XCONNS; i++)
		if (c[i].tbuf)
			again += xattr_fill(&c[i], 1, 65536) == 0;
	tap_ok(again == XCONNS, "after the clunks every connection may make one again (%ld of %d)",
	       again, XCONNS);
	for (int i = 0; i < XCONNS; i++)
		if (c[i].tbuf)
			tc_stop(&c[i]);
	tap_ok(tc_daemon_alive(&d), "v9fsd lives");
	tc_daemon_stop(&d);
	removexattr(at("pub"), "user.walk");
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	dir = tc_export_with_pub();
	if (!dir)
		return 1;

	test_flush_chain();
	test_setid_race(false);
	test_setid_race(true);
	test_slow_readers();
	test_handshake_timeout();
	test_xattr_memory();
	/* last: it lowers the descriptor limit, hard one too, for good */
	test_idle_flood();
	tc_rmtree(dir);
	free(dir);
	return tap_done();
}
