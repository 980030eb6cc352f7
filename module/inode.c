// SPDX-License-Identifier: GPL-2.0-only
/*
 * Inodes and dentries of the 9P file system type: the mapping between 9P
 * stat records and inodes (mode, owner, devices through the .u extension
 * string), lookup, create, mkdir, unlink, rename, links, special files and
 * attributes.
 *
 * Each positive dentry holds a fid per user that used it (fid.c); open
 * files clone the opener's. Without cache=loose names are not cached: a
 * dentry is dropped as soon as it is unused and lookup asks the server, as
 * the seed did; so does getattr. cache=loose keeps dentries, negative ones
 * too, trusting a name for actimeo seconds and then checking it with a
 * Twalk (ninep_d_revalidate()), and getattr trusts the last reply for
 * actimeo seconds unless this client changed the file since
 * (ninep_attr_cached()).
 */
#define pr_fmt(fmt) "9p2000: " fmt

#include <linux/fs.h>
#include <linux/random.h>
#include <linux/namei.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/cred.h>
#include <linux/stat.h>
#include <linux/kdev_t.h>

#include "v9fs.h"

static struct kmem_cache *ninep_inode_cachep;

static const struct inode_operations ninep_dir_iops;
static const struct inode_operations ninep_file_iops;
static const struct inode_operations ninep_symlink_iops;

struct inode *ninep_alloc_inode(struct super_block *sb)
{
	struct ninep_inode *vi;

	vi = alloc_inode_sb(sb, ninep_inode_cachep, GFP_KERNEL);
	if (!vi)
		return NULL;
	memset(&vi->qid, 0, sizeof(vi->qid));
	vi->wb_fid = NULL;
	atomic_set(&vi->wb_gen, 0);
	ninep_wb_early_init(vi);
	vi->cache_ctime = (struct timespec64){};
	vi->cache_size = 0;
	vi->fscache = NULL;
	vi->tmp_name = NULL;
	vi->tmp_dfid = NULL;
	/* Never fetched: stale until a reply is applied. */
	vi->attr_time = 0;
	vi->attr_fetched = 0;
	vi->attr_stale = 1;
	return &vi->vfs_inode;
}

void ninep_free_inode(struct inode *inode)
{
	kmem_cache_free(ninep_inode_cachep, NINEP_I(inode));
}

static void ninep_inode_once(void *p)
{
	struct ninep_inode *vi = p;

	inode_init_once(&vi->vfs_inode);
}

int ninep_inode_cache_init(void)
{
	ninep_inode_cachep = kmem_cache_create("9p2000_inode",
					       sizeof(struct ninep_inode), 0,
					      SLAB_RECLAIM_ACCOUNT | SLAB_ACCOUNT,
					      ninep_inode_once);
	return ninep_inode_cachep ? 0 : -ENOMEM;
}

void ninep_inode_cache_exit(void)
{
	/* free_inode runs after an RCU grace period: wait for the last ones. */
	rcu_barrier();
	kmem_cache_destroy(ninep_inode_cachep);
}

/*
 * i_size_write() needs its writers serialised (a seqcount on 32-bit SMP).
 * A write(2) sets the size under the inode lock, but attribute refreshes
 * (getattr, lookup, llseek, open) do not hold it: every writer takes
 * i_lock instead. @grow: only raise the size (the end of a write); that
 * write counts in wb_gen as a write-back does, since a refresh whose
 * request went out before it may carry the size from before it
 * (ninep_size_pending(), which reads the count under i_lock too).
 */
void ninep_i_size_set(struct inode *inode, loff_t size, bool grow)
{
	spin_lock(&inode->i_lock);
	if (grow)
		atomic_inc(&NINEP_I(inode)->wb_gen);
	if (!grow || size > i_size_read(inode))
		i_size_write(inode, size);
	spin_unlock(&inode->i_lock);
}

/* Taken before a Tstat or Tgetattr is sent, for ninep_i_size_refresh(). */
long ninep_size_gen(struct inode *inode)
{
	return atomic_read(&NINEP_I(inode)->wb_gen) & INT_MAX;
}

/*
 * Every mode that writes dirty pages back (cache=mmap and loose): bytes
 * written through the cache or a shared mapping and not yet on the server
 * are past the size the server reports, and so, for a while, are those of
 * a write just answered. A refresh may only raise the size while any are
 * cached dirty or under write-back, or if a write or a write-back was
 * answered since @gen was taken (the reply may predate its Twrite), or
 * with no @gen (a lookup; stat(2), SEEK_END, O_APPEND and, in cache=loose,
 * the open that follows ask again with one). A size lowered under dirty
 * folios would end their write-back unsent (ninep_wb_add() sends nothing
 * past it) and make stores into the pages past it fail with SIGBUS. The
 * tags are read first: write-back counts itself before it clears them,
 * and write_end marks a folio dirty before it grows the size.
 */
static bool ninep_size_pending(struct inode *inode, long gen)
{
	struct address_space *mapping = inode->i_mapping;

	if (!S_ISREG(inode->i_mode) || !ninep_cache_writeback(inode))
		return false;
	if (mapping_tagged(mapping, PAGECACHE_TAG_DIRTY) ||
	    mapping_tagged(mapping, PAGECACHE_TAG_WRITEBACK))
		return true;
	smp_rmb();	/* pairs with smp_mb__after_atomic() in ninep_wb_send() */
	return gen == NINEP_NO_GEN || gen != ninep_size_gen(inode);
}

/*
 * The size a Tstat or Tgetattr reported, for a refresh of the inode. A
 * smaller size not taken leaves the attributes other than the server's:
 * they are not trusted as fresh (ninep_attr_cached()), so that the next
 * getattr or open asks again with a generation to go by.
 */
void ninep_i_size_refresh(struct inode *inode, loff_t size, long gen)
{
	bool kept = false;

	spin_lock(&inode->i_lock);
	if (size > i_size_read(inode) || !ninep_size_pending(inode, gen))
		i_size_write(inode, size);
	else
		kept = size != i_size_read(inode);
	spin_unlock(&inode->i_lock);
	if (kept)
		ninep_attr_stale(inode);
}

/* ---- mode mapping (seed semantics) ---- */

/* Linux mode to 9P perm, for Tcreate and Twstat. */
static u32 ninep_unix_to_p9mode(const struct ninep_session *s, umode_t mode)
{
	u32 perm = mode & 0777;

	if (S_ISDIR(mode))
		perm |= V9P_DMDIR;
	if (!ninep_extended(s))
		return perm;

	if (S_ISLNK(mode))
		perm |= V9P_DMSYMLINK;
	if (!(s->flags & NINEP_NODEVMAP)) {
		if (S_ISSOCK(mode))
			perm |= V9P_DMSOCKET;
		if (S_ISFIFO(mode))
			perm |= V9P_DMNAMEDPIPE;
		if (S_ISBLK(mode) || S_ISCHR(mode))
			perm |= V9P_DMDEVICE;
	}
	if (mode & S_ISUID)
		perm |= V9P_DMSETUID;
	if (mode & S_ISGID)
		perm |= V9P_DMSETGID;
	if (mode & S_ISVTX)
		perm |= V9P_DMSETVTX;
	return perm;
}

/*
 * A device's extension string is "b MAJOR MINOR" or "c MAJOR MINOR".
 * Returns S_IFBLK or S_IFCHR and fills *rdev, or 0 if it is malformed.
 */
static umode_t ninep_parse_device(const struct v9p_str *ext, dev_t *rdev)
{
	char buf[32];
	unsigned int major, minor;
	char type;

	if (!ext->len || ext->len >= sizeof(buf))
		return 0;
	memcpy(buf, ext->s, ext->len);
	buf[ext->len] = '\0';
	if (sscanf(buf, "%c %u %u", &type, &major, &minor) != 3)
		return 0;
	if (major > MAJOR(~0U) || minor > MINOR(~0U))
		return 0;
	*rdev = MKDEV(major, minor);
	if (type == 'b')
		return S_IFBLK;
	if (type == 'c')
		return S_IFCHR;
	return 0;
}

