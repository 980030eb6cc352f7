// SPDX-License-Identifier: GPL-2.0-only
/*
 * Connections and fids of 9p2000.ko: open the transport, negotiate
 * Tversion, tear down; allocate fids and clunk them on their last put.
 * The requests themselves travel through rpc.c.
 */
#define pr_fmt(fmt) "9p2000: " fmt

#include <linux/atomic.h>
#include <linux/err.h>
#include <linux/idr.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/wait.h>

#include "rpc.h"

/* How long umount waits for outstanding clunks when timeout=0. */
#define NINEP_DRAIN_SECS		10

/*
 * Live objects, readable in /sys/module/9p2000/parameters/ so that tests can
 * prove nothing leaks after umount.
 */
static atomic_t live_clients = ATOMIC_INIT(0);
static atomic_t live_fids = ATOMIC_INIT(0);

module_param_cb(live_clients, &ninep_live_ops, &live_clients, 0444);
MODULE_PARM_DESC(live_clients, "9P connections alive (read-only)");
module_param_cb(live_fids, &ninep_live_ops, &live_fids, 0444);
MODULE_PARM_DESC(live_fids, "fids allocated (read-only)");

static struct kmem_cache *fid_cache;

/* The RPC core's hooks into the fids (below, with the fids). */
static const struct ninep_rpc_ops client_rpc_ops;

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

/* ---- connection ---- */

static int client_version(struct ninep_client *c, enum v9p_dialect want)
{
	struct v9p_fcall f = { .type = V9P_TVERSION };
	const struct v9p_rversion *rv;
	struct ninep_req *req;
	u32 asked = c->msize;
	int d, err = 0;

	f.tversion.msize = asked;
	v9p_str_set(&f.tversion.version, v9p_dialect_name(want));
	req = ninep_rpc(c, &f, NINEP_SMALL_RBUF, NULL);
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
	/* Asked for .L, a server may offer .u (or 9P2000) instead. */
	if (d != V9P_9P2000 && d != (int)want &&
	    !(want == V9P_9P2000L && d == V9P_9P2000U)) {
		pr_err("%s answered %s to a request for %s\n", c->peer,
		       v9p_dialect_name(d), v9p_dialect_name(want));
		err = -EPROTONOSUPPORT;
		goto out;
	}
	if (d != (int)want)
		pr_notice("%s speaks %s, not %s: using %s\n", c->peer,
			  v9p_dialect_name(d), v9p_dialect_name(want),
			  v9p_dialect_name(d));
	c->dialect = d;
	c->msize = rv->msize;
	WRITE_ONCE(c->trans.msize, c->msize);
	c->pool_ok = true;
	clnt_dbg(c, NINEP_DEBUG_RPC, "version %s, msize %u (asked %u)\n",
		 v9p_dialect_name(d), c->msize, asked);
out:
	ninep_req_put(req);
	return err;
}

static void client_free(struct ninep_client *c)
{
	WARN_ON(!ninep_tags_empty(c));
	ninep_pool_drain(c);
	ninep_tags_free(c);
	ida_destroy(&c->fids);
	kfree(c->peer);
	kfree(c);
	atomic_dec(&live_clients);
}

/* Close the transport; the client is dead already. */
static void client_shutdown(struct ninep_client *c)
{
	if (c->stale_flush)
		ninep_req_put(c->stale_flush);	/* retired with the rest */
	c->stale_flush = NULL;
	c->trans.ops->close(&c->trans);
	/* A receiver may have handed over a fid after the work's last look. */
	flush_work(&c->defer_work);
	ninep_rx_run_deferred(c);
}

struct ninep_client *ninep_client_create(const struct ninep_client_opts *o)
{
	struct ninep_client *c;
	int err;

