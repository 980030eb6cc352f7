// SPDX-License-Identifier: GPL-2.0
/*
 * posix-suite: a POSIX file-operation suite that prints TAP.
 *
 *	posix-suite [-s skip,list] [-g only,list] [-x extra,list] [-R note,list]
 *		    [-O other-dir] [-E export] [-p prefix] [-n entries] DIR
 *
 * Every check runs in a fresh sub-directory of DIR, so the same binary can be
 * pointed at tmpfs (the baseline) and at any 9P mount, whatever the client.
 * One TAP line per check; a failing check says which call failed and the
 * errno text.  Groups a dialect cannot support are skipped by name with -s
 * (e.g. "-s links,symlinks,xdev-rename" for plain 9P2000) and are reported as
 * "ok - ... # SKIP" so the skip is visible rather than silent. With -g only
 * the groups named run; a group that needs a client acting as each user
 * ("users", see test_users()) runs only when named with -g.
 *
 * Opt-in groups, off unless -g or -x names them (-x adds them to the default
 * set): users; locks (fcntl and flock between processes, F_SETLKW interrupted
 * by a signal, release on close and exit); xattr (user.*); statfs-df (the
 * numbers are sane, and with -E match the export's own statfs); xdir-rename
 * (files and directories moved between directories, over existing targets).
 * -s subsec-times skips the users group's checks that a time moves within a
 * tick, for a dialect of whole-second times and no ctime (9P2000.u).
 * -E names the local directory DIR's server exports: statfs-df compares with
 * it, and xattr SKIPs when the export's filesystem has no user.* xattrs, or
 * when the client refuses them on a mount that is not 9P2000.L (on a .L
 * mount of either 9P client that is a failure).
 * unlink-calls: every call a program makes on a file it holds open after
 * unlinking it (fstat, pread and pwrite past the end, ftruncate both ways,
 * fchmod, fchown as root, fsync, fdatasync, a mapping, futimens). With -O,
 * naming DIR as a second mount of the same export shows it, unlink-other
 * runs the same calls on a file whose name that other mount removed.
 * -R names groups whose checks print as "# note: ok - ..." or
 * "# note: not ok - ...": outcomes shown for reference, never a failure
 * (a server or client that is not judged here).
 *
 * Exit status: 0 when every check passed or was skipped, 1 when one failed,
 * 2 on a usage error or when the working directory cannot be set up.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <grp.h>
#include <time.h>
#include <unistd.h>

static const char *prefix = "";
static int failures;
static int nr_entries = 10000;
static char *skiplist;
static char *onlylist;		/* -g: only these groups */
static char *extralist;		/* -x: opt-in groups run beside the default ones */
static char *notelist;		/* -R: groups whose checks are notes, not verdicts */
static const char *other_dir;	/* -O: DIR as another mount of the same export shows it */
static char rd_dir[4096] = "rd";	/* -D: a directory already holding the entries */
static int rd_given;

/* ---- TAP output ---------------------------------------------------- */

/* -R: while set, a check prints its outcome as a note and fails nothing */
static int noting;

static void vreport(int ok, const char *why, const char *fmt, va_list ap)
{
	printf("%s%sok - %s", noting ? "# note: " : "", ok ? "" : "not ", prefix);
	vprintf(fmt, ap);
	if (why)
		printf(": %s", why);
	putchar('\n');
	fflush(stdout);
	if (!ok && !noting)
		failures++;
}

/* A check whose outcome is a plain condition; @why explains a failure. */
static int check(int ok, const char *why, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(ok, ok ? NULL : why, fmt, ap);
	va_end(ap);
	return ok;
}

/* A check that a system call returning -1 on error succeeded. */
static int check_sys(long ret, const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	vreport(ret != -1, ret == -1 ? strerror(err) : NULL, fmt, ap);
	va_end(ap);
	return ret != -1;
}

/* A check that a system call failed with exactly @want. */
static int check_errno(long ret, int want, const char *fmt, ...)
{
	int err = errno;
	char why[160];
	int ok = ret == -1 && err == want;
	va_list ap;

	if (ret != -1)
		snprintf(why, sizeof(why), "succeeded, expected %s", strerrorname_np(want));
	else
		snprintf(why, sizeof(why), "got %s (%s), expected %s",
			 strerrorname_np(err) ? strerrorname_np(err) : "?",
			 strerror(err), strerrorname_np(want));
	va_start(ap, fmt);
	vreport(ok, ok ? NULL : why, fmt, ap);
	va_end(ap);
	return ok;
}

