// SPDX-License-Identifier: GPL-2.0-only
/*
 * The 9P2000.L inode operations: one message per operation where 9P2000
 * needed Tcreate tricks and Twstat: Tlcreate, Tmkdir, Tsymlink, Tmknod,
 * Tlink, Trenameat, Tunlinkat, Tsetattr, Treadlink; O_TMPFILE under a
 * hidden name; POSIX ACLs and extended attributes (acl.c, xattr.c).
 *
 * Lookup, getattr, the halves of open(O_CREAT) around Tlcreate, the end
 * of setattr and the inode cache are shared with the other dialects
 * (namei.c); attributes from Tgetattr are applied by attr.c, fids kept
 * on dentries by fid.c: each positive dentry holds a fid per user, and
 * only cache=loose caches names beyond the dentries in use (dentry.c).
 */
#define pr_fmt(fmt) "9p2000: " fmt

#include <linux/fs.h>
#include <linux/namei.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/cred.h>
#include <linux/stat.h>
#include <linux/kdev_t.h>
#include <linux/posix_acl.h>
#include <linux/random.h>

#include "v9fs.h"
#include "addr.h"
#include "attr.h"
#include "dentry.h"
#include "file.h"
#include "inode_dotl.h"
#include "namei.h"
#include "acl.h"
#include "xattr.h"

/*
 * The parent's fid, referenced, to make @dentry's name on the server with
 * it, as the caller through a mount of @idmap (ninep_fid_lookup_idmap()):
 * the new file's owner is that fid's user. -ENAMETOOLONG for a name the
 * server may not take.
 */
static struct ninep_fid *ninep_dotl_new_name(struct dentry *dentry,
					     struct ninep_idmap *idmap)
{
	if (dentry->d_name.len > NAME_MAX)
		return ERR_PTR(-ENAMETOOLONG);
	return ninep_fid_lookup_idmap(dentry->d_parent, idmap);
}

/* The group of a file the caller makes through a mount of @idmap. */
static u32 ninep_dotl_gid(struct ninep_idmap *idmap)
{
	return from_kgid(&init_user_ns, ninep_caller_gid(idmap));
}

/*
 * Tlcreate on a clone of the parent's fid, which becomes the open file:
 * given back through @ofidp, or put when @ofidp is NULL. O_EXCL always
 * goes with it, so that an existing name is -EEXIST and never opened as
 * if it had been created.
 */
static int ninep_dotl_create_file(struct ninep_idmap *idmap, struct inode *dir,
				  struct dentry *dentry, umode_t mode,
				  unsigned int f_flags, struct ninep_fid **ofidp)
{
	struct ninep_fid *dfid = ninep_dotl_new_name(dentry, idmap);
	struct ninep_acl_pair acls;
	struct ninep_fid *ofid;
	u32 flags;
	int err;

	ninep_vfs_dbg(ninep_inode_session(dir), "%pd mode 0%o flags 0%o\n",
		      dentry, mode, f_flags);
	if (IS_ERR(dfid))
		return PTR_ERR(dfid);
	ofid = ninep_walk(dfid, 0, NULL);
	ninep_fid_put(dfid);
	if (IS_ERR(ofid))
		return PTR_ERR(ofid);
	mode = (mode & 07777) | S_IFREG;
	err = ninep_acl_prepare(dir, &mode, &acls);
	if (err) {
		ninep_fid_put(ofid);
		return err;
	}
	flags = ninep_dotl_open_flags(f_flags & ~O_TRUNC) |
		V9P_DOTL_CREATE | V9P_DOTL_EXCL;
	err = ninep_lcreate(ofid, dentry->d_name.name, flags, mode & 07777,
			    ninep_dotl_gid(idmap));
	ninep_attr_stale(dir);
	if (!err)
		err = ninep_instantiate_new(dir, dentry, idmap);
	err = ninep_acl_inherit(idmap, dentry, &acls, err);
	if (err || !ofidp)
		ninep_fid_put(ofid);
	else
		*ofidp = ofid;
	return err;
}

