// SPDX-License-Identifier: GPL-2.0
/*
 * The remap tree against brute force: random inserts, removals, resizes
 * (remove keeping the slot, insert again) and lookups, compared after
 * every step with a plain list of (range, offset) entries; then the
 * allocation-failure paths and the accounting.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "tap.h"
#include "rmap/remap_tree.h"

#define MAX_REF		64
#define PGOFF_SPAN	200	/* small, so ranges overlap a lot */

struct ref_entry {
	unsigned long pgoff, nr_pages;
	long offset;
};

static struct ref_entry ref[MAX_REF];
static int nr_ref;

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static unsigned long rnd(unsigned long n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (unsigned long)(rng_state % n);
}

/* A key not in use: one VMA per (pgoff, offset), as in an mm */
static bool ref_has_key(unsigned long pgoff, long offset)
{
	int i;

	for (i = 0; i < nr_ref; i++)
		if (ref[i].pgoff == pgoff && ref[i].offset == offset)
			return true;
	return false;
}

/* Brute force: smallest offset > after covering index */
static bool ref_next(unsigned long index, bool have_after, long after,
		     long *out)
{
	bool found = false;
	int i;

	for (i = 0; i < nr_ref; i++) {
		const struct ref_entry *e = &ref[i];

		if (index < e->pgoff || index >= e->pgoff + e->nr_pages)
			continue;
		if (have_after && e->offset <= after)
			continue;
		if (!found || e->offset < *out) {
			*out = e->offset;
			found = true;
		}
	}
	return found;
}

/* Every index's full offset sequence must agree; returns mismatches */
static int compare_all(const struct remap_tree *t)
{
	unsigned long index;
	int bad = 0;

	for (index = 0; index < PGOFF_SPAN + 40; index++) {
		bool have = false;
		long after = 0;

		for (;;) {
			long want = 0, got = 0;
			bool w = ref_next(index, have, after, &want);
			bool g = remap_tree_next_offset(t, index, have, after,
							&got);

			if (w != g || (w && want != got)) {
				if (!bad)
					tap_diag("index %lu after %ld: want %d/%ld got %d/%ld",
						 index, after, w, want, g, got);
				bad++;
				break;
			}
			if (!w)
				break;
			have = true;
			after = got;
		}
	}
	return bad;
}

/* Sorted by (pgoff, offset), end_max a running maximum */
static bool tree_well_formed(const struct remap_tree *t)
{
	unsigned long max = 0;
	unsigned int i;

	for (i = 0; i < remap_tree_nr(t); i++) {
		const struct remap_entry *e = remap_tree_entry(t, i);

		if (i) {
			const struct remap_entry *p = remap_tree_entry(t, i - 1);

			if (p->pgoff > e->pgoff ||
			    (p->pgoff == e->pgoff && p->offset >= e->offset))
				return false;
		}
		if (e->pgoff_end > max)
			max = e->pgoff_end;
		if (e->end_max != max)
			return false;
	}
	return true;
}

static void random_ops(struct account *acct, int type)
{
	struct remap_tree t;
	int step, bad_cmp = 0, bad_form = 0, bad_ops = 0;

	remap_tree_init(&t, acct, type);
	nr_ref = 0;
	for (step = 0; step < 4000; step++) {
		unsigned long op = rnd(10);

		if (op < 4 && nr_ref < MAX_REF) {
			unsigned long pgoff = rnd(PGOFF_SPAN);
			unsigned long n = 1 + rnd(rnd(4) ? 8 : 60);
			long offset = (long)rnd(50) - 25;

			if (!offset || ref_has_key(pgoff, offset))
				continue;
			if (remap_tree_reserve(&t, 1) ||
			    !remap_tree_insert(&t, pgoff, n, offset))
				bad_ops++;
			ref[nr_ref++] = (struct ref_entry){ pgoff, n, offset };
		} else if (op < 7 && nr_ref) {
			int i = (int)rnd((unsigned long)nr_ref);

			if (!remap_tree_remove(&t, ref[i].pgoff, ref[i].nr_pages,
					       ref[i].offset, false))
				bad_ops++;
			ref[i] = ref[--nr_ref];
		} else if (nr_ref) {
			/* a resize: out with the old range, in with the new */
			int i = (int)rnd((unsigned long)nr_ref);
			struct ref_entry e = ref[i];
			long d = (long)rnd(7) - 3;

			if (!remap_tree_remove(&t, e.pgoff, e.nr_pages,
					       e.offset, true))
				bad_ops++;
			ref[i] = ref[--nr_ref];
			if ((long)e.pgoff + d < 0 ||
			    ref_has_key((unsigned long)((long)e.pgoff + d),
					e.offset)) {
				remap_tree_unreserve(&t);
				continue;
			}
			e.pgoff = (unsigned long)((long)e.pgoff + d);
			e.nr_pages = 1 + rnd(20);
			if (!remap_tree_insert(&t, e.pgoff, e.nr_pages,
					       e.offset))
				bad_ops++;
			ref[nr_ref++] = e;
		}
		if (!tree_well_formed(&t))
			bad_form++;
		if (step % 7 == 0)
			bad_cmp += compare_all(&t);
	}
	is_long(bad_ops, 0, "4000 random operations all succeed");
	is_long(bad_form, 0, "sorted and end_max right after every step");
	is_long(bad_cmp, 0, "lookups equal brute force at every index");
	is_long(remap_tree_nr(&t), nr_ref, "entry count equals the reference");
	is_long(remap_tree_reserved(&t), 0, "no reservation left over");

	while (nr_ref) {
		nr_ref--;
		remap_tree_remove(&t, ref[nr_ref].pgoff, ref[nr_ref].nr_pages,
				  ref[nr_ref].offset, false);
	}
	ok(t.arr == NULL, "the array goes with the last entry");
	remap_tree_destroy(&t);
}

