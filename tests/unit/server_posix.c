// SPDX-License-Identifier: GPL-2.0
/*
 * server_posix.c - v9fsd answers as the local filesystem does.
 *
 * Every case runs one operation twice on identical trees that root sets
 * up: once locally, in a child that has become the test user (groups,
 * gid, uid, umask), and once through v9fsd over 9P2000.L, attached as that
 * user by number, sending what the Linux client sends for the system call.
 * The errno, the resulting mode, owner, group and size, and which of the
 * atime, mtime and ctime of the file and of its directory moved must be
 * the same. Both trees are on the same host filesystem.
 *
 * The users (root, an owner, a member of the owner's group, a stranger)
 * and their supplementary groups come from a passwd and a group file
 * bind-mounted over /etc/passwd and /etc/group in a private mount
 * namespace, which is where v9fsd looks them up. Needs root.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>

#include "server_client.h"
#include "tap.h"

struct user {
	const char *name;
	uid_t uid;
	gid_t gid;
	int ngroups;
	gid_t groups[4];
	uint32_t fid;		/* attached as this user */
};

#define G_SHARED	2100	/* owner and member */
#define G_OWNONLY	2101	/* owner only */
#define G_NONE		2102	/* nobody of ours */

static struct user u_root = { "root", 0, 0, 1, { 0 }, 100 };
static struct user u_owner = { "powner", 2001, 2001, 3, { 2001, G_SHARED, G_OWNONLY }, 101 };
static struct user u_member = { "pmember", 2002, 2002, 2, { 2002, G_SHARED }, 102 };
static struct user u_stranger = { "pstranger", 2003, 2003, 1, { 2003 }, 103 };

enum opk {
	OP_CHOWN, OP_CHMOD, OP_TRUNCATE, OP_CREATE, OP_MKDIR, OP_OPEN, OP_WRITE,
	OP_UNLINK, OP_RMDIR, OP_RENAME, OP_LINK, OP_SYMLINK, OP_UTIMES, OP_MKNOD,
	OP_READ, OP_STAT,
};

struct op {
	enum opk k;
	const char *a, *b;	/* relative to the case directory */
	uid_t uid;		/* chown: -1 keeps */
	gid_t gid;
	mode_t mode;		/* chmod, create, mkdir, mknod */
	mode_t umask;
	int flags;		/* open, create */
	off_t size;
	bool explicit_times;	/* utimes: set a time, else "now" */
	bool own_gid;		/* create: the user's gid even in a set-gid directory */
	gid_t fsgid;		/* not 0: the caller's gid (one of its groups) */
	bool client_mode;	/* chown: with the mode the client's kernel asks */
	bool dotl_only;		/* not run over 9P2000.u */
};

static struct tc cl, cu;		/* 9P2000.L, 9P2000.u */
static struct tc *cc;			/* the one in use */
static char *ref_root, *exp_root;
static int ncase;
static uint32_t next_fid = 1000;

/*
 * Wait past one tick of the coarse clock the kernel stamps file times with,
 * so that a time an operation moves differs from the one before it. The
 * tick is what clock_getres() reports for the coarse clock (a jiffy), with
 * 1 ms to spare; 15 ms if it reports nothing.
 */
static void tick_sleep(void)
{
	static long ns;
	struct timespec res;

	if (!ns)
		ns = clock_getres(CLOCK_REALTIME_COARSE, &res) == 0 &&
		     res.tv_sec == 0 && res.tv_nsec > 0 ?
		     res.tv_nsec + 1000000 : 15000000;
	nanosleep(&(struct timespec){ .tv_nsec = ns }, NULL);
}

/* Setup of a case, run by root in both trees. */
typedef void (*setup_fn)(const char *dir);

static void mk(const char *dir, const char *name, mode_t mode, uid_t u, gid_t g)
{
	const char *p = tc_path(dir, name);

	if (S_ISDIR(mode))
		mkdir(p, 0);
	else
		close(open(p, O_CREAT | O_WRONLY | O_TRUNC, 0));
	if (lchown(p, u, g) < 0 || chmod(p, mode & 07777) < 0)
		tap_diag("setup of %s failed: %s", p, strerror(errno));
}

static void fill(const char *dir, const char *name, const char *text)
{
	int fd = open(tc_path(dir, name), O_WRONLY | O_TRUNC);

	if (fd >= 0) {
		if (write(fd, text, strlen(text)) < 0)
			tap_diag("setup write failed");
		close(fd);
	}
}

/* What an operation left behind. */
struct outcome {
	int err;
	bool exists;
	mode_t mode;
	uid_t uid;
	gid_t gid;
	off_t size;
	unsigned int times;	/* bits: obj a/m/c, dir a/m/c moved */
};

static unsigned int moved(const struct stat *b, const struct stat *a, int shift)
{
	unsigned int r = 0;

	if (b->st_atim.tv_sec != a->st_atim.tv_sec || b->st_atim.tv_nsec != a->st_atim.tv_nsec)
		r |= 1;
	if (b->st_mtim.tv_sec != a->st_mtim.tv_sec || b->st_mtim.tv_nsec != a->st_mtim.tv_nsec)
		r |= 2;
	if (b->st_ctim.tv_sec != a->st_ctim.tv_sec || b->st_ctim.tv_nsec != a->st_ctim.tv_nsec)
		r |= 4;
	return r << shift;
}

static void become(const struct user *u, gid_t gid, mode_t mask)
{
	if (syscall(SYS_setgroups, (size_t)u->ngroups, u->groups) < 0 ||
	    setresgid(gid, gid, gid) < 0 || setresuid(u->uid, u->uid, u->uid) < 0)
		_exit(200);
	umask(mask);
}

