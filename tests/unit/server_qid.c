// SPDX-License-Identifier: GPL-2.0
/*
 * server_qid.c - qid.path is one number per host file: two files never
 * share one, one file always gets the same one, and a readdir entry
 * carries the number a walk to it answers.
 *
 * The first part calls v9fsd's srv_qid_from_stat() (linked in) with
 * made-up (st_dev, st_ino) pairs: devices that differ only in high bits,
 * inode numbers with high bits set, more devices than prefixes, and two
 * runs (processes) that meet the same devices in opposite orders. The
 * second part runs v9fsd in a private mount namespace on an export holding
 * two tmpfs mounts whose inode numbers collide, and compares walk,
 * Tgetattr, Treaddir (9P2000.L) and directory reads (9P2000.u) for every
 * entry, before and after a restart.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "srv.h"
#include "server_client.h"
#include "tap.h"

struct srv_config srv_cfg;

#define ROOT_DEV ((dev_t)0x801)

struct pair {
	dev_t dev;
	ino_t ino;
	uint64_t path;
};

/*
 * v9fsd's qid.path for the file (dev, ino), through srv_qid_from_stat(),
 * the function every qid v9fsd sends is made by.
 */
static uint64_t qpath(dev_t dev, ino_t ino)
{
	struct stat st;
	struct v9p_qid q;

	memset(&st, 0, sizeof(st));
	st.st_dev = dev;
	st.st_ino = ino;
	st.st_mode = S_IFREG | 0644;
	srv_qid_from_stat(&st, &q);
	return q.path;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* How many values of v[0..n) equal another (sorts v). */
static size_t dups(uint64_t *v, size_t n)
{
	size_t d = 0;

	qsort(v, n, sizeof(*v), cmp_u64);
	for (size_t i = 1; i < n; i++)
		d += v[i] == v[i - 1];
	return d;
}

static bool differ(dev_t d1, ino_t i1, dev_t d2, ino_t i2)
{
	return qpath(d1, i1) != qpath(d2, i2);
}

static void mapping(void)
{
	static const dev_t devs[] = { ROOT_DEV, 0x28, 0x10028, 0x30, 0x31, 0x100000031,
				      0x2a, 0xfd00 };
	static const uint64_t hi[] = { 0, 1ull << 47, 1ull << 48, 1ull << 62, 1ull << 63,
				       0xffffffffffff0000ull };
	size_t nd = sizeof(devs) / sizeof(devs[0]), nh = sizeof(hi) / sizeof(hi[0]);
	size_t n = nd * nh * 64, k = 0, bad = 0;
	struct pair *p = calloc(n, sizeof(*p));
	uint64_t *v = calloc(n, sizeof(*v));

	srv_cfg.root_dev = ROOT_DEV;
	tap_ok(qpath(ROOT_DEV, 12345) == 12345 &&
	       qpath(ROOT_DEV, (ino_t)((1ull << 63) - 1)) == (1ull << 63) - 1,
	       "a file of the export's filesystem keeps its inode number below 2^63");
	tap_ok(differ(0x28, 5, 0x10028, 5),
	       "two devices differing only above bit 15 of st_dev: same inode, different qid.path");
	tap_ok(differ(0x30, 7, 0x31, (ino_t)(7 ^ (1ull << 48))),
	       "inode numbers with bit 48 set on one device do not meet another device's");
	tap_ok(differ(ROOT_DEV, (ino_t)(9 ^ (0x30ull << 48)), 0x30, 9),
	       "a root-filesystem inode with high bits does not meet another device's file");
	tap_ok(differ(0x30, (ino_t)(1ull << 63 | 3), 0x30, 3) &&
	       differ(ROOT_DEV, (ino_t)(1ull << 63 | 3), ROOT_DEV, 3) &&
	       differ(ROOT_DEV, (ino_t)(1ull << 63 | 3), 0x30, (ino_t)(1ull << 63 | 3)),
	       "inode numbers with the top bit set stay apart from those without");
	if (!p || !v) {
		tap_ok(0, "memory for the table of pairs");
		return;
	}
	for (size_t d = 0; d < nd; d++)
		for (size_t h = 0; h < nh; h++)
			for (uint64_t i = 1; i <= 64; i++) {
				p[k].dev = devs[d];
				p[k].ino = (ino_t)(hi[h] | i);
				p[k].path = qpath(p[k].dev, p[k].ino);
				v[k] = p[k].path;
				k++;
			}
	bad = dups(v, n);
	tap_ok(bad == 0, "%zu files on %zu devices, inode numbers up to 2^64-1: all qid.paths differ (%zu shared)",
	       n, nd, bad);
	bad = 0;
	for (size_t i = n; i-- > 0;)
		bad += qpath(p[i].dev, p[i].ino) != p[i].path;
	tap_ok(bad == 0, "asked again in the other order, each file gets the same qid.path (%zu moved)",
	       bad);
	free(p);
	free(v);
}

/* 70000 devices, more than there are prefixes: one file each, all apart. */
static void many_devices(void)
{
	size_t n = 70000, bad;
	uint64_t *v = calloc(n, sizeof(*v));

	if (!v) {
		tap_ok(0, "memory for %zu devices", n);
		return;
	}
	for (size_t i = 0; i < n; i++)
		v[i] = qpath((dev_t)(0x1000000 + i * 0x10000), 2);
	bad = 0;
	for (size_t i = 0; i < n; i++)
		bad += qpath((dev_t)(0x1000000 + i * 0x10000), 2) != v[i];
	tap_ok(bad == 0, "asked again, each of the %zu gets the same qid.path (%zu moved)", n, bad);
	bad = dups(v, n);
	tap_ok(bad == 0, "%zu devices whose st_dev differ only above bit 15, inode 2 on each: all apart (%zu shared)",
	       n, bad);
	free(v);
}

/*
 * One "run" of v9fsd in a child process, meeting the devices in order or
 * backwards; the numbers of small inode numbers come back through fd.
 */
static void one_run(int fd, bool backwards)
{
	static const dev_t devs[] = { 0x28, 0x29, 0x2a, 0x803, 0x100000007 };
	int nd = (int)(sizeof(devs) / sizeof(devs[0]));
	uint64_t out[6 * 4];
	int k = 0;

	srv_cfg.root_dev = ROOT_DEV;
	for (int j = 0; j < nd; j++) {
		int d = backwards ? nd - 1 - j : j;

		qpath(devs[d], 1);
	}
	for (int d = 0; d < nd; d++)
		for (ino_t i = 1; i <= 4; i++)
			out[k++] = qpath(devs[d], i);
	for (ino_t i = 1; i <= 4; i++)
		out[k++] = qpath(ROOT_DEV, i * 1000);
	if (write(fd, out, sizeof(out)) != (ssize_t)sizeof(out))
		_exit(1);
	_exit(0);
}

static int run_child(bool backwards, uint64_t *out, size_t len)
{
	int pfd[2], st;
	pid_t pid;
	ssize_t got;

	if (pipe(pfd) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		one_run(pfd[1], backwards);
	}
	close(pfd[1]);
	got = read(pfd[0], out, len);
	close(pfd[0]);
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		return -1;
	return got == (ssize_t)len ? 0 : -1;
}

static void two_runs(void)
{
	uint64_t a[24], b[24];

	tap_ok(run_child(false, a, sizeof(a)) == 0 && run_child(true, b, sizeof(b)) == 0 &&
	       !memcmp(a, b, sizeof(a)),
	       "two runs meeting five devices in opposite orders give every file the same qid.path");
}

/* ---- through v9fsd: an export with two colliding tmpfs mounts ---- */

static struct tc c;

static const char *const names[] = {
	"a", "a-link", "sub", "sub/f", "m1", "m1/x", "m1/x-link", "m1/y", "m1/d", "m1/d/z",
	"m2", "m2/x", "m2/y", "m2/d", "m2/d/z",
};
#define NNAMES (sizeof(names) / sizeof(names[0]))

/* The qid.path a walk from the root to name answers; 0 when it fails. */
static uint64_t walk_path(const char *name)
{
	uint64_t path;

	if (tc_walk(&c, 0, 50, name) < 0)
		return 0;
	path = c.r.rwalk.wqid[c.r.rwalk.nwqid - 1].path;
	tc_clunk(&c, 50);
	return path;
}

static uint64_t getattr_path(const char *name)
{
	struct v9p_fcall *t;
	uint64_t path = 0;

	if (tc_walk(&c, 0, 51, name) < 0)
		return 0;
	t = tc_msg(V9P_TGETATTR);
	t->tgetattr.fid = 51;
	t->tgetattr.request_mask = V9P_GETATTR_BASIC;
	if (tc_rpc(&c, t) == 0)
		path = c.r.rgetattr.qid.path;
	tc_clunk(&c, 51);
	return path;
}

/*
 * Every entry of directory dir (9P2000.L Treaddir or 9P2000.u reads of stat
 * records) whose qid.path differs from what a walk to it answers; -1 if
 * the directory cannot be listed. *n counts the entries compared.
 */
static int dir_mismatches(const char *dir, int *n)
{
	uint8_t buf[8192];
	uint64_t off = 0;
	int bad = 0;
	bool dotl = c.d == V9P_9P2000L;

	*n = 0;
	if (tc_walk(&c, 0, 52, dir) < 0 ||
	    tc_open(&c, 52, dotl ? V9P_DOTL_RDONLY | V9P_DOTL_DIRECTORY : V9P_OREAD) < 0)
		return -1;
	for (;;) {
		uint32_t pos = 0, count;
		const uint8_t *data;

		if (dotl) {
			struct v9p_fcall *t = tc_msg(V9P_TREADDIR);

			t->treaddir.fid = 52;
			t->treaddir.offset = off;
			t->treaddir.count = sizeof(buf);
			if (tc_rpc(&c, t) < 0)
				return -1;
			count = c.r.rreaddir.count;
			data = c.r.rreaddir.data;
		} else {
			int got = tc_read(&c, 52, off, buf, sizeof(buf));

			if (got < 0)
				return -1;
			count = (uint32_t)got;
			data = buf;
			off += count;
		}
		if (count == 0)
			break;
		if (data != buf)
			memcpy(buf, data, count);	/* the walks below reuse the reply buffer */
		while (pos < count) {
			char full[256], name[128];
			uint64_t qpath;
			int k;

			if (dotl) {
				struct v9p_dirent de;

				k = v9p_dirent_unpack(buf + pos, count - pos, &de);
				if (k < 0)
					return -1;
				off = de.offset;
				qpath = de.qid.path;
				snprintf(name, sizeof(name), "%.*s", de.name.len, de.name.s);
			} else {
				struct v9p_stat st;

				k = v9p_stat_unpack(buf + pos, count - pos, c.d, &st);
				if (k < 0)
					return -1;
				qpath = st.qid.path;
				snprintf(name, sizeof(name), "%.*s", st.name.len, st.name.s);
			}
			pos += (uint32_t)k;
			if (!strcmp(name, ".") || !strcmp(name, ".."))
				continue;
			snprintf(full, sizeof(full), "%s%s%s", dir, *dir ? "/" : "", name);
			(*n)++;
			if (walk_path(full) != qpath) {
				tap_diag("%s: %s in the listing 0x%llx, walk 0x%llx", dir, full,
					 (unsigned long long)qpath,
					 (unsigned long long)walk_path(full));
				bad++;
			}
		}
	}
	tc_clunk(&c, 52);
	return bad;
}

static void check_export(const char *exp, const char *version, uint64_t *paths)
{
	static const char *const dirs[] = { "", "sub", "m1", "m1/d", "m2", "m2/d" };
	uint64_t v[NNAMES];
	size_t nd = sizeof(dirs) / sizeof(dirs[0]), distinct = 0, bad = 0;
	int total = 0, mism = 0;

	if (tc_setup(&c, exp, version, NULL) < 0) {
		tap_ok(0, "%s: v9fsd serves the export", version);
		tc_stop(&c);
		return;
	}
	for (size_t i = 0; i < NNAMES; i++) {
		paths[i] = walk_path(names[i]);
		bad += paths[i] == 0;
		if (c.d == V9P_9P2000L)
			bad += getattr_path(names[i]) != paths[i];
	}
	tap_ok(bad == 0, "%s: every file walks%s to a qid.path", version,
	       c.d == V9P_9P2000L ? " and Tgetattr agrees" : "");
	/* hard links share; every other name is a file of its own */
	for (size_t i = 0; i < NNAMES; i++)
		if (!strstr(names[i], "-link"))
			v[distinct++] = paths[i];
	tap_ok(dups(v, distinct) == 0,
	       "%s: %zu files on the export's filesystem and two tmpfs mounts: all qid.paths differ",
	       version, distinct);
	tap_ok(paths[0] == paths[1] && paths[5] == paths[6],
	       "%s: hard links on one filesystem share their qid.path", version);
	for (size_t i = 0; i < nd; i++) {
		int n, b = dir_mismatches(dirs[i], &n);

		if (b < 0) {
			tap_diag("%s: listing '%s' failed", version, dirs[i]);
			mism++;
			continue;
		}
		mism += b;
		total += n;
	}
	tap_ok(mism == 0 && total >= 14,
	       "%s: each of %d directory entries carries the qid.path a walk to it gives (%d differ)",
	       version, total, mism);
	tc_stop(&c);
}

static int make_tree(const char *exp)
{
	char p[4096];
	int fd;

#define P(s) (snprintf(p, sizeof(p), "%s/%s", exp, s), p)
	if (mkdir(exp, 0755) < 0 || mkdir(P("sub"), 0755) < 0 || mkdir(P("m1"), 0755) < 0 ||
	    mkdir(P("m2"), 0755) < 0)
		return -1;
	fd = open(P("a"), O_CREAT | O_WRONLY, 0644);
	close(fd);
	fd = open(P("sub/f"), O_CREAT | O_WRONLY, 0644);
	close(fd);
	if (link(P("a"), tc_path(exp, "a-link")) < 0)
		return -1;
	for (int m = 1; m <= 2; m++) {
		char base[16];

		snprintf(base, sizeof(base), "m%d", m);
		if (mount("tmpfs", P(base), "tmpfs", 0, "mode=0755") < 0)
			return -1;
		/* the same names made in the same order: the same inode numbers */
		snprintf(base, sizeof(base), "m%d/x", m);
		fd = open(P(base), O_CREAT | O_WRONLY, 0644);
		close(fd);
		snprintf(base, sizeof(base), "m%d/y", m);
		fd = open(P(base), O_CREAT | O_WRONLY, 0644);
		close(fd);
		snprintf(base, sizeof(base), "m%d/d", m);
		mkdir(P(base), 0755);
		snprintf(base, sizeof(base), "m%d/d/z", m);
		fd = open(P(base), O_CREAT | O_WRONLY, 0644);
		close(fd);
	}
	if (link(P("m1/x"), tc_path(exp, "m1/x-link")) < 0)
		return -1;
#undef P
	return 0;
}

static void through_v9fsd(void)
{
	char *dir = tc_tmpdir(), *exp;
	uint64_t l1[NNAMES], l2[NNAMES], u1[NNAMES];
	struct stat s1, s2;

	if (!dir || geteuid() != 0 || unshare(CLONE_NEWNS) < 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		tap_ok(1, "# SKIP needs root and a private mount namespace");
		free(dir);
		return;
	}
	chmod(dir, 0755);
	exp = strdup(tc_path(dir, "exp"));
	if (!exp || make_tree(exp) < 0) {
		tap_ok(0, "an export with two tmpfs mounts inside: %s", strerror(errno));
		goto out;
	}
	if (stat(tc_path(exp, "m1/x"), &s1) == 0 && stat(tc_path(exp, "m2/x"), &s2) == 0)
		tap_diag("m1/x and m2/x: inode %llu and %llu, devices 0x%llx and 0x%llx",
			 (unsigned long long)s1.st_ino, (unsigned long long)s2.st_ino,
			 (unsigned long long)s1.st_dev, (unsigned long long)s2.st_dev);
	check_export(exp, "9P2000.L", l1);
	check_export(exp, "9P2000.u", u1);
	tap_ok(!memcmp(l1, u1, sizeof(l1)), "9P2000.L and 9P2000.u give each file the same qid.path");
	check_export(exp, "9P2000.L", l2);
	tap_ok(!memcmp(l1, l2, sizeof(l1)), "v9fsd restarted: every file has the qid.path it had");
out:
	if (exp) {
		umount2(tc_path(exp, "m1"), MNT_DETACH);
		umount2(tc_path(exp, "m2"), MNT_DETACH);
	}
	tc_rmtree(dir);
	free(exp);
	free(dir);
}

int main(void)
{
	/* first: each run starts, as v9fsd does, with no device met yet */
	two_runs();
	mapping();
	many_devices();
	through_v9fsd();
	return tap_done();
}
