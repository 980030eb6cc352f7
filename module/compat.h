/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Every difference between the 6.1 and 6.12 kernel APIs that the VFS layer
 * meets, in one place. 6.1.192 carries backports of several 6.12 names
 * (ctime accessors, ITER_SOURCE/ITER_DEST), so nothing here redefines a
 * kernel name: the bridges have names of our own.
 */
#ifndef V9FS_COMPAT_H
#define V9FS_COMPAT_H

#include <linux/fs.h>
#include <linux/stat.h>

/*
 * Only two kernels are supported, so one switch tells them apart. It tests
 * a name that 6.12's <linux/fs.h> defines and 6.1's lacks (file_operations
 * flags, 6.11), rather than the version number, which backports blur.
 */
#ifdef FOP_BUFFER_RASYNC
#define V9FS_NEW_API	1
#else
#define V9FS_NEW_API	0
#endif

#if V9FS_NEW_API

/* The idmapping argument of inode operations: struct v9fs_idmap *. */
#define v9fs_idmap	mnt_idmap

static inline void v9fs_fillattr(struct mnt_idmap *idmap, u32 request_mask,
				 struct inode *inode, struct kstat *stat)
{
	generic_fillattr(idmap, request_mask, inode, stat);
}

static inline void v9fs_set_atime(struct inode *inode, struct timespec64 ts)
{
	inode_set_atime_to_ts(inode, ts);
}

static inline void v9fs_set_mtime(struct inode *inode, struct timespec64 ts)
{
	inode_set_mtime_to_ts(inode, ts);
}

/* No page cache on the read path: splice through ->read_iter. */
#define v9fs_splice_read	copy_splice_read

#else /* 6.1 */

#define v9fs_idmap	user_namespace

static inline void v9fs_fillattr(struct user_namespace *ns, u32 request_mask,
				 struct inode *inode, struct kstat *stat)
{
	generic_fillattr(ns, inode, stat);
}

static inline void v9fs_set_atime(struct inode *inode, struct timespec64 ts)
{
	inode->i_atime = ts;
}

static inline void v9fs_set_mtime(struct inode *inode, struct timespec64 ts)
{
	inode->i_mtime = ts;
}

/* 6.1's version goes through ->read_iter with an ITER_PIPE iterator. */
#define v9fs_splice_read	generic_file_splice_read

#endif /* V9FS_NEW_API */

/* A new inode's times: now, as simple_inode_init_ts() does in 6.12. */
static inline void v9fs_inode_init_ts(struct inode *inode)
{
	struct timespec64 now = inode_set_ctime_current(inode);

	v9fs_set_atime(inode, now);
	v9fs_set_mtime(inode, now);
}

#endif /* V9FS_COMPAT_H */
