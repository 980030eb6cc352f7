// SPDX-License-Identifier: GPL-2.0
/*
 * confine.c - every lookup of a client-supplied name happens here, beneath
 * the export root.
 *
 * Resolution always starts from a directory descriptor that is itself
 * beneath the root, with openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
 * RESOLVE_NO_MAGICLINKS): the kernel refuses any step out of the starting
 * directory, any symlink (9P clients resolve symlinks themselves) and any
 * /proc magic link. Names from the wire are single components checked by
 * srv_check_name(); host paths are never built by gluing the export path to
 * a client name, so a rename race can at worst make a lookup fail.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/openat2.h>

#include "srv.h"

#define SRV_RESOLVE (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)

/*
 * Open path (relative, "" meaning dirfd itself) beneath dirfd. The final
 * component is never followed if it is a symlink (O_NOFOLLOW; with O_PATH
 * that yields a descriptor of the link itself). Returns fd or -errno.
 */
int srv_open_beneath(int dirfd, const char *path, int flags, mode_t mode)
{
	struct open_how how;
	long fd;

	memset(&how, 0, sizeof(how));
	how.flags = (uint64_t)(flags | O_NOFOLLOW | O_CLOEXEC);
	if (flags & (O_CREAT | O_TMPFILE))
		how.mode = mode & 07777;
	how.resolve = SRV_RESOLVE;
	do {
		fd = syscall(SYS_openat2, dirfd, *path ? path : ".", &how, sizeof(how));
	} while (fd < 0 && errno == EAGAIN);
	if (fd < 0)
		return -errno;
	return (int)fd;
}

/*
 * Open the directory that holds path (relative to the root) as O_PATH and
 * point *base at path's last component. The root has no parent here.
 */
static int srv_open_parent(const char *path, const char **base)
{
	const char *slash;
	char *dir;
	int fd;

	if (!*path)
		return -EBUSY;
	slash = strrchr(path, '/');
	if (!slash) {
		*base = path;
		return srv_open_beneath(srv_cfg.root_fd, "", O_PATH | O_DIRECTORY, 0);
	}
	*base = slash + 1;
	dir = strndup(path, (size_t)(slash - path));
	if (!dir)
		return -ENOMEM;
	fd = srv_open_beneath(srv_cfg.root_fd, dir, O_PATH | O_DIRECTORY, 0);
	free(dir);
	return fd;
}

/*
 * Open the directory holding the file f names, given path (the caller's
 * copy of f's path, under the names lock), and point *base at the name in
 * it. The name must still lead to f's own inode: when it does not (the
 * file was renamed or removed behind v9fsd's back, or another file took
 * its name) this fails with ENOENT, so nothing but f itself is ever
 * removed, renamed or linked by name. st, if not NULL, gets f's stat.
 */
int srv_fid_parent(struct srv_fid *f, const char *path, const char **base,
		   struct stat *st)
{
	struct stat mine, cur;
	int dfd;

