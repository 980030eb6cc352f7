// SPDX-License-Identifier: GPL-2.0
/*
 * server_attack.c - v9fsd against hostile clients: concurrent requests on
 * half-built fids, identity under concurrency, privileged xattrs, device
 * and fifo opens, directories moved out of the export, flushes racing a
 * blocking call. Each attack runs a
 * few seconds at most, with several connections and threads.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>

#include "server_client.h"
#include "tap.h"

#define NOBODY 65534

static char *dir;

/* A name in the test's scratch export. */
static char *at(const char *name)
{
	return tc_path(dir, name);
}


/* A batch of requests packed back to back and sent in one write. */
struct batch {
	uint8_t buf[16384];
	int len, n;
	uint16_t tag;
	uint8_t types[0x10000];	/* by tag */
};

static void b_reset(struct batch *b)
{
	b->len = 0;
	b->n = 0;
}

static void b_add(struct batch *b, enum v9p_dialect d, struct v9p_fcall *t)
{
	int n;

	t->tag = b->tag++;
	b->types[t->tag] = t->type;
	if (b->tag >= 0xff00)
		b->tag = 0;
	n = v9p_pack(t, d, b->buf + b->len, sizeof(b->buf) - (size_t)b->len);
	if (n > 0) {
		b->len += n;
		b->n++;
	}
}

static struct v9p_fcall *msg(uint8_t type)
{
	static __thread struct v9p_fcall t;

	memset(&t, 0, sizeof(t));
	t.type = type;
	return &t;
}

static struct v9p_fcall *m_attach(uint32_t fid, uint32_t uid)
{
	struct v9p_fcall *t = msg(V9P_TATTACH);

	t->tattach.fid = fid;
	t->tattach.afid = V9P_NOFID;
	v9p_str_set(&t->tattach.uname, uid ? "nobody" : "root");
	v9p_str_set(&t->tattach.aname, "");
	t->tattach.n_uname = uid;
	return t;
}

static struct v9p_fcall *m_walk(uint32_t fid, uint32_t newfid, const char *name)
{
	struct v9p_fcall *t = msg(V9P_TWALK);

	t->twalk.fid = fid;
	t->twalk.newfid = newfid;
	if (name) {
		v9p_str_set(&t->twalk.wname[0], name);
		t->twalk.nwname = 1;
	}
	return t;
}

static struct v9p_fcall *m_fid(uint8_t type, uint32_t fid)
{
	struct v9p_fcall *t = msg(type);

	/* every one-fid message starts with the fid */
	switch (type) {
	case V9P_TFSYNC:
		t->tfsync.fid = fid;
		break;
	case V9P_TCLUNK:
		t->tclunk.fid = fid;
		break;
	case V9P_TLOPEN:
		t->tlopen.fid = fid;
		break;
	case V9P_TGETATTR:
		t->tgetattr.fid = fid;
		t->tgetattr.request_mask = V9P_GETATTR_BASIC;
		break;
	case V9P_TREAD:
		t->tread.fid = fid;
		t->tread.count = 64;
		break;
	}
	return t;
}

/*
 * The wait for each reply of a batch. Tfsync leads every batch and may wait
 * for the host's journal under load: a slow reply is not what these tests
 * are about, a missing one (a lost request, a dead connection) is.
 */
#define REPLY_WAIT_MS 30000

/* Read n replies; count those of type want. -1 when the connection died. */
static int b_replies(struct tc *c, int n, uint8_t want, int *got)
{
	struct v9p_fcall r;

	*got = 0;
	for (int i = 0; i < n; i++) {
		struct pollfd p = { .fd = c->fd, .events = POLLIN };

		if (poll(&p, 1, REPLY_WAIT_MS) != 1 || tc_recv(c, &r) < 0)
			return -1;
		if (r.type == want)
			(*got)++;
	}
	return 0;
}

static int connect_as(struct tc *c, const char *addr, uint32_t uid)
{
	int fd = tc_dial(addr);

	if (fd < 0 || tc_use_fd(c, fd) < 0)
		return -1;
	if (tc_version(c, "9P2000.L", 65536) < 0 || tc_attach(c, 0, uid ? "nobody" : "root",
							     uid) < 0) {
		close(fd);
		return -1;
	}
	return 0;
}

