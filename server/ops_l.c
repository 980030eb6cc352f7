// SPDX-License-Identifier: GPL-2.0
/*
 * ops_l.c - 9P2000.L: the Linux-flavoured operations.
 *
 * Every name from the wire is one component checked by srv_check_name()
 * and used relative to a directory fid's descriptor with *at() calls that
 * do not follow a final symlink. Locks are open-file-description locks:
 * all clients share this process, so classic POSIX locks would never
 * conflict between them, while OFD locks conflict between fids.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>

#include "srv.h"
#include "ops.h"

static int dotl_to_flags(uint32_t l)
{
	static const int acc[4] = { O_RDONLY, O_WRONLY, O_RDWR, O_RDONLY };
	int flags = acc[l & 3];

	if (l & V9P_DOTL_CREATE)
		flags |= O_CREAT;
	if (l & V9P_DOTL_EXCL)
		flags |= O_EXCL;
	if (l & V9P_DOTL_TRUNC)
		flags |= O_TRUNC;
	if (l & V9P_DOTL_APPEND)
		flags |= O_APPEND;
	if (l & V9P_DOTL_NONBLOCK)
		flags |= O_NONBLOCK;
	if (l & V9P_DOTL_DSYNC)
		flags |= O_DSYNC;
	if (l & V9P_DOTL_SYNC)
		flags |= O_SYNC;
	if (l & V9P_DOTL_DIRECTORY)
		flags |= O_DIRECTORY;
	/* O_DIRECT, O_NOATIME, O_NOCTTY, O_CLOEXEC, FASYNC: not the client's business */
	return flags;
}

/* A directory fid that is not open, for the *at() operations. */
static int get_dir_fid(struct srv_req *req, uint32_t fid, struct srv_fid **fp)
{
	int err = srv_get_fid(req, fid, fp);

	if (err < 0)
		return err;
	if (!S_ISDIR((*fp)->ftype)) {
		srv_fid_put(*fp);
		return -ENOTDIR;
	}
	/* a directory moved out of the export is out of reach */
	err = srv_fid_beneath(*fp);
	if (err < 0) {
		srv_fid_put(*fp);
		return err;
	}
	return 0;
}

int srv_op_statfs(struct srv_req *req)
{
	struct v9p_rstatfs *r = &req->out.rstatfs;
	struct srv_fid *f;
	struct statfs sf;
	int err;

	err = srv_get_fid(req, req->in.tstatfs.fid, &f);
	if (err < 0)
		return err;
	if (fstatfs(f->pfd, &sf) < 0) {
		err = -errno;
		goto out;
	}
	r->type = (uint32_t)sf.f_type;
	r->bsize = (uint32_t)sf.f_bsize;
	r->blocks = sf.f_blocks;
	r->bfree = sf.f_bfree;
	r->bavail = sf.f_bavail;
	r->files = sf.f_files;
	r->ffree = sf.f_ffree;
	r->fsid = (uint64_t)(uint32_t)sf.f_fsid.__val[0] |
		  (uint64_t)(uint32_t)sf.f_fsid.__val[1] << 32;
	r->namelen = (uint32_t)sf.f_namelen;
	err = srv_reply_fcall(req, V9P_RSTATFS);
out:
	srv_fid_put(f);
	return err;
}

int srv_op_lopen(struct srv_req *req)
{
	struct v9p_tlopen *t = &req->in.tlopen;
	struct srv_fid *f;
	int err;

	err = srv_get_fid(req, t->fid, &f);
	if (err < 0)
		return err;
	err = srv_open_reply(req, f, NULL, dotl_to_flags(t->flags) & ~(O_CREAT | O_EXCL), 0,
			     (gid_t)-1, false, &req->out.rlopen.qid, &req->out.rlopen.iounit,
			     V9P_RLOPEN);
	srv_fid_put(f);
	return err;
}

int srv_op_lcreate(struct srv_req *req)
{
	struct v9p_tlcreate *t = &req->in.tlcreate;
	char name[NAME_MAX + 1];
	struct srv_fid *f;
	int err;

	err = srv_check_name(&t->name, name);
	if (err < 0)
		return err;
	err = srv_get_fid(req, t->fid, &f);
	if (err < 0)
		return err;
	err = srv_open_reply(req, f, name, dotl_to_flags(t->flags) & ~O_DIRECTORY,
			     t->mode & 07777,
			     t->gid == V9P_NONUNAME ? (gid_t)-1 : (gid_t)t->gid, false,
			     &req->out.rlcreate.qid, &req->out.rlcreate.iounit, V9P_RLCREATE);
	srv_fid_put(f);
	return err;
}

