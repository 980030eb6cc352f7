// SPDX-License-Identifier: GPL-2.0
/*
 * ops_9p.c - 9P2000 and 9P2000.u: Topen, Tcreate, Tstat, Twstat and
 * directory reads as stat records.
 *
 * .u additions: numeric ids, the extension string of special files
 * (symlink target, "b 1 2"/"c 1 2" devices, DMLINK's fid number), the link
 * count of regular files and directories ("HARDLINKCOUNT n") and the errno
 * in Rerror.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>

#include "srv.h"
#include "ops.h"
#include "passwd.h"

/* Strings of one stat record. */
struct stat_strs {
	char name[NAME_MAX + 1];
	char uid[64], gid[64], muid[64];
	char ext[PATH_MAX + 32];
};

_Static_assert(sizeof(struct stat_strs) <= sizeof(((struct srv_call *)0)->strs),
	       "a stat record's strings fit in a call's room for them");

static uint32_t mode_to_9p(mode_t m, enum v9p_dialect d)
{
	uint32_t r = m & 0777;

	if (S_ISDIR(m))
		r |= V9P_DMDIR;
	if (d != V9P_9P2000U)
		return r;
	if (S_ISLNK(m))
		r |= V9P_DMSYMLINK;
	else if (S_ISBLK(m) || S_ISCHR(m))
		r |= V9P_DMDEVICE;
	else if (S_ISFIFO(m))
		r |= V9P_DMNAMEDPIPE;
	else if (S_ISSOCK(m))
		r |= V9P_DMSOCKET;
	if (m & S_ISUID)
		r |= V9P_DMSETUID;
	if (m & S_ISGID)
		r |= V9P_DMSETGID;
	if (m & S_ISVTX)
		r |= V9P_DMSETVTX;
	return r;
}

/*
 * Fill a v9p_stat from st. name is the entry's name; (lfd, lname) reach it
 * for readlink (lname "" with an O_PATH fd of the link itself).
 */
static void build_stat(enum v9p_dialect d, const struct stat *st, const char *name,
		       int lfd, const char *lname, struct v9p_stat *s,
		       struct stat_strs *ss)
{
	memset(s, 0, sizeof(*s));
	srv_qid_from_stat(st, &s->qid);
	s->mode = mode_to_9p(st->st_mode, d);
	s->atime = (uint32_t)st->st_atime;
	s->mtime = (uint32_t)st->st_mtime;
	s->length = S_ISDIR(st->st_mode) ? 0 : (uint64_t)st->st_size;
	snprintf(ss->name, sizeof(ss->name), "%s", name);
	srv_user_name(st->st_uid, ss->uid, sizeof(ss->uid));
	srv_group_name(st->st_gid, ss->gid, sizeof(ss->gid));
	snprintf(ss->muid, sizeof(ss->muid), "%s", ss->uid);
	ss->ext[0] = '\0';
	if (d == V9P_9P2000U) {
		if (S_ISLNK(st->st_mode)) {
			ssize_t n = readlinkat(lfd, lname, ss->ext, sizeof(ss->ext) - 1);

			ss->ext[n > 0 ? n : 0] = '\0';
		} else if (S_ISBLK(st->st_mode) || S_ISCHR(st->st_mode)) {
			snprintf(ss->ext, sizeof(ss->ext), "%c %u %u",
				 S_ISBLK(st->st_mode) ? 'b' : 'c',
				 major(st->st_rdev), minor(st->st_rdev));
		} else if (S_ISREG(st->st_mode) || S_ISDIR(st->st_mode)) {
			/*
			 * .u has no link count field: Linux's client reads
			 * "HARDLINKCOUNT n" from the extension of regular files
			 * and directories (and only those; the extension of
			 * other types keeps its own meaning).
			 */
			snprintf(ss->ext, sizeof(ss->ext), "HARDLINKCOUNT %u",
				 st->st_nlink > UINT32_MAX ? UINT32_MAX :
				 (unsigned int)st->st_nlink);
		}
		s->n_uid = st->st_uid;
		s->n_gid = st->st_gid;
		s->n_muid = st->st_uid;
	} else {
		s->n_uid = s->n_gid = s->n_muid = V9P_NONUNAME;
	}
	v9p_str_set(&s->name, ss->name);
	v9p_str_set(&s->uid, ss->uid);
	v9p_str_set(&s->gid, ss->gid);
	v9p_str_set(&s->muid, ss->muid);
	v9p_str_set(&s->extension, ss->ext);
}

