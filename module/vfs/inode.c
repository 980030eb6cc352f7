// SPDX-License-Identifier: GPL-2.0-only
/*
 * The inode operations of 9P2000 and 9P2000.u mounts: Tcreate (create and
 * open at once, with the .u extension string for links, symlinks and
 * special files), Tremove, renames and every change of attributes by
 * Twstat, symlinks read from the stat's extension. What the dialects
 * share (lookup, the inode cache, getattr, the bookkeeping after a
 * remove or a rename) is namei.c's; attributes come in through attr.c.
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
#include "file.h"
#include "inode.h"
#include "namei.h"

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

/* Tcreate of a regular file, opened with the open(2) @flags. */
static int ninep_create_open(struct inode *dir, struct dentry *dentry,
			     umode_t mode, unsigned int flags,
			     struct ninep_fid **ofidp)
{
	return ninep_create_common(dir, dentry, (mode & ~S_IFMT) | S_IFREG, 0,
				  ninep_open_mode(flags) & ~V9P_OTRUNC, NULL, 0,
				  NULL, ofidp);
}

/* ->atomic_open: open(O_CREAT) in one Tcreate (see ninep_atomic_lookup()). */
static int ninep_vfs_atomic_open(struct inode *dir, struct dentry *dentry,
				 struct file *file, unsigned int flags,
				 umode_t mode)
{
	struct ninep_fid *ofid = NULL;
	struct ninep_atomic ao;
	int err;

	err = ninep_atomic_lookup(dir, dentry, file, flags, &ao);
	if (err <= 0)
		return err;
	err = ninep_create_open(dir, ao.dentry, mode,
				ninep_cache_open_flags(dir, flags), &ofid);
	return ninep_atomic_created(dir, file, flags, &ao, ofid, err);
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

	if (ninep_idmap_refused(inode, idmap))
		return -EOPNOTSUPP;
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
	.atomic_open	= ninep_vfs_atomic_open,
	.link		= ninep_vfs_link,
	.unlink		= ninep_vfs_remove,
	.symlink	= ninep_vfs_symlink,
	.mkdir		= ninep_vfs_mkdir,
	.rmdir		= ninep_vfs_remove,
	.mknod		= ninep_vfs_mknod,
	.rename		= ninep_vfs_rename,
	.getattr	= ninep_vfs_getattr,
	.setattr	= ninep_vfs_setattr,
	NINEP_PERMISSION_OP
};

static const struct inode_operations ninep_file_iops = {
	.getattr	= ninep_vfs_getattr,
	.setattr	= ninep_vfs_setattr,
	NINEP_PERMISSION_OP
};

static const struct inode_operations ninep_symlink_iops = {
	.get_link	= ninep_get_link,
	.getattr	= ninep_vfs_getattr,
	.setattr	= ninep_vfs_setattr,
	NINEP_PERMISSION_OP
};

const struct ninep_iops ninep_9p2000_iops = {
	.dir		= &ninep_dir_iops,
	.file		= &ninep_file_iops,
	.symlink	= &ninep_symlink_iops,
	.file_fops	= &ninep_file_fops,
};
