/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * 9P2000 client layer of 9p2000.ko: requests in flight, version negotiation,
 * flush on fatal signal, failure of everything pending when the connection
 * dies, and refcounted fids whose last reference clunks.
 *
 * The VFS layer calls only what is declared here; it never sees bytes on the
 * wire. Every function may sleep unless said otherwise. Errors are negative
 * errno values or ERR_PTR().
 */
#ifndef NINEP_CLIENT_H
#define NINEP_CLIENT_H

#include <linux/types.h>
#include <linux/list.h>
#include <linux/refcount.h>
#include <linux/uidgid.h>
#include <linux/uio.h>
#include <linux/workqueue.h>

#include "v9p.h"

#define NINEP_DEFAULT_PORT	564
/* Asked for when opts.msize is 0; the VFS passes msize= or the seed's 9000. */
#define NINEP_DEFAULT_MSIZE	(128 * 1024)
#define NINEP_MIN_MSIZE		4096		/* a server offering less is absurd */
#define NINEP_MAX_WALK		16		/* names per Twalk (9P limit) */

/*
 * debug= bitmask, bit for bit as the seed's documentation defines it.
 * The client prints under 9P, RPC and TRANS; the others belong to the VFS.
 */
#define NINEP_DEBUG_ERROR	0x01	/* verbose error messages */
#define NINEP_DEBUG_CURRENT	0x02	/* developer debug */
#define NINEP_DEBUG_9P		0x04	/* 9P message trace */
#define NINEP_DEBUG_VFS		0x08	/* VFS trace */
#define NINEP_DEBUG_CONV		0x10	/* marshalling */
#define NINEP_DEBUG_RPC		0x20	/* tags, waits, flushes */
#define NINEP_DEBUG_TRANS	0x40	/* transport */
#define NINEP_DEBUG_SLABS	0x80	/* allocation */

#define NINEP_NOFID		(~0U)

struct ninep_client;
struct ninep_trans_ops;

struct ninep_client_opts {
	const struct ninep_trans_ops *trans;	/* from ninep_trans_find() */
	const char *addr;		/* tcp: IP literal; unix: path; virtio: tag */
	u16 port;			/* tcp only; 0 means NINEP_DEFAULT_PORT */
	int rfd, wfd;			/* fd only: descriptors of the mounting task */
	u32 msize;			/* asked for; 0 means NINEP_DEFAULT_MSIZE */
	enum v9p_dialect dialect;	/* asked for; may fall back to V9P_9P2000 */
	unsigned int timeout;		/* seconds per RPC wait, 0 = forever; soft */
	unsigned int debug;		/* NINEP_DEBUG_* */
};

/*
 * A fid: the client's handle on a file on the server. Refcounted; the last
 * ninep_fid_put() sends Tclunk (if the fid was ever established) and frees.
 * The fields are read-only to the VFS except where marked.
 */
struct ninep_fid {
	struct ninep_client *clnt;
	u32 fid;			/* number on the wire */
	refcount_t ref;
	struct v9p_qid qid;		/* from attach/walk/open/create */
	u32 iounit;			/* from Ropen/Rcreate, 0 if none */
	int mode;			/* open mode, -1 while not open */
	bool established;		/* server knows this fid: clunk on last put */
	kuid_t uid;			/* VFS-owned: user this fid acts for */
	struct hlist_node vfs_node;	/* VFS-owned: e.g. per-dentry fid list */
};

/* Module init/exit of the client layer (workqueue, caches). */
int ninep_client_init(void);
void ninep_client_exit(void);

/*
 * Connect, then negotiate Tversion. On success the negotiated msize and
 * dialect are available from the accessors below.
 */
struct ninep_client *ninep_client_create(const struct ninep_client_opts *o);
/* Fails whatever is pending, closes the transport and frees the client. */
void ninep_client_destroy(struct ninep_client *c);
/* umount -f: the connection is dead from now on; every waiter gets -EIO. */
void ninep_client_abort(struct ninep_client *c);
/* Until no Tclunk sent by a put is unanswered, for at most a second. */
int ninep_client_clunks_wait(struct ninep_client *c);

u32 ninep_client_msize(const struct ninep_client *c);		/* negotiated */
enum v9p_dialect ninep_client_dialect(const struct ninep_client *c);
bool ninep_client_dead(const struct ninep_client *c);
/*
 * Run @work in the client's own context: a kernel worker that no caller's
 * signal reaches, so the requests it sends are waited for until answered,
 * timed out (timeout=) or failed with the connection, never abandoned
 * because the task that asked for them was killed. Module unload waits
 * for all of it; work must not touch a client that may be gone by then.
 */
void ninep_client_queue_work(struct work_struct *work);

struct ninep_fid *ninep_attach(struct ninep_client *c, struct ninep_fid *afid,
			       const char *uname, u32 n_uname, const char *aname);
/*
 * Walk from @fid along @names into a new fid. n == 0 clones @fid. More than
 * 16 names are split over several Twalks. A partial walk gives -ENOENT.
 */
struct ninep_fid *ninep_walk(struct ninep_fid *fid, unsigned int n,
			     const char *const *names);
int ninep_open(struct ninep_fid *fid, u8 mode);
/* @dfid (a directory) becomes the new, open file; @extension is .u only. */
int ninep_create(struct ninep_fid *dfid, const char *name, u32 perm, u8 mode,
		 const char *extension);
/*
 * Split by min(iounit, msize - 24). Up to four chunks are in flight, but
 * only on a file whose last reported length @known_len is not 0 (streams,
 * FIFOs and devices report 0 and go one chunk at a time), and never on
 * directories or append-only files; see io_run(). A short reply ends the
 * call with a short count; a write that failed in the middle while a
 * later chunk landed fails with -EIO.
 */
