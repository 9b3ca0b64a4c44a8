/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The COW context: anonymous reverse mapping per process (mm) instead of
 * per VMA. Shared by the backend's files and its tests.
 *
 * A folio's mapping points at the context of the mm that faulted it (or
 * last reused it exclusively); every mm that can map it descends from
 * that context, because only fork spreads a mapping to another mm, and a
 * forked child is linked under its parent. The walk visits the folio's
 * context and its descendants; in each live mm the folio is at its own
 * index (offset 0: the VMA was never moved) or at index + offset for an
 * offset in the mm's remap tree.
 */
#ifndef COWCTX_RMAP_COW_CONTEXT_H
#define COWCTX_RMAP_COW_CONTEXT_H

#include <stdint.h>

#include <urcu.h>

#include <cowctx/list.h>
#include <cowctx/lock.h>
#include <cowctx/mm_types.h>
#include "rmap/remap_tree.h"
#include <cowctx/rmap.h>

struct cow_instance;

/*
 * The kernel would lay struct cow_context out as (x86-64, no debug):
 *
 *	refcount_t refcnt;			  4
 *	spinlock_t lock;			  4  children, for writers
 *	struct mm_struct *mm;			  8
 *	struct cow_context *parent;		  8
 *	struct list_head children;		 16
 *	struct list_head siblings;		 16
 *	unsigned long fork_seq;			  8
 *	struct rw_semaphore remap_lock;		 40
 *	struct remap_array __rcu *remaps;	  8
 *	struct rcu_head rcu;			 16
 *						---
 *						128  its own slab cache,
 *						     128-byte objects
 *
 * The fields after "model only" are the model's bookkeeping.
 */
#define COW_CONTEXT_KERNEL_BYTES	128

struct cow_context {
	int refcount;			/* mm, children, folios, walks */
	spinlock_t lock;		/* writers of children (and siblings) */
	struct mm_struct *mm;		/* NULL once the mm has exited */
	struct cow_context *parent;	/* pinned by our reference on it */
	struct list_head children;	/* RCU; oldest first */
	struct list_head siblings;	/* in parent->children */
	/*
	 * The fork sequence at creation (mm->fork_seq, the model's
	 * total_forks counted at fork start). Children are appended, so
	 * along a children list fork_seq only grows.
	 */
	unsigned long fork_seq;
	/*
	 * Held for write around remap-tree changes and mremap's PTE moves,
	 * for read by a walk visiting this mm while the tree has entries.
	 */
	struct rw_semaphore remap_lock;
	struct remap_tree remaps;
	struct rcu_head rcu;

	/* model only */
	struct cow_instance *inst;
	/*
	 * The accounted stand-in for this object: it is charged at
	 * creation and released at the last put, while the memory itself
	 * waits for a grace period (see context_free_rcu()).
	 */
	void *charge;
	unsigned long mm_id;		/* names it after the mm is gone */
	/*
	 * VMAs that should have a remap entry but could not get one (an
	 * allocation failed in a hook that cannot fail). While nonzero,
	 * walks look at every such VMA of the mm: slower, still exact.
	 */
	unsigned int nr_lossy;
};

/* Walk variants: the real one, and two for measuring and for proof */
enum cow_walk_flags {
	COW_WALK_PRUNE = 1 << 0,	/* fork-generation pruning */
	COW_WALK_POC_EARLY_STOP = 1 << 1,	/* the PoC's exclusive stop */
	COW_WALK_POC_ORDER = 1 << 2,	/* the PoC's: children first */
};

struct cow_walk_stats {
	unsigned long contexts_visited;
	unsigned long mms_visited;	/* contexts whose mm was alive */
	unsigned long contexts_pruned;	/* subtrees skipped by fork_seq */
	unsigned long remap_candidates;	/* lookups at offset != 0 */
	unsigned long lossy_scans;	/* mms scanned for want of entries */
	unsigned long vma_retries;	/* VMA changed before its lock */
};

struct cow_instance {
	struct model *m;
	int type_context;
	int type_remap;
	unsigned int walk_flags;
	struct lock_stat lock_stat;		/* cow_context.lock */
	struct lock_stat remap_lock_stat;	/* cow_context.remap_lock */
	struct cow_walk_stats walk;
	long nr_contexts;
};

static inline struct cow_instance *cow_instance(const struct model *m)
{
	return m->rmap_private;
}

static inline struct cow_context *mm_cow_context(const struct mm_struct *mm)
{
	return mm->rmap_private;
}

static inline struct cow_context *folio_cow_context(const struct folio *folio)
{
	return folio_anon_rmap(folio);
}

/* The offset a VMA maps its pgoffs at: 0 unless moved or file-backed */
static inline long vma_remap_offset(const struct vm_area_struct *vma)
{
	return (long)(vma->vm_start >> PAGE_SHIFT) - (long)vma->vm_pgoff;
}

/*
 * Per-VMA state in vma->rmap_private: flags, and the count of walks
 * holding the VMA read-locked (the model's vma_start_read()).
 */
#define COW_VMA_LINKED		0x1UL	/* in its mm's tree */
#define COW_VMA_ENTRY		0x2UL	/* owns a remap entry */
#define COW_VMA_RESERVED	0x4UL	/* owns a reserved remap slot */
#define COW_VMA_LOSSY		0x8UL	/* wants an entry, has none */
#define COW_VMA_READER_SHIFT	8

static inline unsigned long cow_vma_state(const struct vm_area_struct *vma)
{
	return (unsigned long)(uintptr_t)vma->rmap_private;
}

static inline void cow_vma_set_state(struct vm_area_struct *vma,
				     unsigned long state)
{
	vma->rmap_private = (void *)(uintptr_t)state;
}

static inline unsigned long cow_vma_readers(const struct vm_area_struct *vma)
{
	return cow_vma_state(vma) >> COW_VMA_READER_SHIFT;
}

/* An inconsistency in the backend or in how it is called: stop loudly. */
__attribute__((noreturn, format(printf, 1, 2)))
void cow_bug(const char *fmt, ...);

/* cow_context.c: references and deferred frees */
void cow_context_get(struct cow_context *ctx);
/* A reference unless the context is already dying (refcount 0). */
bool cow_context_tryget(struct cow_context *ctx);
/* May free the context and cascade upward, after a grace period. */
void cow_context_put(struct cow_context *ctx);

/* cow_context_walk.c */
int cow_context_walk(struct folio *folio, struct rmap_walk_control *rwc);

/* liburcu wants each thread that reads under RCU registered, once. */
void cow_rcu_thread_get(void);
void cow_rcu_thread_put(void);

/*
 * Test-only variants (rmap.h; not in rmap_backends[]): cow_context-noprune
 * measures what pruning saves; cow_context-poc has the PoC's early stop,
 * to prove the oracle catches what that stop misses.
 */

#endif /* COWCTX_RMAP_COW_CONTEXT_H */
