// SPDX-License-Identifier: GPL-2.0-only
/*
 * Regular files of the 9P file system type. Reads and writes go straight
 * to the server, with no data cache (the seed's semantics). Only mmap uses
 * the page cache: read-only and private mappings are filled by ->read_folio
 * through the client, and each open drops the cached pages so they are
 * fresh. Shared writable mappings are refused.
 */
#define pr_fmt(fmt) "9p2000: " fmt

#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <linux/bvec.h>

#include "v9fs.h"

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
 * Open a file or directory: clone the dentry's fid and Topen the clone,
 * which the open file then owns until release.
 */
int ninep_file_open(struct inode *inode, struct file *file)
{
	struct ninep_session *s = ninep_inode_session(inode);
	struct ninep_fid *fid = ninep_fid_lookup(file_dentry(file));
	struct ninep_open_file *of;
	struct ninep_fid *ofid;
	u8 mode;
	int err;

	ninep_vfs_dbg(s, "%pD flags 0%o\n", file, file->f_flags);
	if (IS_ERR(fid))
		return PTR_ERR(fid);
	of = kzalloc(sizeof(*of), GFP_KERNEL);
	if (!of) {
		ninep_fid_put(fid);
		return -ENOMEM;
	}

	ofid = ninep_walk(fid, 0, NULL);
	ninep_fid_put(fid);
	if (IS_ERR(ofid)) {
		err = PTR_ERR(ofid);
		goto free_of;
	}
	if (ninep_dotl(s)) {
		/* A directory is only read: Treaddir on an O_RDONLY fid. */
		err = ninep_lopen(ofid, S_ISDIR(inode->i_mode) ?
				  V9P_DOTL_RDONLY | V9P_DOTL_DIRECTORY :
				  ninep_dotl_open_flags(file->f_flags));
	} else {
		mode = S_ISDIR(inode->i_mode) ? V9P_OREAD :
						ninep_open_mode(file->f_flags);
		err = ninep_open(ofid, mode);
	}
	if (err)
		goto put_fid;

	of->fid = ofid;
	file->private_data = of;
	/* Mappings made from now on see the file as it is now. */
	if (S_ISREG(inode->i_mode) && inode->i_mapping->nrpages)
		invalidate_inode_pages2(inode->i_mapping);
	return 0;

put_fid:
	ninep_fid_put(ofid);
free_of:
	kfree(of);
	return err;
}

int ninep_file_release(struct inode *inode, struct file *file)
{
	struct ninep_open_file *of = file->private_data;

	if (!of)
		return 0;
	file->private_data = NULL;
	ninep_fid_put(of->fid);
	kvfree(of->dbuf);
	kfree(of);
	return 0;
}

static ssize_t ninep_file_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	struct ninep_fid *fid = ninep_file_fid(iocb->ki_filp);
	ssize_t n;

	if (!iov_iter_count(to))
		return 0;
	n = ninep_read(fid, iocb->ki_pos, to,
		       i_size_read(file_inode(iocb->ki_filp)));
	if (n > 0)
		iocb->ki_pos += n;
	return n;
}

/*
 * Writes are serialised per inode so that the size we keep and appends by
 * local writers stay consistent. 9P2000 has no append flag on a write, so
 * for O_APPEND the end of the file is taken from a Tstat on the open fid
 * just before the Twrite: appends from this client land at the end, but an
 * append racing with another client's write between the two messages can
 * still land short of the end (no protocol-level atomic append exists).
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
	ret = ninep_write(fid, pos, from, i_size_read(inode));
	if (ret > 0) {
		iocb->ki_pos = pos + ret;
		ninep_i_size_set(inode, iocb->ki_pos, true);
		/* Pages a private mapping read earlier are now stale. */
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
 * Tfsync in 9P2000.L; otherwise a Twstat with every field "don't touch"
 * asks the server to commit (stat(5)). Shared with directories.
 */
int ninep_file_fsync(struct file *file, loff_t start, loff_t end, int datasync)
{
	struct v9p_stat st;

	if (ninep_dotl(ninep_inode_session(file_inode(file))))
		return ninep_fsync(ninep_file_fid(file), datasync);

	v9p_stat_dont_touch(&st);
	return ninep_wstat(ninep_file_fid(file), &st);
}

/* Fill one page-cache folio for a mapping, through the mapping's open fid. */
static int ninep_read_folio(struct file *file, struct folio *folio)
{
	size_t len = folio_size(folio);
	struct bio_vec bv = {
		.bv_page = &folio->page,
		.bv_len = len,
		.bv_offset = 0,
	};
	struct iov_iter to;
	ssize_t n;
	int err = -EIO;

	if (!file || !file->private_data)
		goto out;
	iov_iter_bvec(&to, ITER_DEST, &bv, 1, len);
	n = ninep_read(ninep_file_fid(file), folio_pos(folio), &to,
		       i_size_read(folio->mapping->host));
	if (n < 0) {
		err = n;
		goto out;
	}
	if (n < len)
		folio_zero_segment(folio, n, len);
	folio_mark_uptodate(folio);
	err = 0;
out:
	folio_unlock(folio);
	return err;
}

const struct address_space_operations ninep_aops = {
	.read_folio	= ninep_read_folio,
	.direct_IO	= noop_direct_IO,	/* I/O is direct already */
};

const struct file_operations ninep_file_fops = {
	.llseek		= ninep_file_llseek,
	.read_iter	= ninep_file_read_iter,
	.write_iter	= ninep_file_write_iter,
	.mmap		= generic_file_readonly_mmap,
	.open		= ninep_file_open,
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
	.mmap		= generic_file_readonly_mmap,
	.open		= ninep_file_open,
	.release	= ninep_file_release,
	.fsync		= ninep_file_fsync,
	.lock		= ninep_file_lock,
	.flock		= ninep_file_flock,
	.splice_read	= ninep_splice_read,
	.splice_write	= iter_file_splice_write,
	.setlease	= simple_nosetlease,
};