/* An open fid 2 on "pub" for Tfsync: it keeps the connection busy. */
static int open_pub(struct tc *c)
{
	if (tc_walk(c, 0, 2, "pub") < 0 || tc_open(c, 2, V9P_DOTL_RDONLY) < 0)
		return -1;
	return 0;
}

struct attacker {
	const char *addr;
	uint32_t uid;
	double until;
	long rounds;
	long leaks;		/* nobody read the root-only file */
	bool died;
	char why[128];		/* the first thing that went wrong */
	double slowest;		/* the longest wait for a reply, seconds */
};

/* Record the first failure of an attacker; died: it stopped there. */
static void note(struct attacker *a, bool died, const char *fmt, ...)
{
	va_list ap;

	a->died |= died;
	if (a->why[0])
		return;
	va_start(ap, fmt);
	vsnprintf(a->why, sizeof(a->why), fmt, ap);
	va_end(ap);
}

/* The first failure of a group of attackers, for the test's line. */
static const char *why(const struct attacker *a, int n)
{
	for (int i = 0; i < n; i++)
		if (a[i].why[0])
			return a[i].why;
	return "none";
}

/* One reply, within REPLY_WAIT_MS; a note on the attacker if none. */
static int attacker_recv(struct attacker *a, struct tc *c, struct v9p_fcall *r, int i, int n)
{
	struct pollfd pf = { .fd = c->fd, .events = POLLIN };
	double t0 = tc_now();
	int err;

	err = poll(&pf, 1, REPLY_WAIT_MS);
	if (tc_now() - t0 > a->slowest)
		a->slowest = tc_now() - t0;
	if (err != 1) {
		note(a, true, "no reply %d of %d after %.1f s", i + 1, n, tc_now() - t0);
		return -1;
	}
	err = tc_recv(c, r);
	if (err < 0) {
		note(a, true, "reply %d of %d unreadable: %d", i + 1, n, err);
		return -1;
	}
	return 0;
}

/*
 * Tfsync(2) then Tattach(20) and six clones of 20 in one write: the clones
 * race the attach that is still filling fid 20 in.
 */
static void *race_attach(void *p)
{
	struct attacker *a = p;
	struct batch *b = calloc(1, sizeof(*b));
	struct tc c;
	int got;

	if (!b || connect_as(&c, a->addr, a->uid) < 0 || open_pub(&c) < 0) {
		note(a, true, "connect, attach or open failed");
		free(b);
		return NULL;
	}
	while (tc_now() < a->until) {
		b_reset(b);
		b_add(b, c.d, m_fid(V9P_TFSYNC, 2));
		b_add(b, c.d, m_attach(20, a->uid));
		for (int k = 0; k < 6; k++)
			b_add(b, c.d, m_walk(20, 30 + (uint32_t)k, NULL));
		b_add(b, c.d, m_fid(V9P_TCLUNK, 20));
		for (int k = 0; k < 6; k++)
			b_add(b, c.d, m_fid(V9P_TCLUNK, 30 + (uint32_t)k));
		if (tc_send_raw(&c, b->buf, (size_t)b->len) < 0 ||
		    b_replies(&c, b->n, 0, &got) < 0) {
			note(a, true, "batch %ld: a reply missing or unreadable", a->rounds + 1);
			break;
		}
		a->rounds++;
	}
	tc_stop(&c);
	free(b);
	return NULL;
}

/*
 * Tfsync(2), Twalk(0 -> 10, "secret"), Tlopen(10), Tread(10), Tclunk(10):
 * the open races the walk that is filling fid 10 in. Root attackers walk
 * and open "pub" the same way so that workers keep switching identities.
 */
