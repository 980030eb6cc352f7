/* SPDX-License-Identifier: GPL-2.0 */
/*
 * v9p_wire.h - proto/ internal: bounded little-endian cursors.
 *
 * The writer keeps counting past the end of its buffer without writing, so a
 * single pass both measures and encodes; the caller checks the final
 * position. The reader turns every overrun into a sticky -EPROTO and returns
 * zeroes from then on, so decoders can read a whole message and check once;
 * it never touches a byte outside [buf, buf + len).
 */
#ifndef V9P_WIRE_H
#define V9P_WIRE_H

#include "v9p.h"

struct v9p_wbuf {
	u8 *buf;		/* may be NULL when only measuring */
	u64 size;
	u64 pos;
	int err;
};

struct v9p_rbuf {
	const u8 *buf;
	u32 len;
	u32 pos;
	int err;
};

static inline void v9p_wbuf_init(struct v9p_wbuf *w, u8 *buf, u32 size)
{
	w->buf = buf;
	w->size = buf ? size : 0;
	w->pos = 0;
	w->err = 0;
}

static inline int v9p_wbuf_fits(const struct v9p_wbuf *w, u32 n)
{
	return w->pos + n <= w->size;
}

static inline void v9p_put_u8(struct v9p_wbuf *w, u8 v)
{
	if (v9p_wbuf_fits(w, 1))
		w->buf[w->pos] = v;
	w->pos += 1;
}

static inline void v9p_put_u16(struct v9p_wbuf *w, u16 v)
{
	if (v9p_wbuf_fits(w, 2)) {
		w->buf[w->pos] = (u8)v;
		w->buf[w->pos + 1] = (u8)(v >> 8);
	}
	w->pos += 2;
}

static inline void v9p_put_u32(struct v9p_wbuf *w, u32 v)
{
	int i;

	if (v9p_wbuf_fits(w, 4))
		for (i = 0; i < 4; i++)
			w->buf[w->pos + i] = (u8)(v >> (8 * i));
	w->pos += 4;
}

static inline void v9p_put_u64(struct v9p_wbuf *w, u64 v)
{
	int i;

	if (v9p_wbuf_fits(w, 8))
		for (i = 0; i < 8; i++)
			w->buf[w->pos + i] = (u8)(v >> (8 * i));
	w->pos += 8;
}

static inline void v9p_put_bytes(struct v9p_wbuf *w, const void *p, u32 n)
{
	if (n && v9p_wbuf_fits(w, n))
		memcpy(w->buf + w->pos, p, n);
	w->pos += n;
}

/* A NUL inside a string would let a peer smuggle a shorter name past checks. */
static inline void v9p_put_str(struct v9p_wbuf *w, const struct v9p_str *s)
{
	if (s->len && (!s->s || memchr(s->s, 0, s->len)))
		w->err = -EINVAL;
	v9p_put_u16(w, s->len);
	if (!w->err)
		v9p_put_bytes(w, s->s, s->len);
	else
		w->pos += s->len;
}

static inline void v9p_put_qid(struct v9p_wbuf *w, const struct v9p_qid *q)
{
	v9p_put_u8(w, q->type);
	v9p_put_u32(w, q->version);
	v9p_put_u64(w, q->path);
}

/* Overwrite the u32 at position at, which the caller has already written. */
static inline void v9p_poke_u32(struct v9p_wbuf *w, u64 at, u32 v)
{
	int i;

	if (at + 4 <= w->size)
		for (i = 0; i < 4; i++)
			w->buf[at + i] = (u8)(v >> (8 * i));
}

static inline void v9p_poke_u16(struct v9p_wbuf *w, u64 at, u16 v)
{
	if (at + 2 <= w->size) {
		w->buf[at] = (u8)v;
		w->buf[at + 1] = (u8)(v >> 8);
	}
}

static inline void v9p_rbuf_init(struct v9p_rbuf *r, const u8 *buf, u32 len)
{
	r->buf = buf;
	r->len = len;
	r->pos = 0;
	r->err = 0;
}

static inline u32 v9p_rbuf_left(const struct v9p_rbuf *r)
{
	return r->len - r->pos;
}

/* Claim n bytes; NULL (and a sticky error) if fewer are left. */
static inline const u8 *v9p_take(struct v9p_rbuf *r, u32 n)
{
	const u8 *p;

	if (r->err || n > v9p_rbuf_left(r)) {
		r->err = -EPROTO;
		return NULL;
	}
	p = r->buf + r->pos;
	r->pos += n;
	return p;
}

static inline u8 v9p_get_u8(struct v9p_rbuf *r)
{
	const u8 *p = v9p_take(r, 1);

	return p ? p[0] : 0;
}

static inline u16 v9p_get_u16(struct v9p_rbuf *r)
{
	const u8 *p = v9p_take(r, 2);

	return p ? (u16)(p[0] | (p[1] << 8)) : 0;
}

static inline u32 v9p_get_u32(struct v9p_rbuf *r)
{
	const u8 *p = v9p_take(r, 4);

	if (!p)
		return 0;
	return (u32)p[0] | ((u32)p[1] << 8) | ((u32)p[2] << 16) |
	       ((u32)p[3] << 24);
}

static inline u64 v9p_get_u64(struct v9p_rbuf *r)
{
	u64 lo = v9p_get_u32(r);
	u64 hi = v9p_get_u32(r);

	return lo | (hi << 32);
}

static inline void v9p_get_str(struct v9p_rbuf *r, struct v9p_str *s)
{
	u16 n = v9p_get_u16(r);
	const u8 *p = v9p_take(r, n);

	s->s = "";
	s->len = 0;
	if (!p)
		return;
	if (n && memchr(p, 0, n)) {
		r->err = -EPROTO;
		return;
	}
	s->s = (const char *)p;
	s->len = n;
}

static inline void v9p_get_qid(struct v9p_rbuf *r, struct v9p_qid *q)
{
	q->type = v9p_get_u8(r);
	q->version = v9p_get_u32(r);
	q->path = v9p_get_u64(r);
}

/* Shared between v9p_msg.c and v9p_stat.c. */
void v9p_put_stat(struct v9p_wbuf *w, const struct v9p_stat *st,
		  enum v9p_dialect d);
void v9p_get_stat(struct v9p_rbuf *r, enum v9p_dialect d, struct v9p_stat *st);

#endif /* V9P_WIRE_H */
