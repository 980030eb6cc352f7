// SPDX-License-Identifier: GPL-2.0-only
/*
 * Extended attributes of 9P2000.L mounts: the user., trusted. and security.
 * namespaces through Txattrwalk (get, list: the value is read from the new
 * fid) and Txattrcreate (set, remove: the value is written to the fid and
 * committed by the server at clunk, whose answer is the call's).
 *
 * The VFS has checked names, sizes and permissions (trusted. needs
 * CAP_SYS_ADMIN) before a handler runs; the server's answers are checked
 * here. 9P has no removal message: a Txattrcreate of size 0 makes QEMU,
 * diod and v9fsd remove the attribute at clunk, whatever its flags, so
 * removexattr(2) is sent that way, and so, necessarily, is a set of an
 * empty value, which on those servers removes the attribute too.
 */
#define pr_fmt(fmt) "9p2000: " fmt

#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <linux/xattr.h>

#include "v9fs.h"
#include "attr.h"
#include "xattr.h"

/* Read all @len bytes that @xfid (from Txattrwalk) holds into @buf. */
static int xattr_read(struct ninep_fid *xfid, void *buf, size_t len)
{
	struct kvec kv = { .iov_base = buf, .iov_len = len };
	struct iov_iter to;
	ssize_t n;

	iov_iter_kvec(&to, ITER_DEST, &kv, 1, len);
	n = ninep_read(xfid, 0, &to, len);
	if (n < 0)
		return n;
	if (n != len) {
		pr_warn_ratelimited("attribute of %zu bytes read as %zd: EIO\n",
				    len, n);
		return -EIO;
	}
	return 0;
}

/*
 * As getxattr(2) on the file of @fid: the attribute @name, or the list of
 * names if @name is "", into @buf of @size bytes; only its length if @size
 * is 0; -ERANGE if @size is too small. With @allocp, into a buffer of the
 * attribute's length allocated here and given back through @allocp (the
 * caller kfrees it), @buf and @size unused.
 */
static ssize_t xattr_get(struct ninep_fid *fid, const char *name, void *buf,
			 size_t size, void **allocp)
{
	bool list = !*name;
	struct ninep_fid *xfid;
	ssize_t ret;
	u64 len;

	xfid = ninep_xattrwalk(fid, name, &len);
	if (IS_ERR(xfid))
		return PTR_ERR(xfid);
	if (len > (list ? XATTR_LIST_MAX : XATTR_SIZE_MAX)) {
		/* No Linux file holds that much: a server bug or worse. */
		pr_warn_ratelimited("Rxattrwalk gives %s%s %llu bytes, above the %u Linux allows: EIO\n",
				    list ? "the name list" : "attribute ",
				    name, len,
				    list ? XATTR_LIST_MAX : XATTR_SIZE_MAX);
		ret = -EIO;
		goto out;
	}
	if (allocp) {
		buf = kmalloc(len ? len : 1, GFP_KERNEL);
		if (!buf) {
			ret = -ENOMEM;
			goto out;
		}
	} else if (!size) {
		ret = len;
		goto out;
	} else if (len > size) {
		ret = -ERANGE;
		goto out;
	}
	ret = len ? xattr_read(xfid, buf, len) : 0;
	if (!ret && list && len && ((char *)buf)[len - 1]) {
		pr_warn_ratelimited("attribute name list of %llu bytes does not end in NUL: EIO\n",
				    len);
		ret = -EIO;
	}
	if (!ret)
		ret = len;
	if (allocp) {
		if (ret < 0)
			kfree(buf);
		else
			*allocp = buf;
	}
out:
	/* A read-only fid: nothing to commit, no answer to wait for. */
	ninep_fid_put(xfid);
	return ret;
}

/* The attribute @name of @fid's file in a kmalloc'ed *@valuep: its length. */
ssize_t ninep_xattr_fetch(struct ninep_fid *fid, const char *name,
			  void **valuep)
{
	return xattr_get(fid, name, NULL, 0, valuep);
}

