// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the inode operations of every dialect share (inode.c for 9P2000
 * and .u, inode_dotl.c for .L): the inode cache, inodes found or made by
 * qid, lookup and the instantiation of new names, the two halves of
 * open(O_CREAT) around each dialect's create message, the bookkeeping
 * after a remove or a rename, getattr and the end of setattr.
 *
 * Each positive dentry holds a fid per user that used it (fid.c); open
 * files clone the opener's. An inode gets the operations of its
 * session's dialect (ninep_session.iops), chosen once at mount.
 */
#define pr_fmt(fmt) "9p2000: " fmt

#include <linux/fs.h>
#include <linux/namei.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/cred.h>
#include <linux/stat.h>

#include "v9fs.h"
#include "addr.h"
#include "attr.h"
#include "dentry.h"
#include "dir.h"
#include "file.h"
#include "namei.h"

static struct kmem_cache *ninep_inode_cachep;

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
			inode->i_op = s->iops->dir;
			inode->i_fop = &ninep_dir_fops;
			break;
		case S_IFREG:
			inode->i_op = s->iops->file;
			inode->i_fop = s->iops->file_fops;
			break;
		case S_IFLNK:
			inode->i_op = s->iops->symlink;
			break;
		default:
			inode->i_op = s->iops->file;
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

/* The inode of the file @fid is on, from one Tgetattr (see ninep_iget()). */
struct inode *ninep_dotl_inode_from_fid(struct super_block *sb,
					struct ninep_fid *fid, bool created)
{
	struct v9p_rgetattr ga;
	dev_t rdev = 0;
	int err;

	err = ninep_getattr(fid, NINEP_DOTL_MASK, &ga);
	if (!err)
		err = ninep_dotl_check(&ga);
	if (err)
		return ERR_PTR(err);
	if (S_ISCHR(ga.mode) || S_ISBLK(ga.mode))
		ninep_dotl_rdev(ga.rdev, &rdev);
	return ninep_iget(sb, &ga.qid, ga.mode, rdev, NULL, &ga, created);
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
 * before it becomes visible. The fid is the caller's through a mount of
 * @idmap (ninep_fid_lookup_idmap()). A name that is not there is -ENOENT.
 * The dentry's d_time is set first, for the positive or negative dentry
 * this makes.
 */
static struct inode *ninep_walk_dentry(struct inode *dir, struct dentry *dentry,
				       bool created, struct ninep_idmap *idmap)
{
	struct ninep_attr_stamp stamp;
	struct ninep_fid *dfid;
	struct ninep_fid *fid;
	struct inode *inode;
	kuid_t uid;

	ninep_attr_stamp(ninep_inode_session(dir), &stamp);
	ninep_dentry_fresh(dentry, stamp.when);
	dfid = ninep_fid_lookup_idmap(dentry->d_parent, idmap);
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

	inode = ninep_walk_dentry(dir, dentry, false, NINEP_NOP_IDMAP);
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
 * Tlcreate, Tmkdir, Tsymlink, Tmknod) through a mount of @idmap, as its
 * maker, and make the negative @dentry positive with an inode of its own
 * (ninep_iget(), @created).
 */
int ninep_instantiate_new(struct inode *dir, struct dentry *dentry,
			  struct ninep_idmap *idmap)
{
	struct inode *inode = ninep_walk_dentry(dir, dentry, true, idmap);

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
	struct inode *inode = ninep_walk_dentry(dir, dentry, false,
						NINEP_NOP_IDMAP);

	if (IS_ERR(inode))
		return ERR_CAST(inode);
	if (!S_ISDIR(inode->i_mode)) {
		d_instantiate(dentry, inode);
		return NULL;
	}
	d_drop(dentry);
	return d_splice_alias(inode, dentry);
}

/* finish_open() callback for a file the create message already opened. */
int ninep_open_created(struct inode *inode, struct file *file)
{
	ninep_fscache_open(inode, file);
	return 0;
}

/*
 * The first half of ->atomic_open in every dialect: open(O_CREAT) makes
 * the file in one create message (Tcreate, Tlcreate in .L), sent by the
 * dialect between the two halves. A name not looked up yet is looked up
 * here; an open that creates nothing ends here. 1 if the caller is to
 * create @ao->dentry and hand the answer to ninep_atomic_created(), else
 * what ->atomic_open returns. The open file is allocated before the
 * create, so that no file is made that could not then be opened.
 */
int ninep_atomic_lookup(struct inode *dir, struct dentry *dentry,
			struct file *file, unsigned int flags,
			struct ninep_atomic *ao)
{
	struct dentry *res = NULL;

	if (d_in_lookup(dentry)) {
		res = ninep_lookup(dir, dentry, 0);
		if (IS_ERR(res))
			return PTR_ERR(res);
		if (res)
			dentry = res;
	}
	if (!(flags & O_CREAT) || d_really_is_positive(dentry))
		return finish_no_open(file, res);

	ao->of = kzalloc(sizeof(*ao->of), GFP_KERNEL);
	if (!ao->of) {
		dput(res);
		return -ENOMEM;
	}
	ao->dentry = dentry;
	ao->res = res;
	return 1;
}

/*
 * The second half: @err is the create message's answer and @ofid, if it
 * made the file, the new open fid. If the name turns out to exist
 * (another client made it since our lookup) and O_EXCL is not set, the
 * existing file is instantiated and opened the ordinary way.
 */
int ninep_atomic_created(struct inode *dir, struct file *file,
			 unsigned int flags, struct ninep_atomic *ao,
			 struct ninep_fid *ofid, int err)
{
	struct ninep_open_file *of = ao->of;
	struct dentry *dentry = ao->dentry;
	struct dentry *res = ao->res;
	struct dentry *alias;

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
 * ->getattr of every dialect: the attributes of the last reply while they
 * are trusted (ninep_attr_cached()), else one Tstat or Tgetattr; the
 * owners as @idmap shows them.
 */
int ninep_vfs_getattr(struct ninep_idmap *idmap, const struct path *path,
		      struct kstat *stat, u32 request_mask,
		      unsigned int query_flags)
{
	struct dentry *dentry = path->dentry;
	struct inode *inode = d_inode(dentry);
	struct ninep_fid *fid;
	int err;

	if (ninep_idmap_refused(inode, idmap))
		return -EOPNOTSUPP;
	if (!(query_flags & AT_STATX_DONT_SYNC) &&
	    !ninep_attr_cached(inode, query_flags)) {
		ninep_getattr_write_back(inode);
		fid = ninep_fid_lookup_idmap(dentry, idmap);
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
 * to) or else the caller's fid of @dentry through a mount of @idmap;
 * neither given: nothing for the server. Then the inode takes the change.
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
			fid = ninep_fid_lookup_idmap(dentry, idmap);
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

#if !NINEP_HAVE_SB_NOIDMAP
/*
 * ->permission of every dialect where the VFS cannot be told that a
 * superblock refuses idmapped mounts (see ninep_idmap_refused()); else the
 * VFS's own check, which this replaces. Never sleeps: RCU path walks
 * call it.
 */
int ninep_permission(struct ninep_idmap *idmap, struct inode *inode, int mask)
{
	if (ninep_idmap_refused(inode, idmap))
		return -EOPNOTSUPP;
	return generic_permission(idmap, inode, mask);
}
#endif
