// SPDX-License-Identifier: GPL-2.0
/*
 * The reverse map's memory for one fork family (a first cut of workload
 * 1 of docs/kernel-results.md, without the real shared libraries): a
 * parent with V private anonymous VMAs of one written page each forks C
 * children, each of which writes every Wth of those pages and then waits.
 * With the family alive, it prints what the slab caches of reverse-map
 * state grew by since before the first fork ("slab.family.CACHE"), and
 * what the parent alone held ("slab.parent.CACHE", since before its VMAs
 * were made). Slab merging must be off (slab_nomerge), or anon_vma_chain
 * may share a cache with others and read 0.
 *
 * Usage: cowctx-bench-family [-v VMAS] [-c CHILDREN] [-w EVERY]
 * (defaults 1000, 30, 4)
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bench.h"

/* What each child writes: every @w-th of the @v VMAs' pages at @base */
struct child_work {
	char *base;
	long v, w, page;
};

static void child_writes(void *arg)
{
	const struct child_work *cw = arg;
	long i;

	for (i = 0; i < cw->v; i += cw->w)
		cw->base[2 * i * cw->page] = 2;
}

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE), v = 1000, c = 30, w = 4;
	double start[BENCH_NR_CACHES + 1], parent[BENCH_NR_CACHES + 1];
	double family[BENCH_NR_CACHES + 1];
	struct child_work child;
	char *base;
	int opt;

	while ((opt = getopt(argc, argv, "v:c:w:")) != -1) {
		if (opt == 'v') {
			v = bench_number("-v", optarg, 1, 30000);
		} else if (opt == 'c') {
			c = bench_number("-c", optarg, 1, 1000);
		} else if (opt == 'w') {
			w = bench_number("-w", optarg, 1, 30000);
		} else {
			fprintf(stderr, "usage: %s [-v VMAS] [-c CHILDREN] [-w EVERY]\n",
				argv[0]);
			return 2;
		}
	}
	if (bench_slab_read(start))
		bench_die("read /proc/slabinfo");
	base = bench_map_vmas(v, page);
	if (bench_slab_read(parent))
		bench_die("read /proc/slabinfo");
	child.base = base;
	child.v = v;
	child.w = w;
	child.page = page;
	bench_family_slab(c, child_writes, &child, family);
	bench_slab_print("parent", parent, start);
	bench_slab_print("family", family, parent);
	return 0;
}
