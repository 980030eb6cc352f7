// SPDX-License-Identifier: GPL-2.0
/*
 * hostile-9p: a 9P server that misbehaves on purpose, for fault tests.
 *
 *	hostile-9p -m MODE [-t read|write|walk|open|getattr] [-e ERRCODE]
 *		   [-E ENAME] [-N NAME] [-F fids] [-M msize] [-c COUNT] [-k SKIP]
 *		   (-l tcp:HOST:PORT | -l unix:PATH | -s)
 *
 * It serves a tiny synthetic tree (a root directory holding one 64 KiB file,
 * "data") well enough for a client to mount it, list it and open the file, in
 * 9P2000, 9P2000.u or 9P2000.L.  The first Tread of "data" (or Twrite, Topen
 * of it, or a Twalk to it, with -t) is the trigger: instead of the right
 * reply it does what MODE says.
 *
 *	none       behave (the control case: the read must succeed)
 *	malformed  a reply of the right type and tag whose body is cut short
 *	oversized  a size[4] of 0x7fffffff, far beyond msize, then silence
 *	badtag     the right reply under a tag that is not in flight
 *	badtype    a well-formed reply of the wrong type (Rclunk for Tread)
 *	bigcount   an Rread carrying more bytes than the Tread asked for
 *	stall      no reply, ever, to the trigger or to anything after it
 *	close      half of the reply, then the connection is closed
 *	rerror     Rerror with errcode ERRCODE (-e, default 529) and the string
 *		   ENAME (-E, default "hostile: no such error"), for every
 *		   trigger, not only the first; everything else is answered
 *	noversion  never answer Tversion; log every Tflush that comes instead
 *	echomsize  answer Tversion with whatever msize the client asked for,
 *		   however large (the server itself works within -M)
 *	stream     "data" is a stream, as Plan 9's network and device files are:
 *		   its stat says length 0, a Tread ignores its offset and gets
 *		   the next bytes of the stream (byte p is p % 251, 1 MiB in
 *		   all), and Treads that arrive together are answered newest
 *		   first, as a threaded server may
 *	failwrite  the 2nd Twrite of "data" on a connection gets Rerror (EIO);
 *		   every other one lands, and the log says after each how many
 *		   bytes the file holds (the end of the last byte written);
 *		   -S sets the length its stat reports (default 64 KiB)
 *	renamefail a second file, "src"; a rename onto an existing name fails
 *		   with EEXIST (stat(5)), and "src" may never be called "data"
 *		   (EACCES, even once "data" is gone); other renames and
 *		   removes work
 *	noclunk    no Tclunk is ever answered, and the fid stays in use: once
 *		   a connection holds -F fids (default 256), every Twalk to a
 *		   new fid gets EMFILE (Rerror "Too many open files")
 *
 * 9P2000.L modes (the client must have asked for 9P2000.L; rerror above sends
 * Rlerror(ERRCODE) there, and -t also takes getattr):
 *	getattr-short	every Rgetattr of "data" ends after valid[8] qid[13]
 *	getattr-nomode	every Rgetattr of "data" has a mode with no file type
 *	getattr-lies	every Rgetattr of "data" claims every field in valid[8]
 *			and ends after the ctime
 *	readdir-count	Rreaddir's count is 1000 more than the bytes that follow
 *	readdir-overrun	an entry whose name[s] runs past the end of the data
 *	readdir-name	after "data", an entry named NAME (-N; "a/b", "", "..")
 *	readdir-stuck	every Rreaddir holds "data" at the offset asked for: the
 *			offset never advances
 *	iounit		Rlopen says iounit 4294967295, far beyond msize
 *	readlink-long	a symlink "link" whose Rreadlink is 5000 bytes, longer
 *			than PATH_MAX
 *	statfs-bsize0	Rstatfs says bsize 0 (and blocks, files as usual)
 *	xattr-huge	every Rxattrwalk says 2^40 bytes (a Tread of that fid
 *			gets zeros)
 *	xattr-big	every Rxattrwalk of a name says 4096 bytes ('x's); the
 *			name list is "user.h" as usual
 *	xattr-bigread	the Rread of an xattr fid carries 100 bytes more than
 *			the Tread asked for
 *	xattr-nonul	the name list is "user.a", NUL, "user.b", with no NUL at
 *			the end
 *	lock-status	every Rlock says status 7 (not OK, BLOCKED, ERROR or GRACE)
 *	getlock-range	every Rgetlock says a write lock at 2^63 - 10, 100 bytes
 *			long: past the largest offset
 *	getlock-type	every Rgetlock says lock type 9 over the whole file
 *
 *	readdir-cycle	Rreaddir entries are all named "a/b" (never shown), and
 *			their cookies go round: 0 leads to 5, 5 to 6, 6 to 5
 *
 * Fid numbers (any dialect):
 *	remove-flush	no Tremove is answered; a Tflush of one is, and the fid
 *			stays as it was (the remove never happened); a Twalk or
 *			Tattach to a fid the connection holds gets "fid in use"
 *			(EBADF), as a server that checks fids does
 *
 * Directory reads of 9P2000 and 9P2000.u:
 *	dirread-split	the root holds SPLIT_ENTRIES files f0000, f0001...
 *			(and not "data"), read as read(5) says: a Tread at 0 or
 *			where an entry begins, whole stat entries only; the
 *			reply at entry i holds i % 7 + 1 entries (fewer when the
 *			count is smaller), so that replies end at every entry
 *			boundary in turn; an offset inside an entry is refused
 *
 * Paired 9P2000.L modes: two requests that arrive together (the second within
 * 50 ms of the first, as a client sends the requests it overlaps) form a pair
 * when they are a Twalk of one name to "data" and a Tgetattr of a fid on
 * "data" (a name check beside the attributes), or a Tlopen of a fid on "data"
 * and a Tgetattr of the same fid (an open beside its close-to-open check).
 * Three form a triple when a Twalk of one name to "data" is followed by a
 * Tlopen of a fid on "data" and a Tgetattr of that fid (an open whose name
 * check goes beside its Tlopen and Tgetattr); a triple is one group, not a
 * pair. Every request is served honestly, one at a time and in order, but the
 * groups (those after the first -k SKIP it would act on, and of them the
 * first -c COUNT only, when given); -t walk|open|getattr names the member of
 * a group the mode acts on (getattr, the default, is the Tgetattr of any
 * group; walk and open only the Twalk or Tlopen). The log says "pair walk",
 * "pair open" or "pair triple" for each group seen, and after every request
 * that makes or ends a fid "fids N open M": the fids the connection holds,
 * and how many of them are opened; a Tlopen with O_TRUNC is logged with the
 * qid path of its file, whose length is 0 from then on. Each Tclunk of an
 * opened fid of "data" stands for a writer elsewhere: the bytes change
 * ("hostile\n", then "gen0001\n", "gen0002\n"... over and over, same length)
 * and so do its mtime and ctime.
 *	pair-swap	every reply is held until the next request arrives (or
 *			50 ms pass) and the newer one is answered first (a Tflush
 *			of the held one drops it), so a group is answered in the
 *			reverse order (newest first)
 *	pair-fail	the member named by -t gets Rlerror(ERRCODE) (-e; default
 *			EIO), the others their right replies; a Twalk failed
 *			with ENOENT removes "data" (a fid on it still answers)
 *	pair-otherfile	at a name check's group (a walk pair or a triple) the
 *			file called "data" is replaced by another (the first
 *			time by a file of 4242 bytes "another\n", mode 0600;
 *			then by the former one again, and so on): the Twalk
 *			finds the new file, the Tlopen and Tgetattr on the old
 *			fid answer for the old one. With -t walk a Twalk to
 *			"data" that comes alone (no request within 50 ms, as a
 *			name check before an O_TRUNC open) is a group too
 *	pair-silent	the member named by -t is never answered (a Tflush of it
 *			is), the others are
 *
 * Modes of made directories and of sizes (every dialect):
 *	mkdir-parentqid	a directory made (Tmkdir, or Tcreate with DMDIR) is
 *			answered with the qid of the directory it was made in,
 *			and so is every Twalk to its name: it is one more name
 *			of its parent. Tunlinkat of the name removes it; a
 *			Tremove of the parent is refused (EBUSY)
 *	hugelength	as none, and every Twrite of "data" is logged with its
 *			offset ("Twrite of data at OFFSET"); with -S 2^63 or
 *			more the length a stat of "data" says is past the
 *			largest file offset
 *	stale-size	a Tgetattr or Tstat of "data" that a Twrite of "data"
 *			follows within a second is answered after the Twrite,
 *			300 ms later, with the length "data" had when the
 *			Tgetattr arrived (a reply the server sent before the
 *			Twrite landed). A Twrite past the end of "data" makes it
 *			longer (logged: "data is now N bytes"); a Tread past
 *			64 KiB gives nothing
 * Outside the xattr-* modes Txattrwalk and Txattrcreate get EOPNOTSUPP; there
 * every name has the value "hostile-xattr-16" and the list is "user.h".
 * Outside the lock modes Tlock and Tgetlock get EOPNOTSUPP.
 *
 * Each connection is served by its own child process, so a stalled one does
 * not block the next mount.  -s serves a single connection on stdin/stdout
 * (for trans=fd).  Messages go through proto/ (v9p_unpack / v9p_pack) except
 * for the deliberately broken bytes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "v9p.h"

enum mode {
	M_NONE, M_MALFORMED, M_OVERSIZED, M_BADTAG, M_BADTYPE, M_BIGCOUNT, M_STALL, M_CLOSE,
	M_RERROR, M_NOVERSION, M_ECHOMSIZE, M_STREAM, M_FAILWRITE, M_RENAMEFAIL, M_NOCLUNK,
	M_GETATTR_SHORT, M_GETATTR_NOMODE, M_GETATTR_LIES, M_READDIR_COUNT, M_READDIR_OVERRUN,
	M_READDIR_NAME, M_READDIR_STUCK, M_IOUNIT, M_READLINK_LONG, M_STATFS_BSIZE0,
	M_XATTR_HUGE, M_XATTR_BIG, M_XATTR_BIGREAD, M_XATTR_NONUL, M_LOCK_STATUS,
	M_GETLOCK_RANGE, M_GETLOCK_TYPE,
	M_REMOVE_FLUSH, M_READDIR_CYCLE, M_DIRREAD_SPLIT,
	M_PAIR_SWAP, M_PAIR_FAIL, M_PAIR_OTHERFILE,
	M_PAIR_SILENT,
	/* made directories and sizes: not pair-* modes */
	M_MKDIR_PARENTQID, M_HUGELENGTH, M_STALE_SIZE
};
#define M_LAST	M_STALE_SIZE
#define pair_mode(m)	((m) >= M_PAIR_SWAP && (m) <= M_PAIR_SILENT)

