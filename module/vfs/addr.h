/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * addr.c: the page cache of regular files, their write-back and their
 * mappings.
 */
#ifndef NINEP_ADDR_H
#define NINEP_ADDR_H

#include "v9fs.h"

struct vm_area_struct;

extern const struct address_space_operations ninep_aops;
int ninep_file_mmap(struct file *file, struct vm_area_struct *vma);

void ninep_wb_early_init(struct ninep_inode *vi);
void ninep_keep_wb_fid(struct inode *inode, struct ninep_fid *fid);
int ninep_write_back_range(struct inode *inode, loff_t start, loff_t end);
int ninep_cache_drop(struct inode *inode);
void ninep_getattr_write_back(struct inode *inode);

bool ninep_size_change_begin(struct inode *inode, const struct iattr *iattr);
void ninep_size_change_end(struct inode *inode, bool locked);
void ninep_size_truncate_pages(struct inode *inode, loff_t size);

void ninep_evict_pages(struct inode *inode);

#endif /* NINEP_ADDR_H */