/* The last component of a fid's path; "/" for the root. */
static const char *fid_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!*path)
		return "/";
	return slash ? slash + 1 : path;
}

/* The strings of Rstat live in the request until its reply is packed. */
int srv_op_stat(struct srv_call *call)
{
	struct srv_fid *f = call->fid[0];
	struct stat st;
	char *path;
	int err;

	err = srv_fid_stat(f, &st);
	if (err < 0)
		return err;
	path = srv_fid_path(f);
	if (!path)
		return -ENOMEM;
	/* the name is copied into the strings: path may go */
	build_stat(call->conn->dialect, &st, fid_name(path), f->pfd, "",
		   &call->req->out.rstat.stat, (struct stat_strs *)call->strs);
	free(path);
	return 0;
}

/* Topen mode to open(2) flags. */
static int omode_to_flags(uint8_t mode)
{
	static const int acc[4] = { O_RDONLY, O_WRONLY, O_RDWR, O_RDONLY };
	int flags = acc[mode & 3];

	if (mode & V9P_OTRUNC)
		flags |= O_TRUNC;
	if (mode & V9P_OAPPEND)
		flags |= O_APPEND;
	return flags;
}

int srv_op_open(struct srv_call *call)
{
	struct v9p_topen *t = &call->req->in.topen;
	struct v9p_ropen *r = &call->req->out.ropen;

	return srv_open_fid(call->conn, call->fid[0], NULL, omode_to_flags(t->mode), 0,
			    (gid_t)-1, t->mode & V9P_ORCLOSE, &r->qid, &r->iounit);
}

/* .u special files: symlink, hard link, device, fifo, socket. */
/* The permission bits of a .u perm, set-id and sticky bits included. */
static mode_t perm_to_mode(uint32_t perm)
{
	mode_t mode = perm & 0777;

	if (perm & V9P_DMSETUID)
		mode |= S_ISUID;
	if (perm & V9P_DMSETGID)
		mode |= S_ISGID;
	if (perm & V9P_DMSETVTX)
		mode |= S_ISVTX;
	return mode;
}

static int create_special(struct srv_call *call, struct srv_fid *df, const char *name,
			  uint32_t perm, const struct v9p_str *ext)
{
	char buf[PATH_MAX + 1];
	struct srv_fid *target = NULL;
	mode_t mode = perm_to_mode(perm);
	int err = 0;

	if (ext->len > PATH_MAX)
		return -ENAMETOOLONG;
	memcpy(buf, ext->s, ext->len);
	buf[ext->len] = '\0';
	if (perm & V9P_DMLINK) {
		/* before df->lock: the table lock is never taken under a fid lock */
		char *end;
		unsigned long n = strtoul(buf, &end, 10);

		if (end == buf || (*end && *end != '\n'))
			return -EINVAL;
		target = srv_fid_get(call->conn, (uint32_t)n);
		if (!target)
			return -EBADF;
	}

	/* a link goes by target's name: no rename meanwhile (lock order) */
	srv_names_rdlock();
	pthread_mutex_lock(&df->lock);
	if (df->ofd >= 0 || !S_ISDIR(df->ftype) || (err = srv_fid_beneath(df)) < 0) {
		err = df->ofd >= 0 ? -EBUSY : !S_ISDIR(df->ftype) ? -ENOTDIR : err;
		pthread_mutex_unlock(&df->lock);
		srv_names_unlock();
		srv_fid_put(target);
		return err;
	}
	if (perm & V9P_DMSYMLINK) {
		if (symlinkat(buf, df->pfd, name) < 0)
			err = -errno;
	} else if (perm & V9P_DMLINK) {
		err = srv_link_fid(target, df->pfd, name);
	} else if (perm & V9P_DMDEVICE) {
		char kind;
		unsigned int ma, mi;

		if (sscanf(buf, "%c %u %u", &kind, &ma, &mi) != 3 ||
		    (kind != 'b' && kind != 'c'))
			err = -EINVAL;
		else if (mknodat(df->pfd, name, mode | (kind == 'b' ? S_IFBLK : S_IFCHR),
				 makedev(ma, mi)) < 0)
			err = -errno;
	} else if (perm & V9P_DMNAMEDPIPE) {
		if (mknodat(df->pfd, name, mode | S_IFIFO, 0) < 0)
			err = -errno;
	} else if (perm & V9P_DMSOCKET) {
		if (mknodat(df->pfd, name, mode | S_IFSOCK, 0) < 0)
			err = -errno;
	}
	pthread_mutex_unlock(&df->lock);
	srv_names_unlock();
	srv_fid_put(target);
	if (err < 0)
		return err;
	return srv_become_child(call->conn, df, name, &call->req->out.rcreate.qid);
}

