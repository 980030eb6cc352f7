// SPDX-License-Identifier: GPL-2.0
/*
 * qid.c - qid.path, the number a client makes its inode numbers from.
 *
 * A host file is (st_dev, st_ino). Two of them must never share a qid.path
 * while v9fsd runs, one file must always get the same one, and a client
 * that reconnects after a restart should see the numbers it saw before.
 * The 64 bits are split so that the common cases need no memory and no
 * lock, and the rest stays unique:
 *
 *   0 | ino (63 bits)              a file of the export root's filesystem
 *                                  whose inode number has its top bit clear:
 *                                  qid.path is st_ino, as stable as st_ino;
 *   1 | prefix (16) | ino (47)     a file of another filesystem mounted
 *                                  inside the export, prefix 1..65535 naming
 *                                  its device: a hash of st_dev, so it does
 *                                  not depend on which device a client met
 *                                  first. Two devices whose hashes meet: the
 *                                  one seen later takes the next free prefix
 *                                  (unique, but then order dependent);
 *   1 | 0 (16) | n (47)            any other file (an inode number too wide
 *                                  for its part, as btrfs, overlayfs or NFS
 *                                  may give, or a device once every prefix
 *                                  is taken): the next n of a counter, kept
 *                                  in a table for as long as v9fsd runs, so
 *                                  these numbers change with a restart.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "srv.h"

#define QID_OTHER	(1ull << 63)
#define QID_INO_BITS	47
#define QID_INO_MASK	((1ull << QID_INO_BITS) - 1)
#define QID_PREFIXES	(1u << 16)	/* prefix 0 is the counter's */

struct qid_entry {
	dev_t dev;
	ino_t ino;
	uint64_t path;
	struct qid_entry *next;
};

static pthread_mutex_t qid_lock = PTHREAD_MUTEX_INITIALIZER;
static dev_t qid_devs[QID_PREFIXES];		/* the device each prefix names */
static uint8_t qid_used[QID_PREFIXES];
static struct qid_entry **qid_map;		/* (dev, ino) -> counter value */
static size_t qid_nmap, qid_capmap;
static uint64_t qid_next = 1;

static uint64_t qid_mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

/* The prefix of device dev, or 0 when every prefix is taken. Under qid_lock. */
static unsigned int qid_dev_prefix(dev_t dev)
{
	unsigned int p = (unsigned int)(qid_mix((uint64_t)dev) % (QID_PREFIXES - 1)) + 1;

	for (unsigned int n = 1; n < QID_PREFIXES; n++) {
		if (!qid_used[p]) {
			qid_used[p] = 1;
			qid_devs[p] = dev;
			return p;
		}
		if (qid_devs[p] == dev)
			return p;
		p = p == QID_PREFIXES - 1 ? 1 : p + 1;
	}
	return 0;
}

static int qid_map_grow(void)
{
	size_t cap = qid_capmap ? qid_capmap * 2 : 1024;
	struct qid_entry **m = calloc(cap, sizeof(*m));

	if (!m)
		return -ENOMEM;
	for (size_t i = 0; i < qid_capmap; i++) {
		struct qid_entry *e = qid_map[i], *n;

		for (; e; e = n) {
			size_t h = (size_t)(qid_mix((uint64_t)e->ino ^
						    qid_mix((uint64_t)e->dev)) & (cap - 1));

			n = e->next;
			e->next = m[h];
			m[h] = e;
		}
	}
	free(qid_map);
	qid_map = m;
	qid_capmap = cap;
	return 0;
}

/*
 * The counter value remembered for (dev, ino), made on first sight. Under
 * qid_lock. Out of memory (or out of numbers) there is no unique answer
 * left: the prefix-0 value 0, which no file is given, stands for that.
 */
static uint64_t qid_mapped(dev_t dev, ino_t ino)
{
	struct qid_entry *e;
	size_t h;

	if (qid_capmap) {
		h = (size_t)(qid_mix((uint64_t)ino ^ qid_mix((uint64_t)dev)) & (qid_capmap - 1));
		for (e = qid_map[h]; e; e = e->next)
			if (e->dev == dev && e->ino == ino)
				return e->path;
	}
	if (qid_next > QID_INO_MASK)
		return 0;
	if (qid_nmap >= qid_capmap / 2 && qid_map_grow() < 0)
		return 0;
	e = malloc(sizeof(*e));
	if (!e)
		return 0;
	e->dev = dev;
	e->ino = ino;
	e->path = qid_next++;
	h = (size_t)(qid_mix((uint64_t)ino ^ qid_mix((uint64_t)dev)) & (qid_capmap - 1));
	e->next = qid_map[h];
	qid_map[h] = e;
	qid_nmap++;
	return e->path;
}

/* The qid.path of the file (dev, ino); see the top of this file. */
uint64_t srv_qid_path(dev_t dev, ino_t ino)
{
	uint64_t i = (uint64_t)ino, path;
	unsigned int p = 0;

	if (dev == srv_cfg.root_dev && !(i & QID_OTHER))
		return i;
	pthread_mutex_lock(&qid_lock);
	if (dev != srv_cfg.root_dev && !(i & ~QID_INO_MASK))
		p = qid_dev_prefix(dev);
	if (p)
		path = QID_OTHER | (uint64_t)p << QID_INO_BITS | i;
	else
		path = QID_OTHER | qid_mapped(dev, ino);
	pthread_mutex_unlock(&qid_lock);
	return path;
}

/*
 * The qid of the file st describes. qid.version is 0 (as diod does): the
 * Linux client treats a changed version as a different file, and mtime
 * changes on every write.
 */
void srv_qid_from_stat(const struct stat *st, struct v9p_qid *q)
{
	q->path = srv_qid_path(st->st_dev, st->st_ino);
	q->version = 0;
	q->type = srv_qid_type(st->st_mode);
}

uint8_t srv_qid_type(mode_t mode)
{
	if (S_ISDIR(mode))
		return V9P_QTDIR;
	if (S_ISLNK(mode))
		return V9P_QTSYMLINK;
	return V9P_QTFILE;
}
