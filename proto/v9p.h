/* SPDX-License-Identifier: GPL-2.0 */
/*
 * v9p.h - the 9P2000, 9P2000.u and 9P2000.L wire codec: the one public header
 * of proto/, shared by the kernel module, v9fsd, the unit tests and the fuzzers.
 *
 * Decoding is zero-copy: strings and data in a decoded struct v9p_fcall are
 * views into the caller's buffer and live as long as that buffer.
 * All functions return a negative errno on failure:
 *   -EPROTO   malformed message (bad length, count, string, trailing bytes)
 *   -EMSGSIZE message larger than the buffer or the negotiated msize
 *   -EINVAL   bad argument (unknown type, message not in the dialect, ...)
 *   -EOPNOTSUPP (v9p_unpack only) well-framed message of an unknown type
 * No function allocates, sleeps or takes a lock.
 * See docs/protocol.md for the wire formats and where Linux and Plan 9 differ.
 */
#ifndef V9P_H
#define V9P_H

#include "v9p_platform.h"

enum v9p_dialect {
	V9P_9P2000 = 0,
	V9P_9P2000U = 1,
	V9P_9P2000L = 2,
};

#define V9P_VERSION_9P2000	"9P2000"
#define V9P_VERSION_9P2000U	"9P2000.u"
#define V9P_VERSION_9P2000L	"9P2000.L"
#define V9P_VERSION_UNKNOWN	"unknown"

/* message types: 9P2000.L */
#define V9P_TLERROR		6	/* never sent; only Rlerror exists */
#define V9P_RLERROR		7
#define V9P_TSTATFS		8
#define V9P_RSTATFS		9
#define V9P_TLOPEN		12
#define V9P_RLOPEN		13
#define V9P_TLCREATE		14
#define V9P_RLCREATE		15
#define V9P_TSYMLINK		16
#define V9P_RSYMLINK		17
#define V9P_TMKNOD		18
#define V9P_RMKNOD		19
#define V9P_TRENAME		20
#define V9P_RRENAME		21
#define V9P_TREADLINK		22
#define V9P_RREADLINK		23
#define V9P_TGETATTR		24
#define V9P_RGETATTR		25
#define V9P_TSETATTR		26
#define V9P_RSETATTR		27
#define V9P_TXATTRWALK		30
#define V9P_RXATTRWALK		31
#define V9P_TXATTRCREATE	32
#define V9P_RXATTRCREATE	33
#define V9P_TREADDIR		40
#define V9P_RREADDIR		41
#define V9P_TFSYNC		50
#define V9P_RFSYNC		51
#define V9P_TLOCK		52
#define V9P_RLOCK		53
#define V9P_TGETLOCK		54
#define V9P_RGETLOCK		55
#define V9P_TLINK		70
#define V9P_RLINK		71
#define V9P_TMKDIR		72
#define V9P_RMKDIR		73
#define V9P_TRENAMEAT		74
#define V9P_RRENAMEAT		75
#define V9P_TUNLINKAT		76
#define V9P_RUNLINKAT		77

/* message types: 9P2000 (and .u, which adds no new types) */
#define V9P_TVERSION		100
#define V9P_RVERSION		101
#define V9P_TAUTH		102
#define V9P_RAUTH		103
#define V9P_TATTACH		104
#define V9P_RATTACH		105
#define V9P_TERROR		106	/* illegal: never sent */
#define V9P_RERROR		107
#define V9P_TFLUSH		108
#define V9P_RFLUSH		109
#define V9P_TWALK		110
#define V9P_RWALK		111
#define V9P_TOPEN		112
#define V9P_ROPEN		113
#define V9P_TCREATE		114
#define V9P_RCREATE		115
#define V9P_TREAD		116
#define V9P_RREAD		117
#define V9P_TWRITE		118
#define V9P_RWRITE		119
#define V9P_TCLUNK		120
#define V9P_RCLUNK		121
#define V9P_TREMOVE		122
#define V9P_RREMOVE		123
#define V9P_TSTAT		124
#define V9P_RSTAT		125
#define V9P_TWSTAT		126
#define V9P_RWSTAT		127

#define V9P_NOTAG		((u16)0xffff)
#define V9P_NOFID		((u32)~0U)
#define V9P_NONUNAME		((u32)~0U)	/* .u/.L n_uname: "no numeric uid" */
#define V9P_MAXWELEM		16

