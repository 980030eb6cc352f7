// SPDX-License-Identifier: GPL-2.0-only
/*
 * cache=fscache: cache=loose, and the data of regular files kept in a local
 * disk cache (cachefiles, through fscache) that outlives the mount.
 *
 * A mount has one fscache volume, named by the export: "9p2000", the
 * transport's name, the server address (and the port, over a transport
 * that takes port=) and the aname, each '/' made ';'. Two mounts of one
 * export at once: the second goes without a disk cache (fscache lets a
 * volume be acquired once). A transport of descriptors (trans=fd) names no
 * export and has none either.
 *
 * A regular file has one cookie, keyed by its qid.path (le64). Its
 * coherency data (struct ninep_fscache_aux) is the server's mtime, ctime,
 * size and qid.version as this client last checked them: when the cookie
 * is acquired (the inode made from the server's attributes) and at each
 * open (close-to-open, ninep_fscache_revalidate()). Data found under other
 * coherency data is discarded by fscache when the cookie is looked up;
 * a change seen at an open invalidates what is cached. The coherency data
 * is never moved on otherwise: cached bytes are only ever older than a
 * change that was not checked yet, and that change, seen at the next open
 * or mount, discards them.
 *
 * Bytes enter the disk cache only as read from the server (->readahead,
 * ->read_folio), copied into pages of their own and written
 * asynchronously, and only while no one has the file open for writing
 * here. Local changes invalidate: an open for writing (before anything is
 * written) and its release (after its dirty pages went to the server), and
 * a truncate. A read that an invalidation overtook stores nothing (the
 * cookie's invalidation count is compared).
 *
 * Reads try the disk cache first, for a range it holds whole (from the
 * first byte to the end of the range or the file), synchronously; any
 * failure reads from the server instead.
 */
#define pr_fmt(fmt) "9p2000: " fmt

#include <linux/fs.h>
#include <linux/fscache.h>
#include <linux/netfs.h>
#include <linux/pagemap.h>
#include <linux/highmem.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <linux/bvec.h>
#include <linux/completion.h>
#include <linux/rcupdate.h>
#include <linux/wait_bit.h>

#include "v9fs.h"
#include "trans.h"
#include "fscache.h"

/* The coherency data of a cookie, little-endian. */
struct ninep_fscache_aux {
	__le64 mtime_sec;
	__le64 ctime_sec;
	__le64 size;
	__le32 mtime_nsec;
	__le32 ctime_nsec;
	__le32 version;
	__le32 pad;
};

static void ninep_fscache_aux(struct inode *inode,
			      struct ninep_fscache_aux *aux)
{
	struct timespec64 mtime = ninep_get_mtime(inode);
	struct timespec64 ctime = inode_get_ctime(inode);

	memset(aux, 0, sizeof(*aux));
	aux->mtime_sec = cpu_to_le64(mtime.tv_sec);
	aux->mtime_nsec = cpu_to_le32(mtime.tv_nsec);
	aux->ctime_sec = cpu_to_le64(ctime.tv_sec);
	aux->ctime_nsec = cpu_to_le32(ctime.tv_nsec);
	aux->size = cpu_to_le64(i_size_read(inode));
	aux->version = cpu_to_le32(NINEP_I(inode)->qid.version);
}

static struct fscache_cookie *ninep_cookie(struct inode *inode)
{
	return NINEP_I(inode)->fscache;
}

