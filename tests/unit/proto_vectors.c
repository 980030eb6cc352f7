// SPDX-License-Identifier: GPL-2.0
/*
 * proto_vectors: byte-exact messages of every type and dialect, written out
 * field by field from the 9P manual pages (intro(5), version(5), attach(5),
 * walk(5), open(5), read(5), stat(5), ...) and from the 9P2000.L
 * descriptions, checked in both directions.
 *
 * Hex is little-endian as on the wire; spaces separate fields; 'text' is the
 * ASCII bytes of text. For each vector and each dialect it belongs to:
 *   - v9p_pack() of the struct gives exactly the bytes, v9p_packed_size()
 *     agrees, and a buffer one byte short gives -EMSGSIZE;
 *   - v9p_unpack() of the bytes succeeds and packing the result gives the
 *     bytes again (the encoding is injective, so the decode is right);
 *   - every truncation (size[4] rewritten to match) and a one-byte extension
 *     are rejected; msize one below the length gives -EMSGSIZE;
 *   - in every other dialect the bytes do not decode.
 */
#include <stdlib.h>
#include <string.h>

#include "v9p.h"
#include "tap.h"

#define S(x)	{ x, sizeof(x) - 1 }
#define QA	{ 0x80, 1, 0x0102030405060708ULL }
#define QB	{ 0x00, 0, 0x2a }
#define QAHEX	"80 01000000 0807060504030201"
#define QBHEX	"00 00000000 2a00000000000000"

#define D9	0x1
#define DU	0x2
#define DL	0x4
#define DALL	(D9 | DU | DL)

/* decode only: bytes that decode to f but that v9p_pack() does not produce */
#define DECODE_ONLY	0x100

struct vec {
	const char *what;
	int dialects;
	struct v9p_fcall f;
	const char *hex;
};

static const u8 hello[] = "hello";
static const u8 abc[] = "abc";
static const u8 dirent_dot[] = {
	0x80, 1, 0, 0, 0, 8, 7, 6, 5, 4, 3, 2, 1,
	1, 0, 0, 0, 0, 0, 0, 0,
	4, 1, 0, '.',
};