static const char *const mode_names[] = {
	[M_NONE] = "none", [M_MALFORMED] = "malformed", [M_OVERSIZED] = "oversized",
	[M_BADTAG] = "badtag", [M_BADTYPE] = "badtype", [M_BIGCOUNT] = "bigcount",
	[M_STALL] = "stall", [M_CLOSE] = "close", [M_RERROR] = "rerror",
	[M_NOVERSION] = "noversion", [M_ECHOMSIZE] = "echomsize", [M_STREAM] = "stream",
	[M_FAILWRITE] = "failwrite", [M_RENAMEFAIL] = "renamefail", [M_NOCLUNK] = "noclunk",
	[M_GETATTR_SHORT] = "getattr-short", [M_GETATTR_NOMODE] = "getattr-nomode",
	[M_GETATTR_LIES] = "getattr-lies", [M_READDIR_COUNT] = "readdir-count",
	[M_READDIR_OVERRUN] = "readdir-overrun", [M_READDIR_NAME] = "readdir-name",
	[M_READDIR_STUCK] = "readdir-stuck", [M_IOUNIT] = "iounit",
	[M_READLINK_LONG] = "readlink-long", [M_STATFS_BSIZE0] = "statfs-bsize0",
	[M_XATTR_HUGE] = "xattr-huge", [M_XATTR_BIG] = "xattr-big",
	[M_XATTR_BIGREAD] = "xattr-bigread", [M_XATTR_NONUL] = "xattr-nonul",
	[M_LOCK_STATUS] = "lock-status", [M_GETLOCK_RANGE] = "getlock-range",
	[M_GETLOCK_TYPE] = "getlock-type", [M_PAIR_SWAP] = "pair-swap",
	[M_PAIR_FAIL] = "pair-fail", [M_PAIR_OTHERFILE] = "pair-otherfile",
	[M_PAIR_SILENT] = "pair-silent",
	[M_REMOVE_FLUSH] = "remove-flush", [M_READDIR_CYCLE] = "readdir-cycle",
	[M_DIRREAD_SPLIT] = "dirread-split",
	[M_MKDIR_PARENTQID] = "mkdir-parentqid", [M_HUGELENGTH] = "hugelength",
	[M_STALE_SIZE] = "stale-size",
};

#define DATA_SIZE	65536
#define QPATH_ROOT	1
#define QPATH_DATA	2
#define QPATH_SRC	3
#define QPATH_LINK	4	/* readlink-long only: a symlink */
#define QPATH_NEW	5	/* pair-otherfile: the file that replaces "data" */
#define NFILES		6	/* qpaths below this */
#define NEW_SIZE	4242	/* QPATH_NEW's length */
#define QPATH_XVALUE	100	/* an xattr fid: a value, */
#define QPATH_XLIST	101	/* or the list of names */
#define XATTR_VALUE	"hostile-xattr-16"
#define XATTR_BIG	4096	/* xattr-big's value length */
#define LONG_LINK	5000	/* bytes of readlink-long's target */
#define MAX_FIDS	256
#define STREAM_SIZE	(1 << 20)
#define STREAM_QUEUE	8
#define STREAM_WAIT_MS	100
#define PAIR_WAIT_MS	50	/* the second request of a pair comes within */

static enum mode mode;
static volatile sig_atomic_t terminate;
static pid_t children[64];
static int trigger_type = V9P_TREAD;
static u32 max_msize = 65536;
static int fid_limit = MAX_FIDS;	/* -F: fids a connection may hold */
static u32 rerror_code = 529;
static const char *rerror_name = "hostile: no such error";
static u64 data_length = DATA_SIZE;	/* what a stat of "data" says */
/* The files of the root (each connection is a process: its own copy). */
static char file_name[NFILES][64] = {
	[QPATH_DATA] = "data", [QPATH_SRC] = "src", [QPATH_LINK] = "link",
	[QPATH_NEW] = "data"
};
static const char *bad_name = "a/b";	/* readdir-name: -N */
static int file_exists[NFILES] = { [QPATH_DATA] = 1 };
static int pair_count = -1;	/* -c: groups the pair-* modes act on; -1 all */
static int pair_skip;		/* -k: groups served honestly before that */
static unsigned int data_gen;	/* pair-* modes: changes of "data" so far */
static int truncated[NFILES];	/* a Tlopen with O_TRUNC emptied the file */

/* one connection's state */
struct conn {
	int rfd, wfd;
	enum v9p_dialect d;
	u32 msize;
	int triggered;
	struct {
		u32 fid;
		u64 qpath;	/* 0: slot free */
		int opened;	/* Tlopen or Topen answered */
	} fids[MAX_FIDS];
	u8 *in, *out;
	u8 *in2, *in3;		/* pair modes: the requests read ahead */
	/* stream: Treads held back, answered newest first; bytes sent */
	struct {
		u16 tag;
		u32 count;
	} queue[STREAM_QUEUE];
	int queued;
	u64 streamed;
	/* failwrite: Twrites of "data" seen, end of the last byte landed */
	int nwrites;
	u64 held;
};

static void logmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logmsg(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "hostile-9p[%d]: ", (int)getpid());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int read_full(int fd, u8 *buf, size_t len)
{
	while (len) {
		ssize_t n = read(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= n;
	}
	return 0;
}

static int write_full(int fd, const u8 *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= n;
	}
	return 0;
}

static u64 *fid_slot(struct conn *c, u32 fid, int create)
{
	int i, free_slot = -1;

	for (i = 0; i < fid_limit; i++) {
		if (c->fids[i].qpath && c->fids[i].fid == fid)
			return &c->fids[i].qpath;
		if (!c->fids[i].qpath && free_slot < 0)
			free_slot = i;
	}
	if (!create || free_slot < 0)
		return NULL;
	c->fids[free_slot].fid = fid;
	c->fids[free_slot].opened = 0;
	return &c->fids[free_slot].qpath;
}

/* The slot of the fid whose qpath @q points at. */
static int fid_index(struct conn *c, const u64 *q)
{
	int i;

	for (i = 0; i < MAX_FIDS; i++)
		if (&c->fids[i].qpath == q)
			return i;
	return 0;
}

static struct v9p_qid make_qid(u64 qpath)
{
	struct v9p_qid q = {
		.type = qpath == QPATH_ROOT ? V9P_QTDIR :
			qpath == QPATH_LINK ? V9P_QTSYMLINK : V9P_QTFILE,
		.version = 0,
		.path = qpath,
	};
	return q;
}

static void make_stat(u64 qpath, struct v9p_stat *st)
{
	memset(st, 0, sizeof(*st));
	st->qid = make_qid(qpath);
	st->mode = qpath == QPATH_ROOT ? (V9P_DMDIR | 0755) : 0644;
	st->atime = st->mtime = 1000000000;
	st->length = qpath == QPATH_ROOT ? 0 : data_length;
	v9p_str_set(&st->name, qpath == QPATH_ROOT ? "/" : file_name[qpath]);
	v9p_str_set(&st->uid, "root");
	v9p_str_set(&st->gid, "root");
	v9p_str_set(&st->muid, "root");
	v9p_str_set(&st->extension, "");
	st->n_uid = st->n_gid = st->n_muid = 0;
}

/* "hostile\n" over and over; once the pair-* modes changed it, "genNNNN\n" */
static u8 data_byte(u64 off)
{
	static char pattern[16] = "hostile\n";
	static unsigned int pattern_gen;

	if (pattern_gen != data_gen) {
		snprintf(pattern, sizeof(pattern), "gen%04u\n", data_gen % 10000);
		pattern_gen = data_gen;
	}
	return pattern[off % 8];
}

/* Send f; returns 0, or -1 when the connection is gone. */
static int send_fcall(struct conn *c, struct v9p_fcall *f)
{
	int n = v9p_pack(f, c->d, c->out, c->msize);

	if (n < 0) {
		logmsg("cannot pack %s: error %d", v9p_type_name(f->type), n);
		return -1;
	}
	return write_full(c->wfd, c->out, n);
}

static int send_error(struct conn *c, u16 tag, int err)
{
	struct v9p_fcall r = { .tag = tag };

	if (c->d == V9P_9P2000L) {
		r.type = V9P_RLERROR;
		r.rlerror.ecode = err;
	} else {
		r.type = V9P_RERROR;
		v9p_str_set(&r.rerror.ename, strerror(err));
		r.rerror.errcode = err;
	}
	return send_fcall(c, &r);
}

/* Fills an Rread-shaped reply for a read of the data file into c->out. */
static int pack_rread(struct conn *c, u16 tag, u64 off, u32 count, u32 claim)
{
	struct v9p_fcall r = { .type = V9P_RREAD, .tag = tag };
	int h;
	u32 i;

	r.rread.count = claim;
	h = v9p_pack_io_hdr(&r, c->out, c->msize + 8192);
	if (h < 0)
		return h;
	for (i = 0; i < claim; i++)
		c->out[h + i] = off + i < DATA_SIZE ? data_byte(off + i) : 0;
	(void)count;
	return h + claim;
}

