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
#include <linux/statfs.h>

#include "v9fs.h"
#include "acl.h"
#include "addr.h"
#include "dentry.h"
#include "inode.h"
#include "inode_dotl.h"
#include "namei.h"
#include "super.h"
#include "xattr.h"
#include "trans.h"

enum ninep_param {
	NINEP_OPT_TRANS, NINEP_OPT_TCP, NINEP_OPT_UNIX, NINEP_OPT_NAME,
	NINEP_OPT_ANAME, NINEP_OPT_PORT, NINEP_OPT_MSIZE, NINEP_OPT_UID,
	NINEP_OPT_GID, NINEP_OPT_AFID, NINEP_OPT_DEBUG, NINEP_OPT_NOEXTEND,
	NINEP_OPT_NODEVMAP, NINEP_OPT_RFDNO, NINEP_OPT_WFDNO, NINEP_OPT_VERSION,
	NINEP_OPT_TIMEOUT, NINEP_OPT_NOXATTR, NINEP_OPT_CACHE, NINEP_OPT_ACCESS,
	NINEP_OPT_POSIXACL, NINEP_OPT_ACTIMEO, NINEP_OPT_CTO,
};

static const struct constant_table ninep_version_names[] = {
	{ "9P2000",	V9P_9P2000 },
	{ "9P2000.L",	V9P_9P2000L },
	{ "9P2000.u",	V9P_9P2000U },
	{ "9p2000",	V9P_9P2000 },
	{ "9p2000.L",	V9P_9P2000L },
	{ "9p2000.u",	V9P_9P2000U },
	{}
};

/* The in-tree client's names. */
static const struct constant_table ninep_cache_names[] = {
	{ "fscache",	NINEP_CACHE_FSCACHE },
	{ "loose",	NINEP_CACHE_LOOSE },
	{ "mmap",	NINEP_CACHE_MMAP },
	{ "none",	NINEP_CACHE_NONE },
	{}
};

static const struct fs_parameter_spec ninep_param_specs[] = {
	/* A transport's name, looked up among those built in. */
	fsparam_string("proto",		NINEP_OPT_TRANS),
	fsparam_string("trans",		NINEP_OPT_TRANS),
	fsparam_flag("tcp",		NINEP_OPT_TCP),
	fsparam_flag("unix",		NINEP_OPT_UNIX),
	fsparam_string("name",		NINEP_OPT_NAME),
	fsparam_string("uname",		NINEP_OPT_NAME),
	__fsparam(fs_param_is_string, "aname", NINEP_OPT_ANAME,
		  fs_param_can_be_empty, NULL),
	fsparam_u32("port",		NINEP_OPT_PORT),
	fsparam_u32("msize",		NINEP_OPT_MSIZE),
	fsparam_u32("maxdata",		NINEP_OPT_MSIZE),
	fsparam_u32("uid",		NINEP_OPT_UID),
	fsparam_u32("dfltuid",		NINEP_OPT_UID),
	fsparam_u32("gid",		NINEP_OPT_GID),
	fsparam_u32("dfltgid",		NINEP_OPT_GID),
	/* Empty is let through to be refused by name in ninep_parse_access(). */
	__fsparam(fs_param_is_string, "access", NINEP_OPT_ACCESS,
		  fs_param_can_be_empty, NULL),
	fsparam_u32("afid",		NINEP_OPT_AFID),
	fsparam_u32("debug",		NINEP_OPT_DEBUG),
	fsparam_flag("noextend",	NINEP_OPT_NOEXTEND),
	fsparam_flag("nodevmap",	NINEP_OPT_NODEVMAP),
	fsparam_u32("rfdno",		NINEP_OPT_RFDNO),
	fsparam_u32("wfdno",		NINEP_OPT_WFDNO),
	fsparam_enum("version",		NINEP_OPT_VERSION, ninep_version_names),
	fsparam_u32("timeout",		NINEP_OPT_TIMEOUT),
	fsparam_flag("noxattr",		NINEP_OPT_NOXATTR),
	fsparam_enum("cache",		NINEP_OPT_CACHE, ninep_cache_names),
	fsparam_flag("posixacl",	NINEP_OPT_POSIXACL),
	fsparam_u32("actimeo",		NINEP_OPT_ACTIMEO),
	fsparam_flag_no("cto",		NINEP_OPT_CTO),
	{}
};