/*
 * Tsymlink, Tmknod and Tmkdir: make name (checked by the caller) in
 * directory fid dfid: a symlink to target when target is not NULL, else a
 * directory or a node of mode, in the client's group (srv_become_creator()),
 * and reply with its qid.
 */
static int make_entry(struct srv_req *req, uint32_t dfid, const char *name,
		      const char *target, mode_t mode, dev_t dev, uint32_t gid,
		      struct v9p_qid *qid, uint8_t rtype)
{
	struct srv_fid *d;
	struct stat st;
	int err, r, efd;

	err = get_dir_fid(req, dfid, &d);
	if (err < 0)
		return err;
	err = srv_become_creator(d->user, gid == V9P_NONUNAME ? (gid_t)-1 : (gid_t)gid);
	if (err < 0) {
		srv_user_become(d->user);
		goto out;
	}
	/* a symlink's target is only text: it is never resolved on this side */
	if (target)
		r = symlinkat(target, d->pfd, name);
	else if (S_ISDIR(mode))
		r = mkdirat(d->pfd, name, mode & 07777);
	else
		r = mknodat(d->pfd, name, mode, dev);
	err = r < 0 ? -errno : 0;
	/* a thread that cannot switch back goes no further */
	r = srv_user_become(d->user);
	if (err == 0)
		err = r;
	if (err < 0)
		goto out;
	efd = srv_open_beneath(d->pfd, name, O_PATH, 0);
	if (efd < 0) {
		err = efd;
		goto out;
	}
	if (fstat(efd, &st) < 0) {
		err = -errno;
	} else {
		srv_qid_from_stat(&st, qid);
		err = srv_reply_fcall(req, rtype);
	}
	close(efd);
out:
	srv_fid_put(d);
	return err;
}

int srv_op_symlink(struct srv_req *req)
{
	struct v9p_tsymlink *t = &req->in.tsymlink;
	char name[NAME_MAX + 1], *target;
	int err;

	err = srv_check_name(&t->name, name);
	if (err < 0)
		return err;
	if (t->symtgt.len == 0 || t->symtgt.len > PATH_MAX)
		return t->symtgt.len ? -ENAMETOOLONG : -ENOENT;
	target = strndup(t->symtgt.s, t->symtgt.len);
	if (!target)
		return -ENOMEM;
	err = make_entry(req, t->fid, name, target, 0, 0, t->gid,
			 &req->out.rsymlink.qid, V9P_RSYMLINK);
	free(target);
	return err;
}

int srv_op_mknod(struct srv_req *req)
{
	struct v9p_tmknod *t = &req->in.tmknod;
	char name[NAME_MAX + 1];
	mode_t type = t->mode & S_IFMT;
	int err;

	err = srv_check_name(&t->name, name);
	if (err < 0)
		return err;
	if (type != S_IFREG && type != S_IFCHR && type != S_IFBLK &&
	    type != S_IFIFO && type != S_IFSOCK)
		return -EINVAL;
	return make_entry(req, t->dfid, name, NULL, type | (t->mode & 07777),
			  makedev(t->major, t->minor), t->gid, &req->out.rmknod.qid, V9P_RMKNOD);
}

int srv_op_mkdir(struct srv_req *req)
{
	struct v9p_tmkdir *t = &req->in.tmkdir;
	char name[NAME_MAX + 1];
	int err;

	err = srv_check_name(&t->name, name);
	if (err < 0)
		return err;
	return make_entry(req, t->dfid, name, NULL, S_IFDIR | (t->mode & 07777), 0,
			  t->gid, &req->out.rmkdir.qid, V9P_RMKDIR);
}

