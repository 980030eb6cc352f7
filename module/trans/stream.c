// SPDX-License-Identifier: GPL-2.0-only
/*
 * The stream helper of 9p2000.ko: whole messages over a transport that
 * moves bytes (stream.h).
 *
 * Sending: a task sends its message itself when the line is idle and the
 * transport can write without blocking; otherwise the tx thread sends the
 * queued messages in order. Only the holder of tx_busy writes, and a
 * message written in part is finished before any other, so messages never
 * interleave on the wire.
 *
 * Receiving: a reply's size[4] frames it and its tag names its message,
 * which the client core finds (owner->match()). Replies are read by a task
 * waiting for one (on transports that can read without blocking) or by
 * the rx thread (see "receiving" below). Only non-blocking calls are made
 * from a task that can be killed, so a fatal signal never cuts a message
 * in half on the wire. Blocked calls are ended by aborting the transport
 * and signalling the threads.
 */
#define pr_fmt(fmt) "9p2000: " fmt

#include <linux/kthread.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include "client.h"
#include "stream.h"

struct ninep_stream {
	struct ninep_trans *t;
	const struct ninep_stream_ops *ops;
	spinlock_t lock;		/* the tx_* below and dead */
	bool dead;			/* aborted; READ_ONCE outside lock */
	struct list_head tx_queue;	/* messages to send, in order */
	bool tx_busy;			/* a message is being written */
	struct ninep_msg *tx_partial;	/* its rest is the tx thread's to send */
	u32 tx_off;			/* bytes of tx_partial already sent */
	wait_queue_head_t tx_wq;
	struct task_struct *rx_task;
	struct task_struct *tx_task;
	/* Receiving: see "receiving" below. */
	struct mutex rx_mutex;		/* held by whoever receives */
	struct task_struct *rx_leader;	/* waiting task that receives; RCU */
	bool rx_ready;			/* the transport may be readable */
	unsigned long rx_ready_at;	/* jiffies when rx_ready was last set */
	wait_queue_head_t rx_wq;	/* the rx thread waits here */
	u8 rx_hdr[V9P_HDRSZ];		/* the message being received: */
	u32 rx_got;			/* its bytes received so far, */
	u32 rx_size;			/* its size, once the header is in, */
	struct ninep_msg *rx_msg;	/* and its message (held) */
};

static void stream_fail(struct ninep_stream *s, int err, const char *why)
{
	s->t->owner->fail(s->t, err, why);
}

/* ---- sending ---- */

/*
 * Write @m from byte @off: all of it (0 or a negative errno) if @block,
 * else what fits now (bytes written or a negative errno). A message the
 * transport posts whole goes whole or not at all.
 */
static int tx_write(struct ninep_stream *s, struct ninep_msg *m, u32 off,
		    bool block)
{
	const struct ninep_stream_ops *ops = s->ops;
	int err;

	if (ops->send_msg) {
		err = ops->send_msg(s->t, m, block);
		if (err == -EAGAIN && !block)
			return 0;
		if (err || block)
			return err;
		return m->len;
	}
	if (block)
		return ops->send(s->t, m->buf + off, m->len - off);
	return ops->send_nb(s->t, m->buf + off, m->len - off);
}

/*
 * Send @m, written by the caller if the line is idle (no thread hop), else
 * queued for the tx thread, as is whatever of it does not fit now.
 */
int ninep_stream_request(struct ninep_trans *t, struct ninep_msg *m)
{
	struct ninep_stream *s = t->stream;
	bool direct = false, wake;
	int n;

	spin_lock(&s->lock);
	if (s->dead) {
		spin_unlock(&s->lock);
		return -EIO;
	}
	if ((s->ops->send_nb || s->ops->send_msg) && !s->tx_busy &&
	    !s->tx_partial && list_empty(&s->tx_queue)) {
		s->tx_busy = true;
		direct = true;
	} else {
		t->owner->get(t, m);
		list_add_tail(&m->node, &s->tx_queue);
	}
	wake = !s->tx_busy;
	spin_unlock(&s->lock);
	if (!direct) {
		if (wake)
			wake_up(&s->tx_wq);
		return 0;
	}

	n = tx_write(s, m, 0, false);
	spin_lock(&s->lock);
	if (n >= 0 && n < m->len && !s->dead) {
		t->owner->get(t, m);
		s->tx_partial = m;
		s->tx_off = n;
	}
	s->tx_busy = false;
	wake = s->tx_partial || !list_empty(&s->tx_queue);
	spin_unlock(&s->lock);
	if (n < 0)
		stream_fail(s, n, "send error");
	else if (wake)
		wake_up(&s->tx_wq);
	return 0;
}

