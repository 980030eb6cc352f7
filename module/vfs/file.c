// SPDX-License-Identifier: GPL-2.0-only
/*
 * Open regular files of the 9P file system type: open (Topen, Tlopen in
 * .L, on a clone of the dentry's fid), release, read(2) and write(2),
 * llseek, fsync and flush. With cache=none and cache=mmap reads and writes
 * go straight to the server; cache=loose reads and writes through the page
 * cache (addr.c), kept while the server's attributes at each open say the
 * file did not change: close-to-open consistency. With nocto an open asks
 * for them only when the cached ones are no longer trusted
 * (ninep_attr_cached()), so a change made elsewhere shows at the first
 * open after actimeo.
 */
#define pr_fmt(fmt) "9p2000: " fmt

#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/uio.h>

#include "v9fs.h"
#include "addr.h"
#include "attr.h"
#include "dentry.h"
#include "file.h"
#include "lock.h"

/* The 9P open mode for open(2) flags; O_TRUNC travels as OTRUNC. */
u8 ninep_open_mode(unsigned int f_flags)
{
	u8 mode;

	switch (f_flags & O_ACCMODE) {
	case O_WRONLY:
		mode = V9P_OWRITE;
		break;
	case O_RDWR:
		mode = V9P_ORDWR;
		break;
	default:
		mode = V9P_OREAD;
		break;
	}
	if (f_flags & O_TRUNC)
		mode |= V9P_OTRUNC;
	return mode;
}

/*
 * The Tlopen/Tlcreate flags for open(2) flags. The protocol's values are
 * the generic Linux ones, but an architecture may number O_* otherwise, so
 * each travels by name. O_CREAT, O_EXCL and O_NOCTTY are not Tlopen's
 * business (Tlcreate adds the first two itself); O_DIRECT and FASYNC stay
 * here: I/O is direct already and the server's descriptor signals no one.
 * O_APPEND stays here too: the client places appends itself, as over
 * 9P2000.u (see ninep_file_write_iter), and sends every Twrite with its
 * offset. A server descriptor opened O_APPEND would ignore those offsets,
 * and the chunks of one large write, in flight together, could land out of
 * order; fcntl(F_SETFL) could not change it later either.
 */
u32 ninep_dotl_open_flags(unsigned int f_flags)
{
	static const struct { unsigned int o; u32 l; } map[] = {
		{ O_TRUNC,	V9P_DOTL_TRUNC },
		{ O_NONBLOCK,	V9P_DOTL_NONBLOCK },
		{ O_DSYNC,	V9P_DOTL_DSYNC },
		{ O_LARGEFILE,	V9P_DOTL_LARGEFILE },
		{ O_DIRECTORY,	V9P_DOTL_DIRECTORY },
		{ O_NOFOLLOW,	V9P_DOTL_NOFOLLOW },
		{ O_NOATIME,	V9P_DOTL_NOATIME },
		{ O_CLOEXEC,	V9P_DOTL_CLOEXEC },
		{ __O_SYNC,	V9P_DOTL_SYNC },
	};
	u32 flags;
	size_t i;

	switch (f_flags & O_ACCMODE) {
	case O_WRONLY:
		flags = V9P_DOTL_WRONLY;
		break;
	case O_RDWR:
		flags = V9P_DOTL_RDWR;
		break;
	default:
		flags = V9P_DOTL_RDONLY;
		break;
	}
	for (i = 0; i < ARRAY_SIZE(map); i++)
		if (f_flags & map[i].o)
			flags |= map[i].l;
	return flags;
}

/*
 * cache=loose opens a file asked for O_WRONLY for reading and writing on
 * the server: a write(2) through the cache that covers part of a page not
 * cached has to read the rest of that page first.
 */
unsigned int ninep_cache_open_flags(const struct inode *inode,
				    unsigned int f_flags)
{
	if (ninep_cache_loose(inode) && (f_flags & O_ACCMODE) == O_WRONLY)
		return (f_flags & ~O_ACCMODE) | O_RDWR;
	return f_flags;
}