/*
 * The trigger: the reply that breaks the rules.  Returns 0 to keep serving,
 * 1 to stop answering (stall), -1 to close the connection.
 */
static int misbehave(struct conn *c, struct v9p_fcall *t)
{
	u32 count = t->type == V9P_TREAD ? t->tread.count :
		    t->type == V9P_TWRITE ? t->twrite.count : 0;
	u64 off = t->type == V9P_TREAD ? t->tread.offset :
		  t->type == V9P_TWRITE ? t->twrite.offset : 0;
	struct v9p_fcall r = { .tag = t->tag };
	u8 raw[16];
	int n;

	if (count > DATA_SIZE)
		count = DATA_SIZE;
	logmsg("trigger %s tag %u count %u: mode %s", v9p_type_name(t->type), t->tag, count,
	       mode_names[mode]);
	switch (mode) {
	case M_NONE:
	case M_NOVERSION:
	case M_ECHOMSIZE:
	case M_STREAM:
	case M_FAILWRITE:
	case M_RENAMEFAIL:
	default:
		return 0;	/* unreachable: never a trigger */
	case M_RERROR:
		if (c->d == V9P_9P2000L) {
			r.type = V9P_RLERROR;
			r.rlerror.ecode = rerror_code;
			return send_fcall(c, &r) ? -1 : 0;
		}
		r.type = V9P_RERROR;
		v9p_str_set(&r.rerror.ename, rerror_name);
		r.rerror.errcode = rerror_code;
		return send_fcall(c, &r) ? -1 : 0;
	case M_MALFORMED:
		/* size[4] says 9: the header and two bytes of a four-byte count */
		raw[0] = 9; raw[1] = 0; raw[2] = 0; raw[3] = 0;
		raw[4] = t->type + 1;
		raw[5] = t->tag & 0xff; raw[6] = t->tag >> 8;
		raw[7] = 0x10; raw[8] = 0;
		return write_full(c->wfd, raw, 9) ? -1 : 0;
	case M_OVERSIZED:
		raw[0] = 0xff; raw[1] = 0xff; raw[2] = 0xff; raw[3] = 0x7f;
		raw[4] = t->type + 1;
		raw[5] = t->tag & 0xff; raw[6] = t->tag >> 8;
		memset(raw + 7, 'A', 9);
		return write_full(c->wfd, raw, 16) ? -1 : 1;
	case M_BADTAG:
		/* a plausible reply, under a tag nobody asked with */
		if (t->type == V9P_TREAD) {
			n = pack_rread(c, t->tag ^ 0x5a5a, off, count, count);
			if (n < 0)
				return -1;
			return write_full(c->wfd, c->out, n) ? -1 : 1;
		}
		r.type = V9P_RWRITE;
		r.tag = t->tag ^ 0x5a5a;
		r.rwrite.count = count;
		return send_fcall(c, &r) ? -1 : 1;
	case M_BADTYPE:
		r.type = V9P_RCLUNK;
		return send_fcall(c, &r) ? -1 : 1;
	case M_BIGCOUNT:
		if (t->type == V9P_TREAD) {
			/* more than asked, yet within msize when the request left room */
			u32 claim = c->msize - V9P_RREAD_HDRSZ;

			if (claim <= count)
				claim = count + 1;
			n = pack_rread(c, t->tag, off, count, claim);
			if (n < 0)
				return -1;
			return write_full(c->wfd, c->out, n) ? -1 : 1;
		}
		r.type = V9P_RWRITE;
		r.rwrite.count = count + 4096;
		return send_fcall(c, &r) ? -1 : 1;
	case M_STALL:
		return 1;
	case M_CLOSE:
		if (t->type == V9P_TREAD)
			n = pack_rread(c, t->tag, off, count, count);
		else {
			r.type = V9P_RWRITE;
			r.rwrite.count = count;
			n = v9p_pack(&r, c->d, c->out, c->msize);
		}
		if (n > 0)
			write_full(c->wfd, c->out, n / 2 > 0 ? n / 2 : 1);
		return -1;
	}
	return -1;
}

static int handle_version(struct conn *c, struct v9p_fcall *t)
{
	struct v9p_fcall r = { .type = V9P_RVERSION, .tag = t->tag };
	int d = v9p_dialect_parse(&t->tversion.version);

	c->msize = t->tversion.msize < max_msize ? t->tversion.msize : max_msize;
	if (c->msize < 4096)
		c->msize = 4096;
	r.rversion.msize = c->msize;
	if (mode == M_ECHOMSIZE) {
		/* promise anything; replies still fit the server's buffers */
		r.rversion.msize = t->tversion.msize;
		logmsg("Tversion msize %u: echoed", t->tversion.msize);
	}
	if (d < 0) {
		v9p_str_set(&r.rversion.version, V9P_VERSION_UNKNOWN);
		c->d = V9P_9P2000;
	} else {
		c->d = d;
		v9p_str_set(&r.rversion.version, v9p_dialect_name(d));
	}
	memset(c->fids, 0, sizeof(c->fids));
	c->triggered = 0;
	return send_fcall(c, &r);
}

/* The qpath of the root's file called @w, 0 if none. */
static int file_named(const struct v9p_str *w)
{
	int i;

	for (i = QPATH_DATA; i < NFILES; i++)
		if (file_exists[i] && v9p_str_eq(w, file_name[i]))
			return i;
	return 0;
}

/* Twstat: only a change of name does anything. */
static int handle_wstat(struct conn *c, struct v9p_fcall *t, u64 q)
{
	const struct v9p_str *name = &t->twstat.stat.name;
	struct v9p_fcall r = { .type = V9P_RWSTAT, .tag = t->tag };
	int other;

	if (name->len && q != QPATH_ROOT) {
		other = file_named(name);
		if (other && other != (int)q) {
			logmsg("rename of %s onto existing %.*s: EEXIST", file_name[q],
			       (int)name->len, name->s);
			return send_error(c, t->tag, EEXIST);
		}
		if (mode == M_RENAMEFAIL && q == QPATH_SRC && v9p_str_eq(name, "data")) {
			logmsg("rename of src to data: refused");
			return send_error(c, t->tag, EACCES);
		}
		if (name->len >= sizeof(file_name[q]))
			return send_error(c, t->tag, ENAMETOOLONG);
		logmsg("rename %s -> %.*s", file_name[q], (int)name->len, name->s);
		memcpy(file_name[q], name->s, name->len);
		file_name[q][name->len] = '\0';
	}
	return send_fcall(c, &r);
}

#define MAX_MADE	8
/* mkdir-parentqid: the names made, and the qpath each stands for (0: free) */
static char made_name[MAX_MADE][64];
static u64 made_qpath[MAX_MADE];

/* The slot of the made name @w, -1 if none. */
static int made_named(const struct v9p_str *w)
{
	int i;

	for (i = 0; i < MAX_MADE; i++)
		if (made_qpath[i] && v9p_str_eq(w, made_name[i]))
			return i;
	return -1;
}

/*
 * Twalk from the root to a file, "..", or (mkdir-parentqid) a made name,
 * which stands for the directory it was made in.
 */
static int handle_walk(struct conn *c, struct v9p_fcall *t)
{
	struct v9p_fcall r = { .type = V9P_RWALK, .tag = t->tag };
	u64 *from = fid_slot(c, t->twalk.fid, 0), *to, q;
	int i, f, k;

	if (!from)
		return send_error(c, t->tag, EBADF);
	q = *from;
	for (i = 0; i < t->twalk.nwname; i++) {
		const struct v9p_str *w = &t->twalk.wname[i];

		f = q == QPATH_ROOT ? file_named(w) : 0;
		k = q == QPATH_ROOT ? made_named(w) : -1;
		if (f)
			q = f;
		else if (k >= 0)
			q = made_qpath[k];
		else if (q == QPATH_ROOT && v9p_str_eq(w, ".."))
			q = QPATH_ROOT;
		else
			break;
		r.rwalk.wqid[i] = make_qid(q);
	}
	if (i < t->twalk.nwname && i == 0)
		return send_error(c, t->tag, ENOENT);
	r.rwalk.nwqid = i;
	if (i == t->twalk.nwname) {
		to = fid_slot(c, t->twalk.newfid, 1);
		if (!to)
			return send_error(c, t->tag, EMFILE);
		*to = q;
	}
	return send_fcall(c, &r);
}

/* Sets the size[4] of the message in c->out to @len. */
static void set_size(struct conn *c, u32 len)
{
	c->out[0] = len;
	c->out[1] = len >> 8;
	c->out[2] = len >> 16;
	c->out[3] = len >> 24;
}

/* One Rreaddir entry named @name with cookie @off into @buf; its length or -1. */
static int put_dirent(u8 *buf, u32 size, u64 qpath, u64 off, const char *name)
{
	struct v9p_dirent de = { .qid = make_qid(qpath), .offset = off, .type = 8 };

	v9p_str_set(&de.name, name);
	return v9p_dirent_pack(&de, buf, size);
}

/*
 * Treaddir of the root: "data" (cookie 1) at offset 0, then the end; or what
 * a readdir-* mode says instead.
 */