/* fixed sizes on the wire */
#define V9P_HDRSZ		7	/* size[4] type[1] tag[2] */
#define V9P_QIDSZ		13	/* type[1] version[4] path[8] */
#define V9P_TWRITE_HDRSZ	23	/* hdr fid[4] offset[8] count[4] */
#define V9P_RREAD_HDRSZ		11	/* hdr count[4]; also Rreaddir */
#define V9P_IOHDRSZ		24	/* Plan 9's IOHDRSZ: msize - IOHDRSZ = max iounit */
#define V9P_ERRMAX		128	/* Plan 9's ERRMAX, a hint for servers */

/* qid.type */
#define V9P_QTDIR		0x80
#define V9P_QTAPPEND		0x40
#define V9P_QTEXCL		0x20
#define V9P_QTMOUNT		0x10
#define V9P_QTAUTH		0x08
#define V9P_QTTMP		0x04
#define V9P_QTSYMLINK		0x02	/* .u */
#define V9P_QTLINK		0x01	/* .u, Linux convention */
#define V9P_QTFILE		0x00

/* Topen / Tcreate mode */
#define V9P_OREAD		0x00
#define V9P_OWRITE		0x01
#define V9P_ORDWR		0x02
#define V9P_OEXEC		0x03
#define V9P_OTRUNC		0x10
#define V9P_OCEXEC		0x20
#define V9P_ORCLOSE		0x40
#define V9P_OAPPEND		0x80	/* .u, Linux convention */
#define V9P_OEXCL		0x1000	/* .u; does not fit mode[1] of Topen */

/* stat.mode / Tcreate perm */
#define V9P_DMDIR		0x80000000U
#define V9P_DMAPPEND		0x40000000U
#define V9P_DMEXCL		0x20000000U
#define V9P_DMMOUNT		0x10000000U
#define V9P_DMAUTH		0x08000000U
#define V9P_DMTMP		0x04000000U
#define V9P_DMSYMLINK		0x02000000U	/* .u */
#define V9P_DMLINK		0x01000000U	/* .u, Linux convention */
#define V9P_DMDEVICE		0x00800000U	/* .u */
#define V9P_DMNAMEDPIPE		0x00200000U	/* .u */
#define V9P_DMSOCKET		0x00100000U	/* .u */
#define V9P_DMSETUID		0x00080000U	/* .u */
#define V9P_DMSETGID		0x00040000U	/* .u */
#define V9P_DMSETVTX		0x00010000U	/* .u */
#define V9P_DMREAD		0x4
#define V9P_DMWRITE		0x2
#define V9P_DMEXEC		0x1

/* 9P2000.L Tgetattr request_mask / Rgetattr valid */
#define V9P_GETATTR_MODE		0x00000001ULL
#define V9P_GETATTR_NLINK		0x00000002ULL
#define V9P_GETATTR_UID			0x00000004ULL
#define V9P_GETATTR_GID			0x00000008ULL
#define V9P_GETATTR_RDEV		0x00000010ULL
#define V9P_GETATTR_ATIME		0x00000020ULL
#define V9P_GETATTR_MTIME		0x00000040ULL
#define V9P_GETATTR_CTIME		0x00000080ULL
#define V9P_GETATTR_INO			0x00000100ULL
#define V9P_GETATTR_SIZE		0x00000200ULL
#define V9P_GETATTR_BLOCKS		0x00000400ULL
#define V9P_GETATTR_BTIME		0x00000800ULL
#define V9P_GETATTR_GEN			0x00001000ULL
#define V9P_GETATTR_DATA_VERSION	0x00002000ULL
#define V9P_GETATTR_BASIC		0x000007ffULL
#define V9P_GETATTR_ALL			0x00003fffULL

/* 9P2000.L Tsetattr valid */
#define V9P_SETATTR_MODE	0x00000001U
#define V9P_SETATTR_UID		0x00000002U
#define V9P_SETATTR_GID		0x00000004U
#define V9P_SETATTR_SIZE	0x00000008U
#define V9P_SETATTR_ATIME	0x00000010U
#define V9P_SETATTR_MTIME	0x00000020U
#define V9P_SETATTR_CTIME	0x00000040U
#define V9P_SETATTR_ATIME_SET	0x00000080U
#define V9P_SETATTR_MTIME_SET	0x00000100U

