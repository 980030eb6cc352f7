// SPDX-License-Identifier: GPL-2.0-only
/*
 * The transports of 9p2000.ko as one table, indexed by NINEP_TRANS_*: the
 * client picks its ops here and never names a transport itself.
 */
#define pr_fmt(fmt) "9p2000: " fmt

#include <linux/kernel.h>
#include <linux/printk.h>

#include "client.h"
#include "trans.h"

static const struct ninep_trans_ops *const ninep_transports[NINEP_TRANS_COUNT] = {
	[NINEP_TRANS_TCP]	= &ninep_trans_tcp,
	[NINEP_TRANS_UNIX]	= &ninep_trans_unix,
	[NINEP_TRANS_FD]	= &ninep_trans_fd,
#if IS_ENABLED(CONFIG_VIRTIO)
	[NINEP_TRANS_VIRTIO]	= &ninep_trans_virtio,
#endif
};

const struct ninep_trans_ops *ninep_trans_get(int id)
{
	if (id < 0 || id >= NINEP_TRANS_COUNT)
		return NULL;
	return ninep_transports[id];
}

int ninep_trans_open(struct ninep_trans *t, const struct ninep_client_opts *o)
{
	t->ops = ninep_trans_get(o->trans);
	if (!t->ops) {
		pr_err("transport %d is not available\n", o->trans);
		return -EINVAL;
	}
	t->priv = NULL;
	t->debug = o->debug;
	return t->ops->connect(t, o);
}
