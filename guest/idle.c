// SPDX-License-Identifier: GPL-2.0
/*
 * See idle.h. page_idle only walks folios on an LRU list
 * (page_idle_get_folio()): a folio just faulted sits in its CPU's
 * lru_add batch until that fills, and marking it idle is then silently
 * ignored, which is why lru_drain_all() exists.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "idle.h"

#define PM_PRESENT	(1ULL << 63)
#define PM_PFN_MASK	((1ULL << 55) - 1)

int pagemap_entry(int pagemap, uintptr_t addr, long page_size, uint64_t *ent)
{
	off_t off = addr / page_size * sizeof(*ent);

	return pread(pagemap, ent, sizeof(*ent), off) == sizeof(*ent) ? 0 : -1;
}

/* 0 with *pfn set when @addr is mapped by a present PTE; -1 otherwise. */
int pagemap_pfn(int pagemap, uintptr_t addr, long page_size, uint64_t *pfn)
{
	uint64_t ent;

	if (pagemap_entry(pagemap, addr, page_size, &ent))
		return -1;
	/* swapped out, or a PFN hidden from a caller without CAP_SYS_ADMIN */
	if (!(ent & PM_PRESENT) || !(ent & PM_PFN_MASK))
		return -1;
	*pfn = ent & PM_PFN_MASK;
	return 0;
}

/* One rmap walk of @pfn's folio, which is then marked idle. */
int idle_mark(int bitmap, uint64_t pfn)
{
	uint64_t bit = 1ULL << (pfn % 64);
	off_t off = pfn / 64 * sizeof(bit);

	return pwrite(bitmap, &bit, sizeof(bit), off) == sizeof(bit) ? 0 : -1;
}

/*
 * The 64 idle bits of @pfn's word, in *word: a read walks every folio of
 * the word that is marked idle (another walk finds no young PTE, or
 * clears the bit), so callers read each word once.
 */
int idle_word(int bitmap, uint64_t pfn, uint64_t *word)
{
	off_t off = pfn / 64 * sizeof(*word);

	return pread(bitmap, word, sizeof(*word), off) == sizeof(*word) ? 0 : -1;
}

int write_knob(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	int ret;

	if (fd < 0)
		return -1;
	ret = write(fd, val, strlen(val)) == (ssize_t)strlen(val) ? 0 : -1;
	close(fd);
	return ret;
}

int memcg_enter(const char *dir)
{
	char path[256], pid[32];

	if (access(CGROUP_ROOT "/cgroup.controllers", F_OK) &&
	    mount("none", CGROUP_ROOT, "cgroup2", 0, NULL))
		return -1;
	if (write_knob(CGROUP_ROOT "/cgroup.subtree_control", "+memory") ||
	    (mkdir(dir, 0755) && errno != EEXIST))
		return -1;
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	snprintf(pid, sizeof(pid), "%d", getpid());
	return write_knob(path, pid);
}

int map_small_vmas(uintptr_t base, long n, long page_size)
{
	long i;

	for (i = 0; i < n; i++) {
		void *want = (void *)(base + 2 * i * page_size);
		char *p = mmap(want, page_size, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
			       -1, 0);

		if (p == MAP_FAILED)
			return -1;
		*p = 1;
	}
	return 0;
}

long idle_mark_until(const uint64_t *pfn, size_t n, const volatile int *stop)
{
	int bitmap = open(IDLE_BITMAP, O_RDWR);
	long marked = 0;
	size_t i;

	if (bitmap < 0)
		return -1;
	while (!*stop)
		for (i = 0; i < n && !*stop; i++)
			if (!idle_mark(bitmap, pfn[i]))
				marked++;
	close(bitmap);
	return marked;
}

int lru_drain_all(void)
{
	static int quiet;

	if (!quiet && !write_knob("/proc/sys/vm/drop_caches", "4"))
		quiet = 1;
	return write_knob("/proc/sys/vm/drop_caches", "1");
}

