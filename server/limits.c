// SPDX-License-Identifier: GPL-2.0
/*
 * limits.c - budgets shared by every connection, so that no group of
 * clients can take everything the process has.
 *
 * Fids: each holds one or two descriptors, so the number of fids of all
 * connections together is capped below the descriptor limit, net of a
 * descriptor for every connection v9fsd may accept and of a reserve for
 * the server's own use (fd_reserve): whatever the clients hold, accept()
 * and the requests' own short-lived descriptors keep working. The last
 * quarter of the budget is kept for connections that hold few fids
 * (SRV_FID_FLOOR), so that a group of clients holding many cannot lock a
 * new client out, and no connection takes more than the other three.
 *
 * A connection takes no fid unit: only its fids do, so connections that
 * hold none cannot lock anyone out of the fid budget. Connections are
 * bounded on their own, in all and per peer (srv_limit_conn_take()), and
 * one that holds no fid lasts handshake_timeout (conn.c).
 *
 * Requests: in flight per connection (conn.c) and of all connections
 * together. Worker threads: a blocking Tlock holds one for as long as it
 * waits, so waits are limited per connection and to half of the pool in
 * all; past that a Tlock does not wait (LOCK_BLOCKED, the client polls).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "srv.h"

static unsigned int total_fids;
static unsigned int fid_budget;		/* fids of all connections; 0: no limit */
static pthread_once_t fid_budget_once = PTHREAD_ONCE_INIT;

static void conn_limits(void);
static unsigned int max_conns;

/*
 * The fids of every connection together: max_total_fids, and in any case
 * no more than the descriptors left once fd_reserve and a descriptor for
 * every connection v9fsd may accept are set aside, at two per fid (pfd
 * and an open file). Connections count only up to half of what is left
 * after the reserve, so that a -c larger than the descriptors allow does
 * not leave no fid at all.
 */
static void fid_budget_init(void)
{
	unsigned int cap;
	struct rlimit rl;
	rlim_t room, conns;

	conn_limits();
	fid_budget = srv_cfg.max_total_fids;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return;
	room = rl.rlim_cur > srv_cfg.fd_reserve ? rl.rlim_cur - srv_cfg.fd_reserve : 0;
	conns = max_conns < room / 2 ? max_conns : room / 2;
	room -= conns;
	cap = room / 2 > UINT_MAX ? UINT_MAX : (unsigned int)(room / 2);
	if (!cap)
		cap = 1;
	if (!fid_budget || fid_budget > cap)
		fid_budget = cap;
}

/*
 * One more fid for the server; -ENFILE when the budget is spent. held: how
 * many fids the connection holds already.
 */
int srv_limit_fid_take(unsigned int held)
{
	unsigned int n, max;

	pthread_once(&fid_budget_once, fid_budget_init);
	n = __atomic_add_fetch(&total_fids, 1, __ATOMIC_RELAXED);
	max = fid_budget;
	if (max && held >= SRV_FID_FLOOR)
		max -= max / 4;
	if (fid_budget && n > max) {
		__atomic_sub_fetch(&total_fids, 1, __ATOMIC_RELAXED);
		return -ENFILE;
	}
	return 0;
}

void srv_limit_fid_give(void)
{
	__atomic_sub_fetch(&total_fids, 1, __ATOMIC_RELAXED);
}

static unsigned int total_reqs, total_waits;

bool srv_limit_req_take(void)
{
	unsigned int n = __atomic_add_fetch(&total_reqs, 1, __ATOMIC_RELAXED);

	if (n > srv_cfg.max_total_reqs) {
		__atomic_sub_fetch(&total_reqs, 1, __ATOMIC_RELAXED);
		return false;
	}
	return true;
}

void srv_limit_req_give(void)
{
	__atomic_sub_fetch(&total_reqs, 1, __ATOMIC_RELAXED);
}

