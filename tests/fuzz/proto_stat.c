// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: v9p_stat_unpack() over a 9P2000 directory-read buffer.
 *
 * Input: mode[1] stats[...]. mode bit 0 picks 9P2000.u over 9P2000. Stats are
 * consumed back to back as a client reading a directory would; each decoded
 * stat must pack again to exactly the bytes it was read from.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "v9p.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static u8 out[1 << 17];
	enum v9p_dialect d;
	struct v9p_stat st;
	u8 *buf;
	u32 len, off = 0;
	int n;

	if (size < 1 || size > (1 << 16))
		return 0;
	d = (data[0] & 1) ? V9P_9P2000U : V9P_9P2000;
	len = (u32)(size - 1);
	buf = malloc(len ? len : 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, len);

	while (off < len) {
		n = v9p_stat_unpack(buf + off, len - off, d, &st);
		if (n < 0) {
			if (n != -EPROTO)
				abort();
			break;
		}
		if (n < 2 || (u32)n > len - off)
			abort();
		if (v9p_stat_pack(&st, d, out, sizeof(out)) != n ||
		    memcmp(out, buf + off, (size_t)n) ||
		    v9p_stat_size(&st, d) != (u32)n)
			abort();
		off += (u32)n;
	}
	free(buf);
	return 0;
}
