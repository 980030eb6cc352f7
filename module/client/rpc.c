// SPDX-License-Identifier: GPL-2.0-only
/*
 * RPC engine of 9p2000.ko: sends requests and matches replies by tag.
 *
 * Each request goes to the transport whole (ninep_trans_ops.request), and
 * the transport hands its reply back through the callbacks at the end of
 * this file (struct ninep_trans_owner). A task waits for its reply through
 * the transport, which may receive for everyone meanwhile; a fatal signal
 * ends the wait at once, and the request is taken back if it is not on
 * the wire yet, else flushed (Tflush).
 *
 * A request is in the tag table from allocation until it is retired: when its
 * reply arrives, or, if it was flushed, when Rflush arrives, or when the
 * connection dies. Its memory lives as long as anyone holds a reference.
 */
#define pr_fmt(fmt) "9p2000: " fmt

#include <linux/atomic.h>
#include <linux/err.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "rpc.h"

/* msize-sized buffers kept per connection for bulk messages. */
#define NINEP_POOL_MAX		8

static int live_get(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%d\n", atomic_read(kp->arg));
}

/* The parameter parser calls ->set unconditionally: refuse, don't oops. */
static int live_set(const char *val, const struct kernel_param *kp)
{
	return -EPERM;
}

const struct kernel_param_ops ninep_live_ops = {
	.set = live_set,
	.get = live_get,
};

static atomic_t live_reqs = ATOMIC_INIT(0);
module_param_cb(live_reqs, &ninep_live_ops, &live_reqs, 0444);
MODULE_PARM_DESC(live_reqs, "9P requests allocated (read-only)");

static struct kmem_cache *req_cache;

/* ---- message buffers ---- */

/*
 * Bulk messages (Tread replies, Twrite requests) are up to msize long: a
 * fresh kvmalloc of that much for every chunk is a high-order allocation or
 * a vmalloc each time, so a few msize buffers are recycled per connection.
 */
void *ninep_buf_alloc(struct ninep_client *c, u32 size, bool *pooled)
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

void ninep_pool_drain(struct ninep_client *c)
{
	while (!list_empty(&c->pool)) {
		struct list_head *buf = c->pool.next;

		list_del(buf);
		kvfree(buf);
	}
	c->npool = 0;
}

/* ---- requests ---- */

void ninep_req_put(struct ninep_req *req)
{
	if (!refcount_dec_and_test(&req->ref))
		return;
	buf_free(req->clnt, req->tbuf, req->tpooled);
	buf_free(req->clnt, req->rbuf, req->rpooled);
	if (req->zc)
		req->clnt->ops->zc_free(req->zc);
	kmem_cache_free(req_cache, req);
	atomic_dec(&live_reqs);
}

/*
 * timeout=: a Tflush sent for a timed-out request and still unanswered a
 * whole timeout later means the server answers nothing: the connection is
 * then dead. Retiring the Tflush forgets it (req_retire_locked()).
 */
static bool flush_overdue(struct ninep_client *c)
{
	bool overdue;

	if (!READ_ONCE(c->stale_flush))
		return false;
	spin_lock(&c->lock);
	overdue = c->stale_flush &&
		  time_after_eq(jiffies, c->stale_since +
				(unsigned long)c->timeout * HZ);
	spin_unlock(&c->lock);
	return overdue;
}

/*
 * Tags stay below 0x8000. QEMU's 9P server (7.2 at least) reads the oldtag
 * of a Tflush as a signed 16-bit number and compares it with its requests'
 * unsigned tags, so a Tflush of a tag from 0x8000 up finds nothing: Rflush
 * comes at once and the flushed request's own reply after it, to a tag
 * already retired (or reused). flush(5) promises the opposite order. The
 * in-tree client, which takes the lowest free tag, rarely goes that high.
 * 32768 requests in flight are still far more than any transport holds.
 */
#define NINEP_TAG_MAX	0x7fff

