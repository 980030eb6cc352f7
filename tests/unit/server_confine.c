// SPDX-License-Identifier: GPL-2.0
/*
 * server_confine.c - nothing a client sends reaches outside the export:
 * ".." at the root, absolute and relative symlinks pointing out, names
 * with slashes, a symlink planted where a file is created, a rename race
 * that swaps a directory for a symlink to the outside, and a read-only
 * export that refuses every change.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "server_client.h"
#include "tap.h"

static struct tc c;
static char path[4096];

static const char *at(const char *dir, const char *name)
{
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static struct v9p_fcall *msg(uint8_t type)
{
	static struct v9p_fcall t;

	memset(&t, 0, sizeof(t));
	t.type = type;
	return &t;
}

static void touch(const char *p, const char *text)
{
	int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);

	if (fd >= 0) {
		if (text && write(fd, text, strlen(text)) < 0)
			perror("write");
		close(fd);
	}
}

static uint64_t walk_qid_path(uint32_t fid, const char *names[], int n, int *got)
{
	struct v9p_fcall *t = msg(V9P_TWALK);

	t->twalk.fid = fid;
	t->twalk.newfid = 90;
	for (int i = 0; i < n; i++)
		v9p_str_set(&t->twalk.wname[t->twalk.nwname++], names[i]);
	*got = tc_rpc(&c, t);
	if (*got < 0)
		return 0;
	if (c.r.rwalk.nwqid != n) {
		*got = -ENOENT;
		return 0;
	}
	{
		uint64_t q = c.r.rwalk.wqid[n - 1].path;

		tc_clunk(&c, 90);
		return q;
	}
}

struct racer {
	const char *export;
	const char *outside;
	volatile int stop;
	long swaps;
};

/* Swap export/a between a real directory and a symlink to the outside. */
static void *race(void *p)
{
	struct racer *r = p;
	char a[4096], real[4096];

	snprintf(a, sizeof(a), "%s/a", r->export);
	snprintf(real, sizeof(real), "%s/a.real", r->export);
	while (!r->stop) {
		if (rename(a, real) == 0) {
			if (symlink(r->outside, a) == 0) {
				unlink(a);
			}
			rename(real, a);
			r->swaps++;
		}
	}
	return NULL;
}

