// SPDX-License-Identifier: GPL-2.0
/*
 * proto_reject: hostile and borderline input. Each message is built by hand
 * so that exactly one thing is wrong with it, and must be refused with the
 * documented error; the legal neighbours of each case must still pass.
 */
#include <stdlib.h>
#include <string.h>

#include "v9p.h"
#include "tap.h"

struct mb {
	u8 b[70000];
	u32 n;
};

static void mb_start(struct mb *m, u8 type, u16 tag)
{
	m->n = 4;
	m->b[m->n++] = type;
	m->b[m->n++] = (u8)tag;
	m->b[m->n++] = (u8)(tag >> 8);
}

static void p8(struct mb *m, u8 v)
{
	m->b[m->n++] = v;
}

static void p16(struct mb *m, u16 v)
{
	p8(m, (u8)v);
	p8(m, (u8)(v >> 8));
}

static void p32(struct mb *m, u32 v)
{
	p16(m, (u16)v);
	p16(m, (u16)(v >> 16));
}

static void p64(struct mb *m, u64 v)
{
	p32(m, (u32)v);
	p32(m, (u32)(v >> 32));
}

static void pstr(struct mb *m, const char *s, u16 len)
{
	p16(m, len);
	memcpy(m->b + m->n, s, len);
	m->n += len;
}

static void pqid(struct mb *m)
{
	p8(m, 0);
	p32(m, 0);
	p64(m, 1);
}

/* finish: size[4] = bytes so far */
static u32 fin(struct mb *m)
{
	m->b[0] = (u8)m->n;
	m->b[1] = (u8)(m->n >> 8);
	m->b[2] = (u8)(m->n >> 16);
	m->b[3] = (u8)(m->n >> 24);
	return m->n;
}

static struct mb m;
static struct v9p_fcall f;

static int un(enum v9p_dialect d)
{
	return v9p_unpack(m.b, fin(&m), d, 0, &f);
}

static void twalk(u16 nwname, u16 names)
{
	u16 i;

	mb_start(&m, V9P_TWALK, 1);
	p32(&m, 1);
	p32(&m, 2);
	p16(&m, nwname);
	for (i = 0; i < names; i++)
		pstr(&m, "a", 1);
}

static void rwalk(u16 nwqid, u16 qids)
{
	u16 i;

	mb_start(&m, V9P_RWALK, 1);
	p16(&m, nwqid);
	for (i = 0; i < qids; i++)
		pqid(&m);
}

static void check_walk(void)
{
	int d;

	for (d = V9P_9P2000; d <= V9P_9P2000L; d++) {
		twalk(16, 16);
		tap_ok(un(d) == 0 && f.twalk.nwname == 16,
		       "dialect %d: Twalk with 16 names decodes", d);
		twalk(17, 17);
		tap_ok(un(d) == -EPROTO, "dialect %d: Twalk with 17 names is -EPROTO", d);
		twalk(0xffff, 1);
		tap_ok(un(d) == -EPROTO, "dialect %d: Twalk nwname 65535 is -EPROTO", d);
		twalk(3, 2);
		tap_ok(un(d) == -EPROTO,
		       "dialect %d: Twalk nwname larger than the names given is -EPROTO", d);
		twalk(1, 2);
		tap_ok(un(d) == -EPROTO,
		       "dialect %d: Twalk with an extra name is -EPROTO", d);
		rwalk(16, 16);
		tap_ok(un(d) == 0 && f.rwalk.nwqid == 16,
		       "dialect %d: Rwalk with 16 qids decodes", d);
		rwalk(17, 17);
		tap_ok(un(d) == -EPROTO, "dialect %d: Rwalk with 17 qids is -EPROTO", d);
	}

	memset(&f, 0, sizeof(f));
	f.type = V9P_TWALK;
	f.twalk.nwname = 17;
	tap_ok(v9p_pack(&f, V9P_9P2000, m.b, sizeof(m.b)) == -EINVAL,
	       "packing Twalk with 17 names is -EINVAL");
	f.type = V9P_RWALK;
	f.rwalk.nwqid = 17;
	tap_ok(v9p_pack(&f, V9P_9P2000, m.b, sizeof(m.b)) == -EINVAL,
	       "packing Rwalk with 17 qids is -EINVAL");
}

