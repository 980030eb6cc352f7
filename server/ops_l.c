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

int srv_op_statfs(struct srv_call *call)
{
	struct v9p_rstatfs *r = &call->req->out.rstatfs;
	struct statfs sf;

	if (fstatfs(call->fid[0]->pfd, &sf) < 0)
		return -errno;
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
	return 0;
}

int srv_op_lopen(struct srv_call *call)
{
	struct v9p_tlopen *t = &call->req->in.tlopen;
	struct v9p_rlopen *r = &call->req->out.rlopen;

	return srv_open_fid(call->conn, call->fid[0], NULL,
			    dotl_to_flags(t->flags) & ~(O_CREAT | O_EXCL), 0, (gid_t)-1, false,
			    &r->qid, &r->iounit);
}

int srv_op_lcreate(struct srv_call *call)
{
	struct v9p_tlcreate *t = &call->req->in.tlcreate;
	struct v9p_rlcreate *r = &call->req->out.rlcreate;

	return srv_open_fid(call->conn, call->fid[0], call->name[0],
			    dotl_to_flags(t->flags) & ~O_DIRECTORY, t->mode & 07777,
			    t->gid == V9P_NONUNAME ? (gid_t)-1 : (gid_t)t->gid, false,
			    &r->qid, &r->iounit);
}

/*
 * Tsymlink, Tmknod and Tmkdir: make name in directory fid d: a symlink to
 * target when target is not NULL, else a directory or a node of mode, in
 * the client's group (srv_become_creator()), and give its qid.
 */
