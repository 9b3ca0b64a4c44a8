// SPDX-License-Identifier: GPL-2.0
/*
 * cowctx-forkfail: walks that visit a child whose fork fails part way
 * (patch 0022).
 *
 * Walks visit a child while dup_mmap() fills it, under its rmap_lock. A
 * fork that fails after copying some VMAs, PTEs included, tears the
 * child down, freeing the page tables of VMAs still attached: so it
 * first marks the child (COW_FORK_FAILED) and passes its rmap_lock, and
 * later visits leave the child out (debugfs skipped_fork_failed). A walk
 * must neither report what anon_vma does not nor touch freed tables
 * (KASAN, in make guest-check).
 *
 * The parent maps NR_LOW one-page VMAs at low addresses, a page faulted
 * in each, and above them a private writable reservation, charged at
 * mmap() (VM_ACCOUNT) and never touched. Then strict overcommit
 * (vm.overcommit_memory 2) with a limit half a reservation above what is
 * committed: each fork copies the small VMAs and their PTEs, in address
 * order, then cannot charge the child's copy of the reservation, and
 * fails with ENOMEM. Meanwhile a thread walks the small VMAs' pages
 * through page_idle without pause, so that walks visit each child before,
 * during and after its failure. The sysctls are restored before the
 * test judges.
 *
 * Exit 0 when every fork failed with ENOMEM, walks were compared, none
 * mismatched, and some walk met a failed child (skipped_fork_failed grew:
 * the race was met); 1 otherwise; 4 (kselftest's skip) without page_idle
 * or the cow_context counters.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "idle.h"

#define NR_LOW		500
#define NR_FORKS	200
#define LOW_BASE	0x100000000UL
#define HIGH_HINT	((void *)0x7e0000000000UL)
/* what the reservation adds to swap's size: mmap() refuses more than RAM */
#define RESERVE_EXTRA	(128UL << 20)
#define OVERCOMMIT	"/proc/sys/vm/overcommit_memory"
#define OVERCOMMIT_RATIO	"/proc/sys/vm/overcommit_ratio"
#define OVERCOMMIT_KBYTES	"/proc/sys/vm/overcommit_kbytes"

static long page_size;
static uint64_t pfn[NR_LOW];
static volatile int stop;
static long walks_asked;

/* The number after "@key:" in /proc/meminfo, in kB; -1 if none */
static long long meminfo_kb(const char *key)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	long long v = -1;
	size_t n = strlen(key);

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':') {
			v = strtoll(line + n + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

static void *walker(void *arg)
{
	(void)arg;
	walks_asked = idle_mark_until(pfn, NR_LOW, &stop);
	return NULL;
}

/* NR_LOW one-page VMAs with a hole after each, a page faulted in each */
static int map_low(void)
{
	long i;

	if (map_small_vmas(LOW_BASE, NR_LOW, page_size))
		return -1;
	for (i = 0; i < NR_LOW; i++)
		if (self_pfns((char *)(LOW_BASE + 2 * i * page_size), 1,
			      page_size, &pfn[i]) != 1)
			return -1;
	return 0;
}

/* The failing forks, under strict overcommit; how many failed with ENOMEM */
static int forks(int *other)
{
	int k, enomem = 0;
	pid_t pid;

	for (k = 0; k < NR_FORKS; k++) {
		pid = fork();
		if (pid == 0)
			_exit(0);
		if (pid > 0) {
			waitpid(pid, NULL, 0);
			(*other)++;
		} else if (errno == ENOMEM) {
			enomem++;
		} else {
			(*other)++;
		}
	}
	return enomem;
}

int main(void)
{
	long long mode, ratio, swap, committed, fork_failed, compared;
	long long mismatches, ok;
	int enomem = 0, other = 0, failed = 0;
	size_t reserve;
	pthread_t thread;
	char *high, buf[32];

	setvbuf(stdout, NULL, _IOLBF, 0);
	page_size = sysconf(_SC_PAGESIZE);
	mode = read_knob(OVERCOMMIT);
	ratio = read_knob(OVERCOMMIT_RATIO);
	swap = meminfo_kb("SwapTotal");
	fork_failed = shadow_counter("skipped_fork_failed");
	if (access(IDLE_BITMAP, W_OK) || fork_failed < 0) {
		printf("# forkfail: SKIP, no page_idle bitmap or no cow_context counters\n");
		return 4;
	}
	if (mode < 0 || ratio < 0 || swap < 0) {
		printf("# forkfail: cannot read the overcommit sysctls or SwapTotal\n");
		return 1;
	}
	reserve = (size_t)swap * 1024 + RESERVE_EXTRA;
	high = mmap(HIGH_HINT, reserve, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (high == MAP_FAILED || map_low()) {
		printf("# forkfail: mmap: %s\n", strerror(errno));
		return 1;
	}
	if ((uintptr_t)high < LOW_BASE + 2 * NR_LOW * page_size) {
		printf("# forkfail: the reservation %p is not above the small VMAs\n",
		       high);
		return 1;
	}
	if (lru_drain_all()) {
		printf("# forkfail: drop_caches: %s\n", strerror(errno));
		return 1;
	}
	compared = shadow_counter("walks_compared");
	mismatches = shadow_counter("mismatches");
	if (pthread_create(&thread, NULL, walker, NULL)) {
		printf("# forkfail: pthread_create failed\n");
		return 1;
	}
	/* the limit counts swap in: half a reservation above what is committed */
	committed = meminfo_kb("Committed_AS");
	snprintf(buf, sizeof(buf), "%lld",
		 committed + (long long)(reserve >> 11) - swap);
	if (committed < 0 || write_knob(OVERCOMMIT_KBYTES, buf) ||
	    write_knob(OVERCOMMIT, "2")) {
		printf("# forkfail: cannot set strict overcommit (%s kB)\n", buf);
		failed = 1;
	} else {
		enomem = forks(&other);
	}
	/* overcommit_ratio clears overcommit_kbytes */
	snprintf(buf, sizeof(buf), "%lld", mode);
	if (write_knob(OVERCOMMIT, buf)) {
		printf("# forkfail: cannot restore %s\n", OVERCOMMIT);
		failed = 1;
	}
	snprintf(buf, sizeof(buf), "%lld", ratio);
	if (write_knob(OVERCOMMIT_RATIO, buf)) {
		printf("# forkfail: cannot restore %s\n", OVERCOMMIT_RATIO);
		failed = 1;
	}
	stop = 1;
	pthread_join(thread, NULL);
	compared = shadow_counter("walks_compared") - compared;
	mismatches = shadow_counter("mismatches") - mismatches;
	fork_failed = shadow_counter("skipped_fork_failed") - fork_failed;
	printf("# forkfail: %d forks failed with ENOMEM, %d did not; %ld walks asked, %lld compared, %lld met a failed child, %lld mismatches\n",
	       enomem, other, walks_asked, compared, fork_failed, mismatches);
	ok = !failed && enomem == NR_FORKS;
	printf("%s 1 - every fork failed part way: %d of %d with ENOMEM\n",
	       ok ? "ok" : "not ok", enomem, NR_FORKS);
	failed |= !ok;
	ok = compared > 0 && fork_failed > 0;
	printf("%s 2 - walks met the failed children: %lld compared, %lld left a failed child out\n",
	       ok ? "ok" : "not ok", compared, fork_failed);
	failed |= !ok;
	printf("%s 3 - no shadow mismatch: %lld\n", mismatches ? "not ok" : "ok",
	       mismatches);
	failed |= mismatches != 0;
	printf("1..3\n");
	return failed;
}
