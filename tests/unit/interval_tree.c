// SPDX-License-Identifier: GPL-2.0
/*
 * The interval tree against a brute-force list: random inserts, removes
 * and stabbing queries from a fixed seed, with every invariant checked
 * after every operation, and the exact visiting order checked on every
 * query (the anon_vma walk order depends on it).
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#include <cowctx/interval_tree.h>
#include <cowctx/list.h>
#include "tap.h"

#define NR_ITEMS	1500
#define NR_OPS		30000

struct item {
	struct interval_tree_node it;
	bool in_tree;
	unsigned long seq;	/* insertion order, the tie-break on start */
};

static uint64_t rng_state = 0x2545f4914f6cdd1dULL;

/* xorshift64*: the same sequence everywhere, unlike rand() */
static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static unsigned long rng_below(unsigned long n)
{
	return (unsigned long)(rng() % n);
}

static struct item items[NR_ITEMS];
static struct interval_tree_root root = INTERVAL_TREE_ROOT_INIT;
static unsigned long next_seq;

/* Mostly short intervals in a small space (heavy overlap, equal starts) */
static void random_interval(unsigned long *start, unsigned long *last)
{
	unsigned long len;

	*start = rng_below(2000);
	switch (rng_below(4)) {
	case 0:
		len = 0;
		break;
	case 1:
		len = rng_below(4);
		break;
	case 2:
		len = rng_below(64);
		break;
	default:
		len = rng_below(1000);
		break;
	}
	*last = *start + len;
}

static void insert_item(struct item *item, unsigned long start,
			unsigned long last)
{
	item->it.start = start;
	item->it.last = last;
	item->seq = next_seq++;
	item->in_tree = true;
	interval_tree_insert(&item->it, &root);
}

static void remove_item(struct item *item)
{
	interval_tree_remove(&item->it, &root);
	item->in_tree = false;
}

static bool overlaps(const struct item *item, unsigned long s, unsigned long l)
{
	return item->it.start <= l && s <= item->it.last;
}

/* Does a come before b in the tree's order? */
static bool before(const struct item *a, const struct item *b)
{
	if (a->it.start != b->it.start)
		return a->it.start < b->it.start;
	return a->seq < b->seq;
}

/*
 * Compare the tree's answer for [s, l] with the brute force: the same
 * items, each once, in (start, seq) order. Returns NULL or the problem.
 */
static const char *check_query(unsigned long s, unsigned long l)
{
	struct interval_tree_node *n;
	const struct item *prev = NULL;
	unsigned long found = 0, want = 0;
	int i;

	for (i = 0; i < NR_ITEMS; i++)
		if (items[i].in_tree && overlaps(&items[i], s, l))
			want++;
	for (n = interval_tree_iter_first(&root, s, l); n;
	     n = interval_tree_iter_next(n, s, l)) {
		const struct item *item = container_of(n, struct item, it);

		if (!item->in_tree)
			return "returned a removed node";
		if (!overlaps(item, s, l))
			return "returned a node that does not overlap";
		if (prev && !before(prev, item))
			return "returned nodes out of (start, insertion) order";
		prev = item;
		if (++found > want)
			return "returned too many nodes";
	}
	if (found != want)
		return "missed overlapping nodes";
	return NULL;
}

static int random_ops(void)
{
	unsigned long inserts = 0, removes = 0, queries = 0, max_nr = 0;
	const char *bad_tree = NULL, *bad_query = NULL;
	long bad_op = -1;
	long op;

	for (op = 0; op < NR_OPS && !bad_tree && !bad_query; op++) {
		struct item *item = &items[rng_below(NR_ITEMS)];
		unsigned long s, l;
		unsigned long r = rng_below(10);

		/* phases: grow, churn, shrink, so deep and empty trees occur */
		if (op > NR_OPS * 3 / 4)
			r = r < 7 ? 9 : r;	/* mostly removals */
		if (r < 4) {
			if (item->in_tree)
				remove_item(item);
			random_interval(&s, &l);
			insert_item(item, s, l);
			inserts++;
		} else if (r < 7) {
			random_interval(&s, &l);
			bad_query = check_query(s, l);
			queries++;
		} else if (item->in_tree) {
			remove_item(item);
			removes++;
		}
		if (root.nr > max_nr)
			max_nr = root.nr;
		bad_tree = interval_tree_check(&root);
		if (!bad_tree && !bad_query)
			bad_query = check_query(0, ULONG_MAX);
		if (bad_tree || bad_query)
			bad_op = op;
	}
	ok(!bad_tree, "invariants hold after each of %ld random operations",
	   (long)NR_OPS);
	if (bad_tree)
		tap_diag("operation %ld: %s", bad_op, bad_tree);
	ok(!bad_query, "every query equals the brute force, in order");
	if (bad_query)
		tap_diag("operation %ld: %s", bad_op, bad_query);
	tap_diag("%lu inserts, %lu removes, %lu queries, up to %lu nodes",
		 inserts, removes, queries, max_nr);
	return !bad_tree && !bad_query;
}

