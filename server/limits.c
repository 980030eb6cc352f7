// SPDX-License-Identifier: GPL-2.0
/*
 * limits.c - budgets shared by every connection, so that no group of
 * clients can take everything the process has.
 *
 * Fids: each holds one or two descriptors, so the number of fids of all
 * connections together is capped below the descriptor limit, keeping a
 * reserve for accepting connections and for the server's own use. Each
 * connection also takes one unit (its socket). The last quarter of the
 * budget is kept for connections that hold few fids (SRV_FID_FLOOR), so
 * that a group of clients holding many cannot lock a new client out.
 *
 * Requests: in flight per connection (conn.c) and of all connections
 * together. Worker threads: a blocking Tlock holds one for as long as it
 * waits, so waits are limited per connection and to half of the pool in
 * all; past that a Tlock does not wait (LOCK_BLOCKED, the client polls).
 */
#define _GNU_SOURCE
#include <errno.h>

#include "srv.h"

static unsigned int total_fids;

/*
 * One more fid (or connection) for the server; -ENFILE when the budget is
 * spent. held: how many fids the connection holds already.
 */
int srv_limit_fid_take(unsigned int held)
{
	unsigned int n = __atomic_add_fetch(&total_fids, 1, __ATOMIC_RELAXED);
	unsigned int max = srv_cfg.max_total_fids;

	if (max && held >= SRV_FID_FLOOR)
		max -= max / 4;
	if (srv_cfg.max_total_fids && n > max) {
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