/* The volume of a cache=fscache mount, once the client is up. */
int ninep_fscache_session_init(struct ninep_session *s)
{
	const struct ninep_trans_ops *trans = s->copts.trans;
	const char *aname = s->aname ? s->aname : "";
	struct fscache_volume *vol;
	char *key, *p;

	if (s->cache != NINEP_CACHE_FSCACHE)
		return 0;
	if ((trans->flags & NINEP_TRANS_F_FDS) || !s->addr) {
		pr_info("cache=fscache over trans=%s: no name of the export to keep a disk cache under; none is used\n",
			trans->name);
		return 0;
	}
	if (trans->flags & NINEP_TRANS_F_PORT)
		key = kasprintf(GFP_KERNEL, "9p2000,%s,%s,%u,%s", trans->name,
				s->addr, s->copts.port ? s->copts.port :
				NINEP_DEFAULT_PORT, aname);
	else
		key = kasprintf(GFP_KERNEL, "9p2000,%s,%s,%s", trans->name,
				s->addr, aname);
	if (!key)
		return -ENOMEM;
	for (p = key; *p; p++)
		if (*p == '/')
			*p = ';';
	vol = fscache_acquire_volume(key, NULL, NULL, 0);
	if (IS_ERR(vol)) {
		if (PTR_ERR(vol) != -EBUSY) {
			pr_warn("disk cache volume %s: error %ld\n", key,
				PTR_ERR(vol));
			kfree(key);
			return PTR_ERR(vol);
		}
		pr_info("disk cache volume %s is in use by another mount; this one goes without\n",
			key);
		vol = NULL;
	}
	kfree(key);
	s->fscache = vol;
	return 0;
}

/*
 * After every inode of the mount went (kill_sb), or a failed mount. Writes
 * to the disk cache complete asynchronously, in ninep_fscache_written(),
 * code of this module that no reference pins: the umount waits for every
 * one of them, so that nothing of the mount is left to run once the module
 * may be unloaded. The grace period covers the few instructions of a
 * completion after its count dropped (it counts with RCU held).
 */
void ninep_fscache_session_exit(struct ninep_session *s)
{
	if (atomic_read(&s->fscache_writes)) {
		wait_var_event(&s->fscache_writes,
			       !atomic_read(&s->fscache_writes));
		synchronize_rcu();
	}
	if (s->fscache)
		fscache_relinquish_volume(s->fscache, NULL, false);
	s->fscache = NULL;
}

/*
 * A new inode of a regular file, its attributes set: its cookie. A file
 * this client just created (@created, no attributes from the server yet)
 * may reuse the qid.path of one removed: whatever is cached under it goes.
 */
void ninep_fscache_inode_init(struct inode *inode, bool created)
{
	struct ninep_session *s = ninep_inode_session(inode);
	struct ninep_fscache_aux aux;
	struct fscache_cookie *cookie;
	__le64 key;

	if (!s->fscache || !S_ISREG(inode->i_mode))
		return;
	key = cpu_to_le64(NINEP_I(inode)->qid.path);
	ninep_fscache_aux(inode, &aux);
	cookie = fscache_acquire_cookie(s->fscache, 0, &key, sizeof(key),
					&aux, sizeof(aux), i_size_read(inode));
	NINEP_I(inode)->fscache = cookie;
	if (cookie && created)
		fscache_invalidate(cookie, &aux, i_size_read(inode), 0);
}

void ninep_fscache_evict(struct inode *inode)
{
	struct fscache_cookie *cookie = ninep_cookie(inode);

	if (!cookie)
		return;
	NINEP_I(inode)->fscache = NULL;
	fscache_relinquish_cookie(cookie, false);
}

/*
 * Invalidate what is cached, under the coherency data of now; with
 * @if_changed, only if that data is not what the cache was kept for.
 */
static void ninep_fscache_invalidate(struct inode *inode, bool if_changed)
{
	struct fscache_cookie *cookie = ninep_cookie(inode);
	struct ninep_fscache_aux aux;

	ninep_fscache_aux(inode, &aux);
	if (!if_changed || memcmp(fscache_get_aux(cookie), &aux, sizeof(aux)))
		fscache_invalidate(cookie, &aux, i_size_read(inode), 0);
}

/* Every open of a regular file: in use; an open for writing invalidates. */
void ninep_fscache_open(struct inode *inode, struct file *file)
{
	struct fscache_cookie *cookie = ninep_cookie(inode);
	bool writing = file->f_mode & FMODE_WRITE;

	if (!cookie)
		return;
	fscache_use_cookie(cookie, writing);
	if (writing)
		ninep_fscache_invalidate(inode, false);
}

