// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - v9fsd: a 9P2000 / 9P2000.u / 9P2000.L file server.
 *
 * Start-up order matters: the export root and the listening sockets are
 * opened first (a low port may need root), then privileges are dropped if
 * asked, then the process detaches, and only then are threads started
 * (threads do not survive fork).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "srv.h"
#include "listen.h"

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: v9fsd -e DIR [-l ADDR]... [-s] [-r] [-m MSIZE] [-u USER [-U]]\n"
		"             [-c MAXCONNS] [-t THREADS] [-o OPT[,OPT]...] [-f] [-d] [-S FILE]\n"
		"  -e DIR     export DIR\n"
		"  -l ADDR    listen on ADDR: tcp:HOST:PORT, tcp:[V6]:PORT, tcp!HOST!PORT,\n"
		"             unix:PATH, unix!PATH, unix:@NAME (repeatable; default\n"
		"             tcp:127.0.0.1:564 and tcp:[::1]:564, loopback only)\n"
		"  -s         serve one connection on stdin/stdout, then exit\n"
		"  -r         read-only export\n"
		"  -m MSIZE   largest msize accepted (default %u)\n"
		"  -u USER    act as USER for attach names unknown to this host\n"
		"  -U         run as the -u user (drop root privileges at start)\n"
		"  -c N       serve at most N connections at once (default: a quarter of the\n"
		"             descriptors left after fd_reserve, at most 1024)\n"
		"  -t N       worker threads to start with (default 8; grows as needed)\n"
		"  -o OPT     no_root_squash, allow=ADDR[/PREFIX], max_fids=N,\n"
		"             max_total_fids=N, fd_reserve=N, max_reqs=N, max_total_reqs=N,\n"
		"             max_threads=N, msg_timeout=S, stall_timeout=S, idle_timeout=S,\n"
		"             max_peer_conns=N, handshake_timeout=S,\n"
		"             serial, max_version=9P2000|9P2000.u|9P2000.L,\n"
		"             unix_group=GROUP (unix sockets 0660, else 0600),\n"
		"             unix_map=PEERUID:UID (a unix peer may attach as UID too)\n"
		"  -f         stay in the foreground\n"
		"  -d         trace messages to stderr (implies -f)\n"
		"  -S FILE    write per-message-type counters to FILE at exit and on SIGUSR1\n"
		"             (FILE outside the export)\n",
		SRV_DEFAULT_MSIZE);
}

static int parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || !*s || *end || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/* -o a,b=c,...: each one known, or a message and -1. */
static int parse_options(const char *arg)
{
	char *copy = strdup(arg), *save = NULL, *o;
	int err = 0;

	if (!copy)
		return -1;
	for (o = strtok_r(copy, ",", &save); o && !err; o = strtok_r(NULL, ",", &save)) {
		err = srv_config_option(o);
		if (err < 0)
			fprintf(stderr, "v9fsd: bad option '%s' (see v9fsd(8))\n", o);
	}
	free(copy);
	return err;
}

/*
 * Fids and requests of all clients together stay below the descriptor
 * limit, fd_reserve descriptors short of it, so that accept() and the
 * server's own files keep working whatever the clients do: a fid holds at
 * most two descriptors.
 */
static void set_fid_budget(void)
{
	struct rlimit rl;
	rlim_t room;

	if (srv_cfg.max_total_fids || getrlimit(RLIMIT_NOFILE, &rl) < 0 ||
	    rl.rlim_cur == RLIM_INFINITY)
		return;
	room = rl.rlim_cur > srv_cfg.fd_reserve ? rl.rlim_cur - srv_cfg.fd_reserve : 0;
	srv_cfg.max_total_fids = room / 2 ? (unsigned int)(room / 2 > INT_MAX ? INT_MAX : room / 2)
					  : 1;
}

static void write_stats(void)
{
	int err;

	if (!srv_cfg.stats_file)
		return;
	err = srv_stats_write();
	if (err < 0)
		fprintf(stderr, "v9fsd: cannot write counters to %s: %s\n",
			srv_cfg.stats_file, strerror(-err));
}

