// SPDX-License-Identifier: GPL-2.0
/*
 * server_ops_l.c - every 9P2000.L operation of v9fsd, checked against what
 * the host filesystem says afterwards.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>

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

int main(void)
{
	char *dir = tc_tmpdir();
	struct v9p_fcall *t;
	struct stat st;
	char buf[8192];
	int err, n;

	if (!dir || tc_setup(&c, dir, "9P2000.L", NULL) < 0) {
		tap_ok(0, "v9fsd starts and attaches");
		return tap_done();
	}
	tap_ok(c.d == V9P_9P2000L && c.msize == 65536, "Tversion 9P2000.L keeps the client's msize 65536");

	/* Tlcreate + Twrite + Tread */
	tap_ok(tc_walk(&c, 0, 1, "") == 0, "Twalk with no names clones the root");
	err = tc_create(&c, 1, "file", 0640, V9P_DOTL_RDWR | V9P_DOTL_CREATE);
	tap_ok(err == 0 && c.r.rlcreate.qid.type == V9P_QTFILE, "Tlcreate makes a regular file (%d)", err);
	tap_ok(stat(at(dir, "file"), &st) == 0 && (st.st_mode & 0777) == 0640,
	       "the created file exists on the host with mode 0640");
	n = tc_write(&c, 1, 0, "hello, world", 12);
	tap_ok(n == 12, "Twrite writes 12 bytes (%d)", n);
	n = tc_read(&c, 1, 7, buf, sizeof(buf));
	tap_ok(n == 5 && !memcmp(buf, "world", 5), "Tread at offset 7 reads 'world'");
	n = tc_read(&c, 1, 100, buf, sizeof(buf));
	tap_ok(n == 0, "Tread past the end reads 0 bytes");

	/* Tfsync */
	t = msg(V9P_TFSYNC);
	t->tfsync.fid = 1;
	tap_ok(tc_rpc(&c, t) == 0, "Tfsync on an open file");
	tc_clunk(&c, 1);

	/* Tlcreate with O_EXCL on an existing name */
	tc_walk(&c, 0, 1, "");
	err = tc_create(&c, 1, "file", 0644, V9P_DOTL_RDWR | V9P_DOTL_CREATE | V9P_DOTL_EXCL);
	tap_ok(err == -EEXIST, "Tlcreate O_EXCL on an existing file: EEXIST (%d)", err);
	tc_clunk(&c, 1);

	/* Tgetattr */
	tc_walk(&c, 0, 2, "file");
	t = msg(V9P_TGETATTR);
	t->tgetattr.fid = 2;
	t->tgetattr.request_mask = V9P_GETATTR_ALL;
	err = tc_rpc(&c, t);
	stat(at(dir, "file"), &st);
	tap_ok(err == 0 && c.r.rgetattr.size == 12 && c.r.rgetattr.qid.path == st.st_ino &&
	       (c.r.rgetattr.mode & 07777) == 0640 && S_ISREG(c.r.rgetattr.mode) &&
	       c.r.rgetattr.nlink == 1, "Tgetattr reports size, inode, mode, nlink");

	/* Tsetattr: mode, size, times, owner */
	t = msg(V9P_TSETATTR);
	t->tsetattr.fid = 2;
	t->tsetattr.valid = V9P_SETATTR_MODE | V9P_SETATTR_SIZE | V9P_SETATTR_MTIME |
			    V9P_SETATTR_MTIME_SET | V9P_SETATTR_ATIME | V9P_SETATTR_ATIME_SET;
	t->tsetattr.mode = 0600;
	t->tsetattr.size = 5;
	t->tsetattr.mtime_sec = 1000000000;
	t->tsetattr.mtime_nsec = 5;
	t->tsetattr.atime_sec = 1100000000;
	err = tc_rpc(&c, t);
	stat(at(dir, "file"), &st);
	tap_ok(err == 0 && (st.st_mode & 07777) == 0600 && st.st_size == 5 &&
	       st.st_mtim.tv_sec == 1000000000 && st.st_mtim.tv_nsec == 5 &&
	       st.st_atim.tv_sec == 1100000000, "Tsetattr sets mode, size, mtime, atime");
	if (geteuid() == 0) {
		t = msg(V9P_TSETATTR);
		t->tsetattr.fid = 2;
		t->tsetattr.valid = V9P_SETATTR_UID | V9P_SETATTR_GID;
		t->tsetattr.uid = 1234;
		t->tsetattr.gid = 4321;
		err = tc_rpc(&c, t);
		stat(at(dir, "file"), &st);
		tap_ok(err == 0 && st.st_uid == 1234 && st.st_gid == 4321,
		       "Tsetattr chown to 1234:4321 as root");
	} else {
		tap_ok(1, "# SKIP chown needs root");
	}

	/* Tmkdir, Tsymlink, Tmknod, Tlink, Treadlink */
	t = msg(V9P_TMKDIR);
	t->tmkdir.dfid = 0;
	v9p_str_set(&t->tmkdir.name, "sub");
	t->tmkdir.mode = 0750;
	t->tmkdir.gid = V9P_NONUNAME;
	err = tc_rpc(&c, t);
	tap_ok(err == 0 && c.r.rmkdir.qid.type == V9P_QTDIR && stat(at(dir, "sub"), &st) == 0 &&
	       S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0750, "Tmkdir makes sub/ 0750");

	t = msg(V9P_TSYMLINK);
	t->tsymlink.fid = 0;
	v9p_str_set(&t->tsymlink.name, "link");
	v9p_str_set(&t->tsymlink.symtgt, "sub/../file");
	t->tsymlink.gid = V9P_NONUNAME;
	err = tc_rpc(&c, t);
	n = (int)readlink(at(dir, "link"), buf, sizeof(buf));
	tap_ok(err == 0 && c.r.rsymlink.qid.type == V9P_QTSYMLINK && n == 11 &&
	       !memcmp(buf, "sub/../file", 11), "Tsymlink stores the target text");
	tc_walk(&c, 0, 3, "link");
	t = msg(V9P_TREADLINK);
	t->treadlink.fid = 3;
	err = tc_rpc(&c, t);
	tap_ok(err == 0 && v9p_str_eq(&c.r.rreadlink.target, "sub/../file"), "Treadlink returns it");
	tc_clunk(&c, 3);

	t = msg(V9P_TMKNOD);
	t->tmknod.dfid = 0;
	v9p_str_set(&t->tmknod.name, "fifo");
	t->tmknod.mode = S_IFIFO | 0644;
	t->tmknod.gid = V9P_NONUNAME;
	err = tc_rpc(&c, t);
	tap_ok(err == 0 && stat(at(dir, "fifo"), &st) == 0 && S_ISFIFO(st.st_mode), "Tmknod makes a fifo");
	if (geteuid() == 0) {
		t = msg(V9P_TMKNOD);
		t->tmknod.dfid = 0;
		v9p_str_set(&t->tmknod.name, "null");
		t->tmknod.mode = S_IFCHR | 0600;
		t->tmknod.major = 1;
		t->tmknod.minor = 3;
		t->tmknod.gid = V9P_NONUNAME;
		err = tc_rpc(&c, t);
		tap_ok(err == 0 && lstat(at(dir, "null"), &st) == 0 && S_ISCHR(st.st_mode) &&
		       major(st.st_rdev) == 1 && minor(st.st_rdev) == 3,
		       "Tmknod makes character device 1,3 as root");
		/* the server never opens devices itself */
		tc_walk(&c, 0, 3, "null");
		err = tc_open(&c, 3, V9P_DOTL_RDONLY);
		tap_ok(err == -EPERM, "Tlopen of a device node is refused (%d)", err);
		tc_clunk(&c, 3);
	} else {
		tap_ok(1, "# SKIP mknod of a device needs root");
		tap_ok(1, "# SKIP mknod of a device needs root");
	}

	t = msg(V9P_TLINK);
	t->tlink.dfid = 0;
	t->tlink.fid = 2;
	v9p_str_set(&t->tlink.name, "hard");
	err = tc_rpc(&c, t);
	{
		struct stat a, b;

		tap_ok(err == 0 && stat(at(dir, "hard"), &a) == 0 && stat(at(dir, "file"), &b) == 0 &&
		       a.st_ino == b.st_ino && b.st_nlink == 2, "Tlink makes a hard link");
	}

	/* Trename (fid into dir) and Trenameat */
	tc_walk(&c, 0, 4, "sub");
	t = msg(V9P_TRENAME);
	t->trename.fid = 2;
	t->trename.dfid = 4;
	v9p_str_set(&t->trename.name, "moved");
	err = tc_rpc(&c, t);
	tap_ok(err == 0 && stat(at(dir, "sub/moved"), &st) == 0 && stat(at(dir, "file"), &st) < 0,
	       "Trename moves file to sub/moved");
	t = msg(V9P_TGETATTR);
	t->tgetattr.fid = 2;
	t->tgetattr.request_mask = V9P_GETATTR_BASIC;
	tap_ok(tc_rpc(&c, t) == 0, "the renamed fid still works");
	t = msg(V9P_TRENAMEAT);
	t->trenameat.olddirfid = 4;
	v9p_str_set(&t->trenameat.oldname, "moved");
	t->trenameat.newdirfid = 0;
	v9p_str_set(&t->trenameat.newname, "back");
	err = tc_rpc(&c, t);
	tap_ok(err == 0 && stat(at(dir, "back"), &st) == 0, "Trenameat moves it back as 'back'");
	t = msg(V9P_TREMOVE);
	t->tremove.fid = 2;
	err = tc_rpc(&c, t);
	tap_ok(err == 0 && stat(at(dir, "back"), &st) < 0,
	       "Tremove through a fid that followed two renames removes the right file");

	/* Tunlinkat */
	t = msg(V9P_TUNLINKAT);
	t->tunlinkat.dirfid = 0;
	v9p_str_set(&t->tunlinkat.name, "sub");
	t->tunlinkat.flags = 0;
	err = tc_rpc(&c, t);
	tap_ok(err == -EISDIR || err == -EPERM, "Tunlinkat of a directory without AT_REMOVEDIR fails (%d)", err);
	tc_clunk(&c, 4);
	t->tunlinkat.flags = V9P_DOTL_AT_REMOVEDIR;
	err = tc_rpc(&c, t);
	tap_ok(err == 0 && stat(at(dir, "sub"), &st) < 0, "Tunlinkat AT_REMOVEDIR removes sub/");

	/* Tstatfs */
	t = msg(V9P_TSTATFS);
	t->tstatfs.fid = 0;
	err = tc_rpc(&c, t);
	tap_ok(err == 0 && c.r.rstatfs.bsize > 0 && c.r.rstatfs.namelen >= 255, "Tstatfs");

	/* Treaddir: every name, then resume from a middle cookie */
	{
		int i, seen = 0, dots = 0, after_mid = 0;
		uint64_t off = 0, mid = 0;
		char names[64][32];
		int nn = 0;

		for (i = 0; i < 40; i++) {
			int fd;

			snprintf(buf, sizeof(buf), "%s/e%02d", dir, i);
			fd = open(buf, O_CREAT | O_WRONLY, 0644);
			close(fd);
		}
		tc_walk(&c, 0, 5, "");
		tc_open(&c, 5, V9P_DOTL_RDONLY | V9P_DOTL_DIRECTORY);
		for (;;) {
			uint32_t pos = 0;

			t = msg(V9P_TREADDIR);
			t->treaddir.fid = 5;
			t->treaddir.offset = off;
			t->treaddir.count = 200;	/* a few entries per call */
			if (tc_rpc(&c, t) < 0 || c.r.rreaddir.count == 0)
				break;
			while (pos < c.r.rreaddir.count) {
				struct v9p_dirent de;
				int k = v9p_dirent_unpack(c.r.rreaddir.data + pos,
							  c.r.rreaddir.count - pos, &de);
				if (k < 0)
					break;
				pos += (uint32_t)k;
				off = de.offset;
				if (v9p_str_eq(&de.name, ".") || v9p_str_eq(&de.name, ".."))
					dots++;
				else if (de.name.len == 3 && de.name.s[0] == 'e')
					seen++;
				if (mid)
					after_mid++;
				if (seen == 20 && !mid)
					mid = off;
				if (nn < 64)
					snprintf(names[nn++], 32, "%.*s", de.name.len, de.name.s);
			}
		}
		tap_ok(seen == 40 && dots == 2, "Treaddir in small chunks lists 40 entries plus . and .. (%d, %d)",
		       seen, dots);
		/* remove some entries already read: resuming at mid still works */
		for (i = 0; i < 10; i++) {
			snprintf(buf, sizeof(buf), "%s/%s", dir, names[i]);
			unlink(buf);
		}
		t = msg(V9P_TREADDIR);
		t->treaddir.fid = 5;
		t->treaddir.offset = mid;
		t->treaddir.count = 8000;
		err = tc_rpc(&c, t);
		{
			uint32_t pos = 0;
			int rest = 0;

			while (err == 0 && pos < c.r.rreaddir.count) {
				struct v9p_dirent de;
				int k = v9p_dirent_unpack(c.r.rreaddir.data + pos,
							  c.r.rreaddir.count - pos, &de);
				if (k < 0)
					break;
				pos += (uint32_t)k;
				rest++;
			}
			tap_ok(err == 0 && rest == after_mid,
			       "Treaddir resumes at a saved cookie after removals (%d of %d left)",
			       rest, after_mid);
		}
		tc_clunk(&c, 5);
	}

	/* xattrs */
	{
		int fd = open(at(dir, "xf"), O_CREAT | O_WRONLY, 0644);

		close(fd);
		tc_walk(&c, 0, 6, "xf");
		t = msg(V9P_TXATTRCREATE);
		t->txattrcreate.fid = 6;
		v9p_str_set(&t->txattrcreate.name, "user.color");
		t->txattrcreate.attr_size = 4;
		t->txattrcreate.flags = 0;
		err = tc_rpc(&c, t);
		if (err == 0)
			err = tc_write(&c, 6, 0, "blue", 4) == 4 ? 0 : -EIO;
		if (err == 0)
			err = tc_clunk(&c, 6);
		n = (int)getxattr(at(dir, "xf"), "user.color", buf, sizeof(buf));
		if (err == -EOPNOTSUPP || (n < 0 && errno == ENOTSUP)) {
			tap_ok(1, "# SKIP no user xattrs on this filesystem");
			tap_ok(1, "# SKIP no user xattrs on this filesystem");
			tap_ok(1, "# SKIP no user xattrs on this filesystem");
		} else {
			tap_ok(err == 0 && n == 4 && !memcmp(buf, "blue", 4),
			       "Txattrcreate + Twrite + Tclunk sets user.color");
			tc_walk(&c, 0, 6, "xf");
			t = msg(V9P_TXATTRWALK);
			t->txattrwalk.fid = 6;
			t->txattrwalk.newfid = 7;
			v9p_str_set(&t->txattrwalk.name, "user.color");
			err = tc_rpc(&c, t);
			tap_ok(err == 0 && c.r.rxattrwalk.size == 4 && tc_read(&c, 7, 0, buf, 100) == 4 &&
			       !memcmp(buf, "blue", 4), "Txattrwalk + Tread gets it back");
			tc_clunk(&c, 7);
			t = msg(V9P_TXATTRWALK);
			t->txattrwalk.fid = 6;
			t->txattrwalk.newfid = 7;
			v9p_str_set(&t->txattrwalk.name, "");
			err = tc_rpc(&c, t);
			n = err == 0 ? tc_read(&c, 7, 0, buf, sizeof(buf)) : -1;
			tap_ok(n > 0 && memmem(buf, (size_t)n, "user.color", 11) != NULL,
			       "Txattrwalk with no name lists user.color");
			tc_clunk(&c, 7);
			tc_clunk(&c, 6);
		}
	}

	/* POSIX locks: two fids conflict */
	{
		int fd = open(at(dir, "lk"), O_CREAT | O_WRONLY, 0644);

		close(fd);
		tc_walk(&c, 0, 8, "lk");
		tc_walk(&c, 0, 9, "lk");
		tc_open(&c, 8, V9P_DOTL_RDWR);
		tc_open(&c, 9, V9P_DOTL_RDWR);
		t = msg(V9P_TLOCK);
		t->tlock.fid = 8;
		t->tlock.type = V9P_LOCK_TYPE_WRLCK;
		t->tlock.length = 0;
		t->tlock.proc_id = 1;
		v9p_str_set(&t->tlock.client_id, "a");
		err = tc_rpc(&c, t);
		tap_ok(err == 0 && c.r.rlock.status == V9P_LOCK_SUCCESS, "Tlock write lock granted");
		t = msg(V9P_TLOCK);
		t->tlock.fid = 9;
		t->tlock.type = V9P_LOCK_TYPE_WRLCK;
		t->tlock.proc_id = 2;
		v9p_str_set(&t->tlock.client_id, "b");
		err = tc_rpc(&c, t);
		tap_ok(err == 0 && c.r.rlock.status == V9P_LOCK_BLOCKED,
		       "a second fid's conflicting Tlock gets LOCK_BLOCKED");
		t = msg(V9P_TGETLOCK);
		t->tgetlock.fid = 9;
		t->tgetlock.type = V9P_LOCK_TYPE_RDLCK;
		t->tgetlock.proc_id = 2;
		v9p_str_set(&t->tgetlock.client_id, "b");
		err = tc_rpc(&c, t);
		tap_ok(err == 0 && c.r.rgetlock.type == V9P_LOCK_TYPE_WRLCK,
		       "Tgetlock reports the conflicting write lock");
		t = msg(V9P_TLOCK);
		t->tlock.fid = 8;
		t->tlock.type = V9P_LOCK_TYPE_UNLCK;
		v9p_str_set(&t->tlock.client_id, "a");
		tc_rpc(&c, t);
		t = msg(V9P_TLOCK);
		t->tlock.fid = 9;
		t->tlock.type = V9P_LOCK_TYPE_WRLCK;
		v9p_str_set(&t->tlock.client_id, "b");
		err = tc_rpc(&c, t);
		tap_ok(err == 0 && c.r.rlock.status == V9P_LOCK_SUCCESS, "after unlock the second fid gets it");
		tc_clunk(&c, 8);
		tc_clunk(&c, 9);
	}

	/* errors */
	tap_ok(tc_walk(&c, 0, 10, "nonexistent") == -ENOENT, "walk to a missing name: ENOENT");
	tap_ok(tc_clunk(&c, 999) == -EBADF, "clunk of an unknown fid: EBADF");
	tap_ok(tc_walk(&c, 0, 0, "") == 0, "walk fid to itself with no names");
	tap_ok(tc_walk(&c, 0, 9, "") == 0 && tc_walk(&c, 0, 9, "") == -EBADF,
	       "walk to a newfid in use: EBADF");
	t = msg(V9P_TOPEN);
	t->topen.fid = 9;
	t->tag = 77;
	c.d = V9P_9P2000;	/* our codec will not pack Topen for .L */
	err = tc_send(&c, t);
	c.d = V9P_9P2000L;
	if (err == 0)
		err = tc_recv(&c, &c.r);
	tap_ok(err == 0 && c.r.type == V9P_RLERROR && c.r.rlerror.ecode == EOPNOTSUPP &&
	       c.r.tag == 77, "9P2000 Topen in a .L session: Rlerror EOPNOTSUPP");

	tap_ok(tc_stop(&c) == 0, "v9fsd exits 0 when its -s connection closes");
	tc_rmtree(dir);
	return tap_done();
}
