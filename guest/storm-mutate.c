// SPDX-License-Identifier: GPL-2.0
/*
 * The storm's mutators: on one CPU, trees of processes over one arena.
 * The root faults the arena's first half, forks, and then it and every
 * descendant mutate their copy: move chunks between the halves (mremap,
 * so folios are mapped at other offsets than they were faulted at),
 * mprotect them (VMA split and merge), write (COW), zap and refault,
 * mark them MADV_DONTFORK or MADV_WIPEONFORK (a fork then drops the
 * chunk from the child's tree, or copies it without its pages, while
 * walkers reach the child's VMAs), fork again, and exit. Every mapping
 * stays inside the arena, which is what the walkers read through
 * pagemap.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "storm.h"

#define ARENA_PAGES	512	/* two halves of 256 */
#define CHUNK_PAGES	8
#define NR_CHUNKS	(ARENA_PAGES / 2 / CHUNK_PAGES)
#define TREE_CHILDREN	2
#define MAX_DEPTH	2
#define OPS_PER_PROC	64

/* How a chunk's VMA is advised to fork */
enum fork_advice { FORK_COPY, FORK_DONT, FORK_WIPE };

struct arena {
	char *base;
	size_t half;
	size_t chunk;
	unsigned char moved[NR_CHUNKS];	/* 1: chunk lives in the 2nd half */
	unsigned char advice[NR_CHUNKS];	/* enum fork_advice */
	int depth;
	unsigned int seed;
	int slot;
};

static int slot_claim(struct arena *a)
{
	int i;

	for (i = 0; i < STORM_SLOTS; i++) {
		pid_t free = 0;

		/* -1 while base and len are written, so no walker reads them */
		if (!__atomic_compare_exchange_n(&storm->slot[i].pid, &free, -1,
						 0, __ATOMIC_ACQ_REL,
						 __ATOMIC_RELAXED))
			continue;
		storm->slot[i].base = (uintptr_t)a->base;
		storm->slot[i].len = 2 * a->half;
		__atomic_store_n(&storm->slot[i].pid, getpid(),
				 __ATOMIC_RELEASE);
		return i;
	}
	return -1;
}

static void slot_release(int slot)
{
	if (slot >= 0)
		__atomic_store_n(&storm->slot[slot].pid, 0, __ATOMIC_RELEASE);
}

static char *chunk_addr(struct arena *a, int i)
{
	return a->base + (a->moved[i] ? a->half : 0) + i * a->chunk;
}

static void touch(struct arena *a, int i, int write)
{
	volatile char *p = chunk_addr(a, i);
	size_t off;

	for (off = 0; off < a->chunk; off += storm_page_size) {
		if (write)
			p[off] = (char)a->seed;
		else
			(void)p[off];
	}
}

