// SPDX-License-Identifier: GPL-2.0
/*
 * dispatch.c - one table entry per message type, in the manner of lib9p's
 * srv and diod's np_preprocess_request: which dialects have the message,
 * whether it changes the tree, which names it carries and which fids it
 * names. Before a handler runs, its names are checked, then what else
 * needs no fid, then its fids are looked up in the table order, each one
 * checked as the entry says and taken on as its user; the handler does its
 * operation alone, and the reply it filled (or the errno it returned) is
 * packed here. Read-only exports refuse every message that could change
 * the tree before anything else.
 *
 * The order of these checks is the order of the errors a client sees: a
 * bad name wins over an unknown fid, an unknown fid over an unopened one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>

#include "srv.h"
#include "ops.h"

/* How a fid a message names is looked up and checked. */
enum fid_use {
	FID_NONE,
	FID_ANY,	/* it exists; the thread acts as its user */
	FID_DIR,	/* the same, and a directory still beneath the export */
	FID_OPEN,	/* the same, and opened (ofd), or EBADF */
	FID_NAMED,	/* it exists; only named (a hard link's target) */
};

struct fid_arg {
	uint16_t off;		/* of its number in struct v9p_fcall */
	uint8_t use;		/* enum fid_use */
};

#define OP_MODIFIES	0x01	/* refused on a read-only export */
#define OP_DATA		0x02	/* the handler put count bytes after the reply's header */
#define OP_NEWFID	0x04	/* the handler may make call->newfid: enter it */
#define OP_SWAPFID	0x08	/* ... in place of fid[0] when it has its number */
#define OP_INLINE_FILE	0x10	/* inline only on a file, directory or xattr fid */
#define OP_POOL		0x20	/* never inline: it may take long */

#define D_9P	(1u << V9P_9P2000)
#define D_U	(1u << V9P_9P2000U)
#define D_L	(1u << V9P_9P2000L)
#define D_ALL	(D_9P | D_U | D_L)

struct srv_op {
	int (*run)(struct srv_call *call);
	/* checks of the request that need no fid, after its names */
	int (*check)(const struct v9p_fcall *in);
	uint8_t rtype;
	uint8_t dialects;
	uint8_t flags;
	struct fid_arg fid[2];
	uint16_t name[2];	/* offsets of the names in struct v9p_fcall; 0: none */
};

#define IN(field)		offsetof(struct v9p_fcall, field)
#define FID(field, use)		{ IN(field), use }

