/* SPDX-License-Identifier: GPL-2.0-only */
/* inode.c: the inode operations of 9P2000 and 9P2000.u. */
#ifndef NINEP_INODE_H
#define NINEP_INODE_H

#include "v9fs.h"

extern const struct ninep_iops ninep_9p2000_iops;

#endif /* NINEP_INODE_H */