static int lreaddir(struct conn *c, struct v9p_fcall *t)
{
	struct v9p_fcall r = { .type = V9P_RREADDIR, .tag = t->tag };
	u64 off = t->treaddir.offset;
	u8 ent[1024];
	u32 claim;
	int n = 0, k, h;

	switch (mode) {
	case M_READDIR_STUCK:
		/* the cookie is the offset asked for: the next Treaddir asks again */
		n = put_dirent(ent, sizeof(ent), QPATH_DATA, off, "data");
		break;
	case M_READDIR_NAME:
		if (off == 0)
			n = put_dirent(ent, sizeof(ent), QPATH_DATA, 1, "data");
		if (off <= 1 && n >= 0) {
			k = put_dirent(ent + n, sizeof(ent) - n, QPATH_SRC, 2, bad_name);
			n = k < 0 ? k : n + k;
		}
		break;
	case M_READDIR_CYCLE:
		n = put_dirent(ent, sizeof(ent), QPATH_SRC, off == 5 ? 6 : 5, "a/b");
		if (c->triggered++ == 0)
			logmsg("Treaddir offset %llu: cookies 0 -> 5 -> 6 -> 5 (%s)",
			       (unsigned long long)off, mode_names[mode]);
		break;
	case M_READDIR_OVERRUN:
		if (off == 0) {
			n = put_dirent(ent, sizeof(ent), QPATH_DATA, 1, "data");
			/* name[s]: len 200, but only the 4 bytes of "data" follow */
			if (n > 0) {
				ent[n - 6] = 200;
				ent[n - 5] = 0;
			}
		}
		break;
	default:
		if (off == 0)
			n = put_dirent(ent, sizeof(ent), QPATH_DATA, 1, "data");
		break;
	}
	if (n < 0 || (u32)n > t->treaddir.count)
		return send_error(c, t->tag, EINVAL);
	claim = n;
	if (mode == M_READDIR_COUNT && n > 0)
		claim = n + 1000;
	r.rreaddir.count = claim;
	h = v9p_pack_io_hdr(&r, c->out, c->msize + 8192);
	if (h < 0)
		return -1;
	memcpy(c->out + h, ent, n);
	set_size(c, h + n);
	if (mode >= M_READDIR_COUNT && mode <= M_READDIR_STUCK)
		logmsg("Treaddir offset %llu count %u: %d bytes, count says %u (%s)",
		       (unsigned long long)off, t->treaddir.count, n, claim, mode_names[mode]);
	return write_full(c->wfd, c->out, h + n);
}

/* Rgetattr of @q; the getattr-* modes break the one of "data". */
static int lgetattr(struct conn *c, struct v9p_fcall *t, u64 q)
{
	struct v9p_fcall r = { .type = V9P_RGETATTR, .tag = t->tag };
	int n;

	r.rgetattr.valid = V9P_GETATTR_BASIC;
	r.rgetattr.qid = make_qid(q);
	r.rgetattr.mode = q == QPATH_ROOT ? (040000 | 0755) :
			  q == QPATH_LINK ? (0120000 | 0777) :
			  q == QPATH_NEW ? (0100000 | 0600) : (0100000 | 0644);
	r.rgetattr.nlink = q == QPATH_ROOT ? 2 : 1;
	r.rgetattr.size = q == QPATH_ROOT ? 0 : q == QPATH_LINK ? LONG_LINK :
			  q == QPATH_NEW ? NEW_SIZE : data_length;
	if (q < NFILES && truncated[q])
		r.rgetattr.size = 0;
	r.rgetattr.blksize = 4096;
	r.rgetattr.blocks = r.rgetattr.size / 512;
	r.rgetattr.atime_sec = r.rgetattr.mtime_sec = r.rgetattr.ctime_sec = 1000000000;
	if (q == QPATH_DATA)
		r.rgetattr.mtime_sec = r.rgetattr.ctime_sec += data_gen;
	if (q == QPATH_DATA && mode == M_GETATTR_NOMODE)
		r.rgetattr.mode = 0644;
	if (q == QPATH_DATA && mode == M_GETATTR_LIES)
		r.rgetattr.valid = V9P_GETATTR_ALL;
	n = v9p_pack(&r, c->d, c->out, c->msize);
	if (n < 0)
		return -1;
	if (q == QPATH_DATA && (mode == M_GETATTR_SHORT || mode == M_GETATTR_LIES)) {
		/* header 7, valid 8, qid 13; then mode..ctime 100 more */
		n = mode == M_GETATTR_SHORT ? 7 + 8 + 13 : 7 + 8 + 13 + 100;
		set_size(c, n);
		logmsg("Rgetattr of data cut to %d bytes (%s)", n, mode_names[mode]);
	} else if (q == QPATH_DATA && mode == M_GETATTR_NOMODE) {
		logmsg("Rgetattr of data: mode 0644, no file type");
	}
	return write_full(c->wfd, c->out, n);
}

#define SPLIT_ENTRIES	300

/* dirread-split: the stat of the root's entry @i, packed into @buf. */
static int split_stat(struct conn *c, int i, u8 *buf, u32 size)
{
	struct v9p_stat st;
	char name[16];

	make_stat(QPATH_DATA, &st);
	snprintf(name, sizeof(name), "f%04d", i);
	v9p_str_set(&st.name, name);
	st.qid.path = 1000 + i;
	return v9p_stat_pack(&st, c->d, buf, size);
}

/* dirread-split: a Tread of the root (every entry has one size). */
static int split_dirread(struct conn *c, struct v9p_fcall *t)
{
	struct v9p_fcall r = { .type = V9P_RREAD, .tag = t->tag };
	u64 off = t->tread.offset;
	u8 ent[2048];
	int esize, i, k, m, n = 0, h;

	esize = split_stat(c, 0, ent, sizeof(ent));
	if (esize <= 0)
		return -1;
	if (off % esize) {
		logmsg("Tread of the root at %llu: inside an entry of %d bytes",
		       (unsigned long long)off, esize);
		return send_error(c, t->tag, EINVAL);
	}
	i = off / esize;
	for (k = 0; k <= i % 7 && i + k < SPLIT_ENTRIES; k++) {
		m = split_stat(c, i + k, ent + n, sizeof(ent) - n);
		if (m < 0 || (u32)(n + m) > t->tread.count)
			break;
		n += m;
	}
	if (!n && i < SPLIT_ENTRIES)
		return send_error(c, t->tag, EINVAL);	/* count below one entry */
	r.rread.count = n;
	h = v9p_pack_io_hdr(&r, c->out, c->msize);
	if (h < 0)
		return -1;
	memcpy(c->out + h, ent, n);
	return write_full(c->wfd, c->out, h + n);
}

/* A directory read: every file of the root at offset 0, then the end. */
static int handle_dirread(struct conn *c, struct v9p_fcall *t)
{
	struct v9p_fcall r = { .tag = t->tag };
	struct v9p_stat st;
	u8 ent[1024];
	int n = 0, h, i, k;

	if (t->type == V9P_TREADDIR)
		return lreaddir(c, t);
	if (mode == M_DIRREAD_SPLIT)
		return split_dirread(c, t);
	for (i = QPATH_DATA; i < NFILES && t->tread.offset == 0; i++) {
		if (!file_exists[i])
			continue;
		make_stat(i, &st);
		k = v9p_stat_pack(&st, c->d, ent + n, sizeof(ent) - n);
		if (k < 0)
			return -1;
		n += k;
	}
	if (n > 0 && (u32)n > t->tread.count)
		return send_error(c, t->tag, EINVAL);
	r.type = V9P_RREAD;
	r.rread.count = n;
	h = v9p_pack_io_hdr(&r, c->out, c->msize);
	if (h < 0)
		return -1;
	memcpy(c->out + h, ent, n);
	return write_full(c->wfd, c->out, h + n);
}

/* The bytes an xattr fid holds: the list or a value, as the mode has it. */
static u64 xattr_content(int list, const char **data)
{
	static const char nonul[] = "user.a\0user.b";

	if (mode == M_XATTR_HUGE) {
		*data = NULL;
		return 1ULL << 40;
	}
	if (list && mode == M_XATTR_NONUL) {
		*data = nonul;
		return sizeof(nonul) - 1;	/* without the final NUL */
	}
	if (list) {
		*data = "user.h";
		return sizeof("user.h");
	}
	if (mode == M_XATTR_BIG) {
		*data = NULL;
		return XATTR_BIG;
	}
	*data = XATTR_VALUE;
	return strlen(XATTR_VALUE);
}

static int handle_xattrwalk(struct conn *c, struct v9p_fcall *t)
{
	struct v9p_fcall r = { .type = V9P_RXATTRWALK, .tag = t->tag };
	u64 *from = fid_slot(c, t->txattrwalk.fid, 0), *to;
	int list = t->txattrwalk.name.len == 0;
	const char *data;

	if (mode < M_XATTR_HUGE || mode > M_XATTR_NONUL)
		return send_error(c, t->tag, EOPNOTSUPP);
	if (!from)
		return send_error(c, t->tag, EBADF);
	to = fid_slot(c, t->txattrwalk.newfid, 1);
	if (!to)
		return send_error(c, t->tag, EMFILE);
	*to = list ? QPATH_XLIST : QPATH_XVALUE;
	r.rxattrwalk.size = xattr_content(list, &data);
	logmsg("Rxattrwalk of '%.*s': %llu bytes (%s)", (int)t->txattrwalk.name.len,
	       t->txattrwalk.name.s, (unsigned long long)r.rxattrwalk.size, mode_names[mode]);
	return send_fcall(c, &r);
}

/* A Tread of an xattr fid; xattr-bigread sends 100 bytes more than asked. */
static int xattr_read(struct conn *c, struct v9p_fcall *t, u64 q)
{
	struct v9p_fcall r = { .type = V9P_RREAD, .tag = t->tag };
	u64 off = t->tread.offset, len;
	u32 n = t->tread.count, i;
	const char *data;
	int h;

	len = xattr_content(q == QPATH_XLIST, &data);
	if (n > c->msize - V9P_RREAD_HDRSZ - 100)
		n = c->msize - V9P_RREAD_HDRSZ - 100;
	if (off >= len)
		n = 0;
	else if (n > len - off)
		n = len - off;
	if (mode == M_XATTR_BIGREAD) {
		logmsg("Rread of an xattr fid: %u bytes for %u asked", n + 100, t->tread.count);
		n += 100;
	}
	r.rread.count = n;
	h = v9p_pack_io_hdr(&r, c->out, c->msize + 8192);
	if (h < 0)
		return -1;
	for (i = 0; i < n; i++)
		c->out[h + i] = data && off + i < len ? data[off + i] :
				mode == M_XATTR_HUGE ? 0 : 'x';
	return write_full(c->wfd, c->out, h + n);
}

