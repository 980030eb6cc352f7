// SPDX-License-Identifier: GPL-2.0
/*
 * limits.c - budgets shared by every connection, so that no group of
 * clients can take everything the process has.
 *
 * Fids: each holds one or two descriptors, so the number of fids of all
 * connections together is capped below the descriptor limit, keeping a
 * reserve for accepting connections and for the server's own use.
 */
#define _GNU_SOURCE
#include <errno.h>

#include "srv.h"

static unsigned int total_fids;

/* One more fid for the server; -ENFILE when the budget is spent. */
int srv_limit_fid_take(void)
{
	unsigned int n = __atomic_add_fetch(&total_fids, 1, __ATOMIC_RELAXED);

	if (srv_cfg.max_total_fids && n > srv_cfg.max_total_fids) {
		__atomic_sub_fetch(&total_fids, 1, __ATOMIC_RELAXED);
		return -ENFILE;
	}
	return 0;
}

void srv_limit_fid_give(void)
{
	__atomic_sub_fetch(&total_fids, 1, __ATOMIC_RELAXED);
}
