// SPDX-License-Identifier: GPL-2.0
/*
 * mount.9P.c - the mount helper of the 9P file system (9p2000.ko).
 *
 * mount(8) runs it as "mount.9P SOURCE DIR [-sfnv] [-N NS] [-o OPTIONS]"
 * for "mount -t 9P", fstab lines and "mount -a". It resolves a host name
 * the kernel cannot, drops the options that are mount(8)'s, and mounts
 * through the file system context API (fsopen, fsconfig, fsmount,
 * move_mount) so that when the kernel refuses, the reasons it wrote into
 * the context are read back and printed rather than a bare errno; where
 * that API is missing, mount(2) does it. Exit statuses are mount(8)'s:
 * 1 for a wrong invocation or a lack of permission, 32 for a mount that
 * failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>

#include "mount9p.h"

#define EX_USAGE	1
#define EX_FAIL		32

static bool verbose;

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: mount.9P SOURCE DIR [-fnsv] [-N NAMESPACE] [-o OPTIONS]\n"
		"  SOURCE  HOST:/PATH or [IPV6ADDR]:/PATH (tcp; the port is -o port=N),\n"
		"          unix:/SOCKET, or a mount tag with -o trans=virtio\n"
		"  -o      options of 9P (see 9p2000(5)) and the generic ones (ro, nosuid, ...)\n"
		"  -f      do everything but the mount   -v  say what is done\n"
		"  -n, -s  accepted, as mount(8) may pass them; nothing to do\n"
		"  -N NS   mount in the mount namespace NS (a path or a pid)\n");
}

/* The kernel's messages for this context: "e ..." errors, "w ..." warnings. */
static void print_context_log(int fsfd)
{
	char buf[1024];
	ssize_t n;

	while ((n = read(fsfd, buf, sizeof(buf) - 1)) > 0) {
		buf[n] = '\0';
		if (n > 0 && buf[n - 1] == '\n')
			buf[n - 1] = '\0';
		if (buf[0] == 'e' && buf[1] == ' ')
			fprintf(stderr, "mount.9P: %s\n", buf + 2);
		else if (buf[0] == 'w' && buf[1] == ' ')
			fprintf(stderr, "mount.9P: warning: %s\n", buf + 2);
		else if (buf[0] == 'i' && buf[1] == ' ')
			fprintf(stderr, "mount.9P: %s\n", buf + 2);
		else
			fprintf(stderr, "mount.9P: %s\n", buf);
	}
}

static unsigned int mount_attrs(unsigned long ms)
{
	unsigned int a = 0;

	if (ms & MS_RDONLY)
		a |= MOUNT_ATTR_RDONLY;
	if (ms & MS_NOSUID)
		a |= MOUNT_ATTR_NOSUID;
	if (ms & MS_NODEV)
		a |= MOUNT_ATTR_NODEV;
	if (ms & MS_NOEXEC)
		a |= MOUNT_ATTR_NOEXEC;
	if (ms & MS_NODIRATIME)
		a |= MOUNT_ATTR_NODIRATIME;
	if (ms & MS_NOATIME)
		a |= MOUNT_ATTR_NOATIME;
	else if (ms & MS_STRICTATIME)
		a |= MOUNT_ATTR_STRICTATIME;
	return a;
}

/* The superblock's own flags, which fsconfig takes by name. */
static const struct {
	unsigned long ms;
	const char *name;
} sb_flags[] = {
	{ MS_RDONLY, "ro" }, { MS_SYNCHRONOUS, "sync" }, { MS_DIRSYNC, "dirsync" },
	{ MS_LAZYTIME, "lazytime" }, { MS_MANDLOCK, "mand" }, { MS_SILENT, "silent" },
};

/*
 * Mount m on dir through a file system context; returns 0, a negative
 * errno with the reason printed, or 1 where the kernel has no fsopen (use
 * mount(2)).
 */
