// SPDX-License-Identifier: GPL-2.0-only
/*
 * 9P2000 client of 9p2000.ko: sends requests and matches replies by tag.
 *
 * A task sends its request itself when the line is idle; otherwise the tx
 * thread sends queued requests in order. Replies are read by a task waiting
 * for one (on transports that can read without blocking) or by the rx
 * thread, and each is handed to its request (see "receiving" below). Only
 * non-blocking calls are made from a task that can be killed, so a fatal
 * signal never cuts a message in half on the wire; the waiting task simply
 * stops waiting (and sends Tflush). Blocked transport calls are ended by
 * shutting the transport down and signalling the threads.
 *
 * A request is in the tag table from allocation until it is retired: when its
 * reply arrives, or, if it was flushed, when Rflush arrives, or when the
 * connection dies. Its memory lives as long as anyone holds a reference.
 */
#define pr_fmt(fmt) "9p2000: " fmt

#include <linux/atomic.h>
#include <linux/err.h>
#include <linux/idr.h>
#include <linux/kthread.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uio.h>
#include <linux/wait.h>
#include <linux/xarray.h>

#include "client.h"
#include "trans.h"

/* Read/write requests kept in flight at once for one large read or write. */
#define NINEP_IO_WINDOW		4
/*
 * Reply buffers allocated up front for replies that are not Rread: enough
 * for any Rwalk (16 qids), and for an Rstat whose strings are not long. A
 * longer reply is received into a buffer of its own size (up to msize).
 */
#define NINEP_SMALL_RBUF		256
#define NINEP_STAT_RBUF		512
/* How long umount waits for outstanding clunks when timeout=0. */
#define NINEP_DRAIN_SECS		10
/* msize-sized buffers kept per connection for bulk messages. */
#define NINEP_POOL_MAX		8

/*
 * Live objects, readable in /sys/module/9p2000/parameters/ so that tests can
 * prove nothing leaks after umount.
 */
static atomic_t live_clients = ATOMIC_INIT(0);
static atomic_t live_fids = ATOMIC_INIT(0);
static atomic_t live_reqs = ATOMIC_INIT(0);

static int live_get(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%d\n", atomic_read(kp->arg));
}

/* The parameter parser calls ->set unconditionally: refuse, don't oops. */
static int live_set(const char *val, const struct kernel_param *kp)
{
	return -EPERM;
}

static const struct kernel_param_ops live_ops = {
	.set = live_set,
	.get = live_get,
};

module_param_cb(live_clients, &live_ops, &live_clients, 0444);
MODULE_PARM_DESC(live_clients, "9P connections alive (read-only)");
module_param_cb(live_fids, &live_ops, &live_fids, 0444);
MODULE_PARM_DESC(live_fids, "fids allocated (read-only)");
module_param_cb(live_reqs, &live_ops, &live_reqs, 0444);
MODULE_PARM_DESC(live_reqs, "9P requests allocated (read-only)");

static struct kmem_cache *req_cache;
static struct kmem_cache *fid_cache;

enum req_state {
	REQ_NEW,	/* in the tag table, maybe on the tx queue */
	REQ_SENT,	/* handed to the transport; a reply may come */
	REQ_DONE,	/* reply in rbuf */
	REQ_FAILED,	/* no reply will be used; err says why */
};

struct ninep_req {
	struct ninep_client *clnt;
	refcount_t ref;
	u16 tag;
	u8 ttype;
	int state;			/* enum req_state; c->lock */
	int err;			/* when REQ_FAILED */
	bool in_table;			/* c->lock */
	bool flushing;			/* a Tflush for it is outstanding */
	struct ninep_req *flushed;	/* Tflush only: the request it flushes */
	struct ninep_fid *clunk_fid;	/* Tclunk only: freed on retire */
	struct ninep_fid *orphan_fid;	/* fid of an abandoned request */
	struct list_head tx_node;	/* c->tx_queue */
	struct list_head retire_node;	/* local lists while retiring */
	wait_queue_head_t wq;
	u8 *tbuf;
	u32 tlen;
	bool tpooled;			/* tbuf came from the client's pool */
	bool rpooled;
	u8 *rbuf;
	u32 rcap;
	u32 rlen;
	struct v9p_fcall rc;		/* decoded reply; views into rbuf */
};

