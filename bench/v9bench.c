// SPDX-License-Identifier: GPL-2.0
/*
 * v9bench: the timed workloads of bench/run.sh, one per sub-command.
 *
 *	v9bench seqwrite FILE MIB [nosync]
 *					write MIB MiB in 1 MiB writes, fsync
 *					(unless nosync), close
 *	v9bench seqread FILE		read FILE to the end in 1 MiB reads
 *	v9bench randread FILE COUNT	COUNT preads of 4 KiB at random aligned offsets
 *	v9bench dseqwrite FILE MIB, dseqread FILE, drandread FILE COUNT
 *					the same three with the file opened O_DIRECT
 *	v9bench smallfiles DIR COUNT	in DIR as the working directory, COUNT x
 *					(create, write 4 KiB, close, stat, open,
 *					read, close, unlink)
 *	v9bench mkfiles DIR COUNT	COUNT empty files (set-up, not a measure)
 *	v9bench mktree DIR DIRS COUNT	COUNT files of 1 to 64 KiB spread over
 *					DIRS directories DIR/d-N (set-up: a
 *					source tree to tar and untar)
 *	v9bench mksrc DIR DIRS COUNT	as mktree, files of 1 to 16 KiB (the
 *					size of most source files and headers)
 *	v9bench walk DIR		lstat every name under DIR, as a
 *					`git status` or `find -printf` does
 *	v9bench readall DIR		read every regular file under DIR
 *	v9bench build TREE OUT COUNT	COUNT x (read 8 files of TREE, write
 *					4 KiB to OUT/o-N.tmp, rename it to
 *					OUT/o-N.o): a compiler's pattern
 *	v9bench stat FILE COUNT		COUNT x stat(FILE)
 *	v9bench cat FILE COUNT		COUNT x (open, read to the end, close)
 *	v9bench creates DIR COUNT	COUNT x (create DIR/c-N, close); timed,
 *					unlike mkfiles; the files stay
 *	v9bench writes FILE KIB COUNT	COUNT writes of KIB KiB, fsync, close
 *	v9bench reads FILE KIB		read FILE to the end in KIB KiB reads
 *	v9bench time CMD [ARG...]	run CMD, its stdout to /dev/null
 *	v9bench idle CMD [ARG...]	exec CMD under SCHED_IDLE (a task that
 *					only runs when nothing else wants the CPU)
 *
 * Each prints one line "v9bench OP seconds=S bytes=B ops=N" and exits 0, or
 * names the call that failed and exits 1.  The clock is CLOCK_MONOTONIC,
 * taken around the work only (set-up excluded).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MIB (1 << 20)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void __attribute__((noreturn)) die(const char *what, const char *path)
{
	fprintf(stderr, "v9bench: %s %s: %s\n", what, path, strerror(errno));
	exit(1);
}

static void report(const char *op, double secs, unsigned long long bytes, unsigned long ops)
{
	printf("v9bench %s seconds=%.3f bytes=%llu ops=%lu\n", op, secs, bytes, ops);
}

static void *xmalloc(size_t n)
{
	/* page-aligned: the O_DIRECT modes need it, the others do not mind */
	void *p = aligned_alloc(4096, (n + 4095) & ~(size_t)4095);

	if (!p) {
		fprintf(stderr, "v9bench: out of memory\n");
		exit(1);
	}
	return p;
}

static int seqwrite(const char *path, long mib, int sync, int direct)
{
	char *buf = xmalloc(MIB);
	double t0, t1;
	long i;
	int fd;

	memset(buf, 0xa5, MIB);
	fd = open(path, O_CREAT | O_WRONLY | O_TRUNC | direct, 0644);
	if (fd < 0)
		die("create", path);
	t0 = now();
	for (i = 0; i < mib; i++) {
		size_t done = 0;

		while (done < MIB) {
			ssize_t n = write(fd, buf + done, MIB - done);

			if (n <= 0)
				die("write", path);
			done += n;
		}
	}
	if (sync && fsync(fd) < 0)
		die("fsync", path);
	if (close(fd) < 0)
		die("close", path);
	t1 = now();
	report("seqwrite", t1 - t0, (unsigned long long)mib * MIB, mib);
	return 0;
}

