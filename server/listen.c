// SPDX-License-Identifier: GPL-2.0
/*
 * listen.c - listening sockets and the accept loop.
 *
 * Address forms (see v9fsd(8)):
 *   tcp:HOST:PORT   tcp:[V6ADDR]:PORT   tcp!HOST!PORT   HOST:PORT
 *   unix:PATH       unix!PATH       unix:@NAME (abstract)
 * HOST "*" (or empty) is every address; a missing port is 564.
 * A service manager may pass listening sockets instead or as well
 * (srv_listen_inherit()) and be told when the server is ready.
 * Each accepted connection gets its own thread (its reader); requests run
 * in the shared worker pool.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "srv.h"
#include "listen.h"
#include "log.h"

#define MAX_LISTENERS	16
#define DEFAULT_PORT	"564"

struct listener {
	int fd;
	bool is_unix;
	char name[160];
	char *unix_path;
};

static struct listener listeners[MAX_LISTENERS];
static int n_listeners;
static bool check_only;	/* --check: bind, then close; nothing is kept */
static int n_conns;
static pthread_mutex_t conns_lock = PTHREAD_MUTEX_INITIALIZER;

/* Split "HOST:PORT", "[V6]:PORT" or "HOST!PORT" into host and port. */
static int split_host_port(const char *s, char sep, char *host, size_t hl,
			   char *port, size_t pl)
{
	const char *p;
	size_t n;

	if (s[0] == '[') {
		const char *end = strchr(s, ']');

		if (!end)
			return -EINVAL;
		n = (size_t)(end - s - 1);
		if (n >= hl)
			return -EINVAL;
		memcpy(host, s + 1, n);
		host[n] = '\0';
		p = end + 1;
		if (*p == '\0') {
			snprintf(port, pl, "%s", DEFAULT_PORT);
			return 0;
		}
		if (*p != sep)
			return -EINVAL;
		snprintf(port, pl, "%s", p + 1);
		return 0;
	}
	p = strrchr(s, sep);
	if (!p) {
		snprintf(host, hl, "%s", s);
		snprintf(port, pl, "%s", DEFAULT_PORT);
		return 0;
	}
	n = (size_t)(p - s);
	if (n >= hl)
		return -EINVAL;
	memcpy(host, s, n);
	host[n] = '\0';
	snprintf(port, pl, "%s", p + 1);
	return 0;
}

/*
 * Numeric addresses only (plus "*" and "localhost"): name lookups would
 * need NSS, which the static guest build cannot load.
 */
static int parse_sockaddr(const char *host, const char *port,
			  struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	char *end;
	unsigned long p;

	p = strtoul(port, &end, 10);
	if (!*port || *end || p > 65535)
		return -EINVAL;
	memset(ss, 0, sizeof(*ss));
	if (!*host || !strcmp(host, "*")) {
		s4->sin_family = AF_INET;
		s4->sin_addr.s_addr = htonl(INADDR_ANY);
	} else if (!strcmp(host, "localhost")) {
		s4->sin_family = AF_INET;
		s4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	} else if (inet_pton(AF_INET, host, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
	} else if (inet_pton(AF_INET6, host, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)p);
		*len = sizeof(*s6);
		return 0;
	} else {
		return -EINVAL;
	}
	s4->sin_port = htons((uint16_t)p);
	*len = sizeof(*s4);
	return 0;
}

/* A listener's name as printed, from the address it is bound to. */
static void name_listener(struct listener *l)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char h[INET6_ADDRSTRLEN] = "?";

	memset(&ss, 0, sizeof(ss));
	getsockname(l->fd, (struct sockaddr *)&ss, &sl);
	if (ss.ss_family == AF_UNIX) {
		const struct sockaddr_un *su = (const struct sockaddr_un *)&ss;
		size_t n = sl > offsetof(struct sockaddr_un, sun_path) ?
			   sl - offsetof(struct sockaddr_un, sun_path) : 0;

		/* an abstract name starts with a NUL: shown as '@' */
		if (n && su->sun_path[0] == '\0')
			snprintf(l->name, sizeof(l->name), "unix:@%.*s",
				 (int)(n - 1), su->sun_path + 1);
		else
			snprintf(l->name, sizeof(l->name), "unix:%.*s",
				 (int)strnlen(su->sun_path, n), su->sun_path);
	} else if (ss.ss_family == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &s4->sin_addr, h, sizeof(h));
		snprintf(l->name, sizeof(l->name), "tcp:%s:%u", h, ntohs(s4->sin_port));
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		inet_ntop(AF_INET6, &s6->sin6_addr, h, sizeof(h));
		snprintf(l->name, sizeof(l->name), "tcp:[%s]:%u", h,
			 ntohs(s6->sin6_port));
	}
}

