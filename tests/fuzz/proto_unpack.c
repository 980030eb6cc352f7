// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: v9p_unpack() in one dialect (FUZZ_DIALECT).
 *
 * Input: mode[1] message[...]. mode bit 0 rewrites size[4] to the real
 * length so the fuzzer reaches the bodies easily; bits 1-2 pick an msize.
 * Whatever decodes must pack again to exactly the same bytes (the encoding
 * is canonical), which also walks every string and data view the decoder
 * returned, so ASan sees a view that points outside the input. Peer text
 * that a client interprets (Rerror, version strings) goes through the error
 * table and the version parser too.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "v9p.h"

#ifndef FUZZ_DIALECT
#define FUZZ_DIALECT V9P_9P2000
#endif

static const u32 msizes[4] = { 0, 8192, 65536, 4096 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static u8 out[1 << 17];
	struct v9p_fcall f;
	u8 mode, *msg;
	u32 len;
	int ret, n;

	if (size < 1 || size > (1 << 16))
		return 0;
	mode = data[0];
	len = (u32)(size - 1);
	/* an exact-size copy: reading one byte past it is an ASan report */
	msg = malloc(len ? len : 1);
	if (!msg)
		return 0;
	memcpy(msg, data + 1, len);
	if ((mode & 1) && len >= 4) {
		msg[0] = (u8)len;
		msg[1] = (u8)(len >> 8);
		msg[2] = (u8)(len >> 16);
		msg[3] = (u8)(len >> 24);
	}

	ret = v9p_unpack(msg, len, FUZZ_DIALECT, msizes[(mode >> 1) & 3], &f);
	if (ret == 0) {
		n = v9p_pack(&f, FUZZ_DIALECT, out, sizeof(out));
		/* an Rstat with n[2] = 0 (QEMU's) re-encodes with the real n */
		if (f.type == V9P_RSTAT && n == (int)len && len >= 9 &&
		    !msg[7] && !msg[8]) {
			msg[7] = out[7];
			msg[8] = out[8];
		}
		/* the datasync-less Tfsync re-encodes in the long form */
		if (f.type == V9P_TFSYNC && len == V9P_HDRSZ + 4)
			n = (n == (int)len + 4) ? (int)len : -1;
		else if (n != (int)len || memcmp(out, msg, len))
			abort();
		if (n != (int)len)
			abort();
		if (f.type == V9P_RERROR) {
			ret = v9p_errstr_to_errno(f.rerror.ename.s, f.rerror.ename.len);
			if (ret <= 0 || ret > 4095)
				abort();
		}
		if (f.type == V9P_TVERSION || f.type == V9P_RVERSION) {
			ret = v9p_dialect_parse(&f.rversion.version);
			if (ret != -EINVAL && (ret < V9P_9P2000 || ret > V9P_9P2000L))
				abort();
		}
	} else if (ret != -EPROTO && ret != -EMSGSIZE && ret != -EOPNOTSUPP) {
		abort();
	}
	free(msg);
	return 0;
}
