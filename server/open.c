// SPDX-License-Identifier: GPL-2.0
/*
 * open.c - opening and creating files, shared by Topen/Tcreate (9P2000,
 * .u) and Tlopen/Tlcreate (.L), and hard links (DMLINK, Tlink).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "srv.h"
#include "ops.h"

/* Open the file f holds with open(2) flags; f must not be open yet. */
int srv_fid_open(struct srv_fid *f, int flags, struct v9p_qid *qid)
{
	struct stat st;
	int fd, err;

	if (srv_cfg.readonly && ((flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC)))
		return -EROFS;
	pthread_mutex_lock(&f->lock);
	if (f->ofd >= 0 || f->xattr) {
		err = -EBUSY;
		goto out;
	}
	if (S_ISDIR(f->ftype)) {
		if ((flags & O_ACCMODE) != O_RDONLY) {
			err = -EISDIR;
			goto out;
		}
		flags = O_RDONLY | O_DIRECTORY;
	}
	fd = srv_reopen(f, flags);
	if (fd < 0) {
		err = fd;
		goto out;
	}
	if (fstat(fd, &st) < 0) {
		err = -errno;
		close(fd);
		goto out;
	}
	f->ofd = fd;
	f->oflags = flags;
	f->dir_off = 0;
	f->dir_cookie = 0;
	srv_qid_from_stat(&st, qid);
	err = 0;
out:
	pthread_mutex_unlock(&f->lock);
	return err;
}

/* After creating name in df, make df name it; fd (consumed) may be -1. */
static int become_child(struct srv_fid *df, const char *name, int fd, int flags,
			struct v9p_qid *qid)
{
	struct stat st;
	char *path;
	int pfd;

	pfd = fd >= 0 ? fcntl(fd, F_DUPFD_CLOEXEC, 0) :
	      srv_open_beneath(df->pfd, name, O_PATH, 0);
	if (pfd < 0) {
		if (fd >= 0)
			close(fd);
		return pfd == -1 ? -errno : pfd;
	}
	path = srv_path_join(df->path, name);
	if (!path || fstatat(pfd, "", &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0) {
		int err = path ? -errno : -ENOMEM;

		free(path);
		close(pfd);
		if (fd >= 0)
			close(fd);
		return err;
	}
	close(df->pfd);
	free(df->path);
	df->pfd = pfd;
	df->path = path;
	df->ofd = fd;
	df->oflags = flags;
	df->ftype = st.st_mode & S_IFMT;
	df->dir_off = 0;
	df->dir_cookie = 0;
	srv_qid_from_stat(&st, qid);
	df->qtype = qid->type;
	return 0;
}

static int check_dir_fid(struct srv_fid *df)
{
	if (df->ofd >= 0 || df->xattr)
		return -EBUSY;
	if (!S_ISDIR(df->ftype))
		return -ENOTDIR;
	return 0;
}

/*
 * Create a regular file (or, with O_DIRECTORY in flags, a directory) name
 * in directory fid df, open it with flags and make df name the new file.
 * gid, unless -1, becomes the file's group (.L passes the client's gid).
 */
int srv_create_in(struct srv_fid *df, const char *name, int flags, mode_t mode,
		  gid_t gid, struct v9p_qid *qid)
{
	int fd, err;

	pthread_mutex_lock(&df->lock);
	err = check_dir_fid(df);
	if (err < 0)
		goto out;
	if (flags & O_DIRECTORY) {
		if (mkdirat(df->pfd, name, mode & 07777) < 0) {
			err = -errno;
			goto out;
		}
		flags = O_RDONLY | O_DIRECTORY;
		fd = srv_open_beneath(df->pfd, name, flags, 0);
	} else {
		fd = srv_open_beneath(df->pfd, name, flags | O_CREAT, mode);
	}
	if (fd < 0) {
		err = fd;
		goto out;
	}
	if (gid != (gid_t)-1 && srv_cfg.as_root) {
		struct stat st;

		/* best effort, as a setgid directory may already have chosen */
		if (fstat(fd, &st) == 0 && st.st_gid != gid && fchown(fd, (uid_t)-1, gid) < 0)
			err = 0;
	}
	err = become_child(df, name, fd, flags, qid);
out:
	pthread_mutex_unlock(&df->lock);
	return err;
}

/*
 * The end of Topen, Tlopen, Tcreate and Tlcreate: open the file fid f
 * holds (name NULL), or create name in directory f (see srv_create_in()),
 * mark it for removal at clunk if rclose, and reply rtype with its qid and
 * the iounit.
 */
int srv_open_reply(struct srv_req *req, struct srv_fid *f, const char *name, int flags,
		   mode_t mode, gid_t gid, bool rclose, struct v9p_qid *qid,
		   uint32_t *iounit, uint8_t rtype)
{
	int err;

	if (rclose && srv_cfg.readonly)
		return -EROFS;
	if (name)
		err = srv_create_in(f, name, flags, mode, gid, qid);
	else
		err = srv_fid_open(f, flags, qid);
	if (err < 0)
		return err;
	if (rclose)
		f->rclose = true;
	*iounit = srv_iounit(req->conn);
	return srv_reply_fcall(req, rtype);
}

/* Make df name an entry just created by other means (special files). */
int srv_become_child(struct srv_fid *df, const char *name, struct v9p_qid *qid)
{
	int err;

	pthread_mutex_lock(&df->lock);
	err = become_child(df, name, -1, 0, qid);
	pthread_mutex_unlock(&df->lock);
	return err;
}

/*
 * A hard link to target's inode as name in dfd. linkat() through the
 * target's parent and name (checked to be the same inode) needs no extra
 * privilege, unlike AT_EMPTY_PATH. The caller holds the names lock.
 */
int srv_link_fid(struct srv_fid *target, int dfd, const char *name)
{
	const char *base;
	char *path;
	int pd, err = 0;

	if (S_ISDIR(target->ftype))
		return -EPERM;
	path = srv_fid_path(target);
	if (!path)
		return -ENOMEM;
	pd = srv_fid_parent(target, path, &base, NULL);
	if (pd < 0) {
		free(path);
		return pd;
	}
	if (linkat(pd, base, dfd, name, 0) < 0)
		err = -errno;
	close(pd);
	free(path);
	return err;
}

/*
 * Rename oname in odfd to nname in ndfd and let every fid of the server
 * at or beneath the old name follow. opath/npath are the root-relative
 * names of the two directories. The caller holds the names lock for
 * writing, so no walk, remove or other rename sees the paths half done.
 */
int srv_rename_names(int odfd, const char *opath, const char *oname,
		     int ndfd, const char *npath, const char *nname)
{
	char *from, *to;

	from = srv_path_join(opath, oname);
	to = srv_path_join(npath, nname);
	if (!from || !to) {
		free(from);
		free(to);
		return -ENOMEM;
	}
	if (renameat(odfd, oname, ndfd, nname) < 0) {
		int err = -errno;

		free(from);
		free(to);
		return err;
	}
	srv_fid_rename_paths(from, to);
	free(from);
	free(to);
	return 0;
}
