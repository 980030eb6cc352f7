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
 *	read-ro       read(2) of COUNT bytes into a PROT_READ mapping
 *	write-ro      write(2) of COUNT bytes from a PROT_READ mapping
 *
 *	ioprobe copy|copyv|copy-direct SRC DST BUFSZ ALIGN
 *
 * copies SRC to DST (created, truncated) to the end: read(2) then write(2) of
 * what was read, through one buffer of BUFSZ bytes that starts ALIGN bytes
 * into a page. copyv uses readv(2)/writev(2) with the buffer cut into five
 * iovecs of uneven sizes, each at an odd address in a page of its own;
 * copy-direct opens both files O_DIRECT where their filesystem takes it.
 * A short write is "err 5" (EIO).
 *
 *	ioprobe hold|hold-append SRC DST [SIZE]
 *
 * writes SRC to DST (created and truncated, or with hold-append opened
 * O_APPEND and kept) in 1 MiB write(2)s, at once ftruncate(2)s DST to SIZE
 * if given, prints "written N", then waits for its standard input to end
 * before the fsync(2) and the close(2) of DST, each printed as below
 * ("fsync ok 0", "close err 5"): the shell looks at the server while the
 * written bytes are still only the client's.
 *
 *	ioprobe twice SRC1 SRC2 DST
 *
 * writes each MiB of SRC1 at its offset of DST (created, truncated), at
 * once the same MiB of SRC2 over it, then fsync(2) and close(2) as hold.
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
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>

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

#define NIOV	5

/* Cut @len bytes at @base into NIOV iovecs, each at an odd place of its own. */
static void cut(struct iovec *iov, char *base, size_t len)
{
	static const int weight[NIOV] = { 1, 3, 2, 7, 4 };
	size_t off = 0, n;
	int i;

	for (i = 0; i < NIOV; i++) {
		n = i == NIOV - 1 ? len - off : len * weight[i] / 17;
		iov[i].iov_base = base + off + (size_t)i * 4096 + 2 * i + 1;
		iov[i].iov_len = n;
		off += n;
	}
}

/* Keep the first @n bytes of @iov: the count of iovecs left. */
static int trim(struct iovec *out, const struct iovec *iov, size_t n)
{
	int i;

	for (i = 0; i < NIOV && n; i++) {
		out[i] = iov[i];
		if (out[i].iov_len > n)
			out[i].iov_len = n;
		n -= out[i].iov_len;
	}
	return i;
}

static int open_direct(const char *path, int flags, int direct)
{
	int fd = open(path, flags | (direct ? O_DIRECT : 0), 0644);

	/* tmpfs has no O_DIRECT: the other file of the pair still does. */
	if (fd < 0 && direct && errno == EINVAL)
		fd = open(path, flags, 0644);
	return fd;
}