int srv_op_create(struct srv_call *call)
{
	struct v9p_tcreate *t = &call->req->in.tcreate;
	struct v9p_rcreate *r = &call->req->out.rcreate;
	const char *name = call->name[0];
	struct srv_fid *f = call->fid[0];
	uint32_t special = V9P_DMSYMLINK | V9P_DMLINK | V9P_DMDEVICE |
			   V9P_DMNAMEDPIPE | V9P_DMSOCKET;
	int err, flags;

	if (call->conn->dialect == V9P_9P2000U && (t->perm & special)) {
		err = create_special(call, f, name, t->perm, &t->extension);
		if (err == 0)
			r->iounit = srv_iounit(call->conn);
		return err;
	}
	if (t->perm & V9P_DMDIR) {
		/* a directory can only be created for reading */
		if ((t->mode & 3) != V9P_OREAD && (t->mode & 3) != V9P_OEXEC)
			return -EISDIR;
		flags = O_DIRECTORY;
	} else {
		flags = omode_to_flags(t->mode) | O_EXCL;
	}
	return srv_open_fid(call->conn, f, name, flags, perm_to_mode(t->perm), (gid_t)-1,
			    t->mode & V9P_ORCLOSE, &r->qid, &r->iounit);
}

static int lookup_uid_name(const struct v9p_str *s, uid_t *uid)
{
	char name[256], *end;
	struct srv_pwent pw;

	if (s->len >= sizeof(name))
		return -EINVAL;
	memcpy(name, s->s, s->len);
	name[s->len] = '\0';
	if (srv_pw_by_name(name, &pw) == 0) {
		*uid = pw.uid;
		return 0;
	}
	*uid = (uid_t)strtoul(name, &end, 10);
	return *end ? -EINVAL : 0;
}

static int lookup_gid_name(const struct v9p_str *s, gid_t *gid)
{
	char name[256], *end;

	if (s->len >= sizeof(name))
		return -EINVAL;
	memcpy(name, s->s, s->len);
	name[s->len] = '\0';
	if (srv_gr_by_name(name, gid) == 0)
		return 0;
	*gid = (gid_t)strtoul(name, &end, 10);
	return *end ? -EINVAL : 0;
}

/* Twstat's rename: a new name in the same directory. */
static int wstat_rename(struct srv_fid *f, const char *name)
{
	const char *base;
	char *dpath = NULL, *opath;
	int dfd, err;

	srv_names_wrlock();
	opath = srv_fid_path(f);
	if (!opath) {
		err = -ENOMEM;
		goto out;
	}
	dfd = srv_fid_parent(f, opath, &base, NULL);
	if (dfd < 0) {
		err = dfd;
		goto out;
	}
	if (!strcmp(name, base)) {
		err = 0;	/* same name: nothing to rename */
	} else {
		dpath = srv_path_parent(opath);
		err = dpath ? srv_rename_names(dfd, dpath, base, dfd, dpath, name) : -ENOMEM;
	}
	close(dfd);
out:
	srv_names_unlock();
	free(dpath);
	free(opath);
	return err;
}

/*
 * Twstat: every field that is not "don't touch" (~0, or an empty string)
 * is applied, the name last since a rename changes where the fid is.
 * Only a rename within the same directory is possible, as in Plan 9.
 */
