// SPDX-License-Identifier: GPL-2.0-only
/*
 * POSIX ACLs of 9P2000.L mounts with posixacl (access=client only): the
 * server keeps them as the system.posix_acl_access and
 * system.posix_acl_default attributes of each file (Txattrwalk to read,
 * Txattrcreate to write); here they are cached on the inode, where
 * generic_permission() finds them, and carried along by chmod and by the
 * creation of a file in a directory with a default ACL.
 *
 * The server checks the same ACLs again for the user each fid is attached
 * as; a server that keeps none (EOPNOTSUPP) gives files no ACL here. An
 * ACL from the server is checked as one from user space would be: one
 * that Linux could not have stored is refused with EIO.
 */
#define pr_fmt(fmt) "9p2000: " fmt

#include <linux/fs.h>
#include <linux/posix_acl.h>
#include <linux/posix_acl_xattr.h>
#include <linux/slab.h>
#include <linux/xattr.h>

#include "v9fs.h"
#include "addr.h"
#include "attr.h"
#include "acl.h"
#include "xattr.h"

static const char *ninep_acl_xattr(int type)
{
	return type == ACL_TYPE_ACCESS ? XATTR_NAME_POSIX_ACL_ACCESS :
					 XATTR_NAME_POSIX_ACL_DEFAULT;
}

/* The server's ACL of @type on @dentry's file: NULL for none. */
static struct posix_acl *ninep_acl_fetch(struct dentry *dentry, int type)
{
	const char *name = ninep_acl_xattr(type);
	struct posix_acl *acl;
	struct ninep_fid *fid;
	void *value;
	ssize_t len;

	fid = ninep_fid_lookup(dentry);
	if (IS_ERR(fid))
		return ERR_CAST(fid);
	len = ninep_xattr_fetch(fid, name, &value);
	ninep_fid_put(fid);
	/* No such attribute, or an export that keeps no ACLs: none. */
	if (len == -ENODATA || len == -EOPNOTSUPP)
		return NULL;
	if (len < 0)
		return ERR_PTR(len);
	acl = len ? posix_acl_from_xattr(&init_user_ns, value, len) : NULL;
	kfree(value);
	if (!IS_ERR_OR_NULL(acl) && posix_acl_valid(&init_user_ns, acl)) {
		posix_acl_release(acl);
		acl = ERR_PTR(-EINVAL);
	}
	if (IS_ERR(acl)) {
		pr_warn_ratelimited("%s of %pd from the server is not a valid ACL (%ld): EIO\n",
				    name, dentry, PTR_ERR(acl));
		return ERR_PTR(-EIO);
	}
	return acl;
}

/*
 * ->get_inode_acl (->get_acl before 6.2): the VFS caches the answer. The
 * fid to ask with is found from a dentry of the inode: the walk that
 * reached the inode holds one, as does an open file, even unlinked.
 */
struct posix_acl *ninep_acl_get_inode(struct inode *inode, int type, bool rcu)
{
	struct posix_acl *acl;
	struct dentry *dentry;

	if (rcu)
		return ERR_PTR(-ECHILD);
	dentry = d_find_any_alias(inode);
	if (!dentry)
		return ERR_PTR(-ESTALE);
	acl = ninep_acl_fetch(dentry, type);
	dput(dentry);
	return acl;
}

/*
 * Write @acl (NULL: remove it) to the server as @dentry's ACL of @type,
 * as the caller through a mount of @idmap, then cache it. Removing an ACL
 * the server does not have is no error.
 */
static int ninep_acl_store(struct ninep_idmap *idmap, struct dentry *dentry,
			   int type, struct posix_acl *acl)
{
	const char *name = ninep_acl_xattr(type);
	struct ninep_fid *fid;
	void *value = NULL;
	size_t size = 0;
	int err;

	if (acl) {
		size = posix_acl_xattr_size(acl->a_count);
		value = kmalloc(size, GFP_KERNEL);
		if (!value)
			return -ENOMEM;
		err = posix_acl_to_xattr(&init_user_ns, acl, value, size);
		if (err < 0)
			goto out;
	}
	fid = ninep_fid_lookup_idmap(dentry, idmap);
	err = PTR_ERR_OR_ZERO(fid);
	if (err)
		goto out;
	err = ninep_xattr_store(fid, name, value, size, 0);
	ninep_fid_put(fid);
	ninep_attr_stale(d_inode(dentry));	/* its ctime */
	if (err == -ENODATA && !acl)
		err = 0;
	if (!err)
		set_cached_acl(d_inode(dentry), type, acl);
out:
	kfree(value);
	return err;
}

