// SPDX-License-Identifier: GPL-2.0
/*
 * cowctx-zapfork: mappings that come and go while a walk is compared.
 *
 * The shadow check compares two walks of a folio taken one after the
 * other, and judges only walks over which the folio's mapcount held
 * still. But a mapping can go and another come in between with the
 * mapcount the same: a child zaps its copy of the page (MADV_DONTNEED)
 * after anon_vma's walk listed it and before the COW walk reached it,
 * while fork copies the page into a newer child after the COW walk
 * passed that child. Neither walk is wrong, and each must be judged
 * only on the mappings that stayed.
 *
 * The parent faults NR_PAGES pages and forks, in this order, NR_IDLE idle
 * children, a spawner, and NR_IDLE idle children more; the idle ones zap
 * their copies and sleep, so that a walk, parents first and oldest child
 * first, spends a while before the spawner's children and a while after
 * them. The spawner forks children without pause, each of which zaps its
 * copy of every page at once and exits, while a thread of the parent
 * walks the pages through page_idle: a child's zap lands between the two
 * walks, the next child's copy after the COW walk has passed it.
 *
 * Patch 0025 collects anon_vma's set again when the sets differ, and
 * judges only what held still if it changed (debugfs compared_changed).
 * First run: 895 walks compared, 9 of them so.
 *
 * Exit 0 when walks were compared, forks ran meanwhile, some walk's
 * mappings changed while it was compared (the race was met) and no shadow
 * or count mismatch was reported; 1 otherwise; 4 (kselftest's skip)
 * without page_idle or the cow_context counters.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "idle.h"

#define NR_PAGES	16
#define NR_IDLE		100
#define RUN_SECS	10

static long page_size;
static uint64_t pfn[NR_PAGES];
static volatile int stop;
static long walks_asked;
static char *base;

/* Forks children that zap their copies and exit, until killed */
static void spawner(volatile long *forks, volatile long *errors)
{
	pid_t pid;

	for (;;) {
		pid = fork();
		if (pid == 0) {
			madvise(base, NR_PAGES * page_size, MADV_DONTNEED);
			_exit(0);
		}
		__atomic_fetch_add(pid < 0 ? errors : forks, 1,
				   __ATOMIC_RELAXED);
	}
}

/* NR_IDLE children without the pages, which sleep until killed */
static int idle_children(pid_t *pids)
{
	int i;

	for (i = 0; i < NR_IDLE; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			return -1;
		if (pids[i] == 0) {
			madvise(base, NR_PAGES * page_size, MADV_DONTNEED);
			for (;;)
				pause();
		}
	}
	return 0;
}

static void kill_all(pid_t *pids, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (pids[i] > 0)
			kill(pids[i], SIGKILL);
}

static void *walker(void *arg)
{
	(void)arg;
	walks_asked = idle_mark_until(pfn, NR_PAGES, &stop);
	return NULL;
}

int main(void)
{
	long long compared, mismatches, counted, count_mismatches, changed;
	static pid_t pids[2 * NR_IDLE + 1];
	volatile long *counts;
	long forks, fork_errors;
	pthread_t thread;
	int failed = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	page_size = sysconf(_SC_PAGESIZE);
	compared = shadow_counter("walks_compared");
	count_mismatches = shadow_counter("verify_count_mismatches");
	changed = shadow_counter("compared_changed");
	if (access(IDLE_BITMAP, W_OK) || compared < 0 ||
	    count_mismatches < 0 || changed < 0) {
		printf("# zapfork: SKIP, no page_idle bitmap or no cow_context counters\n");
		return 4;
	}
	base = mmap(NULL, NR_PAGES * page_size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	counts = mmap(NULL, 2 * sizeof(*counts), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED || counts == MAP_FAILED) {
		printf("# zapfork: mmap: %s\n", strerror(errno));
		return 1;
	}
	memset(base, 'z', NR_PAGES * page_size);
	if (self_pfns(base, NR_PAGES, page_size, pfn) != NR_PAGES ||
	    lru_drain_all()) {
		printf("# zapfork: pagemap or drop_caches failed\n");
		return 1;
	}
	/* children are reaped by the kernel */
	signal(SIGCHLD, SIG_IGN);
	mismatches = shadow_counter("mismatches");
	counted = shadow_counter("verify_count_checked");
	if (pthread_create(&thread, NULL, walker, NULL)) {
		printf("# zapfork: pthread_create failed\n");
		return 1;
	}
	if (idle_children(pids)) {
		printf("# zapfork: fork: %s\n", strerror(errno));
		failed = 1;
	} else {
		pids[NR_IDLE] = fork();
		if (pids[NR_IDLE] == 0)
			spawner(&counts[0], &counts[1]);
		if (pids[NR_IDLE] < 0 || idle_children(pids + NR_IDLE + 1)) {
			printf("# zapfork: fork: %s\n", strerror(errno));
			failed = 1;
		} else {
			sleep(RUN_SECS);
		}
	}
	kill_all(pids, 2 * NR_IDLE + 1);
	stop = 1;
	pthread_join(thread, NULL);
	forks = counts[0];
	fork_errors = counts[1];
	compared = shadow_counter("walks_compared") - compared;
	mismatches = shadow_counter("mismatches") - mismatches;
	counted = shadow_counter("verify_count_checked") - counted;
	count_mismatches = shadow_counter("verify_count_mismatches") -
			   count_mismatches;
	changed = shadow_counter("compared_changed") - changed;
	printf("# zapfork: %ld forks (%ld failed), %ld walks asked, %lld compared, %lld count-checked, %lld while the mappings changed; %lld shadow and %lld count mismatches\n",
	       forks, fork_errors, walks_asked, compared, counted, changed,
	       mismatches, count_mismatches);
	failed |= compared <= 0 || forks <= 0 || fork_errors || changed <= 0;
	printf("%s 1 - walks compared while children came and went: %lld walks, %ld forks, %lld while the mappings changed\n",
	       failed ? "not ok" : "ok", compared, forks, changed);
	printf("%s 2 - no shadow or count mismatch: %lld, %lld\n",
	       mismatches || count_mismatches ? "not ok" : "ok", mismatches,
	       count_mismatches);
	printf("1..2\n");
	return failed || mismatches || count_mismatches;
}