/* Every field "don't touch" (~0 and empty strings), owner included. */
static bool wstat_is_null(const struct v9p_stat *s, uid_t uid, gid_t gid)
{
	return s->mode == ~(uint32_t)0 && s->atime == ~(uint32_t)0 &&
	       s->mtime == ~(uint32_t)0 && s->length == ~(uint64_t)0 && !s->name.len &&
	       uid == (uid_t)-1 && gid == (gid_t)-1;
}

static bool is_now(const struct timespec *t, time_t now)
{
	return t->tv_nsec != UTIME_OMIT && t->tv_sec >= now - 1 && t->tv_sec <= now + 1;
}

/*
 * Twstat's times. 9P2000 has no "now": a Linux client sends its clock's
 * seconds for truncate(2) (mtime with the length) and for utimes(NULL)
 * (both times). Setting a time needs ownership, "now" only write access,
 * so a time within a second of ours is taken as "now" where the explicit
 * one is refused: after a truncation mtime is already now; both times
 * become UTIME_NOW, which the kernel checks against write access.
 */
static int wstat_times(struct srv_fid *f, struct timespec ts[2], bool truncated)
{
	time_t now = time(NULL);
	int err;

	if (truncated && ts[0].tv_nsec == UTIME_OMIT && is_now(&ts[1], now))
		return 0;
	err = srv_set_times(f, ts);
	if (err != -EPERM || !is_now(&ts[0], now) || !is_now(&ts[1], now))
		return err;
	ts[0].tv_nsec = UTIME_NOW;
	ts[1].tv_nsec = UTIME_NOW;
	return srv_set_times(f, ts);
}

int srv_op_wstat(struct srv_call *call)
{
	struct v9p_stat *s = &call->req->in.twstat.stat;
	enum v9p_dialect d = call->conn->dialect;
	struct srv_fid *f = call->fid[0];
	char *name = call->name[0];
	uid_t uid = (uid_t)-1;
	gid_t gid = (gid_t)-1;
	int err;

	/* check what can be checked before changing anything */
	if (s->name.len) {
		err = srv_check_name(&s->name, name);
		if (err < 0)
			return err;
	}
	if (d == V9P_9P2000U && s->n_uid != V9P_NONUNAME)
		uid = s->n_uid;
	else if (s->uid.len && (err = lookup_uid_name(&s->uid, &uid)) < 0)
		return err;
	if (d == V9P_9P2000U && s->n_gid != V9P_NONUNAME)
		gid = s->n_gid;
	else if (s->gid.len && (err = lookup_gid_name(&s->gid, &gid)) < 0)
		return err;

	if (s->mode != ~(uint32_t)0 && !!(s->mode & V9P_DMDIR) != !!S_ISDIR(f->ftype))
		return -EINVAL;

	if (wstat_is_null(s, uid, gid)) {
		/*
		 * Nothing to change: 9P's "make it stable" request (the Linux
		 * client's fsync), and what it sends for a change of ctime
		 * alone (chown -1 -1). A no-op chown moves ctime, as it does
		 * locally. (Twstat runs on a worker: fsync may take long.)
		 */
		srv_set_owner(f, (uid_t)-1, (gid_t)-1);
		if (f->ofd >= 0)
			fsync(f->ofd);
		return 0;
	}
	/*
	 * owner before mode (a chown clears the set-id bits a mode may set),
	 * mode before length (a client clears set-id bits before truncating)
	 */
	if (uid != (uid_t)-1 || gid != (gid_t)-1) {
		err = srv_set_owner(f, uid, gid);
		if (err < 0)
			return err;
	}
	if (s->mode != ~(uint32_t)0) {
		err = srv_set_mode(f, perm_to_mode(s->mode));
		if (err == -EPERM)
			err = srv_drop_setid(f, perm_to_mode(s->mode));
		if (err < 0)
			return err;
	}
	if (s->length != ~(uint64_t)0) {
		err = srv_set_size(f, s->length);
		if (err < 0)
			return err;
	}
	if (s->atime != ~(uint32_t)0 || s->mtime != ~(uint32_t)0) {
		struct timespec ts[2] = {
			{ .tv_sec = s->atime, .tv_nsec = 0 },
			{ .tv_sec = s->mtime, .tv_nsec = 0 },
		};

		if (s->atime == ~(uint32_t)0)
			ts[0].tv_nsec = UTIME_OMIT;
		if (s->mtime == ~(uint32_t)0)
			ts[1].tv_nsec = UTIME_OMIT;
		err = wstat_times(f, ts, s->length != ~(uint64_t)0);
		if (err < 0)
			return err;
	}
	if (s->name.len)
		return wstat_rename(f, name);
	return 0;
}

