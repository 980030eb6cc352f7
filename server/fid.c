// SPDX-License-Identifier: GPL-2.0
/*
 * fid.c - the per-connection fid table.
 *
 * A hash of reference-counted fids. Handlers take a reference with
 * srv_fid_get() for as long as they use a fid, so a Tclunk racing with a
 * Tread on the same fid unhashes it at once (the fid number is free for
 * reuse) while the last srv_fid_put() closes its descriptors.
 *
 * A fid enters the table only once it is complete, and what a request may
 * read without the fid's lock (pfd, ftype, user) never changes afterwards:
 * an operation that makes a fid name another file (a walk onto itself, a
 * create) builds a new fid and swaps it in under the same number.
 *
 * Names: besides its connection's table, every fid is on one server-wide
 * list, so that a rename done through any connection updates the remembered
 * path of every fid at or beneath the old name. The names lock (a
 * writer-preferring rwlock) orders renames against everything that reads a
 * path and acts on it: renames take it for writing (rename, then update the
 * paths), walks, removes and links for reading. Lock order: names lock,
 * then a connection's table lock or the list lock, then a fid's lock, then
 * its path lock. A rename takes the path locks of the fids it moves only,
 * after the list lock, and never a fid's lock: that one may be held for a
 * whole directory read, and every walk waits for a rename. Nothing that
 * may block for long (opening a fifo) runs under the names lock.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "srv.h"

#define FID_NHASH 256

static pthread_rwlock_t names_lock;
static pthread_once_t names_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t all_lock = PTHREAD_MUTEX_INITIALIZER;
static struct srv_fid all_fids = { .anext = &all_fids, .aprev = &all_fids };

static void names_init(void)
{
	pthread_rwlockattr_t a;

	pthread_rwlockattr_init(&a);
	/* a stream of walks must not starve a rename */
	pthread_rwlockattr_setkind_np(&a, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&names_lock, &a);
	pthread_rwlockattr_destroy(&a);
}

void srv_names_rdlock(void)
{
	pthread_once(&names_once, names_init);
	pthread_rwlock_rdlock(&names_lock);
}

void srv_names_wrlock(void)
{
	pthread_once(&names_once, names_init);
	pthread_rwlock_wrlock(&names_lock);
}

void srv_names_unlock(void)
{
	pthread_rwlock_unlock(&names_lock);
}

int srv_fidtab_init(struct srv_fidtab *t)
{
	memset(t, 0, sizeof(*t));
	t->nhash = FID_NHASH;
	t->hash = calloc(t->nhash, sizeof(*t->hash));
	if (!t->hash)
		return -ENOMEM;
	pthread_mutex_init(&t->lock, NULL);
	return 0;
}

void srv_fidtab_destroy(struct srv_fidtab *t)
{
	free(t->hash);
	t->hash = NULL;
	pthread_mutex_destroy(&t->lock);
}

static unsigned int fid_slot(const struct srv_fidtab *t, uint32_t fid)
{
	return (fid * 2654435761u) % t->nhash;
}

/*
 * A new, empty fid with one reference for the caller. It is on the
 * server-wide list (a rename between filling its path in and publishing it
 * still reaches it) but in no table: nothing else can see it until
 * srv_fid_publish() or srv_fid_replace(), so no request ever runs on a fid
 * whose descriptor, path or user is not set yet. *err is -EBADF for NOFID.
 */
struct srv_fid *srv_fid_new(struct srv_conn *c, uint32_t fid, int *err)
{
	struct srv_fid *f;

	(void)c;
	if (fid == V9P_NOFID) {
		*err = -EBADF;
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	if (!f) {
		*err = -ENOMEM;
		return NULL;
	}
	f->fid = fid;
	f->refs = 1;
	f->pfd = -1;
	f->ofd = -1;
	pthread_mutex_init(&f->lock, NULL);
	pthread_mutex_init(&f->path_lock, NULL);

	pthread_mutex_lock(&all_lock);
	f->anext = &all_fids;
	f->aprev = all_fids.aprev;
	all_fids.aprev->anext = f;
	all_fids.aprev = f;
	pthread_mutex_unlock(&all_lock);
	return f;
}

static struct srv_fid **fid_find_locked(struct srv_fidtab *t, uint32_t fid)
{
	struct srv_fid **pp;