/*
 * The release of every open of a regular file, after its dirty pages went
 * back: one that wrote invalidates again, as pages read meanwhile may have
 * been changed since on the server.
 */
void ninep_fscache_release(struct inode *inode, struct file *file)
{
	struct fscache_cookie *cookie = ninep_cookie(inode);

	if (!cookie)	/* only regular files have one */
		return;
	if (file->f_mode & FMODE_WRITE)
		ninep_fscache_invalidate(inode, false);
	fscache_unuse_cookie(cookie, NULL, NULL);
}

/*
 * At open (close-to-open, cache=loose's check), the attributes as the
 * server has them now: what is cached goes if they are not those it was
 * kept for.
 */
void ninep_fscache_revalidate(struct inode *inode)
{
	if (ninep_cookie(inode))
		ninep_fscache_invalidate(inode, true);
}

/* truncate(2) and the like set a new size on the server. */
void ninep_fscache_resize(struct inode *inode)
{
	if (ninep_cookie(inode))
		ninep_fscache_invalidate(inode, false);
}

struct ninep_fscache_wait {
	struct completion done;
	ssize_t ret;
};

static void ninep_fscache_read_done(void *priv, ssize_t ret, bool was_async)
{
	struct ninep_fscache_wait *w = priv;

	w->ret = ret;
	complete(&w->done);
}

/*
 * Fill @to, the pages of the file from @pos (page-aligned, a whole number
 * of pages), from the disk cache if it holds all of them up to the end of
 * the file. Returns the bytes of the file read (the rest of the pages is
 * past its end), or a negative error: then nothing is to be trusted in
 * @to. @io is set for ninep_fscache_write() either way.
 */
ssize_t ninep_fscache_read(struct inode *inode, loff_t pos,
			   const struct iov_iter *to,
			   struct ninep_fscache_io *io)
{
	struct fscache_cookie *cookie = ninep_cookie(inode);
	loff_t size = i_size_read(inode);
	struct netfs_cache_resources cres = {};
	const struct netfs_cache_ops *ops;
	struct ninep_fscache_wait w;
	struct iov_iter iter;
	size_t len, dlen;
	loff_t dstart;
	ssize_t ret = -ENOBUFS;

	io->inval = cookie ? READ_ONCE(cookie->inval_counter) : 0;
	if (!cookie || pos >= size || !PAGE_ALIGNED(pos))
		return -ENOBUFS;
	len = min_t(loff_t, iov_iter_count(to), size - pos);
	len = round_up(len, PAGE_SIZE);
	if (len > iov_iter_count(to))
		return -ENOBUFS;
	if (fscache_begin_read_operation(&cres, cookie) < 0)
		return -ENOBUFS;
	ops = cres.ops;
	if (!ops || !ops->query_occupancy)
		goto out;
	if (ops->query_occupancy(&cres, pos, len, PAGE_SIZE, &dstart, &dlen) ||
	    dstart != pos || dlen < len)
		goto out;
	iter = *to;
	iov_iter_truncate(&iter, len);
	init_completion(&w.done);
	w.ret = -EIO;
	fscache_read(&cres, pos, &iter, NETFS_READ_HOLE_FAIL,
		     ninep_fscache_read_done, &w);
	wait_for_completion(&w.done);
	if (w.ret == len)
		ret = min_t(loff_t, len, size - pos);
	else
		ret = w.ret < 0 ? w.ret : -ENODATA;
out:
	fscache_end_operation(&cres);
	return ret;
}

/* A write to the disk cache: the copy it writes from. */
struct ninep_fscache_wreq {
	struct netfs_cache_resources cres;
	struct ninep_session *s;	/* counts it in fscache_writes */
	unsigned int nr;
	struct bio_vec bv[];
};

