// SPDX-License-Identifier: GPL-2.0
/*
 * conn.c - one client connection.
 *
 * The connection's own thread reads and frames messages, answers Tversion
 * and Tflush itself and hands every other request to the worker pool, so a
 * slow request never holds up the ones behind it. Replies go out whole and
 * in one piece each, in whatever order requests finish, under wlock; what
 * the client does not take at once waits in a queue (send_bytes()).
 *
 * Tflush: if the old tag is still in flight the flush waits on it and its
 * Rflush is sent right after the old request's reply (or instead of it when
 * the old request had not started yet), never before. A running request is
 * poked with a signal so that a blocking read on a fifo or a lock returns.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>

#include "srv.h"

#define IBUF_SIZE	(16 * 1024)

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* The buffers every request starts with; larger ones are sized to need. */
static uint32_t small_size(const struct srv_conn *c)
{
	return c->msize < SRV_SMALL_BUF ? c->msize : SRV_SMALL_BUF;
}

static void req_free(struct srv_req *r)
{
	free(r->rx);
	free(r->tx);
	free(r);
}

/* Make buf hold at least need bytes (*cap its size); 0 or -ENOMEM. */
static int buf_reserve(uint8_t **buf, uint32_t *cap, uint32_t need)
{
	uint8_t *n;

	if (need <= *cap)
		return 0;
	n = malloc(need);
	if (!n)
		return -ENOMEM;
	free(*buf);
	*buf = n;
	*cap = need;
	return 0;
}

static struct srv_req *req_alloc(struct srv_conn *c)
{
	uint32_t small = small_size(c);
	struct srv_req *r;

	pthread_mutex_lock(&c->lock);
	r = c->free_reqs;
	if (r) {
		c->free_reqs = r->next;
		c->nfree--;
		c->cached_bytes -= r->rxcap + r->bufsize;
	}
	pthread_mutex_unlock(&c->lock);
	if (r && (r->bufsize > c->msize || r->rxcap > c->msize)) {
		req_free(r);	/* from before a Tversion lowered the msize */
		r = NULL;
	}
	if (!r) {
		r = calloc(1, sizeof(*r));
		if (!r)
			return NULL;
		if (buf_reserve(&r->rx, &r->rxcap, small) < 0 ||
		    buf_reserve(&r->tx, &r->bufsize, small) < 0) {
			req_free(r);
			return NULL;
		}
	}
	r->conn = c;
	r->next = r->qnext = r->flushers = r->fnext = NULL;
	r->state = SRV_REQ_QUEUED;
	r->cancelled = false;
	r->kicked = false;
	r->on_worker = false;
	return r;
}

/*
 * The reply buffer a request needs: room for the data of a read, else the
 * small size, which holds every other reply (a stat's names and a symlink
 * target are bounded by PATH_MAX).
 */
static int req_size_reply(struct srv_req *req)
{
	struct srv_conn *c = req->conn;
	uint64_t need = small_size(c);

	if (req->type == V9P_TREAD)
		need = (uint64_t)req->in.tread.count + V9P_RREAD_HDRSZ;
	else if (req->type == V9P_TREADDIR)
		need = (uint64_t)req->in.treaddir.count + V9P_RREAD_HDRSZ;
	if (need > c->msize)
		need = c->msize;
	if (need < small_size(c))
		need = small_size(c);
	return buf_reserve(&req->tx, &req->bufsize, (uint32_t)need);
}

/*
 * Keep a few requests, and no more than SRV_CACHE_BYTES of their buffers,
 * for the next ones. With counted, also take req off the in-flight count:
 * in the same critical section, because once the count reaches 0 the
 * connection thread may free the connection, so nothing of c may be
 * touched after this.
 */
static void req_release_counted(struct srv_conn *c, struct srv_req *r, bool counted)
{
	pthread_mutex_lock(&c->lock);
	if (counted)
		c->inflight_bytes -= r->rxcap + r->bufsize;
	if (c->nfree < 8 && c->cached_bytes + r->rxcap + r->bufsize <= SRV_CACHE_BYTES &&
	    r->rxcap <= c->msize && r->bufsize <= c->msize) {
		r->next = c->free_reqs;
		c->free_reqs = r;
		c->nfree++;
		c->cached_bytes += r->rxcap + r->bufsize;
		r = NULL;
	}
	if (counted) {
		c->nreqs--;
		srv_limit_req_give();
		pthread_cond_broadcast(&c->cond);
	}
	pthread_mutex_unlock(&c->lock);
	if (r)
		req_free(r);
}