/* 9P2000.L Tlopen / Tlcreate flags: Linux's generic O_* values, in octal */
#define V9P_DOTL_RDONLY		00000000
#define V9P_DOTL_WRONLY		00000001
#define V9P_DOTL_RDWR		00000002
#define V9P_DOTL_NOACCESS	00000003
#define V9P_DOTL_CREATE		00000100
#define V9P_DOTL_EXCL		00000200
#define V9P_DOTL_NOCTTY		00000400
#define V9P_DOTL_TRUNC		00001000
#define V9P_DOTL_APPEND		00002000
#define V9P_DOTL_NONBLOCK	00004000
#define V9P_DOTL_DSYNC		00010000
#define V9P_DOTL_FASYNC		00020000
#define V9P_DOTL_DIRECT		00040000
#define V9P_DOTL_LARGEFILE	00100000
#define V9P_DOTL_DIRECTORY	00200000
#define V9P_DOTL_NOFOLLOW	00400000
#define V9P_DOTL_NOATIME	01000000
#define V9P_DOTL_CLOEXEC	02000000
#define V9P_DOTL_SYNC		04000000

/* 9P2000.L Tunlinkat flags */
#define V9P_DOTL_AT_REMOVEDIR	0x200

/* 9P2000.L Txattrcreate flags */
#define V9P_XATTR_CREATE	1
#define V9P_XATTR_REPLACE	2

/* 9P2000.L Tlock / Tgetlock type */
#define V9P_LOCK_TYPE_RDLCK	0
#define V9P_LOCK_TYPE_WRLCK	1
#define V9P_LOCK_TYPE_UNLCK	2

/* 9P2000.L Rlock status */
#define V9P_LOCK_SUCCESS	0
#define V9P_LOCK_BLOCKED	1
#define V9P_LOCK_ERROR		2
#define V9P_LOCK_GRACE		3

/* 9P2000.L Tlock flags */
#define V9P_LOCK_FLAGS_BLOCK	1
#define V9P_LOCK_FLAGS_RECLAIM	2

/* A string on the wire: a view into a buffer, not NUL-terminated, no NUL inside. */
struct v9p_str {
	const char *s;
	u16 len;
};

struct v9p_qid {
	u8 type;
	u32 version;
	u64 path;
};

/*
 * A 9P2000 stat entry; extension and n_uid/n_gid/n_muid are on the wire only
 * in 9P2000.u (decoding 9P2000 leaves them empty / V9P_NONUNAME).
 */
struct v9p_stat {
	u16 type;
	u32 dev;
	struct v9p_qid qid;
	u32 mode;
	u32 atime;
	u32 mtime;
	u64 length;
	struct v9p_str name;
	struct v9p_str uid;
	struct v9p_str gid;
	struct v9p_str muid;
	struct v9p_str extension;
	u32 n_uid;
	u32 n_gid;
	u32 n_muid;
};

/* A 9P2000.L directory entry, as found in Rreaddir data. */
struct v9p_dirent {
	struct v9p_qid qid;
	u64 offset;		/* cookie for the next Treaddir, not a byte offset */
	u8 type;		/* DT_* of the entry */
	struct v9p_str name;
};

/* 9P2000, with the .u fields marked; .L uses the .u forms of Tauth/Tattach. */
struct v9p_tversion {
	u32 msize;
	struct v9p_str version;
};

struct v9p_rversion {
	u32 msize;
	struct v9p_str version;
};

struct v9p_tauth {
	u32 afid;
	struct v9p_str uname;
	struct v9p_str aname;
	u32 n_uname;		/* .u/.L */
};

struct v9p_rauth {
	struct v9p_qid aqid;
};

struct v9p_tattach {
	u32 fid;
	u32 afid;
	struct v9p_str uname;
	struct v9p_str aname;
	u32 n_uname;		/* .u/.L */
};

struct v9p_rattach {
	struct v9p_qid qid;
};

struct v9p_rerror {
	struct v9p_str ename;
	u32 errcode;		/* .u: Linux errno, 0 if the server gave none */
};

struct v9p_tflush {
	u16 oldtag;
};

struct v9p_twalk {
	u32 fid;
	u32 newfid;
	u16 nwname;
	struct v9p_str wname[V9P_MAXWELEM];
};

struct v9p_rwalk {
	u16 nwqid;
	struct v9p_qid wqid[V9P_MAXWELEM];
};

struct v9p_topen {
	u32 fid;
	u8 mode;
};

struct v9p_ropen {
	struct v9p_qid qid;
	u32 iounit;
};

struct v9p_tcreate {
	u32 fid;
	struct v9p_str name;
	u32 perm;
	u8 mode;
	struct v9p_str extension;	/* .u */
};

