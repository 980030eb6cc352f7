// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mount options, superblock and session of the 9P file system type: the
 * seed's options (v9fs-2.0-rc6) with its defaults, the names that became
 * standard later, the fs_context mount API, show_options, statfs and
 * umount -f.
 */
#define pr_fmt(fmt) "9p2000: " fmt

#include <linux/module.h>
#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/fs_parser.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/cred.h>
#include <linux/backing-dev.h>

#include "v9fs.h"

enum v9fs_param {
	V9FS_OPT_TRANS, V9FS_OPT_TCP, V9FS_OPT_UNIX, V9FS_OPT_NAME,
	V9FS_OPT_ANAME, V9FS_OPT_PORT, V9FS_OPT_MSIZE, V9FS_OPT_UID,
	V9FS_OPT_GID, V9FS_OPT_AFID, V9FS_OPT_DEBUG, V9FS_OPT_NOEXTEND,
	V9FS_OPT_NODEVMAP, V9FS_OPT_RFDNO, V9FS_OPT_WFDNO, V9FS_OPT_VERSION,
	V9FS_OPT_TIMEOUT,
};

/* Sorted by name, as the fs_parser table validator likes them. */
static const struct constant_table v9fs_trans_names[] = {
	{ "fd",		V9FS_TRANS_FD },
	{ "tcp",	V9FS_TRANS_TCP },
	{ "unix",	V9FS_TRANS_UNIX },
	{}
};

static const struct constant_table v9fs_version_names[] = {
	{ "9P2000",	V9P_9P2000 },
	{ "9P2000.u",	V9P_9P2000U },
	{ "9p2000",	V9P_9P2000 },
	{ "9p2000.u",	V9P_9P2000U },
	{}
};

static const struct fs_parameter_spec v9fs_param_specs[] = {
	fsparam_enum("proto",		V9FS_OPT_TRANS, v9fs_trans_names),
	fsparam_enum("trans",		V9FS_OPT_TRANS, v9fs_trans_names),
	fsparam_flag("tcp",		V9FS_OPT_TCP),
	fsparam_flag("unix",		V9FS_OPT_UNIX),
	fsparam_string("name",		V9FS_OPT_NAME),
	fsparam_string("uname",		V9FS_OPT_NAME),
	__fsparam(fs_param_is_string, "aname", V9FS_OPT_ANAME,
		  fs_param_can_be_empty, NULL),
	fsparam_u32("port",		V9FS_OPT_PORT),
	fsparam_u32("msize",		V9FS_OPT_MSIZE),
	fsparam_u32("maxdata",		V9FS_OPT_MSIZE),
	fsparam_u32("uid",		V9FS_OPT_UID),
	fsparam_u32("gid",		V9FS_OPT_GID),
	fsparam_u32("afid",		V9FS_OPT_AFID),
	fsparam_u32("debug",		V9FS_OPT_DEBUG),
	fsparam_flag("noextend",	V9FS_OPT_NOEXTEND),
	fsparam_flag("nodevmap",	V9FS_OPT_NODEVMAP),
	fsparam_u32("rfdno",		V9FS_OPT_RFDNO),
	fsparam_u32("wfdno",		V9FS_OPT_WFDNO),
	fsparam_enum("version",		V9FS_OPT_VERSION, v9fs_version_names),
	fsparam_u32("timeout",		V9FS_OPT_TIMEOUT),
	{}
};

static void v9fs_session_free(struct v9fs_session *s)
{
	if (!s)
		return;
	if (s->clnt)
		v9fs_client_destroy(s->clnt);
	kfree(s->addr);
	kfree(s->uname);
	kfree(s->aname);
	kfree(s);
}

/* Take ownership of the parameter's string (fs_parse left it allocated). */
static void v9fs_take_string(char **dst, struct fs_parameter *param)
{
	kfree(*dst);
	*dst = param->string;
	param->string = NULL;
}