static void edge_cases(void)
{
	static struct item a, b, c;
	struct interval_tree_node *n;

	interval_tree_init(&root);
	ok(!interval_tree_iter_first(&root, 0, ULONG_MAX),
	   "an empty tree finds nothing");
	ok(!interval_tree_check(&root), "an empty tree is valid");

	/* full-range interval, and one ending at ULONG_MAX */
	a.it.start = 0;
	a.it.last = ULONG_MAX;
	interval_tree_insert(&a.it, &root);
	b.it.start = ULONG_MAX;
	b.it.last = ULONG_MAX;
	interval_tree_insert(&b.it, &root);
	c.it.start = 5;
	c.it.last = 5;
	interval_tree_insert(&c.it, &root);
	n = interval_tree_iter_first(&root, ULONG_MAX, ULONG_MAX);
	ok(n == &a.it && interval_tree_iter_next(n, ULONG_MAX, ULONG_MAX) ==
	   &b.it && !interval_tree_iter_next(&b.it, ULONG_MAX, ULONG_MAX),
	   "a stab at ULONG_MAX finds the full range, then the last page");
	n = interval_tree_iter_first(&root, 6, 100);
	ok(n == &a.it && !interval_tree_iter_next(n, 6, 100),
	   "a query between intervals finds only the covering one");
	n = interval_tree_iter_first(&root, 5, 5);
	ok(n == &a.it && interval_tree_iter_next(n, 5, 5) == &c.it,
	   "a single-point stab finds both intervals holding the point");
	interval_tree_remove(&a.it, &root);
	ok(!interval_tree_iter_first(&root, 6, 100) &&
	   !interval_tree_check(&root) && root.nr == 2,
	   "removing the covering interval leaves the gap empty");
	interval_tree_remove(&b.it, &root);
	interval_tree_remove(&c.it, &root);
	ok(interval_tree_empty(&root) && root.nr == 0,
	   "removing every node empties the tree");
}

/* Sequential keys are the classic unbalanced-tree killer. */
static void sorted_inserts(void)
{
	const char *bad = NULL;
	unsigned long depth = 0;
	int i;

	interval_tree_init(&root);
	for (i = 0; i < NR_ITEMS; i++) {
		items[i].in_tree = false;
		insert_item(&items[i], (unsigned long)i, (unsigned long)i);
		if (!bad)
			bad = interval_tree_check(&root);
	}
	for (i = 0; i < NR_ITEMS; i++) {
		unsigned long d = 0;
		struct interval_tree_node *n = &items[i].it;

		while (n->parent) {
			n = n->parent;
			d++;
		}
		if (d > depth)
			depth = d;
	}
	ok(!bad, "sorted inserts keep the invariants");
	/* a red-black tree of n nodes is at most 2 log2(n + 1) deep */
	ok(depth <= 22, "sorted inserts stay balanced (depth %lu for %d)",
	   depth, NR_ITEMS);
	for (i = 0; i < NR_ITEMS; i += 2)
		remove_item(&items[i]);
	ok(!interval_tree_check(&root) && root.nr == NR_ITEMS / 2 &&
	   !check_query(0, ULONG_MAX) && !check_query(100, 200),
	   "removing every other node keeps the tree and its answers right");
	for (i = 1; i < NR_ITEMS; i += 2)
		remove_item(&items[i]);
	ok(interval_tree_empty(&root), "and removing the rest empties it");
}

int main(void)
{
	edge_cases();
	sorted_inserts();
	interval_tree_init(&root);
	random_ops();
	return tap_done();
}
