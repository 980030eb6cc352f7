// SPDX-License-Identifier: GPL-2.0
/*
 * size-race: a stat(2) whose reply predates a write(2) must not take back
 * the size the write gave the file, under a shared writable mapping.
 *
 *	size-race FILE
 *
 * Opens FILE read-write and maps it shared and writable, 64 KiB past its
 * end. A thread fstat(2)s it; 200 ms later write(2) puts 4096 bytes at its
 * end (the server, hostile-9p -m stale-size, answers the fstat after the
 * write, with the old length). Once both returned, a store into the new
 * page goes through the mapping, then msync(2). It prints "ok SIZE" (the
 * size fstat(2) says at the end) or "sigbus at OFFSET: the size went back
 * to SIZE", or "err N" for a failed call, and exits 0 (2 on a usage error).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int fd;
static struct stat raced;
static int raced_err;
static sigjmp_buf on_bus;

static void *stat_thread(void *arg)
{
	if (fstat(fd, &raced))
		raced_err = errno;
	return NULL;
}

static void bus(int sig)
{
	siglongjmp(on_bus, 1);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = bus };
	volatile char *map;
	struct stat st;
	pthread_t th;
	char buf[4096];
	off_t end;

	if (argc != 2) {
		fprintf(stderr, "usage: size-race FILE\n");
		return 2;
	}
	fd = open(argv[1], O_RDWR);
	if (fd < 0 || fstat(fd, &st)) {
		printf("err %d\n", errno);
		return 0;
	}
	end = st.st_size;
	map = mmap(NULL, end + 65536, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		printf("err %d\n", errno);
		return 0;
	}
	if (pthread_create(&th, NULL, stat_thread, NULL)) {
		printf("err %d\n", EAGAIN);
		return 0;
	}
	usleep(200000);		/* the Tgetattr (Tstat) goes first */
	memset(buf, 'w', sizeof(buf));
	if (pwrite(fd, buf, sizeof(buf), end) != (ssize_t)sizeof(buf)) {
		printf("err %d\n", errno);
		return 0;
	}
	pthread_join(th, NULL);
	if (raced_err) {
		printf("err %d\n", raced_err);
		return 0;
	}
	sigaction(SIGBUS, &sa, NULL);
	if (sigsetjmp(on_bus, 1)) {
		fstat(fd, &st);
		printf("sigbus at %lld: the size went back to %lld\n", (long long)end,
		       (long long)raced.st_size);
		return 0;
	}
	map[end] = 'm';
	if (msync((void *)map, end + 4096, MS_SYNC) || fstat(fd, &st)) {
		printf("err %d\n", errno);
		return 0;
	}
	printf("ok %lld\n", (long long)st.st_size);
	return 0;
}