static void check_counts(void)
{
	static const u32 bad[] = { 6, 7, 100, 0x7fffffff, 0x80000000, 0xffffffff };
	unsigned int i;
	u32 n;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		mb_start(&m, V9P_RREAD, 1);
		p32(&m, bad[i]);
		memcpy(m.b + m.n, "hello", 5);
		m.n += 5;
		tap_ok(un(V9P_9P2000) == -EPROTO,
		       "Rread count %u with 5 bytes of data is -EPROTO", bad[i]);

		mb_start(&m, V9P_TWRITE, 1);
		p32(&m, 1);
		p64(&m, 0);
		p32(&m, bad[i]);
		memcpy(m.b + m.n, "hello", 5);
		m.n += 5;
		tap_ok(un(V9P_9P2000L) == -EPROTO,
		       "Twrite count %u with 5 bytes of data is -EPROTO", bad[i]);

		mb_start(&m, V9P_RREADDIR, 1);
		p32(&m, bad[i]);
		memcpy(m.b + m.n, "hello", 5);
		m.n += 5;
		tap_ok(un(V9P_9P2000L) == -EPROTO,
		       "Rreaddir count %u with 5 bytes of data is -EPROTO", bad[i]);
	}

	mb_start(&m, V9P_RREAD, 1);
	p32(&m, 4);
	memcpy(m.b + m.n, "hello", 5);
	m.n += 5;
	tap_ok(un(V9P_9P2000) == -EPROTO, "Rread count 4 with 5 bytes of data is -EPROTO");

	/* a legal big Rread, then the same over msize */
	mb_start(&m, V9P_RREAD, 1);
	p32(&m, 8192 - 11);
	memset(m.b + m.n, 'x', 8192 - 11);
	m.n += 8192 - 11;
	n = fin(&m);
	tap_ok(v9p_unpack(m.b, n, V9P_9P2000, 8192, &f) == 0 &&
	       f.rread.count == 8181 && f.rread.data == m.b + 11,
	       "Rread of exactly msize 8192 decodes, data points into the buffer");
	tap_ok(v9p_unpack(m.b, n, V9P_9P2000, 8191, &f) == -EMSGSIZE,
	       "Rread one byte over msize is -EMSGSIZE");
}

static void check_strings(void)
{
	struct v9p_fcall g;
	char nul[] = "a\0b";

	mb_start(&m, V9P_TWALK, 1);
	p32(&m, 1);
	p32(&m, 2);
	p16(&m, 1);
	pstr(&m, nul, 3);
	tap_ok(un(V9P_9P2000) == -EPROTO, "a walk name with a NUL inside is -EPROTO");

	mb_start(&m, V9P_TWALK, 1);
	p32(&m, 1);
	p32(&m, 2);
	p16(&m, 1);
	pstr(&m, "\0", 1);
	tap_ok(un(V9P_9P2000) == -EPROTO, "a walk name that is one NUL is -EPROTO");

	mb_start(&m, V9P_TLCREATE, 1);
	p32(&m, 1);
	pstr(&m, "ab\0", 3);
	p32(&m, 0);
	p32(&m, 0);
	p32(&m, 0);
	tap_ok(un(V9P_9P2000L) == -EPROTO, "a Tlcreate name ending in NUL is -EPROTO");

	mb_start(&m, V9P_TVERSION, V9P_NOTAG);
	p32(&m, 8192);
	p16(&m, 7);
	memcpy(m.b + m.n, "9P2000", 6);
	m.n += 6;
	tap_ok(un(V9P_9P2000) == -EPROTO, "a string length one past the end is -EPROTO");

	mb_start(&m, V9P_TVERSION, V9P_NOTAG);
	p32(&m, 8192);
	p16(&m, 0xffff);
	tap_ok(un(V9P_9P2000) == -EPROTO, "a string length 65535 with no bytes is -EPROTO");

	mb_start(&m, V9P_TVERSION, V9P_NOTAG);
	p32(&m, 8192);
	p8(&m, 6);
	tap_ok(un(V9P_9P2000) == -EPROTO, "half a string length is -EPROTO");

	mb_start(&m, V9P_TVERSION, V9P_NOTAG);
	p32(&m, 8192);
	pstr(&m, "", 0);
	tap_ok(un(V9P_9P2000) == 0 && f.tversion.version.len == 0 &&
	       f.tversion.version.s,
	       "an empty string decodes to a non-NULL empty view");

	memset(&g, 0, sizeof(g));
	g.type = V9P_TWALK;
	g.twalk.nwname = 1;
	g.twalk.wname[0].s = nul;
	g.twalk.wname[0].len = 3;
	tap_ok(v9p_pack(&g, V9P_9P2000, m.b, sizeof(m.b)) == -EINVAL,
	       "packing a name with a NUL inside is -EINVAL");
	g.twalk.wname[0].s = NULL;
	g.twalk.wname[0].len = 1;
	tap_ok(v9p_pack(&g, V9P_9P2000, m.b, sizeof(m.b)) == -EINVAL,
	       "packing a NULL string of length 1 is -EINVAL");

	memset(&g, 0, sizeof(g));
	g.type = V9P_TWRITE;
	g.twrite.count = 5;
	tap_ok(v9p_pack(&g, V9P_9P2000, m.b, sizeof(m.b)) == -EINVAL,
	       "packing Twrite with count 5 and no data is -EINVAL");
}

