// SPDX-License-Identifier: GPL-2.0
/*
 * v9p_msg.c - encode and decode 9P messages of all three dialects.
 *
 * Every message body is described once, as a list of fields in wire order
 * (v9p_defs[] below); one interpreter packs and another unpacks them, so the
 * two directions cannot disagree about a layout. The header size[4] type[1]
 * tag[2] is handled here, not in the tables.
 */
#include "v9p_wire.h"

#ifdef __KERNEL__
#include <linux/stddef.h>
#else
#include <stddef.h>
#endif

enum v9p_kind {
	V9P_K_END,	/* ends a field list */
	V9P_K_U8,
	V9P_K_U16,
	V9P_K_U32,
	V9P_K_U64,
	V9P_K_STR,
	V9P_K_QID,
	V9P_K_DATA,	/* count[4] data[count]: off = count, off2 = data pointer */
	V9P_K_WNAMES,	/* nwname[2] nwname*wname[s]: off = nwname, off2 = wname */
	V9P_K_WQIDS,	/* nwqid[2] nwqid*wqid[13]: off = nwqid, off2 = wqid */
	V9P_K_STAT,	/* n[2] stat[n], the stat carrying its own size[2] */
};

/* field flags: when a field is on the wire */
#define V9P_F_DOTU	0x01	/* only in 9P2000.u */
#define V9P_F_NOT9P	0x02	/* in 9P2000.u and 9P2000.L, not 9P2000 */
#define V9P_F_OPT	0x04	/* may be absent at the end when decoding */
#define V9P_F_NONE	0x08	/* absent: decode as ~0 (V9P_NONUNAME) */
/*
 * STAT only: an outer n[2] of 0 is taken as "see the stat's own size[2]".
 * QEMU's 9P server sends Rstat so; a server decoding Twstat stays strict.
 */
#define V9P_F_NZERO	0x10

struct v9p_field {
	u8 kind;
	u8 flags;
	u16 off;
	u16 off2;
};

/* dialect masks */
#define V9P_M_9P	0x01	/* 1 << V9P_9P2000 */
#define V9P_M_U		0x02	/* 1 << V9P_9P2000U */
#define V9P_M_L		0x04	/* 1 << V9P_9P2000L */
#define V9P_M_ALL	(V9P_M_9P | V9P_M_U | V9P_M_L)
#define V9P_M_CLASSIC	(V9P_M_9P | V9P_M_U)

struct v9p_msgdef {
	const char *name;
	u8 dialects;
	const struct v9p_field *fields;	/* ends with V9P_K_END; NULL: no body */
};

#define OFF(m)			offsetof(struct v9p_fcall, m)
#define FLD(k, m)		{ V9P_K_##k, 0, OFF(m), 0 }
#define FLDF(k, fl, m)		{ V9P_K_##k, fl, OFF(m), 0 }
#define FLD2(k, m, m2)		{ V9P_K_##k, 0, OFF(m), OFF(m2) }
#define FEND			{ V9P_K_END, 0, 0, 0 }
#define DEF(n, dm, fl)		{ n, dm, fl }
#define DEF0(n, dm)		{ n, dm, NULL }

static const struct v9p_field tversion_f[] = {
	FLD(U32, tversion.msize), FLD(STR, tversion.version),
	FEND,
};

static const struct v9p_field rversion_f[] = {
	FLD(U32, rversion.msize), FLD(STR, rversion.version),
	FEND,
};

static const struct v9p_field tauth_f[] = {
	FLD(U32, tauth.afid), FLD(STR, tauth.uname), FLD(STR, tauth.aname),
	FLDF(U32, V9P_F_NOT9P | V9P_F_NONE, tauth.n_uname),
	FEND,
};

static const struct v9p_field rauth_f[] = {
	FLD(QID, rauth.aqid),
	FEND,
};

static const struct v9p_field tattach_f[] = {
	FLD(U32, tattach.fid), FLD(U32, tattach.afid),
	FLD(STR, tattach.uname), FLD(STR, tattach.aname),
	FLDF(U32, V9P_F_NOT9P | V9P_F_NONE, tattach.n_uname),
	FEND,
};