static int mount_context(const struct m9_mount *m, const char *dir)
{
	const char *what = "fsopen";
	int fsfd, mfd;

	fsfd = fsopen("9P", FSOPEN_CLOEXEC);
	if (fsfd < 0 && errno == ENOSYS)
		return 1;
	if (fsfd < 0) {
		int err = errno;

		if (err == ENODEV)
			fprintf(stderr, "mount.9P: the kernel has no 9P file system: "
				"load its module first (modprobe 9p2000)\n");
		else
			fprintf(stderr, "mount.9P: fsopen 9P: %s\n", strerror(err));
		return -err;
	}
	if (fsconfig(fsfd, FSCONFIG_SET_STRING, "source", m->source, 0) < 0) {
		what = "source";
		goto fail;
	}
	for (int i = 0; i < m->nopts; i++) {
		const struct m9_opt *o = &m->opts[i];
		int r = o->val ? fsconfig(fsfd, FSCONFIG_SET_STRING, o->key, o->val, 0) :
				 fsconfig(fsfd, FSCONFIG_SET_FLAG, o->key, NULL, 0);

		if (r < 0) {
			what = o->key;
			goto fail;
		}
	}
	for (size_t i = 0; i < sizeof(sb_flags) / sizeof(sb_flags[0]); i++) {
		if ((m->ms_flags & sb_flags[i].ms) &&
		    fsconfig(fsfd, FSCONFIG_SET_FLAG, sb_flags[i].name, NULL, 0) < 0) {
			what = sb_flags[i].name;
			goto fail;
		}
	}
	what = "the mount";
	if (fsconfig(fsfd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		goto fail;
	mfd = fsmount(fsfd, FSMOUNT_CLOEXEC, mount_attrs(m->ms_flags));
	if (mfd < 0)
		goto fail;
	if (move_mount(mfd, "", AT_FDCWD, dir, MOVE_MOUNT_F_EMPTY_PATH) < 0) {
		int err = errno;

		close(mfd);
		errno = err;
		what = dir;
		goto fail;
	}
	close(mfd);
	print_context_log(fsfd);	/* warnings of a mount that worked */
	close(fsfd);
	return 0;
fail:
	{
		int err = errno;
		bool step = strcmp(what, "the mount") != 0;

		print_context_log(fsfd);
		fprintf(stderr, "mount.9P: mounting %s on %s failed: %s%s%s\n", m->source, dir,
			step ? what : "", step ? ": " : "", strerror(err));
		close(fsfd);
		return -err;
	}
}

static int mount_legacy(const struct m9_mount *m, const char *dir)
{
	char data[4096];

	int err;

	if (m9_data(m, data, sizeof(data)) < 0) {
		fprintf(stderr, "mount.9P: the options are too long\n");
		return -E2BIG;
	}
	if (mount(m->source, dir, "9P", m->ms_flags, data) < 0) {
		err = errno;
		fprintf(stderr, "mount.9P: mounting %s on %s failed: %s (the kernel log may say why)\n",
			m->source, dir, strerror(err));
		return -err;
	}
	return 0;
}

static int enter_namespace(const char *ns)
{
	char path[64];
	const char *p = ns;
	int fd;

	if (strspn(ns, "0123456789") == strlen(ns)) {
		snprintf(path, sizeof(path), "/proc/%s/ns/mnt", ns);
		p = path;
	}
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || setns(fd, CLONE_NEWNS) < 0) {
		fprintf(stderr, "mount.9P: cannot enter the mount namespace %s: %s\n", ns,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	const char *opts = NULL, *ns = NULL, *spec, *dir;
	bool fake = false;
	struct m9_mount m;
	char err[512], data[4096];
	int opt, r;

	while ((opt = getopt(argc, argv, "fnsvo:N:t:h")) != -1) {
		switch (opt) {
		case 'f':
			fake = true;
			break;
		case 'n':
		case 's':
		case 't':
			break;
		case 'v':
			verbose = true;
			break;
		case 'o':
			opts = optarg;
			break;
		case 'N':
			ns = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EX_USAGE;
		}
	}
	if (argc - optind != 2) {
		usage(stderr);
		return EX_USAGE;
	}
	spec = argv[optind];
	dir = argv[optind + 1];
	if (m9_parse(spec, opts, &m, err, sizeof(err)) < 0) {
		fprintf(stderr, "mount.9P: %s\n", err);
		m9_free(&m);
		return EX_USAGE;
	}
	if (m9_resolve(&m, err, sizeof(err)) < 0) {
		fprintf(stderr, "mount.9P: %s\n", err);
		m9_free(&m);
		return EX_FAIL;
	}
	if (verbose) {
		m9_data(&m, data, sizeof(data));
		printf("mount.9P: %s on %s: source %s, options %s\n", spec, dir, m.source, data);
	}
	if (fake) {
		m9_free(&m);
		return 0;
	}
	if (ns && enter_namespace(ns) < 0) {
		m9_free(&m);
		return EX_FAIL;
	}
	r = mount_context(&m, dir);
	if (r == 1)
		r = mount_legacy(&m, dir);
	m9_free(&m);
	if (r < 0)
		return r == -EPERM ? EX_USAGE : EX_FAIL;
	return 0;
}
