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
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE), v = 1000, c = 30, w = 4, i, j;
	double start[BENCH_NR_CACHES + 1], parent[BENCH_NR_CACHES + 1];
	double family[BENCH_NR_CACHES + 1];
	int go[2], done[2], opt;
	char *base, b;

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
	if (bench_slab_read(parent) || pipe(go) || pipe(done))
		bench_die("set up");
	for (j = 0; j < c; j++) {
		pid_t pid = fork();

		if (pid < 0)
			bench_die("fork");
		if (pid)
			continue;
		close(go[1]);
		close(done[0]);
		for (i = 0; i < v; i += w)
			base[2 * i * page] = 2;
		close(done[1]);	/* written: the parent may read */
		while (read(go[0], &b, 1) > 0)
			;
		_exit(0);
	}
	close(go[0]);
	close(done[1]);
	/* EOF once every child has closed its end: all have written */
	while (read(done[0], &b, 1) > 0)
		;
	if (bench_slab_read(family))
		bench_die("read /proc/slabinfo");
	bench_slab_print("parent", parent, start);
	bench_slab_print("family", family, parent);
	close(go[1]);
	while (wait(NULL) > 0)
		;
	return 0;
}
