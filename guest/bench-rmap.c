// SPDX-License-Identifier: GPL-2.0
/*
 * Workload 3 of docs/kernel-results.md: reverse-map operations end to
 * end, per page, over N private anonymous pages that K processes map (the
 * parent wrote them, then forked K - 1 children that only wait), on pages
 * that mremap() moved before the fork and on pages that never moved:
 *
 *   idle     marking each page idle through the page_idle bitmap, one
 *            write per page (page_idle_clear_pte_refs(): one rmap walk);
 *   migrate  move_pages(MPOL_MF_MOVE_ALL) of every page to the other NUMA
 *            node (try_to_migrate() and remove_migration_ptes());
 *   reclaim  memory.reclaim of the pages' bytes in a cgroup of their own,
 *            with swap on (try_to_unmap() of every mapping; MADV_PAGEOUT
 *            would leave a page that more than one process maps alone);
 *   pageout  MADV_PAGEOUT, with K = 1 only, for the same reason.
 *
 * Each figure is the operation's wall time over the pages it handled, the
 * median of REPS fresh set-ups. Usage: cowctx-bench-rmap [-n PAGES]
 * [-r REPS] [K...]   (defaults 2048 pages, 3 reps, K 1 8 64). Needs root,
 * two NUMA nodes, swap and CONFIG_IDLE_PAGE_TRACKING; exits 1 naming what
 * is missing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/mempolicy.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "idle.h"

#define CGDIR	CGROUP_ROOT "/cowctx-bench"
#define PM_SWAP	(1ULL << 62)

enum op { OP_IDLE, OP_MIGRATE, OP_RECLAIM, OP_PAGEOUT, NR_OPS };
static const char *const op_name[NR_OPS] = {
	"idle", "migrate", "reclaim", "pageout",
};

static long page;

/*
 * N written pages, moved by mremap() when @moved; small pages (no THP),
 * so that every page is its own folio and its own walk.
 */
static char *map_pages(long n, int moved)
{
	size_t len = n * page;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *to;
	long i;

	if (p == MAP_FAILED)
		bench_die("mmap");
	madvise(p, len, MADV_NOHUGEPAGE);
	for (i = 0; i < n; i++)
		memset(p + i * page, (int)(i % 251) + 1, 64);
	if (!moved)
		return p;
	/* a hole to move to: reserved, then replaced by the move */
	to = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (to == MAP_FAILED)
		bench_die("mmap");
	p = mremap(p, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, to);
	if (p == MAP_FAILED)
		bench_die("mremap");
	return p;
}

/* K - 1 children that map the pages until the parent closes @wfd */
static int fork_sharers(long k, pid_t *pids)
{
	int fds[2];
	long i;
	char c;

	if (pipe(fds))
		bench_die("pipe");
	for (i = 0; i < k - 1; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			bench_die("fork");
		if (!pids[i]) {
			close(fds[1]);
			while (read(fds[0], &c, 1) > 0)
				;
			_exit(0);
		}
	}
	close(fds[0]);
	return fds[1];
}

static void reap(long k, pid_t *pids, int wfd)
{
	long i;

	close(wfd);
	for (i = 0; i < k - 1; i++)
		waitpid(pids[i], NULL, 0);
}

static long count_swapped(const char *p, long n)
{
	int fd = open("/proc/self/pagemap", O_RDONLY);
	uint64_t ent;
	long i, swapped = 0;

	if (fd < 0)
		bench_die("open pagemap");
	for (i = 0; i < n; i++)
		if (!pagemap_entry(fd, (uintptr_t)p + i * page, page, &ent) &&
		    (ent & PM_SWAP))
			swapped++;
	close(fd);
	return swapped;
}

