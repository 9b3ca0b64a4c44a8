/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Forcing reverse-map walks from userspace in the guest, for walks.c and
 * storm.c: a PFN from /proc/PID/pagemap, written to the page_idle bitmap,
 * makes the kernel walk that folio's rmap (page_idle_clear_pte_refs());
 * under cow_context=shadow every anonymous walk is compared and counted in
 * debugfs.
 */
#ifndef GUEST_IDLE_H
#define GUEST_IDLE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define IDLE_BITMAP	"/sys/kernel/mm/page_idle/bitmap"
#define SHADOW_DIR	"/sys/kernel/debug/cow_context"

/* The shadow check's debugfs counters; -1 where a file is missing. */
struct shadow_counters {
	long long compared;
	long long skipped;
	long long mismatches;
};

/* The most pages idle_walk_range() walks at once */
#define IDLE_WALK_MAX_PAGES	64

/* @addr's 64-bit entry of the pagemap file @pagemap, in *ent: 0, or -1 */
int pagemap_entry(int pagemap, uintptr_t addr, long page_size, uint64_t *ent);
int pagemap_pfn(int pagemap, uintptr_t addr, long page_size, uint64_t *pfn);
int idle_mark(int bitmap, uint64_t pfn);
int idle_word(int bitmap, uint64_t pfn, uint64_t *word);
/*
 * The PFNs of this process's @n pages from @base, into @pfn: how many
 * are present before the first that is not (@n if all), or -1 if
 * pagemap does not open.
 */
long self_pfns(const char *base, size_t n, long page_size, uint64_t *pfn);
long idle_walk_range(const char *who, char *base, size_t len, long page_size,
		     int rounds);
int lru_drain_all(void);
/*
 * @n one-page private anonymous VMAs, the i-th at @base + 2 * i *
 * @page_size (a hole after each, so that none merges), a page written in
 * each: 0, or -1 with errno set.
 */
int map_small_vmas(uintptr_t base, long n, long page_size);
/*
 * Marks the @n pages of @pfn idle, round and round, until *@stop is set:
 * each mark a walk of the page's folio. Returns how many marks the
 * kernel took, or -1 if the page_idle bitmap does not open.
 */
long idle_mark_until(const uint64_t *pfn, size_t n, const volatile int *stop);
#define CGROUP_ROOT	"/sys/fs/cgroup"
/*
 * This process, and so every child it forks, into the memory cgroup @dir
 * (under CGROUP_ROOT, which is mounted as cgroup2 if it is not yet, and
 * made if it does not exist): 0, or -1 with errno set.
 */
int memcg_enter(const char *dir);
/* Writes @val to the sysctl, sysfs or cgroup file @path: 0, or -1 */
int write_knob(const char *path, const char *val);
/* The number a sysctl, sysfs or debugfs file @path holds; -1 if none */
long long read_knob(const char *path);
/* One numeric counter of SHADOW_DIR; -1 if it is missing */
long long shadow_counter(const char *name);
void shadow_read(struct shadow_counters *c);
long long shadow_walks(const struct shadow_counters *before,
		       const struct shadow_counters *after);

#endif