static int ninep_dotl_create(struct ninep_idmap *idmap, struct inode *dir,
			     struct dentry *dentry, umode_t mode, bool excl)
{
	return ninep_dotl_create_file(idmap, dir, dentry, mode, O_RDONLY, NULL);
}

/* ->atomic_open: open(O_CREAT) in one Tlcreate (see ninep_atomic_lookup()). */
static int ninep_dotl_atomic_open(struct inode *dir, struct dentry *dentry,
				  struct file *file, unsigned int flags,
				  umode_t mode)
{
	struct ninep_fid *ofid = NULL;
	struct ninep_atomic ao;
	int err;

	err = ninep_atomic_lookup(dir, dentry, file, flags, &ao);
	if (err <= 0)
		return err;
	err = ninep_dotl_create_file(ninep_file_idmap(file), dir, ao.dentry,
				     mode, ninep_cache_open_flags(dir, flags),
				     &ofid);
	return ninep_atomic_created(dir, file, flags, &ao, ofid, err);
}

static int ninep_dotl_mkdir(struct ninep_idmap *idmap, struct inode *dir,
			    struct dentry *dentry, umode_t mode)
{
	struct ninep_fid *dfid = ninep_dotl_new_name(dentry, idmap);
	struct ninep_acl_pair acls;
	int err;

	if (IS_ERR(dfid))
		return PTR_ERR(dfid);
	mode = (mode & 07777) | S_IFDIR;
	err = ninep_acl_prepare(dir, &mode, &acls);
	if (!err)
		err = ninep_mkdir(dfid, dentry->d_name.name, mode & 07777,
				  ninep_dotl_gid(idmap), NULL);
	ninep_fid_put(dfid);
	ninep_attr_stale(dir);
	if (!err)
		err = ninep_instantiate_new(dir, dentry, idmap);
	return ninep_acl_inherit(idmap, dentry, &acls, err);
}

static int ninep_dotl_symlink(struct ninep_idmap *idmap, struct inode *dir,
			      struct dentry *dentry, const char *target)
{
	struct ninep_fid *dfid = ninep_dotl_new_name(dentry, idmap);
	int err;

	if (IS_ERR(dfid))
		return PTR_ERR(dfid);
	err = ninep_symlink(dfid, dentry->d_name.name, target,
			    ninep_dotl_gid(idmap), NULL);
	ninep_fid_put(dfid);
	ninep_attr_stale(dir);
	return err ? err : ninep_instantiate_new(dir, dentry, idmap);
}

static int ninep_dotl_mknod(struct ninep_idmap *idmap, struct inode *dir,
			    struct dentry *dentry, umode_t mode, dev_t rdev)
{
	struct ninep_acl_pair acls;
	struct ninep_fid *dfid;
	int err;

	if (!ninep_dotl_type_ok(mode) || S_ISDIR(mode) || S_ISLNK(mode))
		return -EINVAL;
	dfid = ninep_dotl_new_name(dentry, idmap);
	if (IS_ERR(dfid))
		return PTR_ERR(dfid);
	err = ninep_acl_prepare(dir, &mode, &acls);
	if (!err)
		err = ninep_mknod(dfid, dentry->d_name.name,
				  mode & (S_IFMT | 07777), MAJOR(rdev),
				  MINOR(rdev), ninep_dotl_gid(idmap), NULL);
	ninep_fid_put(dfid);
	ninep_attr_stale(dir);
	if (!err)
		err = ninep_instantiate_new(dir, dentry, idmap);
	return ninep_acl_inherit(idmap, dentry, &acls, err);
}

/*
 * A server without the newer call answers EOPNOTSUPP, or "function not
 * implemented": Rlerror carries Linux's generic errno numbers, in which
 * that is 38 (spelled out here: the kernel keeps its own name of it for
 * bad system call numbers).
 */
