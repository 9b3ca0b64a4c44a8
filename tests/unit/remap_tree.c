// SPDX-License-Identifier: GPL-2.0
/*
 * The remap tree against brute force: seeded runs of random inserts,
 * removals, resizes (remove keeping the slot, insert again), reservation
 * changes and lookups over random ranges, some resumed after the tree
 * changed under the cursor, each compared with a plain list of (range,
 * offset) entries, the tree's invariants checked after every step; then
 * edge cases, the allocation-failure paths and the accounting.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "tap.h"
#include "rmap/remap_tree.h"

#define MAX_REF		256
#define PGOFF_SPAN	400	/* small, so ranges overlap a lot */
#define NR_SEEDS	12
#define NR_STEPS	3000

struct ref_entry {
	unsigned long pgoff, nr_pages;
	long offset;
};

static struct ref_entry ref[MAX_REF];
static int nr_ref;

static uint64_t rng_state;

static unsigned long rnd(unsigned long n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (unsigned long)(rng_state % n);
}

/*
 * Would [pgoff, pgoff + n) at @offset share an address with an entry?
 * In an mm it cannot: entries of one offset are disjoint, keys unique.
 */
static bool ref_conflicts(unsigned long pgoff, unsigned long n, long offset)
{
	int i;

	for (i = 0; i < nr_ref; i++)
		if (ref[i].offset == offset && ref[i].pgoff < pgoff + n &&
		    pgoff < ref[i].pgoff + ref[i].nr_pages)
			return true;
	return false;
}

static bool ref_overlaps(const struct ref_entry *e, unsigned long first,
			 unsigned long last)
{
	return e->pgoff <= last && e->pgoff + e->nr_pages - 1 >= first;
}

static bool key_below(unsigned long pa, long oa, unsigned long pb, long ob)
{
	return pa < pb || (pa == pb && oa < ob);
}

/*
 * Brute force of the lookup's contract: of the entries overlapping
 * [first, last] with a key above the cursor, the first in key order
 * whose offset no overlapping entry of lower pgoff carries.
 */
static bool ref_next(unsigned long first, unsigned long last,
		     struct remap_cursor *pos, long *out)
{
	for (;;) {
		const struct ref_entry *best = NULL;
		bool seen = false;
		int i;

		for (i = 0; i < nr_ref; i++) {
			const struct ref_entry *e = &ref[i];

			if (!ref_overlaps(e, first, last) ||
			    (pos->started &&
			     !key_below(pos->pgoff, pos->offset, e->pgoff,
					e->offset)))
				continue;
			if (!best || key_below(e->pgoff, e->offset, best->pgoff,
					       best->offset))
				best = e;
		}
		if (!best)
			return false;
		pos->pgoff = best->pgoff;
		pos->offset = best->offset;
		pos->started = true;
		for (i = 0; i < nr_ref; i++)
			if (ref_overlaps(&ref[i], first, last) &&
			    ref[i].offset == best->offset &&
			    ref[i].pgoff < best->pgoff)
				seen = true;
		if (!seen) {
			*out = best->offset;
			return true;
		}
	}
}

/* One lookup of [first, last], compared step by step; 1 if it differs */
static int compare_range(const struct remap_tree *t, unsigned long first,
			 unsigned long last, uint64_t seed)
{
	struct remap_cursor want_pos = REMAP_CURSOR_INIT;
	struct remap_cursor got_pos = REMAP_CURSOR_INIT;
	int steps = 0;

	for (;;) {
		long want = 0, got = 0;
		bool w = ref_next(first, last, &want_pos, &want);
		bool g = remap_tree_next_offset(t, first, last, &got_pos, &got);

		if (w != g || (w && want != got)) {
			tap_diag("seed %#llx: [%lu, %lu] step %d: want %d/%ld got %d/%ld",
				 (unsigned long long)seed, first, last, steps,
				 w, want, g, got);
			return 1;
		}
		if (!w)
			return 0;
		steps++;
	}
}

static void ref_remove(int i)
{
	ref[i] = ref[--nr_ref];
}

