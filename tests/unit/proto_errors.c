// SPDX-License-Identifier: GPL-2.0
/*
 * proto_errors: the error-string table, version-string negotiation and
 * message names.
 */
#include <string.h>

#include "v9p.h"
#include "tap.h"

static int e(const char *s)
{
	return v9p_errstr_to_errno(s, (u32)strlen(s));
}

static void check_strings(void)
{
	static const struct {
		const char *s;
		int err;
	} cases[] = {
		/* Plan 9 */
		{ "file does not exist", ENOENT },
		{ "permission denied", EACCES },
		{ "file already exists", EEXIST },
		{ "not a directory", ENOTDIR },
		{ "is a directory", EISDIR },
		{ "file is a directory", EISDIR },
		{ "directory not empty", ENOTEMPTY },
		{ "file in use", EBUSY },
		{ "read only file system", EROFS },
		{ "i/o error", EIO },
		{ "interrupted", EINTR },
		{ "walk in non-directory", ENOTDIR },
		{ "unknown fid", EBADF },
		{ "wstat prohibited", EPERM },
		/* Unix servers: strerror() */
		{ "No such file or directory", ENOENT },
		{ "Permission denied", EACCES },
		{ "Operation not permitted", EPERM },
		{ "File exists", EEXIST },
		{ "Not a directory", ENOTDIR },
		{ "Is a directory", EISDIR },
		{ "Directory not empty", ENOTEMPTY },
		{ "Read-only file system", EROFS },
		{ "No space left on device", ENOSPC },
		{ "File name too long", ENAMETOOLONG },
		{ "Too many levels of symbolic links", ELOOP },
		{ "Invalid cross-device link", EXDEV },
		{ "Stale NFS file handle", ESTALE },
		{ "Stale file handle", ESTALE },
		{ "Function not implemented", ENOSYS },
		{ "Operation not supported", EOPNOTSUPP },
		{ "No data available", ENODATA },
		{ "Numerical result out of range", ERANGE },
		/* case and decorations */
		{ "NO SUCH FILE OR DIRECTORY", ENOENT },
		{ "permission denied\n", EACCES },
		{ "'foo' file does not exist", ENOENT },
		{ "open /x/y: No such file or directory", ENOENT },
		{ "file does not exist: '/x'", ENOENT },
		/* unknown */
		{ "", EIO },
		{ "the cat ate it", EIO },
		{ "file does not exist and more", EIO },
		{ "file", EIO },
		{ ": ", EIO },
	};
	unsigned int i, k;
	char shown[64];

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		/* keep a TAP line on one line */
		for (k = 0; cases[i].s[k] && k < sizeof(shown) - 1; k++)
			shown[k] = cases[i].s[k] == '\n' ? '|' : cases[i].s[k];
		shown[k] = 0;
		tap_ok(e(cases[i].s) == cases[i].err, "\"%s\" -> errno %d (got %d)",
		       shown, cases[i].err, e(cases[i].s));
	}

	/* a view into a longer buffer: only len bytes count */
	tap_ok(v9p_errstr_to_errno("File existsXYZ", 11) == EEXIST,
	       "only the first len bytes are matched");
	tap_ok(v9p_errstr_to_errno(NULL, 0) == EIO, "NULL is EIO");
}

