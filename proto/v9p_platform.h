/* SPDX-License-Identifier: GPL-2.0 */
/*
 * v9p_platform.h - the only place where proto/ meets its environment.
 *
 * proto/ is compiled into the kernel module and into host programs from the
 * same source, so everything it needs from the outside world (fixed width
 * types, memcpy/memset/memchr, errno numbers) comes through this header.
 * Little-endian loads and stores are done byte by byte in the codec, which
 * needs no unaligned-access header (that header moved between 6.1 and 6.12).
 */
#ifndef V9P_PLATFORM_H
#define V9P_PLATFORM_H

#ifdef __KERNEL__

#include <linux/kernel.h>
#include <linux/types.h>
#include <linux/string.h>
#include <linux/errno.h>

#else /* host: server, unit tests, fuzzers */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <errno.h>

/*
 * The kernel's short type names, so that one source serves both worlds.
 * The compiler's own macros name the very types <stdint.h> uses for
 * uint8_t and friends, so u32 and uint32_t stay interchangeable.
 */
typedef __UINT8_TYPE__ u8;
typedef __UINT16_TYPE__ u16;
typedef __UINT32_TYPE__ u32;
typedef __UINT64_TYPE__ u64;

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

#endif /* __KERNEL__ */

/*
 * Error numbers are Linux's on both sides; supply them only where a host
 * libc lacks one (values from include/uapi/asm-generic/errno.h).
 */
#ifndef EPROTO
#define EPROTO		71
#endif
#ifndef EMSGSIZE
#define EMSGSIZE	90
#endif
#ifndef EINVAL
#define EINVAL		22
#endif
#ifndef EAGAIN
#define EAGAIN		11
#endif
#ifndef ENAMETOOLONG
#define ENAMETOOLONG	36
#endif
#ifndef EOPNOTSUPP
#define EOPNOTSUPP	95
#endif

#endif /* V9P_PLATFORM_H */
