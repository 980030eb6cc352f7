// SPDX-License-Identifier: GPL-2.0
/*
 * server_client.c - the test client behind server_client.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "server_client.h"

#ifndef V9FSD_BIN
#define V9FSD_BIN "build/bin/v9fsd"
#endif

char *tc_tmpdir(void)
{
	char tmpl[] = "/tmp/v9fsd-test.XXXXXX";
	char *d = mkdtemp(tmpl);

	if (!d)
		return NULL;
	chmod(d, 0755);
	return strdup(d);
}

char *tc_export_with_pub(void)
{
	char *d = tc_tmpdir();
	int fd;

	if (!d)
		return NULL;
	fd = open(tc_path(d, "pub"), O_CREAT | O_WRONLY, 0644);
	if (fd < 0 || write(fd, "public", 6) != 6) {
		if (fd >= 0)
			close(fd);
		tc_rmtree(d);
		free(d);
		return NULL;
	}
	close(fd);
	return d;
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		rmdir(p);
	else
		unlink(p);
	return 0;
}

void tc_rmtree(const char *dir)
{
	if (dir && !strncmp(dir, "/tmp/v9fsd-test.", 16))
		nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

#ifdef TC_SERVER_OPT
const char *const tc_server_opt = TC_SERVER_OPT;
#else
const char *const tc_server_opt = NULL;
#endif

bool tc_serial(void)
{
#ifdef TC_SERVER_OPT
	return !strcmp(TC_SERVER_OPT, "serial");
#else
	return false;
#endif
}

int tc_start(struct tc *c, const char *export, const char *const *extra)
{
	const char *argv[32];
	int sv[2], n = 0;

	memset(c, 0, sizeof(*c));
	c->tbuf = malloc(TC_BUFSZ);
	c->rbuf = malloc(TC_BUFSZ);
	if (!c->tbuf || !c->rbuf)
		return -ENOMEM;
	c->msize = 8192;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	argv[n++] = "v9fsd";
	argv[n++] = "-s";
	argv[n++] = "-e";
	argv[n++] = export;
	while (extra && *extra && n < 28)
		argv[n++] = *extra++;
	if (tc_server_opt) {
		argv[n++] = "-o";
		argv[n++] = tc_server_opt;
	}
	argv[n] = NULL;
	c->pid = fork();
	if (c->pid < 0)
		return -errno;
	if (c->pid == 0) {
		dup2(sv[1], 0);
		dup2(sv[1], 1);
		execv(V9FSD_BIN, (char *const *)argv);
		perror("exec v9fsd");
		_exit(127);
	}
	close(sv[1]);
	c->fd = sv[0];
	return 0;
}

int tc_use_fd(struct tc *c, int fd)
{
	memset(c, 0, sizeof(*c));
	c->tbuf = malloc(TC_BUFSZ);
	c->rbuf = malloc(TC_BUFSZ);
	if (!c->tbuf || !c->rbuf)
		return -ENOMEM;
	c->msize = 8192;
	c->fd = fd;
	return 0;
}

int tc_stop(struct tc *c)
{
	int status = -1, i;

	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	if (c->pid <= 0) {
		free(c->tbuf);
		free(c->rbuf);
		c->tbuf = c->rbuf = NULL;
		return 0;
	}
	/* v9fsd exits when its connection ends; give it 5 s */
	for (i = 0; i < 500; i++) {
		pid_t p = waitpid(c->pid, &status, WNOHANG);

		if (p == c->pid)
			break;
		usleep(10000);
	}
	if (i == 500) {
		kill(c->pid, SIGKILL);
		waitpid(c->pid, &status, 0);
		status = -1;
	}
	free(c->tbuf);
	free(c->rbuf);
	c->tbuf = c->rbuf = NULL;
	if (status == -1)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int tc_send_raw(struct tc *c, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = write(c->fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int read_full(int fd, uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = read(fd, p, len);

		if (n == 0)
			return -EPIPE;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int tc_recv(struct tc *c, struct v9p_fcall *r)
{
	uint32_t size;
	int err;

	err = read_full(c->fd, c->rbuf, 4);
	if (err < 0)
		return err;
	size = (uint32_t)c->rbuf[0] | (uint32_t)c->rbuf[1] << 8 |
	       (uint32_t)c->rbuf[2] << 16 | (uint32_t)c->rbuf[3] << 24;
	if (size < V9P_HDRSZ || size > TC_BUFSZ)
		return -EPROTO;
	err = read_full(c->fd, c->rbuf + 4, size - 4);
	if (err < 0)
		return err;
	return v9p_unpack(c->rbuf, size, c->d, 0, r);
}

int tc_send(struct tc *c, struct v9p_fcall *t)
{
	int len = v9p_pack(t, c->d, c->tbuf, TC_BUFSZ);

	if (len < 0)
		return len;
	return tc_send_raw(c, c->tbuf, (size_t)len);
}

int tc_rpc(struct tc *c, struct v9p_fcall *t)
{
	int err;

	if (t->type != V9P_TVERSION) {
		c->tag = (uint16_t)((c->tag + 1) % 0xfff0);
		t->tag = c->tag;
	}
	err = tc_send(c, t);
	if (err < 0)
		return err;
	err = tc_recv(c, &c->r);
	if (err < 0)
		return err;
	if (c->r.tag != t->tag)
		return -EPROTO;
	if (c->r.type == V9P_RLERROR)
		return -(int)c->r.rlerror.ecode;
	if (c->r.type == V9P_RERROR) {
		if (c->r.rerror.errcode)
			return -(int)c->r.rerror.errcode;
		return -v9p_errstr_to_errno(c->r.rerror.ename.s, c->r.rerror.ename.len);
	}
	if (c->r.type != t->type + 1)
		return -EPROTO;
	return 0;
}

int tc_version(struct tc *c, const char *version, uint32_t msize)
{
	struct v9p_fcall t;
	int err, d;

	memset(&t, 0, sizeof(t));
	t.type = V9P_TVERSION;
	t.tag = V9P_NOTAG;
	t.tversion.msize = msize;
	v9p_str_set(&t.tversion.version, version);
	err = tc_rpc(c, &t);
	if (err < 0)
		return err;
	d = v9p_dialect_parse(&c->r.rversion.version);
	if (d < 0)
		return -EPROTONOSUPPORT;
	c->d = (enum v9p_dialect)d;
	c->msize = c->r.rversion.msize;
	return 0;
}

int tc_attach_aname(struct tc *c, uint32_t fid, const char *uname, const char *aname,
		    uint32_t n_uname)
{
	struct v9p_fcall t;

	memset(&t, 0, sizeof(t));
	t.type = V9P_TATTACH;
	t.tattach.fid = fid;
	t.tattach.afid = V9P_NOFID;
	v9p_str_set(&t.tattach.uname, uname);
	v9p_str_set(&t.tattach.aname, aname);
	t.tattach.n_uname = n_uname;
	return tc_rpc(c, &t);
}

int tc_attach(struct tc *c, uint32_t fid, const char *uname, uint32_t n_uname)
{
	return tc_attach_aname(c, fid, uname, "", n_uname);
}

/* Walk a '/'-separated path (up to 16 elements, "" clones). */
int tc_walk(struct tc *c, uint32_t fid, uint32_t newfid, const char *path)
{
	static char copy[4096];
	struct v9p_fcall t;
	char *save = NULL, *tok;
	int err;

	memset(&t, 0, sizeof(t));
	t.type = V9P_TWALK;
	t.twalk.fid = fid;
	t.twalk.newfid = newfid;
	snprintf(copy, sizeof(copy), "%s", path);
	for (tok = strtok_r(copy, "/", &save); tok && t.twalk.nwname < V9P_MAXWELEM;
	     tok = strtok_r(NULL, "/", &save))
		v9p_str_set(&t.twalk.wname[t.twalk.nwname++], tok);
	err = tc_rpc(c, &t);
	if (err < 0)
		return err;
	if (c->r.rwalk.nwqid != t.twalk.nwname)
		return -ENOENT;	/* partial walk */
	return 0;
}

int tc_clunk(struct tc *c, uint32_t fid)
{
	struct v9p_fcall t;

	memset(&t, 0, sizeof(t));
	t.type = V9P_TCLUNK;
	t.tclunk.fid = fid;
	return tc_rpc(c, &t);
}

int tc_open(struct tc *c, uint32_t fid, uint32_t mode)
{
	struct v9p_fcall t;

	memset(&t, 0, sizeof(t));
	if (c->d == V9P_9P2000L) {
		t.type = V9P_TLOPEN;
		t.tlopen.fid = fid;
		t.tlopen.flags = mode;
	} else {
		t.type = V9P_TOPEN;
		t.topen.fid = fid;
		t.topen.mode = (uint8_t)mode;
	}
	return tc_rpc(c, &t);
}

int tc_create(struct tc *c, uint32_t fid, const char *name, uint32_t perm, uint32_t mode)
{
	struct v9p_fcall t;

	memset(&t, 0, sizeof(t));
	if (c->d == V9P_9P2000L) {
		t.type = V9P_TLCREATE;
		t.tlcreate.fid = fid;
		v9p_str_set(&t.tlcreate.name, name);
		t.tlcreate.flags = mode;
		t.tlcreate.mode = perm;
		t.tlcreate.gid = V9P_NONUNAME;
	} else {
		t.type = V9P_TCREATE;
		t.tcreate.fid = fid;
		v9p_str_set(&t.tcreate.name, name);
		t.tcreate.perm = perm;
		t.tcreate.mode = (uint8_t)mode;
		v9p_str_set(&t.tcreate.extension, "");
	}
	return tc_rpc(c, &t);
}

int tc_write(struct tc *c, uint32_t fid, uint64_t off, const void *buf, uint32_t n)
{
	struct v9p_fcall t;
	int err;

	memset(&t, 0, sizeof(t));
	t.type = V9P_TWRITE;
	t.twrite.fid = fid;
	t.twrite.offset = off;
	t.twrite.count = n;
	t.twrite.data = buf;
	err = tc_rpc(c, &t);
	return err < 0 ? err : (int)c->r.rwrite.count;
}

int tc_read(struct tc *c, uint32_t fid, uint64_t off, void *buf, uint32_t n)
{
	struct v9p_fcall t;
	int err;

	memset(&t, 0, sizeof(t));
	t.type = V9P_TREAD;
	t.tread.fid = fid;
	t.tread.offset = off;
	t.tread.count = n;
	err = tc_rpc(c, &t);
	if (err < 0)
		return err;
	if (c->r.rread.count > n)
		return -EPROTO;
	memcpy(buf, c->r.rread.data, c->r.rread.count);
	return (int)c->r.rread.count;
}

int tc_setup(struct tc *c, const char *export, const char *version,
	     const char *const *extra)
{
	int err = tc_start(c, export, extra);

	if (err < 0)
		return err;
	err = tc_version(c, version, 65536);
	if (err < 0)
		return err;
	return tc_attach(c, 0, "root", c->d == V9P_9P2000 ? V9P_NONUNAME : 0);
}

int tc_daemon_start(struct tc_daemon *d, const char *const *args, int want)
{
	const char *argv[32];
	int pipefd[2], n = 0;
	FILE *fp;
	char line[256];

	memset(d, 0, sizeof(*d));
	argv[n++] = "v9fsd";
	argv[n++] = "-f";
	while (*args && n < 29)
		argv[n++] = *args++;
	if (tc_server_opt) {
		argv[n++] = "-o";
		argv[n++] = tc_server_opt;
	}
	argv[n] = NULL;
	if (pipe(pipefd) < 0)
		return -1;
	d->pid = fork();
	if (d->pid == 0) {
		dup2(pipefd[1], 2);
		close(pipefd[0]);
		execv(V9FSD_BIN, (char *const *)argv);
		_exit(127);
	}
	close(pipefd[1]);
	fp = fdopen(pipefd[0], "r");
	while (d->naddrs < TC_MAXL && fgets(line, sizeof(line), fp)) {
		char *p = strstr(line, "listening on ");

		if (!p)
			break;
		p += 13;
		p[strcspn(p, "\n")] = '\0';
		snprintf(d->addrs[d->naddrs++], sizeof(d->addrs[0]), "%s", p);
		if (d->naddrs == want)
			break;
	}
	/* stderr of the daemon is not read further: leave the pipe open */
	return d->naddrs;
}

struct v9p_fcall *tc_msg(uint8_t type)
{
	static __thread struct v9p_fcall t;

	memset(&t, 0, sizeof(t));
	t.type = type;
	return &t;
}

bool tc_daemon_alive(const struct tc_daemon *d)
{
	return d->pid > 0 && waitpid(d->pid, NULL, WNOHANG) == 0;
}

int tc_daemon_stop(struct tc_daemon *d)
{
	int status = -1;

	if (d->pid <= 0)
		return -1;
	kill(d->pid, SIGTERM);
	for (int i = 0; i < 300; i++) {
		if (waitpid(d->pid, &status, WNOHANG) == d->pid)
			break;
		usleep(10000);
	}
	if (!WIFEXITED(status)) {
		kill(d->pid, SIGKILL);
		waitpid(d->pid, &status, 0);
	}
	d->pid = 0;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int dial_sa(int family, const struct sockaddr *sa, socklen_t len)
{
	int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd >= 0 && connect(fd, sa, len) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int tc_dial(const char *a)
{
	char host[64];

	if (!strncmp(a, "unix:", 5)) {
		struct sockaddr_un sun = { .sun_family = AF_UNIX };

		snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", a + 5);
		return dial_sa(AF_UNIX, (struct sockaddr *)&sun, sizeof(sun));
	}
	if (!strncmp(a, "tcp:[", 5)) {
		struct sockaddr_in6 s6 = { .sin6_family = AF_INET6 };
		const char *end = strchr(a, ']');

		if (!end)
			return -1;
		snprintf(host, sizeof(host), "%.*s", (int)(end - a - 5), a + 5);
		inet_pton(AF_INET6, host, &s6.sin6_addr);
		s6.sin6_port = htons((uint16_t)atoi(end + 2));
		return dial_sa(AF_INET6, (struct sockaddr *)&s6, sizeof(s6));
	}
	if (!strncmp(a, "tcp:", 4)) {
		struct sockaddr_in s4 = { .sin_family = AF_INET };
		const char *colon = strrchr(a, ':');

		snprintf(host, sizeof(host), "%.*s", (int)(colon - a - 4), a + 4);
		inet_pton(AF_INET, host, &s4.sin_addr);
		s4.sin_port = htons((uint16_t)atoi(colon + 1));
		return dial_sa(AF_INET, (struct sockaddr *)&s4, sizeof(s4));
	}
	return -1;
}

char *tc_path(const char *dir, const char *name)
{
	static __thread char p[8][4096];
	static __thread int i;
	char *s = p[i++ % 8];

	snprintf(s, sizeof(p[0]), "%s/%s", dir, name);
	return s;
}

double tc_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