static const struct vec vecs[] = {
	/* version(5) */
	{ "Tversion 9P2000", DALL, { .type = V9P_TVERSION, .tag = V9P_NOTAG,
	  .tversion = { 8192, S("9P2000") } },
	  "13000000 64 ffff 00200000 0600 '9P2000'" },
	{ "Tversion 9P2000.L", DALL, { .type = V9P_TVERSION, .tag = V9P_NOTAG,
	  .tversion = { 65536, S("9P2000.L") } },
	  "15000000 64 ffff 00000100 0800 '9P2000.L'" },
	{ "Rversion 9P2000.u", DALL, { .type = V9P_RVERSION, .tag = V9P_NOTAG,
	  .rversion = { 8192, S("9P2000.u") } },
	  "15000000 65 ffff 00200000 0800 '9P2000.u'" },
	{ "Rversion unknown", DALL, { .type = V9P_RVERSION, .tag = V9P_NOTAG,
	  .rversion = { 8192, S("unknown") } },
	  "14000000 65 ffff 00200000 0700 'unknown'" },

	/* attach(5) */
	{ "Tauth", D9, { .type = V9P_TAUTH, .tag = 1,
	  .tauth = { 5, S("glenda"), S(""), V9P_NONUNAME } },
	  "15000000 66 0100 05000000 0600 'glenda' 0000" },
	{ "Tauth n_uname", DU | DL, { .type = V9P_TAUTH, .tag = 1,
	  .tauth = { 5, S("glenda"), S(""), 1000 } },
	  "19000000 66 0100 05000000 0600 'glenda' 0000 e8030000" },
	{ "Rauth", DALL, { .type = V9P_RAUTH, .tag = 1,
	  .rauth = { { V9P_QTAUTH, 0, 1 } } },
	  "14000000 67 0100 08 00000000 0100000000000000" },
	{ "Tattach", D9, { .type = V9P_TATTACH, .tag = 1,
	  .tattach = { 1, V9P_NOFID, S("glenda"), S("/"), V9P_NONUNAME } },
	  "1a000000 68 0100 01000000 ffffffff 0600 'glenda' 0100 '/'" },
	{ "Tattach n_uname", DU | DL, { .type = V9P_TATTACH, .tag = 1,
	  .tattach = { 1, V9P_NOFID, S("root"), S(""), 0 } },
	  "1b000000 68 0100 01000000 ffffffff 0400 'root' 0000 00000000" },
	{ "Tattach n_uname none", DU | DL, { .type = V9P_TATTACH, .tag = 1,
	  .tattach = { 1, 7, S("glenda"), S("/"), V9P_NONUNAME } },
	  "1e000000 68 0100 01000000 07000000 0600 'glenda' 0100 '/' ffffffff" },
	{ "Rattach", DALL, { .type = V9P_RATTACH, .tag = 1,
	  .rattach = { QA } },
	  "14000000 69 0100 " QAHEX },

	/* error(5) */
	{ "Rerror", D9, { .type = V9P_RERROR, .tag = 1,
	  .rerror = { S("file does not exist"), 0 } },
	  "1c000000 6b 0100 1300 'file does not exist'" },
	{ "Rerror errno", DU, { .type = V9P_RERROR, .tag = 1,
	  .rerror = { S("No such file or directory"), 2 } },
	  "26000000 6b 0100 1900 'No such file or directory' 02000000" },

	/* flush(5) */
	{ "Tflush", DALL, { .type = V9P_TFLUSH, .tag = 2, .tflush = { 1 } },
	  "09000000 6c 0200 0100" },
	{ "Rflush", DALL, { .type = V9P_RFLUSH, .tag = 2 },
	  "07000000 6d 0200" },

	/* walk(5) */
	{ "Twalk two names", DALL, { .type = V9P_TWALK, .tag = 1,
	  .twalk = { 1, 2, 2, { S("usr"), S("glenda") } } },
	  "1e000000 6e 0100 01000000 02000000 0200 0300 'usr' 0600 'glenda'" },
	{ "Twalk clone", DALL, { .type = V9P_TWALK, .tag = 1,
	  .twalk = { 1, 2, 0, { { NULL, 0 } } } },
	  "11000000 6e 0100 01000000 02000000 0000" },
	{ "Twalk sixteen names", DALL, { .type = V9P_TWALK, .tag = 1,
	  .twalk = { 1, 2, 16, { S("a"), S("b"), S("c"), S("d"), S("e"),
	  S("f"), S("g"), S("h"), S("i"), S("j"), S("k"), S("l"), S("m"),
	  S("n"), S("o"), S("p") } } },
	  "41000000 6e 0100 01000000 02000000 1000 0100 'a' 0100 'b' 0100 'c'"
	  " 0100 'd' 0100 'e' 0100 'f' 0100 'g' 0100 'h' 0100 'i' 0100 'j'"
	  " 0100 'k' 0100 'l' 0100 'm' 0100 'n' 0100 'o' 0100 'p'" },
	{ "Rwalk", DALL, { .type = V9P_RWALK, .tag = 1,
	  .rwalk = { 2, { QA, QB } } },
	  "23000000 6f 0100 0200 " QAHEX " " QBHEX },
	{ "Rwalk empty", DALL, { .type = V9P_RWALK, .tag = 1,
	  .rwalk = { 0 } },
	  "09000000 6f 0100 0000" },

	/* open(5) */
	{ "Topen", D9 | DU, { .type = V9P_TOPEN, .tag = 1,
	  .topen = { 2, V9P_ORDWR | V9P_OTRUNC } },
	  "0c000000 70 0100 02000000 12" },
	{ "Ropen", D9 | DU, { .type = V9P_ROPEN, .tag = 1,
	  .ropen = { QB, 8168 } },
	  "18000000 71 0100 " QBHEX " e81f0000" },
	{ "Tcreate", D9, { .type = V9P_TCREATE, .tag = 1,
	  .tcreate = { 2, S("x"), 0644, V9P_OWRITE, S("") } },
	  "13000000 72 0100 02000000 0100 'x' a4010000 01" },
	{ "Tcreate extension empty", DU, { .type = V9P_TCREATE, .tag = 1,
	  .tcreate = { 2, S("x"), 0644, V9P_OWRITE, S("") } },
	  "15000000 72 0100 02000000 0100 'x' a4010000 01 0000" },
	{ "Tcreate symlink", DU, { .type = V9P_TCREATE, .tag = 1,
	  .tcreate = { 2, S("x"), V9P_DMSYMLINK | 0777, V9P_OREAD,
	  S("target") } },
	  "1b000000 72 0100 02000000 0100 'x' ff010002 00 0600 'target'" },
	{ "Rcreate", D9 | DU, { .type = V9P_RCREATE, .tag = 1,
	  .rcreate = { QA, 0 } },
	  "18000000 73 0100 " QAHEX " 00000000" },

	/* read(5) */
	{ "Tread", DALL, { .type = V9P_TREAD, .tag = 1,
	  .tread = { 2, 0x100000000ULL, 4096 } },
	  "17000000 74 0100 02000000 0000000001000000 00100000" },
	{ "Rread", DALL, { .type = V9P_RREAD, .tag = 1,
	  .rread = { 5, hello } },
	  "10000000 75 0100 05000000 'hello'" },
	{ "Rread empty", DALL, { .type = V9P_RREAD, .tag = 1,
	  .rread = { 0, NULL } },
	  "0b000000 75 0100 00000000" },
	{ "Twrite", DALL, { .type = V9P_TWRITE, .tag = 1,
	  .twrite = { 2, 10, 3, abc } },
	  "1a000000 76 0100 02000000 0a00000000000000 03000000 'abc'" },
	{ "Rwrite", DALL, { .type = V9P_RWRITE, .tag = 1, .rwrite = { 3 } },
	  "0b000000 77 0100 03000000" },

	/* clunk(5), remove(5) */
	{ "Tclunk", DALL, { .type = V9P_TCLUNK, .tag = 1, .tclunk = { 2 } },
	  "0b000000 78 0100 02000000" },
	{ "Rclunk", DALL, { .type = V9P_RCLUNK, .tag = 1 },
	  "07000000 79 0100" },
	{ "Tremove", DALL, { .type = V9P_TREMOVE, .tag = 1, .tremove = { 2 } },
	  "0b000000 7a 0100 02000000" },
	{ "Rremove", DALL, { .type = V9P_RREMOVE, .tag = 1 },
	  "07000000 7b 0100" },

	/* stat(5): Rstat/Twstat carry n[2] and then the stat with its own size[2] */
	{ "Tstat", D9 | DU, { .type = V9P_TSTAT, .tag = 1, .tstat = { 2 } },
	  "0b000000 7c 0100 02000000" },
	{ "Rstat", D9, { .type = V9P_RSTAT, .tag = 1,
	  .rstat = { { 0, 0, QB, 0644, 1, 2, 5, S("x"), S("u"), S("g"),
	  S("m"), S(""), V9P_NONUNAME, V9P_NONUNAME, V9P_NONUNAME } } },
	  "3e000000 7d 0100 3500 3300 0000 00000000 " QBHEX
	  " a4010000 01000000 02000000 0500000000000000"
	  " 0100 'x' 0100 'u' 0100 'g' 0100 'm'" },
	{ "Rstat .u", DU, { .type = V9P_RSTAT, .tag = 1,
	  .rstat = { { 0, 0, QB, 0644, 1, 2, 5, S("x"), S("u"), S("g"),
	  S("m"), S(""), 1000, 100, 1000 } } },
	  "4c000000 7d 0100 4300 4100 0000 00000000 " QBHEX
	  " a4010000 01000000 02000000 0500000000000000"
	  " 0100 'x' 0100 'u' 0100 'g' 0100 'm' 0000 e8030000 64000000 e8030000" },
	{ "Twstat rename", D9, { .type = V9P_TWSTAT, .tag = 1,
	  .twstat = { 2, { 0xffff, ~0U, { 0xff, ~0U, ~0ULL }, ~0U, ~0U, ~0U,
	  ~0ULL, S("y"), S(""), S(""), S(""), S(""),
	  V9P_NONUNAME, V9P_NONUNAME, V9P_NONUNAME } } },
	  "3f000000 7e 0100 02000000 3200 3000 ffff ffffffff"
	  " ff ffffffff ffffffffffffffff ffffffff ffffffff ffffffff"
	  " ffffffffffffffff 0100 'y' 0000 0000 0000" },
	{ "Twstat rename .u", DU, { .type = V9P_TWSTAT, .tag = 1,
	  .twstat = { 2, { 0xffff, ~0U, { 0xff, ~0U, ~0ULL }, ~0U, ~0U, ~0U,
	  ~0ULL, S("y"), S(""), S(""), S(""), S(""),
	  V9P_NONUNAME, V9P_NONUNAME, V9P_NONUNAME } } },
	  "4d000000 7e 0100 02000000 4000 3e00 ffff ffffffff"
	  " ff ffffffff ffffffffffffffff ffffffff ffffffff ffffffff"
	  " ffffffffffffffff 0100 'y' 0000 0000 0000 0000"
	  " ffffffff ffffffff ffffffff" },
	{ "Rwstat", D9 | DU, { .type = V9P_RWSTAT, .tag = 1 },
	  "07000000 7f 0100" },

	/* 9P2000.L */
	{ "Rlerror", DL, { .type = V9P_RLERROR, .tag = 1, .rlerror = { 2 } },
	  "0b000000 07 0100 02000000" },
	{ "Tstatfs", DL, { .type = V9P_TSTATFS, .tag = 1, .tstatfs = { 1 } },
	  "0b000000 08 0100 01000000" },
	{ "Rstatfs", DL, { .type = V9P_RSTATFS, .tag = 1,
	  .rstatfs = { 0x01021997, 4096, 100, 50, 40, 1000, 900, 7, 255 } },
	  "43000000 09 0100 97190201 00100000 6400000000000000"
	  " 3200000000000000 2800000000000000 e803000000000000"
	  " 8403000000000000 0700000000000000 ff000000" },
	{ "Tlopen", DL, { .type = V9P_TLOPEN, .tag = 1,
	  .tlopen = { 1, V9P_DOTL_RDWR | V9P_DOTL_TRUNC } },
	  "0f000000 0c 0100 01000000 02020000" },
	{ "Rlopen", DL, { .type = V9P_RLOPEN, .tag = 1,
	  .rlopen = { QA, 0 } },
	  "18000000 0d 0100 " QAHEX " 00000000" },
	{ "Tlcreate", DL, { .type = V9P_TLCREATE, .tag = 1,
	  .tlcreate = { 1, S("f"), V9P_DOTL_CREATE | V9P_DOTL_RDWR, 0100644,
	  100 } },
	  "1a000000 0e 0100 01000000 0100 'f' 42000000 a4810000 64000000" },
	{ "Rlcreate", DL, { .type = V9P_RLCREATE, .tag = 1,
	  .rlcreate = { QB, 4096 } },
	  "18000000 0f 0100 " QBHEX " 00100000" },
	{ "Tsymlink", DL, { .type = V9P_TSYMLINK, .tag = 1,
	  .tsymlink = { 1, S("l"), S("t"), 100 } },
	  "15000000 10 0100 01000000 0100 'l' 0100 't' 64000000" },
	{ "Rsymlink", DL, { .type = V9P_RSYMLINK, .tag = 1,
	  .rsymlink = { { V9P_QTSYMLINK, 0, 0x2a } } },
	  "14000000 11 0100 02 00000000 2a00000000000000" },
	{ "Tmknod", DL, { .type = V9P_TMKNOD, .tag = 1,
	  .tmknod = { 1, S("p"), 010644, 0, 0, 100 } },
	  "1e000000 12 0100 01000000 0100 'p' a4110000 00000000 00000000 64000000" },
	{ "Rmknod", DL, { .type = V9P_RMKNOD, .tag = 1, .rmknod = { QB } },
	  "14000000 13 0100 " QBHEX },
	{ "Trename", DL, { .type = V9P_TRENAME, .tag = 1,
	  .trename = { 2, 1, S("n") } },
	  "12000000 14 0100 02000000 01000000 0100 'n'" },
	{ "Rrename", DL, { .type = V9P_RRENAME, .tag = 1 },
	  "07000000 15 0100" },
	{ "Treadlink", DL, { .type = V9P_TREADLINK, .tag = 1,
	  .treadlink = { 2 } },
	  "0b000000 16 0100 02000000" },
	{ "Rreadlink", DL, { .type = V9P_RREADLINK, .tag = 1,
	  .rreadlink = { S("/etc") } },
	  "0d000000 17 0100 0400 '/etc'" },
	{ "Tgetattr", DL, { .type = V9P_TGETATTR, .tag = 1,
	  .tgetattr = { 2, V9P_GETATTR_BASIC } },
	  "13000000 18 0100 02000000 ff07000000000000" },
	{ "Rgetattr", DL, { .type = V9P_RGETATTR, .tag = 1,
	  .rgetattr = { V9P_GETATTR_BASIC, QA, 0100644, 1000, 100, 1, 0, 5,
	  4096, 8, 1, 2, 3, 4, 5, 6, 0, 0, 0, 0 } },
	  "a0000000 19 0100 ff07000000000000 " QAHEX
	  " a4810000 e8030000 64000000 0100000000000000 0000000000000000"
	  " 0500000000000000 0010000000000000 0800000000000000"
	  " 0100000000000000 0200000000000000 0300000000000000"
	  " 0400000000000000 0500000000000000 0600000000000000"
	  " 0000000000000000 0000000000000000 0000000000000000"
	  " 0000000000000000" },
	{ "Tsetattr", DL, { .type = V9P_TSETATTR, .tag = 1,
	  .tsetattr = { 2, V9P_SETATTR_MODE | V9P_SETATTR_SIZE, 0755, 0, 0,
	  10, 0, 0, 0, 0 } },
	  "43000000 1a 0100 02000000 09000000 ed010000 00000000 00000000"
	  " 0a00000000000000 0000000000000000 0000000000000000"
	  " 0000000000000000 0000000000000000" },
	{ "Rsetattr", DL, { .type = V9P_RSETATTR, .tag = 1 },
	  "07000000 1b 0100" },
	{ "Txattrwalk", DL, { .type = V9P_TXATTRWALK, .tag = 1,
	  .txattrwalk = { 2, 3, S("user.a") } },
	  "17000000 1e 0100 02000000 03000000 0600 'user.a'" },
	{ "Rxattrwalk", DL, { .type = V9P_RXATTRWALK, .tag = 1,
	  .rxattrwalk = { 5 } },
	  "0f000000 1f 0100 0500000000000000" },
	{ "Txattrcreate", DL, { .type = V9P_TXATTRCREATE, .tag = 1,
	  .txattrcreate = { 3, S("user.a"), 5, V9P_XATTR_CREATE } },
	  "1f000000 20 0100 03000000 0600 'user.a' 0500000000000000 01000000" },
	{ "Rxattrcreate", DL, { .type = V9P_RXATTRCREATE, .tag = 1 },
	  "07000000 21 0100" },
	{ "Treaddir", DL, { .type = V9P_TREADDIR, .tag = 1,
	  .treaddir = { 2, 0, 8192 } },
	  "17000000 28 0100 02000000 0000000000000000 00200000" },
	{ "Rreaddir", DL, { .type = V9P_RREADDIR, .tag = 1,
	  .rreaddir = { sizeof(dirent_dot), dirent_dot } },
	  "24000000 29 0100 19000000 " QAHEX " 0100000000000000 04 0100 '.'" },
	{ "Tfsync", DL, { .type = V9P_TFSYNC, .tag = 1, .tfsync = { 2, 1 } },
	  "0f000000 32 0100 02000000 01000000" },
	{ "Tfsync old form", DL | DECODE_ONLY, { .type = V9P_TFSYNC, .tag = 1,
	  .tfsync = { 2, 0 } },
	  "0b000000 32 0100 02000000" },
	{ "Rfsync", DL, { .type = V9P_RFSYNC, .tag = 1 },
	  "07000000 33 0100" },
	{ "Tlock", DL, { .type = V9P_TLOCK, .tag = 1,
	  .tlock = { 2, V9P_LOCK_TYPE_WRLCK, V9P_LOCK_FLAGS_BLOCK, 0, 0, 42,
	  S("host") } },
	  "2a000000 34 0100 02000000 01 01000000 0000000000000000"
	  " 0000000000000000 2a000000 0400 'host'" },
	{ "Rlock", DL, { .type = V9P_RLOCK, .tag = 1,
	  .rlock = { V9P_LOCK_SUCCESS } },
	  "08000000 35 0100 00" },
	{ "Tgetlock", DL, { .type = V9P_TGETLOCK, .tag = 1,
	  .tgetlock = { 2, V9P_LOCK_TYPE_RDLCK, 10, 20, 42, S("host") } },
	  "26000000 36 0100 02000000 00 0a00000000000000 1400000000000000"
	  " 2a000000 0400 'host'" },
	{ "Rgetlock", DL, { .type = V9P_RGETLOCK, .tag = 1,
	  .rgetlock = { V9P_LOCK_TYPE_UNLCK, 10, 20, 42, S("host") } },
	  "22000000 37 0100 02 0a00000000000000 1400000000000000 2a000000"
	  " 0400 'host'" },
	{ "Tlink", DL, { .type = V9P_TLINK, .tag = 1,
	  .tlink = { 1, 2, S("h") } },
	  "12000000 46 0100 01000000 02000000 0100 'h'" },
	{ "Rlink", DL, { .type = V9P_RLINK, .tag = 1 },
	  "07000000 47 0100" },
	{ "Tmkdir", DL, { .type = V9P_TMKDIR, .tag = 1,
	  .tmkdir = { 1, S("d"), 0755, 100 } },
	  "16000000 48 0100 01000000 0100 'd' ed010000 64000000" },
	{ "Rmkdir", DL, { .type = V9P_RMKDIR, .tag = 1, .rmkdir = { QA } },
	  "14000000 49 0100 " QAHEX },
	{ "Trenameat", DL, { .type = V9P_TRENAMEAT, .tag = 1,
	  .trenameat = { 1, S("a"), 2, S("b") } },
	  "15000000 4a 0100 01000000 0100 'a' 02000000 0100 'b'" },
	{ "Rrenameat", DL, { .type = V9P_RRENAMEAT, .tag = 1 },
	  "07000000 4b 0100" },
	{ "Tunlinkat", DL, { .type = V9P_TUNLINKAT, .tag = 1,
	  .tunlinkat = { 1, S("d"), V9P_DOTL_AT_REMOVEDIR } },
	  "12000000 4c 0100 01000000 0100 'd' 00020000" },
	{ "Runlinkat", DL, { .type = V9P_RUNLINKAT, .tag = 1 },
	  "07000000 4d 0100" },
};

