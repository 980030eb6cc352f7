/* SPDX-License-Identifier: GPL-2.0 */
/*
 * server_client.h - a minimal synchronous 9P client for the v9fsd host
 * tests: it starts `v9fsd -s` on one end of a socketpair and speaks to it
 * through proto/.
 */
#ifndef SERVER_CLIENT_H
#define SERVER_CLIENT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "v9p.h"

#define TC_BUFSZ (1024 * 1024 + 64)

struct tc {
	int fd;
	pid_t pid;
	uint32_t msize;
	enum v9p_dialect d;
	uint16_t tag;
	uint8_t *tbuf;
	uint8_t *rbuf;
	struct v9p_fcall r;	/* last reply, views into rbuf */
};

/* A fresh temporary directory (mkdtemp); caller frees the string. */
char *tc_tmpdir(void);
void tc_rmtree(const char *dir);
/* tc_tmpdir() holding the file "pub" (0644, "public"); NULL on failure. */
char *tc_export_with_pub(void);
/* dir/name in one of 8 rotating static buffers: valid for the next 7 calls */
char *tc_path(const char *dir, const char *name);
double tc_now(void);		/* CLOCK_MONOTONIC, seconds */

/*
 * The -o option every v9fsd a test starts is given, or NULL: a test built
 * with -DTC_SERVER_OPT='"serial"' runs all its servers under -o serial.
 */
extern const char *const tc_server_opt;
bool tc_serial(void);	/* the servers run under -o serial */

/* Start v9fsd -s -e export [extra args, NULL-terminated] [-o tc_server_opt]. */
int tc_start(struct tc *c, const char *export, const char *const *extra);
/* Use an already connected socket (pid 0: no process to reap). */
int tc_use_fd(struct tc *c, int fd);
/* Close the connection and reap v9fsd; returns its exit status or -1. */
int tc_stop(struct tc *c);

/* v9fsd as a daemon (-f, listening), for tests with several connections. */
#define TC_MAXL 8
struct tc_daemon {
	pid_t pid;
	int naddrs;
	char addrs[TC_MAXL][160];	/* as reported: "tcp:127.0.0.1:40123", "unix:/p" */
};

/*
 * Start v9fsd -f args... [-o tc_server_opt]; wait for want "listening on"
 * lines; returns naddrs.
 */
int tc_daemon_start(struct tc_daemon *d, const char *const *args, int want);
/* Whether the daemon still runs (not reaped, not exited). */
bool tc_daemon_alive(const struct tc_daemon *d);
/* SIGTERM, reap (SIGKILL after 3 s); returns the exit status or -1. */
int tc_daemon_stop(struct tc_daemon *d);
/* Connect to a reported address; fd or -1. */
int tc_dial(const char *addr);

/* A zeroed message of type, in a per-thread buffer the next call reuses. */
struct v9p_fcall *tc_msg(uint8_t type);

/* Raw bytes in and out. */
int tc_send_raw(struct tc *c, const void *buf, size_t len);
int tc_recv(struct tc *c, struct v9p_fcall *r);	/* one reply into c->rbuf */
int tc_send(struct tc *c, struct v9p_fcall *t);		/* packs with t->tag */

/*
 * Send t (a fresh tag) and wait for its reply in c->r. Returns 0 for the
 * expected R-type, the negative errno of an Rerror/Rlerror, or -EPROTO.
 */
int tc_rpc(struct tc *c, struct v9p_fcall *t);

/* Common sequences; all return 0 or a negative errno. */
int tc_version(struct tc *c, const char *version, uint32_t msize);
int tc_attach(struct tc *c, uint32_t fid, const char *uname, uint32_t n_uname);
/* tc_attach() to the tree aname */
int tc_attach_aname(struct tc *c, uint32_t fid, const char *uname, const char *aname,
		    uint32_t n_uname);
int tc_walk(struct tc *c, uint32_t fid, uint32_t newfid, const char *path);
int tc_clunk(struct tc *c, uint32_t fid);
int tc_open(struct tc *c, uint32_t fid, uint32_t mode);	/* Topen or Tlopen */
int tc_create(struct tc *c, uint32_t fid, const char *name, uint32_t perm,
	      uint32_t mode);	/* Tcreate or Tlcreate (perm=mode bits) */
int tc_write(struct tc *c, uint32_t fid, uint64_t off, const void *buf, uint32_t n);
int tc_read(struct tc *c, uint32_t fid, uint64_t off, void *buf, uint32_t n);
int tc_setup(struct tc *c, const char *export, const char *version,
	     const char *const *extra);	/* start + version + attach fid 0 as root */

#endif /* SERVER_CLIENT_H */
