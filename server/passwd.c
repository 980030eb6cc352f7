// SPDX-License-Identifier: GPL-2.0
/*
 * passwd.c - user and group lookups straight from /etc/passwd and
 * /etc/group.
 *
 * v9fsd is also linked statically for the test guests, where glibc's NSS
 * cannot load its modules; reading the files ourselves behaves the same in
 * both builds. (Directory services such as LDAP are not consulted.)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>

#include "passwd.h"

static const char *passwd_file = "/etc/passwd";
static const char *group_file = "/etc/group";

/* Find a passwd entry by name (name non-NULL) or by uid. */
static int pw_find(const char *name, uid_t uid, struct srv_pwent *out)
{
	struct passwd pw, *res;
	char buf[2048];
	FILE *fp = fopen(passwd_file, "re");
	int ret = -ENOENT;

	if (!fp)
		return -ENOENT;
	while (fgetpwent_r(fp, &pw, buf, sizeof(buf), &res) == 0) {
		if (name ? strcmp(pw.pw_name, name) != 0 : pw.pw_uid != uid)
			continue;
		out->uid = pw.pw_uid;
		out->gid = pw.pw_gid;
		snprintf(out->name, sizeof(out->name), "%s", pw.pw_name);
		ret = 0;
		break;
	}
	fclose(fp);
	return ret;
}

int srv_pw_by_name(const char *name, struct srv_pwent *out)
{
	return pw_find(name, 0, out);
}

int srv_pw_by_uid(uid_t uid, struct srv_pwent *out)
{
	return pw_find(NULL, uid, out);
}

static int gr_find(const char *name, gid_t gid, gid_t *gid_out, char *name_out,
		   size_t len)
{
	struct group gr, *res;
	char buf[4096];
	FILE *fp = fopen(group_file, "re");
	int ret = -ENOENT;

	if (!fp)
		return -ENOENT;
	while (fgetgrent_r(fp, &gr, buf, sizeof(buf), &res) == 0) {
		if (name ? strcmp(gr.gr_name, name) != 0 : gr.gr_gid != gid)
			continue;
		if (gid_out)
			*gid_out = gr.gr_gid;
		if (name_out)
			snprintf(name_out, len, "%s", gr.gr_name);
		ret = 0;
		break;
	}
	fclose(fp);
	return ret;
}

int srv_gr_by_name(const char *name, gid_t *gid)
{
	return gr_find(name, 0, gid, NULL, 0);
}

int srv_gr_by_gid(gid_t gid, char *name, size_t len)
{
	return gr_find(NULL, gid, NULL, name, len);
}

/* The primary group and every group listing user as a member. */
int srv_groups_of(const char *user, gid_t primary, gid_t *groups, int max)
{
	struct group gr, *res;
	char buf[4096];
	FILE *fp;
	int n = 0;

	if (max > 0)
		groups[n++] = primary;
	fp = fopen(group_file, "re");
	if (!fp)
		return n;
	while (n < max && fgetgrent_r(fp, &gr, buf, sizeof(buf), &res) == 0) {
		if (gr.gr_gid == primary)
			continue;
		for (char **m = gr.gr_mem; m && *m; m++) {
			if (!strcmp(*m, user)) {
				groups[n++] = gr.gr_gid;
				break;
			}
		}
	}
	fclose(fp);
	return n;
}
