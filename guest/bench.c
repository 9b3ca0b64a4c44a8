// SPDX-License-Identifier: GPL-2.0
/* See bench.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

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
