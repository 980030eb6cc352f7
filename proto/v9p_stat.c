// SPDX-License-Identifier: GPL-2.0
/*
 * v9p_stat.c - the 9P2000(.u) stat entry and the 9P2000.L directory entry.
 *
 * stat(5): size[2] type[2] dev[4] qid[13] mode[4] atime[4] mtime[4]
 *          length[8] name[s] uid[s] gid[s] muid[s]
 *   .u adds extension[s] n_uid[4] n_gid[4] n_muid[4]
 * size[2] counts the bytes after itself and must be consumed exactly.
 *
 * .L dirent: qid[13] offset[8] type[1] name[s]
 */
#include "v9p_wire.h"

/* Encode st with its leading size[2]; a stat over 65535 bytes is -EINVAL. */
void v9p_put_stat(struct v9p_wbuf *w, const struct v9p_stat *st,
		  enum v9p_dialect d)
{
	u64 at = w->pos;
	u64 n;

	v9p_put_u16(w, 0);
	v9p_put_u16(w, st->type);
	v9p_put_u32(w, st->dev);
	v9p_put_qid(w, &st->qid);
	v9p_put_u32(w, st->mode);
	v9p_put_u32(w, st->atime);
	v9p_put_u32(w, st->mtime);
	v9p_put_u64(w, st->length);
	v9p_put_str(w, &st->name);
	v9p_put_str(w, &st->uid);
	v9p_put_str(w, &st->gid);
	v9p_put_str(w, &st->muid);
	if (d == V9P_9P2000U) {
		v9p_put_str(w, &st->extension);
		v9p_put_u32(w, st->n_uid);
		v9p_put_u32(w, st->n_gid);
		v9p_put_u32(w, st->n_muid);
	}
	n = w->pos - at - 2;
	if (n > 0xffff) {
		w->err = -EINVAL;
		return;
	}
	v9p_poke_u16(w, at, (u16)n);
}

static void v9p_stat_clear(struct v9p_stat *st)
{
	memset(st, 0, sizeof(*st));
	st->name.s = "";
	st->uid.s = "";
	st->gid.s = "";
	st->muid.s = "";
	st->extension.s = "";
	st->n_uid = V9P_NONUNAME;
	st->n_gid = V9P_NONUNAME;
	st->n_muid = V9P_NONUNAME;
}

/* Decode one stat at r's position; any inconsistency sets r->err. */
void v9p_get_stat(struct v9p_rbuf *r, enum v9p_dialect d, struct v9p_stat *st)
{
	struct v9p_rbuf s;
	u16 n = v9p_get_u16(r);
	const u8 *p = v9p_take(r, n);

	v9p_stat_clear(st);
	if (!p)
		return;
	v9p_rbuf_init(&s, p, n);
	st->type = v9p_get_u16(&s);
	st->dev = v9p_get_u32(&s);
	v9p_get_qid(&s, &st->qid);
	st->mode = v9p_get_u32(&s);
	st->atime = v9p_get_u32(&s);
	st->mtime = v9p_get_u32(&s);
	st->length = v9p_get_u64(&s);
	v9p_get_str(&s, &st->name);
	v9p_get_str(&s, &st->uid);
	v9p_get_str(&s, &st->gid);
	v9p_get_str(&s, &st->muid);
	if (d == V9P_9P2000U) {
		v9p_get_str(&s, &st->extension);
		st->n_uid = v9p_get_u32(&s);
		st->n_gid = v9p_get_u32(&s);
		st->n_muid = v9p_get_u32(&s);
	}
	if (s.err || v9p_rbuf_left(&s))
		r->err = -EPROTO;
}

int v9p_stat_pack(const struct v9p_stat *st, enum v9p_dialect d, u8 *buf,
		  u32 size)
{
	struct v9p_wbuf w;

	if (!st || (d != V9P_9P2000 && d != V9P_9P2000U))
		return -EINVAL;
	v9p_wbuf_init(&w, buf, size);
	v9p_put_stat(&w, st, d);
	if (w.err)
		return w.err;
	if (w.pos > w.size)
		return -EMSGSIZE;
	return (int)w.pos;
}

u32 v9p_stat_size(const struct v9p_stat *st, enum v9p_dialect d)
{
	u32 n = 2 + 2 + 4 + V9P_QIDSZ + 4 + 4 + 4 + 8;

	n += 2 + st->name.len + 2 + st->uid.len;
	n += 2 + st->gid.len + 2 + st->muid.len;
	if (d == V9P_9P2000U)
		n += 2 + st->extension.len + 4 + 4 + 4;
	return n;
}

int v9p_stat_unpack(const u8 *buf, u32 len, enum v9p_dialect d,
		    struct v9p_stat *st)
{
	struct v9p_rbuf r;

	if (!buf || !st || (d != V9P_9P2000 && d != V9P_9P2000U))
		return -EINVAL;
	v9p_rbuf_init(&r, buf, len);
	v9p_get_stat(&r, d, st);
	if (r.err)
		return r.err;
	return (int)r.pos;
}

/*
 * stat(5): "a value of ~0 for an integer, or a zero-length string, means
 * the field is not to be changed" by Twstat.
 */
void v9p_stat_dont_touch(struct v9p_stat *st)
{
	memset(st, 0xff, sizeof(*st));
	st->qid.type = 0xff;
	st->name.s = "";
	st->name.len = 0;
	st->uid.s = "";
	st->uid.len = 0;
	st->gid.s = "";
	st->gid.len = 0;
	st->muid.s = "";
	st->muid.len = 0;
	st->extension.s = "";
	st->extension.len = 0;
}

u32 v9p_dirent_size(const struct v9p_dirent *de)
{
	return V9P_QIDSZ + 8 + 1 + 2 + de->name.len;
}

int v9p_dirent_pack(const struct v9p_dirent *de, u8 *buf, u32 size)
{
	struct v9p_wbuf w;

	if (!de)
		return -EINVAL;
	v9p_wbuf_init(&w, buf, size);
	v9p_put_qid(&w, &de->qid);
	v9p_put_u64(&w, de->offset);
	v9p_put_u8(&w, de->type);
	v9p_put_str(&w, &de->name);
	if (w.err)
		return w.err;
	if (w.pos > w.size)
		return -EMSGSIZE;
	return (int)w.pos;
}

int v9p_dirent_unpack(const u8 *buf, u32 len, struct v9p_dirent *de)
{
	struct v9p_rbuf r;

	if (!buf || !de)
		return -EINVAL;
	v9p_rbuf_init(&r, buf, len);
	v9p_get_qid(&r, &de->qid);
	de->offset = v9p_get_u64(&r);
	de->type = v9p_get_u8(&r);
	v9p_get_str(&r, &de->name);
	if (r.err)
		return r.err;
	return (int)r.pos;
}
