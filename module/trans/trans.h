/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Transports of 9p2000.ko: one request in, its reply out.
 *
 * The client core hands a transport each message whole (request()), with
 * the room for its reply, and the transport completes it through the
 * callbacks the core set in struct ninep_trans (struct ninep_trans_owner).
 * A message not yet on the wire can be taken back (cancel()). The byte
 * stream transports (tcp, unix, fd) and virtio share one helper for that,
 * stream.c, over the byte-level operations of stream.h.
 */
#ifndef NINEP_TRANS_H
#define NINEP_TRANS_H

#include <linux/bvec.h>
#include <linux/list.h>
#include <linux/types.h>
#include <linux/wait.h>

struct ninep_client_opts;
struct ninep_stream_ops;
struct ninep_trans;

/*
 * The payload of a zero-copy Tread or Twrite: pages of the caller's buffer,
 * each with a reference held, at most NINEP_ZC_MAX_PAGES(msize) of them.
 * Whoever holds the references puts them: the client until the transport
 * posted the message, the transport from then on (it sets nr to 0), since the
 * device may touch the pages for as long as it holds the message, however
 * long the caller waits.
 */
struct ninep_zc {
	unsigned int nr;		/* entries of bv[] holding a reference */
	u32 len;			/* payload bytes in bv[] */
	bool rd;			/* Tread: the device writes the pages */
	/*
	 * When @rd: the bytes of the reply that precede its payload (they
	 * go to the reply buffer, the payload to the pages), and the reply
	 * type that carries a payload; any other reply comes whole.
	 */
	u32 rhdr;
	u8 rtype;
	struct bio_vec bv[];
};

/* Pages one zero-copy payload may span: its bytes, plus one at each end. */
#define NINEP_ZC_MAX_PAGES(msize)	((msize) / PAGE_SIZE + 2)

/*
 * struct ninep_trans_ops.flags: what a transport takes from the mount
 * options besides its address, so that the options, the client and the
 * disk cache ask the transport rather than name it.
 */
/* The address is a host and port= its port (part of the export's name). */
#define NINEP_TRANS_F_PORT	0x1
/*
 * No address: the mounting task's descriptors rfdno= and wfdno=, which name
 * no export (no disk cache is kept under them).
 */
#define NINEP_TRANS_F_FDS	0x2

/*
 * One whole message as the client core hands it to a transport, with what
 * the transport needs to know of it, so that it never reads the message
 * itself. Embedded in the core's request.
 */
struct ninep_msg {
	const void *buf;
	u32 len;
	/*
	 * The longest reply it may get, at most msize: the room for it. Of
	 * a @zc Tread, the longest reply but the one with the payload.
	 */
	u32 rmax;
	/*
	 * Tread or Twrite whose payload is the caller's pages, or NULL: a
	 * Twrite's data follows @buf on the wire.
	 */
	struct ninep_zc *zc;
	/* The reply's buffer, as ninep_trans_owner.match() gave it. */
	u8 *rbuf;
	/* Woken when the core has finished with the message. */
	wait_queue_head_t wq;
	/* The transport's: its queue of messages to send. */
	struct list_head node;
};

/*
 * What the client core does for its transport, set in struct ninep_trans
 * before connect(). Any task context unless said otherwise.
 */
struct ninep_trans_owner {
	/*
	 * The header @hdr of a reply of @size bytes came in under @tag: the
	 * message it answers, with m->rbuf room for @size bytes and its
	 * first bytes those of @hdr, held until reply() or put(). NULL when
	 * it answers nothing the core sent: the core failed the connection.
	 */
	struct ninep_msg *(*match)(struct ninep_trans *t, u16 tag,
				   const u8 *hdr, u32 size);
	/*
	 * The whole reply to @m is in m->rbuf, @size bytes: the core takes
	 * it and drops the hold of match(). True if other requests are
	 * still in flight.
	 */
	bool (*reply)(struct ninep_trans *t, struct ninep_msg *m, u32 size);
	/* Hold @m that request() was given, past request()'s return. */
	void (*get)(struct ninep_trans *t, struct ninep_msg *m);
	/* Drop a hold on @m, of match() or of get(). */
	void (*put)(struct ninep_trans *t, struct ninep_msg *m);
	/* @m needs nothing more from the transport (lockless; acquire). */
	bool (*finished)(struct ninep_msg *m);
	/* The connection failed: fail everything, abort the transport. */
	void (*fail)(struct ninep_trans *t, int err, const char *why);
};

