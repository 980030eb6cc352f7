// SPDX-License-Identifier: GPL-2.0-only
/*
 * Directory reads of the 9P file system type. A 9P2000 directory is read
 * as a stream of stat records, and the server accepts a read only at offset
 * 0 or where the previous read ended (read(5)). The directory position is
 * therefore the byte offset of an entry in that stream; each open directory
 * keeps the last chunk the server sent, and a seek to any other position
 * re-reads from the start and skips up to it, so telldir/seekdir work as
 * long as the directory does not change in between.
 */
#define pr_fmt(fmt) "9p2000: " fmt

#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/uio.h>

#include "v9fs.h"
#include "attr.h"
#include "dir.h"
#include "file.h"

/*
 * The most one Tread can return (msize less the Rread header, or the
 * iounit if less): a fill is a single Tread, always at the offset the
 * server expects, and never asks for more than this.
 */
static u32 ninep_dirbuf_max(const struct ninep_session *s,
			    const struct ninep_fid *fid)
{
	u32 size = ninep_client_msize(s->clnt) - V9P_IOHDRSZ;

	if (fid->iounit && fid->iounit < size)
		size = fid->iounit;
	return size;
}

/*
 * The chunk buffer holds one whole reply (msize less the I/O header, or the
 * iounit), as the server may fill it: reading a directory in smaller chunks
 * costs round trips. It is allocated at the first read and freed when the
 * listing reaches its end, so that a directory left open after it was read
 * does not pin it. 0 or -ENOMEM.
 */
static int dir_buf_get(struct ninep_open_file *of, u32 size)
{
	if (of->dbuf)
		return 0;
	of->dbuf = kvmalloc(size, GFP_KERNEL);
	if (!of->dbuf)
		return -ENOMEM;
	of->dcap = size;
	of->dlen = 0;
	return 0;
}

static void dir_buf_put(struct ninep_open_file *of)
{
	kvfree(of->dbuf);
	of->dbuf = NULL;
	of->dcap = 0;
	of->dlen = 0;
}

/*
 * Emit the entries of the buffer at or after ctx->pos. Returns 1 when the
 * buffer is used up, 0 when the caller's buffer is full, or -EIO for a
 * record that does not decode.
 */
static int ninep_dir_emit_buf(struct ninep_session *s, struct ninep_open_file *of,
			      struct dir_context *ctx)
{
	struct v9p_stat st;
	u32 i = 0;
	int n;

	while (i < of->dlen) {
		n = v9p_stat_unpack(of->dbuf + i, of->dlen - i, s->dialect,
				    &st);
		if (n < 0) {
			ninep_err_dbg(s, "bad stat record at %llu: %d\n",
				      of->doff + i, n);
			return -EIO;
		}
		if (of->doff + i >= ctx->pos) {
			/* A position inside a record moves to the next one. */
			ctx->pos = of->doff + i;
			if (!dir_emit(ctx, st.name.s, st.name.len,
				      (ino_t)st.qid.path, ninep_dtype(s, &st)))
				return 0;
			ctx->pos = of->doff + i + n;
		}
		i += n;
	}
	return 1;
}

/* Forget the buffered chunk: the next read starts the stream again at 0. */
static void ninep_dir_restart(struct ninep_open_file *of)
{
	of->doff = 0;
	of->dlen = 0;
	of->dnext = 0;
}

/* Read the next chunk of the stream; 0 at the end of the directory. */
static int ninep_dir_fill(struct ninep_open_file *of)
{
	struct iov_iter to;
	struct kvec kv;
	ssize_t n;

	kv.iov_base = of->dbuf;
	kv.iov_len = of->dcap;
	iov_iter_kvec(&to, ITER_DEST, &kv, 1, of->dcap);
	of->doff = of->dnext;
	of->dlen = 0;
	n = ninep_read(of->fid, of->dnext, &to, 0);
	if (n < 0)
		return n;
	of->dlen = n;
	of->dnext += n;
	if (!n)
		dir_buf_put(of);
	return n > 0;
}

/*
 * 9P2000.L (Treaddir): the directory position is the server's cookie of
 * the entry to read next, 0 at the start; each entry carries the cookie of
 * the one after it. The buffer holds the reply to a Treaddir at cookie
 * of->doff; a position that is no cookie in it is asked for anew.
 *
 * An entry is the server's word: a name that is empty, holds a '/' or is
 * longer than NAME_MAX is skipped (and logged), an unknown type is shown
 * as DT_UNKNOWN, and a cookie of 0 or one equal to the position it was
 * read from (a listing that would never end) fails the read with EIO, as do
 * cookies that go round in a longer circle (NINEP_READDIR_IDLE_ROUNDS).
 */
static bool ninep_dirent_name_ok(const struct v9p_str *n)
{
	return n->len && n->len <= NAME_MAX && !memchr(n->s, '/', n->len);
}

