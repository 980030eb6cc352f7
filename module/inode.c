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
#include "addr.h"
#include "attr.h"
#include "dentry.h"

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
