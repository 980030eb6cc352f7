// SPDX-License-Identifier: GPL-2.0
/*
 * server_precedence.c - which error v9fsd answers when a request is wrong
 * in two ways at once: a bad name and an unknown fid, a fid that is no
 * directory and one that does not exist, an unopened fid and a bad lock
 * type, a read-only export and anything else. Each case is a request that
 * two of the checks made before an operation would refuse; the errno of
 * the one that comes first is what the client sees.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server_client.h"
#include "tap.h"

#define NOSUCH 77	/* a fid number never used */

static struct tc c;

static int rpc(struct v9p_fcall *t)
{
	return tc_rpc(&c, t);
}

static void dotl(const char *dir)
{
	struct v9p_fcall *t;
	int err;

	if (tc_setup(&c, dir, "9P2000.L", NULL) < 0) {
		tap_ok(0, "v9fsd starts and attaches (9P2000.L)");
		return;
	}
	/* fid 1: the regular file "pub", not open; fid 2: the root, opened */
	tap_ok(tc_walk(&c, 0, 1, "pub") == 0 && tc_walk(&c, 0, 2, "") == 0 &&
	       tc_open(&c, 2, V9P_DOTL_RDONLY) == 0, "fids of a file and an open directory");

	t = tc_msg(V9P_TLCREATE);
	t->tlcreate.fid = NOSUCH;
	v9p_str_set(&t->tlcreate.name, "a/b");
	err = rpc(t);
	tap_ok(err == -EINVAL, "Tlcreate: a name with a slash wins over an unknown fid (%d)", err);

	t = tc_msg(V9P_TMKDIR);
	t->tmkdir.dfid = NOSUCH;
	v9p_str_set(&t->tmkdir.name, "..");
	t->tmkdir.mode = 0755;
	err = rpc(t);
	tap_ok(err == -EINVAL, "Tmkdir: the name \"..\" wins over an unknown fid (%d)", err);

	t = tc_msg(V9P_TSYMLINK);
	t->tsymlink.fid = NOSUCH;
	v9p_str_set(&t->tsymlink.name, "ln");
	v9p_str_set(&t->tsymlink.symtgt, "");
	err = rpc(t);
	tap_ok(err == -ENOENT, "Tsymlink: an empty target wins over an unknown fid (%d)", err);

	t = tc_msg(V9P_TSYMLINK);
	t->tsymlink.fid = 1;
	v9p_str_set(&t->tsymlink.name, "");
	v9p_str_set(&t->tsymlink.symtgt, "");
	err = rpc(t);
	tap_ok(err == -EINVAL, "Tsymlink: an empty name wins over an empty target (%d)", err);

	t = tc_msg(V9P_TSYMLINK);
	t->tsymlink.fid = 1;
	v9p_str_set(&t->tsymlink.name, "ln");
	v9p_str_set(&t->tsymlink.symtgt, "pub");
	err = rpc(t);
	tap_ok(err == -ENOTDIR, "Tsymlink in a file fid: ENOTDIR (%d)", err);

	t = tc_msg(V9P_TMKNOD);
	t->tmknod.dfid = NOSUCH;
	v9p_str_set(&t->tmknod.name, "node");
	t->tmknod.mode = 0040755;	/* a directory: not Tmknod's */
	err = rpc(t);
	tap_ok(err == -EINVAL, "Tmknod: a directory's type wins over an unknown fid (%d)", err);

	t = tc_msg(V9P_TXATTRCREATE);
	t->txattrcreate.fid = NOSUCH;
	v9p_str_set(&t->txattrcreate.name, "user.x");
	t->txattrcreate.attr_size = 1u << 20;
	err = rpc(t);
	tap_ok(err == -E2BIG, "Txattrcreate: a 1 MiB value wins over an unknown fid (%d)", err);

	t = tc_msg(V9P_TXATTRCREATE);
	t->txattrcreate.fid = NOSUCH;
	v9p_str_set(&t->txattrcreate.name, "user.x");
	t->txattrcreate.flags = 0x100;
	err = rpc(t);
	tap_ok(err == -EINVAL, "Txattrcreate: unknown flags win over an unknown fid (%d)", err);

	t = tc_msg(V9P_TLINK);
	t->tlink.dfid = 1;
	t->tlink.fid = NOSUCH;
	v9p_str_set(&t->tlink.name, "hard");
	err = rpc(t);
	tap_ok(err == -ENOTDIR, "Tlink: a directory fid that is a file wins over an unknown target (%d)",
	       err);

	t = tc_msg(V9P_TLINK);
	t->tlink.dfid = 0;
	t->tlink.fid = NOSUCH;
	v9p_str_set(&t->tlink.name, "hard");
	err = rpc(t);
	tap_ok(err == -EBADF, "Tlink: an unknown target fid: EBADF (%d)", err);

	t = tc_msg(V9P_TRENAME);
	t->trename.fid = NOSUCH;
	t->trename.dfid = 1;
	v9p_str_set(&t->trename.name, "moved");
	err = rpc(t);
	tap_ok(err == -EBADF, "Trename: an unknown fid wins over a directory fid that is a file (%d)",
	       err);

	t = tc_msg(V9P_TRENAME);
	t->trename.fid = 1;
	t->trename.dfid = 1;
	v9p_str_set(&t->trename.name, "moved");
	err = rpc(t);
	tap_ok(err == -ENOTDIR, "Trename into a file fid: ENOTDIR (%d)", err);

	t = tc_msg(V9P_TRENAMEAT);
	t->trenameat.olddirfid = NOSUCH;
	t->trenameat.newdirfid = NOSUCH;
	v9p_str_set(&t->trenameat.oldname, "pub");
	v9p_str_set(&t->trenameat.newname, ".");
	err = rpc(t);
	tap_ok(err == -EINVAL, "Trenameat: a new name \".\" wins over unknown fids (%d)", err);

	t = tc_msg(V9P_TUNLINKAT);
	t->tunlinkat.dirfid = NOSUCH;
	v9p_str_set(&t->tunlinkat.name, "");
	err = rpc(t);
	tap_ok(err == -EINVAL, "Tunlinkat: an empty name wins over an unknown fid (%d)", err);

	t = tc_msg(V9P_TREADDIR);
	t->treaddir.fid = 1;
	t->treaddir.count = 4096;
	err = rpc(t);
	tap_ok(err == -EBADF, "Treaddir on an unopened file: EBADF before ENOTDIR (%d)", err);

	t = tc_msg(V9P_TLOCK);
	t->tlock.fid = 1;
	t->tlock.type = 9;
	err = rpc(t);
	tap_ok(err == -EBADF, "Tlock: an unopened fid wins over a bad lock type (%d)", err);

	t = tc_msg(V9P_TLOCK);
	t->tlock.fid = 2;
	t->tlock.type = 9;
	err = rpc(t);
	tap_ok(err == -EINVAL, "Tlock on an open fid with a bad lock type: EINVAL (%d)", err);

	t = tc_msg(V9P_TFSYNC);
	t->tfsync.fid = 1;
	err = rpc(t);
	tap_ok(err == -EBADF, "Tfsync on an unopened fid: EBADF (%d)", err);

	/* a walk's own failure wins over a newfid in use; a good walk then finds it */
	t = tc_msg(V9P_TWALK);
	t->twalk.fid = 0;
	t->twalk.newfid = 1;
	t->twalk.nwname = 1;
	v9p_str_set(&t->twalk.wname[0], "absent");
	err = rpc(t);
	tap_ok(err == -ENOENT, "Twalk: a missing first name wins over a newfid in use (%d)", err);

	t = tc_msg(V9P_TWALK);
	t->twalk.fid = 0;
	t->twalk.newfid = 1;
	t->twalk.nwname = 1;
	v9p_str_set(&t->twalk.wname[0], "pub");
	err = rpc(t);
	tap_ok(err == -EBADF, "Twalk to a newfid in use: EBADF (%d)", err);

	t = tc_msg(V9P_TWALK);
	t->twalk.fid = 2;
	t->twalk.newfid = 2;
	err = rpc(t);
	tap_ok(err == -EBUSY, "Twalk of an open fid onto itself: EBUSY (%d)", err);

	t = tc_msg(V9P_TXATTRWALK);
	t->txattrwalk.fid = 0;
	t->txattrwalk.newfid = 1;
	v9p_str_set(&t->txattrwalk.name, "user.absent");
	err = rpc(t);
	tap_ok(err == -ENODATA || err == -EOPNOTSUPP,
	       "Txattrwalk: a missing attribute wins over a newfid in use (%d)", err);

	t = tc_msg(V9P_TXATTRWALK);
	t->txattrwalk.fid = 1;
	t->txattrwalk.newfid = 1;
	v9p_str_set(&t->txattrwalk.name, "");
	err = rpc(t);
	tap_ok(err == -EBADF || err == -EOPNOTSUPP,
	       "Txattrwalk onto its own fid: the newfid is in use, EBADF (%d)", err);
	tc_stop(&c);
}