struct ninep_client {
	struct ninep_trans trans;
	char *peer;			/* for log lines: address or "fd r/w" */
	spinlock_t lock;		/* states, table membership, tx_queue */
	struct xarray reqs;		/* tag -> request */
	u32 next_tag;
	struct list_head tx_queue;
	bool tx_busy;			/* a message is being written; c->lock */
	struct ninep_req *tx_partial;	/* its rest is the tx thread's to send */
	u32 tx_off;			/* bytes of tx_partial already sent */
	wait_queue_head_t tx_wq;
	wait_queue_head_t idle_wq;	/* the tag table became empty */
	wait_queue_head_t tag_wq;	/* tasks waiting for a free tag */
	atomic_t retired;		/* requests retired so far */
	/* timeout=: the oldest Tflush of a timed-out request; c->lock */
	struct ninep_req *stale_flush;
	unsigned long stale_since;	/* jiffies when it was queued */
	struct task_struct *rx_task;
	struct task_struct *tx_task;
	/* Receiving: see "receiving" below. */
	struct mutex rx_mutex;		/* held by whoever receives */
	struct task_struct *rx_leader;	/* waiting task that receives; RCU */
	bool rx_ready;			/* the transport may be readable */
	wait_queue_head_t rx_wq;	/* the rx thread waits here */
	u8 rx_hdr[V9P_HDRSZ];		/* the message being received: */
	u32 rx_got;			/* its bytes received so far, */
	u32 rx_size;			/* its size, once the header is in, */
	struct ninep_req *rx_req;	/* and its request (a reference) */
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

u32 ninep_client_msize(const struct ninep_client *c)
{
	return c->msize;
}

enum v9p_dialect ninep_client_dialect(const struct ninep_client *c)
{
	return c->dialect;
}

bool ninep_client_dead(const struct ninep_client *c)
{
	return READ_ONCE(c->dead);
}

/* ---- message buffers ---- */

/*
 * Bulk messages (Tread replies, Twrite requests) are up to msize long: a
 * fresh kvmalloc of that much for every chunk is a high-order allocation or
 * a vmalloc each time, so a few msize buffers are recycled per connection.
 */
static void *buf_alloc(struct ninep_client *c, u32 size, bool *pooled)
{
	void *buf = NULL;

	*pooled = false;
	if (!c->pool_ok || size <= PAGE_SIZE || size > c->msize)
		return kvmalloc(size, GFP_NOFS);
	spin_lock(&c->lock);
	if (!list_empty(&c->pool)) {
		buf = c->pool.next;
		list_del(buf);
		c->npool--;
	}
	spin_unlock(&c->lock);
	if (!buf)
		buf = kvmalloc(c->msize, GFP_NOFS);
	*pooled = !!buf;
	return buf;
}

static void buf_free(struct ninep_client *c, void *buf, bool pooled)
{
	if (buf && pooled) {
		spin_lock(&c->lock);
		if (c->npool < NINEP_POOL_MAX) {
			list_add(buf, &c->pool);
			c->npool++;
			buf = NULL;
		}
		spin_unlock(&c->lock);
	}
	kvfree(buf);
}

static void pool_drain(struct ninep_client *c)
{
	while (!list_empty(&c->pool)) {
		struct list_head *buf = c->pool.next;

		list_del(buf);
		kvfree(buf);
	}
	c->npool = 0;
}

/* ---- requests ---- */

static void req_put(struct ninep_req *req)
{
	if (!refcount_dec_and_test(&req->ref))
		return;
	buf_free(req->clnt, req->tbuf, req->tpooled);
	buf_free(req->clnt, req->rbuf, req->rpooled);
	kmem_cache_free(req_cache, req);
	atomic_dec(&live_reqs);
}

static void client_fail(struct ninep_client *c, int err, const char *why);

/*
 * timeout=: a Tflush sent for a timed-out request and still unanswered a
 * whole timeout later means the server answers nothing: the connection is
 * then dead. Also forgets a recorded Tflush once it was answered.
 */
static bool flush_overdue(struct ninep_client *c)
{
	struct ninep_req *f, *answered = NULL;
	bool overdue = false;

	if (!READ_ONCE(c->stale_flush))
		return false;
	spin_lock(&c->lock);
	f = c->stale_flush;
	if (f && !f->in_table) {
		answered = f;
		WRITE_ONCE(c->stale_flush, NULL);
	} else if (f) {
		overdue = time_after_eq(jiffies, c->stale_since +
					(unsigned long)c->timeout * HZ);
	}
	spin_unlock(&c->lock);
	if (answered)
		req_put(answered);
	return overdue;
}

/* req_new() flags */
#define REQ_NOTAG	0x1	/* Tversion: the tag is NOTAG */
#define REQ_WAIT	0x2	/* wait for a free tag if all are in flight */

/*
 * A free tag for @req in the table. With every tag in flight (65535), wait
 * for one to be retired rather than fail (a busy connection is no error),
 * if @wait: a caller that may be the receiver (a clunk from retiring) must
 * not wait, since only receiving retires. 0, -EBUSY (full, no waiting),
 * -EINTR on a fatal signal, -EIO if the connection died meanwhile.
 */
static int tag_alloc(struct ninep_client *c, struct ninep_req *req, u32 *tag,
		     bool wait)
{
	int gen, err;

	for (;;) {
		/* Read before trying: a retire after this changes it. */
		gen = atomic_read(&c->retired);
		err = xa_alloc_cyclic(&c->reqs, tag, req,
				      XA_LIMIT(0, V9P_NOTAG - 1),
				      &c->next_tag, GFP_NOFS);
		if (err != -EBUSY)
			return err < 0 ? err : 0;
		if (!wait)
			return -EBUSY;
		if (wait_event_killable(c->tag_wq,
					atomic_read(&c->retired) != gen ||
					READ_ONCE(c->dead)))
			return -EINTR;
		if (READ_ONCE(c->dead))
			return -EIO;
	}
}

/*
 * A new request with a tag, in the table. The caller holds one reference
 * and the table another. @rcap is the reply size expected at most (a bigger
 * reply is still accepted up to msize; the receiver grows the buffer).
 */
static struct ninep_req *req_new(struct ninep_client *c, u32 rcap,
				 unsigned int flags)
{
	struct ninep_req *req;
	u32 tag;
	int err;

	if (flush_overdue(c))
		client_fail(c, -ETIMEDOUT, "no reply to a Tflush within timeout=");
	if (READ_ONCE(c->dead))
		return ERR_PTR(-EIO);
	req = kmem_cache_zalloc(req_cache, GFP_NOFS);
	if (!req)
		return ERR_PTR(-ENOMEM);
	atomic_inc(&live_reqs);
	req->clnt = c;
	refcount_set(&req->ref, 2);
	init_waitqueue_head(&req->wq);
	INIT_LIST_HEAD(&req->tx_node);
	INIT_LIST_HEAD(&req->retire_node);
	req->state = REQ_NEW;
	req->rbuf = buf_alloc(c, rcap, &req->rpooled);
	if (!req->rbuf) {
		err = -ENOMEM;
		goto fail;
	}
	req->rcap = req->rpooled ? c->msize : rcap;
	if (flags & REQ_NOTAG) {
		tag = V9P_NOTAG;
		err = xa_insert(&c->reqs, tag, req, GFP_NOFS);
	} else {
		err = tag_alloc(c, req, &tag, flags & REQ_WAIT);
	}
	if (err)
		goto fail;
	req->tag = tag;
	spin_lock(&c->lock);
	req->in_table = true;
	if (c->dead) {
		/* Died between the check above and the insertion. */
		req->state = REQ_FAILED;
		req->err = -EIO;
		req->in_table = false;
		xa_erase(&c->reqs, tag);
		spin_unlock(&c->lock);
		err = -EIO;
		goto fail;
	}
	spin_unlock(&c->lock);
	return req;
fail:
	refcount_set(&req->ref, 1);
	req_put(req);
	return ERR_PTR(err);
}

/*
 * Take @req out of the tag table (c->lock held) and add it to @list, whose
 * entries req_retired() finishes once the lock is dropped.
 */
static void req_retire_locked(struct ninep_client *c, struct ninep_req *req,
			      struct list_head *list)
{
	if (!req->in_table)
		return;
	req->in_table = false;
	xa_erase(&c->reqs, req->tag);
	if (!list_empty(&req->tx_node)) {
		list_del_init(&req->tx_node);
		refcount_dec(&req->ref);	/* the queue's; table still holds one */
	}
	list_add_tail(&req->retire_node, list);
}

static void free_fid(struct ninep_fid *fid);

/* c->lock held; err is published before the lockless req_finished(). */
static void req_fail_locked(struct ninep_req *req, int err)
{
	req->err = err;
	/* Pairs with req_finished(): err is visible once the state is. */
	smp_store_release(&req->state, REQ_FAILED);
}

/* After c->lock: wake waiters, release what retiring owed, drop table refs. */
static void req_retired(struct ninep_client *c, struct list_head *list)
{
	struct ninep_req *req, *next;

	list_for_each_entry_safe(req, next, list, retire_node) {
		list_del_init(&req->retire_node);
		wake_up_all(&req->wq);
		if (req->flushed)
			req_put(req->flushed);
		req->flushed = NULL;
		if (req->clunk_fid) {
			if (req->state == REQ_DONE &&
			    req->rc.type == V9P_RERROR)
				clnt_dbg(c, NINEP_DEBUG_ERROR,
					 "clunk of fid %u failed: %.*s\n",
					 req->clunk_fid->fid,
					 req->rc.rerror.ename.len,
					 req->rc.rerror.ename.s);
			free_fid(req->clunk_fid);
			req->clunk_fid = NULL;
		}
		if (req->orphan_fid) {
			/*
			 * The request that was to set up this fid was given up;
			 * if the server answered it, the fid may exist there,
			 * so let the last put clunk it (an unknown fid only
			 * earns an Rerror).
			 */
			if (req->state == REQ_DONE &&
			    req->rc.type != V9P_RERROR)
				req->orphan_fid->established = true;
			ninep_fid_put(req->orphan_fid);
			req->orphan_fid = NULL;
		}
		req_put(req);
		atomic_inc(&c->retired);
	}
	/* The barrier of wq_has_sleeper() orders the count before the test. */
	if (wq_has_sleeper(&c->tag_wq))
		wake_up_all(&c->tag_wq);
	if (xa_empty(&c->reqs))
		wake_up_all(&c->idle_wq);
}

/*
 * The connection is dead: every request in the table fails with -EIO and
 * every later one too. Callable from any task context, more than once.
 * @why is for the log; NULL when the caller has said why already.
 */
static void client_fail(struct ninep_client *c, int err, const char *why)
{
	struct ninep_req *req, *partial;
	unsigned long tag;
	LIST_HEAD(list);
	int n = 0;

	spin_lock(&c->lock);
	if (c->dead) {
		spin_unlock(&c->lock);
		return;
	}
	WRITE_ONCE(c->dead, true);
	partial = c->tx_partial;
	c->tx_partial = NULL;
	xa_for_each(&c->reqs, tag, req) {
		if (req->state != REQ_DONE)
			req_fail_locked(req, -EIO);
		req_retire_locked(c, req, &list);
		n++;
	}
	spin_unlock(&c->lock);

	if (why)
		pr_err("connection to %s is dead: %s (%d); failing %d pending request%s\n",
		       c->peer, why, err, n, n == 1 ? "" : "s");
	req_retired(c, &list);
	if (partial)
		req_put(partial);
	wake_up_all(&c->tx_wq);
	wake_up_all(&c->rx_wq);
	/* Unblock the threads wherever they are blocked in the transport. */
	c->trans.ops->abort(&c->trans);
	if (c->rx_task && c->rx_task != current)
		send_sig(SIGKILL, c->rx_task, 1);
	if (c->tx_task && c->tx_task != current)
		send_sig(SIGKILL, c->tx_task, 1);
}

/* Pack @f (its tag set from @req) into the request's transmit buffer. */
static int req_pack(struct ninep_client *c, struct ninep_req *req,
		    struct v9p_fcall *f)
{
	int len;

