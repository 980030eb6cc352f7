// SPDX-License-Identifier: GPL-2.0
/*
 * fsx: a randomized file-operation checker.
 *
 *	fsx [-N ops] [-S seed] [-l maxlen] [-o maxop] [-c every] [-F] [-R|-r] [-W] [-q] FILE
 *
 * Applies a seeded random sequence of reads, writes, appends (through an
 * O_APPEND descriptor), truncates (grow and shrink), reopens and fsyncs to
 * FILE, and the same writes and truncates to a copy held in memory.  Every
 * read is compared with the copy, the file size is checked after every
 * operation, and the whole file is compared every -c operations and at the end.
 * -F leaves the fsyncs out (the sequence is otherwise the same), for servers
 * that do not answer one.
 *
 * -R makes every other read (odd operation numbers) a mapped read: a fresh
 * MAP_SHARED PROT_READ mapping of the range, made through a descriptor
 * opened read-only (a shared mapping of a read-write descriptor could be
 * made writable, which a client without write-back refuses), compared
 * with the copy, and
 * the bytes of the last page past the end of the file must read as zeros.
 * -r is -R with the mapping made through the read-write descriptor, as
 * xfstests' fsx maps its reads: a read-only shared mapping of a file open
 * for writing.
 * -W makes every other write a mapped write: the file is extended with
 * ftruncate if the range ends past it, then the range is written through a
 * MAP_SHARED writable mapping and msync(MS_SYNC)ed.  Neither flag changes
 * the sequence of operations, offsets or lengths: without them a run is the
 * same as before they existed.
 *
 * On the first mismatch it reports the operation, the offset of the first
 * differing byte, the bytes on both sides and the tail of the operation log,
 * then exits 1.  The same -S seed replays the same sequence.  Exit 0 means
 * every operation matched; 2 is a usage or set-up error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

enum op_kind {
	OP_READ, OP_WRITE, OP_APPEND, OP_TRUNCATE, OP_REOPEN, OP_FSYNC, OP_MAPREAD,
	OP_MAPWRITE, OP_VERIFY
};

static const char *const op_names[] = {
	[OP_READ] = "read", [OP_WRITE] = "write", [OP_APPEND] = "append",
	[OP_TRUNCATE] = "truncate", [OP_REOPEN] = "reopen", [OP_FSYNC] = "fsync",
	[OP_MAPREAD] = "mapread", [OP_MAPWRITE] = "mapwrite", [OP_VERIFY] = "verify",
};

struct op_rec {
	unsigned long n;
	enum op_kind kind;
	uint64_t off, len;
	uint64_t size_after;
};

#define LOG_SIZE 64

static struct op_rec oplog[LOG_SIZE];
static unsigned long nr_logged;

static const char *path;
static int fd = -1, afd = -1, rfd = -1;
static unsigned char *shadow, *buf;
static uint64_t file_size;
static uint64_t max_len = 256 * 1024, max_op = 64 * 1024;
static uint64_t rng_state;
static int quiet;
static int no_fsync;
static int map_reads, map_reads_rw, map_writes;
static uint64_t page_size;
static unsigned long long seed;

/* xorshift64*: small, fast and, above all, reproducible from -S */
static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

static uint64_t rnd_below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

static void log_op(unsigned long n, enum op_kind kind, uint64_t off, uint64_t len)
{
	struct op_rec *r = &oplog[nr_logged++ % LOG_SIZE];

	r->n = n;
	r->kind = kind;
	r->off = off;
	r->len = len;
	r->size_after = file_size;
}

static void dump_log(void)
{
	unsigned long i = nr_logged > LOG_SIZE ? nr_logged - LOG_SIZE : 0;

	fprintf(stderr, "fsx: last %lu operations (op kind offset+length -> size):\n",
		nr_logged - i);
	for (; i < nr_logged; i++) {
		struct op_rec *r = &oplog[i % LOG_SIZE];

		fprintf(stderr, "  %6lu %-8s 0x%llx+0x%llx -> 0x%llx\n", r->n, op_names[r->kind],
			(unsigned long long)r->off, (unsigned long long)r->len,
			(unsigned long long)r->size_after);
	}
}

static void __attribute__((noreturn, format(printf, 2, 3)))
fail(unsigned long n, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fsx: FAIL at op %lu: ", n);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	dump_log();
	printf("fsx: FAILED at op %lu (seed %llu)\n", n, seed);
	exit(1);
}

/*
 * Reports the first byte where @got differs from the shadow at @off, with a
 * few bytes of context, and exits.
 */