/* Topen (Tlopen in .L) of @ofid, the new open fid of @inode. */
static int ninep_file_topen(struct inode *inode, struct ninep_fid *ofid,
			    unsigned int f_flags)
{
	bool dir = S_ISDIR(inode->i_mode);

	/* A directory is only read: Treaddir on an O_RDONLY fid. */
	if (ninep_dotl(ninep_inode_session(inode)))
		return ninep_lopen(ofid, dir ? V9P_DOTL_RDONLY | V9P_DOTL_DIRECTORY :
					       ninep_dotl_open_flags(f_flags));
	return ninep_open(ofid, dir ? V9P_OREAD : ninep_open_mode(f_flags));
}

/*
 * The Topen of an open that ninep_open_fetches() leaves alone: with @flags,
 * then, if this user may not read the file, with @f_flags (its writes then
 * bypass the cache). An O_TRUNC in cache=mmap or loose goes under the
 * mapping's invalidate_lock, as a truncate does (ninep_size_change_begin()):
 * dirty pages are sent first and, once the server truncated, the pages go
 * and the size is 0 before any mapping may dirty a page again. Otherwise a
 * page dirtied meanwhile could be sent after the server truncated.
 */
static int ninep_file_topen_trunc(struct inode *inode, struct ninep_fid *ofid,
				  unsigned int flags, unsigned int f_flags)
{
	bool lock = S_ISREG(inode->i_mode) && (f_flags & O_TRUNC) &&
		    ninep_cache_writeback(inode);
	int err = 0;

	if (lock) {
		filemap_invalidate_lock(inode->i_mapping);
		err = ninep_write_back_range(inode, 0, LLONG_MAX);
	}
	if (!err) {
		err = ninep_file_topen(inode, ofid, flags);
		if ((err == -EACCES || err == -EPERM) && flags != f_flags)
			err = ninep_file_topen(inode, ofid, f_flags);
	}
	if (lock) {
		if (!err) {
			ninep_i_size_set(inode, 0, false);
			truncate_pagecache(inode, 0);
		}
		filemap_invalidate_unlock(inode->i_mapping);
	}
	return err;
}

/*
 * nocto: an open that does not change the file itself (O_TRUNC does) goes
 * by the attributes this client holds while getattr would.
 */
static bool ninep_open_trusts_attrs(struct inode *inode, unsigned int f_flags)
{
	return (ninep_inode_session(inode)->flags & NINEP_NOCTO) &&
	       !(f_flags & O_TRUNC) && ninep_attr_cached(inode, 0);
}

/*
 * cache=loose, at each open: the attributes are fetched on the new open
 * fid (unless nocto trusts the cached ones; @af if they were asked for
 * beside the Tlopen, see ninep_open_fetches()) and, if the server's ctime or
 * size is not what the cached pages were valid for, the pages go. ctime
 * changes whenever mtime does, and also when only mtime was set back (a
 * copy keeping times). Pages of a file we wrote are dropped at its next
 * open too, the server having stamped a new time (with nocto too: the
 * write left the attributes stale). Under the inode lock: no write(2)
 * dirties a page meanwhile.
 *
 * If some pages could not be dropped, the open still succeeds: what stays
 * is a page this client holds or dirties right now, whose bytes will win
 * at write-back anyway. The old ctime and size are kept, so that the next
 * open tries again rather than trusting those pages.
 */
static int ninep_cache_revalidate(struct inode *inode, struct ninep_fid *fid,
				  unsigned int f_flags,
				  struct ninep_attr_fetch *af)
{
	struct ninep_inode *vi = NINEP_I(inode);
	struct timespec64 ctime;
	loff_t size;
	int err = 0;

	inode_lock(inode);
	if (af) {
		err = ninep_dotl_fetched(inode, af);
		if (err)
			goto out;
	} else if (!ninep_open_trusts_attrs(inode, f_flags)) {
		err = ninep_refresh_inode(inode, fid);
		if (err)
			goto out;
	}
	ctime = inode_get_ctime(inode);
	size = i_size_read(inode);
	ninep_fscache_revalidate(inode);
	if (inode->i_mapping->nrpages &&
	    (!timespec64_equal(&ctime, &vi->cache_ctime) ||
	     size != vi->cache_size) &&
	    ninep_cache_drop(inode)) {
		ninep_err_dbg(ninep_inode_session(inode),
			      "inode %lu: cached pages kept, checked again at the next open\n",
			      inode->i_ino);
		goto out;
	}
	vi->cache_ctime = ctime;
	vi->cache_size = size;
out:
	inode_unlock(inode);
	return err;
}