static const char *const dialect_names[] = { "9P2000", "9P2000.u", "9P2000.L" };

/* Parse the vector notation into buf; returns the length. */
static u32 unhex(const char *s, u8 *buf, u32 size)
{
	u32 n = 0;

	while (*s) {
		if (*s == ' ') {
			s++;
		} else if (*s == '\'') {
			for (s++; *s && *s != '\''; s++)
				buf[n++] = (u8)*s;
			s++;
		} else {
			char h[3] = { s[0], s[1], 0 };

			buf[n++] = (u8)strtoul(h, NULL, 16);
			s += 2;
		}
		if (n >= size)
			abort();
	}
	return n;
}

static void put32(u8 *p, u32 v)
{
	p[0] = (u8)v;
	p[1] = (u8)(v >> 8);
	p[2] = (u8)(v >> 16);
	p[3] = (u8)(v >> 24);
}

static void check_vec(const struct vec *v, enum v9p_dialect d)
{
	static u8 want[4096], got[4096], cut[4096];
	const char *dn = dialect_names[d];
	struct v9p_fcall f;
	u32 n = unhex(v->hex, want, sizeof(want));
	u32 len, bad;
	int ret;

	if (!(v->dialects & DECODE_ONLY)) {
		ret = v9p_pack(&v->f, d, got, sizeof(got));
		tap_ok(ret == (int)n && !memcmp(got, want, n),
		       "%s %s: pack gives the %u bytes", dn, v->what, n);
		tap_ok(v9p_packed_size(&v->f, d) == (int)n,
		       "%s %s: packed_size is %u", dn, v->what, n);
		tap_ok(v9p_pack(&v->f, d, got, n - 1) == -EMSGSIZE,
		       "%s %s: pack into %u bytes is -EMSGSIZE", dn, v->what,
		       n - 1);
	}

	ret = v9p_unpack(want, n, d, 8192 + 256, &f);
	tap_ok(ret == 0 && f.type == v->f.type && f.tag == v->f.tag,
	       "%s %s: unpack succeeds", dn, v->what);
	if (v->dialects & DECODE_ONLY) {
		ret = v9p_pack(&f, d, got, sizeof(got));
		tap_ok(ret > 0 && v9p_pack(&v->f, d, cut, sizeof(cut)) == ret &&
		       !memcmp(got, cut, ret),
		       "%s %s: decodes as the canonical form", dn, v->what);
	} else {
		ret = v9p_pack(&f, d, got, sizeof(got));
		tap_ok(ret == (int)n && !memcmp(got, want, n),
		       "%s %s: decoded message packs to the same bytes", dn,
		       v->what);
	}

	/* every truncation, with size[4] made to agree */
	bad = 0;
	for (len = 0; len < n; len++) {
		memcpy(cut, want, len);
		if (len >= 4)
			put32(cut, len);
		ret = v9p_unpack(cut, len, d, 0, &f);
		/* the datasync-less Tfsync is the one legal shorter form */
		if (v->f.type == V9P_TFSYNC && len == V9P_HDRSZ + 4)
			ret = ret ? -1 : -EPROTO;
		if (ret != -EPROTO)
			bad++;
	}
	tap_ok(bad == 0, "%s %s: all %u truncations are -EPROTO", dn, v->what,
	       n);

	memcpy(cut, want, n);
	cut[n] = 0;
	put32(cut, n + 1);
	ret = v9p_unpack(cut, n + 1, d, 0, &f);
	tap_ok(ret == -EPROTO, "%s %s: one trailing byte is -EPROTO", dn,
	       v->what);
	tap_ok(v9p_unpack(want, n, d, n - 1, &f) == -EMSGSIZE &&
	       v9p_unpack(want, n, d, n, &f) == 0,
	       "%s %s: msize %u is -EMSGSIZE, msize %u is fine", dn, v->what,
	       n - 1, n);
}

static void check_other_dialects(const struct vec *v)
{
	static u8 want[4096];
	struct v9p_fcall f;
	u32 n = unhex(v->hex, want, sizeof(want));
	int d, ret;

	for (d = V9P_9P2000; d <= V9P_9P2000L; d++) {
		if (v->dialects & (1 << d))
			continue;
		ret = v9p_unpack(want, n, d, 0, &f);
		tap_ok(ret < 0, "%s %s: not a %s message (%d)", dialect_names[d],
		       v->what, dialect_names[d], ret);
	}
}

int main(void)
{
	unsigned int i;
	int d;

	for (i = 0; i < sizeof(vecs) / sizeof(vecs[0]); i++) {
		for (d = V9P_9P2000; d <= V9P_9P2000L; d++)
			if (vecs[i].dialects & (1 << d))
				check_vec(&vecs[i], d);
		check_other_dialects(&vecs[i]);
	}
	return tap_done();
}