static const struct srv_op ops[256] = {
	[V9P_TAUTH] = { srv_op_auth, NULL, V9P_RAUTH, D_ALL, 0 },
	[V9P_TATTACH] = { srv_op_attach, NULL, V9P_RATTACH, D_ALL, 0 },
	[V9P_TWALK] = { srv_op_walk, NULL, V9P_RWALK, D_ALL, OP_NEWFID | OP_SWAPFID,
			{ FID(twalk.fid, FID_ANY) } },
	[V9P_TREAD] = { srv_op_read, NULL, V9P_RREAD, D_ALL, OP_DATA | OP_INLINE_FILE,
			{ FID(tread.fid, FID_ANY) } },
	[V9P_TWRITE] = { srv_op_write, NULL, V9P_RWRITE, D_ALL, OP_INLINE_FILE,
			 { FID(twrite.fid, FID_ANY) } },
	[V9P_TCLUNK] = { srv_op_clunk, NULL, V9P_RCLUNK, D_ALL, 0,
			 { FID(tclunk.fid, FID_ANY) } },
	[V9P_TREMOVE] = { srv_op_remove, NULL, V9P_RREMOVE, D_ALL, OP_MODIFIES,
			  { FID(tremove.fid, FID_ANY) } },

	/* 9P2000 and .u */
	[V9P_TOPEN] = { srv_op_open, NULL, V9P_ROPEN, D_9P | D_U, OP_INLINE_FILE,
			{ FID(topen.fid, FID_ANY) } },
	[V9P_TCREATE] = { srv_op_create, NULL, V9P_RCREATE, D_9P | D_U, OP_MODIFIES,
			  { FID(tcreate.fid, FID_ANY) }, { IN(tcreate.name) } },
	[V9P_TSTAT] = { srv_op_stat, NULL, V9P_RSTAT, D_9P | D_U, 0,
			{ FID(tstat.fid, FID_ANY) } },
	/* a null Twstat syncs */
	[V9P_TWSTAT] = { srv_op_wstat, NULL, V9P_RWSTAT, D_9P | D_U, OP_MODIFIES | OP_POOL,
			 { FID(twstat.fid, FID_ANY) } },

	/* 9P2000.L */
	[V9P_TSTATFS] = { srv_op_statfs, NULL, V9P_RSTATFS, D_L, 0,
			  { FID(tstatfs.fid, FID_ANY) } },
	[V9P_TLOPEN] = { srv_op_lopen, NULL, V9P_RLOPEN, D_L, OP_INLINE_FILE,
			 { FID(tlopen.fid, FID_ANY) } },
	[V9P_TLCREATE] = { srv_op_lcreate, NULL, V9P_RLCREATE, D_L, OP_MODIFIES,
			   { FID(tlcreate.fid, FID_ANY) }, { IN(tlcreate.name) } },
	[V9P_TSYMLINK] = { srv_op_symlink, srv_check_symlink, V9P_RSYMLINK, D_L, OP_MODIFIES,
			   { FID(tsymlink.fid, FID_DIR) }, { IN(tsymlink.name) } },
	[V9P_TMKNOD] = { srv_op_mknod, srv_check_mknod, V9P_RMKNOD, D_L, OP_MODIFIES,
			 { FID(tmknod.dfid, FID_DIR) }, { IN(tmknod.name) } },
	[V9P_TRENAME] = { srv_op_rename, NULL, V9P_RRENAME, D_L, OP_MODIFIES,
			  { FID(trename.fid, FID_ANY), FID(trename.dfid, FID_DIR) },
			  { IN(trename.name) } },
	[V9P_TREADLINK] = { srv_op_readlink, NULL, V9P_RREADLINK, D_L, 0,
			    { FID(treadlink.fid, FID_ANY) } },
	[V9P_TGETATTR] = { srv_op_getattr, NULL, V9P_RGETATTR, D_L, 0,
			   { FID(tgetattr.fid, FID_ANY) } },
	[V9P_TSETATTR] = { srv_op_setattr, NULL, V9P_RSETATTR, D_L, OP_MODIFIES,
			   { FID(tsetattr.fid, FID_ANY) } },
	[V9P_TXATTRWALK] = { srv_op_xattrwalk, NULL, V9P_RXATTRWALK, D_L, OP_NEWFID,
			     { FID(txattrwalk.fid, FID_ANY) } },
	[V9P_TXATTRCREATE] = { srv_op_xattrcreate, srv_check_xattrcreate, V9P_RXATTRCREATE,
			       D_L, OP_MODIFIES, { FID(txattrcreate.fid, FID_ANY) } },
	[V9P_TREADDIR] = { srv_op_readdir, NULL, V9P_RREADDIR, D_L, OP_DATA,
			   { FID(treaddir.fid, FID_OPEN) } },
	[V9P_TFSYNC] = { srv_op_fsync, NULL, V9P_RFSYNC, D_L, OP_POOL,
			 { FID(tfsync.fid, FID_OPEN) } },
	[V9P_TLOCK] = { srv_op_lock, NULL, V9P_RLOCK, D_L, 0,
			{ FID(tlock.fid, FID_OPEN) } },
	[V9P_TGETLOCK] = { srv_op_getlock, NULL, V9P_RGETLOCK, D_L, 0,
			   { FID(tgetlock.fid, FID_OPEN) } },
	[V9P_TLINK] = { srv_op_link, NULL, V9P_RLINK, D_L, OP_MODIFIES,
			{ FID(tlink.dfid, FID_DIR), FID(tlink.fid, FID_NAMED) },
			{ IN(tlink.name) } },
	[V9P_TMKDIR] = { srv_op_mkdir, NULL, V9P_RMKDIR, D_L, OP_MODIFIES,
			 { FID(tmkdir.dfid, FID_DIR) }, { IN(tmkdir.name) } },
	[V9P_TRENAMEAT] = { srv_op_renameat, NULL, V9P_RRENAMEAT, D_L, OP_MODIFIES,
			    { FID(trenameat.olddirfid, FID_DIR),
			      FID(trenameat.newdirfid, FID_DIR) },
			    { IN(trenameat.oldname), IN(trenameat.newname) } },
	[V9P_TUNLINKAT] = { srv_op_unlinkat, NULL, V9P_RUNLINKAT, D_L, OP_MODIFIES,
			    { FID(tunlinkat.dirfid, FID_DIR) }, { IN(tunlinkat.name) } },
};

static uint32_t fid_number(const struct srv_req *req, const struct fid_arg *a)
{
	uint32_t n;

	memcpy(&n, (const uint8_t *)&req->in + a->off, sizeof(n));
	return n;
}