int srv_op_rename(struct srv_req *req)
{
	struct v9p_trename *t = &req->in.trename;
	char name[NAME_MAX + 1], *opath = NULL, *odir = NULL, *dpath = NULL;
	struct srv_fid *f, *d = NULL;
	const char *base;
	int err, ofd;

	err = srv_check_name(&t->name, name);
	if (err < 0)
		return err;
	err = srv_get_fid(req, t->fid, &f);
	if (err < 0)
		return err;
	err = get_dir_fid(req, t->dfid, &d);
	if (err < 0) {
		srv_fid_put(f);
		return err;
	}
	srv_names_wrlock();
	opath = srv_fid_path(f);
	dpath = srv_fid_path(d);
	if (!opath || !dpath || !(odir = srv_path_parent(opath))) {
		err = -ENOMEM;
		goto out;
	}
	ofd = srv_fid_parent(f, opath, &base, NULL);
	if (ofd < 0) {
		err = ofd;
		goto out;
	}
	err = srv_rename_names(ofd, odir, base, d->pfd, dpath, name);
	close(ofd);
out:
	srv_names_unlock();
	if (err == 0)
		err = srv_reply_fcall(req, V9P_RRENAME);
	free(opath);
	free(odir);
	free(dpath);
	srv_fid_put(d);
	srv_fid_put(f);
	return err;
}

int srv_op_renameat(struct srv_req *req)
{
	struct v9p_trenameat *t = &req->in.trenameat;
	char oname[NAME_MAX + 1], nname[NAME_MAX + 1], *op, *np;
	struct srv_fid *od, *nd;
	int err;

	err = srv_check_name(&t->oldname, oname);
	if (err < 0)
		return err;
	err = srv_check_name(&t->newname, nname);
	if (err < 0)
		return err;
	err = get_dir_fid(req, t->olddirfid, &od);
	if (err < 0)
		return err;
	err = get_dir_fid(req, t->newdirfid, &nd);
	if (err < 0) {
		srv_fid_put(od);
		return err;
	}
	srv_names_wrlock();
	op = srv_fid_path(od);
	np = srv_fid_path(nd);
	err = op && np ? srv_rename_names(od->pfd, op, oname, nd->pfd, np, nname) : -ENOMEM;
	srv_names_unlock();
	free(op);
	free(np);
	if (err == 0)
		err = srv_reply_fcall(req, V9P_RRENAMEAT);
	srv_fid_put(nd);
	srv_fid_put(od);
	return err;
}

int srv_op_unlinkat(struct srv_req *req)
{
	struct v9p_tunlinkat *t = &req->in.tunlinkat;
	char name[NAME_MAX + 1];
	struct srv_fid *d;
	int err;

	err = srv_check_name(&t->name, name);
	if (err < 0)
		return err;
	err = get_dir_fid(req, t->dirfid, &d);
	if (err < 0)
		return err;
	if (unlinkat(d->pfd, name, (t->flags & V9P_DOTL_AT_REMOVEDIR) ? AT_REMOVEDIR : 0) < 0)
		err = -errno;
	else
		err = srv_reply_fcall(req, V9P_RUNLINKAT);
	srv_fid_put(d);
	return err;
}

int srv_op_link(struct srv_req *req)
{
	struct v9p_tlink *t = &req->in.tlink;
	char name[NAME_MAX + 1];
	struct srv_fid *d, *f;
	int err;

	err = srv_check_name(&t->name, name);
	if (err < 0)
		return err;
	err = get_dir_fid(req, t->dfid, &d);
	if (err < 0)
		return err;
	f = srv_fid_get(req->conn, t->fid);
	if (!f) {
		srv_fid_put(d);
		return -EBADF;
	}
	srv_names_rdlock();
	err = srv_link_fid(f, d->pfd, name);
	srv_names_unlock();
	if (err == 0)
		err = srv_reply_fcall(req, V9P_RLINK);
	srv_fid_put(f);
	srv_fid_put(d);
	return err;
}

int srv_op_readlink(struct srv_req *req)
{
	char buf[PATH_MAX + 1];
	struct srv_fid *f;
	ssize_t n;
	int err;

	err = srv_get_fid(req, req->in.treadlink.fid, &f);
	if (err < 0)
		return err;
	if (!S_ISLNK(f->ftype)) {
		err = -EINVAL;
		goto out;
	}
	n = readlinkat(f->pfd, "", buf, sizeof(buf) - 1);
	if (n < 0) {
		err = -errno;
		goto out;
	}
	req->out.rreadlink.target.s = buf;
	req->out.rreadlink.target.len = (uint16_t)n;
	err = srv_reply_fcall(req, V9P_RREADLINK);
out:
	srv_fid_put(f);
	return err;
}