/*
 * cache=loose over 9P2000.L: the attributes an open would ask for after its
 * Tlopen are asked for beside it, on the same fid, in one round trip. Not
 * with O_TRUNC: the server may answer the Tgetattr before it truncates.
 */
static bool ninep_open_fetches(struct inode *inode, unsigned int f_flags)
{
	return ninep_cache_loose(inode) &&
	       ninep_dotl(ninep_inode_session(inode)) && !(f_flags & O_TRUNC) &&
	       !ninep_open_trusts_attrs(inode, f_flags);
}

/*
 * Open a file or directory: clone the opener's fid of the dentry (its
 * mapped user's through an idmapped mount) and Topen the clone, which the
 * open file then owns until release. A regular file's name that the path
 * walk left unchecked (ninep_name_check_at_open()) is checked here:
 * beside the Tlopen and Tgetattr of a spare fid of the dentry when the
 * open asks for both (ninep_open_fetches()), else first, on its own.
 * A name gone or meaning another file fails the open with -EOPENSTALE
 * (ninep_open_check_name()): the VFS walks the path again.
 */
int ninep_file_open(struct inode *inode, struct file *file)
{
	struct ninep_idmap *idmap = ninep_file_idmap(file);
	struct ninep_session *s = ninep_inode_session(inode);
	struct dentry *dentry = file_dentry(file);
	bool reg = S_ISREG(inode->i_mode);
	struct ninep_attr_fetch fetch, *af = NULL;
	unsigned int flags = file->f_flags;
	struct ninep_open_file *of;
	struct ninep_fid *fid, *ofid = NULL;
	bool check, fetches, overlap;
	int err, lerr;

	ninep_vfs_dbg(s, "%pD flags 0%o\n", file, file->f_flags);
	/*
	 * Dirty pages land before the Topen; an O_TRUNC's go under the
	 * mapping's invalidate_lock, in ninep_file_topen_trunc().
	 */
	if (reg && ninep_cache_writeback(inode) && !(file->f_flags & O_TRUNC)) {
		err = ninep_write_back_range(inode, 0, LLONG_MAX);
		if (err)
			return err;
	}
	if (reg)
		flags = ninep_cache_open_flags(inode, flags);
	fetches = reg && ninep_open_fetches(inode, flags);
	check = reg && ninep_name_check_at_open(dentry);
	if (check && fetches)
		ofid = ninep_fid_take_spare(dentry, idmap);
	overlap = !!ofid;
	if (check && !overlap) {
		err = ninep_open_check_name(dentry, NULL, 0, NULL, NULL);
		if (err)
			return err;
	}
	/* The name check of this path walk may have walked one already. */
	if (!ofid)
		ofid = ninep_fid_take_spare(dentry, idmap);
	if (!ofid) {
		fid = ninep_fid_lookup_idmap(dentry, idmap);
		if (IS_ERR(fid))
			return PTR_ERR(fid);
		ofid = ninep_walk_reclaim(inode->i_sb, fid, NULL);
		ninep_fid_put(fid);
		if (IS_ERR(ofid))
			return PTR_ERR(ofid);
	}
	of = kzalloc(sizeof(*of), GFP_KERNEL);
	if (!of) {
		err = -ENOMEM;
		goto put_fid;
	}
	if (overlap) {
		af = &fetch;
		err = ninep_open_check_name(dentry, ofid,
					    ninep_dotl_open_flags(flags), af,
					    &lerr);
		if (err)
			goto put_fid;
		err = lerr;
	} else if (fetches) {
		af = &fetch;
		err = ninep_dotl_lopen_fetch(inode, ofid,
					     ninep_dotl_open_flags(flags), af);
	} else {
		err = ninep_file_topen_trunc(inode, ofid, flags, file->f_flags);
	}
	/* Not readable by this user: its writes then bypass the cache. */
	if ((err == -EACCES || err == -EPERM) && flags != file->f_flags && af)
		err = ninep_file_topen(inode, ofid, file->f_flags);
	if (!err && reg && ninep_cache_loose(inode))
		err = ninep_cache_revalidate(inode, ofid, flags, af);
	if (err)
		goto put_fid;

	of->fid = ofid;
	file->private_data = of;
	if (reg)
		ninep_fscache_open(inode, file);
	/* Mappings made from now on see the file as it is now. */
	if (reg && !ninep_cache_loose(inode) && inode->i_mapping->nrpages)
		invalidate_inode_pages2(inode->i_mapping);
	return 0;

put_fid:
	ninep_fid_put(ofid);
	kfree(of);
	return err;
}

