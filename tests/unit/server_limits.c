// SPDX-License-Identifier: GPL-2.0
/*
 * server_limits.c - v9fsd's server-wide limits under attack, with a
 * well-behaved client that must still be served: blocking locks that would
 * take every worker thread, clients that never read their replies, clients
 * that trickle bytes, fids that would take every descriptor. Prints the
 * daemon's RSS and thread count before and after each.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
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

#include "server_client.h"
#include "tap.h"

static char *dir;
static struct tc_daemon dmn;

/* A name in the test's scratch export. */
static char *at(const char *name)
{
	return tc_path(dir, name);
}


/* VmRSS (KiB) and Threads of the daemon. */
static void proc_status(long *rss_kb, long *threads)
{
	char p[64], line[256];
	FILE *fp;

	*rss_kb = *threads = -1;
	snprintf(p, sizeof(p), "/proc/%d/status", (int)dmn.pid);
	fp = fopen(p, "r");
	if (!fp)
		return;
	while (fgets(line, sizeof(line), fp)) {
		sscanf(line, "VmRSS: %ld", rss_kb);
		sscanf(line, "Threads: %ld", threads);
	}
	fclose(fp);
}

static void report(const char *when)
{
	long rss, th;

	proc_status(&rss, &th);
	tap_diag("v9fsd %s: RSS %ld KiB, %ld threads", when, rss, th);
}

static int session(struct tc *c, uint32_t msize)
{
	int fd = tc_dial(dmn.addrs[0]);

	if (fd < 0 || tc_use_fd(c, fd) < 0)
		return -1;
	if (tc_version(c, "9P2000.L", msize) < 0 || tc_attach(c, 0, "root", 0) < 0) {
		tc_stop(c);
		return -1;
	}
	return 0;
}

/* A well-behaved client: attach, walk, open, read, 9 pipelined, all within 2 s. */
static bool good_client_served(void)
{
	struct tc c;
	char buf[16];
	double t0 = tc_now();
	bool ok;
	int fd = tc_dial(dmn.addrs[0]);
	struct timeval tv = { .tv_sec = 2 };

	if (fd < 0)
		return false;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (tc_use_fd(&c, fd) < 0)
		return false;
	ok = tc_version(&c, "9P2000.L", 65536) == 0 && tc_attach(&c, 0, "root", 0) == 0 &&
	     tc_walk(&c, 0, 1, "pub") == 0 && tc_open(&c, 1, V9P_DOTL_RDONLY) == 0 &&
	     tc_read(&c, 1, 0, buf, sizeof(buf)) == 6;
	/* and requests in flight together, which need the worker pool */
	if (ok) {
		uint8_t batch[1024];
		size_t len = 0;
		struct v9p_fcall r;

		for (int k = 0; k < 9; k++) {
			struct v9p_fcall t;
			int m;

			memset(&t, 0, sizeof(t));
			t.type = k ? V9P_TGETATTR : V9P_TFSYNC;
			t.tgetattr.fid = 1;
			t.tgetattr.request_mask = V9P_GETATTR_BASIC;
			t.tag = (uint16_t)(200 + k);
			m = v9p_pack(&t, c.d, batch + len, sizeof(batch) - len);
			if (m > 0)
				len += (size_t)m;
		}
		ok = tc_send_raw(&c, batch, len) == 0;
		for (int k = 0; ok && k < 9; k++)
			ok = tc_recv(&c, &r) == 0 && (r.type == V9P_RGETATTR || r.type == V9P_RFSYNC);
	}
	tc_stop(&c);
	return ok && tc_now() - t0 < 2.0;
}

static struct v9p_fcall *lock_msg(uint32_t fid, bool wait)
{
	static struct v9p_fcall t;

	memset(&t, 0, sizeof(t));
	t.type = V9P_TLOCK;
	t.tlock.fid = fid;
	t.tlock.type = V9P_LOCK_TYPE_WRLCK;
	t.tlock.flags = wait ? V9P_LOCK_FLAGS_BLOCK : 0;
	v9p_str_set(&t.tlock.client_id, "t");
	return &t;
}

