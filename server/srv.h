/* SPDX-License-Identifier: GPL-2.0 */
/*
 * srv.h - v9fsd's internal interfaces: configuration, connections, requests,
 * fids, the worker pool and the per-message handlers.
 *
 * Seams (one idea per file):
 *   main.c     options, start-up, signals
 *   listen.c   address parsing, listening sockets, the accept loop
 *   conn.c     one connection: framing, request table, replies, Tflush, Tversion
 *   pool.c     worker threads that run requests
 *   dispatch.c the table of messages: fids looked up and checked, then the
 *              handler, then the reply packed (ops.h)
 *   fid.c      the per-connection fid table
 *   confine.c  every path resolution, beneath the export root
 *   qid.c      qid.path: one unique number per host file
 *   user.c     attach names to uids, per-thread identity switching
 *   stats.c    per-message-type counters (-S)
 *   ops.c      operations common to all dialects (attach, walk, read, write...)
 *   ops_9p.c   9P2000 and 9P2000.u (open, create, stat, wstat, directory reads)
 *   ops_l.c    9P2000.L
 *   xattr.c    9P2000.L extended attributes
 *   open.c     opening, creating, linking, renaming and removing by name
 *
 * Calls go one way (tests/unit/server_layers.sh checks it): main -> listen
 * -> conn -> pool, dispatch -> the handlers (ops, ops_9p, ops_l, xattr) ->
 * open, setattr -> confine -> fid -> user, qid, limits -> log, passwd, config.
 */
#ifndef SRV_H
#define SRV_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/stat.h>

#include "v9p.h"

#define SRV_DEFAULT_MSIZE	(1024 * 1024 + V9P_IOHDRSZ)
#define SRV_MIN_MSIZE		512
#define SRV_MAX_FIDS		4096	/* per connection */
#define SRV_MAX_REQS		128	/* outstanding requests per connection */
#define SRV_MAX_USER_GROUPS	64
#define SRV_MAX_TOTAL_REQS	4096	/* in flight, every connection together */
#define SRV_MAX_THREADS		256	/* worker threads at most */
#define SRV_FD_RESERVE		64	/* descriptors fids never take */
#define SRV_MSG_TIMEOUT		30	/* s: a started message, or Tversion, completes */
#define SRV_STALL_TIMEOUT	60	/* s: a reply is taken by the client */
#define SRV_ANON_UID		65534	/* root squash: "nobody" */
#define SRV_FID_FLOOR		4	/* fids a connection may take from the reserve */
#define SRV_MAX_WAITS		8	/* blocking Tlocks waiting per connection */
#define SRV_SMALL_BUF		(16 * 1024)	/* request buffers start this big */
#define SRV_CACHE_BYTES		(4u << 20)	/* kept for reuse per connection */
#define SRV_CONN_BYTES		(32u << 20)	/* request buffers in flight per connection */
#define SRV_HANDSHAKE_TIMEOUT	10	/* s: a connection without a fid lasts */
#define SRV_MAX_CONNS		1024	/* connections at most, unless -c says */
#define SRV_CONN_XATTR_BYTES	(2u << 20)	/* xattr fid buffers per connection */
#define SRV_XATTR_BYTES		(32u << 20)	/* xattr fid buffers, every connection */
#define SRV_OUT_BYTES		(4u << 20)	/* queued replies: past it, no more run */

struct sockaddr;

/* unix_map=PEERUID:UID: a unix peer running as peer may attach as uid */
struct srv_unix_map {
	uid_t peer;
	uid_t uid;
};

/* allow=ADDR/PREFIX */
struct srv_allow {
	int family;
	uint8_t addr[16];
	unsigned int prefix;
};

