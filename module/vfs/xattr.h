/* SPDX-License-Identifier: GPL-2.0-only */
/* xattr.c: extended attributes of 9P2000.L (Txattrwalk, Txattrcreate). */
#ifndef NINEP_XATTR_H
#define NINEP_XATTR_H

#include "v9fs.h"

struct xattr_handler;

/* The user., trusted. and security. namespaces, for sb->s_xattr. */
extern const struct xattr_handler ninep_xattr_user;
extern const struct xattr_handler ninep_xattr_trusted;
extern const struct xattr_handler ninep_xattr_security;

ssize_t ninep_listxattr(struct dentry *dentry, char *list, size_t size);
ssize_t ninep_xattr_fetch(struct ninep_fid *fid, const char *name,
			  void **valuep);
int ninep_xattr_store(struct ninep_fid *fid, const char *name,
		      const void *value, size_t size, int flags);

#endif /* NINEP_XATTR_H */