struct ninep_trans_ops {
	/* trans= and proto= name the transport by this; unique. */
	const char *name;
	unsigned int flags;		/* NINEP_TRANS_F_* */
	/*
	 * Largest msize the client asks for over this transport: each
	 * request in flight may hold a buffer this big, so it bounds the
	 * memory one mount can pin.
	 */
	u32 max_msize;
	/* Called in the mounting task (its fds, its network namespace). */
	int (*connect)(struct ninep_trans *t, const struct ninep_client_opts *o);
	/*
	 * Send @m. The caller keeps @m until request() returns; a transport
	 * that reads @m later holds it (owner->get()) until it is done with
	 * it (owner->put(), at the latest at close()). Never blocks nor
	 * sleeps on a signal. 0, or a negative errno once the connection
	 * failed.
	 */
	int (*request)(struct ninep_trans *t, struct ninep_msg *m);
	/*
	 * Take back @m if none of it is on the wire yet: true then (the
	 * transport's hold is put), false if it is sent or being sent.
	 */
	bool (*cancel)(struct ninep_trans *t, struct ninep_msg *m);
	/*
	 * Wait for owner->finished(@m) as wait_event_killable_timeout()
	 * does, and returns as it does; the transport may receive meanwhile.
	 */
	long (*wait)(struct ninep_trans *t, struct ninep_msg *m, long timeout);
	/*
	 * The connection failed: drop what is queued, unblock everything for
	 * good; the transport stays allocated. Any task context, more than
	 * once.
	 */
	void (*abort)(struct ninep_trans *t);
	/* Release everything connect() took. After abort(). */
	void (*close)(struct ninep_trans *t);
	/* The byte-level operations under stream.c's (stream.h). */
	const struct ninep_stream_ops *stream;
};

/*
 * struct ninep_trans_ops.flags: the transport moves a zero-copy payload
 * (struct ninep_msg.zc) itself.
 */
#define NINEP_TRANS_F_ZC	0x4

struct ninep_stream;

struct ninep_trans {
	const struct ninep_trans_ops *ops;
	void *priv;			/* the transport's own state */
	struct ninep_stream *stream;	/* stream.c's state */
	unsigned int debug;		/* NINEP_DEBUG_* of the mount */
	const struct ninep_trans_owner *owner;	/* set before connect() */
	/*
	 * The msize the client asks the server for, at most max_msize: no
	 * message or reply is longer. Set after connect(), before the first
	 * message is sent, lowered to what the server granted; never raised.
	 */
	u32 msize;
};

extern const struct ninep_trans_ops ninep_trans_tcp;
extern const struct ninep_trans_ops ninep_trans_unix;
extern const struct ninep_trans_ops ninep_trans_fd;

/* max_msize of the byte-stream transports (sockets, pipes): 1 MiB. */
#define NINEP_STREAM_MAX_MSIZE	(1024 * 1024)

/*
 * max_msize over virtio: 512 KiB. A request in flight holds its message and
 * room for its reply in one block (up to 2 x msize for a Tread/Twrite), and
 * the ring has 128 slots, so one mount may pin up to 128 MiB; a larger msize
 * also makes the vmalloc'd block span more scatter-gather entries than the
 * device queue is long.
 */
#define NINEP_VIRTIO_MAX_MSIZE	(512 * 1024)

/*
 * The transport named @name, NULL if none of that name is built into this
 * module (virtio without CONFIG_VIRTIO, or a name it never had).
 */
const struct ninep_trans_ops *ninep_trans_find(const char *name);

/* The transport of a mount that names none: the seed's, tcp. */
const struct ninep_trans_ops *ninep_trans_default(void);

/* Connect over o->trans; 0 or a negative errno. */
int ninep_trans_open(struct ninep_trans *t, const struct ninep_client_opts *o);

#if IS_ENABLED(CONFIG_VIRTIO)
extern const struct ninep_trans_ops ninep_trans_virtio;
/* The virtio driver "9p2000_virtio", registered at module load. */
int ninep_virtio_init(void);
void ninep_virtio_exit(void);
#else
static inline int ninep_virtio_init(void)
{
	return 0;
}

static inline void ninep_virtio_exit(void)
{
}
#endif

#define ninep_trans_dbg(t, fmt, ...)					\
	do {								\
		if ((t)->debug & NINEP_DEBUG_TRANS)			\
			pr_info("trans: " fmt, ##__VA_ARGS__);		\
	} while (0)

#endif /* NINEP_TRANS_H */
