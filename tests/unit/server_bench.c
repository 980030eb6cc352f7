// SPDX-License-Identifier: GPL-2.0
/*
 * server_bench.c - a host-side latency probe for a 9P2000.L server (v9fsd or
 * diod) on tcp or a unix socket: the per-request cost a one-request-at-a-time
 * client sees, without a kernel client or a guest in the way. Not a test
 * (make unit does not run it); `make server-bench` builds it.
 *
 *   server_bench ADDR ANAME FILE COUNT [read|getattr|walk]
 *   server_bench ADDR ANAME DIR COUNT ls|smallfiles
 *   server_bench ADDR ANAME DIR COUNT creates
 *
 * ADDR as v9fsd reports it (tcp:127.0.0.1:5640, unix:/path); ANAME the attach
 * name ("" for v9fsd, the export path for diod); FILE relative to the export,
 * at least 4 KiB. read: COUNT Treads of 4 KiB at the same pseudo-random
 * aligned offsets as bench/v9bench.c's randread; getattr: COUNT Tgetattr;
 * walk: COUNT Twalk+Tclunk of FILE. Prints "OP COUNT us/op".
 *
 * ls: what `ls -l DIR` asks of the server, COUNT times: Twalk to DIR,
 * Tlopen, Treaddir to the end, and for every entry but . and .. a Twalk,
 * Tgetattr and Tclunk; prints "ls COUNT us/op" (an op is one entry) and the
 * entries listed. smallfiles: COUNT cycles in DIR of Tlcreate of a new file,
 * a 4 KiB Twrite, Tgetattr, Tclunk, Twalk, Tlopen, a 4 KiB Tread, Tclunk and
 * Tunlinkat; an op is one cycle.
 *
 * creates: what bench/run.sh's serial section asks of `v9fsd -o serial` for
 * v9bench's creates (open O_CREAT|O_EXCL, close; nothing written), in plain
 * 9P2000 with msize 8192 as that section mounts: per file a Twalk of the name
 * (not there yet), a Twalk cloning DIR to a new fid, Tcreate (0644, OWRITE) and
 * Tclunk; an op is one file. The files are removed afterwards, untimed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "server_client.h"

static int walk_getattr_clunk(struct tc *c, uint32_t dfid, const char *name)
{
	struct v9p_fcall t;
	int err;

	err = tc_walk(c, dfid, 4, name);
	if (err < 0)
		return err;
	memset(&t, 0, sizeof(t));
	t.type = V9P_TGETATTR;
	t.tgetattr.fid = 4;
	t.tgetattr.request_mask = V9P_GETATTR_BASIC;
	err = tc_rpc(c, &t);
	return tc_clunk(c, 4) ?: err;
}

/* One `ls -l` of dir: returns the entries listed or a negative errno. */
static long list_dir(struct tc *c, const char *dir)
{
	static uint8_t data[TC_BUFSZ];
	struct v9p_fcall t;
	uint64_t off = 0;
	long entries = 0;
	int err;

	err = tc_walk(c, 0, 3, dir);
	err = err ?: tc_open(c, 3, 0200000);	/* O_DIRECTORY */
	while (!err) {
		uint32_t n, pos = 0;

		memset(&t, 0, sizeof(t));
		t.type = V9P_TREADDIR;
		t.treaddir.fid = 3;
		t.treaddir.offset = off;
		t.treaddir.count = c->msize - 24;	/* as Linux asks: msize less 24 */
		err = tc_rpc(c, &t);
		if (err < 0 || (n = c->r.rreaddir.count) == 0)
			break;
		/* the next requests reuse the reply buffer */
		memcpy(data, c->r.rreaddir.data, n);
		while (!err && pos < n) {
			struct v9p_dirent de;
			char name[256];
			int len = v9p_dirent_unpack(data + pos, n - pos, &de);

			if (len <= 0 || de.name.len >= sizeof(name))
				return -EPROTO;
			pos += (uint32_t)len;
			off = de.offset;
			memcpy(name, de.name.s, de.name.len);
			name[de.name.len] = 0;
			if (!strcmp(name, ".") || !strcmp(name, ".."))
				continue;
			err = walk_getattr_clunk(c, 3, name);
			entries++;
		}
	}
	err = tc_clunk(c, 3) ?: err;
	return err < 0 ? err : entries;
}

