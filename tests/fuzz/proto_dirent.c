// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: v9p_dirent_unpack() over an Rreaddir payload, entry by
 * entry; each decoded entry must pack again to the bytes it came from.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "v9p.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static u8 out[1 << 17];
	struct v9p_dirent de;
	u8 *buf;
	u32 len = (u32)size, off = 0;
	int n;

	if (size > (1 << 16))
		return 0;
	buf = malloc(len ? len : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, len);

	while (off < len) {
		n = v9p_dirent_unpack(buf + off, len - off, &de);
		if (n < 0) {
			if (n != -EPROTO)
				abort();
			break;
		}
		if ((u32)n != v9p_dirent_size(&de) || (u32)n > len - off)
			abort();
		if (v9p_dirent_pack(&de, out, sizeof(out)) != n ||
		    memcmp(out, buf + off, (size_t)n))
			abort();
		off += (u32)n;
	}
	free(buf);
	return 0;
}
