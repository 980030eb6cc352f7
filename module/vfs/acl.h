/* SPDX-License-Identifier: GPL-2.0-only */
/* acl.c: POSIX ACLs of 9P2000.L mounts with posixacl. */
#ifndef NINEP_ACL_H
#define NINEP_ACL_H

#include "v9fs.h"

struct posix_acl;
struct xattr_handler;

struct ninep_acl_pair {
	struct posix_acl *dflt;		/* a new directory's default ACL */
	struct posix_acl *access;	/* a new file's access ACL */
};

struct posix_acl *ninep_acl_get_inode(struct inode *inode, int type, bool rcu);
#if NINEP_HAVE_GET_INODE_ACL
struct posix_acl *ninep_acl_get(struct ninep_idmap *idmap,
				struct dentry *dentry, int type);
int ninep_acl_set(struct ninep_idmap *idmap, struct dentry *dentry,
		  struct posix_acl *acl, int type);
#else
/* For sb->s_xattr: before 6.2 the ACLs were extended attributes. */
extern const struct xattr_handler ninep_acl_access_handler;
extern const struct xattr_handler ninep_acl_default_handler;
#endif
int ninep_acl_chmod(struct ninep_idmap *idmap, struct dentry *dentry,
		    umode_t mode);
int ninep_acl_prepare(struct inode *dir, umode_t *mode,
		      struct ninep_acl_pair *acls);
int ninep_acl_inherit(struct ninep_idmap *idmap, struct dentry *dentry,
		      struct ninep_acl_pair *acls, int err);

#endif /* NINEP_ACL_H */