static void test_escapes(void)
{
	char *dir = tc_tmpdir(), *out = tc_tmpdir();
	const char *dots[] = { "..", "..", "..", "..", "..", ".." };
	const char *sub_up[] = { "d", "..", "..", ".." };
	struct stat hs, root;
	uint64_t q;
	int err;

	mkdir(at(dir, "d"), 0755);
	touch(at(out, "secret"), "outside data");
	touch(at(out, "victim"), "do not remove");
	symlink("/", at(dir, "abs"));
	symlink(out, at(dir, "absout"));
	symlink("../../../../../../../../..", at(dir, "rel"));
	if (tc_setup(&c, dir, "9P2000.L", NULL) < 0) {
		tap_ok(0, "v9fsd starts");
		return;
	}
	stat(dir, &root);

	q = walk_qid_path(0, dots, 6, &err);
	tap_ok(err == 0 && q == root.st_ino, "walking '..' six times from the root stays at the root");
	q = walk_qid_path(0, sub_up, 4, &err);
	tap_ok(err == 0 && q == root.st_ino, "d/../../.. ends at the root");

	err = tc_walk(&c, 0, 1, "abs/etc");
	tap_ok(err < 0, "walking through an absolute symlink to / fails (%d)", err);
	err = tc_walk(&c, 0, 1, "absout/secret");
	tap_ok(err < 0, "walking through a symlink to an outside dir fails (%d)", err);
	err = tc_walk(&c, 0, 1, "rel/tmp");
	tap_ok(err < 0, "walking through a relative ../.. symlink fails (%d)", err);

	/* a walk that ends on the symlink gets the link itself, unopenable */
	tc_walk(&c, 0, 2, "absout");
	tap_ok(c.r.rwalk.wqid[0].type == V9P_QTSYMLINK, "the symlink itself is a QTSYMLINK qid");
	err = tc_open(&c, 2, V9P_DOTL_RDONLY);
	tap_ok(err == -ELOOP, "opening a symlink fid fails with ELOOP (%d)", err);
	{
		struct v9p_fcall *t = msg(V9P_TGETATTR);

		t->tgetattr.fid = 2;
		t->tgetattr.request_mask = V9P_GETATTR_BASIC;
		err = tc_rpc(&c, t);
		tap_ok(err == 0 && S_ISLNK(c.r.rgetattr.mode), "Tgetattr on it describes the link, not the target");
	}
	tc_clunk(&c, 2);

	/* creating through a planted symlink must not touch the outside */
	{
		char target[4096];

		snprintf(target, sizeof(target), "%s/victim", out);
		symlink(target, at(dir, "plant"));
	}
	tc_walk(&c, 0, 3, "");
	err = tc_create(&c, 3, "plant", 0644, V9P_DOTL_WRONLY | V9P_DOTL_CREATE | V9P_DOTL_TRUNC);
	stat(at(out, "victim"), &hs);
	tap_ok(err < 0 && hs.st_size == 13, "Tlcreate over a symlink to outside fails, target intact (%d)", err);
	tc_clunk(&c, 3);

	/* names with slashes or dots */
	{
		struct v9p_fcall *t = msg(V9P_TMKDIR);

		t->tmkdir.dfid = 0;
		v9p_str_set(&t->tmkdir.name, "../escaped");
		t->tmkdir.gid = V9P_NONUNAME;
		t->tmkdir.mode = 0755;
		err = tc_rpc(&c, t);
		snprintf(path, sizeof(path), "%s/../escaped", dir);
		tap_ok(err == -EINVAL && stat(path, &hs) < 0, "Tmkdir '../escaped' is refused");
		v9p_str_set(&t->tmkdir.name, "..");
		tap_ok(tc_rpc(&c, t) == -EINVAL, "Tmkdir '..' is refused");
		v9p_str_set(&t->tmkdir.name, "a/b");
		tap_ok(tc_rpc(&c, t) == -EINVAL, "Tmkdir 'a/b' is refused");
	}
	{
		struct v9p_fcall *t = msg(V9P_TWALK);

		t->twalk.fid = 0;
		t->twalk.newfid = 4;
		t->twalk.nwname = 1;
		v9p_str_set(&t->twalk.wname[0], "d/../../etc");
		err = tc_rpc(&c, t);
		tap_ok(err < 0, "a walk element with a slash is refused (%d)", err);
	}
	{
		struct v9p_fcall *t = msg(V9P_TRENAMEAT);

		t->trenameat.olddirfid = 0;
		v9p_str_set(&t->trenameat.oldname, "d");
		t->trenameat.newdirfid = 0;
		v9p_str_set(&t->trenameat.newname, "../outside-d");
		err = tc_rpc(&c, t);
		tap_ok(err == -EINVAL && stat(at(dir, "d"), &hs) == 0,
		       "Trenameat to '../outside-d' is refused");
	}
	{
		struct v9p_fcall *t = msg(V9P_TLINK);

		tc_walk(&c, 0, 5, "absout");
		t->tlink.dfid = 0;
		t->tlink.fid = 5;
		v9p_str_set(&t->tlink.name, "hardout");
		err = tc_rpc(&c, t);
		tap_ok(err < 0 || (lstat(at(dir, "hardout"), &hs) == 0 && S_ISLNK(hs.st_mode)),
		       "Tlink of a symlink fid links the link, not its target");
		tc_clunk(&c, 5);
	}

	/* the rename race */
	{
		struct racer r = { .export = dir, .outside = out };
		pthread_t th;
		struct timespec t0, t1;
		long tries = 0, escapes = 0;
		int afd;

		mkdir(at(dir, "a"), 0755);
		touch(at(dir, "a/victim"), "inside");
		touch(at(dir, "a/secret"), "inside");
		/* the test refreshes a/victim through the directory itself, never by path */
		afd = open(at(dir, "a"), O_RDONLY | O_DIRECTORY);
		pthread_create(&th, NULL, race, &r);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		do {
			struct v9p_fcall *t;
			char buf[64];
			int n;

			/* read a/secret: must never be the outside text */
			if (tc_walk(&c, 0, 10, "a/secret") == 0) {
				if (tc_open(&c, 10, V9P_DOTL_RDONLY) == 0) {
					n = tc_read(&c, 10, 0, buf, sizeof(buf));
					if (n >= 7 && !memcmp(buf, "outside", 7))
						escapes++;
				}
				tc_clunk(&c, 10);
			}
			/* create a/new: must never appear outside */
			if (tc_walk(&c, 0, 11, "a") == 0) {
				tc_create(&c, 11, "new", 0644, V9P_DOTL_WRONLY | V9P_DOTL_CREATE);
				tc_clunk(&c, 11);
			}
			/* unlink a/victim by name through a dir fid */
			t = msg(V9P_TUNLINKAT);
			if (tc_walk(&c, 0, 12, "a") == 0) {
				t->tunlinkat.dirfid = 12;
				v9p_str_set(&t->tunlinkat.name, "victim");
				tc_rpc(&c, t);
				tc_clunk(&c, 12);
				close(openat(afd, "victim", O_CREAT | O_WRONLY, 0644));
			}
			tries++;
			clock_gettime(CLOCK_MONOTONIC, &t1);
		} while (t1.tv_sec - t0.tv_sec < 3);
		r.stop = 1;
		pthread_join(th, NULL);
		close(afd);
		tap_diag("%ld client rounds against %ld swaps", tries, r.swaps);
		tap_ok(escapes == 0, "rename race: never read the outside file (%ld)", escapes);
		tap_ok(stat(at(out, "new"), &hs) < 0, "rename race: never created a file outside");
		tap_ok(stat(at(out, "victim"), &hs) == 0 && hs.st_size == 13,
		       "rename race: never removed or changed a file outside");
	}
	tap_ok(tc_stop(&c) == 0, "v9fsd exits cleanly");
	tc_rmtree(dir);
	tc_rmtree(out);
}