static void mismatch(unsigned long n, const char *what, uint64_t off, const unsigned char *got,
		     uint64_t len)
{
	uint64_t i, j;

	for (i = 0; i < len && got[i] == shadow[off + i]; i++)
		;
	fprintf(stderr, "fsx: FAIL at op %lu: %s 0x%llx+0x%llx: first difference at 0x%llx\n",
		n, what, (unsigned long long)off, (unsigned long long)len,
		(unsigned long long)(off + i));
	fprintf(stderr, "  offset     file shadow\n");
	for (j = i; j < len && j < i + 8; j++)
		fprintf(stderr, "  0x%08llx %02x   %02x%s\n", (unsigned long long)(off + j), got[j],
			shadow[off + j], got[j] != shadow[off + j] ? "  <" : "");
	dump_log();
	printf("fsx: FAILED at op %lu (seed %llu)\n", n, seed);
	exit(1);
}

static void read_exact(unsigned long n, const char *what, uint64_t off, uint64_t len)
{
	uint64_t got = 0;

	while (got < len) {
		ssize_t r = pread(fd, buf + got, len - got, off + got);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			fail(n, "%s: pread 0x%llx+0x%llx: %s", what,
			     (unsigned long long)(off + got), (unsigned long long)(len - got),
			     strerror(errno));
		}
		if (r == 0)
			fail(n, "%s: short read at 0x%llx, file size should be 0x%llx", what,
			     (unsigned long long)(off + got), (unsigned long long)file_size);
		got += r;
	}
	if (memcmp(buf, shadow + off, len))
		mismatch(n, what, off, buf, len);
}

/* A MAP_SHARED mapping of the pages holding [off, off + len); *delta is off's place in it. */
static unsigned char *map_range(unsigned long n, const char *what, int mfd, uint64_t off,
				uint64_t len, int prot, uint64_t *delta, size_t *maplen)
{
	uint64_t start = off & ~(page_size - 1);
	void *p;

	*delta = off - start;
	*maplen = (*delta + len + page_size - 1) & ~(page_size - 1);
	p = mmap(NULL, *maplen, prot, MAP_SHARED, mfd, start);
	if (p == MAP_FAILED)
		fail(n, "%s: mmap 0x%llx+0x%zx: %s", what, (unsigned long long)start, *maplen,
		     strerror(errno));
	return p;
}

/*
 * A read through a new mapping of the range.  Past the end of the file the
 * last page must hold zeros: stale bytes of a truncated file show there.
 */
static void read_mapped(unsigned long n, uint64_t off, uint64_t len)
{
	uint64_t delta, end, i;
	unsigned char *p;
	size_t maplen;

	p = map_range(n, "mapped read", map_reads_rw ? fd : rfd, off, len, PROT_READ, &delta, &maplen);
	memcpy(buf, p + delta, len);
	end = file_size - (off - delta);	/* the end of the file, in the mapping */
	for (i = end; i < maplen; i++) {
		if (p[i]) {
			fail(n, "mapped read 0x%llx+0x%llx: byte 0x%llx past the end of the file (0x%llx) is 0x%02x, not 0",
			     (unsigned long long)off, (unsigned long long)len,
			     (unsigned long long)(off - delta + i), (unsigned long long)file_size, p[i]);
		}
	}
	if (munmap(p, maplen) < 0)
		fail(n, "mapped read: munmap: %s", strerror(errno));
	if (memcmp(buf, shadow + off, len))
		mismatch(n, "mapped read", off, buf, len);
}

static void check_size(unsigned long n)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		fail(n, "fstat: %s", strerror(errno));
	if ((uint64_t)st.st_size != file_size)
		fail(n, "file size is 0x%llx, expected 0x%llx", (unsigned long long)st.st_size,
		     (unsigned long long)file_size);
}

/* Writes bytes that name the operation, so stale or misplaced data shows. */
static void make_data(unsigned long n, uint64_t off, uint64_t len)
{
	uint64_t i;

	for (i = 0; i < len; i++)
		buf[i] = (unsigned char)((n % 251) + 1 + ((off + i) % 3) * 85);
}

static void write_exact(unsigned long n, int wfd, const char *what, uint64_t off,
			uint64_t len, int append)
{
	uint64_t done = 0;

	while (done < len) {
		ssize_t r = append ? write(wfd, buf + done, len - done) :
				     pwrite(wfd, buf + done, len - done, off + done);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			fail(n, "%s 0x%llx+0x%llx: %s", what, (unsigned long long)(off + done),
			     (unsigned long long)(len - done), strerror(errno));
		}
		if (r == 0)
			fail(n, "%s returned 0", what);
		done += r;
	}
}

