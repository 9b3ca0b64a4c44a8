// SPDX-License-Identifier: GPL-2.0
/*
 * Workload 7 of docs/kernel-results.md, in the shape of vm-scalability's
 * anon-cow-seq: a parent writes an anonymous region of MB megabytes,
 * forks one child per CPU, and each child writes every page of the
 * region in order, so that every write is a copy-on-write fault (and,
 * where the parent's page is no longer shared, a reuse). The figure is
 * the pages written by all the children per second, from the moment they
 * are released together to the moment the last one is done, the median
 * of REPS runs.
 *
 * Usage: cowctx-bench-cow [-m MB] [-r REPS]   (defaults 64 MB, 5 reps)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

static double one_run(char *p, long npages, long page, long nchild)
{
	int go[2];
	double t0, t;
	long c, i;
	char b;

	if (pipe(go))
		bench_die("pipe");
	for (c = 0; c < nchild; c++) {
		pid_t pid = fork();

		if (pid < 0)
			bench_die("fork");
		if (!pid) {
			close(go[1]);
			if (read(go[0], &b, 1) != 0)
				_exit(1);
			for (i = 0; i < npages; i++)
				p[i * page] = (char)c;
			_exit(0);
		}
	}
	close(go[0]);
	t0 = bench_now_ns();
	close(go[1]);	/* every child's read() returns: go */
	for (c = 0; c < nchild; c++) {
		int status;

		if (wait(&status) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			bench_die("a child failed");
	}
	t = bench_now_ns() - t0;
	return nchild * npages / (t / 1e9);
}

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE), mb = 64, reps = 5, npages, r;
	long nchild = sysconf(_SC_NPROCESSORS_ONLN);
	double *v;
	char *p;
	int opt;

	while ((opt = getopt(argc, argv, "m:r:")) != -1) {
		if (opt == 'm') {
			mb = bench_number("-m", optarg, 1, 65536);
		} else if (opt == 'r') {
			reps = bench_number("-r", optarg, 1, 1000);
		} else {
			fprintf(stderr, "usage: %s [-m MB] [-r REPS]\n", argv[0]);
			return 2;
		}
	}
	npages = mb * (1L << 20) / page;
	v = calloc(reps, sizeof(*v));
	p = mmap(NULL, npages * page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!v || p == MAP_FAILED)
		bench_die("allocate");
	/* small pages: a THP would make one fault of 512 pages' copy */
	madvise(p, npages * page, MADV_NOHUGEPAGE);
	memset(p, 1, npages * page);
	for (r = 0; r < reps; r++)
		v[r] = one_run(p, npages, page, nchild < 1 ? 1 : nchild);
	bench_print(bench_median(v, reps), "pages/s", "cow.seq.pages_per_s");
	return 0;
}