static void test_readonly(void)
{
	const char *ro[] = { "-r", NULL };
	char *dir = tc_tmpdir();
	struct stat hs;
	char buf[64];
	int err;

	touch(at(dir, "f"), "data");
	mkdir(at(dir, "d"), 0755);
	if (tc_setup(&c, dir, "9P2000.L", ro) < 0) {
		tap_ok(0, "v9fsd -r starts");
		return;
	}
	tc_walk(&c, 0, 1, "f");
	tap_ok(tc_open(&c, 1, V9P_DOTL_RDONLY) == 0 && tc_read(&c, 1, 0, buf, 64) == 4,
	       "read-only: reading works");
	tc_clunk(&c, 1);
	tc_walk(&c, 0, 1, "f");
	tap_ok(tc_open(&c, 1, V9P_DOTL_WRONLY) == -EROFS, "read-only: Tlopen for writing: EROFS");
	tap_ok(tc_open(&c, 1, V9P_DOTL_RDONLY | V9P_DOTL_TRUNC) == -EROFS,
	       "read-only: Tlopen O_TRUNC: EROFS");
	tc_walk(&c, 0, 2, "");
	tap_ok(tc_create(&c, 2, "new", 0644, V9P_DOTL_CREATE | V9P_DOTL_WRONLY) == -EROFS &&
	       stat(at(dir, "new"), &hs) < 0, "read-only: Tlcreate: EROFS");
	{
		struct v9p_fcall *t = msg(V9P_TSETATTR);

		t->tsetattr.fid = 1;
		t->tsetattr.valid = V9P_SETATTR_SIZE;
		err = tc_rpc(&c, t);
		tap_ok(err == -EROFS && stat(at(dir, "f"), &hs) == 0 && hs.st_size == 4,
		       "read-only: Tsetattr: EROFS");
		t = msg(V9P_TUNLINKAT);
		t->tunlinkat.dirfid = 0;
		v9p_str_set(&t->tunlinkat.name, "f");
		tap_ok(tc_rpc(&c, t) == -EROFS, "read-only: Tunlinkat: EROFS");
		t = msg(V9P_TREMOVE);
		t->tremove.fid = 1;
		tap_ok(tc_rpc(&c, t) == -EROFS && stat(at(dir, "f"), &hs) == 0,
		       "read-only: Tremove: EROFS");
		t = msg(V9P_TMKDIR);
		t->tmkdir.dfid = 0;
		v9p_str_set(&t->tmkdir.name, "x");
		tap_ok(tc_rpc(&c, t) == -EROFS, "read-only: Tmkdir: EROFS");
		t = msg(V9P_TRENAMEAT);
		t->trenameat.olddirfid = 0;
		v9p_str_set(&t->trenameat.oldname, "d");
		t->trenameat.newdirfid = 0;
		v9p_str_set(&t->trenameat.newname, "e");
		tap_ok(tc_rpc(&c, t) == -EROFS, "read-only: Trenameat: EROFS");
		t = msg(V9P_TXATTRCREATE);
		t->txattrcreate.fid = 0;
		v9p_str_set(&t->txattrcreate.name, "user.x");
		tap_ok(tc_rpc(&c, t) == -EROFS, "read-only: Txattrcreate: EROFS");
	}
	tc_stop(&c);

	/* and in 9P2000 */
	if (tc_setup(&c, dir, "9P2000", ro) == 0) {
		struct v9p_stat st;
		struct v9p_fcall *t;

		tc_walk(&c, 0, 1, "f");
		tap_ok(tc_open(&c, 1, V9P_ORDWR) == -EROFS, "read-only 9P2000: Topen ORDWR refused");
		tap_ok(tc_open(&c, 1, V9P_OREAD | V9P_ORCLOSE) == -EROFS,
		       "read-only 9P2000: Topen ORCLOSE refused");
		t = msg(V9P_TWSTAT);
		v9p_stat_dont_touch(&st);
		st.mode = 0777;
		t->twstat.fid = 1;
		t->twstat.stat = st;
		tap_ok(tc_rpc(&c, t) < 0 && stat(at(dir, "f"), &hs) == 0 && (hs.st_mode & 0777) == 0644,
		       "read-only 9P2000: Twstat refused");
		tc_stop(&c);
	} else {
		tap_ok(0, "v9fsd -r starts for 9P2000");
	}
	tc_rmtree(dir);
}

int main(void)
{
	test_escapes();
	test_readonly();
	return tap_done();
}
