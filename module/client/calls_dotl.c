// SPDX-License-Identifier: GPL-2.0-only
/*
 * The 9P2000.L calls of 9p2000.ko: one function per message, each packing
 * its request, waiting for the reply through rpc.c and handing back what
 * the VFS layer wants. Replies are checked here only for what the codec
 * cannot know (a count beyond what was asked); the VFS checks the values.
 */
#define pr_fmt(fmt) "9p2000: " fmt

#include <linux/err.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "rpc.h"

/* Send @f on @c and drop the reply: for the calls that return nothing. */
static int rpc_noreply(struct ninep_client *c, struct v9p_fcall *f)
{
	struct ninep_req *req = ninep_rpc(c, f, NINEP_SMALL_RBUF, NULL);

	if (IS_ERR(req))
		return PTR_ERR(req);
	ninep_req_put(req);
	return 0;
}

static void lopen_pack(struct v9p_fcall *f, struct ninep_fid *fid, u32 flags)
{
	f->type = V9P_TLOPEN;
	f->tlopen.fid = fid->fid;
	f->tlopen.flags = flags;
}

/* An Rlopen (or the error) in @req, for @fid opened with @flags; puts it. */
static int lopen_reply(struct ninep_req *req, struct ninep_fid *fid, u32 flags)
{
	if (IS_ERR(req))
		return PTR_ERR(req);
	fid->qid = req->rc.rlopen.qid;
	fid->iounit = req->rc.rlopen.iounit;
	fid->mode = flags & V9P_DOTL_NOACCESS;
	ninep_req_put(req);
	return 0;
}

int ninep_lopen(struct ninep_fid *fid, u32 flags)
{
	struct v9p_fcall f;

	lopen_pack(&f, fid, flags);
	return lopen_reply(ninep_rpc(fid->clnt, &f, NINEP_SMALL_RBUF, NULL),
			   fid, flags);
}

static void getattr_pack(struct v9p_fcall *f, struct ninep_fid *fid, u64 mask)
{
	f->type = V9P_TGETATTR;
	f->tgetattr.fid = fid->fid;
	f->tgetattr.request_mask = mask;
}

/* An Rgetattr (or the error) in @req into @ga; puts it. */
static int getattr_reply(struct ninep_req *req, struct v9p_rgetattr *ga)
{
	if (IS_ERR(req))
		return PTR_ERR(req);
	*ga = req->rc.rgetattr;
	ninep_req_put(req);
	return 0;
}

int ninep_lcreate(struct ninep_fid *dfid, const char *name, u32 flags,
		  u32 mode, u32 gid)
{
	struct v9p_fcall f = { .type = V9P_TLCREATE };
	struct ninep_req *req;
	int err;

	f.tlcreate.fid = dfid->fid;
	f.tlcreate.flags = flags;
	f.tlcreate.mode = mode;
	f.tlcreate.gid = gid;
	err = v9p_str_set(&f.tlcreate.name, name);
	if (err)
		return err;
	req = ninep_rpc(dfid->clnt, &f, NINEP_SMALL_RBUF, NULL);
	if (IS_ERR(req))
		return PTR_ERR(req);
	dfid->qid = req->rc.rlcreate.qid;
	dfid->iounit = req->rc.rlcreate.iounit;
	dfid->mode = flags & V9P_DOTL_NOACCESS;
	ninep_req_put(req);
	return 0;
}

int ninep_getattr(struct ninep_fid *fid, u64 mask, struct v9p_rgetattr *ga)
{
	struct v9p_fcall f;

	getattr_pack(&f, fid, mask);
	return getattr_reply(ninep_rpc(fid->clnt, &f, NINEP_SMALL_RBUF, NULL),
			     ga);
}

int ninep_lopen_getattr(struct ninep_fid *fid, u32 flags, u64 mask,
			struct v9p_rgetattr *ga, int *gerr)
{
	struct v9p_fcall f[2];
	struct ninep_call calls[2] = {
		{ .f = &f[0], .rcap = NINEP_SMALL_RBUF },
		{ .f = &f[1], .rcap = NINEP_SMALL_RBUF },
	};

	lopen_pack(&f[0], fid, flags);
	getattr_pack(&f[1], fid, mask);
	ninep_rpc_all(fid->clnt, calls, 2);
	*gerr = getattr_reply(calls[1].req, ga);
	return lopen_reply(calls[0].req, fid, flags);
}

