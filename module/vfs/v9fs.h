/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * VFS layer of 9p2000.ko: the session (one per mount), the per-inode and
 * per-open-file state and the helpers every VFS unit needs; each unit
 * declares what it exports in a header of its own. Everything here talks
 * to the server only through the client API of client.h.
 */
#ifndef NINEP_H
#define NINEP_H

#include <linux/fs.h>
#include <linux/rwsem.h>
#include <linux/workqueue.h>
#include <linux/uidgid.h>

struct fscache_volume;
struct fscache_cookie;

#include "client.h"
#include "compat.h"
#include "fscache.h"

#define NINEP_MAGIC		0x01021997	/* the seed's V9FS_WIRE_MAGIC */
#define NINEP_DEFAULT_USER	"nobody"	/* the seed's V9FS_DEFUSER */
#define NINEP_SEED_MSIZE		9000		/* the seed's maxdata default */
#define NINEP_ACTIMEO_DEFAULT	1		/* seconds */
#define NINEP_ACTIMEO_MAX	3600

/* struct ninep_session.flags */
#define NINEP_NODEVMAP		0x01	/* show special files as plain files */
#define NINEP_NOEXTEND_ASKED	0x02	/* noextend or version=9p2000 given */
#define NINEP_UID_GIVEN		0x04
#define NINEP_GID_GIVEN		0x08
#define NINEP_AFID_GIVEN		0x10
#define NINEP_RFD_GIVEN		0x20
#define NINEP_WFD_GIVEN		0x40
#define NINEP_NOXATTR		0x80	/* extended attributes refused */
#define NINEP_DFLTUID_NAMED	0x100	/* given as dfltuid=, shown so */
#define NINEP_DFLTGID_NAMED	0x200	/* given as dfltgid=, shown so */
#define NINEP_ACCESS_GIVEN	0x400
#define NINEP_POSIXACL		0x800	/* posixacl asked for */
#define NINEP_ACTIMEO_GIVEN	0x1000
#define NINEP_NOCTO		0x2000	/* open trusts cached attributes */

/* struct ninep_session.access: who the server is told is acting. */
enum ninep_access {
	NINEP_ACCESS_ANY,	/* everyone through the mount's one attach */
	NINEP_ACCESS_USER,	/* each fsuid attaches as itself */
	NINEP_ACCESS_CLIENT,	/* as USER; named for where permission is checked */
	NINEP_ACCESS_SINGLE,	/* access=<uid>: that uid alone, EPERM to others */
};

/* struct ninep_session.cache: cache= */
enum ninep_cache_mode {
	NINEP_CACHE_NONE,	/* page cache only for read-only/private maps */
	NINEP_CACHE_MMAP,	/* shared writable mappings, written back */
	NINEP_CACHE_LOOSE,	/* mmap, and read(2)/write(2) through the cache */
	NINEP_CACHE_FSCACHE,	/* loose, and file data on disk (fscache.c) */
};

/*
 * The operations an inode of one dialect gets, by file type (inode.c,
 * inode_dotl.c); special files get the regular files' inode operations.
 */
struct ninep_iops {
	const struct inode_operations *dir;
	const struct inode_operations *file;
	const struct inode_operations *symlink;
	const struct file_operations *file_fops;
};

/*
 * One mounted file system. The option fields are filled while parsing and
 * then only read; clnt and dialect are set once by fill_super.
 */
struct ninep_session {
	struct ninep_client_opts copts;	/* transport, msize, dialect asked for */
	char *addr;			/* the mount source (copts.addr points here) */
	char *uname;			/* name= / uname= */
	char *aname;			/* aname= */
	kuid_t uid;			/* owner in legacy mode and when n_uid is unset */
	kgid_t gid;
	enum ninep_access access;	/* in effect once fill_super has run */
	kuid_t access_uid;		/* NINEP_ACCESS_SINGLE's user */
	/*
	 * Held for writing across a rename and its d_move; for reading while
	 * a path is read from the dentries and walked, so that the walk goes
	 * where the names were.
	 */
	struct rw_semaphore rename_sem;
	u32 afid;			/* afid= as given; NINEP_NOFID when absent */
	unsigned int flags;		/* NINEP_NODEVMAP, ... */
	enum ninep_cache_mode cache;	/* cache= */
	unsigned int actimeo;		/* actimeo=, in seconds */
	/*
	 * Counts the local changes of attributes (ninep_attr_stale()), so
	 * that a reply asked for before one is not taken as fresh.
	 */
	atomic_t attr_epoch;

	struct ninep_client *clnt;
	enum v9p_dialect dialect;	/* negotiated */
	const struct ninep_iops *iops;	/* the dialect's, set with it */
	struct fscache_volume *fscache;	/* cache=fscache: the disk cache */
	atomic_t fscache_writes;	/* writes to it not yet completed */
};

/*
 * Per-inode state: the server's identity of the file. wb_fid (cache=mmap
 * and loose) is a reference on the open fid of the first shared writable
 * mapping of the file, or in cache=loose of its first write(2) through the
 * cache; dirty pages go back through it until the inode is evicted. Set
 * once under i_lock, then only read. wb_gen counts the write-back runs
 * and the writes that may grow the file answered, for
 * ninep_i_size_refresh(). cache_ctime and cache_size
 * (cache=loose, under the inode lock) are the server's attributes the
 * cached pages were valid for, checked at each open. attr_time and
 * attr_fetched (the session's attr_epoch then) stamp the last request whose
 * reply set the attributes, attr_stale the epoch of the last local change
 * to them: cache=loose's getattr trusts them for actimeo seconds unless
 * that change came after (ninep_attr_cached()). wb_work writes back, while
 * a write(2) through the cache goes on, the whole runs it left behind:
 * [wb_start, wb_end), under i_lock, not yet taken by wb_work (addr.c).
 */
