// SPDX-License-Identifier: GPL-2.0
/*
 * server_ops_9p.c - v9fsd in 9P2000 and 9P2000.u: open/create modes,
 * stat/wstat with "don't touch" fields, directory reads as stat records
 * with offset checks, and the .u special files and numeric ids.
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

#include "server_client.h"
#include "tap.h"

static struct tc c;
static char path[4096];
static const char *dname;

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

static int do_stat(uint32_t fid, struct v9p_stat *st)
{
	struct v9p_fcall *t = msg(V9P_TSTAT);
	int err;

	t->tstat.fid = fid;
	err = tc_rpc(&c, t);
	if (err == 0)
		*st = c.r.rstat.stat;
	return err;
}

static int do_wstat(uint32_t fid, const struct v9p_stat *st)
{
	struct v9p_fcall *t = msg(V9P_TWSTAT);

	t->twstat.fid = fid;
	t->twstat.stat = *st;
	return tc_rpc(&c, t);
}

static int create_special(uint32_t dfid, const char *name, uint32_t perm, const char *ext)
{
	struct v9p_fcall *t = msg(V9P_TCREATE);
	int err;

	tc_walk(&c, dfid, 50, "");
	t->tcreate.fid = 50;
	v9p_str_set(&t->tcreate.name, name);
	t->tcreate.perm = perm;
	t->tcreate.mode = V9P_OREAD;
	v9p_str_set(&t->tcreate.extension, ext);
	err = tc_rpc(&c, t);
	tc_clunk(&c, 50);
	return err;
}

/*
 * Read a whole directory as stat records in count-byte reads; count the
 * entries, and those named want. If ext is not NULL, the extension of the
 * first entry named want is copied into it.
 */
static int read_dir(uint32_t fid, uint32_t count, int *entries, int *found_name,
		    const char *want, char *ext, size_t len)
{
	uint64_t off = 0;
	uint8_t buf[65536];
	int n;

	*entries = 0;
	*found_name = 0;
	for (;;) {
		uint32_t pos = 0;

		n = tc_read(&c, fid, off, buf, count);
		if (n < 0)
			return n;
		if (n == 0)
			return 0;
		while (pos < (uint32_t)n) {
			struct v9p_stat st;
			int k = v9p_stat_unpack(buf + pos, (uint32_t)n - pos, c.d, &st);

			if (k < 0)
				return -EPROTO;
			pos += (uint32_t)k;
			(*entries)++;
			if (!want || !v9p_str_eq(&st.name, want))
				continue;
			if (ext && !*found_name)
				snprintf(ext, len, "%.*s", st.extension.len, st.extension.s);
			(*found_name)++;
		}
		off += (uint64_t)n;
	}
}

/*
 * Find name in directory fid's stat records (read from offset 0) and copy
 * its extension into ext. Returns 0, -ENOENT or a read error.
 */
static int dir_entry_ext(uint32_t fid, const char *name, char *ext, size_t len)
{
	int entries, found;
	int err = read_dir(fid, 8192, &entries, &found, name, ext, len);

	if (err)
		return err;
	return found ? 0 : -ENOENT;
}

/* Tstat's extension as a C string ("" on error). */
static const char *stat_ext(uint32_t fid)
{
	static char ext[256];
	struct v9p_stat st;

	ext[0] = '\0';
	if (do_stat(fid, &st) == 0)
		snprintf(ext, sizeof(ext), "%.*s", st.extension.len, st.extension.s);
	return ext;
}

