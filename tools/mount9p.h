/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mount9p.h - mount.9P's reading of a mount request (mount9p_opts.c):
 * the source and the -o options as mount(8) passes them, turned into what
 * the kernel's 9P file system takes. Apart from mount.9P.c so that the host
 * tests link it without mounting anything.
 */
#ifndef MOUNT9P_H
#define MOUNT9P_H

#include <stdbool.h>
#include <stddef.h>

#define M9_MAX_OPTS	64

/* One option for the kernel: "key=val", or a flag "key" (val NULL). */
struct m9_opt {
	char *key;
	char *val;
};

struct m9_mount {
	char source[1024];	/* the kernel's mount source: numeric address, path, tag */
	char host[256];		/* a name still to be resolved into source; "" when none */
	char trans[16];		/* tcp, unix, fd, virtio */
	struct m9_opt opts[M9_MAX_OPTS];	/* for the kernel, in order */
	int nopts;
	unsigned long ms_flags;	/* MS_* of the generic options (ro, nosuid, ...) */
};

/*
 * Read spec and opts (NULL: none) into m. 0, or -1 with err (len bytes)
 * saying what is wrong, in words for the user.
 */
int m9_parse(const char *spec, const char *opts, struct m9_mount *m, char *err, size_t len);
/* Resolve m->host into m->source (first usable address); 0, or -1 and err. */
int m9_resolve(struct m9_mount *m, char *err, size_t len);
/* The options as mount(2)'s data string "k=v,k,..."; 0, or -1 if too long. */
int m9_data(const struct m9_mount *m, char *buf, size_t len);
void m9_free(struct m9_mount *m);

#endif /* MOUNT9P_H */