/* Whether a request of c may wait for a lock on a worker thread. */
bool srv_limit_wait_take(struct srv_conn *c)
{
	unsigned int all = __atomic_add_fetch(&total_waits, 1, __ATOMIC_RELAXED);
	unsigned int mine = __atomic_add_fetch(&c->nwaiting, 1, __ATOMIC_RELAXED);

	if (all > srv_cfg.max_threads / 2 || mine > SRV_MAX_WAITS) {
		__atomic_sub_fetch(&total_waits, 1, __ATOMIC_RELAXED);
		__atomic_sub_fetch(&c->nwaiting, 1, __ATOMIC_RELAXED);
		return false;
	}
	return true;
}

void srv_limit_wait_give(struct srv_conn *c)
{
	__atomic_sub_fetch(&total_waits, 1, __ATOMIC_RELAXED);
	__atomic_sub_fetch(&c->nwaiting, 1, __ATOMIC_RELAXED);
}

/*
 * Connections: each is a thread and a descriptor. At most -c in all, by
 * default a quarter of the descriptors left after fd_reserve (and no more
 * than SRV_MAX_CONNS); per peer (a TCP client's address, a unix socket
 * client's uid) max_peer_conns, by default a quarter of that default, so
 * that one peer cannot take every connection.
 */
struct peer_count {
	struct peer_count *next;
	struct srv_peer peer;
	unsigned int n;
};

#define PEER_HASH	64

static pthread_mutex_t conns_lock = PTHREAD_MUTEX_INITIALIZER;
static struct peer_count *peer_hash[PEER_HASH];
static unsigned int total_conns, max_peer_conns;

static void conn_limits_locked(void)
{
	struct rlimit rl;
	rlim_t room = SRV_MAX_CONNS * 4ull;
	unsigned int dflt;

	if (max_conns)
		return;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		room = rl.rlim_cur > srv_cfg.fd_reserve ? rl.rlim_cur - srv_cfg.fd_reserve : 0;
	dflt = room / 4 > SRV_MAX_CONNS ? SRV_MAX_CONNS : (unsigned int)(room / 4);
	if (dflt < 4)
		dflt = 4;
	max_conns = srv_cfg.max_conns > 0 ? (unsigned int)srv_cfg.max_conns : dflt;
	max_peer_conns = srv_cfg.max_peer_conns ? srv_cfg.max_peer_conns : dflt / 4;
}

static void conn_limits(void)
{
	pthread_mutex_lock(&conns_lock);
	conn_limits_locked();
	pthread_mutex_unlock(&conns_lock);
}

static struct peer_count **peer_slot(const struct srv_peer *p)
{
	unsigned int h = (unsigned int)p->family;
	struct peer_count **pp;

	for (size_t i = 0; i < sizeof(p->addr); i++)
		h = h * 31 + p->addr[i];
	for (pp = &peer_hash[h % PEER_HASH]; *pp; pp = &(*pp)->next)
		if ((*pp)->peer.family == p->family && !memcmp((*pp)->peer.addr, p->addr,
							       sizeof(p->addr)))
			break;
	return pp;
}

/* A new connection from p: 0, or -EMFILE past the total, -EUSERS past p's share. */
int srv_limit_conn_take(const struct srv_peer *p)
{
	struct peer_count **pp, *pc;
	int err = 0;

	pthread_mutex_lock(&conns_lock);
	conn_limits_locked();
	if (total_conns >= max_conns) {
		err = -EMFILE;
		goto out;
	}
	if (p->family) {
		pp = peer_slot(p);
		pc = *pp;
		if (pc && pc->n >= max_peer_conns) {
			err = -EUSERS;
			goto out;
		}
		if (!pc) {
			pc = calloc(1, sizeof(*pc));
			if (!pc) {
				err = -ENOMEM;
				goto out;
			}
			pc->peer = *p;
			*pp = pc;
		}
		pc->n++;
	}
	total_conns++;
out:
	pthread_mutex_unlock(&conns_lock);
	return err;
}

void srv_limit_conn_give(const struct srv_peer *p)
{
	struct peer_count **pp, *pc;

	pthread_mutex_lock(&conns_lock);
	total_conns--;
	if (p->family) {
		pp = peer_slot(p);
		pc = *pp;
		if (pc && --pc->n == 0) {
			*pp = pc->next;
			free(pc);
		}
	}
	pthread_mutex_unlock(&conns_lock);
}
