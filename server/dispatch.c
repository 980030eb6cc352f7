// SPDX-License-Identifier: GPL-2.0
/*
 * dispatch.c - message type to handler, in the manner of lib9p's srv
 * table. A handler replies itself and returns 0, or returns a negative
 * errno and the error reply is sent here. Read-only exports refuse every
 * message that could change the tree before it reaches a handler.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/stat.h>

#include "srv.h"

typedef int (*srv_handler)(struct srv_req *req);

static const srv_handler handlers[256] = {
	[V9P_TAUTH] = srv_op_auth,
	[V9P_TATTACH] = srv_op_attach,
	[V9P_TWALK] = srv_op_walk,
	[V9P_TOPEN] = srv_op_open,
	[V9P_TCREATE] = srv_op_create,
	[V9P_TREAD] = srv_op_read,
	[V9P_TWRITE] = srv_op_write,
	[V9P_TCLUNK] = srv_op_clunk,
	[V9P_TREMOVE] = srv_op_remove,
	[V9P_TSTAT] = srv_op_stat,
	[V9P_TWSTAT] = srv_op_wstat,
	[V9P_TSTATFS] = srv_op_statfs,
	[V9P_TLOPEN] = srv_op_lopen,
	[V9P_TLCREATE] = srv_op_lcreate,
	[V9P_TSYMLINK] = srv_op_symlink,
	[V9P_TMKNOD] = srv_op_mknod,
	[V9P_TRENAME] = srv_op_rename,
	[V9P_TREADLINK] = srv_op_readlink,
	[V9P_TGETATTR] = srv_op_getattr,
	[V9P_TSETATTR] = srv_op_setattr,
	[V9P_TXATTRWALK] = srv_op_xattrwalk,
	[V9P_TXATTRCREATE] = srv_op_xattrcreate,
	[V9P_TREADDIR] = srv_op_readdir,
	[V9P_TFSYNC] = srv_op_fsync,
	[V9P_TLOCK] = srv_op_lock,
	[V9P_TGETLOCK] = srv_op_getlock,
	[V9P_TLINK] = srv_op_link,
	[V9P_TMKDIR] = srv_op_mkdir,
	[V9P_TRENAMEAT] = srv_op_renameat,
	[V9P_TUNLINKAT] = srv_op_unlinkat,
};

/* Messages that change the tree; Twrite/Topen/Tlopen are checked by mode. */
static bool modifies(uint8_t type)
{
	switch (type) {
	case V9P_TCREATE:
	case V9P_TREMOVE:
	case V9P_TWSTAT:
	case V9P_TLCREATE:
	case V9P_TSYMLINK:
	case V9P_TMKNOD:
	case V9P_TRENAME:
	case V9P_TSETATTR:
	case V9P_TXATTRCREATE:
	case V9P_TLINK:
	case V9P_TMKDIR:
	case V9P_TRENAMEAT:
	case V9P_TUNLINKAT:
		return true;
	default:
		return false;
	}
}

/* .L replaces these with Tlopen/Tlcreate/Tgetattr/Tsetattr. */
static bool legacy_only(uint8_t type)
{
	return type == V9P_TOPEN || type == V9P_TCREATE || type == V9P_TSTAT ||
	       type == V9P_TWSTAT;
}

/* The fid a request names first, for srv_inline_ok(). */
static uint32_t first_fid(const struct srv_req *req)
{
	switch (req->type) {
	case V9P_TREAD:
		return req->in.tread.fid;
	case V9P_TWRITE:
		return req->in.twrite.fid;
	case V9P_TOPEN:
		return req->in.topen.fid;
	case V9P_TLOPEN:
		return req->in.tlopen.fid;
	default:
		return V9P_NOFID;
	}
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
	uint32_t fid = first_fid(req);
	struct srv_fid *f;
	bool ok;

	if (req->type == V9P_TFSYNC || req->type == V9P_TWSTAT)
		return false;	/* may take long (a null Twstat syncs): keep reading meanwhile */
	/* a blocking Tlock waits for the lock */
	if (req->type == V9P_TLOCK && (req->in.tlock.flags & V9P_LOCK_FLAGS_BLOCK))
		return false;
	if (fid == V9P_NOFID)
		return true;
	f = srv_fid_get(req->conn, fid);
	if (!f)
		return true;	/* it will fail at once */
	ok = f->xattr || S_ISREG(f->ftype) || S_ISDIR(f->ftype);
	srv_fid_put(f);
	return ok;
}

void srv_dispatch(struct srv_req *req)
{
	srv_handler h = handlers[req->type];
	int err;

	if (!h || (req->conn->dialect == V9P_9P2000L && legacy_only(req->type)))
		err = -EOPNOTSUPP;
	else if (srv_cfg.readonly && modifies(req->type))
		err = -EROFS;
	else
		err = h(req);
	if (err < 0)
		srv_reply_error(req, err);
}
