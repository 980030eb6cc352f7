// SPDX-License-Identifier: GPL-2.0-only
/*
 * Stream socket transports of 9p2000.ko: tcp (IPv4 and IPv6) and unix.
 *
 * Only connecting differs between the two; sending and receiving are the
 * same loops over kernel_sendmsg()/kernel_recvmsg(), under the stream
 * helper (stream.c). An entry on the socket's wait queue tells the helper
 * when the socket may have become readable, so that whoever is waiting for
 * a reply can read it at once.
 */
#define pr_fmt(fmt) "9p2000: " fmt

#include <linux/errno.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inet.h>
#include <linux/net.h>
#include <linux/nsproxy.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/string.h>
#include <linux/un.h>
#include <linux/wait.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "client.h"
#include "compat.h"
#include "stream.h"

struct sock_trans {
	struct socket *sock;
	struct ninep_trans *t;
	struct wait_queue_entry wait;	/* on the socket's wait queue */
};

static struct socket *sock_of(struct ninep_trans *t)
{
	struct sock_trans *st = t->priv;

	return st->sock;
}

#define SOCK_RX_EVENTS	(EPOLLIN | EPOLLRDNORM | EPOLLERR | EPOLLHUP | EPOLLRDHUP)

/* Called under the wait queue's lock, in any context (softirq too). */
static int sock_wake(struct wait_queue_entry *wait, unsigned int mode,
		     int flags, void *key)
{
	struct sock_trans *st = container_of(wait, struct sock_trans, wait);

	/* Only write space is known not to matter; no key may mean anything. */
	if (key && !(key_to_poll(key) & SOCK_RX_EVENTS))
		return 0;
	ninep_stream_readable(st->t);
	return 0;
}

/*
 * Kernel sockets of a filesystem must not recurse into filesystem reclaim
 * when they allocate, and must not use the page fragment of whichever task
 * happens to send (that task may be in reclaim itself).
 */
static void sock_tune(struct socket *sock)
{
	struct sock *sk = sock->sk;

	sk->sk_allocation = GFP_NOFS;
	sk->sk_use_task_frag = false;
}

static int sock_open(struct ninep_trans *t, int family, int proto,
		     struct sockaddr *sa, int salen)
{
	struct sock_trans *st;
	struct socket *sock;
	int err;

	st = kzalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	err = sock_create_kern(current->nsproxy->net_ns, family, SOCK_STREAM,
			       proto, &sock);
	if (err) {
		pr_err("cannot create socket (family %d): %d\n", family, err);
		kfree(st);
		return err;
	}
	/* The mounter's namespace lives as long as the socket does. */
	ninep_sock_hold_net(sock->sk);
	sock_tune(sock);
	err = kernel_connect(sock, sa, salen, 0);
	if (err) {
		sock_release(sock);
		kfree(st);
		return err;
	}
	if (family != AF_UNIX)
		tcp_sock_set_nodelay(sock->sk);
	st->sock = sock;
	st->t = t;
	init_waitqueue_func_entry(&st->wait, sock_wake);
	add_wait_queue(sk_sleep(sock->sk), &st->wait);
	t->priv = st;
	return 0;
}

static int ninep_tcp_connect(struct ninep_trans *t, const struct ninep_client_opts *o)
{
	u16 port = o->port ? o->port : NINEP_DEFAULT_PORT;
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in sin = { .sin_family = AF_INET };
	size_t len;
	int err;

	if (!o->addr) {
		pr_err("tcp: no server address given\n");
		return -EINVAL;
	}
	len = strlen(o->addr);
	if (in4_pton(o->addr, len, (u8 *)&sin.sin_addr.s_addr, -1, NULL)) {
		sin.sin_port = htons(port);
		err = sock_open(t, AF_INET, IPPROTO_TCP, (struct sockaddr *)&sin,
				sizeof(sin));
	} else if (in6_pton(o->addr, len, sin6.sin6_addr.s6_addr, -1, NULL)) {
		sin6.sin6_port = htons(port);
		err = sock_open(t, AF_INET6, IPPROTO_TCP,
				(struct sockaddr *)&sin6, sizeof(sin6));
	} else {
		pr_err("tcp: '%s' is not an IPv4 or IPv6 address\n", o->addr);
		return -EINVAL;
	}
	if (err)
		pr_err("tcp: cannot connect to %s port %u: %d\n", o->addr, port,
		       err);
	else
		ninep_trans_dbg(t, "tcp: connected to %s port %u\n", o->addr,
				port);
	return err;
}

