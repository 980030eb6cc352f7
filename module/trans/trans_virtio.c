// SPDX-License-Identifier: GPL-2.0-only
/*
 * virtio transport of 9p2000.ko: the 9P device of QEMU (virtio-9p-pci,
 * -virtfs), found by its mount tag.
 *
 * The device works in requests: the driver posts one buffer for the message
 * and one for the reply, the device hands both back when it answered. The
 * client core expects a byte stream, so this file emulates one: send_msg
 * copies each whole message into a block (message, then room for the
 * longest reply the client says it may get) and posts it; replies are
 * queued in the order the device completes them and handed out by
 * recv/recv_nb byte for byte, a cursor keeping the place in the reply being
 * read. What a message is, this file never reads from it: the client says.
 *
 * Large reads and writes of user buffers skip both copies (a zero-copy
 * payload in send_msg): the block holds the Tread or the Twrite's header
 * and the reply's header, and the caller's pages follow in the
 * scatterlist, so the device reads a Twrite's data from them and writes an
 * Rread's data into them. The block holds the page references from the
 * moment it is posted until the device hands it back (or the device goes),
 * however long the caller waits. The client marked a Tread's pages dirty
 * before sending, as direct I/O does; when the reply is handed out, the
 * pages are put at once if they are all still dirty. Otherwise (written
 * back meanwhile), and for a block handed back in the interrupt callback
 * unanswered, a work item puts them, marking a Tread's dirty again first:
 * that may sleep on a page lock, which the receiver must never wait for
 * (its holder may be waiting for a reply).
 *
 * Blocks are kept for reuse, a few per channel: a fresh one costs more than
 * the copies (a large allocation is zeroed first on kernels that initialise
 * memory on allocation, and a vmalloc'd one is mapped and later unmapped
 * page by page). Small blocks are one kmalloc; large ones, sized for msize,
 * are physically contiguous pages when the allocator has them (two
 * scatter-gather entries per request) and vmalloc'd ones otherwise. A block
 * goes back to the free list only once the device handed it back.
 *
 * The driver is "9p2000_virtio", not the in-tree "9pnet_virtio", and has no
 * MODULE_DEVICE_TABLE on purpose: udev must never load this module for a
 * 9P device in place of the in-tree driver. Whichever driver is loaded first
 * binds the free devices; sysfs unbind/bind moves one from one to the other.
 */
#define pr_fmt(fmt) "9p2000: " fmt

#include <linux/errno.h>
#include <linux/gfp.h>
#include <linux/highmem.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/virtio.h>
#include <linux/virtio_9p.h>
#include <linux/virtio_config.h>
#include <linux/virtio_ids.h>
#include <linux/virtio_ring.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "client.h"
#include "stream.h"

/* Longest mount tag taken from a device (QEMU allows 255 bytes). */
#define VT_MOUNT_TAG_MAX		255
/*
 * Room beside a whole msize of message in a large block, for the reply: a
 * large block then serves any later request of the mount.
 */
#define VT_SMALL_REPLY		8192
#define VT_HDRSZ		7	/* size[4] type[1] tag[2] */

/*
 * A small block is one kmalloc of this size, header included: every request
 * whose message and reply room fit, and every zero-copy one, for which its
 * scatterlist has room for the pages of a whole payload. Blocks kept for reuse per channel, by
 * class: at most VT_KEEP_BIG x (msize + VT_SMALL_REPLY) bytes stay
 * allocated per mount between requests.
 */
#define VT_SMALL_BLOCK		(16 * 1024)
#define VT_KEEP_SMALL		16
#define VT_KEEP_BIG		8
/* Entries of a small block's scatterlist: two areas, one payload's pages. */
#define VT_SMALL_SG		(2 + NINEP_ZC_MAX_PAGES(NINEP_VIRTIO_MAX_MSIZE))

/*
 * One request: the message and the room for its reply in one block, with
 * the scatterlist that describes them. A small block holds its data after
 * sg[]; a large one points to pages of its own.
 */
struct vt_buf {
	struct list_head node;		/* on vt_chan.done or a free list */
	u64 gen;			/* connection it was posted for */
	u32 tlen;			/* message bytes at tbuf */
	u32 rcap;			/* reply room at rbuf */
	u32 rlen;			/* reply bytes (its size[4]) */
	u8 *tbuf;
	u8 *rbuf;
	u8 *data;			/* the block's bytes: tbuf, then rbuf */
	size_t cap;			/* bytes at data */
	bool big;			/* data is pages of its own */
	unsigned int maxsg;		/* entries sg[] has room for */
	unsigned int nout;		/* entries of the message, */
	unsigned int nin;		/* then of the reply room */
	/* Zero-copy: the payload's pages are zc_nr entries from zc_first. */
	unsigned int zc_first;
	unsigned int zc_nr;
	u32 zc_len;			/* payload bytes in them */
	bool zc_rd;			/* a Tread: the device writes them */
	u32 zc_hdr;			/* its reply's bytes before them */
	u8 zc_rtype;			/* the reply type that fills them */
	unsigned int pinned;		/* page references this block holds */
	struct scatterlist sg[];
};

