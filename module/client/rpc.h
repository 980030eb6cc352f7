/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Inside the client layer of 9p2000.ko: requests and connections as rpc.c,
 * client.c, calls.c and io.c share them. The VFS layer includes client.h only.
 */
#ifndef NINEP_RPC_H
#define NINEP_RPC_H

#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/idr.h>
#include <linux/llist.h>

#include "client.h"
#include "trans.h"

/*
 * Reply buffers allocated up front for replies that are not Rread: enough
 * for any Rwalk (16 qids), and for an Rstat whose strings are not long. A
 * longer reply is received into a buffer of its own size (up to msize).
 */
#define NINEP_SMALL_RBUF		256
#define NINEP_STAT_RBUF		512

/* ninep_req_new() flags */
#define REQ_NOTAG	0x1	/* Tversion: the tag is NOTAG */
#define REQ_WAIT	0x2	/* wait for a free tag if all are in flight */

enum req_state {
	REQ_NEW,	/* in the tag table, not yet handed to the transport */
	REQ_SENT,	/* handed to the transport; a reply may come */
	REQ_DONE,	/* reply in rbuf */
	REQ_FAILED,	/* no reply will be used; err says why */
};

struct ninep_req {
	struct ninep_client *clnt;
	refcount_t ref;
	u16 tag;
	u8 ttype;
	int state;			/* enum req_state; c->lock, but see ninep_req_send() */
	int err;			/* when REQ_FAILED */
	bool in_table;			/* c->lock */
	bool flushing;			/* a Tflush for it is outstanding */
	struct ninep_req *flushed;	/* Tflush only: the request it flushes */
	/* Both opaque here: what becomes of them is c->ops' business. */
	struct ninep_fid *clunk_fid;	/* Tclunk only: released on retire */
	struct ninep_fid *orphan_fid;	/* fid of an abandoned request */
	struct list_head retire_node;	/* local lists while retiring */
	struct llist_node defer_node;	/* c->rx_deferred */
	struct ninep_msg msg;		/* as the transport sees it */
	u8 *tbuf;
	u32 tlen;
	bool tpooled;			/* tbuf came from the client's pool */
	bool rpooled;
	u8 *rbuf;
	u32 rcap;
	u32 rlen;
	u32 rmax;			/* longest reply it may get (ninep_msg) */
	/*
	 * Tread/Twrite whose payload is the caller's pages (send_msg): a
	 * Tread's reply then comes without its data, which is in the pages.
	 */
	struct ninep_zc *zc;
	struct v9p_fcall rc;		/* decoded reply; views into rbuf */
};

/*
 * The tag table, under c->lock. A request sits in slot (tag & (size - 1)),
 * so finding a reply's request is one index and one compare of the tag.
 * Tags are handed out in turn over the whole tag range, skipping those
 * whose slot is taken; a full table doubles (up to one slot per tag). The
 * slots are allocated with the client and kept: a request costs the table
 * no allocation.
 */
struct ninep_tags {
	struct ninep_req **slot;
	u32 size;			/* a power of two */
	u32 used;			/* requests in slots */
	u32 next;			/* the tag to try first */
	struct ninep_req *notag;	/* Tversion's request (NOTAG) */
	unsigned int count;		/* all of them; READ_ONCE outside c->lock */
};

/*
 * What the RPC core does with the fids and payloads its requests carry.
 * The client layer sets them when it creates a connection, so that the
 * core acts on a fid or a page only through them and never calls up.
 */
struct ninep_rpc_ops {
	/*
	 * The Tclunk @req retired (answered, flushed, or the connection
	 * died): the fid in req->clunk_fid may go. Any task context, the
	 * receiver's included, so it must not wait for a reply.
	 */
	void (*clunk_retired)(struct ninep_req *req);
	/*
	 * Drop a reference to @fid that a call setting it up held; @known:
	 * the server answered that call, so it has the fid now. May send a
	 * Tclunk, never waits for a reply.
	 */
	void (*fid_put)(struct ninep_fid *fid, bool known);
	/* Put a zero-copy payload's page references and free it. */
	void (*zc_free)(struct ninep_zc *zc);
};

