// SPDX-License-Identifier: GPL-2.0
/*
 * server_race.c - libFuzzer target for v9fsd's concurrency: the same
 * request stream sent at once on up to four connections, every request of
 * each pipelined, so that the worker pool runs them in parallel against
 * the same fids (within a connection) and the same files, names lock and
 * fid list (across connections). Built with AddressSanitizer, a request
 * that reaches a fid half built or freed under it shows as a crash.
 *
 * Input: byte 0 picks the dialect, byte 1 the number of connections
 * (1 + byte % 4); the rest is the raw stream each connection gets after
 * its own valid Tversion and Tattach (fid 0 = the export root).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "srv.h"

#define MAX_CONNS 4

static char export_dir[] = "/tmp/v9fsd-race.XXXXXX";

static void put(const char *name, const char *text)
{
	char p[256];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", export_dir, name);
	fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (fd >= 0) {
		if (write(fd, text, strlen(text)) < 0)
			perror("write");
		close(fd);
	}
}

static void setup(void)
{
	char p[256];
	struct stat st;

	if (!mkdtemp(export_dir))
		abort();
	snprintf(p, sizeof(p), "%s/d", export_dir);
	mkdir(p, 0755);
	put("f", "hello, racer");
	put("d/g", "inside d");
	srv_cfg.root_fd = open(export_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (srv_cfg.root_fd < 0 || fstat(srv_cfg.root_fd, &st) < 0)
		abort();
	srv_cfg.root_dev = st.st_dev;
	srv_cfg.root_ino = st.st_ino;
	srv_cfg.export_path = export_dir;
	srv_cfg.msize = 8192 + V9P_IOHDRSZ;
	srv_cfg.max_fids = 64;
	srv_cfg.max_reqs = 32;
	srv_cfg.max_threads = 16;
	srv_cfg.as_root = false;
	srv_cfg.stall_timeout = 0;
	srv_cfg.msg_timeout = 0;
	srv_cfg.proc_ok = access("/proc/self/fd", X_OK) == 0;
	if (srv_pool_start(4, 16) < 0)
		abort();
}

struct side {
	int sv[2];
	const uint8_t *data;
	size_t len;
	pthread_t server, feeder, sink;
};

static void *serve(void *p)
{
	struct side *s = p;

	srv_conn_serve(s->sv[1], s->sv[1], "race", false);
	return NULL;
}

static void *feed(void *p)
{
	struct side *s = p;
	size_t off = 0;

	while (off < s->len) {
		ssize_t n = write(s->sv[0], s->data + off, s->len - off);

		if (n <= 0)
			break;
		off += (size_t)n;
	}
	shutdown(s->sv[0], SHUT_WR);
	return NULL;
}

static void *sink(void *p)
{
	struct side *s = p;
	uint8_t buf[4096];

	while (read(s->sv[0], buf, sizeof(buf)) > 0)
		;
	return NULL;
}

static size_t preamble(enum v9p_dialect d, uint8_t *buf, size_t size)
{
	struct v9p_fcall t;
	int a, b;

	memset(&t, 0, sizeof(t));
	t.type = V9P_TVERSION;
	t.tag = V9P_NOTAG;
	t.tversion.msize = 8192 + V9P_IOHDRSZ;
	v9p_str_set(&t.tversion.version, v9p_dialect_name(d));
	a = v9p_pack(&t, d, buf, (uint32_t)size);
	memset(&t, 0, sizeof(t));
	t.type = V9P_TATTACH;
	t.tag = 1;
	t.tattach.fid = 0;
	t.tattach.afid = V9P_NOFID;
	v9p_str_set(&t.tattach.uname, "race");
	v9p_str_set(&t.tattach.aname, "");
	t.tattach.n_uname = V9P_NONUNAME;
	b = v9p_pack(&t, d, buf + a, (uint32_t)(size - (size_t)a));
	return (size_t)a + (size_t)b;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	static uint8_t *stream;
	struct side s[MAX_CONNS];
	int nconns, k;
	size_t n;

	if (!ready) {
		setup();
		stream = malloc(256 + 65536);
		/*
		 * Under AddressSanitizer glibc's own allocator is never set up
		 * by a malloc(), so the first malloc_trim() does it, and the
		 * servers' ends of connection call that at once from several
		 * threads: glibc sets itself up unlocked (a SEGV in mtrim, or
		 * an arena assertion at thread exit). v9fsd proper sets it up
		 * with its first malloc(), before any thread; so does this.
		 */
		malloc_trim(0);
		ready = true;
	}
	if (size < 2 || size > 65536)
		return 0;
	n = preamble((enum v9p_dialect)(data[0] % 3), stream, 256);
	memcpy(stream + n, data + 2, size - 2);
	nconns = 1 + data[1] % MAX_CONNS;
	for (k = 0; k < nconns; k++) {
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, s[k].sv) < 0)
			break;
		s[k].data = stream;
		s[k].len = n + size - 2;
	}
	nconns = k;
	/* every connection starts before any is fed: they run together */
	for (k = 0; k < nconns; k++) {
		pthread_create(&s[k].server, NULL, serve, &s[k]);
		pthread_create(&s[k].sink, NULL, sink, &s[k]);
	}
	for (k = 0; k < nconns; k++)
		pthread_create(&s[k].feeder, NULL, feed, &s[k]);
	for (k = 0; k < nconns; k++) {
		pthread_join(s[k].feeder, NULL);
		pthread_join(s[k].sink, NULL);
		pthread_join(s[k].server, NULL);
		close(s[k].sv[0]);
	}
	return 0;
}
