// SPDX-License-Identifier: GPL-2.0
/*
 * open.c - opening and creating files, shared by Topen/Tcreate (9P2000,
 * .u) and Tlopen/Tlcreate (.L), hard links (DMLINK, Tlink), renames and
 * removes by a fid's name.
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

uint32_t srv_iounit(struct srv_conn *c)
{
	return c->msize - V9P_IOHDRSZ;
}

/*
 * Remove the file f names. The name is checked to still lead to the same
 * inode first, so a remove after a rename behind v9fsd's back does not hit
 * a different file that took the old name.
 */
int srv_do_remove(struct srv_fid *f)
{
	struct stat st;
	const char *base;
	char *path;
	int dfd, err = 0;

	if (srv_cfg.readonly)
		return -EROFS;
	srv_names_rdlock();
	path = srv_fid_path(f);
	if (!path) {
		err = -ENOMEM;
		goto out;
	}
	dfd = srv_fid_parent(f, path, &base, &st);
	if (dfd < 0) {
		err = dfd;
		goto out;
	}
	if (unlinkat(dfd, base, S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0) < 0)
		err = -errno;
	close(dfd);
out:
	srv_names_unlock();
	free(path);
	return err;
}

/* ORCLOSE: the file goes at clunk; a remove that fails is not the clunk's. */
static int remove_at_clunk(struct srv_fid *f)
{
	srv_do_remove(f);
	return 0;
}

/*
 * Open the file f holds with open(2) flags; f must not be open yet. Only
 * regular files and directories are ever opened (srv_reopen()).
 */