/*
 * Whether a listener (one a service manager passed) is bound to sa
 * already: the -l of the same address is then that socket, not an error,
 * so one configuration serves with and without socket activation.
 */
static bool have_listener(const struct sockaddr *sa, socklen_t salen)
{
	for (int i = 0; i < n_listeners; i++) {
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);

		memset(&ss, 0, sizeof(ss));
		if (getsockname(listeners[i].fd, (struct sockaddr *)&ss, &sl) == 0 &&
		    sl == salen && !memcmp(&ss, sa, salen))
			return true;
	}
	return false;
}

static int add_tcp(const char *hostport, char sep)
{
	struct sockaddr_storage sa;
	socklen_t salen;
	char host[256], port[32];
	struct listener *l;
	int fd, one = 1;

	if (split_host_port(hostport, sep, host, sizeof(host), port, sizeof(port)) < 0 ||
	    parse_sockaddr(host, port, &sa, &salen) < 0) {
		fprintf(stderr, "v9fsd: bad tcp address '%s' (numeric HOST:PORT)\n",
			hostport);
		return -EINVAL;
	}
	if (have_listener((struct sockaddr *)&sa, salen))
		return 0;
	fd = socket(sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		fprintf(stderr, "v9fsd: socket: %s\n", strerror(errno));
		return -errno;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (sa.ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, salen) < 0 || listen(fd, 64) < 0) {
		int err = errno;

		close(fd);
		if (err == EACCES) {
			fprintf(stderr, "v9fsd: binding port %s needs root or CAP_NET_BIND_SERVICE\n",
				port);
			return -EACCES;
		}
		if (check_only && err == EADDRINUSE) {
			fprintf(stderr, "v9fsd: tcp %s is in use (by a running server?): not checked\n",
				hostport);
			return 0;
		}
		fprintf(stderr, "v9fsd: cannot listen on tcp %s: %s\n", hostport,
			strerror(err));
		return -err;
	}
	if (check_only) {
		close(fd);
		return 0;
	}
	l = &listeners[n_listeners++];
	l->fd = fd;
	name_listener(l);
	return 0;
}

/*
 * Who may connect to a unix socket's file: its owner (the server's user)
 * alone, or its owner and the unix_group= group. The mode is set through
 * the umask at bind(), so the file is never open wider, not even for a
 * moment, and checked after; the group is changed without following a
 * symlink. An abstract socket has no file: only the peer check at attach
 * (srv_user_peer_check()) guards it.
 */
static int guard_unix_file(const char *path)
{
	mode_t want = srv_cfg.have_unix_group ? 0660 : 0600;
	struct stat st;

	if (srv_cfg.have_unix_group &&
	    lchown(path, (uid_t)-1, srv_cfg.unix_group) < 0) {
		fprintf(stderr, "v9fsd: cannot give unix socket %s to group %u: %s\n",
			path, (unsigned int)srv_cfg.unix_group, strerror(errno));
		return -1;
	}
	if (lstat(path, &st) < 0 || !S_ISSOCK(st.st_mode)) {
		fprintf(stderr, "v9fsd: unix socket %s is gone after bind\n", path);
		return -1;
	}
	/* a default ACL on the directory overrides the umask */
	if ((st.st_mode & 07777) != want && chmod(path, want) < 0) {
		fprintf(stderr, "v9fsd: cannot set the mode of unix socket %s: %s\n",
			path, strerror(errno));
		return -1;
	}
	return 0;
}

