// SPDX-License-Identifier: GPL-2.0-only
/*
 * Dentries of the 9P file system type: how long a name is trusted, and the
 * Twalk that checks it once it is not.
 *
 * Without cache=loose names are not cached: a dentry is dropped as soon as
 * it is unused and lookup asks the server, as the seed did. cache=loose
 * keeps dentries, negative ones too, trusting a name for actimeo seconds
 * and then checking it with a Twalk (ninep_d_revalidate()); over 9P2000.L
 * that Twalk may carry the file's Tgetattr, or go beside the Tlopen of an
 * open (ninep_open_check_name()).
 */
#define pr_fmt(fmt) "9p2000: " fmt

#include <linux/fs.h>
#include <linux/namei.h>
#include <linux/dcache.h>

#include "v9fs.h"
#include "attr.h"
#include "dentry.h"

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