/* A random change of the tree and the reference alike; 1 on failure */
static int random_change(struct remap_tree *t)
{
	unsigned long op = rnd(10);

	if (op < 4 && nr_ref < MAX_REF) {
		unsigned long pgoff = rnd(PGOFF_SPAN);
		unsigned long n = 1 + rnd(rnd(4) ? 8 : 60);
		long offset = (long)rnd(50) - 25;

		if (!offset || ref_conflicts(pgoff, n, offset))
			return 0;
		if (remap_tree_reserve(t, 1) ||
		    !remap_tree_insert(t, pgoff, n, offset))
			return 1;
		ref[nr_ref++] = (struct ref_entry){ pgoff, n, offset };
	} else if (op < 7 && nr_ref) {
		int i = (int)rnd((unsigned long)nr_ref);

		if (!remap_tree_remove(t, ref[i].pgoff, ref[i].nr_pages,
				       ref[i].offset, false))
			return 1;
		ref_remove(i);
	} else if (op < 9 && nr_ref) {
		/* a resize: out with the old range, in with the new */
		int i = (int)rnd((unsigned long)nr_ref);
		struct ref_entry e = ref[i];
		long d = (long)rnd(7) - 3;

		if (!remap_tree_remove(t, e.pgoff, e.nr_pages, e.offset, true))
			return 1;
		ref_remove(i);
		e.nr_pages = 1 + rnd(20);
		if ((long)e.pgoff + d < 0 ||
		    ref_conflicts((unsigned long)((long)e.pgoff + d),
				  e.nr_pages, e.offset)) {
			remap_tree_unreserve(t);
			return 0;
		}
		e.pgoff = (unsigned long)((long)e.pgoff + d);
		if (!remap_tree_insert(t, e.pgoff, e.nr_pages, e.offset))
			return 1;
		ref[nr_ref++] = e;
	} else {
		/* promises made and given back, as fork and its failure do */
		unsigned int n = 1 + (unsigned int)rnd(3), before;

		before = remap_tree_reserved(t);
		if (remap_tree_reserve(t, n) ||
		    remap_tree_reserved(t) != before + n)
			return 1;
		while (n--)
			remap_tree_unreserve(t);
		if (remap_tree_reserved(t) != before)
			return 1;
	}
	return 0;
}

/*
 * A lookup that lets go between steps: the tree changes under the
 * cursor, which resumes from its key in the tree as it is then.
 */
static int compare_resumed(struct remap_tree *t, unsigned long first,
			   unsigned long last, uint64_t seed, int *bad_ops)
{
	struct remap_cursor want_pos = REMAP_CURSOR_INIT;
	struct remap_cursor got_pos = REMAP_CURSOR_INIT;

	for (;;) {
		long want = 0, got = 0;
		bool w = ref_next(first, last, &want_pos, &want);
		bool g = remap_tree_next_offset(t, first, last, &got_pos, &got);

		if (w != g || (w && want != got)) {
			tap_diag("seed %#llx: resumed [%lu, %lu]: want %d/%ld got %d/%ld",
				 (unsigned long long)seed, first, last, w, want,
				 g, got);
			return 1;
		}
		if (!w)
			return 0;
		*bad_ops += random_change(t);
	}
}

static unsigned long entries_overlapping(unsigned long first,
					 unsigned long last)
{
	unsigned long n = 0;
	int i;

	for (i = 0; i < nr_ref; i++)
		n += ref_overlaps(&ref[i], first, last);
	return n;
}