/* The system call, locally, as u; returns 0 or errno. */
static int run_local(const struct user *u, const struct op *o, const char *dir)
{
	char a[PATH_MAX], b[PATH_MAX];
	int status;
	pid_t pid;

	if (snprintf(a, sizeof(a), "%s/%s", dir, o->a) >= (int)sizeof(a) ||
	    snprintf(b, sizeof(b), "%s/%s", dir, o->b ? o->b : "") >= (int)sizeof(b))
		return -1;
	pid = fork();
	if (pid == 0) {
		struct timespec ts[2] = { { 1000000000, 0 }, { 1100000000, 0 } };
		char buf[16];
		int r = 0, fd;

		become(u, o->fsgid ? o->fsgid : u->gid, o->umask);
		switch (o->k) {
		case OP_CHOWN:
			r = lchown(a, o->uid, o->gid);
			break;
		case OP_CHMOD:
			r = chmod(a, o->mode);
			break;
		case OP_TRUNCATE:
			r = truncate(a, o->size);
			break;
		case OP_CREATE:
		case OP_OPEN:
			fd = open(a, o->flags, o->mode);
			r = fd < 0 ? -1 : close(fd);
			break;
		case OP_MKDIR:
			r = mkdir(a, o->mode);
			break;
		case OP_WRITE:
			fd = open(a, O_WRONLY);
			r = fd < 0 ? -1 : (int)write(fd, "x", 1) - 1;
			if (fd >= 0)
				close(fd);
			break;
		case OP_READ:
			fd = open(a, O_RDONLY);
			r = fd < 0 ? -1 : (int)read(fd, buf, sizeof(buf)) < 0 ? -1 : 0;
			if (fd >= 0)
				close(fd);
			break;
		case OP_UNLINK:
			r = unlink(a);
			break;
		case OP_RMDIR:
			r = rmdir(a);
			break;
		case OP_RENAME:
			r = rename(a, b);
			break;
		case OP_LINK:
			r = link(a, b);
			break;
		case OP_SYMLINK:
			r = symlink(o->b, a);
			break;
		case OP_UTIMES:
			r = utimensat(AT_FDCWD, a, o->explicit_times ? ts : NULL, 0);
			break;
		case OP_MKNOD:
			r = mknod(a, o->mode, 0);
			break;
		case OP_STAT: {
			struct stat st;

			r = lstat(a, &st);
			break;
		}
		}
		_exit(r < 0 ? errno : 0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static struct v9p_fcall *msg(uint8_t type)
{
	static struct v9p_fcall t;

	memset(&t, 0, sizeof(t));
	t.type = type;
	return &t;
}

static uint32_t dotl_flags(int flags)
{
	uint32_t l = (uint32_t)(flags & O_ACCMODE);

	if (flags & O_CREAT)
		l |= V9P_DOTL_CREATE;
	if (flags & O_EXCL)
		l |= V9P_DOTL_EXCL;
	if (flags & O_TRUNC)
		l |= V9P_DOTL_TRUNC;
	if (flags & O_DIRECTORY)
		l |= V9P_DOTL_DIRECTORY;
	return l;
}

/*
 * A walk from u's root to rel (a path below the export), into a new fid,
 * one name at a time as the client looks names up: the errno is the one
 * of the name that failed.
 */
static int walk(const struct user *u, const char *rel, uint32_t *fid)
{
	char copy[PATH_MAX], *save = NULL, *tok;
	int err;

	*fid = next_fid++;
	err = tc_walk(cc, u->fid, *fid, "");
	snprintf(copy, sizeof(copy), "%s", rel);
	for (tok = strtok_r(copy, "/", &save); err == 0 && tok; tok = strtok_r(NULL, "/", &save))
		err = tc_walk(cc, *fid, *fid, tok);
	return err;
}

static void split(const char *rel, char *dir, size_t len, const char **base)
{
	const char *s = strrchr(rel, '/');

	snprintf(dir, len, "%.*s", (int)(s - rel), rel);
	*base = s + 1;
}

/*
 * The gid the Linux client sends for a new entry in host directory dir
 * (own: what a client that does not look at the directory sends).
 */
static uint32_t create_gid(const struct user *u, const char *hostdir, bool own, gid_t fsgid)
{
	struct stat st;

	if (fsgid)
		return fsgid;

	if (!own && stat(hostdir, &st) == 0 && (st.st_mode & S_ISGID))
		return st.st_gid;
	return u->gid;
}

static int setattr(uint32_t fid, uint32_t valid, const struct op *o)
{
	struct v9p_fcall *t = msg(V9P_TSETATTR);

	t->tsetattr.fid = fid;
	t->tsetattr.valid = valid;
	t->tsetattr.uid = o->uid;
	t->tsetattr.gid = o->gid;
	t->tsetattr.mode = o->mode;
	t->tsetattr.size = (uint64_t)o->size;
	t->tsetattr.atime_sec = 1000000000;
	t->tsetattr.mtime_sec = 1100000000;
	return tc_rpc(cc, t);
}

/*
 * Before a write or a truncation by a user without CAP_FSETID, Linux's
 * kernel clears the file's set-uid bit and its set-gid bit if group-exec
 * (file_remove_privs()); a 9P client does it with a mode change through
 * the server. The mode to send, or 0 for none.
 */
static mode_t killed_mode(const struct user *u, const char *rel)
{
	struct stat st;
	mode_t m;

	if (u->uid == 0 || lstat(tc_path(exp_root, rel), &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	m = st.st_mode & 07777;
	if (m & S_ISUID)
		m &= ~S_ISUID;
	if ((m & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP))
		m &= ~S_ISGID;
	return m == (st.st_mode & 07777) ? 0 : (st.st_mode & S_IFMT) | m;
}

/*
 * What Linux's VFS adds to a chown of a file that is not a directory
 * (notify_change() with ATTR_KILL_SUID, ATTR_KILL_SGID): a mode change
 * that clears set-uid, and set-gid if group-exec. A 9P2000.L client sends
 * it in the same Tsetattr as the new owner; for a user who neither owns the
 * file nor is root, its own setattr_prepare() refuses that mode change with
 * EPERM and nothing is sent. The mode to send, 0 for none, or -1 (EPERM).
 */
static int chown_killed_mode(const struct user *u, const char *rel, mode_t *mode)
{
	struct stat st;
	mode_t m;

	*mode = 0;
	if (lstat(tc_path(exp_root, rel), &st) < 0 || S_ISDIR(st.st_mode) ||
	    S_ISLNK(st.st_mode))
		return 0;
	m = st.st_mode & 07777 & ~(mode_t)S_ISUID;
	if ((m & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP))
		m &= ~S_ISGID;
	if (m == (st.st_mode & 07777))
		return 0;
	if (u->uid != 0 && u->uid != st.st_uid)
		return -1;
	*mode = (st.st_mode & S_IFMT) | m;
	return 0;
}

/* The same through v9fsd, as the Linux 9P2000.L client would ask it. */
static int run_remote(const struct user *u, const struct op *o, const char *rel)
{
	char a[PATH_MAX], b[PATH_MAX], adir[PATH_MAX], bdir[PATH_MAX];
	const char *abase, *bbase;
	uint32_t f = 0, d = 0, d2 = 0;
	struct v9p_fcall *t;
	char buf[16];
	int err;

	if (snprintf(a, sizeof(a), "%s/%s", rel, o->a) >= (int)sizeof(a) ||
	    snprintf(b, sizeof(b), "%s/%s", rel, o->b ? o->b : "") >= (int)sizeof(b))
		return -1;
	split(a, adir, sizeof(adir), &abase);
	split(b, bdir, sizeof(bdir), &bbase);

	switch (o->k) {
	case OP_CHOWN: {
		uint32_t v = V9P_SETATTR_CTIME;
		struct op k = *o;

		if (o->uid != (uid_t)-1)
			v |= V9P_SETATTR_UID;
		if (o->gid != (gid_t)-1)
			v |= V9P_SETATTR_GID;
		k.mode = 0;
		if (o->client_mode && chown_killed_mode(u, a, &k.mode) < 0) {
			err = -EPERM;
			break;
		}
		if (k.mode)
			v |= V9P_SETATTR_MODE;
		err = walk(u, a, &f);
		if (err == 0)
			err = setattr(f, v, &k);
		break;
	}
	case OP_CHMOD:
		err = walk(u, a, &f);
		if (err == 0)
			err = setattr(f, V9P_SETATTR_MODE | V9P_SETATTR_CTIME, o);
		break;
	case OP_TRUNCATE: {
		struct op k = *o;

		k.mode = killed_mode(u, a);
		err = walk(u, a, &f);
		if (err == 0)
			err = setattr(f, V9P_SETATTR_SIZE | V9P_SETATTR_MTIME | V9P_SETATTR_CTIME |
				      (k.mode ? V9P_SETATTR_MODE : 0), &k);
		break;
	}
	case OP_UTIMES:
		err = walk(u, a, &f);
		if (err == 0)
			err = setattr(f, V9P_SETATTR_ATIME | V9P_SETATTR_MTIME | V9P_SETATTR_CTIME |
				      (o->explicit_times ? V9P_SETATTR_ATIME_SET |
				       V9P_SETATTR_MTIME_SET : 0), o);
		break;
	case OP_CREATE:
		err = walk(u, adir, &d);
		if (err == 0) {
			t = msg(V9P_TLCREATE);
			t->tlcreate.fid = d;
			v9p_str_set(&t->tlcreate.name, abase);
			t->tlcreate.flags = dotl_flags(o->flags);
			t->tlcreate.mode = o->mode & ~o->umask;
			t->tlcreate.gid = create_gid(u, tc_path(exp_root, adir),
								   o->own_gid, o->fsgid);
			err = tc_rpc(cc, t);
		}
		break;
	case OP_MKDIR:
	case OP_MKNOD:
	case OP_SYMLINK:
		err = walk(u, adir, &d);
		if (err)
			break;
		if (o->k == OP_MKDIR) {
			t = msg(V9P_TMKDIR);
			t->tmkdir.dfid = d;
			v9p_str_set(&t->tmkdir.name, abase);
			t->tmkdir.mode = o->mode & ~o->umask;
			t->tmkdir.gid = create_gid(u, tc_path(exp_root, adir),
								   o->own_gid, o->fsgid);
		} else if (o->k == OP_MKNOD) {
			t = msg(V9P_TMKNOD);
			t->tmknod.dfid = d;
			v9p_str_set(&t->tmknod.name, abase);
			t->tmknod.mode = o->mode & ~o->umask;
			t->tmknod.gid = create_gid(u, tc_path(exp_root, adir),
								   o->own_gid, o->fsgid);
		} else {
			t = msg(V9P_TSYMLINK);
			t->tsymlink.fid = d;
			v9p_str_set(&t->tsymlink.name, abase);
			v9p_str_set(&t->tsymlink.symtgt, o->b);
			t->tsymlink.gid = create_gid(u, tc_path(exp_root, adir),
								   o->own_gid, o->fsgid);
		}
		err = tc_rpc(cc, t);
		break;
	case OP_OPEN:
		err = walk(u, a, &f);
		if (err == 0)
			err = tc_open(cc, f, dotl_flags(o->flags));
		break;
	case OP_WRITE: {
		struct op k = *o;

		k.mode = killed_mode(u, a);
		err = walk(u, a, &f);
		if (err == 0)
			err = tc_open(cc, f, V9P_DOTL_WRONLY);
		if (err == 0 && k.mode)
			err = setattr(f, V9P_SETATTR_MODE | V9P_SETATTR_CTIME, &k);
		if (err == 0)
			err = tc_write(cc, f, 0, "x", 1) == 1 ? 0 : -EIO;
		break;
	}
	case OP_READ:
		err = walk(u, a, &f);
		if (err == 0)
			err = tc_open(cc, f, V9P_DOTL_RDONLY);
		if (err == 0)
			err = tc_read(cc, f, 0, buf, sizeof(buf)) < 0 ? -EIO : 0;
		break;
	case OP_STAT:
		err = walk(u, a, &f);
		if (err == 0) {
			t = msg(V9P_TGETATTR);
			t->tgetattr.fid = f;
			t->tgetattr.request_mask = V9P_GETATTR_BASIC;
			err = tc_rpc(cc, t);
		}
		break;
	case OP_UNLINK:
	case OP_RMDIR:
		err = walk(u, adir, &d);
		if (err == 0) {
			t = msg(V9P_TUNLINKAT);
			t->tunlinkat.dirfid = d;
			v9p_str_set(&t->tunlinkat.name, abase);
			t->tunlinkat.flags = o->k == OP_RMDIR ? V9P_DOTL_AT_REMOVEDIR : 0;
			err = tc_rpc(cc, t);
		}
		break;
	case OP_RENAME:
		err = walk(u, adir, &d);
		if (err == 0)
			err = walk(u, bdir, &d2);
		if (err == 0) {
			t = msg(V9P_TRENAMEAT);
			t->trenameat.olddirfid = d;
			v9p_str_set(&t->trenameat.oldname, abase);
			t->trenameat.newdirfid = d2;
			v9p_str_set(&t->trenameat.newname, bbase);
			err = tc_rpc(cc, t);
		}
		break;
	case OP_LINK:
		err = walk(u, a, &f);
		if (err == 0)
			err = walk(u, bdir, &d);
		if (err == 0) {
			t = msg(V9P_TLINK);
			t->tlink.dfid = d;
			t->tlink.fid = f;
			v9p_str_set(&t->tlink.name, bbase);
			err = tc_rpc(cc, t);
		}
		break;
	default:
		err = -ENOSYS;
	}
	if (f)
		tc_clunk(cc, f);
	if (d)
		tc_clunk(cc, d);
	if (d2)
		tc_clunk(cc, d2);
	return -err;
}

/* A Twstat that changes nothing but what the caller fills in. */
static struct v9p_fcall *wstat(uint32_t fid)
{
	struct v9p_fcall *t = msg(V9P_TWSTAT);
	struct v9p_stat *s = &t->twstat.stat;

	t->twstat.fid = fid;
	memset(s, 0xff, sizeof(*s));
	v9p_str_set(&s->name, "");
	v9p_str_set(&s->uid, "");
	v9p_str_set(&s->gid, "");
	v9p_str_set(&s->muid, "");
	v9p_str_set(&s->extension, "");
	return t;
}

static uint32_t perm_u(mode_t mode)
{
	uint32_t p = mode & 0777;

	if (mode & S_ISUID)
		p |= V9P_DMSETUID;
	if (mode & S_ISGID)
		p |= V9P_DMSETGID;
	if (mode & S_ISVTX)
		p |= V9P_DMSETVTX;
	if (S_ISDIR(mode))
		p |= V9P_DMDIR;
	if (S_ISFIFO(mode))
		p |= V9P_DMNAMEDPIPE;
	return p;
}

static uint8_t omode_u(int flags)
{
	uint8_t m = (uint8_t)(flags & O_ACCMODE);

	if (flags & O_TRUNC)
		m |= V9P_OTRUNC;
	return m;
}

/*
 * What 9P2000.u can say of an operation: no "now" for a time (the client
 * sends its clock's seconds), a rename only within one directory, no gid
 * for a new file, and what the client checks itself (O_CREAT on an
 * existing name, the type of what unlink or rmdir removes) is not asked.
 */
static bool expressible_u(const struct op *o, const char *dir)
{
	struct stat st;
	const char *sa, *sb;

	if (o->dotl_only)
		return false;
	switch (o->k) {
	case OP_CREATE:
		return lstat(tc_path(dir, o->a), &st) < 0 && !o->own_gid && !o->fsgid;
	case OP_UNLINK:
		return lstat(tc_path(dir, o->a), &st) == 0 && !S_ISDIR(st.st_mode);
	case OP_RMDIR:
		return lstat(tc_path(dir, o->a), &st) == 0 && S_ISDIR(st.st_mode);
	case OP_RENAME:
		sa = strrchr(o->a, '/');
		sb = strrchr(o->b, '/');
		/* over an existing name the client removes it first */
		return sa - o->a == sb - o->b && !strncmp(o->a, o->b, (size_t)(sa - o->a)) &&
		       lstat(tc_path(dir, o->b), &st) < 0;
	case OP_MKDIR:
	case OP_MKNOD:
	case OP_SYMLINK:
		return !o->own_gid && !o->fsgid;
	case OP_OPEN:
		return !(o->flags & O_DIRECTORY);
	default:
		return true;
	}
}

/* The same through v9fsd, as the Linux 9P2000.u client asks it. */
static int run_remote_u(const struct user *u, const struct op *o, const char *rel)
{
	char a[PATH_MAX], b[PATH_MAX], adir[PATH_MAX], bdir[PATH_MAX], ext[32];
	const char *abase, *bbase;
	uint32_t f = 0, d = 0, now = (uint32_t)time(NULL);
	struct v9p_fcall *t;
	char buf[16];
	int err;

	if (snprintf(a, sizeof(a), "%s/%s", rel, o->a) >= (int)sizeof(a) ||
	    snprintf(b, sizeof(b), "%s/%s", rel, o->b ? o->b : "") >= (int)sizeof(b))
		return -1;
	split(a, adir, sizeof(adir), &abase);
	split(b, bdir, sizeof(bdir), &bbase);

	switch (o->k) {
	case OP_CHOWN:
	case OP_CHMOD:
	case OP_TRUNCATE:
	case OP_UTIMES:
	case OP_RENAME:
		err = walk(u, a, &f);
		if (err)
			break;
		t = wstat(f);
		if (o->k == OP_CHOWN) {
			t->twstat.stat.n_uid = o->uid;
			t->twstat.stat.n_gid = o->gid;
		} else if (o->k == OP_CHMOD) {
			struct stat st;

			lstat(tc_path(exp_root, a), &st);
			t->twstat.stat.mode = perm_u((st.st_mode & S_IFMT) | o->mode);
		} else if (o->k == OP_TRUNCATE) {
			mode_t k = killed_mode(u, a);

			t->twstat.stat.length = (uint64_t)o->size;
			t->twstat.stat.mtime = now;
			if (k)
				t->twstat.stat.mode = perm_u(k);
		} else if (o->k == OP_UTIMES) {
			t->twstat.stat.atime = o->explicit_times ? 1000000000 : now;
			t->twstat.stat.mtime = o->explicit_times ? 1100000000 : now;
		} else {
			v9p_str_set(&t->twstat.stat.name, bbase);
		}
		err = tc_rpc(cc, t);
		break;
	case OP_CREATE:
	case OP_MKDIR:
	case OP_MKNOD:
	case OP_SYMLINK:
	case OP_LINK:
		if (o->k == OP_LINK) {
			err = walk(u, a, &f);
			if (err)
				break;
			err = walk(u, bdir, &d);
			abase = bbase;
		} else {
			err = walk(u, adir, &d);
		}
		if (err)
			break;
		t = msg(V9P_TCREATE);
		t->tcreate.fid = d;
		v9p_str_set(&t->tcreate.name, abase);
		v9p_str_set(&t->tcreate.extension, "");
		t->tcreate.perm = perm_u((o->k == OP_MKDIR ? S_IFDIR : 0) | (o->mode & ~o->umask));
		t->tcreate.mode = o->k == OP_CREATE ? omode_u(o->flags) : V9P_OREAD;
		if (o->k == OP_SYMLINK) {
			t->tcreate.perm = V9P_DMSYMLINK | 0777;
			v9p_str_set(&t->tcreate.extension, o->b);
		} else if (o->k == OP_LINK) {
			t->tcreate.perm = V9P_DMLINK;
			snprintf(ext, sizeof(ext), "%u\n", f);
			v9p_str_set(&t->tcreate.extension, ext);
		}
		err = tc_rpc(cc, t);
		break;
	case OP_OPEN:
	case OP_WRITE:
	case OP_READ:
		err = walk(u, a, &f);
		if (err == 0)
			err = tc_open(cc, f, o->k == OP_OPEN ? omode_u(o->flags) :
				      o->k == OP_WRITE ? V9P_OWRITE : V9P_OREAD);
		if (err == 0 && o->k == OP_WRITE && killed_mode(u, a)) {
			t = wstat(f);
			t->twstat.stat.mode = perm_u(killed_mode(u, a));
			err = tc_rpc(cc, t);
		}
		if (err == 0 && o->k == OP_WRITE)
			err = tc_write(cc, f, 0, "x", 1) == 1 ? 0 : -EIO;
		if (err == 0 && o->k == OP_READ)
			err = tc_read(cc, f, 0, buf, sizeof(buf)) < 0 ? -EIO : 0;
		break;
	case OP_STAT:
		err = walk(u, a, &f);
		if (err == 0) {
			t = msg(V9P_TSTAT);
			t->tstat.fid = f;
			err = tc_rpc(cc, t);
		}
		break;
	case OP_UNLINK:
	case OP_RMDIR:
		err = walk(u, a, &f);
		if (err == 0) {
			t = msg(V9P_TREMOVE);
			t->tremove.fid = f;
			err = tc_rpc(cc, t);
			f = 0;	/* Tremove clunks it, even when it fails */
		}
		break;
	default:
		err = -ENOSYS;
	}
	if (f)
		tc_clunk(cc, f);
	if (d)
		tc_clunk(cc, d);
	return -err;
}

/* Run o as u in tree root (remote: through v9fsd) and describe the result. */
enum how { LOCAL, DOTL, DOTU };

static void run(const char *root, enum how remote, setup_fn setup, const struct user *u,
		const struct op *o, struct outcome *out)
{
	char dir[1024], rel[64], a[PATH_MAX], b[PATH_MAX], pa[PATH_MAX];
	struct stat ob, oa, db, da;
	bool had;

	snprintf(rel, sizeof(rel), "c%d", ncase);
	if (snprintf(dir, sizeof(dir), "%s/%s", root, rel) >= (int)sizeof(dir) ||
	    snprintf(a, sizeof(a), "%s/%s", dir, o->a) >= (int)sizeof(a) ||
	    snprintf(b, sizeof(b), "%s/%s", dir, o->b ? o->b : "") >= (int)sizeof(b) ||
	    snprintf(pa, sizeof(pa), "%s", a) >= (int)sizeof(pa)) {
		out->err = -1;
		return;
	}
	mk(root, rel, S_IFDIR | 0755, 0, 0);
	setup(dir);
	*strrchr(pa, '/') = '\0';
	had = lstat(a, &ob) == 0;
	stat(pa, &db);
	tick_sleep();	/* a moved time shows */
	memset(out, 0, sizeof(*out));
	if (remote == DOTU && !expressible_u(o, dir)) {
		out->err = -2;
		return;
	}
	cc = remote == DOTU ? &cu : &cl;
	out->err = remote == DOTU ? run_remote_u(u, o, rel) :
		   remote == DOTL ? run_remote(u, o, rel) : run_local(u, o, dir);
	/* the object afterwards: a renamed file under its new name */
	if (o->k == OP_RENAME && out->err == 0)
		out->exists = lstat(b, &oa) == 0;
	else
		out->exists = lstat(a, &oa) == 0;
	stat(pa, &da);
	if (out->exists) {
		out->mode = oa.st_mode;
		out->uid = oa.st_uid;
		out->gid = oa.st_gid;
		out->size = S_ISDIR(oa.st_mode) ? 0 : oa.st_size;
		if (had)
			out->times = moved(&ob, &oa, 0);
	}
	out->times |= moved(&db, &da, 3);
}

static const char *tbits(unsigned int t, char *buf)
{
	static const char n[] = "amcAMC";
	int k = 0;

	for (int i = 0; i < 6; i++)
		if (t & (1u << i))
			buf[k++] = n[i];
	buf[k] = '\0';
	return k ? buf : "-";
}

static bool same(const struct outcome *l, const struct outcome *r)
{
	return l->err == r->err && l->exists == r->exists && l->mode == r->mode &&
	       l->uid == r->uid && l->gid == r->gid && l->size == r->size && l->times == r->times;
}

static void report(const char *dialect, const struct outcome *l, const struct outcome *r)
{
	char t1[8], t2[8];

	tap_diag("local: %s mode %o %u:%u size %lld times %s; "
		 "%s: %s mode %o %u:%u size %lld times %s",
		 strerror(l->err), l->mode, l->uid, l->gid, (long long)l->size, tbits(l->times, t1),
		 dialect, strerror(r->err), r->mode, r->uid, r->gid, (long long)r->size,
		 tbits(r->times, t2));
}

/*
 * One case: the same result locally and through v9fsd, in .L and in .u
 * (unless 9P2000.u cannot say it), each on fresh trees.
 */
static void check(const char *what, setup_fn setup, const struct user *u, const struct op *o)
{
	static const struct {
		enum how how;
		const char *name;
	} dialects[] = { { DOTL, "9P2000.L" }, { DOTU, "9P2000.u" } };
	struct outcome l, r;

	for (size_t i = 0; i < sizeof(dialects) / sizeof(dialects[0]); i++) {
		ncase++;
		run(ref_root, LOCAL, setup, u, o, &l);
		run(exp_root, dialects[i].how, setup, u, o, &r);
		if (r.err == -2)
			continue;
		if (!tap_ok(same(&l, &r), "%s as %s: %s (%s)", what, u->name,
			    l.err ? strerror(l.err) : "ok", dialects[i].name))
			report(dialects[i].name, &l, &r);
	}
}

/* Trees. Upper case in a time list is the directory. */
static void t_file(const char *d)		/* f: owner:shared 0644, "data" */
{
	mk(d, "f", 0644, 2001, G_SHARED);
	fill(d, "f", "data");
}

static void t_suid(const char *d)		/* f: owner:shared 06755 */
{
	mk(d, "f", 06755, 2001, G_SHARED);
	fill(d, "f", "data");
}

static void t_gw(const char *d)			/* f: owner:shared 06775, group-writable */
{
	mk(d, "f", 06775, 2001, G_SHARED);
	fill(d, "f", "data");
}

static void t_ro(const char *d)			/* f: owner:owner 0444 */
{
	mk(d, "f", 0444, 2001, 2001);
	fill(d, "f", "data");
}

static void t_open(const char *d)		/* s: 0777 owned by root, d: owner's 0755 */
{
	mk(d, "s", S_IFDIR | 0777, 0, 0);
	mk(d, "d", S_IFDIR | 0755, 2001, 2001);
}

static void t_sgid(const char *d)		/* g: 02777 root:shared */
{
	mk(d, "g", S_IFDIR | 02777, 0, G_SHARED);
}

static void t_sticky(const char *d)		/* t: 01777; t/o owner's, t/m member's */
{
	mk(d, "t", S_IFDIR | 01777, 0, 0);
	mk(d, "t/o", 0666, 2001, 2001);
	mk(d, "t/m", 0666, 2002, 2002);
	mk(d, "t/od", S_IFDIR | 0777, 2001, 2001);
}

static void t_dirs(const char *d)		/* d: owner's 0755 with d/f and d/e/ */
{
	mk(d, "d", S_IFDIR | 0755, 2001, 2001);
	mk(d, "d/f", 0644, 2001, 2001);
	mk(d, "d/e", S_IFDIR | 0755, 2001, 2001);
	mk(d, "d/full", S_IFDIR | 0755, 2001, 2001);
	mk(d, "d/full/x", 0644, 2001, 2001);
}

static void t_link(const char *d)		/* d: 0777, d/f owner's, d/l -> f */
{
	mk(d, "d", S_IFDIR | 0777, 2001, 2001);
	mk(d, "d/f", 0644, 2001, 2001);
	if (symlink("f", tc_path(d, "d/l")) < 0)
		tap_diag("symlink failed");
}

static void t_group(const char *d)		/* f: owner:shared 0640; x: 0700 dir */
{
	mk(d, "f", 0640, 2001, G_SHARED);
	fill(d, "f", "data");
	mk(d, "x", S_IFDIR | 0700, 2001, 2001);
	mk(d, "x/f", 0644, 2001, 2001);
}

/* d/m: another filesystem (a tmpfs) mounted inside the tree */
static char mounts[64][PATH_MAX];
static int nmounts;

static void t_mount(const char *d)
{
	mk(d, "d", S_IFDIR | 0777, 2001, 2001);
	mk(d, "d/f", 0666, 2001, 2001);
	mk(d, "d/m", S_IFDIR | 0777, 0, 0);
	if (nmounts < 64 && mount("tmpfs", tc_path(d, "d/m"), "tmpfs", 0, "mode=0777") == 0)
		snprintf(mounts[nmounts++], PATH_MAX, "%s", tc_path(d, "d/m"));
	else
		tap_diag("tmpfs mount failed: %s", strerror(errno));
}

static mode_t perm_mode;	/* t_perm's mode */

static void t_perm(const char *d)		/* f: owner:shared perm_mode */
{
	mk(d, "f", perm_mode, 2001, G_SHARED);
	fill(d, "f", "data");
}

static void t_mv(const char *d)			/* a/sub: owner's 0555; a, b: 0777 */
{
	mk(d, "a", S_IFDIR | 0777, 0, 0);
	mk(d, "b", S_IFDIR | 0777, 0, 0);
	mk(d, "a/sub", S_IFDIR | 0555, 2001, 2001);
	mk(d, "a/f", 0444, 2001, 2001);
}

/* f: owner:shared, of type sid_type (any: a symlink to nowhere, a device 1,2), sid_mode */
static mode_t sid_type, sid_mode;

static void t_sid(const char *d)
{
	const char *p = tc_path(d, "f");

	if (sid_type == S_IFDIR)
		mkdir(p, 0);
	else if (sid_type == S_IFIFO)
		mkfifo(p, 0);
	else if (sid_type == S_IFLNK)
		symlink("nowhere", p);
	else if (sid_type == S_IFCHR || sid_type == S_IFBLK || sid_type == S_IFSOCK)
		mknod(p, sid_type, makedev(1, 2));
	else
		close(open(p, O_CREAT | O_WRONLY | O_TRUNC, 0));
	if (lchown(p, 2001, G_SHARED) < 0 ||
	    (sid_type != S_IFLNK && chmod(p, sid_mode) < 0))
		tap_diag("setup of %s failed: %s", p, strerror(errno));
}

#define OP(...) (&(struct op){ __VA_ARGS__ })
#define NOID ((uid_t)-1)

/*
 * One case of a table: what it does (the test's name), the tree it runs
 * in, the operation. Every case of a table runs as every user given, in
 * table order per user, unless skip names the user.
 */
struct pcase {
	const char *what;
	setup_fn setup;
	struct op op;
	const struct user *skip;
};

static struct user *const everyone[] = { &u_root, &u_owner, &u_member, &u_stranger };
static struct user *const creators[] = { &u_root, &u_owner, &u_stranger };

static void run_cases(const struct pcase *c, size_t n, struct user *const *users, size_t nusers)
{
	for (size_t i = 0; i < nusers; i++)
		for (size_t k = 0; k < n; k++)
			if (c[k].skip != users[i])
				check(c[k].what, c[k].setup, users[i], &c[k].op);
}

/* a case for every user; a case for every user but u */
#define CASE(what, setup, ...) { what, setup, { __VA_ARGS__ }, NULL }
#define CASE_NOT(u, what, setup, ...) { what, setup, { __VA_ARGS__ }, u }

#define RUN_CASES(tab, users) \
	run_cases(tab, sizeof(tab) / sizeof((tab)[0]), users, sizeof(users) / sizeof((users)[0]))

/* chown(2), chgrp */
static const struct pcase chown_tab[] = {
	CASE("chown to another uid", t_file, .k = OP_CHOWN, .a = "f", .uid = 2003, .gid = -1),
	CASE("chown to the same uid", t_file, .k = OP_CHOWN, .a = "f", .uid = 2001, .gid = -1),
	CASE("chgrp to a supplementary group", t_file,
	     .k = OP_CHOWN, .a = "f", .uid = NOID, .gid = G_OWNONLY),
	CASE("chgrp to the primary group", t_file,
	     .k = OP_CHOWN, .a = "f", .uid = NOID, .gid = 2001),
	CASE("chgrp to a foreign group", t_file,
	     .k = OP_CHOWN, .a = "f", .uid = NOID, .gid = G_NONE),
	CASE("chown -1:-1", t_file, .k = OP_CHOWN, .a = "f", .uid = NOID, .gid = NOID),
	CASE("chown uid and gid", t_file, .k = OP_CHOWN, .a = "f", .uid = 2001, .gid = G_OWNONLY),
	CASE("chgrp of a set-id file", t_suid,
	     .k = OP_CHOWN, .a = "f", .uid = NOID, .gid = G_OWNONLY),
	CASE("chown of a set-id file", t_suid, .k = OP_CHOWN, .a = "f", .uid = 2002, .gid = NOID),
	CASE("chgrp of a set-id directory", t_open,
	     .k = OP_CHOWN, .a = "d", .uid = NOID, .gid = G_OWNONLY),
};

/* chmod(2), what clears set-id bits, truncate(2), utimes(2), read(2) */
static const struct pcase mode_tab[] = {
	CASE("chmod 0600", t_file, .k = OP_CHMOD, .a = "f", .mode = 0600),
	CASE("chmod g+s on a file of a foreign group", t_file,
	     .k = OP_CHMOD, .a = "f", .mode = 02755),
	CASE("chmod +t on a file", t_file, .k = OP_CHMOD, .a = "f", .mode = 01644),
	CASE("write to a set-id file", t_gw, .k = OP_WRITE, .a = "f"),
	CASE("truncate a set-id file", t_gw, .k = OP_TRUNCATE, .a = "f", .size = 1),
	CASE("truncate a read-only file", t_ro, .k = OP_TRUNCATE, .a = "f", .size = 0),
	CASE("truncate a directory", t_open, .k = OP_TRUNCATE, .a = "d", .size = 0),
	CASE("utimes now", t_gw, .k = OP_UTIMES, .a = "f"),
	CASE("utimes to a time", t_gw, .k = OP_UTIMES, .a = "f", .explicit_times = true),
	CASE("read", t_file, .k = OP_READ, .a = "f"),
};

/*
 * creat(2), mkdir(2), mknod(2), symlink(2): modes under each umask, set-id
 * bits, set-gid directories, the gid a client sends. The stranger is in no
 * group of ours: a gid the server does not list for the user is not asked
 * (see v9fsd(8), LIMITS).
 */
static const struct pcase create_tab[] = {
	CASE("create 0777 under umask", t_open,
	     .k = OP_CREATE, .a = "s/n", .mode = 0777, .umask = 0, .flags = O_CREAT | O_WRONLY),
	CASE("mkdir 0777 under umask", t_open, .k = OP_MKDIR, .a = "s/n", .mode = 0777, .umask = 0),
	CASE("create 0777 under umask", t_open,
	     .k = OP_CREATE, .a = "s/n", .mode = 0777, .umask = 022, .flags = O_CREAT | O_WRONLY),
	CASE("mkdir 0777 under umask", t_open,
	     .k = OP_MKDIR, .a = "s/n", .mode = 0777, .umask = 022),
	CASE("create 0777 under umask", t_open,
	     .k = OP_CREATE, .a = "s/n", .mode = 0777, .umask = 077, .flags = O_CREAT | O_WRONLY),
	CASE("mkdir 0777 under umask", t_open,
	     .k = OP_MKDIR, .a = "s/n", .mode = 0777, .umask = 077),
	CASE("create with set-id bits", t_open,
	     .k = OP_CREATE, .a = "s/n", .mode = 06755, .flags = O_CREAT | O_WRONLY),
	CASE("mkdir with set-id and sticky bits", t_open, .k = OP_MKDIR, .a = "s/n", .mode = 07755),
	CASE("mkfifo", t_open, .k = OP_MKNOD, .a = "s/n", .mode = S_IFIFO | 0666, .umask = 022),
	CASE("create in a setgid directory", t_sgid,
	     .k = OP_CREATE, .a = "g/n", .mode = 02755, .flags = O_CREAT | O_WRONLY),
	CASE("mkdir in a setgid directory", t_sgid, .k = OP_MKDIR, .a = "g/n", .mode = 0755),
	CASE("create in a setgid directory, the client sending its own gid", t_sgid,
	     .k = OP_CREATE, .a = "g/n", .mode = 02755, .flags = O_CREAT | O_WRONLY,
	     .own_gid = true),
	CASE("mkdir in a setgid directory, the client sending its own gid", t_sgid,
	     .k = OP_MKDIR, .a = "g/n", .mode = 0755, .own_gid = true),
	CASE_NOT(&u_stranger, "create as a supplementary group", t_open,
	     .k = OP_CREATE, .a = "s/n", .mode = 06755, .flags = O_CREAT | O_WRONLY,
	     .fsgid = G_SHARED),
	CASE_NOT(&u_stranger, "mkdir as a supplementary group", t_open,
	     .k = OP_MKDIR, .a = "s/n", .mode = 02755, .fsgid = G_SHARED),
	CASE_NOT(&u_stranger, "mkfifo as a supplementary group", t_open,
	     .k = OP_MKNOD, .a = "s/n", .mode = S_IFIFO | 02644, .fsgid = G_SHARED),
	CASE("mkfifo with set-id and sticky bits", t_open,
	     .k = OP_MKNOD, .a = "s/n", .mode = S_IFIFO | 07644),
	CASE("mkfifo in a setgid directory", t_sgid,
	     .k = OP_MKNOD, .a = "g/n", .mode = S_IFIFO | 0644),
	CASE("symlink in a setgid directory", t_sgid, .k = OP_SYMLINK, .a = "g/n", .b = "target"),
	CASE("create in another user's directory", t_open,
	     .k = OP_CREATE, .a = "d/n", .mode = 0644, .flags = O_CREAT | O_WRONLY),
	CASE("create O_EXCL on an existing file", t_dirs,
	     .k = OP_CREATE, .a = "d/f", .mode = 0644, .flags = O_CREAT | O_EXCL | O_WRONLY),
	CASE("create O_EXCL on an existing directory", t_dirs,
	     .k = OP_CREATE, .a = "d/e", .mode = 0644, .flags = O_CREAT | O_EXCL | O_RDONLY),
	CASE("create on an existing directory", t_dirs,
	     .k = OP_CREATE, .a = "d/e", .mode = 0644, .flags = O_CREAT | O_RDONLY),
	CASE("create on an existing read-only file", t_ro,
	     .k = OP_CREATE, .a = "f", .mode = 0644, .flags = O_CREAT | O_WRONLY),
};

/* a 256-byte name in d, filled in by name_cases() */
static char longname[300];

/* unlink(2), rmdir(2), rename(2), link(2): sticky directories, types, names */
static const struct pcase name_tab[] = {
	CASE("unlink another user's file in a sticky directory", t_sticky,
	     .k = OP_UNLINK, .a = "t/o"),
	CASE("rename another user's file in a sticky directory", t_sticky,
	     .k = OP_RENAME, .a = "t/o", .b = "t/new"),
	CASE("rename over another user's file in a sticky directory", t_sticky,
	     .k = OP_RENAME, .a = "t/m", .b = "t/o"),
	CASE("rmdir another user's directory in a sticky directory", t_sticky,
	     .k = OP_RMDIR, .a = "t/od"),
	CASE("move a directory the user may not write to another directory", t_mv,
	     .k = OP_RENAME, .a = "a/sub", .b = "b/sub"),
	CASE("move a read-only file to another directory", t_mv,
	     .k = OP_RENAME, .a = "a/f", .b = "b/f"),
	CASE("rename a file within a directory", t_dirs, .k = OP_RENAME, .a = "d/f", .b = "d/g"),
	CASE("rename a directory over a non-empty one", t_dirs,
	     .k = OP_RENAME, .a = "d/e", .b = "d/full"),
	CASE("rename a file over a directory", t_dirs, .k = OP_RENAME, .a = "d/f", .b = "d/e"),
	CASE("rename a directory over a file", t_dirs, .k = OP_RENAME, .a = "d/e", .b = "d/f"),
	CASE("link", t_link, .k = OP_LINK, .a = "d/f", .b = "d/h"),
	CASE("link onto an existing name", t_link, .k = OP_LINK, .a = "d/f", .b = "d/l"),
	CASE("unlink a directory", t_dirs, .k = OP_UNLINK, .a = "d/e"),
	CASE("rmdir a file", t_dirs, .k = OP_RMDIR, .a = "d/f"),
	CASE("rmdir a non-empty directory", t_dirs, .k = OP_RMDIR, .a = "d/full"),
	CASE("unlink a symlink", t_link, .k = OP_UNLINK, .a = "d/l"),
	CASE("create a 256-byte name", t_dirs,
	     .k = OP_CREATE, .a = longname, .mode = 0644, .flags = O_CREAT | O_WRONLY),
	CASE("mkdir a 256-byte name", t_dirs, .k = OP_MKDIR, .a = longname, .mode = 0755),
};

/* path resolution: search permission, files on the way, other filesystems */
static const struct pcase path_tab[] = {
	CASE("read a group-readable file", t_group, .k = OP_READ, .a = "f"),
	CASE("stat through a file", t_dirs, .k = OP_STAT, .a = "d/f/x"),
	CASE("create beneath a file", t_dirs,
	     .k = OP_CREATE, .a = "d/f/x", .mode = 0644, .flags = O_CREAT | O_WRONLY),
	CASE("stat in a directory without search permission", t_group, .k = OP_STAT, .a = "x/f"),
	CASE("stat a missing name", t_group, .k = OP_STAT, .a = "nothere"),
	CASE("rename onto another filesystem", t_mount, .k = OP_RENAME, .a = "d/f", .b = "d/m/f"),
	CASE("link onto another filesystem", t_mount, .k = OP_LINK, .a = "d/f", .b = "d/m/f"),
	CASE("create on another filesystem", t_mount,
	     .k = OP_CREATE, .a = "d/m/n", .mode = 0666, .umask = 022, .flags = O_CREAT | O_WRONLY),
};

/* open(2) flags against types and modes */
static const struct pcase open_tab[] = {
	CASE("open O_RDONLY|O_TRUNC without write permission", t_ro,
	     .k = OP_OPEN, .a = "f", .flags = O_RDONLY | O_TRUNC),
	CASE("open O_WRONLY|O_TRUNC", t_gw, .k = OP_OPEN, .a = "f", .flags = O_WRONLY | O_TRUNC),
	CASE("open O_RDWR on a directory", t_dirs, .k = OP_OPEN, .a = "d/e", .flags = O_RDWR),
	CASE("open O_WRONLY on a directory", t_dirs, .k = OP_OPEN, .a = "d/e", .flags = O_WRONLY),
	CASE("open O_DIRECTORY on a file", t_dirs,
	     .k = OP_OPEN, .a = "d/f", .flags = O_RDONLY | O_DIRECTORY),
	CASE("open O_RDWR", t_file, .k = OP_OPEN, .a = "f", .flags = O_RDWR),
};

static void name_cases(void)
{
	memset(longname, 'n', 256);
	memcpy(longname, "d/", 2);
	RUN_CASES(name_tab, everyone);
}

/* open(2) against each permission bit, as each user */
static void perm_cases(void)
{
	static const mode_t modes[] = { 0600, 0400, 0200, 0060, 0040, 0020, 0006, 0004, 0002 };
	static const int flags[] = { O_RDONLY, O_WRONLY, O_RDWR, O_WRONLY | O_TRUNC };
	struct user *all[] = { &u_owner, &u_member, &u_stranger };
	char what[64];

	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		for (int i = 0; i < 3; i++) {
			for (int k = 0; k < 4; k++) {
				perm_mode = modes[m];
				snprintf(what, sizeof(what), "open %s%s of a %04o file",
					 (flags[k] & O_ACCMODE) == O_RDONLY ? "O_RDONLY" :
					 (flags[k] & O_ACCMODE) == O_WRONLY ? "O_WRONLY" : "O_RDWR",
					 flags[k] & O_TRUNC ? "|O_TRUNC" : "", modes[m]);
				check(what, t_perm, all[i],
				      OP(.k = OP_OPEN, .a = "f", .flags = flags[k]));
			}
		}
	}
}

/*
 * chown(2) and lchown(2) of each file type with and without set-id bits, by
 * root, by the owner and by a stranger: the errno, which set-id bits
 * survive, which times move (ctime after a chown that changes nothing or
 * one id only, or that fails), in 9P2000.L. Each Tsetattr twice: with the
 * owner alone, and with the mode the client's kernel adds to it.
 */
static void setid_chown_cases(void)
{
	static const struct {
		mode_t type;
		const char *name;
	} types[] = {
		{ S_IFREG, "file" }, { S_IFDIR, "directory" }, { S_IFIFO, "FIFO" },
		{ S_IFCHR, "character device" }, { S_IFBLK, "block device" },
		{ S_IFSOCK, "socket" }, { S_IFLNK, "symlink" },
	};
	static const mode_t modes[] = { 06555, 06444, 02750, 0755 };
	static const struct {
		const char *what;
		uid_t uid;
		gid_t gid;
		bool root_only;
	} ops[] = {
		{ "chown to new ids", 2002, G_NONE, true },
		{ "chown to the owner and a group of its own", 2001, G_OWNONLY, false },
		{ "chgrp to a group of the owner's", NOID, G_OWNONLY, false },
		{ "chown to the same ids", 2001, G_SHARED, false },
		{ "chown to the same uid", 2001, NOID, false },
		{ "chown -1:-1", NOID, NOID, false },
	};
	struct user *users[] = { &u_root, &u_owner, &u_stranger };
	char what[160];

	for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
		for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
			if (types[t].type == S_IFLNK && m > 0)
				break;	/* a symlink has no mode of its own */
			for (size_t i = 0; i < sizeof(users) / sizeof(users[0]); i++) {
				for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
					if (ops[k].root_only && users[i] != &u_root)
						continue;
					for (int c = 0; c < 2; c++) {
						sid_type = types[t].type;
						sid_mode = modes[m];
						snprintf(what, sizeof(what), "%s of a %04o %s%s",
							 ops[k].what, modes[m], types[t].name,
							 c ? ", with the client's mode" : "");
						check(what, t_sid, users[i],
						      OP(.k = OP_CHOWN, .a = "f", .uid = ops[k].uid,
							 .gid = ops[k].gid, .client_mode = c,
							 .dotl_only = true));
					}
				}
			}
		}
	}
}

/* Tsetattr of the mode of rel (in the export) as u over 9P2000.L. */
static int setattr_mode(const struct user *u, const char *rel, mode_t mode)
{
	struct v9p_fcall *t;
	uint32_t f;
	int err;

	err = walk(u, rel, &f);
	if (err == 0) {
		t = msg(V9P_TSETATTR);
		t->tsetattr.fid = f;
		t->tsetattr.valid = V9P_SETATTR_MODE;
		t->tsetattr.mode = mode;
		err = tc_rpc(cc, t);
		tc_clunk(cc, f);
	}
	return err;
}

/*
 * Dropping set-id bits needs only write permission (the client asks for it
 * before a write); nothing else may ride on that: adding a bit, dropping
 * another, a user who may not write, a directory.
 */
static void drop_setid_cases(void)
{
	static const struct {
		const char *what;
		const char *name;
		mode_t mode;		/* before: owner's, group pshared */
		const struct user *u;
		mode_t ask;
		int err;
	} c[] = {
		{ "drops set-uid and set-gid as a writer", "f", 06775, &u_member, 0775, 0 },
		{ "drops set-uid only as a writer", "f", 06775, &u_member, 02775, 0 },
		{ "adds o+w while dropping set-uid", "f", 06775, &u_member, 0777, EPERM },
		{ "drops g+w, not a set-id bit", "f", 06775, &u_member, 06755, EPERM },
		{ "adds the sticky bit", "f", 06775, &u_member, 07775, EPERM },
		{ "drops set-uid as a non-writer", "f", 06775, &u_stranger, 0775, EACCES },
		{ "drops set-uid of a read-only file", "f", 06755, &u_member, 0755, EACCES },
		{ "drops set-gid of a directory", "d", S_IFDIR | 02775, &u_member, 0775, EPERM },
	};
	struct stat st;
	char rel[64];
	uint32_t f;
	int err;

	cc = &cl;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		snprintf(rel, sizeof(rel), "s%zu", i);
		mk(exp_root, rel, S_IFDIR | 0755, 0, 0);
		snprintf(rel, sizeof(rel), "s%zu/%s", i, c[i].name);
		mk(exp_root, rel, c[i].mode, 2001, G_SHARED);
		err = setattr_mode(c[i].u, rel, c[i].ask);
		lstat(tc_path(exp_root, rel), &st);
		tap_ok(err == -c[i].err && (st.st_mode & 07777) == (c[i].err ? c[i].mode & 07777 :
								    c[i].ask),
		       "Tsetattr %s (%04o -> %04o) as %s: %s (%d, now %04o)", c[i].what,
		       c[i].mode & 07777, c[i].ask, c[i].u->name,
		       c[i].err ? strerror(c[i].err) : "ok", err, st.st_mode & 07777);
	}
	/* the thread that acted as root for the drop is the member again */
	mk(exp_root, "s0/root-only", 0600, 0, 0);
	mk(exp_root, "s0/g", 06775, 2001, G_SHARED);
	setattr_mode(&u_member, "s0/g", 0775);
	err = walk(&u_member, "s0/root-only", &f);
	if (err == 0) {
		err = tc_open(cc, f, V9P_DOTL_RDONLY);
		tc_clunk(cc, f);
	}
	tap_ok(err == -EACCES, "after a drop of set-id bits the member still cannot read a "
	       "root-only file (%d)", err);
}

