/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The COW context's remap tree: which pgoff ranges of one mm are mapped
 * at an address other than their own, and at which offsets.
 *
 * An anonymous VMA keeps the pgoff it was created with when mremap moves
 * it, and a MAP_PRIVATE file VMA's pgoff is a file offset: for both, a
 * folio's index no longer says where it is mapped. Each such VMA (linked,
 * with anonymous state, vma_remap_offset() not zero) owns exactly one
 * entry here: [pgoff, pgoff_end) -> offset, pgoff being its anonymous
 * page offset (vma_anon_pgoff()) and pgoff + offset its page number
 * plus ANON_PGOFF_BIAS.
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
 * Entries are the nodes of an augmented interval tree (lib/interval_tree.c,
 * the structure of anon_vma->rb_root) ordered by (pgoff, offset). Insert
 * and remove are O(log n); a lookup reports the entries overlapping a
 * pgoff range one at a time, each step O(log n), and never allocates. Its
 * position is a key, not a node, so a caller may let go of the lock
 * between steps and resume in the tree as it is then.
 *
 * A reserved slot is a node allocated in advance and kept on a spare
 * list until an insert takes it; a removal that keeps its slot puts the
 * node back there. So an insert never allocates, and failure is met only
 * where a hook can report it.
 *
 * The tree is read and written only under the context's remap lock, so
 * nodes are freed at once, not after a grace period; a reader that has
 * not taken the lock only tests whether the tree and spare list are empty.
 */
#ifndef COWCTX_REMAP_TREE_H
#define COWCTX_REMAP_TREE_H

#include <stdbool.h>
#include <stddef.h>

#include <cowctx/account.h>
#include <cowctx/interval_tree.h>

/*
 * Kernel-equivalent layout (x86-64):
 *
 *	struct rb_node rb;			 24
 *	unsigned long pgoff, last;		 16  it.start, it.last
 *	unsigned long subtree_last;		  8
 *	long offset;				  8
 *						---
 *						 56  kmalloc-64
 *
 * A spare node links to the next through it.parent (it is in no tree).
 */
struct remap_entry {
	struct interval_tree_node it;	/* [pgoff, pgoff_end - 1] */
	long offset;			/* address page = pgoff + offset */
};

#define REMAP_ENTRY_KERNEL_SIZE	56

static inline unsigned long remap_entry_pgoff(const struct remap_entry *e)
{
	return e->it.start;
}

static inline unsigned long remap_entry_end(const struct remap_entry *e)
{
	return e->it.last + 1;
}

/*
 * The kernel's context holds the root (struct rb_root, 8 bytes) and the
 * spare list's head, which may share the context's rcu_head: a context
 * is freed only once it has no reservation left. The rest is the model's.
 */
struct remap_tree {
	struct interval_tree_root root;
	struct remap_entry *spare;	/* reserved, not yet inserted */
	unsigned int nr_spare;
	struct account *acct;
	int type;
};

/*
 * A lookup's position: the key of the entry it reported last. Start
 * every lookup from REMAP_CURSOR_INIT.
 */
struct remap_cursor {
	unsigned long pgoff;
	long offset;
	bool started;
};

#define REMAP_CURSOR_INIT	{ 0, 0, false }

/* kmalloc()'s size class for @size bytes (x86-64 SLUB defaults) */
size_t kmalloc_size_class(size_t size);
/* What one entry (or reserved slot) costs a kernel */
size_t remap_entry_kernel_bytes(void);

void remap_tree_init(struct remap_tree *t, struct account *acct, int type);
/* Free every node; the tree must have no entries. */
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
 * The next distinct offset among the entries overlapping pgoffs
 * [first, last], after @pos, in (pgoff, offset) order of the entry that
 * first brings it; @pos advances. False when there is none. For one page
 * (first == last) every entry brings a new offset and a step is
 * O(log n); over a wider range an offset already brought by an earlier
 * overlapping entry is skipped, at O(log n + k) for k such entries.
 */
bool remap_tree_next_offset(const struct remap_tree *t, unsigned long first,
			    unsigned long last, struct remap_cursor *pos,
			    long *offset);

unsigned int remap_tree_nr(const struct remap_tree *t);
/* Without the lock: may there be entries or reservations? */
bool remap_tree_maybe_populated(const struct remap_tree *t);
unsigned int remap_tree_reserved(const struct remap_tree *t);
/* entry @i in (pgoff, offset) order, O(i) (tests and debugging) */
const struct remap_entry *remap_tree_entry(const struct remap_tree *t,
					   unsigned int i);
/* NULL when the tree is sound, else what is wrong (tests) */
const char *remap_tree_check(const struct remap_tree *t);

#endif /* COWCTX_REMAP_TREE_H */
