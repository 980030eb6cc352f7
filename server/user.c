// SPDX-License-Identifier: GPL-2.0
/*
 * user.c - who a request acts as.
 *
 * When v9fsd runs as root it takes on the attached user's identity for each
 * request: fsuid, fsgid and supplementary groups are per-thread on Linux
 * (the raw syscalls are used because glibc's setgroups() changes every
 * thread), so a worker switches only itself. Without root every request
 * acts as the server's own user.
 *
 * setfsuid() to a non-zero uid drops only the file-system capabilities; a
 * thread serving a non-root user must not keep CAP_SYS_ADMIN, CAP_SETFCAP
 * and the rest (trusted.* and security.* xattrs, for one). Capabilities are
 * per thread too: the thread lowers its effective set to nothing once it
 * acts as a non-root user and raises it from its permitted set only to
 * switch again. Switching fails closed: a thread that cannot act as the
 * fid's user (or is given none) serves nothing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <unistd.h>
#include <sys/fsuid.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <arpa/inet.h>
#include <linux/capability.h>

#include "srv.h"
#include "passwd.h"
#include "log.h"

static pthread_mutex_t user_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long user_serial;

/* why the calling thread's last attach was refused, for its log line */
static __thread char refused_why[96];

static void fill_from_passwd(struct srv_user *u, const struct srv_pwent *pw)
{
	u->uid = pw->uid;
	u->gid = pw->gid;
	snprintf(u->name, sizeof(u->name), "%s", pw->name);
	u->ngroups = srv_groups_of(pw->name, pw->gid, u->groups, SRV_MAX_USER_GROUPS);
}

static void lookup_uid(struct srv_user *u, uid_t uid)
{
	struct srv_pwent pw;

	if (srv_pw_by_uid(uid, &pw) == 0) {
		fill_from_passwd(u, &pw);
		return;
	}
	/*
	 * A numeric id with no passwd entry is still a valid owner, but it
	 * is in no group: a group of the same number is not its own (it may
	 * be any group of this host), so it gets the anonymous group.
	 */
	u->uid = uid;
	u->gid = SRV_ANON_UID;
	u->ngroups = 0;
	snprintf(u->name, sizeof(u->name), "%u", (unsigned int)uid);
}

static int lookup_name(struct srv_user *u, const char *name)
{
	struct srv_pwent pw;

	if (srv_pw_by_name(name, &pw) < 0)
		return -ENOENT;
	fill_from_passwd(u, &pw);
	return 0;
}

static bool all_digits(const struct v9p_str *s)
{
	if (!s->len || s->len > 10)
		return false;
	for (uint16_t i = 0; i < s->len; i++)
		if (s->s[i] < '0' || s->s[i] > '9')
			return false;
	return true;
}

/*
 * The user for Tattach: a numeric n_uname (.u/.L) wins; then a name known
 * to the passwd database; then a name made of digits; anything else (and an
 * empty name) is the -u user, or refused. A server that is not root acts as
 * itself whatever the client says.
 */
struct srv_user *srv_user_lookup(const struct v9p_str *uname, uint32_t n_uname, int *err)
{
	struct srv_user *u = calloc(1, sizeof(*u));
	char name[256];

	if (!u) {
		*err = -ENOMEM;
		return NULL;
	}
	u->refs = 1;
	u->serial = __atomic_add_fetch(&user_serial, 1, __ATOMIC_RELAXED);
	if (!srv_cfg.as_root) {
		u->uid = geteuid();
		u->gid = getegid();
		u->ngroups = 0;
		snprintf(u->name, sizeof(u->name), "%.*s", uname->len, uname->s);
		return u;
	}
	if (n_uname != V9P_NONUNAME) {
		lookup_uid(u, (uid_t)n_uname);
		return u;
	}
	if (uname->len && uname->len < sizeof(name)) {
		memcpy(name, uname->s, uname->len);
		name[uname->len] = '\0';
		if (lookup_name(u, name) == 0)
			return u;
		if (all_digits(uname)) {
			lookup_uid(u, (uid_t)strtoul(name, NULL, 10));
			return u;
		}
	}
	if (srv_cfg.have_map_user) {
		lookup_uid(u, srv_cfg.map_uid);
		u->gid = srv_cfg.map_gid;
		return u;
	}
	snprintf(refused_why, sizeof(refused_why), "no such user here, and no -u user");
	free(u);
	*err = -EPERM;
	return NULL;
}

/*
 * Root squash, as NFS does it: uid 0 becomes the anonymous user ("nobody"
 * or 65534) with that user's groups; gid 0 is dropped from the others. u is
 * consumed; returns the identity to use.
 */
struct srv_user *srv_user_squash(struct srv_user *u, int *err)
{
	struct srv_user *n;
	int k = 0;

