/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Every difference between the 6.1 and 6.12 kernel APIs that the VFS layer
 * meets, in one place. 6.1.192 carries backports of several 6.12 names
 * (ctime accessors, ITER_SOURCE/ITER_DEST), so nothing here redefines a
 * kernel name: the bridges have names of our own.
 */
#ifndef NINEP_COMPAT_H
#define NINEP_COMPAT_H

#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/stat.h>
#include <net/net_namespace.h>
#include <net/sock.h>

/*
 * Each difference has its own NINEP_HAVE_* switch, set by the Kbuild from
 * the declaration in the kernel headers being built against (0 or 1).
 */

/* The idmapping argument of inode operations (6.3): struct ninep_idmap *. */
#if NINEP_HAVE_MNT_IDMAP
#define ninep_idmap	mnt_idmap
#else
#define ninep_idmap	user_namespace
#endif

/*
 * The identity idmapping, that of a mount that is not idmapped (6.3 named
 * it nop_mnt_idmap; before, the initial user namespace stood for it), and
 * the idmapping of the mount a file was opened through.
 */
#if NINEP_HAVE_MNT_IDMAP
#define NINEP_NOP_IDMAP		(&nop_mnt_idmap)
#define ninep_file_idmap(file)	file_mnt_idmap(file)
#else
#define NINEP_NOP_IDMAP		(&init_user_ns)
#define ninep_file_idmap(file)	file_mnt_user_ns(file)
#endif

/*
 * A superblock may refuse idmapped mounts of itself (SB_I_NOIDMAP, 6.12);
 * before, FS_ALLOW_IDMAP of the file system type alone decided.
 */
#ifdef SB_I_NOIDMAP
#define NINEP_HAVE_SB_NOIDMAP	1
#else
#define NINEP_HAVE_SB_NOIDMAP	0
#endif

/* generic_fillattr() takes the request mask (6.6). */
static inline void ninep_fillattr(struct ninep_idmap *idmap, u32 request_mask,
				  struct inode *inode, struct kstat *stat)
{
#if NINEP_HAVE_FILLATTR_MASK
	generic_fillattr(idmap, request_mask, inode, stat);
#else
	generic_fillattr(idmap, inode, stat);
#endif
}

/* Inode times through accessors (6.7). */
static inline void ninep_set_atime(struct inode *inode, struct timespec64 ts)
{
#if NINEP_HAVE_ATIME_TS
	inode_set_atime_to_ts(inode, ts);
#else
	inode->i_atime = ts;
#endif
}

static inline void ninep_set_mtime(struct inode *inode, struct timespec64 ts)
{
#if NINEP_HAVE_ATIME_TS
	inode_set_mtime_to_ts(inode, ts);
#else
	inode->i_mtime = ts;
#endif
}

/*
 * splice_read without the page cache (6.5): copy_splice_read goes through
 * ->read_iter; before it, generic_file_splice_read did, with ITER_PIPE.
 */
#if NINEP_HAVE_COPY_SPLICE_READ
#define ninep_splice_read	copy_splice_read
#else
#define ninep_splice_read	generic_file_splice_read
#endif

static inline struct timespec64 ninep_get_mtime(const struct inode *inode)
{
#if NINEP_HAVE_ATIME_TS
	return inode_get_mtime(inode);
#else
	return inode->i_mtime;
#endif
}

/* A new inode's times: now, as simple_inode_init_ts() does in 6.12. */
static inline void ninep_inode_init_ts(struct inode *inode)
{
	struct timespec64 now = inode_set_ctime_current(inode);

	ninep_set_atime(inode, now);
	ninep_set_mtime(inode, now);
}

/* vm_flags changes through helpers (6.3), which 6.12 requires. */
static inline void ninep_vm_flags_clear(struct vm_area_struct *vma,
					vm_flags_t flags)
{
#if NINEP_HAVE_VM_FLAGS_CLEAR
	vm_flags_clear(vma, flags);
#else
	vma->vm_flags &= ~flags;
#endif
}