static void ninep_session_free(struct ninep_session *s)
{
	if (!s)
		return;
	ninep_fscache_session_exit(s);
	if (s->clnt)
		ninep_client_destroy(s->clnt);
	kfree(s->addr);
	kfree(s->uname);
	kfree(s->aname);
	kfree(s);
}

static const char *const ninep_access_names[] = {
	[NINEP_ACCESS_ANY]	= "any",
	[NINEP_ACCESS_USER]	= "user",
	[NINEP_ACCESS_CLIENT]	= "client",
};

/* access=user|any|client|<uid> */
static int ninep_parse_access(struct fs_context *fc, struct ninep_session *s,
			      const char *val)
{
	unsigned int i, n;

	for (i = 0; i < ARRAY_SIZE(ninep_access_names); i++) {
		if (!strcmp(val, ninep_access_names[i])) {
			s->access = i;
			s->flags |= NINEP_ACCESS_GIVEN;
			return 0;
		}
	}
	if (kstrtouint(val, 10, &n))
		return invalfc(fc, "access=%s is not user, any, client or a uid",
			       val);
	s->access_uid = make_kuid(current_user_ns(), n);
	if (!uid_valid(s->access_uid))
		return invalfc(fc, "access=%u is not a valid user id", n);
	s->access = NINEP_ACCESS_SINGLE;
	s->flags |= NINEP_ACCESS_GIVEN;
	return 0;
}

/*
 * The access mode once the dialect is known. Unless given: user in .u,
 * client in .L, any in 9P2000, as the in-tree client. 9P2000 has no
 * numeric ids to attach each user as, so user and client become any;
 * client in .u becomes user (the two check permissions alike here).
 */
static void ninep_settle_access(struct ninep_session *s)
{
	if (!(s->flags & NINEP_ACCESS_GIVEN))
		s->access = ninep_dotl(s) ? NINEP_ACCESS_CLIENT : NINEP_ACCESS_USER;
	if (s->access == NINEP_ACCESS_SINGLE)
		return;
	if (!ninep_dotl(s) && !ninep_extended(s))
		s->access = NINEP_ACCESS_ANY;
	else if (!ninep_dotl(s) && s->access == NINEP_ACCESS_CLIENT)
		s->access = NINEP_ACCESS_USER;
}

/*
 * posixacl once the dialect and access mode are known. ACLs are checked
 * here with the server's copies, which only 9P2000.L's xattrs carry, for
 * users who each act as themselves on the server (access=client). The
 * in-tree client ignores posixacl otherwise, silently; here the mount
 * fails with EINVAL and says why.
 */
static int ninep_check_posixacl(struct fs_context *fc,
				const struct ninep_session *s)
{
	if (!(s->flags & NINEP_POSIXACL))
		return 0;
	if (!ninep_dotl(s))
		return invalfc(fc, "posixacl needs 9P2000.L; the server speaks %s",
			       v9p_dialect_name(s->dialect));
	if (s->access != NINEP_ACCESS_CLIENT)
		return invalfc(fc, "posixacl needs access=client");
	if (s->flags & NINEP_NOXATTR)
		return invalfc(fc, "posixacl needs extended attributes: not with noxattr");
	return 0;
}

/* Take ownership of the parameter's string (fs_parse left it allocated). */
static void ninep_take_string(char **dst, struct fs_parameter *param)
{
	kfree(*dst);
	*dst = param->string;
	param->string = NULL;
}

