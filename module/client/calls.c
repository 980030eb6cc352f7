// SPDX-License-Identifier: GPL-2.0-only
/*
 * The 9P2000 and 9P2000.u calls of 9p2000.ko other than I/O: attach, walk,
 * open, create, stat, wstat, remove. Each packs one message, waits for its
 * reply through rpc.c and turns it into what the VFS layer wants.
 */
#define pr_fmt(fmt) "9p2000: " fmt

#include <linux/err.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "rpc.h"

struct ninep_fid *ninep_attach(struct ninep_client *c, struct ninep_fid *afid,
			       const char *uname, u32 n_uname, const char *aname)
{
	struct v9p_fcall f = { .type = V9P_TATTACH };
	struct ninep_fid *fid;
	struct ninep_req *req;
	int err;

	fid = ninep_fid_new(c);
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
	req = ninep_rpc(c, &f, NINEP_SMALL_RBUF, ninep_fid_get(fid));
	if (IS_ERR(req)) {
		ninep_fid_put(fid);
		return ERR_CAST(req);
	}
	fid->qid = req->rc.rattach.qid;
	fid->established = true;
	ninep_req_put(req);
	return fid;
}

/* A Twalk of at most 16 names from @fid to @newfid, packed into @f. */
int ninep_walk_pack(struct v9p_fcall *f, struct ninep_fid *fid,
		    struct ninep_fid *newfid, unsigned int n,
		    const char *const *names)
{
	unsigned int i;
	int err;

	f->type = V9P_TWALK;
	f->twalk.fid = fid->fid;
	f->twalk.newfid = newfid->fid;
	f->twalk.nwname = n;
	for (i = 0; i < n; i++) {
		err = v9p_str_set(&f->twalk.wname[i], names[i]);
		if (err)
			return err;
	}
	return 0;
}

/* What the Rwalk in @req to the Twalk of @n names means; puts @req. */
int ninep_walk_reply(struct ninep_req *req, struct ninep_fid *fid,
		     struct ninep_fid *newfid, unsigned int n)
{
	int err;

	if (req->rc.rwalk.nwqid > n) {
		ninep_client_fail(req->clnt, -EPROTO,
				  "Rwalk with more qids than names");
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
	ninep_req_put(req);
	return err;
}

/* One Twalk of at most 16 names from @fid to @newfid. */
static int walk_once(struct ninep_fid *fid, struct ninep_fid *newfid,
		     unsigned int n, const char *const *names)
{
	struct v9p_fcall *f;
	struct ninep_req *req;
	int err;

	f = kzalloc(sizeof(*f), GFP_NOFS);
	if (!f)
		return -ENOMEM;
	err = ninep_walk_pack(f, fid, newfid, n, names);
	if (err)
		goto out;
	/*
	 * Only the first walk into a fresh newfid can leave the server
	 * holding a fid we do not know about; a later one moves a fid that
	 * is established already.
	 */
	req = ninep_rpc(fid->clnt, f, NINEP_SMALL_RBUF,
			newfid->established ? NULL : ninep_fid_get(newfid));
	if (IS_ERR(req))
		err = PTR_ERR(req);
	else
		err = ninep_walk_reply(req, fid, newfid, n);
out:
	kfree(f);
	return err;
}

struct ninep_fid *ninep_walk(struct ninep_fid *fid, unsigned int n,
			     const char *const *names)
{
	struct ninep_fid *newfid, *from = fid;
	int err;

	newfid = ninep_fid_new(fid->clnt);
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
	req = ninep_rpc(fid->clnt, &f, NINEP_SMALL_RBUF, NULL);
	if (IS_ERR(req))
		return PTR_ERR(req);
	fid->qid = req->rc.ropen.qid;
	fid->iounit = req->rc.ropen.iounit;
	fid->mode = mode;
	ninep_req_put(req);
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
	req = ninep_rpc(dfid->clnt, &f, NINEP_SMALL_RBUF, NULL);
	if (IS_ERR(req))
		return PTR_ERR(req);
	dfid->qid = req->rc.rcreate.qid;
	dfid->iounit = req->rc.rcreate.iounit;
	dfid->mode = mode;
	ninep_req_put(req);
	return 0;
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
	req = ninep_rpc(fid->clnt, &f, NINEP_STAT_RBUF, NULL);
	if (IS_ERR(req))
		return ERR_CAST(req);
	src = &req->rc.rstat.stat;
	size = sizeof(*st) + src->name.len + src->uid.len + src->gid.len +
	       src->muid.len + src->extension.len + 5;
	st = kmalloc(size, GFP_NOFS);
	if (!st) {
		ninep_req_put(req);
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
	ninep_req_put(req);
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
	req = ninep_rpc(fid->clnt, f, NINEP_SMALL_RBUF, NULL);
	kfree(f);
	if (IS_ERR(req))
		return PTR_ERR(req);
	ninep_req_put(req);
	return 0;
}

/*
 * Tremove clunks the fid on the server whenever the server answers it, with
 * Rremove or an error (remove(5)): only then is its number free for reuse.
 * A Tremove that never left (no memory, a fatal signal) or that was given up
 * and flushed (timeout=, a fatal signal) leaves the server's fid as it may
 * be: the fid stays established, goes with the abandoned request until that
 * is retired, and its last put clunks it, as ninep_fid_clunk() does, so its
 * number comes back only once the server has certainly let it go. Consumes
 * the caller's reference to @fid.
 */
int ninep_remove(struct ninep_fid *fid)
{
	struct ninep_client *c = fid->clnt;
	struct v9p_fcall f = { .type = V9P_TREMOVE };
	struct ninep_req *req;
	bool abandoned = false;
	int err = -EINTR;

	if (fatal_signal_pending(current))
		goto out;
	req = ninep_req_new(c, NINEP_SMALL_RBUF, REQ_WAIT);
	if (IS_ERR(req)) {
		err = PTR_ERR(req);
		goto out;
	}
	f.tremove.fid = fid->fid;
	err = ninep_req_pack(c, req, &f);
	if (err) {
		ninep_req_drop(c, req);
		goto out;
	}
	err = ninep_req_send(c, req);
	if (!err) {
		err = ninep_req_wait(c, req, ninep_fid_get(fid), &abandoned);
		if (abandoned)
			goto out;	/* the request holds the fid until retired */
		/* Not abandoned: the wait left that reference to us. */
		ninep_fid_put(fid);
	}
	/* A reply, success or error: the server has clunked the fid. */
	if (smp_load_acquire(&req->state) == REQ_DONE)
		fid->established = false;
	ninep_req_put(req);
out:
	ninep_fid_put(fid);
	return err;
}
