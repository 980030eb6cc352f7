/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cache=fscache: the file data of a mount kept in a local disk cache
 * (cachefiles) through fscache, besides cache=loose's page cache. The
 * calls below are the whole of it as the rest of the module sees it; on a
 * kernel built without CONFIG_FSCACHE they do nothing and cache=fscache is
 * refused when the options are parsed.
 */
#ifndef NINEP_FSCACHE_H
#define NINEP_FSCACHE_H

#include <linux/fs.h>
#include <linux/bvec.h>
#include <linux/uio.h>

struct ninep_session;

/*
 * One read of file data that may go to the disk cache once the server has
 * answered: the cookie's invalidation count when the read began, so that
 * bytes read across an invalidation are not stored.
 */
struct ninep_fscache_io {
	unsigned int inval;
};

#if IS_ENABLED(CONFIG_FSCACHE)

static inline bool ninep_fscache_available(void)
{
	return true;
}

int ninep_fscache_session_init(struct ninep_session *s);
void ninep_fscache_session_exit(struct ninep_session *s);
void ninep_fscache_inode_init(struct inode *inode, bool created);
void ninep_fscache_evict(struct inode *inode);
void ninep_fscache_open(struct inode *inode, struct file *file);
void ninep_fscache_release(struct inode *inode, struct file *file);
void ninep_fscache_revalidate(struct inode *inode);
void ninep_fscache_resize(struct inode *inode);
ssize_t ninep_fscache_read(struct inode *inode, loff_t pos,
			   const struct iov_iter *to,
			   struct ninep_fscache_io *io);
void ninep_fscache_write(struct inode *inode, loff_t pos,
			 const struct bio_vec *bv, unsigned int nr,
			 ssize_t got, const struct ninep_fscache_io *io);

#else

static inline bool ninep_fscache_available(void)
{
	return false;
}

static inline int ninep_fscache_session_init(struct ninep_session *s)
{
	return 0;
}

static inline void ninep_fscache_session_exit(struct ninep_session *s) {}
static inline void ninep_fscache_inode_init(struct inode *inode,
					    bool created) {}
static inline void ninep_fscache_evict(struct inode *inode) {}
static inline void ninep_fscache_open(struct inode *inode,
				      struct file *file) {}
static inline void ninep_fscache_release(struct inode *inode,
					 struct file *file) {}
static inline void ninep_fscache_revalidate(struct inode *inode) {}
static inline void ninep_fscache_resize(struct inode *inode) {}

static inline ssize_t ninep_fscache_read(struct inode *inode, loff_t pos,
					 const struct iov_iter *to,
					 struct ninep_fscache_io *io)
{
	return -ENOBUFS;
}

static inline void ninep_fscache_write(struct inode *inode, loff_t pos,
				       const struct bio_vec *bv,
				       unsigned int nr, ssize_t got,
				       const struct ninep_fscache_io *io) {}

#endif /* CONFIG_FSCACHE */
#endif /* NINEP_FSCACHE_H */
