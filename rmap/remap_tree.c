// SPDX-License-Identifier: GPL-2.0
/*
 * The remap tree: one sorted array of per-VMA entries per COW context
 * (see remap_tree.h for why one entry per VMA). Entries are ordered by
 * (pgoff, offset); end_max, a running maximum of pgoff_end, bounds the
 * backward scan that finds every entry covering an index.
 *
 * Readers and writers hold the context's remap lock; an array that must
 * grow or shrink is replaced by a copy, so a failed allocation leaves
 * the tree as it was.
 */
#include <errno.h>
#include <string.h>

#include <urcu.h>

#include "rmap/remap_tree.h"

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

size_t remap_array_kernel_bytes(unsigned int capacity)
{
	size_t entries = (size_t)capacity * sizeof(struct remap_entry);

	return kmalloc_size_class(REMAP_ARRAY_KERNEL_HEADER + entries);
}

/* The most entries a kmalloc object that must hold @need can take */
static unsigned int capacity_for(unsigned int need)
{
	size_t bytes = remap_array_kernel_bytes(need);

	return (unsigned int)((bytes - REMAP_ARRAY_KERNEL_HEADER) /
			      sizeof(struct remap_entry));
}

void remap_tree_init(struct remap_tree *t, struct account *acct, int type)
{
	t->arr = NULL;
	t->acct = acct;
	t->type = type;
}

static void array_free(struct remap_tree *t, struct remap_array *arr)
{
	account_free(t->acct, t->type, arr,
		     remap_array_kernel_bytes(arr->capacity));
}

void remap_tree_destroy(struct remap_tree *t)
{
	struct remap_array *arr = t->arr;

	if (!arr)
		return;
	rcu_assign_pointer(t->arr, NULL);
	array_free(t, arr);
}

unsigned int remap_tree_nr(const struct remap_tree *t)
{
	return t->arr ? t->arr->nr : 0;
}

bool remap_tree_maybe_populated(const struct remap_tree *t)
{
	return CMM_LOAD_SHARED(t->arr) != NULL;
}

unsigned int remap_tree_reserved(const struct remap_tree *t)
{
	return t->arr ? t->arr->reserved : 0;
}

const struct remap_entry *remap_tree_entry(const struct remap_tree *t,
					   unsigned int i)
{
	return t->arr && i < t->arr->nr ? &t->arr->entry[i] : NULL;
}

/* Move to an array of @capacity slots (0: none at all). 0 or -ENOMEM. */
static int resize(struct remap_tree *t, unsigned int capacity)
{
	struct remap_array *old = t->arr, *arr = NULL;
	unsigned int nr = old ? old->nr : 0;

	if (capacity) {
		arr = account_alloc(t->acct, t->type,
				    sizeof(*arr) +
				    capacity * sizeof(struct remap_entry),
				    remap_array_kernel_bytes(capacity));
		if (!arr)
			return -ENOMEM;
		arr->capacity = capacity;
		if (old) {
			arr->nr = nr;
			arr->reserved = old->reserved;
			memcpy(arr->entry, old->entry,
			       nr * sizeof(struct remap_entry));
		}
	}
	rcu_assign_pointer(t->arr, arr);
	if (old)
		array_free(t, old);
	return 0;
}

int remap_tree_reserve(struct remap_tree *t, unsigned int n)
{
	struct remap_array *arr = t->arr;
	unsigned int used = arr ? arr->nr + arr->reserved : 0;
	unsigned int cap = arr ? arr->capacity : 0;

	if (!n)
		return 0;
	if (used + n > cap) {
		unsigned int want = used + n;

		/* grow by half at least: n inserts cost O(n) copies */
		if (want < cap + cap / 2)
			want = cap + cap / 2;
		if (resize(t, capacity_for(want)))
			return -ENOMEM;
	}
	t->arr->reserved += n;
	return 0;
}