/* 4 connections x 64 blocking Tlocks on a locked file. */
static void test_lock_threads(void)
{
	struct tc holder, h[4];
	long rss, th;
	int ok = 0;

	report("at start");
	session(&holder, 65536);
	tc_walk(&holder, 0, 1, "pub");
	tc_open(&holder, 1, V9P_DOTL_RDWR);
	tc_rpc(&holder, lock_msg(1, false));
	for (int i = 0; i < 4; i++) {
		if (session(&h[i], 65536) < 0)
			continue;
		tc_walk(&h[i], 0, 1, "pub");
		tc_open(&h[i], 1, V9P_DOTL_RDWR);
		for (int k = 0; k < 64; k++) {
			struct v9p_fcall *t = lock_msg(1, true);

			t->tag = (uint16_t)(100 + k);
			ok += tc_send(&h[i], t) == 0;
		}
	}
	usleep(300000);
	proc_status(&rss, &th);
	tap_ok(ok == 256 && th > 0 && th <= 16 + 8 + 4,
	       "256 blocking Tlocks from 4 connections: %ld threads (max_threads=16)", th);
	tap_ok(good_client_served(), "another client is served while they wait");
	report("with 256 Tlocks waiting");
	for (int i = 0; i < 4; i++)
		tc_stop(&h[i]);
	tc_stop(&holder);
}

