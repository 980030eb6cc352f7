// SPDX-License-Identifier: GPL-2.0-only
/*
 * The page cache of regular files: what each cache mode promises of it.
 *
 * cache=none: reads and writes go straight to the server, with no data
 * cache (the seed's semantics); only mmap uses the page cache, filled by
 * ->readahead and ->read_folio, and each open drops the cached pages so
 * they are fresh. Shared writable mappings are refused: nothing would ever
 * send their dirty pages.
 *
 * cache=mmap: as none, but shared writable mappings are allowed, and
 * their dirty pages are written back (ninep_writepages()) through the
 * open fid of the first such mapping.
 *
 * cache=loose (and fscache): read(2) and write(2) go through the page
 * cache too (->write_begin, ->write_end), each filled run of a write
 * sent early while the writer goes on; the cached pages are kept while the
 * server's attributes at each open say the file did not change
 * (close-to-open consistency, file.c).
 *
 * In every mode a caller's signal or a lost connection never turns dirty
 * pages clean: they stay dirty, and the error stays recorded in the
 * mapping for fsync and close to report.
 */
#define pr_fmt(fmt) "9p2000: " fmt

#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/pagevec.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <linux/bvec.h>
#include <linux/writeback.h>

#include "v9fs.h"
#include "attr.h"
#include "addr.h"

/*
 * Keep a reference on @fid, the open fid of the first shared writable
 * mapping of @inode or (cache=loose) of its first write(2) through the
 * cache, for write-back. Pages dirtied through any later mapping or
 * write(2), by any user, go back through it, as that first user; each of
 * them opened the file for writing (a shared writable mapping needs that),
 * so the server is asked nothing those users could not do. The reference
 * goes at evict.
 */
void ninep_keep_wb_fid(struct inode *inode, struct ninep_fid *fid)
{
	struct ninep_inode *vi = NINEP_I(inode);

	if (READ_ONCE(vi->wb_fid))
		return;
	spin_lock(&inode->i_lock);
	if (!vi->wb_fid)
		WRITE_ONCE(vi->wb_fid, ninep_fid_get(fid));
	spin_unlock(&inode->i_lock);
}

/* Read one locked page-cache folio through @fid; a short read is the end. */
static int ninep_fill_folio(struct ninep_fid *fid, struct folio *folio)
{
	size_t len = folio_size(folio);
	struct bio_vec bv = {
		.bv_page = &folio->page,
		.bv_len = len,
		.bv_offset = 0,
	};
	struct inode *inode = folio->mapping->host;
	struct ninep_fscache_io fio;
	struct iov_iter to;
	ssize_t n;

	iov_iter_bvec(&to, ITER_DEST, &bv, 1, len);
	n = ninep_fscache_read(inode, folio_pos(folio), &to, &fio);
	if (n < 0) {
		n = ninep_read(fid, folio_pos(folio), &to, i_size_read(inode));
		ninep_fscache_write(inode, folio_pos(folio), &bv, 1, n, &fio);
	}
	if (n < 0)
		return n;
	if (n < len)
		folio_zero_segment(folio, n, len);
	folio_mark_uptodate(folio);
	return 0;
}

/* Fill one page-cache folio for a mapping or a read, through its open fid. */
static int ninep_read_folio(struct file *file, struct folio *folio)
{
	int err = -EIO;

	if (file && file->private_data)
		err = ninep_fill_folio(ninep_file_fid(file), folio);
	folio_unlock(folio);
	return err;
}

/* A write-back run is at most this long: 1 MiB with 4 KiB pages. */
#define NINEP_WB_MAX		256
#define NINEP_WB_RUN_BYTES	((loff_t)NINEP_WB_MAX << PAGE_SHIFT)

/*
 * Early write-back (cache=loose): a write(2) through the cache that fills
 * a run up to its end (NINEP_WB_RUN_BYTES, aligned) adds that run to the
 * inode's pending range and queues wb_work, which writes the range back
 * with WB_SYNC_NONE while the writer goes on copying: the copy and the
 * send overlap, and fsync or close find little left to send. The writer
 * never waits for it. Folios already under writeback are skipped and stay
 * dirty for the next pass; its runs go to workers, which record errors
 * in the mapping for fsync and close to report (ninep_wb_run_io()) and
 * return at once (WB_SYNC_NONE). The work holds no
 * reference on the inode: evict cancels it before the pages go.
 */
