// SPDX-License-Identifier: GPL-2.0
/*
 * config.c - the server's settings, with their defaults, and the -o
 * options that change them. Apart from main.c so that the fuzz target can
 * link the server without main().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "srv.h"
#include "passwd.h"

struct srv_config srv_cfg = {
	.root_fd = -1,
	.msize = SRV_DEFAULT_MSIZE,
	.max_fids = SRV_MAX_FIDS,
	.max_reqs = SRV_MAX_REQS,
	.max_total_reqs = SRV_MAX_TOTAL_REQS,
	.max_threads = SRV_MAX_THREADS,
	.fd_reserve = SRV_FD_RESERVE,
	.msg_timeout = SRV_MSG_TIMEOUT,
	.stall_timeout = SRV_STALL_TIMEOUT,
	.max_dialect = V9P_9P2000L,
	.stats_dir_fd = -1,
	.handshake_timeout = SRV_HANDSHAKE_TIMEOUT,
};

static int parse_num(const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	/* digits only: strtoul would take "-1" as the largest number */
	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/* allow=ADDR[/PREFIX]: a client address (IPv4 or IPv6) or network. */
static int add_allow(const char *spec, char *why, size_t wl)
{
	struct srv_allow a, *n;
	char host[INET6_ADDRSTRLEN];
	const char *slash = strchr(spec, '/');
	unsigned long prefix, v;
	size_t hl = slash ? (size_t)(slash - spec) : strlen(spec);

	if (hl >= sizeof(host)) {
		snprintf(why, wl, "not an IPv4 or IPv6 address");
		return -EINVAL;
	}
	memcpy(host, spec, hl);
	host[hl] = '\0';
	memset(&a, 0, sizeof(a));
	if (inet_pton(AF_INET, host, a.addr) == 1) {
		a.family = AF_INET;
		prefix = 32;
	} else if (inet_pton(AF_INET6, host, a.addr) == 1) {
		a.family = AF_INET6;
		prefix = 128;
	} else {
		snprintf(why, wl, "'%s' is not an IPv4 or IPv6 address", host);
		return -EINVAL;
	}
	if (slash && parse_num(slash + 1, ULONG_MAX, &v) < 0) {
		snprintf(why, wl, "prefix length '%s' is not a number", slash + 1);
		return -EINVAL;
	}
	if (slash && v > prefix) {
		snprintf(why, wl, "prefix length %lu is out of range for %s (0 to %lu)", v,
			 a.family == AF_INET ? "IPv4" : "IPv6", prefix);
		return -EINVAL;
	}
	if (slash)
		prefix = v;
	a.prefix = (unsigned int)prefix;
	n = realloc(srv_cfg.allow, (size_t)(srv_cfg.nallow + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	n[srv_cfg.nallow++] = a;
	srv_cfg.allow = n;
	return 0;
}

static bool prefix_match(const uint8_t *a, const uint8_t *b, unsigned int bits)
{
	unsigned int bytes = bits / 8, rest = bits % 8;

	if (memcmp(a, b, bytes))
		return false;
	if (!rest)
		return true;
	return ((a[bytes] ^ b[bytes]) & (uint8_t)(0xff << (8 - rest))) == 0;
}

/* Whether a TCP client at sa may connect: every one, unless allow= was given. */
bool srv_addr_allowed(const struct sockaddr *sa)
{
	const uint8_t *addr;
	int family = sa->sa_family;

	if (!srv_cfg.nallow)
		return true;
	if (family == AF_INET) {
		addr = (const uint8_t *)&((const struct sockaddr_in *)sa)->sin_addr;
	} else if (family == AF_INET6) {
		const struct in6_addr *a6 = &((const struct sockaddr_in6 *)sa)->sin6_addr;

		addr = a6->s6_addr;
		if (IN6_IS_ADDR_V4MAPPED(a6)) {
			family = AF_INET;
			addr += 12;
		}
	} else {
		return false;
	}
	for (int i = 0; i < srv_cfg.nallow; i++)
		if (srv_cfg.allow[i].family == family &&
		    prefix_match(addr, srv_cfg.allow[i].addr, srv_cfg.allow[i].prefix))
			return true;
	return false;
}

/* unix_group=NAME|GID: the unix sockets' group, which may connect too. */
static int set_unix_group(const char *spec, char *why, size_t wl)
{
	unsigned long v;
	gid_t gid;

	if (srv_gr_by_name(spec, &gid) == 0) {
		srv_cfg.unix_group = gid;
	} else if (parse_num(spec, (gid_t)-2, &v) == 0) {
		srv_cfg.unix_group = (gid_t)v;
	} else {
		snprintf(why, wl, "no group '%s' on this host", spec);
		return -EINVAL;
	}
	srv_cfg.have_unix_group = true;
	return 0;
}

/* unix_map=PEERUID:UID (repeatable): numbers, as the kernel reports a peer. */
static int add_unix_map(const char *spec, char *why, size_t wl)
{
	struct srv_unix_map *n;
	unsigned long peer, uid;
	const char *colon = strchr(spec, ':');
	char num[16];
	size_t pl = colon ? (size_t)(colon - spec) : 0;

	if (!colon || pl >= sizeof(num)) {
		snprintf(why, wl, "PEERUID:UID expected, two numeric uids");
		return -EINVAL;
	}
	memcpy(num, spec, pl);
	num[pl] = '\0';
	if (parse_num(num, (uid_t)-2, &peer) < 0 ||
	    parse_num(colon + 1, (uid_t)-2, &uid) < 0) {
		snprintf(why, wl, "PEERUID:UID expected, two numeric uids below %u",
			 (unsigned int)(uid_t)-2);
		return -EINVAL;
	}
	n = realloc(srv_cfg.unix_map, (size_t)(srv_cfg.nunix_map + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	n[srv_cfg.nunix_map].peer = (uid_t)peer;
	n[srv_cfg.nunix_map].uid = (uid_t)uid;
	srv_cfg.nunix_map++;
	srv_cfg.unix_map = n;
	return 0;
}

struct num_opt {
	const char *name;
	unsigned long min, max;
	unsigned int *val;
};

/*
 * max_version=9P2000|9P2000.u|9P2000.L (any case): the newest dialect
 * offered. A client asking for a later one is answered with this one, as
 * a server that has not implemented it would.
 */
static int set_max_dialect(const char *name)
{
	for (int d = V9P_9P2000; d <= V9P_9P2000L; d++) {
		if (!strcasecmp(name, v9p_dialect_name((enum v9p_dialect)d))) {
			srv_cfg.max_dialect = (enum v9p_dialect)d;
			return 0;
		}
	}
	return -EINVAL;
}

/*
 * One -o option: "name" or "name=value"; 0, or -EINVAL with why (len
 * bytes) saying what is wrong with it.
 */
int srv_config_option(const char *opt, char *why, size_t wl)
{
	const struct num_opt nums[] = {
		{ "max_fids", 1, INT_MAX, &srv_cfg.max_fids },
		{ "max_total_fids", 0, INT_MAX, &srv_cfg.max_total_fids },
		{ "fd_reserve", 8, 1 << 20, &srv_cfg.fd_reserve },
		{ "max_reqs", 1, 65000, &srv_cfg.max_reqs },
		{ "max_total_reqs", 1, INT_MAX, &srv_cfg.max_total_reqs },
		{ "max_threads", 1, 4096, &srv_cfg.max_threads },
		{ "msg_timeout", 0, 86400, &srv_cfg.msg_timeout },
		{ "stall_timeout", 0, 86400, &srv_cfg.stall_timeout },
		{ "idle_timeout", 0, INT_MAX, &srv_cfg.idle_timeout },
		{ "max_peer_conns", 0, INT_MAX, &srv_cfg.max_peer_conns },
		{ "handshake_timeout", 0, 86400, &srv_cfg.handshake_timeout },
	};
	const char *eq = strchr(opt, '=');
	size_t nl = eq ? (size_t)(eq - opt) : strlen(opt);
	unsigned long v;

	if (!eq && !strcmp(opt, "no_root_squash")) {
		srv_cfg.no_root_squash = true;
		return 0;
	}
	if (!eq && !strcmp(opt, "serial")) {
		srv_cfg.serial = true;
		return 0;
	}
	if (!eq && !strcmp(opt, "root_squash")) {
		srv_cfg.no_root_squash = false;
		return 0;
	}
	if (eq && !strncmp(opt, "no_root_squash", nl) && nl == 14)
		goto no_value;
	if (eq && !strncmp(opt, "root_squash", nl) && nl == 11)
		goto no_value;
	if (eq && !strncmp(opt, "serial", nl) && nl == 6)
		goto no_value;
	if (eq && nl == 5 && !strncmp(opt, "allow", 5))
		return add_allow(eq + 1, why, wl);
	if (eq && nl == 11 && !strncmp(opt, "max_version", 11)) {
		if (set_max_dialect(eq + 1) == 0)
			return 0;
		snprintf(why, wl, "not 9P2000, 9P2000.u or 9P2000.L");
		return -EINVAL;
	}
	if (eq && nl == 10 && !strncmp(opt, "unix_group", 10))
		return set_unix_group(eq + 1, why, wl);
	if (eq && nl == 8 && !strncmp(opt, "unix_map", 8))
		return add_unix_map(eq + 1, why, wl);
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		if (strlen(nums[i].name) != nl || strncmp(opt, nums[i].name, nl))
			continue;
		if (!eq) {
			snprintf(why, wl, "needs a value (%s=N)", nums[i].name);
			return -EINVAL;
		}
		if (parse_num(eq + 1, nums[i].max, &v) < 0 || v < nums[i].min) {
			snprintf(why, wl, "'%s' is not a number from %lu to %lu", eq + 1,
				 nums[i].min, nums[i].max);
			return -EINVAL;
		}
		*nums[i].val = (unsigned int)v;
		return 0;
	}
	if (!eq && (!strcmp(opt, "allow") || !strcmp(opt, "max_version") ||
		    !strcmp(opt, "unix_group") || !strcmp(opt, "unix_map"))) {
		snprintf(why, wl, "needs a value (%s=...)", opt);
		return -EINVAL;
	}
	snprintf(why, wl, "unknown option (v9fsd --help lists them)");
	return -EINVAL;
no_value:
	snprintf(why, wl, "takes no value");
	return -EINVAL;
}