/* Send Treads of 1 MiB and never read a reply. */
static void test_non_reader(void)
{
	struct tc c[4];
	struct timeval tv = { .tv_sec = 1 };
	long rss0, rss1, rss2, th;
	int fd, sent = 0, closed = 0;
	static char mib[1 << 20];
	static uint8_t batch[8192];
	size_t len;

	fd = open(at("big"), O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (write(fd, mib, sizeof(mib)) != (ssize_t)sizeof(mib))
		tap_diag("short write of big");
	close(fd);
	proc_status(&rss0, &th);
	for (int i = 0; i < 4; i++) {
		if (session(&c[i], 1024 * 1024 + 24) < 0)
			continue;
		tc_walk(&c[i], 0, 1, "big");
		tc_open(&c[i], 1, V9P_DOTL_RDONLY);
		setsockopt(c[i].fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		/* a Tfsync first: the Treads arrive while it is in flight, in one write */
		len = 0;
		for (int k = 0; k <= 120; k++) {
			struct v9p_fcall t;
			int m;

			memset(&t, 0, sizeof(t));
			t.type = k ? V9P_TREAD : V9P_TFSYNC;
			t.tread.fid = 1;
			t.tread.count = k ? 1024 * 1024 : 0;
			t.tag = (uint16_t)(10 + k);
			m = v9p_pack(&t, c[i].d, batch + len, sizeof(batch) - len);
			if (m > 0)
				len += (size_t)m;
		}
		if (tc_send_raw(&c[i], batch, len) == 0)
			sent += 120;
	}
	usleep(500000);	/* let the workers run them */
	proc_status(&rss1, &th);
	tap_diag("%d Treads of 1 MiB sent by 4 clients that read nothing", sent);
	tap_ok(rss1 - rss0 < 4 * 48 * 1024,
	       "they cost %ld KiB of RSS, not 4 x 128 MiB", rss1 - rss0);
	tap_ok(good_client_served(), "another client is served meanwhile");
	sleep(3);	/* stall_timeout=1 */
	for (int i = 0; i < 4; i++) {
		char b[65536];
		double t0 = tc_now();
		ssize_t n;

		/* what the socket buffers hold, then the end */
		long got = 0;

		while ((n = read(c[i].fd, b, sizeof(b))) > 0 && tc_now() - t0 < 3)
			got += n;
		tap_diag("conn %d: %ld bytes then %zd (%s) after %.1f s", i, got, n,
			 n < 0 ? strerror(errno) : "", tc_now() - t0);
		closed += n == 0 || (n < 0 && errno == ECONNRESET);
		tc_stop(&c[i]);
	}
	tap_ok(closed == 4, "all 4 are dropped after stall_timeout (%d)", closed);
	usleep(300000);
	proc_status(&rss2, &th);
	tap_ok(rss2 - rss0 < 8 * 1024, "their memory is returned (RSS %ld -> %ld -> %ld KiB)",
	       rss0, rss1, rss2);
	report("after the non-readers left");
	unlink(at("big"));
}

/* Connections that send a byte now and then, and some that send nothing. */
static void test_slowloris(void)
{
	int fds[40], closed = 0;
	double t0 = tc_now();

	for (int i = 0; i < 40; i++)
		fds[i] = tc_dial(dmn.addrs[0]);
	/* half start a Tversion and trickle it, half never send a byte */
	while (tc_now() - t0 < 2.5) {
		for (int i = 0; i < 20; i++)
			if (fds[i] >= 0 && send(fds[i], "\x40", 1, MSG_NOSIGNAL) < 0)
				continue;
		usleep(250000);
	}
	tap_ok(good_client_served(), "a client is served while 40 connections trickle");
	for (int i = 0; i < 40; i++) {
		struct pollfd p = { .fd = fds[i], .events = POLLIN };
		char b;

		if (fds[i] >= 0 && poll(&p, 1, 1000) == 1 && read(fds[i], &b, 1) <= 0)
			closed++;
		if (fds[i] >= 0)
			close(fds[i]);
	}
	tap_ok(closed == 40, "trickling and silent connections are closed after msg_timeout (%d/40)",
	       closed);
	report("after the slow connections");
}

/* Five connections take every fid they can. */
static void test_fid_exhaustion(void)
{
	struct tc h[5];
	int total = 0, enfile = 0;

	for (int i = 0; i < 5; i++) {
		if (session(&h[i], 65536) < 0)
			continue;
		for (uint32_t f = 1; f < 4096; f++) {
			int err = tc_walk(&h[i], 0, f, "");

			if (err < 0) {
				enfile += err == -ENFILE;
				break;
			}
			total++;
		}
	}
	tap_ok(total > 0 && total < 5 * 4095 && enfile >= 1,
	       "five connections get %d fids in all, then ENFILE (%d)", total, enfile);
	tap_ok(good_client_served(), "a new client is still accepted and served from the reserve");
	report("with every fid taken");
	for (int i = 0; i < 5; i++)
		tc_stop(&h[i]);
	usleep(200000);
	tap_ok(good_client_served(), "served after the fids are clunked");
}

int main(void)
{
	const char *args[] = { "-e", NULL, "-l", NULL, "-t", "2", "-o",
			       "max_threads=16,stall_timeout=1,msg_timeout=1", NULL };
	char sock[4200];
	struct rlimit saved, small = { 256, 256 };
	double t_idle;
	long rss, th;

	signal(SIGPIPE, SIG_IGN);
	dir = tc_export_with_pub();
	if (!dir)
		return 1;
	snprintf(sock, sizeof(sock), "unix:%s", at("sock"));
	args[1] = dir;
	args[3] = sock;

	/* a small descriptor limit for the daemon: 256, so (256 - 64) / 2 fids */
	getrlimit(RLIMIT_NOFILE, &saved);
	setrlimit(RLIMIT_NOFILE, &small);
	if (tc_daemon_start(&dmn, args, 1) != 1) {
		tap_ok(0, "v9fsd starts");
		return tap_done();
	}
	setrlimit(RLIMIT_NOFILE, &saved);

	test_lock_threads();
	test_non_reader();
	test_slowloris();
	test_fid_exhaustion();
	/* idle workers exit after 10 s */
	t_idle = tc_now();
	do {
		usleep(200000);
		proc_status(&rss, &th);
	} while (th > 6 && tc_now() - t_idle < 12);
	tap_diag("%.1f s after the last client", tc_now() - t_idle);
	tap_ok(th > 0 && th <= 6, "idle worker threads exit again (%ld threads)", th);
	report("at the end");
	tc_daemon_stop(&dmn);
	tc_rmtree(dir);
	free(dir);
	return tap_done();
}
