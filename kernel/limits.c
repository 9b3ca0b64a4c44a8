// SPDX-License-Identifier: GPL-2.0
/* The runner's descriptor budget; see limits.h. */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "kernel/limits.h"

static long as_long(rlim_t v)
{
	return v == RLIM_INFINITY || v > (rlim_t)0x7fffffffL ?
		0x7fffffffL : (long)v;
}

long klimit_raise_nofile(long *old)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl)) {
		*old = -1;
		return -1;
	}
	*old = as_long(rl.rlim_cur);
	if (rl.rlim_cur != rl.rlim_max) {
		rlim_t cur = rl.rlim_cur;

		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			return as_long(cur);
	}
	return as_long(rl.rlim_max);
}

void klimit_restore_nofile(long old)
{
	struct rlimit rl;

	if (old < 0 || getrlimit(RLIMIT_NOFILE, &rl))
		return;
	rl.rlim_cur = old;
	setrlimit(RLIMIT_NOFILE, &rl);
}

long klimit_fds_in_use(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	long n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char *end;
		long fd = strtol(e->d_name, &end, 10);

		/* the listing's own descriptor is closed again below */
		if (*end || end == e->d_name || fd == dirfd(d))
			continue;
		n++;
	}
	closedir(d);
	return n;
}

/* Is @name among the @nr names seen so far? Adds it if not. */
static int seen_file(const char ***names, long *nr, const char *name)
{
	const char **n;
	long i;

	for (i = 0; i < *nr; i++)
		if (!strcmp((*names)[i], name))
			return 1;
	n = realloc(*names, (*nr + 1) * sizeof(**names));
	if (!n)
		return -1;
	n[(*nr)++] = name;
	*names = n;
	return 0;
}

int klimit_check(const struct scenario *sc, long base, long limit,
		 char *why, size_t whylen)
{
	const char **names = NULL;
	long live = 0, files = 0;
	int i, seen, ret = -1;

	for (i = 0; i < sc->nr && ret == -1; i++) {
		const struct stmt *st = &sc->stmts[i];
		long need;

		switch (st->kind) {
		case STMT_PROC:
		case STMT_FORK:
			live++;
			need = base + KLIMIT_TRANSIENT +
			       KLIMIT_FDS_PER_PROC * (KLIMIT_ZYGOTES + live);
			if (need <= limit)
				break;
			snprintf(why, whylen,
				 "%ld live processes need %ld file descriptors in the runner (%d each), over RLIMIT_NOFILE's %ld (its hard limit: raise it with ulimit -Hn)",
				 live, need, KLIMIT_FDS_PER_PROC, limit);
			ret = i;
			break;
		case STMT_EXIT:
			live--;
			break;
		case STMT_MMAP:
			if (!st->is_file)
				break;
			seen = seen_file(&names, &files, st->file);
			if (seen < 0) {
				snprintf(why, whylen, "out of memory");
				ret = -2;
			}
			if (seen)
				break;
			need = KLIMIT_AGENT_FDS + files;
			if (need <= limit)
				break;
			snprintf(why, whylen,
				 "file %s is the scenario's file number %ld; every process holds each file open, which needs %ld file descriptors, over RLIMIT_NOFILE's %ld (its hard limit: raise it with ulimit -Hn)",
				 st->file, files, need, limit);
			ret = i;
			break;
		default:
			break;
		}
	}
	free(names);
	return ret;
}

long klimit_max_map_count(void)
{
	FILE *f = fopen("/proc/sys/vm/max_map_count", "re");
	long n = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &n) != 1 || n <= 0)
		n = -1;
	fclose(f);
	return n;
}
