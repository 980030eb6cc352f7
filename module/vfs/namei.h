/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * namei.c: what the inode operations of every dialect share, and the
 * inode cache.
 */
#ifndef NINEP_NAMEI_H
#define NINEP_NAMEI_H

#include "v9fs.h"

int ninep_inode_cache_init(void);
void ninep_inode_cache_exit(void);
struct inode *ninep_alloc_inode(struct super_block *sb);
void ninep_free_inode(struct inode *inode);

struct inode *ninep_iget(struct super_block *sb, const struct v9p_qid *qid,
			 umode_t mode, dev_t rdev, const struct v9p_stat *st,
			 const struct v9p_rgetattr *ga, bool created);
struct inode *ninep_inode_from_fid(struct super_block *sb,
				   struct ninep_fid *fid);
struct inode *ninep_dotl_inode_from_fid(struct super_block *sb,
					struct ninep_fid *fid, bool created);

struct dentry *ninep_lookup(struct inode *dir, struct dentry *dentry,
			    unsigned int flags);
int ninep_instantiate_new(struct inode *dir, struct dentry *dentry,
			  struct ninep_idmap *idmap);
struct dentry *ninep_instantiate(struct inode *dir, struct dentry *dentry);

/* open(O_CREAT) between ninep_atomic_lookup() and ninep_atomic_created(). */
struct ninep_atomic {
	struct dentry *dentry;		/* the name to make */
	struct dentry *res;		/* the lookup's answer, put at the end */
	struct ninep_open_file *of;	/* the open file to be */
};

int ninep_atomic_lookup(struct inode *dir, struct dentry *dentry,
			struct file *file, unsigned int flags,
			struct ninep_atomic *ao);
int ninep_atomic_created(struct inode *dir, struct file *file,
			 unsigned int flags, struct ninep_atomic *ao,
			 struct ninep_fid *ofid, int err);
int ninep_open_created(struct inode *inode, struct file *file);

int ninep_remove_fid(struct ninep_fid *fid);
int ninep_remove_dentry(struct dentry *dentry);
void ninep_removed(struct inode *dir, struct dentry *dentry, int err);
void ninep_rename_stale(struct inode *old_dir, struct inode *new_dir,
			struct dentry *old_dentry, struct dentry *new_dentry);
void ninep_renamed(struct dentry *old_dentry, struct dentry *new_dentry);

int ninep_vfs_getattr(struct ninep_idmap *idmap, const struct path *path,
		      struct kstat *stat, u32 request_mask,
		      unsigned int query_flags);
int ninep_setattr_finish(struct ninep_idmap *idmap, struct dentry *dentry,
			 struct iattr *iattr, const struct v9p_stat *st,
			 const struct v9p_tsetattr *sa);

/* The inode operations' .permission, where a kernel needs it. */
#if NINEP_HAVE_SB_NOIDMAP
#define NINEP_PERMISSION_OP
#else
int ninep_permission(struct ninep_idmap *idmap, struct inode *inode, int mask);
#define NINEP_PERMISSION_OP	.permission = ninep_permission,
#endif

#endif /* NINEP_NAMEI_H */
