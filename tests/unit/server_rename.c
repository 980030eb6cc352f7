// SPDX-License-Identifier: GPL-2.0
/*
 * server_rename.c - fids follow renames done through v9fsd, whichever
 * connection holds them and whichever connection renames: a directory above
 * the fid's file, the file itself, and a rename over an existing name. In
 * each dialect's own way of renaming (Twstat; Trename and Trenameat in .L).
 * Also what holds after a rename behind v9fsd's back: the fid still reaches
 * its own file, and a remove by the stale name touches nothing else.
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

static struct tc c1, c2;
static const char *dname;
static char *dir;
static char pbuf[4096];

static const char *at(const char *name)
{
	snprintf(pbuf, sizeof(pbuf), "%s/%s", dir, name);
	return pbuf;
}

/* rename(2) of two export-relative names, behind v9fsd's back */
static int local_rename(const char *from, const char *to)
{
	char a[4096], b[4096];

	snprintf(a, sizeof(a), "%s/%s", dir, from);
	snprintf(b, sizeof(b), "%s/%s", dir, to);
	return rename(a, b);
}

static void put_file(const char *name, const char *text)
{
	int fd = open(at(name), O_CREAT | O_TRUNC | O_WRONLY, 0644);

	if (fd >= 0) {
		if (write(fd, text, strlen(text)) < 0)
			perror("write");
		close(fd);
	}
}

static uint64_t ino_of(const char *name)
{
	struct stat st;

	return lstat(at(name), &st) == 0 ? (uint64_t)st.st_ino : 0;
}

static struct v9p_fcall *msg(uint8_t type)
{
	static struct v9p_fcall t;

	memset(&t, 0, sizeof(t));
	t.type = type;
	return &t;
}

/* qid.path and name of a fid (the name only where a stat carries one). */
static int fid_info(struct tc *c, uint32_t fid, uint64_t *qpath, char *name, size_t len)
{
	struct v9p_fcall *t;
	int err;

	name[0] = '\0';
	if (c->d == V9P_9P2000L) {
		t = msg(V9P_TGETATTR);
		t->tgetattr.fid = fid;
		t->tgetattr.request_mask = V9P_GETATTR_BASIC;
		err = tc_rpc(c, t);
		if (err == 0)
			*qpath = c->r.rgetattr.qid.path;
		return err;
	}
	t = msg(V9P_TSTAT);
	t->tstat.fid = fid;
	err = tc_rpc(c, t);
	if (err == 0) {
		*qpath = c->r.rstat.stat.qid.path;
		snprintf(name, len, "%.*s", c->r.rstat.stat.name.len, c->r.rstat.stat.name.s);
	}
	return err;
}