/* Look fid number n up for call as use says; *fp holds it even on failure. */
static int take_fid(struct srv_call *call, uint32_t n, uint8_t use, struct srv_fid **fp)
{
	struct srv_fid *f;
	int err;

	f = srv_fid_get(call->conn, n);
	*fp = f;
	if (!f)
		return -EBADF;
	if (use == FID_NAMED)
		return 0;
	err = srv_user_become(f->user);
	if (err < 0)
		return err;
	if (use == FID_DIR) {
		if (!S_ISDIR(f->ftype))
			return -ENOTDIR;
		/* a directory moved out of the export is out of reach */
		return srv_fid_beneath(f);
	}
	if (use == FID_OPEN && f->ofd < 0)
		return -EBADF;
	return 0;
}

/* Everything a handler may rely on, in the order its errors win. */
static int prepare(const struct srv_op *op, struct srv_call *call)
{
	const uint8_t *in = (const uint8_t *)&call->req->in;
	int err;

	for (int i = 0; i < 2 && op->name[i]; i++) {
		err = srv_check_name((const struct v9p_str *)(in + op->name[i]), call->name[i]);
		if (err < 0)
			return err;
	}
	if (op->check) {
		err = op->check(&call->req->in);
		if (err < 0)
			return err;
	}
	for (int i = 0; i < 2 && op->fid[i].use != FID_NONE; i++) {
		err = take_fid(call, fid_number(call->req, &op->fid[i]), op->fid[i].use,
			       &call->fid[i]);
		if (err < 0)
			return err;
	}
	return 0;
}

/* Enter the handler's new fid in the table, or in fid[0]'s place. */
static int enter_newfid(const struct srv_op *op, struct srv_call *call)
{
	struct srv_fid *nf = call->newfid, *f = call->fid[0];

	if ((op->flags & OP_SWAPFID) && nf->fid == f->fid)
		return srv_fid_replace(call->conn, f, nf);
	return srv_fid_publish(call->conn, nf);
}

/* The reply the handler filled, packed into req->tx: its length. */
static int pack(const struct srv_op *op, struct srv_req *req)
{
	int hl;

	req->out.type = op->rtype;
	req->out.tag = req->tag;
	if (!(op->flags & OP_DATA))
		return v9p_pack(&req->out, req->conn->dialect, req->tx, req->bufsize);
	hl = v9p_pack_io_hdr(&req->out, req->tx, req->bufsize);
	if (hl < 0)
		return hl;
	return hl + (int)(op->rtype == V9P_RREAD ? req->out.rread.count :
			  req->out.rreaddir.count);
}

int srv_dispatch(struct srv_req *req)
{
	const struct srv_op *op = &ops[req->type];
	struct srv_call call;
	int err;

	if (!op->run || !(op->dialects & (1u << req->conn->dialect)))
		return -EOPNOTSUPP;
	if (srv_cfg.readonly && (op->flags & OP_MODIFIES))
		return -EROFS;
	/* call.name and call.strs are filled as they are used */
	call.req = req;
	call.conn = req->conn;
	call.fid[0] = NULL;
	call.fid[1] = NULL;
	call.newfid = NULL;
	err = prepare(op, &call);
	if (err == 0)
		err = op->run(&call);
	if (err == 0 && call.newfid)
		err = enter_newfid(op, &call);
	if (err == 0)
		err = pack(op, req);
	srv_fid_put(call.newfid);
	srv_fid_put(call.fid[1]);
	srv_fid_put(call.fid[0]);
	return err;
}

/*
 * Whether req may run on the connection's own thread when nothing else is
 * in flight: it must finish in bounded time. Only regular files and
 * directories are ever opened, so nothing here waits for a peer; a
 * blocking Tlock and Tfsync always go to the pool. Skipping the hand-off
 * saves two thread switches per request for the common
 * one-request-at-a-time client.
 */
bool srv_inline_ok(struct srv_req *req)
{
	const struct srv_op *op = &ops[req->type];
	struct srv_fid *f;
	bool ok;

	if (op->flags & OP_POOL)
		return false;	/* may take long: keep reading meanwhile */
	/* a blocking Tlock waits for the lock */
	if (req->type == V9P_TLOCK && (req->in.tlock.flags & V9P_LOCK_FLAGS_BLOCK))
		return false;
	if (!(op->flags & OP_INLINE_FILE))
		return true;
	f = srv_fid_get(req->conn, fid_number(req, &op->fid[0]));
	if (!f)
		return true;	/* it will fail at once */
	ok = f->xattr || S_ISREG(f->ftype) || S_ISDIR(f->ftype);
	srv_fid_put(f);
	return ok;
}