/*
 * Tsetattr of @inode's mode to @mode, as the caller through a mount of
 * @idmap, and the inode's mode after it.
 */
static int ninep_acl_set_mode(struct ninep_idmap *idmap, struct dentry *dentry,
			      umode_t mode)
{
	struct v9p_tsetattr sa = { .valid = V9P_SETATTR_MODE | V9P_SETATTR_CTIME };
	struct inode *inode = d_inode(dentry);
	struct ninep_fid *fid;
	int err;

	/* With the file type, as ninep_dotl_setattr() sends a mode. */
	sa.mode = mode & (S_IFMT | 07777);
	fid = ninep_fid_lookup_idmap(dentry, idmap);
	if (IS_ERR(fid))
		return PTR_ERR(fid);
	err = ninep_setattr(fid, &sa);
	ninep_fid_put(fid);
	ninep_attr_stale(inode);
	if (err)
		return err;
	inode->i_mode = mode;
	inode_set_ctime_current(inode);
	return 0;
}

/*
 * Set @dentry's ACL of @type, checked by the caller (set_posix_acl() does
 * since 6.2). An access ACL that a mode says in full becomes that mode;
 * otherwise the mode's group bits become the ACL's mask.
 */
static int ninep_acl_set_checked(struct ninep_idmap *idmap,
				 struct dentry *dentry, struct posix_acl *acl,
				 int type)
{
	struct inode *inode = d_inode(dentry);
	umode_t mode = inode->i_mode;
	int err;

	if (type == ACL_TYPE_ACCESS && acl) {
		err = posix_acl_update_mode(idmap, inode, &mode, &acl);
		if (err)
			return err;
	}
	err = ninep_acl_store(idmap, dentry, type, acl);
	if (!err && mode != inode->i_mode)
		err = ninep_acl_set_mode(idmap, dentry, mode);
	return err;
}

#if NINEP_HAVE_GET_INODE_ACL

/* ->get_acl: getxattr(2) of system.posix_acl_*, cached by the VFS. */
struct posix_acl *ninep_acl_get(struct ninep_idmap *idmap,
				struct dentry *dentry, int type)
{
	return ninep_acl_fetch(dentry, type);
}

/* ->set_acl: setxattr(2) and removexattr(2), checked by set_posix_acl(). */
int ninep_acl_set(struct ninep_idmap *idmap, struct dentry *dentry,
		  struct posix_acl *acl, int type)
{
	return ninep_acl_set_checked(idmap, dentry, acl, type);
}

#else /* !NINEP_HAVE_GET_INODE_ACL */

/*
 * Before 6.2 the system.posix_acl_* names come here through sb->s_xattr,
 * with the dentry (which ->set_acl did not get then) and unchecked: the
 * VFS leaves the system. namespace to the file system.
 */
static int ninep_acl_xattr_get(const struct xattr_handler *handler,
			       struct dentry *dentry, struct inode *inode,
			       const char *name, void *buf, size_t size)
{
	struct posix_acl *acl;
	int ret;

	if (!IS_POSIXACL(inode) || S_ISLNK(inode->i_mode))
		return -EOPNOTSUPP;
	acl = ninep_get_inode_acl(inode, handler->flags);
	if (IS_ERR(acl))
		return PTR_ERR(acl);
	if (!acl)
		return -ENODATA;
	ret = posix_acl_to_xattr(&init_user_ns, acl, buf, size);
	posix_acl_release(acl);
	return ret;
}

