// SPDX-License-Identifier: GPL-2.0-only
/*
 * idmap: idmapped mounts from the shell, for the guest suites.
 *
 *   idmap mount SRC DST FIRST:LOWER:COUNT
 *	A user namespace whose uid and gid maps are "FIRST LOWER COUNT",
 *	a detached clone of the mount at SRC (open_tree(OPEN_TREE_CLONE))
 *	idmapped with it (mount_setattr(MOUNT_ATTR_IDMAP)) and attached at
 *	DST (move_mount). Through DST an id I of the file system is seen as
 *	LOWER + I - FIRST, and a caller with such an id acts as I.
 *   idmap as UID GID OP ARGS...
 *	OP as that uid and gid (no supplementary groups):
 *	read PATH, create PATH, mkdir PATH, symlink TARGET PATH,
 *	tmpfile DIR NAME (O_TMPFILE linked as DIR/NAME), chown PATH UID GID,
 *	unlink PATH, owner PATH.
 *   idmap owner PATH
 *
 * Each prints one line: "ok", the name of the errno it failed with, or for
 * owner the "UID:GID" of PATH (lstat); exit 0 if it did what was asked.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <grp.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

static const char *errname(int e)
{
	static char buf[32];
	const char *name = e ? strerrorname_np(e) : "ok";

	if (name)
		return name;
	snprintf(buf, sizeof(buf), "errno %d", e);
	return buf;
}

static int report(int err)
{
	printf("%s\n", errname(err));
	return err ? 1 : 0;
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return errno;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : (n < 0 ? errno : EIO);
}

/*
 * A descriptor of a new user namespace with @map as its uid and gid map:
 * a child unshares it and waits, the parent writes the maps, opens the
 * namespace and lets the child go. -errno on failure.
 */
static int userns_fd(const char *map)
{
	char path[64], text[64];
	int go[2], ready[2], fd, err;
	unsigned int a, b, n;
	pid_t pid;
	char c;

	if (sscanf(map, "%u:%u:%u", &a, &b, &n) != 3)
		return -EINVAL;
	snprintf(text, sizeof(text), "%u %u %u\n", a, b, n);
	if (pipe(go) || pipe(ready))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		/* Gone with the parent; go[0] reads EOF once it closes go[1]. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(go[1]);
		close(ready[0]);
		c = unshare(CLONE_NEWUSER) ? 'n' : 'y';
		if (write(ready[1], &c, 1) != 1)
			_exit(1);
		/* Until the parent is done with the namespace. */
		if (read(go[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(ready[1]);
	close(go[0]);
	err = read(ready[0], &c, 1) == 1 && c == 'y' ? 0 : EPERM;
	if (!err) {
		snprintf(path, sizeof(path), "/proc/%d/uid_map", (int)pid);
		err = write_file(path, text);
	}
	if (!err) {
		snprintf(path, sizeof(path), "/proc/%d/gid_map", (int)pid);
		err = write_file(path, text);
	}
	fd = -1;
	if (!err) {
		snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			err = errno;
	}
	close(go[1]);
	close(ready[0]);
	waitpid(pid, NULL, 0);
	return err ? -err : fd;
}

static int do_mount(const char *src, const char *dst, const char *map)
{
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_IDMAP };
	int ns, tree, err = 0;

	ns = userns_fd(map);
	if (ns < 0)
		return report(-ns);
	tree = open_tree(AT_FDCWD, src, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (tree < 0) {
		err = errno;
		goto out;
	}
	attr.userns_fd = ns;
	if (mount_setattr(tree, "", AT_EMPTY_PATH, &attr, sizeof(attr)))
		err = errno;
	else if (move_mount(tree, "", AT_FDCWD, dst, MOVE_MOUNT_F_EMPTY_PATH))
		err = errno;
	close(tree);
out:
	close(ns);
	return report(err);
}

static int owner(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return report(errno);
	printf("%u:%u\n", (unsigned int)st.st_uid, (unsigned int)st.st_gid);
	return 0;
}

static int read_all(const char *path)
{
	char buf[4096];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return report(errno);
	do {
		n = read(fd, buf, sizeof(buf));
	} while (n > 0);
	close(fd);
	return report(n < 0 ? errno : 0);
}

static int create(const char *path)
{
	int fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);
	int err = 0;

	if (fd < 0)
		return report(errno);
	if (write(fd, "x\n", 2) != 2)
		err = errno ? errno : EIO;
	if (close(fd) && !err)
		err = errno;
	return report(err);
}

static int tmpfile_link(const char *dir, const char *name)
{
	char from[64], to[4096];
	int fd = open(dir, O_TMPFILE | O_WRONLY, 0644);
	int err = 0;

	if (fd < 0)
		return report(errno);
	snprintf(from, sizeof(from), "/proc/self/fd/%d", fd);
	snprintf(to, sizeof(to), "%s/%s", dir, name);
	if (write(fd, "x\n", 2) != 2 ||
	    linkat(AT_FDCWD, from, AT_FDCWD, to, AT_SYMLINK_FOLLOW))
		err = errno ? errno : EIO;
	close(fd);
	return report(err);
}

static int run_as(int argc, char **argv)
{
	uid_t uid = (uid_t)strtoul(argv[0], NULL, 10);
	gid_t gid = (gid_t)strtoul(argv[1], NULL, 10);
	const char *op = argv[2];

	if (setgroups(0, NULL) || setresgid(gid, gid, gid) ||
	    setresuid(uid, uid, uid))
		return report(errno);
	argc -= 3;
	argv += 3;
	if (!strcmp(op, "read") && argc == 1)
		return read_all(argv[0]);
	if (!strcmp(op, "create") && argc == 1)
		return create(argv[0]);
	if (!strcmp(op, "mkdir") && argc == 1)
		return report(mkdir(argv[0], 0755) ? errno : 0);
	if (!strcmp(op, "symlink") && argc == 2)
		return report(symlink(argv[0], argv[1]) ? errno : 0);
	if (!strcmp(op, "tmpfile") && argc == 2)
		return tmpfile_link(argv[0], argv[1]);
	if (!strcmp(op, "chown") && argc == 3)
		return report(lchown(argv[0], (uid_t)strtoul(argv[1], NULL, 10),
				     (gid_t)strtoul(argv[2], NULL, 10)) ? errno : 0);
	if (!strcmp(op, "unlink") && argc == 1)
		return report(unlink(argv[0]) ? errno : 0);
	if (!strcmp(op, "owner") && argc == 1)
		return owner(argv[0]);
	fprintf(stderr, "idmap as: unknown operation %s\n", op);
	return 2;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc == 5 && !strcmp(argv[1], "mount"))
		return do_mount(argv[2], argv[3], argv[4]);
	if (argc >= 5 && !strcmp(argv[1], "as"))
		return run_as(argc - 2, argv + 2);
	if (argc == 3 && !strcmp(argv[1], "owner"))
		return owner(argv[2]);
	fprintf(stderr, "usage: idmap mount SRC DST FIRST:LOWER:COUNT\n"
		"       idmap as UID GID OP ARGS...\n"
		"       idmap owner PATH\n");
	return 2;
}
