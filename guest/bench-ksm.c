// SPDX-License-Identifier: GPL-2.0
/*
 * Workload 6 of docs/kernel-results.md: KSM over a split region. One
 * private anonymous region of N pages, every page written with the same
 * bytes while it is one VMA (so that every page has one anon_vma under
 * cow_context=off), is split into N VMAs by mprotect() of every other
 * page; ksmd merges the pages (max_page_sharing caps how many mappings
 * one KSM page gets, 256 by default, so there are about N / 256 of them);
 * then each of up to M distinct KSM pages is moved to the other NUMA node
 * by its own move_pages() call, whose try_to_migrate() and
 * remove_migration_ptes() walk every mapping of that KSM page
 * (rmap_walk_ksm(): per rmap_item, the anon_vma's tree at its index).
 *
 * Figures: ksm.move.mean_ns and ksm.move.max_ns, the mean and the
 * largest time of one KSM page's move; ksm.merged_pages, the pages that
 * were merged (pages_sharing + pages_shared) and ksm.pages_moved, the KSM
 * pages moved; ksm.merge_s, how long ksmd took. Upstream measured 200 to
 * 700 ms anon_vma lock holds in this shape before 7.x walked KSM pages by
 * index; a move's time bounds its walks' from above.
 *
 * Usage: cowctx-bench-ksm [-n PAGES] [-m MOVES] [-t SECONDS]
 * (defaults 20000, 16, 600: the longest wait for ksmd). Needs root, two
 * NUMA nodes and CONFIG_KSM; ksmd's knobs are put back at the end.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/mempolicy.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench.h"
#include "idle.h"

#define KSM_DIR	"/sys/kernel/mm/ksm/"
#define KPF_KSM	21	/* include/uapi/linux/kernel-page-flags.h */

/* ksmd's knobs that this program changes, and their values before */
static const char *const ksm_knobs[] = { "pages_to_scan", "sleep_millisecs",
					 "run" };
#define NR_KSM_KNOBS	(sizeof(ksm_knobs) / sizeof(ksm_knobs[0]))
static char ksm_saved[NR_KSM_KNOBS][32];

static long ksm_read(const char *knob)
{
	char path[128];
	long long v;

	snprintf(path, sizeof(path), KSM_DIR "%s", knob);
	v = read_knob(path);
	if (v < 0)
		bench_die("read " KSM_DIR " (no CONFIG_KSM?)");
	return v;
}

static void ksm_write(const char *knob, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), KSM_DIR "%s", knob);
	if (write_knob(path, val))
		bench_die("write a KSM knob");
}

static void ksm_start(long pages)
{
	char val[32];
	size_t i;

	for (i = 0; i < NR_KSM_KNOBS; i++)
		snprintf(ksm_saved[i], sizeof(ksm_saved[i]), "%ld",
			 ksm_read(ksm_knobs[i]));
	snprintf(val, sizeof(val), "%ld", pages);
	ksm_write("pages_to_scan", val);
	ksm_write("sleep_millisecs", "0");
	ksm_write("run", "1");
}

static void ksm_restore(void)
{
	size_t i;

	for (i = 0; i < NR_KSM_KNOBS; i++)
		ksm_write(ksm_knobs[i], ksm_saved[i]);
}

/* Whether the page at @pfn is a KSM page (/proc/kpageflags) */
static int is_ksm(int kpageflags, uint64_t pfn)
{
	uint64_t flags;

	if (pread(kpageflags, &flags, sizeof(flags),
		  pfn * sizeof(flags)) != sizeof(flags))
		bench_die("read /proc/kpageflags");
	return flags >> KPF_KSM & 1;
}

/* Waits until ksmd has merged at least @want pages, or @secs passed */
static long ksm_wait(long want, long secs)
{
	double t0 = bench_now_ns();
	long merged;

	for (;;) {
		merged = ksm_read("pages_sharing") + ksm_read("pages_shared");
		if (merged >= want || bench_now_ns() - t0 > secs * 1e9)
			return merged;
		usleep(100000);
	}
}

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE), n = 20000, m = 16, secs = 600;
	long i, j, merged, moved = 0;
	double t0, merge_s, t, sum = 0, max = 0;
	uint64_t *pfn, *seen;
	int kpageflags, opt;
	char *p;

	while ((opt = getopt(argc, argv, "n:m:t:")) != -1) {
		if (opt == 'n') {
			n = bench_number("-n", optarg, 2, 60000);
		} else if (opt == 'm') {
			m = bench_number("-m", optarg, 1, 1000);
		} else if (opt == 't') {
			secs = bench_number("-t", optarg, 1, 3600);
		} else {
			fprintf(stderr, "usage: %s [-n PAGES] [-m MOVES] [-t SECONDS]\n",
				argv[0]);
			return 2;
		}
	}
	pfn = calloc(n, sizeof(*pfn));
	seen = calloc(m, sizeof(*seen));
	p = mmap(NULL, n * page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!pfn || !seen || p == MAP_FAILED)
		bench_die("set up");
	if (madvise(p, n * page, MADV_MERGEABLE))
		bench_die("madvise(MADV_MERGEABLE) (no CONFIG_KSM?)");
	/* one VMA while written: one anon_vma for every page */
	memset(p, 0x5a, n * page);
	for (i = 1; i < n; i += 2)
		if (mprotect(p + i * page, page, PROT_READ))
			bench_die("mprotect");

	ksm_start(n);
	t0 = bench_now_ns();
	merged = ksm_wait(n, secs);
	merge_s = (bench_now_ns() - t0) / 1e9;
	if (merged < n / 2) {
		ksm_restore();
		fprintf(stderr, "ksmd merged %ld of %ld pages in %ld s\n",
			merged, n, secs);
		bench_die("ksmd merged too few pages");
	}

	/* the distinct KSM pages: one address of each, up to M of them */
	if (self_pfns(p, n, page, pfn) != n)
		bench_die("read pagemap");
	kpageflags = open("/proc/kpageflags", O_RDONLY);
	if (kpageflags < 0)
		bench_die("open /proc/kpageflags");
	for (i = 0; i < n && moved < m; i++) {
		void *addr = p + i * page;
		int node, status;

		for (j = 0; j < moved && seen[j] != pfn[i]; j++)
			;
		if (j < moved || !is_ksm(kpageflags, pfn[i]))
			continue;
		if (syscall(SYS_move_pages, 0, 1, &addr, NULL, &status, 0) ||
		    status < 0)
			bench_die("move_pages (query)");
		node = !status;
		t0 = bench_now_ns();
		if (syscall(SYS_move_pages, 0, 1, &addr, &node, &status,
			    MPOL_MF_MOVE_ALL) < 0)
			bench_die("move_pages");
		t = bench_now_ns() - t0;
		if (status != node)
			continue;	/* not moved (busy): not a figure */
		seen[moved++] = pfn[i];
		sum += t;
		if (t > max)
			max = t;
	}
	close(kpageflags);
	ksm_write("run", "2");	/* unmerge, so the next benchmark starts clean */
	ksm_restore();
	if (!moved)
		bench_die("no KSM page moved");
	bench_print(merged, "pages", "ksm.merged_pages");
	bench_print(merge_s, "s", "ksm.merge_s");
	bench_print(moved, "pages", "ksm.pages_moved");
	bench_print(sum / moved, "ns", "ksm.move.mean_ns");
	bench_print(max, "ns", "ksm.move.max_ns");
	return 0;
}