static void ninep_wb_early_work(struct work_struct *work)
{
	struct ninep_inode *vi = container_of(work, struct ninep_inode,
					      wb_work);
	struct inode *inode = &vi->vfs_inode;
	struct writeback_control wbc = {
		.sync_mode = WB_SYNC_NONE,
		.nr_to_write = LONG_MAX,
	};

	spin_lock(&inode->i_lock);
	wbc.range_start = vi->wb_start;
	wbc.range_end = vi->wb_end - 1;
	vi->wb_start = LLONG_MAX;
	vi->wb_end = 0;
	spin_unlock(&inode->i_lock);
	if (wbc.range_start <= wbc.range_end)
		filemap_fdatawrite_wbc(inode->i_mapping, &wbc);
}

void ninep_wb_early_init(struct ninep_inode *vi)
{
	INIT_WORK(&vi->wb_work, ninep_wb_early_work);
	vi->wb_start = LLONG_MAX;
	vi->wb_end = 0;
}

/* @copied bytes at @pos went into the cache: a run they end goes back. */
static void ninep_wb_early_kick(struct inode *inode, loff_t pos,
				unsigned int copied)
{
	loff_t end = round_down(pos + copied, NINEP_WB_RUN_BYTES);
	struct ninep_inode *vi = NINEP_I(inode);

	if (end <= pos)
		return;
	spin_lock(&inode->i_lock);
	vi->wb_start = min(vi->wb_start, end - NINEP_WB_RUN_BYTES);
	vi->wb_end = max(vi->wb_end, end);
	spin_unlock(&inode->i_lock);
	queue_work(system_unbound_wq, &vi->wb_work);
}

/*
 * cache=loose: the folio a write(2) copies @len bytes at @pos into, locked.
 * Of a folio not cached, the part outside the new bytes is read first
 * unless the write covers it all or none of it is on the server (wholly
 * past the end: zeros).
 */
static int ninep_write_begin(struct file *file, struct address_space *mapping,
			     loff_t pos, unsigned int len,
			     NINEP_WBEGIN_ENTRY **entryp, void **fsdata)
{
	struct folio *folio;
	struct page *page;
	int err;

	page = grab_cache_page_write_begin(mapping, pos >> PAGE_SHIFT);
	if (!page)
		return -ENOMEM;
	folio = page_folio(page);
	if (!folio_test_uptodate(folio)) {
		if (folio_pos(folio) >= i_size_read(mapping->host)) {
			folio_zero_segment(folio, 0, folio_size(folio));
			folio_mark_uptodate(folio);
		} else if (offset_in_folio(folio, pos) ||
			   len < folio_size(folio)) {
			err = ninep_fill_folio(ninep_file_fid(file), folio);
			if (err) {
				folio_unlock(folio);
				folio_put(folio);
				return err;
			}
		}
	}
	*entryp = ninep_folio_wbegin(folio);
	return 0;
}

/*
 * The copy is done: the folio is dirty, to be written back, and the size
 * grows to its end. The folio is marked dirty first, so that a refresh of
 * the size seeing no dirty page (ninep_i_size_refresh(), under i_lock as
 * the growth is) comes before the size grows. A short copy into a folio
 * that covered it all and was not read counts for nothing: the rest of it
 * is unknown.
 */
static int ninep_write_end(struct file *file, struct address_space *mapping,
			   loff_t pos, unsigned int len, unsigned int copied,
			   NINEP_WBEGIN_ENTRY *entry, void *fsdata)
{
	struct folio *folio = ninep_wbegin_folio(entry);

	if (!folio_test_uptodate(folio)) {
		if (copied < len)
			copied = 0;
		else
			folio_mark_uptodate(folio);
	}
	if (copied) {
		folio_mark_dirty(folio);
		ninep_i_size_set(mapping->host, pos + copied, true);
	}
	folio_unlock(folio);
	folio_put(folio);
	if (copied)
		ninep_wb_early_kick(mapping->host, pos, copied);
	return copied;
}

/*
 * The folios of one readahead window (mappings, exec) in one read, which
 * ninep_read() splits into msize-sized Treads with several in flight,
 * rather than a Tread a page through ->read_folio. As there, a short read
 * is the end of the file: the rest reads as zeros. A folio left locked and
 * not uptodate (an error, no memory) is read again by ->read_folio.
 */
