// SPDX-License-Identifier: GPL-2.0
/*
 * stats.c - how many messages of each type v9fsd received (-S FILE).
 *
 * The file has one line per request type, "Tread 123", in type order,
 * every request type of the three dialects listed (zeros included) so that
 * readers can rely on the set of lines; messages of a type no dialect
 * defines are summed on a last line "unknown N".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "srv.h"

static unsigned long counts[256];

void srv_stats_count(uint8_t type)
{
	__atomic_add_fetch(&counts[type], 1, __ATOMIC_RELAXED);
}

static bool is_request_type(unsigned int t)
{
	return !(t & 1) && t != V9P_TLERROR && t != V9P_TERROR &&
	       strcmp(v9p_type_name((uint8_t)t), "unknown") != 0;
}

/* Write the counters to file (replaced atomically). */
int srv_stats_write(const char *file)
{
	char tmp[4096];
	unsigned long unknown = 0;
	FILE *fp;
	int err = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", file) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fp = fopen(tmp, "w");
	if (!fp)
		return -errno;
	for (unsigned int t = 0; t < 256; t++) {
		unsigned long n = __atomic_load_n(&counts[t], __ATOMIC_RELAXED);

		if (is_request_type(t))
			fprintf(fp, "%s %lu\n", v9p_type_name((uint8_t)t), n);
		else
			unknown += n;
	}
	fprintf(fp, "unknown %lu\n", unknown);
	if (fflush(fp) != 0)
		err = -errno;
	if (fclose(fp) != 0 && !err)
		err = -errno;
	if (!err && rename(tmp, file) < 0)
		err = -errno;
	return err;
}
