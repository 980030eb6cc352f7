/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * attr.c: attributes from the server applied to inodes, the size against
 * the bytes still on their way, and cache=loose's attribute cache.
 */
#ifndef NINEP_ATTR_H
#define NINEP_ATTR_H

#include "v9fs.h"

/* What lookup and getattr ask for over 9P2000.L: all a struct stat shows. */
#define NINEP_DOTL_MASK		V9P_GETATTR_BASIC

/* Taken before attributes are asked for: see ninep_attr_fetched(). */
struct ninep_attr_stamp {
	unsigned long when;	/* jiffies */
	int epoch;		/* the session's attr_epoch */
};

/*
 * 9P2000.L: attributes asked for by a Tgetattr sent beside another request,
 * stamped before both were sent (ninep_dotl_lopen_fetch(),
 * ninep_dotl_walk_fetch(), ninep_dotl_fetched()).
 */
struct ninep_attr_fetch {
	struct v9p_rgetattr ga;
	struct ninep_attr_stamp stamp;
	long gen;			/* ninep_size_gen() */
	int err;			/* the Tgetattr's */
};

/* No sample of wb_gen: the size came from a lookup (ninep_size_gen()). */
#define NINEP_NO_GEN		(-1L)

/* cache=loose with actimeo: attributes and names are trusted for a while. */
static inline bool ninep_attr_caching(const struct ninep_session *s)
{
	return s->cache >= NINEP_CACHE_LOOSE && s->actimeo;
}

void ninep_i_size_set(struct inode *inode, loff_t size, bool grow);
long ninep_size_gen(struct inode *inode);
void ninep_i_size_refresh(struct inode *inode, loff_t size, long gen);

void ninep_attr_stamp(const struct ninep_session *s,
		      struct ninep_attr_stamp *stamp);
void ninep_attr_fetched(struct inode *inode,
			const struct ninep_attr_stamp *stamp);
void ninep_attr_stale(struct inode *inode);
bool ninep_attr_cached(struct inode *inode, unsigned int query_flags);

/* 9P2000 and .u: stat records. */
int ninep_stat_check(const struct ninep_session *s, const struct v9p_stat *st);
umode_t ninep_stat_mode(const struct ninep_session *s,
			const struct v9p_stat *st, dev_t *rdev);
unsigned int ninep_dtype(const struct ninep_session *s,
			 const struct v9p_stat *st);
void ninep_stat_to_inode(struct inode *inode, const struct v9p_stat *st,
			 long gen);

/* 9P2000.L: Rgetattr. */

/* A Linux file type: what a mode from the server or mknod(2) may carry. */
static inline bool ninep_dotl_type_ok(u32 mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG:
	case S_IFDIR:
	case S_IFLNK:
	case S_IFCHR:
	case S_IFBLK:
	case S_IFIFO:
	case S_IFSOCK:
		return true;
	}
	return false;
}

int ninep_dotl_check(const struct v9p_rgetattr *ga);
int ninep_dotl_rdev(u64 wire, dev_t *rdev);
void ninep_getattr_to_inode(struct inode *inode, const struct v9p_rgetattr *ga,
			    long gen);
int ninep_dotl_fetched(struct inode *inode, struct ninep_attr_fetch *af);
int ninep_dotl_refresh(struct inode *inode, struct ninep_fid *fid);
int ninep_dotl_lopen_fetch(struct inode *inode, struct ninep_fid *fid,
			   u32 flags, struct ninep_attr_fetch *af);
struct ninep_fid *ninep_dotl_walk_fetch(struct inode *inode,
					struct ninep_fid *dfid,
					const char *name, struct ninep_fid *fid,
					struct ninep_attr_fetch *af);
struct ninep_fid *ninep_dotl_walk_lopen_fetch(struct inode *inode,
					      struct ninep_fid *dfid,
					      const char *name,
					      struct ninep_fid *fid, u32 flags,
					      int *lerr,
					      struct ninep_attr_fetch *af);

/* Either dialect: one Tstat or Tgetattr of @fid applied to @inode. */
int ninep_refresh_inode(struct inode *inode, struct ninep_fid *fid);

#endif /* NINEP_ATTR_H */