static void ninep_readahead(struct readahead_control *ractl)
{
	struct inode *inode = ractl->mapping->host;
	unsigned int nr = readahead_count(ractl), n = 0, i;
	loff_t pos = readahead_pos(ractl);
	struct file *file = ractl->file;
	struct folio **folios, *folio;
	struct ninep_fscache_io fio;
	struct bio_vec *bv;
	struct iov_iter to;
	size_t len = 0, left;
	ssize_t got;

	if (!file || !file->private_data || !nr)
		return;
	/*
	 * The mapping's constraint (NOFS, NOIO) without its page flags
	 * (HIGHMEM, MOVABLE), which slab refuses; readahead is optional.
	 */
	bv = kmalloc_array(nr, sizeof(*bv) + sizeof(*folios),
			   mapping_gfp_constraint(ractl->mapping, GFP_KERNEL) |
			   __GFP_NORETRY | __GFP_NOWARN);
	if (!bv)
		return;
	folios = (struct folio **)(bv + nr);
	while (n < nr && (folio = readahead_folio(ractl))) {
		bv[n] = (struct bio_vec){ .bv_page = &folio->page,
					  .bv_len = folio_size(folio) };
		folios[n++] = folio;
		len += folio_size(folio);
	}
	iov_iter_bvec(&to, ITER_DEST, bv, n, len);
	got = ninep_fscache_read(inode, pos, &to, &fio);
	if (got < 0) {
		got = ninep_read(ninep_file_fid(file), pos, &to,
				 i_size_read(inode));
		ninep_fscache_write(inode, pos, bv, n, got, &fio);
	}
	left = got > 0 ? got : 0;
	for (i = 0; i < n; i++) {
		size_t size = folio_size(folios[i]);

		if (got >= 0) {
			if (left < size)
				folio_zero_segment(folios[i], left, size);
			folio_mark_uptodate(folios[i]);
		}
		folio_unlock(folios[i]);
		left -= min(left, size);
	}
	kfree(bv);
}

/*
 * Write-back (cache=mmap, loose): dirty folios of one file on their way to
 * the server. The folios of a run of consecutive ones go out together, as
 * one write that ninep_write() splits into msize-sized Twrites with several
 * in flight, through the inode's write-back fid and never past i_size.
 *
 * A run is sent and waited for in the client's own context
 * (ninep_client_queue_work()), not by the task that started write-back:
 * whoever that is (a stat(2), an open, a read, a truncate, another user's
 * fsync, the flusher), its bytes are the file's, perhaps another user's,
 * and a fatal signal to it (the OOM killer, timeout -s KILL) must neither
 * abandon the Twrites (a Tflush, as the client does for a killed waiter)
 * nor leave the rest of the range unsent. The task gathers the runs and
 * hands each to a worker as soon as it is complete, so gathering overlaps
 * sending; a WB_SYNC_ALL caller then waits for its runs killably: killed,
 * it returns at once, the Twrites go on, and each folio ends writeback when
 * the write carrying it is answered. Its pass over folios already under
 * writeback is killable too (ninep_wb_wait_killable() first); killed
 * there, it still hands every dirty folio to a worker without waiting.
 * One window remains: a folio that another task puts under writeback
 * between that wait and write_cache_pages() is waited for by the kernel,
 * uninterruptibly, until the worker's write of it ends.
 *
 * What a failure means for the folios of a run:
 * - An error the server gave (Rerror, Rlerror: EIO, ENOSPC, EDQUOT...) or
 *   a short Rwrite (the server is out of room) is the file's: recorded in
 *   the mapping (errseq) for fsync, msync and close to report; the folios
 *   end clean, as a local file system's would after a device error.
 * - An interruption (a task killed while a run was sent in line, below),
 *   a request timed out (timeout=, a soft mount), no memory for a request,
 *   or a connection that is gone are not: the folios are dirtied again and
 *   nothing is recorded, so a later write-back (the flusher, an fsync)
 *   sends them. A WB_SYNC_ALL caller that waited gets that error back all
 *   the same, so an fsync over a dead connection fails rather than
 *   spinning. There is no reconnection yet: over a dead connection such
 *   folios stay dirty until the inode is evicted, which drops them
 *   (ninep_evict_inode()), so umount ends.
 *
 * Without memory for a run a folio goes alone, sent in line by the caller
 * as before (a killed caller's folio is then dirtied again, not lost). The
 * workers hold no inode reference: a run's folios are under writeback
 * until its last step, and evict waits for them (truncate_inode_pages_final());
 * the run's fid reference is put before, never the last one (the inode's
 * wb_fid is put only after that wait), so no worker touches the inode or
 * the client once a folio ended writeback, and module unload waits for the
 * workers (ninep_rpc_exit()).
 */
