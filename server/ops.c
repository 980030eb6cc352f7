// SPDX-License-Identifier: GPL-2.0
/*
 * ops.c - the operations every dialect shares: auth, attach, walk, read,
 * write, clunk, remove.
 *
 * Handlers run with the fids dispatch.c looked up, as the first fid's user
 * (when v9fsd is root); they fill the reply or return a negative errno.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "srv.h"
#include "ops.h"
#include "log.h"

int srv_op_auth(struct srv_call *call)
{
	/* no authentication: Tattach takes afid NOFID */
	return -EOPNOTSUPP;
}

static bool aname_ok(const struct v9p_str *a)
{
	const char *e = srv_cfg.export_path;

	if (a->len == 0 || (a->len == 1 && a->s[0] == '/'))
		return true;
	return e && strlen(e) == a->len && memcmp(e, a->s, a->len) == 0;
}

/*
 * Tattach publishes its new fid itself: its log line says the attach was
 * made only once the fid is in the table.
 */
int srv_op_attach(struct srv_call *call)
{
	struct srv_req *req = call->req;
	struct v9p_tattach *t = &req->in.tattach;
	struct srv_user *u;
	struct srv_fid *f;
	int err, fd;

	if (t->afid != V9P_NOFID)
		return -EOPNOTSUPP;
	if (!aname_ok(&t->aname)) {
		srv_user_log_attach(req->conn, t, NULL, -ENOENT);
		return -ENOENT;
	}
	if (req->conn->dialect == V9P_9P2000)
		t->n_uname = V9P_NONUNAME;
	u = srv_user_lookup(&t->uname, t->n_uname, &err);
	if (u && req->conn->squash && srv_cfg.as_root)
		u = srv_user_squash(u, &err);
	if (u)
		u = srv_user_peer_check(req->conn, u, &err);
	if (!u) {
		srv_user_log_attach(req->conn, t, NULL, err);
		return err;
	}
	err = srv_user_become(u);
	if (err < 0)
		goto out_user;
	f = srv_fid_new(req->conn, t->fid, &err);
	if (!f)
		goto out_user;
	fd = srv_open_beneath(srv_cfg.root_fd, "", O_PATH | O_DIRECTORY, 0);
	if (fd < 0) {
		err = fd;
		goto out_fid;
	}
	err = srv_fid_set(f, fd, strdup(""), u, &req->out.rattach.qid);
	if (err == 0 && !f->path)
		err = -ENOMEM;
	if (err == 0)
		err = srv_fid_publish(req->conn, f);
	if (err < 0)
		goto out_fid;
	srv_user_log_attach(req->conn, t, u, 0);
	srv_fid_put(f);
	srv_user_put(u);
	return 0;
out_fid:
	srv_fid_put(f);
out_user:
	srv_user_put(u);
	return err;
}

/*
 * ".." from the directory (dfd, dpath): its parent by path, beneath the
 * root, provided dpath still names dfd's own directory there (a directory
 * moved behind v9fsd's back has no parent v9fsd knows: ENOENT). The root
 * is its own parent.
 */