	if (o->dialect != V9P_9P2000 && o->dialect != V9P_9P2000U &&
	    o->dialect != V9P_9P2000L) {
		pr_err("unknown dialect %d asked for\n", o->dialect);
		return ERR_PTR(-EINVAL);
	}
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return ERR_PTR(-ENOMEM);
	atomic_inc(&live_clients);
	spin_lock_init(&c->lock);
	init_waitqueue_head(&c->idle_wq);
	init_waitqueue_head(&c->tag_wq);
	INIT_WORK(&c->defer_work, ninep_rx_deferred_work);
	c->ops = &client_rpc_ops;
	c->trans.owner = &ninep_rpc_owner;
	ida_init(&c->fids);
	INIT_LIST_HEAD(&c->pool);
	c->msize = o->msize ? o->msize : NINEP_DEFAULT_MSIZE;
	c->dialect = o->dialect;
	c->timeout = o->timeout;
	c->debug = o->debug;
	if (o->trans && (o->trans->flags & NINEP_TRANS_F_FDS))
		c->peer = kasprintf(GFP_KERNEL, "fd %d/%d", o->rfd, o->wfd);
	else
		c->peer = kstrdup(o->addr ? o->addr : "?", GFP_KERNEL);
	if (!c->peer || ninep_tags_init(c)) {
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
	c->trans.msize = c->msize;
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
	ninep_client_fail(c, err, NULL);
	client_shutdown(c);
	client_free(c);
	return ERR_PTR(err);
}

void ninep_client_abort(struct ninep_client *c)
{
	ninep_client_fail(c, -EIO, "aborted by umount -f");
}

/*
 * Let outstanding clunks finish (bounded), then kill the connection and
 * free the client. Every fid must have been put before.
 */
void ninep_client_destroy(struct ninep_client *c)
{
	unsigned int secs = c->timeout ? c->timeout : NINEP_DRAIN_SECS;

	if (!READ_ONCE(c->dead) &&
	    wait_event_killable_timeout(c->idle_wq, ninep_tags_empty(c),
					(long)secs * HZ) <= 0 &&
	    !ninep_tags_empty(c))
		pr_warn("%s: requests still pending at umount\n", c->peer);
	spin_lock(&c->lock);
	if (!c->dead && ninep_tags_empty(c)) {
		/* Clean shutdown: no error line. */
		WRITE_ONCE(c->dead, true);
		spin_unlock(&c->lock);
		c->trans.ops->abort(&c->trans);
	} else {
		spin_unlock(&c->lock);
		ninep_client_fail(c, -EIO, "unmounted with requests pending");
	}
	client_shutdown(c);
	client_free(c);
}

/* ---- fids ---- */

struct ninep_fid *ninep_fid_new(struct ninep_client *c)
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

static void fid_free(struct ninep_fid *fid)
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

/* A packed Tclunk of fid number @n; @flags as for ninep_req_new(). */
static struct ninep_req *clunk_req_new(struct ninep_client *c, u32 n,
				       unsigned int flags)
{
	struct v9p_fcall f = { .type = V9P_TCLUNK };
	struct ninep_req *req;
	int err;

	req = ninep_req_new(c, NINEP_SMALL_RBUF, flags);
	if (IS_ERR(req))
		return req;
	f.tclunk.fid = n;
	err = ninep_req_pack(c, req, &f);
	if (err) {
		ninep_req_drop(c, req);
		return ERR_PTR(err);
	}
	return req;
}

/*
 * The last put clunks an established fid without waiting: the fid number
 * stays allocated until Rclunk (or connection death) retires the request,
 * so it cannot be reused while the server may still know it. This also
 * works from a task that is being killed.
 */
void ninep_fid_put(struct ninep_fid *fid)
{
	struct ninep_client *c;
	struct ninep_req *req;
	u32 n;

	if (!fid || !refcount_dec_and_test(&fid->ref))
		return;
	c = fid->clnt;
	if (!fid->established || READ_ONCE(c->dead))
		goto free;
	n = fid->fid;
	req = clunk_req_new(c, n, 0);	/* may run in the receiver */
	if (IS_ERR(req))
		goto forget;
	spin_lock(&c->lock);
	if (!req->in_table) {
		/* The connection died meanwhile. */
		spin_unlock(&c->lock);
		ninep_req_put(req);
		goto free;
	}
	req->clunk_fid = fid;
	atomic_inc(&c->clunks);
	spin_unlock(&c->lock);
	/* Once sent, the reply may retire the request and free the fid. */
	clnt_dbg(c, NINEP_DEBUG_RPC, "clunk fid %u (tag %u)\n", n, req->tag);
	ninep_req_send(c, req);	/* on failure, retiring frees the fid */
	ninep_req_put(req);
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
	fid_free(fid);
}

/*
 * The waited-for clunk. When the wait is given up (fatal signal, timeout=),
 * the Tclunk is flushed and may never have reached the server: the fid
 * then goes with the request as the fid of an abandoned call does, and its
 * put at retire clunks once more (a server that did clunk it answers that
 * one with an error, which nobody sees). Its number stays taken until then.
 * Whenever no Tclunk can be waited for, the fid takes the asynchronous way.
 */
int ninep_fid_clunk(struct ninep_fid *fid)
{
	struct ninep_client *c = fid->clnt;
	struct ninep_req *req;
	bool abandoned = false;
	int err;

	if (WARN_ON_ONCE(!refcount_dec_and_test(&fid->ref)))
		return -EBUSY;	/* the other holder's put clunks it */
	if (!fid->established) {
		fid_free(fid);
		return 0;
	}
	if (READ_ONCE(c->dead)) {
		fid_free(fid);
		return -EIO;
	}
	err = -EINTR;
	if (fatal_signal_pending(current))
		goto async;
	req = clunk_req_new(c, fid->fid, REQ_WAIT);
	if (IS_ERR(req)) {
		err = PTR_ERR(req);
		goto async;
	}
	clnt_dbg(c, NINEP_DEBUG_RPC, "clunk fid %u and wait (tag %u)\n",
		 fid->fid, req->tag);
	refcount_set(&fid->ref, 1);	/* for ninep_req_wait() to consume */
	err = ninep_req_send(c, req);
	if (!err)
		err = ninep_req_wait(c, req, fid, &abandoned);
	if (!err || !abandoned) {
		/* Answered, or the connection is dead: the number is free. */
		ninep_req_put(req);
		fid_free(fid);
	}
	return err;
async:
	refcount_set(&fid->ref, 1);
	ninep_fid_put(fid);
	return err;
}

/*
 * Wait until no clunk sent without waiting is unanswered, so that the
 * server has those fids back; bounded by a second, as a mount that keeps
 * clunking may never get there. -EINTR on a fatal signal.
 */
int ninep_client_clunks_wait(struct ninep_client *c)
{
	long left = wait_event_killable_timeout(c->idle_wq,
						!atomic_read(&c->clunks) ||
						READ_ONCE(c->dead), HZ);

	return left < 0 ? -EINTR : 0;
}

/*
 * The RPC core's hooks (struct ninep_rpc_ops): what retiring a request
 * means for the fid it carried.
 */

/* A Tclunk is retired: the server has let the fid go, or the connection is gone. */
static void clunk_retired(struct ninep_req *req)
{
	struct ninep_client *c = req->clnt;
	struct ninep_fid *fid = req->clunk_fid;

	if (req->state == REQ_DONE && req->rc.type == V9P_RERROR)
		clnt_dbg(c, NINEP_DEBUG_ERROR, "clunk of fid %u failed: %.*s\n",
			 fid->fid, req->rc.rerror.ename.len,
			 req->rc.rerror.ename.s);
	fid_free(fid);
	if (atomic_dec_and_test(&c->clunks))
		wake_up_all(&c->idle_wq);
}

/*
 * The call that was to set @fid up is over, or was given up and retired:
 * if the server answered it, the fid exists there and the last put clunks
 * it (a fid the server does not know only earns an Rerror).
 */
static void orphan_put(struct ninep_fid *fid, bool known)
{
	if (known)
		fid->established = true;
	ninep_fid_put(fid);
}

static const struct ninep_rpc_ops client_rpc_ops = {
	.clunk_retired = clunk_retired,
	.fid_put = orphan_put,
	.zc_free = ninep_zc_free,
};

/* ---- module ---- */

int ninep_client_init(void)
{
	int err = ninep_rpc_init();

	if (err)
		return err;
	fid_cache = kmem_cache_create("9p2000_fid", sizeof(struct ninep_fid), 0,
				      0, NULL);
	if (!fid_cache) {
		ninep_rpc_exit();
		return -ENOMEM;
	}
	return 0;
}

void ninep_client_exit(void)
{
	kmem_cache_destroy(fid_cache);
	ninep_rpc_exit();
}