static void req_release(struct srv_conn *c, struct srv_req *r)
{
	req_release_counted(c, r, false);
}

/* A pipe (-s): replies are written whole, blocking. */
static int write_all(int fd, const uint8_t *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

void srv_trace(struct srv_conn *c, const char *dir, const uint8_t *buf, uint32_t len)
{
	if (len < V9P_HDRSZ)
		return;
	fprintf(stderr, "v9fsd: %s %s %s tag %u size %u\n", c->peer, dir,
		v9p_type_name(buf[4]), (unsigned int)(buf[5] | buf[6] << 8),
		(unsigned int)len);
}

/*
 * c->dead is set by a sender (under wlock) or by the reader (under lock) and
 * read under either or neither: every access is atomic.
 */
static bool conn_dead(struct srv_conn *c)
{
	return __atomic_load_n(&c->dead, __ATOMIC_ACQUIRE);
}

static void conn_kill(struct srv_conn *c)
{
	__atomic_store_n(&c->dead, true, __ATOMIC_RELEASE);
}

static uint64_t now_ms(void);

/*
 * Replies to a socket never block the thread that sends them: what the
 * socket does not take at once is copied to the connection's queue, and
 * the connection's writer thread (started the first time that happens)
 * sends it as the client takes it. So a client that reads its replies
 * slowly, or not at all, holds no worker and no connection thread, only
 * the queue's memory, which counts against the connection's bound
 * (wait_for_room()). Each reply has stall_timeout from when it begins to
 * go out to be taken whole, however the client trickles; past that, the
 * connection ends.
 */
struct srv_out {
	struct srv_out *next;
	uint32_t len, off;
	bool mapped;		/* its own mapping, not the heap's */
	uint8_t data[];
};

/*
 * Large queued replies get mappings of their own: they are made on
 * workers and freed by the writer, and from the heap they would be left
 * in the workers' arenas, which are trimmed only so far; unmapped, their
 * memory goes back to the system at once.
 */
#ifdef __SANITIZE_ADDRESS__
/* AddressSanitizer's allocator maps large blocks itself, their shadow too */
#define OUT_MAP_MIN	UINT32_MAX
#else
#define OUT_MAP_MIN	(64 * 1024)
#endif

static struct srv_out *out_alloc(uint32_t len)
{
	size_t size = sizeof(struct srv_out) + len;
	struct srv_out *o;

	if (len < OUT_MAP_MIN) {
		o = malloc(size);
		if (o)
			o->mapped = false;
		return o;
	}
	o = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (o == MAP_FAILED)
		return NULL;
	o->mapped = true;
	return o;
}

static void out_free(struct srv_out *o)
{
	if (o->mapped)
		munmap(o, sizeof(*o) + o->len);
	else
		free(o);
}

/* As much of buf as the socket takes now: bytes sent, or -errno. */
static ssize_t send_now(struct srv_conn *c, const uint8_t *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = send(c->wfd, buf + done, len - done, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				break;
			return -errno;
		}
		done += (size_t)n;
	}
	return (ssize_t)done;
}

/*
 * Room for more requests: wake the reader (wait_for_room()), and the
 * workers if the queue was long enough to keep them off (pool.c).
 */
static void out_room(struct srv_conn *c, uint64_t was)
{
	pthread_mutex_lock(&c->lock);
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
	if (was > SRV_OUT_BYTES && __atomic_load_n(&c->out_bytes, __ATOMIC_ACQUIRE) <=
	    SRV_OUT_BYTES)
		srv_pool_wake();
}

/* Drop the client (wlock held): wake its reader, free what was queued. */
static void conn_drop(struct srv_conn *c, const char *why)
{
	struct srv_out *o;

	conn_kill(c);
	shutdown(c->rfd, SHUT_RDWR);
	while ((o = c->outq)) {
		c->outq = o->next;
		out_free(o);
	}
	c->outq_tail = &c->outq;
	out_room(c, __atomic_exchange_n(&c->out_bytes, 0, __ATOMIC_ACQ_REL));
	srv_pool_wake();	/* its queued requests end on workers */
	if (srv_cfg.debug)
		fprintf(stderr, "v9fsd: %s: %s, dropping\n", c->peer, why);
}