static int walk_up(int dfd, const char *dpath)
{
	struct stat a, b;
	const char *slash = strrchr(dpath, '/');
	char *p;
	int fd;

	if (!*dpath)
		return srv_open_beneath(dfd, "", O_PATH | O_DIRECTORY, 0);
	p = srv_path_parent(dpath);
	if (!p)
		return -ENOMEM;
	fd = srv_open_beneath(srv_cfg.root_fd, p, O_PATH | O_DIRECTORY, 0);
	free(p);
	if (fd < 0)
		return fd;
	if (fstatat(dfd, "", &a, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0 ||
	    fstatat(fd, slash ? slash + 1 : dpath, &b, AT_SYMLINK_NOFOLLOW) < 0 ||
	    a.st_ino != b.st_ino || a.st_dev != b.st_dev) {
		close(fd);
		return -ENOENT;
	}
	return fd;
}

/*
 * One step of a walk from (dfd, dpath) by name. ".." goes to the parent by
 * path and stays put at the root; everything else is one component opened
 * beneath the directory. On success *nfd and *npath hold the new position.
 */
static int walk_one(int dfd, const char *dpath, const struct v9p_str *name,
		    int *nfd, char **npath)
{
	char comp[NAME_MAX + 1];
	char *p;
	int fd, err;

	if (name->len == 2 && name->s[0] == '.' && name->s[1] == '.') {
		p = srv_path_parent(dpath);
		if (!p)
			return -ENOMEM;
		fd = walk_up(dfd, dpath);
	} else if (name->len == 1 && name->s[0] == '.') {
		p = strdup(dpath);
		if (!p)
			return -ENOMEM;
		fd = srv_open_beneath(dfd, "", O_PATH, 0);
	} else {
		err = srv_check_name(name, comp);
		if (err < 0)
			return err == -EINVAL ? -ENOENT : err;
		p = srv_path_join(dpath, comp);
		if (!p)
			return -ENOMEM;
		fd = srv_open_beneath(dfd, comp, O_PATH, 0);
	}
	if (fd < 0) {
		free(p);
		return fd;
	}
	*nfd = fd;
	*npath = p;
	return 0;
}

/*
 * One step of a walk from (*cfd, *cpath), or from dfd when *cfd is -1:
 * on success the new position replaces them, with its stat in st and its
 * qid in qid.
 */
static int walk_step(int dfd, const struct v9p_str *name, int *cfd, char **cpath,
		     struct stat *st, struct v9p_qid *qid)
{
	char *npath;
	int nfd, err;

	err = walk_one(dfd, *cpath, name, &nfd, &npath);
	if (err < 0)
		return err;
	if (fstatat(nfd, "", st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0) {
		err = -errno;
		close(nfd);
		free(npath);
		return err;
	}
	srv_qid_from_stat(st, qid);
	if (*cfd >= 0)
		close(*cfd);
	free(*cpath);
	*cfd = nfd;
	*cpath = npath;
	return 0;
}

/*
 * Twalk. The first step goes from the fid's own descriptor (a clone dups
 * it), once its path is known to still lead to it beneath the root, with
 * no fid lock held: a walk waits for no read or open on the fid, and holds
 * the names lock for reading only while it runs; each step costs one
 * openat2() and one fstatat(), as a file's type never changes once known.
 * The new fid is complete when the dispatcher enters it in the table (or
 * swaps it in for fid): it is on the server's list of fids from its start,
 * so a rename after the names lock is dropped still moves its path.
 */
int srv_op_walk(struct srv_call *call)
{
	struct v9p_twalk *t = &call->req->in.twalk;
	struct v9p_rwalk *r = &call->req->out.rwalk;
	struct srv_fid *f = call->fid[0], *nf;
	struct stat st;
	int err = 0, cfd = -1;
	char *cpath = NULL;
	bool locked = false;
	uint16_t i = 0;

	/*
	 * walk(5) forbids walking an open fid; cloning one into a new fid is
	 * harmless (the clone is not open), so only fid == newfid is refused.
	 */
	if ((f->ofd >= 0 || f->xattr) && (t->newfid == t->fid || f->xattr)) {
		err = -EBUSY;
		goto out;
	}
	if (t->nwname && !S_ISDIR(f->ftype)) {
		err = -ENOTDIR;
		goto out;
	}
	memset(r, 0, sizeof(*r));
	/* no rename may come between reading f's path and newfid's */
	srv_names_rdlock();
	locked = true;
	/* a clone names f's own file */
	st.st_mode = f->ftype;
	st.st_dev = f->dev;
	st.st_ino = f->ino;
	cpath = srv_fid_path(f);
	if (!cpath)
		err = -ENOMEM;
	else if (t->nwname == 0)
		err = (cfd = fcntl(f->pfd, F_DUPFD_CLOEXEC, 0)) < 0 ? -errno : 0;
	else if ((err = srv_fid_beneath(f)) < 0)
		;	/* moved out of the export behind v9fsd's back */
	else if ((err = walk_step(f->pfd, &t->wname[0], &cfd, &cpath, &st, &r->wqid[0])) == 0)
		i = 1;
	while (err == 0 && i < t->nwname) {
		if (!S_ISDIR(st.st_mode)) {
			err = -ENOTDIR;
			break;
		}
		err = walk_step(cfd, &t->wname[i], &cfd, &cpath, &st, &r->wqid[i]);
		if (err == 0)
			i++;
	}
	if (i < t->nwname || err < 0) {
		/* a partial walk: qids so far, newfid untouched */
		r->nwqid = i;
		if (i)
			err = 0;
		goto out;
	}
	r->nwqid = i;

	/* a complete new fid: a walk onto itself swaps it in */
	nf = srv_fid_new(call->conn, t->newfid, &err);
	if (!nf)
		goto out;
	srv_fid_init(nf, cfd, cpath, f->user, &st);
	cfd = -1;
	cpath = NULL;
	call->newfid = nf;
out:
	if (locked)
		srv_names_unlock();
	if (cfd >= 0)
		close(cfd);
	free(cpath);
	return err;
}

/*
 * A fid's descriptor for I/O, or -1: a Tlopen may be filling it in right
 * now (srv_fid_open() stores ofd last, with release), and once set it stays
 * until the fid is freed.
 */
static int io_fd(const struct srv_fid *f)
{
	return __atomic_load_n(&f->ofd, __ATOMIC_ACQUIRE);
}

static bool may_read(const struct srv_fid *f)
{
	return (f->oflags & O_ACCMODE) != O_WRONLY;
}

static bool may_write(const struct srv_fid *f)
{
	return (f->oflags & O_ACCMODE) != O_RDONLY;
}

/*
 * Tread: the data goes straight into the reply buffer, after the header
 * the dispatcher packs in front of it.
 */
int srv_op_read(struct srv_call *call)
{
	struct srv_req *req = call->req;
	struct v9p_tread *t = &req->in.tread;
	uint32_t max = req->bufsize - V9P_RREAD_HDRSZ, count = t->count;
	uint8_t *data = req->tx + V9P_RREAD_HDRSZ;
	struct srv_fid *f = call->fid[0];
	ssize_t n;
	int fd;

	if (count > max)
		count = max;
	if (f->xattr) {
		n = srv_xattr_read(f, t->offset, count, data);
		if (n < 0)
			return (int)n;
		goto done;
	}
	fd = io_fd(f);
	if (fd < 0 || !may_read(f))
		return -EBADF;
	if (S_ISDIR(f->ftype)) {
		uint32_t got = 0;
		int err;

		if (call->conn->dialect == V9P_9P2000L)
			return -EISDIR;
		err = srv_read_dir_stats(call->conn, f, t->offset, count, data, &got);
		if (err < 0)
			return err;
		n = got;
		goto done;
	}
	if (t->offset > (uint64_t)INT64_MAX)
		return -EINVAL;
	if (S_ISREG(f->ftype))
		n = pread(fd, data, count, (off_t)t->offset);
	else
		n = read(fd, data, count);
	if (n < 0)
		return -errno;
done:
	req->out.rread.count = (uint32_t)n;
	return 0;
}

int srv_op_write(struct srv_call *call)
{
	struct v9p_twrite *t = &call->req->in.twrite;
	struct srv_fid *f = call->fid[0];
	ssize_t n;
	int err, fd;

	if (f->xattr) {
		err = srv_xattr_write(f, t->offset, t->count, t->data);
		if (err < 0)
			return err;
		n = t->count;
		goto done;
	}
	fd = io_fd(f);
	if (fd < 0 || !may_write(f))
		return -EBADF;
	if (t->offset > (uint64_t)INT64_MAX)
		return -EINVAL;
	if (S_ISREG(f->ftype) && !(f->oflags & O_APPEND))
		n = pwrite(fd, t->data, t->count, (off_t)t->offset);
	else
		n = write(fd, t->data, t->count);
	if (n < 0)
		return -errno;
done:
	call->req->out.rwrite.count = (uint32_t)n;
	return 0;
}

/*
 * Tclunk and Tremove: the fid goes away first (its number is free at once)
 * whether or not the remove works; its descriptors close with the last
 * reference. A clunk ends the fid as its at_clunk hook says (an ORCLOSE
 * file is removed, an xattr fid commits); a remove does not run it.
 */
int srv_op_clunk(struct srv_call *call)
{
	struct srv_fid *f = call->fid[0];
	int err;

	err = srv_fid_unhash(call->conn, f);
	if (err == 0 && f->at_clunk)
		err = f->at_clunk(f);
	return err;
}

int srv_op_remove(struct srv_call *call)
{
	struct srv_fid *f = call->fid[0];
	int err;

	err = srv_fid_unhash(call->conn, f);
	if (err == 0)
		err = srv_do_remove(f);
	return err;
}
