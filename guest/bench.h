/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the guest's benchmark programs share (guest/bench-*.c): a clock,
 * medians, and the one line format the host reads back. Each figure is a
 * line "bench: KEY VALUE UNIT" on stdout; init copies it to the console as
 * "GUEST-BENCH KEY VALUE UNIT" and guest/bench-report gathers a key's
 * values across boots. A program reports the median of its own
 * repetitions; the spread that the report gives is the spread across
 * boots.
 */
#ifndef GUEST_BENCH_H
#define GUEST_BENCH_H

#include <stddef.h>

/* CLOCK_MONOTONIC in nanoseconds */
double bench_now_ns(void);
/* The median of @n values (sorts @v); 0 for none. */
double bench_median(double *v, size_t n);
/* "bench: KEY VALUE UNIT", KEY formatted from @fmt. */
void bench_print(double value, const char *unit, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The slab caches of reverse-map state, under one mode or another */
#define BENCH_NR_CACHES	4
extern const char *const bench_caches[BENCH_NR_CACHES];
/*
 * Bytes held by each of bench_caches (active objects x object size, from
 * /proc/slabinfo; 0 for a cache the kernel lacks or merged away; for
 * cow_context, debugfs contexts_live x object size, exact), and in
 * bytes[BENCH_NR_CACHES] the COW context's remap entries from debugfs (a
 * count: an entry lives in its vm_area_struct). -1 if slabinfo is
 * unreadable.
 */
int bench_slab_read(double bytes[BENCH_NR_CACHES + 1]);
/* Each of @after less @before (none if NULL) as KEY "slab.TAG.CACHE" */
void bench_slab_print(const char *tag, const double *after,
		      const double *before);
/*
 * Forks @c children, each of which runs @work(@arg) and then waits; once
 * every one has run it, reads the slab caches (bench_slab_read()) into
 * @bytes while they are all alive, then lets them exit and reaps them.
 */
void bench_family_slab(long c, void (*work)(void *arg), void *arg,
		       double bytes[BENCH_NR_CACHES + 1]);
/*
 * @v private anonymous VMAs of one written page each, of @page bytes:
 * 2v pages mapped and every other one unmapped, so that none merges.
 * Returns the first page; the range is 2 * @v * @page bytes.
 */
char *bench_map_vmas(long v, long page);
/*
 * Lock statistics, where the kernel has them (CONFIG_LOCK_STAT, booted by
 * make guest-bench-lockstat): bench_lockstat_begin() clears and starts
 * them and says whether there are any; bench_lockstat_print() stops them
 * and prints, for each lock class of the reverse maps (anon_vma's rwsem,
 * the COW context's lock, mmap_lock), its contentions, total wait and
 * longest hold as "lockstat.TAG.CLASS.{contentions,wait_us,hold_max_us}".
 */
int bench_lockstat_begin(void);
void bench_lockstat_print(const char *tag);
/* @s as a number from @min to @max, or exits saying which is wrong */
long bench_number(const char *what, const char *s, long min, long max);
/* Exits with a message: the benchmark cannot go on. */
void bench_die(const char *what) __attribute__((noreturn));

#endif
