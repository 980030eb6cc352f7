// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tread and Twrite of 9p2000.ko: one read(2) or write(2) split into chunks
 * of what one message carries, several of them in flight where that is safe.
 */
#define pr_fmt(fmt) "9p2000: " fmt

#include <linux/err.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uio.h>

#include "rpc.h"

/* Read/write requests kept in flight at once for one large read or write. */
#define NINEP_IO_WINDOW		4

/* Largest payload of one Tread/Twrite on @fid. */
static u32 io_chunk(const struct ninep_fid *fid)
{
	u32 max = fid->clnt->msize - V9P_IOHDRSZ;

	return fid->iounit && fid->iounit < max ? fid->iounit : max;
}

/*
 * Directories must be read sequentially (each offset follows the last
 * reply), and append-only files ignore offsets: no pipelining on either.
 */
static unsigned int io_window(const struct ninep_fid *fid)
{
	if (fid->qid.type & (V9P_QTDIR | V9P_QTAPPEND))
		return 1;
	return NINEP_IO_WINDOW;
}

/*
 * Chunks from this size up, of a user buffer, go zero-copy where the
 * transport can (NINEP_TRANS_F_ZC): the device moves the bytes to or from the
 * caller's pages. Smaller ones are copied: a zero-copy request costs a
 * fixed amount more (the payload descriptor, page references taken and
 * put, a read's pages dirtied), and over virtio under TCG 4 KiB reads and
 * writes measured slower zero-copy than copied, while the copies of a
 * 64 KiB chunk already cost more than that. Only the last chunk of a call
 * can fall below it, so copied chunks never precede zero-copy ones.
 */
#define NINEP_ZC_MIN		(64 * 1024)

static bool io_zc(const struct ninep_client *c, const struct iov_iter *it,
		  u32 count)
{
	return (c->trans.ops->flags & NINEP_TRANS_F_ZC) && user_backed_iter(it) &&
	       count >= NINEP_ZC_MIN;
}

/* Put the page references @zc still holds (none once the transport took them). */
void ninep_zc_free(struct ninep_zc *zc)
{
	unsigned int i;

	for (i = 0; i < zc->nr; i++)
		put_page(zc->bv[i].bv_page);
	kfree(zc);
}

/*
 * Take references to the pages under the next *@count bytes of @it (with
 * write access for a read, @rd), advancing @it past them. Fewer bytes may
 * be taken (*@count says how many): a buffer in many small segments may
 * need more entries than a payload may have, and a fault ends the chunk
 * where it is. -EFAULT if not one byte could be taken. A read's pages are
 * marked dirty.
 */
static struct ninep_zc *zc_pin(const struct ninep_client *c,
			       struct iov_iter *it, u32 *count, bool rd)
{
	unsigned int max = NINEP_ZC_MAX_PAGES(c->msize);
	struct ninep_zc *zc;
	struct page **pages;
	unsigned int i;
	ssize_t n = 0;
	u32 got = 0;

	zc = kmalloc(struct_size(zc, bv, max) + max * sizeof(*pages),
		     GFP_NOFS);
	if (!zc)
		return ERR_PTR(-ENOMEM);
	pages = (struct page **)&zc->bv[max];
	zc->nr = 0;
	zc->rd = rd;
	/* Of the replies to a Tread, Rread carries the payload, after its count. */
	zc->rhdr = V9P_RREAD_HDRSZ;
	zc->rtype = V9P_RREAD;
	while (got < *count && zc->nr < max) {
		unsigned int np;
		size_t off, done = 0;

		n = iov_iter_get_pages2(it, pages, *count - got, max - zc->nr,
					&off);
		if (n <= 0)
			break;
		np = DIV_ROUND_UP(off + n, PAGE_SIZE);
		for (i = 0; i < np; i++) {
			u32 len = min_t(size_t, n - done, PAGE_SIZE - off);

			zc->bv[zc->nr++] = (struct bio_vec){
				.bv_page = pages[i],
				.bv_len = len,
				.bv_offset = off,
			};
			done += len;
			off = 0;
		}
		got += n;
	}
	zc->len = got;
	if (!got) {
		kfree(zc);
		return ERR_PTR(n < 0 ? n : -EFAULT);
	}
	/*
	 * Dirty before the device writes, as direct I/O does: the pages are
	 * then put without a page lock when the reply comes, unless they were
	 * written back meanwhile (see trans_virtio.c), and then dirtied again.
	 * That check also covers a page found dirty here and cleaned before
	 * the reply, so one dirty already (a buffer read into before) costs
	 * no page lock.
	 */
	for (i = 0; rd && i < zc->nr; i++)
		if (!PageDirty(zc->bv[i].bv_page))
			set_page_dirty_lock(zc->bv[i].bv_page);
	*count = got;
	return zc;
}