struct ninep_wb_batch {
	refcount_t ref;
	atomic_t pending;		/* runs not done; 1 more while gathering */
	int err;			/* the first run's error */
	wait_queue_head_t wq;
};

struct ninep_wb_run {
	struct work_struct work;
	struct inode *inode;
	struct ninep_fid *fid;		/* a reference, or NULL (see mkwrite) */
	struct ninep_wb_batch *batch;	/* NULL: sent in line */
	loff_t size;			/* i_size as the last folio was added */
	loff_t pos;			/* file offset of bv[0] */
	size_t len;			/* bytes in bv[] */
	unsigned int n, max;		/* folios in the run, room for */
	struct bio_vec *bv;
	struct folio **folios;
};

/* One pass of write-back gathering runs. */
struct ninep_wb {
	struct inode *inode;
	unsigned int max;		/* folios a run may hold */
	struct ninep_wb_batch *batch;	/* NULL: no memory, runs go in line */
	struct ninep_wb_run *run;	/* being gathered, or NULL */
	struct ninep_wb_run one;	/* a folio in line, short of memory */
	struct bio_vec one_bv;
	struct folio *one_folio;
	int err;			/* the first error of runs sent in line */
};

static void ninep_wb_batch_put(struct ninep_wb_batch *b)
{
	if (refcount_dec_and_test(&b->ref))
		kfree(b);
}

static void ninep_wb_init(struct ninep_wb *wb, struct inode *inode,
			  unsigned int max)
{
	struct ninep_wb_batch *b;

	*wb = (struct ninep_wb){ .inode = inode, .max = max };
	b = kmalloc(sizeof(*b), GFP_NOFS | __GFP_NOWARN);
	if (!b)
		return;
	refcount_set(&b->ref, 1);
	atomic_set(&b->pending, 1);
	b->err = 0;
	init_waitqueue_head(&b->wq);
	wb->batch = b;
}

/*
 * Not an error of the file: the caller was interrupted, the request timed
 * out or found no memory, or the connection is gone. Its folios stay dirty.
 */
static bool ninep_wb_transient(struct inode *inode, int err)
{
	switch (err) {
	case -EINTR:
	case -ERESTARTSYS:
	case -ETIMEDOUT:
	case -ENOMEM:
	case -EAGAIN:
		return true;
	}
	return ninep_client_dead(ninep_inode_session(inode)->clnt);
}

/*
 * Send @run and end writeback of its folios: 0 or the error. The last step
 * that touches the inode or the client is before the first folio ends
 * writeback (see the top of this section).
 */
static int ninep_wb_run_io(struct ninep_wb_run *run)
{
	/* for the accounting of folio_redirty_for_writepage() alone */
	struct writeback_control wbc = { .sync_mode = WB_SYNC_NONE };
	struct inode *inode = run->inode;
	struct iov_iter from;
	bool again = false;
	ssize_t n = -EIO;
	unsigned int i;

	if (!WARN_ON_ONCE(!run->fid)) {	/* ninep_page_mkwrite() refuses */
		iov_iter_bvec(&from, ITER_SOURCE, run->bv, run->n, run->len);
		n = ninep_write_whole(run->fid, run->pos, &from, run->size);
		if (n >= 0 && n < run->len)
			n = -EIO;	/* a short Rwrite: the server is out of room */
	}
	/* The server stamped the file: before the tags go, as the count. */
	ninep_attr_stale(inode);
	atomic_inc(&NINEP_I(inode)->wb_gen);
	/*
	 * Counted before the tags go: a refresh that finds them gone must
	 * see the count (pairs with smp_rmb() in ninep_size_pending()).
	 */
	smp_mb__after_atomic();
	if (n < 0) {
		again = run->fid && ninep_wb_transient(inode, n);
		pr_warn_ratelimited("write-back to %s of inode %lu at %lld failed: %zd%s\n",
				    ninep_inode_session(inode)->addr ?: "fd",
				    inode->i_ino, run->pos, n,
				    again ? ", kept dirty" : "");
		if (!again)
			mapping_set_error(inode->i_mapping, n);
	}
	/*
	 * Dirtied again while still under writeback: truncation waits for
	 * that to end, so each folio is still in the mapping.
	 */
	for (i = 0; again && i < run->n; i++)
		folio_redirty_for_writepage(&wbc, run->folios[i]);
	if (run->fid)
		ninep_fid_put(run->fid);
	for (i = 0; i < run->n; i++)
		folio_end_writeback(run->folios[i]);
	return n < 0 ? n : 0;
}