/* 9P stat to Linux mode (type and permission bits) and device number. */
static umode_t ninep_stat_mode(const struct ninep_session *s,
			       const struct v9p_stat *st, dev_t *rdev)
{
	bool special = ninep_extended(s) && !(s->flags & NINEP_NODEVMAP);
	u32 m = st->mode;
	umode_t mode = m & 0777;
	umode_t type = S_IFREG;

	*rdev = 0;
	if (m & V9P_DMDIR)
		type = S_IFDIR;
	else if (ninep_extended(s) && (m & V9P_DMSYMLINK))
		type = S_IFLNK;
	else if (special && (m & V9P_DMSOCKET))
		type = S_IFSOCK;
	else if (special && (m & V9P_DMNAMEDPIPE))
		type = S_IFIFO;
	else if (special && (m & V9P_DMDEVICE))
		type = ninep_parse_device(&st->extension, rdev) ?: S_IFREG;
	if (type == S_IFREG)
		*rdev = 0;

	if (ninep_extended(s)) {
		if (m & V9P_DMSETUID)
			mode |= S_ISUID;
		if (m & V9P_DMSETGID)
			mode |= S_ISGID;
		if (m & V9P_DMSETVTX)
			mode |= S_ISVTX;
	}
	return type | mode;
}

unsigned int ninep_dtype(const struct ninep_session *s, const struct v9p_stat *st)
{
	dev_t rdev;

	return fs_umode_to_dtype(ninep_stat_mode(s, st, &rdev));
}

/*
 * 9P2000.u has no link count; a server may put "HARDLINKCOUNT n" in the
 * extension of a regular file (the in-tree client's convention). A count
 * of 0 is applied too, as an Rgetattr's is: a file open here whose last
 * name another client removed.
 */
static void ninep_link_count(struct inode *inode, const struct v9p_str *ext)
{
	static const char tag[] = "HARDLINKCOUNT ";
	unsigned int n;
	char buf[32];

	if (ext->len <= sizeof(tag) - 1 || ext->len >= sizeof(buf) ||
	    memcmp(ext->s, tag, sizeof(tag) - 1))
		return;
	memcpy(buf, ext->s, ext->len);
	buf[ext->len] = '\0';
	if (kstrtouint(buf + sizeof(tag) - 1, 10, &n) == 0)
		set_nlink(inode, n);
}

/*
 * Whether a stat record from @s's server can be applied to an inode: its
 * length must be one a file may have (as ninep_dotl_check() asks of an
 * Rgetattr), or it would make a negative size. Logs what is wrong; 0 or
 * -EIO.
 */
static int ninep_stat_check(const struct ninep_session *s,
			    const struct v9p_stat *st)
{
	if (st->length <= MAX_LFS_FILESIZE)
		return 0;
	pr_warn_ratelimited("Rstat from %s of qid %llx has a length beyond what a file may hold (%llu): EIO\n",
			    s->addr ?: "fd", st->qid.path, st->length);
	return -EIO;
}

/*
 * Refresh an inode's attributes from a stat. The file type of an existing
 * inode never changes here: lookup finds a new inode for a file whose type
 * did (the type is part of the key).
 */
void ninep_stat_to_inode(struct inode *inode, const struct v9p_stat *st,
			 long gen)
{
	struct ninep_session *s = ninep_inode_session(inode);
	struct timespec64 ts = { .tv_nsec = 0 };
	dev_t rdev;
	umode_t mode = ninep_stat_mode(s, st, &rdev);
	umode_t type = inode->i_mode & S_IFMT;

	if (!type)
		type = mode & S_IFMT;
	inode->i_mode = type | (mode & ~S_IFMT);

	inode->i_uid = s->uid;
	inode->i_gid = s->gid;
	if (ninep_extended(s)) {
		if (st->n_uid != V9P_NONUNAME)
			inode->i_uid = make_kuid(&init_user_ns, st->n_uid);
		if (st->n_gid != V9P_NONUNAME)
			inode->i_gid = make_kgid(&init_user_ns, st->n_gid);
	}

	ts.tv_sec = st->atime;
	ninep_set_atime(inode, ts);
	ts.tv_sec = st->mtime;
	ninep_set_mtime(inode, ts);
	inode_set_ctime_to_ts(inode, ts);	/* 9P2000 has no ctime */

	if (!S_ISDIR(inode->i_mode))
		ninep_i_size_refresh(inode, st->length, gen);
	if (ninep_extended(s) && S_ISREG(inode->i_mode) && inode->i_nlink)
		ninep_link_count(inode, &st->extension);
	inode->i_blocks = (st->length + 511) >> 9;
	NINEP_I(inode)->qid.version = st->qid.version;
}

struct ninep_iget_key {
	u64 path;
	umode_t type;
};

static int ninep_iget_test(struct inode *inode, void *data)
{
	const struct ninep_iget_key *key = data;

	/* An unlinked inode may still be open; a reused qid is a new file. */
	return NINEP_I(inode)->qid.path == key->path &&
	       (inode->i_mode & S_IFMT) == key->type && inode->i_nlink;
}

/* A file just made is no cached inode's: see ninep_iget(). */
static int ninep_iget_test_none(struct inode *inode, void *data)
{
	return 0;
}

static int ninep_iget_set(struct inode *inode, void *data)
{
	const struct ninep_iget_key *key = data;

	NINEP_I(inode)->qid.path = key->path;
	inode->i_ino = key->path;
	inode->i_mode = key->type;
	return 0;
}

/*
 * Find or make the inode of a file: the key is qid.path and the file type,
 * so hard links share an inode. @st (9P2000, .u) or @ga (.L, checked by
 * ninep_dotl_check()) gives the attributes, or neither: for a new file the
 * creator's mode and owner then stand in until the next getattr.
 *
 * @created: the file was just made by this client, and gets an inode of
 * its own, never one found in the cache. A cached inode with its qid is
 * another file's (a server that reuses the number of a file removed
 * elsewhere) or, from a server that answers with a wrong qid, that of a
 * directory in use: instantiated with it, the new name would be a second
 * dentry of a directory inode, and the VFS, which locks a parent and a
 * child (rmdir of the name) or two parents (a rename between the two
 * names) by their inodes, would take that one lock twice and wait for
 * ever. Lookups find the newest inode of a key first.
 */
struct inode *ninep_iget(struct super_block *sb, const struct v9p_qid *qid,
			 umode_t mode, dev_t rdev, const struct v9p_stat *st,
			 const struct v9p_rgetattr *ga, bool created)
{
	struct ninep_session *s = ninep_sb_session(sb);
	struct ninep_iget_key key = { .path = qid->path, .type = mode & S_IFMT };
	bool dotl = ninep_dotl(s);
	struct inode *inode;

	inode = iget5_locked(sb, (unsigned long)qid->path,
			     created ? ninep_iget_test_none : ninep_iget_test,
			     ninep_iget_set, &key);
	if (!inode)
		return ERR_PTR(-ENOMEM);

	if (inode->i_state & I_NEW) {
		NINEP_I(inode)->qid = *qid;
		inode->i_mode = mode;
		inode->i_blkbits = sb->s_blocksize_bits;
		inode->i_mapping->a_ops = &ninep_aops;
		switch (mode & S_IFMT) {
		case S_IFDIR:
			set_nlink(inode, 2);
			inode->i_op = dotl ? &ninep_dotl_dir_iops : &ninep_dir_iops;
			inode->i_fop = &ninep_dir_fops;
			break;
		case S_IFREG:
			inode->i_op = dotl ? &ninep_dotl_file_iops : &ninep_file_iops;
			inode->i_fop = dotl ? &ninep_dotl_file_fops : &ninep_file_fops;
			break;
		case S_IFLNK:
			inode->i_op = dotl ? &ninep_dotl_symlink_iops :
					     &ninep_symlink_iops;
			break;
		default:
			inode->i_op = dotl ? &ninep_dotl_file_iops : &ninep_file_iops;
			init_special_inode(inode, mode, rdev);
			break;
		}
		if (st) {
			ninep_stat_to_inode(inode, st, NINEP_NO_GEN);
		} else if (ga) {
			ninep_getattr_to_inode(inode, ga, NINEP_NO_GEN);
		} else {
			inode->i_uid = ninep_extended(s) ? current_fsuid() : s->uid;
			inode->i_gid = ninep_extended(s) ? current_fsgid() : s->gid;
			ninep_inode_init_ts(inode);
		}
		ninep_fscache_inode_init(inode, !st && !ga);
		unlock_new_inode(inode);
	} else if (st) {
		ninep_stat_to_inode(inode, st, NINEP_NO_GEN);
	} else if (ga) {
		ninep_getattr_to_inode(inode, ga, NINEP_NO_GEN);
	}
	return inode;
}