static int ninep_parse_param(struct fs_context *fc, struct fs_parameter *param)
{
	struct ninep_session *s = fc->s_fs_info;
	const struct ninep_trans_ops *trans;
	struct fs_parse_result result;
	int opt;

	opt = fs_parse(fc, ninep_param_specs, param, &result);
	if (opt < 0)
		return opt;	/* -ENOPARAM lets the VFS try "source" and sb flags */

	switch (opt) {
	case NINEP_OPT_TRANS:
	case NINEP_OPT_TCP:
	case NINEP_OPT_UNIX:
		/* The seed's bare "tcp" and "unix" are transports' names. */
		trans = ninep_trans_find(opt == NINEP_OPT_TRANS ?
					 param->string : param->key);
		if (!trans)	/* as fs_parse() words a bad value */
			return invalfc(fc, "Bad value for '%s'", param->key);
		s->copts.trans = trans;
		break;
	case NINEP_OPT_NAME:
		ninep_take_string(&s->uname, param);
		break;
	case NINEP_OPT_ANAME:
		ninep_take_string(&s->aname, param);
		break;
	case NINEP_OPT_PORT:
		if (result.uint_32 == 0 || result.uint_32 > U16_MAX)
			return invalfc(fc, "port=%u is not a TCP port",
				       result.uint_32);
		s->copts.port = result.uint_32;
		break;
	case NINEP_OPT_MSIZE:
		if (result.uint_32 < NINEP_MIN_MSIZE)
			return invalfc(fc, "%s=%u is below the minimum %u",
				       param->key, result.uint_32,
				       NINEP_MIN_MSIZE);
		s->copts.msize = result.uint_32;
		break;
	case NINEP_OPT_UID:
		s->uid = make_kuid(current_user_ns(), result.uint_32);
		if (!uid_valid(s->uid))
			return invalfc(fc, "uid=%u is not a valid user id",
				       result.uint_32);
		s->flags |= NINEP_UID_GIVEN;
		if (!strcmp(param->key, "dfltuid"))
			s->flags |= NINEP_DFLTUID_NAMED;
		else
			s->flags &= ~NINEP_DFLTUID_NAMED;
		break;
	case NINEP_OPT_GID:
		s->gid = make_kgid(current_user_ns(), result.uint_32);
		if (!gid_valid(s->gid))
			return invalfc(fc, "gid=%u is not a valid group id",
				       result.uint_32);
		s->flags |= NINEP_GID_GIVEN;
		if (!strcmp(param->key, "dfltgid"))
			s->flags |= NINEP_DFLTGID_NAMED;
		else
			s->flags &= ~NINEP_DFLTGID_NAMED;
		break;
	case NINEP_OPT_AFID:
		s->afid = result.uint_32;
		s->flags |= NINEP_AFID_GIVEN;
		break;
	case NINEP_OPT_DEBUG:
		s->copts.debug = result.uint_32;
		break;
	case NINEP_OPT_NOEXTEND:
		s->copts.dialect = V9P_9P2000;
		s->flags |= NINEP_NOEXTEND_ASKED;
		break;
	case NINEP_OPT_NODEVMAP:
		s->flags |= NINEP_NODEVMAP;
		break;
	case NINEP_OPT_RFDNO:
	case NINEP_OPT_WFDNO:
		if (result.uint_32 > INT_MAX)
			return invalfc(fc, "%s=%u is not a descriptor",
				       param->key, result.uint_32);
		if (opt == NINEP_OPT_RFDNO) {
			s->copts.rfd = result.uint_32;
			s->flags |= NINEP_RFD_GIVEN;
		} else {
			s->copts.wfd = result.uint_32;
			s->flags |= NINEP_WFD_GIVEN;
		}
		break;
	case NINEP_OPT_VERSION:
		s->copts.dialect = result.uint_32;
		if (s->copts.dialect == V9P_9P2000)
			s->flags |= NINEP_NOEXTEND_ASKED;
		else
			s->flags &= ~NINEP_NOEXTEND_ASKED;
		break;
	case NINEP_OPT_TIMEOUT:
		s->copts.timeout = result.uint_32;
		break;
	case NINEP_OPT_NOXATTR:
		s->flags |= NINEP_NOXATTR;
		break;
	case NINEP_OPT_CACHE:
		if (result.int_32 == NINEP_CACHE_FSCACHE &&
		    !ninep_fscache_available())
			return invalfc(fc, "cache=%s needs a kernel built with fscache",
				       param->string);
		s->cache = result.int_32;
		break;
	case NINEP_OPT_ACCESS:
		return ninep_parse_access(fc, s, param->string);
	case NINEP_OPT_POSIXACL:
		s->flags |= NINEP_POSIXACL;
		break;
	case NINEP_OPT_ACTIMEO:
		if (result.uint_32 > NINEP_ACTIMEO_MAX)
			return invalfc(fc, "actimeo=%u is above the maximum %u",
				       result.uint_32, NINEP_ACTIMEO_MAX);
		s->actimeo = result.uint_32;
		s->flags |= NINEP_ACTIMEO_GIVEN;
		break;
	case NINEP_OPT_CTO:
		if (result.negated)
			s->flags |= NINEP_NOCTO;
		else
			s->flags &= ~NINEP_NOCTO;
		break;
	default:
		return invalfc(fc, "option '%s' is not handled", param->key);
	}
	return 0;
}

