// SPDX-License-Identifier: GPL-2.0
/*
 * cachebind DIR TAG: bring up a cachefiles cache in DIR under TAG and hold it
 * until killed (SIGTERM, SIGINT): the cache lives while /dev/cachefiles stays
 * open. It is the part of cachefilesd(8) that the guest tests need: it sets up
 * and binds the cache but never culls, so a full cache stops taking data
 * (bstop) rather than making room. Prints "bound" on stdout once the cache is
 * in service, then waits; exits 1 if the kernel refuses a command.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* One command per write(2), as the device takes them. */
static int command(int fd, const char *fmt, const char *arg)
{
	char buf[4200];
	int n;

	n = snprintf(buf, sizeof(buf), fmt, arg);
	if (n < 0 || (size_t)n >= sizeof(buf)) {
		fprintf(stderr, "cachebind: argument too long\n");
		return -1;
	}
	if (write(fd, buf, n) != n) {
		fprintf(stderr, "cachebind: '%s': %s\n", buf, strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	char state[256];
	struct pollfd p;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: cachebind DIR TAG\n");
		return 2;
	}
	fd = open("/dev/cachefiles", O_RDWR);
	if (fd < 0) {
		fprintf(stderr, "cachebind: /dev/cachefiles: %s\n", strerror(errno));
		return 1;
	}
	if (command(fd, "dir %s", argv[1]) || command(fd, "tag %s", argv[2]) ||
	    command(fd, "bind%s", ""))
		return 1;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	printf("bound\n");
	fflush(stdout);
	/* The device reads as the cache's state and polls readable when it
	 * wants culling; read it so that poll does not spin, cull nothing.
	 */
	p.fd = fd;
	p.events = POLLIN;
	while (!stop) {
		if (poll(&p, 1, 1000) > 0 && (p.revents & POLLIN) &&
		    read(fd, state, sizeof(state)) < 0 && errno != EINTR)
			break;
		if (p.revents & POLLIN)
			sleep(1);
	}
	close(fd);
	return 0;
}