/* One Tstat (Tgetattr in .L) on @fid, applied to @inode. */
int ninep_refresh_inode(struct inode *inode, struct ninep_fid *fid)
{
	long gen = ninep_size_gen(inode);
	struct ninep_attr_stamp stamp;
	struct v9p_stat *st;
	int err;

	if (!fid)
		return -EIO;
	if (ninep_dotl(ninep_inode_session(inode)))
		return ninep_dotl_refresh(inode, fid);
	ninep_attr_stamp(ninep_inode_session(inode), &stamp);
	st = ninep_stat(fid);
	if (IS_ERR(st))
		return PTR_ERR(st);
	err = ninep_stat_check(ninep_inode_session(inode), st);
	if (err) {
		kfree(st);
		return err;
	}
	ninep_stat_to_inode(inode, st, gen);
	ninep_attr_fetched(inode, &stamp);
	kfree(st);
	return 0;
}

/* ---- attribute cache (cache=loose, actimeo=) ---- */

static bool ninep_attr_caching(const struct ninep_session *s)
{
	return s->cache >= NINEP_CACHE_LOOSE && s->actimeo;
}

/*
 * Taken before a request for attributes is sent. The epoch is read first:
 * a local change counted after it was made on the server after the request
 * may have been answered, so the reply does not count as fresh.
 */
void ninep_attr_stamp(const struct ninep_session *s,
		      struct ninep_attr_stamp *stamp)
{
	stamp->epoch = atomic_read(&s->attr_epoch);
	stamp->when = jiffies;
}

/*
 * The attributes of a reply to a request stamped @stamp were applied to
 * @inode. The age counts from the request, not the reply: what the server
 * said is at least that old.
 */
void ninep_attr_fetched(struct inode *inode,
			const struct ninep_attr_stamp *stamp)
{
	struct ninep_inode *vi = NINEP_I(inode);

	if (!ninep_attr_caching(ninep_inode_session(inode)))
		return;
	WRITE_ONCE(vi->attr_time, stamp->when);
	WRITE_ONCE(vi->attr_fetched, stamp->epoch);
}

/*
 * This client changed @inode's attributes on the server (or may have: it
 * is called after the request whatever its answer): the cached ones are no
 * longer trusted, nor those of a reply to a request sent before now.
 * atomic_inc_return() orders the count before what follows (a write-back's
 * tags going: see ninep_attr_cached()).
 */
void ninep_attr_stale(struct inode *inode)
{
	struct ninep_session *s;

	if (!inode)
		return;
	s = ninep_inode_session(inode);
	if (!ninep_attr_caching(s))
		return;
	WRITE_ONCE(NINEP_I(inode)->attr_stale, atomic_inc_return(&s->attr_epoch));
}

/*
 * Whether getattr may answer from @inode's attributes without asking: with
 * cache=loose and actimeo, if they came from a reply to a request sent less
 * than actimeo seconds ago, no local change came after that request, and
 * no byte written here is still on its way (dirty or under write-back: the
 * size and times then are the server's business). The tags are read before
 * the stamps: write-back marks the attributes stale before it clears them.
 */
bool ninep_attr_cached(struct inode *inode, unsigned int query_flags)
{
	struct ninep_session *s = ninep_inode_session(inode);
	struct address_space *mapping = inode->i_mapping;
	struct ninep_inode *vi = NINEP_I(inode);

	if (!ninep_attr_caching(s) || (query_flags & AT_STATX_FORCE_SYNC))
		return false;
	if (mapping_tagged(mapping, PAGECACHE_TAG_DIRTY) ||
	    mapping_tagged(mapping, PAGECACHE_TAG_WRITEBACK))
		return false;
	smp_rmb();	/* pairs with atomic_inc_return() in ninep_attr_stale() */
	if ((int)(READ_ONCE(vi->attr_fetched) - READ_ONCE(vi->attr_stale)) < 0)
		return false;
	return time_before(jiffies, READ_ONCE(vi->attr_time) +
			   (unsigned long)s->actimeo * HZ);
}

/* ---- dentries ---- */

/*
 * Without cache=loose, or with actimeo=0, names are not cached: a dentry
 * lives only while it is in use (always_delete), so every path walk that
 * meets a name nobody holds looks it up again with Twalk and Tstat. A
 * dentry in use (a working directory, an open directory being listed) is
 * trusted as long as it holds its fid, as the seed did and as the in-tree
 * client does without a cache; getattr asks for its attributes.
 */
static void ninep_d_release(struct dentry *dentry)
{
	ninep_dentry_put_fids(dentry);
}

static const struct dentry_operations ninep_dentry_ops = {
	.d_delete	= always_delete_dentry,
	.d_release	= ninep_d_release,
};

/*
 * @dentry's name was looked up, made, renamed or checked by a request sent
 * at @when (jiffies): with cache=loose it is trusted for actimeo from then.
 */
void ninep_dentry_fresh(struct dentry *dentry, unsigned long when)
{
	WRITE_ONCE(dentry->d_time, when);
}

/* The dentry's inode is the file @qid names: same path, same type. */
static bool ninep_same_file(struct inode *inode, const struct v9p_qid *qid)
{
	const struct v9p_qid *mine = &NINEP_I(inode)->qid;

	return mine->path == qid->path && mine->type == qid->type;
}

/*
 * @nfid, what a walk of @name from @fid gave: if the fid was refused, tried
 * again as ninep_walk_reclaim() says.
 */
static struct ninep_fid *ninep_walk_retry(struct super_block *sb,
					  struct ninep_fid *fid,
					  const char *name,
					  struct ninep_fid *nfid)
{
	struct ninep_session *s = ninep_sb_session(sb);
	int err;

	if (!IS_ERR(nfid) || !ninep_attr_caching(s) ||
	    (PTR_ERR(nfid) != -EMFILE && PTR_ERR(nfid) != -ENFILE))
		return nfid;
	ninep_vfs_dbg(s, "%s: fid refused (%ld), unused names pruned\n",
		      name ? name : ".", PTR_ERR(nfid));
	shrink_dcache_sb(sb);
	err = ninep_client_clunks_wait(s->clnt);
	if (err)
		return ERR_PTR(err);
	return ninep_walk(fid, name ? 1 : 0, &name);
}

/*
 * Twalk from @fid to @name, or a clone of @fid with a NULL @name, on @sb.
 * A server that limits fids refuses a new one (EMFILE, ENFILE) once the
 * fids of the names cache=loose keeps add up: then every unused dentry of
 * the mount goes, its fids are clunked and answered, and the walk is tried
 * once more. Safe under a directory's i_rwsem and from d_revalidate: the
 * dentries killed are unused, and memory reclaim may kill them there too.
 */
