// SPDX-License-Identifier: GPL-2.0
/*
 * server_dispatch.c - libFuzzer target for v9fsd's request path: framing,
 * decoding, dispatch and every handler, in-process.
 *
 * Input: byte 0 picks the dialect; the rest is a raw byte stream sent to a
 * connection after a valid Tversion and Tattach (fid 0 = the export root),
 * so the fuzzer starts deep. The export is a small scratch tree; the server
 * must answer or hang up, never crash, leak or touch anything outside it.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "srv.h"

static char export_dir[] = "/tmp/v9fsd-fuzz.XXXXXX";

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
	put("f", "hello, fuzzer");
	put("d/g", "inside d");
	snprintf(p, sizeof(p), "%s/l", export_dir);
	if (symlink("f", p) < 0)
		perror("symlink");
	srv_cfg.root_fd = open(export_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (srv_cfg.root_fd < 0 || fstat(srv_cfg.root_fd, &st) < 0)
		abort();
	srv_cfg.root_dev = st.st_dev;
	srv_cfg.root_ino = st.st_ino;
	srv_cfg.export_path = export_dir;
	srv_cfg.msize = 8192 + V9P_IOHDRSZ;
	srv_cfg.max_fids = 64;
	srv_cfg.max_reqs = 16;
	srv_cfg.as_root = false;
	srv_cfg.proc_ok = access("/proc/self/fd", X_OK) == 0;
	if (srv_pool_start(2, 8) < 0)
		abort();
}

struct feed {
	int fd;
	const uint8_t *data;
	size_t len;
};

static void *serve(void *p)
{
	int fd = *(int *)p;

	srv_conn_serve(fd, fd, "fuzz", false);
	return NULL;
}

static void *feed(void *p)
{
	struct feed *f = p;
	size_t off = 0;

	while (off < f->len) {
		ssize_t n = write(f->fd, f->data + off, f->len - off);

		if (n <= 0)
			break;
		off += (size_t)n;
	}
	shutdown(f->fd, SHUT_WR);
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
	v9p_str_set(&t.tattach.uname, "fuzz");
	v9p_str_set(&t.tattach.aname, "");
	t.tattach.n_uname = V9P_NONUNAME;
	b = v9p_pack(&t, d, buf + a, (uint32_t)(size - (size_t)a));
	return (size_t)a + (size_t)b;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	static uint8_t *stream;
	uint8_t sink[4096];
	struct feed f;
	pthread_t ts, tf;
	size_t n;
	int sv[2];

	if (!ready) {
		setup();
		stream = malloc(256 + 65536);
		ready = true;
	}
	if (size < 1 || size > 65536)
		return 0;
	n = preamble((enum v9p_dialect)(data[0] % 3), stream, 256);
	memcpy(stream + n, data + 1, size - 1);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return 0;
	f.fd = sv[0];
	f.data = stream;
	f.len = n + size - 1;
	pthread_create(&ts, NULL, serve, &sv[1]);
	pthread_create(&tf, NULL, feed, &f);
	while (read(sv[0], sink, sizeof(sink)) > 0)
		;
	pthread_join(tf, NULL);
	pthread_join(ts, NULL);
	close(sv[0]);
	return 0;
}