/* One 9P device bound to this driver. */
struct vt_chan {
	struct list_head node;		/* on vt_chans, under vt_lock */
	struct virtio_device *vdev;
	struct virtqueue *vq;
	char *tag;			/* NUL-terminated copy of the mount tag */
	bool inuse;			/* a connection holds it; under vt_lock */
	bool removed;			/* off vt_chans; close() frees it */

	/* Everything below is under lock (taken in the vq callback too). */
	spinlock_t lock;
	bool dead;			/* device gone: everything is -EIO */
	bool aborted;			/* abort() of the connection */
	int err;			/* malformed reply: the connection fails */
	u64 gen;			/* bumped at every connect and close */
	u64 completions;		/* used buffers seen: room in the ring */
	struct ninep_trans *t;		/* the connection, NULL if none */
	struct list_head done;		/* answered, in completion order */
	wait_queue_head_t wq;		/* ring room, replies, death */
	struct list_head free_small;	/* blocks for reuse, the device */
	struct list_head free_big;	/* holds none of them */
	unsigned int nfree_small;
	unsigned int nfree_big;
	struct list_head reap;		/* handed back, pages to put */
	struct work_struct reap_work;

	/* Owned by the receiver (recv/recv_nb never run concurrently). */
	struct vt_buf *cur;		/* reply being handed out */
	u32 cur_off;
};

static LIST_HEAD(vt_chans);
static DEFINE_MUTEX(vt_lock);

/* size[4] of a message without an unaligned-access helper. */
static u32 vt_le32(const u8 *p)
{
	return p[0] | (p[1] << 8) | (p[2] << 16) | ((u32)p[3] << 24);
}

static unsigned int vt_pages(const void *p, size_t len)
{
	return DIV_ROUND_UP(offset_in_page(p) + len, PAGE_SIZE);
}

/*
 * Describe @len bytes at @p: one entry for kmalloc memory, one per page for
 * vmalloc memory. Returns the entries used.
 */
static unsigned int vt_map(struct scatterlist *sg, void *p, size_t len)
{
	unsigned int n = 0;

	if (!is_vmalloc_addr(p)) {
		sg_set_buf(sg, p, len);
		return 1;
	}
	while (len) {
		size_t off = offset_in_page(p);
		size_t take = min_t(size_t, len, PAGE_SIZE - off);

		sg_set_page(&sg[n++], vmalloc_to_page(p), take, off);
		p += take;
		len -= take;
	}
	return n;
}

/* Bytes of a block header with room for @nsg scatterlist entries. */
static size_t vt_hdr_size(unsigned int nsg)
{
	struct vt_buf *b = NULL;

	return struct_size(b, sg, nsg);
}

/*
 * Put the page references @b holds, a Tread's pages marked dirty first, as
 * direct I/O does: the device wrote them. May sleep (the page lock).
 */
static void vt_buf_unpin(struct vt_buf *b)
{
	unsigned int i;

	for (i = 0; i < b->pinned; i++) {
		struct page *page = sg_page(&b->sg[b->zc_first + i]);

		if (b->zc_rd && !PageDirty(page))
			set_page_dirty_lock(page);
		put_page(page);
	}
	b->pinned = 0;
}

/*
 * Put @b's pages now if that needs no page lock: a Twrite's, or a Tread's
 * that are all still dirty. Process context.
 */
static void vt_buf_unpin_fast(struct vt_buf *b)
{
	unsigned int i;

	for (i = 0; b->zc_rd && i < b->pinned; i++)
		if (!PageDirty(sg_page(&b->sg[b->zc_first + i])))
			return;
	for (i = 0; i < b->pinned; i++)
		put_page(sg_page(&b->sg[b->zc_first + i]));
	b->pinned = 0;
}

/* Frees @b and puts its pages: a context that may sleep. */
static void vt_buf_free(struct vt_buf *b)
{
	vt_buf_unpin(b);
	if (b->big) {
		if (is_vmalloc_addr(b->data))
			vfree(b->data);
		else
			free_pages_exact(b->data, b->cap);
	}
	kfree(b);
}