/*
 * Signals are taken synchronously by one thread: no async-signal worries.
 * It is started before any thread serves a request, so it keeps the
 * server's own identity and umask: the counters are written from here.
 */
static void *signal_thread(void *arg)
{
	sigset_t *set = arg;

	for (;;) {
		int sig;

		if (sigwait(set, &sig) != 0)
			continue;
		if (sig == SIGUSR1) {
			write_stats();
			continue;
		}
		srv_notify("STOPPING=1");
		write_stats();
		srv_listen_cleanup();
		_exit(0);
	}
	return NULL;
}

static int open_export(const char *dir)
{
	struct stat st;
	char p[64];
	int fd;

	fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "v9fsd: cannot open export %s: %s\n", dir, strerror(errno));
		return -1;
	}
	srv_cfg.root_fd = fd;
	srv_cfg.root_dev = st.st_dev;
	srv_cfg.root_ino = st.st_ino;
	srv_cfg.export_path = dir;

	/* reopening a fid goes through /proc/self/fd when it works */
	srv_proc_path(fd, p, sizeof(p));
	fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		struct stat st2;

		srv_cfg.proc_ok = fstat(fd, &st2) == 0 && st2.st_ino == st.st_ino &&
				  st2.st_dev == st.st_dev;
		close(fd);
	}

	/* openat2 is the confinement: refuse to run without it */
	fd = srv_open_beneath(srv_cfg.root_fd, "", O_PATH | O_DIRECTORY, 0);
	if (fd < 0) {
		fprintf(stderr, "v9fsd: openat2 beneath %s failed (%s); "
			"Linux 5.6 or later is required\n", dir, strerror(-fd));
		return -1;
	}
	close(fd);
	return 0;
}

static int drop_privileges(void)
{
	if (setgroups(1, &srv_cfg.map_gid) < 0 || setgid(srv_cfg.map_gid) < 0 ||
	    setuid(srv_cfg.map_uid) < 0) {
		perror("v9fsd: cannot drop privileges");
		return -1;
	}
	return 0;
}

/*
 * -s trusts whoever started it on its descriptors, with one exception: a
 * TCP connection handed over by a super-server (inetd) is a network client
 * and is root-squashed as on a listening socket. A unix socket's peer is
 * checked at attach (srv_user_peer_check()); pipes are the parent's own.
 */
static bool stdin_is_tcp(void)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	if (srv_cfg.no_root_squash ||
	    getsockname(STDIN_FILENO, (struct sockaddr *)&ss, &sl) < 0)
		return false;
	return ss.ss_family == AF_INET || ss.ss_family == AF_INET6;
}