static int ninep_acl_xattr_set(const struct xattr_handler *handler,
			       struct ninep_idmap *idmap, struct dentry *dentry,
			       struct inode *inode, const char *name,
			       const void *value, size_t size, int flags)
{
	int type = handler->flags;
	struct posix_acl *acl;
	int err;

	if (!IS_POSIXACL(inode) || S_ISLNK(inode->i_mode))
		return -EOPNOTSUPP;
	if (!dentry)
		return -EIO;
	if (type == ACL_TYPE_DEFAULT && !S_ISDIR(inode->i_mode))
		return value ? -EACCES : 0;
	if (!inode_owner_or_capable(idmap, inode))
		return -EPERM;
	/*
	 * removexattr(2) comes as no value, which 6.1's parser refuses. The
	 * ids of a value are as the mount shows them: mapped back into the
	 * file system's here, as 6.1's own handler does.
	 */
	acl = value ? vfs_set_acl_prepare(idmap, i_user_ns(inode), value, size) :
		      NULL;
	if (IS_ERR(acl))
		return PTR_ERR(acl);
	err = acl ? posix_acl_valid(&init_user_ns, acl) : 0;
	if (!err)
		err = ninep_acl_set_checked(idmap, dentry, acl, type);
	posix_acl_release(acl);
	return err;
}

const struct xattr_handler ninep_acl_access_handler = {
	.name	= XATTR_NAME_POSIX_ACL_ACCESS,
	.flags	= ACL_TYPE_ACCESS,
	.get	= ninep_acl_xattr_get,
	.set	= ninep_acl_xattr_set,
};

const struct xattr_handler ninep_acl_default_handler = {
	.name	= XATTR_NAME_POSIX_ACL_DEFAULT,
	.flags	= ACL_TYPE_DEFAULT,
	.get	= ninep_acl_xattr_get,
	.set	= ninep_acl_xattr_set,
};

#endif /* NINEP_HAVE_GET_INODE_ACL */

/*
 * After chmod: the access ACL's mask (or group entry) follows the new
 * group bits. A Linux server has done the same to its copy already; a
 * server that keeps ACLs as plain attributes (QEMU's mapped security
 * models) has not, so the result is written back either way.
 */
int ninep_acl_chmod(struct ninep_idmap *idmap, struct dentry *dentry,
		    umode_t mode)
{
	struct inode *inode = d_inode(dentry);
	struct posix_acl *acl;
	int err;

	if (!IS_POSIXACL(inode) || S_ISLNK(inode->i_mode))
		return 0;
	acl = ninep_get_inode_acl(inode, ACL_TYPE_ACCESS);
	if (IS_ERR_OR_NULL(acl))
		return PTR_ERR_OR_ZERO(acl);
	err = __posix_acl_chmod(&acl, GFP_KERNEL, mode);
	if (err)
		return err;
	err = ninep_acl_store(idmap, dentry, ACL_TYPE_ACCESS, acl);
	posix_acl_release(acl);
	return err;
}

/*
 * Before a file is made in @dir: the mode it gets and the ACLs it
 * inherits from @dir's default ACL (none, and the umask applied, without
 * one). @mode carries the file type. ninep_acl_inherit() then releases
 * the ACLs.
 */
int ninep_acl_prepare(struct inode *dir, umode_t *mode,
		      struct ninep_acl_pair *acls)
{
	acls->dflt = NULL;
	acls->access = NULL;
	return posix_acl_create(dir, mode, &acls->dflt, &acls->access);
}

/* One inherited ACL of a new file: written to the server if there is one. */
static int ninep_acl_inherit_one(struct ninep_idmap *idmap,
				 struct dentry *dentry, int type,
				 struct posix_acl *acl)
{
	if (!acl) {
		set_cached_acl(d_inode(dentry), type, NULL);
		return 0;
	}
	return ninep_acl_store(idmap, dentry, type, acl);
}

/*
 * After @dentry was made (@err 0) with the mode ninep_acl_prepare() gave,
 * by the caller through a mount of @idmap: write the inherited ACLs to the
 * server as that maker and cache them; in any case release them. The file
 * stays if this fails: the error says its ACLs are not what they should be.
 */
int ninep_acl_inherit(struct ninep_idmap *idmap, struct dentry *dentry,
		      struct ninep_acl_pair *acls, int err)
{
	if (!err && IS_POSIXACL(d_inode(dentry))) {
		err = ninep_acl_inherit_one(idmap, dentry, ACL_TYPE_ACCESS,
					    acls->access);
		if (!err && S_ISDIR(d_inode(dentry)->i_mode))
			err = ninep_acl_inherit_one(idmap, dentry,
						    ACL_TYPE_DEFAULT,
						    acls->dflt);
	}
	posix_acl_release(acls->access);
	posix_acl_release(acls->dflt);
	return err;
}