static int seqread(const char *path, int direct)
{
	char *buf = xmalloc(MIB);
	unsigned long long total = 0;
	unsigned long ops = 0;
	double t0, t1;
	ssize_t n;
	int fd;

	t0 = now();
	fd = open(path, O_RDONLY | direct);
	if (fd < 0)
		die("open", path);
	while ((n = read(fd, buf, MIB)) > 0) {
		total += n;
		ops++;
	}
	if (n < 0)
		die("read", path);
	close(fd);
	t1 = now();
	report("seqread", t1 - t0, total, ops);
	return 0;
}

static int randread(const char *path, long count, int direct)
{
	uint64_t x = 88172645463325252ULL;	/* fixed: every client reads the same offsets */
	char *buf = xmalloc(4096);
	struct stat st;
	uint64_t blocks;
	double t0, t1;
	long i;
	int fd;

	fd = open(path, O_RDONLY | direct);
	if (fd < 0 || fstat(fd, &st) < 0)
		die("open", path);
	blocks = st.st_size / 4096;
	if (!blocks) {
		fprintf(stderr, "v9bench: %s is smaller than 4 KiB\n", path);
		return 1;
	}
	t0 = now();
	for (i = 0; i < count; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (pread(fd, buf, 4096, (off_t)(x % blocks) * 4096) != 4096)
			die("pread", path);
	}
	t1 = now();
	close(fd);
	report("randread", t1 - t0, (unsigned long long)count * 4096, count);
	return 0;
}

static int smallfiles(const char *dir, long count)
{
	char path[4096], *buf = xmalloc(4096), *back = xmalloc(4096);
	struct stat st;
	double t0, t1;
	long i;
	int fd;

	memset(buf, 'x', 4096);
	/* Names relative to DIR, so the cost per file does not depend on its depth. */
	if (chdir(dir) < 0)
		die("chdir", dir);
	t0 = now();
	for (i = 0; i < count; i++) {
		snprintf(path, sizeof(path), "small-%06ld", i);
		fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
		if (fd < 0)
			die("create", path);
		if (write(fd, buf, 4096) != 4096)
			die("write", path);
		if (close(fd) < 0)
			die("close", path);
	}
	for (i = 0; i < count; i++) {
		snprintf(path, sizeof(path), "small-%06ld", i);
		if (stat(path, &st) < 0)
			die("stat", path);
		if (st.st_size != 4096) {
			fprintf(stderr, "v9bench: %s has %lld bytes, not 4096\n", path,
				(long long)st.st_size);
			return 1;
		}
	}
	for (i = 0; i < count; i++) {
		snprintf(path, sizeof(path), "small-%06ld", i);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			die("open", path);
		if (read(fd, back, 4096) != 4096 || memcmp(back, buf, 4096))
			die("read back", path);
		close(fd);
	}
	for (i = 0; i < count; i++) {
		snprintf(path, sizeof(path), "small-%06ld", i);
		if (unlink(path) < 0)
			die("unlink", path);
	}
	t1 = now();
	report("smallfiles", t1 - t0, (unsigned long long)count * 4096, count);
	return 0;
}

static int statloop(const char *path, long count)
{
	struct stat st;
	double t0 = now();
	long i;

	for (i = 0; i < count; i++)
		if (stat(path, &st) < 0)
			die("stat", path);
	report("stat", now() - t0, 0, count);
	return 0;
}

static int catloop(const char *path, long count)
{
	char buf[64 * 1024];
	unsigned long long total = 0;
	double t0 = now();
	long i;

	for (i = 0; i < count; i++) {
		ssize_t n;
		int fd = open(path, O_RDONLY);

		if (fd < 0)
			die("open", path);
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			total += n;
		if (n < 0)
			die("read", path);
		close(fd);
	}
	report("cat", now() - t0, total, count);
	return 0;
}