static const struct v9p_field rattach_f[] = {
	FLD(QID, rattach.qid),
	FEND,
};

static const struct v9p_field rerror_f[] = {
	FLD(STR, rerror.ename), FLDF(U32, V9P_F_DOTU, rerror.errcode),
	FEND,
};

static const struct v9p_field tflush_f[] = {
	FLD(U16, tflush.oldtag),
	FEND,
};

static const struct v9p_field twalk_f[] = {
	FLD(U32, twalk.fid), FLD(U32, twalk.newfid),
	FLD2(WNAMES, twalk.nwname, twalk.wname),
	FEND,
};

static const struct v9p_field rwalk_f[] = {
	FLD2(WQIDS, rwalk.nwqid, rwalk.wqid),
	FEND,
};

static const struct v9p_field topen_f[] = {
	FLD(U32, topen.fid), FLD(U8, topen.mode),
	FEND,
};

static const struct v9p_field ropen_f[] = {
	FLD(QID, ropen.qid), FLD(U32, ropen.iounit),
	FEND,
};

static const struct v9p_field tcreate_f[] = {
	FLD(U32, tcreate.fid), FLD(STR, tcreate.name), FLD(U32, tcreate.perm),
	FLD(U8, tcreate.mode), FLDF(STR, V9P_F_DOTU, tcreate.extension),
	FEND,
};

static const struct v9p_field rcreate_f[] = {
	FLD(QID, rcreate.qid), FLD(U32, rcreate.iounit),
	FEND,
};

static const struct v9p_field tread_f[] = {
	FLD(U32, tread.fid), FLD(U64, tread.offset), FLD(U32, tread.count),
	FEND,
};

static const struct v9p_field rread_f[] = {
	FLD2(DATA, rread.count, rread.data),
	FEND,
};

static const struct v9p_field twrite_f[] = {
	FLD(U32, twrite.fid), FLD(U64, twrite.offset),
	FLD2(DATA, twrite.count, twrite.data),
	FEND,
};

static const struct v9p_field rwrite_f[] = {
	FLD(U32, rwrite.count),
	FEND,
};

static const struct v9p_field tclunk_f[] = {
	FLD(U32, tclunk.fid),
	FEND,
};

static const struct v9p_field tremove_f[] = {
	FLD(U32, tremove.fid),
	FEND,
};

static const struct v9p_field tstat_f[] = {
	FLD(U32, tstat.fid),
	FEND,
};

static const struct v9p_field rstat_f[] = {
	FLDF(STAT, V9P_F_NZERO, rstat.stat),
	FEND,
};

static const struct v9p_field twstat_f[] = {
	FLD(U32, twstat.fid), FLD(STAT, twstat.stat),
	FEND,
};

static const struct v9p_field rlerror_f[] = {
	FLD(U32, rlerror.ecode),
	FEND,
};

static const struct v9p_field tstatfs_f[] = {
	FLD(U32, tstatfs.fid),
	FEND,
};

static const struct v9p_field rstatfs_f[] = {
	FLD(U32, rstatfs.type), FLD(U32, rstatfs.bsize),
	FLD(U64, rstatfs.blocks), FLD(U64, rstatfs.bfree),
	FLD(U64, rstatfs.bavail), FLD(U64, rstatfs.files),
	FLD(U64, rstatfs.ffree), FLD(U64, rstatfs.fsid),
	FLD(U32, rstatfs.namelen),
	FEND,
};

static const struct v9p_field tlopen_f[] = {
	FLD(U32, tlopen.fid), FLD(U32, tlopen.flags),
	FEND,
};

static const struct v9p_field rlopen_f[] = {
	FLD(QID, rlopen.qid), FLD(U32, rlopen.iounit),
	FEND,
};

static const struct v9p_field tlcreate_f[] = {
	FLD(U32, tlcreate.fid), FLD(STR, tlcreate.name),
	FLD(U32, tlcreate.flags), FLD(U32, tlcreate.mode),
	FLD(U32, tlcreate.gid),
	FEND,
};

static const struct v9p_field rlcreate_f[] = {
	FLD(QID, rlcreate.qid), FLD(U32, rlcreate.iounit),
	FEND,
};