/* Slots of a new tag table: more requests in flight than most mounts see. */
#define NINEP_TAGS_MIN	64

int ninep_tags_init(struct ninep_client *c)
{
	c->tags.slot = kcalloc(NINEP_TAGS_MIN, sizeof(*c->tags.slot),
			       GFP_KERNEL);
	if (!c->tags.slot)
		return -ENOMEM;
	c->tags.size = NINEP_TAGS_MIN;
	return 0;
}

void ninep_tags_free(struct ninep_client *c)
{
	kvfree(c->tags.slot);
	c->tags.slot = NULL;
}

/* Nothing in the table (without c->lock: a hint, or a wait condition). */
bool ninep_tags_empty(struct ninep_client *c)
{
	return !READ_ONCE(c->tags.count);
}

/* The request of @tag, or NULL: c->lock held. */
static struct ninep_req *tag_lookup(struct ninep_client *c, u16 tag)
{
	struct ninep_tags *t = &c->tags;
	struct ninep_req *req;

	if (tag == V9P_NOTAG)
		return t->notag;
	if (tag > NINEP_TAG_MAX)
		return NULL;
	/* The slot may hold another request: one whose tag differs above. */
	req = t->slot[tag & (t->size - 1)];
	return req && req->tag == tag ? req : NULL;
}

/*
 * Put @req in the table under the next free tag in turn (a tag just retired
 * is the last to be reused), or under NOTAG: c->lock held. -EBUSY when no
 * slot is free (or NOTAG is taken).
 */
static int tag_take_locked(struct ninep_client *c, struct ninep_req *req,
			   bool notag)
{
	struct ninep_tags *t = &c->tags;
	u32 tag;

	if (notag) {
		if (t->notag)
			return -EBUSY;
		t->notag = req;
		req->tag = V9P_NOTAG;
	} else {
		if (t->used == t->size)
			return -EBUSY;
		/*
		 * A slot is free, and size (which divides the tag range) tags
		 * in a row land on every slot once.
		 */
		tag = t->next;
		while (t->slot[tag & (t->size - 1)])
			tag = (tag + 1) & NINEP_TAG_MAX;
		t->slot[tag & (t->size - 1)] = req;
		t->next = (tag + 1) & NINEP_TAG_MAX;
		t->used++;
		req->tag = tag;
	}
	WRITE_ONCE(t->count, t->count + 1);
	req->in_table = true;
	return 0;
}

/* Take @req out of the table: c->lock held. */
static void tag_remove_locked(struct ninep_client *c, struct ninep_req *req)
{
	struct ninep_tags *t = &c->tags;

	if (req == t->notag) {
		t->notag = NULL;
	} else {
		t->slot[req->tag & (t->size - 1)] = NULL;
		t->used--;
	}
	WRITE_ONCE(t->count, t->count - 1);
	req->in_table = false;
}

/*
 * Move the table's requests into @slot, of @size slots, if the table is
 * still smaller: c->lock held. Tags that had distinct slots modulo the old
 * size have distinct slots modulo a multiple of it. Returns the array the
 * caller is to free once the lock is dropped.
 */
static struct ninep_req **tags_grow_locked(struct ninep_client *c,
					   struct ninep_req **slot, u32 size)
{
	struct ninep_tags *t = &c->tags;
	struct ninep_req **old = t->slot;
	u32 i;

	if (size <= t->size)
		return slot;
	for (i = 0; i < t->size; i++)
		if (old[i])
			slot[old[i]->tag & (size - 1)] = old[i];
	t->slot = slot;
	t->size = size;
	clnt_dbg(c, NINEP_DEBUG_RPC, "tag table grows to %u slots\n", size);
	return old;
}

/*
 * Put @req in the tag table (REQ_NOTAG: under NOTAG). With every slot
 * taken, the table doubles, up to a slot for every tag; with every tag in
 * flight (or no memory to grow), wait for one to be retired rather than
 * fail (a busy connection is no error), if REQ_WAIT: a caller that may be
 * the receiver (a clunk from retiring) must not wait, since only receiving
 * retires. 0, -EBUSY (full, no waiting), -EINTR on a fatal signal, -EIO if
 * the connection is dead.
 */