static void ninep_wb_run_work(struct work_struct *work)
{
	struct ninep_wb_run *run = container_of(work, struct ninep_wb_run,
						work);
	struct ninep_wb_batch *b = run->batch;
	int err = ninep_wb_run_io(run);

	kfree(run);
	if (err)
		cmpxchg(&b->err, 0, err);
	if (atomic_dec_and_test(&b->pending))
		wake_up_all(&b->wq);
	ninep_wb_batch_put(b);
}

/* The run to add a folio to: a new one with room for wb->max if need be. */
static struct ninep_wb_run *ninep_wb_run_get(struct ninep_wb *wb)
{
	struct ninep_wb_run *run = NULL;

	if (wb->run)
		return wb->run;
	if (wb->batch)
		run = kmalloc(sizeof(*run) + wb->max * (sizeof(struct bio_vec) +
						       sizeof(struct folio *)),
			      GFP_NOFS | __GFP_NOWARN);
	if (run) {
		*run = (struct ninep_wb_run){
			.batch = wb->batch,
			.max = wb->max,
			.bv = (struct bio_vec *)(run + 1),
		};
		run->folios = (struct folio **)(run->bv + wb->max);
	} else {
		run = &wb->one;
		*run = (struct ninep_wb_run){
			.max = 1,
			.bv = &wb->one_bv,
			.folios = &wb->one_folio,
		};
	}
	run->inode = wb->inode;
	wb->run = run;
	return run;
}

/* Send the run gathered so far: to a worker, or in line short of memory. */
static void ninep_wb_send(struct ninep_wb *wb)
{
	struct ninep_fid *fid = READ_ONCE(NINEP_I(wb->inode)->wb_fid);
	struct ninep_wb_run *run = wb->run;
	int err;

	if (!run)
		return;
	wb->run = NULL;
	if (!run->n) {
		if (run != &wb->one)
			kfree(run);
		return;
	}
	run->fid = fid ? ninep_fid_get(fid) : NULL;
	if (run != &wb->one) {
		atomic_inc(&run->batch->pending);
		refcount_inc(&run->batch->ref);
		INIT_WORK(&run->work, ninep_wb_run_work);
		ninep_client_queue_work(&run->work);
		return;
	}
	err = ninep_wb_run_io(run);
	if (err && !wb->err)
		wb->err = err;
}

/*
 * Mark @folio, locked and cleared for I/O, under writeback and add it to
 * the run, sending the run first if @folio does not continue it. @unlock:
 * unlock it before anything is sent (write-back), else leave it locked
 * (laundering).
 */
static void ninep_wb_add(struct ninep_wb *wb, struct folio *folio, bool unlock)
{
	loff_t pos = folio_pos(folio);
	struct ninep_wb_run *run;
	loff_t size;
	size_t len;

	/*
	 * Taken while the folio is locked: a write(2) grows the size before
	 * it unlocks the folio it copied into (cache=loose).
	 */
	size = i_size_read(wb->inode);
	folio_start_writeback(folio);
	if (unlock)
		folio_unlock(folio);
	run = wb->run;
	if (run && run->n &&
	    (run->n == run->max || pos != run->pos + run->len))
		ninep_wb_send(wb);
	/* Wholly past the end: a truncate is dropping it. */
	if (pos >= size) {
		folio_end_writeback(folio);
		return;
	}
	run = ninep_wb_run_get(wb);
	run->size = size;
	len = min_t(loff_t, folio_size(folio), size - pos);
	if (!run->n)
		run->pos = pos;
	run->bv[run->n] = (struct bio_vec){ .bv_page = &folio->page,
					    .bv_len = len };
	run->folios[run->n++] = folio;
	run->len += len;
	if (run == &wb->one)	/* in line: no room for more */
		ninep_wb_send(wb);
}

/*
 * The gathering of @wb is over: its last run goes. With @wait, until every
 * run is answered (killably: -EINTR), then the first error of any.
 */
static int ninep_wb_finish(struct ninep_wb *wb, bool wait)
{
	struct ninep_wb_batch *b = wb->batch;
	int err = 0;

	ninep_wb_send(wb);
	if (!b)
		return wb->err;
	atomic_dec(&b->pending);
	if (wait) {
		if (wait_event_killable(b->wq, !atomic_read_acquire(&b->pending)))
			err = -EINTR;
		else
			err = READ_ONCE(b->err);
	}
	ninep_wb_batch_put(b);
	return wb->err ?: err;
}

