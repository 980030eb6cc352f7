/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Transports of 9p2000.ko: bytes in and out of one connection, nothing more.
 *
 * The client owns one transport per connection. It sends whole messages from
 * one thread and receives from another, so send and recv are never called
 * concurrently with themselves, only with each other. Both block; abort()
 * makes a blocked call return soon, from any context that may sleep.
 */
#ifndef NINEP_TRANS_H
#define NINEP_TRANS_H

#include <linux/bvec.h>
#include <linux/types.h>

struct ninep_client_opts;
struct ninep_trans;

/*
 * The payload of a zero-copy Tread or Twrite: pages of the caller's buffer,
 * each with a reference held, at most NINEP_ZC_MAX_PAGES(msize) of them.
 * Whoever holds the references puts them: the client until send_msg() posted
 * the message, the transport from then on (it sets nr to 0), since the
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
 * One whole message as the client core hands it to a transport that takes
 * messages (send_msg), with what such a transport needs to know of it, so
 * that it never reads the message itself.
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
	/* Write all @len bytes or fail with a negative errno (or send_msg). */
	int (*send)(struct ninep_trans *t, const void *buf, size_t len);
	/*
	 * Optional: write what fits now without blocking or sleeping on a
	 * signal; bytes written (0 if none) or a negative errno.
	 */
	int (*send_nb)(struct ninep_trans *t, const void *buf, size_t len);
	/* Read exactly @len bytes; end of stream is -ECONNRESET. */
	int (*recv)(struct ninep_trans *t, void *buf, size_t len);
	/*
	 * Optional: read what is there, up to @len bytes, without blocking:
	 * bytes read, 0 if none, or a negative errno (end of stream is
	 * -ECONNRESET). A transport with recv_nb calls t->ready whenever it
	 * may have become readable or failed, from any context, softirq
	 * included, from connect() until close().
	 */
	int (*recv_nb)(struct ninep_trans *t, void *buf, size_t len);
	/*
	 * Optional: acknowledge what was received now rather than later
	 * (tcp's delayed ACK); called by the receiver while other requests
	 * are in flight. May sleep.
	 */
	void (*ack)(struct ninep_trans *t);
	/*
	 * In place of send and send_nb, for a transport that posts each
	 * message whole with room for its reply: send @m, all of it or
	 * nothing. Its @zc payload, if any, the device moves to or from the
	 * pages itself: a Tread's reply is received with its payload already
	 * in the pages, recv/recv_nb handing out its first zc->rhdr bytes
	 * only, size[4] saying so (the count in them says how many bytes the
	 * pages got); any other reply to it comes whole. Blocks while there
	 * is no room if @block, else fails with -EAGAIN. 0 once posted (the
	 * references in @m->zc are then the transport's, which sets nr to 0)
	 * or a negative errno (they stay the caller's). A transport with
	 * send_msg takes zero-copy payloads.
	 */
	int (*send_msg)(struct ninep_trans *t, const struct ninep_msg *m,
			bool block);
	/* Unblock send/recv for good (shutdown); the transport stays allocated. */
	void (*abort)(struct ninep_trans *t);
	/* Release everything connect() took. After abort() or instead of it. */
	void (*close)(struct ninep_trans *t);
};

struct ninep_trans {
	const struct ninep_trans_ops *ops;
	void *priv;			/* the transport's own state */
	unsigned int debug;		/* NINEP_DEBUG_* of the mount */
	void (*ready)(struct ninep_trans *t);	/* set before connect() */
	/*
	 * The msize the client asks the server for, at most max_msize: no
	 * message or reply is longer. Set after connect(), before the first
	 * message is sent; never raised.
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