static int tag_alloc(struct ninep_client *c, struct ninep_req *req,
		     unsigned int flags)
{
	struct ninep_req **grown = NULL;
	u32 size = 0;
	int gen, err;

	for (;;) {
		/* Read before trying: a retire after this changes it. */
		gen = atomic_read(&c->retired);
		spin_lock(&c->lock);
		if (grown)
			grown = tags_grow_locked(c, grown, size);
		err = c->dead ? -EIO :
		      tag_take_locked(c, req, flags & REQ_NOTAG);
		size = c->tags.size;
		spin_unlock(&c->lock);
		if (grown) {
			/* The old array, or the new one if another grew it. */
			kvfree(grown);
			grown = NULL;
		}
		if (err != -EBUSY || (flags & REQ_NOTAG))
			return err;
		if (size <= NINEP_TAG_MAX) {
			size *= 2;
			grown = kvcalloc(size, sizeof(*grown),
					 GFP_NOFS | __GFP_NOWARN);
			if (grown)
				continue;
			/* No memory to grow: a full table all the same. */
		}
		if (!(flags & REQ_WAIT))
			return -EBUSY;
		if (wait_event_killable(c->tag_wq,
					atomic_read(&c->retired) != gen ||
					READ_ONCE(c->dead)))
			return -EINTR;
	}
}

/*
 * A new request with a tag, in the table. The caller holds one reference
 * and the table another. @rcap is the reply size expected at most (a bigger
 * reply is still accepted up to msize; the receiver grows the buffer).
 */
struct ninep_req *ninep_req_new(struct ninep_client *c, u32 rcap,
				unsigned int flags)
{
	struct ninep_req *req;
	int err;

	if (flush_overdue(c))
		ninep_client_fail(c, -ETIMEDOUT, "no reply to a Tflush within timeout=");
	if (READ_ONCE(c->dead))
		return ERR_PTR(-EIO);
	req = kmem_cache_zalloc(req_cache, GFP_NOFS);
	if (!req)
		return ERR_PTR(-ENOMEM);
	atomic_inc(&live_reqs);
	req->clnt = c;
	refcount_set(&req->ref, 2);
	init_waitqueue_head(&req->msg.wq);
	INIT_LIST_HEAD(&req->msg.node);
	INIT_LIST_HEAD(&req->retire_node);
	req->state = REQ_NEW;
	req->rbuf = ninep_buf_alloc(c, rcap, &req->rpooled);
	if (!req->rbuf) {
		err = -ENOMEM;
		goto fail;
	}
	req->rcap = req->rpooled ? c->msize : rcap;
	err = tag_alloc(c, req, flags);
	if (err)
		goto fail;
	return req;
fail:
	refcount_set(&req->ref, 1);
	ninep_req_put(req);
	return ERR_PTR(err);
}

/* Rerror, or Rlerror in 9P2000.L: the request failed on the server. */
static bool rc_is_error(u8 type)
{
	return type == V9P_RERROR || type == V9P_RLERROR;
}

/* The server answered @req, and not with an error: c->lock, or retired. */
static bool req_answered(const struct ninep_req *req)
{
	return req->state == REQ_DONE && !rc_is_error(req->rc.type);
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
	tag_remove_locked(c, req);
	/*
	 * The Tflush of a timed-out request, answered or failed: there is
	 * nothing left to watch (flush_overdue()). Let it go now, not at the
	 * next request, which may never come.
	 */
	if (req == c->stale_flush) {
		WRITE_ONCE(c->stale_flush, NULL);
		refcount_dec(&req->ref);	/* stale_flush's; the table holds one */
	}
	list_add_tail(&req->retire_node, list);
}