long long read_knob(const char *path)
{
	long long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

long long shadow_counter(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%s", SHADOW_DIR, name);
	return read_knob(path);
}

void shadow_read(struct shadow_counters *c)
{
	c->compared = shadow_counter("walks_compared");
	c->skipped = shadow_counter("skipped");
	c->mismatches = shadow_counter("mismatches");
}

/*
 * Anonymous walks seen by the shadow check between two reads, or -1:
 * each is counted compared (mismatches among them) or skipped.
 */
long long shadow_walks(const struct shadow_counters *before,
		       const struct shadow_counters *after)
{
	if (before->compared < 0 || before->skipped < 0 ||
	    after->compared < 0 || after->skipped < 0)
		return -1;
	return after->compared - before->compared +
	       after->skipped - before->skipped;
}

/*
 * Marks each of @n PFNs idle, then reads the bits back, @rounds times: a
 * walk per page each way. A read walks every idle folio of its 64-PFN
 * word, so each word is read once a round, after all the marks. Returns
 * the walks confirmed, or -1 at the first page whose bit did not stick.
 */
static long walk_pages(const char *who, const uint64_t *pfn, size_t n,
		       int bitmap, int rounds)
{
	uint64_t word[IDLE_WALK_MAX_PAGES], val[IDLE_WALK_MAX_PAGES], bit;
	size_t i, j, nw;
	long done = 0;
	int round;

	for (round = 0; round < rounds; round++) {
		for (i = 0; i < n; i++) {
			if (idle_mark(bitmap, pfn[i])) {
				printf("# %s: page_idle write: %s\n", who,
				       strerror(errno));
				return -1;
			}
		}
		for (i = 0, nw = 0; i < n; i++) {
			for (j = 0; j < nw && word[j] != pfn[i] / 64; j++)
				;
			if (j == nw) {
				word[nw] = pfn[i] / 64;
				if (idle_word(bitmap, pfn[i], &val[nw++]))
					return -1;
			}
			bit = 1ULL << (pfn[i] % 64);
			if (!(val[j] & bit)) {
				printf("# %s: round %d page %zu pfn %#llx: idle bit not set\n",
				       who, round, i, (unsigned long long)pfn[i]);
				return -1;
			}
			done++;
		}
	}
	return done;
}

long self_pfns(const char *base, size_t n, long page_size, uint64_t *pfn)
{
	int pagemap = open("/proc/self/pagemap", O_RDONLY);
	size_t i;

	if (pagemap < 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (pagemap_pfn(pagemap, (uintptr_t)base + i * page_size,
				page_size, &pfn[i]))
			break;
	}
	close(pagemap);
	return i;
}

/*
 * walk_pages() on the pages of [base, base + len) of this process, which
 * must all be present; -1 if one is not.
 */
long idle_walk_range(const char *who, char *base, size_t len, long page_size,
		     int rounds)
{
	uint64_t pfn[IDLE_WALK_MAX_PAGES];
	size_t n = len / page_size;
	long found, done;
	int bitmap;

	if (n > IDLE_WALK_MAX_PAGES) {
		printf("# %s: %zu pages, at most %d\n", who, n,
		       IDLE_WALK_MAX_PAGES);
		return -1;
	}
	found = self_pfns(base, n, page_size, pfn);
	if (found < 0) {
		printf("# %s: pagemap: %s\n", who, strerror(errno));
		return -1;
	}
	if ((size_t)found < n) {
		printf("# %s: page %ld not present\n", who, found);
		return -1;
	}
	bitmap = open(IDLE_BITMAP, O_RDWR);
	if (bitmap < 0) {
		printf("# %s: %s: %s\n", who, IDLE_BITMAP, strerror(errno));
		return -1;
	}
	done = walk_pages(who, pfn, n, bitmap, rounds);
	close(bitmap);
	return done;
}
