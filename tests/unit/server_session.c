// SPDX-License-Identifier: GPL-2.0
/*
 * server_session.c - v9fsd's session layer: version negotiation, hostile
 * and malformed messages, Tflush ordering (on blocking locks), requests in
 * flight that do not wait for each other, per-connection fid limits and the -S counters.
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

#include "server_client.h"
#include "tap.h"

static struct tc c;

static struct v9p_fcall *msg(uint8_t type)
{
	static struct v9p_fcall t;

	memset(&t, 0, sizeof(t));
	t.type = type;
	return &t;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* Whether the server closed the connection within 2 s. */
static bool closed_soon(struct tc *cl)
{
	struct pollfd p = { .fd = cl->fd, .events = POLLIN };
	char b[256];

	while (poll(&p, 1, 2000) == 1) {
		ssize_t n = read(cl->fd, b, sizeof(b));

		if (n <= 0)
			return true;
	}
	return false;
}

/* Wait up to ms for a reply to be readable. */
static bool readable(struct tc *cl, int ms)
{
	struct pollfd p = { .fd = cl->fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1;
}

static void test_version(char *dir)
{
	const char *small[] = { "-m", "8192", NULL };
	struct v9p_fcall *t;
	int err;

	tc_start(&c, dir, NULL);
	err = tc_version(&c, "9P2000.L", 1u << 30);
	tap_ok(err == 0 && c.msize == 1024 * 1024 + 24,
	       "Tversion msize 1 GiB is lowered to the server's cap (%u)", c.msize);
	err = tc_version(&c, "9P2000.u", 65536);
	tap_ok(err == 0 && c.d == V9P_9P2000U && c.msize == 65536,
	       "a second Tversion renegotiates 9P2000.u at 65536");
	err = tc_version(&c, "9P2000.x", 65536);
	tap_ok(err == 0 && c.d == V9P_9P2000 && v9p_str_eq(&c.r.rversion.version, "9P2000"),
	       "Tversion 9P2000.x is answered 9P2000");
	err = tc_version(&c, "NFSv4", 65536);
	tap_ok(err == -EPROTONOSUPPORT && v9p_str_eq(&c.r.rversion.version, "unknown"),
	       "Tversion of a foreign protocol is answered 'unknown'");
	t = msg(V9P_TATTACH);
	t->tattach.afid = V9P_NOFID;
	v9p_str_set(&t->tattach.uname, "root");
	tap_ok(tc_rpc(&c, t) < 0, "Tattach after an 'unknown' version is refused");
	tc_stop(&c);

	tc_start(&c, dir, small);
	err = tc_version(&c, "9P2000.L", 65536);
	tap_ok(err == 0 && c.msize == 8192, "with -m 8192 the client's 65536 becomes 8192");
	tc_attach(&c, 0, "root", 0);
	{
		uint8_t big[9000];

		memset(big, 'x', sizeof(big));
		tc_walk(&c, 0, 1, "");
		/* a Twrite bigger than msize: the server hangs up */
		t = msg(V9P_TWRITE);
		t->twrite.fid = 1;
		t->twrite.count = 8500;
		t->twrite.data = big;
		t->tag = 5;
		tc_send(&c, t);
		tap_ok(closed_soon(&c), "a message over msize closes the connection");
	}
	tap_ok(tc_stop(&c) == 0, "and v9fsd exits cleanly");
}

static void test_malformed(char *dir)
{
	uint8_t raw[64];
	struct v9p_fcall r;
	int err;

	tc_start(&c, dir, NULL);
	err = tc_attach(&c, 0, "root", 0);
	tap_ok(err < 0, "Tattach before Tversion is refused (%d)", err);
	tc_version(&c, "9P2000.L", 65536);
	tc_attach(&c, 0, "root", 0);

	/* unknown type */
	put_le32(raw, 11);
	raw[4] = 200;
	raw[5] = 9;
	raw[6] = 0;
	put_le32(raw + 7, 0);
	tc_send_raw(&c, raw, 11);
	err = tc_recv(&c, &r);
	tap_ok(err == 0 && r.type == V9P_RLERROR && r.tag == 9, "an unknown message type gets Rlerror");

	/* an R-message sent to the server */
	put_le32(raw, 7);
	raw[4] = V9P_RCLUNK;
	raw[5] = 10;
	tc_send_raw(&c, raw, 7);
	err = tc_recv(&c, &r);
	tap_ok(err == 0 && r.type == V9P_RLERROR && r.tag == 10, "an R-message gets Rlerror");

	/* Twalk claiming 20 names */
	put_le32(raw, 17);
	raw[4] = V9P_TWALK;
	raw[5] = 11;
	raw[6] = 0;
	put_le32(raw + 7, 0);
	put_le32(raw + 11, 1);
	raw[15] = 20;
	raw[16] = 0;
	tc_send_raw(&c, raw, 17);
	err = tc_recv(&c, &r);
	tap_ok(err == 0 && r.type == V9P_RLERROR && r.rlerror.ecode == EPROTO && r.tag == 11,
	       "Twalk with nwname 20 gets Rlerror EPROTO");

	/* a string running past the end */
	put_le32(raw, 17);
	raw[4] = V9P_TWALK;
	raw[5] = 12;
	put_le32(raw + 7, 0);
	put_le32(raw + 11, 1);
	raw[15] = 1;
	raw[16] = 0;
	memcpy(raw + 17, "\xff\x00", 2);
	put_le32(raw, 19);
	tc_send_raw(&c, raw, 19);
	err = tc_recv(&c, &r);
	tap_ok(err == 0 && r.type == V9P_RLERROR && r.tag == 12, "a string longer than its message gets Rlerror");

	tap_ok(tc_walk(&c, 0, 2, "") == 0, "the connection still works afterwards");

	/* a size field below the header size: no resync possible */
	put_le32(raw, 3);
	tc_send_raw(&c, raw, 7);
	tap_ok(closed_soon(&c), "a size field of 3 closes the connection");
	tap_ok(tc_stop(&c) == 0, "v9fsd exits cleanly after hostile input");
}

/* Tlock of the whole file on an open fid; blocking or not. */
static struct v9p_fcall *lock_msg(uint32_t fid, uint8_t type, bool wait, uint16_t tag)
{
	struct v9p_fcall *t = msg(V9P_TLOCK);

	t->tlock.fid = fid;
	t->tlock.type = type;
	t->tlock.flags = wait ? V9P_LOCK_FLAGS_BLOCK : 0;
	v9p_str_set(&t->tlock.client_id, "test");
	t->tag = tag;
	return t;
}

static void test_flush(char *dir)
{
	struct v9p_fcall r, *t;
	char fifo[4096], file[4096];
	int err, order_ok, fd;

	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	snprintf(file, sizeof(file), "%s/locked", dir);
	mkfifo(fifo, 0666);
	fd = open(file, O_CREAT | O_WRONLY, 0666);
	close(fd);
	tc_setup(&c, dir, "9P2000.L", NULL);

	/* a fifo is never opened: nothing can block a worker on a peer */
	tc_walk(&c, 0, 1, "fifo");
	err = tc_open(&c, 1, V9P_DOTL_RDONLY);
	tap_ok(err == -EPERM, "Tlopen of a fifo is refused at once (%d)", err);
	tc_clunk(&c, 1);

	/* fid 1 holds a write lock; a blocking Tlock through fid 2 waits */
	tc_walk(&c, 0, 1, "locked");
	tc_open(&c, 1, V9P_DOTL_RDWR);
	tc_walk(&c, 0, 2, "locked");
	tc_open(&c, 2, V9P_DOTL_RDWR);
	err = tc_rpc(&c, lock_msg(1, V9P_LOCK_TYPE_WRLCK, false, 0));
	tap_ok(err == 0 && c.r.rlock.status == V9P_LOCK_SUCCESS, "fid 1 takes a write lock");
	tc_send(&c, lock_msg(2, V9P_LOCK_TYPE_WRLCK, true, 100));
	tap_ok(!readable(&c, 300), "a blocking Tlock on the locked file is still pending");

	/* other requests are answered meanwhile */
	t = msg(V9P_TGETATTR);
	t->tgetattr.fid = 0;
	t->tgetattr.request_mask = V9P_GETATTR_BASIC;
	t->tag = 101;
	tc_send(&c, t);
	err = tc_recv(&c, &r);
	tap_ok(err == 0 && r.tag == 101 && r.type == V9P_RGETATTR,
	       "a Tgetattr sent after it is answered first");

	/* Tflush: the blocked request answers (LOCK_BLOCKED) before Rflush */
	t = msg(V9P_TFLUSH);
	t->tflush.oldtag = 100;
	t->tag = 102;
	tc_send(&c, t);
	err = tc_recv(&c, &r);
	order_ok = err == 0 && r.tag == 100 && r.type == V9P_RLOCK &&
		   r.rlock.status == V9P_LOCK_BLOCKED;
	err = tc_recv(&c, &r);
	order_ok = order_ok && err == 0 && r.tag == 102 && r.type == V9P_RFLUSH;
	tap_ok(order_ok, "Tflush: the flushed request's reply comes first, then Rflush");

	/* a blocking Tlock completes once the holder unlocks */
	tc_send(&c, lock_msg(2, V9P_LOCK_TYPE_WRLCK, true, 103));
	tap_ok(!readable(&c, 200), "a second blocking Tlock is pending");
	tc_send(&c, lock_msg(1, V9P_LOCK_TYPE_UNLCK, false, 104));
	/* the two replies may come in either order */
	order_ok = 0;
	for (int i = 0; i < 2; i++) {
		err = tc_recv(&c, &r);
		if (err == 0 && r.type == V9P_RLOCK && r.tag == 104)
			order_ok |= 1;
		if (err == 0 && r.type == V9P_RLOCK && r.tag == 103 &&
		    r.rlock.status == V9P_LOCK_SUCCESS)
			order_ok |= 2;
	}
	tap_ok(order_ok == 3, "the unlock is answered and the waiting Tlock succeeds");

	/* flush of a tag not in flight */
	t = msg(V9P_TFLUSH);
	t->tflush.oldtag = 4242;
	err = tc_rpc(&c, t);
	tap_ok(err == 0 && c.r.type == V9P_RFLUSH, "Tflush of an unknown tag: Rflush at once");
	tc_clunk(&c, 1);
	tc_clunk(&c, 2);
	tap_ok(tc_stop(&c) == 0, "v9fsd exits cleanly");
	unlink(fifo);
	unlink(file);
}

static void test_fid_limit(char *dir)
{
	int i, err = 0;

	tc_setup(&c, dir, "9P2000.L", NULL);
	for (i = 1; i < 5000; i++) {
		err = tc_walk(&c, 0, (uint32_t)i, "");
		if (err < 0)
			break;
	}
	tap_ok(err == -EMFILE && i == 4096, "fids per connection are capped at 4096 (%d at %d)", err, i);
	tap_ok(tc_clunk(&c, 5) == 0 && tc_walk(&c, 0, 5, "") == 0, "a clunk frees a slot");
	tap_ok(tc_stop(&c) == 0, "v9fsd tears down 4096 fids and exits");
}

static void test_counters(char *dir)
{
	char file[4096], line[128];
	const char *args[] = { "-S", file, NULL };
	int walks = 0, versions = 0, found = 0;
	FILE *fp;

	snprintf(file, sizeof(file), "%s.counters", dir);
	unlink(file);
	tc_setup(&c, dir, "9P2000.L", args);
	for (int i = 0; i < 7; i++) {
		tc_walk(&c, 0, 1, "");
		tc_clunk(&c, 1);
	}
	kill(c.pid, SIGUSR1);
	for (int i = 0; i < 200 && access(file, R_OK) != 0; i++)
		usleep(10000);
	tap_ok(access(file, R_OK) == 0, "SIGUSR1 writes the counters file");
	tc_stop(&c);
	fp = fopen(file, "r");
	while (fp && fgets(line, sizeof(line), fp)) {
		int n;

		if (sscanf(line, "Twalk %d", &n) == 1)
			walks = n;
		if (sscanf(line, "Tversion %d", &n) == 1)
			versions = n;
		if (!strncmp(line, "Treaddir ", 9) || !strncmp(line, "Tstat ", 6))
			found++;
	}
	if (fp)
		fclose(fp);
	tap_ok(walks == 7 && versions == 1, "counters at exit: Twalk 7, Tversion 1 (%d, %d)", walks, versions);
	tap_ok(found == 2, "every request type has a line, zeros included");
	unlink(file);
}

/*
 * Under -s the connection is served on the main thread, which takes on
 * each request's user: the counters written at exit are the server's own
 * file all the same, made where only the server's user may write.
 */
static void test_counters_own_identity(char *dir)
{
	char *exp = strdup(tc_path(dir, "exp")), *priv = strdup(tc_path(dir, "priv"));
	char *file = strdup(tc_path(priv, "counters"));
	const char *args[] = { "-S", file, NULL };
	struct v9p_fcall t;
	struct stat st;
	int err, status;

	if (geteuid() != 0) {
		tap_ok(1, "# SKIP counters as the server's user: needs root");
		goto out;
	}
	mkdir(exp, 0755);
	mkdir(priv, 0700);
	chmod(dir, 0755);
	tc_setup(&c, exp, "9P2000.L", args);
	err = tc_attach(&c, 1, "", 65534);
	err = err ?: tc_walk(&c, 1, 2, "");
	if (!err) {
		memset(&t, 0, sizeof(t));
		t.type = V9P_TGETATTR;
		t.tgetattr.fid = 2;
		t.tgetattr.request_mask = V9P_GETATTR_BASIC;
		err = tc_rpc(&c, &t);
	}
	tap_ok(err == 0 && c.r.rgetattr.uid == 0,
	       "uid 65534 attaches, walks and gets attributes (%d)", err);
	status = tc_stop(&c);
	tap_ok(status == 0, "v9fsd -s exits 0 (%d)", status);
	tap_ok(stat(file, &st) == 0 && st.st_uid == 0 && S_ISREG(st.st_mode),
	       "the counters at exit are written in a directory only root may write to, "
	       "owned by root, after requests served as uid 65534 (%s)",
	       stat(file, &st) == 0 ? "written" : strerror(errno));
	tap_ok(access(tc_path(priv, "counters.tmp"), F_OK) != 0, "no temporary file is left");
	unlink(file);
	rmdir(priv);
	rmdir(exp);
	chmod(dir, 0700);
out:
	free(exp);
	free(priv);
	free(file);
}

int main(void)
{
	char *dir = tc_tmpdir();

	signal(SIGPIPE, SIG_IGN);
	test_version(dir);
	test_malformed(dir);
	test_flush(dir);
	test_fid_limit(dir);
	test_counters(dir);
	test_counters_own_identity(dir);
	tc_rmtree(dir);
	return tap_done();
}