	if (!st)
		st = &mine;
	if (fstatat(f->pfd, "", st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (srv_is_root(st))
		return -EBUSY;
	dfd = srv_open_parent(path, base);
	if (dfd < 0)
		return dfd;
	if (fstatat(dfd, *base, &cur, AT_SYMLINK_NOFOLLOW) < 0 ||
	    cur.st_ino != st->st_ino || cur.st_dev != st->st_dev) {
		close(dfd);
		return -ENOENT;
	}
	return dfd;
}

int srv_proc_path(int fd, char *buf, size_t len)
{
	int n = snprintf(buf, len, "/proc/self/fd/%d", fd);

	return (n < 0 || (size_t)n >= len) ? -ENAMETOOLONG : 0;
}

/*
 * Open again, with open flags, the file that the O_PATH descriptor pfd
 * holds and that has file type type (S_IFREG or S_IFDIR): through our own
 * /proc/self/fd link, which reopens that very inode with a fresh permission
 * check; without /proc by name (path relative to dirfd, beneath it), kept
 * only if it is pfd's own inode. The lookup by name never blocks (O_NONBLOCK,
 * cleared afterwards unless asked for) and truncates only once the inode is
 * known to be the right one.
 */
int srv_reopen_checked(int pfd, int dirfd, const char *path, mode_t type, int flags)
{
	struct stat a, b;
	char p[64];
	int fd;

	flags &= ~(O_CREAT | O_EXCL | O_NOFOLLOW);
	if (srv_cfg.proc_ok) {
		srv_proc_path(pfd, p, sizeof(p));
		fd = open(p, flags | O_CLOEXEC);
		return fd < 0 ? -errno : fd;
	}
	fd = srv_open_beneath(dirfd, path, (flags & ~O_TRUNC) | O_NONBLOCK, 0);
	if (fd < 0)
		return fd;
	if (fstat(fd, &a) < 0 ||
	    fstatat(pfd, "", &b, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0 ||
	    a.st_ino != b.st_ino || a.st_dev != b.st_dev || (a.st_mode & S_IFMT) != type) {
		close(fd);
		return -ENOENT;
	}
	if ((!(flags & O_NONBLOCK) && fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) ||
	    ((flags & O_TRUNC) && ftruncate(fd, 0) < 0)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/*
 * Open the very file f names (not whatever its path names now) with open
 * flags. Only regular files and directories: symlinks, devices, fifos and
 * sockets are never opened (a fid's type never changes, pfd holds the
 * inode). The name, needed only without /proc, is a copy of f's path.
 */
int srv_reopen(struct srv_fid *f, int flags)
{
	char *path = NULL;
	int fd;

	if (S_ISLNK(f->ftype))
		return -ELOOP;
	if (!S_ISREG(f->ftype) && !S_ISDIR(f->ftype))
		return -EPERM;
	if (!srv_cfg.proc_ok) {
		path = srv_fid_path(f);
		if (!path)
			return -ENOMEM;
	}
	fd = srv_reopen_checked(f->pfd, srv_cfg.root_fd, path ? path : "", f->ftype, flags);
	free(path);
	return fd;
}

/*
 * Whether the file f names is still where f's path says, beneath the root:
 * a directory moved out of the export on the host is no longer reachable
 * through a fid held in it (ENOENT). The root itself cannot move out. The
 * lookup goes by a copy of f's path: no lock is held while it runs.
 */
int srv_fid_beneath(struct srv_fid *f)
{
	struct stat a;
	char *path;
	int fd, err = 0;

	path = srv_fid_path(f);
	if (!path)
		return -ENOMEM;
	if (!*path) {
		free(path);
		return 0;
	}
	fd = srv_open_beneath(srv_cfg.root_fd, path, O_PATH, 0);
	free(path);
	if (fd < 0)
		return fd == -ENOTDIR ? -ENOENT : fd;
	if (fstat(fd, &a) < 0 || a.st_ino != f->ino || a.st_dev != f->dev)
		err = -ENOENT;
	close(fd);
	return err;
}

/* "dir/name" (or "name" at the root); NULL when out of memory. */
char *srv_path_join(const char *dir, const char *name)
{
	size_t dl = strlen(dir), nl = strlen(name);
	char *p = malloc(dl + nl + 2);

	if (!p)
		return NULL;
	if (dl) {
		memcpy(p, dir, dl);
		p[dl++] = '/';
	}
	memcpy(p + dl, name, nl + 1);
	return p;
}

/* The parent of a relative path; the root's parent is the root. */
char *srv_path_parent(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup("");
	return strndup(path, (size_t)(slash - path));
}

/*
 * Copy a single path component from the wire into buf (NAME_MAX + 1 bytes).
 * "." and ".." and anything with '/' are refused: callers handle ".." in
 * walks themselves. The codec already refused embedded NULs.
 */
int srv_check_name(const struct v9p_str *name, char *buf)
{
	if (name->len == 0 || name->len > NAME_MAX)
		return name->len ? -ENAMETOOLONG : -EINVAL;
	if (memchr(name->s, '/', name->len) || memchr(name->s, '\0', name->len))
		return -EINVAL;
	if ((name->len == 1 && name->s[0] == '.') ||
	    (name->len == 2 && name->s[0] == '.' && name->s[1] == '.'))
		return -EINVAL;
	memcpy(buf, name->s, name->len);
	buf[name->len] = '\0';
	return 0;
}

int srv_is_root(const struct stat *st)
{
	return st->st_dev == srv_cfg.root_dev && st->st_ino == srv_cfg.root_ino;
}