	f->tag = req->tag;
	req->ttype = f->type;
	len = v9p_packed_size(f, c->dialect);
	if (len < 0)
		return len;
	if (len > c->msize)
		return -EMSGSIZE;
	req->tbuf = buf_alloc(c, len, &req->tpooled);
	if (!req->tbuf)
		return -ENOMEM;
	len = v9p_pack(f, c->dialect, req->tbuf, len);
	if (len < 0)
		return len;
	req->tlen = len;
	return 0;
}

static void trace_send(struct ninep_client *c, struct ninep_req *req)
{
	clnt_dbg(c, NINEP_DEBUG_9P, ">>> %s tag %u size %u\n",
		 v9p_type_name(req->ttype), req->tag, req->tlen);
}

/*
 * Send a packed request. When the line is idle and the transport can write
 * without blocking, the caller writes it itself (no thread hop); whatever
 * does not fit, and every request that finds the line busy, goes to the tx
 * thread. Message boundaries stay intact because only the holder of tx_busy
 * writes, and a partly written message is finished before any other.
 */
static int req_send(struct ninep_client *c, struct ninep_req *req)
{
	const struct ninep_trans_ops *ops = c->trans.ops;
	bool direct = false, wake;
	int n;

	spin_lock(&c->lock);
	if (req->state != REQ_NEW) {
		spin_unlock(&c->lock);
		return req->err ? req->err : -EIO;
	}
	if (ops->send_nb && !c->tx_busy && !c->tx_partial &&
	    list_empty(&c->tx_queue)) {
		c->tx_busy = true;
		/* Before sending: the reply may beat send_nb()'s return. */
		req->state = REQ_SENT;
		direct = true;
	} else {
		refcount_inc(&req->ref);
		list_add_tail(&req->tx_node, &c->tx_queue);
	}
	wake = !c->tx_busy;
	spin_unlock(&c->lock);
	if (!direct) {
		if (wake)
			wake_up(&c->tx_wq);
		return 0;
	}

	trace_send(c, req);
	n = ops->send_nb(&c->trans, req->tbuf, req->tlen);
	spin_lock(&c->lock);
	if (n >= 0 && n < req->tlen && !c->dead) {
		refcount_inc(&req->ref);
		c->tx_partial = req;
		c->tx_off = n;
	}
	c->tx_busy = false;
	wake = c->tx_partial || !list_empty(&c->tx_queue);
	spin_unlock(&c->lock);
	if (n < 0)
		client_fail(c, n, "send error");	/* fails req too */
	else if (wake)
		wake_up(&c->tx_wq);
	return 0;
}

/* Drop a request that was never sent (packing failed): retire it now. */
static void req_drop(struct ninep_client *c, struct ninep_req *req)
{
	LIST_HEAD(list);

	spin_lock(&c->lock);
	if (req->state == REQ_NEW)
		req_fail_locked(req, -ECANCELED);
	req_retire_locked(c, req, &list);
	spin_unlock(&c->lock);
	req_retired(c, &list);
	req_put(req);
}

/*
 * The waiter of @req got a fatal signal. A request not yet sent is simply
 * dropped; a sent one is flushed, its tag staying reserved until Rflush.
 * Nobody waits for the Tflush. @fid, if any, is a reference to a fid the
 * request was setting up; it goes with the request. Consumes the caller's
 * reference to @req.
 */
static void req_abandon(struct ninep_client *c, struct ninep_req *req,
			struct ninep_fid *fid, bool timed_out)
{
	struct ninep_req *flush = NULL;
	struct v9p_fcall f = { .type = V9P_TFLUSH };
	LIST_HEAD(list);
	bool need_flush;

	spin_lock(&c->lock);
	need_flush = req->state == REQ_SENT && req->in_table;
	spin_unlock(&c->lock);

	if (need_flush) {
		flush = req_new(c, NINEP_SMALL_RBUF, 0);	/* killed: no waiting */
		if (IS_ERR(flush)) {
			/*
			 * Without a Tflush the tag cannot be safely reused;
			 * the connection is as good as dead.
			 */
			client_fail(c, PTR_ERR(flush), "cannot send Tflush");
			flush = NULL;
		} else {
			f.tflush.oldtag = req->tag;
			if (req_pack(c, flush, &f)) {
				req_drop(c, flush);
				client_fail(c, -ENOMEM, "cannot pack Tflush");
				flush = NULL;
			}
		}
	}

	spin_lock(&c->lock);
	if (req->in_table && req->state == REQ_NEW) {
		/* Never sent: no flush needed, the tag is free at once. */
		req_fail_locked(req, -EINTR);
		req_retire_locked(c, req, &list);
	} else if (req->in_table && flush && flush->in_table &&
		   flush->state == REQ_NEW) {
		req->flushing = true;
		refcount_inc(&req->ref);
		flush->flushed = req;
		if (timed_out && !c->stale_flush) {
			refcount_inc(&flush->ref);
			WRITE_ONCE(c->stale_flush, flush);
			c->stale_since = jiffies;
		}
	}
	/*
	 * A fid being set up goes with the request if the request is still
	 * pending; otherwise the caller's put below clunks or frees it.
	 */
	if (fid && req->in_table) {
		req->orphan_fid = fid;
		fid = NULL;
	} else if (fid && req->state == REQ_DONE &&
		   req->rc.type != V9P_RERROR) {
		/* Answered just now: the server has the fid; clunk it. */
		fid->established = true;
	}
	spin_unlock(&c->lock);
	req_retired(c, &list);

	if (flush) {
		if (flush->flushed) {
			clnt_dbg(c, NINEP_DEBUG_RPC,
				 "%s: flushing tag %u with tag %u\n",
				 timed_out ? "timeout" : "fatal signal",
				 req->tag, flush->tag);
			req_send(c, flush);
			req_put(flush);
		} else {
			req_drop(c, flush);
		}
	}
	if (fid)
		ninep_fid_put(fid);
	req_put(req);
}

/*
 * Errnos from 512 up are the kernel's own (ERESTART*, EIOCBQUEUED, ...):
 * the VFS and AIO act on them (a read returning -EIOCBQUEUED is a BUG in
 * new_sync_read(), an iocb that is never completed under AIO), and user
 * space must never see them. Only an errcode below this passes as such.
 */
#define NINEP_USER_ERRNO_MAX	511

static bool user_errno(long e)
{
	return e > 0 && e <= NINEP_USER_ERRNO_MAX;
}

/*
 * The errno of an Rerror: its .u errcode if a user may see that one, else
 * what the error string names, else EIO.
 */
static int rerror_errno(struct ninep_client *c, struct ninep_req *req)
{
	const struct v9p_rerror *re = &req->rc.rerror;
	int e = 0;

	if (c->dialect == V9P_9P2000U && user_errno(re->errcode))
		e = re->errcode;
	if (!e)
		e = v9p_errstr_to_errno(re->ename.s, re->ename.len);
	if (!user_errno(e))
		e = EIO;
	clnt_dbg(c, NINEP_DEBUG_ERROR, "%s (tag %u): error '%.*s' -> %d\n",
		 v9p_type_name(req->ttype), req->tag, re->ename.len,
		 re->ename.s, -e);
	return -e;
}

static bool req_finished(struct ninep_req *req)
{
	/* Pairs with the release in rx_complete(): rbuf and rc are complete. */
	return smp_load_acquire(&req->state) >= REQ_DONE;
}

static long rx_wait(struct ninep_client *c, struct ninep_req *req, long t);

/*
 * Wait for the reply to @req, bounded by timeout= (-ETIMEDOUT) and ended at
 * once by a fatal signal (-EINTR); either way the request is abandoned (see
 * req_abandon(); *@abandoned says so) and the caller's reference consumed,
 * as is @fid. Returns 0 with req->rc decoded, or a negative errno: an
 * Rerror's errno, -EIO when the connection is dead.
 */
static int req_wait(struct ninep_client *c, struct ninep_req *req,
		    struct ninep_fid *fid, bool *abandoned)
{
	long t = c->timeout ? (long)c->timeout * HZ : MAX_SCHEDULE_TIMEOUT;
	long ret;