int ninep_file_release(struct inode *inode, struct file *file)
{
	struct ninep_open_file *of = file->private_data;

	if (!of)
		return 0;
	/*
	 * The last reference of a file that was mapped may go at munmap,
	 * after close: its pages go to the server now. An error is recorded
	 * in the mapping (fsync and close of other descriptors see it).
	 */
	if (ninep_cache_writeback(inode) && (file->f_mode & FMODE_WRITE))
		ninep_write_back_range(inode, 0, LLONG_MAX);
	ninep_fscache_release(inode, file);
	file->private_data = NULL;
	ninep_fid_put(of->fid);
	kvfree(of->dbuf);
	kfree(of);
	return 0;
}

static ssize_t ninep_file_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	struct ninep_fid *fid = ninep_file_fid(iocb->ki_filp);
	size_t count = iov_iter_count(to);
	ssize_t n;

	if (ninep_cache_loose(inode) && !(iocb->ki_flags & IOCB_DIRECT))
		return generic_file_read_iter(iocb, to);
	if (!count)
		return 0;
	/* Bytes written through a mapping reach the server before we ask. */
	if (ninep_cache_writeback(inode)) {
		n = ninep_write_back_range(inode, iocb->ki_pos,
					   iocb->ki_pos + count - 1);
		if (n)
			return n;
	}
	n = ninep_read(fid, iocb->ki_pos, to, i_size_read(inode));
	if (n > 0)
		iocb->ki_pos += n;
	return n;
}

/*
 * A write(2) goes into the page cache in cache=loose, unless O_DIRECT, or
 * the open fid is write-only (the user may not read the file): a partial
 * page could not be read to fill the rest. Both dialects number the access
 * mode of an open fid alike (0 read, 1 write, 2 both).
 */
static bool ninep_write_cached(const struct kiocb *iocb)
{
	struct file *file = iocb->ki_filp;

	return ninep_cache_loose(file_inode(file)) &&
	       !(iocb->ki_flags & IOCB_DIRECT) &&
	       (ninep_file_fid(file)->mode & V9P_DOTL_NOACCESS) != V9P_OWRITE;
}

/*
 * Writes are serialised per inode so that the size we keep and appends by
 * local writers stay consistent. 9P2000 has no append flag on a write, so
 * for O_APPEND the end of the file is taken from a Tstat on the open fid
 * just before the Twrite (or the copy into the cache): appends from this
 * client land at the end, but an append racing with another client's
 * write between the two can still land short of the end (no
 * protocol-level atomic append exists). Written through the cache, the
 * bytes are sent later (ninep_writepages), each whole run as soon as it
 * is filled (ninep_wb_early_kick()); mtime is not stamped here, the
 * server does it when they land. Otherwise (O_DIRECT too) dirty pages of
 * the range go first, so that they cannot land over these bytes later; the
 * cached pages of the range are dropped after, so mappings and cached
 * reads see the new bytes.
 */
static ssize_t ninep_file_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	struct file *file = iocb->ki_filp;
	struct inode *inode = file_inode(file);
	struct ninep_fid *fid = ninep_file_fid(file);
	loff_t pos;
	ssize_t ret;

	inode_lock(inode);
	if (iocb->ki_flags & IOCB_APPEND) {
		ret = ninep_refresh_inode(inode, fid);
		if (ret)
			goto out;
	}
	ret = generic_write_checks(iocb, from);	/* IOCB_APPEND: pos = i_size */
	if (ret <= 0)
		goto out;

	pos = iocb->ki_pos;
	if (ninep_write_cached(iocb)) {
		ninep_keep_wb_fid(inode, fid);
		ret = generic_perform_write(iocb, from);
		/* 6.1 leaves ki_pos to the caller, 6.12 moves it itself. */
		if (ret > 0)
			iocb->ki_pos = pos + ret;
		goto out;
	}
	if (ninep_cache_writeback(inode)) {
		ret = ninep_write_back_range(inode, pos, pos + ret - 1);
		if (ret)
			goto out;
	}
	ret = ninep_write(fid, pos, from, i_size_read(inode));
	ninep_attr_stale(inode);
	if (ret > 0) {
		iocb->ki_pos = pos + ret;
		ninep_i_size_set(inode, iocb->ki_pos, true);
		if (inode->i_mapping->nrpages)
			invalidate_inode_pages2_range(inode->i_mapping,
						      pos >> PAGE_SHIFT,
						      (pos + ret - 1) >> PAGE_SHIFT);
	}