/* Tlock and Tgetlock in the lock modes: what the mode says. */
static int handle_lock(struct conn *c, struct v9p_fcall *t)
{
	struct v9p_fcall r = { .tag = t->tag };

	if (mode < M_LOCK_STATUS || mode > M_GETLOCK_TYPE)
		return send_error(c, t->tag, EOPNOTSUPP);
	if (t->type == V9P_TLOCK) {
		r.type = V9P_RLOCK;
		r.rlock.status = mode == M_LOCK_STATUS ? 7 : V9P_LOCK_SUCCESS;
		if (mode == M_LOCK_STATUS)
			logmsg("Rlock with status 7");
		return send_fcall(c, &r);
	}
	r.type = V9P_RGETLOCK;
	r.rgetlock.type = V9P_LOCK_TYPE_UNLCK;
	r.rgetlock.start = t->tgetlock.start;
	r.rgetlock.length = t->tgetlock.length;
	r.rgetlock.proc_id = t->tgetlock.proc_id;
	if (mode == M_GETLOCK_RANGE) {
		r.rgetlock.type = V9P_LOCK_TYPE_WRLCK;
		r.rgetlock.start = (1ULL << 63) - 10;
		r.rgetlock.length = 100;
	} else if (mode == M_GETLOCK_TYPE) {
		r.rgetlock.type = 9;
		r.rgetlock.start = 0;
		r.rgetlock.length = 0;
	}
	v9p_str_set(&r.rgetlock.client_id, "hostile");
	if (mode != M_LOCK_STATUS)
		logmsg("Rgetlock type %u start %llu length %llu", r.rgetlock.type,
		       (unsigned long long)r.rgetlock.start,
		       (unsigned long long)r.rgetlock.length);
	return send_fcall(c, &r);
}

/* Answers one request the honest way; returns 0, or -1 to close. */
static int serve_one(struct conn *c, struct v9p_fcall *t)
{
	struct v9p_fcall r = { .tag = t->tag };
	u64 *q = NULL;

	switch (t->type) {
	case V9P_TATTACH:
		q = fid_slot(c, t->tattach.fid, 1);
		if (!q)
			return send_error(c, t->tag, EMFILE);
		*q = QPATH_ROOT;
		r.type = V9P_RATTACH;
		r.rattach.qid = make_qid(QPATH_ROOT);
		return send_fcall(c, &r);
	case V9P_TAUTH:
		return send_error(c, t->tag, EOPNOTSUPP);
	case V9P_TFLUSH:
		r.type = V9P_RFLUSH;
		return send_fcall(c, &r);
	case V9P_TWALK:
		return handle_walk(c, t);
	case V9P_TCLUNK:
		q = fid_slot(c, t->tclunk.fid, 0);
		if (q && pair_mode(mode) && *q == QPATH_DATA &&
		    c->fids[fid_index(c, q)].opened) {
			data_gen++;
			logmsg("data changed (%u) after the close of an opened fid", data_gen);
		}
		if (q)
			*q = 0;
		r.type = V9P_RCLUNK;
		return send_fcall(c, &r);
	case V9P_TOPEN:
	case V9P_TLOPEN:
		q = fid_slot(c, t->type == V9P_TOPEN ? t->topen.fid : t->tlopen.fid, 0);
		if (!q)
			return send_error(c, t->tag, EBADF);
		r.type = t->type + 1;
		c->fids[fid_index(c, q)].opened = 1;
		if (t->type == V9P_TLOPEN && (t->tlopen.flags & V9P_DOTL_TRUNC) &&
		    *q < NFILES && *q != QPATH_ROOT) {
			truncated[*q] = 1;
			logmsg("Tlopen of fid %u with O_TRUNC: qid path %llu truncated",
			       t->tlopen.fid, (unsigned long long)*q);
		}
		if (t->type == V9P_TLOPEN) {
			r.rlopen.qid = make_qid(*q);
			if (mode == M_IOUNIT) {
				r.rlopen.iounit = 0xffffffffU;
				logmsg("Rlopen with iounit %u (msize %u)", r.rlopen.iounit,
				       c->msize);
			}
		} else
			r.ropen.qid = make_qid(*q);
		return send_fcall(c, &r);
	case V9P_TSTAT:
		q = fid_slot(c, t->tstat.fid, 0);
		if (!q)
			return send_error(c, t->tag, EBADF);
		r.type = V9P_RSTAT;
		make_stat(*q, &r.rstat.stat);
		return send_fcall(c, &r);
	case V9P_TGETATTR:
		q = fid_slot(c, t->tgetattr.fid, 0);
		if (!q)
			return send_error(c, t->tag, EBADF);
		return lgetattr(c, t, *q);
	case V9P_TREADLINK:
		q = fid_slot(c, t->treadlink.fid, 0);
		if (!q)
			return send_error(c, t->tag, EBADF);
		if (*q != QPATH_LINK)
			return send_error(c, t->tag, EINVAL);
		{
			static char target[LONG_LINK + 1];
			int i;

			/* "d/d/d/...": short components, too long a path */
			for (i = 0; i < LONG_LINK; i++)
				target[i] = i % 2 ? '/' : 'd';
			target[LONG_LINK] = '\0';
			r.type = V9P_RREADLINK;
			v9p_str_set(&r.rreadlink.target, target);
			logmsg("Rreadlink of %d bytes", LONG_LINK);
			return send_fcall(c, &r);
		}
	case V9P_TWSTAT:
		q = fid_slot(c, t->twstat.fid, 0);
		if (!q)
			return send_error(c, t->tag, EBADF);
		return handle_wstat(c, t, *q);
	case V9P_TREMOVE:
		q = fid_slot(c, t->tremove.fid, 0);
		if (!q)
			return send_error(c, t->tag, EBADF);
		if (*q == QPATH_ROOT) {
			*q = 0;
			return send_error(c, t->tag, EBUSY);
		}
		logmsg("remove %s", file_name[*q]);
		file_exists[*q] = 0;
		*q = 0;		/* Tremove clunks, even when it fails */
		r.type = V9P_RREMOVE;
		return send_fcall(c, &r);
	case V9P_TSETATTR:
		r.type = V9P_RSETATTR;
		return send_fcall(c, &r);
	case V9P_TFSYNC:
		r.type = V9P_RFSYNC;
		return send_fcall(c, &r);
	case V9P_TSTATFS:
		r.type = V9P_RSTATFS;
		r.rstatfs.type = 0x01021997;
		r.rstatfs.bsize = mode == M_STATFS_BSIZE0 ? 0 : 4096;
		r.rstatfs.blocks = 1 << 20;
		r.rstatfs.bfree = r.rstatfs.bavail = 1 << 19;
		r.rstatfs.files = 1 << 16;
		r.rstatfs.ffree = 1 << 15;
		r.rstatfs.namelen = 255;
		if (mode == M_STATFS_BSIZE0)
			logmsg("Rstatfs with bsize 0");
		return send_fcall(c, &r);
	case V9P_TREADDIR:
		return handle_dirread(c, t);
	case V9P_TREAD:
		q = fid_slot(c, t->tread.fid, 0);
		if (!q)
			return send_error(c, t->tag, EBADF);
		if (*q == QPATH_ROOT)
			return handle_dirread(c, t);
		if (*q == QPATH_XVALUE || *q == QPATH_XLIST)
			return xattr_read(c, t, *q);
		{
			u64 off = t->tread.offset;
			u64 size = *q == QPATH_NEW ? NEW_SIZE : DATA_SIZE;
			u32 n = t->tread.count, i;
			int len;

			if (n > c->msize - V9P_RREAD_HDRSZ)
				n = c->msize - V9P_RREAD_HDRSZ;
			if (off >= size)
				n = 0;
			else if (n > size - off)
				n = size - off;
			if (*q < NFILES && truncated[*q])
				n = 0;
			len = pack_rread(c, t->tag, off, n, n);
			if (len < 0)
				return -1;
			/* the file that replaced "data" has bytes of its own */
			for (i = 0; *q == QPATH_NEW && i < n; i++)
				c->out[len - n + i] = "another\n"[(off + i) % 8];
			return write_full(c->wfd, c->out, len);
		}
	case V9P_TWRITE:
		r.type = V9P_RWRITE;
		r.rwrite.count = t->twrite.count;
		return send_fcall(c, &r);
	case V9P_TXATTRWALK:
		return handle_xattrwalk(c, t);
	case V9P_TLOCK:
	case V9P_TGETLOCK:
		return handle_lock(c, t);
	default:
		return send_error(c, t->tag, EOPNOTSUPP);
	}
}

/* Answer the held-back stream reads, newest first; -1 when the link is gone. */
static int stream_flush(struct conn *c)
{
	struct v9p_fcall r = { .type = V9P_RREAD };
	int h;

	while (c->queued) {
		u32 n = c->queue[--c->queued].count, i;

		if (n > c->msize - V9P_RREAD_HDRSZ)
			n = c->msize - V9P_RREAD_HDRSZ;
		if (n > STREAM_SIZE - c->streamed)
			n = STREAM_SIZE - c->streamed;
		r.tag = c->queue[c->queued].tag;
		r.rread.count = n;
		h = v9p_pack_io_hdr(&r, c->out, c->msize + 8192);
		if (h < 0)
			return -1;
		for (i = 0; i < n; i++)
			c->out[h + i] = (c->streamed + i) % 251;
		c->streamed += n;
		if (write_full(c->wfd, c->out, h + n))
			return -1;
	}
	return 0;
}