struct ninep_fid *ninep_walk_reclaim(struct super_block *sb,
				     struct ninep_fid *fid, const char *name)
{
	return ninep_walk_retry(sb, fid, name,
				ninep_walk(fid, name ? 1 : 0, &name));
}

/*
 * Whether the name check of positive @dentry, in directory @dir, asks for
 * the file's attributes beside its Twalk, on the fid the dentry holds
 * (9P2000.L): when they are stale and the path walk ends at this name for
 * something else than an open, a creation or a rename (a stat, most
 * likely, which would ask for them next). Not when the walk goes on below
 * the name, nor for a task holding the directory locked (unlink, rename:
 * neither wants them). Only a guess at what follows: a wrong one costs a
 * request, or a round trip, never a wrong answer.
 */
static bool ninep_check_fetches(struct dentry *dentry, struct inode *dir,
				unsigned int flags)
{
	struct inode *inode = d_inode(dentry);

	return inode && ninep_dotl(ninep_sb_session(dentry->d_sb)) &&
	       !(flags & (LOOKUP_PARENT | LOOKUP_OPEN | LOOKUP_CREATE |
			  LOOKUP_RENAME_TARGET)) &&
	       !inode_is_locked(dir) && !ninep_attr_cached(inode, 0);
}

/*
 * What a name check's Twalk of @dentry's name found: @fid, the walked fid
 * (of @uid) or the walk's error, sent at @when. 1 if the name still means
 * what the dentry says: the dentry is fresh as of @when and keeps @fid (as
 * its own fid, or as a regular file's spare), and @af's reply, if asked
 * for and answered, is applied; 0 if the name is gone, another file, or
 * (negative dentry) there now; else the walk's error.
 */
static int ninep_check_walked(struct dentry *dentry, struct ninep_fid *fid,
			      kuid_t uid, unsigned long when,
			      struct ninep_attr_fetch *af)
{
	struct inode *inode = d_inode(dentry);

	if (IS_ERR(fid)) {
		if (PTR_ERR(fid) != -ENOENT)
			return PTR_ERR(fid);
		return inode ? 0 : 1;
	}
	if (!inode || !ninep_same_file(inode, &fid->qid)) {
		ninep_fid_put(fid);
		return 0;
	}
	/* An error leaves the attributes stale: getattr asks again. */
	if (af && !af->err)
		ninep_dotl_fetched(inode, af);
	if (S_ISREG(inode->i_mode))
		ninep_dentry_keep_spare(dentry, fid, uid);
	else
		ninep_dentry_keep_fid(dentry, fid, uid);
	ninep_dentry_fresh(dentry, when);
	return 1;
}

/*
 * Whether @dentry's name still means what the dentry says, asked with one
 * Twalk from the parent's fid to the name. The name is checked, not the
 * dentry's fid: a fid follows its file across a rename on the server, so
 * it would vouch for a name that now means another file or nothing. 1 if
 * it does (renewed; the walked fid is kept: as the dentry's if it had none
 * for this user, else, for a regular file, as a spare for the next open of
 * it to take), 0 if the name is gone, another file, or (negative dentry)
 * there now; the walk's error if the server could not tell, so that a
 * failed connection does not throw good dentries away.
 *
 * The file's attributes may be asked for beside the Twalk, on the fid the
 * dentry holds (ninep_check_fetches()): that fid is on the file the inode
 * is, whatever its name now, so its attributes are the inode's; they are
 * taken if the name still means that file.
 */
static int ninep_dentry_check(struct dentry *dentry, unsigned int flags)
{
	struct inode *inode = d_inode(dentry);
	struct ninep_fid *dfid, *fid, *hfid = NULL;
	struct ninep_attr_fetch af = { .err = -EIO };
	unsigned long when = jiffies;
	struct name_snapshot snap;
	struct dentry *parent;
	bool fetch;
	int ret;

	parent = dget_parent(dentry);
	dfid = ninep_fid_lookup(parent);
	fetch = ninep_check_fetches(dentry, d_inode(parent), flags);
	dput(parent);
	if (IS_ERR(dfid))
		return PTR_ERR(dfid);
	if (fetch)
		hfid = ninep_fid_find(dentry);
	/* A rename racing with this at worst costs a lookup (0) for nothing. */
	take_dentry_name_snapshot(&snap, dentry);
	if (hfid) {
		fid = ninep_dotl_walk_fetch(inode, dfid, snap.name.name, hfid,
					    &af);
		ninep_fid_put(hfid);
		/* Its fid refused: walked again alone, once fids were given back. */
		fid = ninep_walk_retry(dentry->d_sb, dfid, snap.name.name, fid);
	} else {
		fid = ninep_walk_reclaim(dentry->d_sb, dfid, snap.name.name);
	}
	release_dentry_name_snapshot(&snap);
	ret = ninep_check_walked(dentry, fid, dfid->uid, when, &af);
	ninep_fid_put(dfid);
	ninep_vfs_dbg(ninep_sb_session(dentry->d_sb), "%pd: %d\n", dentry, ret);
	return ret;
}

/*
 * A name checked less than actimeo ago (its d_time), the root (nobody's
 * name) or a mountpoint (pinned by what is mounted on it) is trusted
 * without asking; decided without sleeping, so also in RCU walk mode.
 */
static bool ninep_name_trusted(struct dentry *dentry)
{
	struct ninep_session *s = ninep_sb_session(dentry->d_sb);

	return IS_ROOT(dentry) || d_mountpoint(dentry) ||
	       time_before(jiffies, READ_ONCE(dentry->d_time) +
			   (unsigned long)s->actimeo * HZ);
}

/*
 * cache=loose over 9P2000.L: whether the name of @dentry, a regular file,
 * is due for its check and an open may do it (ninep_open_check_name()),
 * its Twalk overlapping the Tlopen. Read without locks: RCU walk mode
 * decides by it too. An unhashed dentry is no name's any more: an open
 * reaching it (a retry after the check failed, /proc/PID/fd) goes by its
 * fids, as it would have before.
 */
bool ninep_name_check_at_open(struct dentry *dentry)
{
	struct ninep_session *s = ninep_sb_session(dentry->d_sb);

	return ninep_attr_caching(s) && ninep_dotl(s) && d_is_reg(dentry) &&
	       !d_unhashed(dentry) && !ninep_name_trusted(dentry);
}

/*
 * The end of a name check an open does: @ret as ninep_dentry_check()'s.
 * A name gone or meaning another file drops the dentry (as NFS does) and
 * gives -EOPENSTALE, on which path_openat() and do_filp_open() walk the
 * path again, once more without RCU and then with LOOKUP_REVAL: the walk
 * finds no dentry under the name and looks it up, so the open that
 * follows has a fresh name and does no check of its own; no loop.
 * Callers of ->open that do not walk again (dentry_open() by overlayfs,
 * for one) see the -EOPENSTALE, but only when the name changed on the
 * server.
 */
static int ninep_open_check_end(struct dentry *dentry, int ret)
{
	ninep_vfs_dbg(ninep_sb_session(dentry->d_sb), "%pd: %d\n", dentry, ret);
	if (ret > 0)
		return 0;
	if (ret < 0)
		return ret;
	d_drop(dentry);
	return -EOPENSTALE;
}

/*
 * The name check of @dentry that its open does (the path walk left it,
 * see ninep_d_revalidate()). With no @ofid: ninep_dentry_check(), before
 * the open. Else @ofid is a spare fid of the dentry, taken for the open
 * (ninep_fid_take_spare()), on the file of the dentry's inode whatever its
 * name now: the Twalk from the parent's fid goes beside its Tlopen with
 * @flags and a Tgetattr of it (@af), in one round trip. If the name still
 * means the inode's file, it is fresh again as of before the requests,
 * the walked fid becomes the dentry's spare, *@lerr is the Tlopen's answer
 * and @af is the open's to apply. Otherwise nothing of the Tlopen or the
 * Tgetattr reaches the inode: the caller clunks @ofid, which closes it.
 *
 * 0 if the name holds; -EOPENSTALE if it is gone or another file's (see
 * ninep_open_check_end()); the walk's error if the server could not tell
 * (a dead connection gives EIO, not a new lookup).
 */