#define SRV_MAX_DIRMARKS (1u << 18)

/* Remember that an entry starts at byte off, at host position cookie. */
static void dir_mark(struct srv_fid *f, uint64_t off, long cookie)
{
	if (f->dir_nmarks && f->dir_marks[f->dir_nmarks - 1].off >= off)
		return;	/* already known: offsets only grow within a pass */
	if (f->dir_nmarks == f->dir_capmarks) {
		uint32_t cap = f->dir_capmarks ? f->dir_capmarks * 2 : 64;
		struct srv_dirmark *m;

		if (cap > SRV_MAX_DIRMARKS)
			return;
		m = realloc(f->dir_marks, cap * sizeof(*m));
		if (!m)
			return;
		f->dir_marks = m;
		f->dir_capmarks = cap;
	}
	f->dir_marks[f->dir_nmarks].off = off;
	f->dir_marks[f->dir_nmarks].cookie = cookie;
	f->dir_nmarks++;
}

static bool dir_seek(struct srv_fid *f, uint64_t off)
{
	uint32_t lo = 0, hi = f->dir_nmarks;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (f->dir_marks[mid].off == off) {
			f->dir_cookie = f->dir_marks[mid].cookie;
			f->dir_off = off;
			return true;
		}
		if (f->dir_marks[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/*
 * 9P2000 directory read: stat records, whole ones only. The offset must be
 * 0 (start over), where the previous read ended, or where an entry already
 * returned started (so a client's seekdir(telldir()) works, though
 * read(5) does not require it). The position in the host directory is kept
 * as a getdents cookie, so entries added or removed meanwhile do not shift
 * the ones not yet read.
 */
int srv_read_dir_stats(struct srv_conn *c, struct srv_fid *f, uint64_t off,
		       uint32_t count, uint8_t *buf, uint32_t *got)
{
	enum v9p_dialect d = c->dialect;
	char dbuf[8192];
	struct stat_strs *ss;
	uint32_t used = 0;
	int err = 0;
	bool full = false;

	ss = malloc(sizeof(*ss));
	if (!ss)
		return -ENOMEM;
	pthread_mutex_lock(&f->lock);
	if (off == 0) {
		f->dir_cookie = 0;
		f->dir_off = 0;
		f->dir_nmarks = 0;
	} else if (off != f->dir_off && !dir_seek(f, off)) {
		err = -EINVAL;
		goto out;
	}
	while (!full) {
		long n, pos;

		if (lseek(f->ofd, f->dir_cookie, SEEK_SET) < 0) {
			err = -errno;
			break;
		}
		n = syscall(SYS_getdents64, f->ofd, dbuf, sizeof(dbuf));
		if (n < 0) {
			err = -errno;
			break;
		}
		if (n == 0)
			break;
		for (pos = 0; pos < n;) {
			struct linux_dirent64 *de = (struct linux_dirent64 *)(dbuf + pos);
			struct v9p_stat s;
			struct stat st;
			int len;

			pos += de->d_reclen;
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) {
				f->dir_cookie = de->d_off;
				continue;
			}
			if (fstatat(f->ofd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
				f->dir_cookie = de->d_off;	/* gone meanwhile */
				continue;
			}
			build_stat(d, &st, de->d_name, f->ofd, de->d_name, &s, ss);
			len = v9p_stat_pack(&s, d, buf + used, count - used);
			if (len < 0) {
				/*
				 * A count too small for this entry reads 0 bytes:
				 * Linux's client fills its buffer with a second read
				 * for the few bytes left and stops at 0, then asks
				 * again at this offset with a full count.
				 */
				full = true;
				break;
			}
			dir_mark(f, off + used, f->dir_cookie);
			used += (uint32_t)len;
			f->dir_cookie = de->d_off;
		}
	}
	if (err == 0 || used) {
		err = 0;
		f->dir_off = off + used;
		*got = used;
	}
out:
	pthread_mutex_unlock(&f->lock);
	free(ss);
	return err;
}