#define NINEP_WIRE_NOSYS	38

static bool ninep_dotl_unsupported(int err)
{
	return err == -EOPNOTSUPP || err == -NINEP_WIRE_NOSYS;
}

/*
 * O_TMPFILE. 9P has no message that makes a file without a name, so an
 * O_TMPFILE is made by Tlcreate (with O_EXCL) under a hidden name of its
 * own, ".9P-tmp-" and 16 random hex digits, in the directory asked for; a
 * name already taken draws another. The file lives under that name on
 * the server, and shows in listings, while the local inode has no link.
 * Its first link renames the hidden name to the new one (Trenameat, or
 * Trename): servers that track a fid by its path (v9fsd, QEMU) move
 * the file's fids with a rename, where a Tlink and a Tunlinkat of the
 * hidden name would leave them on a name that is gone. As for a rename
 * with RENAME_NOREPLACE, EEXIST rests on the VFS's lookup of the new name:
 * a name another client makes in between is replaced. Later links are
 * plain Tlinks. A file never linked loses its hidden name when its inode
 * is evicted, after the last close; if the server cannot be reached then,
 * the name stays behind, as an NFS client's .nfs files do.
 */
#define NINEP_TMP_PREFIX	".9P-tmp-"
#define NINEP_TMP_NAME_LEN	(sizeof(NINEP_TMP_PREFIX) - 1 + 16)
#define NINEP_TMP_TRIES		8

/*
 * Tlcreate of a new hidden name in @dfid's directory on a clone of @dfid,
 * which becomes the open file: given back through @ofidp, the name
 * written into @name.
 */
static int ninep_dotl_tmp_create(struct ninep_fid *dfid, char *name,
				 u32 flags, umode_t mode, u32 gid,
				 struct ninep_fid **ofidp)
{
	struct ninep_fid *ofid;
	int i, err = -EEXIST;

	for (i = 0; i < NINEP_TMP_TRIES && err == -EEXIST; i++) {
		ofid = ninep_walk(dfid, 0, NULL);
		if (IS_ERR(ofid))
			return PTR_ERR(ofid);
		snprintf(name, NINEP_TMP_NAME_LEN + 1, NINEP_TMP_PREFIX "%016llx",
			 get_random_u64());
		err = ninep_lcreate(ofid, name, flags, mode & 07777, gid);
		if (!err) {
			*ofidp = ofid;
			return 0;
		}
		ninep_fid_put(ofid);
	}
	return err;
}

/*
 * ->tmpfile: the file is made and opened on the server under a hidden
 * name, and its inode instantiated as unlinked on @file's dentry, which
 * keeps a fid of it walked by that name (its own name, "#<ino>", is
 * nowhere on the server).
 */
static int ninep_dotl_tmpfile(struct ninep_idmap *idmap, struct inode *dir,
			      struct file *file, umode_t mode)
{
	struct dentry *dentry = file->f_path.dentry;
	unsigned int f_flags = file->f_flags;
	struct ninep_fid *dfid, *ofid, *fid;
	struct ninep_acl_pair acls;
	struct ninep_open_file *of;
	struct ninep_inode *vi;
	struct inode *inode;
	const char *wname;
	char *name;
	int err;

	f_flags &= ~(O_TMPFILE | O_CREAT | O_EXCL | O_TRUNC);
	f_flags = ninep_cache_open_flags(dir, f_flags);
	mode = (mode & 07777) | S_IFREG;
	ninep_vfs_dbg(ninep_inode_session(dir), "in %pd mode 0%o flags 0%o\n",
		      dentry->d_parent, mode, f_flags);