static int creates(const char *dir, long count)
{
	char path[4096];
	double t0 = now();
	long i;
	int fd;

	for (i = 0; i < count; i++) {
		snprintf(path, sizeof(path), "%s/c-%06ld", dir, i);
		fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0)
			die("create", path);
		if (close(fd) < 0)
			die("close", path);
	}
	report("creates", now() - t0, 0, count);
	return 0;
}

static int writes(const char *path, long kib, long count)
{
	size_t len = (size_t)kib * 1024;
	char *buf = xmalloc(len);
	double t0;
	long i;
	int fd;

	memset(buf, 0x5a, len);
	fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (fd < 0)
		die("create", path);
	t0 = now();
	for (i = 0; i < count; i++) {
		size_t done = 0;

		while (done < len) {
			ssize_t n = write(fd, buf + done, len - done);

			if (n <= 0)
				die("write", path);
			done += n;
		}
	}
	if (fsync(fd) < 0)
		die("fsync", path);
	if (close(fd) < 0)
		die("close", path);
	report("writes", now() - t0, (unsigned long long)len * count, count);
	return 0;
}

static int reads(const char *path, long kib)
{
	size_t len = (size_t)kib * 1024;
	char *buf = xmalloc(len);
	unsigned long long total = 0;
	unsigned long ops = 0;
	double t0 = now();
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		die("open", path);
	while ((n = read(fd, buf, len)) > 0) {
		total += n;
		ops++;
	}
	if (n < 0)
		die("read", path);
	close(fd);
	report("reads", now() - t0, total, ops);
	return 0;
}

static int mkfiles(const char *dir, long count)
{
	char path[4096];
	double t0 = now();
	long i;
	int fd;

	for (i = 0; i < count; i++) {
		snprintf(path, sizeof(path), "%s/entry-%06ld", dir, i);
		fd = open(path, O_CREAT | O_WRONLY, 0644);
		if (fd < 0)
			die("create", path);
		close(fd);
	}
	report("mkfiles", now() - t0, 0, count);
	return 0;
}

/*
 * The sizes follow a fixed linear congruential sequence, so that every run
 * and every kernel gets the same tree; the bytes are not all alike, so that
 * nothing along the way can shrink them.
 */
static int mktree(const char *dir, long dirs, long count, unsigned int max_kib)
{
	char *buf = xmalloc(64 * 1024);
	unsigned long long bytes = 0;
	uint32_t seed = 12345;
	char path[4096];
	double t0 = now();
	long i;
	int fd;

	if (dirs <= 0 || count < 0) {
		fprintf(stderr, "v9bench: mktree needs DIRS > 0 and COUNT >= 0\n");
		return 1;
	}
	for (i = 0; i < 64 * 1024; i++)
		buf[i] = (char)(i * 7 + i / 251);
	for (i = 0; i < dirs; i++) {
		snprintf(path, sizeof(path), "%s/d-%02ld", dir, i);
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			die("mkdir", path);
	}
	for (i = 0; i < count; i++) {
		size_t size;

		seed = seed * 1103515245u + 12345u;
		size = 1024 * (1 + (seed >> 16) % max_kib);
		snprintf(path, sizeof(path), "%s/d-%02ld/f-%05ld", dir, i % dirs, i);
		fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
		if (fd < 0)
			die("create", path);
		if (write(fd, buf + (i % 1024), size - (i % 1024)) < 0 ||
		    write(fd, buf, i % 1024) < 0)
			die("write", path);
		if (close(fd) < 0)
			die("close", path);
		bytes += size;
	}
	free(buf);
	report("mktree", now() - t0, bytes, count);
	return 0;
}

/* what the nftw() callbacks below count; nftw passes no argument through */
static unsigned long long tree_bytes;
static unsigned long tree_names;
static char *tree_buf;

