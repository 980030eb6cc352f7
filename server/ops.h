/* SPDX-License-Identifier: GPL-2.0 */
/* ops.h - helpers shared by the handlers in ops*.c. */
#ifndef SRV_OPS_H
#define SRV_OPS_H

#include <time.h>

#include "srv.h"

int srv_get_fid(struct srv_req *req, uint32_t fid, struct srv_fid **fp);
int srv_fid_set(struct srv_fid *f, int pfd, char *path, struct srv_user *u,
		struct v9p_qid *qid);
void srv_fid_init(struct srv_fid *f, int pfd, char *path, struct srv_user *u,
		  const struct stat *st);
int srv_fid_open(struct srv_fid *f, int flags, bool rclose, struct v9p_qid *qid);
int srv_create_in(struct srv_conn *c, struct srv_fid *df, const char *name, int flags,
		  mode_t mode, gid_t gid, bool rclose, struct v9p_qid *qid);
int srv_open_reply(struct srv_req *req, struct srv_fid *f, const char *name, int flags,
		   mode_t mode, gid_t gid, bool rclose, struct v9p_qid *qid,
		   uint32_t *iounit, uint8_t rtype);
int srv_rename_names(int odfd, const char *opath, const char *oname,
		     int ndfd, const char *npath, const char *nname);
int srv_become_child(struct srv_conn *c, struct srv_fid *df, const char *name,
		     struct v9p_qid *qid);
int srv_link_fid(struct srv_fid *target, int dfd, const char *name);

/* setattr.c */
int srv_set_mode(struct srv_fid *f, mode_t mode);
int srv_set_size(struct srv_fid *f, uint64_t size);
int srv_set_times(struct srv_fid *f, const struct timespec ts[2]);
int srv_set_owner(struct srv_fid *f, uid_t uid, gid_t gid);

#endif /* SRV_OPS_H */