	of = kzalloc(sizeof(*of), GFP_KERNEL);
	name = kmalloc(NINEP_TMP_NAME_LEN + 1, GFP_KERNEL);
	if (!of || !name) {
		err = -ENOMEM;
		goto free;
	}
	dfid = ninep_fid_lookup_idmap(dentry->d_parent, idmap);
	if (IS_ERR(dfid)) {
		err = PTR_ERR(dfid);
		goto free;
	}
	err = ninep_acl_prepare(dir, &mode, &acls);
	if (err)
		goto put_dfid;
	err = ninep_dotl_tmp_create(dfid, name,
				    ninep_dotl_open_flags(f_flags) |
				    V9P_DOTL_CREATE | V9P_DOTL_EXCL,
				    mode, ninep_dotl_gid(idmap), &ofid);
	ninep_attr_stale(dir);
	if (err)
		goto release_acls;

	wname = name;
	fid = ninep_walk(dfid, 1, &wname);
	if (IS_ERR(fid)) {
		err = PTR_ERR(fid);
		goto unlink;
	}
	inode = ninep_dotl_inode_from_fid(dir->i_sb, fid, true);
	if (IS_ERR(inode)) {
		err = PTR_ERR(inode);
		ninep_fid_put(fid);
		goto unlink;
	}

	/* From here on, eviction of the inode removes the hidden name. */
	vi = NINEP_I(inode);
	vi->tmp_dfid = dfid;
	WRITE_ONCE(vi->tmp_name, name);
	set_nlink(inode, 1);	/* for d_tmpfile() to take */
	ninep_dentry_keep_fid(dentry, fid, dfid->uid);
	d_tmpfile(file, inode);
	err = ninep_acl_inherit(idmap, dentry, &acls, 0);
	if (err)
		goto put_ofid;

	of->fid = ofid;
	file->private_data = of;
	err = finish_open(file, dentry, ninep_open_created);
	if (err) {
		file->private_data = NULL;
		goto put_ofid;
	}
	return 0;

put_ofid:
	ninep_fid_put(ofid);
	kfree(of);
	return err;
unlink:
	ninep_fid_put(ofid);
	ninep_unlinkat(dfid, name, 0);
release_acls:
	ninep_acl_inherit(idmap, dentry, &acls, -ENOENT);
put_dfid:
	ninep_fid_put(dfid);
free:
	kfree(name);
	kfree(of);
	return err;
}

/*
 * The hidden name of @inode's O_TMPFILE is no longer wanted: removed from
 * the server if the file was never linked (its last reference is gone),
 * and forgotten. May sleep.
 */
void ninep_dotl_tmpfile_evict(struct inode *inode)
{
	struct ninep_session *s = ninep_inode_session(inode);
	struct ninep_inode *vi = NINEP_I(inode);
	char *name = vi->tmp_name;
	int err;

	if (!name)
		return;
	if (!inode->i_nlink && !ninep_client_dead(s->clnt)) {
		err = ninep_unlinkat(vi->tmp_dfid, name, 0);
		/* -ENOENT: someone removed it by its name already. */
		if (err && err != -ENOENT)
			pr_warn_ratelimited("O_TMPFILE's hidden name %s not removed: %d\n",
					    name, err);
	}
	WRITE_ONCE(vi->tmp_name, NULL);
	ninep_fid_put(vi->tmp_dfid);
	vi->tmp_dfid = NULL;
	kfree(name);
}

/*
 * The first link of an O_TMPFILE (see above), under the inode lock: its
 * hidden name renamed to the new one, from the fid of its directory that
 * made it. The file's own fid, needed only by a server without
 * Trenameat, is on its nameless dentry for its maker alone: through an
 * idmapped mount that is the mapped id, which ->link, told no idmap,
 * cannot find (ninep_caller_uid()), so it is looked up only then.
 */
static int ninep_dotl_link_tmp(struct dentry *old_dentry, struct inode *dir,
			       struct dentry *dentry)
{
	struct inode *inode = d_inode(old_dentry);
	struct ninep_inode *vi = NINEP_I(inode);
	struct ninep_fid *dfid, *fid;
	struct dentry *alias;
	char *name;
	int err;

