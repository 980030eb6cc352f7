/* SPDX-License-Identifier: GPL-2.0-only */
/* lock.c: POSIX and BSD locks of 9P2000.L (Tlock, Tgetlock). */
#ifndef NINEP_LOCK_H
#define NINEP_LOCK_H

#include "v9fs.h"

int ninep_file_lock(struct file *filp, int cmd, struct file_lock *fl);
int ninep_file_flock(struct file *filp, int cmd, struct file_lock *fl);

#endif /* NINEP_LOCK_H */