out:
	inode_unlock(inode);
	if (ret > 0)
		ret = generic_write_sync(iocb, ret);
	return ret;
}

/* No size cache: SEEK_END and friends ask the server for the size first. */
static loff_t ninep_file_llseek(struct file *file, loff_t offset, int whence)
{
	int err;

	if (whence == SEEK_END || whence == SEEK_DATA || whence == SEEK_HOLE) {
		err = ninep_refresh_inode(file_inode(file), ninep_file_fid(file));
		if (err)
			return err;
	}
	return generic_file_llseek(file, offset, whence);
}

/*
 * file_write_and_wait_range() with the waits killable: a killed caller
 * returns -EINTR at once, leaving the write-back to go on and the error
 * recorded in the mapping for the next look. A write-back that failed for
 * want of the server (timeout=, a dead connection) returns its error here
 * and records none.
 */
static int ninep_file_write_and_wait(struct file *file, loff_t start,
				     loff_t end)
{
	int err = ninep_write_back_range(file_inode(file), start, end);

	if (err == -EINTR)
		return err;
	return file_check_and_advance_wb_err(file) ?: err;
}

/*
 * Dirty pages of the range first (cache=mmap; a write-back error recorded
 * since this file last looked is reported here), then Tfsync in 9P2000.L;
 * otherwise a Twstat with every field "don't touch" asks the server to
 * commit (stat(5)). Shared with directories.
 */
int ninep_file_fsync(struct file *file, loff_t start, loff_t end, int datasync)
{
	struct v9p_stat st;
	int err;

	err = ninep_file_write_and_wait(file, start, end);
	if (err)
		return err;
	if (ninep_dotl(ninep_inode_session(file_inode(file))))
		return ninep_fsync(ninep_file_fid(file), datasync);

	v9p_stat_dont_touch(&st);
	return ninep_wstat(ninep_file_fid(file), &st);
}

/* close(2) (cache=mmap, loose): a closed file is complete on the server. */
static int ninep_file_flush(struct file *file, fl_owner_t id)
{
	if (!ninep_cache_writeback(file_inode(file)) ||
	    !(file->f_mode & FMODE_WRITE))
		return 0;
	return ninep_file_write_and_wait(file, 0, LLONG_MAX);
}

const struct file_operations ninep_file_fops = {
	.llseek		= ninep_file_llseek,
	.read_iter	= ninep_file_read_iter,
	.write_iter	= ninep_file_write_iter,
	.mmap		= ninep_file_mmap,
	.open		= ninep_file_open,
	.flush		= ninep_file_flush,
	.release	= ninep_file_release,
	.fsync		= ninep_file_fsync,
	.splice_read	= ninep_splice_read,
	.splice_write	= iter_file_splice_write,
	.setlease	= simple_nosetlease,	/* nothing would break a lease */
};

/* 9P2000.L: the same, with locks the server knows of. */
const struct file_operations ninep_dotl_file_fops = {
	.llseek		= ninep_file_llseek,
	.read_iter	= ninep_file_read_iter,
	.write_iter	= ninep_file_write_iter,
	.mmap		= ninep_file_mmap,
	.open		= ninep_file_open,
	.flush		= ninep_file_flush,
	.release	= ninep_file_release,
	.fsync		= ninep_file_fsync,
	.lock		= ninep_file_lock,
	.flock		= ninep_file_flock,
	.splice_read	= ninep_splice_read,
	.splice_write	= iter_file_splice_write,
	.setlease	= simple_nosetlease,
};