int ninep_open_check_name(struct dentry *dentry, struct ninep_fid *ofid,
			  u32 flags, struct ninep_attr_fetch *af, int *lerr)
{
	struct inode *inode = d_inode(dentry);
	unsigned long when = jiffies;
	struct ninep_fid *dfid, *fid;
	struct name_snapshot snap;
	struct dentry *parent;
	int ret;

	if (!ofid)
		return ninep_open_check_end(dentry,
					    ninep_dentry_check(dentry, LOOKUP_OPEN));
	parent = dget_parent(dentry);
	dfid = ninep_fid_lookup(parent);
	dput(parent);
	if (IS_ERR(dfid))
		return PTR_ERR(dfid);
	take_dentry_name_snapshot(&snap, dentry);
	fid = ninep_dotl_walk_lopen_fetch(inode, dfid, snap.name.name, ofid,
					  flags, lerr, af);
	/* Its fid refused: walked again alone, once fids were given back. */
	fid = ninep_walk_retry(dentry->d_sb, dfid, snap.name.name, fid);
	release_dentry_name_snapshot(&snap);
	/* The open applies the attributes, under the inode lock. */
	ret = ninep_check_walked(dentry, fid, dfid->uid, when, NULL);
	ninep_fid_put(dfid);
	return ninep_open_check_end(dentry, ret);
}

/*
 * cache=loose: a dentry, positive or negative, is trusted for actimeo
 * since its d_time (ninep_name_trusted()). After that the name is checked
 * (ninep_dentry_check()), which needs a request: -ECHILD in RCU mode.
 * Over 9P2000.L the check of a regular file's name that the walk ends at
 * for an open is left to the open (ninep_name_check_at_open()), which
 * sends its Twalk beside the Tlopen; not with LOOKUP_REVAL (the VFS walks
 * again after the open found the name stale), nor for O_EXCL or
 * O_DIRECTORY (or a trailing slash), whose answer the VFS gives from the
 * dentry's type before the open could check it.
 */
static int ninep_d_revalidate(struct dentry *dentry, unsigned int flags)
{
	if (ninep_name_trusted(dentry))
		return 1;
	if ((flags & (LOOKUP_OPEN | LOOKUP_REVAL | LOOKUP_EXCL |
		      LOOKUP_DIRECTORY)) == LOOKUP_OPEN &&
	    ninep_name_check_at_open(dentry))
		return 1;
	if (flags & LOOKUP_RCU)
		return -ECHILD;
	return ninep_dentry_check(dentry, flags);
}

/*
 * A cached dentry outlives its inode when the file is removed here: it
 * turns negative and stays. Its fids are the removed file's, and must go
 * with the inode, not stay for a file made under the name later.
 */
static void ninep_d_iput(struct dentry *dentry, struct inode *inode)
{
	ninep_dentry_put_fids(dentry);
	iput(inode);
}

/*
 * cache=loose with actimeo: unused dentries stay (no d_delete), negative
 * ones too, each with the fids it holds on the server, until the dcache
 * shrinks or the name fails its check.
 */
static const struct dentry_operations ninep_loose_dentry_ops = {
	.d_revalidate	= ninep_d_revalidate,
	.d_iput		= ninep_d_iput,
	.d_release	= ninep_d_release,
};

const struct dentry_operations *ninep_session_dentry_ops(const struct ninep_session *s)
{
	return ninep_attr_caching(s) ? &ninep_loose_dentry_ops : &ninep_dentry_ops;
}

/* The caller's fid of @dentry's parent, referenced; under its i_rwsem. */
struct ninep_fid *ninep_parent_fid(struct dentry *dentry)
{
	return ninep_fid_lookup(dentry->d_parent);
}

/* ---- lookup ---- */

/* The inode of the file @fid is on, from one Tstat (see ninep_iget()). */
static struct inode *ninep_stat_inode_from_fid(struct super_block *sb,
					       struct ninep_fid *fid,
					       bool created)
{
	struct v9p_stat *st = ninep_stat(fid);
	struct inode *inode;
	umode_t mode;
	dev_t rdev;
	int err;

	if (IS_ERR(st))
		return ERR_CAST(st);
	err = ninep_stat_check(ninep_sb_session(sb), st);
	if (err) {
		kfree(st);
		return ERR_PTR(err);
	}
	mode = ninep_stat_mode(ninep_sb_session(sb), st, &rdev);
	inode = ninep_iget(sb, &st->qid, mode, rdev, st, NULL, created);
	kfree(st);
	return inode;
}

/*
 * The inode of the file @fid is on: one Tstat, or Tgetattr in .L; of its
 * own if @created (see ninep_iget()).
 */
static struct inode *ninep_fid_inode(struct super_block *sb,
				     struct ninep_fid *fid, bool created)
{
	if (ninep_dotl(ninep_sb_session(sb)))
		return ninep_dotl_inode_from_fid(sb, fid, created);
	return ninep_stat_inode_from_fid(sb, fid, created);
}

/* The inode of the file @fid is on, found in the cache if it is there. */
struct inode *ninep_inode_from_fid(struct super_block *sb,
				   struct ninep_fid *fid)
{
	return ninep_fid_inode(sb, fid, false);
}

/*
 * Walk from the parent's fid to @dentry's name (Twalk) and find its inode
 * (ninep_fid_inode(), @created as there); the new fid goes on @dentry,
 * before it becomes visible. A name that is not there is -ENOENT. The
 * dentry's d_time is set first, for the positive or negative dentry this
 * makes.
 */
static struct inode *ninep_walk_dentry(struct inode *dir, struct dentry *dentry,
				       bool created)
{
	struct ninep_attr_stamp stamp;
	struct ninep_fid *dfid;
	struct ninep_fid *fid;
	struct inode *inode;
	kuid_t uid;

	ninep_attr_stamp(ninep_inode_session(dir), &stamp);
	ninep_dentry_fresh(dentry, stamp.when);
	dfid = ninep_parent_fid(dentry);
	if (IS_ERR(dfid))
		return ERR_CAST(dfid);
	uid = dfid->uid;
	fid = ninep_walk_reclaim(dir->i_sb, dfid, dentry->d_name.name);
	ninep_fid_put(dfid);
	if (IS_ERR(fid))
		return ERR_CAST(fid);
	inode = ninep_fid_inode(dir->i_sb, fid, created);
	if (IS_ERR(inode)) {
		ninep_fid_put(fid);
		return inode;
	}
	ninep_attr_fetched(inode, &stamp);
	ninep_dentry_keep_fid(dentry, fid, uid);
	return inode;
}

/* ->lookup of every dialect. */
struct dentry *ninep_lookup(struct inode *dir, struct dentry *dentry,
			    unsigned int flags)
{
	struct inode *inode;

	ninep_vfs_dbg(ninep_inode_session(dir), "%pd\n", dentry);
	if (dentry->d_name.len > NAME_MAX)
		return ERR_PTR(-ENAMETOOLONG);

	inode = ninep_walk_dentry(dir, dentry, false);
	if (IS_ERR(inode)) {
		/* Gone before its attributes came counts as not there: negative. */
		if (PTR_ERR(inode) != -ENOENT)
			return ERR_CAST(inode);
		inode = NULL;
	}
	/*
	 * A directory's inode has one dentry: if it has one already, that
	 * one moves here (or, being an ancestor of this name, is refused).
	 * If an alias is spliced in instead, that alias keeps its own fid and
	 * ours goes with this dentry when the caller drops it.
	 */
	return d_splice_alias(inode, dentry);
}