/* Is @fid the open "data" file? */
static int is_data(struct conn *c, u32 fid)
{
	u64 *q = fid_slot(c, fid, 0);

	return q && *q == QPATH_DATA;
}

/* failwrite: every Twrite of "data" but the 2nd lands. */
static int fail_write(struct conn *c, struct v9p_fcall *t)
{
	struct v9p_fcall r = { .type = V9P_RWRITE, .tag = t->tag };
	u64 end = t->twrite.offset + t->twrite.count;

	if (++c->nwrites == 2) {
		logmsg("Twrite %d at %llu (%u bytes): failed on purpose", c->nwrites,
		       (unsigned long long)t->twrite.offset, t->twrite.count);
		return send_error(c, t->tag, EIO);
	}
	if (end > c->held)
		c->held = end;
	logmsg("Twrite %d at %llu (%u bytes): landed; file holds %llu bytes", c->nwrites,
	       (unsigned long long)t->twrite.offset, t->twrite.count,
	       (unsigned long long)c->held);
	r.rwrite.count = t->twrite.count;
	return send_fcall(c, &r);
}

static int is_trigger(struct conn *c, struct v9p_fcall *t)
{
	u64 *q;
	int i;

	/* the modes from malformed to rerror act on a trigger; the others never */
	if (mode < M_MALFORMED || mode > M_RERROR)
		return 0;
	if (t->type != trigger_type && !(trigger_type == V9P_TOPEN && t->type == V9P_TLOPEN))
		return 0;
	if (c->triggered && mode != M_RERROR)
		return 0;
	switch (t->type) {
	case V9P_TWALK:
		for (i = 0; i < t->twalk.nwname; i++)
			if (v9p_str_eq(&t->twalk.wname[i], "data"))
				return 1;
		return 0;
	case V9P_TOPEN:
		q = fid_slot(c, t->topen.fid, 0);
		break;
	case V9P_TLOPEN:
		q = fid_slot(c, t->tlopen.fid, 0);
		break;
	case V9P_TGETATTR:
		q = fid_slot(c, t->tgetattr.fid, 0);
		break;
	case V9P_TREAD:
		q = fid_slot(c, t->tread.fid, 0);
		break;
	default:
		q = fid_slot(c, t->twrite.fid, 0);
		break;
	}
	return q && *q == QPATH_DATA;
}

/* ---- the pair-* modes ---- */

/* pair-* modes: "fids N open M" after a request that makes or ends a fid */
static void log_fids(struct conn *c)
{
	int i, n = 0, open = 0;

	for (i = 0; i < MAX_FIDS; i++) {
		if (!c->fids[i].qpath)
			continue;
		n++;
		open += c->fids[i].opened;
	}
	logmsg("fids %d open %d", n, open);
}

/* One request, the honest way (Tversion included); -1 to close. */
static int serve_msg(struct conn *c, struct v9p_fcall *t)
{
	int ret;

	if (t->type == V9P_TVERSION)
		return handle_version(c, t);
	if (t->type == V9P_TFLUSH)
		logmsg("Tflush of tag %u (tag %u)", t->tflush.oldtag, t->tag);
	ret = serve_one(c, t);
	switch (t->type) {
	case V9P_TATTACH:
	case V9P_TWALK:
	case V9P_TCLUNK:
	case V9P_TREMOVE:
	case V9P_TLOPEN:
		log_fids(c);
		break;
	default:
		break;
	}
	return ret;
}

/*
 * Reads one request into @buf and decodes it into @t: 0, or -1 when the
 * connection is gone. One that does not decode is answered EPROTO and the
 * next is read.
 */
static int read_msg(struct conn *c, u8 *buf, struct v9p_fcall *t)
{
	struct v9p_hdr h;
	int ret;

	for (;;) {
		if (read_full(c->rfd, buf, V9P_HDRSZ))
			return -1;
		ret = v9p_peek_hdr(buf, V9P_HDRSZ, c->msize, &h);
		if (ret < 0) {
			logmsg("bad request header (%d), closing", ret);
			return -1;
		}
		if (read_full(c->rfd, buf + V9P_HDRSZ, h.size - V9P_HDRSZ))
			return -1;
		if (h.type == V9P_TVERSION)
			c->d = V9P_9P2000U;	/* one layout in every dialect */
		ret = v9p_unpack(buf, h.size, c->d, c->msize, t);
		if (!ret)
			return 0;
		logmsg("cannot decode %s (%d)", v9p_type_name(h.type), ret);
		if (send_error(c, h.tag, EPROTO))
			return -1;
	}
}

/* Whether another request is there to read within @ms. */
static int readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) > 0;
}

static int on_data(struct conn *c, u32 fid)
{
	u64 *q = fid_slot(c, fid, 0);

	return q && (*q == QPATH_DATA || *q == QPATH_NEW);
}

/* A member of a pair: a Twalk to "data", a Tgetattr or Tlopen of it. */
static int pair_member(struct conn *c, const struct v9p_fcall *t)
{
	switch (t->type) {
	case V9P_TWALK:
		return t->twalk.nwname == 1 && v9p_str_eq(&t->twalk.wname[0], "data");
	case V9P_TGETATTR:
		return on_data(c, t->tgetattr.fid);
	case V9P_TLOPEN:
		return on_data(c, t->tlopen.fid);
	default:
		return 0;
	}
}

enum { PAIR_NONE, PAIR_WALK, PAIR_OPEN, PAIR_TRIPLE, PAIR_LONE };
static const char *const group_names[] = {
	[PAIR_WALK] = "walk", [PAIR_OPEN] = "open", [PAIR_TRIPLE] = "triple",
	[PAIR_LONE] = "lone walk",
};

/* Whether @a then @b is a pair, and which. */
static int pair_of(struct conn *c, const struct v9p_fcall *a, const struct v9p_fcall *b)
{
	if (b->type != V9P_TGETATTR || !pair_member(c, a) || !pair_member(c, b))
		return PAIR_NONE;
	if (a->type == V9P_TWALK)
		return PAIR_WALK;
	if (a->type == V9P_TLOPEN && a->tlopen.fid == b->tgetattr.fid)
		return PAIR_OPEN;
	return PAIR_NONE;
}

/* Whether @m[0], @m[1] begin a triple: a Twalk to "data", a Tlopen of it. */
static int triple_begins(struct conn *c, const struct v9p_fcall *m)
{
	return m[0].type == V9P_TWALK && m[1].type == V9P_TLOPEN && pair_member(c, &m[0]) &&
	       pair_member(c, &m[1]);
}

/* The group the first of the @n requests @m begin, and its length (*@len). */
static int group_of(struct conn *c, const struct v9p_fcall *m, int n, int *len)
{
	if (n == 3 && triple_begins(c, m) && m[2].type == V9P_TGETATTR &&
	    m[2].tgetattr.fid == m[1].tlopen.fid) {
		*len = 3;
		return PAIR_TRIPLE;
	}
	*len = 2;
	return pair_of(c, &m[0], &m[1]);
}

/* The member of a group the -t of pair-fail and pair-silent names, if any. */
static struct v9p_fcall *group_victim(struct v9p_fcall *m, int n)
{
	int type = trigger_type == V9P_TWALK ? V9P_TWALK :
		   trigger_type == V9P_TOPEN ? V9P_TLOPEN : V9P_TGETATTR;
	int i;

	for (i = 0; i < n; i++)
		if (m[i].type == type)
			return &m[i];
	return NULL;
}

/* Serve the @n requests @m, but (@skip) one of them; -1 to close. */
static int serve_all(struct conn *c, struct v9p_fcall *m, int n, const struct v9p_fcall *skip)
{
	int i;

	for (i = 0; i < n; i++)
		if (&m[i] != skip && serve_msg(c, &m[i]))
			return -1;
	return 0;
}

/* Serve the group @m of @n requests (of @kind) as the mode says; -1 to close. */
static int serve_group(struct conn *c, int kind, struct v9p_fcall *m, int n)
{
	struct v9p_fcall *victim = NULL;
	char what[128];
	int act = 1, i, len = 0;

	if (mode == M_PAIR_FAIL || mode == M_PAIR_SILENT) {
		victim = group_victim(m, n);
		act = victim != NULL;
	}
	if (mode == M_PAIR_OTHERFILE && m[0].type != V9P_TWALK)
		act = 0;
	if (act && pair_skip > 0) {
		pair_skip--;
		act = 0;
	}
	if (act && pair_count == 0)
		act = 0;
	for (i = 0; i < n; i++)
		len += snprintf(what + len, sizeof(what) - len, "%s%s tag %u", i ? ", " : "",
				v9p_type_name(m[i].type), m[i].tag);
	logmsg("pair %s: %s, fid %u: %s", group_names[kind], what,
	       m[n - 1].type == V9P_TGETATTR ? m[n - 1].tgetattr.fid : m[0].twalk.newfid,
	       act ? mode_names[mode] : "served");
	if (!act)
		return serve_all(c, m, n, NULL);
	if (pair_count > 0)
		pair_count--;
	switch (mode) {
	case M_PAIR_SWAP:
		for (i = n - 1; i >= 0; i--)
			if (serve_msg(c, &m[i]))
				return -1;
		return 0;
	case M_PAIR_OTHERFILE:
		/* "data" is now the other file: the former one, after the first */
		file_exists[QPATH_NEW] = file_exists[QPATH_DATA];
		file_exists[QPATH_DATA] = !file_exists[QPATH_NEW];
		logmsg("data replaced by another file (qid path %d)",
		       file_exists[QPATH_NEW] ? QPATH_NEW : QPATH_DATA);
		return serve_all(c, m, n, NULL);
	case M_PAIR_FAIL:
		if (victim->type == V9P_TWALK && rerror_code == ENOENT) {
			file_exists[QPATH_DATA] = file_exists[QPATH_NEW] = 0;
			logmsg("data removed");
		}
		logmsg("%s tag %u: Rlerror %u", v9p_type_name(victim->type), victim->tag,
		       rerror_code);
		for (i = 0; i < n; i++)
			if (&m[i] == victim ? send_error(c, m[i].tag, rerror_code) :
			    serve_msg(c, &m[i]))
				return -1;
		return 0;
	case M_PAIR_SILENT:
		logmsg("%s tag %u: never answered", v9p_type_name(victim->type), victim->tag);
		return serve_all(c, m, n, victim);
	default:
		return -1;
	}
}