	*abandoned = false;
	ret = rx_wait(c, req, t);
	if (ret == -ERESTARTSYS) {
		if (req_finished(req))
			goto finished;
		if (req->ttype == V9P_TVERSION) {
			/*
			 * Tversion cannot be flushed (version(5)), and no
			 * session exists yet: give up the connection, which
			 * retires the request with everything else.
			 */
			client_fail(c, -EINTR, NULL);
			return -EINTR;
		}
		req_abandon(c, req, fid, false);
		*abandoned = true;
		return -EINTR;
	}
	if (ret == 0 && !req_finished(req)) {
		/*
		 * As an NFS soft mount: the request fails, the connection
		 * stays. It is flushed like the request of a killed task;
		 * only a server that leaves that Tflush unanswered for a
		 * whole timeout too is given up (see flush_overdue()). No
		 * Tflush exists for Tversion.
		 */
		if (req->ttype == V9P_TVERSION || flush_overdue(c)) {
			pr_err("no reply to %s (tag %u) from %s within %u s\n",
			       v9p_type_name(req->ttype), req->tag, c->peer,
			       c->timeout);
			client_fail(c, -ETIMEDOUT, req->ttype == V9P_TVERSION ?
				    "Tversion timed out" :
				    "no reply to a Tflush within timeout= either");
			return -ETIMEDOUT;
		}
		pr_warn_ratelimited("no reply to %s (tag %u) from %s within %u s: flushed\n",
				    v9p_type_name(req->ttype), req->tag,
				    c->peer, c->timeout);
		req_abandon(c, req, fid, true);
		*abandoned = true;
		return -ETIMEDOUT;
	}
finished:
	if (req->state == REQ_FAILED)
		return req->err ? req->err : -EIO;
	if (req->rc.type == V9P_RERROR)
		return rerror_errno(c, req);
	return 0;
}

/*
 * One whole RPC. On success the caller reads req->rc and puts the request;
 * on failure the request is already put. A fatal signal pending before
 * sending means nothing is sent at all. @fid, if not NULL, is a reference
 * to a fid this request sets up: it is always consumed, put here or handed
 * to the request if the wait is abandoned (see req_abandon()).
 */
static struct ninep_req *rpc(struct ninep_client *c, struct v9p_fcall *f,
			     u32 rcap, struct ninep_fid *fid)
{
	struct ninep_req *req;
	bool abandoned = false;
	int err;

	if (fatal_signal_pending(current)) {
		req = ERR_PTR(-EINTR);
		goto out;
	}
	req = req_new(c, rcap,
		      f->type == V9P_TVERSION ? REQ_NOTAG : REQ_WAIT);
	if (IS_ERR(req))
		goto out;
	err = req_pack(c, req, f);
	if (err) {
		req_drop(c, req);
		req = ERR_PTR(err);
		goto out;
	}
	err = req_send(c, req);
	if (!err)
		err = req_wait(c, req, fid, &abandoned);
	if (err) {
		if (abandoned)
			return ERR_PTR(err);
		req_put(req);
		req = ERR_PTR(err);
	}
out:
	if (fid)
		ninep_fid_put(fid);
	return req;
}

/* ---- receive and transmit threads ---- */

static void wait_for_stop(void)
{
	for (;;) {
		set_current_state(TASK_IDLE);
		if (kthread_should_stop())
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
}

static bool reply_type_ok(const struct ninep_req *req, u8 type)
{
	return type == req->ttype + 1 || type == V9P_RERROR;
}

/*
 * The header of a reply is in c->rx_hdr: find its request and make room
 * for the rest. 0, or a negative errno once the client failed.
 */
static int rx_header(struct ninep_client *c)
{
	struct ninep_req *req;
	struct v9p_hdr h;
	int err;

	err = v9p_peek_hdr(c->rx_hdr, sizeof(c->rx_hdr), c->msize, &h);
	if (err) {
		client_fail(c, err, err == -EMSGSIZE ?
			    "reply larger than msize" : "malformed reply header");
		return err;
	}

	spin_lock(&c->lock);
	req = xa_load(&c->reqs, h.tag);
	if (!req || req->state != REQ_SENT) {
		spin_unlock(&c->lock);
		pr_err("reply %s with tag %u matches no request\n",
		       v9p_type_name(h.type), h.tag);
		client_fail(c, -EPROTO, "reply with unknown tag");
		return -EPROTO;
	}
	refcount_inc(&req->ref);
	spin_unlock(&c->lock);

	if (!reply_type_ok(req, h.type)) {
		pr_err("%s (tag %u) answered by %s\n",
		       v9p_type_name(req->ttype), h.tag, v9p_type_name(h.type));
		err = -EPROTO;
		client_fail(c, err, "reply of the wrong type");
		goto fail;
	}
	/* Nobody else touches rbuf until the state says REQ_DONE. */
	if (h.size > req->rcap) {
		bool pooled;
		u8 *buf = buf_alloc(c, h.size, &pooled);

		if (!buf) {
			err = -ENOMEM;
			client_fail(c, err, "no memory for a reply");
			goto fail;
		}
		buf_free(c, req->rbuf, req->rpooled);
		req->rbuf = buf;
		req->rpooled = pooled;
		req->rcap = pooled ? c->msize : h.size;
	}
	memcpy(req->rbuf, c->rx_hdr, sizeof(c->rx_hdr));
	c->rx_size = h.size;
	c->rx_req = req;
	return 0;
fail:
	req_put(req);
	return err;
}

/* The whole reply is in: decode it and retire its request. */
static int rx_complete(struct ninep_client *c)
{
	struct ninep_req *req = c->rx_req, *old;
	LIST_HEAD(list);
	int err;

	c->rx_req = NULL;
	c->rx_got = 0;
	req->rlen = c->rx_size;
	err = v9p_unpack(req->rbuf, req->rlen, c->dialect, c->msize, &req->rc);
	if (err) {
		pr_err("malformed %s (tag %u, %u bytes): %d\n",
		       v9p_type_name(req->rbuf[4]), req->tag, req->rlen, err);
		client_fail(c, err, "malformed reply");
		goto out;
	}
	clnt_dbg(c, NINEP_DEBUG_9P, "<<< %s tag %u size %u\n",
		 v9p_type_name(req->rc.type), req->tag, req->rlen);

	spin_lock(&c->lock);
	if (req->state == REQ_SENT) {
		/* Publish rbuf and rc before the lockless req_finished(). */
		smp_store_release(&req->state, REQ_DONE);
		if (!req->flushing)
			req_retire_locked(c, req, &list);
		old = req->flushed;
		if (old && old->in_table) {
			/* Rflush: the flushed tag may be reused now. */
			if (old->state == REQ_SENT)
				req_fail_locked(old, -EINTR);
			req_retire_locked(c, old, &list);
		}
	}
	spin_unlock(&c->lock);
	wake_up_all(&req->wq);
	req_retired(c, &list);
out:
	req_put(req);
	return err;
}

/* Read up to @len bytes: all of them when @block, else what is there. */
static int rx_read(struct ninep_client *c, u8 *buf, u32 len, bool block)
{
	int err;

	if (!block)
		return c->trans.ops->recv_nb(&c->trans, buf, len);
	err = c->trans.ops->recv(&c->trans, buf, len);
	return err ? err : len;
}

/*
 * Caller holds rx_mutex. Receive what is there of the message in progress:
 * 1 when a whole message came in, 0 when the transport has nothing more for
 * now (never when @block), or a negative errno once the client failed.
 */
static int rx_step(struct ninep_client *c, bool block)
{
	int n;

	for (;;) {
		bool hdr = c->rx_got < V9P_HDRSZ;
		u8 *buf = hdr ? c->rx_hdr : c->rx_req->rbuf;
		u32 want = hdr ? V9P_HDRSZ : c->rx_size;

		if (c->rx_got < want) {
			n = rx_read(c, buf + c->rx_got, want - c->rx_got,
				    block);
			if (n < 0) {
				client_fail(c, n, n == -ECONNRESET ?
					    "server closed the connection" :
					    "receive error");
				return n;
			}
			/*
			 * Only "nothing there" ends a step: after a short
			 * read, the end of the stream or an error may still
			 * wait behind the data, and its readiness has been
			 * signalled already.
			 */
			if (!n)
				return 0;
			c->rx_got += n;
			if (c->rx_got < want)
				continue;
		}
		if (!hdr) {
			n = rx_complete(c);
			return n ? n : 1;
		}
		n = rx_header(c);
		if (n)
			return n;
	}
}

/*
 * ---- receiving ----
 *
 * Whoever holds rx_mutex receives. On a transport that can read without
 * blocking (recv_nb), that is preferably a task waiting for a reply, the
 * leader: the transport's readiness wakes the leader directly, which reads
 * whatever is there and hands each reply to its request, its own included,
 * so a lone request costs no thread hop. The rx thread receives when there
 * is no leader, and always on transports that can only block. A message
 * may be read in parts by several receivers in turn; its state is rx_*.
 * Readiness is a flag set by the transport and cleared by a receiver before
 * it reads, so data that arrives after a read always sets it again.
 */

/* Wake whoever should receive now: the leader if any, else the rx thread. */
static void rx_kick(struct ninep_client *c)
{
	struct task_struct *leader;

	/* The leader clears rx_leader before it can exit: RCU keeps it. */
	rcu_read_lock();
	leader = READ_ONCE(c->rx_leader);
	if (leader)
		wake_up_process(leader);
	else
		wake_up(&c->rx_wq);
	rcu_read_unlock();
}

/* The transport's ready callback: any context, softirq included. */
static void rx_readable(struct ninep_trans *t)
{
	struct ninep_client *c = container_of(t, struct ninep_client, trans);

	WRITE_ONCE(c->rx_ready, true);
	smp_mb();	/* the flag before the leader; pairs with rx_wait() */
	rx_kick(c);
}

/*
 * Caller holds rx_mutex. Read while the transport has something and until
 * @mine (if not NULL) is finished. 0, or a negative errno once the client
 * failed.
 */
static int rx_pump(struct ninep_client *c, struct ninep_req *mine)
{
	int n;

	WRITE_ONCE(c->rx_ready, false);
	smp_mb();	/* cleared before reading; pairs with rx_readable() */
	do {
		if (READ_ONCE(c->dead))
			return -EIO;
		n = rx_step(c, false);
	} while (n > 0 && !(mine && req_finished(mine)));
	if (n > 0)
		WRITE_ONCE(c->rx_ready, true);	/* stopped early: maybe more */
	return n < 0 ? n : 0;
}

static void rx_unlock(struct ninep_client *c)
{
	mutex_unlock(&c->rx_mutex);
	smp_mb();	/* unlocked before the test; pairs with rx_readable() */
	if (READ_ONCE(c->rx_ready))
		rx_kick(c);
}

/*
 * Wait for @req as wait_event_killable_timeout() does, receiving replies
 * meanwhile as the leader if no other waiting task is. The return value is
 * that of wait_event_killable_timeout().
 */
static long rx_wait(struct ninep_client *c, struct ninep_req *req, long t)
{
	bool leader = false;
	DEFINE_WAIT(wait);
	long ret = t;

	if (!c->trans.ops->recv_nb)
		return wait_event_killable_timeout(req->wq, req_finished(req),
						   t);
	for (;;) {
		/* cmpxchg() orders this before the rx_ready test below. */
		if (!leader && !READ_ONCE(c->rx_leader))
			leader = !cmpxchg(&c->rx_leader, NULL, current);
		if (prepare_to_wait_event(&req->wq, &wait, TASK_KILLABLE)) {
			ret = -ERESTARTSYS;
			break;
		}
		if (req_finished(req))
			break;
		if (leader && READ_ONCE(c->rx_ready) &&
		    mutex_trylock(&c->rx_mutex)) {
			__set_current_state(TASK_RUNNING);
			rx_pump(c, req);	/* a failure fails req too */
			rx_unlock(c);
			continue;
		}
		ret = schedule_timeout(ret);
		if (!ret)
			break;
	}
	finish_wait(&req->wq, &wait);
	if (leader) {
		WRITE_ONCE(c->rx_leader, NULL);
		smp_mb();	/* no leader before the test; see rx_readable() */
		if (READ_ONCE(c->rx_ready))
			wake_up(&c->rx_wq);
	}
	return ret;
}

static bool rx_thread_wanted(struct ninep_client *c)
{
	return READ_ONCE(c->dead) || kthread_should_stop() ||
	       (READ_ONCE(c->rx_ready) && !READ_ONCE(c->rx_leader) &&
		!mutex_is_locked(&c->rx_mutex));
}

static int rx_thread(void *data)
{
	struct ninep_client *c = data;
	int err = 0;

	allow_signal(SIGKILL);
	while (!err && !kthread_should_stop() && !READ_ONCE(c->dead)) {
		if (!c->trans.ops->recv_nb) {
			/* Nobody else ever receives: no need for rx_mutex. */
			err = rx_step(c, true) < 0;
			continue;
		}
		wait_event_idle(c->rx_wq, rx_thread_wanted(c));
		if (!mutex_trylock(&c->rx_mutex))
			continue;
		err = rx_pump(c, NULL);
		rx_unlock(c);
	}
	wait_for_stop();
	return 0;
}

static bool tx_ready(struct ninep_client *c)
{
	return READ_ONCE(c->dead) || kthread_should_stop() ||
	       (!READ_ONCE(c->tx_busy) && (READ_ONCE(c->tx_partial) ||
					   !list_empty(&c->tx_queue)));
}

static int tx_thread(void *data)
{
	struct ninep_client *c = data;
	struct ninep_req *req;
	u32 off;
	int err;

	allow_signal(SIGKILL);
	for (;;) {
		wait_event_idle(c->tx_wq, tx_ready(c));
		spin_lock(&c->lock);
		if (c->dead || kthread_should_stop()) {
			spin_unlock(&c->lock);
			break;
		}
		if (c->tx_busy) {
			spin_unlock(&c->lock);
			continue;
		}
		if (c->tx_partial) {
			req = c->tx_partial;
			off = c->tx_off;
			c->tx_partial = NULL;
		} else if (!list_empty(&c->tx_queue)) {
			req = list_first_entry(&c->tx_queue, struct ninep_req,
					       tx_node);
			list_del_init(&req->tx_node);
			/* Before sending: the reply may beat send()'s return. */
			req->state = REQ_SENT;
			off = 0;
		} else {
			spin_unlock(&c->lock);
			continue;
		}
		c->tx_busy = true;
		spin_unlock(&c->lock);

		if (!off)
			trace_send(c, req);
		err = c->trans.ops->send(&c->trans, req->tbuf + off,
					 req->tlen - off);
		req_put(req);
		spin_lock(&c->lock);
		c->tx_busy = false;
		spin_unlock(&c->lock);
		if (err) {
			client_fail(c, err, "send error");
			break;
		}
	}
	wait_for_stop();
	return 0;
}

/* ---- connection ---- */

int ninep_trans_open(struct ninep_trans *t, const struct ninep_client_opts *o)
{
	switch (o->trans) {
	case NINEP_TRANS_TCP:
		t->ops = &ninep_trans_tcp;
		break;
	case NINEP_TRANS_UNIX:
		t->ops = &ninep_trans_unix;
		break;
	case NINEP_TRANS_FD:
		t->ops = &ninep_trans_fd;
		break;
	default:
		pr_err("unknown transport %d\n", o->trans);
		return -EINVAL;
	}
	t->priv = NULL;
	t->debug = o->debug;
	return t->ops->connect(t, o);
}

static int client_version(struct ninep_client *c, enum v9p_dialect want)
{
	struct v9p_fcall f = { .type = V9P_TVERSION };
	const struct v9p_rversion *rv;
	struct ninep_req *req;
	u32 asked = c->msize;
	int d, err = 0;

	f.tversion.msize = asked;
	v9p_str_set(&f.tversion.version, v9p_dialect_name(want));
	req = rpc(c, &f, NINEP_SMALL_RBUF, NULL);
	if (IS_ERR(req)) {
		pr_err("Tversion to %s failed: %ld\n", c->peer, PTR_ERR(req));
		return PTR_ERR(req);
	}
	rv = &req->rc.rversion;
	if (rv->msize > asked) {
		pr_err("%s raised msize from %u to %u: refused\n", c->peer,
		       asked, rv->msize);
		err = -EREMOTEIO;
		goto out;
	}
	if (rv->msize < NINEP_MIN_MSIZE) {
		pr_err("%s offers an absurd msize of %u (minimum %u)\n",
		       c->peer, rv->msize, NINEP_MIN_MSIZE);
		err = -EREMOTEIO;
		goto out;
	}
	d = v9p_dialect_parse(&rv->version);
	if (d < 0) {
		if (v9p_str_eq(&rv->version, V9P_VERSION_UNKNOWN))
			pr_err("%s does not speak %s or 9P2000 (answered \"unknown\")\n",
			       c->peer, v9p_dialect_name(want));
		else
			pr_err("%s answered unknown version \"%.*s\"\n",
			       c->peer, rv->version.len, rv->version.s);
		err = -EPROTONOSUPPORT;
		goto out;
	}
	if (d != V9P_9P2000 && d != (int)want) {
		pr_err("%s answered %s to a request for %s\n", c->peer,
		       v9p_dialect_name(d), v9p_dialect_name(want));
		err = -EPROTONOSUPPORT;
		goto out;
	}
	if (d != (int)want)
		pr_notice("%s speaks 9P2000, not %s: using 9P2000\n", c->peer,
			  v9p_dialect_name(want));
	c->dialect = d;
	c->msize = rv->msize;
	c->pool_ok = true;
	clnt_dbg(c, NINEP_DEBUG_RPC, "version %s, msize %u (asked %u)\n",
		 v9p_dialect_name(d), c->msize, asked);
out:
	req_put(req);
	return err;
}

static void client_free(struct ninep_client *c)
{
	WARN_ON(!xa_empty(&c->reqs));
	pool_drain(c);
	xa_destroy(&c->reqs);
	ida_destroy(&c->fids);
	kfree(c->peer);
	kfree(c);
	atomic_dec(&live_clients);
}

/* Stop the threads and close the transport; the client is dead already. */
static void client_shutdown(struct ninep_client *c)
{
	if (c->stale_flush)
		req_put(c->stale_flush);	/* retired with the rest */
	c->stale_flush = NULL;
	if (c->tx_partial)
		req_put(c->tx_partial);
	c->tx_partial = NULL;
	if (c->rx_task)
		kthread_stop(c->rx_task);
	if (c->rx_req)
		req_put(c->rx_req);	/* a reply cut off by the failure */
	c->rx_req = NULL;
	if (c->tx_task)
		kthread_stop(c->tx_task);
	if (c->rx_task)
		put_task_struct(c->rx_task);
	if (c->tx_task)
		put_task_struct(c->tx_task);
	c->rx_task = NULL;
	c->tx_task = NULL;
	c->trans.ops->close(&c->trans);
}

struct ninep_client *ninep_client_create(const struct ninep_client_opts *o)
{
	struct ninep_client *c;
	int err;

	if (o->dialect != V9P_9P2000 && o->dialect != V9P_9P2000U) {
		pr_err("only 9P2000 and 9P2000.u are supported\n");
		return ERR_PTR(-EINVAL);
	}
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return ERR_PTR(-ENOMEM);
	atomic_inc(&live_clients);
	spin_lock_init(&c->lock);
	xa_init_flags(&c->reqs, XA_FLAGS_ALLOC);
	INIT_LIST_HEAD(&c->tx_queue);
	init_waitqueue_head(&c->tx_wq);
	init_waitqueue_head(&c->idle_wq);
	init_waitqueue_head(&c->tag_wq);
	mutex_init(&c->rx_mutex);
	init_waitqueue_head(&c->rx_wq);
	c->trans.ready = rx_readable;
	ida_init(&c->fids);
	INIT_LIST_HEAD(&c->pool);
	c->msize = o->msize ? o->msize : NINEP_DEFAULT_MSIZE;
	c->dialect = o->dialect;
	c->timeout = o->timeout;
	c->debug = o->debug;
	if (o->trans == NINEP_TRANS_FD)
		c->peer = kasprintf(GFP_KERNEL, "fd %d/%d", o->rfd, o->wfd);
	else
		c->peer = kstrdup(o->addr ? o->addr : "?", GFP_KERNEL);
	if (!c->peer) {
		client_free(c);
		return ERR_PTR(-ENOMEM);
	}
	if (c->msize < NINEP_MIN_MSIZE) {
		pr_err("msize %u is below the minimum of %u\n", c->msize,
		       NINEP_MIN_MSIZE);
		client_free(c);
		return ERR_PTR(-EINVAL);
	}

	err = ninep_trans_open(&c->trans, o);
	if (err) {
		client_free(c);
		return ERR_PTR(err);
	}
	if (c->msize > c->trans.ops->max_msize) {
		pr_notice("msize %u is above the %s transport's limit of %u: using %u\n",
			  c->msize, c->trans.ops->name,
			  c->trans.ops->max_msize, c->trans.ops->max_msize);
		c->msize = c->trans.ops->max_msize;
	}
	/*
	 * The task references let client_fail() signal a thread that
	 * client_shutdown() already stopped.
	 */
	c->rx_task = kthread_run(rx_thread, c, "9p2000-rx");
	if (IS_ERR(c->rx_task)) {
		err = PTR_ERR(c->rx_task);
		c->rx_task = NULL;
		goto fail;
	}
	get_task_struct(c->rx_task);
	c->tx_task = kthread_run(tx_thread, c, "9p2000-tx");
	if (IS_ERR(c->tx_task)) {
		err = PTR_ERR(c->tx_task);
		c->tx_task = NULL;
		goto fail;
	}
	get_task_struct(c->tx_task);
	err = client_version(c, o->dialect);
	if (err)
		goto fail;
	clnt_dbg(c, NINEP_DEBUG_TRANS, "connected to %s over %s\n", c->peer,
		 c->trans.ops->name);
	return c;
fail:
	/*
	 * Quietly: the reason is logged already. Whatever is still in the
	 * table (a Tversion given up) is retired with the connection.
	 */
	client_fail(c, err, NULL);
	client_shutdown(c);
	client_free(c);
	return ERR_PTR(err);
}

void ninep_client_abort(struct ninep_client *c)
{
	client_fail(c, -EIO, "aborted by umount -f");
}

/*
 * Let outstanding clunks finish (bounded), then kill the connection and
 * free the client. Every fid must have been put before.
 */
void ninep_client_destroy(struct ninep_client *c)
{
	unsigned int secs = c->timeout ? c->timeout : NINEP_DRAIN_SECS;

	if (!READ_ONCE(c->dead) &&
	    wait_event_killable_timeout(c->idle_wq, xa_empty(&c->reqs),
					(long)secs * HZ) <= 0 &&
	    !xa_empty(&c->reqs))
		pr_warn("%s: requests still pending at umount\n", c->peer);
	spin_lock(&c->lock);
	if (!c->dead && xa_empty(&c->reqs)) {
		/* Clean shutdown: no error line. */
		WRITE_ONCE(c->dead, true);
		spin_unlock(&c->lock);
		c->trans.ops->abort(&c->trans);
		send_sig(SIGKILL, c->rx_task, 1);
		send_sig(SIGKILL, c->tx_task, 1);
		wake_up_all(&c->tx_wq);
	} else {
		spin_unlock(&c->lock);
		client_fail(c, -EIO, "unmounted with requests pending");
	}
	client_shutdown(c);
	client_free(c);
}

/* ---- fids ---- */

static struct ninep_fid *fid_new(struct ninep_client *c)
{
	struct ninep_fid *fid;
	int n;

	fid = kmem_cache_zalloc(fid_cache, GFP_NOFS);
	if (!fid)
		return ERR_PTR(-ENOMEM);
	n = ida_alloc_max(&c->fids, INT_MAX - 1, GFP_NOFS);
	if (n < 0) {
		kmem_cache_free(fid_cache, fid);
		return ERR_PTR(n);
	}
	atomic_inc(&live_fids);
	fid->clnt = c;
	fid->fid = n;
	refcount_set(&fid->ref, 1);
	fid->mode = -1;
	fid->uid = INVALID_UID;
	INIT_HLIST_NODE(&fid->vfs_node);
	return fid;
}

static void free_fid(struct ninep_fid *fid)
{
	ida_free(&fid->clnt->fids, fid->fid);
	kmem_cache_free(fid_cache, fid);
	atomic_dec(&live_fids);
}

struct ninep_fid *ninep_fid_get(struct ninep_fid *fid)
{
	if (fid)
		refcount_inc(&fid->ref);
	return fid;
}

/*
 * The last put clunks an established fid without waiting: the fid number
 * stays allocated until Rclunk (or connection death) retires the request,
 * so it cannot be reused while the server may still know it. This also
 * works from a task that is being killed.
 */
void ninep_fid_put(struct ninep_fid *fid)
{
	struct v9p_fcall f = { .type = V9P_TCLUNK };
	struct ninep_client *c;
	struct ninep_req *req;
	u32 n;

	if (!fid || !refcount_dec_and_test(&fid->ref))
		return;
	c = fid->clnt;
	if (!fid->established || READ_ONCE(c->dead))
		goto free;
	req = req_new(c, NINEP_SMALL_RBUF, 0);	/* may run in the receiver */
	if (IS_ERR(req))
		goto forget;
	n = fid->fid;
	f.tclunk.fid = n;
	if (req_pack(c, req, &f)) {
		req_drop(c, req);
		goto forget;
	}
	spin_lock(&c->lock);
	if (!req->in_table) {
		/* The connection died meanwhile. */
		spin_unlock(&c->lock);
		req_put(req);
		goto free;
	}
	req->clunk_fid = fid;
	spin_unlock(&c->lock);
	/* Once sent, the reply may retire the request and free the fid. */
	clnt_dbg(c, NINEP_DEBUG_RPC, "clunk fid %u (tag %u)\n", n, req->tag);
	req_send(c, req);	/* on failure, retiring frees the fid */
	req_put(req);
	return;
forget:
	/*
	 * No Tclunk could be sent (no memory, or every tag in flight: a clunk
	 * does not wait for one) and the server still knows the fid: its number
	 * must not be handed out again on this connection. It stays taken
	 * until the connection goes; the memory is freed now.
	 */
	if (!READ_ONCE(c->dead)) {
		pr_warn_ratelimited("%s: cannot clunk fid %u: number retired\n",
				    c->peer, fid->fid);
		kmem_cache_free(fid_cache, fid);
		atomic_dec(&live_fids);
		return;
	}
free:
	free_fid(fid);
}

/* ---- operations ---- */

struct ninep_fid *ninep_attach(struct ninep_client *c, struct ninep_fid *afid,
			       const char *uname, u32 n_uname, const char *aname)
{
	struct v9p_fcall f = { .type = V9P_TATTACH };
	struct ninep_fid *fid;
	struct ninep_req *req;
	int err;

	fid = fid_new(c);
	if (IS_ERR(fid))
		return fid;
	f.tattach.fid = fid->fid;
	f.tattach.afid = afid ? afid->fid : V9P_NOFID;
	f.tattach.n_uname = n_uname;
	err = v9p_str_set(&f.tattach.uname, uname);
	if (!err)
		err = v9p_str_set(&f.tattach.aname, aname);
	if (err) {
		ninep_fid_put(fid);
		return ERR_PTR(err);
	}
	req = rpc(c, &f, NINEP_SMALL_RBUF, ninep_fid_get(fid));
	if (IS_ERR(req)) {
		ninep_fid_put(fid);
		return ERR_CAST(req);
	}
	fid->qid = req->rc.rattach.qid;
	fid->established = true;
	req_put(req);
	return fid;
}

/* One Twalk of at most 16 names from @fid to @newfid. */
static int walk_once(struct ninep_fid *fid, struct ninep_fid *newfid,
		     unsigned int n, const char *const *names)
{
	struct ninep_client *c = fid->clnt;
	struct v9p_fcall *f;
	struct ninep_req *req;
	unsigned int i;
	int err;

	f = kzalloc(sizeof(*f), GFP_NOFS);
	if (!f)
		return -ENOMEM;
	f->type = V9P_TWALK;
	f->twalk.fid = fid->fid;
	f->twalk.newfid = newfid->fid;
	f->twalk.nwname = n;
	for (i = 0; i < n; i++) {
		err = v9p_str_set(&f->twalk.wname[i], names[i]);
		if (err)
			goto out;
	}
	/*
	 * Only the first walk into a fresh newfid can leave the server
	 * holding a fid we do not know about; a later one moves a fid that
	 * is established already.
	 */
	req = rpc(c, f, NINEP_SMALL_RBUF,
		  newfid->established ? NULL : ninep_fid_get(newfid));
	if (IS_ERR(req)) {
		err = PTR_ERR(req);
		goto out;
	}
	if (req->rc.rwalk.nwqid > n) {
		client_fail(c, -EPROTO, "Rwalk with more qids than names");
		err = -EIO;
	} else if (req->rc.rwalk.nwqid < n) {
		err = -ENOENT;
	} else {
		if (n)
			newfid->qid = req->rc.rwalk.wqid[n - 1];
		else
			newfid->qid = fid->qid;
		newfid->established = true;
		err = 0;
	}
	req_put(req);
out:
	kfree(f);
	return err;
}

struct ninep_fid *ninep_walk(struct ninep_fid *fid, unsigned int n,
			     const char *const *names)
{
	struct ninep_fid *newfid, *from = fid;
	int err;

	newfid = fid_new(fid->clnt);
	if (IS_ERR(newfid))
		return newfid;
	do {
		unsigned int k = min_t(unsigned int, n, NINEP_MAX_WALK);

		err = walk_once(from, newfid, k, names);
		if (err)
			break;
		from = newfid;
		names += k;
		n -= k;
	} while (n);
	if (err) {
		/*
		 * A partial first walk leaves newfid unused (freed without
		 * clunk); a later one leaves it established (clunked).
		 */
		ninep_fid_put(newfid);
		return ERR_PTR(err);
	}
	return newfid;
}

int ninep_open(struct ninep_fid *fid, u8 mode)
{
	struct v9p_fcall f = { .type = V9P_TOPEN };
	struct ninep_req *req;

	f.topen.fid = fid->fid;
	f.topen.mode = mode;
	req = rpc(fid->clnt, &f, NINEP_SMALL_RBUF, NULL);
	if (IS_ERR(req))
		return PTR_ERR(req);
	fid->qid = req->rc.ropen.qid;
	fid->iounit = req->rc.ropen.iounit;
	fid->mode = mode;
	req_put(req);
	return 0;
}

int ninep_create(struct ninep_fid *dfid, const char *name, u32 perm, u8 mode,
		 const char *extension)
{
	struct v9p_fcall f = { .type = V9P_TCREATE };
	struct ninep_req *req;
	int err;

	f.tcreate.fid = dfid->fid;
	f.tcreate.perm = perm;
	f.tcreate.mode = mode;
	err = v9p_str_set(&f.tcreate.name, name);
	if (!err)
		err = v9p_str_set(&f.tcreate.extension,
				  dfid->clnt->dialect == V9P_9P2000U ?
				  extension : NULL);
	if (err)
		return err;
	req = rpc(dfid->clnt, &f, NINEP_SMALL_RBUF, NULL);
	if (IS_ERR(req))
		return PTR_ERR(req);
	dfid->qid = req->rc.rcreate.qid;
	dfid->iounit = req->rc.rcreate.iounit;
	dfid->mode = mode;
	req_put(req);
	return 0;
}

/* Largest payload of one Tread/Twrite on @fid. */
static u32 io_chunk(const struct ninep_fid *fid)
{
	u32 max = fid->clnt->msize - V9P_IOHDRSZ;

	return fid->iounit && fid->iounit < max ? fid->iounit : max;
}

/*
 * Directories must be read sequentially (each offset follows the last
 * reply), and append-only files ignore offsets: no pipelining on either.
 */
static unsigned int io_window(const struct ninep_fid *fid)
{
	if (fid->qid.type & (V9P_QTDIR | V9P_QTAPPEND))
		return 1;
	return NINEP_IO_WINDOW;
}

struct io_slot {
	struct ninep_req *req;
	u32 count;
};

/* Queue a Tread of @count bytes at @off. */
static struct ninep_req *read_start(struct ninep_fid *fid, u64 off, u32 count)
{
	struct ninep_client *c = fid->clnt;
	struct v9p_fcall f = { .type = V9P_TREAD };
	struct ninep_req *req;
	int err;

	req = req_new(c, V9P_RREAD_HDRSZ + count, REQ_WAIT);
	if (IS_ERR(req))
		return req;
	f.tread.fid = fid->fid;
	f.tread.offset = off;
	f.tread.count = count;
	err = req_pack(c, req, &f);
	if (!err)
		err = req_send(c, req);
	if (err) {
		req_drop(c, req);
		return ERR_PTR(err);
	}
	return req;
}

/* Wait for one I/O request; consumes the reference on any error. */
static int io_wait(struct ninep_client *c, struct ninep_req *req)
{
	bool abandoned;
	int err;

	err = req_wait(c, req, NULL, &abandoned);
	if (err && !abandoned)
		req_put(req);
	return err;
}

/*
 * Let requests issued past a short or failed one finish, unused. True if
 * one of them was a Twrite that landed all the same.
 */
static bool io_discard(struct ninep_client *c, struct io_slot *slots,
		       unsigned int head, unsigned int n)
{
	bool landed = false;
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct ninep_req *req = slots[(head + i) % NINEP_IO_WINDOW].req;

		if (io_wait(c, req))
			continue;
		if (req->rc.type == V9P_RWRITE && req->rc.rwrite.count)
			landed = true;
		req_put(req);
	}
	return landed;
}

/* Queue a Twrite of the next @count bytes of @from at @off. */
static struct ninep_req *write_start(struct ninep_fid *fid, u64 off, u32 count,
				     struct iov_iter *from)
{
	struct ninep_client *c = fid->clnt;
	struct v9p_fcall f = { .type = V9P_TWRITE };
	struct ninep_req *req;
	int hlen, err;