/* c->lock held; err is published before the lockless req_finished(). */
static void req_fail_locked(struct ninep_req *req, int err)
{
	req->err = err;
	/* Pairs with req_finished(): err is visible once the state is. */
	smp_store_release(&req->state, REQ_FAILED);
}

static void rx_defer(struct ninep_client *c, struct ninep_req *req);

/*
 * After c->lock: wake waiters, release what retiring owed, drop table refs.
 * @recv: called by whoever receives; an orphan fid's put, which may send a
 * Tclunk, is then not done on the receiver's stack but by a work item.
 */
static void __req_retired(struct ninep_client *c, struct list_head *list,
			  bool recv)
{
	struct ninep_req *req, *next;

	list_for_each_entry_safe(req, next, list, retire_node) {
		list_del_init(&req->retire_node);
		wake_up_all(&req->msg.wq);
		if (req->flushed)
			ninep_req_put(req->flushed);
		req->flushed = NULL;
		if (req->clunk_fid) {
			c->ops->clunk_retired(req);
			req->clunk_fid = NULL;
		}
		if (req->orphan_fid) {
			/*
			 * The request that was to set up this fid was given
			 * up; if the server answered it, the fid may exist
			 * there (fid_put() is told so).
			 */
			if (recv && !READ_ONCE(c->dead)) {
				/* The table's reference goes with it. */
				rx_defer(c, req);
				atomic_inc(&c->retired);
				continue;
			}
			c->ops->fid_put(req->orphan_fid, req_answered(req));
			req->orphan_fid = NULL;
		}
		ninep_req_put(req);
		atomic_inc(&c->retired);
	}
	/* The barrier of wq_has_sleeper() orders the count before the test. */
	if (wq_has_sleeper(&c->tag_wq))
		wake_up_all(&c->tag_wq);
	if (ninep_tags_empty(c))
		wake_up_all(&c->idle_wq);
}

static void req_retired(struct ninep_client *c, struct list_head *list)
{
	__req_retired(c, list, false);
}

/*
 * The connection is dead: every request in the table fails with -EIO and
 * every later one too. Callable from any task context, more than once.
 * @why is for the log; NULL when the caller has said why already.
 */