struct io_slot {
	struct ninep_req *req;
	u32 count;
};

/*
 * Queue a Tread of *@count bytes at @off, zero-copy into @to if io_zc()
 * (then *@count may come back smaller, and @to is advanced).
 */
static struct ninep_req *read_start(struct ninep_fid *fid, u64 off,
				    u32 *count, struct iov_iter *to)
{
	struct ninep_client *c = fid->clnt;
	struct v9p_fcall f = { .type = V9P_TREAD };
	struct ninep_zc *zc = NULL;
	struct ninep_req *req;
	int err;

	if (io_zc(c, to, *count)) {
		zc = zc_pin(c, to, count, true);
		if (IS_ERR(zc))
			return ERR_CAST(zc);
	}
	req = ninep_req_new(c, zc ? NINEP_SMALL_RBUF : V9P_RREAD_HDRSZ + *count,
			    REQ_WAIT);
	if (IS_ERR(req)) {
		if (zc)
			ninep_zc_free(zc);
		return req;
	}
	req->zc = zc;
	f.tread.fid = fid->fid;
	f.tread.offset = off;
	f.tread.count = *count;
	err = ninep_req_pack(c, req, &f);
	if (!err)
		err = ninep_req_send(c, req);
	if (err) {
		ninep_req_drop(c, req);
		return ERR_PTR(err);
	}
	return req;
}

/* Wait for one I/O request; consumes the reference on any error. */
static int io_wait(struct ninep_client *c, struct ninep_req *req)
{
	bool abandoned;
	int err;

	err = ninep_req_wait(c, req, NULL, &abandoned);
	if (err && !abandoned)
		ninep_req_put(req);
	return err;
}

/*
 * Let requests issued past a short or failed one finish, unused. True if
 * one of them was a Twrite that landed all the same.
 */
static bool io_discard(struct ninep_client *c, struct io_slot *slots,
		       unsigned int head, unsigned int n)
{
	bool landed = false;
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct ninep_req *req = slots[(head + i) % NINEP_IO_WINDOW].req;

		if (io_wait(c, req))
			continue;
		if (req->rc.type == V9P_RWRITE && req->rc.rwrite.count)
			landed = true;
		ninep_req_put(req);
	}
	return landed;
}

/*
 * Queue a Twrite of the next *@count bytes of @from at @off: zero-copy if
 * io_zc() (then *@count may come back smaller), else copied after the
 * header. @from is advanced past them.
 */
static struct ninep_req *write_start(struct ninep_fid *fid, u64 off,
				     u32 *count, struct iov_iter *from)
{
	struct ninep_client *c = fid->clnt;
	struct v9p_fcall f = { .type = V9P_TWRITE };
	struct ninep_zc *zc = NULL;
	struct ninep_req *req;
	u32 inline_len;
	int hlen, err;

	if (io_zc(c, from, *count)) {
		zc = zc_pin(c, from, count, false);
		if (IS_ERR(zc))
			return ERR_CAST(zc);
	}
	req = ninep_req_new(c, NINEP_SMALL_RBUF, REQ_WAIT);
	if (IS_ERR(req)) {
		if (zc)
			ninep_zc_free(zc);
		return req;
	}
	req->zc = zc;
	inline_len = zc ? 0 : *count;
	f.tag = req->tag;
	f.twrite.fid = fid->fid;
	f.twrite.offset = off;
	f.twrite.count = *count;
	req->ttype = V9P_TWRITE;
	err = -ENOMEM;
	req->tbuf = ninep_buf_alloc(c, V9P_TWRITE_HDRSZ + inline_len,
				    &req->tpooled);
	if (!req->tbuf)
		goto fail;
	hlen = v9p_pack_io_hdr(&f, req->tbuf, V9P_TWRITE_HDRSZ + inline_len);
	if (hlen < 0) {
		err = hlen;
		goto fail;
	}
	if (copy_from_iter(req->tbuf + hlen, inline_len, from) != inline_len) {
		err = -EFAULT;
		goto fail;
	}
	req->tlen = hlen + inline_len;
	req->rmax = ninep_reply_max(c, &f, zc);
	err = ninep_req_send(c, req);
	if (err)
		goto fail;
	return req;
fail:
	ninep_req_drop(c, req);
	return ERR_PTR(err);
}

