// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fids of dentries, one per user. access= says who the server is told
 * is acting: the mount's one attach (any), the uid given (access=<uid>), or
 * each local fsuid (user, client), which attaches as itself the first time
 * it uses the mount. A dentry's d_fsdata is the head of an hlist of its
 * fids, at most one per uid (two while a name check's fid of a regular
 * file waits for the next open of it), guarded by d_lock; a caller of
 * ninep_fid_lookup() gets its own, found or walked from the nearest
 * ancestor that has one for it, and never another user's.
 */
#define pr_fmt(fmt) "9p2000: " fmt

#include <linux/fs.h>
#include <linux/dcache.h>
#include <linux/slab.h>
#include <linux/cred.h>

#include "v9fs.h"

static struct hlist_head *fid_head(struct dentry *dentry)
{
	BUILD_BUG_ON(sizeof(struct hlist_head) != sizeof(dentry->d_fsdata));
	return (struct hlist_head *)&dentry->d_fsdata;
}

/* The uid of the mount's own attach: its root fid's owner. */
kuid_t ninep_mount_uid(const struct ninep_session *s)
{
	return s->access == NINEP_ACCESS_SINGLE ? s->access_uid : s->uid;
}

/*
 * Whom the calling task acts as on @s, through a mount of @idmap; -EPERM
 * if it may not use it. Through an idmapped mount (access=client only, see
 * ninep_idmap_allowed()) a user acts as its fsuid mapped into the file
 * system, as the kernel's own checks take it to be; a caller that has no
 * id there acts as itself, and so does every request of an operation the
 * VFS gives no idmap (lookup, unlink, rmdir, link, readlink, reading and
 * listing xattrs), which cannot know the mount it came through: its
 * caller passed the kernel's checks with the mapped ids first, so the
 * server's checks, as the caller's own id, can only take rights away.
 */
static int ninep_caller_uid(const struct ninep_session *s,
			    struct ninep_idmap *idmap, kuid_t *uid)
{
	kuid_t mapped;

	switch (s->access) {
	case NINEP_ACCESS_ANY:
		*uid = s->uid;
		return 0;
	case NINEP_ACCESS_SINGLE:
		if (!uid_eq(current_fsuid(), s->access_uid))
			return -EPERM;
		*uid = s->access_uid;
		return 0;
	default:
		mapped = mapped_fsuid(idmap, &init_user_ns);
		*uid = uid_valid(mapped) ? mapped : current_fsuid();
		return 0;
	}
}

/*
 * The group a file made by the calling task through a mount of @idmap
 * gets: its fsgid mapped into the file system (see ninep_caller_uid()).
 */
kgid_t ninep_caller_gid(struct ninep_idmap *idmap)
{
	kgid_t mapped = mapped_fsgid(idmap, &init_user_ns);

	return gid_valid(mapped) ? mapped : current_fsgid();
}

/*
 * Tattach as @uid, which the fid then belongs to. The mount's own attach
 * sends name=; a user's own attach sends an empty name in .u and .L, where
 * the numeric id says who it is (a name would be the mounter's, not the
 * user's), as the in-tree client does.
 */
struct ninep_fid *ninep_session_attach(struct ninep_session *s, kuid_t uid,
				       struct ninep_fid *afid)
{
	bool own = uid_eq(uid, ninep_mount_uid(s));
	struct ninep_fid *fid;

	fid = ninep_attach(s->clnt, afid, own ? s->uname : "",
			   from_kuid(&init_user_ns, uid),
			   s->aname ? s->aname : "");
	if (!IS_ERR(fid))
		fid->uid = uid;
	return fid;
}

/* @dentry's fid for @uid, referenced, or NULL. */
static struct ninep_fid *fid_find(struct dentry *dentry, kuid_t uid)
{
	struct ninep_fid *fid, *found = NULL;

	spin_lock(&dentry->d_lock);
	hlist_for_each_entry(fid, fid_head(dentry), vfs_node) {
		if (uid_eq(fid->uid, uid)) {
			found = ninep_fid_get(fid);
			break;
		}
	}
	spin_unlock(&dentry->d_lock);
	return found;
}

