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
#include <getopt.h>
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
#include <arpa/inet.h>
#include <netinet/in.h>

#include "srv.h"
#include "listen.h"
#include "log.h"

#ifndef V9FSD_VERSION
#define V9FSD_VERSION "unknown"
#endif

/*
 * Exit statuses: 0 for --help, --version, --check and a stop by a signal;
 * 2 for a configuration error (an option, an export, an address or a user
 * that is wrong, or not this user's to use), which no retry mends; 1 for a
 * failure at run time (an address in use or not yet configured, no memory,
 * no threads), which may mend itself.
 */
#define EXIT_CONFIG	2
#define EXIT_RUNTIME	1

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: v9fsd -e DIR [-l ADDR]... [-s] [-r] [-m MSIZE] [-u USER [-U]]\n"
		"             [-c MAXCONNS] [-t THREADS] [-o OPT[,OPT]...] [-f] [-d] [-S FILE]\n"
		"             [--check]\n"
		"       v9fsd -h|--help | -V|--version\n"
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
		"             (FILE outside the export)\n"
		"  --check    check the options, the export and that each -l address can be\n"
		"             bound, print \"ok\" and exit; start no server\n"
		"Attaches and refusals are logged to stderr with -f, else to syslog.\n"
		"Exit status: 0 --help, --version, --check passed, or stopped by a signal;\n"
		"2 a configuration error (options, export, addresses, users, a port that\n"
		"needs privileges); 1 a failure at run time (an address in use, no memory).\n",
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
		char why[128] = "";

		err = srv_config_option(o, why, sizeof(why));
		if (err < 0)
			fprintf(stderr, "v9fsd: -o %s: %s\n", o, why[0] ? why : strerror(-err));
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
	/* without root, the server's own permissions are all it has */
	if (geteuid() != 0 && access(dir, R_OK | X_OK) < 0) {
		fprintf(stderr, "v9fsd: cannot open export %s: %s\n", dir, strerror(errno));
		close(fd);
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
	if (fd == -ENOSYS) {
		fprintf(stderr, "v9fsd: this kernel has no openat2, which confines clients "
			"to the export: Linux 5.6 or later is required\n");
		return -1;
	}
	if (fd < 0) {
		fprintf(stderr, "v9fsd: cannot open export %s: %s\n", dir, strerror(-fd));
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

/*
 * Who is on stdin for -s, for the log: a tcp peer's address (inetd), a
 * unix peer's credentials, or "stdio".
 */
static void describe_stdin(char *buf, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	struct ucred cr;
	socklen_t cl = sizeof(cr);
	char h[INET6_ADDRSTRLEN];

	snprintf(buf, len, "stdio");
	if (getpeername(STDIN_FILENO, (struct sockaddr *)&ss, &sl) < 0)
		return;
	if (ss.ss_family == AF_UNIX &&
	    getsockopt(STDIN_FILENO, SOL_SOCKET, SO_PEERCRED, &cr, &cl) == 0)
		snprintf(buf, len, "unix peer uid=%u pid=%d", (unsigned int)cr.uid, (int)cr.pid);
	else if (ss.ss_family == AF_INET &&
		 inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, h, sizeof(h)))
		snprintf(buf, len, "%s:%u", h, ntohs(((struct sockaddr_in *)&ss)->sin_port));
	else if (ss.ss_family == AF_INET6 &&
		 inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, h, sizeof(h)))
		snprintf(buf, len, "[%s]:%u", h, ntohs(((struct sockaddr_in6 *)&ss)->sin6_port));
}

/*
 * A listening address's failure as an exit status: what may mend itself
 * (in use, not yet configured, short of memory) is a run-time failure.
 */
static int listen_status(int err)
{
	switch (-err) {
	case EADDRINUSE:
	case EADDRNOTAVAIL:
	case ENOMEM:
	case ENOBUFS:
	case EMFILE:
	case ENFILE:
		return EXIT_RUNTIME;
	default:
		return EXIT_CONFIG;
	}
}

/* Say which option getopt stopped at, as the user wrote it. */
static void bad_option(int c, char **argv)
{
	const char *arg = argv[optind - 1];

	if (c == ':' && optopt)
		fprintf(stderr, "v9fsd: option '-%c' needs a value (v9fsd --help lists them)\n",
			optopt);
	else if (c == ':')
		fprintf(stderr, "v9fsd: option '%s' needs a value (v9fsd --help lists them)\n",
			arg);
	else if (optopt)
		fprintf(stderr, "v9fsd: unknown option '-%c' (v9fsd --help lists them)\n",
			optopt);
	else
		fprintf(stderr, "v9fsd: unknown option '%s' (v9fsd --help lists them)\n", arg);
}

enum { OPT_CHECK = 256 };

static const struct option long_opts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ "check", no_argument, NULL, OPT_CHECK },
	{ NULL, 0, NULL, 0 },
};