struct ninep_inode {
	struct v9p_qid qid;
	struct ninep_fid *wb_fid;
	atomic_t wb_gen;
	struct work_struct wb_work;
	loff_t wb_start;
	loff_t wb_end;
	struct timespec64 cache_ctime;
	loff_t cache_size;
	unsigned long attr_time;
	int attr_fetched;
	int attr_stale;
	struct fscache_cookie *fscache;	/* cache=fscache, regular files */
	/*
	 * An O_TMPFILE not yet linked (9P2000.L): its hidden name on the
	 * server and a fid of the directory it is in, both set before the
	 * inode is first seen and cleared by its first link (under the inode
	 * lock) or at eviction, which removes the name.
	 */
	char *tmp_name;
	struct ninep_fid *tmp_dfid;
	struct inode vfs_inode;
};

/*
 * Per-open-file state, in file->private_data. fid is the file's own open fid
 * (a clone of the dentry's fid); the rest is the directory read buffer.
 */
struct ninep_open_file {
	struct ninep_fid *fid;
	u8 *dbuf;		/* last Rread data of a directory */
	u32 dcap;		/* bytes dbuf can hold */
	u32 dlen;		/* bytes valid in dbuf */
	u64 doff;		/* directory offset of dbuf[0] */
	u64 dnext;		/* offset the server expects for the next read */
};

static inline struct ninep_inode *NINEP_I(const struct inode *inode)
{
	return container_of(inode, struct ninep_inode, vfs_inode);
}

static inline struct ninep_session *ninep_sb_session(const struct super_block *sb)
{
	return sb->s_fs_info;
}

static inline struct ninep_session *ninep_inode_session(const struct inode *inode)
{
	return inode->i_sb->s_fs_info;
}

static inline bool ninep_extended(const struct ninep_session *s)
{
	return s->dialect == V9P_9P2000U;
}

static inline bool ninep_dotl(const struct ninep_session *s)
{
	return s->dialect == V9P_9P2000L;
}

/*
 * Idmapped mounts need the owners of new files and the user each request
 * acts as to be the caller's mapped ids, and permission checked here with
 * the mapped owners: 9P2000.L with access=client, where every user acts
 * as itself and the kernel's checks are the authority. Elsewhere the owner
 * of a new file is the server's choice (access=any, <uid>, 9P2000) or
 * none of ours to send (9P2000.u makes it by the attach alone).
 */
static inline bool ninep_idmap_allowed(const struct ninep_session *s)
{
	return ninep_dotl(s) && s->access == NINEP_ACCESS_CLIENT;
}

/*
 * On a kernel whose VFS asks the file system type alone (6.1), an idmapped
 * mount of a superblock that cannot be right is made all the same: every
 * use of it is refused instead, with -EOPNOTSUPP (ninep_permission(),
 * getattr, setattr). On 6.12 SB_I_NOIDMAP refuses it in mount_setattr().
 */
static inline bool ninep_idmap_refused(const struct inode *inode,
				       struct ninep_idmap *idmap)
{
	return !NINEP_HAVE_SB_NOIDMAP && idmap != NINEP_NOP_IDMAP &&
	       !ninep_idmap_allowed(ninep_inode_session(inode));
}

/* Dirty pages are allowed and written back: cache=mmap and cache=loose. */
static inline bool ninep_cache_writeback(const struct inode *inode)
{
	return ninep_inode_session(inode)->cache >= NINEP_CACHE_MMAP;
}

/*
 * read(2) and write(2) of regular files go through the page cache:
 * cache=loose and cache=fscache.
 */
static inline bool ninep_cache_loose(const struct inode *inode)
{
	return ninep_inode_session(inode)->cache >= NINEP_CACHE_LOOSE;
}

static inline struct ninep_fid *ninep_file_fid(const struct file *file)
{
	return ((struct ninep_open_file *)file->private_data)->fid;
}

#define ninep_vfs_dbg(sess, fmt, ...)					\
	do {								\
		if (unlikely((sess)->copts.debug & NINEP_DEBUG_VFS))	\
			pr_info("%s: " fmt, __func__, ##__VA_ARGS__);	\
	} while (0)

#define ninep_err_dbg(sess, fmt, ...)					\
	do {								\
		if (unlikely((sess)->copts.debug & NINEP_DEBUG_ERROR))	\
			pr_info("%s: " fmt, __func__, ##__VA_ARGS__);	\
	} while (0)

/* fid.c: the fids of dentries, one per user (two before an open) */
struct ninep_fid *ninep_session_attach(struct ninep_session *s, kuid_t uid,
				       struct ninep_fid *afid);
kuid_t ninep_mount_uid(const struct ninep_session *s);
struct ninep_fid *ninep_fid_lookup(struct dentry *dentry);
struct ninep_fid *ninep_fid_lookup_idmap(struct dentry *dentry,
					 struct ninep_idmap *idmap);
struct ninep_fid *ninep_fid_find(struct dentry *dentry);
void ninep_dentry_keep_fid(struct dentry *dentry, struct ninep_fid *fid,
			   kuid_t uid);
void ninep_dentry_keep_spare(struct dentry *dentry, struct ninep_fid *fid,
			     kuid_t uid);
struct ninep_fid *ninep_fid_take_spare(struct dentry *dentry,
				       struct ninep_idmap *idmap);
kgid_t ninep_caller_gid(struct ninep_idmap *idmap);
void ninep_dentry_put_fids(struct dentry *dentry);

#endif /* NINEP_H */