/*
 * A Twalk of @name from @dfid into a new fid and a Tgetattr of @fid, with a
 * Tlopen of @fid (@flags) between them if @lerr is given: all sent before
 * any reply is waited for. *@lerr is the Tlopen's answer, *@gerr the
 * Tgetattr's; the walked fid or the walk's error is returned.
 */
static struct ninep_fid *walk_beside(struct ninep_fid *dfid, const char *name,
				     struct ninep_fid *fid, u32 flags,
				     int *lerr, u64 mask,
				     struct v9p_rgetattr *ga, int *gerr)
{
	struct ninep_call calls[3] = {
		{ .rcap = NINEP_SMALL_RBUF },
		{ .rcap = NINEP_SMALL_RBUF },
		{ .rcap = NINEP_SMALL_RBUF },
	};
	unsigned int i, n = lerr ? 3 : 2;
	struct ninep_fid *newfid;
	struct v9p_fcall *f;
	int err;

	*gerr = -EIO;
	if (lerr)
		*lerr = -EIO;
	f = kcalloc(n, sizeof(*f), GFP_NOFS);
	if (!f)
		return ERR_PTR(-ENOMEM);
	newfid = ninep_fid_new(dfid->clnt);
	if (IS_ERR(newfid))
		goto out;
	err = ninep_walk_pack(&f[0], dfid, newfid, 1, &name);
	if (err) {
		ninep_fid_put(newfid);
		newfid = ERR_PTR(err);
		goto out;
	}
	if (lerr)
		lopen_pack(&f[1], fid, flags);
	getattr_pack(&f[n - 1], fid, mask);
	calls[0].fid = ninep_fid_get(newfid);
	for (i = 0; i < n; i++)
		calls[i].f = &f[i];
	ninep_rpc_all(dfid->clnt, calls, n);
	*gerr = getattr_reply(calls[n - 1].req, ga);
	if (lerr)
		*lerr = lopen_reply(calls[1].req, fid, flags);
	err = IS_ERR(calls[0].req) ? PTR_ERR(calls[0].req) :
	      ninep_walk_reply(calls[0].req, dfid, newfid, 1);
	if (err) {
		/* Unused (freed) if the walk failed, as in ninep_walk(). */
		ninep_fid_put(newfid);
		newfid = ERR_PTR(err);
	}
out:
	kfree(f);
	return newfid;
}

struct ninep_fid *ninep_walk_getattr(struct ninep_fid *dfid, const char *name,
				     struct ninep_fid *fid, u64 mask,
				     struct v9p_rgetattr *ga, int *gerr)
{
	return walk_beside(dfid, name, fid, 0, NULL, mask, ga, gerr);
}

struct ninep_fid *ninep_walk_lopen_getattr(struct ninep_fid *dfid,
					   const char *name,
					   struct ninep_fid *fid, u32 flags,
					   int *lerr, u64 mask,
					   struct v9p_rgetattr *ga, int *gerr)
{
	return walk_beside(dfid, name, fid, flags, lerr, mask, ga, gerr);
}

int ninep_setattr(struct ninep_fid *fid, const struct v9p_tsetattr *sa)
{
	struct v9p_fcall f = { .type = V9P_TSETATTR };

	f.tsetattr = *sa;
	f.tsetattr.fid = fid->fid;
	return rpc_noreply(fid->clnt, &f);
}

/* Tmkdir, Tsymlink and Tmknod answer with the new file's qid. */
static int rpc_qid(struct ninep_client *c, struct v9p_fcall *f,
		   struct v9p_qid *qid)
{
	struct ninep_req *req = ninep_rpc(c, f, NINEP_SMALL_RBUF, NULL);

	if (IS_ERR(req))
		return PTR_ERR(req);
	/* rmkdir, rsymlink and rmknod are one layout: a qid. */
	if (qid)
		*qid = req->rc.rmkdir.qid;
	ninep_req_put(req);
	return 0;
}

int ninep_mkdir(struct ninep_fid *dfid, const char *name, u32 mode, u32 gid,
		struct v9p_qid *qid)
{
	struct v9p_fcall f = { .type = V9P_TMKDIR };
	int err;

	f.tmkdir.dfid = dfid->fid;
	f.tmkdir.mode = mode;
	f.tmkdir.gid = gid;
	err = v9p_str_set(&f.tmkdir.name, name);
	if (err)
		return err;
	return rpc_qid(dfid->clnt, &f, qid);
}