/*
 * Give @dentry @fid (the caller's reference), unless a task of the same
 * user got there first: then that one is kept and @fid put. Returns the
 * fid the dentry holds, referenced for the caller.
 */
static struct ninep_fid *fid_insert(struct dentry *dentry,
				    struct ninep_fid *fid)
{
	struct ninep_fid *cur;

	spin_lock(&dentry->d_lock);
	hlist_for_each_entry(cur, fid_head(dentry), vfs_node) {
		if (uid_eq(cur->uid, fid->uid)) {
			ninep_fid_get(cur);
			spin_unlock(&dentry->d_lock);
			ninep_fid_put(fid);
			return cur;
		}
	}
	hlist_add_head(&fid->vfs_node, fid_head(dentry));
	ninep_fid_get(fid);
	spin_unlock(&dentry->d_lock);
	return fid;
}

/* Keep @fid (walked for @uid; the caller's reference) on @dentry. */
void ninep_dentry_keep_fid(struct dentry *dentry, struct ninep_fid *fid,
			   kuid_t uid)
{
	fid->uid = uid;
	ninep_fid_put(fid_insert(dentry, fid));
}

/*
 * A name check walked @fid (for @uid) to the regular file of @dentry: the
 * dentry keeps it beside the fid it has, at most two per user, for the
 * next open of the file (often the one the path walk is for, or the one
 * after a stat) to take as its own (ninep_fid_take_spare()) rather than
 * clone one while this one is clunked. A third is put (clunked) at once.
 */
void ninep_dentry_keep_spare(struct dentry *dentry, struct ninep_fid *fid,
			     kuid_t uid)
{
	struct ninep_fid *cur;
	unsigned int n = 0;

	fid->uid = uid;
	spin_lock(&dentry->d_lock);
	hlist_for_each_entry(cur, fid_head(dentry), vfs_node)
		if (uid_eq(cur->uid, uid))
			n++;
	if (n < 2) {
		hlist_add_head(&fid->vfs_node, fid_head(dentry));
		fid = NULL;
	}
	spin_unlock(&dentry->d_lock);
	if (fid)
		ninep_fid_put(fid);
}

/*
 * For an open of @dentry by the calling user, through a mount of @idmap:
 * a fid of the file that the dentry holds beside another of that user's
 * and that nobody uses (only the list holds it: references are taken
 * under d_lock), taken off the dentry with the list's reference. It was
 * walked to the file that the dentry's inode is, as its other fid was.
 * NULL if there is none; the open then clones the dentry's fid.
 */
struct ninep_fid *ninep_fid_take_spare(struct dentry *dentry,
				       struct ninep_idmap *idmap)
{
	struct ninep_session *s = ninep_sb_session(dentry->d_sb);
	struct ninep_fid *fid, *found = NULL;
	unsigned int n = 0;
	kuid_t uid;

	if (ninep_caller_uid(s, idmap, &uid))
		return NULL;
	spin_lock(&dentry->d_lock);
	hlist_for_each_entry(fid, fid_head(dentry), vfs_node) {
		if (!uid_eq(fid->uid, uid))
			continue;
		n++;
		if (!found && refcount_read(&fid->ref) == 1)
			found = fid;
	}
	if (n > 1 && found)
		hlist_del_init(&found->vfs_node);
	else
		found = NULL;
	spin_unlock(&dentry->d_lock);
	return found;
}

/*
 * d_release, or d_iput when the dentry loses its inode (cache=loose): the
 * dentry may still be reached then, so its fids are taken off under d_lock
 * and put (clunked) after.
 */
void ninep_dentry_put_fids(struct dentry *dentry)
{
	struct hlist_head fids;
	struct ninep_fid *fid;
	struct hlist_node *n;

	spin_lock(&dentry->d_lock);
	hlist_move_list(fid_head(dentry), &fids);
	spin_unlock(&dentry->d_lock);
	hlist_for_each_entry_safe(fid, n, &fids, vfs_node) {
		hlist_del_init(&fid->vfs_node);
		ninep_fid_put(fid);
	}
}

/* The names from below @top down to @dentry, read under rename_sem. */
struct fid_path {
	char **names;		/* names[0] is @dentry's own, outermost last */
	unsigned int n, cap;
};

