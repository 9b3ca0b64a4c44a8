// SPDX-License-Identifier: GPL-2.0
/*
 * cowctx-scanrace: try to make the verifier's scan oracle report a
 * difference where the walk was right (patch 0024).
 *
 * The scan oracle reads every mm's page tables after the walk and
 * compares; a change of the folio's mapcount in between makes it judge
 * nothing. But a writer of mmap_lock can change what the scan finds
 * without changing any mapcount: mprotect() splits a VMA (the folio's
 * mapping is then in another vm_area_struct) and merges it back,
 * mremap() moves a page's entry to another address and back. And a child
 * that the walk visited while fork() filled it can do the same before the
 * scan reads it.
 *
 * So here every walk is scanned (debugfs verify_scan_every = 1) while the
 * parent walks its NR_PAGES shared pages through page_idle, over and over,
 * for WALK_SECS, and a child that shares them keeps splitting, merging and
 * moving its own mappings of them, and forks grandchildren that do the
 * same at once, for a while, and exit.
 *
 * Exit 0 when scans ran, the race was met (the scan left out an mm whose
 * mmap_lock a writer took since the walk began) and no oracle or shadow
 * check reported a difference; 1 otherwise; 4 (kselftest's skip) without
 * page_idle or the cow_context debugfs counters.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "idle.h"

#define NR_PAGES	16
#define WALK_SECS	10
/* the child forks a grandchild after every FORK_EVERY changes */
#define FORK_EVERY	32
#define GRANDCHILD_CHANGES	16
#define SCAN_EVERY	SHADOW_DIR "/verify_scan_every"

static long page_size;

/* What the mutators share with the parent */
struct shared {
	volatile int stop;
	volatile long changes;
	volatile long forks;
	volatile int failed;
};

/*
 * One change of this process's mappings of the region that leaves every
 * mapcount as it was: page @n's VMA split off and merged back (mprotect),
 * or page @n moved to @hole and back (mremap).
 */