static int walk_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	if (type == FTW_NS || type == FTW_DNR)
		die("lstat", path);
	tree_names++;
	return 0;
}

static int readall_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	ssize_t n;
	int fd;

	if (type == FTW_NS || type == FTW_DNR)
		die("lstat", path);
	tree_names++;
	if (type != FTW_F || !S_ISREG(st->st_mode))
		return 0;
	fd = open(path, O_RDONLY);
	if (fd < 0)
		die("open", path);
	while ((n = read(fd, tree_buf, 64 * 1024)) > 0)
		tree_bytes += n;
	if (n < 0)
		die("read", path);
	close(fd);
	return 0;
}

/* One process for the whole tree: a walk that forks per file measures fork. */
static int walktree(const char *dir, int readall)
{
	double t0 = now();

	tree_buf = xmalloc(64 * 1024);
	if (nftw(dir, readall ? readall_one : walk_one, 64, FTW_PHYS) < 0)
		die("walk", dir);
	report(readall ? "readall" : "walk", now() - t0, tree_bytes, tree_names);
	return 0;
}

static char **tree_files;
static unsigned long tree_nfiles, tree_room;

static int list_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	if (type != FTW_F || !S_ISREG(st->st_mode))
		return 0;
	if (tree_nfiles == tree_room) {
		tree_room = tree_room ? 2 * tree_room : 1024;
		tree_files = realloc(tree_files, tree_room * sizeof(*tree_files));
		if (!tree_files) {
			fprintf(stderr, "v9bench: out of memory\n");
			exit(1);
		}
	}
	tree_files[tree_nfiles] = strdup(path);
	if (!tree_files[tree_nfiles])
		die("strdup", path);
	tree_nfiles++;
	return 0;
}

/*
 * The files of TREE are listed first, untimed; then each step reads eight of
 * them (the headers of a compilation unit), writes its output under a
 * temporary name and renames it into place, as make and a compiler do.
 */
static int build(const char *tree, const char *out, long count)
{
	char *obj = xmalloc(4096), *buf = xmalloc(64 * 1024);
	char tmp[4096], dst[4096];
	unsigned long long bytes = 0;
	double t0;
	long i, k;
	ssize_t n;
	int fd;

	if (nftw(tree, list_one, 64, FTW_PHYS) < 0)
		die("walk", tree);
	if (!tree_nfiles) {
		fprintf(stderr, "v9bench: %s holds no file\n", tree);
		return 1;
	}
	t0 = now();
	for (i = 0; i < count; i++) {
		for (k = 0; k < 8; k++) {
			const char *h = tree_files[(i * 8 + k) * 7919 % tree_nfiles];

			fd = open(h, O_RDONLY);
			if (fd < 0)
				die("open", h);
			while ((n = read(fd, buf, 64 * 1024)) > 0)
				bytes += n;
			if (n < 0)
				die("read", h);
			close(fd);
		}
		memset(obj, (int)(i & 0xff), 4096);
		snprintf(tmp, sizeof(tmp), "%s/o-%05ld.tmp", out, i);
		snprintf(dst, sizeof(dst), "%s/o-%05ld.o", out, i);
		fd = open(tmp, O_CREAT | O_WRONLY | O_TRUNC, 0644);
		if (fd < 0)
			die("create", tmp);
		if (write(fd, obj, 4096) != 4096)
			die("write", tmp);
		if (close(fd) < 0)
			die("close", tmp);
		if (rename(tmp, dst) < 0)
			die("rename", tmp);
	}
	report("build", now() - t0, bytes, count);
	return 0;
}

static int timecmd(char **argv)
{
	double t0 = now();
	int status;
	pid_t pid = fork();

	if (pid < 0)
		die("fork", argv[0]);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0)
			dup2(null, 1);
		execvp(argv[0], argv);
		fprintf(stderr, "v9bench: exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		die("waitpid", argv[0]);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "v9bench: %s failed (status 0x%x)\n", argv[0], status);
		return 1;
	}
	report("time", now() - t0, 0, 1);
	return 0;
}