int srv_op_getattr(struct srv_req *req)
{
	struct v9p_rgetattr *r = &req->out.rgetattr;
	struct srv_fid *f;
	struct stat st;
	int err;

	err = srv_get_fid(req, req->in.tgetattr.fid, &f);
	if (err < 0)
		return err;
	err = srv_fid_stat(f, &st);
	if (err < 0)
		goto out;
	memset(r, 0, sizeof(*r));
	r->valid = V9P_GETATTR_BASIC;
	srv_qid_from_stat(&st, &r->qid);
	r->mode = st.st_mode;
	r->uid = st.st_uid;
	r->gid = st.st_gid;
	r->nlink = st.st_nlink;
	r->rdev = st.st_rdev;
	r->size = (uint64_t)st.st_size;
	r->blksize = (uint64_t)st.st_blksize;
	r->blocks = (uint64_t)st.st_blocks;
	r->atime_sec = (uint64_t)st.st_atim.tv_sec;
	r->atime_nsec = (uint64_t)st.st_atim.tv_nsec;
	r->mtime_sec = (uint64_t)st.st_mtim.tv_sec;
	r->mtime_nsec = (uint64_t)st.st_mtim.tv_nsec;
	r->ctime_sec = (uint64_t)st.st_ctim.tv_sec;
	r->ctime_nsec = (uint64_t)st.st_ctim.tv_nsec;
	err = srv_reply_fcall(req, V9P_RGETATTR);
out:
	srv_fid_put(f);
	return err;
}

/*
 * Tsetattr: owner before mode (chown clears set-id bits), size before
 * times (truncation moves mtime).
 */
int srv_op_setattr(struct srv_req *req)
{
	struct v9p_tsetattr *t = &req->in.tsetattr;
	struct srv_fid *f;
	int err;

	err = srv_get_fid(req, t->fid, &f);
	if (err < 0)
		return err;
	if (t->valid & (V9P_SETATTR_UID | V9P_SETATTR_GID)) {
		err = srv_set_owner(f, (t->valid & V9P_SETATTR_UID) ? t->uid : (uid_t)-1,
				    (t->valid & V9P_SETATTR_GID) ? t->gid : (gid_t)-1);
		if (err < 0)
			goto out;
	}
	if (t->valid & V9P_SETATTR_MODE) {
		err = srv_set_mode(f, t->mode);
		if (err == -EPERM)
			err = srv_drop_setid(f, t->mode);
		if (err < 0)
			goto out;
	}
	if (t->valid & V9P_SETATTR_SIZE) {
		err = srv_set_size(f, t->size);
		if (err < 0)
			goto out;
		/*
		 * truncate(2) asks for mtime "now" with the size, and the
		 * truncation has just set it. A second, separate utimensat()
		 * would need ownership, where truncate needs only write access.
		 */
		if ((t->valid & (V9P_SETATTR_MTIME | V9P_SETATTR_MTIME_SET)) ==
		    V9P_SETATTR_MTIME)
			t->valid &= ~V9P_SETATTR_MTIME;
	}
	if (t->valid & (V9P_SETATTR_ATIME | V9P_SETATTR_MTIME)) {
		struct timespec ts[2] = {
			{ .tv_nsec = UTIME_OMIT }, { .tv_nsec = UTIME_OMIT },
		};

		if (t->valid & V9P_SETATTR_ATIME) {
			if (t->valid & V9P_SETATTR_ATIME_SET) {
				ts[0].tv_sec = (time_t)t->atime_sec;
				ts[0].tv_nsec = (long)t->atime_nsec;
			} else {
				ts[0].tv_nsec = UTIME_NOW;
			}
		}
		if (t->valid & V9P_SETATTR_MTIME) {
			if (t->valid & V9P_SETATTR_MTIME_SET) {
				ts[1].tv_sec = (time_t)t->mtime_sec;
				ts[1].tv_nsec = (long)t->mtime_nsec;
			} else {
				ts[1].tv_nsec = UTIME_NOW;
			}
		}
		err = srv_set_times(f, ts);
		if (err < 0)
			goto out;
	} else if ((t->valid & V9P_SETATTR_CTIME) && !(t->valid & ~V9P_SETATTR_CTIME)) {
		/* ctime alone: a no-op chown updates it */
		srv_set_owner(f, (uid_t)-1, (gid_t)-1);
	}
	err = srv_reply_fcall(req, V9P_RSETATTR);
out:
	srv_fid_put(f);
	return err;
}