static void edge_cases(struct account *acct, int type)
{
	struct remap_tree t;
	long off;

	remap_tree_init(&t, acct, type);
	ok(!remap_tree_next_offset(&t, 5, false, 0, &off),
	   "empty tree: no offsets");
	ok(!remap_tree_insert(&t, 1, 1, 3), "insert without reservation refused");
	is_long(remap_tree_reserve(&t, 2), 0, "reserve two");
	ok(remap_tree_insert(&t, 10, 5, 7), "insert [10,15) +7");
	ok(!remap_tree_insert(&t, 10, 3, 7), "same key refused");
	is_long(remap_tree_reserved(&t), 1, "the refused insert kept its slot");
	ok(remap_tree_insert(&t, 10, 2, -4), "same pgoff, other offset");
	ok(!remap_tree_remove(&t, 10, 4, 7, false),
	   "removal needs the exact range");
	ok(remap_tree_next_offset(&t, 11, false, 0, &off) && off == -4,
	   "smallest offset first");
	ok(remap_tree_next_offset(&t, 11, true, -4, &off) && off == 7,
	   "then the next");
	ok(!remap_tree_next_offset(&t, 11, true, 7, &off), "then none");
	ok(remap_tree_next_offset(&t, 14, false, 0, &off) && off == 7,
	   "last page of the range covered");
	ok(!remap_tree_next_offset(&t, 15, false, 0, &off),
	   "end is exclusive");
	ok(remap_tree_remove(&t, 10, 5, 7, false) &&
	   remap_tree_remove(&t, 10, 2, -4, false), "remove both");
	ok(t.arr == NULL && acct->bytes == 0, "nothing left, nothing charged");

	/* allocation failure: the reservation fails, the tree is intact */
	is_long(remap_tree_reserve(&t, 1), 0, "reserve one");
	ok(remap_tree_insert(&t, 1, 1, 1), "insert");
	alloc_fail_nth = 1;
	is_long(remap_tree_reserve(&t, 100), -ENOMEM,
		"a growth that cannot allocate fails");
	alloc_fail_nth = 0;
	ok(remap_tree_nr(&t) == 1 && remap_tree_reserved(&t) == 0 &&
	   remap_tree_next_offset(&t, 1, false, 0, &off) && off == 1,
	   "and leaves the tree as it was");
	remap_tree_remove(&t, 1, 1, 1, false);
	remap_tree_destroy(&t);
}

static void sizes(void)
{
	is_long(kmalloc_size_class(1), 8, "kmalloc-8");
	is_long(kmalloc_size_class(65), 96, "kmalloc-96");
	is_long(kmalloc_size_class(8192), 8192, "kmalloc-8k");
	is_long(kmalloc_size_class(8193), 16384, "past 8k: pages");
	is_long(remap_array_kernel_bytes(1), 64, "one entry: kmalloc-64");
	is_long(remap_array_kernel_bytes(5), 192, "five entries: kmalloc-192");
}

int main(void)
{
	struct account acct;
	int type;

	memset(&acct, 0, sizeof(acct));
	type = account_register(&acct, "remap_array");
	sizes();
	edge_cases(&acct, type);
	random_ops(&acct, type);
	is_long(acct.type[type].live, 0, "every array freed");
	is_long(acct.bytes, 0, "every byte given back");
	ok(acct.type[type].allocs > 10, "arrays were grown and shrunk (%lu allocations)",
	   acct.type[type].allocs);
	return tap_done();
}