/* /proc/mounts: the options in effect, msize and version as negotiated. */
static int ninep_show_options(struct seq_file *m, struct dentry *root)
{
	struct ninep_session *s = ninep_sb_session(root->d_sb);
	const struct ninep_trans_ops *trans = s->copts.trans;

	seq_printf(m, ",trans=%s", trans->name);
	if (trans->flags & NINEP_TRANS_F_PORT)
		seq_printf(m, ",port=%u",
			   s->copts.port ? s->copts.port : NINEP_DEFAULT_PORT);
	if (trans->flags & NINEP_TRANS_F_FDS)
		seq_printf(m, ",rfdno=%d,wfdno=%d", s->copts.rfd, s->copts.wfd);
	seq_printf(m, ",msize=%u", ninep_client_msize(s->clnt));
	if (ninep_dotl(s))
		seq_puts(m, ",version=9p2000.L");
	else if (ninep_extended(s))
		seq_puts(m, ",version=9p2000.u");
	else
		seq_puts(m, ",version=9p2000,noextend");
	seq_show_option(m, "name", s->uname);
	if (s->aname && *s->aname)
		seq_show_option(m, "aname", s->aname);
	seq_printf(m, ",%s=%u,%s=%u",
		   (s->flags & NINEP_DFLTUID_NAMED) ? "dfltuid" : "uid",
		   from_kuid_munged(seq_user_ns(m), s->uid),
		   (s->flags & NINEP_DFLTGID_NAMED) ? "dfltgid" : "gid",
		   from_kgid_munged(seq_user_ns(m), s->gid));
	if (s->access == NINEP_ACCESS_SINGLE)
		seq_printf(m, ",access=%u",
			   from_kuid_munged(seq_user_ns(m), s->access_uid));
	else
		seq_printf(m, ",access=%s", ninep_access_names[s->access]);
	if (s->flags & NINEP_AFID_GIVEN)
		seq_printf(m, ",afid=%u", s->afid);
	if (s->copts.debug)
		seq_printf(m, ",debug=0x%x", s->copts.debug);
	if (s->copts.timeout)
		seq_printf(m, ",timeout=%u", s->copts.timeout);
	if (s->flags & NINEP_NODEVMAP)
		seq_puts(m, ",nodevmap");
	if (s->flags & NINEP_NOXATTR)
		seq_puts(m, ",noxattr");
	if (s->cache == NINEP_CACHE_MMAP)
		seq_puts(m, ",cache=mmap");
	else if (s->cache == NINEP_CACHE_LOOSE)
		seq_puts(m, ",cache=loose");
	else if (s->cache == NINEP_CACHE_FSCACHE)
		seq_puts(m, ",cache=fscache");
	if (root->d_sb->s_flags & SB_POSIXACL)
		seq_puts(m, ",posixacl");
	if (s->flags & NINEP_ACTIMEO_GIVEN)
		seq_printf(m, ",actimeo=%u", s->actimeo);
	if (s->flags & NINEP_NOCTO)
		seq_puts(m, ",nocto");
	return 0;
}