static void stat_body(struct mb *s, enum v9p_dialect d, int extra)
{
	s->n = 2;
	p16(s, 0);
	p32(s, 0);
	pqid(s);
	p32(s, 0644);
	p32(s, 0);
	p32(s, 0);
	p64(s, 0);
	pstr(s, "x", 1);
	pstr(s, "u", 1);
	pstr(s, "g", 1);
	pstr(s, "m", 1);
	if (d == V9P_9P2000U) {
		pstr(s, "", 0);
		p32(s, 0);
		p32(s, 0);
		p32(s, 0);
	}
	s->n += extra;
	s->b[0] = (u8)(s->n - 2);
	s->b[1] = (u8)((s->n - 2) >> 8);
}

static void rstat(struct mb *s, int nstat_delta, int ssize_delta)
{
	u16 ssize = (u16)(s->b[0] | (s->b[1] << 8));

	mb_start(&m, V9P_RSTAT, 1);
	p16(&m, (u16)(s->n + nstat_delta));
	p16(&m, (u16)(ssize + ssize_delta));
	memcpy(m.b + m.n, s->b + 2, s->n - 2);
	m.n += s->n - 2;
}

static void twstat(const struct mb *s, u16 n)
{
	mb_start(&m, V9P_TWSTAT, 1);
	p32(&m, 7);
	p16(&m, n);
	memcpy(m.b + m.n, s->b, s->n);
	m.n += s->n;
}

static void check_stat(void)
{
	static struct mb s;
	struct v9p_stat st;
	int d;

	for (d = V9P_9P2000; d <= V9P_9P2000U; d++) {
		stat_body(&s, d, 0);
		rstat(&s, 0, 0);
		tap_ok(un(d) == 0 && f.rstat.stat.name.len == 1,
		       "dialect %d: well-formed Rstat decodes", d);
		rstat(&s, 1, 0);
		tap_ok(un(d) == -EPROTO, "dialect %d: Rstat n one too big is -EPROTO", d);
		rstat(&s, -1, 0);
		tap_ok(un(d) == -EPROTO, "dialect %d: Rstat n one too small is -EPROTO", d);
		rstat(&s, -2, 0);
		tap_ok(un(d) == -EPROTO,
		       "dialect %d: Rstat n without the stat's own size[2] is -EPROTO", d);
		rstat(&s, -(int)s.n, 0);
		tap_ok(un(d) == 0 && f.rstat.stat.name.len == 1,
		       "dialect %d: Rstat with n = 0 (as QEMU sends it) decodes", d);
		rstat(&s, -(int)s.n, 1);
		tap_ok(un(d) == -EPROTO,
		       "dialect %d: Rstat n = 0 with stat size one too big is -EPROTO", d);
		rstat(&s, -(int)s.n, -1);
		tap_ok(un(d) == -EPROTO,
		       "dialect %d: Rstat n = 0 with stat size one too small is -EPROTO", d);
		twstat(&s, (u16)s.n);
		tap_ok(un(d) == 0, "dialect %d: well-formed Twstat decodes", d);
		twstat(&s, 0);
		tap_ok(un(d) == -EPROTO,
		       "dialect %d: Twstat with n = 0 stays -EPROTO (only Rstat is lenient)",
		       d);
		rstat(&s, 0, 1);
		tap_ok(un(d) == -EPROTO, "dialect %d: stat size one too big is -EPROTO", d);
		rstat(&s, 0, -1);
		tap_ok(un(d) == -EPROTO, "dialect %d: stat size one too small is -EPROTO", d);

		/* a stat whose size covers a spare byte: fields do not fill it */
		stat_body(&s, d, 1);
		tap_ok(v9p_stat_unpack(s.b, s.n, d, &st) == -EPROTO,
		       "dialect %d: stat with a byte the fields do not use is -EPROTO", d);
		stat_body(&s, d, 0);
		tap_ok(v9p_stat_unpack(s.b, s.n, d, &st) == (int)s.n,
		       "dialect %d: stat_unpack returns the %u bytes it used", d, s.n);
		tap_ok(v9p_stat_unpack(s.b, s.n - 1, d, &st) == -EPROTO,
		       "dialect %d: stat one byte short of its size is -EPROTO", d);
		tap_ok(v9p_stat_unpack(s.b, 1, d, &st) == -EPROTO,
		       "dialect %d: one byte is not a stat", d);
	}
	stat_body(&s, V9P_9P2000, 0);
	tap_ok(v9p_stat_unpack(s.b, s.n, V9P_9P2000U, &st) == -EPROTO,
	       "a 9P2000 stat is not a 9P2000.u stat");
	stat_body(&s, V9P_9P2000U, 0);
	tap_ok(v9p_stat_unpack(s.b, s.n, V9P_9P2000, &st) == -EPROTO,
	       "a 9P2000.u stat is not a 9P2000 stat");
	tap_ok(v9p_stat_unpack(s.b, s.n, V9P_9P2000L, &st) == -EINVAL,
	       "there is no 9P2000.L stat");

	/* string in the stat running past the stat's size */
	stat_body(&s, V9P_9P2000, 0);
	s.b[s.n - 2] = 2;
	tap_ok(v9p_stat_unpack(s.b, s.n, V9P_9P2000, &st) == -EPROTO,
	       "a stat string running past the stat is -EPROTO");
}

