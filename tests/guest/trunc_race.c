// SPDX-License-Identifier: GPL-2.0
/*
 * trunc-race: can a shared writable mapping make a file larger on the server
 * than an ftruncate(2) just made it?
 *
 *	trunc-race [-o] FILE EXPORT PAGES ROUNDS SECONDS
 *
 * FILE is on the mount, EXPORT the same file seen on the server's side
 * (v9fsd's export, without the client). Each round makes FILE PAGES pages
 * long, maps it MAP_SHARED and starts two threads on the mapping: a writer
 * that stores the byte before the new end and into every page past it (past
 * the new end a store faults with SIGBUS once the truncate dropped the page:
 * the writer then keeps to the byte before the end), and a syncer that
 * sends the dirty pages again and again (msync(MS_SYNC) and fsync(2) in
 * turn). Once both are under way the main thread calls ftruncate(2) to a
 * size inside the mapping (page-aligned in even rounds, in the middle of a
 * page in odd ones), or with -o opens FILE with O_TRUNC on a second
 * descriptor and closes it (the new size 0), stops the threads, fsyncs,
 * unmaps and closes. Then
 * EXPORT's size must be the new size: a page sent after the server
 * truncated would have made it larger again, and a page lost before the
 * truncate would show as a wrong byte below the new end (checked too: the
 * writer's last store before the end must be there).
 *
 * Stops after ROUNDS rounds or SECONDS seconds, whichever comes first, and
 * prints one line: the rounds run, in how many the writer met SIGBUS (the
 * store raced the truncate), the syncs sent, and how many rounds ended with
 * EXPORT the wrong size or the wrong bytes. Exit 0 when none did, 1 when
 * some did or a call failed, 2 on usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static long pg;
static int fd;
static volatile unsigned char *map;
static size_t map_len;
static off_t cut;		/* the new size of this round */
static atomic_int stop;
static atomic_long stores, syncs;
static unsigned char last;	/* the writer's last byte before the end */
static __thread sigjmp_buf bus_jmp;
static __thread int bus_armed;
static atomic_int bused;

static void on_bus(int sig)
{
	if (!bus_armed)
		abort();
	siglongjmp(bus_jmp, 1);
}

/*
 * Stores the byte before the new end, then one byte of the next page past
 * it, round the pages past the end, until SIGBUS says they are gone.
 */
static void *writer(void *arg)
{
	size_t first = (cut + pg - 1) / pg, npages = map_len / pg, i = first;
	unsigned char v = 1;
	int past = 1;

	bus_armed = 1;
	if (sigsetjmp(bus_jmp, 1)) {
		atomic_store(&bused, 1);
		past = 0;	/* the pages past the end are gone */
	}
	while (!atomic_load(&stop)) {
		if (cut) {
			map[cut - 1] = v;
			last = v;
		}
		if (past) {
			if (i >= npages)
				i = first;
			map[i++ * pg] = v;
		}
		atomic_fetch_add(&stores, 1);
		if (!++v)
			v = 1;
	}
	bus_armed = 0;
	return NULL;
}