/* Wall time of @op over @p's @n pages, over the pages it handled */
static double run_op(enum op op, char *p, long n, uint64_t *pfn,
		     void **pages, int *nodes, int *status)
{
	double t0, t;
	long i, done = 0;
	char bytes[32];
	int bitmap, node;

	lru_drain_all();	/* a folio in an lru_add batch is not walked */
	switch (op) {
	case OP_IDLE:
		if (self_pfns(p, n, page, pfn) != n)
			bench_die("pagemap: a page is not present");
		bitmap = open(IDLE_BITMAP, O_WRONLY);
		if (bitmap < 0)
			bench_die("open " IDLE_BITMAP);
		t0 = bench_now_ns();
		for (i = 0; i < n; i++)
			done += !idle_mark(bitmap, pfn[i]);
		t = bench_now_ns() - t0;
		close(bitmap);
		break;
	case OP_MIGRATE:
		for (i = 0; i < n; i++)
			pages[i] = p + i * page;
		if (syscall(SYS_move_pages, 0, 1, pages, NULL, status, 0))
			bench_die("move_pages (query)");
		node = status[0] == 0 ? 1 : 0;
		for (i = 0; i < n; i++)
			nodes[i] = node;
		t0 = bench_now_ns();
		if (syscall(SYS_move_pages, 0, n, pages, nodes, status,
			    MPOL_MF_MOVE_ALL) < 0)
			bench_die("move_pages");
		t = bench_now_ns() - t0;
		for (i = 0; i < n; i++)
			done += status[i] == node;
		break;
	case OP_RECLAIM:
		snprintf(bytes, sizeof(bytes), "%ld", n * page);
		t0 = bench_now_ns();
		/* EAGAIN when less than asked was reclaimed: counted below */
		write_knob(CGDIR "/memory.reclaim", bytes);
		t = bench_now_ns() - t0;
		done = count_swapped(p, n);
		break;
	default:
		t0 = bench_now_ns();
		if (madvise(p, n * page, MADV_PAGEOUT))
			bench_die("madvise(MADV_PAGEOUT)");
		t = bench_now_ns() - t0;
		done = count_swapped(p, n);
		break;
	}
	if (done < n / 2) {
		fprintf(stderr, "%s: %ld of %ld pages handled\n", op_name[op],
			done, n);
		errno = EIO;
		bench_die(op_name[op]);
	}
	return t / done;
}

int main(int argc, char **argv)
{
	static const long def_k[] = { 1, 8, 64 };
	long n = 2048, reps = 3, nk, k, i, r;
	double *t[NR_OPS];
	uint64_t *pfn;
	void **pages;
	int *nodes, *status, opt, moved, op;
	pid_t *pids;

	page = sysconf(_SC_PAGESIZE);
	while ((opt = getopt(argc, argv, "n:r:")) != -1) {
		if (opt == 'n') {
			n = bench_number("-n", optarg, 16, 1 << 20);
		} else if (opt == 'r') {
			reps = bench_number("-r", optarg, 1, 1000);
		} else {
			fprintf(stderr, "usage: %s [-n PAGES] [-r REPS] [K...]\n",
				argv[0]);
			return 2;
		}
	}
	nk = argc > optind ? argc - optind : 3;
	pfn = calloc(n, sizeof(*pfn));
	pages = calloc(n, sizeof(*pages));
	nodes = calloc(n, sizeof(*nodes));
	status = calloc(n, sizeof(*status));
	pids = calloc(4096, sizeof(*pids));
	if (!pfn || !pages || !nodes || !status || !pids)
		bench_die("calloc");
	for (op = 0; op < NR_OPS; op++) {
		t[op] = calloc(reps, sizeof(double));
		if (!t[op])
			bench_die("calloc");
	}
	/* this process, and so every child it forks, in a cgroup alone */
	if (memcg_enter(CGDIR))
		bench_die("enter the memory cgroup " CGDIR);
	for (i = 0; i < nk; i++) {
		k = argc > optind ? bench_number("K", argv[optind + i], 1, 4096) :
				    def_k[i];
		for (moved = 0; moved <= 1; moved++) {
			for (r = 0; r < reps; r++) {
				/* reclaim and pageout leave the pages in swap */
				for (op = 0; op < NR_OPS; op++) {
					char *p;
					int wfd;

					if (op == OP_PAGEOUT && k > 1)
						continue;
					p = map_pages(n, moved);
					wfd = fork_sharers(k, pids);
					t[op][r] = run_op(op, p, n, pfn, pages,
							  nodes, status);
					reap(k, pids, wfd);
					munmap(p, n * page);
				}
			}
			for (op = 0; op < NR_OPS; op++) {
				if (op == OP_PAGEOUT && k > 1)
					continue;
				bench_print(bench_median(t[op], reps), "ns",
					    "rmap.%s.k%ld.%s", op_name[op], k,
					    moved ? "moved" : "unmoved");
			}
		}
	}
	return 0;
}
