// SPDX-License-Identifier: GPL-2.0
/*
 * dirino: the inode number a directory listing gives each entry beside the
 * one stat gives it, for comparing the two through a 9P mount.
 *
 *	dirino DIR
 *
 * Prints one line per entry but "." and "..": "NAME D_INO ST_INO", d_ino
 * from readdir(3) and st_ino from fstatat(2) (not following a symlink).
 * A failed fstatat prints "-" as ST_INO. Exit status 0, 1 when the
 * directory cannot be read, 2 on a usage error.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int main(int argc, char **argv)
{
	struct dirent *de;
	DIR *d;

	if (argc != 2) {
		fprintf(stderr, "usage: dirino DIR\n");
		return 2;
	}
	d = opendir(argv[1]);
	if (!d) {
		perror(argv[1]);
		return 1;
	}
	while ((de = readdir(d))) {
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			printf("%s %llu -\n", de->d_name, (unsigned long long)de->d_ino);
		else
			printf("%s %llu %llu\n", de->d_name, (unsigned long long)de->d_ino,
			       (unsigned long long)st.st_ino);
	}
	closedir(d);
	return 0;
}