static int xattr_write(struct ninep_fid *xfid, const void *value, size_t size)
{
	struct kvec kv = { .iov_base = (void *)value, .iov_len = size };
	struct iov_iter from;
	ssize_t n;

	iov_iter_kvec(&from, ITER_SOURCE, &kv, 1, size);
	/* Chunks in order, one at a time: a length of 0 says so. */
	n = ninep_write(xfid, 0, &from, 0);
	if (n < 0)
		return n;
	if (n != size) {
		pr_warn_ratelimited("attribute of %zu bytes written as %zd: EIO\n",
				    size, n);
		return -EIO;
	}
	return 0;
}

/*
 * As setxattr(2) on the file of @fid; @value NULL removes. A clone of @fid
 * becomes the attribute's fid, so @fid itself stays as it was.
 */
int ninep_xattr_store(struct ninep_fid *fid, const char *name,
		      const void *value, size_t size, int flags)
{
	struct ninep_fid *xfid;
	u32 wflags = 0;
	int err, cerr;

	if (flags & XATTR_CREATE)
		wflags |= V9P_XATTR_CREATE;
	if (flags & XATTR_REPLACE)
		wflags |= V9P_XATTR_REPLACE;
	if (!value)
		size = 0;
	xfid = ninep_walk(fid, 0, NULL);
	if (IS_ERR(xfid))
		return PTR_ERR(xfid);
	err = ninep_xattrcreate(xfid, name, size, wflags);
	if (err) {
		/* Still a plain fid on the server. */
		ninep_fid_put(xfid);
		return err;
	}
	if (size)
		err = xattr_write(xfid, value, size);
	/* The server commits (or refuses) the value now. */
	cerr = ninep_fid_clunk(xfid);
	return err ? err : cerr;
}

/* The caller's fid of @dentry, referenced. */
static struct ninep_fid *xattr_dentry_fid(struct dentry *dentry)
{
	return dentry ? ninep_fid_lookup(dentry) : ERR_PTR(-EIO);
}

static int ninep_xattr_get(const struct xattr_handler *handler,
			   struct dentry *dentry, struct inode *inode,
			   const char *name, void *buf, size_t size)
{
	struct ninep_fid *fid = xattr_dentry_fid(dentry);
	int err;

	if (IS_ERR(fid))
		return PTR_ERR(fid);
	err = xattr_get(fid, xattr_full_name(handler, name), buf, size, NULL);
	ninep_fid_put(fid);
	return err;
}

/* As the caller through a mount of @idmap (ninep_fid_lookup_idmap()). */
static int ninep_xattr_set(const struct xattr_handler *handler,
			   struct ninep_idmap *idmap, struct dentry *dentry,
			   struct inode *inode, const char *name,
			   const void *value, size_t size, int flags)
{
	struct ninep_fid *fid = dentry ? ninep_fid_lookup_idmap(dentry, idmap) :
					 ERR_PTR(-EIO);
	int err;

	if (IS_ERR(fid))
		return PTR_ERR(fid);
	err = ninep_xattr_store(fid, xattr_full_name(handler, name), value,
				size, flags);
	ninep_fid_put(fid);
	ninep_attr_stale(inode);	/* its ctime */
	return err;
}

ssize_t ninep_listxattr(struct dentry *dentry, char *list, size_t size)
{
	struct ninep_session *s = ninep_sb_session(dentry->d_sb);
	struct ninep_fid *fid;
	ssize_t n;

	if (s->flags & NINEP_NOXATTR)
		return -EOPNOTSUPP;
	fid = ninep_fid_lookup(dentry);
	if (IS_ERR(fid))
		return PTR_ERR(fid);
	n = xattr_get(fid, "", list, size, NULL);
	ninep_fid_put(fid);
	return n;
}

const struct xattr_handler ninep_xattr_user = {
	.prefix	= XATTR_USER_PREFIX,
	.get	= ninep_xattr_get,
	.set	= ninep_xattr_set,
};

const struct xattr_handler ninep_xattr_trusted = {
	.prefix	= XATTR_TRUSTED_PREFIX,
	.get	= ninep_xattr_get,
	.set	= ninep_xattr_set,
};

const struct xattr_handler ninep_xattr_security = {
	.prefix	= XATTR_SECURITY_PREFIX,
	.get	= ninep_xattr_get,
	.set	= ninep_xattr_set,
};