static void vt_buf_free_list(struct list_head *list)
{
	struct vt_buf *b, *tmp;

	list_for_each_entry_safe(b, tmp, list, node)
		vt_buf_free(b);
}

static bool vt_small(size_t need)
{
	return need + vt_hdr_size(VT_SMALL_SG) <= VT_SMALL_BLOCK;
}

/*
 * A new block with room for @need bytes; NULL without memory. A large one
 * is sized for @msize so that it serves any later request of the mount.
 * Called in a NOFS scope.
 */
static struct vt_buf *vt_buf_alloc(size_t need, u32 msize)
{
	size_t hdr = vt_hdr_size(VT_SMALL_SG);
	struct vt_buf *b;
	size_t cap;
	void *data;

	if (vt_small(need)) {
		b = kmalloc(VT_SMALL_BLOCK, GFP_KERNEL);
		if (!b)
			return NULL;
		b->data = (u8 *)b + hdr;
		b->cap = VT_SMALL_BLOCK - hdr;
		b->big = false;
		b->maxsg = VT_SMALL_SG;
		b->pinned = 0;
		return b;
	}
	cap = PAGE_ALIGN(max_t(size_t, need, (size_t)msize + VT_SMALL_REPLY));
	/* Contiguous pages if there are some at once, else vmalloc. */
	data = alloc_pages_exact(cap, GFP_KERNEL | __GFP_NORETRY |
				 __GFP_NOWARN);
	if (!data)
		data = vmalloc(cap);
	if (!data)
		return NULL;
	/* vmalloc'd: each of the two areas spans at most its pages plus one. */
	hdr = vt_hdr_size(is_vmalloc_addr(data) ? cap / PAGE_SIZE + 2 : 2);
	b = kmalloc(hdr, GFP_KERNEL);
	if (!b) {
		if (is_vmalloc_addr(data))
			vfree(data);
		else
			free_pages_exact(data, cap);
		return NULL;
	}
	b->data = data;
	b->cap = cap;
	b->big = true;
	b->maxsg = is_vmalloc_addr(data) ? cap / PAGE_SIZE + 2 : 2;
	b->pinned = 0;
	return b;
}

/* A kept block with room for @need bytes, or NULL. */
static struct vt_buf *vt_buf_reuse(struct vt_chan *ch, size_t need)
{
	struct vt_buf *b = NULL, *drop = NULL;
	unsigned long flags;
	bool small;

	small = vt_small(need);
	spin_lock_irqsave(&ch->lock, flags);
	if (small && ch->nfree_small) {
		b = list_first_entry(&ch->free_small, struct vt_buf, node);
		ch->nfree_small--;
		list_del(&b->node);
	} else if (!small && ch->nfree_big) {
		b = list_first_entry(&ch->free_big, struct vt_buf, node);
		ch->nfree_big--;
		list_del(&b->node);
		if (b->cap < need) {
			/* Kept from a larger msize than this one's: never. */
			drop = b;
			b = NULL;
		}
	}
	spin_unlock_irqrestore(&ch->lock, flags);
	if (drop)
		vt_buf_free(drop);
	return b;
}

/*
 * Done with @b, which the device does not hold: keep it for the next
 * request if the channel has a connection and room, else free it. Its
 * pages, if it holds some, go first, from the reap work. Any context;
 * takes ch->lock.
 */
static void vt_buf_put(struct vt_chan *ch, struct vt_buf *b)
{
	unsigned long flags;
	bool kept = false;

	spin_lock_irqsave(&ch->lock, flags);
	if (b->pinned) {
		list_add_tail(&b->node, &ch->reap);
		spin_unlock_irqrestore(&ch->lock, flags);
		schedule_work(&ch->reap_work);
		return;
	}
	if (ch->t && !ch->dead) {
		if (!b->big && ch->nfree_small < VT_KEEP_SMALL) {
			list_add(&b->node, &ch->free_small);
			ch->nfree_small++;
			kept = true;
		} else if (b->big && ch->nfree_big < VT_KEEP_BIG) {
			list_add(&b->node, &ch->free_big);
			ch->nfree_big++;
			kept = true;
		}
	}
	spin_unlock_irqrestore(&ch->lock, flags);
	if (!kept)
		vt_buf_free(b);
}