static void *race_identity(void *p)
{
	struct attacker *a = p;
	struct batch *b = calloc(1, sizeof(*b));
	struct v9p_fcall r;
	struct tc c;

	if (!b || connect_as(&c, a->addr, a->uid) < 0 || open_pub(&c) < 0) {
		note(a, true, "connect, attach or open failed");
		free(b);
		return NULL;
	}
	while (tc_now() < a->until) {
		b_reset(b);
		b_add(b, c.d, m_fid(V9P_TFSYNC, 2));
		b_add(b, c.d, m_walk(0, 10, a->uid ? "secret" : "pub"));
		b_add(b, c.d, m_fid(V9P_TLOPEN, 10));
		b_add(b, c.d, m_fid(V9P_TREAD, 10));
		b_add(b, c.d, m_fid(V9P_TCLUNK, 10));
		if (tc_send_raw(&c, b->buf, (size_t)b->len) < 0) {
			note(a, true, "send failed: %s", strerror(errno));
			break;
		}
		for (int i = 0; i < b->n; i++) {
			if (attacker_recv(a, &c, &r, i, b->n) < 0)
				goto out;
			if (a->uid && r.type == V9P_RREAD && r.rread.count >= 6 &&
			    !memcmp(r.rread.data, "SECRET", 6))
				a->leaks++;
		}
		a->rounds++;
	}
out:
	tc_stop(&c);
	free(b);
	return NULL;
}

/*
 * Fid 1 on directory d walks onto itself while Tgetattr and Twalk(1 -> 3,
 * "g") run on it: a Tgetattr must see d (its qid), never a closed or
 * reused descriptor. wrong counts answers that are not d's.
 */
static void *race_self_walk(void *p)
{
	struct attacker *a = p;
	struct batch *b = calloc(1, sizeof(*b));
	struct v9p_fcall r;
	uint64_t dq;
	struct tc c;

	if (!b || connect_as(&c, a->addr, 0) < 0 || open_pub(&c) < 0 ||
	    tc_walk(&c, 0, 1, "d") < 0 || tc_rpc(&c, m_fid(V9P_TGETATTR, 1)) < 0) {
		note(a, true, "connect, attach, open or walk to d failed");
		free(b);
		return NULL;
	}
	dq = c.r.rgetattr.qid.path;
	while (tc_now() < a->until) {
		b_reset(b);
		b_add(b, c.d, m_fid(V9P_TFSYNC, 2));
		for (int k = 0; k < 6; k++) {
			b_add(b, c.d, m_walk(1, 1, NULL));
			b_add(b, c.d, m_fid(V9P_TGETATTR, 1));
			b_add(b, c.d, m_walk(1, 3, "g"));
			b_add(b, c.d, m_fid(V9P_TCLUNK, 3));
		}
		if (tc_send_raw(&c, b->buf, (size_t)b->len) < 0) {
			note(a, true, "send failed: %s", strerror(errno));
			break;
		}
		for (int i = 0; i < b->n; i++) {
			if (attacker_recv(a, &c, &r, i, b->n) < 0)
				goto out;
			if (r.type == V9P_RGETATTR && r.rgetattr.qid.path != dq) {
				note(a, false, "Tgetattr answered qid %llx, not d's %llx",
				     (unsigned long long)r.rgetattr.qid.path,
				     (unsigned long long)dq);
				a->leaks++;
			}
			/* the clones to 3 and their clunks may overtake each other */
			if (r.type == V9P_RLERROR && b->types[r.tag] == V9P_TGETATTR) {
				note(a, false, "Tgetattr failed: %s", strerror((int)r.rlerror.ecode));
				a->leaks++;
			}
		}
		a->rounds++;
	}
out:
	tc_stop(&c);
	free(b);
	return NULL;
}

static int run_attackers(void *(*fn)(void *), struct attacker *a, int n)
{
	pthread_t th[16];

	for (int i = 0; i < n; i++)
		pthread_create(&th[i], NULL, fn, &a[i]);
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	return 0;
}