static void legacy(const char *dir)
{
	struct v9p_fcall *t;
	int err;

	if (tc_setup(&c, dir, "9P2000.u", NULL) < 0) {
		tap_ok(0, "v9fsd starts and attaches (9P2000.u)");
		return;
	}
	t = tc_msg(V9P_TCREATE);
	t->tcreate.fid = NOSUCH;
	v9p_str_set(&t->tcreate.name, "x/y");
	t->tcreate.perm = 0644;
	err = rpc(t);
	tap_ok(err == -EINVAL, "Tcreate: a name with a slash wins over an unknown fid (%d)", err);

	/* Twstat checks its name only once it has the fid */
	t = tc_msg(V9P_TWSTAT);
	t->twstat.fid = NOSUCH;
	memset(&t->twstat.stat, 0xff, sizeof(t->twstat.stat));
	memset(&t->twstat.stat.name, 0, sizeof(t->twstat.stat.name));
	v9p_str_set(&t->twstat.stat.name, "a/b");
	v9p_str_set(&t->twstat.stat.uid, "");
	v9p_str_set(&t->twstat.stat.gid, "");
	v9p_str_set(&t->twstat.stat.muid, "");
	v9p_str_set(&t->twstat.stat.extension, "");
	err = rpc(t);
	tap_ok(err == -EBADF, "Twstat: an unknown fid wins over a name with a slash (%d)", err);
	tc_stop(&c);
}