/* The reap work: put the pages of blocks handed back, then the blocks. */
static void vt_reap(struct work_struct *work)
{
	struct vt_chan *ch = container_of(work, struct vt_chan, reap_work);
	struct vt_buf *b, *tmp;
	unsigned long flags;
	LIST_HEAD(list);

	spin_lock_irqsave(&ch->lock, flags);
	list_splice_init(&ch->reap, &list);
	spin_unlock_irqrestore(&ch->lock, flags);
	list_for_each_entry_safe(b, tmp, &list, node) {
		list_del(&b->node);
		vt_buf_unpin(b);
		vt_buf_put(ch, b);
	}
}

/* Take the kept blocks off @ch onto @list; ch->lock held. */
static void vt_free_lists_take(struct vt_chan *ch, struct list_head *list)
{
	list_splice_init(&ch->free_small, list);
	list_splice_init(&ch->free_big, list);
	ch->nfree_small = 0;
	ch->nfree_big = 0;
}

/* A block, kept or new, with room for @need bytes; NULL without memory. */
static struct vt_buf *vt_buf_get(struct vt_chan *ch, size_t need, u32 msize)
{
	unsigned int nofs;
	struct vt_buf *b;

	b = vt_buf_reuse(ch, need);
	if (!b) {
		/* A scope rather than GFP_NOFS: 6.1's vmalloc() takes no gfp. */
		nofs = memalloc_nofs_save();
		b = vt_buf_alloc(need, msize);
		memalloc_nofs_restore(nofs);
	}
	return b;
}

/* Scatterlist entries of @len bytes at @p (see vt_map()). */
static unsigned int vt_nents(const void *p, size_t len)
{
	return is_vmalloc_addr(p) ? vt_pages(p, len) : 1;
}

static void vt_map_zc(struct vt_buf *b, unsigned int at,
		      const struct ninep_zc *zc)
{
	unsigned int i;

	for (i = 0; i < zc->nr; i++)
		sg_set_page(&b->sg[at + i], zc->bv[i].bv_page,
			    zc->bv[i].bv_len, zc->bv[i].bv_offset);
	b->zc_first = at;
	b->zc_nr = zc->nr;
	b->zc_len = zc->len;
	b->zc_rd = zc->rd;
	b->zc_hdr = zc->rhdr;
	b->zc_rtype = zc->rtype;
}

/*
 * Fill @b with the message @msg and describe it to the device: the message
 * (and a Twrite's pages of @zc), then the reply room (only the header of
 * the reply for a Tread of @zc, then its pages). -EMSGSIZE if the
 * scatterlist has no room for that.
 */
static int vt_buf_fill(struct vt_buf *b, const void *msg, size_t len,
		       u32 rcap, const struct ninep_zc *zc)
{
	bool zc_out = zc && !zc->rd, zc_in = zc && zc->rd;
	u32 room = zc_in ? zc->rhdr : rcap;
	unsigned int nout, nin;

	b->tbuf = b->data;
	b->rbuf = b->tbuf + len;
	b->tlen = len;
	b->rcap = rcap;
	b->rlen = 0;
	b->zc_nr = 0;
	b->zc_rd = false;
	b->pinned = 0;
	memcpy(b->tbuf, msg, len);
	nout = vt_nents(b->tbuf, len) + (zc_out ? zc->nr : 0);
	nin = vt_nents(b->rbuf, room) + (zc_in ? zc->nr : 0);
	if (WARN_ON_ONCE(nout + nin > b->maxsg))
		return -EMSGSIZE;
	sg_init_table(b->sg, nout + nin);
	vt_map(b->sg, b->tbuf, len);
	if (zc_out)
		vt_map_zc(b, nout - zc->nr, zc);
	sg_mark_end(&b->sg[nout - 1]);
	vt_map(b->sg + nout, b->rbuf, room);
	if (zc_in)
		vt_map_zc(b, nout + nin - zc->nr, zc);
	sg_mark_end(&b->sg[nout + nin - 1]);
	b->nout = nout;
	b->nin = nin;
	return 0;
}

/*
 * Post @b. Returns 0 when posted, -ENOSPC when the ring is full (*seen is
 * then the completion count to wait past), or -EIO once the channel or the
 * connection is gone. Any context that may sleep; takes ch->lock.
 */