static void test_fid_race(void)
{
	const char *args[] = { "-e", dir, "-l", at("sock"), NULL };
	struct attacker a[4];
	struct tc_daemon d;
	long rounds = 0, leaks = 0;
	bool died = false;
	double t0, slowest = 0;

	if (tc_daemon_start(&d, args, 1) != 1) {
		tap_ok(0, "v9fsd starts for the fid race");
		return;
	}
	t0 = tc_now();
	for (int i = 0; i < 4; i++)
		a[i] = (struct attacker){ .addr = d.addrs[0], .uid = i & 1 ? NOBODY : 0,
					  .until = t0 + 1.5 };
	run_attackers(race_attach, a, 4);
	for (int i = 0; i < 4; i++) {
		rounds += a[i].rounds;
		died |= a[i].died;
	}
	tap_ok(!died && tc_daemon_alive(&d),
	       "requests on a fid still being attached never crash v9fsd (%ld rounds; "
	       "failure: %s)", rounds, why(a, 4));

	rounds = 0;
	t0 = tc_now();
	for (int i = 0; i < 4; i++)
		a[i] = (struct attacker){ .addr = d.addrs[0], .uid = i & 1 ? NOBODY : 0,
					  .until = t0 + 2.0 };
	if (tc_daemon_alive(&d))
		run_attackers(race_identity, a, 4);
	died = false;
	for (int i = 0; i < 4; i++) {
		rounds += a[i].rounds;
		leaks += a[i].leaks;
		died |= a[i].died;
	}
	tap_ok(!died && tc_daemon_alive(&d),
	       "requests on a fid still being walked never crash v9fsd (%ld rounds; "
	       "failure: %s)", rounds, why(a, 4));
	tap_ok(leaks == 0, "nobody never reads a root-only file by racing a walk (%ld of %ld)",
	       leaks, rounds);

	rounds = leaks = 0;
	died = false;
	t0 = tc_now();
	for (int i = 0; i < 4; i++)
		a[i] = (struct attacker){ .addr = d.addrs[0], .until = t0 + 1.5 };
	if (tc_daemon_alive(&d))
		run_attackers(race_self_walk, a, 4);
	for (int i = 0; i < 4; i++) {
		rounds += a[i].rounds;
		leaks += a[i].leaks;
		died |= a[i].died;
		if (a[i].slowest > slowest)
			slowest = a[i].slowest;
	}
	tap_diag("slowest reply to the self-walk attackers: %.2f s", slowest);
	tap_ok(!died && tc_daemon_alive(&d) && leaks == 0,
	       "a fid walking onto itself never loses its descriptor under other requests "
	       "(%ld wrong of %ld rounds; failure: %s)", leaks, rounds,
	       tc_daemon_alive(&d) ? why(a, 4) : "v9fsd died");
	tc_daemon_stop(&d);
}

/* Txattrcreate name, Twrite the value, Tclunk: the commit's result. */
static int set_xattr(struct tc *c, uint32_t fid, const char *name, const void *val,
		     uint32_t len)
{
	struct v9p_fcall *t;
	int err;

	err = tc_walk(c, fid, 7, "");
	if (err < 0)
		return err;
	t = msg(V9P_TXATTRCREATE);
	t->txattrcreate.fid = 7;
	v9p_str_set(&t->txattrcreate.name, name);
	t->txattrcreate.attr_size = len;
	err = tc_rpc(c, t);
	if (err < 0) {
		tc_clunk(c, 7);
		return err;
	}
	err = tc_write(c, 7, 0, val, len);
	if (err < 0) {
		tc_clunk(c, 7);
		return err;
	}
	return tc_clunk(c, 7);
}