static int listed(const char *list, const char *group)
{
	size_t n = strlen(group);

	for (const char *p = list; p && *p;) {
		if (!strncmp(p, group, n) && (p[n] == ',' || p[n] == '\0'))
			return 1;
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return 0;
}

/* Groups that run only when -g or -x names them. */
static int opt_in(const char *group)
{
	return !strcmp(group, "users") || !strcmp(group, "locks") || !strcmp(group, "xattr") ||
	       !strcmp(group, "statfs-df") || !strcmp(group, "xdir-rename");
}

static int skipped(const char *group)
{
	const char *p = skiplist;
	size_t n = strlen(group);

	if (onlylist ? !listed(onlylist, group) : opt_in(group) && !listed(extralist, group))
		return 1;	/* silently: not asked for */

	while (p && *p) {
		if (!strncmp(p, group, n) && (p[n] == ',' || p[n] == '\0')) {
			static char told[512];
			char key[64];

			/* one SKIP line per group, however many checks it covers */
			snprintf(key, sizeof(key), ",%s,", group);
			if (!strstr(told, key)) {
				printf("ok - %s%s # SKIP disabled with -s %s\n", prefix, group, group);
				fflush(stdout);
				if (strlen(told) + strlen(key) < sizeof(told))
					strcat(told, key);
			}
			return 1;
		}
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return 0;
}

/* ---- small helpers ------------------------------------------------- */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A diagnostic line with the time since @t0, so slow phases show in the log. */
static void took(const char *what, double t0)
{
	printf("# %s%s took %.1f s\n", prefix, what, now() - t0);
}

/* Writes all of @len bytes at @off; returns 0 or -1 with errno set. */
static int pwrite_all(int fd, const void *buf, size_t len, off_t off)
{
	const char *p = buf;

	while (len) {
		ssize_t n = pwrite(fd, p, len, off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0) {
			errno = EIO;
			return -1;
		}
		p += n;
		len -= n;
		off += n;
	}
	return 0;
}

/* Reads up to @len bytes at @off, looping over short reads; returns bytes read or -1. */
static ssize_t pread_all(int fd, void *buf, size_t len, off_t off)
{
	char *p = buf;
	size_t got = 0;

	while (got < len) {
		ssize_t n = pread(fd, p + got, len - got, off + got);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			break;
		got += n;
	}
	return got;
}

static int write_file(const char *path, const char *data, size_t len)
{
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	int ret;

	if (fd < 0)
		return -1;
	ret = pwrite_all(fd, data, len, 0);
	if (close(fd) < 0)
		ret = -1;
	return ret;
}

/* Reads the whole of @path into @buf (at most @size); returns bytes or -1. */
static ssize_t read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;
	int err;

	if (fd < 0)
		return -1;
	n = pread_all(fd, buf, size, 0);
	err = errno;
	close(fd);
	errno = err;
	return n;
}

/* Does @path hold exactly @want? Fills @why on mismatch. */
static int file_is(const char *path, const char *want, char *why, size_t whylen)
{
	char buf[256];
	ssize_t n = read_file(path, buf, sizeof(buf));

	if (n < 0) {
		snprintf(why, whylen, "read %s: %s", path, strerror(errno));
		return 0;
	}
	if ((size_t)n != strlen(want) || memcmp(buf, want, n)) {
		snprintf(why, whylen, "content is \"%.*s\" (%zd bytes), expected \"%s\"",
			 (int)(n > 40 ? 40 : n), buf, n, want);
		return 0;
	}
	return 1;
}

static void fill_pattern(unsigned char *buf, size_t len, unsigned int seed)
{
	uint32_t x = seed * 2654435761u + 1;
	size_t i;

	for (i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		buf[i] = x;
	}
}

static size_t first_diff(const unsigned char *a, const unsigned char *b, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (a[i] != b[i])
			return i;
	return len;
}

/* ---- groups -------------------------------------------------------- */

static void test_create(void)
{
	struct stat st;
	int fd;

	if (skipped("create"))
		return;
	fd = open("c1", O_CREAT | O_EXCL | O_WRONLY, 0640);
	if (!check_sys(fd, "create: open(O_CREAT|O_EXCL) of a new file"))
		return;
	if (check_sys(fstat(fd, &st), "create: fstat of the new file")) {
		check(S_ISREG(st.st_mode), "not a regular file",
		      "create: new file is a regular file");
		check(st.st_size == 0, "size is not 0", "create: new file is empty");
		check((st.st_mode & 07777) == 0640, "mode differs",
		      "create: new file has mode 0640 (got %04o)", st.st_mode & 07777);
	}
	close(fd);
	check_sys(stat("c1", &st), "create: stat by name finds the new file");
	fd = open("c1", O_CREAT | O_WRONLY, 0600);
	check_sys(fd, "create: open(O_CREAT) of an existing file opens it");
	if (fd >= 0)
		close(fd);
}

static void test_rw(void)
{
	const size_t big = 1 << 20;
	unsigned char *wbuf, *rbuf;
	char why[200];
	struct stat st;
	ssize_t n;
	size_t d;
	int fd;

	if (skipped("rw"))
		return;
	fd = open("rw1", O_CREAT | O_RDWR | O_TRUNC, 0644);
	if (!check_sys(fd, "rw: open(O_RDWR|O_CREAT)"))
		return;
	check_sys(write(fd, "hello, ", 7), "rw: write a first chunk");
	check_sys(write(fd, "world", 5), "rw: write a second chunk after it");
	check(file_is("rw1", "hello, world", why, sizeof(why)), why,
	      "rw: both writes read back in order through a new fd");
	check_sys(pwrite_all(fd, "W", 1, 7), "rw: pwrite one byte at offset 7");
	check(file_is("rw1", "hello, World", why, sizeof(why)), why,
	      "rw: pwrite replaced exactly one byte");
	n = pread(fd, why, sizeof(why), 12);
	check(n == 0, n < 0 ? strerror(errno) : "returned data",
	      "rw: pread at end of file returns 0");
	close(fd);

	wbuf = malloc(big);
	rbuf = malloc(big);
	if (!wbuf || !rbuf) {
		check(0, "out of memory", "rw: buffers for 1 MiB transfer");
		goto out;
	}
	fill_pattern(wbuf, big, 1);
	fd = open("rw2", O_CREAT | O_RDWR | O_TRUNC, 0644);
	if (!check_sys(fd, "rw: open a file for a 1 MiB transfer"))
		goto out;
	check_sys(pwrite_all(fd, wbuf, big, 0), "rw: write 1 MiB in one call");
	check_sys(fsync(fd), "rw: fsync");
	if (check_sys(fstat(fd, &st), "rw: fstat after 1 MiB write"))
		check(st.st_size == (off_t)big, "wrong size",
		      "rw: size is 1048576 after 1 MiB write (got %lld)", (long long)st.st_size);
	close(fd);
	fd = open("rw2", O_RDONLY);
	if (!check_sys(fd, "rw: reopen the 1 MiB file read-only"))
		goto out;
	memset(rbuf, 0, big);
	n = pread_all(fd, rbuf, big, 0);
	if (n < 0) {
		check_sys(-1, "rw: 1 MiB reads back identical");
	} else {
		d = first_diff(wbuf, rbuf, n);
		snprintf(why, sizeof(why), "got %zd bytes, first difference at %zu", n, d);
		check(n == (ssize_t)big && d == big, why, "rw: 1 MiB reads back identical");
	}
	/* an unaligned read that straddles transfer boundaries */
	n = pread_all(fd, rbuf, 100000, 12345);
	check(n == 100000 && !memcmp(rbuf, wbuf + 12345, 100000),
	      n < 0 ? strerror(errno) : "data differs",
	      "rw: unaligned 100000-byte pread at 12345 matches");
	close(fd);
out:
	free(wbuf);
	free(rbuf);
}

static void test_append(void)
{
	char why[200];
	off_t pos;
	int fa, fb, fw;

	if (skipped("append"))
		return;
	if (!check_sys(write_file("ap", "0123456789", 10), "append: create a 10-byte file"))
		return;
	fa = open("ap", O_WRONLY | O_APPEND);
	if (!check_sys(fa, "append: open(O_APPEND)"))
		return;
	check_sys(write(fa, "ab", 2), "append: write through the O_APPEND fd");
	check(file_is("ap", "0123456789ab", why, sizeof(why)), why,
	      "append: O_APPEND write landed at the end, not at offset 0");
	pos = lseek(fa, 0, SEEK_CUR);
	check(pos == 12, "wrong offset", "append: fd offset is 12 after the write (got %lld)",
	      (long long)pos);

	/* another fd grows the file; the O_APPEND fd must follow the new end */
	fw = open("ap", O_WRONLY);
	if (check_sys(fw, "append: open a second, plain fd")) {
		check_sys(pwrite_all(fw, "XYZ", 3, 12), "append: second fd extends the file");
		close(fw);
	}
	check_sys(write(fa, "cd", 2), "append: O_APPEND write after another fd grew the file");
	check(file_is("ap", "0123456789abXYZcd", why, sizeof(why)), why,
	      "append: O_APPEND write follows the end set by another fd");

	/* two O_APPEND fds interleave without overwriting each other */
	fb = open("ap", O_WRONLY | O_APPEND);
	if (check_sys(fb, "append: open a second O_APPEND fd")) {
		check_sys(write(fb, "1", 1), "append: write via second O_APPEND fd");
		check_sys(write(fa, "2", 1), "append: write via first O_APPEND fd");
		check_sys(write(fb, "3", 1), "append: write via second O_APPEND fd again");
		close(fb);
		check(file_is("ap", "0123456789abXYZcd123", why, sizeof(why)), why,
		      "append: two O_APPEND fds interleave at the end");
	}
	/* lseek does not defeat O_APPEND */
	lseek(fa, 0, SEEK_SET);
	check_sys(write(fa, "!", 1), "append: write after lseek(0) on O_APPEND fd");
	check(file_is("ap", "0123456789abXYZcd123!", why, sizeof(why)), why,
	      "append: lseek(0) then write still appends");
	close(fa);
}

static void test_truncate(void)
{
	char buf[64], why[200];
	struct stat st;
	ssize_t n;
	int fd, i, zero;

	if (skipped("truncate"))
		return;
	if (!check_sys(write_file("tr", "abcdefghij", 10), "truncate: create a 10-byte file"))
		return;
	check_sys(truncate("tr", 4), "truncate: truncate(path, 4) shrinks");
	check(file_is("tr", "abcd", why, sizeof(why)), why,
	      "truncate: shrunk file holds its first 4 bytes");
	check_sys(truncate("tr", 32), "truncate: truncate(path, 32) grows");
	n = read_file("tr", buf, sizeof(buf));
	zero = n == 32 && !memcmp(buf, "abcd", 4);
	for (i = 4; zero && i < 32; i++)
		zero = buf[i] == 0;
	check(zero, n < 0 ? strerror(errno) : "wrong size or non-zero tail",
	      "truncate: grown file reads 32 bytes, zeros past the old end");
	fd = open("tr", O_RDWR);
	if (check_sys(fd, "truncate: open for ftruncate")) {
		check_sys(ftruncate(fd, 2), "truncate: ftruncate(fd, 2)");
		if (check_sys(fstat(fd, &st), "truncate: fstat after ftruncate"))
			check(st.st_size == 2, "wrong size",
			      "truncate: fstat size is 2 after ftruncate (got %lld)",
			      (long long)st.st_size);
		check_sys(ftruncate(fd, 0), "truncate: ftruncate(fd, 0)");
		n = pread(fd, buf, sizeof(buf), 0);
		check(n == 0, n < 0 ? strerror(errno) : "data remains",
		      "truncate: read after ftruncate(0) returns 0");
		close(fd);
	}
	check_sys(write_file("tr", "abcdefghij", 10), "truncate: refill the file");
	fd = open("tr", O_WRONLY | O_TRUNC);
	if (check_sys(fd, "truncate: open(O_TRUNC)")) {
		if (check_sys(fstat(fd, &st), "truncate: fstat after O_TRUNC"))
			check(st.st_size == 0, "not empty",
			      "truncate: O_TRUNC empties the file (size %lld)",
			      (long long)st.st_size);
		close(fd);
	}
}

static void test_rename(void)
{
	char why[200];
	struct stat st;

	if (skipped("rename"))
		return;
	if (!check_sys(write_file("rn-a", "A", 1), "rename: create source file"))
		return;
	check_sys(rename("rn-a", "rn-b"), "rename: rename within a directory");
	check_errno(stat("rn-a", &st), ENOENT, "rename: old name is gone");
	check(file_is("rn-b", "A", why, sizeof(why)), why, "rename: new name has the content");

	check_sys(write_file("rn-c", "C", 1), "rename: create a target to overwrite");
	check_sys(rename("rn-b", "rn-c"), "rename: rename over an existing file");
	check_errno(stat("rn-b", &st), ENOENT, "rename: source name is gone after overwrite");
	check(file_is("rn-c", "A", why, sizeof(why)), why,
	      "rename: target now has the source's content");

	check_sys(mkdir("rn-d", 0755), "rename: mkdir for directory rename");
	check_sys(rename("rn-d", "rn-e"), "rename: rename a directory");
	check_sys(stat("rn-e", &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -1,
		  "rename: renamed directory is a directory");
	rmdir("rn-e");

	if (skipped("xdev-rename"))
		return;
	check_sys(mkdir("rn-x", 0755), "xdev-rename: mkdir target directory");
	check_sys(rename("rn-c", "rn-x/moved"), "xdev-rename: rename into another directory");
	check_errno(stat("rn-c", &st), ENOENT, "xdev-rename: old name is gone");
	check(file_is("rn-x/moved", "A", why, sizeof(why)), why,
	      "xdev-rename: file is found in the other directory");
	check_sys(rename("rn-x/moved", "rn-back"), "xdev-rename: rename back to the parent");
	check(file_is("rn-back", "A", why, sizeof(why)), why,
	      "xdev-rename: file is back in the parent");
}

static void test_links(void)
{
	struct stat a, b;
	char why[200];

	if (skipped("links"))
		return;
	if (!check_sys(write_file("ln-a", "L", 1), "links: create a file"))
		return;
	check_sys(link("ln-a", "ln-b"), "links: link(ln-a, ln-b)");
	if (check_sys(stat("ln-a", &a), "links: stat original") &&
	    check_sys(stat("ln-b", &b), "links: stat link")) {
		if (!skipped("nlink"))
			check(a.st_nlink == 2, "wrong nlink", "nlink: nlink is 2 (got %lu)",
			      (unsigned long)a.st_nlink);
		check(a.st_ino == b.st_ino, "inode numbers differ",
		      "links: both names have the same inode number");
	}
	check_sys(write_file("ln-b", "M", 1), "links: write through the second name");
	check(file_is("ln-a", "M", why, sizeof(why)), why, "links: change seen via the first name");
	check_sys(unlink("ln-a"), "links: unlink the first name");
	check(file_is("ln-b", "M", why, sizeof(why)), why,
	      "links: the second name still has the data");
	if (check_sys(stat("ln-b", &b), "links: stat remaining name") && !skipped("nlink"))
		check(b.st_nlink == 1, "wrong nlink", "nlink: nlink back to 1 (got %lu)",
		      (unsigned long)b.st_nlink);
	check_errno(link("ln-none", "ln-c"), ENOENT, "links: link to a missing file is ENOENT");
}

static void test_symlinks(void)
{
	char buf[256], why[200];
	struct stat st;
	ssize_t n;

	if (skipped("symlinks"))
		return;
	check_sys(write_file("sl-target", "T", 1), "symlinks: create target");
	if (!check_sys(symlink("sl-target", "sl-link"), "symlinks: symlink(sl-target, sl-link)"))
		return;
	n = readlink("sl-link", buf, sizeof(buf));
	check(n == 9 && !memcmp(buf, "sl-target", 9), n < 0 ? strerror(errno) : "wrong target",
	      "symlinks: readlink returns the target");
	if (check_sys(lstat("sl-link", &st), "symlinks: lstat the link"))
		check(S_ISLNK(st.st_mode), "not a symlink", "symlinks: lstat says S_IFLNK");
	if (check_sys(stat("sl-link", &st), "symlinks: stat follows the link"))
		check(S_ISREG(st.st_mode) && st.st_size == 1, "wrong file",
		      "symlinks: stat sees the 1-byte target");
	check(file_is("sl-link", "T", why, sizeof(why)), why, "symlinks: open follows the link");
	check_sys(symlink("no/such/target", "sl-dangling"), "symlinks: dangling symlink");
	check_errno(open("sl-dangling", O_RDONLY), ENOENT,
		    "symlinks: opening a dangling link is ENOENT");
	n = readlink("sl-target", buf, sizeof(buf));
	check_errno(n, EINVAL, "symlinks: readlink of a regular file is EINVAL");
	check_sys(unlink("sl-link"), "symlinks: unlink the link");
	check_sys(stat("sl-target", &st), "symlinks: target survives unlink of the link");
}

static void test_mkdir(void)
{
	struct stat st;

	if (skipped("mkdir"))
		return;
	if (!check_sys(mkdir("md", 0750), "mkdir: mkdir(md, 0750)"))
		return;
	if (check_sys(stat("md", &st), "mkdir: stat the new directory")) {
		check(S_ISDIR(st.st_mode), "not a directory", "mkdir: it is a directory");
		check((st.st_mode & 0777) == 0750, "mode differs",
		      "mkdir: mode is 0750 (got %04o)", st.st_mode & 07777);
	}
	check_errno(mkdir("md", 0755), EEXIST, "mkdir: mkdir of an existing name is EEXIST");
	check_sys(mkdir("md/sub", 0755), "mkdir: nested mkdir");
	check_sys(write_file("md/sub/f", "x", 1), "mkdir: create a file in the nested dir");
	check_errno(rmdir("md/sub"), ENOTEMPTY, "mkdir: rmdir of a non-empty directory");
	check_sys(unlink("md/sub/f"), "mkdir: unlink the file");
	check_sys(rmdir("md/sub"), "mkdir: rmdir of the now empty directory");
	check_errno(stat("md/sub", &st), ENOENT, "mkdir: removed directory is gone");
	check_sys(rmdir("md"), "mkdir: rmdir the parent");
}

static void test_readdir(void)
{
	char name[4200];
	unsigned char *seen;
	int i, fd, created = 0, dups = 0, missing = 0, strays = 0;
	struct dirent *de;
	double t0;
	long pos;
	DIR *d;

	if (skipped("readdir"))
		return;
	t0 = now();
	if (rd_given) {
		/* made beforehand (posix-suite -M), so only the listing is measured */
		printf("# %sreaddir: listing the %d entries made beforehand in %s\n", prefix,
		       nr_entries, rd_dir);
	} else {
		if (!check_sys(mkdir(rd_dir, 0755), "readdir: mkdir"))
			return;
		for (i = 0; i < nr_entries; i++) {
			snprintf(name, sizeof(name), "%s/entry-%05d", rd_dir, i);
			fd = open(name, O_CREAT | O_EXCL | O_WRONLY, 0644);
			if (fd < 0)
				break;
			close(fd);
			created++;
		}
		if (!check(created == nr_entries, strerror(errno),
			   "readdir: create %d files (created %d)", nr_entries, created))
			goto cleanup;
		took("readdir: creating the files", t0);
	}
	t0 = now();
	seen = calloc(nr_entries, 1);
	d = opendir(rd_dir);
	if (!check_sys(d ? 0 : -1, "readdir: opendir") || !seen) {
		free(seen);
		goto cleanup;
	}
	errno = 0;
	while ((de = readdir(d))) {
		int idx;
		char tail;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (sscanf(de->d_name, "entry-%d%c", &idx, &tail) != 1 ||
		    idx < 0 || idx >= nr_entries) {
			strays++;
			continue;
		}
		if (seen[idx]++)
			dups++;
	}
	check_sys(errno ? -1 : 0, "readdir: readdir ends without an error");
	for (i = 0; i < nr_entries; i++)
		missing += !seen[i];
	check(!missing && !dups && !strays, "mismatch",
	      "readdir: all %d names seen exactly once (%d missing, %d duplicates, %d strays)",
	      nr_entries, missing, dups, strays);

	took("readdir: listing them", t0);
	t0 = now();
	if (!skipped("seekdir")) {
		char want[5][256];
		int k, same = 1;

		rewinddir(d);
		for (i = 0; i < nr_entries / 2 && readdir(d); i++)
			;
		pos = telldir(d);
		check_sys(pos, "seekdir: telldir in the middle of a large directory");
		for (k = 0; k < 5; k++) {
			de = readdir(d);
			snprintf(want[k], sizeof(want[k]), "%s", de ? de->d_name : "(end)");
		}
		/* read on a little, then jump back */
		for (i = 0; i < 100 && readdir(d); i++)
			;
		seekdir(d, pos);
		for (k = 0; k < 5; k++) {
			de = readdir(d);
			if (strcmp(want[k], de ? de->d_name : "(end)"))
				same = 0;
		}
		check(same, "different entries after seekdir",
		      "seekdir: seekdir(telldir()) returns the same 5 entries");
		rewinddir(d);
		memset(seen, 0, nr_entries);
		missing = 0;
		while ((de = readdir(d))) {
			int idx;

			if (sscanf(de->d_name, "entry-%d", &idx) == 1 && idx >= 0 &&
			    idx < nr_entries)
				seen[idx] = 1;
		}
		for (i = 0; i < nr_entries; i++)
			missing += !seen[i];
		check(!missing, "entries missing",
		      "seekdir: rewinddir then a full pass sees every entry (%d missing)", missing);
	}
	took("seekdir: the seekdir checks", t0);
	closedir(d);
	free(seen);
cleanup:
	if (rd_given)
		return;
	t0 = now();
	for (i = 0; i < created; i++) {
		snprintf(name, sizeof(name), "%s/entry-%05d", rd_dir, i);
		unlink(name);
	}
	check_sys(rmdir(rd_dir), "readdir: remove the %d entries and the directory", created);
	took("readdir: removing them", t0);
}

static void test_chmod(void)
{
	struct stat st;
	int fd;

	if (skipped("chmod"))
		return;
	if (!check_sys(write_file("cm", "x", 1), "chmod: create a file"))
		return;
	check_sys(chmod("cm", 0604), "chmod: chmod(0604)");
	if (check_sys(stat("cm", &st), "chmod: stat"))
		check((st.st_mode & 07777) == 0604, "mode differs",
		      "chmod: mode is 0604 (got %04o)", st.st_mode & 07777);
	fd = open("cm", O_RDONLY);
	if (check_sys(fd, "chmod: open for fchmod")) {
		check_sys(fchmod(fd, 0750), "chmod: fchmod(0750)");
		if (check_sys(fstat(fd, &st), "chmod: fstat"))
			check((st.st_mode & 07777) == 0750, "mode differs",
			      "chmod: mode is 0750 (got %04o)", st.st_mode & 07777);
		close(fd);
	}
}

static void test_chown(void)
{
	struct stat st;

	if (skipped("chown"))
		return;
	if (geteuid() != 0) {
		printf("ok - %schown # SKIP not running as root\n", prefix);
		return;
	}
	if (!check_sys(write_file("co", "x", 1), "chown: create a file"))
		return;
	check_sys(chown("co", 1234, 5678), "chown: chown(1234, 5678) as root");
	if (check_sys(stat("co", &st), "chown: stat"))
		check(st.st_uid == 1234 && st.st_gid == 5678, "owner differs",
		      "chown: owner is 1234:5678 (got %u:%u)", st.st_uid, st.st_gid);
	check_sys(chown("co", -1, 4321), "chown: chown(-1, 4321) changes only the group");
	if (check_sys(stat("co", &st), "chown: stat again"))
		check(st.st_uid == 1234 && st.st_gid == 4321, "owner differs",
		      "chown: owner is 1234:4321 (got %u:%u)", st.st_uid, st.st_gid);
}

static void test_utimes(void)
{
	struct timespec ts[2] = {
		{ .tv_sec = 1000000000, .tv_nsec = 0 },	/* 2001-09-09 */
		{ .tv_sec = 1234567890, .tv_nsec = 0 },	/* 2009-02-13 */
	};
	struct stat st;
	time_t before;

	if (skipped("utimes"))
		return;
	if (!check_sys(write_file("ut", "x", 1), "utimes: create a file"))
		return;
	check_sys(utimensat(AT_FDCWD, "ut", ts, 0), "utimes: set atime and mtime");
	if (check_sys(stat("ut", &st), "utimes: stat")) {
		check(st.st_mtime == ts[1].tv_sec, "mtime differs",
		      "utimes: mtime is 1234567890 (got %lld)", (long long)st.st_mtime);
		check(st.st_atime == ts[0].tv_sec, "atime differs",
		      "utimes: atime is 1000000000 (got %lld)", (long long)st.st_atime);
	}
	before = time(NULL) - 5;
	check_sys(utimensat(AT_FDCWD, "ut", NULL, 0), "utimes: set times to now");
	if (check_sys(stat("ut", &st), "utimes: stat after touch"))
		check(st.st_mtime >= before, "mtime not recent",
		      "utimes: mtime is now (got %lld, now about %lld)",
		      (long long)st.st_mtime, (long long)before + 5);
}

static void test_statfs(void)
{
	struct statfs sf;

	if (skipped("statfs"))
		return;
	if (check_sys(statfs(".", &sf), "statfs: statfs(\".\")"))
		check(sf.f_bsize > 0, "f_bsize is 0", "statfs: block size is positive (%ld)",
		      (long)sf.f_bsize);
}

static void test_unlink_open(void)
{
	char buf[32];
	struct stat st;
	ssize_t n;
	int fd;

	if (skipped("unlink-open"))
		return;
	fd = open("uo", O_CREAT | O_RDWR | O_TRUNC, 0644);
	if (!check_sys(fd, "unlink-open: create and open a file"))
		return;
	check_sys(pwrite_all(fd, "before", 6, 0), "unlink-open: write before unlink");
	check_sys(unlink("uo"), "unlink-open: unlink while open");
	check_errno(stat("uo", &st), ENOENT, "unlink-open: name is gone");
	n = pread(fd, buf, sizeof(buf), 0);
	check(n == 6 && !memcmp(buf, "before", 6), n < 0 ? strerror(errno) : "wrong data",
	      "unlink-open: fd still reads the data");
	check_sys(pwrite_all(fd, "-after", 6, 6), "unlink-open: fd still writes");
	n = pread(fd, buf, sizeof(buf), 0);
	check(n == 12 && !memcmp(buf, "before-after", 12), n < 0 ? strerror(errno) : "wrong data",
	      "unlink-open: fd reads back what it wrote after unlink");
	if (check_sys(fstat(fd, &st), "unlink-open: fstat on the unlinked file"))
		check(st.st_size == 12, "wrong size", "unlink-open: size is 12 (got %lld)",
		      (long long)st.st_size);
	check_sys(close(fd), "unlink-open: close the unlinked file");
}

/*
 * What a program does with a file it holds open after the file's last name
 * is gone, as on a local filesystem: @fd holds "before" at offset 0 and no
 * name any more. @g names the group in each check. Closes @fd.
 */
static void unlinked_calls(int fd, const char *g)
{
	static const char zeros[64];
	struct timespec ts[2] = { { 1234567890, 0 }, { 1234567890, 0 } };
	char buf[64];
	struct stat st;
	ssize_t n;
	void *map;

	if (check_sys(fstat(fd, &st), "%s: fstat of the unlinked file", g) &&
	    !listed(skiplist, "nlink"))
		check(st.st_nlink == 0, "a link is left", "%s: fstat shows nlink 0 (got %lu)",
		      g, (unsigned long)st.st_nlink);
	n = pread_all(fd, buf, sizeof(buf), 0);
	check(n == 6 && !memcmp(buf, "before", 6), n < 0 ? strerror(errno) : "wrong data",
	      "%s: pread of the data written before the unlink", g);

	/* past the old end: the hole between reads back as zeros */
	check_sys(pwrite_all(fd, "past", 4, 65536), "%s: pwrite at 64 KiB, past the end", g);
	n = pread_all(fd, buf, 4, 65536);
	check(n == 4 && !memcmp(buf, "past", 4), n < 0 ? strerror(errno) : "wrong data",
	      "%s: pread at 64 KiB reads it back", g);
	n = pread_all(fd, buf, sizeof(buf), 4096);
	check(n == sizeof(buf) && !memcmp(buf, zeros, sizeof(buf)),
	      n < 0 ? strerror(errno) : "not zeros", "%s: the hole before it reads as zeros", g);
	if (check_sys(fstat(fd, &st), "%s: fstat after the pwrite", g))
		check(st.st_size == 65540, "wrong size", "%s: size is 65540 (got %lld)", g,
		      (long long)st.st_size);

	/* ftruncate larger, then smaller than the data */
	check_sys(ftruncate(fd, 131072), "%s: ftruncate to 128 KiB (grow)", g);
	if (check_sys(fstat(fd, &st), "%s: fstat after growing", g))
		check(st.st_size == 131072, "wrong size", "%s: size is 131072 (got %lld)", g,
		      (long long)st.st_size);
	n = pread_all(fd, buf, sizeof(buf), 131072 - sizeof(buf));
	check(n == sizeof(buf) && !memcmp(buf, zeros, sizeof(buf)),
	      n < 0 ? strerror(errno) : "not zeros", "%s: the grown tail reads as zeros", g);
	n = pread_all(fd, buf, 4, 65536);
	check(n == 4 && !memcmp(buf, "past", 4), n < 0 ? strerror(errno) : "wrong data",
	      "%s: the data before the grown tail is kept", g);
	check_sys(ftruncate(fd, 6), "%s: ftruncate to 6 bytes (shrink)", g);
	if (check_sys(fstat(fd, &st), "%s: fstat after shrinking", g))
		check(st.st_size == 6, "wrong size", "%s: size is 6 (got %lld)", g,
		      (long long)st.st_size);
	n = pread_all(fd, buf, sizeof(buf), 0);
	check(n == 6 && !memcmp(buf, "before", 6), n < 0 ? strerror(errno) : "wrong data",
	      "%s: pread after shrinking reads the 6 bytes kept", g);

	check_sys(fchmod(fd, 0600), "%s: fchmod 0600", g);
	if (check_sys(fstat(fd, &st), "%s: fstat after fchmod", g))
		check((st.st_mode & 07777) == 0600, "wrong mode", "%s: mode is 0600 (got %o)", g,
		      (unsigned int)(st.st_mode & 07777));
	if (geteuid() == 0 && !listed(skiplist, "chown")) {
		check_sys(fchown(fd, 2001, 2002), "%s: fchown to 2001:2002 (as root)", g);
		if (check_sys(fstat(fd, &st), "%s: fstat after fchown", g))
			check(st.st_uid == 2001 && st.st_gid == 2002, "wrong owner",
			      "%s: owner is 2001:2002 (got %u:%u)", g, (unsigned int)st.st_uid,
			      (unsigned int)st.st_gid);
		check_sys(fchown(fd, 0, 0), "%s: fchown back to 0:0", g);
		if (check_sys(fstat(fd, &st), "%s: fstat after fchown back", g))
			check(st.st_uid == 0 && st.st_gid == 0, "wrong owner",
			      "%s: owner is 0:0 again (got %u:%u)", g, (unsigned int)st.st_uid,
			      (unsigned int)st.st_gid);
	}

	check_sys(fsync(fd), "%s: fsync", g);
	check_sys(fdatasync(fd), "%s: fdatasync", g);

	map = mmap(NULL, 6, PROT_READ, MAP_PRIVATE, fd, 0);
	if (check(map != MAP_FAILED, strerror(errno), "%s: mmap(PROT_READ, MAP_PRIVATE)", g)) {
		check(!memcmp(map, "before", 6), "wrong data", "%s: the mapping shows the data", g);
		munmap(map, 6);
	}

	if (!listed(skiplist, "utimes")) {
		check_sys(futimens(fd, ts), "%s: futimens", g);
		if (check_sys(fstat(fd, &st), "%s: fstat after futimens", g))
			check(st.st_mtime == 1234567890 && st.st_atime == 1234567890, "wrong times",
			      "%s: atime and mtime are what futimens set (got %lld, %lld)", g,
			      (long long)st.st_atime, (long long)st.st_mtime);
	}
	check_sys(close(fd), "%s: close", g);
}

/* Opens @name read-write after writing "before" into it; the descriptor or -1. */
static int open_before(const char *name, const char *g)
{
	int fd = open(name, O_CREAT | O_RDWR | O_TRUNC, 0644);

	if (!check_sys(fd, "%s: create and open a file", g))
		return -1;
	if (!check_sys(pwrite_all(fd, "before", 6, 0), "%s: write before the unlink", g)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Every call of unlinked_calls() on a file unlinked through this mount. */
static void test_unlink_calls(void)
{
	const char *g = "unlink-calls";
	int fd;

	if (skipped(g))
		return;
	noting = listed(notelist, g);
	fd = open_before("uc", g);
	if (fd >= 0 && check_sys(unlink("uc"), "%s: unlink while open", g))
		unlinked_calls(fd, g);
	else if (fd >= 0)
		close(fd);
	noting = 0;
}

/*
 * The same, with the name removed through another mount of the export (-O),
 * another client as far as the server can tell, while this one holds the
 * file open.
 */
static void test_unlink_other(void)
{
	const char *g = "unlink-other";
	char there[4096];
	struct stat st;
	int fd;

	if (!other_dir || skipped(g))
		return;
	noting = listed(notelist, g);
	snprintf(there, sizeof(there), "%s/posix-suite.%d/uo-other", other_dir, (int)getpid());
	fd = open_before("uo-other", g);
	if (fd >= 0 && check_sys(unlink(there), "%s: unlink through the other mount", g)) {
		check_errno(stat("uo-other", &st), ENOENT, "%s: the name is gone here too", g);
		unlinked_calls(fd, g);
	} else if (fd >= 0) {
		close(fd);
	}
	noting = 0;
}

static void test_excl(void)
{
	int fd;

	if (skipped("excl"))
		return;
	if (!check_sys(write_file("ex", "x", 1), "excl: create a file"))
		return;
	fd = open("ex", O_CREAT | O_EXCL | O_WRONLY, 0644);
	check_errno(fd, EEXIST, "excl: O_CREAT|O_EXCL on an existing file is EEXIST");
	if (fd >= 0)
		close(fd);
	fd = open("ex-new", O_CREAT | O_EXCL | O_WRONLY, 0644);
	check_sys(fd, "excl: O_CREAT|O_EXCL on a new name succeeds");
	if (fd >= 0)
		close(fd);
}

static void test_errors(void)
{
	struct stat st;

	if (skipped("errors"))
		return;
	write_file("er-file", "x", 1);
	check_errno(open("er-none", O_RDONLY), ENOENT, "errors: open of a missing file is ENOENT");
	check_errno(stat("er-none/x", &st), ENOENT, "errors: stat below a missing dir is ENOENT");
	check_errno(unlink("er-none"), ENOENT, "errors: unlink of a missing file is ENOENT");
	check_errno(rmdir("er-none"), ENOENT, "errors: rmdir of a missing dir is ENOENT");
	check_errno(rename("er-none", "er-x"), ENOENT,
		    "errors: rename of a missing file is ENOENT");
	check_errno(stat("er-file/x", &st), ENOTDIR,
		    "errors: stat below a regular file is ENOTDIR");
	check_errno(open("er-file/x", O_CREAT | O_WRONLY, 0644), ENOTDIR,
		    "errors: create below a regular file is ENOTDIR");
	check_errno(rmdir("er-file"), ENOTDIR, "errors: rmdir of a regular file is ENOTDIR");
	mkdir("er-dir", 0755);
	check_errno(open("er-dir", O_WRONLY), EISDIR,
		    "errors: opening a directory for writing is EISDIR");
	check_errno(unlink("er-dir"), EISDIR, "errors: unlink of a directory is EISDIR");
}

static void test_sparse(void)
{
	const off_t off = (4LL << 30) + 4096 + 7;	/* past 4 GiB, unaligned */
	char buf[16];
	struct stat st;
	ssize_t n;
	int fd, zero, i;

	if (skipped("sparse4g"))
		return;
	fd = open("sp", O_CREAT | O_RDWR | O_TRUNC, 0644);
	if (!check_sys(fd, "sparse4g: create a file"))
		return;
	check_sys(pwrite_all(fd, "tail!", 5, off), "sparse4g: pwrite at 4 GiB + 4103");
	if (check_sys(fstat(fd, &st), "sparse4g: fstat"))
		check(st.st_size == off + 5, "wrong size", "sparse4g: size is %lld (got %lld)",
		      (long long)off + 5, (long long)st.st_size);
	n = pread(fd, buf, 5, off);
	check(n == 5 && !memcmp(buf, "tail!", 5), n < 0 ? strerror(errno) : "wrong data",
	      "sparse4g: data past 4 GiB reads back");
	n = pread(fd, buf, sizeof(buf), 1LL << 31);
	zero = n == (ssize_t)sizeof(buf);
	for (i = 0; zero && i < n; i++)
		zero = buf[i] == 0;
	check(zero, n < 0 ? strerror(errno) : "hole is not zeros", "sparse4g: the hole reads zeros");
	close(fd);
	unlink("sp");
}

static void test_fifo(void)
{
	struct stat st;
	char c = 0;
	int r, w;

	if (skipped("fifo"))
		return;
	if (!check_sys(mknod("ff", S_IFIFO | 0644, 0), "fifo: mknod(S_IFIFO)"))
		return;
	if (check_sys(lstat("ff", &st), "fifo: lstat"))
		check(S_ISFIFO(st.st_mode), "not a fifo", "fifo: lstat says S_IFIFO (mode %o)",
		      st.st_mode);
	r = open("ff", O_RDONLY | O_NONBLOCK);
	if (!check_sys(r, "fifo: open read end"))
		return;
	w = open("ff", O_WRONLY | O_NONBLOCK);
	if (check_sys(w, "fifo: open write end")) {
		check_sys(write(w, "p", 1), "fifo: write a byte");
		check(read(r, &c, 1) == 1 && c == 'p', "byte not received",
		      "fifo: byte comes out of the read end");
		close(w);
	}
	close(r);
}

/*
 * users: the rules that depend on who asks, checked with the real users
 * (root sets up, an owner, a member of the owner's group, a stranger, each
 * in a child that took on the user's groups and ids). A client must act as
 * each user for this (the in-tree client's access=user), and the server must
 * know the same users and groups: uids 2001-2003, groups 2100 (owner and
 * member) and 2101 (owner only), 2102 (nobody's).
 */
struct who {
	const char *name;
	uid_t uid;
	gid_t gid;
	int ngroups;
	gid_t groups[3];
};

static const struct who w_owner = { "owner", 2001, 2001, 3, { 2001, 2100, 2101 } };
static const struct who w_member = { "member", 2002, 2002, 2, { 2002, 2100 } };
static const struct who w_stranger = { "stranger", 2003, 2003, 1, { 2003 } };

static void become(const struct who *w)
{
	if (setgroups(w->ngroups, w->groups) < 0 || setresgid(w->gid, w->gid, w->gid) < 0 ||
	    setresuid(w->uid, w->uid, w->uid) < 0)
		_exit(250);
}

/* Evaluate call (-1 on error, errno set) as user w: 0 or the errno. */
#define AS(w, call) ({								\
	pid_t _pid = fork();							\
	int _st = 0;								\
	if (_pid == 0) {							\
		become(w);							\
		_exit((call) == -1 ? errno : 0);				\
	}									\
	(_pid > 0 && waitpid(_pid, &_st, 0) == _pid && WIFEXITED(_st)) ?	\
		WEXITSTATUS(_st) : -1;						\
})

static int expect(int got, int want, const char *fmt, ...)
{
	char why[160];
	va_list ap;

	snprintf(why, sizeof(why), "got %s, expected %s",
		 got ? (got > 0 ? strerrorname_np(got) : "no result") : "success",
		 want ? strerrorname_np(want) : "success");
	va_start(ap, fmt);
	vreport(got == want, got == want ? NULL : why, fmt, ap);
	va_end(ap);
	return got == want;
}

/* A file made by root: content "data", then owner, group and mode. */
static void mkf(const char *path, mode_t mode, uid_t uid, gid_t gid)
{
	unlink(path);
	if (S_ISDIR(mode))
		mkdir(path, 0700);
	else
		write_file(path, "data", 4);
	if (chown(path, uid, gid) < 0 || chmod(path, mode & 07777) < 0)
		printf("# users: setting up %s: %s\n", path, strerror(errno));
}

static int write_x(const char *path)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0)
		return -1;
	if (write(fd, "x", 1) != 1) {
		close(fd);
		return -1;
	}
	return close(fd);
}