int ninep_symlink(struct ninep_fid *dfid, const char *name, const char *target,
		  u32 gid, struct v9p_qid *qid)
{
	struct v9p_fcall f = { .type = V9P_TSYMLINK };
	int err;

	f.tsymlink.fid = dfid->fid;
	f.tsymlink.gid = gid;
	err = v9p_str_set(&f.tsymlink.name, name);
	if (!err)
		err = v9p_str_set(&f.tsymlink.symtgt, target);
	if (err)
		return err;
	return rpc_qid(dfid->clnt, &f, qid);
}

int ninep_mknod(struct ninep_fid *dfid, const char *name, u32 mode, u32 major,
		u32 minor, u32 gid, struct v9p_qid *qid)
{
	struct v9p_fcall f = { .type = V9P_TMKNOD };
	int err;

	f.tmknod.dfid = dfid->fid;
	f.tmknod.mode = mode;
	f.tmknod.major = major;
	f.tmknod.minor = minor;
	f.tmknod.gid = gid;
	err = v9p_str_set(&f.tmknod.name, name);
	if (err)
		return err;
	return rpc_qid(dfid->clnt, &f, qid);
}

int ninep_link(struct ninep_fid *dfid, struct ninep_fid *fid, const char *name)
{
	struct v9p_fcall f = { .type = V9P_TLINK };
	int err;

	f.tlink.dfid = dfid->fid;
	f.tlink.fid = fid->fid;
	err = v9p_str_set(&f.tlink.name, name);
	if (err)
		return err;
	return rpc_noreply(dfid->clnt, &f);
}

int ninep_renameat(struct ninep_fid *olddir, const char *oldname,
		   struct ninep_fid *newdir, const char *newname)
{
	struct v9p_fcall f = { .type = V9P_TRENAMEAT };
	int err;

	f.trenameat.olddirfid = olddir->fid;
	f.trenameat.newdirfid = newdir->fid;
	err = v9p_str_set(&f.trenameat.oldname, oldname);
	if (!err)
		err = v9p_str_set(&f.trenameat.newname, newname);
	if (err)
		return err;
	return rpc_noreply(olddir->clnt, &f);
}

int ninep_rename(struct ninep_fid *fid, struct ninep_fid *dfid, const char *name)
{
	struct v9p_fcall f = { .type = V9P_TRENAME };
	int err;

	f.trename.fid = fid->fid;
	f.trename.dfid = dfid->fid;
	err = v9p_str_set(&f.trename.name, name);
	if (err)
		return err;
	return rpc_noreply(fid->clnt, &f);
}

int ninep_unlinkat(struct ninep_fid *dfid, const char *name, u32 flags)
{
	struct v9p_fcall f = { .type = V9P_TUNLINKAT };
	int err;

	f.tunlinkat.dirfid = dfid->fid;
	f.tunlinkat.flags = flags;
	err = v9p_str_set(&f.tunlinkat.name, name);
	if (err)
		return err;
	return rpc_noreply(dfid->clnt, &f);
}

char *ninep_readlink(struct ninep_fid *fid)
{
	struct v9p_fcall f = { .type = V9P_TREADLINK };
	const struct v9p_str *t;
	struct ninep_req *req;
	char *target;

	f.treadlink.fid = fid->fid;
	req = ninep_rpc(fid->clnt, &f, NINEP_STAT_RBUF, NULL);
	if (IS_ERR(req))
		return ERR_CAST(req);
	t = &req->rc.rreadlink.target;
	/* The codec refuses a NUL inside; empty or too long is refused here. */
	if (!t->len || t->len >= PATH_MAX) {
		pr_warn_ratelimited("Rreadlink with a target of %u bytes: EIO\n",
				    t->len);
		target = ERR_PTR(-EIO);
	} else {
		target = kmemdup_nul(t->s, t->len, GFP_KERNEL);
		if (!target)
			target = ERR_PTR(-ENOMEM);
	}
	ninep_req_put(req);
	return target;
}

int ninep_statfs(struct ninep_fid *fid, struct v9p_rstatfs *st)
{
	struct v9p_fcall f = { .type = V9P_TSTATFS };
	struct ninep_req *req;

	f.tstatfs.fid = fid->fid;
	req = ninep_rpc(fid->clnt, &f, NINEP_SMALL_RBUF, NULL);
	if (IS_ERR(req))
		return PTR_ERR(req);
	*st = req->rc.rstatfs;
	ninep_req_put(req);
	return 0;
}