static void check_headers(void)
{
	struct v9p_hdr h;
	u8 b[16] = { 7, 0, 0, 0, V9P_RCLUNK, 3, 0 };

	tap_ok(v9p_peek_hdr(b, 6, 0, &h) == -EAGAIN, "peek_hdr on 6 bytes is -EAGAIN");
	tap_ok(v9p_peek_hdr(b, 7, 0, &h) == 0 && h.size == 7 &&
	       h.type == V9P_RCLUNK && h.tag == 3, "peek_hdr reads size, type and tag");
	b[0] = 6;
	tap_ok(v9p_peek_hdr(b, 7, 0, &h) == -EPROTO, "peek_hdr: size 6 is -EPROTO");
	b[0] = 0;
	tap_ok(v9p_peek_hdr(b, 7, 0, &h) == -EPROTO, "peek_hdr: size 0 is -EPROTO");
	b[0] = 0x01;
	b[1] = 0x20;
	tap_ok(v9p_peek_hdr(b, 7, 8192, &h) == -EMSGSIZE,
	       "peek_hdr: size 8193 over msize 8192 is -EMSGSIZE");
	b[0] = 0xff;
	b[1] = 0xff;
	b[2] = 0xff;
	b[3] = 0xff;
	tap_ok(v9p_peek_hdr(b, 7, 65536, &h) == -EMSGSIZE,
	       "peek_hdr: size 4294967295 is -EMSGSIZE");

	b[0] = 7;
	b[1] = 0;
	b[2] = 0;
	b[3] = 0;
	tap_ok(v9p_unpack(b, 7, V9P_9P2000, 0, &f) == 0, "Rclunk decodes");
	tap_ok(v9p_unpack(b, 8, V9P_9P2000, 0, &f) == -EPROTO,
	       "size[4] 7 with 8 bytes given is -EPROTO");
	b[0] = 8;
	tap_ok(v9p_unpack(b, 7, V9P_9P2000, 0, &f) == -EPROTO,
	       "size[4] 8 with 7 bytes given is -EPROTO");
	tap_ok(v9p_unpack(b, 0, V9P_9P2000, 0, &f) == -EPROTO, "zero bytes is -EPROTO");
	tap_ok(v9p_unpack(NULL, 7, V9P_9P2000, 0, &f) == -EINVAL, "NULL buffer is -EINVAL");
}