static void *writer_main(void *arg)
{
	struct srv_conn *c = arg;

	pthread_mutex_lock(&c->wlock);
	for (;;) {
		struct srv_out *o = c->outq;
		struct pollfd p = { .fd = c->wfd, .events = POLLOUT };
		int timeout = -1;
		uint64_t was;
		ssize_t n;

		if (!o) {
			if (c->writer_stop)
				break;
			pthread_cond_wait(&c->out_cond, &c->wlock);
			continue;
		}
		n = send_now(c, o->data + o->off, o->len - o->off);
		if (n < 0) {
			conn_drop(c, "cannot send");
			continue;
		}
		o->off += (uint32_t)n;
		if (o->off == o->len) {
			c->outq = o->next;
			if (!c->outq)
				c->outq_tail = &c->outq;
			was = __atomic_fetch_sub(&c->out_bytes, o->len, __ATOMIC_ACQ_REL);
			out_free(o);
			c->out_since = now_ms();
			out_room(c, was);
			continue;
		}
		if (srv_cfg.stall_timeout) {
			uint64_t by = c->out_since + srv_cfg.stall_timeout * 1000ull, now = now_ms();

			if (now >= by) {
				conn_drop(c, "a reply not taken within stall_timeout");
				continue;
			}
			timeout = by - now > 1000000 ? 1000000 : (int)(by - now);
		}
		pthread_mutex_unlock(&c->wlock);
		poll(&p, 1, timeout);
		pthread_mutex_lock(&c->wlock);
	}
	pthread_mutex_unlock(&c->wlock);
	return NULL;
}

/* Queue the rest of a reply for the writer (wlock held); 0 or -ENOMEM. */
static int out_queue(struct srv_conn *c, const uint8_t *buf, uint32_t len)
{
	struct srv_out *o = out_alloc(len);

	if (!o)
		return -ENOMEM;
	memcpy(o->data, buf, len);
	o->len = len;
	o->off = 0;
	o->next = NULL;
	if (!c->outq)
		c->out_since = now_ms();
	*c->outq_tail = o;
	c->outq_tail = &o->next;
	__atomic_add_fetch(&c->out_bytes, len, __ATOMIC_RELEASE);
	if (!c->writer_on) {
		pthread_attr_t attr;
		int err;

		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, 128 * 1024);
		err = pthread_create(&c->writer, &attr, writer_main, c);
		pthread_attr_destroy(&attr);
		if (err)
			return -err;
		c->writer_on = true;
	}
	pthread_cond_signal(&c->out_cond);
	return 0;
}

static void send_bytes(struct srv_conn *c, const uint8_t *buf, uint32_t len)
{
	pthread_mutex_lock(&c->wlock);
	if (conn_dead(c))
		goto out;
	if (srv_cfg.debug)
		srv_trace(c, "<-", buf, len);
	if (!c->wsock) {
		if (write_all(c->wfd, buf, len) < 0)
			conn_drop(c, "cannot send");
		goto out;
	}
	/* in order: behind what is queued, else straight out if it fits */
	if (!c->outq) {
		ssize_t n = send_now(c, buf, len);

		if (n < 0) {
			conn_drop(c, "cannot send");
			goto out;
		}
		buf += n;
		len -= (uint32_t)n;
	}
	if (len && out_queue(c, buf, len) < 0)
		conn_drop(c, "cannot queue a reply");
out:
	pthread_mutex_unlock(&c->wlock);
}

/*
 * Take a finished request off the connection; returns the flushes that
 * waited on it, in arrival order. *counted: it was in flight (not a
 * request answered before it was counted).
 */
static struct srv_req *req_retire(struct srv_req *req, bool *counted)
{
	struct srv_conn *c = req->conn;
	struct srv_req *fl;

	*counted = false;
	pthread_mutex_lock(&c->lock);
	for (struct srv_req **pp = &c->reqs; *pp; pp = &(*pp)->next) {
		if (*pp == req) {
			*pp = req->next;
			*counted = true;
			break;
		}
	}
	req->state = SRV_REQ_DONE;
	fl = req->flushers;
	req->flushers = NULL;
	pthread_mutex_unlock(&c->lock);
	srv_pool_forget(req);
	if (req->on_worker)
		srv_pool_done(req);
	return fl;
}

/*
 * The request is finished (replied to, or cancelled): take it off the
 * connection and answer, in order, the flushes that waited on it, and
 * the flushes that waited on those, depth first (each Rflush right after
 * the reply it waited for). A client can chain thousands of flushes, one
 * on the next: this is a loop over a list, never a recursion. Each
 * flush on the list is still counted in flight, so the connection lives
 * until the last one is released; nothing of c is touched after that.
 */
