// SPDX-License-Identifier: GPL-2.0-only
/*
 * 9p2000.ko: a 9P2000 / 9P2000.u client file system, type "9P", after the
 * v9fs-2.0-rc6 series. Module init and exit: the client layer, the inode
 * cache, the file system type, then the virtio driver, torn down in the
 * reverse order.
 */
#define pr_fmt(fmt) "9p2000: " fmt

#include <linux/module.h>
#include <linux/fs.h>

#include "v9fs.h"
#include "namei.h"
#include "super.h"
#include "trans.h"

static int __init ninep_init(void)
{
	int err;

	err = ninep_client_init();
	if (err)
		return err;
	err = ninep_inode_cache_init();
	if (err)
		goto client_exit;
	err = register_filesystem(&ninep_fs_type);
	if (err)
		goto cache_exit;
	err = ninep_virtio_init();
	if (err)
		goto unregister;
	return 0;

unregister:
	unregister_filesystem(&ninep_fs_type);
cache_exit:
	ninep_inode_cache_exit();
client_exit:
	ninep_client_exit();
	return err;
}

static void __exit ninep_exit(void)
{
	ninep_virtio_exit();
	unregister_filesystem(&ninep_fs_type);
	ninep_inode_cache_exit();
	ninep_client_exit();
}

module_init(ninep_init);
module_exit(ninep_exit);

MODULE_DESCRIPTION("9P2000.L, 9P2000.u and 9P2000 file system client (type 9P)");
MODULE_LICENSE("GPL");
MODULE_ALIAS_FS("9P");
MODULE_VERSION(NINEP_VERSION);