static unsigned int ninep_dirent_dtype(u8 type)
{
	switch (type) {
	case DT_FIFO: case DT_CHR: case DT_DIR: case DT_BLK:
	case DT_REG: case DT_LNK: case DT_SOCK:
		return type;
	}
	return DT_UNKNOWN;
}

/*
 * 1 when the buffer is used up (2 when ctx->pos was no cookie in it), 0 when
 * the caller's buffer is full, -EIO. *@shown is set when an entry went out.
 */
static int ninep_dotl_emit_buf(struct ninep_session *s,
			       struct ninep_open_file *of,
			       struct dir_context *ctx, bool *shown)
{
	struct v9p_dirent de;
	bool found = of->doff == ctx->pos;
	u64 from = of->doff;
	u32 i = 0;
	int n;

	while (i < of->dlen) {
		n = v9p_dirent_unpack(of->dbuf + i, of->dlen - i, &de);
		if (n < 0) {
			pr_warn_ratelimited("Rreaddir: bad entry at byte %u of %u: EIO\n",
					    i, of->dlen);
			return -EIO;
		}
		if (!de.offset || de.offset == from) {
			pr_warn_ratelimited("Rreaddir: entry '%.*s' leads back to cookie %llu: EIO\n",
					    de.name.len, de.name.s, de.offset);
			return -EIO;
		}
		if (found) {
			if (!ninep_dirent_name_ok(&de.name)) {
				pr_warn_ratelimited("Rreaddir: entry of %u bytes with an invalid name skipped\n",
						    de.name.len);
			} else {
				if (!dir_emit(ctx, de.name.s, de.name.len,
					      (ino_t)de.qid.path,
					      ninep_dirent_dtype(de.type)))
					return 0;
				*shown = true;
			}
			ctx->pos = de.offset;
		} else if (de.offset == ctx->pos) {
			found = true;
		}
		from = de.offset;
		i += n;
	}
	return found ? 1 : 2;
}

/*
 * Treaddir rounds one getdents may make in a row without an entry to show.
 * Cookies that lead in a circle through entries that are all skipped (or
 * all before the position) would otherwise loop here for ever, under the
 * directory's lock, which every writer and then every lookup there waits
 * for; no honest server sends this many replies of skipped names in a row.
 */
#define NINEP_READDIR_IDLE_ROUNDS	64

static int ninep_dotl_readdir(struct file *file, struct dir_context *ctx)
{
	struct ninep_session *s = ninep_inode_session(file_inode(file));
	struct ninep_open_file *of = file->private_data;
	unsigned int idle = 0;
	bool shown;
	ssize_t n;
	int ret;

	ret = dir_buf_get(of, ninep_dirbuf_max(s, of->fid));
	if (ret)
		return ret;
	/* rewinddir(): see the directory as it is now. */
	if (ctx->pos == 0)
		of->dlen = 0;
	for (;;) {
		if (of->dlen) {
			shown = false;
			ret = ninep_dotl_emit_buf(s, of, ctx, &shown);
			if (ret <= 0)
				return ret;
			idle = shown ? 0 : idle + 1;
			if (idle > NINEP_READDIR_IDLE_ROUNDS) {
				pr_warn_ratelimited("%s: Rreaddir: %u replies in a row with no entry to show (cookies in a circle?): EIO\n",
						    s->addr ? s->addr : "fd",
						    idle);
				return -EIO;
			}
		}
		of->dlen = 0;
		n = ninep_readdir(of->fid, ctx->pos, of->dbuf, of->dcap);
		if (n <= 0) {
			if (!n)
				dir_buf_put(of);
			return n;
		}
		of->doff = ctx->pos;
		of->dlen = n;
	}
}

static int ninep_dir_readdir(struct file *file, struct dir_context *ctx)
{
	struct ninep_session *s = ninep_inode_session(file_inode(file));
	struct ninep_open_file *of = file->private_data;
	int ret;

	if (ninep_dotl(s))
		return ninep_dotl_readdir(file, ctx);
	ret = dir_buf_get(of, ninep_dirbuf_max(s, of->fid));
	if (ret)
		return ret;
	/* rewinddir(): see the directory as it is now, not our old chunk. */
	if (ctx->pos == 0 && of->dnext)
		ninep_dir_restart(of);

	for (;;) {
		if (ctx->pos < of->doff) {
			/* Behind the buffer: the server only restarts at 0. */
			ninep_dir_restart(of);
		} else if (ctx->pos < of->doff + of->dlen) {
			ret = ninep_dir_emit_buf(s, of, ctx);
			if (ret <= 0)
				return ret;
		}
		ret = ninep_dir_fill(of);
		if (ret <= 0)
			return ret;
	}
}

const struct file_operations ninep_dir_fops = {
	.llseek		= generic_file_llseek,
	.read		= generic_read_dir,
	.iterate_shared	= ninep_dir_readdir,
	.open		= ninep_file_open,
	.release	= ninep_file_release,
	.fsync		= ninep_file_fsync,
	.setlease	= simple_nosetlease,
};