static int v9fs_parse_param(struct fs_context *fc, struct fs_parameter *param)
{
	struct v9fs_session *s = fc->s_fs_info;
	struct fs_parse_result result;
	int opt;

	opt = fs_parse(fc, v9fs_param_specs, param, &result);
	if (opt < 0)
		return opt;	/* -ENOPARAM lets the VFS try "source" and sb flags */

	switch (opt) {
	case V9FS_OPT_TRANS:
		s->copts.trans = result.uint_32;
		break;
	case V9FS_OPT_TCP:
		s->copts.trans = V9FS_TRANS_TCP;
		break;
	case V9FS_OPT_UNIX:
		s->copts.trans = V9FS_TRANS_UNIX;
		break;
	case V9FS_OPT_NAME:
		v9fs_take_string(&s->uname, param);
		break;
	case V9FS_OPT_ANAME:
		v9fs_take_string(&s->aname, param);
		break;
	case V9FS_OPT_PORT:
		if (result.uint_32 == 0 || result.uint_32 > U16_MAX)
			return invalfc(fc, "port=%u is not a TCP port",
				       result.uint_32);
		s->copts.port = result.uint_32;
		break;
	case V9FS_OPT_MSIZE:
		if (result.uint_32 < V9FS_MIN_MSIZE)
			return invalfc(fc, "%s=%u is below the minimum %u",
				       param->key, result.uint_32,
				       V9FS_MIN_MSIZE);
		s->copts.msize = result.uint_32;
		break;
	case V9FS_OPT_UID:
		s->uid = make_kuid(current_user_ns(), result.uint_32);
		if (!uid_valid(s->uid))
			return invalfc(fc, "uid=%u is not a valid user id",
				       result.uint_32);
		s->flags |= V9FS_UID_GIVEN;
		break;
	case V9FS_OPT_GID:
		s->gid = make_kgid(current_user_ns(), result.uint_32);
		if (!gid_valid(s->gid))
			return invalfc(fc, "gid=%u is not a valid group id",
				       result.uint_32);
		s->flags |= V9FS_GID_GIVEN;
		break;
	case V9FS_OPT_AFID:
		s->afid = result.uint_32;
		s->flags |= V9FS_AFID_GIVEN;
		break;
	case V9FS_OPT_DEBUG:
		s->copts.debug = result.uint_32;
		break;
	case V9FS_OPT_NOEXTEND:
		s->copts.dialect = V9P_9P2000;
		s->flags |= V9FS_NOEXTEND_ASKED;
		break;
	case V9FS_OPT_NODEVMAP:
		s->flags |= V9FS_NODEVMAP;
		break;
	case V9FS_OPT_RFDNO:
	case V9FS_OPT_WFDNO:
		if (result.uint_32 > INT_MAX)
			return invalfc(fc, "%s=%u is not a descriptor",
				       param->key, result.uint_32);
		if (opt == V9FS_OPT_RFDNO) {
			s->copts.rfd = result.uint_32;
			s->flags |= V9FS_RFD_GIVEN;
		} else {
			s->copts.wfd = result.uint_32;
			s->flags |= V9FS_WFD_GIVEN;
		}
		break;
	case V9FS_OPT_VERSION:
		s->copts.dialect = result.uint_32;
		if (s->copts.dialect == V9P_9P2000)
			s->flags |= V9FS_NOEXTEND_ASKED;
		else
			s->flags &= ~V9FS_NOEXTEND_ASKED;
		break;
	case V9FS_OPT_TIMEOUT:
		s->copts.timeout = result.uint_32;
		break;
	default:
		return invalfc(fc, "option '%s' is not handled", param->key);
	}
	return 0;
}

static const char *v9fs_trans_name(int trans)
{
	switch (trans) {
	case V9FS_TRANS_UNIX:
		return "unix";
	case V9FS_TRANS_FD:
		return "fd";
	default:
		return "tcp";
	}
}

