// SPDX-License-Identifier: GPL-2.0
/*
 * stats.c - how many messages of each type v9fsd received (-S FILE).
 *
 * The file has one line per request type, "Tread 123", in type order,
 * every request type of the three dialects listed (zeros included) so that
 * readers can rely on the set of lines; messages of a type no dialect
 * defines are summed on a last line "unknown N".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/stat.h>

#include "srv.h"

static unsigned long counts[256];

void srv_stats_count(uint8_t type)
{
	__atomic_add_fetch(&counts[type], 1, __ATOMIC_RELAXED);
}

static bool is_request_type(unsigned int t)
{
	return !(t & 1) && t != V9P_TLERROR && t != V9P_TERROR &&
	       strcmp(v9p_type_name((uint8_t)t), "unknown") != 0;
}

/*
 * -S FILE is written by root, in a directory others may be able to write
 * to: the directory is opened once at start-up and every name is taken
 * relative to it; the new contents go to a fresh, randomly named file
 * (O_EXCL|O_NOFOLLOW: never a planted file or symlink) that is renamed
 * over FILE (which replaces a symlink there rather than following it).
 * FILE inside the export, where clients make names, is refused.
 */
static int inside_export(int dfd)
{
	struct stat st, up;
	int fd = dup(dfd), err = 0;

	if (fd < 0)
		return -errno;
	for (int depth = 0;; depth++) {
		int parent;

		if (fstat(fd, &st) < 0) {
			err = -errno;
			break;
		}
		if (st.st_dev == srv_cfg.root_dev && st.st_ino == srv_cfg.root_ino) {
			err = 1;
			break;
		}
		if (depth > 4096) {
			err = -ELOOP;
			break;
		}
		parent = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (parent < 0 || fstat(parent, &up) < 0) {
			err = -errno;
			if (parent >= 0)
				close(parent);
			break;
		}
		close(fd);
		fd = parent;
		if (up.st_dev == st.st_dev && up.st_ino == st.st_ino)
			break;	/* the file system's root: outside */
	}
	close(fd);
	return err;
}

/*
 * Open the directory of file for srv_stats_write(); after the export is
 * open (a FILE beneath it is refused). 0, or a negative errno.
 */
int srv_stats_open(const char *file)
{
	const char *slash = strrchr(file, '/');
	char *dir;
	int fd, in;

	if (!*file || (slash && !slash[1]))
		return -EINVAL;
	if (!slash)
		dir = strdup(".");
	else if (slash == file)
		dir = strdup("/");
	else
		dir = strndup(file, (size_t)(slash - file));
	if (!dir)
		return -ENOMEM;
	fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (fd < 0)
		return -errno;
	in = inside_export(fd);
	if (in != 0) {
		close(fd);
		return in > 0 ? -EXDEV : in;
	}
	srv_cfg.stats_dir_fd = fd;
	srv_cfg.stats_base = slash ? slash + 1 : file;
	return 0;
}

/* A new file beside FILE that nothing else names yet. */
static int open_fresh(char *name, size_t len)
{
	for (int tries = 0; tries < 64; tries++) {
		uint64_t r;
		int fd;

		if (getrandom(&r, sizeof(r), 0) != sizeof(r))
			return -EIO;
		snprintf(name, len, ".%.200s.%016llx", srv_cfg.stats_base,
			 (unsigned long long)r);
		fd = openat(srv_cfg.stats_dir_fd, name,
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0 || errno != EEXIST)
			return fd < 0 ? -errno : fd;
	}
	return -EEXIST;
}

/* Write the counters to the -S file (replaced atomically). */
int srv_stats_write(void)
{
	char tmp[256];
	unsigned long unknown = 0;
	FILE *fp;
	int fd, err = 0;

	if (srv_cfg.stats_dir_fd < 0)
		return -EBADF;
	fd = open_fresh(tmp, sizeof(tmp));
	if (fd < 0)
		return fd;
	fp = fdopen(fd, "w");
	if (!fp) {
		err = -errno;
		close(fd);
		unlinkat(srv_cfg.stats_dir_fd, tmp, 0);
		return err;
	}
	for (unsigned int t = 0; t < 256; t++) {
		unsigned long n = __atomic_load_n(&counts[t], __ATOMIC_RELAXED);

		if (is_request_type(t))
			fprintf(fp, "%s %lu\n", v9p_type_name((uint8_t)t), n);
		else
			unknown += n;
	}
	fprintf(fp, "unknown %lu\n", unknown);
	if (fflush(fp) != 0)
		err = -errno;
	if (fclose(fp) != 0 && !err)
		err = -errno;
	if (!err && renameat(srv_cfg.stats_dir_fd, tmp, srv_cfg.stats_dir_fd,
			     srv_cfg.stats_base) < 0)
		err = -errno;
	if (err)
		unlinkat(srv_cfg.stats_dir_fd, tmp, 0);
	return err;
}