static int open_close(const char *path, int flags, mode_t mode)
{
	int fd = open(path, flags, mode);

	return fd < 0 ? -1 : close(fd);
}

static int umask_create(mode_t mask, const char *path, mode_t mode)
{
	umask(mask);
	return open_close(path, O_CREAT | O_EXCL | O_WRONLY, mode);
}

static struct stat st_of(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		memset(&st, 0, sizeof(st));
	return st;
}

static int later(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec > b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec > b->tv_nsec);
}

/*
 * A time (@which) moved past the one before (a tick passes first: see
 * tick()). -s subsec-times: a dialect whose times are whole seconds, with
 * no ctime of its own (9P2000.u), where a tick moves neither.
 */
static void time_moved(const struct timespec *now, const struct timespec *then,
		       const char *which, const char *what)
{
	if (listed(skiplist, "subsec-times")) {
		printf("ok - %susers: %s moves %s # SKIP disabled with -s subsec-times\n",
		       prefix, what, which);
		return;
	}
	check(later(now, then), "the time did not move", "users: %s moves %s", what, which);
}

static void ctime_moved(const char *path, const struct stat *before, const char *what)
{
	struct stat st = st_of(path);

	time_moved(&st.st_ctim, &before->st_ctim, "ctime", what);
}

static struct stat tick(const char *path)
{
	struct stat st = st_of(path);