/* unix:PATH, or unix:@NAME for an abstract socket (no file). */
static int add_unix(const char *path)
{
	bool abstract = path[0] == '@';
	struct sockaddr_un sun;
	struct listener *l;
	struct stat st;
	socklen_t len;
	mode_t old_mask;
	int fd, err;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (!path[abstract] || strlen(path) >= sizeof(sun.sun_path)) {
		fprintf(stderr, "v9fsd: bad unix socket path '%s'\n", path);
		return -EINVAL;
	}
	strcpy(sun.sun_path, path);
	if (abstract) {
		sun.sun_path[0] = '\0';
		len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path));
	} else {
		len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path) + 1);
	}
	if (have_listener((struct sockaddr *)&sun, len))
		return 0;
	if (!abstract && check_only && lstat(path, &st) == 0) {
		/* a running server's socket is not to be taken away by a check */
		fprintf(stderr, "v9fsd: unix %s exists (a running server's?): not checked\n",
			path);
		return 0;
	}
	if (!abstract && lstat(path, &st) == 0 && S_ISSOCK(st.st_mode)) {
		/* a stale socket from an earlier run is replaced; nothing else is */
		unlink(path);
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		goto fail;
	/* start-up is single-threaded: the umask is the process's for a moment */
	old_mask = umask(srv_cfg.have_unix_group ? 0117 : 0177);
	err = bind(fd, (struct sockaddr *)&sun, len);
	umask(old_mask);
	if (err < 0)
		goto fail;
	if (!abstract && guard_unix_file(path) < 0) {
		unlink(path);
		close(fd);
		return -EPERM;
	}
	if (listen(fd, 64) < 0)
		goto fail;
	if (check_only) {
		if (!abstract)
			unlink(path);
		close(fd);
		return 0;
	}
	l = &listeners[n_listeners++];
	l->fd = fd;
	l->is_unix = true;
	l->unix_path = abstract ? NULL : strdup(path);
	snprintf(l->name, sizeof(l->name), "unix:%s", path);
	return 0;
fail:
	err = errno;
	fprintf(stderr, "v9fsd: cannot listen on unix %s: %s\n", path, strerror(err));
	if (fd >= 0)
		close(fd);
	return -err;
}

/*
 * Whether each later srv_listen_add() only checks that its address can be
 * bound (bind, listen, close), for --check: a busy address is reported and
 * not counted as an error, as the server using it may be this one.
 */
void srv_listen_check_only(void)
{
	check_only = true;
}

/*
 * Listen on addr. Returns 0; -EINVAL for a malformed address, -EACCES
 * where the port or the socket's directory is not this user's to bind;
 * another negative errno for what may mend itself (an address in use, or
 * not yet configured).
 */
int srv_listen_add(const char *addr)
{
	if (n_listeners >= MAX_LISTENERS) {
		fprintf(stderr, "v9fsd: too many -l addresses\n");
		return -ENOSPC;
	}
	if (!strncmp(addr, "tcp:", 4))
		return add_tcp(addr + 4, ':');
	if (!strncmp(addr, "tcp!", 4))
		return add_tcp(addr + 4, '!');
	if (!strncmp(addr, "unix:", 5))
		return add_unix(addr + 5);
	if (!strncmp(addr, "unix!", 5))
		return add_unix(addr + 5);
	if (strchr(addr, '/'))
		return add_unix(addr);
	return add_tcp(addr, ':');
}

/*
 * Listening sockets passed by a service manager (systemd's socket
 * activation): LISTEN_FDS of them from descriptor 3 on, if LISTEN_PID is
 * this process (else they were meant for another and are left alone).
 * Each must be a listening stream socket of tcp or unix; anything else is
 * refused, as serving on what was not meant for it would be worse than
 * not starting. The variables are removed, so nothing started later takes
 * them for its own. Returns how many were taken, or -1.
 */