static const struct v9p_field tsymlink_f[] = {
	FLD(U32, tsymlink.fid), FLD(STR, tsymlink.name),
	FLD(STR, tsymlink.symtgt), FLD(U32, tsymlink.gid),
	FEND,
};

static const struct v9p_field rsymlink_f[] = {
	FLD(QID, rsymlink.qid),
	FEND,
};

static const struct v9p_field tmknod_f[] = {
	FLD(U32, tmknod.dfid), FLD(STR, tmknod.name), FLD(U32, tmknod.mode),
	FLD(U32, tmknod.major), FLD(U32, tmknod.minor), FLD(U32, tmknod.gid),
	FEND,
};

static const struct v9p_field rmknod_f[] = {
	FLD(QID, rmknod.qid),
	FEND,
};

static const struct v9p_field trename_f[] = {
	FLD(U32, trename.fid), FLD(U32, trename.dfid), FLD(STR, trename.name),
	FEND,
};

static const struct v9p_field treadlink_f[] = {
	FLD(U32, treadlink.fid),
	FEND,
};

static const struct v9p_field rreadlink_f[] = {
	FLD(STR, rreadlink.target),
	FEND,
};

static const struct v9p_field tgetattr_f[] = {
	FLD(U32, tgetattr.fid), FLD(U64, tgetattr.request_mask),
	FEND,
};

static const struct v9p_field rgetattr_f[] = {
	FLD(U64, rgetattr.valid), FLD(QID, rgetattr.qid),
	FLD(U32, rgetattr.mode), FLD(U32, rgetattr.uid),
	FLD(U32, rgetattr.gid), FLD(U64, rgetattr.nlink),
	FLD(U64, rgetattr.rdev), FLD(U64, rgetattr.size),
	FLD(U64, rgetattr.blksize), FLD(U64, rgetattr.blocks),
	FLD(U64, rgetattr.atime_sec), FLD(U64, rgetattr.atime_nsec),
	FLD(U64, rgetattr.mtime_sec), FLD(U64, rgetattr.mtime_nsec),
	FLD(U64, rgetattr.ctime_sec), FLD(U64, rgetattr.ctime_nsec),
	FLD(U64, rgetattr.btime_sec), FLD(U64, rgetattr.btime_nsec),
	FLD(U64, rgetattr.gen), FLD(U64, rgetattr.data_version),
	FEND,
};

static const struct v9p_field tsetattr_f[] = {
	FLD(U32, tsetattr.fid), FLD(U32, tsetattr.valid),
	FLD(U32, tsetattr.mode), FLD(U32, tsetattr.uid),
	FLD(U32, tsetattr.gid), FLD(U64, tsetattr.size),
	FLD(U64, tsetattr.atime_sec), FLD(U64, tsetattr.atime_nsec),
	FLD(U64, tsetattr.mtime_sec), FLD(U64, tsetattr.mtime_nsec),
	FEND,
};

static const struct v9p_field txattrwalk_f[] = {
	FLD(U32, txattrwalk.fid), FLD(U32, txattrwalk.newfid),
	FLD(STR, txattrwalk.name),
	FEND,
};

static const struct v9p_field rxattrwalk_f[] = {
	FLD(U64, rxattrwalk.size),
	FEND,
};

static const struct v9p_field txattrcreate_f[] = {
	FLD(U32, txattrcreate.fid), FLD(STR, txattrcreate.name),
	FLD(U64, txattrcreate.attr_size), FLD(U32, txattrcreate.flags),
	FEND,
};

static const struct v9p_field treaddir_f[] = {
	FLD(U32, treaddir.fid), FLD(U64, treaddir.offset),
	FLD(U32, treaddir.count),
	FEND,
};

static const struct v9p_field rreaddir_f[] = {
	FLD2(DATA, rreaddir.count, rreaddir.data),
	FEND,
};

/* Linux sends datasync[4]; the original .L draft had fid[4] only. */
static const struct v9p_field tfsync_f[] = {
	FLD(U32, tfsync.fid), FLDF(U32, V9P_F_OPT, tfsync.datasync),
	FEND,
};