static void test_xattr_caps(void)
{
	/* vfs_cap_data revision 2, effective: cap_setuid and cap_sys_admin */
	static const uint8_t cap[20] = { 0x01, 0x00, 0x00, 0x02, 0x80, 0x00, 0x20, 0x00 };
	char v[64];
	struct tc c;
	int fd, err;

	if (geteuid() != 0) {
		tap_ok(1, "# SKIP privileged xattrs need root");
		return;
	}
	fd = open(at("prog"), O_CREAT | O_WRONLY, 0755);
	close(fd);
	chmod(at("prog"), 0755);

	tc_start(&c, dir, NULL);
	tc_version(&c, "9P2000.L", 65536);
	err = tc_attach(&c, 0, "nobody", NOBODY);
	tc_walk(&c, 0, 1, "prog");
	err = set_xattr(&c, 1, "security.capability", cap, sizeof(cap));
	tap_ok(err < 0 && getxattr(at("prog"), "security.capability", v, sizeof(v)) < 0,
	       "nobody cannot set security.capability on a root file (%d)", err);
	err = set_xattr(&c, 1, "trusted.x", "1", 1);
	tap_ok(err < 0 && getxattr(at("prog"), "trusted.x", v, sizeof(v)) < 0,
	       "nobody cannot set trusted.x (%d)", err);
	err = set_xattr(&c, 1, "security.x", "1", 1);
	tap_ok(err < 0 && getxattr(at("prog"), "security.x", v, sizeof(v)) < 0,
	       "nobody cannot set security.x (%d)", err);
	/* on a file nobody owns too: privileged namespaces are refused */
	fd = open(at("own"), O_CREAT | O_WRONLY, 0755);
	close(fd);
	chown(at("own"), NOBODY, NOBODY);
	tc_clunk(&c, 1);
	tc_walk(&c, 0, 1, "own");
	err = set_xattr(&c, 1, "security.capability", cap, sizeof(cap));
	tap_ok(err < 0 && getxattr(at("own"), "security.capability", v, sizeof(v)) < 0,
	       "nobody cannot set security.capability on its own file (%d)", err);
	err = set_xattr(&c, 1, "user.x", "1", 1);
	tap_ok(err == 0, "nobody may still set user.x on its own file (%d)", err);
	tc_clunk(&c, 1);

	tc_attach(&c, 3, "root", 0);
	tc_walk(&c, 3, 4, "prog");
	err = set_xattr(&c, 4, "trusted.x", "1", 1);
	tap_ok(err == 0 && getxattr(at("prog"), "trusted.x", v, sizeof(v)) == 1,
	       "a root attach may set trusted.x (%d)", err);
	tc_stop(&c);
	unlink(at("prog"));
	unlink(at("own"));
}

/* Whether the next reply arrives within ms; its error (or 0) in *err. */
static bool answered(struct tc *c, int ms, int *err)
{
	struct pollfd p = { .fd = c->fd, .events = POLLIN };
	struct v9p_fcall r;

	*err = 0;
	if (poll(&p, 1, ms) != 1 || tc_recv(c, &r) < 0)
		return false;
	if (r.type == V9P_RLERROR)
		*err = -(int)r.rlerror.ecode;
	else if (r.type == V9P_RERROR)
		*err = r.rerror.errcode ? -(int)r.rerror.errcode : -EIO;
	return true;
}

static void special_opens(const char *version)
{
	static const char *const names[] = { "null", "fifo" };
	struct v9p_fcall *t;
	struct tc c;
	bool ok;
	int err;

	tc_setup(&c, dir, version, NULL);
	for (int i = 0; i < 2; i++) {
		const char *n = names[i];

		/* open an existing node by fid */
		tc_walk(&c, 0, 1, n);
		if (c.d == V9P_9P2000L) {
			t = msg(V9P_TLOPEN);
			t->tlopen.fid = 1;
			t->tlopen.flags = V9P_DOTL_RDONLY;
		} else {
			t = msg(V9P_TOPEN);
			t->topen.fid = 1;
			t->topen.mode = V9P_OREAD;
		}
		t->tag = 100;
		tc_send(&c, t);
		ok = answered(&c, 2000, &err);
		tap_ok(ok && err < 0, "%s: opening the %s node is refused at once (%d)",
		       version, n, err);
		if (!ok)
			goto out;
		tc_clunk(&c, 1);

		/* create over an existing node */
		tc_walk(&c, 0, 1, "");
		if (c.d == V9P_9P2000L) {
			t = msg(V9P_TLCREATE);
			t->tlcreate.fid = 1;
			v9p_str_set(&t->tlcreate.name, n);
			t->tlcreate.flags = V9P_DOTL_RDONLY | V9P_DOTL_CREATE;
			t->tlcreate.mode = 0644;
			t->tlcreate.gid = V9P_NONUNAME;
		} else {
			t = msg(V9P_TCREATE);
			t->tcreate.fid = 1;
			v9p_str_set(&t->tcreate.name, n);
			t->tcreate.perm = 0644;
			t->tcreate.mode = V9P_OREAD;
			v9p_str_set(&t->tcreate.extension, "");
		}
		t->tag = 101;
		tc_send(&c, t);
		ok = answered(&c, 2000, &err);
		tap_ok(ok && err < 0, "%s: creating over the %s node is refused at once (%d)",
		       version, n, err);
		if (!ok)
			goto out;
		tc_clunk(&c, 1);
	}
	tap_ok(tc_walk(&c, 0, 1, "") == 0, "%s: the connection is still served", version);
out:
	tc_stop(&c);
}

