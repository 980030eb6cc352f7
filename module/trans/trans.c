// SPDX-License-Identifier: GPL-2.0-only
/*
 * The transports of 9p2000.ko by name. Each trans_*.c defines its ops with
 * its name; this list is the only place that knows which exist, and the
 * mount options, the client and the disk cache look a transport up here or
 * ask its ops, never naming one.
 */
#define pr_fmt(fmt) "9p2000: " fmt

#include <linux/kernel.h>
#include <linux/printk.h>
#include <linux/string.h>

#include "client.h"
#include "stream.h"

/* Every transport built in, the default first. */
static const struct ninep_trans_ops *const ninep_transports[] = {
	&ninep_trans_tcp,
	&ninep_trans_unix,
	&ninep_trans_fd,
#if IS_ENABLED(CONFIG_VIRTIO)
	&ninep_trans_virtio,
#endif
};

const struct ninep_trans_ops *ninep_trans_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ninep_transports); i++)
		if (!strcmp(ninep_transports[i]->name, name))
			return ninep_transports[i];
	return NULL;
}

const struct ninep_trans_ops *ninep_trans_default(void)
{
	return ninep_transports[0];
}

int ninep_trans_open(struct ninep_trans *t, const struct ninep_client_opts *o)
{
	t->ops = o->trans;
	if (!t->ops) {
		pr_err("no transport to connect over\n");
		return -EINVAL;
	}
	t->priv = NULL;
	t->stream = NULL;
	t->debug = o->debug;
	return t->ops->connect(t, o);
}