/*
 * Wait, killably, for the folios of [@start, @end] of @mapping that are
 * under writeback now: 0, or -EINTR once a fatal signal came.
 */
static int ninep_wb_wait_killable(struct address_space *mapping, loff_t start,
				  loff_t end)
{
	pgoff_t index = start >> PAGE_SHIFT, last = end >> PAGE_SHIFT;
	struct folio_batch fbatch;
	unsigned int i, nr;
	int err = 0;

	folio_batch_init(&fbatch);
	while (!err) {
		nr = filemap_get_folios_tag(mapping, &index, last,
					    PAGECACHE_TAG_WRITEBACK, &fbatch);
		if (!nr)
			break;
		for (i = 0; i < nr && !err; i++)
			err = folio_wait_writeback_killable(fbatch.folios[i]);
		folio_batch_release(&fbatch);
		cond_resched();
	}
	return err;
}

/*
 * Start write-back of the dirty pages of [@start, @end] and wait for it,
 * killably (a killed caller returns -EINTR at once; what it started is
 * still sent, see the write-back section below).
 * The error is that of this write-back; an error stays recorded in the
 * mapping for fsync and close to report as well.
 */
int ninep_write_back_range(struct inode *inode, loff_t start, loff_t end)
{
	struct address_space *mapping = inode->i_mapping;
	int err;

	if (!mapping_tagged(mapping, PAGECACHE_TAG_DIRTY) &&
	    !mapping_tagged(mapping, PAGECACHE_TAG_WRITEBACK))
		return 0;
	err = filemap_fdatawrite_range(mapping, start, end);
	if (err == -EINTR)
		return err;
	/* Write-back others started in the range, killably (see below). */
	return err ?: ninep_wb_wait_killable(mapping, start, end);
}

/*
 * Drop every cached page of @inode (a dirty one is written back first, by
 * ->launder_folio). A page held elsewhere at that moment (a read copying
 * from it, a pipe a mapping was spliced into, a mapping dirtying it again
 * once laundered) cannot go: invalidate_inode_pages2() drops the others
 * and says -EBUSY. The dirty pages are then sent and it tries once more.
 */
int ninep_cache_drop(struct inode *inode)
{
	/* invalidate_inode_pages2() would wait on write-back uninterruptibly. */
	int err = ninep_wb_wait_killable(inode->i_mapping, 0, LLONG_MAX) ?:
		  invalidate_inode_pages2(inode->i_mapping);

	if (err != -EBUSY)
		return err;
	err = ninep_write_back_range(inode, 0, LLONG_MAX);
	return err ?: invalidate_inode_pages2(inode->i_mapping);
}

/*
 * One folio alone: ->writepage (reclaim, never waits) and ->launder_folio
 * (waits, killably; the folio stays locked).
 */
static int ninep_folio_write_back(struct folio *folio, bool unlock, bool wait)
{
	struct ninep_wb wb;

	ninep_wb_init(&wb, folio->mapping->host, 1);
	ninep_wb_add(&wb, folio, unlock);
	return ninep_wb_finish(&wb, wait);
}

static int ninep_writepage(struct page *page, struct writeback_control *wbc)
{
	return ninep_folio_write_back(page_folio(page), true, false);
}

static int ninep_wb_one(NINEP_WCP_ENTRY *entry, struct writeback_control *wbc,
			void *data)
{
	ninep_wb_add(data, ninep_wcp_folio(entry), true);
	return 0;
}

/*
 * The dirty folios of a mapping, in runs. A failed run does not stop the
 * rest (each is tried). WB_SYNC_ALL waits for them all and returns the
 * first error; WB_SYNC_NONE (the flusher, early write-back, reclaim)
 * returns once they are handed out. A WB_SYNC_ALL caller killed while it
 * waits gets -EINTR, every dirty folio being on its way all the same.
 */
static int ninep_writepages(struct address_space *mapping,
			    struct writeback_control *wbc)
{
	enum writeback_sync_modes mode = wbc->sync_mode;
	bool killed = false;
	struct ninep_wb wb;
	int err, err2;

