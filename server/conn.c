// SPDX-License-Identifier: GPL-2.0
/*
 * conn.c - one client connection.
 *
 * The connection's own thread reads and frames messages, answers Tversion
 * and Tflush itself and hands every other request to the worker pool, so a
 * slow request never holds up the ones behind it. Replies are written whole
 * under wlock, in whatever order requests finish.
 *
 * Tflush: if the old tag is still in flight the flush waits on it and its
 * Rflush is sent right after the old request's reply (or instead of it when
 * the old request had not started yet), never before. A running request is
 * poked with a signal so that a blocking read on a fifo or a lock returns.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>

#include "srv.h"

#define IBUF_SIZE	(16 * 1024)

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static struct srv_req *req_alloc(struct srv_conn *c)
{
	struct srv_req *r;

	pthread_mutex_lock(&c->lock);
	r = c->free_reqs;
	if (r) {
		c->free_reqs = r->next;
		c->nfree--;
	}
	pthread_mutex_unlock(&c->lock);
	if (r && r->bufsize != c->msize) {
		free(r->rx);
		free(r->tx);
		free(r);
		r = NULL;
	}
	if (!r) {
		r = calloc(1, sizeof(*r));
		if (!r)
			return NULL;
		r->bufsize = c->msize;
		r->rx = malloc(c->msize);
		r->tx = malloc(c->msize);
		if (!r->rx || !r->tx) {
			free(r->rx);
			free(r->tx);
			free(r);
			return NULL;
		}
	}
	r->conn = c;
	r->next = r->qnext = r->flushers = r->fnext = NULL;
	r->state = SRV_REQ_QUEUED;
	r->cancelled = false;
	r->kicked = false;
	return r;
}

/*
 * Keep a few buffers of the current msize for the next requests. With
 * counted, also take req off the in-flight count: in the same critical
 * section, because once the count reaches 0 the connection thread may free
 * the connection, so nothing of c may be touched after this.
 */
static void req_release_counted(struct srv_conn *c, struct srv_req *r, bool counted)
{
	pthread_mutex_lock(&c->lock);
	if (r->bufsize == c->msize && c->nfree < 8) {
		r->next = c->free_reqs;
		c->free_reqs = r;
		c->nfree++;
		r = NULL;
	}
	if (counted) {
		c->nreqs--;
		pthread_cond_broadcast(&c->cond);
	}
	pthread_mutex_unlock(&c->lock);
	if (r) {
		free(r->rx);
		free(r->tx);
		free(r);
	}
}

static void req_release(struct srv_conn *c, struct srv_req *r)
{
	req_release_counted(c, r, false);
}

