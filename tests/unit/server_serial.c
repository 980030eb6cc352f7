// SPDX-License-Identifier: GPL-2.0
/*
 * server_serial.c - v9fsd -o serial: each connection reads one request,
 * answers it, and only then reads the next; accepted TCP connections keep
 * Nagle's algorithm (no TCP_NODELAY). Each property is also checked to be
 * absent without the option, so the checks can tell the modes apart.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include "server_client.h"
#include "tap.h"

static struct v9p_fcall *msg(uint8_t type, uint16_t tag)
{
	static struct v9p_fcall t;

	memset(&t, 0, sizeof(t));
	t.type = type;
	t.tag = tag;
	return &t;
}

static bool readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1;
}

/* Bytes we wrote that the server has not read yet (AF_UNIX: SIOCOUTQ). */
static int unread_by_server(int fd)
{
	int n = -1;

	if (ioctl(fd, SIOCOUTQ, &n) < 0)
		return -1;
	return n;
}

/* Lock the whole file from this process (an OFD lock conflicts with v9fsd's). */
static int hold_lock(const char *path)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int fd = open(path, O_RDWR);

	if (fd < 0 || fcntl(fd, F_OFD_SETLK, &fl) < 0)
		return -1;
	return fd;
}

/*
 * A blocking Tlock on a file this process has locked, then a Tgetattr in
 * a write of its own. Returns how the server handled the Tgetattr while
 * the Tlock waited: 1 answered, 0 not answered and its bytes still unread
 * by the server; then releases the lock and checks both replies come in
 * order. -1 on any other outcome.
 */
static int blocked_then_getattr(const char *dir, const char *const *extra, bool *order_ok)
{
	struct tc c;
	struct v9p_fcall *t, r;
	int lockfd, res = -1, unread;
	uint16_t first = 0, second = 0;

	*order_ok = false;
	if (tc_setup(&c, dir, "9P2000.L", extra) < 0)
		return -1;
	lockfd = hold_lock(tc_path(dir, "locked"));
	if (lockfd < 0 || tc_walk(&c, 0, 1, "locked") < 0 || tc_open(&c, 1, V9P_DOTL_RDWR) < 0)
		goto out;

	t = msg(V9P_TLOCK, 10);
	t->tlock.fid = 1;
	t->tlock.type = V9P_LOCK_TYPE_WRLCK;
	t->tlock.flags = V9P_LOCK_FLAGS_BLOCK;
	v9p_str_set(&t->tlock.client_id, "serial");
	if (tc_send(&c, t) < 0)
		goto out;
	usleep(200 * 1000);	/* the Tlock is read and waits */
	t = msg(V9P_TGETATTR, 11);
	t->tgetattr.fid = 0;
	t->tgetattr.request_mask = V9P_GETATTR_BASIC;
	if (tc_send(&c, t) < 0)
		goto out;

	if (readable(c.fd, 500)) {
		if (tc_recv(&c, &r) == 0 && r.tag == 11 && r.type == V9P_RGETATTR)
			res = 1;
		second = r.tag;
	} else {
		unread = unread_by_server(c.fd);
		tap_diag("after 500 ms: no reply, %d bytes not yet read by the server", unread);
		res = unread > 0 ? 0 : -1;
	}

	close(lockfd);
	lockfd = -1;
	if (res == 1) {
		/* only the Tlock is left */
		if (tc_recv(&c, &r) == 0 && r.tag == 10 && r.type == V9P_RLOCK)
			*order_ok = true;
	} else if (res == 0) {
		if (tc_recv(&c, &r) == 0)
			first = r.tag;
		if (tc_recv(&c, &r) == 0)
			second = r.tag;
		*order_ok = first == 10 && second == 11;
	}
out:
	if (lockfd >= 0)
		close(lockfd);
	tc_stop(&c);
	return res;
}

/*
 * The TCP_NODELAY setting of the server's end of the connection fd (ours):
 * the server's descriptors are found through pidfd_getfd(2). -1 if that
 * is not possible here.
 */