struct v9p_rcreate {
	struct v9p_qid qid;
	u32 iounit;
};

struct v9p_tread {
	u32 fid;
	u64 offset;
	u32 count;
};

struct v9p_rread {
	u32 count;
	const u8 *data;
};

struct v9p_twrite {
	u32 fid;
	u64 offset;
	u32 count;
	const u8 *data;
};

struct v9p_rwrite {
	u32 count;
};

struct v9p_tclunk {
	u32 fid;
};

struct v9p_tremove {
	u32 fid;
};

struct v9p_tstat {
	u32 fid;
};

struct v9p_rstat {
	struct v9p_stat stat;
};

struct v9p_twstat {
	u32 fid;
	struct v9p_stat stat;
};

/* 9P2000.L */
struct v9p_rlerror {
	u32 ecode;
};

struct v9p_tstatfs {
	u32 fid;
};

struct v9p_rstatfs {
	u32 type;
	u32 bsize;
	u64 blocks;
	u64 bfree;
	u64 bavail;
	u64 files;
	u64 ffree;
	u64 fsid;
	u32 namelen;
};

struct v9p_tlopen {
	u32 fid;
	u32 flags;
};

struct v9p_rlopen {
	struct v9p_qid qid;
	u32 iounit;
};

struct v9p_tlcreate {
	u32 fid;
	struct v9p_str name;
	u32 flags;
	u32 mode;
	u32 gid;
};

struct v9p_rlcreate {
	struct v9p_qid qid;
	u32 iounit;
};

struct v9p_tsymlink {
	u32 fid;
	struct v9p_str name;
	struct v9p_str symtgt;
	u32 gid;
};

struct v9p_rsymlink {
	struct v9p_qid qid;
};

struct v9p_tmknod {
	u32 dfid;
	struct v9p_str name;
	u32 mode;
	u32 major;
	u32 minor;
	u32 gid;
};

struct v9p_rmknod {
	struct v9p_qid qid;
};

struct v9p_trename {
	u32 fid;
	u32 dfid;
	struct v9p_str name;
};

struct v9p_treadlink {
	u32 fid;
};

struct v9p_rreadlink {
	struct v9p_str target;
};

struct v9p_tgetattr {
	u32 fid;
	u64 request_mask;
};

struct v9p_rgetattr {
	u64 valid;
	struct v9p_qid qid;
	u32 mode;
	u32 uid;
	u32 gid;
	u64 nlink;
	u64 rdev;
	u64 size;
	u64 blksize;
	u64 blocks;
	u64 atime_sec;
	u64 atime_nsec;
	u64 mtime_sec;
	u64 mtime_nsec;
	u64 ctime_sec;
	u64 ctime_nsec;
	u64 btime_sec;
	u64 btime_nsec;
	u64 gen;
	u64 data_version;
};

struct v9p_tsetattr {
	u32 fid;
	u32 valid;
	u32 mode;
	u32 uid;
	u32 gid;
	u64 size;
	u64 atime_sec;
	u64 atime_nsec;
	u64 mtime_sec;
	u64 mtime_nsec;
};

struct v9p_txattrwalk {
	u32 fid;
	u32 newfid;
	struct v9p_str name;
};

struct v9p_rxattrwalk {
	u64 size;
};

struct v9p_txattrcreate {
	u32 fid;
	struct v9p_str name;
	u64 attr_size;
	u32 flags;
};

struct v9p_treaddir {
	u32 fid;
	u64 offset;
	u32 count;
};

struct v9p_rreaddir {
	u32 count;
	const u8 *data;		/* packed struct v9p_dirent entries */
};

struct v9p_tfsync {
	u32 fid;
	u32 datasync;		/* 0 when decoded from the old fid-only form */
};

struct v9p_tlock {
	u32 fid;
	u8 type;
	u32 flags;
	u64 start;
	u64 length;
	u32 proc_id;
	struct v9p_str client_id;
};

struct v9p_rlock {
	u8 status;
};

struct v9p_tgetlock {
	u32 fid;
	u8 type;
	u64 start;
	u64 length;
	u32 proc_id;
	struct v9p_str client_id;
};

struct v9p_rgetlock {
	u8 type;
	u64 start;
	u64 length;
	u32 proc_id;
	struct v9p_str client_id;
};

struct v9p_tlink {
	u32 dfid;
	u32 fid;
	struct v9p_str name;
};

struct v9p_tmkdir {
	u32 dfid;
	struct v9p_str name;
	u32 mode;
	u32 gid;
};