static int copy(const char *op, const char *src, const char *dst,
		size_t bufsz, size_t align)
{
	int vec = !strcmp(op, "copyv"), direct = !strcmp(op, "copy-direct");
	struct iovec iov[NIOV], part[NIOV];
	size_t room = bufsz + align + (NIOV + 1) * 4096;
	long long total = 0;
	char *map, *buf;
	ssize_t n, w;
	int in, out;

	map = mmap(NULL, room, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		return result(-1);
	buf = map + align;
	cut(iov, buf, bufsz);
	in = open_direct(src, O_RDONLY, direct);
	if (in < 0)
		return result(-1);
	out = open_direct(dst, O_WRONLY | O_CREAT | O_TRUNC, direct);
	if (out < 0)
		return result(-1);
	for (;;) {
		n = vec ? readv(in, iov, NIOV) : read(in, buf, bufsz);
		if (n <= 0)
			break;
		w = vec ? writev(out, part, trim(part, iov, n)) :
			  write(out, buf, n);
		if (w < 0)
			return result(-1);
		if (w != n) {
			errno = EIO;
			return result(-1);
		}
		total += n;
	}
	if (n < 0 || close(out) < 0)
		return result(-1);
	return result(total);
}

#define MIB	(1024 * 1024)

/* Read up to 1 MiB of @fd into @buf: its count, or -1. */
static ssize_t read_mib(int fd, char *buf)
{
	size_t got = 0;
	ssize_t n;

	while (got < MIB) {
		n = read(fd, buf + got, MIB - got);
		if (n < 0)
			return -1;
		if (!n)
			break;
		got += n;
	}
	return got;
}

/* pwrite(2) all of @n bytes at @pos, or -1 (a short write is EIO). */
static int pwrite_all(int fd, const char *buf, size_t n, off_t pos)
{
	ssize_t w = pos < 0 ? write(fd, buf, n) : pwrite(fd, buf, n, pos);

	if (w >= 0 && (size_t)w != n)
		errno = EIO;
	return w >= 0 && (size_t)w == n ? 0 : -1;
}

static int sync_close(int fd)
{
	int err;

	printf("fsync ");
	result(fsync(fd));
	err = close(fd);
	printf("close ");
	return result(err);
}

/* hold, hold-append and twice: see the top of this file. */
static int hold(const char *op, const char *src, const char *src2,
		const char *dst, const char *size)
{
	int app = !strcmp(op, "hold-append"), twice = !strcmp(op, "twice");
	char *buf = malloc(MIB), *buf2 = malloc(MIB), c;
	int in, in2 = -1, out;
	long long total = 0;
	ssize_t n;

	if (!buf || !buf2)
		return 1;
	in = open(src, O_RDONLY);
	if (twice)
		in2 = open(src2, O_RDONLY);
	out = open(dst, O_RDWR | O_CREAT | (app ? O_APPEND : O_TRUNC), 0644);
	if (in < 0 || (twice && in2 < 0) || out < 0)
		return result(-1);
	while ((n = read_mib(in, buf)) > 0) {
		if (pwrite_all(out, buf, n, app ? -1 : total) < 0)
			return result(-1);
		if (twice && (read_mib(in2, buf2) != n ||
			      pwrite_all(out, buf2, n, total) < 0))
			return result(-1);
		total += n;
	}
	if (n < 0 || (size && ftruncate(out, strtoll(size, NULL, 0)) < 0))
		return result(-1);
	if (!twice) {
		printf("written %lld\n", total);
		fflush(stdout);
		while (read(0, &c, 1) > 0)
			;
	}
	return sync_close(out);
}

/* read(2) into, or write(2) from, a read-only mapping of @count bytes. */
static int ro_map(int fd, size_t count, int rd)
{
	void *map = mmap(NULL, count, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);

	if (map == MAP_FAILED)
		return result(-1);
	return result(rd ? read(fd, map, count) : write(fd, map, count));
}

int main(int argc, char **argv)
{
	size_t count = argc > 3 ? strtoul(argv[3], NULL, 0) : 4096;
	const char *op;
	void *buf;
	int fd, flags;

	if (argc == 6 && !strncmp(argv[1], "copy", 4) &&
	    strtoul(argv[4], NULL, 0))
		return copy(argv[1], argv[2], argv[3],
			    strtoul(argv[4], NULL, 0),
			    strtoul(argv[5], NULL, 0));
	if (argc >= 4 && argc <= 5 &&
	    (!strcmp(argv[1], "hold") || !strcmp(argv[1], "hold-append")))
		return hold(argv[1], argv[2], NULL, argv[3],
			    argc == 5 ? argv[4] : NULL);
	if (argc == 5 && !strcmp(argv[1], "twice"))
		return hold(argv[1], argv[2], argv[3], argv[4], NULL);
	if (argc < 3 || !count)
		goto usage;
	op = argv[1];
	if (posix_memalign(&buf, 4096, count))
		return 1;
	memset(buf, 'w', count);
	flags = !strcmp(op, "write") || !strcmp(op, "aio-write") ||
		!strcmp(op, "write-ro") ? O_WRONLY : O_RDONLY;
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
	if (!strcmp(op, "read-ro") || !strcmp(op, "write-ro"))
		return ro_map(fd, count, op[0] == 'r');
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
	fprintf(stderr, "usage: ioprobe open|read|write|pread-direct|aio-read|aio-write|lease|readseq|read-ro|write-ro FILE [COUNT]\n"
		"       ioprobe copy|copyv|copy-direct SRC DST BUFSZ ALIGN\n"
		"       ioprobe hold|hold-append SRC DST [SIZE]\n"
		"       ioprobe twice SRC1 SRC2 DST\n");
	return 2;
}
