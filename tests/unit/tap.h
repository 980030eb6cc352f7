/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tap.h - a tiny Test Anything Protocol helper for host C tests.
 *
 *	tap_ok(cond, "what %s", ...);   prints "ok N - what" or "not ok N - what"
 *	tap_diag("fmt", ...);           prints "# ..." (diagnostics)
 *	return tap_done();              prints the plan "1..N"; exit status 1 on failure
 *
 * Header-only, so any test can include it; state is per program.
 */
#ifndef V9FS_TAP_H
#define V9FS_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_count;
static int tap_failures;

__attribute__((format(printf, 2, 3), unused))
static int tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;

	tap_count++;
	if (!cond)
		tap_failures++;
	printf("%sok %d - ", cond ? "" : "not ", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	return cond;
}

__attribute__((format(printf, 1, 2), unused))
static void tap_diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

__attribute__((unused))
static int tap_done(void)
{
	printf("1..%d\n", tap_count);
	if (tap_failures)
		tap_diag("%d of %d failed", tap_failures, tap_count);
	return tap_failures ? 1 : 0;
}

#endif /* V9FS_TAP_H */
