// SPDX-License-Identifier: GPL-2.0
/*
 * server_fdlimit.c - fids and connections together stay below v9fsd's
 * descriptor limit. Under a limit of 1024, one client opens every fid it
 * may (two descriptors each), then 200 more connections come, the first 40
 * attaching and opening a file, the others attaching only: each must get
 * an answer (Rattach, or a clean ENFILE/EMFILE), none may hang in the
 * accept queue, and v9fsd must keep fd_reserve descriptors free throughout.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "server_client.h"
#include "tap.h"

#define LIMIT		1024
#define RESERVE		64	/* v9fsd's default fd_reserve */
#define NCONNS		200
#define NOPEN		40

static struct tc_daemon dmn;
static char *dir;

static int open_fds(void)
{
	char p[64];
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(p, sizeof(p), "/proc/%d/fd", (int)dmn.pid);
	d = opendir(p);
	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

/* Connect with 3 s timeouts both ways, Tversion, Tattach as root. */
static int session(struct tc *c)
{
	struct timeval tv = { .tv_sec = 3 };
	int fd = tc_dial(dmn.addrs[0]), err;

	if (fd < 0)
		return -ECONNREFUSED;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (tc_use_fd(c, fd) < 0)
		return -ENOMEM;
	err = tc_version(c, "9P2000.L", 65536);
	if (err < 0)
		return err == -ENFILE || err == -EMFILE ? -EPROTO : err;
	return tc_attach(c, 0, "root", 0);
}

static bool clean(int err)
{
	return err == 0 || err == -ENFILE || err == -EMFILE;
}

int main(void)
{
	const char *args[] = { "-e", NULL, "-l", NULL, "-o", "max_peer_conns=1000", NULL };
	struct rlimit saved, small = { LIMIT, LIMIT };
	static struct tc a, b[NCONNS];
	int nfids = 0, last = 0, opened = 0, answered = 0, peak = 0, n;
	char sock[4200];
	int fd;

	signal(SIGPIPE, SIG_IGN);
	dir = tc_tmpdir();
	if (!dir)
		return 1;
	fd = open(tc_path(dir, "pub"), O_CREAT | O_WRONLY, 0644);
	close(fd);
	snprintf(sock, sizeof(sock), "unix:%s", tc_path(dir, "sock"));
	args[1] = dir;
	args[3] = sock;
	getrlimit(RLIMIT_NOFILE, &saved);
	setrlimit(RLIMIT_NOFILE, &small);
	n = tc_daemon_start(&dmn, args, 1);
	setrlimit(RLIMIT_NOFILE, &saved);
	if (n != 1) {
		tap_ok(0, "v9fsd starts under a descriptor limit of %d", LIMIT);
		return tap_done();
	}

	/* one client opens every fid it may */
	if (session(&a) == 0) {
		for (uint32_t f = 1; f < 4096; f++) {
			last = tc_walk(&a, 0, f, "pub");
			if (last == 0)
				last = tc_open(&a, f, V9P_DOTL_RDONLY);
			if (last < 0)
				break;
			nfids++;
		}
	}
	tap_diag("the first client opened %d fids, then: %s", nfids, strerror(-last));
	tap_ok(nfids > 0 && (last == -ENFILE || last == -EMFILE),
	       "a client opening fids gets ENFILE or EMFILE at its limit");
	peak = open_fds();

	for (int i = 0; i < NCONNS; i++) {
		int err = session(&b[i]);

		if (err == 0 && i < NOPEN) {
			err = tc_walk(&b[i], 0, 1, "pub");
			if (err == 0)
				err = tc_open(&b[i], 1, V9P_DOTL_RDONLY);
			opened += err == 0;
		}
		n = open_fds();
		if (n > peak)
			peak = n;
		if (!clean(err)) {
			/* the next ones would wait as long: one is enough */
			tap_diag("connection %d: %s", i, strerror(-err));
			break;
		}
		answered++;
	}
	tap_ok(opened == NOPEN, "%d connections beside it attach and open a file (%d did)", NOPEN,
	       opened);
	tap_ok(answered == NCONNS,
	       "%d connections: each is answered, Rattach or ENFILE/EMFILE (%d were)", NCONNS,
	       answered);
	tap_ok(peak > 0 && peak <= LIMIT - RESERVE,
	       "v9fsd keeps its reserve: at most %d of %d descriptors in use (%d at the peak)",
	       LIMIT - RESERVE, LIMIT, peak);

	tc_stop(&a);
	for (int i = 0; i < NCONNS; i++)
		tc_stop(&b[i]);
	usleep(300000);
	{
		struct tc c;
		int err = session(&c);

		if (err == 0)
			err = tc_walk(&c, 0, 1, "pub");
		if (err == 0)
			err = tc_open(&c, 1, V9P_DOTL_RDONLY);
		tap_ok(err == 0, "once they are gone a new client attaches and opens a file (%s)",
		       strerror(-err));
		tc_stop(&c);
	}
	tap_ok(tc_daemon_stop(&dmn) == 0, "v9fsd exits cleanly");
	tc_rmtree(dir);
	free(dir);
	return tap_done();
}
