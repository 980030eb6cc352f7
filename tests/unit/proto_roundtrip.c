// SPDX-License-Identifier: GPL-2.0
/*
 * proto_roundtrip: random messages of every type in every dialect.
 * pack -> unpack -> pack must give the same bytes (the vectors pin the
 * encoder; the encoding is injective, so this pins the decoder for values
 * the vectors do not cover: empty and long strings, 0..16 walk elements,
 * extreme integers, large payloads). Also stat and dirent round trips with
 * field-by-field comparison, directory buffers of several entries, and
 * v9p_pack_io_hdr() against v9p_pack(). Deterministic: fixed seed.
 */
#include <stdlib.h>
#include <string.h>

#include "v9p.h"
#include "tap.h"

#define ITERS 400

static u64 rng = 0x9e3779b97f4a7c15ULL;

static u64 rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* integers biased to the edges, where bugs live */
static u64 r64(void)
{
	switch (rnd() % 6) {
	case 0:
		return 0;
	case 1:
		return ~0ULL;
	case 2:
		return 1ULL << (rnd() % 64);
	default:
		return rnd();
	}
}

static u32 r32(void)
{
	return (u32)r64();
}

static u16 r16(void)
{
	return (u16)r64();
}

static u8 r8(void)
{
	return (u8)r64();
}

static char pool[1 << 20];
static u32 pool_used;

/* a string with no NUL, length 0..max */
static struct v9p_str rstr(u32 max)
{
	struct v9p_str s;
	u32 n = (u32)(rnd() % 4 == 0 ? 0 : rnd() % (max + 1));
	u32 i;

	if (pool_used + n > sizeof(pool))
		pool_used = 0;
	for (i = 0; i < n; i++)
		pool[pool_used + i] = (char)(1 + rnd() % 255);
	s.s = pool + pool_used;
	s.len = (u16)n;
	pool_used += n;
	return s;
}

static const u8 *rdata(u32 *count, u32 max)
{
	u32 n = (u32)(rnd() % (max + 1));

	if (pool_used + n > sizeof(pool))
		pool_used = 0;
	memset(pool + pool_used, (int)rnd(), n);
	*count = n;
	pool_used += n;
	return (const u8 *)pool + pool_used - n;
}

static struct v9p_qid rqid(void)
{
	struct v9p_qid q = { r8(), r32(), r64() };

	return q;
}

static void rstat(struct v9p_stat *st)
{
	st->type = r16();
	st->dev = r32();
	st->qid = rqid();
	st->mode = r32();
	st->atime = r32();
	st->mtime = r32();
	st->length = r64();
	st->name = rstr(300);
	st->uid = rstr(40);
	st->gid = rstr(40);
	st->muid = rstr(40);
	st->extension = rstr(300);
	st->n_uid = r32();
	st->n_gid = r32();
	st->n_muid = r32();
}