int srv_listen_inherit(void)
{
	const char *pid = getenv("LISTEN_PID"), *fds = getenv("LISTEN_FDS");
	unsigned long n, p;
	char *end;
	int taken = 0;

	if (!pid || !fds)
		return 0;
	errno = 0;
	p = strtoul(pid, &end, 10);
	if (errno || !*pid || *end || p != (unsigned long)getpid())
		return 0;
	n = strtoul(fds, &end, 10);
	if (errno || !*fds || *end || n > MAX_LISTENERS - (unsigned long)n_listeners) {
		fprintf(stderr, "v9fsd: bad LISTEN_FDS '%s' (at most %d sockets)\n",
			fds, MAX_LISTENERS - n_listeners);
		return -1;
	}
	for (int fd = 3; fd < 3 + (int)n; fd++) {
		struct sockaddr_storage ss;
		socklen_t len = sizeof(int), sl = sizeof(ss);
		int type = 0, acc = 0;
		struct listener *l;

		if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) < 0 ||
		    getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &len) < 0 ||
		    getsockname(fd, (struct sockaddr *)&ss, &sl) < 0 ||
		    type != SOCK_STREAM || !acc ||
		    (ss.ss_family != AF_INET && ss.ss_family != AF_INET6 &&
		     ss.ss_family != AF_UNIX)) {
			fprintf(stderr, "v9fsd: passed descriptor %d is not a listening tcp or unix stream socket\n",
				fd);
			return -1;
		}
		fcntl(fd, F_SETFD, FD_CLOEXEC);
		l = &listeners[n_listeners++];
		l->fd = fd;
		l->is_unix = ss.ss_family == AF_UNIX;
		name_listener(l);	/* its file is the manager's: never unlinked */
		taken++;
	}
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	return taken;
}

/*
 * Tell a service manager (systemd's Type=notify) how the server is:
 * "READY=1" once it listens, "STOPPING=1" as it exits. NOTIFY_SOCKET is a
 * datagram socket's path, or an abstract name after '@'. Best effort: a
 * manager that does not listen changes nothing here.
 */
void srv_notify(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sun;
	socklen_t len;
	size_t n;
	int fd;

	if (!path || (path[0] != '/' && path[0] != '@'))
		return;
	n = strlen(path);
	if (n >= sizeof(sun.sun_path))
		return;
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path, path, n);
	if (path[0] == '@')
		sun.sun_path[0] = '\0';
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (sendto(fd, state, strlen(state), MSG_NOSIGNAL,
		   (struct sockaddr *)&sun, len) < 0 && srv_cfg.debug)
		fprintf(stderr, "v9fsd: cannot notify %s: %s\n", path, strerror(errno));
	close(fd);
}

void srv_listen_print(FILE *fp)
{
	for (int i = 0; i < n_listeners; i++)
		fprintf(fp, "v9fsd: listening on %s\n", listeners[i].name);
	fflush(fp);
}

void srv_listen_cleanup(void)
{
	for (int i = 0; i < n_listeners; i++)
		if (listeners[i].unix_path)
			unlink(listeners[i].unix_path);
}

struct conn_arg {
	int fd;
	bool squash;
	char peer[80];
};

static void *conn_thread(void *p)
{
	struct conn_arg *a = p;

	srv_conn_serve(a->fd, a->fd, a->peer, a->squash);
	free(a);
	pthread_mutex_lock(&conns_lock);
	n_conns--;
	pthread_mutex_unlock(&conns_lock);
	return NULL;
}

static void describe_peer(int fd, const struct listener *l, char *buf, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char h[INET6_ADDRSTRLEN] = "?";

	if (l->is_unix) {
		struct ucred cr;
		socklen_t cl = sizeof(cr);

		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &cl) == 0)
			snprintf(buf, len, "unix peer uid=%u pid=%d on %.30s",
				 (unsigned int)cr.uid, (int)cr.pid, l->name);
		else
			snprintf(buf, len, "%.60s#%d", l->name, fd);
		return;
	}
	if (getpeername(fd, (struct sockaddr *)&ss, &sl) < 0) {
		snprintf(buf, len, "%.60s#%d", l->name, fd);
		return;
	}
	if (ss.ss_family == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &s4->sin_addr, h, sizeof(h));
		snprintf(buf, len, "%s:%u", h, ntohs(s4->sin_port));
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		inet_ntop(AF_INET6, &s6->sin6_addr, h, sizeof(h));
		snprintf(buf, len, "[%s]:%u", h, ntohs(s6->sin6_port));
	}
}