static void do_write(unsigned long n, uint64_t off, uint64_t len)
{
	make_data(n, off, len);
	write_exact(n, fd, "pwrite", off, len, 0);
	memcpy(shadow + off, buf, len);
	if (off + len > file_size)
		file_size = off + len;
	log_op(n, OP_WRITE, off, len);
}

/* A write through a shared mapping, the file first extended to hold it. */
static void do_write_mapped(unsigned long n, uint64_t off, uint64_t len)
{
	uint64_t delta;
	unsigned char *p;
	size_t maplen;

	make_data(n, off, len);
	if (off + len > file_size && ftruncate(fd, off + len) < 0)
		fail(n, "mapped write: ftruncate(0x%llx): %s", (unsigned long long)(off + len),
		     strerror(errno));
	p = map_range(n, "mapped write", fd, off, len, PROT_READ | PROT_WRITE, &delta, &maplen);
	memcpy(p + delta, buf, len);
	if (msync(p, maplen, MS_SYNC) < 0)
		fail(n, "mapped write 0x%llx+0x%llx: msync: %s", (unsigned long long)off,
		     (unsigned long long)len, strerror(errno));
	if (munmap(p, maplen) < 0)
		fail(n, "mapped write: munmap: %s", strerror(errno));
	memcpy(shadow + off, buf, len);
	if (off + len > file_size)
		file_size = off + len;
	log_op(n, OP_MAPWRITE, off, len);
}

static void do_append(unsigned long n, uint64_t len)
{
	uint64_t off = file_size;
	off_t pos;

	make_data(n, off, len);
	write_exact(n, afd, "append", off, len, 1);
	memcpy(shadow + off, buf, len);
	file_size = off + len;
	log_op(n, OP_APPEND, off, len);
	pos = lseek(afd, 0, SEEK_CUR);
	if (pos < 0 || (uint64_t)pos != file_size)
		fail(n, "O_APPEND offset is %lld after append, expected 0x%llx", (long long)pos,
		     (unsigned long long)file_size);
}

static void do_truncate(unsigned long n, uint64_t size)
{
	if (ftruncate(fd, size) < 0)
		fail(n, "ftruncate(0x%llx): %s", (unsigned long long)size, strerror(errno));
	/* keep the shadow zero past the end: later writes past EOF leave holes */
	if (size < file_size)
		memset(shadow + size, 0, file_size - size);
	file_size = size;
	log_op(n, OP_TRUNCATE, size, 0);
}

static void open_file(unsigned long n)
{
	fd = open(path, O_RDWR);
	if (fd < 0)
		fail(n, "open %s: %s", path, strerror(errno));
	afd = open(path, O_WRONLY | O_APPEND);
	if (afd < 0)
		fail(n, "open %s O_APPEND: %s", path, strerror(errno));
	if (map_reads && !map_reads_rw) {
		rfd = open(path, O_RDONLY);
		if (rfd < 0)
			fail(n, "open %s O_RDONLY: %s", path, strerror(errno));
	}
}

static void do_reopen(unsigned long n)
{
	if (close(fd) < 0)
		fail(n, "close: %s", strerror(errno));
	if (close(afd) < 0)
		fail(n, "close append fd: %s", strerror(errno));
	if (rfd >= 0 && close(rfd) < 0)
		fail(n, "close read-only fd: %s", strerror(errno));
	open_file(n);
	log_op(n, OP_REOPEN, 0, 0);
}

static void verify_all(unsigned long n)
{
	char c;
	ssize_t r;

	log_op(n, OP_VERIFY, 0, file_size);
	check_size(n);
	if (file_size)
		read_exact(n, "verify", 0, file_size);
	r = pread(fd, &c, 1, file_size);
	if (r != 0)
		fail(n, "read at end of file (0x%llx) returned %zd%s%s",
		     (unsigned long long)file_size, r, r < 0 ? ": " : "",
		     r < 0 ? strerror(errno) : "");
}

