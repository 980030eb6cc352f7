// SPDX-License-Identifier: GPL-2.0-only
/*
 * fdmount: mount a 9P file system over trans=fd on a connected socketpair.
 *
 *	fdmount [-t TYPE] -o OPTIONS [-p PIDFILE] [-l LOGFILE] SOURCE DIR \
 *		-- SERVER [ARG...]
 *
 * Makes a socketpair, starts SERVER (e.g. "v9fsd -s -e /export") with one
 * end as its stdin and stdout, puts the other end on the descriptors that
 * OPTIONS name with rfdno= and wfdno= (both may be the same number) and
 * calls mount(2) with them; then closes its own copies and exits. The
 * kernel keeps the socket, so the server sees end of file when the mount
 * goes away, and the client sees end of file when the server dies (which
 * a pair of FIFOs held open read-write never shows).
 *
 * The server's pid goes to PIDFILE, its stderr to LOGFILE. The generic
 * flags ro, nosuid, nodev, noexec, sync and dirsync become mount flags;
 * every other option goes to the file system as given. Exits 0 when the
 * mount succeeded (the server keeps running), 1 otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static const struct {
	const char *name;
	unsigned long flag;
} mount_flags[] = {
	{ "ro", MS_RDONLY }, { "nosuid", MS_NOSUID }, { "nodev", MS_NODEV },
	{ "noexec", MS_NOEXEC }, { "sync", MS_SYNCHRONOUS },
	{ "dirsync", MS_DIRSYNC },
};

static void usage(void)
{
	fprintf(stderr, "usage: fdmount [-t TYPE] -o OPTIONS [-p PIDFILE] [-l LOGFILE] "
		"SOURCE DIR -- SERVER [ARG...]\n");
	exit(2);
}

/* The number after "KEY=" in the comma list OPTS, or -1 if absent or bad. */
static int fd_option(const char *opts, const char *key)
{
	size_t klen = strlen(key);
	const char *p = opts;

	while (p && *p) {
		if (!strncmp(p, key, klen) && p[klen] == '=') {
			char *end;
			long v = strtol(p + klen + 1, &end, 10);

			if (end == p + klen + 1 || (*end && *end != ',') || v < 3 ||
			    v > 1023)
				return -1;
			return (int)v;
		}
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return -1;
}

/* Split the generic flags out of OPTS into *flags; the rest goes to data. */
static char *split_flags(const char *opts, unsigned long *flags)
{
	char *copy = strdup(opts), *data = calloc(1, strlen(opts) + 1);
	char *tok, *save = NULL;
	size_t i;

	if (!copy || !data) {
		fprintf(stderr, "fdmount: out of memory\n");
		exit(1);
	}
	*flags = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < sizeof(mount_flags) / sizeof(mount_flags[0]); i++)
			if (!strcmp(tok, mount_flags[i].name))
				break;
		if (i < sizeof(mount_flags) / sizeof(mount_flags[0])) {
			*flags |= mount_flags[i].flag;
			continue;
		}
		if (*data)
			strcat(data, ",");
		strcat(data, tok);
	}
	free(copy);
	return data;
}

/* Move @fd to a number >= 10 so that dup2() onto 3, 4... cannot hit it. */
static int move_up(int fd)
{
	int n = fcntl(fd, F_DUPFD_CLOEXEC, 10);

	if (n < 0) {
		perror("fdmount: fcntl");
		exit(1);
	}
	close(fd);
	return n;
}

int main(int argc, char **argv)
{
	const char *type = "9P", *opts = NULL, *pidfile = NULL, *logfile = NULL;
	unsigned long flags;
	int sv[2], rfd, wfd, opt, fd;
	char *data;
	pid_t pid;

	while ((opt = getopt(argc, argv, "+t:o:p:l:")) != -1) {
		switch (opt) {
		case 't': type = optarg; break;
		case 'o': opts = optarg; break;
		case 'p': pidfile = optarg; break;
		case 'l': logfile = optarg; break;
		default: usage();
		}
	}
	if (!opts || argc - optind < 4 || strcmp(argv[optind + 2], "--"))
		usage();
	rfd = fd_option(opts, "rfdno");
	wfd = fd_option(opts, "wfdno");
	if (rfd < 0 || wfd < 0) {
		fprintf(stderr, "fdmount: -o needs rfdno=N and wfdno=N, N from 3 to 1023\n");
		return 1;
	}
	data = split_flags(opts, &flags);

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		perror("fdmount: socketpair");
		return 1;
	}
	sv[0] = move_up(sv[0]);
	sv[1] = move_up(sv[1]);

	pid = fork();
	if (pid < 0) {
		perror("fdmount: fork");
		return 1;
	}
	if (pid == 0) {
		/* The server: the socket on stdin and stdout, nothing else open. */
		if (dup2(sv[1], 0) < 0 || dup2(sv[1], 1) < 0)
			_exit(127);
		if (logfile) {
			fd = open(logfile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
			if (fd < 0 || dup2(fd, 2) < 0)
				_exit(127);
		}
		for (fd = 3; fd < 1024; fd++)
			close(fd);
		execvp(argv[optind + 3], argv + optind + 3);
		fprintf(stderr, "fdmount: %s: %s\n", argv[optind + 3], strerror(errno));
		_exit(127);
	}
	close(sv[1]);
	if (pidfile) {
		FILE *f = fopen(pidfile, "w");

		if (!f || fprintf(f, "%d\n", (int)pid) < 0 || fclose(f)) {
			perror("fdmount: pid file");
			goto fail;
		}
	}
	if (dup2(sv[0], rfd) < 0 || dup2(sv[0], wfd) < 0) {
		perror("fdmount: dup2");
		goto fail;
	}
	close(sv[0]);
	if (mount(argv[optind], argv[optind + 1], type, flags, data) < 0) {
		fprintf(stderr, "fdmount: mount -t %s -o %s %s %s: %s\n", type, opts,
			argv[optind], argv[optind + 1], strerror(errno));
		goto fail;
	}
	/* The kernel holds the socket now; ours go, the server stays. */
	close(rfd);
	close(wfd);
	free(data);
	return 0;

fail:
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	return 1;
}