	dfid = ninep_dotl_new_name(dentry, NINEP_NOP_IDMAP);
	if (IS_ERR(dfid))
		return PTR_ERR(dfid);
	err = ninep_renameat(vi->tmp_dfid, vi->tmp_name, dfid,
			     dentry->d_name.name);
	if (ninep_dotl_unsupported(err)) {
		fid = ninep_fid_lookup(old_dentry);
		err = PTR_ERR_OR_ZERO(fid);
		if (!err) {
			err = ninep_rename(fid, dfid, dentry->d_name.name);
			ninep_fid_put(fid);
		}
	}
	ninep_fid_put(dfid);
	ninep_attr_stale(dir);
	ninep_attr_stale(d_inode(old_dentry->d_parent));
	if (err)
		return err;

	name = vi->tmp_name;
	WRITE_ONCE(vi->tmp_name, NULL);
	ninep_fid_put(vi->tmp_dfid);
	vi->tmp_dfid = NULL;
	kfree(name);
	inc_nlink(inode);
	ninep_attr_stale(inode);

	alias = ninep_instantiate(dir, dentry);
	if (IS_ERR(alias))
		return PTR_ERR(alias);
	dput(alias);
	return 0;
}

/*
 * Tlink; the new name's walk finds the shared inode with its new count
 * (a directory, which a server should never answer with, is spliced and
 * gets no second dentry: see ninep_instantiate()).
 */
static int ninep_dotl_link(struct dentry *old_dentry, struct inode *dir,
			   struct dentry *dentry)
{
	struct ninep_fid *dfid, *fid;
	struct dentry *alias;
	int err;

	if (READ_ONCE(NINEP_I(d_inode(old_dentry))->tmp_name))
		return ninep_dotl_link_tmp(old_dentry, dir, dentry);
	fid = ninep_fid_lookup(old_dentry);
	if (IS_ERR(fid))
		return PTR_ERR(fid);
	dfid = ninep_dotl_new_name(dentry, NINEP_NOP_IDMAP);
	if (IS_ERR(dfid)) {
		ninep_fid_put(fid);
		return PTR_ERR(dfid);
	}
	err = ninep_link(dfid, fid, dentry->d_name.name);
	ninep_fid_put(dfid);
	ninep_fid_put(fid);
	ninep_attr_stale(dir);
	ninep_attr_stale(d_inode(old_dentry));	/* its link count */
	if (err)
		return err;
	alias = ninep_instantiate(dir, dentry);
	if (IS_ERR(alias))
		return PTR_ERR(alias);
	dput(alias);
	return 0;
}

static int ninep_dotl_remove(struct inode *dir, struct dentry *dentry,
			     u32 flags)
{
	struct ninep_fid *dfid = ninep_parent_fid(dentry);
	int err;

	if (IS_ERR(dfid))
		return PTR_ERR(dfid);
	err = ninep_unlinkat(dfid, dentry->d_name.name, flags);
	ninep_fid_put(dfid);
	if (ninep_dotl_unsupported(err))
		err = ninep_remove_dentry(dentry);
	ninep_removed(dir, dentry, err);
	return err;
}

static int ninep_dotl_unlink(struct inode *dir, struct dentry *dentry)
{
	return ninep_dotl_remove(dir, dentry, 0);
}

static int ninep_dotl_rmdir(struct inode *dir, struct dentry *dentry)
{
	return ninep_dotl_remove(dir, dentry, V9P_DOTL_AT_REMOVEDIR);
}

/*
 * Trenameat, across directories too; Trename for a server without it.
 * RENAME_NOREPLACE rests on the VFS's check that the target is negative:
 * 9P2000.L has no flag for it, so a name another client makes in between
 * is replaced. The fids are looked up before rename_sem is taken.
 */
