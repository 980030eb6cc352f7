/* SPDX-License-Identifier: GPL-2.0-only */
/* super.c: the file system type, its mount options and super blocks. */
#ifndef NINEP_SUPER_H
#define NINEP_SUPER_H

#include <linux/fs.h>

extern struct file_system_type ninep_fs_type;

#endif /* NINEP_SUPER_H */