struct srv_config {
	int root_fd;		/* O_PATH|O_DIRECTORY on the export root */
	dev_t root_dev;
	ino_t root_ino;
	const char *export_path;
	uint32_t msize;		/* largest msize we accept */
	bool readonly;
	int debug;		/* trace messages to stderr */
	int max_conns;		/* 0: unlimited */
	unsigned int max_fids;		/* per connection */
	unsigned int max_total_fids;	/* every connection together; 0: none */
	unsigned int max_reqs;		/* in flight per connection */
	unsigned int max_total_reqs;	/* in flight, every connection */
	unsigned int max_threads;
	unsigned int fd_reserve;
	unsigned int msg_timeout;	/* seconds; 0: none */
	unsigned int stall_timeout;	/* seconds; 0: none */
	unsigned int idle_timeout;	/* seconds; 0: none */
	bool no_root_squash;		/* TCP attaches as root stay root */
	bool serial;		/* -o serial: one request at a time per connection */
	enum v9p_dialect max_dialect;	/* -o max_version= */
	struct srv_allow *allow;	/* TCP clients allowed; none: all */
	int nallow;
	bool as_root;		/* euid 0: act as each attached user */
	bool have_map_user;	/* -u: unknown users become this one */
	uid_t map_uid;
	gid_t map_gid;
	const char *stats_file;
	bool proc_ok;		/* /proc/self/fd is usable for reopening */
	/* unix sockets: who may connect, and whom a peer may attach as */
	bool have_unix_group;	/* unix_group=: mode 0660 and this group */
	gid_t unix_group;
	struct srv_unix_map *unix_map;	/* unix_map=PEERUID:UID */
	int nunix_map;
	/* -S: the counters file's directory, opened at start-up */
	int stats_dir_fd;
	const char *stats_base;
	unsigned int max_peer_conns;	/* connections per peer; 0: a quarter of all */
	unsigned int handshake_timeout;	/* s: a connection holding no fid lasts; 0: no limit */
};

extern struct srv_config srv_cfg;

/* config.c */
int srv_config_option(const char *opt, char *why, size_t len);
bool srv_addr_allowed(const struct sockaddr *sa);

/* The identity a fid acts as (fixed at Tattach, inherited by walks). */
struct srv_user {
	int refs;
	unsigned long serial;		/* unique: what a thread's switch is cached by */
	uid_t uid;
	gid_t gid;
	int ngroups;
	gid_t groups[SRV_MAX_USER_GROUPS];
	char name[64];
};

struct srv_xattr;

/* Where a 9P2000 directory entry started: byte offset and host cookie. */
struct srv_dirmark {
	uint64_t off;
	long cookie;
};

/*
 * A fid: a reference-counted handle on a file beneath the export root.
 * pfd is an O_PATH descriptor that names the file itself (never followed
 * if it is a symlink); path is its name relative to the root ("" for the
 * root), used only to find the parent for remove/rename/link, to walk ".."
 * and for the name in a stat. Every fid of every connection is on one list
 * so that a rename through any of them updates the paths of all fids at or
 * beneath the renamed name (fid.c: the names lock).
 * ofd is the descriptor opened by Topen/Tlopen/Tcreate/Tlcreate, or -1.
 * path changes only under the names lock (for writing) and path_lock, which
 * is taken last and never held across anything that waits: a rename never
 * waits for a fid's lock, which a long directory read holds.
 */
struct srv_fid {
	uint32_t fid;
	struct srv_fid *hnext;
	struct srv_fid *anext, *aprev;	/* every fid of the server */
	int refs;			/* under the fid table lock */
	pthread_mutex_t lock;		/* open state, directory position */
	pthread_mutex_t path_lock;	/* path */
	int pfd;
	int ofd;
	int oflags;			/* open(2) flags of ofd */
	char *path;
	uint8_t qtype;
	mode_t ftype;			/* S_IFMT bits at walk time */
	dev_t dev;			/* the file's identity, fixed */
	ino_t ino;
	bool gone;			/* clunked or replaced: under lock */
	struct srv_user *user;
	/* directory reads */
	uint64_t dir_off;		/* 9P2000: next expected byte offset */
	long dir_cookie;		/* position (d_off) to resume at */
	struct srv_dirmark *dir_marks;	/* entry start offsets seen, for seekdir */
	uint32_t dir_nmarks, dir_capmarks;
	/* xattr fids (.L) */
	struct srv_xattr *xattr;
	/*
	 * What the fid does at its end, set by the code that gave it the state
	 * to end: at_clunk at Tclunk or the session's end, as the fid's user
	 * (ORCLOSE removes the file, an xattr fid commits its value); at_free
	 * with the last reference.
	 */
	int (*at_clunk)(struct srv_fid *f);
	void (*at_free)(struct srv_fid *f);
};