static void test_special_opens(void)
{
	if (geteuid() != 0) {
		tap_ok(1, "# SKIP device nodes need root");
		return;
	}
	mknod(at("null"), S_IFCHR | 0666, makedev(1, 3));
	mkfifo(at("fifo"), 0666);
	special_opens("9P2000.L");
	special_opens("9P2000.u");
	special_opens("9P2000");
	unlink(at("null"));
	unlink(at("fifo"));
}

static void test_moved_out(void)
{
	char outside[4096], inside[4096];
	struct v9p_fcall *t;
	struct tc c;
	int err, fd;

	snprintf(inside, sizeof(inside), "%s/export", dir);
	snprintf(outside, sizeof(outside), "%s/outside", dir);
	mkdir(inside, 0755);
	mkdir(outside, 0755);
	mkdir(at("export/d"), 0755);
	fd = open(at("outside/secret"), O_CREAT | O_WRONLY, 0644);
	close(fd);

	tc_setup(&c, inside, "9P2000.L", NULL);
	tap_ok(tc_walk(&c, 0, 1, "d") == 0, "a fid on export/d");
	rename(at("export/d"), at("outside/d"));
	err = tc_walk(&c, 1, 2, "..");
	tap_ok(err < 0, "after d moves out of the export, \"..\" from it fails (%d)", err);
	tc_clunk(&c, 2);
	fd = open(at("outside/d/f"), O_CREAT | O_WRONLY, 0644);
	close(fd);
	err = tc_walk(&c, 1, 2, "f");
	tap_ok(err < 0, "a walk from it to a file outside fails (%d)", err);
	tc_clunk(&c, 2);
	tc_walk(&c, 1, 3, "");
	err = tc_create(&c, 3, "new", 0644, V9P_DOTL_WRONLY);
	tap_ok(err < 0 && access(at("outside/d/new"), F_OK) < 0,
	       "creating in it fails (%d)", err);
	tc_clunk(&c, 3);
	t = msg(V9P_TMKDIR);
	t->tmkdir.dfid = 1;
	v9p_str_set(&t->tmkdir.name, "sub");
	t->tmkdir.mode = 0755;
	t->tmkdir.gid = V9P_NONUNAME;
	err = tc_rpc(&c, t);
	tap_ok(err < 0 && access(at("outside/d/sub"), F_OK) < 0,
	       "Tmkdir in it fails (%d)", err);
	rename(at("outside/d"), at("export/d"));
	err = tc_walk(&c, 1, 2, "f");
	tap_ok(err == 0, "moved back, the fid works again (%d)", err);
	tc_stop(&c);
}

/*
 * A blocking Tlock on a locked file and its Tflush in one write, many
 * times: the interrupting signal may land before the worker enters the
 * lock call, and the flush must still end the wait.
 */
static bool flush_answered(struct tc *c)
{
	struct v9p_fcall r;

	for (int i = 0; i < 2; i++) {
		struct pollfd p = { .fd = c->fd, .events = POLLIN };

		if (poll(&p, 1, 2000) != 1 || tc_recv(c, &r) < 0)
			return false;
		if (r.type == V9P_RFLUSH)
			return true;
	}
	return false;
}

/*
 * A client hangs up while its blocking Tlock waits for a lock held on the
 * same connection: the Tlock must end, or its worker, its fids and the
 * connection would wait for ever (and v9fsd -s would never exit). Under
 * -o serial nothing after the Tlock is read until it is answered
 * (v9fsd(8)), so a Tflush cannot end it: the flush race does not apply,
 * and the Tflush sent behind it must stay unanswered.
 */
