// SPDX-License-Identifier: GPL-2.0
/*
 * passwd.c - user and group lookups from /etc/passwd and /etc/group.
 *
 * v9fsd is also linked statically for the test guests, where glibc's NSS
 * cannot load its modules; reading the files ourselves behaves the same in
 * both builds. (Directory services such as LDAP are not consulted.)
 *
 * A 9P2000 directory read names the owner and group of every entry, so
 * lookups must cost next to nothing, found or not: both files are read
 * into sorted tables, and read again only when one of them changes (its
 * inode, size, mtime or ctime): checked at each attach, and at most once
 * a second for the names of a listing. Lookups
 * share the tables under a read lock; a reload builds new tables without
 * any lock and swaps them in.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <pthread.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#include "passwd.h"

static const char *passwd_file = "/etc/passwd";
static const char *group_file = "/etc/group";

struct pw_rec {
	uid_t uid;
	gid_t gid;
	char *name;
	size_t order;		/* line: the first of duplicates wins */
};

struct gr_rec {
	gid_t gid;
	char *name;
	char **mem;		/* NULL-terminated */
	size_t order;
};

struct userdb {
	struct pw_rec *pw;		/* by uid */
	struct pw_rec **pw_name;	/* by name */
	size_t npw;
	struct gr_rec *gr;		/* by gid */
	struct gr_rec **gr_name;	/* by name */
	size_t ngr;
	struct stat pst, gst;		/* the files as read (st_ino 0: missing) */
};

static pthread_rwlock_t db_lock = PTHREAD_RWLOCK_INITIALIZER;
static pthread_mutex_t reload_lock = PTHREAD_MUTEX_INITIALIZER;
static struct userdb *db;
static time_t db_checked;	/* CLOCK_MONOTONIC seconds of the last check */

static void db_free(struct userdb *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->npw; i++)
		free(d->pw[i].name);
	for (size_t i = 0; i < d->ngr; i++) {
		free(d->gr[i].name);
		for (char **m = d->gr[i].mem; m && *m; m++)
			free(*m);
		free(d->gr[i].mem);
	}
	free(d->pw);
	free(d->pw_name);
	free(d->gr);
	free(d->gr_name);
	free(d);
}