struct srv_fidtab {
	pthread_mutex_t lock;
	struct srv_fid **hash;
	unsigned int nhash;
	unsigned int count;
};

struct srv_conn;
struct srv_out;

/* Who is at the other end of a connection, for the per-peer limit. */
struct srv_peer {
	int family;		/* AF_INET6 (IPv4 mapped), AF_UNIX (the uid); 0: none */
	uint8_t addr[16];
};

enum srv_req_state { SRV_REQ_QUEUED, SRV_REQ_RUNNING, SRV_REQ_DONE };

struct srv_req {
	struct srv_conn *conn;
	struct srv_req *next;		/* conn's in-flight list, or free list */
	struct srv_req *qnext;		/* worker queue */
	struct srv_req *flushers;	/* Tflush requests waiting on this one */
	struct srv_req *fnext;
	enum srv_req_state state;
	bool cancelled;			/* flushed before it ran: no reply */
	bool kicked;			/* on the pool's kick list (pool lock) */
	bool on_worker;			/* taken by a worker (pool lock) */
	struct srv_req *knext;
	pthread_t worker;
	uint16_t tag;
	uint8_t type;
	void (*run)(struct srv_req *req);	/* what a worker does with it */
	uint32_t rxlen;
	uint8_t *rx;			/* the request: rxcap bytes */
	uint8_t *tx;			/* the reply: bufsize bytes */
	uint32_t rxcap;
	uint32_t bufsize;		/* sized to the reply, at most msize */
	struct v9p_fcall in;		/* decoded view into rx */
	struct v9p_fcall out;
};

struct srv_conn {
	int rfd, wfd;
	pthread_mutex_t lock;		/* reqs, nreqs, free list */
	pthread_cond_t cond;		/* nreqs changed */
	pthread_mutex_t wlock;		/* one reply at a time on wfd */
	uint32_t msize;
	enum v9p_dialect dialect;
	bool versioned;
	struct srv_req *reqs;
	unsigned int nreqs;
	struct srv_req *free_reqs;
	unsigned int nfree;
	uint32_t cached_bytes;		/* buffers of free_reqs */
	uint64_t inflight_bytes;	/* buffers of the requests in flight */
	struct srv_fidtab fids;
	bool dead;			/* write failed: stop replying */
	bool squash;			/* root attaches act as the anonymous user */
	unsigned int nwaiting;		/* blocking Tlocks waiting (atomic) */
	unsigned int nrunning;		/* requests on workers (pool lock) */
	char peer[80];
	/* replies the client has not taken yet, sent by the writer (conn.c) */
	bool wsock;			/* wfd is a socket: no send ever blocks */
	struct srv_out *outq, **outq_tail;	/* under wlock */
	uint64_t out_bytes;		/* queued (atomic: the reader reads it) */
	uint64_t out_since;		/* ms: the head reply began to go out */
	pthread_cond_t out_cond;	/* outq changed, or the writer should stop */
	bool writer_on, writer_stop;	/* under wlock */
	pthread_t writer;
	/* connection limits (limits.c) and the handshake deadline */
	struct srv_peer peerid;
	uint64_t nofid_since;		/* ms: since when it holds no fid; 0: it holds some */
	uint64_t xattr_bytes;		/* its xattr fids' buffers (atomic) */
};

/* conn.c */
void srv_conn_serve(int rfd, int wfd, const char *peer, bool squash);
void srv_trace(struct srv_conn *c, const char *dir, const uint8_t *buf, uint32_t len);

