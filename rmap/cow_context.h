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
#include <cowctx/tsan.h>
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
 *	struct mutex remap_lock;		 32  writers only
 *	seqcount_mutex_t remap_seq;		  4  (+4 padding)
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
	 * Pinned by our reference on it. A spliced context (see
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
	 * Held (for write: the model has no mutex) around remap-tree
	 * changes and every PTE move of mremap; walks never take it.
	 * remap_seq is odd while such a writer is inside: a walk reads it
	 * before and after its visit of this mm and visits again when it
	 * changed (cow_context_walk.c), writing nothing.
	 */
	struct rw_semaphore remap_lock;
	unsigned int remap_seq;
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
	bool spliced;
	/*
	 * In a tree's root only: the walks in the tree (atomic). While there
	 * are any, no context of the tree is spliced out: an exit's splice
	 * waits on ->deferred (linked by ->splice_next), and the last walk
	 * to end makes it (cow_walk_leave()), as the kernel's does
	 * (patches/0019). The counter is on line[0]: every walk writes it.
	 */
	int walkers;
	/*
	 * On ->deferred. While it is at the instance's splice_backlog_max,
	 * no walk enters the tree (cow_context_walk.c, point 2).
	 */
	int nr_deferred;
	struct cow_context *deferred;
	struct cow_context *splice_next;
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
	COW_WALK_FORKED_ONLY = 1 << 1,	/* below the folio's mm: forked VMAs */
};

struct cow_walk_stats {
	unsigned long contexts_visited;
	unsigned long mms_visited;	/* contexts whose mm was alive */
	unsigned long contexts_pruned;	/* subtrees skipped by fork_seq */
	unsigned long remap_candidates;	/* lookups at offset != 0 */
	unsigned long lossy_scans;	/* mms scanned for want of entries */
	unsigned long vma_retries;	/* VMA changed before its lock */
	unsigned long vma_busy;		/* VMA read trylock failed */
	unsigned long vma_not_forked;	/* anon state its own: no candidate */
	unsigned long mm_retries;	/* mms visited again: remap_seq moved */
	unsigned long root_retries;	/* folio's context changed under us */
	unsigned long backlog_waits;	/* waited for a tree's splices */
	unsigned long backlog_gave_up;	/* try-walks that would have waited */
};

#define COW_FORK_PENDING	(~0UL)
/* cow_instance->splice_backlog_max to begin with, as the kernel's */
#define COW_SPLICE_BACKLOG	64

struct cow_instance {
	struct model *m;
	int type_context;
	int type_remap;
	unsigned int walk_flags;
	/* the counters, one block: see rmap_ops->counters */
	struct {
		struct lock_stat lock_stat;		/* cow_context.lock */
		struct lock_stat remap_lock_stat;	/* .remap_lock */
		struct cow_walk_stats walk;
	};
	long nr_contexts;
	long nr_spliced;
	long splices_deferred;	/* of those, splices that waited for walks */
	/*
	 * The most splices a tree's walks hold off before a walk waits for
	 * them to be made (0: no bound); the kernel's debugfs
	 * splice_backlog_max (patches/0026).
	 */
	int splice_backlog_max;
	/* completed forks: the sequence that fork_seq and stamps use */
	unsigned long fork_seq;
	/* test only: each step of every walk (<cowctx/inject.h>), or NULL */
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
	/* both below 2^56 (<cowctx/mm_types.h>): the difference fits */
	return (long)(anon_page_index(vma->vm_start) - vma_anon_pgoff(vma));
}

/*
 * Per-VMA flags, in the high bits of the vm_anon_pgoff word, beside the
 * offset they are about, so they cost no word of their own. The per-VMA
 * lock the walk takes is the model's own (<cowctx/mmap_lock.h>), as the
 * kernel's is mm's.
 */
#define COW_VMA_LINKED		VMA_ANON_FLAG(0)	/* in its mm's tree */
#define COW_VMA_ENTRY		VMA_ANON_FLAG(1)	/* owns a remap entry */
#define COW_VMA_RESERVED	VMA_ANON_FLAG(2)	/* owns a reserved slot */
#define COW_VMA_LOSSY		VMA_ANON_FLAG(3)	/* wants an entry, has none */

static inline unsigned long cow_vma_state(const struct vm_area_struct *vma)
{
	return vma_anon_flags(vma);
}

/* An inconsistency in the backend or in how it is called: stop loudly. */
#define cow_bug(...)	cowctx_bug("cow_context", __VA_ARGS__)

/*
 * remap_seq, the seqcount of remap_lock's writers (the kernel's
 * write_seqcount_begin()/end() inside the lock, read_seqcount_begin()
 * and read_seqcount_retry() for readers): two loads and no write on the
 * read side.
 */
static inline void remap_seq_write_begin(struct cow_context *ctx)
{
	CMM_STORE_SHARED(ctx->remap_seq, ctx->remap_seq + 1);
	cmm_smp_wmb();
}

static inline void remap_seq_write_end(struct cow_context *ctx)
{
	cmm_smp_wmb();
	CMM_STORE_SHARED(ctx->remap_seq, ctx->remap_seq + 1);
}

/* The sequence now; odd while a writer is inside */
static inline unsigned int remap_seq_read(const struct cow_context *ctx)
{
	unsigned int seq = CMM_LOAD_SHARED(ctx->remap_seq);

	cmm_smp_rmb();
	return seq;
}

static inline bool remap_seq_changed(const struct cow_context *ctx,
				     unsigned int seq)
{
	cmm_smp_rmb();
	return CMM_LOAD_SHARED(ctx->remap_seq) != seq;
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
struct cow_context *cow_context_tree_root(struct cow_context *ctx);
bool cow_splice_backlog_full(struct cow_context *tree);
void cow_walk_enter(struct cow_context *tree);
void cow_walk_leave(struct cow_context *tree);

/* The stamp a folio attached now gets (see attach()) */
static inline unsigned long cow_fork_seq_now(struct cow_instance *inst)
{
	return __atomic_load_n(&inst->fork_seq, __ATOMIC_ACQUIRE);
}

/*
 * folio->private: the stamp shifted up by one bit, and in bit 0
 * COW_STAMP_INHERITED: the folio was re-pointed from a spliced context
 * to its walk root (repoint_folio()), whose own mm does not map it.
 */
#define COW_STAMP_INHERITED	1UL
#define COW_STAMP_SHIFT		1

/* cow_context_walk.c */
int cow_context_walk(struct folio *folio, struct rmap_walk_control *rwc);

/*
 * The grace period, told to ThreadSanitizer: a walk reads contexts it
 * does not pin under RCU, and the worker frees them after a grace
 * period, which TSan cannot see (liburcu is not built with it). Each
 * walk's read section releases this and the free acquires it.
 */
extern char cow_rcu_grace;

static inline void cow_rcu_read_unlock(void)
{
	tsan_release(&cow_rcu_grace);
	rcu_read_unlock();
}

/* liburcu wants each thread that reads under RCU registered, once. */
void cow_rcu_thread_get(void);
void cow_rcu_thread_put(void);

/*
 * Test-only variants (RMAP_TEST_BACKEND in <cowctx/rmap_backends.h>)
 * are listed in rmap/testing/cow_context_variants.h; the PoC's walk is
 * rmap/testing/cow_context_poc.c.
 */

#endif /* COWCTX_RMAP_COW_CONTEXT_H */