/* Sends the dirty pages again and again. */
static void *syncer(void *arg)
{
	int n = 0;

	while (!atomic_load(&stop)) {
		if (n++ & 1)
			fsync(fd);
		else
			msync((void *)map, map_len, MS_SYNC);
		atomic_fetch_add(&syncs, 1);
	}
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A store and a sync under way: then the truncate can race them. */
static void wait_started(long s0, long y0)
{
	double t0 = now();

	while ((atomic_load(&stores) - s0 < 64 || atomic_load(&syncs) - y0 < 2) &&
	       now() - t0 < 2)
		usleep(100);
}

int main(int argc, char **argv)
{
	long pages, rounds, r, bad = 0, races = 0, size_bad = 0, byte_bad = 0;
	double t0, secs;
	struct sigaction sa = { .sa_handler = on_bus };
	off_t max_seen = 0;
	int otrunc = 0;

	if (argc == 7 && !strcmp(argv[1], "-o")) {
		otrunc = 1;
		argv++;
		argc--;
	}
	if (argc != 6) {
		fprintf(stderr, "usage: trunc-race [-o] FILE EXPORT PAGES ROUNDS SECONDS\n");
		return 2;
	}
	pg = sysconf(_SC_PAGESIZE);
	pages = atol(argv[3]);
	rounds = atol(argv[4]);
	secs = atof(argv[5]);
	if (pg != 4096 || pages < 4 || pages > 64 || rounds < 1) {
		fprintf(stderr, "trunc-race: 4 to 64 pages of 4 KiB\n");
		return 2;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
	map_len = pages * pg;
	srandom(getpid());
	t0 = now();
	for (r = 0; r < rounds && now() - t0 < secs; r++) {
		pthread_t w, s;
		struct stat st;
		long s0, y0;
		fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || ftruncate(fd, map_len)) {
			perror("trunc-race: open, ftruncate up");
			return 1;
		}
		map = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_SHARED,
			   fd, 0);
		if (map == MAP_FAILED) {
			perror("trunc-race: mmap");
			return 1;
		}
		/* the new end: from the second page to the one before last */
		cut = (1 + random() % (pages - 2)) * pg;
		if (r & 1)
			cut += 1 + random() % (pg - 1);
		if (otrunc)
			cut = 0;
		last = 0;
		atomic_store(&stop, 0);
		atomic_store(&bused, 0);
		s0 = atomic_load(&stores);
		y0 = atomic_load(&syncs);
		if (pthread_create(&w, NULL, writer, NULL) ||
		    pthread_create(&s, NULL, syncer, NULL)) {
			fprintf(stderr, "trunc-race: pthread_create failed\n");
			return 1;
		}
		wait_started(s0, y0);
		usleep(random() % 2000);
		if (otrunc) {
			int tfd = open(argv[1], O_RDWR | O_TRUNC);

			if (tfd < 0 || close(tfd)) {
				perror("trunc-race: open O_TRUNC");
				return 1;
			}
		} else if (ftruncate(fd, cut)) {
			perror("trunc-race: ftruncate down");
			return 1;
		}
		/* let the threads go on a little past the truncate */
		usleep(random() % 2000);
		atomic_store(&stop, 1);
		pthread_join(w, NULL);
		pthread_join(s, NULL);
		races += atomic_load(&bused);
		if (fsync(fd) || munmap((void *)map, map_len) || close(fd)) {
			perror("trunc-race: fsync, munmap, close");
			return 1;
		}
		if (stat(argv[2], &st)) {
			perror("trunc-race: stat EXPORT");
			return 1;
		}
		if (st.st_size != cut) {
			if (size_bad++ < 5)
				printf("# round %ld: truncated to %lld, the export holds %lld\n",
				       r, (long long)cut, (long long)st.st_size);
			if (st.st_size > max_seen)
				max_seen = st.st_size;
		}
		/* the byte before the end the writer left, if it stored one */
		if (last) {
			unsigned char b = 0;
			int efd = open(argv[2], O_RDONLY);

			if (efd < 0 || pread(efd, &b, 1, cut - 1) != 1 ||
			    b != last) {
				if (byte_bad++ < 5)
					printf("# round %ld: byte %lld is %u on the export, %u was stored\n",
					       r, (long long)cut - 1, b, last);
			}
			if (efd >= 0)
				close(efd);
		}
	}
	bad = size_bad + byte_bad;
	printf("%ld rounds in %.1f s, %ld with the writer faulting past the new end, %ld syncs; "
	       "export larger or smaller than the new size: %ld (largest %lld), last byte wrong: %ld\n",
	       r, now() - t0, races, atomic_load(&syncs), size_bad,
	       (long long)max_seen, byte_bad);
	return bad ? 1 : 0;
}