static int fid_path_push(struct fid_path *p, struct dentry *d)
{
	struct name_snapshot snap;
	char **grown;
	char *name;

	if (p->n == p->cap) {
		grown = krealloc_array(p->names, p->cap + 8, sizeof(*grown),
				       GFP_KERNEL);
		if (!grown)
			return -ENOMEM;
		p->names = grown;
		p->cap += 8;
	}
	take_dentry_name_snapshot(&snap, d);
	name = kstrdup(snap.name.name, GFP_KERNEL);
	release_dentry_name_snapshot(&snap);
	if (!name)
		return -ENOMEM;
	p->names[p->n++] = name;
	return 0;
}

static void fid_path_free(struct fid_path *p)
{
	while (p->n)
		kfree(p->names[--p->n]);
	kfree(p->names);
}

/*
 * Find the nearest ancestor of @dentry (itself excluded) with a fid for
 * @uid, attaching at the root when none has one, and walk from it to
 * @dentry in one Twalk per 16 names. The new fid goes on @dentry.
 */
static struct ninep_fid *fid_walk_to(struct ninep_session *s,
				     struct dentry *dentry, kuid_t uid)
{
	struct fid_path path = {};
	struct dentry *d = dget(dentry), *parent;
	struct ninep_fid *base, *fid;
	unsigned int i;
	int err;

	down_read(&s->rename_sem);
	for (;;) {
		base = fid_find(d, uid);
		if (base)
			break;
		if (IS_ROOT(d)) {
			if (d != d->d_sb->s_root) {
				base = ERR_PTR(-ESTALE);
				goto out;
			}
			base = ninep_session_attach(s, uid, NULL);
			if (IS_ERR(base))
				goto out;
			base = fid_insert(d, base);
			break;
		}
		/* Unlinked: its name may be another file's by now. */
		err = d_unhashed(d) ? -ENOENT : fid_path_push(&path, d);
		if (err) {
			base = ERR_PTR(err);
			goto out;
		}
		parent = dget_parent(d);
		dput(d);
		d = parent;
	}
	if (!path.n)
		goto out;	/* @dentry itself: found or just attached */

	/* Outermost name first. */
	for (i = 0; i < path.n / 2; i++)
		swap(path.names[i], path.names[path.n - 1 - i]);
	fid = ninep_walk(base, path.n, (const char *const *)path.names);
	ninep_fid_put(base);
	if (IS_ERR(fid)) {
		base = fid;
		goto out;
	}
	fid->uid = uid;
	base = fid_insert(dentry, fid);
out:
	up_read(&s->rename_sem);
	dput(d);
	fid_path_free(&path);
	return base;
}

/* The caller's fid of @dentry if it holds one, referenced; else NULL. */
struct ninep_fid *ninep_fid_find(struct dentry *dentry)
{
	kuid_t uid;

	if (ninep_caller_uid(ninep_sb_session(dentry->d_sb), NINEP_NOP_IDMAP,
			     &uid))
		return NULL;
	return fid_find(dentry, uid);
}

/*
 * The caller's fid of @dentry for an operation through a mount of @idmap
 * (see ninep_caller_uid()), referenced (put it when done), or an ERR_PTR:
 * -EPERM for a user access=<uid> shuts out, -ENOENT when the name is gone
 * on the server, or what the attach or walk failed with.
 */
struct ninep_fid *ninep_fid_lookup_idmap(struct dentry *dentry,
					 struct ninep_idmap *idmap)
{
	struct ninep_session *s = ninep_sb_session(dentry->d_sb);
	struct ninep_fid *fid;
	kuid_t uid;
	int err;

	err = ninep_caller_uid(s, idmap, &uid);
	if (err)
		return ERR_PTR(err);
	fid = fid_find(dentry, uid);
	if (fid)
		return fid;
	return fid_walk_to(s, dentry, uid);
}

/* The caller's own fid of @dentry: as ninep_fid_lookup_idmap(), no idmap. */
struct ninep_fid *ninep_fid_lookup(struct dentry *dentry)
{
	return ninep_fid_lookup_idmap(dentry, NINEP_NOP_IDMAP);
}