static int write_file(const char *p, const char *text)
{
	FILE *fp = fopen(p, "w");

	if (!fp)
		return -1;
	fputs(text, fp);
	return fclose(fp);
}

/* Our users and groups, seen by v9fsd (and by nobody outside this test). */
static int private_users(const char *dir)
{
	char pw[PATH_MAX], gr[PATH_MAX];

	snprintf(pw, sizeof(pw), "%s/passwd", dir);
	snprintf(gr, sizeof(gr), "%s/group", dir);
	if (write_file(pw, "root:x:0:0:root:/root:/bin/sh\n"
		       "powner:x:2001:2001::/:/bin/sh\n"
		       "pmember:x:2002:2002::/:/bin/sh\n"
		       "pstranger:x:2003:2003::/:/bin/sh\n") < 0 ||
	    write_file(gr, "root:x:0:\n"
		       "powner:x:2001:\n"
		       "pmember:x:2002:\n"
		       "pstranger:x:2003:\n"
		       "pshared:x:2100:powner,pmember\n"
		       "pownonly:x:2101:powner\n"
		       "pnone:x:2102:\n") < 0)
		return -1;
	if (unshare(CLONE_NEWNS) < 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount(pw, "/etc/passwd", NULL, MS_BIND, NULL) < 0 ||
	    mount(gr, "/etc/group", NULL, MS_BIND, NULL) < 0)
		return -1;
	return 0;
}