	usleep(30000);	/* past the coarse clock's tick */
	return st;
}

static void test_users(void)
{
	struct timespec ts[2] = { { 1000000000, 0 }, { 1000000000, 0 } };
	struct stat st, b;

	if (skipped("users"))
		return;
	if (geteuid() != 0) {
		printf("ok - %susers # SKIP not running as root\n", prefix);
		return;
	}

	/* chown and chgrp */
	mkf("us-f", 0644, 2001, 2100);
	b = tick("us-f");
	expect(AS(&w_owner, chown("us-f", -1, 2101)), 0,
	       "users: the owner changes the group to one of its own");
	st = st_of("us-f");
	check(st.st_gid == 2101, "group differs", "users: the group is 2101 (got %u)", st.st_gid);
	ctime_moved("us-f", &b, "chgrp");
	expect(AS(&w_owner, chown("us-f", -1, 2102)), EPERM,
	       "users: the owner may not give a group it is not in");
	expect(AS(&w_owner, chown("us-f", 2003, -1)), EPERM,
	       "users: the owner may not give the file away");
	expect(AS(&w_member, chown("us-f", -1, 2100)), EPERM,
	       "users: a group member may not change the group");
	expect(AS(&w_stranger, chown("us-f", -1, 2003)), EPERM,
	       "users: a stranger may not change the group");
	b = tick("us-f");
	expect(AS(&w_stranger, chown("us-f", -1, -1)), 0,
	       "users: chown(-1, -1) by a stranger succeeds");
	ctime_moved("us-f", &b, "chown(-1, -1)");
	expect(AS(&w_owner, chown("us-f", 2001, 2001)), 0,
	       "users: the owner chowns to itself and its primary group");
	st = st_of("us-f");
	check(st.st_uid == 2001 && st.st_gid == 2001, "owner differs",
	      "users: owner is 2001:2001 (got %u:%u)", st.st_uid, st.st_gid);

	/* set-id bits: cleared by chown and by a write that is not the owner's */
	mkf("us-s", 06755, 2001, 2100);
	expect(AS(&w_owner, chown("us-s", -1, 2101)), 0, "users: the owner chgrps a set-id file");
	st = st_of("us-s");
	check((st.st_mode & 07777) == 0755, "set-id bits kept",
	      "users: chgrp clears set-uid and set-gid (mode %04o)", st.st_mode & 07777);
	mkf("us-w", 06775, 2001, 2100);
	b = tick("us-w");
	expect(AS(&w_member, write_x("us-w")), 0, "users: a group member writes a set-id file");
	st = st_of("us-w");
	check((st.st_mode & 07777) == 0775, "set-id bits kept",
	      "users: a write by a non-owner clears set-uid and set-gid (mode %04o)",
	      st.st_mode & 07777);
	ctime_moved("us-w", &b, "a write");
	time_moved(&st.st_mtim, &b.st_mtim, "mtime", "a write");

	/* chmod */
	mkf("us-c", 0644, 2001, 2102);
	expect(AS(&w_stranger, chmod("us-c", 0600)), EPERM, "users: a stranger may not chmod");
	expect(AS(&w_member, chmod("us-c", 0600)), EPERM, "users: a group member may not chmod");
	b = tick("us-c");
	expect(AS(&w_owner, chmod("us-c", 02755)), 0,
	       "users: the owner sets g+s on a file of a group it is not in");
	st = st_of("us-c");
	check((st.st_mode & 07777) == 0755, "set-gid kept",
	      "users: set-gid is dropped for a group the owner is not in (mode %04o)",
	      st.st_mode & 07777);
	ctime_moved("us-c", &b, "chmod");

	/* truncation and times: write permission, not ownership */
	mkf("us-t", 0664, 2001, 2100);
	b = tick("us-t");
	expect(AS(&w_member, truncate("us-t", 1)), 0,
	       "users: a group member with write permission truncates");
	st = st_of("us-t");
	check(st.st_size == 1, "size differs", "users: the size is 1 (got %lld)",
	      (long long)st.st_size);
	ctime_moved("us-t", &b, "truncate");
	expect(AS(&w_stranger, truncate("us-t", 0)), EACCES,
	       "users: a stranger may not truncate");
	expect(AS(&w_member, utimensat(AT_FDCWD, "us-t", NULL, 0)), 0,
	       "users: a group member with write permission sets the times to now");
	expect(AS(&w_stranger, utimensat(AT_FDCWD, "us-t", NULL, 0)), EACCES,
	       "users: a stranger may not set the times to now");
	expect(AS(&w_member, utimensat(AT_FDCWD, "us-t", ts, 0)), EPERM,
	       "users: only the owner sets an explicit time");
	expect(AS(&w_owner, utimensat(AT_FDCWD, "us-t", ts, 0)), 0,
	       "users: the owner sets an explicit time");

	/* modes of new files: the creator's umask, once */
	mkf("us-d", S_IFDIR | 0777, 0, 0);
	expect(AS(&w_owner, umask_create(0, "us-d/m0", 0777)), 0,
	       "users: create 0777 under umask 0");
	st = st_of("us-d/m0");
	check((st.st_mode & 07777) == 0777, "mode differs",
	      "users: the new file has mode 0777 (got %04o)", st.st_mode & 07777);
	check(st.st_uid == 2001 && st.st_gid == 2001, "owner differs",
	      "users: the new file belongs to its creator (got %u:%u)", st.st_uid, st.st_gid);
	expect(AS(&w_owner, umask_create(027, "us-d/m27", 0777)), 0,
	       "users: create 0777 under umask 027");
	st = st_of("us-d/m27");
	check((st.st_mode & 07777) == 0750, "mode differs",
	      "users: the new file has mode 0750 (got %04o)", st.st_mode & 07777);
	expect(AS(&w_owner, (umask(0), mkdir("us-d/d0", 0777))), 0,
	       "users: mkdir 0777 under umask 0");
	st = st_of("us-d/d0");
	check((st.st_mode & 07777) == 0777, "mode differs",
	      "users: the new directory has mode 0777 (got %04o)", st.st_mode & 07777);

	/* a set-gid directory gives its group, and set-gid to new directories */
	mkf("us-g", S_IFDIR | 02777, 0, 2100);
	expect(AS(&w_stranger, open_close("us-g/f", O_CREAT | O_WRONLY, 0644)), 0,
	       "users: a stranger creates a file in a set-gid directory");
	st = st_of("us-g/f");
	check(st.st_gid == 2100, "group differs",
	      "users: the new file has the directory's group (got %u)", st.st_gid);
	expect(AS(&w_stranger, mkdir("us-g/d", 0755)), 0,
	       "users: a stranger makes a directory in a set-gid directory");
	st = st_of("us-g/d");
	check(st.st_gid == 2100 && (st.st_mode & S_ISGID), "group or set-gid differs",
	      "users: the new directory has the group and set-gid (got %u, %04o)", st.st_gid,
	      st.st_mode & 07777);

	/* sticky directories */
	mkf("us-k", S_IFDIR | 01777, 0, 0);
	mkf("us-k/o", 0666, 2001, 2001);
	expect(AS(&w_member, unlink("us-k/o")), EPERM,
	       "users: another user's file in a sticky directory is not unlinked");
	expect(AS(&w_member, rename("us-k/o", "us-k/x")), EPERM,
	       "users: another user's file in a sticky directory is not renamed");
	b = tick("us-k/o");
	expect(AS(&w_owner, rename("us-k/o", "us-k/p")), 0,
	       "users: the owner renames its file in a sticky directory");
	ctime_moved("us-k/p", &b, "rename");
	b = tick("us-k/p");
	expect(AS(&w_owner, link("us-k/p", "us-k/q")), 0, "users: the owner links its file");
	ctime_moved("us-k/p", &b, "link");
	expect(AS(&w_owner, unlink("us-k/p")), 0,
	       "users: the owner unlinks its file in a sticky directory");

	/* open flags and search permission */
	mkf("us-r", 0444, 2001, 2001);
	expect(AS(&w_owner, open_close("us-r", O_RDONLY | O_TRUNC, 0)), EACCES,
	       "users: O_TRUNC without write permission is EACCES");
	expect(AS(&w_owner, open_close("us-d", O_RDWR, 0)), EISDIR,
	       "users: O_RDWR on a directory is EISDIR");
	expect(AS(&w_owner, open_close("us-r", O_CREAT | O_EXCL | O_WRONLY, 0644)), EEXIST,
	       "users: O_CREAT|O_EXCL on an existing file is EEXIST");
	mkf("us-x", S_IFDIR | 0700, 2001, 2001);
	mkf("us-x/f", 0644, 2001, 2001);
	expect(AS(&w_member, lstat("us-x/f", &st)), EACCES,
	       "users: no search permission on the directory is EACCES");
	mkf("us-m", 0640, 2001, 2100);
	expect(AS(&w_member, open_close("us-m", O_RDONLY, 0)), 0,
	       "users: a supplementary group grants read");
	expect(AS(&w_stranger, open_close("us-m", O_RDONLY, 0)), EACCES,
	       "users: a stranger may not read a group-readable file");
}