	if (u->uid == 0) {
		n = calloc(1, sizeof(*n));
		if (!n) {
			srv_user_put(u);
			*err = -ENOMEM;
			return NULL;
		}
		n->refs = 1;
		n->serial = __atomic_add_fetch(&user_serial, 1, __ATOMIC_RELAXED);
		if (lookup_name(n, "nobody") < 0)
			lookup_uid(n, SRV_ANON_UID);
		srv_user_put(u);
		u = n;
	}
	if (u->gid == 0)
		u->gid = SRV_ANON_UID;
	for (int i = 0; i < u->ngroups; i++)
		if (u->groups[i] != 0)
			u->groups[k++] = u->groups[i];
	u->ngroups = k;
	return u;
}

/*
 * Whether the client at the other end of c may act as u->uid. Over a unix
 * socket the kernel says who the peer is (SO_PEERCRED, recorded when it
 * connected): root may attach as anyone, as a kernel client mounting for
 * root does; any other peer as itself, or as a uid unix_map= names for it.
 * TCP clients are bounded by root squash instead, and descriptors that are
 * not sockets (-s on pipes) by whoever started the server on them. u is
 * consumed; returns it, or NULL and *err -EPERM (acting as another user is
 * a privilege the peer lacks, as setuid(2) says, not a file's permission).
 */
struct srv_user *srv_user_peer_check(struct srv_conn *c, struct srv_user *u, int *err)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss), cl;
	struct ucred cr;

	if (!srv_cfg.as_root)
		return u;
	if (getsockname(c->rfd, (struct sockaddr *)&ss, &sl) < 0) {
		if (errno == ENOTSOCK)
			return u;
		goto refuse;
	}
	if (ss.ss_family != AF_UNIX)
		return u;
	cl = sizeof(cr);
	if (getsockopt(c->rfd, SOL_SOCKET, SO_PEERCRED, &cr, &cl) < 0)
		goto refuse;
	if (cr.uid == 0 || cr.uid == u->uid)
		return u;
	for (int i = 0; i < srv_cfg.nunix_map; i++)
		if (srv_cfg.unix_map[i].peer == cr.uid && srv_cfg.unix_map[i].uid == u->uid)
			return u;
	snprintf(refused_why, sizeof(refused_why), "peer uid %u may not attach as uid %u",
		 (unsigned int)cr.uid, (unsigned int)u->uid);
	srv_user_put(u);
	*err = -EPERM;
	return NULL;
refuse:
	snprintf(refused_why, sizeof(refused_why), "cannot tell who the unix peer is");
	srv_user_put(u);
	*err = -EPERM;
	return NULL;
}

/* The rate-limit key of a connection's peer: its address, or its uid. */
static void peer_key(const struct srv_conn *c, char *buf, size_t len)
{
	const struct srv_peer *p = &c->peerid;
	char h[INET6_ADDRSTRLEN];
	uid_t uid;

	if (p->family == AF_INET6 && inet_ntop(AF_INET6, p->addr, h, sizeof(h))) {
		snprintf(buf, len, "%s", h);
	} else if (p->family == AF_UNIX) {
		memcpy(&uid, p->addr, sizeof(uid));
		snprintf(buf, len, "unix uid %u", (unsigned int)uid);
	} else {
		snprintf(buf, len, "%s", c->peer);
	}
}

/*
 * A name a client sent, fit for a log line: at most 64 bytes, and a byte
 * that is not printable ASCII (a newline that would forge a line, a
 * terminal escape) shown as '?'.
 */
static void loggable(const char *s, size_t n, char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < n && i < 64 && i + 1 < len; i++)
		buf[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
	buf[i] = '\0';
}

/*
 * The log line of a Tattach: who asked (uname, n_uname), from where,
 * for which aname, and as whom it acts after root squash or the -u map,
 * or why it was refused.
 */
void srv_user_log_attach(const struct srv_conn *c, const struct v9p_tattach *t,
			 const struct srv_user *u, int err)
{
	char key[80], num[16] = "", uname[72], aname[72], as[72];

	peer_key(c, key, sizeof(key));
	loggable(t->uname.s, t->uname.len, uname, sizeof(uname));
	loggable(t->aname.s, t->aname.len, aname, sizeof(aname));
	if (t->n_uname != V9P_NONUNAME)
		snprintf(num, sizeof(num), "%u", (unsigned int)t->n_uname);
	if (u) {
		loggable(u->name, strlen(u->name), as, sizeof(as));
		srv_log(LOG_INFO, key,
			"attach from %s: user '%s'%s%s aname '%s': acting as %s (uid %u gid %u)",
			c->peer, uname, *num ? " n_uname " : "", num, aname, as,
			(unsigned int)u->uid, (unsigned int)u->gid);
		return;
	}
	if (err == -ENOENT)
		snprintf(refused_why, sizeof(refused_why), "aname is not the export");
	else if (!refused_why[0])
		snprintf(refused_why, sizeof(refused_why), "%s", strerror(-err));
	srv_log(LOG_NOTICE, key, "attach from %s refused: user '%s'%s%s aname '%s': %s",
		c->peer, uname, *num ? " n_uname " : "", num, aname, refused_why);
	refused_why[0] = '\0';
}