static int idlecmd(char **argv)
{
	struct sched_param sp = { .sched_priority = 0 };

	if (sched_setscheduler(0, SCHED_IDLE, &sp) < 0)
		die("sched_setscheduler SCHED_IDLE", argv[0]);
	execvp(argv[0], argv);
	die("exec", argv[0]);
}

static void usage(void)
{
	fprintf(stderr, "usage: v9bench seqwrite FILE MIB [nosync] | seqread FILE | randread FILE COUNT |\n"
		"       dseqwrite FILE MIB | dseqread FILE | drandread FILE COUNT |\n"
		"       smallfiles DIR COUNT | mkfiles DIR COUNT | mktree DIR DIRS COUNT |\n"
		"       mksrc DIR DIRS COUNT | walk DIR | readall DIR | build TREE OUT COUNT |\n"
		"       time CMD [ARG...] |\n"
		"       stat FILE COUNT | cat FILE COUNT | creates DIR COUNT |\n"
		"       writes FILE KIB COUNT | reads FILE KIB | idle CMD [ARG...]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 3)
		usage();
	if (!strcmp(argv[1], "seqwrite") && argc == 4)
		return seqwrite(argv[2], atol(argv[3]), 1, 0);
	if (!strcmp(argv[1], "seqwrite") && argc == 5 && !strcmp(argv[4], "nosync"))
		return seqwrite(argv[2], atol(argv[3]), 0, 0);
	if (!strcmp(argv[1], "seqread") && argc == 3)
		return seqread(argv[2], 0);
	if (!strcmp(argv[1], "randread") && argc == 4)
		return randread(argv[2], atol(argv[3]), 0);
	if (!strcmp(argv[1], "dseqwrite") && argc == 4)
		return seqwrite(argv[2], atol(argv[3]), 1, O_DIRECT);
	if (!strcmp(argv[1], "dseqread") && argc == 3)
		return seqread(argv[2], O_DIRECT);
	if (!strcmp(argv[1], "drandread") && argc == 4)
		return randread(argv[2], atol(argv[3]), O_DIRECT);
	if (!strcmp(argv[1], "smallfiles") && argc == 4)
		return smallfiles(argv[2], atol(argv[3]));
	if (!strcmp(argv[1], "mkfiles") && argc == 4)
		return mkfiles(argv[2], atol(argv[3]));
	if (!strcmp(argv[1], "mktree") && argc == 5)
		return mktree(argv[2], atol(argv[3]), atol(argv[4]), 64);
	if (!strcmp(argv[1], "mksrc") && argc == 5)
		return mktree(argv[2], atol(argv[3]), atol(argv[4]), 16);
	if (!strcmp(argv[1], "walk") && argc == 3)
		return walktree(argv[2], 0);
	if (!strcmp(argv[1], "readall") && argc == 3)
		return walktree(argv[2], 1);
	if (!strcmp(argv[1], "build") && argc == 5)
		return build(argv[2], argv[3], atol(argv[4]));
	if (!strcmp(argv[1], "stat") && argc == 4)
		return statloop(argv[2], atol(argv[3]));
	if (!strcmp(argv[1], "cat") && argc == 4)
		return catloop(argv[2], atol(argv[3]));
	if (!strcmp(argv[1], "creates") && argc == 4)
		return creates(argv[2], atol(argv[3]));
	if (!strcmp(argv[1], "writes") && argc == 5 && atol(argv[3]) > 0)
		return writes(argv[2], atol(argv[3]), atol(argv[4]));
	if (!strcmp(argv[1], "reads") && argc == 4 && atol(argv[3]) > 0)
		return reads(argv[2], atol(argv[3]));
	if (!strcmp(argv[1], "idle"))
		return idlecmd(argv + 2);
	if (!strcmp(argv[1], "time"))
		return timecmd(argv + 2);
	usage();
	return 2;
}
