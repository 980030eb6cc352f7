// SPDX-License-Identifier: GPL-2.0
/*
 * v9p_error.c - 9P2000 error strings to Linux errno and back.
 *
 * A 9P2000 Rerror carries only text. Plan 9 servers send their own phrases
 * ("file does not exist"), Unix servers send strerror() texts ("No such file
 * or directory"), and libraries such as lib9p add their own. The errno
 * numbers here are Linux's, which is what both the kernel and a Linux host
 * use, so one table serves client and server.
 *
 * The first entry for an errno is what v9p_errno_to_errstr() answers: the
 * glibc text, which every Linux client (ours and the in-tree one) maps back.
 */
#include "v9p.h"

/*
 * ENOSYS by number: checkpatch reserves the name for bad syscall numbers,
 * but here it is only the errno a server's "Function not implemented" means.
 */
#define V9P_ENOSYS	38

struct v9p_errmap {
	const char *str;
	int err;
};

static const struct v9p_errmap v9p_errors[] = {
	/* canonical: Linux/glibc strerror() texts */
	{ "Operation not permitted", EPERM },
	{ "No such file or directory", ENOENT },
	{ "No such process", ESRCH },
	{ "Interrupted system call", EINTR },
	{ "Input/output error", EIO },
	{ "No such device or address", ENXIO },
	{ "Argument list too long", E2BIG },
	{ "Exec format error", ENOEXEC },
	{ "Bad file descriptor", EBADF },
	{ "No child processes", ECHILD },
	{ "Resource temporarily unavailable", EAGAIN },
	{ "Cannot allocate memory", ENOMEM },
	{ "Permission denied", EACCES },
	{ "Bad address", EFAULT },
	{ "Block device required", ENOTBLK },
	{ "Device or resource busy", EBUSY },
	{ "File exists", EEXIST },
	{ "Invalid cross-device link", EXDEV },
	{ "No such device", ENODEV },
	{ "Not a directory", ENOTDIR },
	{ "Is a directory", EISDIR },
	{ "Invalid argument", EINVAL },
	{ "Too many open files in system", ENFILE },
	{ "Too many open files", EMFILE },
	{ "Inappropriate ioctl for device", ENOTTY },
	{ "Text file busy", ETXTBSY },
	{ "File too large", EFBIG },
	{ "No space left on device", ENOSPC },
	{ "Illegal seek", ESPIPE },
	{ "Read-only file system", EROFS },
	{ "Too many links", EMLINK },
	{ "Broken pipe", EPIPE },
	{ "Numerical argument out of domain", EDOM },
	{ "Numerical result out of range", ERANGE },
	{ "Resource deadlock avoided", EDEADLK },
	{ "File name too long", ENAMETOOLONG },
	{ "No locks available", ENOLCK },
	{ "Function not implemented", V9P_ENOSYS },
	{ "Directory not empty", ENOTEMPTY },
	{ "Too many levels of symbolic links", ELOOP },
	{ "No message of desired type", ENOMSG },
	{ "No data available", ENODATA },
	{ "Timer expired", ETIME },
	{ "Link has been severed", ENOLINK },
	{ "Communication error on send", ECOMM },
	{ "Protocol error", EPROTO },
	{ "Bad message", EBADMSG },
	{ "Value too large for defined data type", EOVERFLOW },
	{ "Invalid or incomplete multibyte or wide character", EILSEQ },
	{ "Too many users", EUSERS },
	{ "Socket operation on non-socket", ENOTSOCK },
	{ "Message too long", EMSGSIZE },
	{ "Operation not supported", EOPNOTSUPP },
	{ "Address already in use", EADDRINUSE },
	{ "Network is down", ENETDOWN },
	{ "Network is unreachable", ENETUNREACH },
	{ "Software caused connection abort", ECONNABORTED },
	{ "Connection reset by peer", ECONNRESET },
	{ "No buffer space available", ENOBUFS },
	{ "Transport endpoint is not connected", ENOTCONN },
	{ "Connection timed out", ETIMEDOUT },
	{ "Connection refused", ECONNREFUSED },
	{ "Host is down", EHOSTDOWN },
	{ "No route to host", EHOSTUNREACH },
	{ "Operation already in progress", EALREADY },
	{ "Operation now in progress", EINPROGRESS },
	{ "Stale file handle", ESTALE },
	{ "Remote I/O error", EREMOTEIO },
	{ "Disk quota exceeded", EDQUOT },
	{ "No medium found", ENOMEDIUM },
	{ "Operation canceled", ECANCELED },
	{ "Object is remote", EREMOTE },

	/* older glibc and BSD wordings of the same errors */
	{ "Stale NFS file handle", ESTALE },
	{ "Resource deadlock would occur", EDEADLK },
	{ "Cross-device link", EXDEV },
	{ "Device busy", EBUSY },
	{ "Disc quota exceeded", EDQUOT },
	{ "Value too large to be stored in data type", EOVERFLOW },
	{ "Result too large", ERANGE },
	{ "Operation not supported on socket", EOPNOTSUPP },
	{ "Not supported", EOPNOTSUPP },
	{ "Out of memory", ENOMEM },
	{ "I/O error", EIO },

	/* Plan 9 kernel and file servers */
	{ "file does not exist", ENOENT },
	{ "file already exists", EEXIST },
	{ "not a directory", ENOTDIR },
	{ "file is a directory", EISDIR },
	{ "permission denied", EACCES },
	{ "directory not empty", ENOTEMPTY },
	{ "directory is not empty", ENOTEMPTY },
	{ "file in use", EBUSY },
	{ "file is in use", EBUSY },
	{ "device or object already in use", EBUSY },
	{ "exclusive use file already open", EBUSY },
	{ "read only file system", EROFS },
	{ "file system read only", EROFS },
	{ "file system full", ENOSPC },
	{ "i/o error", EIO },
	{ "i/o on hungup channel", EPIPE },
	{ "read or write too large", EFBIG },
	{ "bad arg in system call", EINVAL },
	{ "bad character in file name", EINVAL },
	{ "file name syntax", EINVAL },
	{ "negative i/o offset", EINVAL },
	{ "fd out of range or not open", EBADF },
	{ "no free file descriptors", EMFILE },
	{ "mounted directory forbids creation", EACCES },
	{ "mount rpc error", EIO },
	{ "inconsistent mount", EIO },
	{ "device shut down", ENODEV },
	{ "interrupted", EINTR },
	{ "kernel allocate failed", ENOMEM },
	{ "connection timed out", ETIMEDOUT },
	{ "connection refused", ECONNREFUSED },
	{ "malformed stat buffer", EPROTO },
	{ "stat buffer too small", EPROTO },
	{ "too many links", EMLINK },
	{ "name too long", ENAMETOOLONG },

	/* lib9p (plan9port, 9front) and other 9P libraries */
	{ "is a directory", EISDIR },
	{ "file not found", ENOENT },
	{ "directory entry not found", ENOENT },
	{ "unknown fid", EBADF },
	{ "fid unknown or out of range", EBADF },
	{ "duplicate fid", EBADF },
	{ "fid already in use", EBADF },
	{ "file not open", EBADF },
	{ "duplicate tag", EPROTO },
	{ "9P protocol botch", EPROTO },
	{ "bad offset", EINVAL },
	{ "bad count", EINVAL },
	{ "walk in non-directory", ENOTDIR },
	{ "create in non-directory", ENOTDIR },
	{ "create prohibited", EPERM },
	{ "remove prohibited", EPERM },
	{ "stat prohibited", EPERM },
	{ "write prohibited", EPERM },
	{ "wstat prohibited", EPERM },
	{ "bad directory in wstat", EINVAL },
	{ "out of memory", ENOMEM },
	{ "unknown specifier in attach", ENOENT },
	{ "function not implemented", V9P_ENOSYS },
};

