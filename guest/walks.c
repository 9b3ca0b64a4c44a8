// SPDX-License-Identifier: GPL-2.0
/*
 * cowctx-walks: force reverse-map walks of shared anonymous folios in a
 * fork tree with moved ranges, in the guest. A parent faults a region,
 * forks children, and each child moves half of it (mremap) and writes to
 * a quarter (COW), so folios are mapped by several processes at several
 * offsets. Then every process marks each of its pages idle through the
 * page_idle bitmap, which walks the folio's rmap (under cow_context=shadow
 * both reverse maps are compared), and reads the idle bit back: set, it
 * shows the walk ran and found no young mapping left.
 *
 * The idle bit belongs to the folio, not to a mapping, and page_idle
 * ignores folios that are not on an LRU list: so every process finishes
 * its faults, the per-CPU LRU batches are drained, and only then does any
 * process walk, and none touches the region while the others walk (an
 * access through any mapping would clear the bit another process set).
 *
 * Then the parent moves NR_REMAPS pages, each faulted at one address and
 * moved away, so that as many remap entries cover one anonymous offset,
 * more than the walk takes in one batch, and walks each: the COW walk
 * must look at every entry (none compared is skipped for too many), and
 * find each page at its own new place.
 *
 * Exit 0 when every walk was confirmed and the shadow check's counters
 * grew by at least the walks forced, 1 otherwise, 4 (kselftest's skip)
 * without page_idle.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "idle.h"

#define NR_PAGES	64
#define NR_CHILDREN	4
#define ROUNDS		5
/* more than two of the walk's batches of remap entries (16) */
#define NR_REMAPS	40

static long page_size;

/* Blocks until the parent closes the other end of @go. */
static int wait_go(int go)
{
	char c;

	return read(go, &c, 1) == 0 ? 0 : -1;
}