static void req_complete(struct srv_req *req)
{
	struct srv_conn *c = req->conn;
	struct srv_req *todo, *fl, *mine, **tail;
	bool counted;
	int len;

	todo = req_retire(req, &counted);
	req_release_counted(c, req, counted);
	while ((fl = todo)) {
		todo = fl->fnext;
		fl->out.type = V9P_RFLUSH;
		fl->out.tag = fl->tag;
		len = v9p_pack(&fl->out, c->dialect, fl->tx, fl->bufsize);
		if (len > 0)
			send_bytes(c, fl->tx, (uint32_t)len);
		/* the flushes of this flush go before its later siblings */
		mine = req_retire(fl, &counted);
		if (mine) {
			for (tail = &mine; *tail; tail = &(*tail)->fnext)
				;
			*tail = todo;
			todo = mine;
		}
		req_release_counted(c, fl, counted);
	}
}

/* Send req->tx[0..len) (len <= 0: nothing to send) and retire req. */
static void srv_reply(struct srv_req *req, int len)
{
	if (len > 0)
		send_bytes(req->conn, req->tx, (uint32_t)len);
	req_complete(req);
}

/* Rerror (9P2000: text; .u: text and errno) or Rlerror (.L) for -err. */
static void srv_reply_error(struct srv_req *req, int err)
{
	struct srv_conn *c = req->conn;
	struct v9p_fcall *o = &req->out;
	int len;

	if (err < 0)
		err = -err;
	if (err == 0)
		err = EIO;
	memset(o, 0, sizeof(*o));
	o->tag = req->tag;
	if (c->dialect == V9P_9P2000L) {
		o->type = V9P_RLERROR;
		o->rlerror.ecode = (uint32_t)err;
	} else {
		o->type = V9P_RERROR;
		v9p_str_set(&o->rerror.ename, v9p_errno_to_errstr(err));
		o->rerror.errcode = (uint32_t)err;
	}
	len = v9p_pack(o, c->dialect, req->tx, req->bufsize);
	srv_reply(req, len);
}

/* Run req's handler (dispatch.c) and send what it answers. */
static void run_request(struct srv_req *req)
{
	int len = srv_dispatch(req);

	if (len < 0)
		srv_reply_error(req, len);
	else
		srv_reply(req, len);
}

/* Poke every running request out of a blocking system call. */
static void interrupt_all(struct srv_conn *c)
{
	for (struct srv_req *r = c->reqs; r; r = r->next)
		if (r->state == SRV_REQ_RUNNING)
			srv_pool_interrupt(r);
}

/* Wait until no request but the caller's is in flight (lock held). */
static void wait_idle(struct srv_conn *c)
{
	while (c->nreqs) {
		interrupt_all(c);
		pthread_cond_wait(&c->cond, &c->lock);
	}
}

static void handle_version(struct srv_req *req)
{
	struct srv_conn *c = req->conn;
	struct v9p_tversion *tv = &req->in.tversion;
	struct v9p_fcall *o = &req->out;
	uint32_t msize = tv->msize;
	int d, len;

	pthread_mutex_lock(&c->lock);
	wait_idle(c);
	pthread_mutex_unlock(&c->lock);
	/* a new session: everything of the old one is gone */
	srv_fid_clunk_all(c);

	memset(o, 0, sizeof(*o));
	o->type = V9P_RVERSION;
	o->tag = req->tag;
	if (msize > srv_cfg.msize)
		msize = srv_cfg.msize;
	o->rversion.msize = msize;
	d = v9p_dialect_parse(&tv->version);
	if (d > (int)srv_cfg.max_dialect)
		d = (int)srv_cfg.max_dialect;
	if (d < 0 || msize < SRV_MIN_MSIZE) {
		v9p_str_set(&o->rversion.version, V9P_VERSION_UNKNOWN);
		c->versioned = false;
	} else {
		/* answer with the dialect we speak, e.g. "9P2000" for "9P2000.x" */
		v9p_str_set(&o->rversion.version, v9p_dialect_name((enum v9p_dialect)d));
		c->dialect = (enum v9p_dialect)d;
		c->versioned = true;
	}
	len = v9p_pack(o, c->dialect, req->tx, req->bufsize);
	send_bytes(c, req->tx, (uint32_t)len);
	if (c->versioned)
		c->msize = msize;
	req_release(c, req);
}

