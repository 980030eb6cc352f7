/* SPDX-License-Identifier: GPL-2.0 */
/* passwd.h - /etc/passwd and /etc/group lookups (passwd.c). */
#ifndef SRV_PASSWD_H
#define SRV_PASSWD_H

#include <sys/types.h>
#include <stddef.h>

struct srv_pwent {
	uid_t uid;
	gid_t gid;
	char name[64];
};

int srv_pw_by_name(const char *name, struct srv_pwent *out);
int srv_pw_by_uid(uid_t uid, struct srv_pwent *out);
int srv_gr_by_name(const char *name, gid_t *gid);
int srv_pw_name(uid_t uid, char *name, size_t len);
int srv_gr_name(gid_t gid, char *name, size_t len);
int srv_groups_of(const char *user, gid_t primary, gid_t *groups, int max);

#endif /* SRV_PASSWD_H */
