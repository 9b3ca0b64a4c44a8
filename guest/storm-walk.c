// SPDX-License-Identifier: GPL-2.0
/*
 * The storm's walkers: each picks a live mutator from the slot table and
 * makes the kernel walk the rmap of the folios in its arena, the way
 * something else in the system would. idle marks them in the page_idle
 * bitmap (a walk per folio), migrate moves them to the other NUMA node
 * with move_pages (try_to_migrate and remove_migration_ptes walk), pageout
 * reclaims them to swap with process_madvise(MADV_PAGEOUT) (try_to_unmap
 * walks), compact runs the system's compaction, which migrates whatever
 * it finds. A mutator that exits meanwhile, or has exited and waits as a
 * zombie for its parent, is no error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "idle.h"
#include "storm.h"

#define MPOL_MF_MOVE_ALL	(1 << 2)
#define MAX_PAGES		4096
#define BULK_PAGES		4096

struct target {
	pid_t pid;
	uintptr_t base;
	size_t len;
	size_t nr;			/* present pages found */
	uint64_t pfn[MAX_PAGES];
	void *addr[MAX_PAGES];
};

static int pick(struct target *t, unsigned int *seed)
{
	int tries, i;

	for (tries = 0; tries < STORM_SLOTS; tries++) {
		i = storm_rand(seed, STORM_SLOTS);
		t->pid = __atomic_load_n(&storm->slot[i].pid, __ATOMIC_ACQUIRE);
		if (t->pid <= 0)
			continue;
		t->base = storm->slot[i].base;
		t->len = storm->slot[i].len;
		if (t->len / storm_page_size > MAX_PAGES)
			t->len = MAX_PAGES * storm_page_size;
		return 0;
	}
	return -1;
}

