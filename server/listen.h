/* SPDX-License-Identifier: GPL-2.0 */
/* listen.h - listening sockets (listen.c), used by main.c only. */
#ifndef SRV_LISTEN_H
#define SRV_LISTEN_H

#include <stdio.h>

int srv_listen_add(const char *addr);
void srv_listen_check_only(void);
int srv_listen_inherit(void);
void srv_notify(const char *state);
int srv_listen_count(void);
void srv_listen_print(FILE *fp);
void srv_listen_loop(void);
void srv_listen_cleanup(void);

#endif /* SRV_LISTEN_H */
