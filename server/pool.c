// SPDX-License-Identifier: GPL-2.0
/*
 * pool.c - the worker threads that run requests.
 *
 * One queue for all connections. The pool starts with a few threads and
 * grows (up to max_threads) whenever a request is queued while every
 * thread is busy, so requests that block (a lock wait) cannot starve the
 * others; threads idle for SRV_IDLE_EXIT_S exit again, down to the number
 * started with.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "srv.h"

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pool_cond = PTHREAD_COND_INITIALIZER;
static struct srv_req *q_head, *q_tail;
static int n_threads, n_idle, max_threads, min_threads, q_len;

/* A thread idle this long exits, down to the number started with. */
#define SRV_IDLE_EXIT_S	10

/*
 * SIGUSR2 interrupts a worker's blocking system call; it does nothing else.
 * A signal that lands just before the worker enters the call is lost, so
 * an interrupted request stays on the kick list, and is signalled again
 * every few milliseconds, until it completes.
 */
#define SRV_SIG_INTERRUPT SIGUSR2
#define SRV_KICK_NS	(5 * 1000 * 1000)

static pthread_cond_t kick_cond = PTHREAD_COND_INITIALIZER;
static struct srv_req *kick_list;

static void on_interrupt(int sig)
{
	(void)sig;
}

/*
 * Workers one connection may occupy at a time: requests of a client whose
 * replies are stuck (it does not read them) wait for the connection's
 * write lock on their workers, and must not take every worker from the
 * other clients.
 */
static unsigned int conn_share(void)
{
	return max_threads / 4 > 2 ? (unsigned int)max_threads / 4 : 2;
}

/*
 * A connection whose client has not taken SRV_OUT_BYTES of replies yet
 * gets no worker until it takes some (its writer wakes the pool then): a
 * client that does not read makes the server do no more work for it, and
 * hold no more memory, than that. A connection that is ending runs what
 * it has (requests flushed by its end complete on a worker).
 */
static bool backed_up(const struct srv_conn *c)
{
	return __atomic_load_n(&c->out_bytes, __ATOMIC_ACQUIRE) > SRV_OUT_BYTES &&
	       !__atomic_load_n(&c->dead, __ATOMIC_ACQUIRE);
}

/* Take the first queued request whose connection is under its share. */
static struct srv_req *pick_locked(void)
{
	struct srv_req **pp, *prev = NULL;

	for (pp = &q_head; *pp; prev = *pp, pp = &(*pp)->qnext) {
		struct srv_req *r = *pp;

		if (r->conn->nrunning >= conn_share() || backed_up(r->conn))
			continue;
		*pp = r->qnext;
		if (q_tail == r)
			q_tail = prev;
		q_len--;
		r->conn->nrunning++;
		r->on_worker = true;
		return r;
	}
	return NULL;
}

static void *worker_main(void *arg)
{
	(void)arg;
	for (;;) {
		struct srv_req *req;

		pthread_mutex_lock(&pool_lock);
		while (!(req = pick_locked())) {
			struct timespec ts;
			int err;

			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += SRV_IDLE_EXIT_S;
			n_idle++;
			err = pthread_cond_timedwait(&pool_cond, &pool_lock, &ts);
			n_idle--;
			if (err == ETIMEDOUT && !q_head && n_threads > min_threads) {
				/* the pool shrinks back after a burst */
				n_threads--;
				pthread_mutex_unlock(&pool_lock);
				return NULL;
			}
		}
		pthread_mutex_unlock(&pool_lock);

		req->run(req);
	}
	return NULL;
}

static int spawn_locked(void)
{
	pthread_attr_t attr;
	pthread_t t;
	int err;

	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	err = pthread_create(&t, &attr, worker_main, NULL);
	pthread_attr_destroy(&attr);
	if (err)
		return -err;
	n_threads++;
	return 0;
}

static void *kicker_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&pool_lock);
	for (;;) {
		struct timespec ts;

		while (!kick_list)
			pthread_cond_wait(&kick_cond, &pool_lock);
		for (struct srv_req *r = kick_list; r; r = r->knext)
			pthread_kill(r->worker, SRV_SIG_INTERRUPT);
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += SRV_KICK_NS;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&kick_cond, &pool_lock, &ts);
	}
	return NULL;
}

int srv_pool_start(int nthreads, int maxthreads)
{
	struct sigaction sa;
	pthread_t t;
	int err = 0;

	/*
	 * Connection ends call malloc_trim() from several threads at once.
	 * glibc's allocator sets itself up, unlocked, at its first use: a
	 * malloc() does it before any thread runs, unless a sanitizer's
	 * allocator stands in for malloc (v9fsd-asan), and then it is the
	 * first malloc_trim(). Made here, before any connection's thread.
	 */
	malloc_trim(0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_interrupt;	/* no SA_RESTART: that is the point */
	sigemptyset(&sa.sa_mask);
	sigaction(SRV_SIG_INTERRUPT, &sa, NULL);

	if (pthread_create(&t, NULL, kicker_main, NULL) != 0)
		return -EAGAIN;
	pthread_detach(t);
	pthread_mutex_lock(&pool_lock);
	max_threads = maxthreads;
	min_threads = nthreads;
	while (n_threads < nthreads && !err)
		err = spawn_locked();
	pthread_mutex_unlock(&pool_lock);
	return err;
}

/* Queue req for a worker, which calls run(req). */
void srv_pool_submit(struct srv_req *req, void (*run)(struct srv_req *req))
{
	pthread_mutex_lock(&pool_lock);
	req->run = run;
	req->qnext = NULL;
	if (q_tail)
		q_tail->qnext = req;
	else
		q_head = req;
	q_tail = req;
	q_len++;
	/* every idle thread may already be promised to an earlier request */
	if (n_idle < q_len && n_threads < max_threads && spawn_locked() < 0)
		fprintf(stderr, "v9fsd: cannot start a worker thread\n");
	pthread_cond_signal(&pool_cond);
	pthread_mutex_unlock(&pool_lock);
}

/*
 * Interrupt req's blocking call until it completes. The caller holds the
 * connection lock and saw req RUNNING on a worker (not on a connection
 * thread: those run nothing that blocks).
 */
void srv_pool_interrupt(struct srv_req *req)
{
	pthread_mutex_lock(&pool_lock);
	if (!req->kicked) {
		req->kicked = true;
		req->knext = kick_list;
		kick_list = req;
		pthread_cond_signal(&kick_cond);
	}
	pthread_kill(req->worker, SRV_SIG_INTERRUPT);
	pthread_mutex_unlock(&pool_lock);
}

/* req, taken by a worker, completed: its connection's share has room. */
void srv_pool_done(struct srv_req *req)
{
	pthread_mutex_lock(&pool_lock);
	req->conn->nrunning--;
	req->on_worker = false;
	if (q_head)
		pthread_cond_signal(&pool_cond);
	pthread_mutex_unlock(&pool_lock);
}

/* A connection's replies were taken, or it ended: its requests may run. */
void srv_pool_wake(void)
{
	pthread_mutex_lock(&pool_lock);
	if (q_head)
		pthread_cond_broadcast(&pool_cond);
	pthread_mutex_unlock(&pool_lock);
}

/* req completed: no more signals for its worker. */
void srv_pool_forget(struct srv_req *req)
{
	if (!__atomic_load_n(&req->kicked, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&pool_lock);
	for (struct srv_req **pp = &kick_list; *pp; pp = &(*pp)->knext) {
		if (*pp == req) {
			*pp = req->knext;
			break;
		}
	}
	req->kicked = false;
	pthread_mutex_unlock(&pool_lock);
}