/* Drop the first @k of the *@n requests read ahead; their buffers go last. */
static void drop_msgs(struct v9p_fcall *m, u8 **buf, int *n, int k)
{
	int i;

	while (k-- > 0) {
		struct v9p_fcall t = m[0];
		u8 *b = buf[0];

		for (i = 1; i < 3; i++) {
			m[i - 1] = m[i];
			buf[i - 1] = buf[i];
		}
		m[2] = t;
		buf[2] = b;
		(*n)--;
	}
}

/*
 * The pair-* modes: a request that may be the first of a group (any request
 * in pair-swap) waits up to PAIR_WAIT_MS for the next one, and a Twalk and a
 * Tlopen that may begin a triple for a third; together they are a group,
 * served as the mode says, or (pair-swap) answered newer first. With -t walk,
 * pair-otherfile takes a Twalk to "data" that nothing follows for a group.
 */
static void serve_pairs(struct conn *c)
{
	struct v9p_fcall m[3];
	u8 *buf[3] = { c->in, c->in2, c->in3 };
	int n = 0, kind, len;

	for (;;) {
		if (!n) {
			if (read_msg(c, buf[0], &m[0]))
				break;
			n = 1;
		}
		if (m[0].type == V9P_TVERSION ||
		    (mode != M_PAIR_SWAP && !pair_member(c, &m[0])) ||
		    (n == 1 && !readable(c->rfd, PAIR_WAIT_MS))) {
			if (mode == M_PAIR_OTHERFILE && trigger_type == V9P_TWALK &&
			    m[0].type == V9P_TWALK && pair_member(c, &m[0]) ?
			    serve_group(c, PAIR_LONE, m, 1) : serve_msg(c, &m[0]))
				break;
			drop_msgs(m, buf, &n, 1);
			continue;
		}
		if (n == 1) {
			if (read_msg(c, buf[1], &m[1]))
				break;
			n = 2;
		}
		if (n == 2 && triple_begins(c, m) && readable(c->rfd, PAIR_WAIT_MS)) {
			if (read_msg(c, buf[2], &m[2]))
				break;
			n = 3;
		}
		kind = group_of(c, m, n, &len);
		if (kind != PAIR_NONE) {
			if (serve_group(c, kind, m, len))
				break;
			drop_msgs(m, buf, &n, len);
			continue;
		}
		if (mode == M_PAIR_SWAP && m[1].type != V9P_TVERSION) {
			if (m[1].type == V9P_TFLUSH && m[1].tflush.oldtag == m[0].tag) {
				logmsg("%s tag %u flushed while held: not answered",
				       v9p_type_name(m[0].type), m[0].tag);
				if (serve_msg(c, &m[1]))
					break;
			} else if (serve_msg(c, &m[1]) || serve_msg(c, &m[0])) {
				break;
			}
			drop_msgs(m, buf, &n, 2);
			continue;
		}
		/* no group: the first now, the next may begin one */
		if (serve_msg(c, &m[0]))
			break;
		drop_msgs(m, buf, &n, 1);
	}
	logmsg("connection closed");
	exit(0);
}

/*
 * remove-flush: holds each Tremove unanswered; a Tflush of it is answered by
 * serve_one() and the fid stays. A Twalk or Tattach to a fid in use fails.
 * Returns 1 when @t was dealt with here, 0 to serve it as usual, -1 to close.
 */
static int remove_flush(struct conn *c, struct v9p_fcall *t)
{
	static int held = -1;	/* the tag of the Tremove held */
	struct v9p_fcall r = { .tag = t->tag };
	u32 newfid;

	switch (t->type) {
	case V9P_TREMOVE:
		logmsg("Tremove of fid %u (tag %u): held", t->tremove.fid, t->tag);
		held = t->tag;
		return 1;
	case V9P_TFLUSH:
		if (t->tflush.oldtag == held) {
			logmsg("Tremove (tag %u) flushed: its fid is kept", held);
			held = -1;
		}
		return 0;
	case V9P_TWALK:
		if (t->twalk.newfid == t->twalk.fid)
			return 0;
		newfid = t->twalk.newfid;
		break;
	case V9P_TATTACH:
		newfid = t->tattach.fid;
		break;
	default:
		return 0;
	}
	if (!fid_slot(c, newfid, 0))
		return 0;
	logmsg("%s to fid %u: fid in use", v9p_type_name(t->type), newfid);
	if (c->d == V9P_9P2000L)
		return send_error(c, t->tag, EBADF) ? -1 : 1;
	r.type = V9P_RERROR;
	v9p_str_set(&r.rerror.ename, "fid in use");
	r.rerror.errcode = EBADF;
	return send_fcall(c, &r) ? -1 : 1;
}

/* ---- mkdir-parentqid, hugelength, stale-size ---- */

/* A directory @name made in the directory of @parent: it is @parent. */
static int made_add(struct conn *c, u16 tag, const struct v9p_str *name, u64 parent)
{
	int i;

	if (parent != QPATH_ROOT)
		return send_error(c, tag, ENOTDIR);
	if (made_named(name) >= 0 || file_named(name))
		return send_error(c, tag, EEXIST);
	for (i = 0; i < MAX_MADE && made_qpath[i]; i++)
		;
	if (i == MAX_MADE || name->len >= sizeof(made_name[i]))
		return send_error(c, tag, ENOSPC);
	memcpy(made_name[i], name->s, name->len);
	made_name[i][name->len] = '\0';
	made_qpath[i] = parent;
	logmsg("mkdir %s: answered with its parent's qid (qid path %llu)", made_name[i],
	       (unsigned long long)parent);
	return 1;
}

/*
 * The requests mkdir-parentqid and hugelength answer their own way: 1 when
 * @t was, 0 when it is for serve_one(), -1 to close.
 */
static int serve_made(struct conn *c, struct v9p_fcall *t)
{
	struct v9p_fcall r = { .tag = t->tag };
	u64 *q;
	int k;

	if (mode == M_HUGELENGTH) {
		if (t->type == V9P_TWRITE && is_data(c, t->twrite.fid))
			logmsg("Twrite of data at %llu", (unsigned long long)t->twrite.offset);
		return 0;
	}
	switch (t->type) {
	case V9P_TWALK:
		return handle_walk(c, t) ? -1 : 1;
	case V9P_TMKDIR:
		q = fid_slot(c, t->tmkdir.dfid, 0);
		if (!q)
			return send_error(c, t->tag, EBADF) ? -1 : 1;
		k = made_add(c, t->tag, &t->tmkdir.name, *q);
		if (k <= 0)
			return k ? -1 : 1;
		r.type = V9P_RMKDIR;
		r.rmkdir.qid = make_qid(*q);
		return send_fcall(c, &r) ? -1 : 1;
	case V9P_TCREATE:
		q = fid_slot(c, t->tcreate.fid, 0);
		if (!q)
			return send_error(c, t->tag, EBADF) ? -1 : 1;
		if (!(t->tcreate.perm & V9P_DMDIR))
			return send_error(c, t->tag, EPERM) ? -1 : 1;
		k = made_add(c, t->tag, &t->tcreate.name, *q);
		if (k <= 0)
			return k ? -1 : 1;
		/* the fid is the new directory, opened: the parent again */
		c->fids[fid_index(c, q)].opened = 1;
		r.type = V9P_RCREATE;
		r.rcreate.qid = make_qid(*q);
		return send_fcall(c, &r) ? -1 : 1;
	case V9P_TUNLINKAT:
		k = made_named(&t->tunlinkat.name);
		if (k < 0)
			return send_error(c, t->tag, file_named(&t->tunlinkat.name) ?
					  EPERM : ENOENT) ? -1 : 1;
		logmsg("unlinkat %s", made_name[k]);
		made_qpath[k] = 0;
		r.type = V9P_RUNLINKAT;
		return send_fcall(c, &r) ? -1 : 1;
	default:
		return 0;
	}
}

/* stale-size: a Twrite of "data" past its end makes it longer. */
static void stale_grow(struct conn *c, const struct v9p_fcall *t)
{
	u64 end;

	if (t->type != V9P_TWRITE || !is_data(c, t->twrite.fid))
		return;
	end = t->twrite.offset + t->twrite.count;
	if (end <= data_length)
		return;
	data_length = end;
	logmsg("data is now %llu bytes", (unsigned long long)end);
}

static int stale_serve(struct conn *c, struct v9p_fcall *t)
{
	if (t->type == V9P_TVERSION)
		return handle_version(c, t);
	stale_grow(c, t);
	return serve_one(c, t);
}

/*
 * stale-size: a Tgetattr or Tstat of "data" waits up to a second for the
 * next request; if that is a Twrite of "data", it is served first and the
 * held one 300 ms after, with the length "data" had before the Twrite.
 */
