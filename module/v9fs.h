/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * VFS layer of 9p2000.ko: the session (one per mount), the per-inode and
 * per-open-file state, and the operation tables shared by super.c, inode.c,
 * dir.c and file.c. Everything below talks to the server only through the
 * client API of client.h.
 */
#ifndef V9FS_H
#define V9FS_H

#include <linux/fs.h>
#include <linux/uidgid.h>

#include "client.h"
#include "compat.h"

#define V9FS_MAGIC		0x01021997	/* the seed's V9FS_WIRE_MAGIC */
#define V9FS_DEFAULT_USER	"nobody"	/* the seed's V9FS_DEFUSER */
#define V9FS_SEED_MSIZE		9000		/* the seed's maxdata default */

/* struct v9fs_session.flags */
#define V9FS_NODEVMAP		0x01	/* show special files as plain files */
#define V9FS_NOEXTEND_ASKED	0x02	/* noextend or version=9p2000 given */
#define V9FS_UID_GIVEN		0x04
#define V9FS_GID_GIVEN		0x08
#define V9FS_AFID_GIVEN		0x10
#define V9FS_RFD_GIVEN		0x20
#define V9FS_WFD_GIVEN		0x40

/*
 * One mounted file system. The option fields are filled while parsing and
 * then only read; clnt and dialect are set once by fill_super.
 */
struct v9fs_session {
	struct v9fs_client_opts copts;	/* transport, msize, dialect asked for */
	char *addr;			/* the mount source (copts.addr points here) */
	char *uname;			/* name= / uname= */
	char *aname;			/* aname= */
	kuid_t uid;			/* owner in legacy mode and when n_uid is unset */
	kgid_t gid;
	u32 afid;			/* afid= as given; V9FS_NOFID when absent */
	unsigned int flags;		/* V9FS_NODEVMAP, ... */

	struct v9fs_client *clnt;
	enum v9p_dialect dialect;	/* negotiated */
};

/* Per-inode state: the server's identity of the file. */
struct v9fs_inode {
	struct v9p_qid qid;
	struct inode vfs_inode;
};

/*
 * Per-open-file state, in file->private_data. fid is the file's own open fid
 * (a clone of the dentry's fid); the rest is the directory read buffer.
 */
struct v9fs_open_file {
	struct v9fs_fid *fid;
	u8 *dbuf;		/* last Rread data of a directory */
	u32 dlen;		/* bytes valid in dbuf */
	u64 doff;		/* directory offset of dbuf[0] */
	u64 dnext;		/* offset the server expects for the next read */
};

static inline struct v9fs_inode *V9FS_I(const struct inode *inode)
{
	return container_of(inode, struct v9fs_inode, vfs_inode);
}

static inline struct v9fs_session *v9fs_sb_session(const struct super_block *sb)
{
	return sb->s_fs_info;
}

static inline struct v9fs_session *v9fs_inode_session(const struct inode *inode)
{
	return inode->i_sb->s_fs_info;
}

static inline bool v9fs_extended(const struct v9fs_session *s)
{
	return s->dialect == V9P_9P2000U;
}

/* The fid a dentry holds (walked from its parent's); NULL if it has none. */
static inline struct v9fs_fid *v9fs_dentry_fid(const struct dentry *dentry)
{
	return dentry->d_fsdata;
}

static inline struct v9fs_fid *v9fs_file_fid(const struct file *file)
{
	return ((struct v9fs_open_file *)file->private_data)->fid;
}

#define v9fs_vfs_dbg(sess, fmt, ...)					\
	do {								\
		if (unlikely((sess)->copts.debug & V9FS_DEBUG_VFS))	\
			pr_info("%s: " fmt, __func__, ##__VA_ARGS__);	\
	} while (0)

#define v9fs_err_dbg(sess, fmt, ...)					\
	do {								\
		if (unlikely((sess)->copts.debug & V9FS_DEBUG_ERROR))	\
			pr_info("%s: " fmt, __func__, ##__VA_ARGS__);	\
	} while (0)

/* super.c */
extern struct file_system_type v9fs_fs_type;

/* inode.c */
extern const struct dentry_operations v9fs_dentry_ops;
int v9fs_inode_cache_init(void);
void v9fs_inode_cache_exit(void);
struct inode *v9fs_alloc_inode(struct super_block *sb);
void v9fs_free_inode(struct inode *inode);
struct inode *v9fs_inode_from_stat(struct super_block *sb,
				   const struct v9p_stat *st);
void v9fs_stat_to_inode(struct inode *inode, const struct v9p_stat *st);
void v9fs_i_size_set(struct inode *inode, loff_t size, bool grow);
int v9fs_refresh_inode(struct inode *inode, struct v9fs_fid *fid);
void v9fs_dentry_set_fid(struct dentry *dentry, struct v9fs_fid *fid);

/* dir.c */
extern const struct file_operations v9fs_dir_fops;
unsigned int v9fs_dtype(const struct v9fs_session *s, const struct v9p_stat *st);

/* file.c */
extern const struct file_operations v9fs_file_fops;
extern const struct address_space_operations v9fs_aops;
u8 v9fs_open_mode(unsigned int f_flags);
int v9fs_file_open(struct inode *inode, struct file *file);
int v9fs_file_release(struct inode *inode, struct file *file);

#endif /* V9FS_H */