static int make_entry(struct srv_fid *d, const char *name, const char *target,
		      mode_t mode, dev_t dev, uint32_t gid, struct v9p_qid *qid)
{
	struct stat st;
	int err, r, efd;

	err = srv_become_creator(d->user, gid == V9P_NONUNAME ? (gid_t)-1 : (gid_t)gid);
	if (err < 0) {
		srv_user_become(d->user);
		return err;
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
		return err;
	efd = srv_open_beneath(d->pfd, name, O_PATH, 0);
	if (efd < 0)
		return efd;
	if (fstat(efd, &st) < 0)
		err = -errno;
	else
		srv_qid_from_stat(&st, qid);
	close(efd);
	return err;
}

/* Before the directory fid is looked up: a target is one to PATH_MAX bytes. */
int srv_check_symlink(const struct v9p_fcall *in)
{
	const struct v9p_str *tgt = &in->tsymlink.symtgt;

	if (tgt->len == 0 || tgt->len > PATH_MAX)
		return tgt->len ? -ENAMETOOLONG : -ENOENT;
	return 0;
}

int srv_op_symlink(struct srv_call *call)
{
	struct v9p_tsymlink *t = &call->req->in.tsymlink;
	char target[PATH_MAX + 1];

	memcpy(target, t->symtgt.s, t->symtgt.len);
	target[t->symtgt.len] = '\0';
	return make_entry(call->fid[0], call->name[0], target, 0, 0, t->gid,
			  &call->req->out.rsymlink.qid);
}

/* Before the directory fid is looked up: only files, devices, fifos, sockets. */
int srv_check_mknod(const struct v9p_fcall *in)
{
	mode_t type = in->tmknod.mode & S_IFMT;

	if (type != S_IFREG && type != S_IFCHR && type != S_IFBLK &&
	    type != S_IFIFO && type != S_IFSOCK)
		return -EINVAL;
	return 0;
}

int srv_op_mknod(struct srv_call *call)
{
	struct v9p_tmknod *t = &call->req->in.tmknod;

	return make_entry(call->fid[0], call->name[0], NULL,
			  (t->mode & S_IFMT) | (t->mode & 07777), makedev(t->major, t->minor),
			  t->gid, &call->req->out.rmknod.qid);
}

int srv_op_mkdir(struct srv_call *call)
{
	struct v9p_tmkdir *t = &call->req->in.tmkdir;

	return make_entry(call->fid[0], call->name[0], NULL, S_IFDIR | (t->mode & 07777), 0,
			  t->gid, &call->req->out.rmkdir.qid);
}

/* Trename: fid[0] the file, fid[1] the directory it goes to. */
int srv_op_rename(struct srv_call *call)
{
	struct srv_fid *f = call->fid[0], *d = call->fid[1];
	char *opath, *odir = NULL, *dpath;
	const char *base;
	int err, ofd;

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
	err = srv_rename_names(ofd, odir, base, d->pfd, dpath, call->name[0]);
	close(ofd);
out:
	srv_names_unlock();
	free(opath);
	free(odir);
	free(dpath);
	return err;
}

int srv_op_renameat(struct srv_call *call)
{
	struct srv_fid *od = call->fid[0], *nd = call->fid[1];
	char *op, *np;
	int err;

	srv_names_wrlock();
	op = srv_fid_path(od);
	np = srv_fid_path(nd);
	err = op && np ? srv_rename_names(od->pfd, op, call->name[0], nd->pfd, np,
					  call->name[1]) : -ENOMEM;
	srv_names_unlock();
	free(op);
	free(np);
	return err;
}

int srv_op_unlinkat(struct srv_call *call)
{
	struct v9p_tunlinkat *t = &call->req->in.tunlinkat;

	if (unlinkat(call->fid[0]->pfd, call->name[0],
		     (t->flags & V9P_DOTL_AT_REMOVEDIR) ? AT_REMOVEDIR : 0) < 0)
		return -errno;
	return 0;
}

/* Tlink: fid[0] the directory, fid[1] the file linked to. */
int srv_op_link(struct srv_call *call)
{
	int err;

	srv_names_rdlock();
	err = srv_link_fid(call->fid[1], call->fid[0]->pfd, call->name[0]);
	srv_names_unlock();
	return err;
}

int srv_op_readlink(struct srv_call *call)
{
	struct srv_fid *f = call->fid[0];
	char *buf = call->strs;
	ssize_t n;

	if (!S_ISLNK(f->ftype))
		return -EINVAL;
	n = readlinkat(f->pfd, "", buf, PATH_MAX);
	if (n < 0)
		return -errno;
	call->req->out.rreadlink.target.s = buf;
	call->req->out.rreadlink.target.len = (uint16_t)n;
	return 0;
}

int srv_op_getattr(struct srv_call *call)
{
	struct v9p_rgetattr *r = &call->req->out.rgetattr;
	struct stat st;
	int err;

	err = srv_fid_stat(call->fid[0], &st);
	if (err < 0)
		return err;
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
	return 0;
}

/*
 * Tsetattr: owner before mode (chown clears set-id bits), size before
 * times (truncation moves mtime).
 */
int srv_op_setattr(struct srv_call *call)
{
	struct v9p_tsetattr *t = &call->req->in.tsetattr;
	struct srv_fid *f = call->fid[0];
	int err;

	if (t->valid & (V9P_SETATTR_UID | V9P_SETATTR_GID)) {
		err = srv_set_owner(f, (t->valid & V9P_SETATTR_UID) ? t->uid : (uid_t)-1,
				    (t->valid & V9P_SETATTR_GID) ? t->gid : (gid_t)-1);
		if (err < 0)
			return err;
	}
	if (t->valid & V9P_SETATTR_MODE) {
		err = srv_set_mode(f, t->mode);
		if (err == -EPERM)
			err = srv_drop_setid(f, t->mode);
		if (err < 0)
			return err;
	}
	if (t->valid & V9P_SETATTR_SIZE) {
		err = srv_set_size(f, t->size);
		if (err < 0)
			return err;
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
		return srv_set_times(f, ts);
	}
	/*
	 * ctime alone is what chown(-1, -1) sends: a no-op chown moves it, and
	 * fails as that chown fails locally (a user who does not own a file
	 * with set-id bits to clear gets EPERM)
	 */
	if ((t->valid & V9P_SETATTR_CTIME) && !(t->valid & ~V9P_SETATTR_CTIME))
		return srv_set_owner(f, (uid_t)-1, (gid_t)-1);
	return 0;
}

int srv_op_fsync(struct srv_call *call)
{
	struct srv_fid *f = call->fid[0];
	int r;

	r = call->req->in.tfsync.datasync ? fdatasync(f->ofd) : fsync(f->ofd);
	return r < 0 ? -errno : 0;
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

int srv_op_lock(struct srv_call *call)
{
	struct srv_req *req = call->req;
	struct v9p_tlock *t = &req->in.tlock;
	struct srv_fid *f = call->fid[0];
	struct flock fl;
	bool wait;
	int err;

	err = lock_fill(&fl, t->type, t->start, t->length);
	if (err < 0)
		return err;
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
	return 0;
}

int srv_op_getlock(struct srv_call *call)
{
	struct v9p_tgetlock *t = &call->req->in.tgetlock;
	struct v9p_rgetlock *r = &call->req->out.rgetlock;
	struct srv_fid *f = call->fid[0];
	struct flock fl;
	int err;

	err = lock_fill(&fl, t->type, t->start, t->length);
	if (err < 0)
		return err;
	if (fcntl(f->ofd, F_OFD_GETLK, &fl) < 0)
		return -errno;
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
	return 0;
}

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
int srv_op_readdir(struct srv_call *call)
{
	struct srv_req *req = call->req;
	struct v9p_treaddir *t = &req->in.treaddir;
	uint32_t max = req->bufsize - V9P_RREAD_HDRSZ, count = t->count, used = 0;
	uint8_t *out = req->tx + V9P_RREAD_HDRSZ;
	char dbuf[16384];
	struct srv_fid *f = call->fid[0];
	uint64_t cookie = t->offset;
	int err = 0;
	bool full = false;

	if (!S_ISDIR(f->ftype))
		return -ENOTDIR;
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
		return err;
	if (used == 0 && full)
		return -EINVAL;	/* count too small for one entry */
	req->out.rreaddir.count = used;
	return 0;
}