static void random_ops(struct account *acct, int type)
{
	int bad_cmp = 0, bad_form = 0, bad_ops = 0, bad_count = 0, seed_i;
	unsigned long lookups = 0, max_overlap = 0;
	uint64_t failing = 0;

	for (seed_i = 1; seed_i <= NR_SEEDS; seed_i++) {
		uint64_t seed = 0x9e3779b97f4a7c15ULL * (uint64_t)seed_i;
		int before = bad_cmp + bad_form + bad_ops + bad_count, step;
		struct remap_tree t;
		const char *err;

		rng_state = seed;
		remap_tree_init(&t, acct, type);
		nr_ref = 0;
		for (step = 0; step < NR_STEPS; step++) {
			unsigned long first = rnd(PGOFF_SPAN + 40);
			unsigned long last = first + (rnd(3) ? 0 : rnd(80));

			bad_ops += random_change(&t);
			err = remap_tree_check(&t);
			if (err) {
				if (!bad_form)
					tap_diag("seed %#llx step %d: %s",
						 (unsigned long long)seed, step,
						 err);
				bad_form++;
			}
			if (remap_tree_nr(&t) != (unsigned int)nr_ref)
				bad_count++;
			if (entries_overlapping(first, last) > max_overlap)
				max_overlap = entries_overlapping(first, last);
			if (step % 5 == 0)
				bad_cmp += compare_resumed(&t, first, last,
							   seed, &bad_ops);
			else
				bad_cmp += compare_range(&t, first, last, seed);
			lookups++;
		}
		if (!failing && bad_cmp + bad_form + bad_ops + bad_count !=
				before)
			failing = seed;
		while (nr_ref) {
			nr_ref--;
			if (!remap_tree_remove(&t, ref[nr_ref].pgoff,
					       ref[nr_ref].nr_pages,
					       ref[nr_ref].offset, false))
				bad_ops++;
		}
		if (remap_tree_reserved(&t) || remap_tree_maybe_populated(&t))
			bad_count++;
		remap_tree_destroy(&t);
	}
	if (failing)
		tap_diag("first failing seed: %#llx", (unsigned long long)failing);
	is_long(bad_ops, 0, "%d seeds x %d random operations all succeed",
		NR_SEEDS, NR_STEPS);
	is_long(bad_form, 0, "order, balance and subtree_last right after every step");
	is_long(bad_count, 0, "entry count equals the reference; nothing left at the end");
	is_long(bad_cmp, 0, "%lu lookups (some resumed across changes) equal brute force",
		lookups);
	ok(max_overlap >= 8, "lookups met up to %lu overlapping entries",
	   max_overlap);
}

