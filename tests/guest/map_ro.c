// SPDX-License-Identifier: GPL-2.0
/*
 * map-ro: a read-only shared mapping of a file open for reading and writing.
 *
 *	map-ro FILE
 *
 * Creates FILE (truncated) with two pages of 'a' through an O_RDWR
 * descriptor, maps them PROT_READ, MAP_SHARED through that descriptor, then
 * checks, printing one line each:
 *   "mmap ok" / "mmap err N"          the mapping is made
 *   "sees-write ok" / "sees-write bad" a pwrite(2) of 'b' over the second
 *                                     page, made after the mapping, shows in it
 *   "sees-truncate ok" / "... bad"    after ftruncate(2) to one page and back
 *                                     to two, the second page reads as zeros
 *   "mprotect err N" / "mprotect ok"  mprotect(PROT_READ|PROT_WRITE): the
 *                                     errno it fails with (EACCES is 13)
 * Exits 0 when the mapping was made, 1 when not, 2 on a set-up error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int all(const unsigned char *p, size_t len, unsigned char c)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != c)
			return 0;
	return 1;
}

int main(int argc, char **argv)
{
	size_t pg = sysconf(_SC_PAGESIZE);
	unsigned char buf[65536];
	unsigned char *p;
	int fd;

	if (argc != 2 || pg > sizeof(buf) / 2) {
		fprintf(stderr, "usage: map-ro FILE\n");
		return 2;
	}
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(argv[1]);
		return 2;
	}
	memset(buf, 'a', 2 * pg);
	if (pwrite(fd, buf, 2 * pg, 0) != (ssize_t)(2 * pg)) {
		perror("pwrite");
		return 2;
	}
	p = mmap(NULL, 2 * pg, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		printf("mmap err %d\n", errno);
		return 1;
	}
	printf("mmap ok\n");
	/* the mapping is read before the write: its pages are cached */
	if (!all(p, 2 * pg, 'a'))
		printf("first-read bad\n");
	memset(buf, 'b', pg);
	if (pwrite(fd, buf, pg, pg) != (ssize_t)pg) {
		perror("pwrite");
		return 2;
	}
	printf("sees-write %s\n", all(p + pg, pg, 'b') && all(p, pg, 'a') ? "ok" : "bad");
	if (ftruncate(fd, pg) || ftruncate(fd, 2 * pg)) {
		perror("ftruncate");
		return 2;
	}
	printf("sees-truncate %s\n", all(p + pg, pg, 0) ? "ok" : "bad");
	if (mprotect(p, 2 * pg, PROT_READ | PROT_WRITE))
		printf("mprotect err %d\n", errno);
	else
		printf("mprotect ok\n");
	munmap(p, 2 * pg);
	close(fd);
	return 0;
}
