// SPDX-License-Identifier: GPL-2.0-only
/*
 * Attributes of 9P inodes: a stat record (9P2000, .u) or an Rgetattr
 * (.L) checked and applied to an inode, the size kept against the bytes
 * still on their way to the server, and the attribute cache of
 * cache=loose: getattr trusts the last reply for actimeo seconds unless
 * this client changed the file since (ninep_attr_cached()).
 *
 * Everything in an Rgetattr or a stat is the server's word:
 * ninep_dotl_check() and ninep_stat_check() refuse a reply whose file
 * type, times, size or device are not ones a Linux inode can hold, before
 * any of it reaches an inode.
 */
#define pr_fmt(fmt) "9p2000: " fmt

#include <linux/fs.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/stat.h>
#include <linux/kdev_t.h>
#include <linux/posix_acl.h>

#include "v9fs.h"
#include "attr.h"

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
umode_t ninep_stat_mode(const struct ninep_session *s,
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
int ninep_stat_check(const struct ninep_session *s, const struct v9p_stat *st)
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

/*
 * A wire rdev is a user-space dev_t (glibc's encoding): 12 bits of major
 * and 20 of minor fit a kernel dev_t; more does not. 0 or -EIO.
 */
int ninep_dotl_rdev(u64 wire, dev_t *rdev)
{
	u64 major = ((wire >> 8) & 0xfff) | ((wire >> 32) & ~0xfffULL);
	u64 minor = (wire & 0xff) | ((wire >> 12) & ~0xffULL);

	if (major > MAJOR(~0U) || minor > MINOR(~0U))
		return -EIO;
	*rdev = MKDEV((u32)major, (u32)minor);
	return 0;
}

/*
 * Whether an Rgetattr can be applied: a known file type, nanoseconds
 * below a second, a size an inode holds and a device a dev_t holds.
 * Logs what is wrong; 0 or -EIO.
 */
int ninep_dotl_check(const struct v9p_rgetattr *ga)
{
	const char *bad = NULL;
	dev_t rdev;

	if (!(ga->valid & V9P_GETATTR_MODE))
		bad = "no mode";
	else if (!ninep_dotl_type_ok(ga->mode) || (ga->mode & ~(u32)(S_IFMT | 07777)))
		bad = "a mode of no known file type";
	else if (ga->atime_nsec >= NSEC_PER_SEC || ga->mtime_nsec >= NSEC_PER_SEC ||
		 ga->ctime_nsec >= NSEC_PER_SEC)
		bad = "a time with a second or more of nanoseconds";
	else if (ga->size > MAX_LFS_FILESIZE)
		bad = "a size beyond what a file may hold";
	else if (ninep_dotl_rdev(ga->rdev, &rdev))
		bad = "a device number a dev_t cannot hold";
	if (!bad)
		return 0;
	pr_warn_ratelimited("Rgetattr of qid %llx has %s (mode 0%o): EIO\n",
			    ga->qid.path, bad, ga->mode);
	return -EIO;
}

/*
 * Whether the ACLs cached on @inode may no longer be the server's: a
 * change of ACL on a Linux server changes the file's ctime (and often its
 * mode), so a new ctime or mode, or no ctime at all, says so.
 */
static bool ninep_dotl_acl_stale(struct inode *inode,
				 const struct v9p_rgetattr *ga)
{
	struct timespec64 ct = inode_get_ctime(inode);

	return !(ga->valid & V9P_GETATTR_CTIME) ||
	       (inode->i_mode & 07777) != (ga->mode & 07777) ||
	       ct.tv_sec != (s64)ga->ctime_sec || ct.tv_nsec != ga->ctime_nsec;
}

/*
 * Apply a checked Rgetattr to @inode. As in ninep_stat_to_inode(), the file
 * type of an existing inode never changes here.
 */
void ninep_getattr_to_inode(struct inode *inode, const struct v9p_rgetattr *ga,
			    long gen)
{
	struct ninep_session *s = ninep_inode_session(inode);
	umode_t type = inode->i_mode & S_IFMT;
	struct timespec64 ts;
	kuid_t uid;
	kgid_t gid;

	if (!type)
		type = ga->mode & S_IFMT;
	if (IS_POSIXACL(inode) && ninep_dotl_acl_stale(inode, ga))
		forget_all_cached_acls(inode);
	inode->i_mode = type | (ga->mode & 07777);
	if (ga->valid & V9P_GETATTR_UID) {
		uid = make_kuid(&init_user_ns, ga->uid);
		inode->i_uid = uid_valid(uid) ? uid : s->uid;
	}
	if (ga->valid & V9P_GETATTR_GID) {
		gid = make_kgid(&init_user_ns, ga->gid);
		inode->i_gid = gid_valid(gid) ? gid : s->gid;
	}
	/* An unlinked O_TMPFILE keeps no link, whatever its hidden name has. */
	if ((ga->valid & V9P_GETATTR_NLINK) && !READ_ONCE(NINEP_I(inode)->tmp_name))
		set_nlink(inode, min_t(u64, ga->nlink, U32_MAX));
	if (ga->valid & V9P_GETATTR_ATIME) {
		ts.tv_sec = (s64)ga->atime_sec;
		ts.tv_nsec = ga->atime_nsec;
		ninep_set_atime(inode, ts);
	}
	if (ga->valid & V9P_GETATTR_MTIME) {
		ts.tv_sec = (s64)ga->mtime_sec;
		ts.tv_nsec = ga->mtime_nsec;
		ninep_set_mtime(inode, ts);
	}
	if (ga->valid & V9P_GETATTR_CTIME) {
		ts.tv_sec = (s64)ga->ctime_sec;
		ts.tv_nsec = ga->ctime_nsec;
		inode_set_ctime_to_ts(inode, ts);
	}
	if ((ga->valid & V9P_GETATTR_SIZE) && !S_ISDIR(inode->i_mode))
		ninep_i_size_refresh(inode, ga->size, gen);
	if (ga->valid & V9P_GETATTR_BLOCKS)
		inode->i_blocks = ga->blocks;
	NINEP_I(inode)->qid.version = ga->qid.version;
}

/* Before the Tgetattr of @af is sent: what its reply is applied by. */
static void ninep_fetch_begin(struct inode *inode, struct ninep_attr_fetch *af)
{
	af->gen = ninep_size_gen(inode);
	ninep_attr_stamp(ninep_inode_session(inode), &af->stamp);
}

/* The reply of @af's Tgetattr (or its error), checked, applied to @inode. */
int ninep_dotl_fetched(struct inode *inode, struct ninep_attr_fetch *af)
{
	int err = af->err ?: ninep_dotl_check(&af->ga);

	if (err)
		return err;
	ninep_getattr_to_inode(inode, &af->ga, af->gen);
	ninep_attr_fetched(inode, &af->stamp);
	return 0;
}

/* Tgetattr on @fid, checked, applied to @inode. */
int ninep_dotl_refresh(struct inode *inode, struct ninep_fid *fid)
{
	struct ninep_attr_fetch af;

	ninep_fetch_begin(inode, &af);
	af.err = ninep_getattr(fid, NINEP_DOTL_MASK, &af.ga);
	return ninep_dotl_fetched(inode, &af);
}

/*
 * Tlopen of @fid, a fid of @inode, with the Tgetattr of @af beside it (see
 * ninep_lopen_getattr()); the reply is for ninep_dotl_fetched() to apply.
 */
int ninep_dotl_lopen_fetch(struct inode *inode, struct ninep_fid *fid,
			   u32 flags, struct ninep_attr_fetch *af)
{
	ninep_fetch_begin(inode, af);
	return ninep_lopen_getattr(fid, flags, NINEP_DOTL_MASK, &af->ga,
				   &af->err);
}

/*
 * Twalk of @name from @dfid with a Tgetattr of @fid, a fid of @inode,
 * beside it (see ninep_walk_getattr()); the reply is for
 * ninep_dotl_fetched() to apply.
 */
struct ninep_fid *ninep_dotl_walk_fetch(struct inode *inode,
					struct ninep_fid *dfid,
					const char *name, struct ninep_fid *fid,
					struct ninep_attr_fetch *af)
{
	ninep_fetch_begin(inode, af);
	return ninep_walk_getattr(dfid, name, fid, NINEP_DOTL_MASK, &af->ga,
				  &af->err);
}

/*
 * Twalk of @name from @dfid with a Tlopen of @fid, a fid of @inode, and the
 * Tgetattr of @af beside it (see ninep_walk_lopen_getattr()); *@lerr is the
 * Tlopen's answer. The reply is for ninep_dotl_fetched() to apply, once the
 * walk said the name still means @inode's file.
 */
struct ninep_fid *ninep_dotl_walk_lopen_fetch(struct inode *inode,
					      struct ninep_fid *dfid,
					      const char *name,
					      struct ninep_fid *fid, u32 flags,
					      int *lerr,
					      struct ninep_attr_fetch *af)
{
	ninep_fetch_begin(inode, af);
	return ninep_walk_lopen_getattr(dfid, name, fid, flags, lerr,
					NINEP_DOTL_MASK, &af->ga, &af->err);
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