static const struct v9p_field tlock_f[] = {
	FLD(U32, tlock.fid), FLD(U8, tlock.type), FLD(U32, tlock.flags),
	FLD(U64, tlock.start), FLD(U64, tlock.length),
	FLD(U32, tlock.proc_id), FLD(STR, tlock.client_id),
	FEND,
};

static const struct v9p_field rlock_f[] = {
	FLD(U8, rlock.status),
	FEND,
};

static const struct v9p_field tgetlock_f[] = {
	FLD(U32, tgetlock.fid), FLD(U8, tgetlock.type),
	FLD(U64, tgetlock.start), FLD(U64, tgetlock.length),
	FLD(U32, tgetlock.proc_id), FLD(STR, tgetlock.client_id),
	FEND,
};

static const struct v9p_field rgetlock_f[] = {
	FLD(U8, rgetlock.type), FLD(U64, rgetlock.start),
	FLD(U64, rgetlock.length), FLD(U32, rgetlock.proc_id),
	FLD(STR, rgetlock.client_id),
	FEND,
};

static const struct v9p_field tlink_f[] = {
	FLD(U32, tlink.dfid), FLD(U32, tlink.fid), FLD(STR, tlink.name),
	FEND,
};

static const struct v9p_field tmkdir_f[] = {
	FLD(U32, tmkdir.dfid), FLD(STR, tmkdir.name), FLD(U32, tmkdir.mode),
	FLD(U32, tmkdir.gid),
	FEND,
};

static const struct v9p_field rmkdir_f[] = {
	FLD(QID, rmkdir.qid),
	FEND,
};

static const struct v9p_field trenameat_f[] = {
	FLD(U32, trenameat.olddirfid), FLD(STR, trenameat.oldname),
	FLD(U32, trenameat.newdirfid), FLD(STR, trenameat.newname),
	FEND,
};

static const struct v9p_field tunlinkat_f[] = {
	FLD(U32, tunlinkat.dirfid), FLD(STR, tunlinkat.name),
	FLD(U32, tunlinkat.flags),
	FEND,
};

