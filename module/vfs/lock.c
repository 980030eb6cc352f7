// SPDX-License-Identifier: GPL-2.0-only
/*
 * 9P2000.L byte-range and whole-file locks: fcntl(2) and flock(2) through
 * Tlock and Tgetlock on the open file's fid, so that clients of the same
 * server see each other's locks.
 *
 * Every lock is also recorded locally first: the VFS releases what is
 * recorded when a file is closed or its owner exits, and calls back here
 * with F_UNLCK, which tells the server. The server keeps locks per open
 * fid: two owners of POSIX locks sharing one open file share them there.
 * A lock the server refuses is taken off the local record again (for a
 * POSIX lock that changed a range this task held already, the range is
 * then unlocked rather than restored).
 *
 * A blocking request is not left waiting on the server: Tlock goes without
 * the block flag and is retried every NINEP_LOCK_RETRY while the server
 * answers BLOCKED, so any signal, not only a fatal one, ends the wait.
 */
#define pr_fmt(fmt) "9p2000: " fmt

#include <linux/fs.h>
#include <linux/fcntl.h>
#include <linux/sched/signal.h>
#include <linux/utsname.h>

#include "v9fs.h"
#include "lock.h"

#define NINEP_LOCK_RETRY	(HZ / 10)

/*
 * The client id of every lock: the machine's name. Not utsname(): locks
 * are also released from exit, after the task left its namespaces.
 */
static const char *ninep_lock_client_id(void)
{
	return init_utsname()->nodename;
}

static u8 ninep_lock_wire_type(unsigned char type)
{
	switch (type) {
	case F_RDLCK:
		return V9P_LOCK_TYPE_RDLCK;
	case F_WRLCK:
		return V9P_LOCK_TYPE_WRLCK;
	default:
		return V9P_LOCK_TYPE_UNLCK;
	}
}

/* The range of @fl as 9P has it: a length of 0 runs to the end of the file. */
static void ninep_lock_range(struct file_lock *fl, u64 *start, u64 *length)
{
	*start = fl->fl_start;
	*length = fl->fl_end == OFFSET_MAX ? 0 : fl->fl_end - fl->fl_start + 1;
}

/*
 * Whether @owner holds a POSIX lock on @inode here. Every close(2) of a
 * file with POSIX locks unlocks for the closing process, holder or not
 * (a child that inherited the descriptor, say); the server keeps locks per
 * open fid, which all those processes share, so only an owner that holds
 * something may tell it to unlock.
 */
static bool ninep_lock_owner_holds(struct inode *inode, fl_owner_t owner)
{
	/* Pairs with the release that publishes a new context (fs/locks.c). */
	struct file_lock_context *ctx = smp_load_acquire(&inode->i_flctx);
	struct file_lock *fl;
	bool held = false;

	if (!ctx)
		return false;
	spin_lock(&ctx->flc_lock);
	list_for_each_entry(fl, &ctx->flc_posix, NINEP_FL_LIST) {
		if (ninep_fl_owner(fl) == owner) {
			held = true;
			break;
		}
	}
	spin_unlock(&ctx->flc_lock);
	return held;
}

static int ninep_lock_set(struct file *filp, struct file_lock *fl, bool wait)
{
	struct ninep_fid *fid = ninep_file_fid(filp);
	unsigned char type = ninep_fl_type(fl);
	struct v9p_tlock tl = {};
	u8 status = V9P_LOCK_ERROR;
	int err;

	if (type == F_UNLCK && (ninep_fl_flags(fl) & FL_POSIX) &&
	    !ninep_lock_owner_holds(file_inode(filp), ninep_fl_owner(fl)))
		return locks_lock_file_wait(filp, fl);
	err = locks_lock_file_wait(filp, fl);
	if (err)
		return err;

	tl.type = ninep_lock_wire_type(type);
	ninep_lock_range(fl, &tl.start, &tl.length);
	tl.proc_id = ninep_fl_pid(fl);
	err = v9p_str_set(&tl.client_id, ninep_lock_client_id());
	while (!err) {
		err = ninep_lock(fid, &tl, &status);
		if (err || status != V9P_LOCK_BLOCKED || !wait)
			break;
		if (schedule_timeout_interruptible(NINEP_LOCK_RETRY) ||
		    signal_pending(current))
			err = -ERESTARTSYS;
	}
	if (!err) {
		switch (status) {
		case V9P_LOCK_SUCCESS:
			break;
		case V9P_LOCK_BLOCKED:
			err = -EAGAIN;
			break;
		default:	/* ERROR, GRACE, or what no server should send */
			err = -ENOLCK;
			break;
		}
	}
	if (err && type != F_UNLCK) {
		ninep_fl_type(fl) = F_UNLCK;
		locks_lock_file_wait(filp, fl);
		ninep_fl_type(fl) = type;
	}
	return err;
}

/* F_GETLK: a conflicting lock held here, else one the server knows of. */
static int ninep_lock_get(struct file *filp, struct file_lock *fl)
{
	struct ninep_fid *fid = ninep_file_fid(filp);
	unsigned char type = ninep_fl_type(fl);
	struct v9p_tgetlock gl = {};
	bool known = true;
	int err;

	posix_test_lock(filp, fl);
	if (ninep_fl_type(fl) != F_UNLCK)
		return 0;
	ninep_fl_type(fl) = type;

	gl.type = ninep_lock_wire_type(type);
	ninep_lock_range(fl, &gl.start, &gl.length);
	gl.proc_id = ninep_fl_pid(fl);
	err = v9p_str_set(&gl.client_id, ninep_lock_client_id());
	if (!err)
		err = ninep_getlock(fid, &gl);
	if (err)
		return err;

	switch (gl.type) {
	case V9P_LOCK_TYPE_UNLCK:
		ninep_fl_type(fl) = F_UNLCK;
		return 0;
	case V9P_LOCK_TYPE_RDLCK:
		type = F_RDLCK;
		break;
	case V9P_LOCK_TYPE_WRLCK:
		type = F_WRLCK;
		break;
	default:
		known = false;
		break;
	}
	if (!known || gl.start > OFFSET_MAX ||
	    gl.length > (u64)OFFSET_MAX - gl.start) {
		pr_warn_ratelimited("Rgetlock with type %u, range %llu+%llu: EIO\n",
				    gl.type, gl.start, gl.length);
		return -EIO;
	}
	ninep_fl_type(fl) = type;
	fl->fl_start = gl.start;
	fl->fl_end = gl.length ? gl.start + gl.length - 1 : OFFSET_MAX;
	/* Held by a process of another machine: no pid of ours to show. */
	ninep_fl_pid(fl) = 0;
	return 0;
}

int ninep_file_lock(struct file *filp, int cmd, struct file_lock *fl)
{
	if (IS_GETLK(cmd))
		return ninep_lock_get(filp, fl);
	return ninep_lock_set(filp, fl, IS_SETLKW(cmd));
}

int ninep_file_flock(struct file *filp, int cmd, struct file_lock *fl)
{
	if (!(ninep_fl_flags(fl) & FL_FLOCK))
		return -ENOLCK;
	return ninep_lock_set(filp, fl, IS_SETLKW(cmd));
}