static void check_types(void)
{
	static const u8 never[] = { 0, 1, 5, V9P_TLERROR, 10, 28, 99, V9P_TERROR,
				    128, 200, 255 };
	unsigned int i;
	int d;

	for (i = 0; i < sizeof(never); i++) {
		for (d = V9P_9P2000; d <= V9P_9P2000L; d++) {
			mb_start(&m, never[i], 0x1234);
			tap_ok(un(d) == -EOPNOTSUPP && f.type == never[i] &&
			       f.tag == 0x1234,
			       "dialect %d: type %u is -EOPNOTSUPP with type and tag kept",
			       d, never[i]);
		}
	}

	mb_start(&m, V9P_TLOPEN, 9);
	p32(&m, 1);
	p32(&m, 0);
	tap_ok(un(V9P_9P2000) == -EOPNOTSUPP, "Tlopen is not 9P2000");
	tap_ok(un(V9P_9P2000U) == -EOPNOTSUPP, "Tlopen is not 9P2000.u");
	tap_ok(un(V9P_9P2000L) == 0, "Tlopen is 9P2000.L");
	mb_start(&m, V9P_TOPEN, 9);
	p32(&m, 1);
	p8(&m, 0);
	tap_ok(un(V9P_9P2000L) == -EOPNOTSUPP, "Topen is not 9P2000.L");
	mb_start(&m, V9P_RERROR, 9);
	pstr(&m, "x", 1);
	tap_ok(un(V9P_9P2000L) == -EOPNOTSUPP, "Rerror is not 9P2000.L (Rlerror is)");

	memset(&f, 0, sizeof(f));
	f.type = V9P_TLOPEN;
	tap_ok(v9p_pack(&f, V9P_9P2000, m.b, sizeof(m.b)) == -EINVAL,
	       "packing Tlopen as 9P2000 is -EINVAL");
	f.type = V9P_TERROR;
	tap_ok(v9p_pack(&f, V9P_9P2000, m.b, sizeof(m.b)) == -EINVAL,
	       "packing Terror is -EINVAL");
	f.type = V9P_TCLUNK;
	tap_ok(v9p_pack(&f, (enum v9p_dialect)3, m.b, sizeof(m.b)) == -EINVAL,
	       "packing in an unknown dialect is -EINVAL");
}

static void check_fsync(void)
{
	mb_start(&m, V9P_TFSYNC, 1);
	p32(&m, 5);
	tap_ok(un(V9P_9P2000L) == 0 && f.tfsync.fid == 5 && f.tfsync.datasync == 0,
	       "Tfsync without datasync decodes with datasync 0");
	mb_start(&m, V9P_TFSYNC, 1);
	p32(&m, 5);
	p32(&m, 1);
	tap_ok(un(V9P_9P2000L) == 0 && f.tfsync.datasync == 1,
	       "Tfsync with datasync 1 decodes");
	mb_start(&m, V9P_TFSYNC, 1);
	p32(&m, 5);
	p16(&m, 1);
	tap_ok(un(V9P_9P2000L) == -EPROTO, "Tfsync with half a datasync is -EPROTO");
	mb_start(&m, V9P_TFSYNC, 1);
	p32(&m, 5);
	p32(&m, 1);
	p8(&m, 0);
	tap_ok(un(V9P_9P2000L) == -EPROTO, "Tfsync with a trailing byte is -EPROTO");
}

static void check_absent_fields(void)
{
	mb_start(&m, V9P_TATTACH, 1);
	p32(&m, 1);
	p32(&m, V9P_NOFID);
	pstr(&m, "u", 1);
	pstr(&m, "", 0);
	tap_ok(un(V9P_9P2000) == 0 && f.tattach.n_uname == V9P_NONUNAME,
	       "9P2000 Tattach decodes n_uname as V9P_NONUNAME");
	mb_start(&m, V9P_TCREATE, 1);
	p32(&m, 1);
	pstr(&m, "x", 1);
	p32(&m, 0);
	p8(&m, 0);
	tap_ok(un(V9P_9P2000) == 0 && f.tcreate.extension.s &&
	       f.tcreate.extension.len == 0,
	       "9P2000 Tcreate decodes extension as an empty string");
	mb_start(&m, V9P_RERROR, 1);
	pstr(&m, "x", 1);
	tap_ok(un(V9P_9P2000) == 0 && f.rerror.errcode == 0,
	       "9P2000 Rerror decodes errcode as 0");
}

int main(void)
{
	check_walk();
	check_counts();
	check_strings();
	check_stat();
	check_headers();
	check_types();
	check_fsync();
	check_absent_fields();
	return tap_done();
}