/* Fill f as a random message of type t; the fields of every type. */
static void rmsg(struct v9p_fcall *f, u8 t)
{
	unsigned int i;

	memset(f, 0, sizeof(*f));
	f->type = t;
	f->tag = r16();
	switch (t) {
	case V9P_TVERSION:
	case V9P_RVERSION:
		f->tversion.msize = r32();
		f->tversion.version = rstr(20);
		break;
	case V9P_TAUTH:
		f->tauth.afid = r32();
		f->tauth.uname = rstr(40);
		f->tauth.aname = rstr(200);
		f->tauth.n_uname = r32();
		break;
	case V9P_TATTACH:
		f->tattach.fid = r32();
		f->tattach.afid = r32();
		f->tattach.uname = rstr(40);
		f->tattach.aname = rstr(200);
		f->tattach.n_uname = r32();
		break;
	case V9P_RAUTH:
	case V9P_RATTACH:
	case V9P_RSYMLINK:
	case V9P_RMKNOD:
	case V9P_RMKDIR:
		f->rattach.qid = rqid();
		break;
	case V9P_RERROR:
		f->rerror.ename = rstr(200);
		f->rerror.errcode = r32();
		break;
	case V9P_TFLUSH:
		f->tflush.oldtag = r16();
		break;
	case V9P_TWALK:
		f->twalk.fid = r32();
		f->twalk.newfid = r32();
		f->twalk.nwname = (u16)(rnd() % 17);
		for (i = 0; i < f->twalk.nwname; i++)
			f->twalk.wname[i] = rstr(255);
		break;
	case V9P_RWALK:
		f->rwalk.nwqid = (u16)(rnd() % 17);
		for (i = 0; i < f->rwalk.nwqid; i++)
			f->rwalk.wqid[i] = rqid();
		break;
	case V9P_TOPEN:
		f->topen.fid = r32();
		f->topen.mode = r8();
		break;
	case V9P_ROPEN:
	case V9P_RCREATE:
	case V9P_RLOPEN:
	case V9P_RLCREATE:
		f->ropen.qid = rqid();
		f->ropen.iounit = r32();
		break;
	case V9P_TCREATE:
		f->tcreate.fid = r32();
		f->tcreate.name = rstr(255);
		f->tcreate.perm = r32();
		f->tcreate.mode = r8();
		f->tcreate.extension = rstr(255);
		break;
	case V9P_TREAD:
	case V9P_TREADDIR:
		f->tread.fid = r32();
		f->tread.offset = r64();
		f->tread.count = r32();
		break;
	case V9P_RREAD:
	case V9P_RREADDIR:
		f->rread.data = rdata(&f->rread.count, 9000);
		break;
	case V9P_TWRITE:
		f->twrite.fid = r32();
		f->twrite.offset = r64();
		f->twrite.data = rdata(&f->twrite.count, 9000);
		break;
	case V9P_RWRITE:
	case V9P_TCLUNK:
	case V9P_TREMOVE:
	case V9P_TSTAT:
	case V9P_RLERROR:
	case V9P_TSTATFS:
	case V9P_TREADLINK:
		f->rwrite.count = r32();
		break;
	case V9P_RSTAT:
		rstat(&f->rstat.stat);
		break;
	case V9P_TWSTAT:
		f->twstat.fid = r32();
		rstat(&f->twstat.stat);
		break;
	case V9P_RSTATFS:
		f->rstatfs.type = r32();
		f->rstatfs.bsize = r32();
		f->rstatfs.blocks = r64();
		f->rstatfs.bfree = r64();
		f->rstatfs.bavail = r64();
		f->rstatfs.files = r64();
		f->rstatfs.ffree = r64();
		f->rstatfs.fsid = r64();
		f->rstatfs.namelen = r32();
		break;
	case V9P_TLOPEN:
		f->tlopen.fid = r32();
		f->tlopen.flags = r32();
		break;
	case V9P_TLCREATE:
		f->tlcreate.fid = r32();
		f->tlcreate.name = rstr(255);
		f->tlcreate.flags = r32();
		f->tlcreate.mode = r32();
		f->tlcreate.gid = r32();
		break;
	case V9P_TSYMLINK:
		f->tsymlink.fid = r32();
		f->tsymlink.name = rstr(255);
		f->tsymlink.symtgt = rstr(1000);
		f->tsymlink.gid = r32();
		break;
	case V9P_TMKNOD:
		f->tmknod.dfid = r32();
		f->tmknod.name = rstr(255);
		f->tmknod.mode = r32();
		f->tmknod.major = r32();
		f->tmknod.minor = r32();
		f->tmknod.gid = r32();
		break;
	case V9P_TRENAME:
		f->trename.fid = r32();
		f->trename.dfid = r32();
		f->trename.name = rstr(255);
		break;
	case V9P_RREADLINK:
		f->rreadlink.target = rstr(1000);
		break;
	case V9P_TGETATTR:
		f->tgetattr.fid = r32();
		f->tgetattr.request_mask = r64();
		break;
	case V9P_RGETATTR:
		f->rgetattr.valid = r64();
		f->rgetattr.qid = rqid();
		f->rgetattr.mode = r32();
		f->rgetattr.uid = r32();
		f->rgetattr.gid = r32();
		f->rgetattr.nlink = r64();
		f->rgetattr.rdev = r64();
		f->rgetattr.size = r64();
		f->rgetattr.blksize = r64();
		f->rgetattr.blocks = r64();
		f->rgetattr.atime_sec = r64();
		f->rgetattr.atime_nsec = r64();
		f->rgetattr.mtime_sec = r64();
		f->rgetattr.mtime_nsec = r64();
		f->rgetattr.ctime_sec = r64();
		f->rgetattr.ctime_nsec = r64();
		f->rgetattr.btime_sec = r64();
		f->rgetattr.btime_nsec = r64();
		f->rgetattr.gen = r64();
		f->rgetattr.data_version = r64();
		break;
	case V9P_TSETATTR:
		f->tsetattr.fid = r32();
		f->tsetattr.valid = r32();
		f->tsetattr.mode = r32();
		f->tsetattr.uid = r32();
		f->tsetattr.gid = r32();
		f->tsetattr.size = r64();
		f->tsetattr.atime_sec = r64();
		f->tsetattr.atime_nsec = r64();
		f->tsetattr.mtime_sec = r64();
		f->tsetattr.mtime_nsec = r64();
		break;
	case V9P_TXATTRWALK:
		f->txattrwalk.fid = r32();
		f->txattrwalk.newfid = r32();
		f->txattrwalk.name = rstr(255);
		break;
	case V9P_RXATTRWALK:
		f->rxattrwalk.size = r64();
		break;
	case V9P_TXATTRCREATE:
		f->txattrcreate.fid = r32();
		f->txattrcreate.name = rstr(255);
		f->txattrcreate.attr_size = r64();
		f->txattrcreate.flags = r32();
		break;
	case V9P_TFSYNC:
		f->tfsync.fid = r32();
		f->tfsync.datasync = r32();
		break;
	case V9P_TLOCK:
		f->tlock.fid = r32();
		f->tlock.type = r8();
		f->tlock.flags = r32();
		f->tlock.start = r64();
		f->tlock.length = r64();
		f->tlock.proc_id = r32();
		f->tlock.client_id = rstr(255);
		break;
	case V9P_RLOCK:
		f->rlock.status = r8();
		break;
	case V9P_TGETLOCK:
		f->tgetlock.fid = r32();
		f->tgetlock.type = r8();
		f->tgetlock.start = r64();
		f->tgetlock.length = r64();
		f->tgetlock.proc_id = r32();
		f->tgetlock.client_id = rstr(255);
		break;
	case V9P_RGETLOCK:
		f->rgetlock.type = r8();
		f->rgetlock.start = r64();
		f->rgetlock.length = r64();
		f->rgetlock.proc_id = r32();
		f->rgetlock.client_id = rstr(255);
		break;
	case V9P_TLINK:
		f->tlink.dfid = r32();
		f->tlink.fid = r32();
		f->tlink.name = rstr(255);
		break;
	case V9P_TMKDIR:
		f->tmkdir.dfid = r32();
		f->tmkdir.name = rstr(255);
		f->tmkdir.mode = r32();
		f->tmkdir.gid = r32();
		break;
	case V9P_TRENAMEAT:
		f->trenameat.olddirfid = r32();
		f->trenameat.oldname = rstr(255);
		f->trenameat.newdirfid = r32();
		f->trenameat.newname = rstr(255);
		break;
	case V9P_TUNLINKAT:
		f->tunlinkat.dirfid = r32();
		f->tunlinkat.name = rstr(255);
		f->tunlinkat.flags = r32();
		break;
	default:
		break;	/* no body */
	}
}

