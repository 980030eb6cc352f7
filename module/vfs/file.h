/* SPDX-License-Identifier: GPL-2.0-only */
/* file.c: the file operations of regular files, and open flags. */
#ifndef NINEP_FILE_H
#define NINEP_FILE_H

#include "v9fs.h"

extern const struct file_operations ninep_file_fops;
extern const struct file_operations ninep_dotl_file_fops;

u8 ninep_open_mode(unsigned int f_flags);
u32 ninep_dotl_open_flags(unsigned int f_flags);
unsigned int ninep_cache_open_flags(const struct inode *inode,
				    unsigned int f_flags);

int ninep_file_open(struct inode *inode, struct file *file);
int ninep_file_release(struct inode *inode, struct file *file);
int ninep_file_fsync(struct file *file, loff_t start, loff_t end, int datasync);

#endif /* NINEP_FILE_H */
