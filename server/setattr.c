// SPDX-License-Identifier: GPL-2.0
/*
 * setattr.c - attribute changes on the file a fid holds (wstat and
 * Tsetattr share them). All of them act on the fid's own inode through its
 * descriptor, never by name, so a symlink swapped in under the same name
 * is never followed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/stat.h>

#include "srv.h"
#include "ops.h"

int srv_set_mode(struct srv_fid *f, mode_t mode)
{
	char p[64];
	int fd, err = 0;

	if (S_ISLNK(f->ftype))
		return -EOPNOTSUPP;	/* Linux has no symlink modes */
	if (f->ofd >= 0)
		return fchmod(f->ofd, mode & 07777) < 0 ? -errno : 0;
	if (srv_cfg.proc_ok) {
		srv_proc_path(f->pfd, p, sizeof(p));
		return chmod(p, mode & 07777) < 0 ? -errno : 0;
	}
	pthread_mutex_lock(&f->lock);
	fd = srv_reopen(f, S_ISDIR(f->ftype) ? O_RDONLY | O_DIRECTORY : O_RDONLY);
	pthread_mutex_unlock(&f->lock);
	if (fd < 0)
		return fd;
	if (fchmod(fd, mode & 07777) < 0)
		err = -errno;
	close(fd);
	return err;
}

int srv_set_size(struct srv_fid *f, uint64_t size)
{
	int fd, err = 0;

	if (S_ISDIR(f->ftype))
		return -EISDIR;
	if (!S_ISREG(f->ftype))
		return -EINVAL;
	if (size > (uint64_t)INT64_MAX)
		return -EFBIG;
	if (f->ofd >= 0 && (f->oflags & O_ACCMODE) != O_RDONLY)
		return ftruncate(f->ofd, (off_t)size) < 0 ? -errno : 0;
	pthread_mutex_lock(&f->lock);
	fd = srv_reopen(f, O_WRONLY);
	pthread_mutex_unlock(&f->lock);
	if (fd < 0)
		return fd;
	if (ftruncate(fd, (off_t)size) < 0)
		err = -errno;
	close(fd);
	return err;
}

/* ts[0] atime, ts[1] mtime; UTIME_OMIT / UTIME_NOW as utimensat(2). */
int srv_set_times(struct srv_fid *f, const struct timespec ts[2])
{
	char p[64];

	if (utimensat(f->pfd, "", ts, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOENT)
		return -errno;
	/* kernels before 5.8 lack AT_EMPTY_PATH here */
	if (f->ofd >= 0)
		return futimens(f->ofd, ts) < 0 ? -errno : 0;
	if (!srv_cfg.proc_ok || S_ISLNK(f->ftype))
		return -EOPNOTSUPP;
	srv_proc_path(f->pfd, p, sizeof(p));
	return utimensat(AT_FDCWD, p, ts, 0) < 0 ? -errno : 0;
}

int srv_set_owner(struct srv_fid *f, uid_t uid, gid_t gid)
{
	if (fchownat(f->pfd, "", uid, gid, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	return 0;
}