static int vt_post(struct vt_chan *ch, struct vt_buf *b, u64 *seen)
{
	struct scatterlist *sgs[2] = { b->sg, b->sg + b->nout };
	unsigned long flags;
	int err;

	spin_lock_irqsave(&ch->lock, flags);
	if (ch->dead || ch->aborted || ch->err) {
		err = ch->err ? ch->err : -EIO;
		goto out;
	}
	/* Without indirect descriptors a chain must fit the ring itself. */
	if (b->nout + b->nin > virtqueue_get_vring_size(ch->vq) &&
	    !virtio_has_feature(ch->vdev, VIRTIO_RING_F_INDIRECT_DESC)) {
		err = -EMSGSIZE;
		goto out;
	}
	b->gen = ch->gen;
	err = virtqueue_add_sgs(ch->vq, sgs, 1, 1, b, GFP_ATOMIC);
	if (!err) {
		/* The device may touch the pages now: they are the block's. */
		b->pinned = b->zc_nr;
		virtqueue_kick(ch->vq);
	} else if (err == -ENOSPC) {
		*seen = ch->completions;
	} else if (err != -ENOMEM) {
		err = -EIO;
	}
out:
	spin_unlock_irqrestore(&ch->lock, flags);
	if (err == -ENOMEM) {
		*seen = 0;
		err = -ENOSPC;	/* the indirect table: retry later */
	}
	return err;
}

static bool vt_room(struct vt_chan *ch, u64 seen)
{
	unsigned long flags;
	bool ret;

	spin_lock_irqsave(&ch->lock, flags);
	ret = ch->dead || ch->aborted || ch->completions != seen;
	spin_unlock_irqrestore(&ch->lock, flags);
	return ret;
}

/*
 * Post @b, waiting (killably) while the ring is full if @block, else
 * failing with -EAGAIN then. 0 or a negative errno.
 */
static int vt_post_wait(struct ninep_trans *t, struct vt_buf *b, bool block)
{
	struct vt_chan *ch = t->priv;
	u64 seen = 0;
	int err;

	for (;;) {
		err = vt_post(ch, b, &seen);
		if (err != -ENOSPC)
			break;
		if (!block)
			return -EAGAIN;
		if (!seen) {
			/* No memory for the descriptor table: let others run. */
			if (schedule_timeout_killable(HZ / 50))
				return -EINTR;
			continue;
		}
		ninep_trans_dbg(t, "virtio %s: ring full, waiting\n", ch->tag);
		if (wait_event_killable(ch->wq, vt_room(ch, seen)))
			return -EINTR;
	}
	return err;
}

/*
 * Copy @m into a block with room for its reply and post it, waiting
 * (killably) while the ring is full if @block. A zero-copy request takes a
 * small block: its payload is in the pages, and the reply room past the
 * header of a Tread's reply takes an error reply that spilled into the
 * pages (see vt_zc_reply()).
 */
static int vt_send_msg(struct ninep_trans *t, const struct ninep_msg *m,
		       bool block)
{
	struct vt_chan *ch = t->priv;
	struct vt_buf *b;
	int err;

	if (m->len < VT_HDRSZ || (m->zc && !vt_small(m->len + m->rmax)))
		return -EINVAL;
	b = vt_buf_get(ch, m->len + m->rmax, READ_ONCE(t->msize));
	/* Without a block, the tx thread tries again, blocking. */
	if (!b)
		return block ? -ENOMEM : -EAGAIN;
	err = vt_buf_fill(b, m->buf, m->len, m->rmax, m->zc);
	if (!err)
		err = vt_post_wait(t, b, block);
	if (err) {
		vt_buf_put(ch, b);
		return err;
	}
	if (m->zc)
		m->zc->nr = 0;	/* the references are the block's now */
	return 0;
}

/* Copy @len bytes at @off of @b's zero-copy payload to @to. */
static void vt_zc_copy_out(struct vt_buf *b, u32 off, u8 *to, u32 len)
{
	struct scatterlist *sg = &b->sg[b->zc_first];

	for (; len; sg++) {
		u32 take;

		if (off >= sg->length) {
			off -= sg->length;
			continue;
		}
		take = min(len, sg->length - off);
		memcpy_from_page(to, sg_page(sg), sg->offset + off, take);
		to += take;
		len -= take;
		off = 0;
	}
}

/*
 * The reply to a zero-copy Tread, @b->rlen bytes: the reply that carries
 * the payload is handed out as its header alone, size[4] made to say so,
 * the header's last four bytes the count of bytes in the pages; any other
 * reply (an error) that went on past the header room into the pages is put
 * back together behind the header. 0 or -EPROTO.
 */
