/* SPDX-License-Identifier: GPL-2.0-only */
/* dir.c: the file operations of directories. */
#ifndef NINEP_DIR_H
#define NINEP_DIR_H

#include "v9fs.h"

extern const struct file_operations ninep_dir_fops;

#endif /* NINEP_DIR_H */
