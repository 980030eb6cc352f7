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

#include <linux/types.h>
#include <linux/string.h>
#include <linux/errno.h>

#else /* host: server, unit tests, fuzzers */

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <errno.h>

/*
 * The kernel's short type names, so that one source serves both worlds.
 * They are the same types as uint8_t and friends.
 */
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;

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

#endif /* V9P_PLATFORM_H */
