// SPDX-License-Identifier: GPL-2.0
/*
 * lprobe: one metadata call on a path, and the errno it ended with, as a
 * number (the shell cannot show errnos above the ones libc names).
 *
 *	lprobe OP PATH [NAME [HEX]]
 *
 * OP is one of
 *	stat      stat(2): "ok MODE" (st_mode in octal)
 *	readlink  readlink(2) into a buffer of 2 * PATH_MAX: "ok LENGTH"
 *	statfs    statfs(2): "ok BSIZE BLOCKS"
 *	readdir   getdents64(2) to the end: "ok N [name] [name] ..." (N entries,
 *		  the first 8 names in brackets); "loop N" when it has not
 *		  ended after 10,000 entries (the offsets do not advance)
 *	readall   read(2) to the end of the file: "ok BYTES"
 *	getxattr  getxattr(2) of user.h into 256 bytes: "ok LENGTH"
 *	xattrsize getxattr(2) of user.h with no buffer: "ok LENGTH"
 *	listxattr listxattr(2) into 64 KiB: "ok LENGTH"
 *	setxattr  setxattr(2) of user.h to "hostile-xattr-16": "ok"
 *	xget NAME getxattr(2) of NAME into 64 KiB: "ok HEX" (the value in hex)
 *	xset NAME HEX  setxattr(2) of NAME to the bytes HEX spells: "ok"
 *	xdel NAME removexattr(2) of NAME: "ok"
 *	setlk     fcntl(F_SETLK) of a write lock on the whole file: "ok"
 *	getlk     fcntl(F_GETLK) of a write lock on the whole file:
 *		  "ok TYPE START LEN" (l_type, l_start, l_len)
 * A failed call prints "err N" (its errno). Exit status 0, 2 on a usage error.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/xattr.h>

#define MAX_ENTRIES	10000
#define SHOWN		8

static int fail(void)
{
	printf("err %d\n", errno);
	return 0;
}

static int list(const char *path)
{
	char buf[4096], names[SHOWN * 80] = "";
	long n, total = 0;
	int fd = open(path, O_RDONLY | O_DIRECTORY);

	if (fd < 0)
		return fail();
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		for (long p = 0; p < n;) {
			struct dirent64 *d = (struct dirent64 *)(buf + p);

			if (total < SHOWN)
				snprintf(names + strlen(names), sizeof(names) - strlen(names),
					 " [%.64s]", d->d_name);
			total++;
			p += d->d_reclen;
		}
		if (total > MAX_ENTRIES) {
			printf("loop %ld\n", total);
			return 0;
		}
	}
	if (n < 0)
		return fail();
	printf("ok %ld%s\n", total, names);
	return 0;
}

/* The bytes of the hex string @hex into @out (at most @max): their count, or -1. */
static long unhex(const char *hex, unsigned char *out, size_t max)
{
	size_t n = strlen(hex) / 2, i;
	unsigned int b;

	if (strlen(hex) % 2 || n > max)
		return -1;
	for (i = 0; i < n; i++) {
		if (sscanf(hex + 2 * i, "%2x", &b) != 1)
			return -1;
		out[i] = (unsigned char)b;
	}
	return (long)n;
}

/* xget, xset, xdel: the attribute named by argv[3] (xset: value argv[4]). */
static int named_xattr(int argc, char **argv)
{
	static unsigned char val[65536];
	long n, i;

	if (!strcmp(argv[1], "xget") && argc == 4) {
		n = getxattr(argv[2], argv[3], val, sizeof(val));
		if (n < 0)
			return fail();
		printf("ok ");
		for (i = 0; i < n; i++)
			printf("%02x", val[i]);
		printf("\n");
		return 0;
	}
	if (!strcmp(argv[1], "xset") && argc == 5) {
		n = unhex(argv[4], val, sizeof(val));
		if (n < 0) {
			fprintf(stderr, "lprobe: bad hex value %s\n", argv[4]);
			return 2;
		}
		if (setxattr(argv[2], argv[3], val, (size_t)n, 0) < 0)
			return fail();
	} else if (!strcmp(argv[1], "xdel") && argc == 4) {
		if (removexattr(argv[2], argv[3]) < 0)
			return fail();
	} else {
		fprintf(stderr, "usage: lprobe xget|xdel PATH NAME, lprobe xset PATH NAME HEX\n");
		return 2;
	}
	printf("ok\n");
	return 0;
}

int main(int argc, char **argv)
{
	static char buf[2 * PATH_MAX], xbuf[65536];
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	struct statfs sf;
	struct stat st;
	long n, total = 0;
	int fd;

	if (argc > 1 && argv[1][0] == 'x' && argv[1][1] != 'a')
		return named_xattr(argc, argv);
	if (argc != 3) {
		fprintf(stderr, "usage: lprobe stat|readlink|statfs|readdir|readall|getxattr|"
			"xattrsize|listxattr|setxattr|setlk|getlk PATH\n");
		return 2;
	}
	if (!strcmp(argv[1], "stat")) {
		if (stat(argv[2], &st) < 0)
			return fail();
		printf("ok %o\n", st.st_mode);
	} else if (!strcmp(argv[1], "readlink")) {
		n = readlink(argv[2], buf, sizeof(buf));
		if (n < 0)
			return fail();
		printf("ok %ld\n", n);
	} else if (!strcmp(argv[1], "statfs")) {
		if (statfs(argv[2], &sf) < 0)
			return fail();
		printf("ok %ld %llu\n", (long)sf.f_bsize, (unsigned long long)sf.f_blocks);
	} else if (!strcmp(argv[1], "readdir")) {
		return list(argv[2]);
	} else if (!strcmp(argv[1], "readall")) {
		fd = open(argv[2], O_RDONLY);
		if (fd < 0)
			return fail();
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			total += n;
		if (n < 0)
			return fail();
		printf("ok %ld\n", total);
	} else if (!strcmp(argv[1], "getxattr") || !strcmp(argv[1], "xattrsize")) {
		n = getxattr(argv[2], "user.h", argv[1][0] == 'g' ? xbuf : NULL,
			     argv[1][0] == 'g' ? 256 : 0);
		if (n < 0)
			return fail();
		printf("ok %ld\n", n);
	} else if (!strcmp(argv[1], "setxattr")) {
		if (setxattr(argv[2], "user.h", "hostile-xattr-16", 16, 0) < 0)
			return fail();
		printf("ok\n");
	} else if (!strcmp(argv[1], "listxattr")) {
		n = listxattr(argv[2], xbuf, sizeof(xbuf));
		if (n < 0)
			return fail();
		printf("ok %ld\n", n);
	} else if (!strcmp(argv[1], "setlk") || !strcmp(argv[1], "getlk")) {
		fd = open(argv[2], O_RDWR);
		if (fd < 0 || fcntl(fd, argv[1][0] == 's' ? F_SETLK : F_GETLK, &fl) < 0)
			return fail();
		if (argv[1][0] == 's')
			printf("ok\n");
		else
			printf("ok %d %lld %lld\n", fl.l_type, (long long)fl.l_start,
			       (long long)fl.l_len);
	} else {
		fprintf(stderr, "lprobe: unknown OP %s\n", argv[1]);
		return 2;
	}
	return 0;
}
