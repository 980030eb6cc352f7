// SPDX-License-Identifier: GPL-2.0
/*
 * xattr.c - 9P2000.L extended attributes.
 *
 * Txattrwalk makes a new fid holding the attribute's value (or the list of
 * names for an empty name) that the client reads with Tread. Txattrcreate
 * turns a fid into a buffer that Twrite fills and Tclunk commits; a
 * zero-length value means "remove", as Linux's client uses it.
 * Attributes are read and set through the fid's own inode (/proc/self/fd),
 * never by name.
 *
 * An xattr fid holds its buffer (up to 64 KiB) until it is clunked, so
 * these buffers are counted, per connection (SRV_CONN_XATTR_BYTES) and of
 * all connections together (SRV_XATTR_BYTES): past either, Txattrwalk and
 * Txattrcreate fail with ENOMEM, and the count goes down as fids are
 * clunked.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/xattr.h>

#include "srv.h"
#include "ops.h"

#define SRV_XATTR_MAX	65536	/* Linux's XATTR_SIZE_MAX and XATTR_LIST_MAX */

struct srv_xattr {
	bool create;
	int flags;
	char name[XATTR_NAME_MAX + 1];
	uint8_t *buf;
	size_t size;		/* value size */
	size_t len;		/* bytes written so far (create) */
	struct srv_conn *conn;	/* charged: outlives every fid of it */
	size_t charged;		/* bytes counted against conn and the server */
};

static uint64_t xattr_total;

/* Count x and a buffer of size bytes against c and the server; 0 or -ENOMEM. */
static int xattr_charge(struct srv_xattr *x, struct srv_conn *c, size_t size)
{
	size_t n = sizeof(*x) + size;
	uint64_t all = __atomic_add_fetch(&xattr_total, n, __ATOMIC_RELAXED);
	uint64_t mine = __atomic_add_fetch(&c->xattr_bytes, n, __ATOMIC_RELAXED);

	if (all > SRV_XATTR_BYTES || mine > SRV_CONN_XATTR_BYTES) {
		__atomic_sub_fetch(&xattr_total, n, __ATOMIC_RELAXED);
		__atomic_sub_fetch(&c->xattr_bytes, n, __ATOMIC_RELAXED);
		return -ENOMEM;
	}
	x->conn = c;
	x->charged = n;
	return 0;
}

static void xattr_uncharge(struct srv_xattr *x)
{
	if (!x->charged)
		return;
	__atomic_sub_fetch(&xattr_total, x->charged, __ATOMIC_RELAXED);
	__atomic_sub_fetch(&x->conn->xattr_bytes, x->charged, __ATOMIC_RELAXED);
	x->charged = 0;
}

static void xattr_free(struct srv_xattr *x)
{
	xattr_uncharge(x);
	free(x->buf);
	free(x);
}

/* An xattr fid's buffer goes with its last reference. */
static void xattr_fid_free(struct srv_fid *f)
{
	xattr_free(f->xattr);
}

static int xattr_commit(struct srv_fid *f);

static int xattr_path(struct srv_fid *f, char *p, size_t len)
{
	if (S_ISLNK(f->ftype) || !srv_cfg.proc_ok)
		return -EOPNOTSUPP;
	return srv_proc_path(f->ofd >= 0 ? f->ofd : f->pfd, p, len);
}

static int copy_name(const struct v9p_str *s, char *buf)
{
	if (s->len > XATTR_NAME_MAX)
		return -ERANGE;
	memcpy(buf, s->s, s->len);
	buf[s->len] = '\0';
	return 0;
}

/*
 * Txattrwalk: the new fid holds the value; the dispatcher enters it in the
 * table before the reply.
 */
