// SPDX-License-Identifier: GPL-2.0
/*
 * mount9p_opts.c - what mount.9P makes of its arguments.
 *
 * The source is HOST:/PATH, [IPV6]:/PATH or unix:/SOCKET for the socket
 * transports (the 9P file system itself takes only a numeric address or a
 * socket's path, and the tree as aname=), or passed as it is with
 * trans=virtio (a mount tag) and trans=fd. Options for mount(8) alone
 * (noauto, _netdev, x-*, ...) are dropped; the generic ones (ro, nosuid,
 * noatime, ...) become mount flags; everything else goes to the kernel,
 * which judges it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/mount.h>
#include <sys/socket.h>

#include "mount9p.h"

struct flag_opt {
	const char *name;
	unsigned long flag;
	bool set;
};

static const struct flag_opt flag_opts[] = {
	{ "ro", MS_RDONLY, true },		{ "rw", MS_RDONLY, false },
	{ "nosuid", MS_NOSUID, true },		{ "suid", MS_NOSUID, false },
	{ "nodev", MS_NODEV, true },		{ "dev", MS_NODEV, false },
	{ "noexec", MS_NOEXEC, true },		{ "exec", MS_NOEXEC, false },
	{ "sync", MS_SYNCHRONOUS, true },	{ "async", MS_SYNCHRONOUS, false },
	{ "dirsync", MS_DIRSYNC, true },
	{ "mand", MS_MANDLOCK, true },		{ "nomand", MS_MANDLOCK, false },
	{ "noatime", MS_NOATIME, true },	{ "atime", MS_NOATIME, false },
	{ "nodiratime", MS_NODIRATIME, true },	{ "diratime", MS_NODIRATIME, false },
	{ "relatime", MS_RELATIME, true },	{ "norelatime", MS_RELATIME, false },
	{ "strictatime", MS_STRICTATIME, true }, { "nostrictatime", MS_STRICTATIME, false },
	{ "lazytime", MS_LAZYTIME, true },	{ "nolazytime", MS_LAZYTIME, false },
	{ "silent", MS_SILENT, true },		{ "loud", MS_SILENT, false },
};

/* for mount(8), fstab and systemd alone: the kernel never sees them */
static const char *const dropped[] = {
	"defaults", "auto", "noauto", "user", "nouser", "users", "owner", "group",
	"nofail", "_netdev",
};

static bool is_dropped(const char *o)
{
	if (!strncmp(o, "x-", 2) || !strncmp(o, "comment=", 8))
		return true;
	for (size_t i = 0; i < sizeof(dropped) / sizeof(dropped[0]); i++)
		if (!strcmp(o, dropped[i]))
			return true;
	return false;
}

static int add_opt(struct m9_mount *m, const char *key, const char *val,
		   char *err, size_t len)
{
	struct m9_opt *o;

	if (m->nopts == M9_MAX_OPTS) {
		snprintf(err, len, "too many options (at most %d)", M9_MAX_OPTS);
		return -1;
	}
	o = &m->opts[m->nopts];
	o->key = strdup(key);
	o->val = val ? strdup(val) : NULL;
	if (!o->key || (val && !o->val)) {
		free(o->key);
		free(o->val);
		snprintf(err, len, "out of memory");
		return -1;
	}
	m->nopts++;
	return 0;
}

static const char *find_opt(const struct m9_mount *m, const char *key)
{
	for (int i = 0; i < m->nopts; i++)
		if (!strcmp(m->opts[i].key, key))
			return m->opts[i].val ? m->opts[i].val : "";
	return NULL;
}