/* "HOST:PORT" or "[V6]:PORT" less its port: the log's key for a peer. */
static void peer_host(const char *peer, char *key, size_t len)
{
	const char *colon = strrchr(peer, ':');

	snprintf(key, len, "%s", peer);
	if (colon && strncmp(peer, "unix", 4) && (size_t)(colon - peer) < len)
		key[colon - peer] = '\0';
}

static void start_conn(int fd, const struct listener *l)
{
	char peer[80], key[80];
	pthread_attr_t attr;
	struct conn_arg *a;
	pthread_t t;
	int one = 1;

	if (!l->is_unix && srv_cfg.nallow) {
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);

		if (getpeername(fd, (struct sockaddr *)&ss, &sl) < 0 ||
		    !srv_addr_allowed((struct sockaddr *)&ss)) {
			describe_peer(fd, l, peer, sizeof(peer));
			peer_host(peer, key, sizeof(key));
			srv_log(LOG_NOTICE, key, "connection from %s refused: not in allow=", peer);
			close(fd);
			return;
		}
	}
	pthread_mutex_lock(&conns_lock);
	if (srv_cfg.max_conns && n_conns >= srv_cfg.max_conns) {
		pthread_mutex_unlock(&conns_lock);
		describe_peer(fd, l, peer, sizeof(peer));
		srv_log(LOG_WARNING, "-c",
			"connection from %s refused: %d connections (-c) reached", peer,
			srv_cfg.max_conns);
		close(fd);
		return;
	}
	n_conns++;
	pthread_mutex_unlock(&conns_lock);

	/* -o serial plays a simple server that leaves Nagle on */
	if (!l->is_unix && !srv_cfg.serial)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	a = malloc(sizeof(*a));
	if (!a)
		goto fail;
	a->fd = fd;
	/*
	 * Unix peers are not squashed: their credentials bound whom they
	 * may attach as (srv_user_peer_check()), a root peer as anyone.
	 */
	a->squash = !l->is_unix && !srv_cfg.no_root_squash;
	describe_peer(fd, l, a->peer, sizeof(a->peer));
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	if (pthread_create(&t, &attr, conn_thread, a) != 0) {
		pthread_attr_destroy(&attr);
		free(a);
		goto fail;
	}
	pthread_attr_destroy(&attr);
	if (srv_cfg.debug)
		fprintf(stderr, "v9fsd: connection from %s\n", a->peer);
	return;
fail:
	fprintf(stderr, "v9fsd: cannot start a connection thread\n");
	close(fd);
	pthread_mutex_lock(&conns_lock);
	n_conns--;
	pthread_mutex_unlock(&conns_lock);
}

int srv_listen_count(void)
{
	return n_listeners;
}

/* Accept forever. */
void srv_listen_loop(void)
{
	struct pollfd pfd[MAX_LISTENERS];

	for (int i = 0; i < n_listeners; i++) {
		pfd[i].fd = listeners[i].fd;
		pfd[i].events = POLLIN;
	}
	for (;;) {
		if (poll(pfd, (nfds_t)n_listeners, -1) < 0) {
			if (errno == EINTR)
				continue;
			perror("v9fsd: poll");
			return;
		}
		for (int i = 0; i < n_listeners; i++) {
			int fd;

			if (!(pfd[i].revents & POLLIN))
				continue;
			fd = accept4(listeners[i].fd, NULL, NULL, SOCK_CLOEXEC);
			if (fd < 0) {
				if (errno != EINTR && errno != EAGAIN &&
				    errno != ECONNABORTED)
					perror("v9fsd: accept");
				if (errno == EMFILE || errno == ENFILE)
					usleep(100 * 1000);
				continue;
			}
			start_conn(fd, &listeners[i]);
		}
	}
}