static void serve_stale(struct conn *c)
{
	struct v9p_fcall t, next;
	u64 len, now;
	int held, ret;

	for (;;) {
		if (read_msg(c, c->in, &t))
			break;
		held = (t.type == V9P_TGETATTR && is_data(c, t.tgetattr.fid)) ||
		       (t.type == V9P_TSTAT && is_data(c, t.tstat.fid));
		if (!held || !readable(c->rfd, 1000)) {
			if (stale_serve(c, &t))
				break;
			continue;
		}
		if (read_msg(c, c->in2, &next))
			break;
		if (next.type != V9P_TWRITE || !is_data(c, next.twrite.fid)) {
			if (stale_serve(c, &t) || stale_serve(c, &next))
				break;
			continue;
		}
		len = data_length;
		if (stale_serve(c, &next))
			break;
		usleep(300000);
		logmsg("%s of data answered after the Twrite, with the length before it (%llu)",
		       v9p_type_name(t.type), (unsigned long long)len);
		now = data_length;
		data_length = len;
		ret = serve_one(c, &t);
		data_length = now;
		if (ret)
			break;
	}
	logmsg("connection closed");
	exit(0);
}

static void serve_conn(int rfd, int wfd)
{
	struct conn *c = calloc(1, sizeof(*c));
	struct v9p_fcall t;
	struct v9p_hdr h;
	int stalled = 0;

	if (!c)
		exit(1);
	c->rfd = rfd;
	c->wfd = wfd;
	c->msize = max_msize;
	c->in = malloc(max_msize + 8192);
	c->in2 = malloc(max_msize + 8192);
	c->in3 = malloc(max_msize + 8192);
	c->out = malloc(max_msize + 16384);
	if (!c->in || !c->in2 || !c->in3 || !c->out)
		exit(1);
	if (pair_mode(mode))
		serve_pairs(c);
	if (mode == M_STALE_SIZE)
		serve_stale(c);
	for (;;) {
		int ret;

		if (c->queued) {
			/* let the other reads of a burst arrive, then answer */
			struct pollfd p = { .fd = rfd, .events = POLLIN };

			if (c->queued == STREAM_QUEUE || poll(&p, 1, STREAM_WAIT_MS) <= 0) {
				if (stream_flush(c))
					break;
				continue;
			}
		}
		if (read_full(rfd, c->in, V9P_HDRSZ))
			break;
		ret = v9p_peek_hdr(c->in, V9P_HDRSZ, c->msize, &h);
		if (ret < 0) {
			logmsg("bad request header (%d), closing", ret);
			break;
		}
		if (read_full(rfd, c->in + V9P_HDRSZ, h.size - V9P_HDRSZ))
			break;
		if (stalled)
			continue;	/* swallow everything, answer nothing */
		if (h.type == V9P_TVERSION)
			c->d = V9P_9P2000U;	/* Tversion has one layout in every dialect */
		ret = v9p_unpack(c->in, h.size, c->d, c->msize, &t);
		if (ret < 0) {
			logmsg("cannot decode %s (%d)", v9p_type_name(h.type), ret);
			if (send_error(c, h.tag, EPROTO))
				break;
			continue;
		}
		if (t.type == V9P_TVERSION && mode == M_NOVERSION) {
			logmsg("Tversion tag %u: never answered", t.tag);
			continue;
		}
		if (t.type == V9P_TFLUSH)
			logmsg("Tflush of tag %u (tag %u)", t.tflush.oldtag, t.tag);
		if (t.type == V9P_TVERSION) {
			if (handle_version(c, &t))
				break;
			continue;
		}
		if (mode == M_STREAM && t.type == V9P_TREAD && is_data(c, t.tread.fid)) {
			c->queue[c->queued].tag = t.tag;
			c->queue[c->queued].count = t.tread.count;
			c->queued++;
			continue;
		}
		if (mode == M_NOCLUNK && t.type == V9P_TCLUNK) {
			logmsg("Tclunk of fid %u (tag %u): never answered", t.tclunk.fid, t.tag);
			continue;
		}
		if (mode == M_FAILWRITE && t.type == V9P_TWRITE && is_data(c, t.twrite.fid)) {
			if (fail_write(c, &t))
				break;
			continue;
		}
		if (mode == M_REMOVE_FLUSH) {
			ret = remove_flush(c, &t);
			if (ret < 0)
				break;
			if (ret > 0)
				continue;
		}
		if (mode == M_MKDIR_PARENTQID || mode == M_HUGELENGTH) {
			ret = serve_made(c, &t);
			if (ret < 0)
				break;
			if (ret > 0)
				continue;
		}
		if (is_trigger(c, &t)) {
			c->triggered = 1;
			ret = misbehave(c, &t);
			if (ret < 0)
				break;
			if (ret > 0)
				stalled = 1;
			continue;
		}
		if (serve_one(c, &t))
			break;
	}
	logmsg("connection closed");
	exit(0);
}

static int listen_on(const char *addr)
{
	int fd, one = 1;

	if (!strncmp(addr, "tcp:", 4)) {
		struct sockaddr_in sin = { .sin_family = AF_INET };
		char host[64];
		const char *colon = strrchr(addr + 4, ':');

		if (!colon || (size_t)(colon - addr - 4) >= sizeof(host))
			return -1;
		memcpy(host, addr + 4, colon - addr - 4);
		host[colon - addr - 4] = '\0';
		if (inet_pton(AF_INET, host, &sin.sin_addr) != 1)
			return -1;
		sin.sin_port = htons(atoi(colon + 1));
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0)
			return -1;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0)
			return -1;
	} else if (!strncmp(addr, "unix:", 5)) {
		struct sockaddr_un sun = { .sun_family = AF_UNIX };

		if (strlen(addr + 5) >= sizeof(sun.sun_path))
			return -1;
		strcpy(sun.sun_path, addr + 5);
		unlink(sun.sun_path);
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		if (fd < 0)
			return -1;
		if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0)
			return -1;
	} else {
		errno = EINVAL;
		return -1;
	}
	if (listen(fd, 8) < 0)
		return -1;
	return fd;
}

static void on_term(int sig)
{
	terminate = 1;
}

static void usage(void)
{
	int i;

	fprintf(stderr, "usage: hostile-9p -m MODE [-t read|write|walk|open|getattr] "
		"[-e ERRCODE] [-E ENAME] [-N NAME] [-S length] [-F fids] [-M msize] [-c COUNT] [-k SKIP] "
		"(-l tcp:HOST:PORT | -l unix:PATH | -s)\nmodes:");
	for (i = 0; i <= M_LAST; i++)
		fprintf(stderr, " %s", mode_names[i]);
	fputc('\n', stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	const char *addr = NULL;
	int opt, lfd, i, use_stdio = 0, have_mode = 0, rerror_set = 0;

	while ((opt = getopt(argc, argv, "m:t:e:E:N:S:F:M:c:k:l:s")) != -1) {
		switch (opt) {
		case 'm':
			for (i = 0; i <= M_LAST; i++)
				if (!strcmp(optarg, mode_names[i]))
					break;
			if (i > M_LAST)
				usage();
			mode = i;
			have_mode = 1;
			break;
		case 't':
			if (!strcmp(optarg, "read"))
				trigger_type = V9P_TREAD;
			else if (!strcmp(optarg, "write"))
				trigger_type = V9P_TWRITE;
			else if (!strcmp(optarg, "walk"))
				trigger_type = V9P_TWALK;
			else if (!strcmp(optarg, "open"))
				trigger_type = V9P_TOPEN;	/* and Tlopen */
			else if (!strcmp(optarg, "getattr"))
				trigger_type = V9P_TGETATTR;
			else
				usage();
			break;
		case 'e':
			rerror_code = strtoul(optarg, NULL, 0);
			rerror_set = 1;
			break;
		case 'E':
			rerror_name = optarg;
			break;
		case 'N':
			bad_name = optarg;
			break;
		case 'S':
			data_length = strtoull(optarg, NULL, 0);
			break;
		case 'F':
			fid_limit = atoi(optarg);
			if (fid_limit < 1 || fid_limit > MAX_FIDS)
				usage();
			break;
		case 'M':
			max_msize = strtoul(optarg, NULL, 0);
			if (max_msize < 4096 || max_msize > (1 << 20))
				usage();
			break;
		case 'c':
			pair_count = atoi(optarg);
			break;
		case 'k':
			pair_skip = atoi(optarg);
			break;
		case 'l':
			addr = optarg;
			break;
		case 's':
			use_stdio = 1;
			break;
		default:
			usage();
		}
	}
	if (!have_mode || (!addr == !use_stdio))
		usage();
	if (mode == M_STREAM)
		data_length = 0;
	if (mode == M_PAIR_FAIL && !rerror_set)
		rerror_code = EIO;
	if (mode == M_RENAMEFAIL)
		file_exists[QPATH_SRC] = 1;
	if (mode == M_READLINK_LONG)
		file_exists[QPATH_LINK] = 1;
	signal(SIGPIPE, SIG_IGN);
	if (use_stdio)
		serve_conn(0, 1);

	lfd = listen_on(addr);
	if (lfd < 0) {
		logmsg("cannot listen on %s: %s", addr, strerror(errno));
		return 1;
	}
	signal(SIGCHLD, SIG_IGN);	/* children are reaped by the kernel */
	/* no SA_RESTART: SIGTERM must interrupt accept() */
	sigaction(SIGTERM, &(struct sigaction){ .sa_handler = on_term }, NULL);
	logmsg("mode %s, listening on %s", mode_names[mode], addr);
	for (i = 0; !terminate;) {
		int cfd = accept(lfd, NULL, NULL);
		pid_t pid;

		if (cfd < 0) {
			if (errno == EINTR)
				continue;
			logmsg("accept: %s", strerror(errno));
			break;
		}
		pid = fork();
		if (pid == 0) {
			signal(SIGTERM, SIG_DFL);
			close(lfd);
			serve_conn(cfd, cfd);
		}
		if (pid < 0)
			logmsg("fork: %s", strerror(errno));
		else if (i < (int)(sizeof(children) / sizeof(children[0])))
			children[i++] = pid;
		close(cfd);
	}
	/* a stalled child would keep its client waiting: take them all down */
	while (i--)
		kill(children[i], SIGKILL);
	return 0;
}
