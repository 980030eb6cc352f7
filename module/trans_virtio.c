// SPDX-License-Identifier: GPL-2.0-only
/*
 * virtio transport of 9p2000.ko: the 9P device of QEMU (virtio-9p-pci,
 * -virtfs), found by its mount tag.
 *
 * The device works in requests: the driver posts one buffer for the message
 * and one for the reply, the device hands both back when it answered. The
 * client core expects a byte stream, so this file emulates one: send copies
 * each whole message into a block (message, then room for the reply) and
 * posts it; replies are queued in the order the device completes them and
 * handed out by recv/recv_nb byte for byte, a cursor keeping the place in
 * the reply being read.
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

#include "client.h"
#include "trans.h"

/* Longest mount tag taken from a device (QEMU allows 255 bytes). */
#define VT_TAG_MAX		255
/* Reply room of a request whose reply size is not given by a count. */
#define VT_SMALL_REPLY		8192
#define VT_HDRSZ		7	/* size[4] type[1] tag[2] */
/* Type byte and count[4] offset of Tread and Treaddir. */
#define VT_TREAD		116
#define VT_TREADDIR		40
#define VT_TVERSION		100
#define VT_COUNT_OFF		19
#define VT_MSIZE_OFF		7

/*
 * A small block is one kmalloc of this size, header included: every request
 * whose message and reply room fit. Blocks kept for reuse per channel, by
 * class: at most VT_KEEP_BIG x (msize + VT_SMALL_REPLY) bytes stay
 * allocated per mount between requests.
 */
#define VT_SMALL_BLOCK		(16 * 1024)
#define VT_KEEP_SMALL		16
#define VT_KEEP_BIG		8

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
	unsigned int nsg;		/* entries in use */
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
	u32 msize;			/* from the Tversion sent, capped */
	wait_queue_head_t wq;		/* ring room, replies, death */
	struct list_head free_small;	/* blocks for reuse, the device */
	struct list_head free_big;	/* holds none of them */
	unsigned int nfree_small;
	unsigned int nfree_big;

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

/* Room for the reply to @msg: Tread/Treaddir by their count, else small. */
static u32 vt_reply_room(const u8 *msg, size_t len, u32 msize)
{
	u32 want = VT_SMALL_REPLY;

	if ((msg[4] == VT_TREAD || msg[4] == VT_TREADDIR) &&
	    len >= VT_COUNT_OFF + 4)
		want = max_t(u32, want, 11 + min_t(u32, vt_le32(msg + VT_COUNT_OFF),
						   NINEP_VIRTIO_MAX_MSIZE));
	return min(want, msize);
}

/* Bytes of a block header with room for @nsg scatterlist entries. */
static size_t vt_hdr_size(unsigned int nsg)
{
	struct vt_buf *b = NULL;

	return struct_size(b, sg, nsg);
}

