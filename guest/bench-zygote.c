// SPDX-License-Identifier: GPL-2.0
/*
 * Workload 1 of docs/kernel-results.md: the reverse map's memory for a
 * realistic zygote. The parent dlopen()s every library that LIST names
 * (real Debian shared objects, copied into the initramfs by
 * guest/zygote-libs.sh, so that their text, relro, data and bss are the
 * real ELF layouts), writes HEAP KiB of heap and STACK KiB of stack, then
 * writes every page of every private writable mapping it has (the
 * libraries' data and bss, heap, stack): what a zygote holds before it
 * forks. It forks CHILDREN children, each of which writes every EVERYth
 * page of those mappings and waits. Figures, as cowctx-bench-family's:
 * slab.zygote_parent.CACHE, what each cache of reverse-map state grew by
 * while the parent set itself up, and slab.zygote.CACHE, what it grew by
 * with the children alive; zygote.libs, the libraries loaded, and
 * zygote.vmas, the parent's VMAs when it forks.
 *
 * Dynamically linked, unlike the other benchmarks: its loader, its libc
 * and the libraries are in LIST's directory, which its rpath names.
 *
 * Usage: cowctx-bench-zygote [-c CHILDREN] [-w EVERY] [-H HEAP] [-s STACK]
 *        LIST   (defaults 30, 8, 4096, 256)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

/* The fewest libraries that make the zygote realistic (issue 28) */
#define ZYGOTE_MIN_LIBS	50

struct range {
	char *start;
	char *end;
};

static struct range *ranges;
static long nr_ranges, nr_vmas;

/* Every private writable mapping of this process, and the VMA count */
static void read_ranges(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long start, end;
	char perms[8], line[512];
	long max = 0;

	if (!f)
		bench_die("open /proc/self/maps");
	nr_ranges = nr_vmas = 0;
	while (fgets(line, sizeof(line), f)) {
		nr_vmas++;
		if (sscanf(line, "%lx-%lx %7s", &start, &end, perms) != 3)
			bench_die("parse /proc/self/maps");
		if (strcmp(perms, "rw-p"))
			continue;
		if (nr_ranges == max) {
			max = max ? 2 * max : 256;
			ranges = realloc(ranges, max * sizeof(*ranges));
			if (!ranges)
				bench_die("realloc");
		}
		ranges[nr_ranges].start = (char *)start;
		ranges[nr_ranges].end = (char *)end;
		nr_ranges++;
	}
	fclose(f);
}

/* Writes every @every-th page of every range (a write of what is there) */
static void write_ranges(long every, long page)
{
	long i;

	for (i = 0; i < nr_ranges; i++) {
		volatile char *q;

		for (q = ranges[i].start; q < ranges[i].end;
		     q += every * page)
			*q = *q;
	}
}

/* A child's work: every *@arg-th page of the ranges */
static void child_writes(void *arg)
{
	write_ranges(*(long *)arg, sysconf(_SC_PAGESIZE));
}

static long load_libraries(const char *list)
{
	char name[256], path[512], *dir, *slash;
	FILE *f = fopen(list, "r");
	long loaded = 0;

	if (!f)
		bench_die("open the library list");
	dir = strdup(list);
	slash = dir ? strrchr(dir, '/') : NULL;
	if (!slash)
		bench_die("the library list needs a directory");
	*slash = '\0';
	while (fscanf(f, "%255s", name) == 1) {
		snprintf(path, sizeof(path), "%s/lib/%s", dir, name);
		if (!dlopen(path, RTLD_NOW | RTLD_GLOBAL)) {
			fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
			bench_die("dlopen");
		}
		loaded++;
	}
	fclose(f);
	free(dir);
	return loaded;
}

/* Writes @kib KiB of this function's stack, one byte a page */
static void __attribute__((noinline)) write_stack(long kib, long page)
{
	char buf[kib * 1024];
	volatile char *v = buf;
	long i;

	for (i = 0; i < kib * 1024; i += page)
		v[i] = 1;
}

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE), c = 30, w = 8, heap = 4096;
	long stack = 256, libs, i;
	double start[BENCH_NR_CACHES + 1], parent[BENCH_NR_CACHES + 1];
	double family[BENCH_NR_CACHES + 1];
	int opt;
	char *h;

	while ((opt = getopt(argc, argv, "c:w:H:s:")) != -1) {
		if (opt == 'c') {
			c = bench_number("-c", optarg, 1, 1000);
		} else if (opt == 'w') {
			w = bench_number("-w", optarg, 1, 1 << 20);
		} else if (opt == 'H') {
			heap = bench_number("-H", optarg, 0, 1 << 20);
		} else if (opt == 's') {
			stack = bench_number("-s", optarg, 1, 4096);
		} else {
			optind = argc + 1;
			break;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "usage: %s [-c CHILDREN] [-w EVERY] [-H HEAP] [-s STACK] LIST\n",
			argv[0]);
		return 2;
	}
	if (bench_slab_read(start))
		bench_die("read /proc/slabinfo");
	libs = load_libraries(argv[optind]);
	if (libs < ZYGOTE_MIN_LIBS) {
		fprintf(stderr, "%ld libraries, fewer than %d\n", libs,
			ZYGOTE_MIN_LIBS);
		bench_die("too few libraries");
	}
	h = malloc(heap * 1024 + 1);
	if (!h)
		bench_die("malloc");
	for (i = 0; i < heap * 1024; i += page)
		h[i] = 1;
	write_stack(stack, page);
	read_ranges();
	write_ranges(1, page);
	if (bench_slab_read(parent))
		bench_die("read /proc/slabinfo");
	bench_family_slab(c, child_writes, &w, family);
	bench_print(libs, "libraries", "zygote.libs");
	bench_print(nr_vmas, "VMAs", "zygote.vmas");
	bench_slab_print("zygote_parent", parent, start);
	bench_slab_print("zygote", family, parent);
	return 0;
}