/* Tflush runs on the connection thread: it never blocks. */
static void handle_flush(struct srv_req *req)
{
	struct srv_conn *c = req->conn;
	uint16_t oldtag = req->in.tflush.oldtag;
	struct srv_req *old = NULL;
	int len;

	pthread_mutex_lock(&c->lock);
	for (struct srv_req *r = c->reqs; r; r = r->next) {
		if (r != req && r->tag == oldtag && r->state != SRV_REQ_DONE) {
			old = r;
			break;
		}
	}
	if (old) {
		struct srv_req **pp = &old->flushers;

		while (*pp)
			pp = &(*pp)->fnext;
		*pp = req;
		if (old->state == SRV_REQ_QUEUED)
			old->cancelled = true;
		else
			srv_pool_interrupt(old);
		pthread_mutex_unlock(&c->lock);
		return;
	}
	pthread_mutex_unlock(&c->lock);
	memset(&req->out, 0, sizeof(req->out));
	req->out.type = V9P_RFLUSH;
	req->out.tag = req->tag;
	len = v9p_pack(&req->out, c->dialect, req->tx, req->bufsize);
	if (len < 0)
		srv_reply_error(req, len);
	else
		srv_reply(req, len);
}

/* A worker picked req: run it unless it was flushed meanwhile. */
static void run_on_worker(struct srv_req *req)
{
	struct srv_conn *c = req->conn;
	bool run;

	pthread_mutex_lock(&c->lock);
	run = !req->cancelled;
	if (run) {
		req->state = SRV_REQ_RUNNING;
		req->worker = pthread_self();
	}
	pthread_mutex_unlock(&c->lock);
	if (run)
		run_request(req);
	else
		req_complete(req);
}

static void handle_message(struct srv_conn *c, struct srv_req *req)
{
	struct v9p_hdr h;
	bool idle;
	int err;

	srv_stats_count(req->rx[4]);
	if (srv_cfg.debug)
		srv_trace(c, "->", req->rx, req->rxlen);
	v9p_peek_hdr(req->rx, req->rxlen, 0, &h);
	req->tag = h.tag;
	req->type = h.type;

	if (!v9p_type_valid(req->type, c->dialect) && req->type != V9P_TVERSION)
		err = -EOPNOTSUPP;	/* not a message of this dialect */
	else
		err = v9p_unpack(req->rx, req->rxlen, c->dialect, c->msize, &req->in);
	if (err < 0) {
		req->state = SRV_REQ_RUNNING;
		srv_reply_error(req, err == -EOPNOTSUPP ? EOPNOTSUPP : EPROTO);
		return;
	}
	if (req->type == V9P_TVERSION) {
		handle_version(req);
		return;
	}
	if (req_size_reply(req) < 0) {
		req->state = SRV_REQ_RUNNING;
		srv_reply_error(req, ENOMEM);
		return;
	}

	pthread_mutex_lock(&c->lock);
	if (!c->versioned || (req->type & 1) ||
	    c->nreqs >= srv_cfg.max_reqs * (req->type == V9P_TFLUSH ? 2 : 1) ||
	    !srv_limit_req_take()) {
		pthread_mutex_unlock(&c->lock);
		req->state = SRV_REQ_RUNNING;
		srv_reply_error(req, !c->versioned ? EPROTO :
				(req->type & 1) ? EOPNOTSUPP : EAGAIN);
		return;
	}
	idle = c->nreqs == 0;
	req->next = c->reqs;
	c->reqs = req;
	c->nreqs++;
	c->inflight_bytes += req->rxcap + req->bufsize;
	if (idle && req->type != V9P_TFLUSH && srv_inline_ok(req)) {
		req->state = SRV_REQ_RUNNING;
		req->worker = pthread_self();
	}
	pthread_mutex_unlock(&c->lock);

	if (req->type == V9P_TFLUSH)
		handle_flush(req);
	else if (req->state == SRV_REQ_RUNNING)
		run_request(req);	/* nothing else in flight: no hand-off */
	else
		srv_pool_submit(req, run_on_worker);
}

/*
 * The connection's input. Time limits use the socket's SO_RCVTIMEO (so a
 * read that gets its bytes costs nothing extra), changed only when the
 * limit in force changes: the idle limit between messages, or what is
 * left of the time a begun message (or, before Tversion, the connection)
 * has to arrive whole.
 */