/*
 * Walk to the file this client just made under @dentry's name (.L:
 * Tlcreate, Tmkdir, Tsymlink, Tmknod) and make the negative @dentry
 * positive with an inode of its own (ninep_iget(), @created).
 */
int ninep_instantiate_new(struct inode *dir, struct dentry *dentry)
{
	struct inode *inode = ninep_walk_dentry(dir, dentry, true);

	if (IS_ERR(inode))
		return PTR_ERR(inode);
	d_instantiate(dentry, inode);
	return 0;
}

/*
 * Walk to a name that exists on the server but was not made by this call
 * (a create found it taken; a .L hard link) and give negative, hashed
 * @dentry its file, found in the inode cache as a lookup finds it. A
 * file of another type may have several dentries (hard links); a
 * directory's inode gets none more: @dentry is unhashed and spliced as a
 * lookup's is. NULL if @dentry is the file's now, else the dentry that
 * is (referenced, for the caller to put), or an ERR_PTR.
 */
struct dentry *ninep_instantiate(struct inode *dir, struct dentry *dentry)
{
	struct inode *inode = ninep_walk_dentry(dir, dentry, false);

	if (IS_ERR(inode))
		return ERR_CAST(inode);
	if (!S_ISDIR(inode->i_mode)) {
		d_instantiate(dentry, inode);
		return NULL;
	}
	d_drop(dentry);
	return d_splice_alias(inode, dentry);
}

/* ---- creation ---- */

/*
 * Create @dentry's name in its parent: Tcreate is create-and-open, so it
 * runs on a clone of the parent's fid, which becomes the new open file.
 * Then walk to the name for the dentry's own (unopened) fid and instantiate
 * it. Returns the open fid through @ofidp, or puts it when @ofidp is NULL.
 * @link_inode, for a hard link, is the inode the new name shares.
 */
static int ninep_create_common(struct inode *dir, struct dentry *dentry,
			       umode_t mode, dev_t rdev, u8 omode,
			      const char *ext, u32 extra_perm,
			      struct inode *link_inode,
			      struct ninep_fid **ofidp)
{
	struct ninep_session *s = ninep_inode_session(dir);
	const char *name = dentry->d_name.name;
	struct ninep_fid *dfid, *ofid, *fid;
	unsigned long when = jiffies;
	struct inode *inode;
	int err;

	ninep_vfs_dbg(s, "%pd mode 0%o omode 0x%x\n", dentry, mode, omode);
	if (dentry->d_name.len > NAME_MAX)
		return -ENAMETOOLONG;
	dfid = ninep_parent_fid(dentry);
	if (IS_ERR(dfid))
		return PTR_ERR(dfid);

	ofid = ninep_walk(dfid, 0, NULL);
	if (IS_ERR(ofid)) {
		err = PTR_ERR(ofid);
		goto put_dfid;
	}
	err = ninep_create(ofid, name, ninep_unix_to_p9mode(s, mode) | extra_perm,
			   omode, ext);
	ninep_attr_stale(dir);
	if (err)
		goto put_ofid;

	fid = ninep_walk(dfid, 1, &name);
	if (IS_ERR(fid)) {
		err = PTR_ERR(fid);
		goto put_ofid;
	}
	if (link_inode) {
		ihold(link_inode);
		inc_nlink(link_inode);
		inode = link_inode;
	} else {
		inode = ninep_iget(dir->i_sb, &fid->qid, mode, rdev, NULL, NULL,
				   true);
		if (IS_ERR(inode)) {
			err = PTR_ERR(inode);
			ninep_fid_put(fid);
			goto put_ofid;
		}
	}
	/* A link's count changed; a new file has only the creator's guess. */
	ninep_attr_stale(inode);
	ninep_dentry_keep_fid(dentry, fid, dfid->uid);
	ninep_dentry_fresh(dentry, when);
	d_instantiate(dentry, inode);

	if (ofidp)
		*ofidp = ofid;
	else
		ninep_fid_put(ofid);
	ninep_fid_put(dfid);
	return 0;

put_ofid:
	ninep_fid_put(ofid);
put_dfid:
	ninep_fid_put(dfid);
	return err;
}

static int ninep_vfs_create(struct ninep_idmap *idmap, struct inode *dir,
			    struct dentry *dentry, umode_t mode, bool excl)
{
	return ninep_create_common(dir, dentry, (mode & ~S_IFMT) | S_IFREG, 0,
				  V9P_OREAD, NULL, 0, NULL, NULL);
}

/* finish_open() callback for a file the create message already opened. */
int ninep_open_created(struct inode *inode, struct file *file)
{
	ninep_fscache_open(inode, file);
	return 0;
}

/* Tcreate of a regular file, opened with the open(2) @flags. */
static int ninep_create_open(struct inode *dir, struct dentry *dentry,
			     umode_t mode, unsigned int flags,
			     struct ninep_fid **ofidp)
{
	return ninep_create_common(dir, dentry, (mode & ~S_IFMT) | S_IFREG, 0,
				  ninep_open_mode(flags) & ~V9P_OTRUNC, NULL, 0,
				  NULL, ofidp);
}

/*
 * ->atomic_open of every dialect: open(O_CREAT) in one create message
 * (Tcreate, Tlcreate in .L). If the name turns out to exist (another
 * client made it since our lookup) and O_EXCL is not set, the existing
 * file is instantiated and opened the ordinary way.
 */
int ninep_atomic_open(struct inode *dir, struct dentry *dentry,
		      struct file *file, unsigned int flags, umode_t mode)
{
	unsigned int oflags = ninep_cache_open_flags(dir, flags);
	struct dentry *res = NULL;
	struct ninep_open_file *of;
	struct dentry *alias;
	struct ninep_fid *ofid;
	int err;

	if (d_in_lookup(dentry)) {
		res = ninep_lookup(dir, dentry, 0);
		if (IS_ERR(res))
			return PTR_ERR(res);
		if (res)
			dentry = res;
	}
	if (!(flags & O_CREAT) || d_really_is_positive(dentry))
		return finish_no_open(file, res);

	of = kzalloc(sizeof(*of), GFP_KERNEL);
	if (!of) {
		err = -ENOMEM;
		goto out;
	}
	if (ninep_dotl(ninep_inode_session(dir)))
		err = ninep_dotl_create_file(dir, dentry, mode, oflags, &ofid);
	else
		err = ninep_create_open(dir, dentry, mode, oflags, &ofid);
	if (err == -EEXIST && !(flags & O_EXCL)) {
		kfree(of);
		alias = ninep_instantiate(dir, dentry);
		if (IS_ERR(alias)) {
			err = PTR_ERR(alias);
			goto out;
		}
		if (alias) {
			dput(res);
			res = alias;
		}
		return finish_no_open(file, res);
	}
	if (err) {
		kfree(of);
		goto out;
	}

	of->fid = ofid;
	file->private_data = of;
	file->f_mode |= FMODE_CREATED;
	err = finish_open(file, dentry, ninep_open_created);
	if (err) {
		file->private_data = NULL;
		ninep_fid_put(ofid);
		kfree(of);
	}
out:
	dput(res);
	return err;
}

static int ninep_vfs_mkdir(struct ninep_idmap *idmap, struct inode *dir,
			   struct dentry *dentry, umode_t mode)
{
	/* A directory's link count stays 2: 9P2000 reports none to track. */
	return ninep_create_common(dir, dentry, (mode & ~S_IFMT) | S_IFDIR, 0,
				  V9P_OREAD, NULL, 0, NULL, NULL);
}

static int ninep_vfs_symlink(struct ninep_idmap *idmap, struct inode *dir,
			     struct dentry *dentry, const char *target)
{
	if (!ninep_extended(ninep_inode_session(dir)))
		return -EPERM;
	return ninep_create_common(dir, dentry, S_IFLNK | 0777, 0, V9P_OREAD,
				  target, 0, NULL, NULL);
}