/* ---- main ---------------------------------------------------------- */

/* ---- opt-in groups: locks, xattr, statfs-df, xdir-rename ------------- */

/*
 * Waits at most @secs for @pid; kills it when it overstays. Returns its exit
 * status (0-255), 256 when it was killed or died of a signal, -1 on error.
 */
static int wait_bounded(pid_t pid, int secs)
{
	int st, i;

	for (i = 0; i < secs * 20; i++) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r < 0)
			return -1;
		if (r == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 256;
		usleep(50000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return 256;
}

/* Runs @fn(@path) in a child bounded to 10 s: 0, an errno, or 256 (killed). */
static int in_child(int (*fn)(const char *), const char *path)
{
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(fn(path) & 0xff);
	return wait_bounded(pid, 10);
}

#define GETLK_WRLCK	250	/* ch_getlk: a write lock on 0-9 */
#define GETLK_OTHER	251	/* ch_getlk: another lock or range */

/* What a child's status means, for a failed check. */
static const char *status_text(int s)
{
	static char buf[64];

	if (s == 0)
		return "succeeded";
	if (s == 256)
		return "did not return within 10 s (killed)";
	if (s == GETLK_WRLCK)
		return "F_GETLK reports a write lock on 0-9";
	if (s == GETLK_OTHER)
		return "F_GETLK reports another lock or range";
	if (s < 0)
		return "fork or wait failed";
	snprintf(buf, sizeof(buf), "%s", strerrorname_np(s) ? strerrorname_np(s) : "?");
	return buf;
}

/* The range every lock check takes: bytes 0-9 of the file. */
static int posix_lock(int fd, int cmd, short type, off_t start, off_t len)
{
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET, .l_start = start,
			    .l_len = len };

	return fcntl(fd, cmd, &fl);
}

