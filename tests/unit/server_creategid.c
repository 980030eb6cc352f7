// SPDX-License-Identifier: GPL-2.0
/*
 * server_creategid.c - an entry made in the group a 9P2000.L client names
 * (Tlcreate, Tmkdir, Tmknod, Tsymlink carry the creator's gid) is made in
 * that group in one step, as on a local filesystem: it has the group and
 * the mode asked for, set-id bits included, and no change of owner or mode
 * follows its creation (inotify sees no IN_ATTRIB), so that nothing done
 * to it meanwhile (a chmod through another fid, a local one) can be undone.
 * The mode and group expected are those of the same entry made locally.
 * Runs v9fsd as root, attached as root, which may use any group.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/fsuid.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "server_client.h"
#include "tap.h"

#define GROUP	100	/* not root's own group */

static struct tc c;

/* Make name with mode (and its type) in the export root, in GROUP. */
static int make(const char *name, mode_t mode)
{
	struct v9p_fcall *t;
	int err;

	if (S_ISREG(mode)) {
		err = tc_walk(&c, 0, 1, "");
		if (err < 0)
			return err;
		t = tc_msg(V9P_TLCREATE);
		t->tlcreate.fid = 1;
		v9p_str_set(&t->tlcreate.name, name);
		t->tlcreate.flags = V9P_DOTL_CREATE | V9P_DOTL_RDWR;
		t->tlcreate.mode = mode & 07777;
		t->tlcreate.gid = GROUP;
		err = tc_rpc(&c, t);
		tc_clunk(&c, 1);
		return err;
	}
	if (S_ISDIR(mode)) {
		t = tc_msg(V9P_TMKDIR);
		t->tmkdir.dfid = 0;
		v9p_str_set(&t->tmkdir.name, name);
		t->tmkdir.mode = mode & 07777;
		t->tmkdir.gid = GROUP;
		return tc_rpc(&c, t);
	}
	if (S_ISLNK(mode)) {
		t = tc_msg(V9P_TSYMLINK);
		t->tsymlink.fid = 0;
		v9p_str_set(&t->tsymlink.name, name);
		v9p_str_set(&t->tsymlink.symtgt, "target");
		t->tsymlink.gid = GROUP;
		return tc_rpc(&c, t);
	}
	t = tc_msg(V9P_TMKNOD);
	t->tmknod.dfid = 0;
	v9p_str_set(&t->tmknod.name, name);
	t->tmknod.mode = mode;
	t->tmknod.gid = GROUP;
	return tc_rpc(&c, t);
}

/*
 * The same entry made locally in ref, as root with GROUP as its fsgid: the
 * mode and group a local filesystem gives (mkdir(2) ignores S_ISGID, say).
 */
static int make_local(const char *ref, const char *name, mode_t mode, struct stat *st)
{
	const char *p = tc_path(ref, name);
	int r, fd;

	setfsgid(GROUP);
	if (S_ISREG(mode)) {
		fd = open(p, O_CREAT | O_EXCL | O_RDWR, mode & 07777);
		r = fd < 0 ? -1 : close(fd);
	} else if (S_ISDIR(mode)) {
		r = mkdir(p, mode & 07777);
	} else if (S_ISLNK(mode)) {
		r = symlink("target", p);
	} else {
		r = mknod(p, mode, 0);
	}
	setfsgid(0);
	return r < 0 ? -1 : lstat(p, st);
}

/* IN_ATTRIB events on name among those waiting on the inotify fd. */
static int attrib_events(int ifd, const char *name)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	struct pollfd p = { .fd = ifd, .events = POLLIN };
	int n = 0;

	while (poll(&p, 1, 100) > 0) {
		ssize_t len = read(ifd, buf, sizeof(buf));

		if (len <= 0)
			break;
		for (char *q = buf; q < buf + len;) {
			struct inotify_event *e = (struct inotify_event *)q;

			if ((e->mask & IN_ATTRIB) && e->len && !strcmp(e->name, name))
				n++;
			q += sizeof(*e) + e->len;
		}
	}
	return n;
}

int main(void)
{
	static const struct {
		const char *name;
		mode_t mode;
	} cases[] = {
		{ "file", S_IFREG | 0644 },
		{ "setid-file", S_IFREG | 06755 },
		{ "dir", S_IFDIR | 0755 },
		{ "setgid-dir", S_IFDIR | 02755 },
		{ "fifo", S_IFIFO | 04644 },
		{ "link", S_IFLNK | 0777 },
	};
	char *dir = tc_tmpdir(), *ref = tc_tmpdir();
	int ifd;

	if (!dir || !ref || geteuid() != 0) {
		tap_ok(1, "# SKIP needs root");
		return tap_done();
	}
	if (tc_setup(&c, dir, "9P2000.L", NULL) < 0) {
		tap_ok(0, "v9fsd serves the export");
		return tap_done();
	}
	ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (ifd < 0 || inotify_add_watch(ifd, dir, IN_ATTRIB | IN_CREATE) < 0) {
		tap_ok(0, "inotify on the export: %s", strerror(errno));
		return tap_done();
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct stat st, want;
		int err = make(cases[i].name, cases[i].mode), attrs;

		attrs = attrib_events(ifd, cases[i].name);
		if (err < 0 || lstat(tc_path(dir, cases[i].name), &st) < 0 ||
		    make_local(ref, cases[i].name, cases[i].mode, &want) < 0) {
			tap_ok(0, "%s: made (%s)", cases[i].name, strerror(err < 0 ? -err : errno));
			continue;
		}
		tap_ok(st.st_gid == want.st_gid && st.st_mode == want.st_mode,
		       "%s: group and mode as made locally: %u %06o (local %u %06o)",
		       cases[i].name, (unsigned int)st.st_gid, (unsigned int)st.st_mode,
		       (unsigned int)want.st_gid, (unsigned int)want.st_mode);
		tap_ok(attrs == 0, "%s: made in one step, no change of owner or mode after (%d IN_ATTRIB)",
		       cases[i].name, attrs);
	}
	close(ifd);
	tc_stop(&c);
	tc_rmtree(dir);
	tc_rmtree(ref);
	free(dir);
	free(ref);
	return tap_done();
}