/* The common part of struct file_lock moved into file_lock_core (6.9). */
#if NINEP_HAVE_LOCK_CORE
#include <linux/filelock.h>
#define ninep_fl_type(fl)	((fl)->c.flc_type)
#define ninep_fl_flags(fl)	((fl)->c.flc_flags)
#define ninep_fl_pid(fl)	((fl)->c.flc_pid)
#define ninep_fl_owner(fl)	((fl)->c.flc_owner)
#define NINEP_FL_LIST		c.flc_list
#else
#define ninep_fl_type(fl)	((fl)->fl_type)
#define ninep_fl_flags(fl)	((fl)->fl_flags)
#define ninep_fl_pid(fl)	((fl)->fl_pid)
#define ninep_fl_owner(fl)	((fl)->fl_owner)
#define NINEP_FL_LIST		fl_list
#endif

/* write_cache_pages() hands its callback a folio (6.3), a page before. */
#if NINEP_HAVE_WRITEPAGE_FOLIO
#define NINEP_WCP_ENTRY		struct folio
#define ninep_wcp_folio(entry)	(entry)
#else
#define NINEP_WCP_ENTRY		struct page
#define ninep_wcp_folio(entry)	page_folio(entry)
#endif

/* ->write_begin and ->write_end pass a folio (6.12), a page before. */
#if NINEP_HAVE_WRITE_BEGIN_FOLIO
#define NINEP_WBEGIN_ENTRY	struct folio
#define ninep_wbegin_folio(entry)	(entry)
#define ninep_folio_wbegin(folio)	(folio)
#else
#define NINEP_WBEGIN_ENTRY	struct page
#define ninep_wbegin_folio(entry)	page_folio(entry)
#define ninep_folio_wbegin(folio)	(&(folio)->page)
#endif

/*
 * POSIX ACLs (6.2). Since: ->get_inode_acl(inode, type, rcu) serves
 * permission checks, and system.posix_acl_* reach ->get_acl/->set_acl on a
 * dentry through vfs_get_acl()/vfs_set_acl(). Before: ->get_acl(inode,
 * type, rcu) serves both, and those names go to handlers in sb->s_xattr.
 * ninep_get_inode_acl() is the VFS's cached lookup on either.
 */
#if NINEP_HAVE_GET_INODE_ACL
#define ninep_get_inode_acl	get_inode_acl
#else
#define ninep_get_inode_acl	get_acl
#endif

/*
 * A cache's ->prepare_write() takes the most the length may grow to (6.12),
 * here the length asked for: the range is whole pages already.
 */
#if IS_ENABLED(CONFIG_FSCACHE)
#include <linux/netfs.h>

static inline int ninep_cache_prepare_write(struct netfs_cache_resources *cres,
					    loff_t *start, size_t *len,
					    loff_t i_size)
{
#if NINEP_HAVE_PREPARE_WRITE_UPPER
	return cres->ops->prepare_write(cres, start, len, *len, i_size, false);
#else
	return cres->ops->prepare_write(cres, start, len, i_size, false);
#endif
}
#endif

/*
 * A kernel socket holds no reference on its network namespace: a mount
 * made from inside a namespace would outlive it, the socket's release and
 * timers then running on a freed struct net. Counted as a socket of user
 * space is (a reference put, and the in-use count dropped, by the socket
 * core when the sock is freed, after its last timer): 6.13 has a call for
 * it, which Debian's 6.12 carries; 6.1 is done by hand the same way.
 */
static inline void ninep_sock_hold_net(struct sock *sk)
{
#if NINEP_HAVE_SK_NET_REFCNT_UPGRADE
	sk_net_refcnt_upgrade(sk);
#else
	struct net *net = sock_net(sk);

	sk->sk_net_refcnt = 1;
	get_net_track(net, &sk->ns_tracker, GFP_KERNEL);
	sock_inuse_add(net, 1);
#endif
}

#endif /* NINEP_COMPAT_H */
