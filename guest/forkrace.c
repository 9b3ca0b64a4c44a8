// SPDX-License-Identifier: GPL-2.0
/*
 * cowctx-forkrace: try to break fork-generation pruning (patch 0011) in
 * the guest, where it could fail: a parent that faults while it forks.
 *
 * dup_mmap() write-locks the parent's VMAs one at a time, in address
 * order, as it copies them, and a page fault needs only its own VMA's
 * lock: so a thread of the parent can fault new folios into a VMA that
 * the fork has not reached yet, and the child then copies them. Those
 * folios are stamped while the child's fork is still pending; if the
 * child's fork generation were taken at the wrong time, or the stamp
 * read at the wrong time, a walk of such a folio would prune the child
 * and miss its mapping, and under cow_context=shadow that is a mismatch.
 *
 * The parent has a region of NR_PAGES at a high address and NR_LOW
 * single-page VMAs below it, which dup_mmap() copies first, to keep the
 * window open (some of them MADV_DONTFORK and MADV_WIPEONFORK, which
 * dup_mmap() drops from the child's tree or copies without pages). A thread writes the region's pages round and round; the
 * main thread empties the region (MADV_DONTNEED) and forks, NR_FORKS
 * times; each child walks every page it has of the region through
 * page_idle, which compares both reverse maps, and exits. The thread
 * counts the pages it faulted in while the main thread was inside fork().
 *
 * Exit 0 when the shadow check saw no mismatch, compared walks, and
 * some faults did land inside a fork (else the race was not tried:
 * exit 1); 4 (kselftest's skip) without page_idle or the counters.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "idle.h"

#define NR_PAGES	256
#define NR_LOW		1000
#define NR_FORKS	200
#define HIGH_HINT	((void *)0x7e0000000000UL)
#define LOW_BASE	0x100000000UL

static long page_size;
static char *region;
/* the main thread's round: bumped before each MADV_DONTNEED */
static volatile unsigned long round_nr;
static volatile int in_fork, stop;
static long faults_in_fork;

static void *faulter(void *arg)
{
	unsigned long *seen = calloc(NR_PAGES, sizeof(*seen));
	unsigned long i;

	(void)arg;
	if (!seen)
		return NULL;
	for (i = 0; !stop; i = (i + 1) % NR_PAGES) {
		unsigned long r = round_nr;
		int during = in_fork;

		region[i * page_size] = 1;
		/* a first write in this round is a fault: count it if in fork */
		if (seen[i] != r + 1) {
			seen[i] = r + 1;
			if (during && in_fork)
				faults_in_fork++;
		}
	}
	free(seen);
	return NULL;
}

/* The child: walk every page it has of the region; 0, or 1 on an error */
static int child_walks(void)
{
	int pagemap = open("/proc/self/pagemap", O_RDONLY);
	int bitmap = open(IDLE_BITMAP, O_RDWR);
	long i;

	if (pagemap < 0 || bitmap < 0)
		return 1;
	/* page_idle walks only folios on an LRU list, not in a CPU's batch */
	if (lru_drain_all())
		return 1;
	for (i = 0; i < NR_PAGES; i++) {
		uint64_t pfn;

		if (pagemap_pfn(pagemap, (uintptr_t)region + i * page_size,
				page_size, &pfn))
			continue;
		if (idle_mark(bitmap, pfn))
			return 1;
	}
	return 0;
}

/*
 * NR_LOW one-page VMAs with a hole after each, below the region. Every
 * 8th is MADV_DONTFORK and every 8th (the next) MADV_WIPEONFORK: the
 * child's copy of the tree, out of RCU mode while dup_mmap() fills it,
 * then loses entries as the fork goes (the DONTFORK ones are removed
 * from it), while walks of the parent's folios reach the child's VMAs.
 */
static int map_low(void)
{
	long i;

	if (map_small_vmas(LOW_BASE, NR_LOW, page_size))
		return -1;
	for (i = 0; i < NR_LOW; i++) {
		char *p = (char *)(LOW_BASE + 2 * i * page_size);

		if ((i % 8 == 0 && madvise(p, page_size, MADV_DONTFORK)) ||
		    (i % 8 == 1 && madvise(p, page_size, MADV_WIPEONFORK)))
			return -1;
	}
	return 0;
}

int main(void)
{
	struct shadow_counters before, after;
	long long walks, mismatches;
	pthread_t thread;
	int k, failed = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	page_size = sysconf(_SC_PAGESIZE);
	if (access(IDLE_BITMAP, W_OK) || shadow_counter("mismatches") < 0) {
		printf("# forkrace: SKIP, no page_idle bitmap or no cow_context counters\n");
		return 4;
	}
	region = mmap(HIGH_HINT, NR_PAGES * page_size, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED || map_low()) {
		printf("# forkrace: mmap: %s\n", strerror(errno));
		return 1;
	}
	if ((uintptr_t)region < LOW_BASE + 2 * NR_LOW * page_size) {
		printf("# forkrace: the region %p is not above the small VMAs\n",
		       region);
		return 1;
	}
	shadow_read(&before);
	if (pthread_create(&thread, NULL, faulter, NULL)) {
		printf("# forkrace: pthread_create failed\n");
		return 1;
	}
	for (k = 0; k < NR_FORKS && !failed; k++) {
		int status;
		pid_t pid;

		round_nr++;
		madvise(region, NR_PAGES * page_size, MADV_DONTNEED);
		in_fork = 1;
		pid = fork();
		if (pid == 0)
			_exit(child_walks());
		in_fork = 0;
		if (pid < 0 || waitpid(pid, &status, 0) != pid ||
		    !WIFEXITED(status) || WEXITSTATUS(status)) {
			printf("# forkrace: fork %d failed\n", k);
			failed = 1;
		}
	}
	stop = 1;
	pthread_join(thread, NULL);
	shadow_read(&after);
	walks = after.compared - before.compared;
	mismatches = after.mismatches - before.mismatches;
	printf("# forkrace: %d forks, %ld faults inside a fork, %lld walks compared, %lld mismatches, %lld contexts pruned\n",
	       k, faults_in_fork, walks, mismatches,
	       shadow_counter("contexts_pruned"));
	if (failed)
		return 1;
	if (mismatches) {
		printf("not ok - forkrace: the shadow check found mismatches\n");
		return 1;
	}
	if (walks <= 0 || faults_in_fork <= 0) {
		printf("not ok - forkrace: the race was not tried (walks %lld, faults inside a fork %ld)\n",
		       walks, faults_in_fork);
		return 1;
	}
	return 0;
}
