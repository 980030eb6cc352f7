// SPDX-License-Identifier: GPL-2.0
/*
 * wb-hold: dirty a file's pages and hold them, or poke its write-back, one
 * step per SIGUSR1, so that a shell can stop the server in between.
 *
 *	wb-hold write|mmap SRC DST
 *
 * opens DST (created, truncated; for mmap extended to SRC's size with
 * ftruncate(2) and mapped MAP_SHARED writable) and prints "opened"; at the
 * first SIGUSR1 copies SRC into it (1 MiB write(2)s, or a copy into the
 * mapping) and prints "written N"; at the second it fsync(2)s and close(2)s
 * DST, each printed as "fsync ok 0" or "fsync err N" (the errno).
 *
 *	wb-hold fsync|fstat FILE
 *
 * opens FILE read-only and prints "opened"; at the first SIGUSR1 calls
 * fsync(2) or fstat(2) on it (both send the file's dirty pages first on a
 * write-back mount) and prints "fsync ok 0" or "fstat err N" and so on.
 *
 * Exits 0 once done, 2 on a usage or set-up error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHUNK (1 << 20)

static sigset_t usr1;

static void step(const char *what)
{
	int sig;

	printf("%s\n", what);
	fflush(stdout);
	if (sigwait(&usr1, &sig))
		exit(2);
}

static void result(const char *what, int rc)
{
	if (rc < 0)
		printf("%s err %d\n", what, errno);
	else
		printf("%s ok 0\n", what);
	fflush(stdout);
}

static int poke(const char *op, const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		perror(path);
		return 2;
	}
	step("opened");
	if (!strcmp(op, "fsync"))
		result(op, fsync(fd));
	else
		result(op, fstat(fd, &st));
	return 0;
}

static int dirty(const char *op, const char *src, const char *dst)
{
	int map = !strcmp(op, "mmap");
	char *buf = NULL, *m = NULL;
	struct stat st;
	size_t done;
	int sfd, fd;

	sfd = open(src, O_RDONLY);
	if (sfd < 0 || fstat(sfd, &st)) {
		perror(src);
		return 2;
	}
	buf = malloc(st.st_size);
	if (!buf || read(sfd, buf, st.st_size) != st.st_size) {
		perror("read");
		return 2;
	}
	fd = open(dst, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(dst);
		return 2;
	}
	if (map) {
		if (ftruncate(fd, st.st_size)) {
			perror("ftruncate");
			return 2;
		}
		m = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (m == MAP_FAILED) {
			perror("mmap");
			return 2;
		}
	}
	step("opened");
	for (done = 0; done < (size_t)st.st_size; done += CHUNK) {
		size_t n = st.st_size - done < CHUNK ? st.st_size - done : CHUNK;

		if (map) {
			memcpy(m + done, buf + done, n);
		} else if (write(fd, buf + done, n) != (ssize_t)n) {
			printf("write err %d\n", errno);
			return 2;
		}
	}
	printf("written %zu\n", done);
	step("holding");
	result("fsync", fsync(fd));
	if (map)
		munmap(m, st.st_size);
	result("close", close(fd));
	return 0;
}

int main(int argc, char **argv)
{
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	if (argc == 4 && (!strcmp(argv[1], "write") || !strcmp(argv[1], "mmap")))
		return dirty(argv[1], argv[2], argv[3]);
	if (argc == 3 && (!strcmp(argv[1], "fsync") || !strcmp(argv[1], "fstat")))
		return poke(argv[1], argv[2]);
	fprintf(stderr, "usage: wb-hold write|mmap SRC DST\n"
			"       wb-hold fsync|fstat FILE\n");
	return 2;
}
