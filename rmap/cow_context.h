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

#include <cowctx/bug.h>
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
 *	struct rb_root remaps;			  8
 *	union {					 16
 *		struct rcu_head rcu;
 *		struct remap_entry *remap_spare; reservations: none at free
 *	};
 *						---
 *						128  its own slab cache,
 *						     128-byte objects
 *
 * The fields after "model only" are the model's bookkeeping.
 */
#define COW_CONTEXT_KERNEL_BYTES	128

struct cow_context {
	/*
	 * mm, children, folios, walks. Atomic (__atomic builtins, as
	 * refcount_t): walks on other CPUs pin with cow_context_tryget().
	 */
	int refcount;
	spinlock_t lock;		/* writers of children (and siblings) */
	struct mm_struct *mm;		/* NULL once the mm has exited */
	/*
	 * Pinned by our reference on it. A detached context (see
	 * cow_context.c, "the bounded tree") keeps it as the way up to
	 * the context a walk of its folios starts from.
	 */
	struct cow_context *parent;
	struct list_head children;	/* RCU; forked ones at the tail */
	struct list_head siblings;	/* in parent->children */
	/*
	 * The fork sequence of the fork that made this context, taken when
	 * that fork's dup_mmap() completed (COW_FORK_PENDING until then);
	 * for a process made by `proc`, the sequence at its creation. See
	 * attach() and cow_mm_fork_done().
	 */
	unsigned long fork_seq;
	/*
	 * Held for write around remap-tree changes and every PTE move of
	 * mremap, for read by a walk across its whole visit of this mm.
	 */
	struct rw_semaphore remap_lock;
	struct remap_tree remaps;
	struct rcu_head rcu;

	/* model only */
	struct cow_instance *inst;
	/*
	 * Who wrote its two cachelines last (lock.h): refcount and lock in
	 * the first, remap_lock in the second; and the mm's mm_users line,
	 * which walks pin (mm_pins).
	 */
	struct family_line line[2];
	struct family_line mm_users_line;
	/*
	 * Spliced out of the tree: on no children list, with no children
	 * and no mm; only folios (and walks) hold it. A kernel needs no
	 * field: list_del_rcu() leaves LIST_POISON2 in ->siblings.prev.
	 */
	bool detached;
	/*
	 * Walks visiting this mm: the model's stand-in for the mm_users
	 * references that mmget_not_zero() takes. Exit with a pin held is
	 * a bug (the kernel's exit_mmap() runs only at mm_users == 0).
	 */
	int mm_pins;
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
	unsigned long vma_busy;		/* VMA read trylock failed */
	unsigned long root_retries;	/* folio's context changed under us */
};

/*
 * Points inside the walk where another CPU may act; a test hook
 * (cow_instance->walk_step) runs writers there, deterministically.
 */
enum cow_walk_step {
	COW_STEP_ROOT_READ,	/* folio's context read, not yet pinned */
	COW_STEP_CONTEXT,	/* before a context's visit (ctx pinned) */
	COW_STEP_MM,		/* mm pinned, remap state not yet read */
	COW_STEP_CANDIDATE,	/* between two candidates of one mm */
	COW_STEP_VMA_BUSY,	/* a VMA is write-locked: the walk waits */
	NR_COW_WALK_STEPS,
};

#define COW_FORK_PENDING	(~0UL)

struct cow_instance {
	struct model *m;
	int type_context;
	int type_remap;
	int type_anon_pgoff;	/* vm_anon_pgoff: 8 bytes in every VMA */
	unsigned int walk_flags;
	struct lock_stat lock_stat;		/* cow_context.lock */
	struct lock_stat remap_lock_stat;	/* cow_context.remap_lock */
	struct cow_walk_stats walk;
	long nr_contexts;
	long nr_detached;
	/* completed forks: the sequence that fork_seq and stamps use */
	unsigned long fork_seq;
	/* test only: called at each step of every walk (may be NULL) */
	void (*walk_step)(struct cow_instance *inst, enum cow_walk_step step,
			  struct cow_context *ctx, void *data);
	void *walk_step_data;
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

/*
 * The offset a VMA maps its anonymous pages at: 0 unless it moved after
 * it got anonymous state (vm_anon_pgoff, not vm_pgoff: a private file
 * VMA that never moved needs no remap entry, whatever it maps).
 */
static inline long vma_remap_offset(const struct vm_area_struct *vma)
{
	return (long)(vma->vm_start >> PAGE_SHIFT) - (long)vma->vm_anon_pgoff;
}

/*
 * Per-VMA state in vma->rmap_private: flags, and the count of walks
 * holding the VMA read-locked (the model's vma_start_read()).
 *
 * The per-VMA lock is local to this backend until the model has one:
 * COW_VMA_WRITER stands for vma_start_write() held by a writer that is
 * still in the middle of its change (only a test, which stops a writer
 * half way, can leave it set across a walk step). A read lock is a
 * trylock, as the kernel's vma_start_read() is: it fails while the
 * writer holds the VMA.
 */
#define COW_VMA_LINKED		0x1UL	/* in its mm's tree */
#define COW_VMA_ENTRY		0x2UL	/* owns a remap entry */
#define COW_VMA_RESERVED	0x4UL	/* owns a reserved remap slot */
#define COW_VMA_LOSSY		0x8UL	/* wants an entry, has none */
#define COW_VMA_WRITER		0x10UL	/* write-locked (see above) */
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
#define cow_bug(...)	cowctx_bug("cow_context", __VA_ARGS__)

static inline void cow_vma_write_lock(struct vm_area_struct *vma)
{
	cow_vma_set_state(vma, cow_vma_state(vma) | COW_VMA_WRITER);
	vma->vm_lock_seq++;
}

static inline void cow_vma_write_unlock(struct vm_area_struct *vma)
{
	cow_vma_set_state(vma, cow_vma_state(vma) & ~COW_VMA_WRITER);
}

/* cow_context.c: references and deferred frees */
void cow_context_get(struct cow_context *ctx);
/* A reference unless the context is already dying (refcount 0). */
bool cow_context_tryget(struct cow_context *ctx);
/* May free the context and cascade upward, after a grace period. */
void cow_context_put(struct cow_context *ctx);
static inline int cow_context_refcount(const struct cow_context *ctx)
{
	return __atomic_load_n(&ctx->refcount, __ATOMIC_RELAXED);
}

/* Where a walk of a folio attached to @ctx starts: see cow_context.c */
struct cow_context *cow_context_walk_root(struct cow_context *ctx);

/* The stamp a folio attached now gets (see attach()) */
static inline unsigned long cow_fork_seq_now(struct cow_instance *inst)
{
	return __atomic_load_n(&inst->fork_seq, __ATOMIC_ACQUIRE);
}

/* cow_context_walk.c */
int cow_context_walk(struct folio *folio, struct rmap_walk_control *rwc);

/* liburcu wants each thread that reads under RCU registered, once. */
void cow_rcu_thread_get(void);
void cow_rcu_thread_put(void);

/*
 * Test-only variants (RMAP_TEST_BACKEND in <cowctx/rmap_backends.h>):
 * cow_context-noprune measures what pruning saves; cow_context-poc walks
 * as the PoC does (cow_context_poc.c), to prove the oracle catches what
 * its early stop misses.
 */

#endif /* COWCTX_RMAP_COW_CONTEXT_H */