static int vt_zc_reply(struct vt_chan *ch, struct vt_buf *b)
{
	u32 hdr = b->zc_hdr;

	if (b->rbuf[4] == b->zc_rtype) {
		u32 count = b->rlen < hdr ? 0 : vt_le32(b->rbuf + hdr - 4);

		if (b->rlen < hdr || count != b->rlen - hdr) {
			pr_err_ratelimited("virtio %s: reply of %u bytes with its payload says count %u\n",
					   ch->tag, b->rlen, count);
			return -EPROTO;
		}
		b->rbuf[0] = hdr;
		b->rbuf[1] = hdr >> 8;
		b->rbuf[2] = hdr >> 16;
		b->rbuf[3] = hdr >> 24;
		b->rlen = hdr;
		return 0;
	}
	if (b->rlen > b->rcap) {
		pr_err_ratelimited("virtio %s: error reply of %u bytes to a Tread\n",
				   ch->tag, b->rlen);
		return -EPROTO;
	}
	if (b->rlen > hdr)
		vt_zc_copy_out(b, 0, b->rbuf + hdr, b->rlen - hdr);
	return 0;
}

/*
 * Check a reply the device handed back with @used bytes written: 0 to
 * deliver it, 1 to drop it quietly, or a negative errno.
 */
static int vt_check_reply(struct vt_chan *ch, struct vt_buf *b, u32 used)
{
	u32 room = b->zc_rd ? b->zc_hdr + b->zc_len : b->rcap;
	u32 size;

	/* A flushed request comes back unanswered, with nothing written. */
	if (!used)
		return 1;
	if (used < VT_HDRSZ || used > room) {
		pr_err_ratelimited("virtio %s: device wrote %u bytes into a %u byte reply buffer\n",
				   ch->tag, used, room);
		return -EPROTO;
	}
	size = vt_le32(b->rbuf);
	if (size < VT_HDRSZ || size > used) {
		pr_err_ratelimited("virtio %s: reply size %u but %u bytes written\n",
				   ch->tag, size, used);
		return -EPROTO;
	}
	b->rlen = size;
	return b->zc_rd ? vt_zc_reply(ch, b) : 0;
}

/* The vq callback: interrupt context. */
static void vt_done(struct virtqueue *vq)
{
	struct vt_chan *ch = vq->vdev->priv;
	unsigned long flags;
	struct vt_buf *b, *tmp;
	LIST_HEAD(drop);
	unsigned int used;
	bool any = false;
	int err;

	spin_lock_irqsave(&ch->lock, flags);
	if (ch->dead) {
		/* remove() detaches what is left, under this lock. */
		spin_unlock_irqrestore(&ch->lock, flags);
		return;
	}
	do {
		virtqueue_disable_cb(vq);
		while ((b = virtqueue_get_buf(vq, &used))) {
			any = true;
			if (b->gen != ch->gen || !ch->t) {
				/* Its connection is closed: never delivered. */
				list_add(&b->node, &drop);
				continue;
			}
			err = vt_check_reply(ch, b, used);
			if (err) {
				if (err < 0 && !ch->err)
					ch->err = err;
				list_add(&b->node, &drop);
				continue;
			}
			list_add_tail(&b->node, &ch->done);
		}
	} while (!virtqueue_enable_cb(vq));
	if (any) {
		ch->completions++;
		if (ch->t)
			ninep_stream_readable(ch->t);
	}
	spin_unlock_irqrestore(&ch->lock, flags);
	if (any)
		wake_up_all(&ch->wq);
	list_for_each_entry_safe(b, tmp, &drop, node)
		vt_buf_put(ch, b);
}

/* Up to @len bytes of the queued replies: bytes copied or a negative errno. */
static int vt_recv_nb(struct ninep_trans *t, void *buf, size_t len)
{
	struct vt_chan *ch = t->priv;
	unsigned long flags;
	size_t n = 0;
	int err = 0;

	while (n < len) {
		struct vt_buf *b = ch->cur;
		u32 take;

		if (!b) {
			spin_lock_irqsave(&ch->lock, flags);
			if (ch->dead || ch->aborted)
				err = -EIO;
			else if (ch->err)
				err = ch->err;
			b = list_first_entry_or_null(&ch->done, struct vt_buf,
						     node);
			if (b && !err)
				list_del(&b->node);
			spin_unlock_irqrestore(&ch->lock, flags);
			if (err)
				return err;
			if (!b)
				break;
			ch->cur = b;
			ch->cur_off = 0;
		}
		take = min_t(size_t, len - n, b->rlen - ch->cur_off);
		memcpy(buf + n, b->rbuf + ch->cur_off, take);
		n += take;
		ch->cur_off += take;
		if (ch->cur_off == b->rlen) {
			ch->cur = NULL;
			vt_buf_unpin_fast(b);
			vt_buf_put(ch, b);
		}
	}
	return n;
}

static bool vt_readable(struct vt_chan *ch)
{
	unsigned long flags;
	bool ret;

	spin_lock_irqsave(&ch->lock, flags);
	ret = ch->dead || ch->aborted || ch->err || !list_empty(&ch->done);
	spin_unlock_irqrestore(&ch->lock, flags);
	return ret;
}