	if (mode == WB_SYNC_ALL &&
	    ninep_wb_wait_killable(mapping,
				   wbc->range_cyclic ? 0 : wbc->range_start,
				   wbc->range_cyclic ? LLONG_MAX : wbc->range_end)) {
		/* Folios under writeback now are skipped, not waited for. */
		killed = true;
		wbc->sync_mode = WB_SYNC_NONE;
	}
	ninep_wb_init(&wb, mapping->host, NINEP_WB_MAX);
	err = write_cache_pages(mapping, wbc, ninep_wb_one, &wb);
	wbc->sync_mode = mode;
	err2 = ninep_wb_finish(&wb, mode == WB_SYNC_ALL && !killed);
	if (killed)
		return -EINTR;
	return err ?: err2;
}

/* invalidate_inode_pages2() met a dirty folio: it goes to the server first. */
static int ninep_launder_folio(struct folio *folio)
{
	if (!folio_clear_dirty_for_io(folio))
		return 0;
	return ninep_folio_write_back(folio, false, true);
}

/*
 * A shared mapping's first write to a page (cache=mmap). The page is
 * locked, waits for a write-back in flight, and is marked dirty; all under
 * the mapping's invalidate_lock (shared, taken before the page lock as
 * filemap_fault() does), so that no size change is under way. mtime is
 * not stamped here as a local file system would: the server sets it when
 * the Twrite lands, and the next getattr would replace a local stamp.
 */
static vm_fault_t ninep_page_mkwrite(struct vm_fault *vmf)
{
	struct folio *folio = page_folio(vmf->page);
	struct inode *inode = file_inode(vmf->vma->vm_file);
	vm_fault_t ret = VM_FAULT_LOCKED;

	if (!READ_ONCE(NINEP_I(inode)->wb_fid))
		return VM_FAULT_SIGBUS;
	sb_start_pagefault(inode->i_sb);
	/* A size change under way ends first (ninep_size_change_begin()). */
	filemap_invalidate_lock_shared(inode->i_mapping);
	folio_lock(folio);
	if (folio->mapping != inode->i_mapping ||
	    folio_pos(folio) >= i_size_read(inode)) {
		/* Truncated meanwhile: let the fault start over. */
		folio_unlock(folio);
		ret = VM_FAULT_NOPAGE;
		goto out;
	}
	folio_wait_writeback(folio);
	folio_mark_dirty(folio);
out:
	filemap_invalidate_unlock_shared(inode->i_mapping);
	sb_end_pagefault(inode->i_sb);
	return ret;
}

static const struct vm_operations_struct ninep_file_vm_ops = {
	.fault		= filemap_fault,
	.map_pages	= filemap_map_pages,
	.page_mkwrite	= ninep_page_mkwrite,
};

int ninep_file_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct inode *inode = file_inode(file);

	/*
	 * Without cache=mmap or loose nothing writes a dirty page back: a
	 * shared mapping must be read-only, and one asked for read-only (of
	 * a file open for writing) stays so: mprotect(PROT_WRITE) on it
	 * fails with EACCES. Its pages are kept coherent as any cached
	 * page: write(2) drops those it overwrote, a truncate those past
	 * the end.
	 */
	if (!ninep_cache_writeback(inode)) {
		if ((vma->vm_flags & (VM_SHARED | VM_WRITE)) == VM_SHARED)
			ninep_vm_flags_clear(vma, VM_MAYWRITE);
		return generic_file_readonly_mmap(file, vma);
	}
	if ((vma->vm_flags & (VM_SHARED | VM_MAYWRITE)) ==
	    (VM_SHARED | VM_MAYWRITE))
		ninep_keep_wb_fid(inode, ninep_file_fid(file));
	file_accessed(file);
	vma->vm_ops = &ninep_file_vm_ops;
	return 0;
}

/*
 * A size change of a regular file whose pages are written back (cache=mmap,
 * loose) holds the mapping's invalidate_lock exclusively from before the
 * write-back of its tail through the server's reply and the dropping of
 * the pages past the new end (ninep_size_change_end()), and
 * ninep_page_mkwrite() takes it shared. So while the server truncates, no
 * mapping dirties a page again: one dirtied before is sent here and waited
 * for, a store after faults in ninep_page_mkwrite() and waits, then finds
 * its page gone (SIGBUS past the end) or the new size in i_size, to which
 * write-back clamps what it sends (ninep_wb_add()). Without this a page
 * dirtied past the new end meanwhile could be sent by the flusher, msync or
 * early write-back after the server truncated, making the file larger
 * again. write(2) is kept out by the inode lock, which truncate(2) and
 * ftruncate(2) hold around this. cache=none maps nothing writable and
 * takes no lock. The other ways the size goes down:
 * - open(O_TRUNC): the Topen (Tlopen) truncates, under the same lock
 *   (ninep_file_topen_trunc()); the setattr with ATTR_OPEN that follows
 *   sends nothing and drops the pages again, under the lock too.
 * - a refresh seeing a smaller size from the server (another client
 *   truncated): only i_size goes down (ninep_i_size_refresh(), never while
 *   cache=mmap or loose holds bytes not yet sent), pages stay until the next open
 *   drops them; no lock: there is no local truncate to order a store
 *   against, and from then on write-back clamps to the new size and
 *   ninep_page_mkwrite() refuses pages past it.
 * - fallocate: not offered (no ->fallocate).
 * Returns whether the lock is held, for ninep_size_change_end().
 */