/* umount -f: fail everything in flight so the umount can proceed. */
static void ninep_umount_begin(struct super_block *sb)
{
	struct ninep_session *s = ninep_sb_session(sb);

	if (s->clnt)
		ninep_client_abort(s->clnt);
}

/*
 * statfs: the server's file system through Tstatfs in 9P2000.L; the other
 * dialects have no such message and report nothing (simple_statfs).
 */
static int ninep_statfs_vfs(struct dentry *dentry, struct kstatfs *buf)
{
	struct ninep_session *s = ninep_sb_session(dentry->d_sb);
	struct ninep_fid *fid;
	struct v9p_rstatfs st;
	int err;

	if (!ninep_dotl(s))
		return simple_statfs(dentry, buf);
	fid = ninep_fid_lookup(dentry);
	if (IS_ERR(fid))
		return PTR_ERR(fid);
	err = ninep_statfs(fid, &st);
	ninep_fid_put(fid);
	if (err)
		return err;
	if (!st.bsize || st.bfree > st.blocks || st.bavail > st.blocks ||
	    st.ffree > st.files) {
		pr_warn_ratelimited("Rstatfs from %s is inconsistent (bsize %u, blocks %llu/%llu/%llu, files %llu/%llu): EIO\n",
				    s->addr ? s->addr : "?", st.bsize, st.blocks,
				    st.bfree, st.bavail, st.files, st.ffree);
		return -EIO;
	}
	buf->f_type = NINEP_MAGIC;
	buf->f_bsize = st.bsize;
	buf->f_frsize = st.bsize;
	buf->f_blocks = st.blocks;
	buf->f_bfree = st.bfree;
	buf->f_bavail = st.bavail;
	buf->f_files = st.files;
	buf->f_ffree = st.ffree;
	buf->f_fsid = u64_to_fsid(st.fsid);
	buf->f_namelen = min_t(u32, st.namelen, NAME_MAX);
	return 0;
}

/*
 * The last reference to an inode went: it goes too, unless cache=loose
 * keeps a regular file's inode and pages cached for its next open (which
 * keeps the pages if the file did not change). Not one holding a
 * write-back fid, an open file on the server: its pages would be dropped
 * at the next open anyway, the server having stamped the file when they
 * landed.
 */
static int ninep_drop_inode(struct inode *inode)
{
	if (S_ISREG(inode->i_mode) && ninep_cache_loose(inode) &&
	    !NINEP_I(inode)->wb_fid)
		return generic_drop_inode(inode);
	return generic_delete_inode(inode);
}

/*
 * The cached pages and the write-back fid go first (they clear the inode),
 * then the hidden name of a 9P2000.L O_TMPFILE never linked.
 */
static void ninep_evict_inode(struct inode *inode)
{
	ninep_evict_pages(inode);
	ninep_dotl_tmpfile_evict(inode);
}

/* sb->s_xattr of a 9P2000.L mount. */
static const struct xattr_handler *ninep_xattr_handlers[] = {
	&ninep_xattr_user,
	&ninep_xattr_trusted,
	&ninep_xattr_security,
#if !NINEP_HAVE_GET_INODE_ACL
	/* EOPNOTSUPP unless posixacl: see acl.c. */
	&ninep_acl_access_handler,
	&ninep_acl_default_handler,
#endif
	NULL
};

/*
 * sb->s_xattr of a noxattr mount: no handler, so every name is refused
 * with EOPNOTSUPP, yet the VFS still asks ninep_listxattr(), which refuses
 * too (without s_xattr it would answer an empty list).
 */
static const struct xattr_handler *ninep_noxattr_handlers[] = {
	NULL
};

static const struct super_operations ninep_super_ops = {
	.alloc_inode	= ninep_alloc_inode,
	.free_inode	= ninep_free_inode,
	.drop_inode	= ninep_drop_inode,
	.evict_inode	= ninep_evict_inode,
	.statfs		= ninep_statfs_vfs,
	.show_options	= ninep_show_options,
	.umount_begin	= ninep_umount_begin,
};

