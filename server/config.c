// SPDX-License-Identifier: GPL-2.0
/*
 * config.c - the server's settings, with their defaults. Apart from
 * main.c so that the fuzz target can link the server without main().
 */
#include "srv.h"

struct srv_config srv_cfg = {
	.root_fd = -1,
	.msize = SRV_DEFAULT_MSIZE,
	.max_fids = SRV_MAX_FIDS,
	.max_reqs = SRV_MAX_REQS,
};