static int errno_of(int ret)
{
	return ret < 0 ? errno : 0;
}

static int ch_setlk_wr(const char *path)
{
	int fd = open(path, O_RDWR);

	return fd < 0 ? errno : errno_of(posix_lock(fd, F_SETLK, F_WRLCK, 0, 10));
}

static int ch_setlk_rd(const char *path)
{
	int fd = open(path, O_RDWR);

	return fd < 0 ? errno : errno_of(posix_lock(fd, F_SETLK, F_RDLCK, 0, 10));
}

static int ch_setlk_other(const char *path)
{
	int fd = open(path, O_RDWR);

	return fd < 0 ? errno : errno_of(posix_lock(fd, F_SETLK, F_WRLCK, 20, 10));
}

/* F_GETLK for a write lock on 0-9: 0 none, GETLK_*, or the errno. */
static int ch_getlk(const char *path)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0,
			    .l_len = 10 };
	int fd = open(path, O_RDWR);

	if (fd < 0 || fcntl(fd, F_GETLK, &fl) < 0)
		return errno;
	if (fl.l_type == F_UNLCK)
		return 0;
	return fl.l_type == F_WRLCK && fl.l_start == 0 && fl.l_len == 10 ? GETLK_WRLCK :
	       GETLK_OTHER;
}

static int ch_setlkw(const char *path)
{
	int fd = open(path, O_RDWR);

	return fd < 0 ? errno : errno_of(posix_lock(fd, F_SETLKW, F_WRLCK, 0, 10));
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* F_SETLKW on a held range, SIGALRM after 1 s (no SA_RESTART): EINTR wanted. */
static int ch_setlkw_intr(const char *path)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	int fd = open(path, O_RDWR);

	if (fd < 0)
		return errno;
	sigaction(SIGALRM, &sa, NULL);
	alarm(1);
	return errno_of(posix_lock(fd, F_SETLKW, F_WRLCK, 0, 10));
}

static int ch_flock_ex_nb(const char *path)
{
	int fd = open(path, O_RDWR);

	return fd < 0 ? errno : errno_of(flock(fd, LOCK_EX | LOCK_NB));
}

static int ch_flock_sh_nb(const char *path)
{
	int fd = open(path, O_RDWR);

	return fd < 0 ? errno : errno_of(flock(fd, LOCK_SH | LOCK_NB));
}

/*
 * A child holding a lock ('p' fcntl write lock on 0-9, 'f' flock LOCK_EX) and
 * taking orders on a pipe: 'c' close the descriptor, 'u' unlock, 'x' (or the
 * pipe's end) exit without either. It answers each with one byte: 'L' once
 * locked, then the order's letter, or 'E' when something failed.
 */
struct holder {
	pid_t pid;
	int to, from;
};

static int holder_start(struct holder *h, const char *path, char kind)
{
	int down[2], up[2];
	char c = 0;

	if (pipe(down) < 0)
		return -1;
	if (pipe(up) < 0) {
		close(down[0]);
		close(down[1]);
		return -1;
	}
	h->pid = fork();
	if (h->pid == 0) {
		int fd = open(path, O_RDWR), r;

		close(down[1]);
		close(up[0]);
		r = fd < 0 ? -1 : kind == 'p' ? posix_lock(fd, F_SETLK, F_WRLCK, 0, 10) :
			flock(fd, LOCK_EX | LOCK_NB);
		c = r < 0 ? 'E' : 'L';
		if (write(up[1], &c, 1) != 1 || c == 'E')
			_exit(1);
		while (read(down[0], &c, 1) == 1 && c != 'x') {
			r = c == 'c' ? close(fd) : kind == 'p' ?
				posix_lock(fd, F_SETLK, F_UNLCK, 0, 10) : flock(fd, LOCK_UN);
			c = r < 0 ? 'E' : c;
			if (write(up[1], &c, 1) != 1)
				break;
		}
		_exit(0);
	}
	close(down[0]);
	close(up[1]);
	h->to = down[1];
	h->from = up[0];
	if (h->pid < 0 || read(h->from, &c, 1) != 1 || c != 'L') {
		if (h->pid > 0)
			wait_bounded(h->pid, 10);
		close(h->to);
		close(h->from);
		return -1;
	}
	return 0;
}

/* Sends order @c; returns 0 when the holder carried it out. */
static int holder_order(struct holder *h, char c)
{
	char r;

	return write(h->to, &c, 1) == 1 && read(h->from, &r, 1) == 1 && r == c ? 0 : -1;
}

/* 'x': the holder exits without unlocking or closing; waits for it. */
static int holder_end(struct holder *h)
{
	char c = 'x';
	int s;

	s = write(h->to, &c, 1) == 1 ? 0 : -1;
	close(h->to);
	close(h->from);
	return wait_bounded(h->pid, 10) == 0 ? s : -1;
}

static int is_conflict(int s)
{
	return s == EAGAIN || s == EACCES;
}

static void test_locks(void)
{
	struct holder h;
	double t0;
	pid_t pid;
	int fd, s;

	if (skipped("locks"))
		return;
	if (!check_sys(write_file("lk", "0123456789abcdefghijklmnopqrstuvwxyz", 36),
		       "locks: create the file"))
		return;
	fd = open("lk", O_RDWR);
	if (!check_sys(fd, "locks: open"))
		return;

	/* fcntl: a write lock held here, asked for by another process */
	check_sys(posix_lock(fd, F_SETLK, F_WRLCK, 0, 10), "locks: F_SETLK F_WRLCK on bytes 0-9");
	s = in_child(ch_setlk_wr, "lk");
	check(is_conflict(s), status_text(s),
	      "locks: another process's F_SETLK F_WRLCK on 0-9 fails with EAGAIN or EACCES");
	s = in_child(ch_setlk_rd, "lk");
	check(is_conflict(s), status_text(s),
	      "locks: another process's F_SETLK F_RDLCK on 0-9 fails with EAGAIN or EACCES");
	s = in_child(ch_getlk, "lk");
	check(s == GETLK_WRLCK, s == 0 ? "F_UNLCK" : status_text(s),
	      "locks: another process's F_GETLK reports the write lock on 0-9");
	s = in_child(ch_setlk_other, "lk");
	check(s == 0, status_text(s), "locks: another process locks bytes 20-29 beside it");

	/* F_SETLKW waits for the holder's unlock, and a signal interrupts it */
	pid = fork();
	if (pid == 0)
		_exit(ch_setlkw("lk"));
	usleep(300000);
	check_sys(posix_lock(fd, F_SETLK, F_UNLCK, 0, 10), "locks: F_UNLCK on 0-9");
	s = pid < 0 ? -1 : wait_bounded(pid, 10);
	check(s == 0, status_text(s), "locks: a waiting F_SETLKW gets the lock once it is released");

	check_sys(posix_lock(fd, F_SETLK, F_WRLCK, 0, 10), "locks: F_SETLK F_WRLCK on 0-9 again");
	t0 = now();
	s = in_child(ch_setlkw_intr, "lk");
	check(s == EINTR, status_text(s),
	      "locks: F_SETLKW on a held range, interrupted by a signal, fails with EINTR");
	check(now() - t0 < 5, "took longer",
	      "locks: the interrupted F_SETLKW returns within 5 s (%.1f s)", now() - t0);
	posix_lock(fd, F_SETLK, F_UNLCK, 0, 10);

	check_sys(posix_lock(fd, F_SETLK, F_RDLCK, 0, 10), "locks: F_SETLK F_RDLCK on 0-9");
	s = in_child(ch_setlk_rd, "lk");
	check(s == 0, status_text(s), "locks: another process shares the read lock");
	s = in_child(ch_setlk_wr, "lk");
	check(is_conflict(s), status_text(s),
	      "locks: another process's write lock on a read-locked range fails");
	posix_lock(fd, F_SETLK, F_UNLCK, 0, 10);
	s = in_child(ch_getlk, "lk");
	check(s == 0, status_text(s), "locks: F_GETLK reports F_UNLCK once all is unlocked");

	/* released when the holder closes the file, and when it exits */
	if (check_sys(holder_start(&h, "lk", 'p'), "locks: a second process takes 0-9")) {
		s = errno_of(posix_lock(fd, F_SETLK, F_WRLCK, 0, 10));
		check(is_conflict(s), status_text(s),
		      "locks: F_SETLK here fails with EAGAIN or EACCES");
		check_sys(holder_order(&h, 'c'), "locks: the holder closes its descriptor");
		check_sys(posix_lock(fd, F_SETLK, F_WRLCK, 0, 10),
			  "locks: the lock is free once the holder closed the file");
		posix_lock(fd, F_SETLK, F_UNLCK, 0, 10);
		holder_end(&h);
	}
	if (check_sys(holder_start(&h, "lk", 'p'), "locks: a third process takes 0-9")) {
		check_sys(holder_end(&h), "locks: the holder exits without unlocking");
		check_sys(posix_lock(fd, F_SETLK, F_WRLCK, 0, 10),
			  "locks: the lock is free once the holder exited");
		posix_lock(fd, F_SETLK, F_UNLCK, 0, 10);
	}

	/* flock */
	if (check_sys(holder_start(&h, "lk", 'f'), "locks: flock LOCK_EX in a second process")) {
		check_errno(flock(fd, LOCK_EX | LOCK_NB), EWOULDBLOCK,
			    "locks: flock LOCK_EX|LOCK_NB here fails with EWOULDBLOCK");
		check_errno(flock(fd, LOCK_SH | LOCK_NB), EWOULDBLOCK,
			    "locks: flock LOCK_SH|LOCK_NB here fails with EWOULDBLOCK");
		check_sys(holder_order(&h, 'u'), "locks: the holder's LOCK_UN");
		check_sys(flock(fd, LOCK_EX | LOCK_NB), "locks: flock LOCK_EX|LOCK_NB after it");
		flock(fd, LOCK_UN);
		holder_end(&h);
	}
	if (check_sys(flock(fd, LOCK_SH), "locks: flock LOCK_SH")) {
		s = in_child(ch_flock_sh_nb, "lk");
		check(s == 0, status_text(s), "locks: another process shares LOCK_SH");
		s = in_child(ch_flock_ex_nb, "lk");
		check(s == EWOULDBLOCK, status_text(s),
		      "locks: another process's LOCK_EX|LOCK_NB fails with EWOULDBLOCK");
		flock(fd, LOCK_UN);
	}
	if (check_sys(holder_start(&h, "lk", 'f'), "locks: flock LOCK_EX in a third process")) {
		check_sys(holder_order(&h, 'c'), "locks: the flock holder closes its descriptor");
		check_sys(flock(fd, LOCK_EX | LOCK_NB),
			  "locks: the flock is free once its holder closed the file");
		flock(fd, LOCK_UN);
		holder_end(&h);
	}
	if (check_sys(holder_start(&h, "lk", 'f'), "locks: flock LOCK_EX in a fourth process")) {
		check_sys(holder_end(&h), "locks: the flock holder exits without LOCK_UN");
		check_sys(flock(fd, LOCK_EX | LOCK_NB),
			  "locks: the flock is free once its holder exited");
		flock(fd, LOCK_UN);
	}
	close(fd);
	unlink("lk");
}