int ninep_fsync(struct ninep_fid *fid, bool datasync)
{
	struct v9p_fcall f = { .type = V9P_TFSYNC };

	f.tfsync.fid = fid->fid;
	f.tfsync.datasync = datasync;
	return rpc_noreply(fid->clnt, &f);
}

ssize_t ninep_readdir(struct ninep_fid *fid, u64 offset, u8 *buf, u32 count)
{
	struct ninep_client *c = fid->clnt;
	struct v9p_fcall f = { .type = V9P_TREADDIR };
	struct ninep_req *req;
	ssize_t n;

	count = min_t(u32, count, c->msize - V9P_RREAD_HDRSZ);
	f.treaddir.fid = fid->fid;
	f.treaddir.offset = offset;
	f.treaddir.count = count;
	req = ninep_rpc(c, &f, count + V9P_RREAD_HDRSZ, NULL);
	if (IS_ERR(req))
		return PTR_ERR(req);
	n = req->rc.rreaddir.count;
	if (n > count) {
		pr_warn_ratelimited("%s: Rreaddir of %zd bytes to a Treaddir of %u: EIO\n",
				    c->peer, n, count);
		n = -EIO;
	} else {
		memcpy(buf, req->rc.rreaddir.data, n);
	}
	ninep_req_put(req);
	return n;
}

int ninep_lock(struct ninep_fid *fid, const struct v9p_tlock *tl, u8 *status)
{
	struct v9p_fcall f = { .type = V9P_TLOCK };
	struct ninep_req *req;

	f.tlock = *tl;
	f.tlock.fid = fid->fid;
	req = ninep_rpc(fid->clnt, &f, NINEP_SMALL_RBUF, NULL);
	if (IS_ERR(req))
		return PTR_ERR(req);
	*status = req->rc.rlock.status;
	ninep_req_put(req);
	return 0;
}

int ninep_getlock(struct ninep_fid *fid, struct v9p_tgetlock *gl)
{
	struct v9p_fcall f = { .type = V9P_TGETLOCK };
	struct ninep_req *req;

	f.tgetlock = *gl;
	f.tgetlock.fid = fid->fid;
	req = ninep_rpc(fid->clnt, &f, NINEP_STAT_RBUF, NULL);
	if (IS_ERR(req))
		return PTR_ERR(req);
	gl->type = req->rc.rgetlock.type;
	gl->start = req->rc.rgetlock.start;
	gl->length = req->rc.rgetlock.length;
	gl->proc_id = req->rc.rgetlock.proc_id;
	ninep_req_put(req);
	return 0;
}

/*
 * Txattrwalk: a new fid from which the attribute @name of @fid's file (the
 * list of names if @name is "") is read; *@size is what the server says
 * it holds, unchecked.
 */
struct ninep_fid *ninep_xattrwalk(struct ninep_fid *fid, const char *name,
				  u64 *size)
{
	struct v9p_fcall f = { .type = V9P_TXATTRWALK };
	struct ninep_fid *newfid;
	struct ninep_req *req;
	int err;

	newfid = ninep_fid_new(fid->clnt);
	if (IS_ERR(newfid))
		return newfid;
	f.txattrwalk.fid = fid->fid;
	f.txattrwalk.newfid = newfid->fid;
	err = v9p_str_set(&f.txattrwalk.name, name);
	if (err) {
		ninep_fid_put(newfid);
		return ERR_PTR(err);
	}
	req = ninep_rpc(fid->clnt, &f, NINEP_SMALL_RBUF, ninep_fid_get(newfid));
	if (IS_ERR(req)) {
		ninep_fid_put(newfid);
		return ERR_CAST(req);
	}
	*size = req->rc.rxattrwalk.size;
	newfid->established = true;
	ninep_req_put(req);
	return newfid;
}

int ninep_xattrcreate(struct ninep_fid *fid, const char *name, u64 size,
		      u32 flags)
{
	struct v9p_fcall f = { .type = V9P_TXATTRCREATE };
	int err;

	f.txattrcreate.fid = fid->fid;
	f.txattrcreate.attr_size = size;
	f.txattrcreate.flags = flags;
	err = v9p_str_set(&f.txattrcreate.name, name);
	if (err)
		return err;
	return rpc_noreply(fid->clnt, &f);
}