/* pool.c */
int srv_pool_start(int nthreads, int max_threads);
void srv_pool_submit(struct srv_req *req, void (*run)(struct srv_req *req));
void srv_pool_interrupt(struct srv_req *req);
void srv_pool_forget(struct srv_req *req);
void srv_pool_done(struct srv_req *req);
void srv_pool_wake(void);

/* dispatch.c: the reply's length in req->tx, or a negative errno to answer */
int srv_dispatch(struct srv_req *req);
bool srv_inline_ok(struct srv_req *req);

/* fid.c */
int srv_fidtab_init(struct srv_fidtab *t);
void srv_fidtab_destroy(struct srv_fidtab *t);
struct srv_fid *srv_fid_new(struct srv_conn *c, uint32_t fid, int *err);
int srv_fid_publish(struct srv_conn *c, struct srv_fid *f);
int srv_fid_replace(struct srv_conn *c, struct srv_fid *old, struct srv_fid *nf);
struct srv_fid *srv_fid_get(struct srv_conn *c, uint32_t fid);
void srv_fid_put(struct srv_fid *f);
void srv_fid_init(struct srv_fid *f, int pfd, char *path, struct srv_user *u,
		  const struct stat *st);
int srv_fid_set(struct srv_fid *f, int pfd, char *path, struct srv_user *u,
		struct v9p_qid *qid);
int srv_fid_stat(struct srv_fid *f, struct stat *st);
char *srv_fid_path(struct srv_fid *f);
int srv_fid_unhash(struct srv_conn *c, struct srv_fid *f);
void srv_fid_clunk_all(struct srv_conn *c);
void srv_names_rdlock(void);
void srv_names_wrlock(void);
void srv_names_unlock(void);
void srv_fid_rename_paths(const char *from, const char *to);

/* limits.c: server-wide budgets shared by every connection */
int srv_limit_fid_take(unsigned int held);
void srv_limit_fid_give(void);
bool srv_limit_req_take(void);
void srv_limit_req_give(void);
bool srv_limit_wait_take(struct srv_conn *c);
void srv_limit_wait_give(struct srv_conn *c);
int srv_limit_conn_take(const struct srv_peer *p);
void srv_limit_conn_give(const struct srv_peer *p);

/* confine.c */
int srv_open_beneath(int dirfd, const char *path, int flags, mode_t mode);
int srv_fid_parent(struct srv_fid *f, const char *path, const char **base,
		   struct stat *st);
int srv_reopen(struct srv_fid *f, int flags);
int srv_reopen_checked(int pfd, int dirfd, const char *path, mode_t type, int flags);
int srv_fid_beneath(struct srv_fid *f);
char *srv_path_join(const char *dir, const char *name);
char *srv_path_parent(const char *path);
int srv_check_name(const struct v9p_str *name, char *buf);
int srv_proc_path(int fd, char *buf, size_t len);
int srv_is_root(const struct stat *st);

/* qid.c */
uint64_t srv_qid_path(dev_t dev, ino_t ino);
void srv_qid_from_stat(const struct stat *st, struct v9p_qid *q);
uint8_t srv_qid_type(mode_t mode);

/* user.c */
struct srv_user *srv_user_lookup(const struct v9p_str *uname, uint32_t n_uname, int *err);
struct srv_user *srv_user_squash(struct srv_user *u, int *err);
void srv_user_get(struct srv_user *u);
void srv_user_put(struct srv_user *u);
int srv_user_become(const struct srv_user *u);
int srv_user_become_root(void);
int srv_user_name(uid_t uid, char *buf, size_t len);
int srv_group_name(gid_t gid, char *buf, size_t len);
int srv_user_parse_map(const char *spec);
struct srv_user *srv_user_peer_check(struct srv_conn *c, struct srv_user *u, int *err);

/* stats.c */
void srv_stats_count(uint8_t type);
int srv_stats_write(void);
int srv_stats_open(const char *file);

#endif /* SRV_H */