static int str_same(const struct v9p_str *a, const struct v9p_str *b)
{
	return a->len == b->len && (!a->len || !memcmp(a->s, b->s, a->len));
}

static int stat_same(const struct v9p_stat *a, const struct v9p_stat *b,
		     enum v9p_dialect d)
{
	int same = a->type == b->type && a->dev == b->dev &&
		a->qid.type == b->qid.type && a->qid.version == b->qid.version &&
		a->qid.path == b->qid.path && a->mode == b->mode &&
		a->atime == b->atime && a->mtime == b->mtime &&
		a->length == b->length && str_same(&a->name, &b->name) &&
		str_same(&a->uid, &b->uid) && str_same(&a->gid, &b->gid) &&
		str_same(&a->muid, &b->muid);

	if (d == V9P_9P2000U)
		same = same && str_same(&a->extension, &b->extension) &&
			a->n_uid == b->n_uid && a->n_gid == b->n_gid &&
			a->n_muid == b->n_muid;
	else
		same = same && b->extension.len == 0 &&
			b->n_uid == V9P_NONUNAME;
	return same;
}

static u8 b1[20000], b2[20000];

static void check_messages(void)
{
	struct v9p_fcall f, g;
	int d, t, i, n1, n2, types;
	unsigned int bad;

	for (d = V9P_9P2000; d <= V9P_9P2000L; d++) {
		bad = 0;
		types = 0;
		for (t = 0; t < 256; t++) {
			if (!v9p_type_valid((u8)t, d))
				continue;
			types++;
			for (i = 0; i < ITERS; i++) {
				rmsg(&f, (u8)t);
				n1 = v9p_pack(&f, d, b1, sizeof(b1));
				if (n1 < 0 || v9p_packed_size(&f, d) != n1 ||
				    v9p_unpack(b1, (u32)n1, d, (u32)n1, &g) ||
				    g.type != t || g.tag != f.tag) {
					bad++;
					continue;
				}
				n2 = v9p_pack(&g, d, b2, sizeof(b2));
				if (n2 != n1 || memcmp(b1, b2, (size_t)n1))
					bad++;
			}
		}
		tap_ok(bad == 0, "dialect %s: %d types x %d random messages round-trip",
		       v9p_dialect_name(d), types, ITERS);
		/* 9P2000(.u): 14 T/R pairs minus Terror; .L: 9 shared pairs, Rlerror, 19 pairs */
		tap_ok(types == (d == V9P_9P2000L ? 57 : 27),
		       "dialect %s has %d message types", v9p_dialect_name(d), types);
	}
}

