// SPDX-License-Identifier: GPL-2.0
/*
 * The remap tree: per-VMA entries in an augmented interval tree ordered
 * by (pgoff, offset), and a spare list of reserved nodes (see
 * remap_tree.h for why one entry per VMA).
 *
 * lib/interval_tree.c orders nodes by start alone; the offset tie-break
 * is this file's descent, handed to interval_tree_insert_at(). With a
 * total order every entry has a key a lookup can resume from, and a
 * removal finds its node in one descent however many entries share a
 * pgoff.
 *
 * Readers and writers hold the context's remap lock.
 */
#include <errno.h>

#include <urcu.h>

#include "rmap/remap_tree.h"

#define entry_of(node) \
	((struct remap_entry *)((char *)(node) - \
				offsetof(struct remap_entry, it)))

size_t kmalloc_size_class(size_t size)
{
	static const size_t classes[] = {
		8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096, 8192,
	};
	size_t i, pages;

	for (i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (size <= classes[i])
			return classes[i];
	/* past KMALLOC_MAX_CACHE_SIZE: whole pages, a power of two */
	for (pages = 4; pages * 4096 < size; pages *= 2)
		;
	return pages * 4096;
}

size_t remap_entry_kernel_bytes(void)
{
	return kmalloc_size_class(REMAP_ENTRY_KERNEL_SIZE);
}

void remap_tree_init(struct remap_tree *t, struct account *acct, int type)
{
	interval_tree_init(&t->root);
	t->spare = NULL;
	t->nr_spare = 0;
	t->acct = acct;
	t->type = type;
}

static void entry_free(struct remap_tree *t, struct remap_entry *e)
{
	account_free(t->acct, t->type, e, remap_entry_kernel_bytes());
}

static void push_spare(struct remap_tree *t, struct remap_entry *e)
{
	e->it.parent = t->spare ? &t->spare->it : NULL;
	CMM_STORE_SHARED(t->spare, e);
	t->nr_spare++;
}

static struct remap_entry *pop_spare(struct remap_tree *t)
{
	struct remap_entry *e = t->spare;

	if (!e)
		return NULL;
	CMM_STORE_SHARED(t->spare, e->it.parent ? entry_of(e->it.parent) : NULL);
	t->nr_spare--;
	return e;
}

void remap_tree_destroy(struct remap_tree *t)
{
	struct interval_tree_node *n;

	remap_tree_drop_reservations(t);
	while ((n = t->root.node)) {
		interval_tree_remove(n, &t->root);
		entry_free(t, entry_of(n));
	}
}

unsigned int remap_tree_nr(const struct remap_tree *t)
{
	return (unsigned int)t->root.nr;
}

bool remap_tree_maybe_populated(const struct remap_tree *t)
{
	return CMM_LOAD_SHARED(t->root.node) != NULL ||
	       CMM_LOAD_SHARED(t->spare) != NULL;
}

unsigned int remap_tree_reserved(const struct remap_tree *t)
{
	return t->nr_spare;
}

const struct remap_entry *remap_tree_entry(const struct remap_tree *t,
					   unsigned int i)
{
	const struct interval_tree_node *n = interval_tree_first(&t->root);

	while (n && i--)
		n = interval_tree_next(n);
	return n ? entry_of(n) : NULL;
}

int remap_tree_reserve(struct remap_tree *t, unsigned int n)
{
	struct remap_entry *got = NULL, *e;
	unsigned int i;

	/* all or nothing: a failure leaves the spare list as it was */
	for (i = 0; i < n; i++) {
		e = account_alloc(t->acct, t->type, sizeof(*e),
				  remap_entry_kernel_bytes());
		if (!e)
			goto fail;
		e->it.parent = got ? &got->it : NULL;
		got = e;
	}
	while (got) {
		e = got;
		got = e->it.parent ? entry_of(e->it.parent) : NULL;
		push_spare(t, e);
	}
	return 0;
fail:
	while (got) {
		e = got;
		got = e->it.parent ? entry_of(e->it.parent) : NULL;
		entry_free(t, e);
	}
	return -ENOMEM;
}

void remap_tree_unreserve(struct remap_tree *t)
{
	struct remap_entry *e = pop_spare(t);

	if (e)
		entry_free(t, e);
}

void remap_tree_drop_reservations(struct remap_tree *t)
{
	struct remap_entry *e;

	while ((e = pop_spare(t)))
		entry_free(t, e);
}

static int key_cmp(unsigned long pgoff_a, long offset_a,
		   unsigned long pgoff_b, long offset_b)
{
	if (pgoff_a != pgoff_b)
		return pgoff_a < pgoff_b ? -1 : 1;
	if (offset_a != offset_b)
		return offset_a < offset_b ? -1 : 1;
	return 0;
}

static int node_cmp(const struct interval_tree_node *n, unsigned long pgoff,
		    long offset)
{
	/* a descent of this file's own: the bench counts its steps too */
	interval_tree_steps++;
	return key_cmp(n->start, entry_of(n)->offset, pgoff, offset);
}

bool remap_tree_insert(struct remap_tree *t, unsigned long pgoff,
		       unsigned long nr_pages, long offset)
{
	struct interval_tree_node **link = &t->root.node, *parent = NULL;
	struct remap_entry *e;

	if (!t->spare || !nr_pages)
		return false;
	while (*link) {
		int c = node_cmp(*link, pgoff, offset);

		if (!c)
			return false;
		parent = *link;
		link = c > 0 ? &parent->left : &parent->right;
	}
	e = pop_spare(t);
	e->it.start = pgoff;
	e->it.last = pgoff + nr_pages - 1;
	e->offset = offset;
	interval_tree_insert_at(&e->it, parent, link, &t->root);
	return true;
}

static struct remap_entry *find(const struct remap_tree *t,
				unsigned long pgoff, long offset)
{
	struct interval_tree_node *n = t->root.node;

	while (n) {
		int c = node_cmp(n, pgoff, offset);

		if (!c)
			return entry_of(n);
		n = c > 0 ? n->left : n->right;
	}
	return NULL;
}

bool remap_tree_remove(struct remap_tree *t, unsigned long pgoff,
		       unsigned long nr_pages, long offset, bool keep_slot)
{
	struct remap_entry *e = find(t, pgoff, offset);

	if (!e || !nr_pages || e->it.last != pgoff + nr_pages - 1)
		return false;
	interval_tree_remove(&e->it, &t->root);
	if (keep_slot)
		push_spare(t, e);
	else
		entry_free(t, e);
	return true;
}

/* The first node whose key is above @pos's, in one descent */
static struct interval_tree_node *
successor(const struct remap_tree *t, const struct remap_cursor *pos)
{
	struct interval_tree_node *n = t->root.node, *best = NULL;

	while (n) {
		if (node_cmp(n, pos->pgoff, pos->offset) > 0) {
			best = n;
			n = n->left;
		} else {
			n = n->right;
		}
	}
	return best;
}

/* The first node overlapping [first, last] after @pos, O(log n) */
static struct interval_tree_node *
next_overlapping(const struct remap_tree *t, unsigned long first,
		 unsigned long last, const struct remap_cursor *pos)
{
	struct interval_tree_node *n;

	if (!pos->started)
		return interval_tree_iter_first(&t->root, first, last);
	n = successor(t, pos);
	if (!n || n->start > last)
		return NULL;
	if (n->last >= first)
		return n;
	/* iter_next looks only after n, at what lies to its right */
	return interval_tree_iter_next(n, first, last);
}

/*
 * Did an entry before @e, with @e's offset, overlap [first, last]? Only
 * an entry starting below @e's pgoff can, and it must reach @first.
 */
static bool offset_seen(const struct remap_tree *t, unsigned long first,
			const struct remap_entry *e)
{
	struct interval_tree_node *n;

	if (e->it.start <= first)
		return false;
	for (n = interval_tree_iter_first(&t->root, first, e->it.start - 1);
	     n; n = interval_tree_iter_next(n, first, e->it.start - 1))
		if (entry_of(n)->offset == e->offset)
			return true;
	return false;
}

bool remap_tree_next_offset(const struct remap_tree *t, unsigned long first,
			    unsigned long last, struct remap_cursor *pos,
			    long *offset)
{
	struct interval_tree_node *n;

	if (first > last)
		return false;
	while ((n = next_overlapping(t, first, last, pos))) {
		const struct remap_entry *e = entry_of(n);

		pos->pgoff = n->start;
		pos->offset = e->offset;
		pos->started = true;
		if (!offset_seen(t, first, e)) {
			*offset = e->offset;
			return true;
		}
	}
	return false;
}

const char *remap_tree_check(const struct remap_tree *t)
{
	const struct interval_tree_node *n, *prev = NULL;
	const struct remap_entry *e;
	unsigned int spare = 0;
	const char *err = interval_tree_check(&t->root);

	if (err)
		return err;
	for (n = interval_tree_first(&t->root); n; n = interval_tree_next(n)) {
		if (prev && node_cmp(prev, n->start, entry_of(n)->offset) >= 0)
			return "keys not in increasing (pgoff, offset) order";
		prev = n;
	}
	for (e = t->spare; e; e = e->it.parent ? entry_of(e->it.parent) : NULL)
		spare++;
	if (spare != t->nr_spare)
		return "spare list length differs from its count";
	return NULL;
}
