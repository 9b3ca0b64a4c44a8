// SPDX-License-Identifier: GPL-2.0
/* See bench.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "idle.h"

double bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double bench_median(double *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void bench_print(double value, const char *unit, const char *fmt, ...)
{
	va_list ap;

	printf("bench: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" %.6g %s\n", value, unit);
	fflush(stdout);
}

enum { CACHE_VMA, CACHE_ANON_VMA, CACHE_AVC, CACHE_COW_CONTEXT };

const char *const bench_caches[BENCH_NR_CACHES] = {
	[CACHE_VMA] = "vm_area_struct",
	[CACHE_ANON_VMA] = "anon_vma",
	[CACHE_AVC] = "anon_vma_chain",
	[CACHE_COW_CONTEXT] = "cow_context",
};

int bench_slab_read(double bytes[BENCH_NR_CACHES + 1])
{
	char line[512], name[64];
	unsigned long active, total, size, ctx_size = 0;
	long long remaps, contexts;
	FILE *f = fopen("/proc/slabinfo", "r");
	int i;

	if (!f)
		return -1;
	for (i = 0; i < BENCH_NR_CACHES; i++)
		bytes[i] = 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %lu %lu %lu", name, &active, &total,
			   &size) != 4)
			continue;
		for (i = 0; i < BENCH_NR_CACHES; i++) {
			if (strcmp(name, bench_caches[i]))
				continue;
			bytes[i] = (double)active * size;
			if (i == CACHE_COW_CONTEXT)
				ctx_size = size;
		}
	}
	fclose(f);
	/*
	 * SLUB counts every object of a CPU's slab as active, so slabinfo
	 * moves by whole slabs: a few hundred contexts would read 0. The
	 * COW context counts its own, exactly.
	 */
	contexts = shadow_counter("contexts_live");
	if (contexts >= 0 && ctx_size)
		bytes[CACHE_COW_CONTEXT] = (double)contexts * ctx_size;
	remaps = shadow_counter("remap_entries_live");
	bytes[BENCH_NR_CACHES] = remaps < 0 ? 0 : remaps;
	return 0;
}

void bench_slab_print(const char *tag, const double *after,
		      const double *before)
{
	int i;

	for (i = 0; i <= BENCH_NR_CACHES; i++)
		bench_print(after[i] - (before ? before[i] : 0),
			    i < BENCH_NR_CACHES ? "bytes" : "entries",
			    "slab.%s.%s", tag,
			    i < BENCH_NR_CACHES ? bench_caches[i] :
						  "remap_entries");
}

void bench_family_slab(long c, void (*work)(void *arg), void *arg,
		       double bytes[BENCH_NR_CACHES + 1])
{
	int go[2], done[2];
	long j;
	char b;

	if (pipe(go) || pipe(done))
		bench_die("pipe");
	for (j = 0; j < c; j++) {
		pid_t pid = fork();

		if (pid < 0)
			bench_die("fork");
		if (pid)
			continue;
		close(go[1]);
		close(done[0]);
		work(arg);
		close(done[1]);	/* done: the parent may read */
		while (read(go[0], &b, 1) > 0)
			;
		_exit(0);
	}
	close(go[0]);
	close(done[1]);
	/* EOF once every child has closed its end: all have run @work */
	while (read(done[0], &b, 1) > 0)
		;
	close(done[0]);
	if (bench_slab_read(bytes))
		bench_die("read /proc/slabinfo");
	close(go[1]);
	while (wait(NULL) > 0)
		;
}

char *bench_map_vmas(long v, long page)
{
	char *base = mmap(NULL, 2 * v * page, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long i;

	if (base == MAP_FAILED)
		bench_die("mmap");
	for (i = 0; i < v; i++) {
		base[2 * i * page] = 1;
		if (munmap(base + (2 * i + 1) * page, page))
			bench_die("munmap");
	}
	return base;
}

long bench_number(const char *what, const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "%s: '%s' is not a number from %ld to %ld\n",
			what, s, min, max);
		exit(2);
	}
	return v;
}

void bench_die(const char *what)
{
	fprintf(stderr, "bench: %s: %s\n", what, strerror(errno));
	printf("not ok - %s\n", what);
	exit(1);
}

#define LOCK_STAT	"/proc/lock_stat"
#define LOCK_STAT_ON	"/proc/sys/kernel/lock_stat"

/* The lock classes reported, by lockdep's name, and their key's name */
static const char *const lockstat_classes[][2] = {
	{ "&anon_vma->rwsem", "anon_vma_rwsem" },
	{ "cow_context->lock", "cow_context_lock" },
	{ "cow_context->rmap_lock", "cow_context_rmap_lock" },
	{ "&mm->mmap_lock", "mmap_lock" },
};
#define NR_LOCKSTAT_CLASSES \
	(sizeof(lockstat_classes) / sizeof(lockstat_classes[0]))

int bench_lockstat_begin(void)
{
	if (access(LOCK_STAT, W_OK))
		return 0;
	if (write_knob(LOCK_STAT, "0") || write_knob(LOCK_STAT_ON, "1"))
		bench_die("start lock statistics");
	return 1;
}

void bench_lockstat_print(const char *tag)
{
	double cont[NR_LOCKSTAT_CLASSES] = { 0 };
	double wait[NR_LOCKSTAT_CLASSES] = { 0 };
	double hold[NR_LOCKSTAT_CLASSES] = { 0 };
	char line[1024], name[256];
	double v[12];
	size_t i, len;
	FILE *f;

	if (write_knob(LOCK_STAT_ON, "0"))
		bench_die("stop lock statistics");
	f = fopen(LOCK_STAT, "r");
	if (!f)
		bench_die("open " LOCK_STAT);
	/*
	 * "CLASS: con-bounces contentions waittime-min -max -total -avg
	 * acq-bounces acquisitions holdtime-min -max -total -avg", an rwsem's
	 * writers and readers on lines of their own (CLASS-W, CLASS-R);
	 * times in microseconds
	 */
	while (fgets(line, sizeof(line), f)) {
		char *colon = strstr(line, ": ");

		if (!colon || colon - line >= (long)sizeof(name))
			continue;
		if (sscanf(colon + 1, "%lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf",
			   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
			   &v[7], &v[8], &v[9], &v[10], &v[11]) != 12)
			continue;
		/* the class: what precedes ": ", less the leading blanks */
		len = strspn(line, " \t");
		snprintf(name, sizeof(name), "%.*s", (int)(colon - line - len),
			 line + len);
		len = strlen(name);
		if (len > 2 && name[len - 2] == '-' &&
		    (name[len - 1] == 'W' || name[len - 1] == 'R'))
			name[len - 2] = '\0';
		for (i = 0; i < NR_LOCKSTAT_CLASSES; i++) {
			if (strcmp(name, lockstat_classes[i][0]))
				continue;
			cont[i] += v[1];
			wait[i] += v[4];
			if (v[9] > hold[i])
				hold[i] = v[9];
		}
	}
	fclose(f);
	for (i = 0; i < NR_LOCKSTAT_CLASSES; i++) {
		const char *key = lockstat_classes[i][1];

		bench_print(cont[i], "contentions", "lockstat.%s.%s.contentions",
			    tag, key);
		bench_print(wait[i], "us", "lockstat.%s.%s.wait_us", tag, key);
		bench_print(hold[i], "us", "lockstat.%s.%s.hold_max_us", tag,
			    key);
	}
}
