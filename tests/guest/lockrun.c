// SPDX-License-Identifier: GPL-2.0-only
/*
 * lockrun [-n] [-s] [-p] FILE CMD: lock FILE (flock(2), or with -p a whole-file
 * fcntl(2) lock), run `sh -c CMD` while holding it, then exit with CMD's status.
 * -n: do not wait; exit 1 if the lock is held elsewhere. -s: shared (read) lock.
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

int main(int argc, char **argv)
{
	int nowait = 0, shared = 0, posix = 0, opt, fd, r, st;
	pid_t pid;

	while ((opt = getopt(argc, argv, "nsp")) != -1) {
		if (opt == 'n')
			nowait = 1;
		else if (opt == 's')
			shared = 1;
		else if (opt == 'p')
			posix = 1;
		else
			return 2;
	}
	if (argc - optind != 2) {
		fprintf(stderr, "usage: lockrun [-n] [-s] [-p] FILE CMD\n");
		return 2;
	}
	fd = open(argv[optind], shared ? O_RDONLY : O_RDWR);
	if (fd < 0) {
		fprintf(stderr, "lockrun: open %s: %s\n", argv[optind], strerror(errno));
		return 2;
	}
	if (posix) {
		struct flock fl = { .l_type = shared ? F_RDLCK : F_WRLCK, .l_whence = SEEK_SET };

		r = fcntl(fd, nowait ? F_SETLK : F_SETLKW, &fl);
	} else {
		r = flock(fd, (shared ? LOCK_SH : LOCK_EX) | (nowait ? LOCK_NB : 0));
	}
	if (r < 0) {
		if (nowait && (errno == EWOULDBLOCK || errno == EAGAIN || errno == EACCES))
			return 1;
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