/* /proc/mounts: the options in effect, msize and version as negotiated. */
static int v9fs_show_options(struct seq_file *m, struct dentry *root)
{
	struct v9fs_session *s = v9fs_sb_session(root->d_sb);

	seq_printf(m, ",trans=%s", v9fs_trans_name(s->copts.trans));
	if (s->copts.trans == V9FS_TRANS_TCP)
		seq_printf(m, ",port=%u",
			   s->copts.port ? s->copts.port : V9FS_DEFAULT_PORT);
	if (s->copts.trans == V9FS_TRANS_FD)
		seq_printf(m, ",rfdno=%d,wfdno=%d", s->copts.rfd, s->copts.wfd);
	seq_printf(m, ",msize=%u", v9fs_client_msize(s->clnt));
	seq_printf(m, ",version=%s",
		   v9fs_extended(s) ? "9p2000.u" : "9p2000");
	if (!v9fs_extended(s))
		seq_puts(m, ",noextend");
	seq_show_option(m, "name", s->uname);
	if (s->aname && *s->aname)
		seq_show_option(m, "aname", s->aname);
	seq_printf(m, ",uid=%u,gid=%u",
		   from_kuid_munged(seq_user_ns(m), s->uid),
		   from_kgid_munged(seq_user_ns(m), s->gid));
	if (s->flags & V9FS_AFID_GIVEN)
		seq_printf(m, ",afid=%u", s->afid);
	if (s->copts.debug)
		seq_printf(m, ",debug=0x%x", s->copts.debug);
	if (s->copts.timeout)
		seq_printf(m, ",timeout=%u", s->copts.timeout);
	if (s->flags & V9FS_NODEVMAP)
		seq_puts(m, ",nodevmap");
	return 0;
}

/* umount -f: fail everything in flight so the umount can proceed. */
static void v9fs_umount_begin(struct super_block *sb)
{
	struct v9fs_session *s = v9fs_sb_session(sb);

	if (s->clnt)
		v9fs_client_abort(s->clnt);
}

static const struct super_operations v9fs_super_ops = {
	.alloc_inode	= v9fs_alloc_inode,
	.free_inode	= v9fs_free_inode,
	.drop_inode	= generic_delete_inode,
	.statfs		= simple_statfs,
	.show_options	= v9fs_show_options,
	.umount_begin	= v9fs_umount_begin,
};

/* Walk-free root: attach gives the fid, one Tstat gives the inode. */
static int v9fs_fill_super(struct super_block *sb, struct fs_context *fc)
{
	struct v9fs_session *s = sb->s_fs_info;
	struct v9fs_fid afid = { .fid = V9FS_NOFID };
	struct v9fs_fid *root_fid;
	struct v9p_stat *st;
	struct inode *inode;
	struct dentry *root;
	u32 msize, n_uname;
	int err;

	s->clnt = v9fs_client_create(&s->copts);
	if (IS_ERR(s->clnt)) {
		err = PTR_ERR(s->clnt);
		s->clnt = NULL;
		errorfc(fc, "cannot reach the server at '%s': error %d",
			s->addr ? s->addr : "", err);
		return err;
	}
	s->dialect = v9fs_client_dialect(s->clnt);
	if (s->dialect != V9P_9P2000 && s->dialect != V9P_9P2000U) {
		errorfc(fc, "server negotiated a dialect this client cannot use");
		return -EPROTONOSUPPORT;
	}
	msize = v9fs_client_msize(s->clnt);

	sb->s_maxbytes = MAX_LFS_FILESIZE;
	/* st_blksize: the largest power of two whose I/O fits one message. */
	sb->s_blocksize_bits = ilog2(max_t(u32, msize - V9P_IOHDRSZ, 512));
	sb->s_blocksize = 1UL << sb->s_blocksize_bits;
	sb->s_magic = V9FS_MAGIC;
	sb->s_op = &v9fs_super_ops;
	sb->s_d_op = &v9fs_dentry_ops;
	/* 9P2000 times are whole seconds, unsigned 32-bit. */
	sb->s_time_gran = NSEC_PER_SEC;
	sb->s_time_min = 0;
	sb->s_time_max = U32_MAX;
	/* atime is the server's business: never dirty an inode for it here. */
	sb->s_flags |= SB_NOATIME | SB_NODIRATIME;

	err = super_setup_bdi(sb);
	if (err)
		return err;

	/*
	 * afid= names an authentication fid by number, as the seed passed it
	 * in Tattach; this module runs no Tauth itself. Only the number is
	 * read from the fid given to v9fs_attach().
	 */
	afid.fid = s->afid;
	n_uname = from_kuid(&init_user_ns, s->uid);
	root_fid = v9fs_attach(s->clnt,
			       (s->flags & V9FS_AFID_GIVEN) ? &afid : NULL,
			       s->uname, n_uname, s->aname ? s->aname : "");
	if (IS_ERR(root_fid)) {
		err = PTR_ERR(root_fid);
		errorfc(fc, "attach as '%s' to '%s' failed: error %d",
			s->uname, s->aname ? s->aname : "", err);
		return err;
	}

	st = v9fs_stat(root_fid);
	if (IS_ERR(st)) {
		err = PTR_ERR(st);
		errorfc(fc, "stat of the root failed: error %d", err);
		goto put_fid;
	}
	if (!(st->mode & V9P_DMDIR)) {
		kfree(st);
		errorfc(fc, "the attached root is not a directory");
		err = -ENOTDIR;
		goto put_fid;
	}
	inode = v9fs_inode_from_stat(sb, st);
	kfree(st);
	if (IS_ERR(inode)) {
		err = PTR_ERR(inode);
		goto put_fid;
	}

	root = d_make_root(inode);
	if (!root) {
		err = -ENOMEM;
		goto put_fid;
	}
	v9fs_dentry_set_fid(root, root_fid);
	sb->s_root = root;
	return 0;

put_fid:
	v9fs_fid_put(root_fid);
	return err;
}