/* .u hard link: the extension names the target by its fid number. */
static int ninep_vfs_link(struct dentry *old_dentry, struct inode *dir,
			  struct dentry *dentry)
{
	struct inode *inode = d_inode(old_dentry);
	struct ninep_fid *ofid;
	char ext[16];
	int err;

	if (!ninep_extended(ninep_inode_session(dir)))
		return -EPERM;
	ofid = ninep_fid_lookup(old_dentry);
	if (IS_ERR(ofid))
		return PTR_ERR(ofid);
	snprintf(ext, sizeof(ext), "%u", ofid->fid);
	/* The perm is DMLINK alone: S_IFREG maps to no other bit. */
	err = ninep_create_common(dir, dentry, S_IFREG, 0, V9P_OREAD, ext,
				  V9P_DMLINK, inode, NULL);
	ninep_fid_put(ofid);
	return err;
}

static int ninep_vfs_mknod(struct ninep_idmap *idmap, struct inode *dir,
			   struct dentry *dentry, umode_t mode, dev_t rdev)
{
	struct ninep_session *s = ninep_inode_session(dir);
	char ext[32];

	if (S_ISREG(mode))
		return ninep_vfs_create(idmap, dir, dentry, mode, false);
	/* Special files exist only in .u, and not when shown as plain files. */
	if (!ninep_extended(s) || (s->flags & NINEP_NODEVMAP))
		return -EPERM;

	if (S_ISCHR(mode) || S_ISBLK(mode)) {
		snprintf(ext, sizeof(ext), "%c %u %u", S_ISCHR(mode) ? 'c' : 'b',
			 MAJOR(rdev), MINOR(rdev));
	} else if (S_ISFIFO(mode) || S_ISSOCK(mode)) {
		ext[0] = '\0';
		rdev = 0;
	} else {
		return -EINVAL;
	}
	return ninep_create_common(dir, dentry, mode, rdev, V9P_OREAD, ext, 0,
				  NULL, NULL);
}

/* ---- removal and rename ---- */

/*
 * Tremove clunks the fid it is given, even when it fails, so it gets a
 * clone: @fid (a dentry's) stays valid for whoever still holds it.
 */
int ninep_remove_fid(struct ninep_fid *fid)
{
	struct ninep_fid *clone = ninep_walk(fid, 0, NULL);

	if (IS_ERR(clone))
		return PTR_ERR(clone);
	return ninep_remove(clone);
}

int ninep_remove_dentry(struct dentry *dentry)
{
	struct ninep_fid *fid = ninep_fid_lookup(dentry);
	int err;

	if (IS_ERR(fid))
		return PTR_ERR(fid);
	err = ninep_remove_fid(fid);
	ninep_fid_put(fid);
	return err;
}

/*
 * Link counts are this client's own bookkeeping (the server reports none,
 * or HARDLINKCOUNT), so two names looked up apart can share an inode whose
 * count is 1: never drop below 0.
 */
static void ninep_drop_nlink(struct inode *inode)
{
	if (inode->i_nlink)
		drop_nlink(inode);
}

/*
 * After the removal of @dentry's name in @dir was asked for, @err its
 * answer. The directory and the file change (or may have). Once removed,
 * the file loses the link (a directory all of them), and the name, which
 * a cached dentry keeps as negative, is known absent as of now.
 */
void ninep_removed(struct inode *dir, struct dentry *dentry, int err)
{
	struct inode *inode = d_inode(dentry);

	ninep_attr_stale(dir);
	ninep_attr_stale(inode);
	if (err)
		return;
	if (S_ISDIR(inode->i_mode))
		clear_nlink(inode);
	else
		ninep_drop_nlink(inode);
	ninep_dentry_fresh(dentry, jiffies);
}

/* unlink and rmdir: Tremove either way. */
static int ninep_vfs_remove(struct inode *dir, struct dentry *dentry)
{
	int err = ninep_remove_dentry(dentry);

	ninep_removed(dir, dentry, err);
	return err;
}

/* Twstat of the name alone: @fid's file is called @name from now on. */
static int ninep_rename_fid(struct ninep_fid *fid, const char *name, u32 len)
{
	struct v9p_stat st;

	v9p_stat_dont_touch(&st);
	st.name.s = name;
	st.name.len = len;
	return ninep_wstat(fid, &st);
}

/*
 * A server that refuses to rename onto an existing name (stat(5)): move the
 * target aside under a name of its own, rename, then remove the target. If
 * the rename or the removal fails, what was moved is moved back, so that a
 * failed rename(2) leaves both names as they were (as far as the server
 * lets it: a failure to move back is logged with the name left behind).
 */
static int ninep_rename_replace(struct ninep_fid *fid, struct ninep_fid *tfid,
				struct dentry *old_dentry,
				struct dentry *new_dentry)
{
	const struct qstr *o = &old_dentry->d_name, *n = &new_dentry->d_name;
	char aside[40];
	int len, err, err2;

	len = snprintf(aside, sizeof(aside), ".9p2000-rename-%llx-%x",
		       tfid->qid.path, get_random_u32());
	err = ninep_rename_fid(tfid, aside, len);
	if (err)
		return err;
	err = ninep_rename_fid(fid, n->name, n->len);
	if (!err) {
		err = ninep_remove_fid(tfid);
		if (!err)
			return 0;
		err2 = ninep_rename_fid(fid, o->name, o->len);
		if (err2) {
			pr_err("rename: %.*s is left as %.*s (%d)\n",
			       o->len, o->name, n->len, n->name, err2);
			return err;
		}
	}
	err2 = ninep_rename_fid(tfid, n->name, n->len);
	if (err2)
		pr_err("rename: %.*s is left as %s (%d)\n", n->len, n->name,
		       aside, err2);
	return err;
}

/*
 * After a rename was asked for, whatever the answer: both directories, the
 * moved file (its ctime) and the replaced one (its link count) change.
 */
void ninep_rename_stale(struct inode *old_dir, struct inode *new_dir,
			struct dentry *old_dentry, struct dentry *new_dentry)
{
	ninep_attr_stale(old_dir);
	if (new_dir != old_dir)
		ninep_attr_stale(new_dir);
	ninep_attr_stale(d_inode(old_dentry));
	ninep_attr_stale(d_inode(new_dentry));
}

/*
 * After a rename the server made: the replaced file loses a link, and the
 * dentry moves (FS_RENAME_DOES_D_MOVE) while the caller still holds
 * rename_sem, so that no path read from the dentries sees it half done.
 * Its fids (and its children's) followed the file on the server; its new
 * name is known good as of now.
 */
void ninep_renamed(struct dentry *old_dentry, struct dentry *new_dentry)
{
	struct inode *target = d_inode(new_dentry);

	if (target) {
		if (S_ISDIR(target->i_mode))
			clear_nlink(target);
		else
			ninep_drop_nlink(target);
	}
	d_move(old_dentry, new_dentry);
	ninep_dentry_fresh(old_dentry, jiffies);
}

/*
 * 9P2000 renames by Twstat of the name, within one directory only (as the
 * in-tree client, cross-directory gives EXDEV so mv copies). A server that
 * refuses to rename onto an existing name gets ninep_rename_replace(), which
 * gives rename(2)'s replace semantics without its atomicity. The fids of
 * the caller are looked up before rename_sem is taken: a lookup reads it.
 */
static int ninep_vfs_rename(struct ninep_idmap *idmap, struct inode *old_dir,
			    struct dentry *old_dentry, struct inode *new_dir,
			   struct dentry *new_dentry, unsigned int flags)
{
	struct ninep_session *s = ninep_inode_session(old_dir);
	struct inode *target = d_inode(new_dentry);
	const struct qstr *n = &new_dentry->d_name;
	struct ninep_fid *fid, *tfid = NULL;
	int err;

