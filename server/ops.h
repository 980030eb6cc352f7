/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ops.h - the handlers and what they share. dispatch.c looks up and checks
 * the fids a message names, checks its names, and calls the handler with
 * them in a struct srv_call; the handler does its operation, fills
 * req->out and returns 0 (the dispatcher packs and sends the reply), or
 * returns a negative errno (the dispatcher answers with it). A handler
 * never replies and never puts a fid the call holds.
 */
#ifndef SRV_OPS_H
#define SRV_OPS_H

#include <limits.h>
#include <time.h>

#include "srv.h"

struct srv_call {
	struct srv_req *req;
	struct srv_conn *conn;
	/* the fids the message names, in the order of its table entry */
	struct srv_fid *fid[2];
	/* a fid the handler made: entered in the table before the reply */
	struct srv_fid *newfid;
	/* the names the message carries, checked, in the order of its entry */
	char name[2][NAME_MAX + 1];
	/* room for the strings the reply points to, until it is packed */
	char strs[PATH_MAX + 512];
};

/* A record of getdents64(2), which the C library does not declare. */
struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* ops.c */
int srv_op_auth(struct srv_call *call);
int srv_op_attach(struct srv_call *call);
int srv_op_walk(struct srv_call *call);
int srv_op_read(struct srv_call *call);
int srv_op_write(struct srv_call *call);
int srv_op_clunk(struct srv_call *call);
int srv_op_remove(struct srv_call *call);

/* ops_9p.c */
int srv_op_open(struct srv_call *call);
int srv_op_create(struct srv_call *call);
int srv_op_stat(struct srv_call *call);
int srv_op_wstat(struct srv_call *call);
int srv_read_dir_stats(struct srv_conn *c, struct srv_fid *f, uint64_t off,
		       uint32_t count, uint8_t *buf, uint32_t *got);

/* ops_l.c */
int srv_op_statfs(struct srv_call *call);
int srv_op_lopen(struct srv_call *call);
int srv_op_lcreate(struct srv_call *call);
int srv_check_symlink(const struct v9p_fcall *in);
int srv_op_symlink(struct srv_call *call);
int srv_check_mknod(const struct v9p_fcall *in);
int srv_op_mknod(struct srv_call *call);
int srv_op_mkdir(struct srv_call *call);
int srv_op_rename(struct srv_call *call);
int srv_op_renameat(struct srv_call *call);
int srv_op_unlinkat(struct srv_call *call);
int srv_op_link(struct srv_call *call);
int srv_op_readlink(struct srv_call *call);
int srv_op_getattr(struct srv_call *call);
int srv_op_setattr(struct srv_call *call);
int srv_op_fsync(struct srv_call *call);
int srv_op_lock(struct srv_call *call);
int srv_op_getlock(struct srv_call *call);
int srv_op_readdir(struct srv_call *call);

/* xattr.c */
int srv_op_xattrwalk(struct srv_call *call);
int srv_check_xattrcreate(const struct v9p_fcall *in);
int srv_op_xattrcreate(struct srv_call *call);
int srv_xattr_read(struct srv_fid *f, uint64_t off, uint32_t count, uint8_t *buf);
int srv_xattr_write(struct srv_fid *f, uint64_t off, uint32_t count, const uint8_t *data);

/* open.c */
uint32_t srv_iounit(struct srv_conn *c);
int srv_fid_open(struct srv_fid *f, int flags, bool rclose, struct v9p_qid *qid);
int srv_create_in(struct srv_conn *c, struct srv_fid *df, const char *name, int flags,
		  mode_t mode, gid_t gid, bool rclose, struct v9p_qid *qid);
int srv_open_fid(struct srv_conn *c, struct srv_fid *f, const char *name, int flags,
		 mode_t mode, gid_t gid, bool rclose, struct v9p_qid *qid,
		 uint32_t *iounit);
int srv_rename_names(int odfd, const char *opath, const char *oname,
		     int ndfd, const char *npath, const char *nname);
int srv_become_child(struct srv_conn *c, struct srv_fid *df, const char *name,
		     struct v9p_qid *qid);
int srv_link_fid(struct srv_fid *target, int dfd, const char *name);
int srv_do_remove(struct srv_fid *f);
int srv_become_creator(const struct srv_user *u, gid_t gid);

/* setattr.c */
int srv_set_mode(struct srv_fid *f, mode_t mode);
int srv_set_size(struct srv_fid *f, uint64_t size);
int srv_set_times(struct srv_fid *f, const struct timespec ts[2]);
int srv_set_owner(struct srv_fid *f, uid_t uid, gid_t gid);
int srv_drop_setid(struct srv_fid *f, mode_t mode);

#endif /* SRV_OPS_H */