/* One option of -o: dropped, a mount flag, or the kernel's. */
static int take_opt(struct m9_mount *m, char *o, char *err, size_t len)
{
	char *eq = strchr(o, '=');

	if (!*o || is_dropped(o))
		return 0;
	for (size_t i = 0; i < sizeof(flag_opts) / sizeof(flag_opts[0]); i++) {
		if (strcmp(o, flag_opts[i].name))
			continue;
		if (flag_opts[i].set)
			m->ms_flags |= flag_opts[i].flag;
		else
			m->ms_flags &= ~flag_opts[i].flag;
		return 0;
	}
	if (eq)
		*eq++ = '\0';
	if ((!strcmp(o, "trans") || !strcmp(o, "proto")) && eq) {
		if (m->trans[0] && strcmp(m->trans, eq)) {
			snprintf(err, len, "two transports given: %s and %s", m->trans, eq);
			return -1;
		}
		snprintf(m->trans, sizeof(m->trans), "%s", eq);
	} else if (!strcmp(o, "unix") && !eq) {
		snprintf(m->trans, sizeof(m->trans), "unix");
	}
	return add_opt(m, o, eq, err, len);
}

/* HOST:PATH or [V6]:PATH into m->host and *path; -1 and err if neither. */
static int split_spec(const char *spec, struct m9_mount *m, const char **path,
		      char *err, size_t len)
{
	const char *colon;
	size_t hl;

	if (spec[0] == '[') {
		const char *end = strchr(spec, ']');

		if (!end || end[1] != ':') {
			snprintf(err, len, "'%s': [IPV6ADDR]:/PATH expected", spec);
			return -1;
		}
		hl = (size_t)(end - spec - 1);
		spec++;
		colon = end + 1;
	} else {
		colon = strchr(spec, ':');
		if (!colon) {
			snprintf(err, len, "'%s': HOST:/PATH, [IPV6ADDR]:/PATH or unix:/SOCKET expected",
				 spec);
			return -1;
		}
		hl = (size_t)(colon - spec);
		if (colon[1] == ':' || (colon[1] && colon[1] != '/' && strchr(colon + 1, ':'))) {
			snprintf(err, len, "'%s': an IPv6 address goes in brackets, [ADDR]:/PATH",
				 spec);
			return -1;
		}
	}
	if (!hl || hl >= sizeof(m->host)) {
		snprintf(err, len, "'%s': no host before the ':'", spec);
		return -1;
	}
	memcpy(m->host, spec, hl);
	m->host[hl] = '\0';
	*path = colon + 1;
	return 0;
}

int m9_parse(const char *spec, const char *opts, struct m9_mount *m, char *err, size_t len)
{
	const char *path = "", *aname;
	char *copy, *save = NULL, *o;
	int ret = 0;

	memset(m, 0, sizeof(*m));
	if (!spec || !*spec) {
		snprintf(err, len, "no source given");
		return -1;
	}
	copy = strdup(opts ? opts : "");
	if (!copy) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	for (o = strtok_r(copy, ",", &save); o && !ret; o = strtok_r(NULL, ",", &save))
		ret = take_opt(m, o, err, len);
	free(copy);
	if (ret)
		return -1;

	if (!strcmp(m->trans, "virtio") || !strcmp(m->trans, "fd")) {
		/* a mount tag, or any word: the kernel's to read */
		snprintf(m->source, sizeof(m->source), "%s", spec);
		return 0;
	}
	if (!strncmp(spec, "unix:", 5) || !strcmp(m->trans, "unix")) {
		const char *p = strncmp(spec, "unix:", 5) ? spec : spec + 5;

		if (m->trans[0] && strcmp(m->trans, "unix")) {
			snprintf(err, len, "'%s' is a unix socket, but trans=%s", spec, m->trans);
			return -1;
		}
		if (p[0] != '/' || strlen(p) >= sizeof(m->source)) {
			snprintf(err, len, "'%s': the unix socket's absolute path expected", spec);
			return -1;
		}
		snprintf(m->source, sizeof(m->source), "%s", p);
		if (!m->trans[0]) {
			snprintf(m->trans, sizeof(m->trans), "unix");
			return add_opt(m, "trans", "unix", err, len);
		}
		return 0;
	}
	if (m->trans[0] && strcmp(m->trans, "tcp")) {
		snprintf(err, len, "unknown transport trans=%s (tcp, unix, fd, virtio)", m->trans);
		return -1;
	}
	if (split_spec(spec, m, &path, err, len) < 0)
		return -1;
	aname = find_opt(m, "aname");
	if (*path && aname && strcmp(aname, path)) {
		snprintf(err, len, "the tree is '%s' in the source but aname=%s", path, aname);
		return -1;
	}
	if (*path && !aname && add_opt(m, "aname", path, err, len) < 0)
		return -1;
	if (!m->trans[0]) {
		snprintf(m->trans, sizeof(m->trans), "tcp");
		return add_opt(m, "trans", "tcp", err, len);
	}
	return 0;
}