static void vt_buf_free(struct vt_buf *b)
{
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

/*
 * A new block with room for @need bytes; NULL without memory. A large one
 * is sized for msize so that it serves any later request of the mount.
 * Called in a NOFS scope.
 */
static struct vt_buf *vt_buf_alloc(struct vt_chan *ch, size_t need)
{
	size_t hdr = vt_hdr_size(2);
	struct vt_buf *b;
	size_t cap;
	void *data;

	if (hdr + need <= VT_SMALL_BLOCK) {
		b = kmalloc(VT_SMALL_BLOCK, GFP_KERNEL);
		if (!b)
			return NULL;
		b->data = (u8 *)b + hdr;
		b->cap = VT_SMALL_BLOCK - hdr;
		b->big = false;
		b->maxsg = 2;
		return b;
	}
	cap = PAGE_ALIGN(max_t(size_t, need,
			       (size_t)READ_ONCE(ch->msize) + VT_SMALL_REPLY));
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
	return b;
}

/* A kept block with room for @need bytes, or NULL. */
static struct vt_buf *vt_buf_reuse(struct vt_chan *ch, size_t need)
{
	struct vt_buf *b = NULL, *drop = NULL;
	unsigned long flags;
	bool small;

	small = need + vt_hdr_size(2) <= VT_SMALL_BLOCK;
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
 * request if the channel has a connection and room, else free it. Any
 * context; takes ch->lock.
 */
static void vt_buf_put(struct vt_chan *ch, struct vt_buf *b)
{
	unsigned long flags;
	bool kept = false;

	spin_lock_irqsave(&ch->lock, flags);
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

/* Take the kept blocks off @ch onto @list; ch->lock held. */
static void vt_free_lists_take(struct vt_chan *ch, struct list_head *list)
{
	list_splice_init(&ch->free_small, list);
	list_splice_init(&ch->free_big, list);
	ch->nfree_small = 0;
	ch->nfree_big = 0;
}

/* Copy @msg into a request block; NULL without memory. */
static struct vt_buf *vt_buf_new(struct vt_chan *ch, const void *msg,
				 size_t len)
{
	unsigned int nofs;
	struct vt_buf *b;
	u32 rcap;

	rcap = vt_reply_room(msg, len, READ_ONCE(ch->msize));
	b = vt_buf_reuse(ch, len + rcap);
	if (!b) {
		/* A scope rather than GFP_NOFS: 6.1's vmalloc() takes no gfp. */
		nofs = memalloc_nofs_save();
		b = vt_buf_alloc(ch, len + rcap);
		memalloc_nofs_restore(nofs);
		if (!b)
			return NULL;
	}
	b->tbuf = b->data;
	b->rbuf = b->tbuf + len;
	b->tlen = len;
	b->rcap = rcap;
	b->rlen = 0;
	memcpy(b->tbuf, msg, len);
	b->nsg = vt_pages(b->tbuf, len) + vt_pages(b->rbuf, rcap);
	if (!is_vmalloc_addr(b->data))
		b->nsg = 2;
	if (WARN_ON_ONCE(b->nsg > b->maxsg)) {
		vt_buf_free(b);
		return NULL;
	}
	return b;
}

/*
 * Post @b. Returns 0 when posted, -ENOSPC when the ring is full (*seen is
 * then the completion count to wait past), or -EIO once the channel or the
 * connection is gone. Any context that may sleep; takes ch->lock.
 */
static int vt_post(struct vt_chan *ch, struct vt_buf *b, u64 *seen)
{
	struct scatterlist *sgs[2];
	unsigned int nout, nin;
	unsigned long flags;
	int err;

	sg_init_table(b->sg, b->nsg);
	nout = vt_map(b->sg, b->tbuf, b->tlen);
	sg_mark_end(&b->sg[nout - 1]);
	nin = vt_map(b->sg + nout, b->rbuf, b->rcap);
	sg_mark_end(&b->sg[nout + nin - 1]);
	sgs[0] = b->sg;
	sgs[1] = b->sg + nout;

	spin_lock_irqsave(&ch->lock, flags);
	if (ch->dead || ch->aborted || ch->err) {
		err = ch->err ? ch->err : -EIO;
		goto out;
	}
	/* Without indirect descriptors a chain must fit the ring itself. */
	if (nout + nin > virtqueue_get_vring_size(ch->vq) &&
	    !virtio_has_feature(ch->vdev, VIRTIO_RING_F_INDIRECT_DESC)) {
		err = -EMSGSIZE;
		goto out;
	}
	b->gen = ch->gen;
	err = virtqueue_add_sgs(ch->vq, sgs, 1, 1, b, GFP_ATOMIC);
	if (!err)
		virtqueue_kick(ch->vq);
	else if (err == -ENOSPC)
		*seen = ch->completions;
	else if (err != -ENOMEM)
		err = -EIO;
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

/* Blocks (killably) while the ring is full. */
static int vt_send(struct ninep_trans *t, const void *buf, size_t len)
{
	struct vt_chan *ch = t->priv;
	struct vt_buf *b;
	u64 seen = 0;
	int err;

	if (len < VT_HDRSZ)
		return -EINVAL;
	b = vt_buf_new(ch, buf, len);
	if (!b)
		return -ENOMEM;
	for (;;) {
		err = vt_post(ch, b, &seen);
		if (err != -ENOSPC)
			break;
		if (!seen) {
			/* No memory for the descriptor table: let others run. */
			if (schedule_timeout_killable(HZ / 50)) {
				err = -EINTR;
				break;
			}
			continue;
		}
		ninep_trans_dbg(t, "virtio %s: ring full, waiting\n", ch->tag);
		if (wait_event_killable(ch->wq, vt_room(ch, seen))) {
			err = -EINTR;
			break;
		}
	}
	if (err)
		vt_buf_put(ch, b);
	return err;
}

/* Posts the whole message or nothing: len, 0 (ring full, no memory) or -errno. */
static int vt_send_nb(struct ninep_trans *t, const void *buf, size_t len)
{
	struct vt_chan *ch = t->priv;
	struct vt_buf *b;
	u64 seen;
	int err;

	if (len < VT_HDRSZ)
		return -EINVAL;
	b = vt_buf_new(ch, buf, len);
	if (!b)
		return 0;	/* send() retries from the tx thread */
	err = vt_post(ch, b, &seen);
	if (err) {
		vt_buf_put(ch, b);
		return err == -ENOSPC ? 0 : err;
	}
	return len;
}

/*
 * Check a reply the device handed back with @used bytes written: 0 to
 * deliver it, 1 to drop it quietly, or a negative errno.
 */
static int vt_check_reply(struct vt_chan *ch, struct vt_buf *b, u32 used)
{
	u32 size;

	/* A flushed request comes back unanswered, with nothing written. */
	if (!used)
		return 1;
	if (used < VT_HDRSZ || used > b->rcap) {
		pr_err_ratelimited("virtio %s: device wrote %u bytes into a %u byte reply buffer\n",
				   ch->tag, used, b->rcap);
		return -EPROTO;
	}
	size = vt_le32(b->rbuf);
	if (size < VT_HDRSZ || size > used) {
		pr_err_ratelimited("virtio %s: reply size %u but %u bytes written\n",
				   ch->tag, size, used);
		return -EPROTO;
	}
	b->rlen = size;
	return 0;
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
		if (ch->t && ch->t->ready)
			ch->t->ready(ch->t);
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
		found->msize = NINEP_VIRTIO_MAX_MSIZE;
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
		kfree(ch->tag);
		kfree(ch);
	}
	t->priv = NULL;
}

/* The core posts Tversion first: its msize bounds every reply room after. */
static int vt_send_tracked(struct ninep_trans *t, const void *buf, size_t len)
{
	const u8 *m = buf;
	struct vt_chan *ch = t->priv;

	if (len >= VT_MSIZE_OFF + 4 && m[4] == VT_TVERSION)
		WRITE_ONCE(ch->msize, min_t(u32, vt_le32(m + VT_MSIZE_OFF),
					    NINEP_VIRTIO_MAX_MSIZE));
	return vt_send(t, buf, len);
}

static int vt_send_nb_tracked(struct ninep_trans *t, const void *buf,
			      size_t len)
{
	const u8 *m = buf;
	struct vt_chan *ch = t->priv;

	if (len >= VT_MSIZE_OFF + 4 && m[4] == VT_TVERSION)
		WRITE_ONCE(ch->msize, min_t(u32, vt_le32(m + VT_MSIZE_OFF),
					    NINEP_VIRTIO_MAX_MSIZE));
	return vt_send_nb(t, buf, len);
}

const struct ninep_trans_ops ninep_trans_virtio = {
	.name = "virtio",
	.max_msize = NINEP_VIRTIO_MAX_MSIZE,
	.connect = vt_connect,
	.send = vt_send_tracked,
	.send_nb = vt_send_nb_tracked,
	.recv = vt_recv,
	.recv_nb = vt_recv_nb,
	.abort = vt_abort,
	.close = vt_close,
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
	if (!len || len > VT_TAG_MAX) {
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
	ch->vdev = vdev;
	ch->msize = NINEP_VIRTIO_MAX_MSIZE;
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
	if (ch->t && ch->t->ready)
		ch->t->ready(ch->t);
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