static void hang_up_on_lock(struct tc *c, struct batch *b)
{
	struct pollfd p = { .fd = c->fd, .events = POLLIN };
	struct v9p_fcall *t;
	double t0;
	int st;

	b_reset(b);
	t = msg(V9P_TLOCK);
	t->tlock.fid = 2;
	t->tlock.type = V9P_LOCK_TYPE_WRLCK;
	t->tlock.flags = V9P_LOCK_FLAGS_BLOCK;
	v9p_str_set(&t->tlock.client_id, "waiter");
	b_add(b, c->d, t);
	if (tc_serial()) {
		t = msg(V9P_TFLUSH);
		t->tflush.oldtag = (uint16_t)(b->tag - 1);
		b_add(b, c->d, t);
	}
	tc_send_raw(c, b->buf, (size_t)b->len);
	tap_ok(poll(&p, 1, 500) == 0,
	       "a blocking Tlock on a lock held by the same connection waits%s "
	       "(nothing answered in 0.5 s)", tc_serial() ? ", the Tflush behind it too" : "");
	t0 = tc_now();
	st = tc_stop(c);
	tap_ok(st == 0, "hanging up ends the waiting Tlock: v9fsd -s exits 0 (%d after %.1f s)",
	       st, tc_now() - t0);
}

static void test_flush_race(void)
{
	struct batch *b = calloc(1, sizeof(*b));
	struct v9p_fcall *t;
	struct tc c;
	int fd, lost = 0, tries = 0;
	double until;

	fd = open(at("lockme"), O_CREAT | O_WRONLY, 0666);
	close(fd);
	tc_setup(&c, dir, "9P2000.L", NULL);
	tc_walk(&c, 0, 1, "lockme");
	tc_open(&c, 1, V9P_DOTL_RDWR);
	tc_walk(&c, 0, 2, "lockme");
	tc_open(&c, 2, V9P_DOTL_RDWR);
	t = msg(V9P_TLOCK);
	t->tlock.fid = 1;
	t->tlock.type = V9P_LOCK_TYPE_WRLCK;
	v9p_str_set(&t->tlock.client_id, "holder");
	tc_rpc(&c, t);
	if (tc_serial()) {
		tap_ok(1, "# SKIP a Tflush right after a blocking Tlock: under -o serial it "
		       "is not read before the Tlock is answered");
		goto out;
	}
	until = tc_now() + 2.0;
	while (tries < 300 && tc_now() < until) {
		b_reset(b);
		t = msg(V9P_TLOCK);
		t->tlock.fid = 2;
		t->tlock.type = V9P_LOCK_TYPE_WRLCK;
		t->tlock.flags = V9P_LOCK_FLAGS_BLOCK;
		v9p_str_set(&t->tlock.client_id, "waiter");
		b_add(b, c.d, t);
		t = msg(V9P_TFLUSH);
		t->tflush.oldtag = (uint16_t)(b->tag - 1);
		b_add(b, c.d, t);
		tc_send_raw(&c, b->buf, (size_t)b->len);
		tries++;
		/* Rlock (unless the flush caught it queued), then Rflush */
		if (!flush_answered(&c)) {
			lost++;
			break;
		}
	}
	tap_ok(lost == 0 && tries > 50,
	       "a Tflush right after a blocking Tlock always ends it (%d tries, %d lost)",
	       tries, lost);
out:
	hang_up_on_lock(&c, b);
	unlink(at("lockme"));
	free(b);
}

int main(void)
{
	int fd;

	signal(SIGPIPE, SIG_IGN);
	dir = tc_export_with_pub();
	if (!dir)
		return 1;
	mkdir(at("d"), 0755);
	fd = open(at("d/g"), O_CREAT | O_WRONLY, 0644);
	close(fd);
	fd = open(at("secret"), O_CREAT | O_WRONLY, 0600);
	if (write(fd, "SECRET", 6) != 6)
		return 1;
	close(fd);

	test_fid_race();
	test_xattr_caps();
	test_special_opens();
	test_moved_out();
	test_flush_race();
	tc_rmtree(dir);
	free(dir);
	return tap_done();
}