/* Walk-free root: attach gives the fid, one Tstat or Tgetattr the inode. */
static int ninep_fill_super(struct super_block *sb, struct fs_context *fc)
{
	struct ninep_session *s = sb->s_fs_info;
	struct ninep_fid afid = { .fid = NINEP_NOFID };
	struct ninep_fid *root_fid;
	struct inode *inode;
	struct dentry *root;
	u32 msize;
	int err;

	s->clnt = ninep_client_create(&s->copts);
	if (IS_ERR(s->clnt)) {
		err = PTR_ERR(s->clnt);
		s->clnt = NULL;
		errorfc(fc, "cannot reach the server at '%s': error %d",
			s->addr ? s->addr : "", err);
		return err;
	}
	s->dialect = ninep_client_dialect(s->clnt);
	if (s->dialect != V9P_9P2000 && s->dialect != V9P_9P2000U &&
	    s->dialect != V9P_9P2000L) {
		errorfc(fc, "server negotiated a dialect this client cannot use");
		return -EPROTONOSUPPORT;
	}
	s->iops = ninep_dotl(s) ? &ninep_dotl_iops : &ninep_9p2000_iops;
	ninep_settle_access(s);
	err = ninep_check_posixacl(fc, s);
	if (err)
		return err;
	msize = ninep_client_msize(s->clnt);

	sb->s_maxbytes = MAX_LFS_FILESIZE;
	/* st_blksize: the largest power of two whose I/O fits one message. */
	sb->s_blocksize_bits = ilog2(max_t(u32, msize - V9P_IOHDRSZ, 512));
	sb->s_blocksize = 1UL << sb->s_blocksize_bits;
	sb->s_magic = NINEP_MAGIC;
	sb->s_op = &ninep_super_ops;
	sb->s_d_op = ninep_session_dentry_ops(s);
	if (ninep_dotl(s)) {
		/* 9P2000.L times: 64-bit seconds and nanoseconds. */
		sb->s_time_gran = 1;
		/* The other dialects have no xattrs: no s_xattr, EOPNOTSUPP. */
		sb->s_xattr = (s->flags & NINEP_NOXATTR) ?
			      ninep_noxattr_handlers : ninep_xattr_handlers;
	} else {
		/* 9P2000 times are whole seconds, unsigned 32-bit. */
		sb->s_time_gran = NSEC_PER_SEC;
		sb->s_time_min = 0;
		sb->s_time_max = U32_MAX;
	}
	/* atime is the server's business: never dirty an inode for it here. */
	sb->s_flags |= SB_NOATIME | SB_NODIRATIME;
	if (s->flags & NINEP_POSIXACL)
		sb->s_flags |= SB_POSIXACL;
#if NINEP_HAVE_SB_NOIDMAP
	/* See ninep_idmap_allowed(); 6.1 refuses at use instead. */
	if (!ninep_idmap_allowed(s))
		sb->s_iflags |= SB_I_NOIDMAP;
#endif

	err = ninep_fscache_session_init(s);
	if (err)
		return err;
	err = super_setup_bdi(sb);
	if (err)
		return err;

	/*
	 * afid= names an authentication fid by number, as the seed passed it
	 * in Tattach; this module runs no Tauth itself. Only the number is
	 * read from the fid given to ninep_attach().
	 */
	afid.fid = s->afid;
	root_fid = ninep_session_attach(s, ninep_mount_uid(s),
					(s->flags & NINEP_AFID_GIVEN) ?
					&afid : NULL);
	if (IS_ERR(root_fid)) {
		err = PTR_ERR(root_fid);
		errorfc(fc, "attach as '%s' to '%s' failed: error %d",
			s->uname, s->aname ? s->aname : "", err);
		return err;
	}

	inode = ninep_inode_from_fid(sb, root_fid);
	if (IS_ERR(inode)) {
		err = PTR_ERR(inode);
		errorfc(fc, "the attributes of the root: error %d", err);
		goto put_fid;
	}
	if (!S_ISDIR(inode->i_mode)) {
		iput(inode);
		errorfc(fc, "the attached root is not a directory");
		err = -ENOTDIR;
		goto put_fid;
	}
	root = d_make_root(inode);
	if (!root) {
		err = -ENOMEM;
		goto put_fid;
	}
	sb->s_root = root;
	ninep_dentry_keep_fid(root, root_fid, root_fid->uid);
	return 0;

put_fid:
	ninep_fid_put(root_fid);
	return err;
}