/* The present pages of the target's arena; 0 if it has gone. */
static size_t present_pages(struct target *t)
{
	static uint64_t ent[MAX_PAGES];
	char path[64];
	size_t i, n = t->len / storm_page_size;
	ssize_t got;
	int fd;

	t->nr = 0;
	snprintf(path, sizeof(path), "/proc/%d/pagemap", t->pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	got = pread(fd, ent, n * sizeof(ent[0]),
		    t->base / storm_page_size * sizeof(ent[0]));
	close(fd);
	if (got < 0)
		return 0;
	n = got / sizeof(ent[0]);
	for (i = 0; i < n; i++) {
		if (!(ent[i] >> 63) || !(ent[i] & ((1ULL << 55) - 1)))
			continue;
		t->pfn[t->nr] = ent[i] & ((1ULL << 55) - 1);
		t->addr[t->nr] = (void *)(t->base + i * storm_page_size);
		t->nr++;
	}
	return t->nr;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * One pwrite per run of consecutive bitmap words: a write is a walk per
 * folio it names, and the syscalls, not the walks, would dominate if each
 * page had its own.
 */
static void idle_pass(struct target *t, int bitmap, enum storm_kind kind)
{
	static uint64_t words[MAX_PAGES];
	uint64_t first = 0, w;
	size_t i, nw = 0;

	qsort(t->pfn, t->nr, sizeof(t->pfn[0]), cmp_u64);
	for (i = 0; i < t->nr; i++) {
		w = t->pfn[i] / 64;
		if (nw && w == first + nw - 1) {
			words[nw - 1] |= 1ULL << (t->pfn[i] % 64);
			continue;
		}
		if (nw && w != first + nw) {
			if (pwrite(bitmap, words, nw * 8, first * 8) < 0)
				storm_error(kind, "page_idle write", errno);
			nw = 0;
		}
		if (!nw)
			first = w;
		words[nw++] = 1ULL << (t->pfn[i] % 64);
	}
	if (nw && pwrite(bitmap, words, nw * 8, first * 8) < 0)
		storm_error(kind, "page_idle write", errno);
}

/*
 * Whether the target has left its mm: a mutator that has exited stays a
 * zombie, without an mm, until its parent ends its own round and waits,
 * and pagemap then fails to open with ESRCH.
 */
static int target_gone(pid_t pid)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/pagemap", pid);
	fd = open(path, O_RDONLY);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	return errno == ESRCH || errno == ENOENT;
}

static void migrate_pass(struct target *t, int node)
{
	static int nodes[MAX_PAGES], status[MAX_PAGES];
	size_t i;
	int err;

	for (i = 0; i < t->nr; i++)
		nodes[i] = node;
	if (syscall(SYS_move_pages, t->pid, t->nr, t->addr, nodes, status,
		    MPOL_MF_MOVE_ALL) >= 0)
		return;
	err = errno;
	/* move_pages() says EINVAL, not ESRCH, for a zombie */
	if (err == ESRCH || (err == EINVAL && target_gone(t->pid)))
		return;
	storm_error(STORM_MIGRATE, "move_pages", err);
}

static void pageout_pass(struct target *t)
{
	struct iovec iov = { .iov_base = (void *)t->base, .iov_len = t->len };
	int pidfd = syscall(SYS_pidfd_open, t->pid, 0);

	if (pidfd < 0) {
		if (errno != ESRCH)
			storm_error(STORM_PAGEOUT, "pidfd_open", errno);
		return;
	}
	/* ENOMEM: a hole, while a mutator remaps a chunk */
	if (syscall(SYS_process_madvise, pidfd, &iov, 1, MADV_PAGEOUT, 0) < 0 &&
	    errno != ESRCH && errno != ENOMEM)
		storm_error(STORM_PAGEOUT, "process_madvise", errno);
	close(pidfd);
}

static void compact_pass(void)
{
	struct timespec pause = { 0, 200 * 1000 * 1000 };
	int fd = open("/proc/sys/vm/compact_memory", O_WRONLY);

	if (fd < 0 || write(fd, "1", 1) != 1)
		storm_error(STORM_COMPACT, "compact_memory", errno);
	if (fd >= 0)
		close(fd);
	/* compaction takes a while; it is one source of walks among four */
	nanosleep(&pause, NULL);
}

void storm_walker(enum storm_kind kind, int cpu)
{
	static struct target t;
	unsigned int seed = 7919 * (kind + 1) + cpu;
	struct timespec idle = { 0, 10 * 1000 * 1000 };
	int bitmap = -1, node = 0;
	long passes = 0, pages = 0;

	if (kind == STORM_IDLE) {
		bitmap = open(IDLE_BITMAP, O_WRONLY);
		if (bitmap < 0) {
			storm_error(kind, IDLE_BITMAP, errno);
			return;
		}
	}
	while (!storm_over()) {
		if (kind == STORM_COMPACT) {
			compact_pass();
			passes++;
			continue;
		}
		if (pick(&t, &seed) || !present_pages(&t)) {
			nanosleep(&idle, NULL);
			continue;
		}
		if (kind == STORM_IDLE)
			idle_pass(&t, bitmap, kind);
		else if (kind == STORM_MIGRATE)
			migrate_pass(&t, node = (node + 1) % storm->nr_nodes);
		else
			pageout_pass(&t);
		passes++;
		pages += t.nr;
	}
	storm_count(kind, passes, 0, pages);
}

/*
 * A walker of its own fork tree: BULK_PAGES faulted, shared with a child
 * that only waits, marked idle as fast as the kernel walks them. Each
 * walk finds the folio in two mms; the churn of the other processes on
 * the same CPUs goes on around it.
 */
void storm_bulk(int cpu)
{
	struct timespec nap = { 0, 50 * 1000 * 1000 };
	static struct target t;
	int bitmap, status;
	long passes = 0, pages = 0;
	pid_t child;

	t.pid = getpid();
	t.len = BULK_PAGES * storm_page_size;
	t.base = (uintptr_t)mmap(NULL, t.len, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	bitmap = open(IDLE_BITMAP, O_WRONLY);
	if ((void *)t.base == MAP_FAILED || bitmap < 0) {
		storm_error(STORM_BULK, "mmap or page_idle", errno);
		return;
	}
	memset((void *)t.base, 'b' + cpu, t.len);
	child = fork();
	if (child < 0) {
		storm_error(STORM_BULK, "fork", errno);
		return;
	}
	if (!child) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		while (!storm_over())
			nanosleep(&nap, NULL);
		_exit(0);
	}
	/* the last faults sit in a per-CPU batch, off the LRU page_idle needs */
	if (lru_drain_all())
		storm_error(STORM_BULK, "drop_caches", errno);
	while (!storm_over()) {
		if (present_pages(&t))
			idle_pass(&t, bitmap, STORM_BULK);
		passes++;
		pages += t.nr;
	}
	if (waitpid(child, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		storm_error(STORM_BULK, "the bulk walker's child", ECHILD);
	storm_count(STORM_BULK, passes, 1, pages);
}
