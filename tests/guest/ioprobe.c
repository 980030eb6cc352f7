// SPDX-License-Identifier: GPL-2.0
/*
 * ioprobe: one I/O call on a file, and the errno it ended with, as a number.
 *
 *	ioprobe OP FILE [COUNT]
 *
 * OP is one of
 *	open          open(2) read-only
 *	read          read(2) of COUNT bytes (default 4096)
 *	write         write(2) of COUNT bytes
 *	pread-direct  pread(2) at 0 on an O_DIRECT descriptor, aligned buffer
 *	aio-read      io_submit(2) of one IOCB_CMD_PREAD, then io_getevents(2)
 *	aio-write     the same with IOCB_CMD_PWRITE
 *	lease         fcntl(F_SETLEASE, F_RDLCK) on a read-only descriptor
 *	readseq       one read(2) of COUNT bytes from offset 0 that must give
 *	              the stream hostile-9p -m stream sends: byte p is p % 251;
 *	              prints "bad at P" for the first byte out of place
 *
 * It prints "ok N" (N bytes, or 0 for open) or "err N" (the errno) and exits
 * 0; it prints "timeout" and exits 3 when an AIO event does not come within
 * 10 s (a kernel that lost the iocb), and exits 2 on a usage error. The shell
 * cannot see errnos above the ones libc names, hence this program.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/aio_abi.h>
#include <sys/syscall.h>

static int result(long ret)
{
	if (ret < 0)
		printf("err %d\n", errno);
	else
		printf("ok %ld\n", ret);
	return 0;
}

static int aio(int fd, void *buf, size_t count, int write)
{
	aio_context_t ctx = 0;
	struct iocb cb, *cbs[1] = { &cb };
	struct io_event ev;
	struct timespec ts = { .tv_sec = 10 };
	long n;

	if (syscall(SYS_io_setup, 1, &ctx) < 0)
		return result(-1);
	memset(&cb, 0, sizeof(cb));
	cb.aio_fildes = fd;
	cb.aio_lio_opcode = write ? IOCB_CMD_PWRITE : IOCB_CMD_PREAD;
	cb.aio_buf = (unsigned long)buf;
	cb.aio_nbytes = count;
	if (syscall(SYS_io_submit, ctx, 1, cbs) != 1)
		return result(-1);
	n = syscall(SYS_io_getevents, ctx, 1, 1, &ev, &ts);
	if (n < 0)
		return result(-1);
	if (n == 0) {
		printf("timeout\n");
		fflush(stdout);
		return 3;
	}
	syscall(SYS_io_destroy, ctx);
	if (ev.res < 0) {
		errno = -ev.res;
		return result(-1);
	}
	return result(ev.res);
}

int main(int argc, char **argv)
{
	size_t count = argc > 3 ? strtoul(argv[3], NULL, 0) : 4096;
	const char *op;
	void *buf;
	int fd, flags;

	if (argc < 3 || !count)
		goto usage;
	op = argv[1];
	if (posix_memalign(&buf, 4096, count))
		return 1;
	memset(buf, 'w', count);
	flags = !strcmp(op, "write") || !strcmp(op, "aio-write") ? O_WRONLY : O_RDONLY;
	if (!strcmp(op, "pread-direct"))
		flags |= O_DIRECT;
	fd = open(argv[2], flags);
	if (fd < 0 || !strcmp(op, "open"))
		return result(fd < 0 ? -1 : 0);
	if (!strcmp(op, "read"))
		return result(read(fd, buf, count));
	if (!strcmp(op, "write"))
		return result(write(fd, buf, count));
	if (!strcmp(op, "pread-direct"))
		return result(pread(fd, buf, count, 0));
	if (!strcmp(op, "lease"))
		return result(fcntl(fd, F_SETLEASE, F_RDLCK));
	if (!strcmp(op, "readseq")) {
		ssize_t n = read(fd, buf, count), i;

		for (i = 0; i < n; i++) {
			if (((unsigned char *)buf)[i] != i % 251) {
				printf("bad at %zd of %zd\n", i, n);
				return 0;
			}
		}
		return result(n);
	}
	if (!strcmp(op, "aio-read"))
		return aio(fd, buf, count, 0);
	if (!strcmp(op, "aio-write"))
		return aio(fd, buf, count, 1);
usage:
	fprintf(stderr, "usage: ioprobe open|read|write|pread-direct|aio-read|aio-write|lease|readseq FILE [COUNT]\n");
	return 2;
}