	for (pp = &t->hash[fid_slot(t, fid)]; *pp; pp = &(*pp)->hnext)
		if ((*pp)->fid == fid)
			return pp;
	return NULL;
}

/*
 * Enter a complete fid (pfd, path and user set) in the table, which takes
 * a reference of its own: -EBADF if the number is in use, -EMFILE past the
 * per-connection or the server-wide limit. The caller keeps its reference.
 */
int srv_fid_publish(struct srv_conn *c, struct srv_fid *f)
{
	struct srv_fidtab *t = &c->fids;
	unsigned int slot = fid_slot(t, f->fid);
	int err;

	pthread_mutex_lock(&t->lock);
	if (fid_find_locked(t, f->fid)) {
		err = -EBADF;
		goto out;
	}
	if (t->count >= srv_cfg.max_fids) {
		err = -EMFILE;
		goto out;
	}
	err = srv_limit_fid_take(t->count);
	if (err < 0)
		goto out;
	__atomic_add_fetch(&f->refs, 1, __ATOMIC_RELAXED);
	f->hnext = t->hash[slot];
	t->hash[slot] = f;
	t->count++;
out:
	pthread_mutex_unlock(&t->lock);
	return err;
}

/*
 * Make the fid number of old name nf instead (Twalk newfid = fid, Tcreate,
 * Tlcreate): the fid it replaces is left as it was for the requests still
 * holding it, its descriptors close with their last reference. If a
 * concurrent request replaced old already, the later one wins. -EBADF if
 * the number was clunked meanwhile, -EBUSY if it was opened meanwhile.
 */
int srv_fid_replace(struct srv_conn *c, struct srv_fid *old, struct srv_fid *nf)
{
	struct srv_fidtab *t = &c->fids;
	struct srv_fid **pp, *cur = NULL;
	int err = 0;

	pthread_mutex_lock(&t->lock);
	pp = fid_find_locked(t, old->fid);
	if (!pp) {
		err = -EBADF;
		goto out;
	}
	cur = *pp;
	pthread_mutex_lock(&cur->lock);
	if (cur->ofd >= 0 || cur->xattr)
		err = -EBUSY;
	else
		cur->gone = true;
	pthread_mutex_unlock(&cur->lock);
	if (err < 0)
		goto out;
	nf->fid = cur->fid;
	nf->hnext = cur->hnext;
	__atomic_add_fetch(&nf->refs, 1, __ATOMIC_RELAXED);
	*pp = nf;
out:
	pthread_mutex_unlock(&t->lock);
	if (err == 0)
		srv_fid_put(cur);	/* the table's reference */
	return err;
}

struct srv_fid *srv_fid_get(struct srv_conn *c, uint32_t fid)
{
	struct srv_fidtab *t = &c->fids;
	struct srv_fid *f;

	pthread_mutex_lock(&t->lock);
	for (f = t->hash[fid_slot(t, fid)]; f; f = f->hnext)
		if (f->fid == fid)
			break;
	if (f)
		__atomic_add_fetch(&f->refs, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&t->lock);
	return f;
}

/*
 * Point f at an O_PATH descriptor and its path (both consumed) of the file
 * st describes (its type and identity); a fresh fid also takes a reference
 * on user u.
 */
void srv_fid_init(struct srv_fid *f, int pfd, char *path, struct srv_user *u,
		  const struct stat *st)
{
	mode_t ftype = st->st_mode & S_IFMT;

	f->pfd = pfd;
	f->path = path;
	f->dev = st->st_dev;
	f->ino = st->st_ino;
	f->ftype = ftype;
	f->qtype = srv_qid_type(ftype);
	if (u) {
		srv_user_get(u);
		f->user = u;
	}
}

/* Fill a fresh fid from an O_PATH descriptor (consumed) and its path. */
int srv_fid_set(struct srv_fid *f, int pfd, char *path, struct srv_user *u,
		struct v9p_qid *qid)
{
	struct stat st;

