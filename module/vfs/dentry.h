/* SPDX-License-Identifier: GPL-2.0-only */
/* dentry.c: the dentry operations and the Twalk that checks a name. */
#ifndef NINEP_DENTRY_H
#define NINEP_DENTRY_H

#include "v9fs.h"

struct ninep_attr_fetch;

const struct dentry_operations *ninep_session_dentry_ops(const struct ninep_session *s);
void ninep_dentry_fresh(struct dentry *dentry, unsigned long when);
struct ninep_fid *ninep_parent_fid(struct dentry *dentry);
struct ninep_fid *ninep_walk_reclaim(struct super_block *sb,
				     struct ninep_fid *fid, const char *name);
bool ninep_name_check_at_open(struct dentry *dentry);
int ninep_open_check_name(struct dentry *dentry, struct ninep_fid *ofid,
			  u32 flags, struct ninep_attr_fetch *af, int *lerr);

#endif /* NINEP_DENTRY_H */