	req = req_new(c, NINEP_SMALL_RBUF, REQ_WAIT);
	if (IS_ERR(req))
		return req;
	f.tag = req->tag;
	f.twrite.fid = fid->fid;
	f.twrite.offset = off;
	f.twrite.count = count;
	req->ttype = V9P_TWRITE;
	err = -ENOMEM;
	req->tbuf = buf_alloc(c, V9P_TWRITE_HDRSZ + count, &req->tpooled);
	if (!req->tbuf)
		goto fail;
	hlen = v9p_pack_io_hdr(&f, req->tbuf, V9P_TWRITE_HDRSZ + count);
	if (hlen < 0) {
		err = hlen;
		goto fail;
	}
	if (copy_from_iter(req->tbuf + hlen, count, from) != count) {
		err = -EFAULT;
		goto fail;
	}
	req->tlen = hlen + count;
	err = req_send(c, req);
	if (err)
		goto fail;
	return req;
fail:
	req_drop(c, req);
	return ERR_PTR(err);
}

/*
 * Read into or write from @it at @off: chunks of io_chunk() bytes.
 *
 * The rule for having several chunks in flight: chunks go out ahead of the
 * replies to earlier ones only on a file whose length, as the server last
 * reported it (@known_len), is not 0. A server that gives a file a length
 * serves it by offset, so replies in any order put the bytes where one
 * chunk at a time would. A stream, FIFO or device file (which a server may
 * serve ignoring offsets, and a threaded one may answer out of order)
 * reports length 0: it is read and written one chunk at a time, in order,
 * and so is a file that is still empty (a new one, for its first write),
 * and so are directories and append-only files. A read starts with one
 * chunk and widens the window once that came back full, so a file that
 * ends within the first chunk costs exactly one Tread.
 *
 * A chunk that fails or comes back short ends the call with the count so
 * far (or its error, if none). If a write chunk sent ahead of it landed
 * all the same, no count tells user space what the file now holds: the
 * call fails with -EIO instead.
 */
static ssize_t io_run(struct ninep_fid *fid, u64 off, struct iov_iter *it,
		      bool rd, u64 known_len)
{
	struct ninep_client *c = fid->clnt;
	struct io_slot slots[NINEP_IO_WINDOW];
	unsigned int head = 0, inflight = 0;
	unsigned int wide = known_len ? io_window(fid) : 1;
	unsigned int window = rd ? 1 : wide;
	size_t left = iov_iter_count(it), total = 0;
	u32 chunk = io_chunk(fid);
	u64 next = off;
	int err = 0;

	if (fatal_signal_pending(current))
		return -EINTR;
	while (left || inflight) {
		struct ninep_req *req;
		u32 want, got;

		while (left && inflight < window) {
			u32 n = min_t(size_t, left, chunk);

			req = rd ? read_start(fid, next, n) :
				   write_start(fid, next, n, it);
			if (IS_ERR(req)) {
				err = PTR_ERR(req);
				left = 0;
				break;
			}
			slots[(head + inflight) % NINEP_IO_WINDOW] =
				(struct io_slot){ .req = req, .count = n };
			inflight++;
			next += n;
			left -= n;
		}
		if (!inflight)
			break;
		req = slots[head].req;
		want = slots[head].count;
		head = (head + 1) % NINEP_IO_WINDOW;
		inflight--;
		err = io_wait(c, req);
		if (err)
			break;
		got = rd ? req->rc.rread.count : req->rc.rwrite.count;
		if (got > want) {
			pr_err("%s of %u bytes for %u asked\n",
			       v9p_type_name(req->rc.type), got, want);
			req_put(req);
			client_fail(c, -EPROTO, "I/O reply larger than asked");
			err = -EIO;
			break;
		}
		if (rd && copy_to_iter(req->rc.rread.data, got, it) != got) {
			req_put(req);
			err = -EFAULT;
			break;
		}
		req_put(req);
		total += got;
		if (got < want)
			break;
		window = wide;
	}
	if (io_discard(c, slots, head, inflight) && !rd) {
		pr_warn_ratelimited("write to %s failed at %llu while later chunks landed: -EIO\n",
				    c->peer, off + total);
		return -EIO;
	}
	return total ? total : err;
}

ssize_t ninep_read(struct ninep_fid *fid, u64 off, struct iov_iter *to,
		   u64 known_len)
{
	return io_run(fid, off, to, true, known_len);
}

ssize_t ninep_write(struct ninep_fid *fid, u64 off, struct iov_iter *from,
		    u64 known_len)
{
	return io_run(fid, off, from, false, known_len);
}

static char *stat_copy_str(struct v9p_str *v, char *p)
{
	memcpy(p, v->s, v->len);
	p[v->len] = '\0';
	v->s = p;
	return p + v->len + 1;
}

struct v9p_stat *ninep_stat(struct ninep_fid *fid)
{
	struct v9p_fcall f = { .type = V9P_TSTAT };
	const struct v9p_stat *src;
	struct ninep_req *req;
	struct v9p_stat *st;
	size_t size;
	char *p;