static void usage(void)
{
	fprintf(stderr, "usage: fsx [-N ops] [-S seed] [-l maxlen] [-o maxop] [-c every] [-F] [-R|-r] [-W] [-q] FILE\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long nops = 10000, every = 1000, n;
	unsigned long counts[OP_VERIFY + 1] = { 0 };
	struct timespec t0, t1;
	int opt, have_seed = 0;

	while ((opt = getopt(argc, argv, "N:S:l:o:c:FRrWq")) != -1) {
		switch (opt) {
		case 'N':
			nops = strtoul(optarg, NULL, 0);
			break;
		case 'S':
			seed = strtoull(optarg, NULL, 0);
			have_seed = 1;
			break;
		case 'l':
			max_len = strtoull(optarg, NULL, 0);
			break;
		case 'o':
			max_op = strtoull(optarg, NULL, 0);
			break;
		case 'c':
			every = strtoul(optarg, NULL, 0);
			break;
		case 'F':
			no_fsync = 1;
			break;
		case 'R':
			map_reads = 1;
			break;
		case 'r':
			map_reads = 1;
			map_reads_rw = 1;
			break;
		case 'W':
			map_writes = 1;
			break;
		case 'q':
			quiet = 1;
			break;
		default:
			usage();
		}
	}
	if (optind != argc - 1 || max_len < 16 || !max_op || max_op > max_len)
		usage();
	path = argv[optind];
	page_size = sysconf(_SC_PAGESIZE);
	if (!have_seed) {
		clock_gettime(CLOCK_REALTIME, &t0);
		seed = (unsigned long long)t0.tv_nsec ^ ((unsigned long long)getpid() << 32);
	}
	rng_state = seed * 0x9E3779B97F4A7C15ULL + 1;
	if (!rng_state)
		rng_state = 1;

	shadow = calloc(1, max_len);
	buf = malloc(max_len);
	if (!shadow || !buf) {
		fprintf(stderr, "fsx: cannot allocate %llu bytes\n", (unsigned long long)max_len);
		return 2;
	}
	fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
	if (fd < 0) {
		fprintf(stderr, "fsx: create %s: %s\n", path, strerror(errno));
		return 2;
	}
	close(fd);
	open_file(0);
	printf("fsx: %s, %lu ops, seed %llu, max file 0x%llx, max op 0x%llx\n", path, nops, seed,
	       (unsigned long long)max_len, (unsigned long long)max_op);
	fflush(stdout);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (n = 1; n <= nops; n++) {
		uint64_t r = rnd_below(100), off, len;

		len = 1 + rnd_below(max_op);
		if (r < 35) {
			/* read: anywhere inside the file */
			if (!file_size) {
				counts[OP_READ]++;
				log_op(n, OP_READ, 0, 0);
				continue;
			}
			off = rnd_below(file_size);
			if (len > file_size - off)
				len = file_size - off;
			if (map_reads && (n & 1)) {
				log_op(n, OP_MAPREAD, off, len);
				read_mapped(n, off, len);
				counts[OP_MAPREAD]++;
			} else {
				log_op(n, OP_READ, off, len);
				read_exact(n, "read", off, len);
				counts[OP_READ]++;
			}
		} else if (r < 70) {
			/* write: may start past the end, leaving a hole */
			off = rnd_below(max_len);
			if (len > max_len - off)
				len = max_len - off;
			if (map_writes && (n & 1)) {
				do_write_mapped(n, off, len);
				counts[OP_MAPWRITE]++;
			} else {
				do_write(n, off, len);
				counts[OP_WRITE]++;
			}
		} else if (r < 80) {
			if (file_size + len > max_len) {
				/* no room: shrink instead, so appends keep happening */
				do_truncate(n, rnd_below(file_size));
				counts[OP_TRUNCATE]++;
			} else {
				do_append(n, len);
				counts[OP_APPEND]++;
			}
		} else if (r < 95) {
			do_truncate(n, rnd_below(max_len + 1));
			counts[OP_TRUNCATE]++;
		} else if (r < 98) {
			do_reopen(n);
			counts[OP_REOPEN]++;
		} else if (!no_fsync) {
			if (fsync(fd) < 0)
				fail(n, "fsync: %s", strerror(errno));
			log_op(n, OP_FSYNC, 0, 0);
			counts[OP_FSYNC]++;
		}
		check_size(n);
		if (every && n % every == 0) {
			verify_all(n);
			counts[OP_VERIFY]++;
			if (!quiet)
				fprintf(stderr, "fsx: %lu ops, size 0x%llx\n", n,
					(unsigned long long)file_size);
		}
	}
	verify_all(n);
	counts[OP_VERIFY]++;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	close(fd);
	close(afd);
	if (rfd >= 0)
		close(rfd);
	printf("fsx: %lu ops passed in %.2f s (read %lu write %lu append %lu truncate %lu "
	       "reopen %lu fsync %lu verify %lu", nops,
	       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9, counts[OP_READ],
	       counts[OP_WRITE], counts[OP_APPEND], counts[OP_TRUNCATE], counts[OP_REOPEN],
	       counts[OP_FSYNC], counts[OP_VERIFY]);
	if (map_reads || map_writes)
		printf(" mapread %lu mapwrite %lu", counts[OP_MAPREAD], counts[OP_MAPWRITE]);
	printf("), seed %llu\n", seed);
	return 0;
}
