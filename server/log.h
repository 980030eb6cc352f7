/* SPDX-License-Identifier: GPL-2.0 */
/* log.h - what an administrator is told while v9fsd serves (log.c). */
#ifndef SRV_LOG_H
#define SRV_LOG_H

#include <stdbool.h>
#include <syslog.h>

struct srv_conn;
struct srv_user;
struct v9p_tattach;

void srv_log_to_syslog(void);
__attribute__((format(printf, 3, 4)))
void srv_log(int prio, const char *key, const char *fmt, ...);

/* user.c: one line per attach, granted (u) or refused (u NULL, err) */
void srv_user_log_attach(const struct srv_conn *c, const struct v9p_tattach *t,
			 const struct srv_user *u, int err);

#endif /* SRV_LOG_H */