int srv_op_fsync(struct srv_req *req)
{
	struct srv_fid *f;
	int err, r;

	err = srv_get_fid(req, req->in.tfsync.fid, &f);
	if (err < 0)
		return err;
	if (f->ofd < 0) {
		err = -EBADF;
		goto out;
	}
	r = req->in.tfsync.datasync ? fdatasync(f->ofd) : fsync(f->ofd);
	err = r < 0 ? -errno : srv_reply_fcall(req, V9P_RFSYNC);
out:
	srv_fid_put(f);
	return err;
}

static int lock_fill(struct flock *fl, uint8_t type, uint64_t start, uint64_t length)
{
	memset(fl, 0, sizeof(*fl));
	switch (type) {
	case V9P_LOCK_TYPE_RDLCK:
		fl->l_type = F_RDLCK;
		break;
	case V9P_LOCK_TYPE_WRLCK:
		fl->l_type = F_WRLCK;
		break;
	case V9P_LOCK_TYPE_UNLCK:
		fl->l_type = F_UNLCK;
		break;
	default:
		return -EINVAL;
	}
	if (start > (uint64_t)INT64_MAX || length > (uint64_t)INT64_MAX)
		return -EINVAL;
	fl->l_whence = SEEK_SET;
	fl->l_start = (off_t)start;
	fl->l_len = (off_t)length;	/* 0: to the end, as on the wire */
	return 0;
}

static bool lock_waits(const struct v9p_tlock *t)
{
	return (t->flags & V9P_LOCK_FLAGS_BLOCK) && t->type != V9P_LOCK_TYPE_UNLCK;
}

int srv_op_lock(struct srv_req *req)
{
	struct v9p_tlock *t = &req->in.tlock;
	struct srv_fid *f;
	struct flock fl;
	bool wait;
	int err;

	err = srv_get_fid(req, t->fid, &f);
	if (err < 0)
		return err;
	if (f->ofd < 0) {
		err = -EBADF;
		goto out;
	}
	err = lock_fill(&fl, t->type, t->start, t->length);
	if (err < 0)
		goto out;
	/*
	 * A blocking request waits here, on a worker thread (never a
	 * connection's), until the lock is free or a Tflush interrupts it
	 * (EINTR: LOCK_BLOCKED, and the client polls as it would anyway).
	 * Past the limit of waiting requests it does not wait at all.
	 */
	wait = lock_waits(t) && srv_limit_wait_take(req->conn);
	if (fcntl(f->ofd, wait ? F_OFD_SETLKW : F_OFD_SETLK, &fl) == 0)
		req->out.rlock.status = V9P_LOCK_SUCCESS;
	else if (errno == EAGAIN || errno == EACCES || errno == EINTR)
		req->out.rlock.status = V9P_LOCK_BLOCKED;
	else
		req->out.rlock.status = V9P_LOCK_ERROR;
	if (wait)
		srv_limit_wait_give(req->conn);
	err = srv_reply_fcall(req, V9P_RLOCK);
out:
	srv_fid_put(f);
	return err;
}

int srv_op_getlock(struct srv_req *req)
{
	struct v9p_tgetlock *t = &req->in.tgetlock;
	struct v9p_rgetlock *r = &req->out.rgetlock;
	struct srv_fid *f;
	struct flock fl;
	int err;

	err = srv_get_fid(req, t->fid, &f);
	if (err < 0)
		return err;
	if (f->ofd < 0) {
		err = -EBADF;
		goto out;
	}
	err = lock_fill(&fl, t->type, t->start, t->length);
	if (err < 0)
		goto out;
	if (fcntl(f->ofd, F_OFD_GETLK, &fl) < 0) {
		err = -errno;
		goto out;
	}
	r->client_id = t->client_id;
	if (fl.l_type == F_UNLCK) {
		r->type = V9P_LOCK_TYPE_UNLCK;
		r->start = t->start;
		r->length = t->length;
		r->proc_id = t->proc_id;
	} else {
		r->type = fl.l_type == F_RDLCK ? V9P_LOCK_TYPE_RDLCK : V9P_LOCK_TYPE_WRLCK;
		r->start = (uint64_t)fl.l_start;
		r->length = (uint64_t)fl.l_len;
		/* the holder is another fid: its process is not known here */
		r->proc_id = fl.l_pid > 0 ? (uint32_t)fl.l_pid : 0;
		r->client_id.len = 0;
		r->client_id.s = "";
	}
	err = srv_reply_fcall(req, V9P_RGETLOCK);
out:
	srv_fid_put(f);
	return err;
}

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/*
 * The qid of directory entry de of the directory f has open, the one a walk
 * to it answers. d_ino cannot be trusted for that: a mount point's d_ino is
 * the covered directory's, not the mounted root's, and its device is not
 * the directory's. So each entry is looked up (statx without syncing, which
 * a network filesystem can answer from its cache); ".." of the export root
 * is the root itself, as a walk to it is. An entry gone meanwhile keeps
 * d_ino on the directory's own device.
 */