static const char *export_dir;	/* -E: the local directory the mount serves */

/*
 * Whether a file in @dir (the export with -E, else the directory under test)
 * keeps user.* xattrs at all: not when setting one gives EOPNOTSUPP.
 */
static int has_xattrs(const char *dir)
{
	char probe[4096];
	int fd, ok;

	snprintf(probe, sizeof(probe), "%s/.posix-xattr-probe.%d", dir, (int)getpid());
	fd = open(probe, O_CREAT | O_WRONLY, 0644);
	if (fd < 0)
		return 1;	/* cannot tell: let the checks say it */
	ok = fsetxattr(fd, "user.probe", "1", 1, 0) == 0 || errno != EOPNOTSUPP;
	close(fd);
	unlink(probe);
	return ok;
}

/*
 * Whether the working directory is on a 9P2000.L mount of either client with
 * extended attributes on: both clients then must keep user.* xattrs where
 * the export does. The in-tree client shows no version for .L (its
 * default), ours shows version=9p2000.L; 9P2000 shows noextend, .u its
 * version, and noxattr turns them off.
 */
static int dotl_xattr_mount(void)
{
	char cwd[4096], line[8192], dev[256], dir[4096], type[64], opts[4096];
	size_t best = 0;
	int dotl = 0;
	FILE *f;

	if (!getcwd(cwd, sizeof(cwd)) || !(f = fopen("/proc/mounts", "r")))
		return 0;
	while (fgets(line, sizeof(line), f)) {
		size_t n;

		if (sscanf(line, "%255s %4095s %63s %4095s", dev, dir, type, opts) != 4)
			continue;
		n = strlen(dir);
		if (strncmp(cwd, dir, n) || (cwd[n] != '/' && cwd[n] != '\0' && n > 1) ||
		    n < best)
			continue;
		best = n;
		dotl = (!strcmp(type, "9p") || !strcmp(type, "9P")) &&
		       !strstr(opts, "noextend") && !strstr(opts, "version=9p2000.u") &&
		       !strstr(opts, "noxattr");
	}
	fclose(f);
	return dotl;
}

/* An attribute list of @n bytes in @buf names @name. */
static int names(const char *buf, ssize_t n, const char *name)
{
	for (ssize_t i = 0; n > 0 && i < n; i += strlen(buf + i) + 1)
		if (!strcmp(buf + i, name))
			return 1;
	return 0;
}

/* trusted.* as root: set, read back, list, remove (where the export keeps them). */
static void test_xattr_trusted(void)
{
	char buf[256], probe[4096];
	int fd, keeps;
	ssize_t n;

	if (geteuid() != 0 || !export_dir)
		return;
	snprintf(probe, sizeof(probe), "%s/.posix-trusted-probe.%d", export_dir, (int)getpid());
	fd = open(probe, O_CREAT | O_WRONLY, 0644);
	keeps = fd >= 0 && fsetxattr(fd, "trusted.probe", "1", 1, 0) == 0;
	if (fd >= 0)
		close(fd);
	unlink(probe);
	if (!keeps) {
		printf("ok - %sxattr: trusted.* as root # SKIP the export's filesystem refuses "
		       "them\n", prefix);
		return;
	}
	if (!check_sys(setxattr("xa", "trusted.v9fs.t", "root", 4, XATTR_CREATE),
		       "xattr: set trusted.v9fs.t as root"))
		return;
	n = getxattr("xa", "trusted.v9fs.t", buf, sizeof(buf));
	check(n == 4 && !memcmp(buf, "root", 4), n < 0 ? strerror(errno) : "wrong value",
	      "xattr: the trusted value reads back");
	n = listxattr("xa", buf, sizeof(buf));
	check(names(buf, n, "trusted.v9fs.t"), n < 0 ? strerror(errno) : "not in the list",
	      "xattr: listxattr names the trusted attribute");
	check_sys(removexattr("xa", "trusted.v9fs.t"), "xattr: remove the trusted attribute");
}

static void test_xattr(void)
{
	char buf[8192], big[4000], why[200];
	ssize_t n;

	if (skipped("xattr"))
		return;
	if (!has_xattrs(export_dir ? export_dir : ".")) {
		printf("ok - %sxattr: user.* xattrs # SKIP the export's filesystem refuses them "
		       "(EOPNOTSUPP)\n", prefix);
		return;
	}
	if (export_dir && !has_xattrs(".")) {
		if (dotl_xattr_mount())
			check(0, "EOPNOTSUPP", "xattr: a 9P2000.L mount keeps user.* xattrs "
			      "where the export does");
		else
			printf("ok - %sxattr: user.* xattrs # SKIP the client refuses them "
			       "(EOPNOTSUPP) where the export keeps them: it has no xattr "
			       "support in this dialect\n", prefix);
		return;
	}
	if (!check_sys(write_file("xa", "x", 1), "xattr: create the file"))
		return;
	check_sys(setxattr("xa", "user.v9fs.a", "alpha", 5, XATTR_CREATE),
		  "xattr: set user.v9fs.a with XATTR_CREATE");
	n = getxattr("xa", "user.v9fs.a", NULL, 0);
	check(n == 5, n < 0 ? strerror(errno) : "wrong size",
	      "xattr: the size query says 5 (%zd)", n);
	n = getxattr("xa", "user.v9fs.a", buf, sizeof(buf));
	check(n == 5 && !memcmp(buf, "alpha", 5), n < 0 ? strerror(errno) : "wrong value",
	      "xattr: the value reads back");
	check_errno(getxattr("xa", "user.v9fs.a", buf, 2), ERANGE,
		    "xattr: a buffer too small gives ERANGE");
	n = listxattr("xa", NULL, 0);
	check(n > 0, n < 0 ? strerror(errno) : "0", "xattr: listxattr size query (%zd)", n);
	check_errno(listxattr("xa", buf, 3), ERANGE,
		    "xattr: listxattr into a buffer too small gives ERANGE");
	n = listxattr("xa", buf, sizeof(buf));
	check(names(buf, n, "user.v9fs.a"), n < 0 ? strerror(errno) : "not in the list",
	      "xattr: listxattr names it");
	check_errno(setxattr("xa", "user.v9fs.a", "again", 5, XATTR_CREATE), EEXIST,
		    "xattr: XATTR_CREATE of an existing name fails with EEXIST");
	check_errno(setxattr("xa", "user.v9fs.none", "x", 1, XATTR_REPLACE), ENODATA,
		    "xattr: XATTR_REPLACE of a missing name fails with ENODATA");
	check_sys(setxattr("xa", "user.v9fs.a", "beta22", 6, XATTR_REPLACE),
		  "xattr: XATTR_REPLACE of an existing name");
	n = getxattr("xa", "user.v9fs.a", buf, sizeof(buf));
	check(n == 6 && !memcmp(buf, "beta22", 6), n < 0 ? strerror(errno) : "wrong value",
	      "xattr: the replaced value reads back");
	check_sys(setxattr("xa", "user.v9fs.a", "gamma", 5, 0),
		  "xattr: set an existing name with no flag");
	n = getxattr("xa", "user.v9fs.a", buf, sizeof(buf));
	check(n == 5 && !memcmp(buf, "gamma", 5), n < 0 ? strerror(errno) : "wrong value",
	      "xattr: the value set with no flag reads back");
	check_errno(getxattr("xa", "user.v9fs.none", buf, sizeof(buf)), ENODATA,
		    "xattr: getxattr of a missing name fails with ENODATA");
	fill_pattern((unsigned char *)big, sizeof(big), 7);
	check_sys(setxattr("xa", "user.v9fs.big", big, sizeof(big), 0),
		  "xattr: set a 4000-byte value");
	n = getxattr("xa", "user.v9fs.big", buf, sizeof(buf));
	snprintf(why, sizeof(why), "%zd bytes%s", n, n < 0 ? "" : ", content differs");
	check(n == (ssize_t)sizeof(big) && !memcmp(buf, big, sizeof(big)), why,
	      "xattr: the 4000-byte value reads back");
	check_sys(removexattr("xa", "user.v9fs.a"), "xattr: removexattr");
	check_errno(getxattr("xa", "user.v9fs.a", buf, sizeof(buf)), ENODATA,
		    "xattr: the removed name is gone (ENODATA)");
	n = listxattr("xa", buf, sizeof(buf));
	check(n >= 0 && !names(buf, n, "user.v9fs.a") && names(buf, n, "user.v9fs.big"),
	      n < 0 ? strerror(errno) : "wrong names",
	      "xattr: listxattr no longer names it, still names the other");
	check_errno(removexattr("xa", "user.v9fs.a"), ENODATA,
		    "xattr: removexattr of a missing name fails with ENODATA");
	test_xattr_trusted();
	if (check_sys(mkdir("xd", 0755), "xattr: mkdir")) {
		check_sys(setxattr("xd", "user.v9fs.d", "dir", 3, 0), "xattr: set on a directory");
		n = getxattr("xd", "user.v9fs.d", buf, sizeof(buf));
		check(n == 3 && !memcmp(buf, "dir", 3), n < 0 ? strerror(errno) : "wrong value",
		      "xattr: the directory's value reads back");
		rmdir("xd");
	}
	unlink("xa");
}