/* Every type is below 128; Terror and Tlerror are deliberately absent. */
static const struct v9p_msgdef v9p_defs[128] = {
	[V9P_RLERROR] = DEF("Rlerror", V9P_M_L, rlerror_f),
	[V9P_TSTATFS] = DEF("Tstatfs", V9P_M_L, tstatfs_f),
	[V9P_RSTATFS] = DEF("Rstatfs", V9P_M_L, rstatfs_f),
	[V9P_TLOPEN] = DEF("Tlopen", V9P_M_L, tlopen_f),
	[V9P_RLOPEN] = DEF("Rlopen", V9P_M_L, rlopen_f),
	[V9P_TLCREATE] = DEF("Tlcreate", V9P_M_L, tlcreate_f),
	[V9P_RLCREATE] = DEF("Rlcreate", V9P_M_L, rlcreate_f),
	[V9P_TSYMLINK] = DEF("Tsymlink", V9P_M_L, tsymlink_f),
	[V9P_RSYMLINK] = DEF("Rsymlink", V9P_M_L, rsymlink_f),
	[V9P_TMKNOD] = DEF("Tmknod", V9P_M_L, tmknod_f),
	[V9P_RMKNOD] = DEF("Rmknod", V9P_M_L, rmknod_f),
	[V9P_TRENAME] = DEF("Trename", V9P_M_L, trename_f),
	[V9P_RRENAME] = DEF0("Rrename", V9P_M_L),
	[V9P_TREADLINK] = DEF("Treadlink", V9P_M_L, treadlink_f),
	[V9P_RREADLINK] = DEF("Rreadlink", V9P_M_L, rreadlink_f),
	[V9P_TGETATTR] = DEF("Tgetattr", V9P_M_L, tgetattr_f),
	[V9P_RGETATTR] = DEF("Rgetattr", V9P_M_L, rgetattr_f),
	[V9P_TSETATTR] = DEF("Tsetattr", V9P_M_L, tsetattr_f),
	[V9P_RSETATTR] = DEF0("Rsetattr", V9P_M_L),
	[V9P_TXATTRWALK] = DEF("Txattrwalk", V9P_M_L, txattrwalk_f),
	[V9P_RXATTRWALK] = DEF("Rxattrwalk", V9P_M_L, rxattrwalk_f),
	[V9P_TXATTRCREATE] = DEF("Txattrcreate", V9P_M_L, txattrcreate_f),
	[V9P_RXATTRCREATE] = DEF0("Rxattrcreate", V9P_M_L),
	[V9P_TREADDIR] = DEF("Treaddir", V9P_M_L, treaddir_f),
	[V9P_RREADDIR] = DEF("Rreaddir", V9P_M_L, rreaddir_f),
	[V9P_TFSYNC] = DEF("Tfsync", V9P_M_L, tfsync_f),
	[V9P_RFSYNC] = DEF0("Rfsync", V9P_M_L),
	[V9P_TLOCK] = DEF("Tlock", V9P_M_L, tlock_f),
	[V9P_RLOCK] = DEF("Rlock", V9P_M_L, rlock_f),
	[V9P_TGETLOCK] = DEF("Tgetlock", V9P_M_L, tgetlock_f),
	[V9P_RGETLOCK] = DEF("Rgetlock", V9P_M_L, rgetlock_f),
	[V9P_TLINK] = DEF("Tlink", V9P_M_L, tlink_f),
	[V9P_RLINK] = DEF0("Rlink", V9P_M_L),
	[V9P_TMKDIR] = DEF("Tmkdir", V9P_M_L, tmkdir_f),
	[V9P_RMKDIR] = DEF("Rmkdir", V9P_M_L, rmkdir_f),
	[V9P_TRENAMEAT] = DEF("Trenameat", V9P_M_L, trenameat_f),
	[V9P_RRENAMEAT] = DEF0("Rrenameat", V9P_M_L),
	[V9P_TUNLINKAT] = DEF("Tunlinkat", V9P_M_L, tunlinkat_f),
	[V9P_RUNLINKAT] = DEF0("Runlinkat", V9P_M_L),

	[V9P_TVERSION] = DEF("Tversion", V9P_M_ALL, tversion_f),
	[V9P_RVERSION] = DEF("Rversion", V9P_M_ALL, rversion_f),
	[V9P_TAUTH] = DEF("Tauth", V9P_M_ALL, tauth_f),
	[V9P_RAUTH] = DEF("Rauth", V9P_M_ALL, rauth_f),
	[V9P_TATTACH] = DEF("Tattach", V9P_M_ALL, tattach_f),
	[V9P_RATTACH] = DEF("Rattach", V9P_M_ALL, rattach_f),
	[V9P_RERROR] = DEF("Rerror", V9P_M_CLASSIC, rerror_f),
	[V9P_TFLUSH] = DEF("Tflush", V9P_M_ALL, tflush_f),
	[V9P_RFLUSH] = DEF0("Rflush", V9P_M_ALL),
	[V9P_TWALK] = DEF("Twalk", V9P_M_ALL, twalk_f),
	[V9P_RWALK] = DEF("Rwalk", V9P_M_ALL, rwalk_f),
	[V9P_TOPEN] = DEF("Topen", V9P_M_CLASSIC, topen_f),
	[V9P_ROPEN] = DEF("Ropen", V9P_M_CLASSIC, ropen_f),
	[V9P_TCREATE] = DEF("Tcreate", V9P_M_CLASSIC, tcreate_f),
	[V9P_RCREATE] = DEF("Rcreate", V9P_M_CLASSIC, rcreate_f),
	[V9P_TREAD] = DEF("Tread", V9P_M_ALL, tread_f),
	[V9P_RREAD] = DEF("Rread", V9P_M_ALL, rread_f),
	[V9P_TWRITE] = DEF("Twrite", V9P_M_ALL, twrite_f),
	[V9P_RWRITE] = DEF("Rwrite", V9P_M_ALL, rwrite_f),
	[V9P_TCLUNK] = DEF("Tclunk", V9P_M_ALL, tclunk_f),
	[V9P_RCLUNK] = DEF0("Rclunk", V9P_M_ALL),
	[V9P_TREMOVE] = DEF("Tremove", V9P_M_ALL, tremove_f),
	[V9P_RREMOVE] = DEF0("Rremove", V9P_M_ALL),
	[V9P_TSTAT] = DEF("Tstat", V9P_M_CLASSIC, tstat_f),
	[V9P_RSTAT] = DEF("Rstat", V9P_M_CLASSIC, rstat_f),
	[V9P_TWSTAT] = DEF("Twstat", V9P_M_CLASSIC, twstat_f),
	[V9P_RWSTAT] = DEF0("Rwstat", V9P_M_CLASSIC),
};

