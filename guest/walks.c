// SPDX-License-Identifier: GPL-2.0
/*
 * cowctx-walks: force reverse-map walks of shared anonymous folios in a
 * fork tree with moved ranges, in the guest. A parent faults a region,
 * forks children, and each child moves half of it (mremap) and writes to
 * a quarter (COW), so folios are mapped by several processes at several
 * offsets. Then every process marks each of its pages idle through
 * /sys/kernel/mm/page_idle/bitmap, which walks the folio's rmap (under
 * cow_context=shadow, both reverse maps are compared), and reads the idle
 * bit back: set, it shows the walk ran and found no young mapping left.
 * Exit 0 when every walk was confirmed, 1 otherwise, 4 (kselftest's skip)
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

#define NR_PAGES	64
#define NR_CHILDREN	4
#define ROUNDS		20

static long page_size;

static int pfn_of(int pagemap, void *addr, uint64_t *pfn)
{
	uint64_t ent;
	off_t off = (uintptr_t)addr / page_size * sizeof(ent);

	if (pread(pagemap, &ent, sizeof(ent), off) != sizeof(ent))
		return -1;
	if (!(ent & (1ULL << 63)))
		return -1;		/* not present (swapped out) */
	*pfn = ent & ((1ULL << 55) - 1);
	return 0;
}

/* Marks @addr's folio idle (a walk) and reads the bit back (another). */
static int force_walk(int pagemap, int bitmap, void *addr)
{
	uint64_t pfn, word, bit;
	off_t off;

	if (pfn_of(pagemap, addr, &pfn))
		return 0;		/* nothing mapped: nothing to walk */
	off = pfn / 64 * sizeof(word);
	bit = 1ULL << (pfn % 64);
	if (pwrite(bitmap, &bit, sizeof(bit), off) != sizeof(bit))
		return -1;
	if (pread(bitmap, &word, sizeof(word), off) != sizeof(word))
		return -1;
	return (word & bit) ? 1 : -1;
}

/* Returns the number of walks confirmed, or -1 if one was not. */
static long walk_all(char *base, size_t len)
{
	int pagemap = open("/proc/self/pagemap", O_RDONLY);
	int bitmap = open("/sys/kernel/mm/page_idle/bitmap", O_RDWR);
	long done = 0;
	size_t off;
	int r, round;

	if (pagemap < 0 || bitmap < 0)
		return -1;
	for (round = 0; round < ROUNDS; round++) {
		for (off = 0; off < len; off += page_size) {
			r = force_walk(pagemap, bitmap, base + off);
			if (r < 0)
				return -1;
			done += r;
		}
	}
	close(pagemap);
	close(bitmap);
	return done;
}

static int child(char *base, size_t len, int n)
{
	size_t half = len / 2;
	char *moved, *to;
	long walks;

	/* a fresh place, so that the range really moves (offset != 0) */
	to = mmap(NULL, half, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (to == MAP_FAILED)
		return 1;
	moved = mremap(base + half, half, half, MREMAP_MAYMOVE | MREMAP_FIXED,
		       to);
	if (moved == MAP_FAILED)
		return 1;
	memset(base, 'a' + n, len / 4);	/* COW of the first quarter */
	walks = walk_all(base, half);
	if (walks >= 0)
		walks += walk_all(moved, half);
	printf("# child %d: %ld walks confirmed\n", n, walks < 0 ? 0 : walks);
	return walks < 0;
}

int main(void)
{
	size_t len;
	char *base;
	int i, status, failed = 0;
	long walks;

	page_size = sysconf(_SC_PAGESIZE);
	len = NR_PAGES * page_size;
	if (access("/sys/kernel/mm/page_idle/bitmap", W_OK)) {
		printf("# SKIP no page_idle bitmap: %s\n", strerror(errno));
		return 4;
	}
	base = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED)
		return 1;
	memset(base, 'p', len);
	fflush(stdout);
	for (i = 0; i < NR_CHILDREN; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (!pid)
			_exit(child(base, len, i));
	}
	walks = walk_all(base, len);
	printf("# parent: %ld walks confirmed\n", walks < 0 ? 0 : walks);
	if (walks < 0)
		failed = 1;
	for (i = 0; i < NR_CHILDREN; i++) {
		if (wait(&status) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			failed = 1;
	}
	printf("%s 1 - every forced walk confirmed by the idle bit\n",
	       failed ? "not ok" : "ok");
	return failed;
}
