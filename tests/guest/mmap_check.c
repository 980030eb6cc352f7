// SPDX-License-Identifier: GPL-2.0
/*
 * mmap-check: does a mapping of FILE show what read(2) shows?
 *
 *	mmap-check [-p] FILE
 *	mmap-check -s TEST FILE EXPORT|PID
 *
 * Maps FILE read-only (PROT_READ, MAP_SHARED) and compares every byte with
 * the file read through read(2).  With -p it also maps it MAP_PRIVATE
 * writable, scribbles over the mapping and checks that the file itself is
 * unchanged afterwards (copy-on-write stays private).
 *
 * -s runs one check of shared writable mappings on a new FILE, whose bytes
 * the server keeps in EXPORT (the same file seen without the client):
 *   msync     write through MAP_SHARED, msync; read(2) through another
 *             descriptor and EXPORT hold the bytes
 *   nomsync   write through MAP_SHARED, munmap without msync, close: EXPORT
 *             holds the bytes
 *   truncate  write through MAP_SHARED, ftruncate smaller then larger: the
 *             mapping, read(2) and (after msync) EXPORT read zeros past the
 *             smaller size and the written bytes before it
 *   other     a mapping with dirty pages kept while another process
 *             write(2)s into them: says whether the mapping saw the write at
 *             once, after msync(MS_INVALIDATE) or only in a new mapping
 *             (exit 0, 3, 4), and that EXPORT ends up with both writes
 *   big       32 MiB written through MAP_SHARED, munmap, close: EXPORT,
 *             read back a chunk at a time, holds every byte (run in a memory
 *             cgroup smaller than that: nothing is lost under pressure)
 *   wberr     PID instead of EXPORT: write through MAP_SHARED, SIGSTOP PID
 *             (the server), msync: it must fail (EIO or ETIMEDOUT), as must
 *             fsync; PID gets SIGCONT before the exit
 * Prints one line saying what matched or where it differed; exit 0 on
 * success, 1 on a mismatch or failed call, 2 on usage.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static unsigned char *slurp(int fd, size_t len)
{
	unsigned char *buf = malloc(len ? len : 1);
	size_t got = 0;

	if (!buf)
		return NULL;
	while (got < len) {
		ssize_t n = pread(fd, buf + got, len - got, got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			free(buf);
			if (n == 0)
				errno = EIO;
			return NULL;
		}
		got += n;
	}
	return buf;
}

static int compare(const char *what, const unsigned char *map, const unsigned char *want,
		   size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (map[i] != want[i]) {
			printf("mmap-check: %s differs at offset %zu: mapping has 0x%02x, file 0x%02x\n",
			       what, i, map[i], want[i]);
			return 1;
		}
	}
	return 0;
}

static size_t pg;

/* A file of @len bytes mapped shared and writable; exits 1 on failure. */
static unsigned char *map_new(const char *file, size_t len, int *fdp)
{
	unsigned char *map;
	int fd;

	fd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, len) < 0) {
		printf("mmap-check: create %s of %zu bytes: %s\n", file, len, strerror(errno));
		exit(1);
	}
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		printf("mmap-check: mmap(PROT_WRITE, MAP_SHARED) of %s: %s\n", file,
		       strerror(errno));
		exit(1);
	}
	*fdp = fd;
	return map;
}

/* The bytes [@off, @off + @len) of the test pattern @salt, into @p. */
static void pattern_at(unsigned char *p, size_t off, size_t len, unsigned int salt)
{
	size_t i, j;

	for (i = 0; i < len; i++) {
		j = off + i;
		p[i] = (unsigned char)(j * 7 + j / 4096 + salt) | 1;
	}
}

static void pattern(unsigned char *p, size_t len, unsigned int salt)
{
	pattern_at(p, 0, len, salt);
}

/* Read @len bytes of @file through a descriptor of its own; compare with @want. */
static int check_file(const char *what, const char *file, const unsigned char *want, size_t len)
{
	unsigned char *got;
	struct stat st;
	int fd, bad;

	fd = open(file, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0) {
		printf("mmap-check: open %s: %s\n", file, strerror(errno));
		return 1;
	}
	if ((size_t)st.st_size != len) {
		printf("mmap-check: %s: %s is %lld bytes, not %zu\n", what, file,
		       (long long)st.st_size, len);
		close(fd);
		return 1;
	}
	got = slurp(fd, len);
	close(fd);
	if (!got) {
		printf("mmap-check: read %s: %s\n", file, strerror(errno));
		return 1;
	}
	bad = compare(what, got, want, len);
	free(got);
	return bad;
}

