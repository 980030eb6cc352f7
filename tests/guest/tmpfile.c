// SPDX-License-Identifier: GPL-2.0-only
/*
 * tmpfile: O_TMPFILE on a mounted directory, for 75-tmpfile-idmap.
 *
 *   tmpfile open DIR
 *	open(DIR, O_TMPFILE | O_RDWR) and close: prints "ok" or the errno's
 *	name (EOPNOTSUPP, ...).
 *   tmpfile run [-w] -p LABEL DIR NAME1 NAME2 TAKEN
 *	one O_TMPFILE through its life, a TAP line per step: write and read
 *	back, fstat (no link), ftruncate, fchmod, a private mapping (-w: a
 *	shared writable one too), a link onto the existing DIR/TAKEN
 *	(EEXIST), the first link by linkat(AT_EMPTY_PATH) to DIR/NAME1 and a
 *	second by /proc/self/fd with AT_SYMLINK_FOLLOW to DIR/NAME2. The
 *	file ends with SIZE bytes (printed last: "# size N"), see verify.
 *   tmpfile excl DIR
 *	O_TMPFILE | O_EXCL, written, then linkat(AT_EMPTY_PATH): prints
 *	"ok" if the link was made, else the errno's name.
 *   tmpfile unlinked -p LABEL DIR EXPORT
 *	an O_TMPFILE written and closed without a link: while it is open
 *	EXPORT (the same directory seen on the server's side) holds one
 *	name more than before, and after close none more (TAP lines).
 *   tmpfile verify FILE
 *	FILE holds what run left: exit 0, else a message and exit 1.
 *
 * Exit status: 0 when every TAP line was "ok" (run, unlinked), 1 if not,
 * 2 on a usage error.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define DATA_LEN	65536
#define FINAL_LEN	(DATA_LEN + 5000)	/* after the ftruncate */

static const char *label = "";
static int failed;

static void tap(int good, const char *what, const char *why)
{
	if (good)
		printf("ok - %s%s\n", label, what);
	else {
		printf("not ok - %s%s: %s\n", label, what, why);
		failed = 1;
	}
	fflush(stdout);
}

static const char *errname(int e)
{
	static char buf[32];
	const char *name = e ? strerrorname_np(e) : "ok";

	if (name)
		return name;
	snprintf(buf, sizeof(buf), "errno %d", e);
	return buf;
}

static unsigned char pattern(size_t i)
{
	return (unsigned char)(i * 7 + 3 + (i >> 12));
}

static unsigned char expected(size_t i)
{
	if (i >= DATA_LEN)
		return 0;
	if (i >= 100 && i < 200)
		return 'W';	/* written through the shared mapping (-w) */
	return pattern(i);
}

static int writes_all(int fd, const unsigned char *b, size_t n)
{
	ssize_t w;

	while (n) {
		w = write(fd, b, n);
		if (w <= 0)
			return -1;
		b += w;
		n -= w;
	}
	return 0;
}

static int fill(int fd)
{
	static unsigned char b[DATA_LEN];
	size_t i;

	for (i = 0; i < DATA_LEN; i++)
		b[i] = pattern(i);
	return writes_all(fd, b, DATA_LEN);
}

/* The first difference from what is expected of [0, len), or -1. */
static long check_bytes(int fd, size_t len, int shared_done)
{
	static unsigned char b[FINAL_LEN];
	size_t i;
	ssize_t r;

	r = pread(fd, b, len, 0);
	if (r != (ssize_t)len)
		return r < 0 ? 0 : r;
	for (i = 0; i < len; i++) {
		unsigned char want = shared_done ? expected(i) :
				     (i < DATA_LEN ? pattern(i) : 0);
		if (b[i] != want)
			return (long)i;
	}
	return -1;
}

static int do_open(const char *dir)
{
	int fd = open(dir, O_TMPFILE | O_RDWR, 0600);

	if (fd < 0) {
		printf("%s\n", errname(errno));
		return 0;
	}
	close(fd);
	printf("ok\n");
	return 0;
}