/* Drop an array nothing needs any more; shrink one mostly empty. */
static void maybe_shrink(struct remap_tree *t)
{
	struct remap_array *arr = t->arr;
	unsigned int used = arr->nr + arr->reserved;

	if (!used) {
		resize(t, 0);
		return;
	}
	/* a failed shrink only keeps a larger array: harmless */
	if (used * 4 <= arr->capacity && arr->capacity > 8)
		resize(t, capacity_for(used * 2));
}

void remap_tree_unreserve(struct remap_tree *t)
{
	if (!t->arr || !t->arr->reserved)
		return;
	t->arr->reserved--;
	maybe_shrink(t);
}

void remap_tree_drop_reservations(struct remap_tree *t)
{
	if (!t->arr)
		return;
	t->arr->reserved = 0;
	maybe_shrink(t);
}

static int key_cmp(const struct remap_entry *e, unsigned long pgoff,
		   long offset)
{
	if (e->pgoff != pgoff)
		return e->pgoff < pgoff ? -1 : 1;
	if (e->offset != offset)
		return e->offset < offset ? -1 : 1;
	return 0;
}

/* First entry whose key is not below (pgoff, offset) */
static unsigned int lower_bound(const struct remap_array *arr,
				unsigned long pgoff, long offset)
{
	unsigned int lo = 0, hi = arr->nr;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (key_cmp(&arr->entry[mid], pgoff, offset) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void fix_end_max(struct remap_array *arr, unsigned int from)
{
	unsigned int i;

	for (i = from; i < arr->nr; i++) {
		unsigned long prev = i ? arr->entry[i - 1].end_max : 0;
		unsigned long end = arr->entry[i].pgoff_end;

		arr->entry[i].end_max = end > prev ? end : prev;
	}
}

bool remap_tree_insert(struct remap_tree *t, unsigned long pgoff,
		       unsigned long nr_pages, long offset)
{
	struct remap_array *arr = t->arr;
	unsigned int pos;

	if (!arr || !arr->reserved || !nr_pages)
		return false;
	pos = lower_bound(arr, pgoff, offset);
	if (pos < arr->nr && !key_cmp(&arr->entry[pos], pgoff, offset))
		return false;
	memmove(&arr->entry[pos + 1], &arr->entry[pos],
		(arr->nr - pos) * sizeof(struct remap_entry));
	arr->entry[pos].pgoff = pgoff;
	arr->entry[pos].pgoff_end = pgoff + nr_pages;
	arr->entry[pos].offset = offset;
	arr->nr++;
	arr->reserved--;
	fix_end_max(arr, pos);
	return true;
}

bool remap_tree_remove(struct remap_tree *t, unsigned long pgoff,
		       unsigned long nr_pages, long offset, bool keep_slot)
{
	struct remap_array *arr = t->arr;
	unsigned int pos;

	if (!arr)
		return false;
	pos = lower_bound(arr, pgoff, offset);
	if (pos >= arr->nr || key_cmp(&arr->entry[pos], pgoff, offset) ||
	    arr->entry[pos].pgoff_end != pgoff + nr_pages)
		return false;
	arr->nr--;
	memmove(&arr->entry[pos], &arr->entry[pos + 1],
		(arr->nr - pos) * sizeof(struct remap_entry));
	fix_end_max(arr, pos);
	if (keep_slot)
		arr->reserved++;
	else
		maybe_shrink(t);
	return true;
}

bool remap_tree_next_offset(const struct remap_tree *t, unsigned long index,
			    bool have_after, long after, long *offset)
{
	const struct remap_array *arr = t->arr;
	unsigned int lo = 0, hi;
	bool found = false;
	long best = 0;

	if (!arr)
		return false;
	/* hi: how many entries start at or below index */
	hi = arr->nr;
	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (arr->entry[mid].pgoff <= index)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0) {
		const struct remap_entry *e = &arr->entry[lo];

		/* nothing at or below here reaches index */
		if (e->end_max <= index)
			break;
		if (e->pgoff_end <= index)
			continue;
		if (have_after && e->offset <= after)
			continue;
		if (!found || e->offset < best) {
			best = e->offset;
			found = true;
		}
	}
	if (found)
		*offset = best;
	return found;
}
