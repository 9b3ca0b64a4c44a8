/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The COW context's remap tree: which pgoff ranges of one mm are mapped
 * at an address other than their own, and at which offsets.
 *
 * An anonymous VMA keeps the pgoff it was created with when mremap moves
 * it, and a MAP_PRIVATE file VMA's pgoff is a file offset: for both, a
 * folio's index no longer says where it is mapped. Each such VMA (linked,
 * with anonymous state, offset = (vm_start >> PAGE_SHIFT) - vm_pgoff not
 * zero) owns exactly one entry here: [pgoff, pgoff_end) -> offset.
 *
 * One entry per VMA rather than the proof of concept's disjoint ranges
 * with a set of offsets each: the PoC must split and re-merge ranges (and
 * so allocate) whenever a VMA grows, shrinks or splits; here those are
 * in-place edits of one entry, so the only allocation is a slot reserved
 * before the VMA gets anonymous state, in a hook that may fail. The set
 * of offsets at a pgoff falls out for free: two VMAs of one mm covering
 * the same pgoff at the same offset would map the same address, so the
 * entries covering any pgoff have distinct offsets.
 *
 * Entries live in one sorted array per context (most contexts have none
 * and no array). A lookup is a binary search and a short backward scan
 * bounded by a prefix maximum of the ends; it never allocates, and it
 * iterates offsets in increasing order from any offset, so a walk can
 * resume after any offset it has visited.
 *
 * The array is read and written only under the context's remap lock, so
 * it is freed at once, not after a grace period; a reader that has not
 * taken the lock only tests whether the pointer is NULL.
 */
#ifndef COWCTX_REMAP_TREE_H
#define COWCTX_REMAP_TREE_H

#include <stdbool.h>
#include <stddef.h>

#include <cowctx/account.h>

struct remap_entry {
	unsigned long pgoff;		/* first page */
	unsigned long pgoff_end;	/* one past the last page */
	long offset;			/* address page = pgoff + offset */
	unsigned long end_max;		/* max pgoff_end in [0, i] */
};

/*
 * Kernel-equivalent layout: three counts, then the entries; one kmalloc
 * object, sized up to its kmalloc class.
 */
struct remap_array {
	unsigned int nr;	/* entries in use */
	unsigned int reserved;	/* slots promised to unlinked VMAs */
	unsigned int capacity;
	struct remap_entry entry[];
};

#define REMAP_ARRAY_KERNEL_HEADER	16	/* 3 x u32, padded to 8 */

/* The kernel's context holds only @arr; the rest is the model's */
struct remap_tree {
	struct remap_array *arr;	/* NULL: no entries, no reservations */
	struct account *acct;
	int type;
};

/* kmalloc()'s size class for @size bytes (x86-64 SLUB defaults) */
size_t kmalloc_size_class(size_t size);
size_t remap_array_kernel_bytes(unsigned int capacity);

void remap_tree_init(struct remap_tree *t, struct account *acct, int type);
/* Free the array; the tree must have no entries. */
void remap_tree_destroy(struct remap_tree *t);

/* Promise @n more entries: later inserts cannot fail. 0 or -ENOMEM. */
int remap_tree_reserve(struct remap_tree *t, unsigned int n);
/* Give back one promise not used. */
void remap_tree_unreserve(struct remap_tree *t);
/* Forget every promise (the mm is gone; no insert will come). */
void remap_tree_drop_reservations(struct remap_tree *t);

/*
 * Insert [pgoff, pgoff + nr_pages) -> offset, using one reservation.
 * Returns false (inserting nothing) if that key is already present,
 * which would mean two VMAs claim one address: a caller bug.
 */
bool remap_tree_insert(struct remap_tree *t, unsigned long pgoff,
		       unsigned long nr_pages, long offset);
/*
 * Remove the entry of exactly that range and offset; its slot becomes a
 * reservation when @keep_slot (the VMA is being resized, and will be
 * inserted again). Returns false if there is no such entry.
 */
bool remap_tree_remove(struct remap_tree *t, unsigned long pgoff,
		       unsigned long nr_pages, long offset, bool keep_slot);

/*
 * The smallest offset greater than @after (any offset if !@have_after)
 * among entries covering @index. False when there is none.
 */
bool remap_tree_next_offset(const struct remap_tree *t, unsigned long index,
			    bool have_after, long after, long *offset);

unsigned int remap_tree_nr(const struct remap_tree *t);
/* Without the lock: may there be entries? (no array: certainly not) */
bool remap_tree_maybe_populated(const struct remap_tree *t);
unsigned int remap_tree_reserved(const struct remap_tree *t);
/* entry @i in sorted order (tests and debugging) */
const struct remap_entry *remap_tree_entry(const struct remap_tree *t,
					   unsigned int i);

#endif /* COWCTX_REMAP_TREE_H */
