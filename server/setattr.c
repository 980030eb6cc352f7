// SPDX-License-Identifier: GPL-2.0
/*
 * setattr.c - attribute changes on the file a fid holds (wstat and
 * Tsetattr share them). All of them act on the fid's own inode through its
 * descriptor, never by name, so a symlink swapped in under the same name
 * is never followed.
 *
 * Every change of a file's mode that v9fsd makes, and every change that
 * clears set-id bits as a side effect (chown, truncation), is made under
 * the file's mode lock, so that the one step taken as root on a user's
 * behalf (srv_drop_setid()) sees no such change between its check and
 * its chmod.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "srv.h"
#include "ops.h"

/*
 * Mode locks, by inode: a fixed set of mutexes, an inode hashed to one.
 * Two inodes may share a lock; nothing is ever held across a request.
 */
#define MODE_LOCKS	64

static pthread_mutex_t mode_locks[MODE_LOCKS] = {
	[0 ... MODE_LOCKS - 1] = PTHREAD_MUTEX_INITIALIZER
};

static pthread_mutex_t *mode_lock(const struct srv_fid *f)
{
	uint64_t h = (uint64_t)f->ino * 0x9e3779b97f4a7c15ull ^ (uint64_t)f->dev;

	return &mode_locks[(h >> 32) % MODE_LOCKS];
}

static int set_mode_locked(struct srv_fid *f, uint64_t mode)
{
	char p[64];
	int fd, err = 0;

	if (S_ISLNK(f->ftype))
		return -EOPNOTSUPP;	/* Linux has no symlink modes */
	if (f->ofd >= 0)
		return fchmod(f->ofd, (mode_t)(mode & 07777)) < 0 ? -errno : 0;
	if (srv_cfg.proc_ok) {
		srv_proc_path(f->pfd, p, sizeof(p));
		return chmod(p, (mode_t)(mode & 07777)) < 0 ? -errno : 0;
	}
	pthread_mutex_lock(&f->lock);
	fd = srv_reopen(f, S_ISDIR(f->ftype) ? O_RDONLY | O_DIRECTORY : O_RDONLY);
	pthread_mutex_unlock(&f->lock);
	if (fd < 0)
		return fd;
	if (fchmod(fd, (mode_t)(mode & 07777)) < 0)
		err = -errno;
	close(fd);
	return err;
}

/* change(f, arg) under f's mode lock. */
static int under_mode_lock(struct srv_fid *f, int (*change)(struct srv_fid *, uint64_t),
			   uint64_t arg)
{
	pthread_mutex_t *l = mode_lock(f);
	int err;

	pthread_mutex_lock(l);
	err = change(f, arg);
	pthread_mutex_unlock(l);
	return err;
}

int srv_set_mode(struct srv_fid *f, mode_t mode)
{
	return under_mode_lock(f, set_mode_locked, mode);
}

static bool same_state(const struct stat *a, const struct stat *b)
{
	return a->st_mode == b->st_mode && a->st_uid == b->st_uid && a->st_gid == b->st_gid;
}

/*
 * Before a write or a truncation by a user without CAP_FSETID, the client's
 * kernel clears the file's set-uid and set-gid bits, and a 9P client asks
 * for that as a change of mode (Tsetattr or Twstat), which only the owner
 * may make. A local file system needs no ownership for it, only the write
 * permission. So when the user's chmod is refused, a mode that differs from
 * the file's only by dropping set-id bits of a regular file is applied with
 * root's rights if the user may write the file (else the write's EACCES).
 *
 * The check is made as the user and the change as root: in between, the
 * file must not change, or a chmod would undo the change (an owner's chmod
 * to a mode the user may not write, say). Every change v9fsd makes to a
 * mode, owner or size takes the file's mode lock, held here from the check
 * to the change; a change made meanwhile by anything else (a write that
 * clears set-id bits, a local process) is seen in the mode, owner and
 * group, compared as root right before the change: the check is then made
 * again. The change itself, when it drops what a write drops on a local
 * filesystem (set-uid, and set-gid with group execute), is a chown to the
 * same owner and group: the kernel then takes those bits off the mode the
 * file has at that moment, under the inode's lock, so that not even a
 * local chmod right after the comparison is undone. Any other drop is a
 * chmod, with that last window left open.
 */
#define DROP_TRIES	3

/* The set-id bits a chown takes off a regular file of mode m, as root. */
static mode_t chown_drops(mode_t m)
{
	mode_t d = m & S_ISUID;

	if ((m & S_ISGID) && (m & S_IXGRP))
		d |= S_ISGID;
	return d;
}

/*
 * Take the set-id bits dropped off f's mode as a chown by root does (see
 * above), or by chmod to mode. Root, under the mode lock.
 */
static int drop_locked(struct srv_fid *f, mode_t cur, mode_t dropped, mode_t mode)
{
	if (dropped != chown_drops(cur))
		return set_mode_locked(f, mode);
	/* and no chmod after: set-id bits seen again were put back since */
	if (fchownat(f->pfd, "", (uid_t)-1, (gid_t)-1, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	return 0;
}

int srv_drop_setid(struct srv_fid *f, mode_t mode)
{
	pthread_mutex_t *l = mode_lock(f);
	struct stat st, now;
	mode_t cur, dropped;
	int err = -EAGAIN, tries;

	if (!srv_cfg.as_root || !S_ISREG(f->ftype))
		return -EPERM;
	mode &= 07777;
	pthread_mutex_lock(l);
	for (tries = 0; tries < DROP_TRIES && err == -EAGAIN; tries++) {
		/* as the user: its file-system ids, no capabilities */
		err = srv_user_become(f->user);
		if (err == 0)
			err = srv_fid_stat(f, &st);
		if (err < 0)
			break;
		cur = st.st_mode & 07777;
		dropped = cur & ~mode;
		if ((mode & ~cur) || !dropped || (dropped & ~(mode_t)(S_ISUID | S_ISGID))) {
			err = -EPERM;
			break;
		}
		if (syscall(SYS_faccessat2, f->pfd, "", W_OK, AT_EACCESS | AT_EMPTY_PATH) < 0) {
			err = errno == EACCES || errno == EROFS ? -errno : -EPERM;
			break;
		}
		err = srv_user_become_root();
		if (err == 0)
			err = srv_fid_stat(f, &now);
		if (err == 0)
			err = same_state(&st, &now) ? drop_locked(f, cur, dropped, mode) : -EAGAIN;
	}
	pthread_mutex_unlock(l);
	/* fails closed: a thread that cannot switch back serves nothing */
	srv_user_become(f->user);
	return err == -EAGAIN ? -EPERM : err;
}

static int set_size_locked(struct srv_fid *f, uint64_t size)
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

/* A truncation by a user who is not the owner clears set-id bits. */
int srv_set_size(struct srv_fid *f, uint64_t size)
{
	return under_mode_lock(f, set_size_locked, size);
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

/* A change of owner or group clears set-id bits. */
int srv_set_owner(struct srv_fid *f, uid_t uid, gid_t gid)
{
	pthread_mutex_t *l = mode_lock(f);
	int err = 0;

	pthread_mutex_lock(l);
	if (fchownat(f->pfd, "", uid, gid, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0)
		err = -errno;
	pthread_mutex_unlock(l);
	return err;
}