int main(void)
{
	struct user *all[] = { &u_root, &u_owner, &u_member, &u_stranger };
	const char *extra[] = { "-S", NULL, NULL };
	char *dir = tc_tmpdir(), *stats;
	struct stat st;
	int err;

	if (geteuid() != 0 || !dir) {
		tap_ok(1, "# SKIP needs root");
		return tap_done();
	}
	chmod(dir, 0755);
	if (private_users(dir) < 0) {
		tap_ok(1, "# SKIP no private mount namespace: %s", strerror(errno));
		tc_rmtree(dir);
		return tap_done();
	}
	ref_root = strdup(tc_path(dir, "ref"));
	exp_root = strdup(tc_path(dir, "exp"));
	mkdir(ref_root, 0755);
	mkdir(exp_root, 0755);
	stats = strdup(tc_path(dir, "stats"));
	extra[1] = stats;
	umask(022);
	if (tc_setup(&cl, exp_root, "9P2000.L", extra) < 0 ||
	    tc_setup(&cu, exp_root, "9P2000.u", NULL) < 0) {
		tap_ok(0, "v9fsd starts and attaches");
		return tap_done();
	}
	for (int i = 0; i < 4; i++) {
		err = tc_attach(&cl, all[i]->fid, all[i]->name, all[i]->uid);
		tap_ok(err == 0, "attach as %s (uid %u) over 9P2000.L (%d)", all[i]->name,
		       all[i]->uid, err);
		err = tc_attach(&cu, all[i]->fid, all[i]->name, all[i]->uid);
		tap_ok(err == 0, "attach as %s (uid %u) over 9P2000.u (%d)", all[i]->name,
		       all[i]->uid, err);
	}

	RUN_CASES(chown_tab, everyone);
	RUN_CASES(mode_tab, everyone);
	RUN_CASES(create_tab, creators);
	name_cases();
	RUN_CASES(open_tab, everyone);
	RUN_CASES(path_tab, everyone);
	perm_cases();
	drop_setid_cases();
	setid_chown_cases();

	/* the server's own files keep the umask it was started with */
	kill(cl.pid, SIGUSR1);
	for (int i = 0; i < 200 && stat(stats, &st) != 0; i++)
		usleep(10000);
	tap_ok(stat(stats, &st) == 0 && (st.st_mode & 0777) == 0644,
	       "the counters file v9fsd writes after serving creations has mode 0644 under "
	       "umask 022 (%04o)", st.st_mode & 0777);
	tc_stop(&cl);
	tc_stop(&cu);
	for (int i = 0; i < nmounts; i++)
		umount2(mounts[i], MNT_DETACH);
	tc_rmtree(dir);
	return tap_done();
}
