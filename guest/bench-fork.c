// SPDX-License-Identifier: GPL-2.0
/*
 * Workload 2 of docs/kernel-results.md, in lmbench lat_proc's shape: the
 * time of fork() + the child's _exit() + the parent's waitpid(), for a
 * parent with V private anonymous VMAs of one touched page each. Fork
 * copies each VMA's reverse-map state (anon_vma_fork(): an anon_vma and
 * anon_vma_chains per VMA under off; the COW context's fork under on),
 * and exit tears it down, so the slope per VMA is the reverse map's
 * share of the cost.
 *
 * The VMAs are bench_map_vmas()'s: 2V pages mapped, every other one
 * unmapped, so that none merges; each written, so each has anonymous
 * state and a PTE to copy.
 *
 * Usage: cowctx-bench-fork [-r REPS] [V...]   (default 31 reps; V 10 100
 * 1000 10000). Prints "bench: fork.vV.us MEDIAN us" for each V.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

static double one_fork_ns(void)
{
	double t0 = bench_now_ns();
	pid_t pid = fork();
	int status;

	if (pid < 0)
		bench_die("fork");
	if (!pid)
		_exit(0);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		bench_die("waitpid");
	return bench_now_ns() - t0;
}

int main(int argc, char **argv)
{
	static const long def_v[] = { 10, 100, 1000, 10000 };
	long page = sysconf(_SC_PAGESIZE), reps = 31, v, i, r;
	int opt, nv;
	double *t;

	while ((opt = getopt(argc, argv, "r:")) != -1) {
		if (opt != 'r') {
			fprintf(stderr, "usage: %s [-r REPS] [V...]\n", argv[0]);
			return 2;
		}
		reps = bench_number("-r", optarg, 1, 100000);
	}
	nv = argc > optind ? argc - optind : 4;
	t = calloc(reps, sizeof(*t));
	if (!t)
		bench_die("calloc");
	for (i = 0; i < nv; i++) {
		char *base;

		v = argc > optind ? bench_number("V", argv[optind + i], 1, 30000) :
				    def_v[i];
		base = bench_map_vmas(v, page);
		one_fork_ns();	/* warm: the first fork pays for page tables */
		for (r = 0; r < reps; r++)
			t[r] = one_fork_ns();
		bench_print(bench_median(t, reps) / 1e3, "us", "fork.v%ld.us", v);
		munmap(base, 2 * v * page);
	}
	free(t);
	return 0;
}