static void run(const char *version)
{
	char *dir = tc_tmpdir();
	bool dotu = !strcmp(version, "9P2000.u");
	struct v9p_stat st;
	struct stat hs;
	char buf[8192];
	int err, n, entries, found;

	dname = version;
	if (!dir || tc_setup(&c, dir, version, NULL) < 0) {
		tap_ok(0, "%s: v9fsd starts and attaches", version);
		return;
	}
	tap_ok(c.d == (dotu ? V9P_9P2000U : V9P_9P2000), "%s: negotiated", version);

	/* Tcreate + write + read */
	tc_walk(&c, 0, 1, "");
	err = tc_create(&c, 1, "f", 0644, V9P_ORDWR);
	tap_ok(err == 0 && c.r.rcreate.iounit > 0, "%s: Tcreate f ORDWR", version);
	n = tc_write(&c, 1, 0, "0123456789", 10);
	tap_ok(n == 10 && tc_read(&c, 1, 2, buf, 3) == 3 && !memcmp(buf, "234", 3),
	       "%s: write then read back through the created fid", version);
	tc_clunk(&c, 1);

	/* exclusive create */
	tc_walk(&c, 0, 1, "");
	err = tc_create(&c, 1, "f", 0644, V9P_OWRITE);
	tap_ok(err == -EEXIST, "%s: Tcreate of an existing name fails (%d)", version, err);
	tc_clunk(&c, 1);

	/* OTRUNC */
	tc_walk(&c, 0, 1, "f");
	err = tc_open(&c, 1, V9P_OWRITE | V9P_OTRUNC);
	tap_ok(err == 0 && stat(at(dir, "f"), &hs) == 0 && hs.st_size == 0,
	       "%s: Topen OTRUNC truncates", version);
	tap_ok(tc_read(&c, 1, 0, buf, 10) == -EBADF, "%s: Tread on a write-only fid: EBADF", version);
	tap_ok(tc_open(&c, 1, V9P_OREAD) == -EBUSY, "%s: a second Topen on a fid fails", version);
	tc_clunk(&c, 1);

	/* ORCLOSE */
	tc_walk(&c, 0, 1, "");
	err = tc_create(&c, 1, "tmp", 0600, V9P_ORDWR | V9P_ORCLOSE);
	tap_ok(err == 0 && stat(at(dir, "tmp"), &hs) == 0, "%s: create with ORCLOSE", version);
	tc_clunk(&c, 1);
	tap_ok(stat(at(dir, "tmp"), &hs) < 0 && errno == ENOENT, "%s: ORCLOSE removes at clunk", version);

	/* Tcreate a directory */
	tc_walk(&c, 0, 1, "");
	err = tc_create(&c, 1, "d", V9P_DMDIR | 0755, V9P_OREAD);
	tap_ok(err == 0 && c.r.rcreate.qid.type == V9P_QTDIR && stat(at(dir, "d"), &hs) == 0 &&
	       S_ISDIR(hs.st_mode), "%s: Tcreate DMDIR makes a directory", version);
	tc_clunk(&c, 1);

	/* Tstat */
	tc_walk(&c, 0, 2, "f");
	err = do_stat(2, &st);
	stat(at(dir, "f"), &hs);
	tap_ok(err == 0 && v9p_str_eq(&st.name, "f") && st.length == 0 &&
	       (st.mode & 0777) == 0644 && st.qid.path == hs.st_ino &&
	       st.mtime == (uint32_t)hs.st_mtime, "%s: Tstat name/length/mode/qid/mtime", version);
	if (geteuid() == 0)
		tap_ok(v9p_str_eq(&st.uid, "root") && (!dotu || st.n_uid == 0),
		       "%s: Tstat owner is root%s", version, dotu ? " (n_uid 0)" : "");
	else
		tap_ok(1, "# SKIP owner check needs root");
	err = do_stat(0, &st);
	tap_ok(err == 0 && (st.mode & V9P_DMDIR) && st.qid.type == V9P_QTDIR,
	       "%s: Tstat of the root is a directory", version);
	if (!dotu) {
		err = do_stat(2, &st);
		tap_ok(err == 0 && st.extension.len == 0,
		       "9P2000: a stat carries no extension (no link count)");
	}

	/* Twstat: only length, then only mode, then times, then name */
	v9p_stat_dont_touch(&st);
	st.length = 3;
	err = do_wstat(2, &st);
	stat(at(dir, "f"), &hs);
	tap_ok(err == 0 && hs.st_size == 3 && (hs.st_mode & 0777) == 0644,
	       "%s: Twstat length truncates and leaves the mode alone", version);
	v9p_stat_dont_touch(&st);
	st.mode = 0604;
	err = do_wstat(2, &st);
	stat(at(dir, "f"), &hs);
	tap_ok(err == 0 && (hs.st_mode & 0777) == 0604 && hs.st_size == 3,
	       "%s: Twstat mode chmods and leaves the length alone", version);
	v9p_stat_dont_touch(&st);
	st.mtime = 1234567890;
	err = do_wstat(2, &st);
	stat(at(dir, "f"), &hs);
	tap_ok(err == 0 && hs.st_mtime == 1234567890, "%s: Twstat mtime", version);
	v9p_stat_dont_touch(&st);
	v9p_str_set(&st.name, "g");
	err = do_wstat(2, &st);
	tap_ok(err == 0 && stat(at(dir, "g"), &hs) == 0 && stat(at(dir, "f"), &hs) < 0,
	       "%s: Twstat name renames within the directory", version);
	err = do_stat(2, &st);
	tap_ok(err == 0 && v9p_str_eq(&st.name, "g"), "%s: the fid follows the rename", version);
	v9p_stat_dont_touch(&st);
	v9p_str_set(&st.name, "../escape");
	tap_ok(do_wstat(2, &st) < 0 && stat(at(dir, "g"), &hs) == 0,
	       "%s: Twstat name with a slash is refused", version);
	if (geteuid() == 0) {
		v9p_stat_dont_touch(&st);
		if (dotu) {
			st.n_uid = 1234;
			st.n_gid = 4321;
		} else {
			v9p_str_set(&st.uid, "1234");
			v9p_str_set(&st.gid, "4321");
		}
		err = do_wstat(2, &st);
		stat(at(dir, "g"), &hs);
		tap_ok(err == 0 && hs.st_uid == 1234 && hs.st_gid == 4321,
		       "%s: Twstat chown to 1234:4321 as root", version);
	} else {
		tap_ok(1, "# SKIP chown needs root");
	}

	/* directory reads */
	for (int i = 0; i < 30; i++) {
		int fd;

		snprintf(buf, sizeof(buf), "%s/d/entry-with-a-longish-name-%02d", dir, i);
		fd = open(buf, O_CREAT | O_WRONLY, 0644);
		close(fd);
	}
	tc_walk(&c, 0, 3, "d");
	tc_open(&c, 3, V9P_OREAD);
	err = read_dir(3, 300, &entries, &found, "entry-with-a-longish-name-29", NULL, 0);
	tap_ok(err == 0 && entries == 30 && found == 1,
	       "%s: directory read in 300-byte reads returns 30 whole stat records (%d, %d)",
	       version, err, entries);
	n = tc_read(&c, 3, 0, buf, 300);
	tap_ok(n > 0, "%s: offset 0 starts over", version);
	err = tc_read(&c, 3, 5, buf, 300);
	tap_ok(err < 0, "%s: a directory read at an offset that is not the last end fails (%d)",
	       version, err);
	{
		/* seekdir(telldir()): back to where an earlier read ended */
		char first[300], again[300];
		int a, b, x;

		x = tc_read(&c, 3, 0, buf, 300);
		a = x > 0 ? tc_read(&c, 3, (uint64_t)x, first, 300) : -1;
		if (a > 0)
			tc_read(&c, 3, (uint64_t)(x + a), buf, 300);
		b = a > 0 ? tc_read(&c, 3, (uint64_t)x, again, 300) : -1;
		tap_ok(a > 0 && a == b && !memcmp(first, again, (size_t)a),
		       "%s: a read at an earlier entry boundary returns the same records", version);
	}
	n = tc_read(&c, 3, 0, buf, 300);
	err = n > 0 ? tc_read(&c, 3, (uint64_t)n, buf, 8) : -1;
	tap_ok(err == 0, "%s: a count smaller than the next stat record reads 0 bytes (%d)",
	       version, err);
	err = n > 0 ? tc_read(&c, 3, (uint64_t)n, buf, 300) : -1;
	tap_ok(err > 0, "%s: and a full count at the same offset goes on (%d)", version, err);
	tc_clunk(&c, 3);

	/* walk errors in text form */
	err = tc_walk(&c, 0, 4, "missing");
	tap_ok(err == -ENOENT, "%s: walk to a missing name maps back to ENOENT (%d)", version, err);
	err = tc_walk(&c, 0, 4, "d/missing");
	tap_ok(err == -ENOENT && c.r.type == V9P_RWALK && c.r.rwalk.nwqid == 1,
	       "%s: a partial walk returns the qids it got", version);
	tap_ok(tc_clunk(&c, 4) == -EBADF, "%s: and newfid was not created", version);

	/* .u special files */
	if (dotu) {
		tc_walk(&c, 0, 5, "g");
		err = create_special(0, "sl", V9P_DMSYMLINK | 0777, "g");
		n = (int)readlink(at(dir, "sl"), buf, sizeof(buf));
		tap_ok(err == 0 && n == 1 && buf[0] == 'g', "9P2000.u: Tcreate DMSYMLINK");
		tc_walk(&c, 0, 6, "sl");
		err = do_stat(6, &st);
		tap_ok(err == 0 && (st.mode & V9P_DMSYMLINK) && v9p_str_eq(&st.extension, "g"),
		       "9P2000.u: Tstat of a symlink has DMSYMLINK and the target");
		tc_clunk(&c, 6);
		snprintf(buf, sizeof(buf), "%u\n", 5u);
		err = create_special(0, "hl", V9P_DMLINK, buf);
		{
			struct stat a, b;

			tap_ok(err == 0 && stat(at(dir, "hl"), &a) == 0 && stat(at(dir, "g"), &b) == 0 &&
			       a.st_ino == b.st_ino, "9P2000.u: Tcreate DMLINK makes a hard link");
		}
		/* link counts: "HARDLINKCOUNT n" for regular files and directories */
		{
			char want[64], ext[256];
			struct stat ds;

			tap_ok(!strcmp(stat_ext(5), "HARDLINKCOUNT 2"),
			       "9P2000.u: Tstat of a file with two names says HARDLINKCOUNT 2 (%s)",
			       stat_ext(5));
			tc_walk(&c, 0, 6, "d");
			stat(at(dir, "d"), &ds);
			snprintf(want, sizeof(want), "HARDLINKCOUNT %u", (unsigned int)ds.st_nlink);
			tap_ok(!strcmp(stat_ext(6), want),
			       "9P2000.u: Tstat of a directory says %s (%s)", want, stat_ext(6));
			tc_clunk(&c, 6);
			tc_walk(&c, 0, 6, "");
			tc_open(&c, 6, V9P_OREAD);
			tap_ok(dir_entry_ext(6, "hl", ext, sizeof(ext)) == 0 &&
			       !strcmp(ext, "HARDLINKCOUNT 2"),
			       "9P2000.u: the directory-read record of a linked file has it too (%s)", ext);
			tap_ok(dir_entry_ext(6, "sl", ext, sizeof(ext)) == 0 && !strcmp(ext, "g"),
			       "9P2000.u: a symlink's record keeps its target as the extension (%s)", ext);
			tap_ok(dir_entry_ext(6, "d", ext, sizeof(ext)) == 0 && !strcmp(ext, want),
			       "9P2000.u: a directory's record says %s (%s)", want, ext);
			tc_clunk(&c, 6);
			unlink(at(dir, "hl"));
			tap_ok(!strcmp(stat_ext(5), "HARDLINKCOUNT 1"),
			       "9P2000.u: after unlinking the second name: HARDLINKCOUNT 1 (%s)",
			       stat_ext(5));
		}
		err = create_special(0, "pipe", V9P_DMNAMEDPIPE | 0644, "");
		tap_ok(err == 0 && stat(at(dir, "pipe"), &hs) == 0 && S_ISFIFO(hs.st_mode),
		       "9P2000.u: Tcreate DMNAMEDPIPE makes a fifo");
		err = create_special(0, "sock", V9P_DMSOCKET | 0644, "");
		tap_ok(err == 0 && lstat(at(dir, "sock"), &hs) == 0 && S_ISSOCK(hs.st_mode),
		       "9P2000.u: Tcreate DMSOCKET makes a socket node");
		tc_walk(&c, 0, 6, "pipe");
		tap_ok(!strcmp(stat_ext(6), ""), "9P2000.u: a fifo's extension stays empty (%s)",
		       stat_ext(6));
		tc_clunk(&c, 6);
		if (geteuid() == 0) {
			err = create_special(0, "cdev", V9P_DMDEVICE | 0600, "c 1 3");
			tap_ok(err == 0 && lstat(at(dir, "cdev"), &hs) == 0 && S_ISCHR(hs.st_mode) &&
			       major(hs.st_rdev) == 1 && minor(hs.st_rdev) == 3,
			       "9P2000.u: Tcreate DMDEVICE 'c 1 3'");
			err = create_special(0, "bdev", V9P_DMDEVICE | 0600, "b 7 0");
			tap_ok(err == 0 && lstat(at(dir, "bdev"), &hs) == 0 && S_ISBLK(hs.st_mode),
			       "9P2000.u: Tcreate DMDEVICE 'b 7 0'");
			tc_walk(&c, 0, 6, "cdev");
			err = do_stat(6, &st);
			tap_ok(err == 0 && (st.mode & V9P_DMDEVICE) && v9p_str_eq(&st.extension, "c 1 3"),
			       "9P2000.u: Tstat of a device says 'c 1 3'");
			tc_clunk(&c, 6);
		} else {
			tap_ok(1, "# SKIP devices need root");
			tap_ok(1, "# SKIP devices need root");
			tap_ok(1, "# SKIP devices need root");
		}
		tc_clunk(&c, 5);
	}

	/* Tremove */
	tc_walk(&c, 0, 7, "g");
	{
		struct v9p_fcall *t = msg(V9P_TREMOVE);

		t->tremove.fid = 7;
		err = tc_rpc(&c, t);
	}
	tap_ok(err == 0 && stat(at(dir, "g"), &hs) < 0, "%s: Tremove", version);
	tap_ok(tc_clunk(&c, 7) == -EBADF, "%s: Tremove clunked the fid", version);
	{
		struct v9p_fcall *t = msg(V9P_TREMOVE);

		tc_walk(&c, 0, 8, "");
		t->tremove.fid = 8;
		err = tc_rpc(&c, t);
		tap_ok(err < 0 && stat(dir, &hs) == 0, "%s: the root cannot be removed (%d)",
		       version, err);
	}
	tap_ok(tc_stop(&c) == 0, "%s: v9fsd exits cleanly", version);
	tc_rmtree(dir);
	free(dir);
}

int main(void)
{
	run("9P2000");
	run("9P2000.u");
	return tap_done();
}