static int vt_recv(struct ninep_trans *t, void *buf, size_t len)
{
	struct vt_chan *ch = t->priv;
	int n;

	while (len) {
		n = vt_recv_nb(t, buf, len);
		if (n < 0)
			return n;
		buf += n;
		len -= n;
		if (len && wait_event_killable(ch->wq, ch->cur || vt_readable(ch)))
			return -EINTR;
	}
	return 0;
}

static int vt_connect(struct ninep_trans *t, const struct ninep_client_opts *o)
{
	struct vt_chan *ch, *found = NULL;
	unsigned long flags;
	int err = -ENOENT;

	if (!o->addr || !o->addr[0]) {
		pr_err("virtio: no mount tag given\n");
		return -EINVAL;
	}
	mutex_lock(&vt_lock);
	list_for_each_entry(ch, &vt_chans, node) {
		if (strcmp(ch->tag, o->addr))
			continue;
		found = ch;
		break;
	}
	if (found && found->inuse) {
		err = -EBUSY;
		pr_err("virtio: 9P device with mount_tag %s is in use\n",
		       o->addr);
	} else if (found) {
		err = 0;
		found->inuse = true;
		spin_lock_irqsave(&found->lock, flags);
		found->gen++;
		found->aborted = false;
		found->err = 0;
		found->t = t;
		spin_unlock_irqrestore(&found->lock, flags);
		t->priv = found;
	} else {
		pr_err("virtio: no 9P device with mount_tag %s bound to this driver\n",
		       o->addr);
	}
	mutex_unlock(&vt_lock);
	if (!err)
		ninep_trans_dbg(t, "virtio: connected to mount_tag %s\n",
				o->addr);
	return err;
}

static void vt_abort(struct ninep_trans *t)
{
	struct vt_chan *ch = t->priv;
	unsigned long flags;

	if (!ch)
		return;
	spin_lock_irqsave(&ch->lock, flags);
	ch->aborted = true;
	spin_unlock_irqrestore(&ch->lock, flags);
	wake_up_all(&ch->wq);
}

/*
 * Requests still in the ring stay there: the device answers them later and
 * vt_done() frees them by their old generation, or remove() does. The kept
 * blocks go now.
 */
static void vt_close(struct ninep_trans *t)
{
	struct vt_chan *ch = t->priv;
	unsigned long flags;
	LIST_HEAD(drop);
	bool free_ch;

	if (!ch)
		return;
	mutex_lock(&vt_lock);
	spin_lock_irqsave(&ch->lock, flags);
	ch->gen++;
	ch->t = NULL;
	list_splice_init(&ch->done, &drop);
	vt_free_lists_take(ch, &drop);
	spin_unlock_irqrestore(&ch->lock, flags);
	if (ch->cur)
		list_add(&ch->cur->node, &drop);
	ch->cur = NULL;
	ch->inuse = false;
	free_ch = ch->removed;
	mutex_unlock(&vt_lock);
	vt_buf_free_list(&drop);
	if (free_ch) {
		/* The last reply handed out may have queued its pages. */
		flush_work(&ch->reap_work);
		kfree(ch->tag);
		kfree(ch);
	}
	t->priv = NULL;
}

static const struct ninep_stream_ops vt_stream = {
	.connect = vt_connect,
	.send_msg = vt_send_msg,
	.recv = vt_recv,
	.recv_nb = vt_recv_nb,
	.abort = vt_abort,
	.close = vt_close,
};

const struct ninep_trans_ops ninep_trans_virtio = {
	.name = "virtio",
	.flags = NINEP_TRANS_F_ZC,
	.max_msize = NINEP_VIRTIO_MAX_MSIZE,
	NINEP_STREAM_TRANS_OPS(&vt_stream),
};

/* ---- the driver ---- */

static ssize_t mount_tag_show(struct device *dev, struct device_attribute *attr,
			      char *buf)
{
	struct virtio_device *vdev = dev_to_virtio(dev);
	struct vt_chan *ch = vdev->priv;

	return sysfs_emit(buf, "%s\n", ch->tag);
}
static DEVICE_ATTR_RO(mount_tag);

static struct attribute *vt_attrs[] = {
	&dev_attr_mount_tag.attr,
	NULL,
};
ATTRIBUTE_GROUPS(vt);