static void ninep_fscache_wreq_free(struct ninep_fscache_wreq *wreq)
{
	unsigned int i;

	for (i = 0; i < wreq->nr; i++)
		__free_page(wreq->bv[i].bv_page);
	kfree(wreq);
}

/*
 * The end of a write to the disk cache, in any context. Once the count
 * drops, the session may be freed and the module unloaded: the session is
 * not touched after it, and only the return is left (under RCU, which
 * ninep_fscache_session_exit() waits out).
 */
static void ninep_fscache_written(void *priv, ssize_t ret, bool was_async)
{
	struct ninep_fscache_wreq *wreq = priv;
	atomic_t *writes = &wreq->s->fscache_writes;

	fscache_end_operation(&wreq->cres);
	ninep_fscache_wreq_free(wreq);
	rcu_read_lock();
	if (atomic_dec_and_test(writes))
		wake_up_var(writes);
	rcu_read_unlock();
}

/*
 * @got bytes of the file at @pos (page-aligned) just read from the server
 * into @bv (@nr entries), as ninep_fscache_read() prepared in @io: a copy
 * of them goes to the disk cache, written in the background. Only a read
 * that ends at a page boundary or at the end of the file is kept (a
 * shorter one met an end the server moved), and nothing while the file
 * is open for writing here or was invalidated since the read began.
 */
void ninep_fscache_write(struct inode *inode, loff_t pos,
			 const struct bio_vec *bv, unsigned int nr,
			 ssize_t got, const struct ninep_fscache_io *io)
{
	struct fscache_cookie *cookie = ninep_cookie(inode);
	struct ninep_fscache_wreq *wreq;
	unsigned int pages, i;
	struct iov_iter from;
	loff_t start = pos;
	size_t len;

	if (!cookie || got <= 0 || !PAGE_ALIGNED(pos) ||
	    atomic_read(&inode->i_writecount) > 0 ||
	    READ_ONCE(cookie->inval_counter) != io->inval)
		return;
	if (!PAGE_ALIGNED(got) && pos + got != i_size_read(inode))
		return;
	pages = DIV_ROUND_UP(got, PAGE_SIZE);
	wreq = kzalloc(struct_size(wreq, bv, pages), GFP_NOFS | __GFP_NOWARN);
	if (!wreq)
		return;
	iov_iter_bvec(&from, ITER_SOURCE, bv, nr, got);
	for (i = 0; i < pages; i++) {
		struct page *page = alloc_page(GFP_NOFS | __GFP_NOWARN);
		size_t n = min_t(size_t, PAGE_SIZE, got - i * PAGE_SIZE);

		if (!page)
			goto free;
		wreq->bv[i] = (struct bio_vec){ .bv_page = page,
						.bv_len = PAGE_SIZE };
		wreq->nr++;
		if (copy_page_from_iter(page, 0, n, &from) != n)
			goto free;
		if (n < PAGE_SIZE)
			memzero_page(page, n, PAGE_SIZE - n);
	}
	if (fscache_begin_write_operation(&wreq->cres, cookie) < 0)
		goto free;
	len = (size_t)pages * PAGE_SIZE;
	if (wreq->cres.inval_counter != io->inval ||
	    ninep_cache_prepare_write(&wreq->cres, &start, &len,
				      i_size_read(inode)) < 0 ||
	    start != pos || len != (size_t)pages * PAGE_SIZE ||
	    READ_ONCE(cookie->inval_counter) != io->inval) {
		fscache_end_operation(&wreq->cres);
		goto free;
	}
	iov_iter_bvec(&from, ITER_SOURCE, wreq->bv, pages, len);
	wreq->s = ninep_inode_session(inode);
	atomic_inc(&wreq->s->fscache_writes);
	fscache_write(&wreq->cres, pos, &from, ninep_fscache_written, wreq);
	return;

free:
	ninep_fscache_wreq_free(wreq);
}