struct v9p_rmkdir {
	struct v9p_qid qid;
};

struct v9p_trenameat {
	u32 olddirfid;
	struct v9p_str oldname;
	u32 newdirfid;
	struct v9p_str newname;
};

struct v9p_tunlinkat {
	u32 dirfid;
	struct v9p_str name;
	u32 flags;
};

/*
 * One message. Messages without a body (Rflush, Rclunk, Rremove, Rwstat,
 * Rrename, Rsetattr, Rxattrcreate, Rfsync, Rlink, Rrenameat, Runlinkat) use
 * no union member. About 280 bytes on 64-bit: kernel callers that keep
 * several should allocate them rather than put them on the stack.
 */
struct v9p_fcall {
	u8 type;
	u16 tag;
	union {
		struct v9p_tversion tversion;
		struct v9p_rversion rversion;
		struct v9p_tauth tauth;
		struct v9p_rauth rauth;
		struct v9p_tattach tattach;
		struct v9p_rattach rattach;
		struct v9p_rerror rerror;
		struct v9p_tflush tflush;
		struct v9p_twalk twalk;
		struct v9p_rwalk rwalk;
		struct v9p_topen topen;
		struct v9p_ropen ropen;
		struct v9p_tcreate tcreate;
		struct v9p_rcreate rcreate;
		struct v9p_tread tread;
		struct v9p_rread rread;
		struct v9p_twrite twrite;
		struct v9p_rwrite rwrite;
		struct v9p_tclunk tclunk;
		struct v9p_tremove tremove;
		struct v9p_tstat tstat;
		struct v9p_rstat rstat;
		struct v9p_twstat twstat;

		struct v9p_rlerror rlerror;
		struct v9p_tstatfs tstatfs;
		struct v9p_rstatfs rstatfs;
		struct v9p_tlopen tlopen;
		struct v9p_rlopen rlopen;
		struct v9p_tlcreate tlcreate;
		struct v9p_rlcreate rlcreate;
		struct v9p_tsymlink tsymlink;
		struct v9p_rsymlink rsymlink;
		struct v9p_tmknod tmknod;
		struct v9p_rmknod rmknod;
		struct v9p_trename trename;
		struct v9p_treadlink treadlink;
		struct v9p_rreadlink rreadlink;
		struct v9p_tgetattr tgetattr;
		struct v9p_rgetattr rgetattr;
		struct v9p_tsetattr tsetattr;
		struct v9p_txattrwalk txattrwalk;
		struct v9p_rxattrwalk rxattrwalk;
		struct v9p_txattrcreate txattrcreate;
		struct v9p_treaddir treaddir;
		struct v9p_rreaddir rreaddir;
		struct v9p_tfsync tfsync;
		struct v9p_tlock tlock;
		struct v9p_rlock rlock;
		struct v9p_tgetlock tgetlock;
		struct v9p_rgetlock rgetlock;
		struct v9p_tlink tlink;
		struct v9p_tmkdir tmkdir;
		struct v9p_rmkdir rmkdir;
		struct v9p_trenameat trenameat;
		struct v9p_tunlinkat tunlinkat;
	};
};

/* The fixed header of a buffered message, for receive paths. */
struct v9p_hdr {
	u32 size;
	u8 type;
	u16 tag;
};

/* ---- messages (v9p_msg.c) ---- */

/*
 * Encode f for dialect d into buf[0..size). Returns the message length
 * (size[4] included) or -EMSGSIZE if it does not fit, -EINVAL if the type is
 * unknown or not part of d, a count is over its limit, data is NULL with a
 * non-zero count, or a string holds a NUL byte.
 */
int v9p_pack(const struct v9p_fcall *f, enum v9p_dialect d, u8 *buf,
	     u32 size);

/* The length v9p_pack() would produce, or -EINVAL. */
int v9p_packed_size(const struct v9p_fcall *f, enum v9p_dialect d);

/*
 * Decode the whole message buf[0..len) for dialect d into f; size[4] must
 * equal len and len must not exceed msize (0: no msize limit). Strings and
 * data in f point into buf. Returns 0, -EPROTO or -EMSGSIZE; or
 * -EOPNOTSUPP for a well-framed message whose type is unknown or not part
 * of d, with f->type and f->tag filled in so a server can still reply.
 */
int v9p_unpack(const u8 *buf, u32 len, enum v9p_dialect d,
	       u32 msize, struct v9p_fcall *f);