/* Moves chunk @i to the other half and keeps the hole reserved. */
static int move_chunk(struct arena *a, int i)
{
	char *from = chunk_addr(a, i);
	char *to = from + (a->moved[i] ? -(long)a->half : (long)a->half);

	if (mremap(from, a->chunk, a->chunk, MREMAP_MAYMOVE | MREMAP_FIXED,
		   to) == MAP_FAILED)
		return -1;
	a->moved[i] = !a->moved[i];
	if (mmap(from, a->chunk, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
		return -1;
	return 0;
}

static int protect_chunk(struct arena *a, int i)
{
	char *p = chunk_addr(a, i);

	if (mprotect(p, a->chunk, PROT_READ))
		return -1;
	touch(a, i, 0);
	return mprotect(p, a->chunk, PROT_READ | PROT_WRITE);
}

/* A new VMA where the chunk was: its folios are unmapped here. */
static int remap_chunk(struct arena *a, int i)
{
	char *p = chunk_addr(a, i);

	if (munmap(p, a->chunk))
		return -1;
	if (mmap(p, a->chunk, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
		return -1;
	a->advice[i] = FORK_COPY;
	touch(a, i, 1);
	return 0;
}

/* The next advice for the chunk's VMA: don't fork, wipe, back to copy */
static int advise_chunk(struct arena *a, int i)
{
	static const int advice[][2] = {
		[FORK_COPY] = { MADV_DOFORK, MADV_KEEPONFORK },
		[FORK_DONT] = { MADV_DONTFORK, MADV_KEEPONFORK },
		[FORK_WIPE] = { MADV_DOFORK, MADV_WIPEONFORK },
	};
	int next = (a->advice[i] + 1) % 3;
	char *p = chunk_addr(a, i);

	if (madvise(p, a->chunk, advice[next][0]) ||
	    madvise(p, a->chunk, advice[next][1]))
		return -1;
	a->advice[i] = next;
	return 0;
}

static int cmp_addr(const void *x, const void *y)
{
	char *const *a = x, *const *b = y;

	return *a < *b ? -1 : *a > *b;
}

/*
 * In a child: the chunks its fork did not copy are mapped afresh where
 * they were (and then no longer advised), so that every chunk is there
 * to mutate, as the walkers expect of the arena. So are the chunks it
 * wiped: a wiped copy of a chunk that mremap() had moved keeps the
 * moved chunk's vm_pgoff without its anon_vma, and 7.3's
 * assert_sane_pgoff() (DEBUG_VM) warns when such a VMA is split (the
 * child's next madvise() or mprotect() of part of it did so in the storm
 * of 2026-12-06), a warning the series has no part in. So does a
 * MAP_FIXED over part of it: wiped chunks next to each other merge into
 * one VMA (the CI run of 2026-12-07 warned from this mmap), so each run
 * of chunks that lie next to each other in memory is mapped at once,
 * whole, which replaces whole VMAs and splits none. The walks that
 * matter, those that reach the child's VMAs while dup_mmap() copies and
 * wipes them, happen before this.
 */
static int refill_uncopied(struct arena *a)
{
	char *addr[NR_CHUNKS];
	int i, j, n = 0;

	for (i = 0; i < NR_CHUNKS; i++) {
		if (a->advice[i] == FORK_COPY)
			continue;
		addr[n++] = chunk_addr(a, i);
		a->advice[i] = FORK_COPY;
	}
	qsort(addr, n, sizeof(*addr), cmp_addr);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && addr[j] == addr[j - 1] + a->chunk; j++)
			;
		if (mmap(addr[i], (j - i) * a->chunk, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
			 -1, 0) == MAP_FAILED)
			return -1;
	}
	return 0;
}

static void mutate(struct arena *a);

static pid_t spawn(struct arena *a)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (refill_uncopied(a))
		storm_error(STORM_MUTATE, "mmap after MADV_DONTFORK or WIPEONFORK",
			    errno);
	a->depth++;
	a->seed = a->seed * 31 + getpid();
	a->slot = slot_claim(a);
	mutate(a);
	slot_release(a->slot);
	_exit(0);
}

/* OPS_PER_PROC random mutations, then wait for the children forked. */
static void mutate(struct arena *a)
{
	int n, i, status, children = 0;
	long ops = 0, forks = 0;
	pid_t pid;

	for (n = 0; n < OPS_PER_PROC && !storm_over(); n++) {
		const char *what = NULL;

		i = storm_rand(&a->seed, NR_CHUNKS);
		switch (storm_rand(&a->seed, 9)) {
		case 0:
		case 1:
			touch(a, i, 1);
			break;
		case 2:
			touch(a, i, 0);
			break;
		case 3:
			if (move_chunk(a, i))
				what = "mremap";
			break;
		case 4:
			if (protect_chunk(a, i))
				what = "mprotect";
			break;
		case 5:
			if (madvise(chunk_addr(a, i), a->chunk, MADV_DONTNEED))
				what = "madvise(DONTNEED)";
			break;
		case 6:
			if (remap_chunk(a, i))
				what = "munmap/mmap";
			break;
		case 8:
			if (advise_chunk(a, i))
				what = "madvise(DONTFORK/WIPEONFORK)";
			break;
		case 7:
			if (a->depth >= MAX_DEPTH)
				break;
			pid = spawn(a);
			if (pid < 0)
				what = "fork";
			else
				children++, forks++;
			break;
		}
		if (what)
			storm_error(STORM_MUTATE, what, errno);
		ops++;
	}
	while (children-- > 0) {
		if (wait(&status) < 0)
			storm_error(STORM_MUTATE, "wait", errno);
		else if (!WIFEXITED(status) || WEXITSTATUS(status))
			storm_error(STORM_MUTATE, "a mutator died", EINTR);
	}
	storm_count(STORM_MUTATE, 0, forks, ops);
}

/* A tree: the root faults the first half, forks, everyone mutates. */
static void tree(unsigned int seed)
{
	struct arena a = { .seed = seed, .slot = -1 };
	int c, status, children = 0;
	size_t len;

	a.chunk = CHUNK_PAGES * storm_page_size;
	a.half = NR_CHUNKS * a.chunk;
	len = 2 * a.half;
	a.base = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a.base == MAP_FAILED ||
	    mprotect(a.base, a.half, PROT_READ | PROT_WRITE)) {
		storm_error(STORM_MUTATE, "mmap", errno);
		return;
	}
	memset(a.base, 'r', a.half);
	a.slot = slot_claim(&a);
	for (c = 0; c < TREE_CHILDREN; c++) {
		if (spawn(&a) < 0)
			storm_error(STORM_MUTATE, "fork", errno);
		else
			children++;
	}
	storm_count(STORM_MUTATE, 1, children, 0);
	mutate(&a);
	while (children-- > 0) {
		if (wait(&status) < 0)
			storm_error(STORM_MUTATE, "wait", errno);
		else if (!WIFEXITED(status) || WEXITSTATUS(status))
			storm_error(STORM_MUTATE, "a mutator died", EINTR);
	}
	slot_release(a.slot);
	munmap(a.base, len);
}

void storm_mutator(int cpu)
{
	unsigned int seed = 1 + cpu;

	while (!storm_over())
		tree(seed++ * 2654435761u);
}