static int cmp_pw_uid(const void *a, const void *b)
{
	const struct pw_rec *x = a, *y = b;

	if (x->uid != y->uid)
		return x->uid < y->uid ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int cmp_pw_name(const void *a, const void *b)
{
	const struct pw_rec *x = *(struct pw_rec *const *)a, *y = *(struct pw_rec *const *)b;
	int c = strcmp(x->name, y->name);

	return c ? c : x->order < y->order ? -1 : x->order > y->order;
}

static int cmp_gr_gid(const void *a, const void *b)
{
	const struct gr_rec *x = a, *y = b;

	if (x->gid != y->gid)
		return x->gid < y->gid ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int cmp_gr_name(const void *a, const void *b)
{
	const struct gr_rec *x = *(struct gr_rec *const *)a, *y = *(struct gr_rec *const *)b;
	int c = strcmp(x->name, y->name);

	return c ? c : x->order < y->order ? -1 : x->order > y->order;
}

/* Append to a growing array; false when out of memory. */
static bool grow(void **arr, size_t n, size_t *cap, size_t size)
{
	void *p;

	if (n < *cap)
		return true;
	*cap = *cap ? 2 * *cap : 64;
	p = realloc(*arr, *cap * size);
	if (!p)
		return false;
	*arr = p;
	return true;
}

/*
 * The line buffer for fget*ent_r: on ERANGE (a line longer than it, a
 * group of many members) the stream is back at the line's start and the
 * buffer doubles, up to 1 MiB; so no entry after a long line is lost.
 */
static bool bigger(char **buf, size_t *len)
{
	char *n;

	if (*len >= (1u << 20))
		return false;
	n = realloc(*buf, *len * 2);
	if (!n)
		return false;
	*buf = n;
	*len *= 2;
	return true;
}

static int load_passwd(struct userdb *d, FILE *fp)
{
	struct passwd pw, *res;
	size_t cap = 0, len = 4096;
	char *buf = malloc(len);
	int err = 0, e;

	while (buf && ((e = fgetpwent_r(fp, &pw, buf, len, &res)) == 0 ||
		       (e == ERANGE && bigger(&buf, &len)))) {
		struct pw_rec *r;

		if (e)
			continue;

		if (!grow((void **)&d->pw, d->npw, &cap, sizeof(*d->pw))) {
			err = -ENOMEM;
			break;
		}
		r = &d->pw[d->npw];
		r->name = strdup(pw.pw_name);
		if (!r->name) {
			err = -ENOMEM;
			break;
		}
		r->uid = pw.pw_uid;
		r->gid = pw.pw_gid;
		r->order = d->npw++;
	}
	if (!buf)
		return -ENOMEM;
	free(buf);
	return err;
}

static int load_group(struct userdb *d, FILE *fp)
{
	struct group gr, *res;
	size_t cap = 0, len = 4096;
	char *buf = malloc(len);
	int err = 0, e;

	while (buf && !err && ((e = fgetgrent_r(fp, &gr, buf, len, &res)) == 0 ||
			       (e == ERANGE && bigger(&buf, &len)))) {
		struct gr_rec *r;
		size_t nm = 0;

		if (e)
			continue;
		if (!grow((void **)&d->gr, d->ngr, &cap, sizeof(*d->gr))) {
			err = -ENOMEM;
			break;
		}
		r = &d->gr[d->ngr];
		memset(r, 0, sizeof(*r));
		r->gid = gr.gr_gid;
		r->order = d->ngr++;
		r->name = strdup(gr.gr_name);
		while (gr.gr_mem && gr.gr_mem[nm])
			nm++;
		r->mem = calloc(nm + 1, sizeof(*r->mem));
		if (!r->name || !r->mem) {
			err = -ENOMEM;
			break;
		}
		for (size_t i = 0; i < nm && !err; i++) {
			r->mem[i] = strdup(gr.gr_mem[i]);
			if (!r->mem[i])
				err = -ENOMEM;
		}
	}
	if (!buf)
		return -ENOMEM;
	free(buf);
	return err;
}

/* Read one file into d; a missing file is an empty table. */
static int load_file(struct userdb *d, const char *file, struct stat *st,
		     int (*load)(struct userdb *, FILE *))
{
	FILE *fp = fopen(file, "re");
	int err;

	memset(st, 0, sizeof(*st));
	if (!fp)
		return 0;
	if (fstat(fileno(fp), st) < 0)
		memset(st, 0, sizeof(*st));
	err = load(d, fp);
	fclose(fp);
	return err;
}

static struct userdb *db_build(void)
{
	struct userdb *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	if (load_file(d, passwd_file, &d->pst, load_passwd) < 0 ||
	    load_file(d, group_file, &d->gst, load_group) < 0)
		goto fail;
	d->pw_name = malloc((d->npw + 1) * sizeof(*d->pw_name));
	d->gr_name = malloc((d->ngr + 1) * sizeof(*d->gr_name));
	if (!d->pw_name || !d->gr_name)
		goto fail;
	if (d->npw)
		qsort(d->pw, d->npw, sizeof(*d->pw), cmp_pw_uid);
	if (d->ngr)
		qsort(d->gr, d->ngr, sizeof(*d->gr), cmp_gr_gid);
	for (size_t i = 0; i < d->npw; i++)
		d->pw_name[i] = &d->pw[i];
	for (size_t i = 0; i < d->ngr; i++)
		d->gr_name[i] = &d->gr[i];
	if (d->npw)
		qsort(d->pw_name, d->npw, sizeof(*d->pw_name), cmp_pw_name);
	if (d->ngr)
		qsort(d->gr_name, d->ngr, sizeof(*d->gr_name), cmp_gr_name);
	return d;
fail:
	db_free(d);
	return NULL;
}

static bool same_file(const char *file, const struct stat *was)
{
	struct stat st;

	if (stat(file, &st) < 0)
		return was->st_ino == 0;
	return st.st_ino == was->st_ino && st.st_dev == was->st_dev &&
	       st.st_size == was->st_size &&
	       st.st_mtim.tv_sec == was->st_mtim.tv_sec &&
	       st.st_mtim.tv_nsec == was->st_mtim.tv_nsec &&
	       st.st_ctim.tv_sec == was->st_ctim.tv_sec &&
	       st.st_ctim.tv_nsec == was->st_ctim.tv_nsec;
}

/*
 * Make db current and take the read lock (db may still be NULL when the
 * files could not be read for want of memory). exact (who is attaching,
 * a name a client sets): the files are checked now, so a user added a
 * moment ago is known. Otherwise (the names in directory listings) one
 * caller a second looks whether they changed while the others go on with
 * the tables they have.
 */
static void db_rdlock(bool exact)
{
	struct timespec now;
	struct userdb *d, *old = NULL;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
	if (!exact && __atomic_load_n(&db, __ATOMIC_ACQUIRE)) {
		if (now.tv_sec == __atomic_load_n(&db_checked, __ATOMIC_RELAXED))
			goto out;
		if (pthread_mutex_trylock(&reload_lock) != 0)
			goto out;	/* another thread looks */
	} else {
		pthread_mutex_lock(&reload_lock);
	}
	if (!exact && db && now.tv_sec == db_checked)
		goto unlock;
	__atomic_store_n(&db_checked, now.tv_sec, __ATOMIC_RELAXED);
	if (db && same_file(passwd_file, &db->pst) && same_file(group_file, &db->gst))
		goto unlock;
	d = db_build();
	if (d) {
		pthread_rwlock_wrlock(&db_lock);
		old = db;
		__atomic_store_n(&db, d, __ATOMIC_RELEASE);
		pthread_rwlock_unlock(&db_lock);
	}
unlock:
	pthread_mutex_unlock(&reload_lock);
	db_free(old);
out:
	pthread_rwlock_rdlock(&db_lock);
}

static void db_unlock(void)
{
	pthread_rwlock_unlock(&db_lock);
}

static const struct pw_rec *pw_by_uid(const struct userdb *d, uid_t uid)
{
	size_t lo = 0, hi = d ? d->npw : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->pw[mid].uid < uid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return d && lo < d->npw && d->pw[lo].uid == uid ? &d->pw[lo] : NULL;
}

static const struct pw_rec *pw_by_name(const struct userdb *d, const char *name)
{
	size_t lo = 0, hi = d ? d->npw : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(d->pw_name[mid]->name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return d && lo < d->npw && !strcmp(d->pw_name[lo]->name, name) ? d->pw_name[lo] : NULL;
}

static const struct gr_rec *gr_by_gid(const struct userdb *d, gid_t gid)
{
	size_t lo = 0, hi = d ? d->ngr : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->gr[mid].gid < gid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return d && lo < d->ngr && d->gr[lo].gid == gid ? &d->gr[lo] : NULL;
}

static const struct gr_rec *gr_by_name(const struct userdb *d, const char *name)
{
	size_t lo = 0, hi = d ? d->ngr : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(d->gr_name[mid]->name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return d && lo < d->ngr && !strcmp(d->gr_name[lo]->name, name) ? d->gr_name[lo] : NULL;
}

static int pw_out(const struct pw_rec *r, struct srv_pwent *out)
{
	if (!r)
		return -ENOENT;
	out->uid = r->uid;
	out->gid = r->gid;
	snprintf(out->name, sizeof(out->name), "%s", r->name);
	return 0;
}

int srv_pw_by_name(const char *name, struct srv_pwent *out)
{
	int ret;

	db_rdlock(true);
	ret = pw_out(pw_by_name(db, name), out);
	db_unlock();
	return ret;
}

int srv_pw_by_uid(uid_t uid, struct srv_pwent *out)
{
	int ret;

	db_rdlock(true);
	ret = pw_out(pw_by_uid(db, uid), out);
	db_unlock();
	return ret;
}

int srv_gr_by_name(const char *name, gid_t *gid)
{
	const struct gr_rec *r;

	db_rdlock(true);
	r = gr_by_name(db, name);
	if (r)
		*gid = r->gid;
	db_unlock();
	return r ? 0 : -ENOENT;
}

/* The names of a listing: tables at most a second old. */
int srv_pw_name(uid_t uid, char *name, size_t len)
{
	const struct pw_rec *r;

	db_rdlock(false);
	r = pw_by_uid(db, uid);
	if (r)
		snprintf(name, len, "%s", r->name);
	db_unlock();
	return r ? 0 : -ENOENT;
}

int srv_gr_name(gid_t gid, char *name, size_t len)
{
	const struct gr_rec *r;

	db_rdlock(false);
	r = gr_by_gid(db, gid);
	if (r)
		snprintf(name, len, "%s", r->name);
	db_unlock();
	return r ? 0 : -ENOENT;
}

/* The primary group and every group listing user as a member. */
int srv_groups_of(const char *user, gid_t primary, gid_t *groups, int max)
{
	int n = 0;

	if (max > 0)
		groups[n++] = primary;
	db_rdlock(true);
	for (size_t i = 0; db && i < db->ngr && n < max; i++) {
		const struct gr_rec *g = &db->gr[i];
		bool have = false;

		for (int k = 0; k < n && !have; k++)
			have = groups[k] == g->gid;
		for (char **m = g->mem; !have && *m; m++) {
			if (!strcmp(*m, user)) {
				groups[n++] = g->gid;
				break;
			}
		}
	}
	db_unlock();
	return n;
}
