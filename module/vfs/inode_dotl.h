/* SPDX-License-Identifier: GPL-2.0-only */
/* inode_dotl.c: the inode operations of 9P2000.L. */
#ifndef NINEP_INODE_DOTL_H
#define NINEP_INODE_DOTL_H

#include "v9fs.h"

extern const struct ninep_iops ninep_dotl_iops;
void ninep_dotl_tmpfile_evict(struct inode *inode);

#endif /* NINEP_INODE_DOTL_H */