/* Read a file through a clone of fid: its first bytes, as a string. */
static const char *read_via(struct tc *c, uint32_t fid)
{
	static char buf[64];
	int n;

	buf[0] = '\0';
	if (tc_walk(c, fid, 90, "") < 0)
		return "(walk failed)";
	if (tc_open(c, 90, V9P_OREAD) < 0) {
		tc_clunk(c, 90);
		return "(open failed)";
	}
	n = tc_read(c, 90, 0, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	tc_clunk(c, 90);
	return n < 0 ? "(read failed)" : buf;
}

/* Remove the file fid names, through a clone (the fid itself stays). */
static int remove_via(struct tc *c, uint32_t fid)
{
	struct v9p_fcall *t;
	int err = tc_walk(c, fid, 91, "");

	if (err < 0)
		return err;
	t = msg(V9P_TREMOVE);
	t->tremove.fid = 91;
	return tc_rpc(c, t);
}

/*
 * Rename the file fid names to newname in directory dfid: Trename in .L,
 * else Twstat (whose renames stay in the same directory: dfid unused).
 */
static int rename_fid(struct tc *c, uint32_t fid, uint32_t dfid, const char *newname)
{
	struct v9p_fcall *t;

	if (c->d == V9P_9P2000L) {
		t = msg(V9P_TRENAME);
		t->trename.fid = fid;
		t->trename.dfid = dfid;
		v9p_str_set(&t->trename.name, newname);
		return tc_rpc(c, t);
	}
	t = msg(V9P_TWSTAT);
	t->twstat.fid = fid;
	v9p_stat_dont_touch(&t->twstat.stat);
	v9p_str_set(&t->twstat.stat.name, newname);
	return tc_rpc(c, t);
}

/*
 * Rename dirpath/oldname to dirpath/newname from connection c, with a
 * fid of its own: Trenameat in .L, a walk and Twstat otherwise.
 */
static int rename_name(struct tc *c, const char *dirpath, const char *oldname,
		       const char *newname)
{
	struct v9p_fcall *t;
	char p[256];
	int err;

	if (c->d == V9P_9P2000L) {
		err = tc_walk(c, 0, 80, dirpath);
		if (err < 0)
			return err;
		t = msg(V9P_TRENAMEAT);
		t->trenameat.olddirfid = 80;
		t->trenameat.newdirfid = 80;
		v9p_str_set(&t->trenameat.oldname, oldname);
		v9p_str_set(&t->trenameat.newname, newname);
		err = tc_rpc(c, t);
		tc_clunk(c, 80);
		return err;
	}
	snprintf(p, sizeof(p), "%s%s%s", dirpath, *dirpath ? "/" : "", oldname);
	err = tc_walk(c, 0, 80, p);
	if (err < 0)
		return err;
	err = rename_fid(c, 80, 0, newname);
	tc_clunk(c, 80);
	return err;
}

static int session(struct tc *c, const char *addr, const char *version)
{
	int fd = tc_dial(addr);

	if (fd < 0 || tc_use_fd(c, fd) < 0)
		return -1;
	if (tc_version(c, version, 65536) < 0)
		return -1;
	return tc_attach(c, 0, "root", 0);
}

static void run(const char *addr, const char *version)
{
	uint64_t q, f_ino, h_ino, b_ino;
	char name[256];
	int err;

	dname = version;
	tc_rmtree(at("a"));
	tc_rmtree(at("c"));
	tc_rmtree(at("moved"));
	mkdir(at("a"), 0755);
	mkdir(at("a/b"), 0755);
	put_file("a/b/f", "hello");
	put_file("a/b/g", "other");
	put_file("a/b/h", "old target");
	f_ino = ino_of("a/b/f");
	h_ino = ino_of("a/b/h");
	b_ino = ino_of("a/b");

	if (session(&c1, addr, version) < 0 || session(&c2, addr, version) < 0) {
		tap_ok(0, "%s: two connections to one v9fsd", version);
		tc_stop(&c1);
		tc_stop(&c2);
		return;
	}
	/* conn 1 holds fids on the file, its directory, and two neighbours */
	err = tc_walk(&c1, 0, 1, "a/b/f");
	err = err ?: tc_walk(&c1, 0, 2, "a/b");
	err = err ?: tc_walk(&c1, 0, 3, "a/b/h");
	err = err ?: tc_walk(&c1, 0, 4, "a/b/g");
	tap_ok(err == 0, "%s: conn 1 walks to a/b/f, a/b, a/b/h, a/b/g", version);

	/* conn 2 renames a directory above them */
	err = rename_name(&c2, "", "a", "c");
	tap_ok(err == 0 && access(at("c/b/f"), F_OK) == 0,
	       "%s: conn 2 renames a to c (%d)", version, err);
	err = fid_info(&c1, 1, &q, name, sizeof(name));
	tap_ok(err == 0 && q == f_ino && (c1.d == V9P_9P2000L || !strcmp(name, "f")),
	       "%s: conn 1's fid still stats the same file (%d, name '%s')", version, err, name);
	tap_ok(!strcmp(read_via(&c1, 1), "hello"), "%s: and opens and reads it (%s)",
	       version, read_via(&c1, 1));
	err = tc_walk(&c1, 2, 5, "..");
	tap_ok(err == 0 && c1.r.rwalk.wqid[0].path == ino_of("c"),
	       "%s: '..' from conn 1's a/b fid reaches c (%d)", version, err);
	tc_clunk(&c1, 5);
	err = tc_walk(&c1, 2, 5, "../b/f");
	tap_ok(err == 0 && c1.r.rwalk.wqid[2].path == f_ino,
	       "%s: '../b/f' from it reaches the file again (%d)", version, err);
	tc_clunk(&c1, 5);

	/* conn 2 renames the file itself; conn 1 renames it once more */
	err = rename_name(&c2, "c/b", "f", "f2");
	tap_ok(err == 0, "%s: conn 2 renames c/b/f to f2 (%d)", version, err);
	err = fid_info(&c1, 1, &q, name, sizeof(name));
	tap_ok(err == 0 && q == f_ino && (c1.d == V9P_9P2000L || !strcmp(name, "f2")),
	       "%s: conn 1's fid on it follows (%d, name '%s')", version, err, name);
	err = rename_fid(&c1, 1, 2, "f3");
	tap_ok(err == 0 && ino_of("c/b/f3") == f_ino && access(at("c/b/f2"), F_OK) != 0,
	       "%s: conn 1 renames it by its fid to f3 (%d)", version, err);

	/* rename over an existing name: g replaces h */
	err = rename_name(&c2, "c/b", "g", "h");
	tap_ok(err == 0 && access(at("c/b/g"), F_OK) != 0,
	       "%s: conn 2 renames c/b/g over c/b/h (%d)", version, err);
	tap_ok(!strcmp(read_via(&c1, 4), "other"),
	       "%s: conn 1's fid on g reads g's data under its new name (%s)",
	       version, read_via(&c1, 4));
	err = fid_info(&c1, 3, &q, name, sizeof(name));
	tap_ok(err == 0 && q == h_ino,
	       "%s: conn 1's fid on the replaced h still stats the old file (%d)", version, err);
	err = remove_via(&c1, 3);
	tap_ok(err == -ENOENT && access(at("c/b/h"), F_OK) == 0,
	       "%s: removing the replaced h fails (ENOENT) and leaves the new h (%d)",
	       version, err);
	err = remove_via(&c1, 4);
	tap_ok(err == 0 && access(at("c/b/h"), F_OK) != 0,
	       "%s: removing through the fid that was on g removes c/b/h (%d)", version, err);

	/* a fid walked by conn 2 after the renames, and conn 1's old one, agree */
	err = remove_via(&c1, 1);
	tap_ok(err == 0 && access(at("c/b/f3"), F_OK) != 0,
	       "%s: conn 1 removes the file it walked as a/b/f, now c/b/f3 (%d)", version, err);

	/* behind v9fsd's back: a local rename cannot be followed */
	put_file("c/b/k", "kept");
	err = tc_walk(&c1, 0, 6, "c/b/k");
	if (local_rename("c/b/k", "c/b/k2") == 0)
		put_file("c/b/k", "newcomer");
	tap_ok(err == 0 && !strcmp(read_via(&c1, 6), "kept"),
	       "%s: after a local rename the fid still reads its own file", version);
	err = remove_via(&c1, 6);
	tap_ok(err == -ENOENT && access(at("c/b/k"), F_OK) == 0 && access(at("c/b/k2"), F_OK) == 0,
	       "%s: a remove by the stale name fails (ENOENT) and removes neither file (%d)",
	       version, err);
	if (local_rename("c", "moved") == 0)
		mkdir(at("c"), 0755);
	err = tc_walk(&c1, 2, 7, "..");
	tap_ok(err == -ENOENT, "%s: '..' from a directory moved locally fails with ENOENT (%d)",
	       version, err);
	tap_ok(ino_of("moved/b") == b_ino, "%s: (the directory was moved)", version);

	tc_stop(&c1);
	tc_stop(&c2);
}

/*
 * A rename that moves a fid while that fid is in the middle of a long
 * directory read (on another connection) is answered at once: it never
 * waits for the read. The read is a 9P2000.u one of a directory of many
 * entries, each a stat record (an fstatat each); the rename comes a few
 * milliseconds after the read was sent, and the read must still be
 * running when the rename's reply is in, which takes less than a quarter
 * of the read's time.
 */
static void rename_during_read(const char *addr)
{
	const char *names[] = { "big", "big2" };
	int trials = 3, quick = 0, nent = 30000, fd;
	struct v9p_fcall *t;
	char p[64];

	if (mkdir(at("big"), 0755) < 0) {
		tap_ok(0, "make a directory of %d entries", nent);
		return;
	}
	for (int i = 0; i < nent; i++) {
		snprintf(p, sizeof(p), "big/e%05d", i);
		put_file(p, "");
	}
	fd = tc_dial(addr);
	if (fd < 0 || tc_use_fd(&c1, fd) < 0 || tc_version(&c1, "9P2000.u", 1024 * 1024) < 0 ||
	    tc_attach(&c1, 0, "root", 0) < 0 || session(&c2, addr, "9P2000.L") < 0) {
		tap_ok(0, "two connections for the rename during a read");
		goto out;
	}
	for (int i = 0; i < trials; i++) {
		const char *from = names[i % 2], *to = names[(i + 1) % 2];
		struct pollfd pfd = { .fd = c1.fd, .events = POLLIN };
		double t0, t1, t2;
		int err, pending;

		if (tc_walk(&c1, 0, 20, from) < 0 || tc_open(&c1, 20, V9P_OREAD) < 0) {
			tap_diag("walk and open %s failed", from);
			break;
		}
		t = msg(V9P_TREAD);
		t->tag = 0x7001;
		t->tread.fid = 20;
		t->tread.offset = 0;
		t->tread.count = 1024 * 1024 - V9P_IOHDRSZ;
		t0 = tc_now();
		if (tc_send(&c1, t) < 0)
			break;
		usleep(3000);
		t1 = tc_now();
		err = rename_name(&c2, "", from, to);
		t1 = tc_now() - t1;
		pending = poll(&pfd, 1, 0);
		if (tc_recv(&c1, &c1.r) < 0)
			break;
		t2 = tc_now() - t0;
		tap_diag("trial %d: rename %s to %s %s in %.1f ms, the read took %.1f ms (%s)",
			 i + 1, from, to, err == 0 ? "done" : "failed", t1 * 1e3, t2 * 1e3,
			 pending == 0 ? "still running" : "done before the rename");
		/* waiting for the read, it would end just before the read's reply */
		quick += err == 0 && pending == 0 && t1 < t2 / 4;
		tc_clunk(&c1, 20);
	}
	tap_ok(quick == trials,
	       "a rename moving a fid in the middle of a long directory read is answered before the read (%d of %d)",
	       quick, trials);
out:
	tc_stop(&c1);
	tc_stop(&c2);
}

int main(void)
{
	struct tc_daemon d;
	char sock[4096];
	int n;

	signal(SIGPIPE, SIG_IGN);
	dir = tc_tmpdir();
	if (!dir)
		return 1;
	snprintf(sock, sizeof(sock), "unix:%s.sock", dir);
	{
		const char *args[] = { "-e", dir, "-l", sock, NULL };

		n = tc_daemon_start(&d, args, 1);
	}
	tap_ok(n == 1, "v9fsd listens on %s", sock);
	if (n == 1) {
		run(d.addrs[0], "9P2000");
		run(d.addrs[0], "9P2000.u");
		run(d.addrs[0], "9P2000.L");
		rename_during_read(d.addrs[0]);
	}
	tap_ok(tc_daemon_stop(&d) == 0, "v9fsd exits cleanly");
	tc_rmtree(dir);
	free(dir);
	return tap_done();
}