	if (flags & ~RENAME_NOREPLACE)
		return -EINVAL;
	if (old_dir != new_dir)
		return -EXDEV;
	fid = ninep_fid_lookup(old_dentry);
	if (IS_ERR(fid))
		return PTR_ERR(fid);
	if (target && !(flags & RENAME_NOREPLACE)) {
		tfid = ninep_fid_lookup(new_dentry);
		if (IS_ERR(tfid)) {
			err = PTR_ERR(tfid);
			goto put_fid;
		}
	}

	err = down_write_killable(&s->rename_sem);
	if (err)
		goto put_fid;
	err = ninep_rename_fid(fid, n->name, n->len);
	if (err == -EEXIST && tfid)
		err = ninep_rename_replace(fid, tfid, old_dentry, new_dentry);
	ninep_rename_stale(old_dir, new_dir, old_dentry, new_dentry);
	if (!err)
		ninep_renamed(old_dentry, new_dentry);
	up_write(&s->rename_sem);
put_fid:
	if (!IS_ERR_OR_NULL(tfid))
		ninep_fid_put(tfid);
	ninep_fid_put(fid);
	return err;
}

/* ---- attributes ---- */

/*
 * ->getattr of every dialect: the attributes of the last reply while they
 * are trusted (ninep_attr_cached()), else one Tstat or Tgetattr.
 */
int ninep_vfs_getattr(struct ninep_idmap *idmap, const struct path *path,
		      struct kstat *stat, u32 request_mask,
		      unsigned int query_flags)
{
	struct dentry *dentry = path->dentry;
	struct inode *inode = d_inode(dentry);
	struct ninep_fid *fid;
	int err;

	if (!(query_flags & AT_STATX_DONT_SYNC) &&
	    !ninep_attr_cached(inode, query_flags)) {
		ninep_getattr_write_back(inode);
		fid = ninep_fid_lookup(dentry);
		err = PTR_ERR_OR_ZERO(fid);
		if (!err) {
			err = ninep_refresh_inode(inode, fid);
			ninep_fid_put(fid);
		}
		/* An unlinked file still open keeps its last attributes. */
		if (err && inode->i_nlink)
			return err;
	}
	ninep_fillattr(idmap, request_mask, inode, stat);
	return 0;
}

/*
 * The end of a setattr in any dialect, once the request is made: dirty
 * pages go before a size change (which holds the mapping's invalidate_lock
 * until its pages are dropped, see ninep_size_change_begin()), then @st
 * (Twstat) or @sa (Tsetattr), whichever is given, goes through the open
 * file's fid for ftruncate and the like (it may be the only one allowed
 * to) or else the caller's fid of @dentry; neither given: nothing for the
 * server. Then the inode takes the change.
 */
int ninep_setattr_finish(struct ninep_idmap *idmap, struct dentry *dentry,
			 struct iattr *iattr, const struct v9p_stat *st,
			 const struct v9p_tsetattr *sa)
{
	struct inode *inode = d_inode(dentry);
	struct ninep_fid *fid;
	bool locked;
	int err = 0;

	locked = ninep_size_change_begin(inode, iattr);
	if (st || sa) {
		if ((iattr->ia_valid & ATTR_FILE) && iattr->ia_file &&
		    iattr->ia_file->private_data)
			fid = ninep_fid_get(ninep_file_fid(iattr->ia_file));
		else
			fid = ninep_fid_lookup(dentry);
		if (IS_ERR(fid)) {
			err = PTR_ERR(fid);
			goto out;
		}
		err = st ? ninep_wstat(fid, st) : ninep_setattr(fid, sa);
		ninep_fid_put(fid);
		ninep_attr_stale(inode);
		if (err)
			goto out;
	}
	if (iattr->ia_valid & ATTR_SIZE)
		ninep_size_truncate_pages(inode, iattr->ia_size);
out:
	ninep_size_change_end(inode, locked);
	if (!err)
		setattr_copy(idmap, inode, iattr);
	return err;
}

/*
 * chmod, chown (.u numeric ids), truncate and times in one Twstat; fields
 * not being changed are "don't touch". The open fid is used for ftruncate.
 */
static int ninep_vfs_setattr(struct ninep_idmap *idmap, struct dentry *dentry,
			     struct iattr *iattr)
{
	struct inode *inode = d_inode(dentry);
	struct ninep_session *s = ninep_inode_session(inode);
	unsigned int valid = iattr->ia_valid;
	struct v9p_stat st;
	bool any = false;
	int err;

	err = setattr_prepare(idmap, dentry, iattr);
	if (err)
		return err;

	v9p_stat_dont_touch(&st);
	if (valid & ATTR_MODE) {
		st.mode = ninep_unix_to_p9mode(s, (inode->i_mode & S_IFMT) |
					      (iattr->ia_mode & ~S_IFMT));
		any = true;
	}
	if (valid & ATTR_SIZE) {
		st.length = iattr->ia_size;
		any = true;
	}
	if (valid & ATTR_MTIME) {
		st.mtime = (u32)iattr->ia_mtime.tv_sec;
		any = true;
	}
	if (valid & ATTR_ATIME) {
		st.atime = (u32)iattr->ia_atime.tv_sec;
		any = true;
	}
	if (valid & ATTR_UID) {
		if (ninep_extended(s)) {
			st.n_uid = from_kuid(&init_user_ns, iattr->ia_uid);
			any = true;
		} else if (!uid_eq(iattr->ia_uid, inode->i_uid)) {
			return -EPERM;	/* owners are names in 9P2000 */
		}
	}
	if (valid & ATTR_GID) {
		if (ninep_extended(s)) {
			st.n_gid = from_kgid(&init_user_ns, iattr->ia_gid);
			any = true;
		} else if (!gid_eq(iattr->ia_gid, inode->i_gid)) {
			return -EPERM;
		}
	}
	/* open(O_TRUNC): Topen carried OTRUNC, the server has truncated. */
	if (valid & ATTR_OPEN)
		any = false;

	return ninep_setattr_finish(idmap, dentry, iattr, any ? &st : NULL,
				    NULL);
}

/* ---- symlinks ---- */

static const char *ninep_get_link(struct dentry *dentry, struct inode *inode,
				  struct delayed_call *done)
{
	struct ninep_fid *fid;
	struct v9p_stat *st;
	char *target;

	if (!dentry)
		return ERR_PTR(-ECHILD);
	fid = ninep_fid_lookup(dentry);
	if (IS_ERR(fid))
		return ERR_CAST(fid);
	st = ninep_stat(fid);
	ninep_fid_put(fid);
	if (IS_ERR(st))
		return ERR_CAST(st);
	if (!(st->mode & V9P_DMSYMLINK)) {
		kfree(st);
		return ERR_PTR(-EINVAL);
	}
	target = kmemdup_nul(st->extension.s, st->extension.len, GFP_KERNEL);
	kfree(st);
	if (!target)
		return ERR_PTR(-ENOMEM);
	set_delayed_call(done, kfree_link, target);
	return target;
}

static const struct inode_operations ninep_dir_iops = {
	.lookup		= ninep_lookup,
	.create		= ninep_vfs_create,
	.atomic_open	= ninep_atomic_open,
	.link		= ninep_vfs_link,
	.unlink		= ninep_vfs_remove,
	.symlink	= ninep_vfs_symlink,
	.mkdir		= ninep_vfs_mkdir,
	.rmdir		= ninep_vfs_remove,
	.mknod		= ninep_vfs_mknod,
	.rename		= ninep_vfs_rename,
	.getattr	= ninep_vfs_getattr,
	.setattr	= ninep_vfs_setattr,
};

static const struct inode_operations ninep_file_iops = {
	.getattr	= ninep_vfs_getattr,
	.setattr	= ninep_vfs_setattr,
};

static const struct inode_operations ninep_symlink_iops = {
	.get_link	= ninep_get_link,
	.getattr	= ninep_vfs_getattr,
	.setattr	= ninep_vfs_setattr,
};
