// SPDX-License-Identifier: GPL-2.0
/*
 * mmap-check: does a mapping of FILE show what read(2) shows?
 *
 *	mmap-check [-p] FILE
 *
 * Maps FILE read-only (PROT_READ, MAP_SHARED) and compares every byte with
 * the file read through read(2).  With -p it also maps it MAP_PRIVATE
 * writable, scribbles over the mapping and checks that the file itself is
 * unchanged afterwards (copy-on-write stays private).
 * Prints one line saying what matched or where it differed; exit 0 on
 * success, 1 on a mismatch or failed call, 2 on usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
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

int main(int argc, char **argv)
{
	unsigned char *want, *again, *map;
	int opt, fd, private_too = 0;
	struct stat st;
	size_t len;

	while ((opt = getopt(argc, argv, "p")) != -1) {
		if (opt != 'p') {
			fprintf(stderr, "usage: mmap-check [-p] FILE\n");
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