static const struct v9p_msgdef *v9p_def(u8 type, enum v9p_dialect d)
{
	const struct v9p_msgdef *m;

	if (type >= ARRAY_SIZE(v9p_defs) || (unsigned int)d > V9P_9P2000L)
		return NULL;
	m = &v9p_defs[type];
	if (!m->name || !(m->dialects & (1 << d)))
		return NULL;
	return m;
}

static bool v9p_present(const struct v9p_field *fl, enum v9p_dialect d)
{
	if (fl->flags & V9P_F_DOTU)
		return d == V9P_9P2000U;
	if (fl->flags & V9P_F_NOT9P)
		return d != V9P_9P2000;
	return true;
}

static void v9p_put_field(struct v9p_wbuf *w, const struct v9p_fcall *f,
			  const struct v9p_field *fl, enum v9p_dialect d)
{
	const void *p = (const u8 *)f + fl->off;
	const void *p2 = (const u8 *)f + fl->off2;
	const struct v9p_str *names;
	const struct v9p_qid *qids;
	const u8 *data;
	u64 at;
	u32 n, i;

	switch (fl->kind) {
	case V9P_K_END:
		break;
	case V9P_K_U8:
		v9p_put_u8(w, *(const u8 *)p);
		break;
	case V9P_K_U16:
		v9p_put_u16(w, *(const u16 *)p);
		break;
	case V9P_K_U32:
		v9p_put_u32(w, *(const u32 *)p);
		break;
	case V9P_K_U64:
		v9p_put_u64(w, *(const u64 *)p);
		break;
	case V9P_K_STR:
		v9p_put_str(w, (const struct v9p_str *)p);
		break;
	case V9P_K_QID:
		v9p_put_qid(w, (const struct v9p_qid *)p);
		break;
	case V9P_K_DATA:
		n = *(const u32 *)p;
		data = *(const u8 *const *)p2;
		if (n && !data)
			w->err = -EINVAL;
		v9p_put_u32(w, n);
		if (data)
			v9p_put_bytes(w, data, n);
		else
			w->pos += n;
		break;
	case V9P_K_WNAMES:
		n = *(const u16 *)p;
		names = (const struct v9p_str *)p2;
		if (n > V9P_MAXWELEM) {
			w->err = -EINVAL;
			break;
		}
		v9p_put_u16(w, (u16)n);
		for (i = 0; i < n; i++)
			v9p_put_str(w, &names[i]);
		break;
	case V9P_K_WQIDS:
		n = *(const u16 *)p;
		qids = (const struct v9p_qid *)p2;
		if (n > V9P_MAXWELEM) {
			w->err = -EINVAL;
			break;
		}
		v9p_put_u16(w, (u16)n);
		for (i = 0; i < n; i++)
			v9p_put_qid(w, &qids[i]);
		break;
	case V9P_K_STAT:
		/* n[2] counts the stat including the stat's own size[2] */
		at = w->pos;
		v9p_put_u16(w, 0);
		v9p_put_stat(w, (const struct v9p_stat *)p, d);
		if (w->pos - at - 2 > 0xffff)
			w->err = -EINVAL;
		else
			v9p_poke_u16(w, at, (u16)(w->pos - at - 2));
		break;
	}
}