/* Whether a server accepts connections at sa within two seconds. */
static bool answers(const struct sockaddr *sa, socklen_t sl)
{
	struct pollfd p;
	int fd, err = 0;
	socklen_t el = sizeof(err);
	bool ok = false;

	fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	if (connect(fd, sa, sl) == 0) {
		ok = true;
	} else if (errno == EINPROGRESS) {
		p.fd = fd;
		p.events = POLLOUT;
		ok = poll(&p, 1, 2000) == 1 &&
		     getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) == 0 && !err;
	}
	close(fd);
	return ok;
}

/*
 * The name's address for the kernel, numeric. Of several (localhost is
 * often ::1 and 127.0.0.1, a server may listen on one), the first, in the
 * resolver's order (gai.conf), where a connection to port is accepted; if
 * none is, the first all the same, and the kernel reports the failure.
 */
int m9_resolve(struct m9_mount *m, char *err, size_t len)
{
	struct addrinfo hints, *res, *r, *first = NULL, *pick = NULL;
	const char *port = find_opt(m, "port");
	const void *a = NULL;
	int e, n = 0;

	if (!m->host[0])
		return 0;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	/* a malformed port is the kernel's to refuse, in its words */
	if (!port || !*port || strspn(port, "0123456789") != strlen(port))
		port = "564";
	e = getaddrinfo(m->host, port, &hints, &res);
	if (e) {
		snprintf(err, len, "cannot resolve '%s': %s", m->host,
			 e == EAI_SYSTEM ? strerror(errno) : gai_strerror(e));
		return -1;
	}
	for (r = res; r; r = r->ai_next) {
		if (r->ai_family != AF_INET && r->ai_family != AF_INET6)
			continue;
		if (!first)
			first = r;
		n++;
	}
	for (r = res; n > 1 && r && !pick; r = r->ai_next)
		if ((r->ai_family == AF_INET || r->ai_family == AF_INET6) &&
		    answers(r->ai_addr, r->ai_addrlen))
			pick = r;
	if (!pick)
		pick = first;
	if (pick && pick->ai_family == AF_INET)
		a = &((const struct sockaddr_in *)pick->ai_addr)->sin_addr;
	else if (pick)
		a = &((const struct sockaddr_in6 *)pick->ai_addr)->sin6_addr;
	if (!pick || !inet_ntop(pick->ai_family, a, m->source, sizeof(m->source))) {
		freeaddrinfo(res);
		snprintf(err, len, "'%s' has no IPv4 or IPv6 address", m->host);
		return -1;
	}
	freeaddrinfo(res);
	return 0;
}

int m9_data(const struct m9_mount *m, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; i < m->nopts; i++) {
		int w = snprintf(buf + n, len - n, "%s%s%s%s", i ? "," : "", m->opts[i].key,
				 m->opts[i].val ? "=" : "", m->opts[i].val ? m->opts[i].val : "");

		if (w < 0 || (size_t)w >= len - n)
			return -1;
		n += (size_t)w;
	}
	return 0;
}

void m9_free(struct m9_mount *m)
{
	for (int i = 0; i < m->nopts; i++) {
		free(m->opts[i].key);
		free(m->opts[i].val);
	}
	m->nopts = 0;
}