static int ninep_dotl_rename(struct ninep_idmap *idmap, struct inode *old_dir,
			     struct dentry *old_dentry, struct inode *new_dir,
			     struct dentry *new_dentry, unsigned int flags)
{
	struct ninep_session *s = ninep_inode_session(old_dir);
	struct ninep_fid *fids[3];	/* old parent, new parent, the file */
	int i, err = 0;

	if (flags & ~RENAME_NOREPLACE)
		return -EINVAL;
	fids[0] = ninep_fid_lookup_idmap(old_dentry->d_parent, idmap);
	fids[1] = ninep_fid_lookup_idmap(new_dentry->d_parent, idmap);
	fids[2] = ninep_fid_lookup_idmap(old_dentry, idmap);
	for (i = 0; i < 3; i++)
		if (IS_ERR(fids[i]) && !err)
			err = PTR_ERR(fids[i]);
	if (err)
		goto put;

	err = down_write_killable(&s->rename_sem);
	if (err)
		goto put;
	err = ninep_renameat(fids[0], old_dentry->d_name.name, fids[1],
			     new_dentry->d_name.name);
	if (ninep_dotl_unsupported(err))
		err = ninep_rename(fids[2], fids[1], new_dentry->d_name.name);
	ninep_rename_stale(old_dir, new_dir, old_dentry, new_dentry);
	if (!err)
		ninep_renamed(old_dentry, new_dentry);
	up_write(&s->rename_sem);
put:
	for (i = 0; i < 3; i++)
		if (!IS_ERR(fids[i]))
			ninep_fid_put(fids[i]);
	return err;
}

static void ninep_dotl_set_time(u32 *valid, u32 bit, u32 set_bit,
				bool explicit, struct timespec64 ts,
				u64 *sec, u64 *nsec)
{
	*valid |= bit;
	if (explicit) {
		*valid |= set_bit;
		*sec = (u64)ts.tv_sec;
		*nsec = ts.tv_nsec;
	}
}

/*
 * chmod, chown, truncate and times in one Tsetattr. A time without its
 * _SET flag is "now" on the server's clock, as utimensat(UTIME_NOW). A
 * new owner comes as seen through the mount (@idmap) and goes to the
 * server as the file system's id.
 */
static int ninep_dotl_setattr(struct ninep_idmap *idmap, struct dentry *dentry,
			      struct iattr *iattr)
{
	struct user_namespace *fs_userns = i_user_ns(d_inode(dentry));
	unsigned int valid = iattr->ia_valid;
	struct v9p_tsetattr sa = {};
	int err;

	if (ninep_idmap_refused(d_inode(dentry), idmap))
		return -EOPNOTSUPP;
	err = setattr_prepare(idmap, dentry, iattr);
	if (err)
		return err;

	if (valid & ATTR_MODE) {
		sa.valid |= V9P_SETATTR_MODE;
		/*
		 * With the file type, as Linux's client sends it: QEMU's
		 * mapped-xattr export stores the mode as given, and a mode
		 * without its type makes the file no type at all there.
		 */
		sa.mode = iattr->ia_mode & (S_IFMT | 07777);
	}
	if (valid & ATTR_UID) {
		sa.valid |= V9P_SETATTR_UID;
		sa.uid = from_kuid(&init_user_ns,
				   from_vfsuid(idmap, fs_userns, iattr->ia_vfsuid));
	}
	if (valid & ATTR_GID) {
		sa.valid |= V9P_SETATTR_GID;
		sa.gid = from_kgid(&init_user_ns,
				   from_vfsgid(idmap, fs_userns, iattr->ia_vfsgid));
	}
	if (valid & ATTR_SIZE) {
		sa.valid |= V9P_SETATTR_SIZE;
		sa.size = iattr->ia_size;
	}
	if (valid & ATTR_ATIME)
		ninep_dotl_set_time(&sa.valid, V9P_SETATTR_ATIME,
				    V9P_SETATTR_ATIME_SET, valid & ATTR_ATIME_SET,
				    iattr->ia_atime, &sa.atime_sec, &sa.atime_nsec);
	if (valid & ATTR_MTIME)
		ninep_dotl_set_time(&sa.valid, V9P_SETATTR_MTIME,
				    V9P_SETATTR_MTIME_SET, valid & ATTR_MTIME_SET,
				    iattr->ia_mtime, &sa.mtime_sec, &sa.mtime_nsec);
	if (valid & ATTR_CTIME)
		sa.valid |= V9P_SETATTR_CTIME;
	/* open(O_TRUNC): Tlopen carried the flag, the server has truncated. */
	if (valid & ATTR_OPEN)
		sa.valid = 0;