static void v9p_get_field(struct v9p_rbuf *r, struct v9p_fcall *f,
			  const struct v9p_field *fl, enum v9p_dialect d)
{
	void *p = (u8 *)f + fl->off;
	void *p2 = (u8 *)f + fl->off2;
	struct v9p_str *names;
	struct v9p_qid *qids;
	u32 n, i, start;

	switch (fl->kind) {
	case V9P_K_END:
		break;
	case V9P_K_U8:
		*(u8 *)p = v9p_get_u8(r);
		break;
	case V9P_K_U16:
		*(u16 *)p = v9p_get_u16(r);
		break;
	case V9P_K_U32:
		*(u32 *)p = v9p_get_u32(r);
		break;
	case V9P_K_U64:
		*(u64 *)p = v9p_get_u64(r);
		break;
	case V9P_K_STR:
		v9p_get_str(r, (struct v9p_str *)p);
		break;
	case V9P_K_QID:
		v9p_get_qid(r, (struct v9p_qid *)p);
		break;
	case V9P_K_DATA:
		n = v9p_get_u32(r);
		*(u32 *)p = n;
		*(const u8 **)p2 = v9p_take(r, n);
		break;
	case V9P_K_WNAMES:
		n = v9p_get_u16(r);
		names = (struct v9p_str *)p2;
		if (n > V9P_MAXWELEM) {
			r->err = -EPROTO;
			break;
		}
		*(u16 *)p = (u16)n;
		for (i = 0; i < n; i++)
			v9p_get_str(r, &names[i]);
		break;
	case V9P_K_WQIDS:
		n = v9p_get_u16(r);
		qids = (struct v9p_qid *)p2;
		if (n > V9P_MAXWELEM) {
			r->err = -EPROTO;
			break;
		}
		*(u16 *)p = (u16)n;
		for (i = 0; i < n; i++)
			v9p_get_qid(r, &qids[i]);
		break;
	case V9P_K_STAT:
		n = v9p_get_u16(r);
		start = r->pos;
		v9p_get_stat(r, d, (struct v9p_stat *)p);
		if (!r->err && r->pos - start != n &&
		    !(n == 0 && (fl->flags & V9P_F_NZERO)))
			r->err = -EPROTO;
		break;
	}
}

/* An absent field still gets a defined value in the decoded message. */
static void v9p_absent_field(struct v9p_fcall *f, const struct v9p_field *fl)
{
	void *p = (u8 *)f + fl->off;

	if (fl->kind == V9P_K_U32)
		*(u32 *)p = (fl->flags & V9P_F_NONE) ? V9P_NONUNAME : 0;
	else if (fl->kind == V9P_K_STR)
		((struct v9p_str *)p)->s = "";
}

static int v9p_encode(const struct v9p_fcall *f, enum v9p_dialect d,
		      struct v9p_wbuf *w)
{
	const struct v9p_msgdef *m;
	const struct v9p_field *fl;

	if (!f)
		return -EINVAL;
	m = v9p_def(f->type, d);
	if (!m)
		return -EINVAL;
	v9p_put_u32(w, 0);
	v9p_put_u8(w, f->type);
	v9p_put_u16(w, f->tag);
	for (fl = m->fields; fl && fl->kind != V9P_K_END; fl++)
		if (v9p_present(fl, d))
			v9p_put_field(w, f, fl, d);
	if (w->err)
		return w->err;
	if (w->pos > 0x7fffffff)
		return -EMSGSIZE;
	v9p_poke_u32(w, 0, (u32)w->pos);
	return 0;
}

int v9p_pack(const struct v9p_fcall *f, enum v9p_dialect d, u8 *buf,
	     u32 size)
{
	struct v9p_wbuf w;
	int ret;

	if (!buf)
		return -EINVAL;
	v9p_wbuf_init(&w, buf, size);
	ret = v9p_encode(f, d, &w);
	if (ret)
		return ret;
	if (w.pos > w.size)
		return -EMSGSIZE;
	return (int)w.pos;
}

int v9p_packed_size(const struct v9p_fcall *f, enum v9p_dialect d)
{
	struct v9p_wbuf w;
	int ret;

	v9p_wbuf_init(&w, NULL, 0);
	ret = v9p_encode(f, d, &w);
	if (ret)
		return ret;
	return (int)w.pos;
}

int v9p_peek_hdr(const u8 *buf, u32 len, u32 msize,
		 struct v9p_hdr *h)
{
	struct v9p_rbuf r;

	if (!buf || !h)
		return -EINVAL;
	if (len < V9P_HDRSZ)
		return -EAGAIN;
	v9p_rbuf_init(&r, buf, len);
	h->size = v9p_get_u32(&r);
	h->type = v9p_get_u8(&r);
	h->tag = v9p_get_u16(&r);
	if (h->size < V9P_HDRSZ)
		return -EPROTO;
	if (msize && h->size > msize)
		return -EMSGSIZE;
	return 0;
}