static int t_msync(const char *file, const char *export, size_t len, unsigned char *want)
{
	unsigned char *map;
	int fd;

	map = map_new(file, len, &fd);
	memcpy(map, want, len);
	if (msync(map, len, MS_SYNC) < 0) {
		printf("mmap-check: msync: %s\n", strerror(errno));
		return 1;
	}
	if (check_file("read(2) after msync", file, want, len) ||
	    check_file("the export file after msync", export, want, len))
		return 1;
	munmap(map, len);
	if (close(fd) < 0) {
		printf("mmap-check: close: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}

static int t_nomsync(const char *file, const char *export, size_t len, unsigned char *want)
{
	unsigned char *map;
	int fd;

	map = map_new(file, len, &fd);
	memcpy(map, want, len);
	munmap(map, len);
	if (close(fd) < 0) {
		printf("mmap-check: close after munmap without msync: %s\n", strerror(errno));
		return 1;
	}
	return check_file("the export file after munmap and close", export, want, len);
}

static int t_truncate(const char *file, const char *export, size_t len, unsigned char *want)
{
	size_t small = pg + 50;
	unsigned char *map;
	int fd;

	map = map_new(file, len, &fd);
	memcpy(map, want, len);
	if (ftruncate(fd, small) < 0 || ftruncate(fd, len) < 0) {
		printf("mmap-check: ftruncate to %zu then %zu: %s\n", small, len, strerror(errno));
		return 1;
	}
	memset(want + small, 0, len - small);
	if (compare("the mapping after ftruncate smaller then larger", map, want, len) ||
	    check_file("read(2) after ftruncate smaller then larger", file, want, len))
		return 1;
	if (msync(map, len, MS_SYNC) < 0) {
		printf("mmap-check: msync: %s\n", strerror(errno));
		return 1;
	}
	munmap(map, len);
	close(fd);
	return check_file("the export file after ftruncate smaller then larger", export, want,
			  len);
}

static int t_other(const char *file, const char *export, size_t len, unsigned char *want)
{
	const char *when = "at once";
	unsigned char *map, *map2;
	int fd, st, rc = 0;
	pid_t pid;

	map = map_new(file, len, &fd);
	memcpy(map, want, len);		/* dirty, not synced */
	memset(want + 10, 'B', 100);
	pid = fork();
	if (pid == 0) {
		int wfd = open(file, O_WRONLY);

		_exit(wfd < 0 || pwrite(wfd, want + 10, 100, 10) != 100 ? 1 : 0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
		printf("mmap-check: the other process's write(2) failed\n");
		return 1;
	}
	if (memcmp(map, want, len)) {
		rc = 3;
		when = "after msync(MS_INVALIDATE)";
		msync(map, len, MS_INVALIDATE);
	}
	if (rc && memcmp(map, want, len)) {
		rc = 4;
		when = "in a new mapping";
		map2 = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
		if (map2 == MAP_FAILED || compare("a new mapping after another process's write(2)",
						  map2, want, len))
			return 1;
		munmap(map2, len);
	}
	if (msync(map, len, MS_SYNC) < 0) {
		printf("mmap-check: msync: %s\n", strerror(errno));
		return 1;
	}
	munmap(map, len);
	close(fd);
	if (check_file("the export file after both writes", export, want, len))
		return 1;
	printf("mmap-check: another process's write(2) showed in a mapping %s\n", when);
	return rc;
}

/*
 * 32 MiB and a bit written through one mapping, then munmap and close; the
 * export is then compared a chunk at a time. Run in a memory cgroup smaller
 * than the file, it proves that dirty pages written back under memory
 * pressure lose nothing.
 */
static int t_big(const char *file, const char *export, size_t len, unsigned char *want)
{
	const size_t big = (32 << 20) + 123, chunk = 1 << 20;
	unsigned char *map, *got, *exp;
	size_t off, n, i;
	ssize_t r;
	int fd, bad = 0;

	(void)len;
	(void)want;
	map = map_new(file, big, &fd);
	pattern_at(map, 0, big, 'b');
	munmap(map, big);
	if (close(fd) < 0) {
		printf("mmap-check: close after writing %zu bytes: %s\n", big, strerror(errno));
		return 1;
	}
	fd = open(export, O_RDONLY);
	got = malloc(chunk);
	exp = malloc(chunk);
	if (fd < 0 || !got || !exp) {
		printf("mmap-check: open %s: %s\n", export, strerror(errno));
		return 1;
	}
	for (off = 0; off < big && !bad; off += n) {
		n = big - off < chunk ? big - off : chunk;
		r = pread(fd, got, n, off);
		if (r != (ssize_t)n) {
			printf("mmap-check: the export: %zd bytes at %zu, not %zu (%s)\n", r, off,
			       n, r < 0 ? strerror(errno) : "short");
			bad = 1;
			break;
		}
		pattern_at(exp, off, n, 'b');
		for (i = 0; i < n && !bad; i++) {
			if (got[i] != exp[i]) {
				printf("mmap-check: the export differs at offset %zu: 0x%02x, not 0x%02x\n",
				       off + i, got[i], exp[i]);
				bad = 1;
			}
		}
	}
	close(fd);
	free(got);
	free(exp);
	if (!bad)
		printf("mmap-check: big: %zu bytes written through a mapping, all in the export\n",
		       big);
	return bad;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Whether every thread of @pid is stopped. kill(SIGSTOP) only queues the
 * stop: the thread it wakes must run before the others stop, and until
 * then they go on serving.
 */
static int all_stopped(pid_t pid)
{
	char path[320], buf[512], *p;
	struct dirent *d;
	int n, fd, ok = 1;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return 0;
	while (ok && (d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/stat", (int)pid, d->d_name);
		fd = open(path, O_RDONLY);
		n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
		if (fd >= 0)
			close(fd);
		if (n <= 0)
			continue;	/* the thread is gone */
		buf[n] = 0;
		p = strrchr(buf, ')');	/* the state follows the name */
		ok = p && p[1] == ' ' && (p[2] == 'T' || p[2] == 't');
	}
	closedir(dir);
	return ok;
}

static int t_wberr(const char *file, const char *pidstr, size_t len, unsigned char *want)
{
	pid_t server = atoi(pidstr);
	int fd, r1, e1, r2, e2, r3, e3;
	unsigned char *map;
	double t0;

	if (server <= 1) {
		printf("mmap-check: bad server pid %s\n", pidstr);
		return 2;
	}
	map = map_new(file, len, &fd);
	memcpy(map, want, len);
	if (kill(server, SIGSTOP) < 0) {
		printf("mmap-check: SIGSTOP %d: %s\n", server, strerror(errno));
		return 1;
	}
	for (t0 = now(); !all_stopped(server); usleep(10000)) {
		if (now() - t0 > 10) {
			kill(server, SIGCONT);
			printf("mmap-check: %d did not stop within 10 s\n", server);
			return 1;
		}
	}
	t0 = now();
	r1 = msync(map, len, MS_SYNC);
	e1 = errno;
	r2 = fsync(fd);
	e2 = errno;
	kill(server, SIGCONT);
	munmap(map, len);
	r3 = close(fd);
	e3 = errno;
	printf("mmap-check: server stopped: msync %s, then fsync %s, close %s (%.1f s)\n",
	       r1 ? strerror(e1) : "succeeded", r2 ? strerror(e2) : "succeeded",
	       r3 ? strerror(e3) : "succeeded", now() - t0);
	return r1 && (e1 == EIO || e1 == ETIMEDOUT) ? 0 : 1;
}

int main(int argc, char **argv)
{
	unsigned char *want, *again, *map;
	int opt, fd, private_too = 0;
	struct stat st;
	size_t len;

	pg = sysconf(_SC_PAGESIZE);
	if (argc == 5 && !strcmp(argv[1], "-s")) {
		static const struct {
			const char *name;
			int (*run)(const char *, const char *, size_t, unsigned char *);
		} tests[] = {
			{ "msync", t_msync }, { "nomsync", t_nomsync }, { "truncate", t_truncate },
			{ "other", t_other }, { "wberr", t_wberr }, { "big", t_big },
		};
		size_t i;

		len = 5 * pg + 123;	/* a partial last page */
		want = malloc(len);
		if (!want)
			return 1;
		pattern(want, len, argv[2][0]);
		for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
			if (strcmp(argv[2], tests[i].name))
				continue;
			opt = tests[i].run(argv[3], argv[4], len, want);
			if (!opt && strcmp(argv[2], "other") && strcmp(argv[2], "wberr") &&
			    strcmp(argv[2], "big"))
				printf("mmap-check: %s: %zu bytes as written\n", argv[2], len);
			return opt;
		}
	}
	while ((opt = getopt(argc, argv, "p")) != -1) {
		if (opt != 'p') {
			fprintf(stderr, "usage: mmap-check [-p] FILE | -s TEST FILE EXPORT|PID\n");
			return 2;
		}
		private_too = 1;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "usage: mmap-check [-p] FILE\n");
		return 2;
	}
	fd = open(argv[optind], O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0) {
		printf("mmap-check: open %s: %s\n", argv[optind], strerror(errno));
		return 1;
	}
	len = st.st_size;
	if (!len) {
		printf("mmap-check: %s is empty, nothing to compare\n", argv[optind]);
		return 1;
	}
	want = slurp(fd, len);
	if (!want) {
		printf("mmap-check: read %s: %s\n", argv[optind], strerror(errno));
		return 1;
	}

	map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		printf("mmap-check: mmap(PROT_READ, MAP_SHARED) of %s: %s\n", argv[optind],
		       strerror(errno));
		return 1;
	}
	if (compare("read-only shared mapping", map, want, len))
		return 1;
	munmap(map, len);

	if (private_too) {
		map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED) {
			printf("mmap-check: mmap(MAP_PRIVATE, PROT_WRITE) of %s: %s\n",
			       argv[optind], strerror(errno));
			return 1;
		}
		if (compare("private mapping", map, want, len))
			return 1;
		memset(map, 0x5a, len);
		munmap(map, len);
		again = slurp(fd, len);
		if (!again) {
			printf("mmap-check: re-read %s: %s\n", argv[optind], strerror(errno));
			return 1;
		}
		if (compare("file after writing to a private mapping", again, want, len))
			return 1;
		free(again);
	}
	printf("mmap-check: %zu bytes of %s match through %s\n", len, argv[optind],
	       private_too ? "shared read-only and private mappings" : "a read-only mapping");
	return 0;
}
