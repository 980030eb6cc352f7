// SPDX-License-Identifier: GPL-2.0
/*
 * log.c - the server's log: attaches, refused attaches and refused
 * connections. To stderr while v9fsd runs in the foreground (a service
 * manager keeps it), to syslog (LOG_DAEMON) once it has detached and
 * stderr goes nowhere.
 *
 * A client must not be able to flood the log by looping on attaches or
 * connections: each line names a key (the peer's address, or its uid over
 * a unix socket), and a key gets one line a second; what it would have
 * said meanwhile is counted and the count is told with its next line.
 * All keys together get a bounded number of lines a second, so many
 * addresses do not flood it either.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "log.h"

#define LOG_SLOTS	256
#define LOG_TOTAL_PER_SEC 50

struct log_slot {
	char key[64];
	uint64_t ms;		/* when it last said something; 0: never */
	unsigned long held;	/* lines not written since */
};

static struct log_slot slots[LOG_SLOTS];
static time_t total_sec;
static unsigned int total_lines;
static unsigned long total_held;
static bool use_syslog;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

/* From here on, lines go to syslog: called once stderr is discarded. */
void srv_log_to_syslog(void)
{
	openlog("v9fsd", LOG_PID | LOG_NDELAY, LOG_DAEMON);
	use_syslog = true;
}

static uint32_t key_hash(const char *key)
{
	uint32_t h = 2166136261u;

	for (; *key; key++)
		h = (h ^ (uint8_t)*key) * 16777619u;
	return h;
}

static void emit(int prio, const char *line)
{
	if (use_syslog)
		syslog(prio, "%s", line);
	else
		fprintf(stderr, "v9fsd: %s\n", line);
}

/*
 * One line at prio; key NULL is never held back (the server's own
 * events), else the key's and the whole log's rates apply. Any thread.
 */
void srv_log(int prio, const char *key, const char *fmt, ...)
{
	char line[512];
	unsigned long held = 0;
	struct log_slot *s = NULL;
	struct timespec ts;
	uint64_t now;
	va_list ap;
	size_t n;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000 + 1;
	pthread_mutex_lock(&log_lock);
	if (key) {
		s = &slots[key_hash(key) % LOG_SLOTS];
		if (strncmp(s->key, key, sizeof(s->key) - 1)) {
			/* another key had the slot: its count is lost, not its lines */
			snprintf(s->key, sizeof(s->key), "%s", key);
			s->ms = 0;
			s->held = 0;
		}
		if (s->ms && now - s->ms < 1000) {
			s->held++;
			pthread_mutex_unlock(&log_lock);
			return;
		}
		if (total_sec != ts.tv_sec) {
			total_sec = ts.tv_sec;
			total_lines = 0;
		}
		if (total_lines >= LOG_TOTAL_PER_SEC) {
			total_held++;
			pthread_mutex_unlock(&log_lock);
			return;
		}
		total_lines++;
		s->ms = now;
		held = s->held;
		s->held = 0;
	}
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	n = strlen(line);
	if (held)
		snprintf(line + n, sizeof(line) - n, " (%lu more from %s not logged)",
			 held, key);
	emit(prio, line);
	if (total_held && key) {
		snprintf(line, sizeof(line), "%lu lines of many peers not logged", total_held);
		total_held = 0;
		emit(LOG_NOTICE, line);
	}
	pthread_mutex_unlock(&log_lock);
}