int srv_op_xattrwalk(struct srv_call *call)
{
	struct v9p_txattrwalk *t = &call->req->in.txattrwalk;
	struct srv_fid *f = call->fid[0], *nf = NULL;
	struct srv_xattr *x;
	struct v9p_qid q;
	char p[64];
	ssize_t n;
	int err, pfd;

	x = calloc(1, sizeof(*x));
	if (!x) {
		err = -ENOMEM;
		goto out;
	}
	err = copy_name(&t->name, x->name);
	if (err < 0)
		goto out;
	err = xattr_path(f, p, sizeof(p));
	if (err < 0)
		goto out;
	/* size, then value; retry if it grew in between */
	for (int tries = 0; tries < 3; tries++) {
		n = x->name[0] ? getxattr(p, x->name, NULL, 0) : listxattr(p, NULL, 0);
		if (n < 0) {
			err = -errno;
			goto out;
		}
		if (n > SRV_XATTR_MAX) {
			err = -E2BIG;
			goto out;
		}
		free(x->buf);
		x->buf = NULL;
		xattr_uncharge(x);
		err = xattr_charge(x, call->conn, (size_t)n);
		if (err < 0)
			goto out;
		x->buf = malloc(n ? (size_t)n : 1);
		if (!x->buf) {
			err = -ENOMEM;
			goto out;
		}
		n = x->name[0] ? getxattr(p, x->name, x->buf, (size_t)n) :
				 listxattr(p, (char *)x->buf, (size_t)n);
		if (n >= 0 || errno != ERANGE)
			break;
	}
	if (n < 0) {
		err = -errno;
		goto out;
	}
	x->size = (size_t)n;

	/* f's path and the new fid's must not straddle a rename */
	srv_names_rdlock();
	nf = srv_fid_new(call->conn, t->newfid, &err);
	if (!nf) {
		srv_names_unlock();
		goto out;
	}
	pfd = fcntl(f->pfd, F_DUPFD_CLOEXEC, 0);
	if (pfd < 0) {
		err = -errno;
		srv_names_unlock();
		goto out;
	}
	err = srv_fid_set(nf, pfd, srv_fid_path(f), f->user, &q);
	if (err == 0 && !nf->path)
		err = -ENOMEM;
	srv_names_unlock();
	if (err < 0)
		goto out;
	nf->xattr = x;
	nf->at_free = xattr_fid_free;
	x = NULL;
	call->newfid = nf;
	nf = NULL;
	call->req->out.rxattrwalk.size = (uint64_t)n;
out:
	if (x)
		xattr_free(x);
	srv_fid_put(nf);
	return err;
}

/*
 * trusted.* needs CAP_SYS_ADMIN and security.capability CAP_SETFCAP: only
 * a root attach may set or remove attributes of these two namespaces (a
 * non-root thread has no capability left anyway; this says so up front and
 * also covers the security modules' own attributes).
 */
static bool xattr_privileged(const char *name)
{
	return !strncmp(name, "trusted.", 8) || !strncmp(name, "security.", 9);
}

/* Before the fid is looked up: the value's size and the flags. */
int srv_check_xattrcreate(const struct v9p_fcall *in)
{
	const struct v9p_txattrcreate *t = &in->txattrcreate;

	if (t->attr_size > SRV_XATTR_MAX)
		return -E2BIG;
	if (t->flags & ~(uint32_t)(XATTR_CREATE | XATTR_REPLACE))
		return -EINVAL;
	return 0;
}

int srv_op_xattrcreate(struct srv_call *call)
{
	struct v9p_txattrcreate *t = &call->req->in.txattrcreate;
	struct srv_fid *f = call->fid[0];
	struct srv_xattr *x;
	int err;

	x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	x->create = true;
	x->flags = (int)t->flags;
	x->size = (size_t)t->attr_size;
	err = copy_name(&t->name, x->name);
	if (err == 0 && !x->name[0])
		err = -EINVAL;
	if (err == 0 && xattr_privileged(x->name) && f->user->uid != 0)
		err = -EPERM;
	if (err == 0)
		err = xattr_charge(x, call->conn, x->size);
	if (err == 0 && !(x->buf = malloc(x->size ? x->size : 1)))
		err = -ENOMEM;
	if (err < 0) {
		xattr_free(x);
		return err;
	}
	pthread_mutex_lock(&f->lock);
	if (f->ofd >= 0 || f->xattr) {
		pthread_mutex_unlock(&f->lock);
		xattr_free(x);
		return -EBUSY;
	}
	f->xattr = x;
	f->at_free = xattr_fid_free;
	f->at_clunk = xattr_commit;
	pthread_mutex_unlock(&f->lock);
	return 0;
}

int srv_xattr_read(struct srv_fid *f, uint64_t off, uint32_t count, uint8_t *buf)
{
	struct srv_xattr *x = f->xattr;

	if (x->create)
		return -EBADF;
	if (off >= x->size)
		return 0;
	if (count > x->size - off)
		count = (uint32_t)(x->size - off);
	memcpy(buf, x->buf + off, count);
	return (int)count;
}

int srv_xattr_write(struct srv_fid *f, uint64_t off, uint32_t count, const uint8_t *data)
{
	struct srv_xattr *x = f->xattr;
	int err = 0;

	pthread_mutex_lock(&f->lock);
	if (!x->create)
		err = -EBADF;
	else if (off > x->size || count > x->size - off)
		err = -ENOSPC;
	else {
		memcpy(x->buf + off, data, count);
		if (off + count > x->len)
			x->len = (size_t)(off + count);
	}
	pthread_mutex_unlock(&f->lock);
	return err;
}

/* Commit a Txattrcreate at clunk; called with the fid's user in effect. */
static int xattr_commit(struct srv_fid *f)
{
	struct srv_xattr *x = f->xattr;
	char p[64];
	int err;

	err = xattr_path(f, p, sizeof(p));
	if (err < 0)
		return err;
	if (x->len != x->size)
		return -EINVAL;
	if (x->size == 0)
		err = removexattr(p, x->name);
	else
		err = setxattr(p, x->name, x->buf, x->size, x->flags);
	return err < 0 ? -errno : 0;
}