struct ninep_client {
	struct ninep_trans trans;
	const struct ninep_rpc_ops *ops;	/* set at creation, never NULL */
	char *peer;			/* for log lines: address or "fd r/w" */
	spinlock_t lock;		/* states, table membership */
	struct ninep_tags tags;		/* tag -> request */
	wait_queue_head_t idle_wq;	/* the tag table or clunks became empty */
	atomic_t clunks;		/* Tclunks not waited for, unanswered */
	wait_queue_head_t tag_wq;	/* tasks waiting for a free tag */
	atomic_t retired;		/* requests retired so far */
	/* timeout=: the oldest Tflush of a timed-out request; c->lock */
	struct ninep_req *stale_flush;
	unsigned long stale_since;	/* jiffies when it was queued */
	/* retired requests whose orphan fid defer_work is to put */
	struct llist_head rx_deferred;
	struct work_struct defer_work;
	bool dead;			/* c->lock to set, READ_ONCE to test */
	u32 msize;
	enum v9p_dialect dialect;
	unsigned int timeout;
	unsigned int debug;
	struct ida fids;
	struct list_head pool;		/* free bulk buffers; c->lock */
	unsigned int npool;
	bool pool_ok;			/* msize is final */
};

#define clnt_dbg(c, bit, fmt, ...)					\
	do {								\
		if ((c)->debug & (bit))					\
			pr_info(fmt, ##__VA_ARGS__);			\
	} while (0)

/* The ops of the read-only live_* counters in /sys/module/9p2000/parameters. */
extern const struct kernel_param_ops ninep_live_ops;

/* rpc.c */
int ninep_rpc_init(void);
void ninep_rpc_exit(void);
void *ninep_buf_alloc(struct ninep_client *c, u32 size, bool *pooled);
void ninep_pool_drain(struct ninep_client *c);
int ninep_tags_init(struct ninep_client *c);
void ninep_tags_free(struct ninep_client *c);
bool ninep_tags_empty(struct ninep_client *c);
struct ninep_req *ninep_req_new(struct ninep_client *c, u32 rcap,
				unsigned int flags);
void ninep_req_put(struct ninep_req *req);
int ninep_req_pack(struct ninep_client *c, struct ninep_req *req,
		   struct v9p_fcall *f);
u32 ninep_reply_max(const struct ninep_client *c, const struct v9p_fcall *f,
		    bool zc);
int ninep_req_send(struct ninep_client *c, struct ninep_req *req);
void ninep_req_drop(struct ninep_client *c, struct ninep_req *req);
int ninep_req_wait(struct ninep_client *c, struct ninep_req *req,
		   struct ninep_fid *fid, bool *abandoned);
/*
 * Send @f and wait for its reply into a buffer of @rcap bytes (more if the
 * reply says so, up to msize). The reply is in req->rc; ninep_req_put() it.
 * @fid, if not NULL, is a reference the call consumes.
 */
struct ninep_req *ninep_rpc(struct ninep_client *c, struct v9p_fcall *f,
			    u32 rcap, struct ninep_fid *fid);
/* One of the calls ninep_rpc_all() sends together; @fid as ninep_rpc()'s. */
struct ninep_call {
	struct v9p_fcall *f;
	u32 rcap;
	struct ninep_fid *fid;
	struct ninep_req *req;		/* out: what ninep_rpc() would return */
};

void ninep_rpc_all(struct ninep_client *c, struct ninep_call *calls,
		   unsigned int n);
/* calls.c: a Twalk's message and what its reply means for @newfid */
int ninep_walk_pack(struct v9p_fcall *f, struct ninep_fid *fid,
		    struct ninep_fid *newfid, unsigned int n,
		    const char *const *names);
int ninep_walk_reply(struct ninep_req *req, struct ninep_fid *fid,
		     struct ninep_fid *newfid, unsigned int n);
void ninep_client_fail(struct ninep_client *c, int err, const char *why);
void ninep_rx_run_deferred(struct ninep_client *c);
void ninep_rx_deferred_work(struct work_struct *work);
/* What the core does for its transport: set in every ninep_client.trans. */
extern const struct ninep_trans_owner ninep_rpc_owner;

/* io.c */
void ninep_zc_free(struct ninep_zc *zc);

/* client.c */
struct ninep_fid *ninep_fid_new(struct ninep_client *c);

#endif /* NINEP_RPC_H */