/*
 * Read into or write from @it at @off: chunks of io_chunk() bytes.
 *
 * The rule for having several chunks in flight: chunks go out ahead of the
 * replies to earlier ones only on a file whose length, as the server last
 * reported it (@known_len), is not 0. A server that gives a file a length
 * serves it by offset, so replies in any order put the bytes where one
 * chunk at a time would. A stream, FIFO or device file (which a server may
 * serve ignoring offsets, and a threaded one may answer out of order)
 * reports length 0: it is read and written one chunk at a time, in order,
 * and so is a file that is still empty (a new one, for its first write),
 * and so are directories and append-only files. A read that the known
 * length says ends within its first chunk starts with that chunk alone and
 * widens the window once it came back full, so such a file costs exactly
 * one Tread; one that reaches past it sends the chunks of the window at
 * once (a length that is stale costs a Tread that comes back short).
 *
 * A chunk that fails or comes back short ends the call with the count so
 * far (or its error, if none), and @it is left past exactly the bytes that
 * count says, whatever chunks were taken from it ahead. If a write chunk sent ahead of it landed
 * all the same, no count tells user space what the file now holds: the
 * call fails with -EIO instead. With @whole (write-back), a failed chunk
 * fails the call with its own error, whatever went before or after: the
 * caller sends the whole range again, or records that error.
 */
static ssize_t io_run(struct ninep_fid *fid, u64 off, struct iov_iter *it,
		      bool rd, u64 known_len, bool whole)
{
	struct ninep_client *c = fid->clnt;
	struct io_slot slots[NINEP_IO_WINDOW];
	unsigned int head = 0, inflight = 0;
	unsigned int wide = known_len ? io_window(fid) : 1;
	size_t start = iov_iter_count(it), left = start, total = 0;
	u32 chunk = io_chunk(fid);
	unsigned int window = rd && known_len <= off + chunk ? 1 : wide;
	u64 next = off;
	ssize_t ret;
	int err = 0;

	if (fatal_signal_pending(current))
		return -EINTR;
	while (left || inflight) {
		struct ninep_req *req;
		u32 want, got;

		while (left && inflight < window) {
			u32 n = min_t(size_t, left, chunk);

			req = rd ? read_start(fid, next, &n, it) :
				   write_start(fid, next, &n, it);
			if (IS_ERR(req)) {
				err = PTR_ERR(req);
				left = 0;
				break;
			}
			slots[(head + inflight) % NINEP_IO_WINDOW] =
				(struct io_slot){ .req = req, .count = n };
			inflight++;
			next += n;
			left -= n;
		}
		if (!inflight)
			break;
		req = slots[head].req;
		want = slots[head].count;
		head = (head + 1) % NINEP_IO_WINDOW;
		inflight--;
		err = io_wait(c, req);
		if (err)
			break;
		got = rd ? req->rc.rread.count : req->rc.rwrite.count;
		if (got > want) {
			pr_err("%s of %u bytes for %u asked\n",
			       v9p_type_name(req->rc.type), got, want);
			ninep_req_put(req);
			ninep_client_fail(c, -EPROTO, "I/O reply larger than asked");
			err = -EIO;
			break;
		}
		/* Zero-copy: the bytes are in place already. */
		if (rd && !req->zc &&
		    copy_to_iter(req->rc.rread.data, got, it) != got) {
			ninep_req_put(req);
			err = -EFAULT;
			break;
		}
		ninep_req_put(req);
		total += got;
		if (got < want)
			break;
		window = wide;
	}
	ret = total && !(whole && err) ? total : err;
	if (io_discard(c, slots, head, inflight) && !rd && !whole) {
		pr_warn_ratelimited("write to %s failed at %llu while later chunks landed: -EIO\n",
				    c->peer, off + total);
		ret = -EIO;
	}
	/* Chunks taken ahead of a short or failed one give their bytes back. */
	left = start - iov_iter_count(it);
	if (left > max_t(ssize_t, ret, 0))
		iov_iter_revert(it, left - max_t(ssize_t, ret, 0));
	return ret;
}

ssize_t ninep_read(struct ninep_fid *fid, u64 off, struct iov_iter *to,
		   u64 known_len)
{
	return io_run(fid, off, to, true, known_len, false);
}

ssize_t ninep_write(struct ninep_fid *fid, u64 off, struct iov_iter *from,
		    u64 known_len)
{
	return io_run(fid, off, from, false, known_len, false);
}

ssize_t ninep_write_whole(struct ninep_fid *fid, u64 off,
			  struct iov_iter *from, u64 known_len)
{
	return io_run(fid, off, from, false, known_len, true);
}