	if (fstatat(pfd, "", &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0) {
		int err = -errno;

		close(pfd);
		free(path);
		return err;
	}
	srv_qid_from_stat(&st, qid);
	srv_fid_init(f, pfd, path, u, &st);
	return 0;
}

/* The file's attributes, through its open descriptor if it has one. */
int srv_fid_stat(struct srv_fid *f, struct stat *st)
{
	int fd = __atomic_load_n(&f->ofd, __ATOMIC_ACQUIRE);

	if (fd < 0)
		fd = f->pfd;

	if (fstatat(fd, "", st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	return 0;
}

static void fid_free(struct srv_fid *f)
{
	pthread_mutex_lock(&all_lock);
	f->aprev->anext = f->anext;
	f->anext->aprev = f->aprev;
	pthread_mutex_unlock(&all_lock);
	if (f->ofd >= 0)
		close(f->ofd);
	if (f->pfd >= 0)
		close(f->pfd);
	if (f->at_free)
		f->at_free(f);
	srv_user_put(f->user);
	free(f->dir_marks);
	free(f->path);
	pthread_mutex_destroy(&f->lock);
	pthread_mutex_destroy(&f->path_lock);
	free(f);
}

/*
 * A copy of f's root-relative path (NULL when out of memory): a rename on
 * another thread may replace f->path at any time, under f->path_lock.
 */
char *srv_fid_path(struct srv_fid *f)
{
	char *p;

	pthread_mutex_lock(&f->path_lock);
	p = strdup(f->path ? f->path : "");
	pthread_mutex_unlock(&f->path_lock);
	return p;
}

/* Drop a reference; the last one closes the fid's descriptors. */
void srv_fid_put(struct srv_fid *f)
{
	if (f && __atomic_sub_fetch(&f->refs, 1, __ATOMIC_ACQ_REL) == 0)
		fid_free(f);
}

/*
 * Remove f from the table (Tclunk, Tremove, a failed Twalk's newfid) and
 * drop the table's reference. Returns -EBADF if someone else did it first.
 */
int srv_fid_unhash(struct srv_conn *c, struct srv_fid *f)
{
	struct srv_fidtab *t = &c->fids;
	struct srv_fid **pp;
	bool found = false;

	pthread_mutex_lock(&t->lock);
	for (pp = &t->hash[fid_slot(t, f->fid)]; *pp; pp = &(*pp)->hnext) {
		if (*pp == f) {
			*pp = f->hnext;
			t->count--;
			found = true;
			break;
		}
	}
	if (found) {
		pthread_mutex_lock(&f->lock);
		f->gone = true;
		pthread_mutex_unlock(&f->lock);
	}
	pthread_mutex_unlock(&t->lock);
	if (!found)
		return -EBADF;
	srv_limit_fid_give();
	srv_fid_put(f);
	return 0;
}

/*
 * Tversion and disconnect: clunk every fid, each ending as its at_clunk
 * hook says (an ORCLOSE file is removed, an xattr value committed).
 */
void srv_fid_clunk_all(struct srv_conn *c)
{
	struct srv_fidtab *t = &c->fids;

	for (unsigned int i = 0; i < t->nhash; i++) {
		for (;;) {
			struct srv_fid *f;

			pthread_mutex_lock(&t->lock);
			f = t->hash[i];
			if (f) {
				t->hash[i] = f->hnext;
				t->count--;
			}
			pthread_mutex_unlock(&t->lock);
			if (!f)
				break;
			srv_limit_fid_give();
			/* nothing is done by name for a fid whose user cannot be taken on */
			if (srv_user_become(f->user) == 0 && f->at_clunk)
				f->at_clunk(f);
			srv_fid_put(f);
		}
	}
}

/* Whether path names from or something beneath it. */
static bool at_or_beneath(const char *path, const char *from, size_t fl)
{
	return path && strncmp(path, from, fl) == 0 && (path[fl] == '\0' || path[fl] == '/');
}

/* A reference on a fid found on the list, unless its last one is gone. */
static bool fid_tryget(struct srv_fid *f)
{
	int refs = __atomic_load_n(&f->refs, __ATOMIC_RELAXED);

	while (refs > 0)
		if (__atomic_compare_exchange_n(&f->refs, &refs, refs + 1, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return true;
	return false;
}

/*
 * After a rename of from to to (root-relative names), every fid of the
 * server at or beneath from follows it, so that a later remove, rename,
 * link, ".." or stat finds the right name. The caller holds the names lock
 * for writing across the rename and this update.
 *
 * Only the path locks of the fids that move are taken, and not under the
 * list lock; never a fid's own lock, which a long directory read holds
 * (every walk waits for the rename). Paths are compared without a lock:
 * they change only under the names lock (renames) or before a fid is
 * published, and a fresh fid's path is set while a walk holds the names
 * lock for reading.
 */
void srv_fid_rename_paths(const char *from, const char *to)
{
	size_t fl = strlen(from), tl = strlen(to), n = 0, cap = 0;
	struct srv_fid **moved = NULL, **grown;

	pthread_mutex_lock(&all_lock);
	for (struct srv_fid *f = all_fids.anext; f != &all_fids; f = f->anext) {
		if (!at_or_beneath(__atomic_load_n(&f->path, __ATOMIC_ACQUIRE), from, fl))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			grown = realloc(moved, cap * sizeof(*moved));
			if (!grown)
				break;	/* out of memory: those left keep their old name */
			moved = grown;
		}
		if (fid_tryget(f))
			moved[n++] = f;
	}
	pthread_mutex_unlock(&all_lock);

	for (size_t i = 0; i < n; i++) {
		struct srv_fid *f = moved[i];
		char *np = NULL, *old = NULL;
		size_t pl;

		pthread_mutex_lock(&f->path_lock);
		if (at_or_beneath(f->path, from, fl)) {
			pl = strlen(f->path);
			np = malloc(tl + (pl - fl) + 1);
			if (np) {
				memcpy(np, to, tl);
				memcpy(np + tl, f->path + fl, pl - fl + 1);
				old = f->path;
				__atomic_store_n(&f->path, np, __ATOMIC_RELEASE);
			}
		}
		pthread_mutex_unlock(&f->path_lock);
		free(old);
		srv_fid_put(f);
	}
	free(moved);
}