static int write_all(int fd, const uint8_t *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
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

static void send_bytes(struct srv_conn *c, const uint8_t *buf, uint32_t len)
{
	pthread_mutex_lock(&c->wlock);
	if (!c->dead) {
		if (srv_cfg.debug)
			srv_trace(c, "<-", buf, len);
		if (write_all(c->wfd, buf, len) < 0)
			c->dead = true;
	}
	pthread_mutex_unlock(&c->wlock);
}

/*
 * The request is finished (replied to, or cancelled): take it off the
 * connection and answer, in order, the flushes that waited on it.
 */
static void req_complete(struct srv_req *req)
{
	struct srv_conn *c = req->conn;
	struct srv_req *fl, *next;
	bool counted = false;

	pthread_mutex_lock(&c->lock);
	for (struct srv_req **pp = &c->reqs; *pp; pp = &(*pp)->next) {
		if (*pp == req) {
			*pp = req->next;
			counted = true;
			break;
		}
	}
	req->state = SRV_REQ_DONE;
	fl = req->flushers;
	req->flushers = NULL;
	pthread_mutex_unlock(&c->lock);
	srv_pool_forget(req);

	for (; fl; fl = next) {
		next = fl->fnext;
		fl->out.type = V9P_RFLUSH;
		fl->out.tag = fl->tag;
		srv_reply(fl, v9p_pack(&fl->out, c->dialect, fl->tx, fl->bufsize));
	}
	req_release_counted(c, req, counted);
}

/* Send req->tx[0..len) (len <= 0: nothing to send) and retire req. */
void srv_reply(struct srv_req *req, int len)
{
	if (len > 0)
		send_bytes(req->conn, req->tx, (uint32_t)len);
	req_complete(req);
}

/* Rerror (9P2000: text; .u: text and errno) or Rlerror (.L) for -err. */
void srv_reply_error(struct srv_req *req, int err)
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

int srv_reply_fcall(struct srv_req *req, uint8_t type)
{
	int len;

	req->out.type = type;
	req->out.tag = req->tag;
	len = v9p_pack(&req->out, req->conn->dialect, req->tx, req->bufsize);
	if (len < 0)
		return len;
	srv_reply(req, len);
	return 0;
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
	srv_reply_fcall(req, V9P_RFLUSH);
}

/* Called by a worker that picked req: false if it was flushed meanwhile. */
bool srv_req_start(struct srv_req *req)
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
	if (!run)
		req_complete(req);
	return run;
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

	pthread_mutex_lock(&c->lock);
	if (!c->versioned || (req->type & 1) ||
	    c->nreqs >= srv_cfg.max_reqs * (req->type == V9P_TFLUSH ? 2 : 1)) {
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
	if (idle && req->type != V9P_TFLUSH && srv_inline_ok(req)) {
		req->state = SRV_REQ_RUNNING;
		req->worker = pthread_self();
	}
	pthread_mutex_unlock(&c->lock);

	if (req->type == V9P_TFLUSH)
		handle_flush(req);
	else if (req->state == SRV_REQ_RUNNING)
		srv_dispatch(req);	/* nothing else in flight: no hand-off */
	else
		srv_pool_submit(req);
}

struct reader {
	int fd;
	uint8_t buf[IBUF_SIZE];
	uint32_t start, end;
};

/* Fill dst with exactly len bytes, first from the buffer, then the socket. */
static int reader_get(struct reader *rd, uint8_t *dst, uint32_t len)
{
	while (len) {
		uint32_t have = rd->end - rd->start;
		ssize_t n;

		if (have) {
			uint32_t k = have < len ? have : len;

			memcpy(dst, rd->buf + rd->start, k);
			rd->start += k;
			dst += k;
			len -= k;
			continue;
		}
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
			n = read(rd->fd, rd->buf, IBUF_SIZE);
			if (n > 0) {
				rd->end = (uint32_t)n;
				continue;
			}
		}
		if (n == 0)
			return -EPIPE;
		if (errno != EINTR)
			return -errno;
	}
	return 0;
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

	if (!c || !rd || srv_fidtab_init(&c->fids) < 0) {
		fprintf(stderr, "v9fsd: %s: out of memory\n", peer);
		goto out_free;
	}
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

	for (;;) {
		uint8_t hdr[4];
		uint32_t size;

		if (reader_get(rd, hdr, 4) < 0)
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
		memcpy(req->rx, hdr, 4);
		if (reader_get(rd, req->rx + 4, size - 4) < 0) {
			req_release(c, req);
			break;
		}
		req->rxlen = size;
		handle_message(c, req);
		if (c->dead)
			break;
	}

	/* drain: nothing is read any more, let running requests finish */
	pthread_mutex_lock(&c->lock);
	c->dead = true;
	for (struct srv_req *r = c->reqs; r; r = r->next)
		if (r->state == SRV_REQ_QUEUED)
			r->cancelled = true;
	wait_idle(c);
	pthread_mutex_unlock(&c->lock);
	srv_fid_clunk_all(c);
	while ((req = c->free_reqs)) {
		c->free_reqs = req->next;
		free(req->rx);
		free(req->tx);
		free(req);
	}
	srv_fidtab_destroy(&c->fids);
	pthread_mutex_destroy(&c->lock);
	pthread_mutex_destroy(&c->wlock);
	pthread_cond_destroy(&c->cond);
out_free:
	free(rd);
	free(c);
	close(rfd);
	if (wfd != rfd)
		close(wfd);
}