struct reader {
	int fd;
	bool sock;		/* a socket: the time limits work */
	unsigned int rcvto;	/* SO_RCVTIMEO in force, seconds (0: none) */
	uint64_t deadline;	/* ms, CLOCK_MONOTONIC; 0: the idle limit applies */
	uint8_t buf[IBUF_SIZE];
	uint32_t start, end;
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Before a read that may block: the limit for it. -ETIMEDOUT if past. */
static int reader_arm(struct reader *rd)
{
	unsigned int secs = srv_cfg.idle_timeout;
	struct timeval tv;

	if (!rd->sock)
		return 0;
	if (rd->deadline) {
		uint64_t now = now_ms();

		if (now >= rd->deadline)
			return -ETIMEDOUT;
		secs = (unsigned int)((rd->deadline - now + 999) / 1000);
	}
	if (secs == rd->rcvto)
		return 0;
	tv.tv_sec = secs;
	tv.tv_usec = 0;
	if (setsockopt(rd->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) == 0)
		rd->rcvto = secs;
	return 0;
}

/* A read failed with errno: go on (EINTR, time left) or the error. */
static int reader_error(struct reader *rd)
{
	if (errno == EINTR)
		return 0;
	if (errno == EAGAIN) {
		if (rd->deadline && now_ms() < rd->deadline)
			return 0;
		return -ETIMEDOUT;
	}
	return -errno;
}

/*
 * How much one read may take into the buffer when len bytes are wanted:
 * as much as fits, except under -o serial, where nothing past the message
 * being read leaves the socket before that message is answered.
 */
static size_t reader_room(uint32_t len)
{
	return srv_cfg.serial && len < IBUF_SIZE ? len : IBUF_SIZE;
}

/* Fill dst with exactly len bytes, first from the buffer, then the socket. */
static int reader_get(struct reader *rd, uint8_t *dst, uint32_t len)
{
	while (len) {
		uint32_t have = rd->end - rd->start;
		ssize_t n;
		int err;

		if (have) {
			uint32_t k = have < len ? have : len;

			memcpy(dst, rd->buf + rd->start, k);
			rd->start += k;
			dst += k;
			len -= k;
			continue;
		}
		err = reader_arm(rd);
		if (err < 0)
			return err;
		/* big payloads go straight to their buffer, small ones batch */
		if (len >= IBUF_SIZE / 2) {
			n = read(rd->fd, dst, len);
			if (n > 0) {
				dst += n;
				len -= (uint32_t)n;
				continue;
			}
		} else {
			rd->start = rd->end = 0;
			n = read(rd->fd, rd->buf, reader_room(len));
			if (n > 0) {
				rd->end = (uint32_t)n;
				continue;
			}
		}
		if (n == 0)
			return -EPIPE;
		err = reader_error(rd);
		if (err < 0)
			return err;
	}
	return 0;
}

static unsigned int conn_nfids(struct srv_conn *c)
{
	unsigned int n;

	pthread_mutex_lock(&c->fids.lock);
	n = c->fids.count;
	pthread_mutex_unlock(&c->fids.lock);
	return n;
}

/*
 * The deadline (ms; 0: none) for the next message: before Tversion the
 * connection's, and while it holds no fid, handshake_timeout from when it
 * began to hold none (from its start, before its first Tattach). A
 * connection that holds nothing is closed, so connections that only
 * connect, or only send Tversion, cannot hold a place for long; one that
 * holds a fid (a mount) may be idle for as long as idle_timeout allows.
 */
static uint64_t next_deadline(struct srv_conn *c, uint64_t version_by)
{
	uint64_t by = c->versioned ? 0 : version_by, h;

	if (!srv_cfg.handshake_timeout)
		return by;
	if (conn_nfids(c)) {
		c->nofid_since = 0;
		return by;
	}
	if (!c->nofid_since)
		c->nofid_since = now_ms();
	h = c->nofid_since + srv_cfg.handshake_timeout * 1000ull;
	return by && by < h ? by : h;
}

/*
 * Wait for the first byte of the next message under the idle limit (or
 * next_deadline()); from there the message has msg_timeout to arrive
 * whole, and no longer than that deadline.
 */
static int reader_next(struct reader *rd, struct srv_conn *c, uint64_t version_by)
{
	uint64_t by;

	while (rd->end == rd->start) {
		ssize_t n;
		int err;

		/* again each time: a Tattach on a worker may have ended it */
		rd->deadline = next_deadline(c, version_by);
		err = reader_arm(rd);
		if (err < 0)
			return err;
		rd->start = rd->end = 0;
		n = read(rd->fd, rd->buf, reader_room(4));
		if (n > 0) {
			rd->end = (uint32_t)n;
			break;
		}
		if (n == 0)
			return -EPIPE;
		if (errno == EAGAIN && rd->deadline)
			continue;
		err = reader_error(rd);
		if (err < 0)
			return err;
	}
	by = next_deadline(c, version_by);
	if (srv_cfg.msg_timeout) {
		uint64_t m = now_ms() + srv_cfg.msg_timeout * 1000ull;

		by = by && by < m ? by : m;
	}
	rd->deadline = by;
	return 0;
}

/*
 * Requests in flight and replies not yet taken hold memory: past
 * SRV_CONN_BYTES of them the connection reads no new request until some
 * are gone, so a client that does not read its replies costs a bounded
 * amount of memory (and is dropped after stall_timeout).
 */
static void wait_for_room(struct srv_conn *c)
{
	pthread_mutex_lock(&c->lock);
	while (c->inflight_bytes + __atomic_load_n(&c->out_bytes, __ATOMIC_ACQUIRE) >
	       SRV_CONN_BYTES && !conn_dead(c))
		pthread_cond_wait(&c->cond, &c->lock);
	pthread_mutex_unlock(&c->lock);
}

/* Has the client hung up (or shut its sending side)? Reads nothing. */
static bool peer_gone(struct srv_conn *c)
{
	struct pollfd p = { .fd = c->rfd, .events = POLLRDHUP };

	return poll(&p, 1, 0) == 1 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

/*
 * -o serial: the request just read is answered before the next is read.
 * Meanwhile nothing reads the socket, so a client that hangs up behind a
 * request that waits for long (a blocking Tlock) would go unnoticed, and
 * the request and the connection would wait for ever: a request that is
 * still running after SERIAL_HUP_POLL_MS looks at the socket every as many
 * milliseconds, and a hang-up ends the connection as an end of file does
 * in the default mode (drain: running requests are interrupted).
 */
#define SERIAL_HUP_POLL_MS 100

static void wait_answered(struct srv_conn *c)
{
	struct timespec ts;

	pthread_mutex_lock(&c->lock);
	while (c->nreqs && !conn_dead(c)) {
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += SERIAL_HUP_POLL_MS * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		if (pthread_cond_timedwait(&c->cond, &c->lock, &ts) != ETIMEDOUT)
			continue;
		pthread_mutex_unlock(&c->lock);
		if (peer_gone(c)) {
			conn_kill(c);
			if (srv_cfg.debug)
				fprintf(stderr, "v9fsd: %s: hung up during a request\n", c->peer);
			return;
		}
		pthread_mutex_lock(&c->lock);
	}
	pthread_mutex_unlock(&c->lock);
}

/* The peer of a connection, for the per-peer limit: none for a pipe. */
static void peer_of(int fd, struct srv_peer *p)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	memset(p, 0, sizeof(*p));
	if (getpeername(fd, (struct sockaddr *)&ss, &sl) < 0)
		return;
	if (ss.ss_family == AF_UNIX) {
		struct ucred cr;
		socklen_t cl = sizeof(cr);

		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &cl) == 0) {
			p->family = AF_UNIX;
			memcpy(p->addr, &cr.uid, sizeof(cr.uid));
		}
	} else if (ss.ss_family == AF_INET) {
		/* as an IPv4-mapped IPv6 address: one key for both forms */
		p->family = AF_INET6;
		p->addr[10] = p->addr[11] = 0xff;
		memcpy(p->addr + 12, &((struct sockaddr_in *)&ss)->sin_addr, 4);
	} else if (ss.ss_family == AF_INET6) {
		p->family = AF_INET6;
		memcpy(p->addr, &((struct sockaddr_in6 *)&ss)->sin6_addr, 16);
	}
}