static int change(char *base, char *hole, unsigned int n)
{
	char *p = base + (n % NR_PAGES) * page_size;

	if (n & 1)
		return mprotect(p, page_size, PROT_READ) ||
		       mprotect(p, page_size, PROT_READ | PROT_WRITE);
	if (mremap(p, page_size, page_size, MREMAP_MAYMOVE | MREMAP_FIXED,
		   hole) == MAP_FAILED)
		return -1;
	if (mremap(hole, page_size, page_size, MREMAP_MAYMOVE | MREMAP_FIXED,
		   p) == MAP_FAILED)
		return -1;
	/* mremap() left nothing at @hole: reserve it again */
	return mmap(hole, page_size, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
	       MAP_FAILED ? -1 : 0;
}

static void mutator(char *base, char *hole, struct shared *sh)
{
	unsigned int n = 0;
	int i;

	while (!sh->stop) {
		if (change(base, hole, n++)) {
			printf("# child: change %u: %s\n", n, strerror(errno));
			sh->failed = 1;
			return;
		}
		__atomic_fetch_add(&sh->changes, 1, __ATOMIC_RELAXED);
		if (n % FORK_EVERY)
			continue;
		/* reaped by the kernel: SIGCHLD is ignored */
		if (fork() == 0) {
			for (i = 0; i < GRANDCHILD_CHANGES && !sh->stop; i++)
				if (change(base, hole, n + i))
					_exit(1);
			_exit(0);
		}
		__atomic_fetch_add(&sh->forks, 1, __ATOMIC_RELAXED);
	}
}

/* The debugfs counters read before and after the walks */
enum { SCANNED, LEFT_OUT_CHANGED, SCAN_MISMATCHES, COUNT_MISMATCHES,
	SHADOW_MISMATCHES, NR_COUNTERS };

static const char *const names[NR_COUNTERS] = {
	[SCANNED]		= "verify_scanned",
	[LEFT_OUT_CHANGED]	= "verify_scan_left_out_changed",
	[SCAN_MISMATCHES]	= "verify_scan_mismatches",
	[COUNT_MISMATCHES]	= "verify_count_mismatches",
	[SHADOW_MISMATCHES]	= "mismatches",
};

int main(void)
{
	long long before[NR_COUNTERS], delta[NR_COUNTERS], every;
	uint64_t pfn[NR_PAGES];
	unsigned long walks = 0;
	struct shared *sh;
	char *base, *hole, buf[32];
	int bitmap, i, status, failed = 0;
	time_t end;
	pid_t pid;

	page_size = sysconf(_SC_PAGESIZE);
	every = read_knob(SCAN_EVERY);
	for (i = 0; i < NR_COUNTERS; i++)
		before[i] = shadow_counter(names[i]);
	if (access(IDLE_BITMAP, W_OK) || every < 0 || before[SCANNED] < 0 ||
	    before[LEFT_OUT_CHANGED] < 0) {
		printf("# SKIP no page_idle bitmap or cow_context verifier\n");
		return 4;
	}
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	base = mmap(NULL, NR_PAGES * page_size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	hole = mmap(NULL, page_size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);
	if (sh == MAP_FAILED || base == MAP_FAILED || hole == MAP_FAILED) {
		printf("# mmap: %s\n", strerror(errno));
		return 1;
	}
	memset(base, 'p', NR_PAGES * page_size);
	if (self_pfns(base, NR_PAGES, page_size, pfn) != NR_PAGES) {
		printf("# pagemap: the region is not all present\n");
		return 1;
	}
	signal(SIGCHLD, SIG_IGN);
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		printf("# fork: %s\n", strerror(errno));
		return 1;
	}
	if (!pid) {
		mutator(base, hole, sh);
		fflush(stdout);
		_exit(0);
	}
	bitmap = open(IDLE_BITMAP, O_RDWR);
	if (bitmap < 0 || lru_drain_all() || write_knob(SCAN_EVERY, "1")) {
		printf("# page_idle, drop_caches or %s: %s\n", SCAN_EVERY,
		       strerror(errno));
		failed = 1;
	}
	end = time(NULL) + WALK_SECS;
	while (!failed && time(NULL) < end && !sh->failed) {
		for (i = 0; i < NR_PAGES; i++) {
			if (idle_mark(bitmap, pfn[i])) {
				printf("# page_idle: %s\n", strerror(errno));
				failed = 1;
				break;
			}
			walks++;
		}
	}
	snprintf(buf, sizeof(buf), "%lld", every);
	if (write_knob(SCAN_EVERY, buf)) {
		printf("# %s: cannot restore %s\n", SCAN_EVERY, buf);
		failed = 1;
	}
	sh->stop = 1;
	/*
	 * SIGCHLD ignored: waitpid() fails (ECHILD) once the child is gone,
	 * which says how it went in sh->failed
	 */
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (bitmap >= 0)
		close(bitmap);
	if (sh->failed)
		failed = 1;
	for (i = 0; i < NR_COUNTERS; i++)
		delta[i] = shadow_counter(names[i]) - before[i];
	printf("# scanrace: %lu walks asked; the child made %ld changes and %ld forks; %lld scans, %lld mms left out as changed\n",
	       walks, sh->changes, sh->forks, delta[SCANNED],
	       delta[LEFT_OUT_CHANGED]);
	printf("%s 1 - walks were scanned: %lld (at least 100)\n",
	       delta[SCANNED] >= 100 ? "ok" : "not ok", delta[SCANNED]);
	printf("%s 2 - the race was met: %ld changes, %lld mms left out as changed since the walk\n",
	       sh->changes > 0 && delta[LEFT_OUT_CHANGED] > 0 ? "ok" : "not ok",
	       sh->changes, delta[LEFT_OUT_CHANGED]);
	printf("%s 3 - no difference: %lld scan, %lld count, %lld shadow mismatches\n",
	       delta[SCAN_MISMATCHES] || delta[COUNT_MISMATCHES] ||
	       delta[SHADOW_MISMATCHES] ? "not ok" : "ok",
	       delta[SCAN_MISMATCHES], delta[COUNT_MISMATCHES],
	       delta[SHADOW_MISMATCHES]);
	printf("1..3\n");
	if (delta[SCANNED] < 100 || !sh->changes ||
	    delta[LEFT_OUT_CHANGED] <= 0 || delta[SCAN_MISMATCHES] ||
	    delta[COUNT_MISMATCHES] || delta[SHADOW_MISMATCHES])
		failed = 1;
	return failed;
}