static int server_nodelay(pid_t pid, int fd)
{
	struct sockaddr_storage mine, theirs;
	socklen_t ml = sizeof(mine), tl;
	char dirp[64];
	struct dirent *e;
	int pidfd, val = -1;
	DIR *d;

	if (getsockname(fd, (struct sockaddr *)&mine, &ml) < 0)
		return -1;
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0)
		return -1;
	snprintf(dirp, sizeof(dirp), "/proc/%d/fd", (int)pid);
	d = opendir(dirp);
	while (d && (e = readdir(d))) {
		int sfd, on = 0;
		socklen_t ol = sizeof(on);

		if (e->d_name[0] == '.')
			continue;
		sfd = (int)syscall(SYS_pidfd_getfd, pidfd, atoi(e->d_name), 0);
		if (sfd < 0)
			continue;
		tl = sizeof(theirs);
		/* the server's end: its peer is our local address */
		if (getpeername(sfd, (struct sockaddr *)&theirs, &tl) == 0 && tl == ml &&
		    !memcmp(&theirs, &mine, ml) &&
		    getsockopt(sfd, IPPROTO_TCP, TCP_NODELAY, &on, &ol) == 0)
			val = on != 0;
		close(sfd);
		if (val >= 0)
			break;
	}
	if (d)
		closedir(d);
	close(pidfd);
	return val;
}

/* TCP_NODELAY on the accepted socket of a daemon started with extra args. */
static int daemon_nodelay(const char *dir, const char *opt)
{
	const char *args[] = { "-e", dir, "-l", "tcp:127.0.0.1:0", opt ? "-o" : NULL, opt, NULL };
	struct tc_daemon dmn;
	struct tc c;
	int fd, val = -1;

	if (tc_daemon_start(&dmn, args, 1) != 1)
		return -1;
	fd = tc_dial(dmn.addrs[0]);
	if (fd >= 0 && tc_use_fd(&c, fd) == 0) {
		/* once a reply came back, the connection is set up */
		if (tc_version(&c, "9P2000.L", 8192) == 0)
			val = server_nodelay(dmn.pid, fd);
		tc_stop(&c);
	}
	tc_daemon_stop(&dmn);
	return val;
}

int main(void)
{
	const char *serial[] = { "-o", "serial", NULL };
	char *dir = tc_tmpdir();
	bool order;
	int fd, res;

	fd = open(tc_path(dir, "locked"), O_CREAT | O_WRONLY, 0666);
	close(fd);

	res = blocked_then_getattr(dir, NULL, &order);
	tap_ok(res == 1 && order,
	       "default: a Tgetattr is answered while a blocking Tlock waits (%d)", res);
	res = blocked_then_getattr(dir, serial, &order);
	tap_ok(res == 0,
	       "-o serial: a Tgetattr behind a blocking Tlock is neither answered nor read (%d)",
	       res);
	tap_ok(res == 0 && order, "-o serial: once the lock is free, Rlock then Rgetattr");

	res = daemon_nodelay(dir, NULL);
	if (res < 0) {
		tap_diag("cannot reach the server's sockets (pidfd_getfd): skipping TCP_NODELAY");
	} else {
		tap_ok(res == 1, "default: accepted TCP connection has TCP_NODELAY");
		res = daemon_nodelay(dir, "serial");
		tap_ok(res == 0, "-o serial: accepted TCP connection keeps Nagle (%d)", res);
	}

	/* pipelined requests in one write are all answered, in order */
	{
		struct tc c;
		struct v9p_fcall *t, r;
		int ok = 0;

		if (tc_setup(&c, dir, "9P2000.L", serial) == 0) {
			for (int i = 0; i < 16; i++) {
				t = msg(V9P_TGETATTR, (uint16_t)(100 + i));
				t->tgetattr.fid = 0;
				t->tgetattr.request_mask = V9P_GETATTR_BASIC;
				tc_send(&c, t);
			}
			for (int i = 0; i < 16; i++)
				if (tc_recv(&c, &r) == 0 && r.tag == 100 + i &&
				    r.type == V9P_RGETATTR)
					ok++;
		}
		tc_stop(&c);
		tap_ok(ok == 16, "-o serial: 16 pipelined Tgetattr answered in order (%d)", ok);
	}

	tc_rmtree(dir);
	free(dir);
	return tap_done();
}