ssize_t ninep_read(struct ninep_fid *fid, u64 off, struct iov_iter *to,
		   u64 known_len);
ssize_t ninep_write(struct ninep_fid *fid, u64 off, struct iov_iter *from,
		    u64 known_len);
/*
 * ninep_write() for write-back: a failed chunk ends the call with its
 * error (-ETIMEDOUT, -EIO of a dead connection, the server's errno), never
 * a short count; a short count is a short Rwrite.
 */
ssize_t ninep_write_whole(struct ninep_fid *fid, u64 off,
			  struct iov_iter *from, u64 known_len);
/* One kmalloc'd block: the stat with its strings after it. kfree() it. */
struct v9p_stat *ninep_stat(struct ninep_fid *fid);
int ninep_wstat(struct ninep_fid *fid, const struct v9p_stat *st);
/* Consumes the caller's reference; the fid is gone on the server either way. */
int ninep_remove(struct ninep_fid *fid);

/*
 * 9P2000.L (calls_dotl.c). @gid and modes are wire values; @flags of
 * Tlopen/Tlcreate are V9P_DOTL_*. The create calls give the new qid.
 */
int ninep_lopen(struct ninep_fid *fid, u32 flags);
/* Like ninep_create(): @dfid becomes the new, open file. */
int ninep_lcreate(struct ninep_fid *dfid, const char *name, u32 flags,
		  u32 mode, u32 gid);
int ninep_getattr(struct ninep_fid *fid, u64 mask, struct v9p_rgetattr *ga);
/*
 * Calls sent before any reply is waited for, so that their round trips
 * overlap: Tlopen of @fid beside a Tgetattr of it; a Twalk of @name from
 * @dfid into a new fid beside a Tgetattr of @fid; and the same Twalk
 * beside a Tlopen of @fid and its Tgetattr. Each returns what
 * ninep_lopen() or ninep_walk() would; *@gerr is the Tgetattr's 0 (then
 * *@ga holds its reply) or error, *@lerr the Tlopen's. The server may
 * handle them in any order.
 */
int ninep_lopen_getattr(struct ninep_fid *fid, u32 flags, u64 mask,
			struct v9p_rgetattr *ga, int *gerr);
struct ninep_fid *ninep_walk_getattr(struct ninep_fid *dfid, const char *name,
				     struct ninep_fid *fid, u64 mask,
				     struct v9p_rgetattr *ga, int *gerr);
struct ninep_fid *ninep_walk_lopen_getattr(struct ninep_fid *dfid,
					   const char *name,
					   struct ninep_fid *fid, u32 flags,
					   int *lerr, u64 mask,
					   struct v9p_rgetattr *ga, int *gerr);
/* sa->fid is ignored: the request goes on @fid. */
int ninep_setattr(struct ninep_fid *fid, const struct v9p_tsetattr *sa);
int ninep_mkdir(struct ninep_fid *dfid, const char *name, u32 mode, u32 gid,
		struct v9p_qid *qid);
int ninep_symlink(struct ninep_fid *dfid, const char *name, const char *target,
		  u32 gid, struct v9p_qid *qid);
int ninep_mknod(struct ninep_fid *dfid, const char *name, u32 mode, u32 major,
		u32 minor, u32 gid, struct v9p_qid *qid);
int ninep_link(struct ninep_fid *dfid, struct ninep_fid *fid, const char *name);
int ninep_renameat(struct ninep_fid *olddir, const char *oldname,
		   struct ninep_fid *newdir, const char *newname);
int ninep_rename(struct ninep_fid *fid, struct ninep_fid *dfid, const char *name);
int ninep_unlinkat(struct ninep_fid *dfid, const char *name, u32 flags);
/* The target, NUL-terminated, kmalloc'd; never empty. kfree() it. */
char *ninep_readlink(struct ninep_fid *fid);
int ninep_statfs(struct ninep_fid *fid, struct v9p_rstatfs *st);
int ninep_fsync(struct ninep_fid *fid, bool datasync);
/*
 * Up to @count bytes of packed directory entries from cookie @offset into
 * @buf; the byte count (0 at the end) or a negative errno.
 */
ssize_t ninep_readdir(struct ninep_fid *fid, u64 offset, u8 *buf, u32 count);
/* Tlock: *@status is the Rlock status. tl->fid is ignored. */
int ninep_lock(struct ninep_fid *fid, const struct v9p_tlock *tl, u8 *status);
/* Tgetlock: @gl in, and its type/start/length/proc_id from the reply. */
int ninep_getlock(struct ninep_fid *fid, struct v9p_tgetlock *gl);
/*
 * Txattrwalk: a new fid to Tread the attribute @name from (the names, if
 * @name is ""); *@size is the server's word, for the caller to check.
 */
struct ninep_fid *ninep_xattrwalk(struct ninep_fid *fid, const char *name,
				  u64 *size);
/* Txattrcreate: @fid turns into one that takes @size bytes of value. */
int ninep_xattrcreate(struct ninep_fid *fid, const char *name, u64 size,
		      u32 flags);

struct ninep_fid *ninep_fid_get(struct ninep_fid *fid);
void ninep_fid_put(struct ninep_fid *fid);
/*
 * Drop the caller's reference, which must be the last one, with a Tclunk
 * that is waited for: its error is the server's (an xattr fid commits its
 * value at clunk). A fatal signal or timeout= ends the wait as for any
 * call; the fid number stays taken until the server is done with it.
 */
int ninep_fid_clunk(struct ninep_fid *fid);

#endif /* NINEP_CLIENT_H */
