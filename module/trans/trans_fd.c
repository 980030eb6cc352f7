// SPDX-License-Identifier: GPL-2.0-only
/*
 * fd transport of 9p2000.ko: two descriptors of the mounting task (rfdno,
 * wfdno), a pipe pair or a socket, read and written with vfs_iter_read()
 * and vfs_iter_write() by the stream helper's threads (stream.c).
 *
 * A pipe cannot be shut down from our side, so a blocked read or write is
 * ended by a signal to the helper's own kernel thread; all
 * this file has to do is give up when the call is interrupted.
 */
#define pr_fmt(fmt) "9p2000: " fmt

#include <linux/delay.h>
#include <linux/errno.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/net.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uio.h>

#include "client.h"
#include "stream.h"

struct fd_trans {
	struct file *rd;
	struct file *wr;
};

static int fd_connect(struct ninep_trans *t, const struct ninep_client_opts *o)
{
	struct fd_trans *ft;
	int err = -EBADF;

	ft = kzalloc(sizeof(*ft), GFP_KERNEL);
	if (!ft)
		return -ENOMEM;
	ft->rd = fget(o->rfd);
	ft->wr = fget(o->wfd);
	if (!ft->rd || !ft->wr) {
		pr_err("fd: rfdno=%d or wfdno=%d is not an open descriptor\n",
		       o->rfd, o->wfd);
		goto fail;
	}
	if (!(ft->rd->f_mode & FMODE_READ) || !(ft->wr->f_mode & FMODE_WRITE)) {
		pr_err("fd: rfdno=%d must be readable and wfdno=%d writable\n",
		       o->rfd, o->wfd);
		goto fail;
	}
	t->priv = ft;
	ninep_trans_dbg(t, "fd: reading fd %d, writing fd %d\n", o->rfd, o->wfd);
	return 0;
fail:
	if (ft->rd)
		fput(ft->rd);
	if (ft->wr)
		fput(ft->wr);
	kfree(ft);
	return err;
}

/*
 * A descriptor the mounter left non-blocking makes kernel_read/kernel_write
 * return -EAGAIN; back off briefly rather than spin. A pending signal (the
 * client stopping this thread) ends the wait.
 */
static bool fd_retry(int n)
{
	if (n != -EAGAIN)
		return false;
	return !msleep_interruptible(2) && !signal_pending(current);
}

/*
 * Move all of @it through @file. A pipe or a socket may take or give fewer
 * bytes than asked (a pipe write of more than PIPE_BUF is not atomic: it
 * fills what room there is, then waits for the reader), so loop on what is
 * left; the iterator keeps the place. Only the client's kernel threads
 * call this, and they take no signal but the SIGKILL that stops them: a
 * write to a peer that is gone fails with EPIPE, without a SIGPIPE to
 * anyone. End of file is -ECONNRESET, the server having gone away.
 */
static int fd_xfer(struct file *file, struct iov_iter *it)
{
	while (iov_iter_count(it)) {
		loff_t pos = 0;
		ssize_t n;

		if (iov_iter_rw(it) == WRITE)
			n = vfs_iter_write(file, it, &pos, 0);
		else
			n = vfs_iter_read(file, it, &pos, 0);
		if (n < 0 && fd_retry(n))
			continue;
		if (n < 0)
			return n == -ERESTARTSYS ? -EINTR : n;
		if (n == 0)
			return -ECONNRESET;
	}
	return 0;
}

static int fd_send(struct ninep_trans *t, const void *buf, size_t len)
{
	struct fd_trans *ft = t->priv;
	struct kvec kv = { .iov_base = (void *)buf, .iov_len = len };
	struct iov_iter it;

	iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, len);
	return fd_xfer(ft->wr, &it);
}

static int fd_recv(struct ninep_trans *t, void *buf, size_t len)
{
	struct fd_trans *ft = t->priv;
	struct kvec kv = { .iov_base = buf, .iov_len = len };
	struct iov_iter it;

	iov_iter_kvec(&it, ITER_DEST, &kv, 1, len);
	return fd_xfer(ft->rd, &it);
}

/* A socket passed as an fd can be shut down; a pipe relies on the signal. */
static void fd_abort(struct ninep_trans *t)
{
	struct fd_trans *ft = t->priv;
	struct socket *sock;

	if (!ft)
		return;
	sock = sock_from_file(ft->rd);
	if (sock)
		kernel_sock_shutdown(sock, SHUT_RDWR);
	sock = sock_from_file(ft->wr);
	if (sock)
		kernel_sock_shutdown(sock, SHUT_RDWR);
}

static void fd_close(struct ninep_trans *t)
{
	struct fd_trans *ft = t->priv;

	if (!ft)
		return;
	fput(ft->rd);
	fput(ft->wr);
	kfree(ft);
	t->priv = NULL;
}

static const struct ninep_stream_ops fd_stream = {
	.connect = fd_connect,
	.send = fd_send,
	.recv = fd_recv,
	.abort = fd_abort,
	.close = fd_close,
};

const struct ninep_trans_ops ninep_trans_fd = {
	.name = "fd",
	.flags = NINEP_TRANS_F_FDS,
	.max_msize = NINEP_STREAM_MAX_MSIZE,
	NINEP_STREAM_TRANS_OPS(&fd_stream),
};