	f.tstat.fid = fid->fid;
	/* Room for short names; the receiver grows it for a longer reply. */
	req = rpc(fid->clnt, &f, NINEP_STAT_RBUF, NULL);
	if (IS_ERR(req))
		return ERR_CAST(req);
	src = &req->rc.rstat.stat;
	size = sizeof(*st) + src->name.len + src->uid.len + src->gid.len +
	       src->muid.len + src->extension.len + 5;
	st = kmalloc(size, GFP_NOFS);
	if (!st) {
		req_put(req);
		return ERR_PTR(-ENOMEM);
	}
	*st = *src;
	/* NUL-terminated copies right after the struct, for the VFS's ease. */
	p = (char *)(st + 1);
	p = stat_copy_str(&st->name, p);
	p = stat_copy_str(&st->uid, p);
	p = stat_copy_str(&st->gid, p);
	p = stat_copy_str(&st->muid, p);
	stat_copy_str(&st->extension, p);
	req_put(req);
	return st;
}

int ninep_wstat(struct ninep_fid *fid, const struct v9p_stat *st)
{
	struct v9p_fcall *f;
	struct ninep_req *req;

	f = kzalloc(sizeof(*f), GFP_NOFS);
	if (!f)
		return -ENOMEM;
	f->type = V9P_TWSTAT;
	f->twstat.fid = fid->fid;
	f->twstat.stat = *st;
	req = rpc(fid->clnt, f, NINEP_SMALL_RBUF, NULL);
	kfree(f);
	if (IS_ERR(req))
		return PTR_ERR(req);
	req_put(req);
	return 0;
}

int ninep_remove(struct ninep_fid *fid)
{
	struct v9p_fcall f = { .type = V9P_TREMOVE };
	struct ninep_req *req;
	int err = 0;

	f.tremove.fid = fid->fid;
	req = rpc(fid->clnt, &f, NINEP_SMALL_RBUF, NULL);
	if (IS_ERR(req)) {
		err = PTR_ERR(req);
		/* An Rerror still clunked the fid on the server. */
		if (err != -EINTR && !ninep_client_dead(fid->clnt))
			fid->established = false;
	} else {
		fid->established = false;
		req_put(req);
	}
	ninep_fid_put(fid);
	return err;
}

/* ---- module ---- */

int ninep_client_init(void)
{
	req_cache = kmem_cache_create("9p2000_req", sizeof(struct ninep_req), 0,
				      0, NULL);
	if (!req_cache)
		return -ENOMEM;
	fid_cache = kmem_cache_create("9p2000_fid", sizeof(struct ninep_fid), 0,
				      0, NULL);
	if (!fid_cache) {
		kmem_cache_destroy(req_cache);
		return -ENOMEM;
	}
	return 0;
}

void ninep_client_exit(void)
{
	kmem_cache_destroy(fid_cache);
	kmem_cache_destroy(req_cache);
}