static void check_errnos(void)
{
	static const int must[] = {
		EPERM, ENOENT, EIO, EBADF, EAGAIN, ENOMEM, EACCES, EBUSY, EEXIST,
		EXDEV, ENODEV, ENOTDIR, EISDIR, EINVAL, ENFILE, EMFILE, ETXTBSY,
		EFBIG, ENOSPC, ESPIPE, EROFS, EMLINK, ERANGE, ENAMETOOLONG,
		ENOSYS, ENOTEMPTY, ELOOP, ENODATA, EPROTO, EOVERFLOW,
		EOPNOTSUPP, ETIMEDOUT, ECONNREFUSED, ESTALE, EDQUOT, EINTR,
	};
	unsigned int i, known = 0, bad = 0;
	int err;
	const char *s;

	for (i = 0; i < sizeof(must) / sizeof(must[0]); i++) {
		s = v9p_errno_to_errstr(must[i]);
		tap_ok(s && e(s) == must[i], "errno %d -> \"%s\" -> back", must[i],
		       s ? s : "(null)");
	}
	/* every errno that has a string comes back as itself */
	for (err = 1; err < 140; err++) {
		s = v9p_errno_to_errstr(err);
		if (!s)
			bad++;
		else if (strcmp(s, "Input/output error") != 0 || err == EIO) {
			known++;
			if (e(s) != err)
				bad++;
		}
	}
	tap_ok(!bad && known > 60, "%u errnos round-trip through their string", known);
	tap_ok(!strcmp(v9p_errno_to_errstr(-ENOENT), v9p_errno_to_errstr(ENOENT)),
	       "negative errno gives the same string");
	tap_ok(v9p_errno_to_errstr(0) && v9p_errno_to_errstr(100000),
	       "0 and unknown errnos give a string, not NULL");
}

static int parse(const char *s)
{
	struct v9p_str v = { s, (u16)strlen(s) };

	return v9p_dialect_parse(&v);
}

static void check_versions(void)
{
	tap_ok(parse("9P2000") == V9P_9P2000, "\"9P2000\" is 9P2000");
	tap_ok(parse("9P2000.u") == V9P_9P2000U, "\"9P2000.u\" is 9P2000.u");
	tap_ok(parse("9P2000.L") == V9P_9P2000L, "\"9P2000.L\" is 9P2000.L");
	tap_ok(parse("9P2000.x") == V9P_9P2000,
	       "\"9P2000.x\" is 9P2000 (version(5): the part after the period may go)");
	tap_ok(parse("9P2000.U") == V9P_9P2000, "\"9P2000.U\" (wrong case) is plain 9P2000");
	tap_ok(parse("9P2000u") < 0, "\"9P2000u\" is not a version");
	tap_ok(parse("9P1999") < 0, "\"9P1999\" is not a version");
	tap_ok(parse("unknown") < 0, "\"unknown\" is not a version");
	tap_ok(parse("") < 0, "the empty string is not a version");
	tap_ok(v9p_dialect_parse(NULL) < 0, "NULL is not a version");
	tap_ok(!strcmp(v9p_dialect_name(V9P_9P2000U), "9P2000.u") &&
	       !strcmp(v9p_dialect_name(V9P_9P2000L), "9P2000.L") &&
	       !strcmp(v9p_dialect_name(V9P_9P2000), "9P2000"),
	       "dialect names are the version strings");
}

static void check_names(void)
{
	tap_ok(!strcmp(v9p_type_name(V9P_TVERSION), "Tversion") &&
	       !strcmp(v9p_type_name(V9P_RLERROR), "Rlerror") &&
	       !strcmp(v9p_type_name(V9P_TUNLINKAT), "Tunlinkat") &&
	       !strcmp(v9p_type_name(V9P_RWSTAT), "Rwstat"),
	       "message names");
	tap_ok(!strcmp(v9p_type_name(V9P_TERROR), "unknown") &&
	       !strcmp(v9p_type_name(255), "unknown") &&
	       !strcmp(v9p_type_name(0), "unknown"),
	       "Terror, 255 and 0 are unknown");
	tap_ok(v9p_type_valid(V9P_TREADDIR, V9P_9P2000L) &&
	       !v9p_type_valid(V9P_TREADDIR, V9P_9P2000U) &&
	       v9p_type_valid(V9P_TSTAT, V9P_9P2000U) &&
	       !v9p_type_valid(V9P_TSTAT, V9P_9P2000L) &&
	       !v9p_type_valid(V9P_TCLUNK, (enum v9p_dialect)7),
	       "type_valid follows the dialects");
}

int main(void)
{
	check_strings();
	check_errnos();
	check_versions();
	check_names();
	return tap_done();
}