void srv_user_get(struct srv_user *u)
{
	pthread_mutex_lock(&user_lock);
	u->refs++;
	pthread_mutex_unlock(&user_lock);
}

void srv_user_put(struct srv_user *u)
{
	int last;

	if (!u)
		return;
	pthread_mutex_lock(&user_lock);
	last = --u->refs == 0;
	pthread_mutex_unlock(&user_lock);
	if (last)
		free(u);
}

static pthread_once_t caps_once = PTHREAD_ONCE_INIT;
static struct __user_cap_data_struct caps_all[2];	/* the process's permitted set */
static bool caps_ok;

static void caps_init(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };

	caps_ok = syscall(SYS_capget, &h, caps_all) == 0;
}

/* Set the calling thread's effective set to its permitted one, or empty. */
static int caps_effective(bool full)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	pthread_once(&caps_once, caps_init);
	if (!caps_ok)
		return -EPERM;
	for (int i = 0; i < 2; i++) {
		d[i].permitted = caps_all[i].permitted;
		d[i].inheritable = caps_all[i].inheritable;
		d[i].effective = full ? caps_all[i].permitted : 0;
	}
	return syscall(SYS_capset, &h, d) < 0 ? -errno : 0;
}

/*
 * Per thread: the identity in effect and whether the effective capability
 * set is full. A new thread inherits its creator's set, whatever it is, so
 * it starts as unknown.
 */
enum { CAPS_UNKNOWN, CAPS_FULL, CAPS_NONE };
static __thread bool cur_valid;
static __thread unsigned long cur_serial;
static __thread int cur_caps;

static __thread bool own_umask;

/*
 * A client applies its user's umask before it sends a mode (Linux's does,
 * in every dialect): the server's must not be applied a second time. The
 * umask is per thread once the thread has its own fs attributes, so the
 * files v9fsd makes for itself (the -S counters) keep the one it started
 * with; where unshare() is refused the whole process gets umask 0.
 */
static void no_umask(void)
{
	if (own_umask)
		return;
	own_umask = true;
	unshare(CLONE_FS);
	umask(0);
}

/*
 * Make the calling thread act as u for filesystem access; u NULL fails.
 * Every request that touches a file comes through here first.
 */
int srv_user_become(const struct srv_user *u)
{
	int err;

	no_umask();
	if (!u)
		return -EACCES;
	if (!srv_cfg.as_root)
		return 0;
	if (cur_valid && cur_serial == u->serial)
		return 0;
	cur_valid = false;
	if (cur_caps != CAPS_FULL) {
		err = caps_effective(true);
		if (err < 0)
			return err;
		cur_caps = CAPS_FULL;
	}
	/* groups and gid first: fsuid 0 keeps the capabilities this needs */
	if (syscall(SYS_setgroups, (size_t)u->ngroups, u->groups) < 0)
		return -errno;
	setfsgid(u->gid);
	setfsuid(u->uid);
	if ((uid_t)setfsuid((uid_t)-1) != u->uid || (gid_t)setfsgid((gid_t)-1) != u->gid)
		return -EPERM;
	if (u->uid != 0) {
		err = caps_effective(false);
		if (err < 0)
			return err;
		cur_caps = CAPS_NONE;
	}
	cur_valid = true;
	cur_serial = u->serial;
	return 0;
}

/*
 * Make the calling thread act as root, with the process's capabilities,
 * for one step the kernel takes on a user's behalf (srv_drop_setid()); the
 * next srv_user_become() switches back. Only a server that runs as root.
 */
int srv_user_become_root(void)
{
	static const struct srv_user root = { .serial = 0 };	/* no user has serial 0 */

	if (!srv_cfg.as_root)
		return -EPERM;
	return srv_user_become(&root);
}

/*
 * The names a 9P2000(.u) stat carries, one per directory entry: the tables
 * of passwd.c answer found and missing ids alike without reading a file;
 * an id with no name is given as its number.
 */
static int id_name(bool group, unsigned int id, char *buf, size_t len)
{
	if ((group ? srv_gr_name((gid_t)id, buf, len) : srv_pw_name((uid_t)id, buf, len)) < 0)
		snprintf(buf, len, "%u", id);
	return 0;
}

int srv_user_name(uid_t uid, char *buf, size_t len)
{
	return id_name(false, (unsigned int)uid, buf, len);
}

int srv_group_name(gid_t gid, char *buf, size_t len)
{
	return id_name(true, (unsigned int)gid, buf, len);
}

/* -u USER: a name or a number; sets map_uid/map_gid. */
int srv_user_parse_map(const char *spec)
{
	struct srv_user u;
	char *end;
	unsigned long n;

	memset(&u, 0, sizeof(u));
	if (lookup_name(&u, spec) == 0)
		goto found;
	n = strtoul(spec, &end, 10);
	if (*spec && !*end) {
		lookup_uid(&u, (uid_t)n);
		goto found;
	}
	return -ENOENT;
found:
	srv_cfg.have_map_user = true;
	srv_cfg.map_uid = u.uid;
	srv_cfg.map_gid = u.gid;
	return 0;
}