int main(int argc, char **argv)
{
	const char *export = NULL, *addrs[32];
	int naddrs = 0, nthreads = 8, opt, passed, err;
	bool single = false, foreground = false, run_as = false, check = false;
	const char *map_user = NULL;
	unsigned long v;
	sigset_t set;
	pthread_t st;
	struct rlimit rl;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":e:l:srm:u:Uc:t:o:fdS:hV", long_opts,
				  NULL)) != -1) {
		switch (opt) {
		case 'e':
			export = optarg;
			break;
		case 'l':
			if (naddrs == 32) {
				fprintf(stderr, "v9fsd: too many -l addresses\n");
				return EXIT_CONFIG;
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
				fprintf(stderr, "v9fsd: -m %s: msize must be a number from %d to %u\n",
					optarg, SRV_MIN_MSIZE, 64u << 20);
				return EXIT_CONFIG;
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
				fprintf(stderr, "v9fsd: -c %s: the connection count must be a number from 0 to %d\n",
					optarg, INT_MAX);
				return EXIT_CONFIG;
			}
			srv_cfg.max_conns = (int)v;
			break;
		case 't':
			if (parse_uint(optarg, 1024, &v) < 0 || v < 1) {
				fprintf(stderr, "v9fsd: -t %s: the thread count must be a number from 1 to 1024\n",
					optarg);
				return EXIT_CONFIG;
			}
			nthreads = (int)v;
			break;
		case 'o':
			if (parse_options(optarg) < 0)
				return EXIT_CONFIG;
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
		case OPT_CHECK:
			check = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("v9fsd %s\n", V9FSD_VERSION);
			return 0;
		default:
			bad_option(opt, argv);
			return EXIT_CONFIG;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "v9fsd: unexpected argument '%s' (v9fsd --help shows the usage)\n",
			argv[optind]);
		return EXIT_CONFIG;
	}
	if (!export) {
		fprintf(stderr, "v9fsd: no export: -e DIR is required\n");
		return EXIT_CONFIG;
	}
	if (single && naddrs) {
		fprintf(stderr, "v9fsd: -s and -l exclude each other\n");
		return EXIT_CONFIG;
	}
	if (run_as && !map_user) {
		fprintf(stderr, "v9fsd: -U needs -u USER\n");
		return EXIT_CONFIG;
	}
	if (map_user && srv_user_parse_map(map_user) < 0) {
		fprintf(stderr, "v9fsd: -u %s: no such user\n", map_user);
		return EXIT_CONFIG;
	}

	/* passed sockets sit at descriptor 3 on: before anything is opened */
	passed = check ? 0 : srv_listen_inherit();
	if (passed < 0)
		return EXIT_CONFIG;
	if (single && passed) {
		fprintf(stderr, "v9fsd: -s and passed listening sockets exclude each other\n");
		return EXIT_CONFIG;
	}

	signal(SIGPIPE, SIG_IGN);
	/* a descriptor per fid: raise the soft limit as far as allowed */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}

	set_fid_budget();

	if (open_export(export) < 0)
		return EXIT_CONFIG;
	if (srv_cfg.stats_file) {
		err = srv_stats_open(srv_cfg.stats_file);
		if (err == -EXDEV) {
			fprintf(stderr, "v9fsd: -S %s is inside the export, where clients make names; "
				"name a file outside it\n", srv_cfg.stats_file);
			return EXIT_CONFIG;
		}
		if (err < 0) {
			fprintf(stderr, "v9fsd: cannot open the directory of -S %s: %s\n",
				srv_cfg.stats_file, strerror(-err));
			return EXIT_CONFIG;
		}
	}
	if (check)
		srv_listen_check_only();
	if (!single && !naddrs && !passed) {
		/* loopback only unless told otherwise; IPv6 if the host has it */
		err = srv_listen_add("tcp:127.0.0.1:564");
		if (err < 0)
			return check ? EXIT_CONFIG : listen_status(err);
		if (srv_listen_add("tcp:[::1]:564") < 0)
			fprintf(stderr, "v9fsd: no IPv6 loopback: [::1]:564 skipped\n");
	}
	for (int i = 0; !single && i < naddrs; i++) {
		err = srv_listen_add(addrs[i]);
		if (err < 0)
			return check ? EXIT_CONFIG : listen_status(err);
	}
	if (check) {
		printf("ok\n");
		return 0;
	}
	if (run_as && geteuid() == 0 && drop_privileges() < 0)
		return EXIT_RUNTIME;
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
			return EXIT_RUNTIME;
		}
		/* stderr is /dev/null from here on */
		if (!foreground)
			srv_log_to_syslog();
	}

	if (pthread_create(&st, NULL, signal_thread, &set) != 0 ||
	    srv_pool_start(nthreads < (int)srv_cfg.max_threads ? nthreads :
			   (int)srv_cfg.max_threads, (int)srv_cfg.max_threads) < 0) {
		srv_log(LOG_ERR, NULL, "cannot start threads");
		return EXIT_RUNTIME;
	}

	if (single) {
		char peer[80];

		describe_stdin(peer, sizeof(peer));
		srv_conn_serve(STDIN_FILENO, STDOUT_FILENO, peer, stdin_is_tcp());
		/*
		 * This thread has served requests as the clients' users (and
		 * with their umask of 0): the signal thread, which never
		 * does, writes the counters as the server and exits.
		 */
		pthread_kill(st, SIGTERM);
		pthread_join(st, NULL);
		return EXIT_RUNTIME;
	}
	srv_notify("READY=1");
	srv_listen_loop();
	write_stats();
	srv_listen_cleanup();
	return EXIT_RUNTIME;
}