static int ninep_unix_connect(struct ninep_trans *t, const struct ninep_client_opts *o)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	size_t len;
	int err;

	if (!o->addr || !o->addr[0]) {
		pr_err("unix: no socket path given\n");
		return -EINVAL;
	}
	len = strlen(o->addr);
	if (len >= sizeof(sun.sun_path)) {
		pr_err("unix: socket path too long (%zu bytes)\n", len);
		return -ENAMETOOLONG;
	}
	memcpy(sun.sun_path, o->addr, len);
	err = sock_open(t, AF_UNIX, 0, (struct sockaddr *)&sun,
			offsetof(struct sockaddr_un, sun_path) + len + 1);
	if (err)
		pr_err("unix: cannot connect to %s: %d\n", o->addr, err);
	else
		ninep_trans_dbg(t, "unix: connected to %s\n", o->addr);
	return err;
}

static int sock_send(struct ninep_trans *t, const void *buf, size_t len)
{
	struct socket *sock = sock_of(t);

	while (len) {
		struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
		struct kvec kv = { .iov_base = (void *)buf, .iov_len = len };
		int n;

		n = kernel_sendmsg(sock, &msg, &kv, 1, len);
		if (n < 0)
			return n;
		if (n == 0)
			return -ECONNRESET;
		buf += n;
		len -= n;
	}
	return 0;
}

static int sock_send_nb(struct ninep_trans *t, const void *buf, size_t len)
{
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL | MSG_DONTWAIT };
	struct kvec kv = { .iov_base = (void *)buf, .iov_len = len };
	int n;

	n = kernel_sendmsg(sock_of(t), &msg, &kv, 1, len);
	return n == -EAGAIN ? 0 : n;
}

static int sock_recv(struct ninep_trans *t, void *buf, size_t len)
{
	struct socket *sock = sock_of(t);

	while (len) {
		struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
		struct kvec kv = { .iov_base = buf, .iov_len = len };
		int n;

		n = kernel_recvmsg(sock, &msg, &kv, 1, len, MSG_WAITALL);
		if (n < 0)
			return n;
		if (n == 0)
			return -ECONNRESET;
		buf += n;
		len -= n;
	}
	return 0;
}

static int sock_recv_nb(struct ninep_trans *t, void *buf, size_t len)
{
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL | MSG_DONTWAIT };
	struct kvec kv = { .iov_base = buf, .iov_len = len };
	int n;

	n = kernel_recvmsg(sock_of(t), &msg, &kv, 1, len, MSG_DONTWAIT);
	if (n == -EAGAIN)
		return 0;
	return n == 0 ? -ECONNRESET : n;
}

/*
 * Send the ACK of what was received now rather than when TCP's delayed-ACK
 * timer fires, and stay in the delayed-ACK (interactive) mode otherwise.
 * For tcp only; unix sockets have no ACKs.
 */
static void sock_tcp_ack(struct ninep_trans *t)
{
	if (t->priv)
		tcp_sock_set_quickack(sock_of(t)->sk, 2);
}

static void sock_abort(struct ninep_trans *t)
{
	if (t->priv)
		kernel_sock_shutdown(sock_of(t), SHUT_RDWR);
}

static void sock_close(struct ninep_trans *t)
{
	struct sock_trans *st = t->priv;

	if (!st)
		return;
	/* Once off the queue, sock_wake() is not running and never will. */
	remove_wait_queue(sk_sleep(st->sock->sk), &st->wait);
	sock_release(st->sock);
	kfree(st);
	t->priv = NULL;
}

static const struct ninep_stream_ops sock_tcp_stream = {
	.connect = ninep_tcp_connect,
	.send = sock_send,
	.send_nb = sock_send_nb,
	.recv = sock_recv,
	.recv_nb = sock_recv_nb,
	.ack = sock_tcp_ack,
	.abort = sock_abort,
	.close = sock_close,
};

static const struct ninep_stream_ops sock_unix_stream = {
	.connect = ninep_unix_connect,
	.send = sock_send,
	.send_nb = sock_send_nb,
	.recv = sock_recv,
	.recv_nb = sock_recv_nb,
	.abort = sock_abort,
	.close = sock_close,
};

const struct ninep_trans_ops ninep_trans_tcp = {
	.name = "tcp",
	.flags = NINEP_TRANS_F_PORT,
	.max_msize = NINEP_STREAM_MAX_MSIZE,
	NINEP_STREAM_TRANS_OPS(&sock_tcp_stream),
};

const struct ninep_trans_ops ninep_trans_unix = {
	.name = "unix",
	.max_msize = NINEP_STREAM_MAX_MSIZE,
	NINEP_STREAM_TRANS_OPS(&sock_unix_stream),
};