static int do_run(const char *dir, const char *n1, const char *n2,
		  const char *taken, int shared)
{
	char why[160], p1[4096], p2[4096], pt[4096], proc[64];
	struct stat st;
	unsigned char *m;
	long bad;
	int fd, tfd;

	snprintf(p1, sizeof(p1), "%s/%s", dir, n1);
	snprintf(p2, sizeof(p2), "%s/%s", dir, n2);
	snprintf(pt, sizeof(pt), "%s/%s", dir, taken);

	fd = open(dir, O_TMPFILE | O_RDWR, 0600);
	snprintf(why, sizeof(why), "%s", errname(errno));
	tap(fd >= 0, "open(O_TMPFILE | O_RDWR)", why);
	if (fd < 0)
		return 1;

	tap(fill(fd) == 0, "write 65536 bytes", errname(errno));
	bad = check_bytes(fd, DATA_LEN, 0);
	snprintf(why, sizeof(why), "first difference at byte %ld", bad);
	tap(bad < 0, "pread gives back the 65536 bytes", why);

	if (fstat(fd, &st) < 0)
		memset(&st, 0, sizeof(st));
	snprintf(why, sizeof(why), "nlink %lu size %lld mode 0%o",
		 (unsigned long)st.st_nlink, (long long)st.st_size, st.st_mode);
	tap(st.st_nlink == 0 && st.st_size == DATA_LEN && S_ISREG(st.st_mode) &&
	    (st.st_mode & 07777) == 0600,
	    "fstat: regular, mode 0600, no link, 65536 bytes", why);

	tap(ftruncate(fd, FINAL_LEN) == 0, "ftruncate to 70536", errname(errno));
	if (fstat(fd, &st) < 0)
		st.st_size = -1;
	snprintf(why, sizeof(why), "size %lld", (long long)st.st_size);
	tap(st.st_size == FINAL_LEN, "fstat after ftruncate: 70536 bytes", why);

	tap(fchmod(fd, 0640) == 0, "fchmod 0640", errname(errno));
	if (fstat(fd, &st) < 0)
		st.st_mode = 0;
	snprintf(why, sizeof(why), "mode 0%o", st.st_mode & 07777);
	tap((st.st_mode & 07777) == 0640, "fstat after fchmod: mode 0640", why);

	m = mmap(NULL, DATA_LEN, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED) {
		tap(0, "a private mapping shows the bytes", errname(errno));
	} else {
		bad = -1;
		for (size_t i = 0; i < DATA_LEN && bad < 0; i++)
			if (m[i] != pattern(i))
				bad = (long)i;
		snprintf(why, sizeof(why), "first difference at byte %ld", bad);
		tap(bad < 0, "a private mapping shows the bytes", why);
		munmap(m, DATA_LEN);
	}
	if (shared) {
		m = mmap(NULL, DATA_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (m == MAP_FAILED) {
			tap(0, "a shared mapping's write, msync'd, is read back", errname(errno));
		} else {
			memset(m + 100, 'W', 100);
			msync(m, DATA_LEN, MS_SYNC);
			munmap(m, DATA_LEN);
			bad = check_bytes(fd, FINAL_LEN, 1);
			snprintf(why, sizeof(why), "first difference at byte %ld", bad);
			tap(bad < 0, "a shared mapping's write, msync'd, is read back", why);
		}
	} else {
		/* The same bytes by pwrite, so that verify finds one content. */
		memset(why, 'W', 100);
		tap(pwrite(fd, why, 100, 100) == 100, "pwrite 100 bytes at 100",
		    errname(errno));
	}
	tap(fsync(fd) == 0, "fsync", errname(errno));

	tfd = open(pt, O_CREAT | O_WRONLY, 0644);
	if (tfd >= 0)
		close(tfd);
	errno = 0;
	linkat(fd, "", AT_FDCWD, pt, AT_EMPTY_PATH);
	snprintf(why, sizeof(why), "%s", errname(errno));
	tap(errno == EEXIST, "linkat(AT_EMPTY_PATH) onto an existing name: EEXIST", why);

	errno = 0;
	linkat(fd, "", AT_FDCWD, p1, AT_EMPTY_PATH);
	snprintf(why, sizeof(why), "%s", errname(errno));
	tap(errno == 0, "linkat(AT_EMPTY_PATH) gives it a first name", why);
	if (fstat(fd, &st) < 0)
		st.st_nlink = 99;
	snprintf(why, sizeof(why), "nlink %lu", (unsigned long)st.st_nlink);
	tap(st.st_nlink == 1, "fstat after the first link: nlink 1", why);

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	errno = 0;
	linkat(AT_FDCWD, proc, AT_FDCWD, p2, AT_SYMLINK_FOLLOW);
	snprintf(why, sizeof(why), "%s", errname(errno));
	tap(errno == 0, "linkat(/proc/self/fd/N, AT_SYMLINK_FOLLOW) gives a second name",
	    why);
	if (stat(p1, &st) < 0)
		st.st_nlink = 99;
	snprintf(why, sizeof(why), "nlink %lu", (unsigned long)st.st_nlink);
	tap(st.st_nlink == 2, "stat of the first name: nlink 2", why);

	tap(close(fd) == 0, "close", errname(errno));
	printf("# size %d\n", FINAL_LEN);
	return failed;
}

static int do_excl(const char *dir)
{
	int fd = open(dir, O_TMPFILE | O_EXCL | O_RDWR, 0600);
	char p[4096];

	if (fd < 0) {
		printf("open: %s\n", errname(errno));
		return 0;
	}
	fill(fd);
	snprintf(p, sizeof(p), "%s/excl-linked", dir);
	errno = 0;
	linkat(fd, "", AT_FDCWD, p, AT_EMPTY_PATH);
	printf("%s\n", errname(errno));
	close(fd);
	return 0;
}

static int count_names(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static int do_unlinked(const char *dir, const char *exp)
{
	char why[80];
	int before, during, after, fd;

	before = count_names(exp);
	fd = open(dir, O_TMPFILE | O_WRONLY, 0600);
	snprintf(why, sizeof(why), "%s", errname(errno));
	tap(fd >= 0, "open(O_TMPFILE | O_WRONLY)", why);
	if (fd < 0)
		return 1;
	tap(fill(fd) == 0, "write 65536 bytes", errname(errno));
	during = count_names(exp);
	snprintf(why, sizeof(why), "%d before, %d while open", before, during);
	tap(during == before + 1, "the export holds one hidden name while it is open", why);
	close(fd);
	after = count_names(exp);
	snprintf(why, sizeof(why), "%d before, %d after", before, after);
	tap(after == before, "close without a link leaves no name in the export", why);
	return failed;
}

static int do_verify(const char *path)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	long bad;

	if (fd < 0 || fstat(fd, &st) < 0) {
		printf("%s: %s\n", path, errname(errno));
		return 1;
	}
	if (st.st_size != FINAL_LEN) {
		printf("%s: size %lld, want %d\n", path, (long long)st.st_size,
		       FINAL_LEN);
		return 1;
	}
	bad = check_bytes(fd, FINAL_LEN, 1);
	close(fd);
	if (bad >= 0) {
		printf("%s: first difference at byte %ld\n", path, bad);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd;
	int shared = 0, c;

	if (argc < 3)
		goto usage;
	cmd = argv[1];
	optind = 2;
	while ((c = getopt(argc, argv, "wp:")) != -1) {
		if (c == 'w')
			shared = 1;
		else if (c == 'p')
			label = optarg;
		else
			goto usage;
	}
	argv += optind;
	argc -= optind;
	if (!strcmp(cmd, "open") && argc == 1)
		return do_open(argv[0]);
	if (!strcmp(cmd, "run") && argc == 4)
		return do_run(argv[0], argv[1], argv[2], argv[3], shared);
	if (!strcmp(cmd, "excl") && argc == 1)
		return do_excl(argv[0]);
	if (!strcmp(cmd, "unlinked") && argc == 2)
		return do_unlinked(argv[0], argv[1]);
	if (!strcmp(cmd, "verify") && argc == 1)
		return do_verify(argv[0]);
usage:
	fprintf(stderr, "usage: tmpfile open|excl DIR | run [-w] -p LABEL DIR N1 N2 TAKEN |\n"
		"       unlinked -p LABEL DIR EXPORT | verify FILE\n");
	return 2;
}