static void dirent_qid(struct srv_fid *f, const struct linux_dirent64 *de,
		       struct v9p_qid *q)
{
	const char *name = de->d_name;
	struct statx sx;

	q->version = 0;
	if (name[0] == '.' && name[1] == '.' && !name[2] &&
	    f->dev == srv_cfg.root_dev && f->ino == srv_cfg.root_ino)
		name = ".";
	if (statx(f->ofd, name, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT | AT_STATX_DONT_SYNC,
		  STATX_TYPE | STATX_INO, &sx) == 0 && (sx.stx_mask & STATX_INO)) {
		q->path = srv_qid_path(makedev(sx.stx_dev_major, sx.stx_dev_minor),
				       (ino_t)sx.stx_ino);
		q->type = srv_qid_type(sx.stx_mode);
		return;
	}
	q->path = srv_qid_path(f->dev, (ino_t)de->d_ino);
	q->type = de->d_type == DT_DIR ? V9P_QTDIR :
		  de->d_type == DT_LNK ? V9P_QTSYMLINK : V9P_QTFILE;
}

/*
 * Treaddir: entries from the host directory with their own d_off as the
 * resume cookie, so a client's offset stays valid however the directory
 * changes meanwhile (as far as the host filesystem's cookies do).
 */
int srv_op_readdir(struct srv_req *req)
{
	struct v9p_treaddir *t = &req->in.treaddir;
	uint32_t max = req->bufsize - V9P_RREAD_HDRSZ, count = t->count, used = 0;
	uint8_t *out = req->tx + V9P_RREAD_HDRSZ;
	char dbuf[16384];
	struct srv_fid *f;
	uint64_t cookie = t->offset;
	int err, hl;
	bool full = false;

	err = srv_get_fid(req, t->fid, &f);
	if (err < 0)
		return err;
	if (f->ofd < 0 || !S_ISDIR(f->ftype)) {
		err = f->ofd < 0 ? -EBADF : -ENOTDIR;
		goto out;
	}
	if (count > max)
		count = max;
	pthread_mutex_lock(&f->lock);
	while (!full) {
		long n, pos;

		if (cookie > (uint64_t)INT64_MAX) {
			err = -EINVAL;
			break;
		}
		if (lseek(f->ofd, (off_t)cookie, SEEK_SET) < 0) {
			err = -errno;
			break;
		}
		n = syscall(SYS_getdents64, f->ofd, dbuf,
			    count < sizeof(dbuf) ? (size_t)count + 512 : sizeof(dbuf));
		if (n < 0) {
			err = -errno;
			break;
		}
		if (n == 0)
			break;
		for (pos = 0; pos < n;) {
			struct linux_dirent64 *de = (struct linux_dirent64 *)(dbuf + pos);
			struct v9p_dirent e;
			int len;

			pos += de->d_reclen;
			dirent_qid(f, de, &e.qid);
			e.offset = (uint64_t)de->d_off;
			e.type = de->d_type;
			v9p_str_set(&e.name, de->d_name);
			len = v9p_dirent_pack(&e, out + used, count - used);
			if (len < 0) {
				full = true;
				break;
			}
			used += (uint32_t)len;
			cookie = (uint64_t)de->d_off;
		}
	}
	pthread_mutex_unlock(&f->lock);
	if (err < 0 && used == 0)
		goto out;
	if (used == 0 && full) {
		err = -EINVAL;	/* count too small for one entry */
		goto out;
	}
	req->out.type = V9P_RREADDIR;
	req->out.tag = req->tag;
	req->out.rreaddir.count = used;
	hl = v9p_pack_io_hdr(&req->out, req->tx, req->bufsize);
	if (hl < 0) {
		err = hl;
		goto out;
	}
	srv_reply(req, hl + (int)used);
	err = 0;
out:
	srv_fid_put(f);
	return err;
}