int v9p_unpack(const u8 *buf, u32 len, enum v9p_dialect d,
	       u32 msize, struct v9p_fcall *f)
{
	const struct v9p_msgdef *m;
	const struct v9p_field *fl;
	struct v9p_rbuf r;
	struct v9p_hdr h;
	int ret;

	if (!f)
		return -EINVAL;
	memset(f, 0, sizeof(*f));
	ret = v9p_peek_hdr(buf, len, msize, &h);
	if (ret == -EAGAIN)
		return -EPROTO;
	if (ret)
		return ret;
	if (h.size != len)
		return -EPROTO;
	f->type = h.type;
	f->tag = h.tag;
	m = v9p_def(h.type, d);
	if (!m)
		return -EOPNOTSUPP;

	v9p_rbuf_init(&r, buf, len);
	r.pos = V9P_HDRSZ;
	for (fl = m->fields; fl && fl->kind != V9P_K_END; fl++) {
		if (!v9p_present(fl, d) ||
		    ((fl->flags & V9P_F_OPT) && !v9p_rbuf_left(&r)))
			v9p_absent_field(f, fl);
		else
			v9p_get_field(&r, f, fl, d);
	}
	if (r.err)
		return r.err;
	if (v9p_rbuf_left(&r))
		return -EPROTO;
	return 0;
}

int v9p_pack_io_hdr(const struct v9p_fcall *f, u8 *buf, u32 size)
{
	struct v9p_wbuf w;
	u32 count, hdr;

	if (!f || !buf)
		return -EINVAL;
	switch (f->type) {
	case V9P_TWRITE:
		count = f->twrite.count;
		hdr = V9P_TWRITE_HDRSZ;
		break;
	case V9P_RREAD:
		count = f->rread.count;
		hdr = V9P_RREAD_HDRSZ;
		break;
	case V9P_RREADDIR:
		count = f->rreaddir.count;
		hdr = V9P_RREAD_HDRSZ;
		break;
	default:
		return -EINVAL;
	}
	if (size < hdr || count > 0x7fffffff - hdr)
		return -EMSGSIZE;
	v9p_wbuf_init(&w, buf, size);
	v9p_put_u32(&w, hdr + count);
	v9p_put_u8(&w, f->type);
	v9p_put_u16(&w, f->tag);
	if (f->type == V9P_TWRITE) {
		v9p_put_u32(&w, f->twrite.fid);
		v9p_put_u64(&w, f->twrite.offset);
	}
	v9p_put_u32(&w, count);
	return (int)hdr;
}

const char *v9p_type_name(u8 type)
{
	if (type < ARRAY_SIZE(v9p_defs) && v9p_defs[type].name)
		return v9p_defs[type].name;
	return "unknown";
}

int v9p_type_valid(u8 type, enum v9p_dialect d)
{
	return !!v9p_def(type, d);
}

const char *v9p_dialect_name(enum v9p_dialect d)
{
	switch (d) {
	case V9P_9P2000:
		return V9P_VERSION_9P2000;
	case V9P_9P2000U:
		return V9P_VERSION_9P2000U;
	case V9P_9P2000L:
		return V9P_VERSION_9P2000L;
	}
	return V9P_VERSION_UNKNOWN;
}

/*
 * version(5): a version string always starts "9P"; a server that does not
 * know the part from a period on may strip it and answer the rest.
 */
int v9p_dialect_parse(const struct v9p_str *v)
{
	if (!v || !v->s)
		return -EINVAL;
	if (v9p_str_eq(v, V9P_VERSION_9P2000U))
		return V9P_9P2000U;
	if (v9p_str_eq(v, V9P_VERSION_9P2000L))
		return V9P_9P2000L;
	if (v->len < 6 || memcmp(v->s, V9P_VERSION_9P2000, 6) != 0)
		return -EINVAL;
	if (v->len == 6 || v->s[6] == '.')
		return V9P_9P2000;
	return -EINVAL;
}