static void edge_cases(struct account *acct, int type)
{
	struct remap_cursor pos = REMAP_CURSOR_INIT;
	struct remap_tree t;
	size_t one = remap_entry_kernel_bytes();
	long off;

	remap_tree_init(&t, acct, type);
	ok(!remap_tree_next_offset(&t, 5, 5, &pos, &off),
	   "empty tree: no offsets");
	ok(!remap_tree_maybe_populated(&t), "empty tree: not populated");
	ok(!remap_tree_insert(&t, 1, 1, 3), "insert without reservation refused");
	is_long(remap_tree_reserve(&t, 2), 0, "reserve two");
	ok(remap_tree_maybe_populated(&t), "a reservation counts as populated");
	is_long(acct->bytes, (long)(2 * one), "two slots: two nodes charged");
	ok(remap_tree_insert(&t, 10, 5, 7), "insert [10,15) +7");
	ok(!remap_tree_insert(&t, 10, 3, 7), "same key refused");
	is_long(remap_tree_reserved(&t), 1, "the refused insert kept its slot");
	ok(remap_tree_insert(&t, 10, 2, -4), "same pgoff, other offset");
	ok(!remap_tree_remove(&t, 10, 4, 7, false),
	   "removal needs the exact range");
	ok(!remap_tree_remove(&t, 10, 5, 6, false),
	   "and the exact offset");
	ok(remap_tree_next_offset(&t, 11, 11, &pos, &off) && off == -4,
	   "key order: the lower offset of one pgoff first");
	ok(remap_tree_next_offset(&t, 11, 11, &pos, &off) && off == 7,
	   "then the next");
	ok(!remap_tree_next_offset(&t, 11, 11, &pos, &off), "then none");
	pos = (struct remap_cursor)REMAP_CURSOR_INIT;
	ok(remap_tree_next_offset(&t, 14, 14, &pos, &off) && off == 7,
	   "last page of the range covered");
	pos = (struct remap_cursor)REMAP_CURSOR_INIT;
	ok(!remap_tree_next_offset(&t, 15, 15, &pos, &off),
	   "end is exclusive");
	pos = (struct remap_cursor)REMAP_CURSOR_INIT;
	ok(!remap_tree_next_offset(&t, 12, 11, &pos, &off),
	   "an empty range finds nothing");

	/* one offset in two disjoint pieces, as a VMA split by munmap */
	is_long(remap_tree_reserve(&t, 3), 0, "reserve three more");
	ok(remap_tree_insert(&t, 20, 5, 3) && remap_tree_insert(&t, 30, 5, 3) &&
	   remap_tree_insert(&t, 28, 1, 9), "[20,25) +3, [28,29) +9, [30,35) +3");
	pos = (struct remap_cursor)REMAP_CURSOR_INIT;
	ok(remap_tree_next_offset(&t, 21, 33, &pos, &off) && off == 3 &&
	   remap_tree_next_offset(&t, 21, 33, &pos, &off) && off == 9 &&
	   !remap_tree_next_offset(&t, 21, 33, &pos, &off),
	   "over a range each distinct offset comes once");
	pos = (struct remap_cursor)REMAP_CURSOR_INIT;
	ok(remap_tree_next_offset(&t, 26, 33, &pos, &off) && off == 9 &&
	   remap_tree_next_offset(&t, 26, 33, &pos, &off) && off == 3,
	   "an offset whose first piece lies outside the range still comes");

	/* the cursor is a key: its entry may go between two steps */
	pos = (struct remap_cursor)REMAP_CURSOR_INIT;
	ok(remap_tree_next_offset(&t, 0, 100, &pos, &off) && off == -4,
	   "first of the whole tree");
	ok(remap_tree_remove(&t, 10, 2, -4, false), "remove it mid-lookup");
	ok(remap_tree_next_offset(&t, 0, 100, &pos, &off) && off == 7,
	   "the lookup resumes at its successor");
	ok(remap_tree_remove(&t, 10, 5, 7, false) &&
	   remap_tree_remove(&t, 20, 5, 3, false) &&
	   remap_tree_remove(&t, 30, 5, 3, false) &&
	   remap_tree_remove(&t, 28, 1, 9, false), "remove the rest");
	ok(!remap_tree_maybe_populated(&t) && acct->bytes == 0,
	   "nothing left, nothing charged");

	/* allocation failure: the reservation fails, the tree is intact */
	is_long(remap_tree_reserve(&t, 1), 0, "reserve one");
	ok(remap_tree_insert(&t, 1, 1, 1), "insert");
	alloc_fail_nth = 3;
	is_long(remap_tree_reserve(&t, 5), -ENOMEM,
		"a reservation whose third node cannot be allocated fails");
	alloc_fail_nth = 0;
	pos = (struct remap_cursor)REMAP_CURSOR_INIT;
	ok(remap_tree_nr(&t) == 1 && remap_tree_reserved(&t) == 0 &&
	   acct->bytes == (long)one &&
	   remap_tree_next_offset(&t, 1, 1, &pos, &off) && off == 1,
	   "and leaves the tree and the charge as they were");
	ok(remap_tree_remove(&t, 1, 1, 1, true) &&
	   remap_tree_reserved(&t) == 1 && acct->bytes == (long)one,
	   "a removal keeping its slot keeps its node");
	remap_tree_unreserve(&t);
	ok(acct->bytes == 0 && !remap_tree_maybe_populated(&t),
	   "given back, it is freed");
	is_long(remap_tree_reserve(&t, 2), 0, "two promises");
	remap_tree_drop_reservations(&t);
	ok(acct->bytes == 0 && !remap_tree_reserved(&t),
	   "dropped all at once");
	remap_tree_destroy(&t);
}

static void sizes(void)
{
	is_long(kmalloc_size_class(1), 8, "kmalloc-8");
	is_long(kmalloc_size_class(65), 96, "kmalloc-96");
	is_long(kmalloc_size_class(8192), 8192, "kmalloc-8k");
	is_long(kmalloc_size_class(8193), 16384, "past 8k: pages");
	/* rb_node's three words, then start, last, subtree_last, offset */
	is_long(REMAP_ENTRY_KERNEL_SIZE, 3 * 8 + 4 * 8,
		"an entry as the kernel lays it out");
	is_long(remap_entry_kernel_bytes(), 64, "one entry: kmalloc-64");
}

int main(void)
{
	struct account acct;
	int type;

	memset(&acct, 0, sizeof(acct));
	type = account_register(&acct, "remap_entry");
	sizes();
	edge_cases(&acct, type);
	random_ops(&acct, type);
	is_long(acct.type[type].live, 0, "every node freed");
	is_long(acct.bytes, 0, "every byte given back");
	ok(acct.type[type].allocs == acct.type[type].frees &&
	   acct.type[type].allocs > 1000, "%lu nodes allocated and freed",
	   acct.type[type].allocs);
	return tap_done();
}