static void check_stats(void)
{
	static u8 dir[60000];
	struct v9p_stat st[8], got;
	int d, i, k, n, bad;
	u32 off;

	for (d = V9P_9P2000; d <= V9P_9P2000U; d++) {
		bad = 0;
		for (i = 0; i < ITERS; i++) {
			rstat(&st[0]);
			n = v9p_stat_pack(&st[0], d, b1, sizeof(b1));
			if (n < 0 || (u32)n != v9p_stat_size(&st[0], d) ||
			    v9p_stat_unpack(b1, (u32)n, d, &got) != n ||
			    !stat_same(&st[0], &got, d))
				bad++;
		}
		tap_ok(!bad, "dialect %s: %d random stats round-trip field by field",
		       v9p_dialect_name(d), ITERS);

		/* a 9P2000 directory read: stats back to back */
		off = 0;
		for (k = 0; k < 8; k++) {
			rstat(&st[k]);
			n = v9p_stat_pack(&st[k], d, dir + off, sizeof(dir) - off);
			if (n > 0)
				off += (u32)n;
		}
		bad = 0;
		for (k = 0, i = 0; k < 8 && i < (int)off; k++) {
			n = v9p_stat_unpack(dir + i, off - (u32)i, d, &got);
			if (n <= 0 || !stat_same(&st[k], &got, d))
				bad++;
			i += n > 0 ? n : (int)off;
		}
		tap_ok(!bad && k == 8 && i == (int)off,
		       "dialect %s: 8 stats read back to back from one buffer",
		       v9p_dialect_name(d));
	}
}

static void check_dirents(void)
{
	struct v9p_dirent de[16], got;
	u32 off = 0;
	int k, n, bad = 0;

	for (k = 0; k < 16; k++) {
		de[k].qid = rqid();
		de[k].offset = r64();
		de[k].type = r8();
		de[k].name = rstr(255);
		n = v9p_dirent_pack(&de[k], b1 + off, sizeof(b1) - off);
		if (n < 0 || (u32)n != v9p_dirent_size(&de[k]))
			bad++;
		else
			off += (u32)n;
	}
	for (k = 0; k < 16 && !bad; k++) {
		n = v9p_dirent_unpack(b1, off, &got);
		if (n <= 0 || got.qid.path != de[k].qid.path ||
		    got.qid.type != de[k].qid.type ||
		    got.qid.version != de[k].qid.version ||
		    got.offset != de[k].offset || got.type != de[k].type ||
		    !str_same(&got.name, &de[k].name)) {
			bad++;
			break;
		}
		memmove(b1, b1 + n, off - (u32)n);
		off -= (u32)n;
	}
	tap_ok(!bad && off == 0, "16 random dirents pack and read back in order");

	de[0].name.s = "abc";
	de[0].name.len = 3;
	tap_ok(v9p_dirent_pack(&de[0], b1, 26) == -EMSGSIZE &&
	       v9p_dirent_pack(&de[0], b1, 27) == 27,
	       "a dirent of 27 bytes does not fit in 26");
	for (k = 0, bad = 0; k < 27; k++)
		if (v9p_dirent_unpack(b1, (u32)k, &got) != -EPROTO)
			bad++;
	tap_ok(!bad, "every truncation of a dirent is -EPROTO");
}

