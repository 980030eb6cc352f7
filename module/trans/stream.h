/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The stream helper of 9p2000.ko's transports (stream.c): it takes whole
 * messages from the client core and moves them over a transport that only
 * moves bytes, framing the replies by their size[4] and handing each to
 * the message its tag names. tcp, unix and fd (and, for now, virtio) are
 * built on it; their operations below are the helper's, not the core's.
 */
#ifndef NINEP_STREAM_H
#define NINEP_STREAM_H

#include "trans.h"

/*
 * The byte-level operations of a transport under the stream helper. The
 * helper sends from one task at a time and receives from one task at a
 * time, so send and recv are never called concurrently with themselves,
 * only with each other. Both block; abort() makes a blocked call return
 * soon, from any context that may sleep.
 */
struct ninep_stream_ops {
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
	 * -ECONNRESET). A transport with recv_nb calls
	 * ninep_stream_readable() whenever it may have become readable or
	 * failed, from any context, softirq included, from connect() until
	 * close().
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
	 * or a negative errno (they stay the caller's).
	 */
	int (*send_msg)(struct ninep_trans *t, const struct ninep_msg *m,
			bool block);
	/* Unblock send/recv for good (shutdown); the transport stays allocated. */
	void (*abort)(struct ninep_trans *t);
	/* Release everything connect() took. After abort() or instead of it. */
	void (*close)(struct ninep_trans *t);
};

/* The transport may have become readable or failed: any context. */
void ninep_stream_readable(struct ninep_trans *t);

int ninep_stream_connect(struct ninep_trans *t,
			 const struct ninep_client_opts *o);
int ninep_stream_request(struct ninep_trans *t, struct ninep_msg *m);
bool ninep_stream_cancel(struct ninep_trans *t, struct ninep_msg *m);
long ninep_stream_wait(struct ninep_trans *t, struct ninep_msg *m,
		       long timeout);
void ninep_stream_abort(struct ninep_trans *t);
void ninep_stream_close(struct ninep_trans *t);

/* The struct ninep_trans_ops of a transport built on the stream helper. */
#define NINEP_STREAM_TRANS_OPS(lower)			\
	.connect = ninep_stream_connect,		\
	.request = ninep_stream_request,		\
	.cancel = ninep_stream_cancel,			\
	.wait = ninep_stream_wait,			\
	.abort = ninep_stream_abort,			\
	.close = ninep_stream_close,			\
	.stream = (lower)

#endif /* NINEP_STREAM_H */