static int child(char *base, size_t len, int n, int ready, int go,
		 long *confirmed)
{
	size_t half = len / 2;
	char name[16], *moved, *to;
	long a, b;

	snprintf(name, sizeof(name), "child %d", n);
	/* a fresh place, so that the range really moves (offset != 0) */
	to = mmap(NULL, half, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (to == MAP_FAILED)
		return 1;
	moved = mremap(base + half, half, half, MREMAP_MAYMOVE | MREMAP_FIXED,
		       to);
	if (moved == MAP_FAILED)
		return 1;
	memset(base, 'a' + n, len / 4);	/* COW of the first quarter */
	if (write(ready, "r", 1) != 1 || wait_go(go))
		return 1;
	a = idle_walk_range(name, base, half, page_size, ROUNDS);
	b = a < 0 ? -1 :
		idle_walk_range(name, moved, half, page_size, ROUNDS);
	*confirmed = b < 0 ? 0 : a + b;
	printf("# %s: %ld walks confirmed\n", name, *confirmed);
	return b < 0;
}

/* ok 3 and ok 4 fail together when their pages cannot be set up */
static int remaps_failed(const char *what)
{
	printf("not ok 3 - remaps: %s: %s\nnot ok 4 - remaps: not walked\n",
	       what, strerror(errno));
	return 1;
}

/*
 * NR_REMAPS pages faulted one after another at one address, each moved
 * to its own place in a reserved range, a page apart so that none
 * merges: the walk of any of them meets all NR_REMAPS remap entries.
 * Walks each; ok 3 and ok 4 say how it went. Returns 0 or 1.
 */
static int remaps_one_offset(void)
{
	long long compared, too_many, mismatches;
	char *at, *dst, *p;
	long done = 0, n;
	int i, failed = 0;

	at = mmap(NULL, page_size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		  -1, 0);
	dst = mmap(NULL, 2 * NR_REMAPS * page_size, PROT_NONE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (at == MAP_FAILED || dst == MAP_FAILED)
		return remaps_failed("mmap");
	for (i = 0; i < NR_REMAPS; i++) {
		p = mmap(at, page_size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		if (p == MAP_FAILED)
			return remaps_failed("mmap");
		*p = i;
		if (mremap(p, page_size, page_size,
			   MREMAP_MAYMOVE | MREMAP_FIXED,
			   dst + 2 * i * page_size) == MAP_FAILED)
			return remaps_failed("mremap");
	}
	if (lru_drain_all())
		return remaps_failed("drop_caches");
	compared = shadow_counter("walks_compared");
	too_many = shadow_counter("skipped_too_many_mappings");
	mismatches = shadow_counter("mismatches");
	for (i = 0; i < NR_REMAPS && !failed; i++) {
		p = dst + 2 * i * page_size;
		n = *p == i ? idle_walk_range("remaps", p, page_size,
					      page_size, ROUNDS) : -1;
		if (n < ROUNDS)
			failed = 1;
		done += n > 0 ? n : 0;
	}
	printf("%s 3 - %d pages moved from one address: each walk confirmed (%ld)\n",
	       failed ? "not ok" : "ok", NR_REMAPS, done);
	if (compared < 0) {
		printf("ok 4 - # SKIP no cow_context shadow counters\n");
		return failed;
	}
	compared = shadow_counter("walks_compared") - compared;
	too_many = shadow_counter("skipped_too_many_mappings") - too_many;
	mismatches = shadow_counter("mismatches") - mismatches;
	printf("# remaps: %ld walks confirmed, %lld compared, %lld skipped for too many mappings, %lld mismatches\n",
	       done, compared, too_many, mismatches);
	if (compared < 2 * done || too_many || mismatches)
		failed = 1;
	printf("%s 4 - and compared, every entry looked at: %lld compared (at least %ld), %lld skipped for too many, %lld mismatches\n",
	       compared < 2 * done || too_many || mismatches ? "not ok" : "ok",
	       compared, 2 * done, too_many, mismatches);
	return failed;
}

int main(void)
{
	int ready[2], go[2], i, status, failed = 0;
	struct shadow_counters before, after;
	long *confirmed, total = 0;
	long long seen;
	size_t len;
	char *base, c;

	page_size = sysconf(_SC_PAGESIZE);
	len = NR_PAGES * page_size;
	if (access(IDLE_BITMAP, W_OK)) {
		printf("# SKIP no page_idle bitmap: %s\n", strerror(errno));
		return 4;
	}
	/* shared, so that each child's count reaches the parent */
	confirmed = mmap(NULL, (NR_CHILDREN + 1) * sizeof(*confirmed),
			 PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			 -1, 0);
	base = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (confirmed == MAP_FAILED || base == MAP_FAILED ||
	    pipe(ready) || pipe(go))
		return 1;
	memset(base, 'p', len);
	fflush(stdout);
	for (i = 0; i < NR_CHILDREN; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (!pid) {
			close(go[1]);
			status = child(base, len, i, ready[1], go[0],
				       &confirmed[i]);
			fflush(stdout);
			_exit(status);
		}
	}
	close(go[0]);
	for (i = 0; i < NR_CHILDREN; i++) {
		if (read(ready[0], &c, 1) != 1) {
			printf("# a child died before it was ready\n");
			failed = 1;
			break;
		}
	}
	if (lru_drain_all()) {
		printf("# drop_caches: %s\n", strerror(errno));
		failed = 1;
	}
	shadow_read(&before);
	close(go[1]);
	confirmed[NR_CHILDREN] = idle_walk_range("parent", base, len,
						 page_size, ROUNDS);
	printf("# parent: %ld walks confirmed\n", confirmed[NR_CHILDREN]);
	if (confirmed[NR_CHILDREN] < 0)
		failed = 1;
	for (i = 0; i < NR_CHILDREN; i++) {
		if (wait(&status) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			failed = 1;
	}
	shadow_read(&after);
	for (i = 0; i <= NR_CHILDREN; i++)
		total += confirmed[i] > 0 ? confirmed[i] : 0;
	printf("%s 1 - every forced walk confirmed by the idle bit (%ld)\n",
	       failed ? "not ok" : "ok", total);
	/* each confirmed walk was a write and a read of the bitmap */
	seen = shadow_walks(&before, &after);
	if (seen < 0) {
		printf("ok 2 - # SKIP no cow_context shadow counters\n");
	} else {
		printf("%s 2 - the shadow check saw them: %lld walks, at least %ld\n",
		       seen >= 2 * total ? "ok" : "not ok", seen, 2 * total);
		if (seen < 2 * total)
			failed = 1;
	}
	failed |= remaps_one_offset();
	printf("1..4\n");
	return failed;
}