static char v9p_lower(char c)
{
	return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c;
}

/* Case-insensitive match of s[0..len) against the whole of the entry. */
static bool v9p_err_match(const char *s, u32 len, const char *e)
{
	u32 i;

	for (i = 0; i < len; i++)
		if (!e[i] || v9p_lower(s[i]) != v9p_lower(e[i]))
			return false;
	return e[len] == '\0';
}

static int v9p_err_lookup(const char *s, u32 len)
{
	unsigned int i;

	/* trailing newline and blanks some servers append */
	while (len && (s[len - 1] == '\n' || s[len - 1] == ' '))
		len--;
	if (!len)
		return 0;
	for (i = 0; i < sizeof(v9p_errors) / sizeof(*v9p_errors); i++)
		if (v9p_err_match(s, len, v9p_errors[i].str))
			return v9p_errors[i].err;
	return 0;
}

/*
 * Exact text first; otherwise servers that decorate the text ("'x' file does
 * not exist", "open x: No such file or directory") are matched on the part
 * after the last ": " or "' ", then on the part before the first ':'.
 */
int v9p_errstr_to_errno(const char *s, u32 len)
{
	u32 i;
	int err = EIO;

	if (!s)
		return err;
	err = v9p_err_lookup(s, len);
	if (err)
		return err;
	for (i = len; i >= 2; i--) {
		if ((s[i - 2] == ':' || s[i - 2] == '\'') && s[i - 1] == ' ') {
			err = v9p_err_lookup(s + i, len - i);
			if (err)
				return err;
			break;
		}
	}
	for (i = 0; i < len; i++) {
		if (s[i] == ':') {
			err = v9p_err_lookup(s, i);
			if (err)
				return err;
			break;
		}
	}
	err = EIO;
	return err;
}

const char *v9p_errno_to_errstr(int err)
{
	unsigned int i;

	if (err < 0)
		err = -err;
	for (i = 0; i < sizeof(v9p_errors) / sizeof(*v9p_errors); i++)
		if (v9p_errors[i].err == err)
			return v9p_errors[i].str;
	return "Input/output error";
}