static int vt_probe(struct virtio_device *vdev)
{
	struct vt_chan *ch;
	u16 len;
	int err;

	if (!virtio_has_feature(vdev, VIRTIO_9P_MOUNT_TAG)) {
		dev_err(&vdev->dev, "9P device without a mount tag: not bound\n");
		return -EINVAL;
	}
	virtio_cread(vdev, struct virtio_9p_config, tag_len, &len);
	if (!len || len > VT_MOUNT_TAG_MAX) {
		dev_err(&vdev->dev, "9P device with a mount tag of %u bytes: not bound\n",
			len);
		return -EINVAL;
	}
	ch = kzalloc(sizeof(*ch), GFP_KERNEL);
	if (!ch)
		return -ENOMEM;
	ch->tag = kzalloc(len + 1, GFP_KERNEL);
	if (!ch->tag) {
		err = -ENOMEM;
		goto free;
	}
	virtio_cread_bytes(vdev, offsetof(struct virtio_9p_config, tag),
			   ch->tag, len);
	if (strlen(ch->tag) != len) {
		dev_err(&vdev->dev, "9P device mount tag holds a NUL: not bound\n");
		err = -EINVAL;
		goto free;
	}
	spin_lock_init(&ch->lock);
	init_waitqueue_head(&ch->wq);
	INIT_LIST_HEAD(&ch->done);
	INIT_LIST_HEAD(&ch->free_small);
	INIT_LIST_HEAD(&ch->free_big);
	INIT_LIST_HEAD(&ch->reap);
	INIT_WORK(&ch->reap_work, vt_reap);
	ch->vdev = vdev;
	vdev->priv = ch;
	ch->vq = virtio_find_single_vq(vdev, vt_done, "requests");
	if (IS_ERR(ch->vq)) {
		err = PTR_ERR(ch->vq);
		goto free;
	}
	virtio_device_ready(vdev);
	mutex_lock(&vt_lock);
	list_add_tail(&ch->node, &vt_chans);
	mutex_unlock(&vt_lock);
	dev_info(&vdev->dev, "9P device with mount_tag %s, ring of %u\n",
		 ch->tag, virtqueue_get_vring_size(ch->vq));
	return 0;
free:
	vdev->priv = NULL;
	kfree(ch->tag);
	kfree(ch);
	return err;
}

/*
 * The device is going (unbind, hot-unplug, rmmod): fail the connection at
 * once, stop the device, free whatever it still held. A mounted channel
 * stays allocated, dead, until its connection closes.
 */
static void vt_remove(struct virtio_device *vdev)
{
	struct vt_chan *ch = vdev->priv;
	unsigned long flags;
	struct vt_buf *b;
	LIST_HEAD(drop);
	bool free_ch;

	mutex_lock(&vt_lock);
	list_del(&ch->node);
	ch->removed = true;
	free_ch = !ch->inuse;
	spin_lock_irqsave(&ch->lock, flags);
	ch->dead = true;
	if (ch->t)
		ninep_stream_readable(ch->t);
	spin_unlock_irqrestore(&ch->lock, flags);
	wake_up_all(&ch->wq);
	if (ch->inuse)
		pr_warn("virtio: 9P device with mount_tag %s removed while in use\n",
			ch->tag);

	virtio_reset_device(vdev);
	spin_lock_irqsave(&ch->lock, flags);
	while ((b = virtqueue_detach_unused_buf(ch->vq)))
		list_add(&b->node, &drop);
	vt_free_lists_take(ch, &drop);
	spin_unlock_irqrestore(&ch->lock, flags);
	vt_buf_free_list(&drop);
	vdev->config->del_vqs(vdev);
	/* No callback is left to queue more; the pages go before the module. */
	flush_work(&ch->reap_work);
	vdev->priv = NULL;
	if (free_ch) {
		kfree(ch->tag);
		kfree(ch);
	}
	mutex_unlock(&vt_lock);
}

static const struct virtio_device_id vt_id_table[] = {
	{ VIRTIO_ID_9P, VIRTIO_DEV_ANY_ID },
	{ 0 },
};

static const unsigned int vt_features[] = {
	VIRTIO_9P_MOUNT_TAG,
};

/* No MODULE_DEVICE_TABLE(virtio, ...): see the top of this file. */
static struct virtio_driver vt_driver = {
	.driver.name		= "9p2000_virtio",
	.driver.owner		= THIS_MODULE,
	.driver.dev_groups	= vt_groups,
	.id_table		= vt_id_table,
	.feature_table		= vt_features,
	.feature_table_size	= ARRAY_SIZE(vt_features),
	.probe			= vt_probe,
	.remove			= vt_remove,
};

int ninep_virtio_init(void)
{
	return register_virtio_driver(&vt_driver);
}

void ninep_virtio_exit(void)
{
	unregister_virtio_driver(&vt_driver);
}
