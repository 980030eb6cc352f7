// SPDX-License-Identifier: GPL-2.0
/*
 * server_bench.c - a host-side latency probe for a 9P2000.L server (v9fsd or
 * diod) on tcp or a unix socket: the per-request cost a one-request-at-a-time
 * client sees, without a kernel client or a guest in the way. Not a test
 * (make unit does not run it); `make server-bench` builds it.
 *
 *   server_bench ADDR ANAME FILE COUNT [read|getattr|walk]
 *
 * ADDR as v9fsd reports it (tcp:127.0.0.1:5640, unix:/path); ANAME the attach
 * name ("" for v9fsd, the export path for diod); FILE relative to the export,
 * at least 4 KiB. read: COUNT Treads of 4 KiB at the same pseudo-random
 * aligned offsets as bench/v9bench.c's randread; getattr: COUNT Tgetattr;
 * walk: COUNT Twalk+Tclunk of FILE. Prints "OP COUNT us/op".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "server_client.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
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
	int fd, err;

	if (argc < 5) {
		fprintf(stderr, "usage: %s ADDR ANAME FILE COUNT [read|getattr|walk]\n", argv[0]);
		return 2;
	}
	count = atol(argv[4]);
	fd = tc_dial(argv[1]);
	if (fd < 0 || tc_use_fd(&c, fd) < 0 || tc_version(&c, "9P2000.L", 65536) < 0) {
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