/* create, write 4 KiB, getattr, read back, unlink one file in dir (fid 2) */
static int small_file(struct tc *c, long i, const char *block)
{
	struct v9p_fcall t;
	char name[32], buf[4096];
	int err;

	snprintf(name, sizeof(name), "sf.%ld", i);
	err = tc_walk(c, 2, 3, "");
	err = err ?: tc_create(c, 3, name, 0644, 02 | 0100);	/* O_RDWR|O_CREAT */
	if (!err) {
		err = tc_write(c, 3, 0, block, 4096);
		err = err == 4096 ? 0 : err < 0 ? err : -EIO;
	}
	if (!err) {
		memset(&t, 0, sizeof(t));
		t.type = V9P_TGETATTR;
		t.tgetattr.fid = 3;
		t.tgetattr.request_mask = V9P_GETATTR_BASIC;
		err = tc_rpc(c, &t);
		if (!err && c->r.rgetattr.size != 4096)
			err = -EIO;
	}
	err = tc_clunk(c, 3) ?: err;
	err = err ?: tc_walk(c, 2, 3, name);
	err = err ?: tc_open(c, 3, 0);
	if (!err) {
		err = tc_read(c, 3, 0, buf, sizeof(buf));
		err = err == 4096 && !memcmp(buf, block, 4096) ? 0 : err < 0 ? err : -EIO;
		err = tc_clunk(c, 3) ?: err;
	}
	if (!err) {
		memset(&t, 0, sizeof(t));
		t.type = V9P_TUNLINKAT;
		t.tunlinkat.dirfid = 2;
		v9p_str_set(&t.tunlinkat.name, name);
		err = tc_rpc(c, &t);
	}
	if (err == -EOPNOTSUPP) {
		/* a server without Tunlinkat (diod): what Linux's client falls back to */
		err = tc_walk(c, 2, 3, name);
		memset(&t, 0, sizeof(t));
		t.type = V9P_TREMOVE;
		t.tremove.fid = 3;
		err = err ?: tc_rpc(c, &t);
	}
	return err;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* COUNT files cr.N in DIR (fid 2), then remove them (not timed) */
static int create_files(struct tc *c, long count, double *secs)
{
	char name[32];
	double t0 = now();
	long i;
	int err = 0;

	for (i = 0; i < count && !err; i++) {
		snprintf(name, sizeof(name), "cr.%ld", i);
		err = tc_walk(c, 2, 3, name);
		if (err != -ENOENT) {
			if (!err)
				tc_clunk(c, 3);
			err = err ?: -EEXIST;
			break;
		}
		err = tc_walk(c, 2, 3, "");
		err = err ?: tc_create(c, 3, name, 0644, 1);	/* OWRITE */
		err = tc_clunk(c, 3) ?: err;
	}
	*secs = now() - t0;
	while (i-- > 0) {
		struct v9p_fcall t;
		int e;

		snprintf(name, sizeof(name), "cr.%ld", i);
		e = tc_walk(c, 2, 3, name);
		memset(&t, 0, sizeof(t));
		t.type = V9P_TREMOVE;
		t.tremove.fid = 3;
		e = e ?: tc_rpc(c, &t);
		err = err ?: e;
	}
	return err;
}

static int dir_bench(struct tc *c, const char *op, const char *dir, long count)
{
	static char block[4096];
	long entries = 0, n, ops;
	double t0, t1;
	int err = 0;

	for (size_t i = 0; i < sizeof(block); i++)
		block[i] = (char)('a' + i % 26);
	err = tc_walk(c, 0, 2, dir);
	t0 = now();
	for (long i = 0; i < count && !err; i++) {
		if (!strcmp(op, "ls")) {
			n = list_dir(c, dir);
			err = n < 0 ? (int)n : 0;
			entries += n > 0 ? n : 0;
		} else {
			err = small_file(c, i, block);
		}
	}
	t1 = now();
	if (err < 0) {
		fprintf(stderr, "server_bench: %s: %s\n", op, strerror(-err));
		return 1;
	}
	ops = !strcmp(op, "ls") ? entries : count;
	printf("%s %ld %.1f us/op", op, count, ops ? (t1 - t0) * 1e6 / (double)ops : 0.0);
	if (!strcmp(op, "ls"))
		printf(" (%ld entries)", entries);
	printf("\n");
	tc_stop(c);
	return 0;
}

int main(int argc, char **argv)
{
	struct v9p_fcall t;
	struct tc c;
	uint64_t x = 88172645463325252ULL, blocks;
	const char *op = argc > 5 ? argv[5] : "read";
	char buf[4096];
	long count;
	double t0, t1;
	bool creates;
	int fd, err;

	if (argc < 5) {
		fprintf(stderr, "usage: %s ADDR ANAME FILE COUNT [read|getattr|walk]\n"
			"       %s ADDR ANAME DIR COUNT ls|smallfiles|creates\n", argv[0], argv[0]);
		return 2;
	}
	count = atol(argv[4]);
	creates = !strcmp(op, "creates");
	fd = tc_dial(argv[1]);
	if (fd < 0 || tc_use_fd(&c, fd) < 0 ||
	    tc_version(&c, creates ? "9P2000" : "9P2000.L", creates ? 8192 : 65536) < 0) {
		fprintf(stderr, "server_bench: cannot connect to %s\n", argv[1]);
		return 1;
	}
	memset(&t, 0, sizeof(t));
	t.type = V9P_TATTACH;
	t.tattach.fid = 0;
	t.tattach.afid = V9P_NOFID;
	v9p_str_set(&t.tattach.uname, "root");
	v9p_str_set(&t.tattach.aname, argv[2]);
	t.tattach.n_uname = 0;
	err = tc_rpc(&c, &t);
	err = err ?: tc_walk(&c, 0, 1, argv[3]);
	if (err < 0) {
		fprintf(stderr, "server_bench: attach/walk: %s\n", strerror(-err));
		return 1;
	}
	if (!strcmp(op, "ls") || !strcmp(op, "smallfiles"))
		return dir_bench(&c, op, argv[3], count);
	if (creates) {
		t1 = 0;
		err = tc_walk(&c, 0, 2, argv[3]);
		err = err ?: create_files(&c, count, &t1);
		if (err < 0) {
			fprintf(stderr, "server_bench: creates: %s\n", strerror(-err));
			return 1;
		}
		printf("creates %ld %.1f us/op\n", count, t1 * 1e6 / (double)count);
		tc_stop(&c);
		return 0;
	}
	memset(&t, 0, sizeof(t));
	t.type = V9P_TGETATTR;
	t.tgetattr.fid = 1;
	t.tgetattr.request_mask = V9P_GETATTR_BASIC;
	err = tc_rpc(&c, &t);
	if (err < 0 || (blocks = c.r.rgetattr.size / 4096) == 0) {
		fprintf(stderr, "server_bench: %s: too small or no getattr\n", argv[3]);
		return 1;
	}
	if (!strcmp(op, "read") && (err = tc_open(&c, 1, 0)) < 0) {
		fprintf(stderr, "server_bench: lopen: %s\n", strerror(-err));
		return 1;
	}
	t0 = now();
	for (long i = 0; i < count; i++) {
		if (!strcmp(op, "read")) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			err = tc_read(&c, 1, (x % blocks) * 4096, buf, sizeof(buf));
			if (err == (int)sizeof(buf))
				err = 0;
		} else if (!strcmp(op, "getattr")) {
			err = tc_rpc(&c, &t);
		} else {
			err = tc_walk(&c, 0, 2, argv[3]);
			err = err ?: tc_clunk(&c, 2);
		}
		if (err < 0) {
			fprintf(stderr, "server_bench: %s %ld: %d\n", op, i, err);
			return 1;
		}
	}
	t1 = now();
	printf("%s %ld %.1f us/op\n", op, count, (t1 - t0) * 1e6 / (double)count);
	tc_stop(&c);
	return 0;
}