/*
 * Write only the header of a Twrite, Rread or Rreaddir (f->type) whose
 * count bytes of payload the caller places right after it: size[4] covers
 * header and payload. f->...data is ignored. Returns the header length
 * (V9P_TWRITE_HDRSZ or V9P_RREAD_HDRSZ) or -EMSGSIZE/-EINVAL.
 */
int v9p_pack_io_hdr(const struct v9p_fcall *f, u8 *buf, u32 size);

/*
 * Read size/type/tag from the first len bytes of a message being received.
 * Returns 0, -EAGAIN if len < V9P_HDRSZ, -EPROTO if size < V9P_HDRSZ,
 * -EMSGSIZE if size > msize (msize 0: no limit).
 */
int v9p_peek_hdr(const u8 *buf, u32 len, u32 msize,
		 struct v9p_hdr *h);

/* "Tversion", "Rlerror", ...; "unknown" for anything else. */
const char *v9p_type_name(u8 type);

/* Whether type (T or R) is a message of dialect d. */
int v9p_type_valid(u8 type, enum v9p_dialect d);

/* ---- version strings (v9p_msg.c) ---- */

/* The version string of dialect d: "9P2000", "9P2000.u" or "9P2000.L". */
const char *v9p_dialect_name(enum v9p_dialect d);

/*
 * Map a version string to a dialect: exactly "9P2000.u" or "9P2000.L", or
 * "9P2000" (a server may also answer "9P2000.x" for an unknown x, which
 * version(5) lets us read as plain 9P2000). Returns the dialect, or -EINVAL
 * for "unknown" and anything else ("9P2000u", "9P1999", "").
 */
int v9p_dialect_parse(const struct v9p_str *v);

/* ---- stat (v9p_stat.c) ---- */

/*
 * Encode st for dialect d (9P2000 or .u) including its leading size[2].
 * Returns bytes written, -EMSGSIZE, or -EINVAL (NUL in a string, or the stat
 * does not fit in 65535 bytes).
 */
int v9p_stat_pack(const struct v9p_stat *st, enum v9p_dialect d, u8 *buf,
		  u32 size);

/* Bytes v9p_stat_pack() would write, size[2] included. */
u32 v9p_stat_size(const struct v9p_stat *st, enum v9p_dialect d);

/*
 * Decode one stat from buf[0..len); its size[2] must fit in len and must be
 * exactly consumed by the fields. Returns bytes consumed (size[2] included)
 * or -EPROTO; -EINVAL for 9P2000.L, which has no stat. Used for Rstat/Twstat
 * bodies and 9P2000 directory reads.
 */
int v9p_stat_unpack(const u8 *buf, u32 len, enum v9p_dialect d,
		    struct v9p_stat *st);

/* Set every field to "don't touch" (~0 integers, empty strings) for Twstat. */
void v9p_stat_dont_touch(struct v9p_stat *st);

/* ---- 9P2000.L directory entries (v9p_stat.c) ---- */

/* Bytes v9p_dirent_pack() would write: 24 + name length. */
u32 v9p_dirent_size(const struct v9p_dirent *de);

/* Encode one entry; returns bytes written, -EMSGSIZE or -EINVAL. */
int v9p_dirent_pack(const struct v9p_dirent *de, u8 *buf, u32 size);

/* Decode one entry; returns bytes consumed or -EPROTO. */
int v9p_dirent_unpack(const u8 *buf, u32 len, struct v9p_dirent *de);

/* ---- errors (v9p_error.c) ---- */

/*
 * Map a 9P2000 error string (Plan 9's texts or a Unix strerror() text) to a
 * positive Linux errno; EIO if unknown.
 */
int v9p_errstr_to_errno(const char *s, u32 len);

/* A string for Rerror from a positive (or negative) errno; never NULL. */
const char *v9p_errno_to_errstr(int err);

/* ---- helpers ---- */

/* Point v at the NUL-terminated s; -ENAMETOOLONG if longer than 65535. */
static inline int v9p_str_set(struct v9p_str *v, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n > 0xffff)
		return -ENAMETOOLONG;
	v->s = s ? s : "";
	v->len = (u16)n;
	return 0;
}

/* Whether v holds exactly the NUL-terminated s. */
static inline int v9p_str_eq(const struct v9p_str *v, const char *s)
{
	size_t n = strlen(s);

	return v->len == n && (n == 0 || memcmp(v->s, s, n) == 0);
}

#endif /* V9P_H */