static int ninep_get_tree(struct fs_context *fc)
{
	struct ninep_session *s = fc->s_fs_info;

	if (s->copts.trans->flags & NINEP_TRANS_F_FDS) {
		if ((s->flags & (NINEP_RFD_GIVEN | NINEP_WFD_GIVEN)) !=
		    (NINEP_RFD_GIVEN | NINEP_WFD_GIVEN))
			return invalfc(fc, "trans=%s needs both rfdno= and wfdno=",
				       s->copts.trans->name);
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
		s->uname = kstrdup(NINEP_DEFAULT_USER, GFP_KERNEL);
		if (!s->uname)
			return -ENOMEM;
	}
	return get_tree_nodev(fc, ninep_fill_super);
}

/*
 * The connection and its options are fixed for the life of the mount: a
 * remount changes only the generic flags (ro/rw...), which the VFS applies.
 */
static int ninep_reconfigure(struct fs_context *fc)
{
	sync_filesystem(fc->root->d_sb);
	return 0;
}

static void ninep_fc_free(struct fs_context *fc)
{
	ninep_session_free(fc->s_fs_info);
}

static const struct fs_context_operations ninep_context_ops = {
	.free		= ninep_fc_free,
	.parse_param	= ninep_parse_param,
	.get_tree	= ninep_get_tree,
	.reconfigure	= ninep_reconfigure,
};

static int ninep_init_fs_context(struct fs_context *fc)
{
	struct ninep_session *s;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;

	/*
	 * The seed's defaults, but for the dialect: 9P2000.L, as the in-tree
	 * client asks; client_version() takes a .u or 9P2000 answer instead.
	 */
	s->copts.trans = ninep_trans_default();
	s->copts.port = NINEP_DEFAULT_PORT;
	s->copts.msize = NINEP_SEED_MSIZE;
	s->copts.dialect = V9P_9P2000L;
	s->copts.rfd = -1;
	s->copts.wfd = -1;
	s->afid = NINEP_NOFID;
	s->actimeo = NINEP_ACTIMEO_DEFAULT;
	/* From 1, the attr_stale of a new inode: a reply then makes it fresh. */
	atomic_set(&s->attr_epoch, 1);
	init_rwsem(&s->rename_sem);
	/* Owner of files in legacy mode and n_uname of the attach. */
	s->uid = current_fsuid();
	s->gid = current_fsgid();

	fc->s_fs_info = s;
	fc->ops = &ninep_context_ops;
	return 0;
}

/*
 * The session (sb->s_fs_info) outlives the dentries: they hold fids whose
 * last put sends Tclunk through the client, so the client goes last.
 */
static void ninep_kill_sb(struct super_block *sb)
{
	struct ninep_session *s = sb->s_fs_info;

	kill_anon_super(sb);
	ninep_session_free(s);
}

struct file_system_type ninep_fs_type = {
	.owner			= THIS_MODULE,
	.name			= "9P",
	/*
	 * d_move under rename_sem: see ninep_renamed(). Idmapped mounts:
	 * superblocks that cannot have them refuse them (ninep_idmap_allowed()).
	 */
	.fs_flags		= FS_RENAME_DOES_D_MOVE | FS_ALLOW_IDMAP,
	.init_fs_context	= ninep_init_fs_context,
	.parameters		= ninep_param_specs,
	.kill_sb		= ninep_kill_sb,
};