	err = ninep_setattr_finish(idmap, dentry, iattr, NULL,
				   sa.valid ? &sa : NULL);
	if (err || !(valid & ATTR_MODE))
		return err;
	return ninep_acl_chmod(idmap, dentry, d_inode(dentry)->i_mode);
}

static const char *ninep_dotl_get_link(struct dentry *dentry,
				       struct inode *inode,
				       struct delayed_call *done)
{
	struct ninep_fid *fid;
	char *target;

	if (!dentry)
		return ERR_PTR(-ECHILD);
	fid = ninep_fid_lookup(dentry);
	if (IS_ERR(fid))
		return ERR_CAST(fid);
	target = ninep_readlink(fid);
	ninep_fid_put(fid);
	if (IS_ERR(target))
		return target;
	set_delayed_call(done, kfree_link, target);
	return target;
}

/* ACLs (posixacl): the VFS asks only when the mount has SB_POSIXACL. */
#if NINEP_HAVE_GET_INODE_ACL
#define NINEP_DOTL_ACL_OPS				\
	.get_inode_acl	= ninep_acl_get_inode,		\
	.get_acl	= ninep_acl_get,		\
	.set_acl	= ninep_acl_set,
#else
#define NINEP_DOTL_ACL_OPS				\
	.get_acl	= ninep_acl_get_inode,
#endif

static const struct inode_operations ninep_dotl_dir_iops = {
	.lookup		= ninep_lookup,
	.create		= ninep_dotl_create,
	.atomic_open	= ninep_dotl_atomic_open,
	.link		= ninep_dotl_link,
	.unlink		= ninep_dotl_unlink,
	.symlink	= ninep_dotl_symlink,
	.mkdir		= ninep_dotl_mkdir,
	.rmdir		= ninep_dotl_rmdir,
	.mknod		= ninep_dotl_mknod,
	.rename		= ninep_dotl_rename,
	.tmpfile	= ninep_dotl_tmpfile,
	.getattr	= ninep_vfs_getattr,
	.setattr	= ninep_dotl_setattr,
	NINEP_PERMISSION_OP
	.listxattr	= ninep_listxattr,
	NINEP_DOTL_ACL_OPS
};

static const struct inode_operations ninep_dotl_file_iops = {
	.getattr	= ninep_vfs_getattr,
	.setattr	= ninep_dotl_setattr,
	NINEP_PERMISSION_OP
	.listxattr	= ninep_listxattr,
	NINEP_DOTL_ACL_OPS
};

static const struct inode_operations ninep_dotl_symlink_iops = {
	.get_link	= ninep_dotl_get_link,
	.getattr	= ninep_vfs_getattr,
	.setattr	= ninep_dotl_setattr,
	NINEP_PERMISSION_OP
	.listxattr	= ninep_listxattr,
};

const struct ninep_iops ninep_dotl_iops = {
	.dir		= &ninep_dotl_dir_iops,
	.file		= &ninep_dotl_file_iops,
	.symlink	= &ninep_dotl_symlink_iops,
	.file_fops	= &ninep_dotl_file_fops,
};