static void check_io_hdr(void)
{
	static const u8 types[] = { V9P_TWRITE, V9P_RREAD, V9P_RREADDIR };
	struct v9p_fcall f;
	unsigned int i, k, bad = 0;
	const u8 *data;
	u32 count;
	int h, n;

	for (k = 0; k < 3; k++) {
		for (i = 0; i < ITERS; i++) {
			rmsg(&f, types[k]);
			if (types[k] == V9P_TWRITE) {
				data = f.twrite.data;
				count = f.twrite.count;
			} else {
				data = f.rread.data;
				count = f.rread.count;
			}
			n = v9p_pack(&f, V9P_9P2000L, b1, sizeof(b1));
			h = v9p_pack_io_hdr(&f, b2, sizeof(b2));
			if (n < 0 || h < 0) {
				bad++;
				continue;
			}
			/* the payload goes right after the header */
			memcpy(b2 + h, data, count);
			if (n != h + (int)count || memcmp(b1, b2, (size_t)n))
				bad++;
		}
	}
	tap_ok(!bad, "pack_io_hdr + payload equals pack for Twrite, Rread, Rreaddir");

	memset(&f, 0, sizeof(f));
	f.type = V9P_TWRITE;
	tap_ok(v9p_pack_io_hdr(&f, b1, V9P_TWRITE_HDRSZ) == V9P_TWRITE_HDRSZ &&
	       v9p_pack_io_hdr(&f, b1, V9P_TWRITE_HDRSZ - 1) == -EMSGSIZE,
	       "Twrite header needs 23 bytes");
	f.type = V9P_RREAD;
	tap_ok(v9p_pack_io_hdr(&f, b1, V9P_RREAD_HDRSZ) == V9P_RREAD_HDRSZ &&
	       v9p_pack_io_hdr(&f, b1, V9P_RREAD_HDRSZ - 1) == -EMSGSIZE,
	       "Rread header needs 11 bytes");
	f.type = V9P_TREAD;
	tap_ok(v9p_pack_io_hdr(&f, b1, sizeof(b1)) == -EINVAL,
	       "pack_io_hdr of Tread is -EINVAL");
	f.type = V9P_RREAD;
	f.rread.count = 0xfffffff0U;
	tap_ok(v9p_pack_io_hdr(&f, b1, sizeof(b1)) == -EMSGSIZE,
	       "pack_io_hdr with a count whose size[4] would overflow is -EMSGSIZE");
}

static void check_dont_touch(void)
{
	struct v9p_stat st, got;
	int n;

	v9p_stat_dont_touch(&st);
	tap_ok(st.type == 0xffff && st.dev == ~0U && st.qid.type == 0xff &&
	       st.qid.version == ~0U && st.qid.path == ~0ULL && st.mode == ~0U &&
	       st.atime == ~0U && st.mtime == ~0U && st.length == ~0ULL &&
	       st.name.len == 0 && st.uid.len == 0 && st.gid.len == 0 &&
	       st.muid.len == 0 && st.extension.len == 0 &&
	       st.n_uid == ~0U && st.n_gid == ~0U && st.n_muid == ~0U,
	       "stat_dont_touch sets ~0 integers and empty strings");
	n = v9p_stat_pack(&st, V9P_9P2000U, b1, sizeof(b1));
	tap_ok(n == 63 && v9p_stat_unpack(b1, (u32)n, V9P_9P2000U, &got) == n &&
	       stat_same(&st, &got, V9P_9P2000U),
	       "a don't-touch .u stat is 63 bytes and round-trips");

	st.name.s = "a\0b";
	st.name.len = 3;
	tap_ok(v9p_stat_pack(&st, V9P_9P2000, b1, sizeof(b1)) == -EINVAL,
	       "stat_pack with a NUL in the name is -EINVAL");
	st.name.s = pool;
	st.name.len = 0xffff;
	memset(pool, 'a', 0xffff);
	tap_ok(v9p_stat_pack(&st, V9P_9P2000, b1, sizeof(b1)) == -EINVAL,
	       "stat_pack of a stat over 65535 bytes is -EINVAL");
}

int main(void)
{
	check_messages();
	check_stats();
	check_dirents();
	check_io_hdr();
	check_dont_touch();
	return tap_done();
}