int srv_fid_open(struct srv_fid *f, int flags, bool rclose, struct v9p_qid *qid)
{
	struct stat st;
	int fd, err;

	if (srv_cfg.readonly && ((flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC)))
		return -EROFS;
	pthread_mutex_lock(&f->lock);
	if (f->gone) {
		err = -EBADF;
		goto out;
	}
	if (f->ofd >= 0 || f->xattr) {
		err = -EBUSY;
		goto out;
	}
	if (S_ISDIR(f->ftype)) {
		/* reading a directory moved out of the export would list outside */
		err = srv_fid_beneath(f);
		if (err < 0)
			goto out;
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
	f->oflags = flags;
	f->at_clunk = rclose ? remove_at_clunk : NULL;
	f->dir_off = 0;
	f->dir_cookie = 0;
	/* last: Tread and Twrite look at ofd without the lock, then at oflags */
	__atomic_store_n(&f->ofd, fd, __ATOMIC_RELEASE);
	srv_qid_from_stat(&st, qid);
	err = 0;
out:
	pthread_mutex_unlock(&f->lock);
	return err;
}

/*
 * After creating the entry path (root-relative; consumed) in df, give df's
 * number to a new fid naming it: open as fd with flags, or not open when
 * fd is -1 (special files). df itself stays the directory for whoever
 * still holds it. The caller holds the names lock.
 */
static int become_child(struct srv_conn *c, struct srv_fid *df, const char *name,
			char *path, int fd, int flags, bool rclose, struct v9p_qid *qid)
{
	struct srv_fid *nf;
	struct stat st;
	int pfd, err;

	if (!path) {
		err = -ENOMEM;
		goto fail;
	}
	pfd = fd >= 0 ? fcntl(fd, F_DUPFD_CLOEXEC, 0) :
	      srv_open_beneath(df->pfd, name, O_PATH, 0);
	if (pfd < 0) {
		err = pfd == -1 ? -errno : pfd;
		goto fail;
	}
	if (fstatat(pfd, "", &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0) {
		err = -errno;
		close(pfd);
		goto fail;
	}
	nf = srv_fid_new(c, df->fid, &err);
	if (!nf) {
		close(pfd);
		goto fail;
	}
	srv_fid_init(nf, pfd, path, df->user, &st);
	nf->ofd = fd;
	nf->oflags = flags;
	nf->at_clunk = rclose ? remove_at_clunk : NULL;
	srv_qid_from_stat(&st, qid);
	err = srv_fid_replace(c, df, nf);
	srv_fid_put(nf);	/* on failure this closes fd and frees path */
	return err;
fail:
	free(path);
	if (fd >= 0)
		close(fd);
	return err;
}

/* df must be a directory fid, not open, still in the table; under df->lock. */
static int check_dir_fid(struct srv_fid *df)
{
	if (df->gone)
		return -EBADF;
	if (df->ofd >= 0 || df->xattr)
		return -EBUSY;
	if (!S_ISDIR(df->ftype))
		return -ENOTDIR;
	return 0;
}

/*
 * Create (or, without O_EXCL, open) the regular file name in dfd. An
 * existing entry is opened only if it is a regular file: creation is tried
 * with O_EXCL first, and when the name exists it is looked up without
 * opening (O_PATH), checked, and that very inode is reopened. So no device
 * node, fifo or socket is ever opened, and no open can block.
 */
static int create_file(int dfd, const char *name, int flags, mode_t mode)
{
	struct stat st;
	int fd, pfd;

	for (int tries = 0; tries < 3; tries++) {
		fd = srv_open_beneath(dfd, name, flags | O_CREAT | O_EXCL, mode);
		if (fd != -EEXIST || (flags & O_EXCL))
			return fd;
		pfd = srv_open_beneath(dfd, name, O_PATH, 0);
		if (pfd == -ENOENT)
			continue;	/* removed meanwhile: create it after all */
		if (pfd < 0)
			return pfd;
		if (fstat(pfd, &st) < 0) {
			fd = -errno;
		} else if (!S_ISREG(st.st_mode)) {
			fd = S_ISDIR(st.st_mode) ? -EISDIR : S_ISLNK(st.st_mode) ? -ELOOP :
			     -EPERM;
		} else {
			fd = srv_reopen_checked(pfd, dfd, name, S_IFREG,
						flags & ~(O_CREAT | O_EXCL));
		}
		close(pfd);
		return fd;
	}
	return -ENOENT;
}

static bool user_in_group(const struct srv_user *u, gid_t gid)
{
	if (u->gid == gid)
		return true;
	for (int i = 0; i < u->ngroups; i++)
		if (u->groups[i] == gid)
			return true;
	return false;
}

/*
 * Act as u, except that entries the thread makes get the group gid, which
 * a 9P2000.L client names when it creates (its process's fsgid; -1: none).
 * The kernel then makes the entry in that group in one step, as a local
 * filesystem does: a set-gid directory's group and the set-id bits of the
 * mode are handled as they are there, and no chown and chmod follow that
 * could undo a change made to the entry in between. Only a group u is in
 * (any group for root); for another one u's own group stays, as the
 * kernel would refuse u the chown. The caller switches back with
 * srv_user_become(u) after the entry is made, whatever this returned.
 */
int srv_become_creator(const struct srv_user *u, gid_t gid)
{
	struct srv_user as;

	if (!srv_cfg.as_root || gid == (gid_t)-1 || gid == u->gid)
		return 0;
	if (u->uid != 0 && !user_in_group(u, gid))
		return 0;
	as = *u;
	as.gid = gid;
	as.serial = ULONG_MAX;	/* no user has it: a full switch there and back */
	return srv_user_become(&as);
}

/*
 * Create a regular file (or, with O_DIRECTORY in flags, a directory) name
 * in directory fid df, open it with flags and give df's number to a fid
 * naming the new file. gid, unless -1, becomes the file's group (.L passes
 * the client's gid; see srv_become_creator()).
 */
int srv_create_in(struct srv_conn *c, struct srv_fid *df, const char *name, int flags,
		  mode_t mode, gid_t gid, bool rclose, struct v9p_qid *qid)
{
	char *path = NULL;
	int fd, err;

	srv_names_rdlock();
	pthread_mutex_lock(&df->lock);
	err = check_dir_fid(df);
	if (err == 0)
		err = srv_fid_beneath(df);
	if (err == 0)
		err = srv_become_creator(df->user, gid);
	if (err < 0) {
		srv_user_become(df->user);
		pthread_mutex_unlock(&df->lock);
		goto out;
	}
	if (flags & O_DIRECTORY) {
		if (mkdirat(df->pfd, name, mode & 07777) < 0) {
			err = -errno;
			srv_user_become(df->user);
			pthread_mutex_unlock(&df->lock);
			goto out;
		}
		flags = O_RDONLY | O_DIRECTORY;
		fd = srv_open_beneath(df->pfd, name, flags, 0);
	} else {
		/* an existing file opened with O_CREAT keeps its group */
		fd = create_file(df->pfd, name, flags, mode);
	}
	/* a thread that cannot switch back goes no further */
	err = srv_user_become(df->user);
	if (err < 0 && fd >= 0) {
		close(fd);
		fd = err;
	}
	if (fd >= 0)
		path = srv_path_join(df->path, name);
	pthread_mutex_unlock(&df->lock);
	if (fd < 0) {
		err = fd;
		goto out;
	}
	err = become_child(c, df, name, path, fd, flags, rclose, qid);
out:
	srv_names_unlock();
	return err;
}

/*
 * The work of Topen, Tlopen, Tcreate and Tlcreate: open the file fid f
 * holds (name NULL), or create name in directory f (see srv_create_in()),
 * mark it for removal at clunk if rclose, and give its qid and the iounit.
 */
int srv_open_fid(struct srv_conn *c, struct srv_fid *f, const char *name, int flags,
		 mode_t mode, gid_t gid, bool rclose, struct v9p_qid *qid,
		 uint32_t *iounit)
{
	int err;

	if (rclose && srv_cfg.readonly)
		return -EROFS;
	if (name)
		err = srv_create_in(c, f, name, flags, mode, gid, rclose, qid);
	else
		err = srv_fid_open(f, flags, rclose, qid);
	if (err < 0)
		return err;
	*iounit = srv_iounit(c);
	return 0;
}

/* Give df's number to a fid naming an entry just made by other means. */
int srv_become_child(struct srv_conn *c, struct srv_fid *df, const char *name,
		     struct v9p_qid *qid)
{
	char *path;
	int err;

	srv_names_rdlock();
	pthread_mutex_lock(&df->lock);
	path = srv_path_join(df->path, name);
	pthread_mutex_unlock(&df->lock);
	err = become_child(c, df, name, path, -1, 0, false, qid);
	srv_names_unlock();
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
