// SPDX-License-Identifier: GPL-2.0-only
/*
 * lockrun [-n] [-s] [-p] [-r START,LEN] [-v] FILE CMD: lock FILE (flock(2), or
 * with -p a whole-file fcntl(2) lock), run `sh -c CMD` while holding it, then
 * exit with CMD's status.
 * -n: do not wait; exit 1 if the lock is held elsewhere (with -v, print
 * "refused ERRNO" first, the errno as a number). -s: shared (read) lock.
 * -r: an fcntl lock on LEN bytes from START (implies -p).
 * lockrun -g [-s] [-r START,LEN] FILE: F_GETLK for the fcntl lock that would be
 * asked; prints "unlocked", or the conflicting lock as "W|R START LEN PID".
 * Any other failure to lock prints the errno and exits 2. A signal while
 * waiting ends the program as the signal's default action does.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

static int getlk(int fd, struct flock *fl)
{
	if (fcntl(fd, F_GETLK, fl) < 0) {
		fprintf(stderr, "lockrun: F_GETLK: %s\n", strerror(errno));
		return 2;
	}
	if (fl->l_type == F_UNLCK)
		printf("unlocked\n");
	else
		printf("%c %lld %lld %ld\n", fl->l_type == F_WRLCK ? 'W' : 'R',
		       (long long)fl->l_start, (long long)fl->l_len, (long)fl->l_pid);
	return 0;
}

int main(int argc, char **argv)
{
	int nowait = 0, shared = 0, posix = 0, query = 0, verbose = 0, opt, fd, r, st;
	long long start = 0, len = 0;
	struct flock fl = { .l_whence = SEEK_SET };
	pid_t pid;

	while ((opt = getopt(argc, argv, "nspr:gv")) != -1) {
		if (opt == 'n') {
			nowait = 1;
		} else if (opt == 's') {
			shared = 1;
		} else if (opt == 'p') {
			posix = 1;
		} else if (opt == 'r') {
			if (sscanf(optarg, "%lld,%lld", &start, &len) != 2)
				return 2;
			posix = 1;
		} else if (opt == 'g') {
			query = 1;
		} else if (opt == 'v') {
			verbose = 1;
		} else {
			return 2;
		}
	}
	if (argc - optind != 2 - query) {
		fprintf(stderr, "usage: lockrun [-n] [-s] [-p] [-r START,LEN] [-v] FILE CMD\n"
			"       lockrun -g [-s] [-r START,LEN] FILE\n");
		return 2;
	}
	fd = open(argv[optind], shared ? O_RDONLY : O_RDWR);
	if (fd < 0) {
		fprintf(stderr, "lockrun: open %s: %s\n", argv[optind], strerror(errno));
		return 2;
	}
	fl.l_type = shared ? F_RDLCK : F_WRLCK;
	fl.l_start = start;
	fl.l_len = len;
	if (query)
		return getlk(fd, &fl);
	if (posix)
		r = fcntl(fd, nowait ? F_SETLK : F_SETLKW, &fl);
	else
		r = flock(fd, (shared ? LOCK_SH : LOCK_EX) | (nowait ? LOCK_NB : 0));
	if (r < 0) {
		if (nowait && (errno == EWOULDBLOCK || errno == EAGAIN || errno == EACCES)) {
			if (verbose)
				printf("refused %d\n", errno);
			return 1;
		}
		fprintf(stderr, "lockrun: lock %s: %s\n", argv[optind], strerror(errno));
		return 2;
	}
	pid = fork();
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", argv[optind + 1], (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return 2;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 2;
}