static void readonly(const char *dir)
{
	static const char *const ro[] = { "-r", NULL };
	struct v9p_fcall *t;
	int err;

	if (tc_setup(&c, dir, "9P2000.L", ro) < 0) {
		tap_ok(0, "v9fsd -r starts and attaches");
		return;
	}
	t = tc_msg(V9P_TMKDIR);
	t->tmkdir.dfid = NOSUCH;
	v9p_str_set(&t->tmkdir.name, "a/b");
	err = rpc(t);
	tap_ok(err == -EROFS, "read-only: EROFS wins over a bad name and an unknown fid (%d)", err);

	t = tc_msg(V9P_TREMOVE);
	t->tremove.fid = NOSUCH;
	err = rpc(t);
	tap_ok(err == -EROFS, "read-only: Tremove of an unknown fid is EROFS (%d)", err);

	t = tc_msg(V9P_TCLUNK);
	t->tclunk.fid = NOSUCH;
	err = rpc(t);
	tap_ok(err == -EBADF, "read-only: Tclunk of an unknown fid is EBADF (%d)", err);
	tc_stop(&c);
}

int main(void)
{
	char *dir = tc_export_with_pub();

	if (!dir) {
		tap_ok(0, "an export with a file");
		return tap_done();
	}
	dotl(dir);
	legacy(dir);
	readonly(dir);
	tc_rmtree(dir);
	free(dir);
	return tap_done();
}