void ninep_client_fail(struct ninep_client *c, int err, const char *why)
{
	struct ninep_req *req;
	LIST_HEAD(list);
	u32 i;
	int n = 0;

	spin_lock(&c->lock);
	if (c->dead) {
		spin_unlock(&c->lock);
		return;
	}
	WRITE_ONCE(c->dead, true);
	for (i = 0; i <= c->tags.size; i++) {
		/* The slots, then Tversion's request. */
		req = i < c->tags.size ? c->tags.slot[i] : c->tags.notag;
		if (!req)
			continue;
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
	/* Unblock whatever is blocked in the transport, for good. */
	c->trans.ops->abort(&c->trans);
}

/*
 * Room for a reply whose length no count in its request bounds: any Rwalk,
 * Rstat, Rgetattr, Rreadlink, Rerror. The same for the reply to a
 * zero-copy Tread that does not carry the payload (an error).
 */
#define NINEP_REPLY_ROOM	8192

/*
 * The longest reply @f may get, at most msize (ninep_msg.rmax): a Tread's
 * or Treaddir's by its count, unless the payload goes to pages (@zc).
 */
u32 ninep_reply_max(const struct ninep_client *c, const struct v9p_fcall *f,
		    bool zc)
{
	u32 room = NINEP_REPLY_ROOM, count = 0;

	if (f->type == V9P_TREAD && !zc)
		count = f->tread.count;
	else if (f->type == V9P_TREADDIR)
		count = f->treaddir.count;
	if (count)
		room = max(room, V9P_RREAD_HDRSZ + min(count, c->msize));
	return min(room, c->msize);
}

/* Pack @f (its tag set from @req) into the request's transmit buffer. */
int ninep_req_pack(struct ninep_client *c, struct ninep_req *req,
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
	req->tbuf = ninep_buf_alloc(c, len, &req->tpooled);
	if (!req->tbuf)
		return -ENOMEM;
	len = v9p_pack(f, c->dialect, req->tbuf, len);
	if (len < 0)
		return len;
	req->tlen = len;
	req->rmax = ninep_reply_max(c, f, req->zc);
	return 0;
}

static void trace_send(struct ninep_client *c, struct ninep_req *req)
{
	clnt_dbg(c, NINEP_DEBUG_9P, ">>> %s tag %u size %u%s\n",
		 v9p_type_name(req->ttype), req->tag, req->tlen,
		 req->zc ? " + pages" : "");
}

/*
 * Hand a packed request to the transport, which sends it now or queues it;
 * from here on a reply may come. 0, or a negative errno if the connection
 * had failed before.
 */
int ninep_req_send(struct ninep_client *c, struct ninep_req *req)
{
	int err;

	req->msg.buf = req->tbuf;
	req->msg.len = req->tlen;
	req->msg.rmax = req->rmax;
	req->msg.zc = req->zc;
	/*
	 * Before sending: the reply may beat request()'s return. Without
	 * c->lock: a failure of the connection that got here first (its
	 * REQ_FAILED) stays, and one that comes after overwrites REQ_SENT.
	 */
	if (cmpxchg(&req->state, REQ_NEW, REQ_SENT) != REQ_NEW)
		return READ_ONCE(req->err) ? READ_ONCE(req->err) : -EIO;

	trace_send(c, req);
	err = c->trans.ops->request(&c->trans, &req->msg);
	if (err)	/* failed before; the failure failed req too */
		ninep_client_fail(c, err, "send error");
	return 0;
}

/* Drop a request that was never sent (packing failed): retire it now. */
void ninep_req_drop(struct ninep_client *c, struct ninep_req *req)
{
	LIST_HEAD(list);

	spin_lock(&c->lock);
	if (req->state == REQ_NEW)
		req_fail_locked(req, -ECANCELED);
	req_retire_locked(c, req, &list);
	spin_unlock(&c->lock);
	req_retired(c, &list);
	ninep_req_put(req);
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
	bool need_flush, unsent, known = false;

	spin_lock(&c->lock);
	need_flush = req->state == REQ_SENT && req->in_table;
	spin_unlock(&c->lock);
	/* Not on the wire yet: taken back, it needs no Tflush. */
	unsent = need_flush && c->trans.ops->cancel(&c->trans, &req->msg);
	if (unsent)
		need_flush = false;

	if (need_flush) {
		flush = ninep_req_new(c, NINEP_SMALL_RBUF, 0);	/* killed: no waiting */
		if (IS_ERR(flush)) {
			/*
			 * Without a Tflush the tag cannot be safely reused;
			 * the connection is as good as dead.
			 */
			ninep_client_fail(c, PTR_ERR(flush), "cannot send Tflush");
			flush = NULL;
		} else {
			f.tflush.oldtag = req->tag;
			if (ninep_req_pack(c, flush, &f)) {
				ninep_req_drop(c, flush);
				ninep_client_fail(c, -ENOMEM, "cannot pack Tflush");
				flush = NULL;
			}
		}
	}

	spin_lock(&c->lock);
	if (req->in_table && (req->state == REQ_NEW || unsent)) {
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
	} else if (fid && req_answered(req)) {
		/* Answered just now: the server has the fid; clunk it. */
		known = true;
	}
	spin_unlock(&c->lock);
	req_retired(c, &list);

	if (flush) {
		if (flush->flushed) {
			clnt_dbg(c, NINEP_DEBUG_RPC,
				 "%s: flushing tag %u with tag %u\n",
				 timed_out ? "timeout" : "fatal signal",
				 req->tag, flush->tag);
			ninep_req_send(c, flush);
			ninep_req_put(flush);
		} else {
			ninep_req_drop(c, flush);
		}
	}
	if (fid)
		c->ops->fid_put(fid, known);
	ninep_req_put(req);
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

/*
 * The errno of an Rlerror: the server's number if a user may see it, else
 * EIO (an errno of the kernel's own, or one no errno is).
 */
static int rlerror_errno(struct ninep_client *c, struct ninep_req *req)
{
	u32 e = req->rc.rlerror.ecode;

	if (!user_errno(e)) {
		pr_warn_ratelimited("%s: Rlerror %u to %s is no errno: EIO\n",
				    c->peer, e, v9p_type_name(req->ttype));
		e = EIO;
	}
	clnt_dbg(c, NINEP_DEBUG_ERROR, "%s (tag %u): Rlerror %d\n",
		 v9p_type_name(req->ttype), req->tag, -(int)e);
	return -(int)e;
}

static bool req_finished(struct ninep_req *req)
{
	/* Pairs with the release in rpc_reply(): rbuf and rc are complete. */
	return smp_load_acquire(&req->state) >= REQ_DONE;
}

/*
 * Wait for the reply to @req, bounded by timeout= (-ETIMEDOUT) and ended at
 * once by a fatal signal (-EINTR); either way the request is abandoned (see
 * req_abandon(); *@abandoned says so) and the caller's reference consumed,
 * as is @fid. Returns 0 with req->rc decoded, or a negative errno: an
 * Rerror's errno, -EIO when the connection is dead.
 */
int ninep_req_wait(struct ninep_client *c, struct ninep_req *req,
		   struct ninep_fid *fid, bool *abandoned)
{
	long t = c->timeout ? (long)c->timeout * HZ : MAX_SCHEDULE_TIMEOUT;
	long ret;

	*abandoned = false;
	ret = c->trans.ops->wait(&c->trans, &req->msg, t);
	if (ret == -ERESTARTSYS) {
		if (req_finished(req))
			goto finished;
		if (req->ttype == V9P_TVERSION) {
			/*
			 * Tversion cannot be flushed (version(5)), and no
			 * session exists yet: give up the connection, which
			 * retires the request with everything else.
			 */
			ninep_client_fail(c, -EINTR, NULL);
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
			ninep_client_fail(c, -ETIMEDOUT, req->ttype == V9P_TVERSION ?
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
	if (req->rc.type == V9P_RLERROR)
		return rlerror_errno(c, req);
	return 0;
}

/* Pack and send @f: the request, or an ERR_PTR if nothing is on its way. */
static struct ninep_req *rpc_start(struct ninep_client *c, struct v9p_fcall *f,
				   u32 rcap)
{
	struct ninep_req *req;
	int err;

	if (fatal_signal_pending(current))
		return ERR_PTR(-EINTR);
	req = ninep_req_new(c, rcap,
			    f->type == V9P_TVERSION ? REQ_NOTAG : REQ_WAIT);
	if (IS_ERR(req))
		return req;
	err = ninep_req_pack(c, req, f);
	if (err) {
		ninep_req_drop(c, req);
		return ERR_PTR(err);
	}
	err = ninep_req_send(c, req);
	if (err) {
		ninep_req_put(req);
		return ERR_PTR(err);
	}
	return req;
}

/* Wait for the reply to @req from rpc_start(); as ninep_rpc() returns. */
static struct ninep_req *rpc_finish(struct ninep_client *c,
				    struct ninep_req *req,
				    struct ninep_fid *fid)
{
	bool abandoned = false;
	int err;

	if (!IS_ERR(req)) {
		err = ninep_req_wait(c, req, fid, &abandoned);
		if (err && abandoned)
			return ERR_PTR(err);
		if (err) {
			ninep_req_put(req);
			req = ERR_PTR(err);
		}
	}
	if (fid)
		c->ops->fid_put(fid, false);
	return req;
}

/*
 * One whole RPC. On success the caller reads req->rc and puts the request;
 * on failure the request is already put. A fatal signal pending before
 * sending means nothing is sent at all. @fid, if not NULL, is a reference
 * to a fid this request sets up: it is always consumed, put here or handed
 * to the request if the wait is abandoned (see req_abandon()).
 */
struct ninep_req *ninep_rpc(struct ninep_client *c, struct v9p_fcall *f,
			    u32 rcap, struct ninep_fid *fid)
{
	return rpc_finish(c, rpc_start(c, f, rcap), fid);
}

/*
 * ninep_rpc() of @n calls that do not depend on each other's replies: all
 * are sent before any reply is waited for, so that their round trips
 * overlap. Each call's req is set as ninep_rpc() would return it; the
 * server may answer them in any order.
 */
void ninep_rpc_all(struct ninep_client *c, struct ninep_call *calls,
		   unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		calls[i].req = rpc_start(c, calls[i].f, calls[i].rcap);
	for (i = 0; i < n; i++)
		calls[i].req = rpc_finish(c, calls[i].req, calls[i].fid);
}

/* ---- replies, as the transport hands them over ---- */

/*
 * Hand the orphan fid of retired @req (and the table's reference to @req)
 * to a work item. Its put may send a Tclunk: that is no work for a task
 * that merely received someone else's reply, whatever it was doing.
 */
static void rx_defer(struct ninep_client *c, struct ninep_req *req)
{
	llist_add(&req->defer_node, &c->rx_deferred);
	ninep_client_queue_work(&c->defer_work);
}

/*
 * Put the orphan fids handed over by rx_defer(): the work item's job, and
 * once more at shutdown for a hand-over that came after its last look.
 */
void ninep_rx_run_deferred(struct ninep_client *c)
{
	struct llist_node *n = llist_del_all(&c->rx_deferred);
	struct ninep_req *req, *next;

	llist_for_each_entry_safe(req, next, n, defer_node) {
		c->ops->fid_put(req->orphan_fid, req_answered(req));
		req->orphan_fid = NULL;
		ninep_req_put(req);
	}
}

void ninep_rx_deferred_work(struct work_struct *work)
{
	ninep_rx_run_deferred(container_of(work, struct ninep_client,
					   defer_work));
}

static bool reply_type_ok(const struct ninep_req *req, u8 type)
{
	return type == req->ttype + 1 || rc_is_error(type);
}

/*
 * ninep_trans_owner.match(): the request a reply of @size bytes under @tag
 * answers, held, with room for the reply and its header @hdr in place.
 */
static struct ninep_msg *rpc_match(struct ninep_trans *t, u16 tag,
				   const u8 *hdr, u32 size)
{
	struct ninep_client *c = container_of(t, struct ninep_client, trans);
	struct ninep_req *req;
	u8 type = hdr[4];

	spin_lock(&c->lock);
	req = tag_lookup(c, tag);
	if (!req || req->state != REQ_SENT) {
		spin_unlock(&c->lock);
		pr_err("reply %s with tag %u matches no request\n",
		       v9p_type_name(type), tag);
		ninep_client_fail(c, -EPROTO, "reply with unknown tag");
		return NULL;
	}
	refcount_inc(&req->ref);
	spin_unlock(&c->lock);

	if (!reply_type_ok(req, type)) {
		pr_err("%s (tag %u) answered by %s\n",
		       v9p_type_name(req->ttype), tag, v9p_type_name(type));
		ninep_client_fail(c, -EPROTO, "reply of the wrong type");
		goto fail;
	}
	/* Nobody else touches rbuf until the state says REQ_DONE. */
	if (size > req->rcap) {
		bool pooled;
		u8 *buf = ninep_buf_alloc(c, size, &pooled);

		if (!buf) {
			ninep_client_fail(c, -ENOMEM, "no memory for a reply");
			goto fail;
		}
		buf_free(c, req->rbuf, req->rpooled);
		req->rbuf = buf;
		req->rpooled = pooled;
		req->rcap = pooled ? c->msize : size;
	}
	memcpy(req->rbuf, hdr, V9P_HDRSZ);
	req->msg.rbuf = req->rbuf;
	return &req->msg;
fail:
	ninep_req_put(req);
	return NULL;
}

/*
 * Decode the reply in rbuf. The Rread of a zero-copy Tread comes as its
 * header alone (see send_msg in stream.h): count[4] tells how many bytes
 * the device put into the pages, which the transport checked against them.
 */
static int rx_unpack(struct ninep_client *c, struct ninep_req *req)
{
	struct v9p_fcall *rc = &req->rc;
	__le32 count;

	if (req->zc && req->zc->rd && req->rbuf[4] == V9P_RREAD &&
	    req->rlen == V9P_RREAD_HDRSZ) {
		memcpy(&count, req->rbuf + V9P_HDRSZ, sizeof(count));
		memset(rc, 0, sizeof(*rc));
		rc->type = V9P_RREAD;
		rc->tag = req->tag;
		rc->rread.count = le32_to_cpu(count);
		return 0;
	}
	return v9p_unpack(req->rbuf, req->rlen, c->dialect, c->msize, rc);
}

/*
 * ninep_trans_owner.reply(): the whole reply is in: decode it and retire
 * its request. True if other requests are in flight.
 */
static bool rpc_reply(struct ninep_trans *t, struct ninep_msg *m, u32 size)
{
	struct ninep_client *c = container_of(t, struct ninep_client, trans);
	struct ninep_req *req = container_of(m, struct ninep_req, msg), *old;
	bool more = false;
	LIST_HEAD(list);
	int err;

	req->rlen = size;
	err = rx_unpack(c, req);
	if (err) {
		pr_err("malformed %s (tag %u, %u bytes): %d\n",
		       v9p_type_name(req->rbuf[4]), req->tag, req->rlen, err);
		ninep_client_fail(c, err, "malformed reply");
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
	wake_up_all(&req->msg.wq);
	__req_retired(c, &list, true);
	more = !ninep_tags_empty(c);
out:
	ninep_req_put(req);
	return more;
}

static void rpc_get(struct ninep_trans *t, struct ninep_msg *m)
{
	refcount_inc(&container_of(m, struct ninep_req, msg)->ref);
}

static void rpc_put(struct ninep_trans *t, struct ninep_msg *m)
{
	ninep_req_put(container_of(m, struct ninep_req, msg));
}

static bool rpc_finished(struct ninep_msg *m)
{
	return req_finished(container_of(m, struct ninep_req, msg));
}

static void rpc_fail(struct ninep_trans *t, int err, const char *why)
{
	ninep_client_fail(container_of(t, struct ninep_client, trans), err,
			  why);
}

const struct ninep_trans_owner ninep_rpc_owner = {
	.match = rpc_match,
	.reply = rpc_reply,
	.get = rpc_get,
	.put = rpc_put,
	.finished = rpc_finished,
	.fail = rpc_fail,
};

/* ---- module ---- */

/*
 * The client's own context (ninep_client_queue_work()): unbound, as its
 * work waits on servers rather than computes, and with a rescuer, as
 * write-back under memory pressure depends on it.
 */
static struct workqueue_struct *io_wq;

void ninep_client_queue_work(struct work_struct *work)
{
	queue_work(io_wq, work);
}

int ninep_rpc_init(void)
{
	req_cache = kmem_cache_create("9p2000_req", sizeof(struct ninep_req), 0,
				      0, NULL);
	if (!req_cache)
		return -ENOMEM;
	io_wq = alloc_workqueue("9p2000_io", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	if (!io_wq) {
		kmem_cache_destroy(req_cache);
		return -ENOMEM;
	}
	return 0;
}

/* After every umount: waits for work still queued, which ends on its own. */
void ninep_rpc_exit(void)
{
	destroy_workqueue(io_wq);
	kmem_cache_destroy(req_cache);
}