/*
 * Serve one client on rfd/wfd until it goes away. squash: a root attach
 * acts as the anonymous user (network clients, unless no_root_squash).
 */
void srv_conn_serve(int rfd, int wfd, const char *peer, bool squash)
{
	struct srv_conn *c = calloc(1, sizeof(*c));
	struct reader *rd = malloc(sizeof(*rd));
	struct srv_req *req;
	uint64_t version_by;

	if (!c || !rd) {
		fprintf(stderr, "v9fsd: %s: out of memory\n", peer);
		goto out_free;
	}
	peer_of(rfd, &c->peerid);
	if (srv_limit_conn_take(&c->peerid) < 0) {
		if (srv_cfg.debug)
			fprintf(stderr, "v9fsd: %s: too many connections, refusing\n", peer);
		free(rd);
		free(c);
		goto out_close;
	}
	if (srv_fidtab_init(&c->fids) < 0) {
		fprintf(stderr, "v9fsd: %s: out of memory\n", peer);
		srv_limit_conn_give(&c->peerid);
		goto out_free;
	}
	c->nofid_since = now_ms();
	c->rfd = rfd;
	c->wfd = wfd;
	c->msize = srv_cfg.msize;
	c->dialect = V9P_9P2000;
	c->squash = squash;
	snprintf(c->peer, sizeof(c->peer), "%s", peer);
	pthread_mutex_init(&c->lock, NULL);
	pthread_mutex_init(&c->wlock, NULL);
	pthread_cond_init(&c->cond, NULL);
	rd->fd = rfd;
	rd->start = rd->end = 0;
	rd->rcvto = 0;
	rd->deadline = 0;
	{
		int type;
		socklen_t tl = sizeof(type);

		rd->sock = getsockopt(rfd, SOL_SOCKET, SO_TYPE, &type, &tl) == 0;
	}
	{
		int type;
		socklen_t tl = sizeof(type);

		c->wsock = getsockopt(wfd, SOL_SOCKET, SO_TYPE, &type, &tl) == 0;
	}
	c->outq_tail = &c->outq;
	pthread_cond_init(&c->out_cond, NULL);
	version_by = srv_cfg.msg_timeout ? now_ms() + srv_cfg.msg_timeout * 1000ull : 0;

	for (;;) {
		uint8_t hdr[4];
		uint32_t size;

		wait_for_room(c);
		if (reader_next(rd, c, version_by) < 0 || reader_get(rd, hdr, 4) < 0)
			break;
		size = get_le32(hdr);
		if (size < V9P_HDRSZ || size > c->msize) {
			/* no way to resynchronise a byte stream: hang up */
			if (srv_cfg.debug)
				fprintf(stderr, "v9fsd: %s: bad message size %u\n",
					c->peer, size);
			break;
		}
		req = req_alloc(c);
		if (!req)
			break;
		if (buf_reserve(&req->rx, &req->rxcap, size) < 0) {
			req_release(c, req);
			break;
		}
		memcpy(req->rx, hdr, 4);
		if (reader_get(rd, req->rx + 4, size - 4) < 0) {
			req_release(c, req);
			break;
		}
		req->rxlen = size;
		handle_message(c, req);
		if (srv_cfg.serial)
			wait_answered(c);
		if (conn_dead(c))
			break;
	}

	/* drain: nothing is read any more, let running requests finish */
	pthread_mutex_lock(&c->lock);
	conn_kill(c);
	for (struct srv_req *r = c->reqs; r; r = r->next)
		if (r->state == SRV_REQ_QUEUED)
			r->cancelled = true;
	srv_pool_wake();	/* a backed-up connection's requests may run now */
	wait_idle(c);
	pthread_mutex_unlock(&c->lock);
	/* nothing more is sent: the writer, if any, ends */
	pthread_mutex_lock(&c->wlock);
	c->writer_stop = true;
	pthread_cond_signal(&c->out_cond);
	pthread_mutex_unlock(&c->wlock);
	if (c->writer_on) {
		shutdown(c->wfd, SHUT_RDWR);	/* out of its wait for room */
		pthread_join(c->writer, NULL);
	}
	srv_fid_clunk_all(c);
	while ((req = c->free_reqs)) {
		c->free_reqs = req->next;
		req_free(req);
	}
	srv_fidtab_destroy(&c->fids);
	pthread_mutex_destroy(&c->lock);
	pthread_mutex_destroy(&c->wlock);
	pthread_cond_destroy(&c->cond);
	pthread_cond_destroy(&c->out_cond);
	srv_limit_conn_give(&c->peerid);
out_free:
	free(rd);
	free(c);
	/* give what this client's buffers took back to the system */
	malloc_trim(0);
out_close:
	close(rfd);
	if (wfd != rfd)
		close(wfd);
}