static int v9fs_get_tree(struct fs_context *fc)
{
	struct v9fs_session *s = fc->s_fs_info;

	if (s->copts.trans == V9FS_TRANS_FD) {
		if ((s->flags & (V9FS_RFD_GIVEN | V9FS_WFD_GIVEN)) !=
		    (V9FS_RFD_GIVEN | V9FS_WFD_GIVEN))
			return invalfc(fc, "trans=fd needs both rfdno= and wfdno=");
	} else if (!fc->source || !*fc->source) {
		return invalfc(fc, "no server address given");
	}

	if (fc->source) {
		s->addr = kstrdup(fc->source, GFP_KERNEL);
		if (!s->addr)
			return -ENOMEM;
	}
	s->copts.addr = s->addr;
	if (!s->uname) {
		s->uname = kstrdup(V9FS_DEFAULT_USER, GFP_KERNEL);
		if (!s->uname)
			return -ENOMEM;
	}
	return get_tree_nodev(fc, v9fs_fill_super);
}

/*
 * The connection and its options are fixed for the life of the mount: a
 * remount changes only the generic flags (ro/rw...), which the VFS applies.
 */
static int v9fs_reconfigure(struct fs_context *fc)
{
	sync_filesystem(fc->root->d_sb);
	return 0;
}

static void v9fs_fc_free(struct fs_context *fc)
{
	v9fs_session_free(fc->s_fs_info);
}

static const struct fs_context_operations v9fs_context_ops = {
	.free		= v9fs_fc_free,
	.parse_param	= v9fs_parse_param,
	.get_tree	= v9fs_get_tree,
	.reconfigure	= v9fs_reconfigure,
};

static int v9fs_init_fs_context(struct fs_context *fc)
{
	struct v9fs_session *s;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;

	/* The seed's defaults. */
	s->copts.trans = V9FS_TRANS_TCP;
	s->copts.port = V9FS_DEFAULT_PORT;
	s->copts.msize = V9FS_SEED_MSIZE;
	s->copts.dialect = V9P_9P2000U;
	s->copts.rfd = -1;
	s->copts.wfd = -1;
	s->afid = V9FS_NOFID;
	/* Owner of files in legacy mode and n_uname of the attach. */
	s->uid = current_fsuid();
	s->gid = current_fsgid();

	fc->s_fs_info = s;
	fc->ops = &v9fs_context_ops;
	return 0;
}

/*
 * The session (sb->s_fs_info) outlives the dentries: they hold fids whose
 * last put sends Tclunk through the client, so the client goes last.
 */
static void v9fs_kill_sb(struct super_block *sb)
{
	struct v9fs_session *s = sb->s_fs_info;

	kill_anon_super(sb);
	v9fs_session_free(s);
}

struct file_system_type v9fs_fs_type = {
	.owner			= THIS_MODULE,
	.name			= "9P",
	.init_fs_context	= v9fs_init_fs_context,
	.parameters		= v9fs_param_specs,
	.kill_sb		= v9fs_kill_sb,
};
