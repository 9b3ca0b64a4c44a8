/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The anon_vma backend's objects (Linux include/linux/rmap.h), shared
 * with its tests so they can look at the family tree and validate it
 * (tests/unit/anon_vma_validate.h).
 */
#ifndef COWCTX_RMAP_ANON_VMA_H
#define COWCTX_RMAP_ANON_VMA_H

#include <stdio.h>

#include <cowctx/interval_tree.h>
#include <cowctx/list.h>
#include <cowctx/lock.h>
#include <cowctx/mm_types.h>

/*
 * Kernel-equivalent sizes, from /sys/kernel/slab/<cache>/slab_size on
 * x86-64 (6.12 and 6.18 alike). struct anon_vma is 96 bytes; its cache
 * is SLAB_TYPESAFE_BY_RCU with a constructor, so SLUB keeps the free
 * pointer outside the object and each slot takes 104. struct
 * anon_vma_chain is 64 bytes in a 64-byte slot (vma, anon_vma,
 * same_vma, rb_node, rb_subtree_last).
 */
#define ANON_VMA_KERNEL_BYTES		104
#define ANON_VMA_CHAIN_KERNEL_BYTES	64

struct anon_vma {
	struct anon_vma *root;		/* oldest ancestor: holds the lock */
	struct rw_semaphore rwsem;	/* used in the root only */
	/*
	 * 1 for itself while its tree is in use, plus, in a root, 1 per
	 * descendant anon_vma (they need the root's lock to outlive them).
	 */
	int refcount;
	/* child anon_vmas, plus 1 in a root for its self-parent link */
	unsigned long num_children;
	/* VMAs whose ->anon_vma points here */
	unsigned long num_active_vmas;
	struct anon_vma *parent;
	/* AVCs of every VMA that may map this anon_vma's folios */
	struct interval_tree_root rb_root;
	/* model only: every live anon_vma, for validation; creation order */
	struct list_head node;
	unsigned long id;
	/* model only: who wrote the first line last (lock.h) */
	struct family_line line;
	/* model only, in a root: who holds rwsem, AVCs touched in the hold */
	int hold_site;
	unsigned long hold_touched;
};

struct anon_vma_chain {
	struct vm_area_struct *vma;
	struct anon_vma *anon_vma;
	struct list_head same_vma;	/* on vma->anon_vma_chain */
	struct interval_tree_node rb;	/* in anon_vma->rb_root */
};

/* Where a root rwsem is taken; each site is counted on its own. */
enum anon_vma_lock_site {
	AV_LOCK_PREPARE,	/* __anon_vma_prepare() */
	AV_LOCK_FORK,		/* anon_vma_fork() and its anon_vma_clone() */
	AV_LOCK_CLONE,		/* anon_vma_clone(): split, merge, mremap */
	AV_LOCK_UNLINK,		/* unlink_anon_vmas() */
	AV_LOCK_ADJUST,		/* vma_prepare()/vma_complete() tree update */
	AV_LOCK_WALK,		/* rmap_walk_anon(), read side */
	AV_LOCK_MREMAP,		/* mremap's take_rmap_locks() */
	AV_NR_LOCK_SITES,
};

/* Per model instance */
struct anon_vma_state {
	int type_anon_vma;		/* m->acct type indexes */
	int type_avc;
	struct list_head anon_vmas;	/* every live anon_vma */
	unsigned long next_id;
	struct lock_stat site[AV_NR_LOCK_SITES];
	/*
	 * The VMAs between vma_adjust_begin() and vma_adjust_end(): one
	 * critical section covers vma_prepare()'s vma and adj_next.
	 */
	struct vm_area_struct *adjusting[2];
	unsigned int nr_adjusting;
	struct anon_vma *adjust_root;	/* the root locked for them, if any */
};

static inline struct anon_vma_state *anon_vma_state(struct model *m)
{
	return m->rmap_private;
}

#endif /* COWCTX_RMAP_ANON_VMA_H */