static void test_statfs_df(void)
{
	struct statfs sf, ex;
	double total, etotal, avail, eavail, slack;

	if (skipped("statfs-df"))
		return;
	if (!check_sys(statfs(".", &sf), "statfs-df: statfs(\".\")"))
		return;
	check(sf.f_bsize > 0 && sf.f_blocks > 0, "zero", "statfs-df: f_bsize %ld, f_blocks %llu",
	      (long)sf.f_bsize, (unsigned long long)sf.f_blocks);
	check(sf.f_bfree <= sf.f_blocks && sf.f_bavail <= sf.f_blocks, "more free than there is",
	      "statfs-df: f_bfree %llu and f_bavail %llu are at most f_blocks",
	      (unsigned long long)sf.f_bfree, (unsigned long long)sf.f_bavail);
	check(sf.f_ffree <= sf.f_files, "more free than there is",
	      "statfs-df: f_ffree %llu is at most f_files %llu",
	      (unsigned long long)sf.f_ffree, (unsigned long long)sf.f_files);
	check(sf.f_namelen > 0, "0", "statfs-df: f_namelen %ld", (long)sf.f_namelen);
	if (!export_dir)
		return;
	if (!check_sys(statfs(export_dir, &ex), "statfs-df: statfs of the export %s", export_dir))
		return;
	total = (double)sf.f_blocks * sf.f_bsize;
	etotal = (double)ex.f_blocks * ex.f_bsize;
	avail = (double)sf.f_bavail * sf.f_bsize;
	eavail = (double)ex.f_bavail * ex.f_bsize;
	check(total > etotal - sf.f_bsize && total < etotal + sf.f_bsize, "differs",
	      "statfs-df: size %.0f bytes, the export's %.0f", total, etotal);
	/* the export may change while we look: a few MiB or 1% either way */
	slack = etotal / 100 > 4 << 20 ? etotal / 100 : 4 << 20;
	check(avail >= eavail - slack && avail <= eavail + slack, "too far apart",
	      "statfs-df: available %.0f bytes, the export's %.0f", avail, eavail);
}

static void test_xdir_rename(void)
{
	char why[200];
	struct stat st;
	int fd, e;

	if (skipped("xdir-rename"))
		return;
	if (!check_sys(mkdir("xr-a", 0755) | mkdir("xr-b", 0755), "xdir-rename: two directories"))
		return;
	check_sys(write_file("xr-a/f", "F", 1) | write_file("xr-b/t", "T", 1),
		  "xdir-rename: a file in each");
	check_sys(rename("xr-a/f", "xr-b/t"),
		  "xdir-rename: a file onto an existing file in another directory");
	check_errno(stat("xr-a/f", &st), ENOENT, "xdir-rename: the source name is gone");
	check(file_is("xr-b/t", "F", why, sizeof(why)), why,
	      "xdir-rename: the target has the source's content");

	/* an open file keeps working after a move to another directory */
	fd = open("xr-b/t", O_RDONLY);
	if (check_sys(fd, "xdir-rename: open the file")) {
		char c = 0;

		check_sys(rename("xr-b/t", "xr-a/g"), "xdir-rename: move the open file back");
		check(pread(fd, &c, 1, 0) == 1 && c == 'F', "read failed or differs",
		      "xdir-rename: the open descriptor still reads the file");
		close(fd);
	}

	check_sys(mkdir("xr-a/d", 0755), "xdir-rename: a directory with a file in it");
	write_file("xr-a/d/in", "I", 1);
	check_sys(mkdir("xr-b/e", 0755), "xdir-rename: an empty directory in the other one");
	check_sys(rename("xr-a/d", "xr-b/e"),
		  "xdir-rename: a directory onto an empty directory in another directory");
	check_errno(stat("xr-a/d", &st), ENOENT, "xdir-rename: the directory's old name is gone");
	check(file_is("xr-b/e/in", "I", why, sizeof(why)), why,
	      "xdir-rename: its file is found under the new name");

	check_sys(mkdir("xr-a/d2", 0755), "xdir-rename: another directory");
	e = rename("xr-a/d2", "xr-b/e") < 0 ? errno : 0;
	check(e == ENOTEMPTY || e == EEXIST, e ? strerrorname_np(e) : "succeeded",
	      "xdir-rename: a directory onto a non-empty one fails with ENOTEMPTY or EEXIST");
	check(file_is("xr-b/e/in", "I", why, sizeof(why)), why,
	      "xdir-rename: the non-empty target is untouched");
	check_errno(rename("xr-a/g", "xr-b/e"), EISDIR,
		    "xdir-rename: a file onto a directory fails with EISDIR");
	check_errno(rename("xr-a/d2", "xr-a/g"), ENOTDIR,
		    "xdir-rename: a directory onto a file fails with ENOTDIR");
	check_errno(rename("xr-b", "xr-b/e/sub"), EINVAL,
		    "xdir-rename: a directory into itself fails with EINVAL");
	check(file_is("xr-a/g", "F", why, sizeof(why)), why,
	      "xdir-rename: the refused renames left the file alone");
	unlink("xr-a/g");
	rmdir("xr-a/d2");
	unlink("xr-b/e/in");
	rmdir("xr-b/e");
	rmdir("xr-a");
	rmdir("xr-b");
}

static const char *const groups[] = {
	"create", "rw", "append", "truncate", "rename", "xdev-rename", "links", "symlinks",
	"mkdir", "readdir", "seekdir", "chmod", "chown", "utimes", "statfs", "unlink-open",
	"unlink-calls", "unlink-other",
	"excl", "errors", "sparse4g", "fifo", "nlink", "users", "locks", "xattr", "statfs-df",
	"xdir-rename", "subsec-times", NULL,
};

static int known_group(const char *name, size_t len)
{
	int i;

	for (i = 0; groups[i]; i++)
		if (strlen(groups[i]) == len && !strncmp(groups[i], name, len))
			return 1;
	return 0;
}

/* -M: make the readdir entries in @dir (locally, fast), for a later -D run. */
static int make_entries(const char *dir)
{
	char name[4096];
	int i, fd;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		fprintf(stderr, "posix-suite: mkdir %s: %s\n", dir, strerror(errno));
		return 2;
	}
	for (i = 0; i < nr_entries; i++) {
		snprintf(name, sizeof(name), "%s/entry-%05d", dir, i);
		fd = open(name, O_CREAT | O_WRONLY, 0644);
		if (fd < 0) {
			fprintf(stderr, "posix-suite: create %s: %s\n", name, strerror(errno));
			return 2;
		}
		close(fd);
	}
	return 0;
}

static void usage(void)
{
	int i;

	fprintf(stderr, "usage: posix-suite [-s group,...] [-g group,...] [-x group,...] "
		"[-R group,...] [-O other-dir] [-E export-dir] [-p prefix] [-n entries] "
		"[-D readdir-dir] DIR\n"
		"       posix-suite -n entries -M DIR   (make DIR's entries for a later -D)\n"
		"groups:");
	for (i = 0; groups[i]; i++)
		fprintf(stderr, " %s", groups[i]);
	fputc('\n', stderr);
	exit(2);
}

/* Removes what a failed run may have left behind (best effort, one level deep). */
static void remove_tree(const char *path)
{
	struct dirent *de;
	char sub[4096];
	DIR *d = opendir(path);

	if (d) {
		while ((de = readdir(d))) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
			if (unlink(sub) < 0 && (errno == EISDIR || errno == EPERM))
				remove_tree(sub);
		}
		closedir(d);
	}
	rmdir(path);
}

int main(int argc, char **argv)
{
	char work[4096];
	const char *p;
	double t0;
	int opt;

	const char *make_dir = NULL, *given = NULL;

	while ((opt = getopt(argc, argv, "s:g:x:R:O:E:p:n:D:M:h")) != -1) {
		switch (opt) {
		case 'R':
			notelist = optarg;
			break;
		case 'O':
			other_dir = optarg;
			break;
		case 'D':
			given = optarg;
			break;
		case 'M':
			make_dir = optarg;
			break;
		case 's':
			skiplist = optarg;
			break;
		case 'g':
			onlylist = optarg;
			break;
		case 'x':
			extralist = optarg;
			break;
		case 'E':
			export_dir = optarg;
			break;
		case 'p':
			prefix = optarg;
			break;
		case 'n':
			nr_entries = atoi(optarg);
			if (nr_entries <= 0)
				usage();
			break;
		default:
			usage();
		}
	}
	if (make_dir)
		return make_entries(make_dir);
	if (optind != argc - 1)
		usage();
	if (given) {
		/* relative to DIR, and made absolute before we chdir away */
		if (given[0] == '/')
			snprintf(rd_dir, sizeof(rd_dir), "%s", given);
		else
			snprintf(rd_dir, sizeof(rd_dir), "%s/%s", argv[optind], given);
		rd_given = 1;
	}
	for (int l = 0; l < 4; l++) {
		for (p = l == 3 ? notelist : l == 2 ? extralist : l ? onlylist : skiplist; p && *p;) {
			size_t len = strcspn(p, ",");

			if (len && !known_group(p, len)) {
				fprintf(stderr, "posix-suite: unknown group '%.*s' in -%c\n",
					(int)len, p, "sgxR"[l]);
				usage();
			}
			p += len + (p[len] == ',');
		}
	}

	umask(0);
	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(work, sizeof(work), "%s/posix-suite.%d", argv[optind], (int)getpid());
	if (mkdir(work, 0777) < 0 || chdir(work) < 0) {
		printf("not ok - %screate working directory %s: %s\n", prefix, work,
		       strerror(errno));
		return 2;
	}
	printf("# posix-suite in %s\n", work);

	t0 = now();
	test_create();
	test_rw();
	test_append();
	test_truncate();
	test_rename();
	test_links();
	test_symlinks();
	test_mkdir();
	took("create to mkdir", t0);
	test_readdir();
	t0 = now();
	test_chmod();
	test_chown();
	test_utimes();
	test_statfs();
	test_unlink_open();
	test_unlink_calls();
	test_unlink_other();
	test_excl();
	test_errors();
	test_sparse();
	test_fifo();
	took("chmod to fifo", t0);
	test_users();
	test_locks();
	test_xattr();
	test_statfs_df();
	test_xdir_rename();

	if (chdir("..") == 0)
		remove_tree(work);
	printf("# posix-suite: %d failed\n", failures);
	return failures ? 1 : 0;
}