int main(int argc, char **argv)
{
	const char *export = NULL, *addrs[32];
	int naddrs = 0, nthreads = 8, opt, passed;
	bool single = false, foreground = false, run_as = false;
	const char *map_user = NULL;
	unsigned long v;
	sigset_t set;
	pthread_t st;
	struct rlimit rl;

	while ((opt = getopt(argc, argv, "e:l:srm:u:Uc:t:o:fdS:h")) != -1) {
		switch (opt) {
		case 'e':
			export = optarg;
			break;
		case 'l':
			if (naddrs == 32) {
				fprintf(stderr, "v9fsd: too many -l addresses\n");
				return 2;
			}
			addrs[naddrs++] = optarg;
			break;
		case 's':
			single = true;
			break;
		case 'r':
			srv_cfg.readonly = true;
			break;
		case 'm':
			if (parse_uint(optarg, 64u << 20, &v) < 0 || v < SRV_MIN_MSIZE) {
				fprintf(stderr, "v9fsd: bad msize '%s' (%d to %u)\n",
					optarg, SRV_MIN_MSIZE, 64u << 20);
				return 2;
			}
			srv_cfg.msize = (uint32_t)v;
			break;
		case 'u':
			map_user = optarg;
			break;
		case 'U':
			run_as = true;
			break;
		case 'c':
			if (parse_uint(optarg, INT_MAX, &v) < 0) {
				fprintf(stderr, "v9fsd: bad connection count '%s'\n", optarg);
				return 2;
			}
			srv_cfg.max_conns = (int)v;
			break;
		case 't':
			if (parse_uint(optarg, 1024, &v) < 0 || v < 1) {
				fprintf(stderr, "v9fsd: bad thread count '%s'\n", optarg);
				return 2;
			}
			nthreads = (int)v;
			break;
		case 'o':
			if (parse_options(optarg) < 0)
				return 2;
			break;
		case 'f':
			foreground = true;
			break;
		case 'd':
			srv_cfg.debug++;
			foreground = true;
			break;
		case 'S':
			srv_cfg.stats_file = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!export || optind != argc) {
		usage(stderr);
		return 2;
	}
	if (single && naddrs) {
		fprintf(stderr, "v9fsd: -s and -l exclude each other\n");
		return 2;
	}
	if (run_as && !map_user) {
		fprintf(stderr, "v9fsd: -U needs -u USER\n");
		return 2;
	}
	if (map_user && srv_user_parse_map(map_user) < 0) {
		fprintf(stderr, "v9fsd: unknown user '%s'\n", map_user);
		return 2;
	}

	/* passed sockets sit at descriptor 3 on: before anything is opened */
	passed = srv_listen_inherit();
	if (passed < 0)
		return 1;
	if (single && passed) {
		fprintf(stderr, "v9fsd: -s and passed listening sockets exclude each other\n");
		return 2;
	}

	signal(SIGPIPE, SIG_IGN);
	/* a descriptor per fid: raise the soft limit as far as allowed */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}

	set_fid_budget();

	if (open_export(export) < 0)
		return 1;
	if (srv_cfg.stats_file) {
		int err = srv_stats_open(srv_cfg.stats_file);

		if (err == -EXDEV) {
			fprintf(stderr, "v9fsd: -S %s is inside the export, where clients make names; "
				"name a file outside it\n", srv_cfg.stats_file);
			return 2;
		}
		if (err < 0) {
			fprintf(stderr, "v9fsd: cannot open the directory of -S %s: %s\n",
				srv_cfg.stats_file, strerror(-err));
			return 1;
		}
	}
	if (!single && !naddrs && !passed) {
		/* loopback only unless told otherwise; IPv6 if the host has it */
		if (srv_listen_add("tcp:127.0.0.1:564") < 0)
			return 1;
		if (srv_listen_add("tcp:[::1]:564") < 0)
			fprintf(stderr, "v9fsd: no IPv6 loopback: [::1]:564 skipped\n");
	}
	for (int i = 0; !single && i < naddrs; i++)
		if (srv_listen_add(addrs[i]) < 0)
			return 1;
	if (run_as && geteuid() == 0 && drop_privileges() < 0)
		return 1;
	srv_cfg.as_root = geteuid() == 0;

	/*
	 * Blocked before the server says it listens (every thread inherits
	 * the mask), taken by the signal thread once it runs: a SIGTERM right
	 * after that line waits for it rather than killing the process.
	 */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);

	if (!single) {
		if (foreground)
			srv_listen_print(stderr);
		if (!foreground && daemon(0, 0) < 0) {
			perror("v9fsd: daemon");
			return 1;
		}
	}

	if (pthread_create(&st, NULL, signal_thread, &set) != 0 ||
	    srv_pool_start(nthreads < (int)srv_cfg.max_threads ? nthreads :
			   (int)srv_cfg.max_threads, (int)srv_cfg.max_threads) < 0) {
		fprintf(stderr, "v9fsd: cannot start threads\n");
		return 1;
	}

	if (single) {
		srv_conn_serve(STDIN_FILENO, STDOUT_FILENO, "stdio", stdin_is_tcp());
		/*
		 * This thread has served requests as the clients' users (and
		 * with their umask of 0): the signal thread, which never
		 * does, writes the counters as the server and exits.
		 */
		pthread_kill(st, SIGTERM);
		pthread_join(st, NULL);
		return 1;
	}
	srv_notify("READY=1");
	srv_listen_loop();
	write_stats();
	srv_listen_cleanup();
	return 1;
}