bool ninep_stream_cancel(struct ninep_trans *t, struct ninep_msg *m)
{
	struct ninep_stream *s = t->stream;
	bool queued;

	spin_lock(&s->lock);
	queued = !list_empty(&m->node);
	if (queued)
		list_del_init(&m->node);
	spin_unlock(&s->lock);
	if (queued)
		t->owner->put(t, m);
	return queued;
}

/*
 * A stream thread whose work is over waits here to be stopped: idle, so
 * it counts towards no load, and never woken by what it no longer reads.
 */
static int stream_park(void)
{
	while (!kthread_should_stop()) {
		set_current_state(TASK_IDLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

static bool tx_ready(struct ninep_stream *s)
{
	return READ_ONCE(s->dead) || kthread_should_stop() ||
	       (!READ_ONCE(s->tx_busy) && (READ_ONCE(s->tx_partial) ||
					   !list_empty(&s->tx_queue)));
}

static int tx_thread(void *data)
{
	struct ninep_stream *s = data;
	struct ninep_msg *m;
	u32 off;
	int err;

	allow_signal(SIGKILL);
	for (;;) {
		wait_event_idle(s->tx_wq, tx_ready(s));
		spin_lock(&s->lock);
		if (s->dead || kthread_should_stop()) {
			spin_unlock(&s->lock);
			break;
		}
		if (s->tx_busy) {
			spin_unlock(&s->lock);
			continue;
		}
		if (s->tx_partial) {
			m = s->tx_partial;
			off = s->tx_off;
			s->tx_partial = NULL;
		} else if (!list_empty(&s->tx_queue)) {
			m = list_first_entry(&s->tx_queue, struct ninep_msg,
					     node);
			list_del_init(&m->node);
			off = 0;
		} else {
			spin_unlock(&s->lock);
			continue;
		}
		s->tx_busy = true;
		spin_unlock(&s->lock);

		err = tx_write(s, m, off, true);
		s->t->owner->put(s->t, m);
		spin_lock(&s->lock);
		s->tx_busy = false;
		spin_unlock(&s->lock);
		if (err) {
			stream_fail(s, err, "send error");
			break;
		}
	}
	return stream_park();
}

/* ---- framing ---- */

/*
 * The header of a reply is in s->rx_hdr: find its message, with room for
 * the rest. 0, or a negative errno once the connection failed.
 */
static int rx_header(struct ninep_stream *s)
{
	struct ninep_trans *t = s->t;
	struct ninep_msg *m;
	struct v9p_hdr h;
	int err;

	err = v9p_peek_hdr(s->rx_hdr, sizeof(s->rx_hdr), READ_ONCE(t->msize),
			   &h);
	if (err) {
		stream_fail(s, err, err == -EMSGSIZE ?
			    "reply larger than msize" : "malformed reply header");
		return err;
	}
	m = t->owner->match(t, h.tag, s->rx_hdr, h.size);
	if (!m)
		return -EPROTO;
	s->rx_size = h.size;
	s->rx_msg = m;
	return 0;
}

/* The whole reply is in: hand it to the core. */
static void rx_complete(struct ninep_stream *s)
{
	struct ninep_trans *t = s->t;
	struct ninep_msg *m = s->rx_msg;
	bool more;

	s->rx_msg = NULL;
	s->rx_got = 0;
	more = t->owner->reply(t, m, s->rx_size);
	/*
	 * Other requests are in flight: acknowledge this reply now. A server
	 * that leaves Nagle on holds its next (small) reply back until this
	 * one is acknowledged, and with nothing of ours to carry the ACK it
	 * would wait for the peer's delayed-ACK timer (40 ms or more) each
	 * time two requests overlap (read/write chunks, a clunk and the next
	 * call).
	 */
	if (more && s->ops->ack && !READ_ONCE(s->dead))
		s->ops->ack(t);
}

/* Read up to @len bytes: all of them when @block, else what is there. */
static int rx_read(struct ninep_stream *s, u8 *buf, u32 len, bool block)
{
	int err;

	if (!block)
		return s->ops->recv_nb(s->t, buf, len);
	err = s->ops->recv(s->t, buf, len);
	return err ? err : len;
}

/*
 * Caller holds rx_mutex. Receive what is there of the message in progress:
 * 1 when a whole message came in, 0 when the transport has nothing more for
 * now (never when @block), or a negative errno once the connection failed.
 */
static int rx_step(struct ninep_stream *s, bool block)
{
	int n;

	for (;;) {
		bool hdr = s->rx_got < V9P_HDRSZ;
		u8 *buf = hdr ? s->rx_hdr : s->rx_msg->rbuf;
		u32 want = hdr ? V9P_HDRSZ : s->rx_size;

		if (s->rx_got < want) {
			n = rx_read(s, buf + s->rx_got, want - s->rx_got,
				    block);
			if (n < 0) {
				stream_fail(s, n, n == -ECONNRESET ?
					    "server closed the connection" :
					    "receive error");
				return n;
			}
			/*
			 * Only "nothing there" ends a step: after a short
			 * read, the end of the stream or an error may still
			 * wait behind the data, and its readiness has been
			 * signalled already.
			 */
			if (!n)
				return 0;
			s->rx_got += n;
			if (s->rx_got < want)
				continue;
		}
		if (!hdr) {
			rx_complete(s);
			return READ_ONCE(s->dead) ? -EIO : 1;
		}
		n = rx_header(s);
		if (n)
			return n;
	}
}

/*
 * ---- receiving ----
 *
 * Whoever holds rx_mutex receives. On a transport that can read without
 * blocking (recv_nb), that is preferably a task waiting for a reply, the
 * leader: the transport's readiness wakes the leader directly, which reads
 * whatever is there and hands each reply to its message, its own included,
 * so a lone request costs no thread hop. The rx thread receives when there
 * is no leader, and always on transports that can only block. A message
 * may be read in parts by several receivers in turn; its state is rx_*.
 * Readiness is a flag set by the transport and cleared by a receiver before
 * it reads, so data that arrives after a read always sets it again.
 */

/* Wake whoever should receive now: the leader if any, else the rx thread. */
static void rx_kick(struct ninep_stream *s)
{
	struct task_struct *leader;

	/* The leader clears rx_leader before it can exit: RCU keeps it. */
	rcu_read_lock();
	leader = READ_ONCE(s->rx_leader);
	if (leader)
		wake_up_process(leader);
	else
		wake_up(&s->rx_wq);
	rcu_read_unlock();
}

void ninep_stream_readable(struct ninep_trans *t)
{
	struct ninep_stream *s = t->stream;

	if (!READ_ONCE(s->rx_ready))
		WRITE_ONCE(s->rx_ready_at, jiffies);
	WRITE_ONCE(s->rx_ready, true);
	smp_mb();	/* the flag before the leader; pairs with ninep_stream_wait() */
	rx_kick(s);
}

/*
 * Caller holds rx_mutex. Read while the transport has something and until
 * @mine (if not NULL) is finished, or, for a leader (@mine), until the
 * scheduler wants the CPU back: a leader taken off the CPU with rx_mutex
 * held would hold up every reply of the connection until it runs again.
 * 0, -EAGAIN when a leader stopped for the scheduler, or a negative errno
 * once the connection failed.
 */
static int rx_pump(struct ninep_stream *s, struct ninep_msg *mine)
{
	bool (*finished)(struct ninep_msg *m) = s->t->owner->finished;
	int n;

	WRITE_ONCE(s->rx_ready, false);
	smp_mb();	/* cleared before reading; pairs with ninep_stream_readable() */
	do {
		if (READ_ONCE(s->dead))
			return -EIO;
		n = rx_step(s, false);
		if (n > 0 && mine && !finished(mine) && need_resched()) {
			WRITE_ONCE(s->rx_ready_at, jiffies);
			WRITE_ONCE(s->rx_ready, true);
			return -EAGAIN;
		}
	} while (n > 0 && !(mine && finished(mine)));
	/*
	 * A leader stops at its own reply, not knowing whether more is
	 * there. Look once more rather than guess: flagging readiness that
	 * is not there would wake the rx thread for nothing after every
	 * request, two context switches each time.
	 */
	if (n > 0 && !READ_ONCE(s->dead))
		n = rx_step(s, false);
	if (n > 0) {
		/* Stopped early: maybe more. */
		WRITE_ONCE(s->rx_ready_at, jiffies);
		WRITE_ONCE(s->rx_ready, true);
	}
	return n < 0 ? n : 0;
}

static void rx_unlock(struct ninep_stream *s)
{
	mutex_unlock(&s->rx_mutex);
	smp_mb();	/* unlocked before the test; pairs with ninep_stream_readable() */
	if (READ_ONCE(s->rx_ready))
		rx_kick(s);
}

/*
 * How long readiness may wait for a leader that is not scheduled (low
 * priority, throttled, preempted) before the rx thread takes over.
 */
#define NINEP_LEAD_JIFFIES	2

/*
 * A task leads only at normal priority or better: a nice or SCHED_IDLE
 * task may not run for a long time while others wait for their replies.
 */
static bool rx_may_lead(void)
{
	return current->policy != SCHED_IDLE && task_nice(current) <= 0;
}

/*
 * Called by a waiting task that is not the leader, at least every
 * NINEP_LEAD_JIFFIES: if the transport has been readable that long and
 * nobody is receiving, the leader is not getting to run; depose it and let
 * the rx thread receive.
 */
static void rx_check_leader(struct ninep_stream *s)
{
	struct task_struct *leader = READ_ONCE(s->rx_leader);

	if (!leader || leader == current || !READ_ONCE(s->rx_ready) ||
	    mutex_is_locked(&s->rx_mutex) ||
	    time_before(jiffies, READ_ONCE(s->rx_ready_at) + NINEP_LEAD_JIFFIES))
		return;
	if (cmpxchg(&s->rx_leader, leader, NULL) == leader) {
		if (s->t->debug & NINEP_DEBUG_RPC)
			pr_info("receive leader not scheduled: rx thread takes over\n");
		smp_mb();	/* no leader before waking; see rx_thread_wanted() */
		wake_up(&s->rx_wq);
	}
}

/*
 * Wait for @m as wait_event_killable_timeout() does, receiving replies
 * meanwhile as the leader if no other waiting task is and this one may
 * (rx_may_lead()). A leader that is deposed (rx_check_leader()) does not
 * lead again in this wait.
 */
long ninep_stream_wait(struct ninep_trans *t, struct ninep_msg *m, long tmo)
{
	bool (*finished)(struct ninep_msg *m) = t->owner->finished;
	struct ninep_stream *s = t->stream;
	bool leader = false, may_lead = rx_may_lead();
	DEFINE_WAIT(wait);
	long ret = tmo;

	if (!s->ops->recv_nb)
		return wait_event_killable_timeout(m->wq, finished(m), tmo);
	for (;;) {
		long slice, left;
		bool watch;

		if (leader && READ_ONCE(s->rx_leader) != current) {
			leader = false;		/* deposed */
			may_lead = false;
		}
		/* cmpxchg() orders this before the rx_ready test below. */
		if (may_lead && !leader && !READ_ONCE(s->rx_leader))
			leader = !cmpxchg(&s->rx_leader, NULL, current);
		if (prepare_to_wait_event(&m->wq, &wait, TASK_KILLABLE)) {
			ret = -ERESTARTSYS;
			break;
		}
		if (finished(m))
			break;
		if (leader && READ_ONCE(s->rx_ready) &&
		    mutex_trylock(&s->rx_mutex)) {
			__set_current_state(TASK_RUNNING);
			/* A failure finishes m too. */
			if (rx_pump(s, m) == -EAGAIN &&
			    cmpxchg(&s->rx_leader, current, NULL) == current) {
				/* Hand the rest to the rx thread; see rx_pump(). */
				leader = false;
				may_lead = false;
			}
			rx_unlock(s);
			continue;
		}
		/* Under another leader, look in on it now and then. */
		watch = !leader && READ_ONCE(s->rx_leader);
		slice = watch ? min_t(long, ret, NINEP_LEAD_JIFFIES) : ret;
		left = schedule_timeout(slice);
		if (ret != MAX_SCHEDULE_TIMEOUT)
			ret -= slice - left;
		if (ret <= 0) {
			ret = 0;
			break;
		}
		if (watch)
			rx_check_leader(s);
	}
	finish_wait(&m->wq, &wait);
	if (leader && cmpxchg(&s->rx_leader, current, NULL) == current) {
		smp_mb();	/* no leader before the test; see ninep_stream_readable() */
		if (READ_ONCE(s->rx_ready))
			wake_up(&s->rx_wq);
	}
	return ret;
}

static bool rx_thread_wanted(struct ninep_stream *s)
{
	return READ_ONCE(s->dead) || kthread_should_stop() ||
	       (READ_ONCE(s->rx_ready) && !READ_ONCE(s->rx_leader) &&
		!mutex_is_locked(&s->rx_mutex));
}

static int rx_thread(void *data)
{
	struct ninep_stream *s = data;
	int err = 0;

	allow_signal(SIGKILL);
	while (!err && !kthread_should_stop() && !READ_ONCE(s->dead)) {
		if (!s->ops->recv_nb) {
			/* Nobody else ever receives: no need for rx_mutex. */
			err = rx_step(s, true) < 0;
			continue;
		}
		wait_event_idle(s->rx_wq, rx_thread_wanted(s));
		if (!READ_ONCE(s->rx_ready) || READ_ONCE(s->rx_leader) ||
		    !mutex_trylock(&s->rx_mutex))
			continue;
		err = rx_pump(s, NULL);
		rx_unlock(s);
	}
	return stream_park();
}

/* ---- the connection ---- */

static void stream_free(struct ninep_trans *t)
{
	kfree(t->stream);
	t->stream = NULL;
}

/*
 * Connect the transport under the helper and start the threads. The task
 * references let ninep_stream_abort() signal a thread that close() already
 * stopped.
 */
int ninep_stream_connect(struct ninep_trans *t,
			 const struct ninep_client_opts *o)
{
	const struct ninep_stream_ops *ops = t->ops->stream;
	struct ninep_stream *s;
	int err;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	s->t = t;
	s->ops = ops;
	spin_lock_init(&s->lock);
	INIT_LIST_HEAD(&s->tx_queue);
	init_waitqueue_head(&s->tx_wq);
	mutex_init(&s->rx_mutex);
	init_waitqueue_head(&s->rx_wq);
	t->stream = s;
	err = ops->connect(t, o);
	if (err) {
		stream_free(t);
		return err;
	}
	s->rx_task = kthread_run(rx_thread, s, "9p2000-rx");
	if (IS_ERR(s->rx_task)) {
		err = PTR_ERR(s->rx_task);
		s->rx_task = NULL;
		goto fail;
	}
	get_task_struct(s->rx_task);
	s->tx_task = kthread_run(tx_thread, s, "9p2000-tx");
	if (IS_ERR(s->tx_task)) {
		err = PTR_ERR(s->tx_task);
		s->tx_task = NULL;
		goto fail;
	}
	get_task_struct(s->tx_task);
	return 0;
fail:
	ninep_stream_abort(t);
	ninep_stream_close(t);
	return err;
}

void ninep_stream_abort(struct ninep_trans *t)
{
	struct ninep_stream *s = t->stream;
	struct ninep_msg *m, *next, *partial;
	LIST_HEAD(list);

	spin_lock(&s->lock);
	WRITE_ONCE(s->dead, true);
	list_splice_init(&s->tx_queue, &list);
	partial = s->tx_partial;
	s->tx_partial = NULL;
	spin_unlock(&s->lock);
	list_for_each_entry_safe(m, next, &list, node) {
		list_del_init(&m->node);
		t->owner->put(t, m);
	}
	if (partial)
		t->owner->put(t, partial);
	wake_up_all(&s->tx_wq);
	wake_up_all(&s->rx_wq);
	/* Unblock the threads wherever they are blocked in the transport. */
	s->ops->abort(t);
	if (s->rx_task && s->rx_task != current)
		send_sig(SIGKILL, s->rx_task, 1);
	if (s->tx_task && s->tx_task != current)
		send_sig(SIGKILL, s->tx_task, 1);
}

/* After ninep_stream_abort(): stop the threads, close the transport. */
void ninep_stream_close(struct ninep_trans *t)
{
	struct ninep_stream *s = t->stream;

	if (!s)
		return;
	if (s->rx_task) {
		kthread_stop(s->rx_task);
		put_task_struct(s->rx_task);
		s->rx_task = NULL;
	}
	if (s->rx_msg)
		t->owner->put(t, s->rx_msg);	/* a reply cut off */
	s->rx_msg = NULL;
	if (s->tx_task) {
		kthread_stop(s->tx_task);
		put_task_struct(s->tx_task);
		s->tx_task = NULL;
	}
	s->ops->close(t);
	stream_free(t);
}