bool ninep_size_change_begin(struct inode *inode, const struct iattr *iattr)
{
	if (!(iattr->ia_valid & ATTR_SIZE) || !S_ISREG(inode->i_mode) ||
	    !ninep_cache_writeback(inode))
		return false;
	filemap_invalidate_lock(inode->i_mapping);
	/*
	 * The dirty pages from the new end on go first and write-back in
	 * flight there finishes, so no Twrite of them lands after the
	 * truncate. An error stays recorded for fsync; it is not the
	 * truncate's. With ATTR_OPEN the server truncated already.
	 */
	if (!(iattr->ia_valid & ATTR_OPEN))
		ninep_write_back_range(inode,
				       round_down(iattr->ia_size, PAGE_SIZE),
				       LLONG_MAX);
	return true;
}

void ninep_size_change_end(struct inode *inode, bool locked)
{
	if (locked)
		filemap_invalidate_unlock(inode->i_mapping);
}

/*
 * stat(2) in cache=loose: the bytes written here go to the server first,
 * so that the size and times it reports count them. A failure stays
 * recorded for fsync and close; stat shows what the server holds.
 */
void ninep_getattr_write_back(struct inode *inode)
{
	if (S_ISREG(inode->i_mode) && ninep_cache_loose(inode))
		ninep_write_back_range(inode, 0, LLONG_MAX);
}

/*
 * The server took a new size: the cached pages past it go (unmapped from
 * every mapping) and the rest of the last page reads as zeros. Done even
 * when the size we hold already matches, since a refresh may have set it.
 */
void ninep_size_truncate_pages(struct inode *inode, loff_t size)
{
	ninep_i_size_set(inode, size, false);
	truncate_pagecache(inode, size);
	ninep_fscache_resize(inode);
}

/* Passes over the dirty pages at evict while the server times out. */
#define NINEP_EVICT_TRIES	3

/*
 * Dirty pages go back before the inode goes; so does the write-back fid.
 * Early write-back still queued is cancelled (this sends its pages), one
 * under way is waited for. Pages a timed-out request kept dirty get
 * another pass or two; over a dead connection (no recovery exists) or
 * after that, truncate_inode_pages_final() drops what is still dirty, so
 * umount ends. It also waits, uninterruptibly, for the runs that workers
 * still send, killed caller or not: their folios are under writeback.
 * The inode is clear when this returns.
 */
void ninep_evict_pages(struct inode *inode)
{
	struct ninep_inode *vi = NINEP_I(inode);
	int tries = NINEP_EVICT_TRIES, err;

	cancel_work_sync(&vi->wb_work);
	while (vi->wb_fid && tries--) {
		err = ninep_write_back_range(inode, 0, LLONG_MAX);
		if (err != -ETIMEDOUT ||
		    ninep_client_dead(ninep_inode_session(inode)->clnt))
			break;
	}
	truncate_inode_pages_final(&inode->i_data);
	ninep_fscache_evict(inode);
	clear_inode(inode);
	if (vi->wb_fid) {
		ninep_fid_put(vi->wb_fid);
		vi->wb_fid = NULL;
	}
}

const struct address_space_operations ninep_aops = {
	.read_folio	= ninep_read_folio,
	.readahead	= ninep_readahead,
	.writepage	= ninep_writepage,
	.writepages	= ninep_writepages,
	.write_begin	= ninep_write_begin,
	.write_end	= ninep_write_end,
	.dirty_folio	= filemap_dirty_folio,
	.launder_folio	= ninep_launder_folio,
	.migrate_folio	= filemap_migrate_folio,
	.direct_IO	= noop_direct_IO,	/* O_DIRECT: in the iters */
};
