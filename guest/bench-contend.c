// SPDX-License-Identifier: GPL-2.0
/*
 * Workload 4 of docs/kernel-results.md, contention in a fork family: a
 * parent with V private anonymous VMAs of one written page each keeps
 * forking children that exit at once, while a walker it forked first
 * marks the parent's pages idle through the page_idle bitmap, in a fixed
 * pseudo-random order (shuffle()), each mark one reverse-map walk over
 * the family (the parent, the walker and whichever children are alive).
 * Under off, each fork takes every VMA's anon_vma root lock for write
 * (anon_vma_fork()) and each walk takes it for read, so the two contend;
 * the COW context means to take neither. Both run for the same T
 * seconds; the figures are forks and walks per second, the median of
 * REPS runs. On a kernel with CONFIG_LOCK_STAT (make
 * guest-bench-lockstat) it also gives the contentions, wait and longest
 * hold of the reverse maps' locks over all the runs
 * (bench_lockstat_print()).
 *
 * Usage: cowctx-bench-contend [-v VMAS] [-t SECONDS] [-r REPS]
 * (defaults 1000, 10, 3). Needs root and CONFIG_IDLE_PAGE_TRACKING.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "idle.h"

/*
 * The walker's order: the pages shuffled (Fisher-Yates, by a xorshift64
 * of a fixed seed, so every run and boot walks the same order). Address
 * order is the order in which dup_mmap() copies the VMAs and exit
 * unlinks them, and a walker in it could pace a fork or an exit VMA by
 * VMA; shuffled, the figures do not depend on that. (The lock statistics
 * of workload 4 came out alike in both orders: docs/kernel-results.md.)
 */
static void shuffle(uint64_t *pfn, long n)
{
	uint64_t x = 0x9e3779b97f4a7c15ull, t;
	long i, j;

	for (i = n - 1; i > 0; i--) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		j = (long)(x % (uint64_t)(i + 1));
		t = pfn[i];
		pfn[i] = pfn[j];
		pfn[j] = t;
	}
}

/*
 * Walks until @deadline_ns, over the PFNs of @n pages in shuffle()'s
 * order (the child's copy of @pfn); writes the count
 */
static void walker(uint64_t *pfn, long n, double deadline_ns, int out)
{
	long long walks = 0;
	int bitmap = open(IDLE_BITMAP, O_WRONLY);
	long i = 0;

	if (bitmap < 0)
		bench_die("open " IDLE_BITMAP);
	shuffle(pfn, n);
	while (bench_now_ns() < deadline_ns) {
		walks += !idle_mark(bitmap, pfn[i]);
		i = (i + 1) % n;
	}
	if (write(out, &walks, sizeof(walks)) != sizeof(walks))
		_exit(1);
	_exit(0);
}

static void one_run(char *base, long v, long page, uint64_t *pfn,
		    double secs, double *forks_per_s, double *walks_per_s)
{
	long long forks = 0, walks = 0;
	double t0, deadline;
	int fds[2], status, pagemap;
	pid_t w;
	long i;

	/* a folio in an lru_add batch is not walked (idle.c) */
	lru_drain_all();
	pagemap = open("/proc/self/pagemap", O_RDONLY);
	if (pagemap < 0)
		bench_die("open pagemap");
	for (i = 0; i < v; i++)
		if (pagemap_pfn(pagemap, (uintptr_t)base + 2 * i * page, page,
				&pfn[i]))
			bench_die("pagemap: a page is not present");
	close(pagemap);
	if (pipe(fds))
		bench_die("pipe");
	t0 = bench_now_ns();
	deadline = t0 + secs * 1e9;
	w = fork();
	if (w < 0)
		bench_die("fork");
	if (!w) {
		close(fds[0]);
		walker(pfn, v, deadline, fds[1]);
	}
	close(fds[1]);
	while (bench_now_ns() < deadline) {
		pid_t pid = fork();

		if (pid < 0)
			bench_die("fork");
		if (!pid)
			_exit(0);
		if (waitpid(pid, &status, 0) != pid)
			bench_die("waitpid");
		forks++;
	}
	*forks_per_s = forks / ((bench_now_ns() - t0) / 1e9);
	if (read(fds[0], &walks, sizeof(walks)) != sizeof(walks) ||
	    waitpid(w, &status, 0) != w || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		bench_die("the walker failed");
	close(fds[0]);
	*walks_per_s = walks / secs;
}

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE), v = 1000, secs = 10, reps = 3, r;
	int lockstat;
	double *forks, *walks;
	uint64_t *pfn;
	char *base;
	int opt;

	while ((opt = getopt(argc, argv, "v:t:r:")) != -1) {
		if (opt == 'v') {
			v = bench_number("-v", optarg, 1, 30000);
		} else if (opt == 't') {
			secs = bench_number("-t", optarg, 1, 3600);
		} else if (opt == 'r') {
			reps = bench_number("-r", optarg, 1, 1000);
		} else {
			fprintf(stderr, "usage: %s [-v VMAS] [-t SECONDS] [-r REPS]\n",
				argv[0]);
			return 2;
		}
	}
	forks = calloc(reps, sizeof(*forks));
	walks = calloc(reps, sizeof(*walks));
	pfn = calloc(v, sizeof(*pfn));
	if (!forks || !walks || !pfn)
		bench_die("calloc");
	base = bench_map_vmas(v, page);
	lockstat = bench_lockstat_begin();
	for (r = 0; r < reps; r++)
		one_run(base, v, page, pfn, secs, &forks[r], &walks[r]);
	if (lockstat)
		bench_lockstat_print("contend");
	bench_print(bench_median(forks, reps), "forks/s", "contend.forks_per_s");
	bench_print(bench_median(walks, reps), "walks/s", "contend.walks_per_s");
	return 0;
}
