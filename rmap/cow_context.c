// SPDX-License-Identifier: GPL-2.0
/*
 * The COW context backend: contexts and their lifetime, and the hooks
 * that keep each context's remap tree exact. The walk is in
 * cow_context_walk.c, the remap tree in remap_tree.c.
 *
 * References on a context: one for its mm (dropped at exit), one per
 * child context, one per folio whose mapping points at it, and one per
 * walk standing on it. At exit a context leaves the walk's path (see
 * "the bounded tree" below); its last put frees it after an RCU grace
 * period and drops its reference on its parent, which may cascade.
 *
 * Remap entries: a VMA owns one exactly while it is linked, has this
 * mm's anonymous state (vma->anon_vma == its context) and an offset
 * other than 0. The slot for it is reserved where the VMA first gets
 * anonymous state (anon_prepare, vma_clone, vma_fork: hooks that may
 * fail), so link and resize, which may not fail, never allocate; a
 * resize turns the entry back into a reservation and reinserts it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <cowctx/mm.h>
#include <cowctx/tsan.h>
#include "rmap/cow_context.h"
#include "rmap/testing/cow_context_poc.h"

/* ---- RCU --------------------------------------------------------- */

/*
 * The model may run several instances on one thread; register the
 * thread with liburcu on the first and unregister after the last.
 */
static __thread int rcu_thread_users;

/* Callbacks still queued when the program ends must run too */
static void rcu_barrier_at_exit(void)
{
	rcu_barrier();
}

void cow_rcu_thread_get(void)
{
	static bool barrier_registered;

	if (!barrier_registered) {
		barrier_registered = true;
		atexit(rcu_barrier_at_exit);
	}
	if (!rcu_thread_users++)
		rcu_register_thread();
}

void cow_rcu_thread_put(void)
{
	if (!--rcu_thread_users)
		rcu_unregister_thread();
}

/*
 * A context's memory is freed after a grace period, on liburcu's call_rcu
 * thread: walks may still be standing on it or reading its links. Its
 * accounting (the kernel object's life as the slab sees it, less the
 * grace period) ends at the last put, on the model's thread: the figures
 * are the same on every run, the two threads never share the counters,
 * and nothing waits for the worker, which sleeps 10ms after each wake-up
 * to batch callbacks. The callback touches nothing but the context, so
 * it may run after the model is gone; rcu_barrier() at program exit
 * makes sure every one has run.
 */
char cow_rcu_grace;

static void context_free_rcu(struct rcu_head *head)
{
	tsan_acquire(head);
	tsan_acquire(&cow_rcu_grace);
	model_free(caa_container_of(head, struct cow_context, rcu));
}

/* ---- RCU-safe list updates on the kernel-style lists ------------- */

static void list_add_tail_rcu(struct list_head *entry, struct list_head *head)
{
	struct list_head *prev = head->prev;

	entry->next = head;
	entry->prev = prev;
	/* publish only a fully initialised entry */
	rcu_assign_pointer(prev->next, entry);
	head->prev = entry;
}

/* Readers standing on @entry may still follow its ->next. */
static void list_del_rcu(struct list_head *entry)
{
	entry->next->prev = entry->prev;
	CMM_STORE_SHARED(entry->prev->next, entry->next);
	entry->prev = NULL;
}

/* ---- contexts ---------------------------------------------------- */

/* The refcount's cacheline is family-shared (lock.h) */
static void refcount_line(struct cow_context *ctx)
{
	/* a bare context (the refcount's own tests) has no model */
	if (ctx->inst)
		family_atomic(&ctx->inst->m->family, &ctx->line[0]);
}

/*
 * Counts are atomic, as refcount_t: the holder of a reference may get
 * another with a plain increment; a walk that holds none (it found the
 * context under RCU) must use tryget, whose test and increment are one
 * compare-and-swap, so it can never revive a context whose count
 * reached 0 (which is already on its way to call_rcu()).
 */
void cow_context_get(struct cow_context *ctx)
{
	if (__atomic_fetch_add(&ctx->refcount, 1, __ATOMIC_RELAXED) <= 0)
		cow_bug("get of a dead context (mm %lu)", ctx->mm_id);
	refcount_line(ctx);
}

bool cow_context_tryget(struct cow_context *ctx)
{
	int old = __atomic_load_n(&ctx->refcount, __ATOMIC_RELAXED);

	do {
		if (old <= 0)
			return false;
	} while (!__atomic_compare_exchange_n(&ctx->refcount, &old, old + 1,
					      true, __ATOMIC_ACQUIRE,
					      __ATOMIC_RELAXED));
	refcount_line(ctx);
	return true;
}

void cow_context_put(struct cow_context *ctx)
{
	while (ctx) {
		struct cow_context *parent = ctx->parent;
		int left = __atomic_sub_fetch(&ctx->refcount, 1,
					      __ATOMIC_ACQ_REL);

		refcount_line(ctx);

		if (left < 0)
			cow_bug("put of a dead context (mm %lu)", ctx->mm_id);
		if (left)
			return;
		if (!list_empty(&ctx->children) || ctx->mm || ctx->mm_pins)
			cow_bug("context %lu freed with children or mm",
				ctx->mm_id);
		if (remap_tree_maybe_populated(&ctx->remaps))
			cow_bug("context %lu freed with remap entries",
				ctx->mm_id);
		if (ctx->spliced) {
			ctx->inst->nr_spliced--;
		} else if (parent) {
			spin_lock(&parent->lock);
			list_del_rcu(&ctx->siblings);
			spin_unlock(&parent->lock);
		}
		ctx->inst->nr_contexts--;
		account_free(&ctx->inst->m->acct, ctx->inst->type_context,
			     ctx->charge, COW_CONTEXT_KERNEL_BYTES);
		tsan_release(&ctx->rcu);
		call_rcu(&ctx->rcu, context_free_rcu);
		/* our reference on the parent goes with us */
		ctx = parent;
	}
}

static struct cow_context *context_alloc(struct mm_struct *mm)
{
	struct cow_instance *inst = cow_instance(mm->model);
	struct cow_context *ctx;

	ctx = model_zalloc(sizeof(*ctx));
	if (!ctx)
		return NULL;
	ctx->charge = account_alloc(&mm->model->acct, inst->type_context, 1,
				    COW_CONTEXT_KERNEL_BYTES);
	if (!ctx->charge) {
		model_free(ctx);
		return NULL;
	}
	ctx->refcount = 1;	/* the mm's */
	spin_lock_init(&ctx->lock, &inst->lock_stat);
	ctx->lock.line = &ctx->line[0];
	ctx->mm = mm;
	INIT_LIST_HEAD(&ctx->children);
	INIT_LIST_HEAD(&ctx->siblings);
	ctx->fork_seq = cow_fork_seq_now(inst);
	init_rwsem(&ctx->remap_lock, &inst->remap_lock_stat);
	ctx->remap_lock.line = &ctx->line[1];
	family_line_init(&mm->model->family, &ctx->line[0]);
	family_line_init(&mm->model->family, &ctx->line[1]);
	family_line_init(&mm->model->family, &ctx->mm_users_line);
	remap_tree_init(&ctx->remaps, &mm->model->acct, inst->type_remap);
	ctx->inst = inst;
	ctx->mm_id = mm->id;
	inst->nr_contexts++;
	return ctx;
}

/* Writers of the remap tree and movers of PTEs: see remap_seq */
static void remap_write_lock(struct cow_context *ctx)
{
	down_write(&ctx->remap_lock);
	remap_seq_write_begin(ctx);
}

static void remap_write_unlock(struct cow_context *ctx)
{
	remap_seq_write_end(ctx);
	up_write(&ctx->remap_lock);
}

/* ---- instance ---------------------------------------------------- */

static int init_common(struct model *m, unsigned int walk_flags)
{
	struct cow_instance *inst = model_zalloc(sizeof(*inst));

	if (!inst)
		return -ENOMEM;
	inst->m = m;
	inst->walk_flags = walk_flags;
	inst->splice_backlog_max = COW_SPLICE_BACKLOG;
	inst->type_context = account_register(&m->acct, "cow_context");
	inst->type_remap = account_register(&m->acct, "remap_entry");
	inst->lock_stat.name = "cow_context.lock";
	inst->remap_lock_stat.name = "cow_context.remap_lock";
	/* both are shared: by forks and exits, by walks and the owner */
	inst->lock_stat.family = &m->family_lock_stat;
	inst->lock_stat.lines = &m->family;
	inst->remap_lock_stat.family = &m->family_lock_stat;
	inst->remap_lock_stat.lines = &m->family;
	m->rmap_private = inst;
	cow_rcu_thread_get();
	return 0;
}

static int cow_init(struct model *m)
{
	return init_common(m, COW_WALK_PRUNE | COW_WALK_FORKED_ONLY);
}

static void cow_destroy(struct model *m)
{
	struct cow_instance *inst = cow_instance(m);

	if (inst->nr_contexts)
		fprintf(stderr, "cowctx: %ld cow_context(s) leaked\n",
			inst->nr_contexts);
	cow_rcu_thread_put();
	model_free(inst);
	m->rmap_private = NULL;
}

/* ---- mm lifetime ------------------------------------------------- */

static int cow_mm_init(struct mm_struct *mm)
{
	struct cow_context *ctx = context_alloc(mm);

	if (!ctx)
		return -ENOMEM;
	mm->rmap_private = ctx;
	return 0;
}

/* ---- the bounded tree ------------------------------------------- */

/*
 * A context whose mm has exited leaves the walk's path at once: exit
 * splices it out of its parent's children list, putting its children
 * in its place, in their order, each now a child of its parent (their
 * fork_seq says when they were forked, wherever they hang). It is then
 * "spliced": no mm, no children, on no list, held only by the folios
 * still attached to it (and by walks standing on it). A walk of such a
 * folio starts from the first ancestor that is not spliced
 * (cow_context_walk_root()), and fork re-points every folio it copies
 * from a spliced context to that ancestor (repoint_folio()), so a
 * spliced context is freed as soon as the processes mapping its
 * folios fork, or those folios go.
 *
 * Why pruning stays exact. A folio attached to X at stamp s is mapped
 * only by X's mm and by mms forked, after s, from mms that map it: all
 * descendants of X. Splicing moves descendants of X up to ancestors of
 * X, never elsewhere, and new contexts are only ever leaves; so the
 * descendants of X are all below R = cow_context_walk_root(X), and no
 * context other than them lies between R and them. A context C != R
 * with C->fork_seq <= s is then either a descendant of X that existed
 * at s (its mm did not map the folio, and forks below it copy from mms
 * that do not), or a context none of whose descendants descends from
 * X: its subtree maps nothing of the folio either way. R's own mm is
 * visited (it is the walk's root) and maps nothing unless R == X.
 * Re-pointing keeps the stamp, by the same argument.
 *
 * The bound. In the tree: one context per live mm, plus, per fork
 * family, at most one exited context, its root (a root has no parent to
 * hand its children to; it stays while it has any). Detached: only
 * contexts some folio still points at, whose mappers have not forked
 * since the context's mm exited. 200 generations of fork-then-exit
 * leave at most the root, the last exited generation (its successor
 * has not forked yet) and the live one; a walk of the first
 * generation's folios visits the root and the live one, and Linux's
 * anon_vma reuse (commit 7a3ef208e662) keeps three anon_vmas.
 */
struct cow_context *cow_context_walk_root(struct cow_context *ctx)
{
	while (CMM_LOAD_SHARED(ctx->spliced))
		ctx = ctx->parent;
	return ctx;
}

/*
 * The kernel does this in copy_present_pte(), which has the folio in
 * hand: the folio lock, taken with trylock there, is what
 * folio_move_anon_rmap() asks for; the stamp stays (see above).
 */
static void repoint_folio(struct mm_struct *mm, unsigned long addr,
			  pte_t *ptep, void *arg)
{
	struct folio *folio = ptep->folio;
	struct cow_context *old, *root;

	(void)mm;
	(void)addr;
	(void)arg;
	if (!folio_test_anon(folio) || folio_test_flag(folio, PG_zero))
		return;
	old = folio_cow_context(folio);
	if (!old->spliced)
		return;
	root = cow_context_walk_root(old);
	cow_context_get(root);
	folio_set_anon_rmap(folio, root);
	/* after the context, as attach() publishes: see there */
	cmm_smp_wmb();
	CMM_STORE_SHARED(folio->private, folio->private | COW_STAMP_INHERITED);
	cow_context_put(old);
}

/*
 * Exit: @ctx (mm gone) leaves its parent's children list; its children
 * take its place. Under both lists' locks, and only while no walk is in
 * the tree (see splice_deferred()).
 */
static void splice_out(struct cow_context *tree, struct cow_context *ctx)
{
	struct cow_context *parent = ctx->parent, *child;
	struct list_head *first, *last;
	int moved = 0;

	if (__atomic_load_n(&tree->walkers, __ATOMIC_SEQ_CST))
		cow_bug("context %lu spliced out while its tree is walked",
			ctx->mm_id);
	/* the tree root's lock is held: it serialises the tree's splices */
	if (parent != tree)
		spin_lock(&parent->lock);
	spin_lock(&ctx->lock);
	list_for_each_entry(child, &ctx->children, siblings) {
		cow_context_get(parent);
		CMM_STORE_SHARED(child->parent, parent);
		moved++;
	}
	CMM_STORE_SHARED(ctx->spliced, true);
	if (moved) {
		first = ctx->children.next;
		last = ctx->children.prev;
		last->next = ctx->siblings.next;
		ctx->siblings.next->prev = last;
		first->prev = ctx->siblings.prev;
		rcu_assign_pointer(ctx->siblings.prev->next, first);
		CMM_STORE_SHARED(ctx->siblings.next, first);
		ctx->siblings.prev = NULL;
		INIT_LIST_HEAD(&ctx->children);
	} else {
		list_del_rcu(&ctx->siblings);
	}
	lock_touch(&parent->lock, (unsigned long)moved + 1);
	spin_unlock(&ctx->lock);
	if (parent != tree)
		spin_unlock(&parent->lock);
	ctx->inst->nr_spliced++;
	/* the children's references moved to the parent; ours stays */
	while (moved--)
		cow_context_put(ctx);
}

/* The root of @ctx's tree: splices never take a root out */
struct cow_context *cow_context_tree_root(struct cow_context *ctx)
{
	struct cow_context *parent;

	while ((parent = CMM_LOAD_SHARED(ctx->parent)))
		ctx = parent;
	return ctx;
}

/*
 * Splice out the contexts waiting on @tree's ->deferred, unless a walk
 * is in the tree, and drop their mms' references. The kernel
 * (patches/0019) runs this under the root's ->lock in a write section
 * of a seqcount, with a full barrier before it reads ->walkers, and a
 * walk counts itself in, then (full barrier) waits for the seqcount to
 * be even: either the splicer sees the walk, or the walk waits for the
 * splice to end. The model's splices and walks are one thread's, so its
 * check in splice_out() stands for that. Returns the contexts spliced,
 * linked by ->splice_next, for put_spliced() once the lock is dropped:
 * a last put may cascade up to @tree itself.
 */
static struct cow_context *splice_deferred(struct cow_context *tree)
{
	struct cow_context *ctx, *done = NULL;

	/* one thread here (splice_out() checks); the kernel: smp_mb() first */
	if (__atomic_load_n(&tree->walkers, __ATOMIC_SEQ_CST))
		return NULL;
	while ((ctx = tree->deferred)) {
		tree->deferred = ctx->splice_next;
		splice_out(tree, ctx);
		ctx->splice_next = done;
		done = ctx;
	}
	CMM_STORE_SHARED(tree->nr_deferred, 0);
	return done;
}

/* Drop the mm's reference of each spliced context, which the wait kept */
static void put_spliced(struct cow_context *done)
{
	struct cow_context *ctx;

	while ((ctx = done)) {
		done = ctx->splice_next;
		ctx->splice_next = NULL;
		cow_context_put(ctx);
	}
}

/*
 * @ctx's mm exited: splice it out now, or when the last walk in its tree
 * ends. A walk may sleep standing on a context (in a callback, waiting
 * for a lock), and must go on from there without visiting any context
 * twice: so the tree holds still under it but for forks' new children
 * (cow_context_walk.c, point 2). Takes over the mm's reference.
 */
static void cow_context_splice(struct cow_context *ctx)
{
	struct cow_context *tree = cow_context_tree_root(ctx), *done;

	spin_lock(&tree->lock);
	ctx->splice_next = tree->deferred;
	tree->deferred = ctx;
	CMM_STORE_SHARED(tree->nr_deferred, tree->nr_deferred + 1);
	done = splice_deferred(tree);
	spin_unlock(&tree->lock);
	if (!done)
		ctx->inst->splices_deferred++;
	put_spliced(done);
}

/* Are @tree's walks holding off as many splices as they may? */
bool cow_splice_backlog_full(struct cow_context *tree)
{
	int max = tree->inst->splice_backlog_max;

	return max && CMM_LOAD_SHARED(tree->nr_deferred) >= max;
}

/*
 * A walk enters @tree, an ancestor of the walked folio's context (so
 * pinned through it): no context leaves the tree until cow_walk_leave().
 * The walk has found the backlog below the bound first (see
 * cow_context_walk.c, point 2).
 * An atomic on the root's line, charged as one.
 */
void cow_walk_enter(struct cow_context *tree)
{
	__atomic_add_fetch(&tree->walkers, 1, __ATOMIC_SEQ_CST);
	refcount_line(tree);
}

/* The walk leaves @tree: the last one makes the splices that waited */
void cow_walk_leave(struct cow_context *tree)
{
	struct cow_context *done;

	refcount_line(tree);
	if (__atomic_sub_fetch(&tree->walkers, 1, __ATOMIC_SEQ_CST) ||
	    !CMM_LOAD_SHARED(tree->deferred))
		return;
	spin_lock(&tree->lock);
	done = splice_deferred(tree);
	spin_unlock(&tree->lock);
	put_spliced(done);
}

/*
 * The child's context is linked under the parent's now, before any VMA
 * or PTE is copied, and at the tail, so a walk, which visits a parent
 * before its children, meets the new child after the parent. See the
 * argument at cow_context_walk(). Its fork_seq waits for the end of
 * dup_mmap() (cow_mm_fork_done()): until then it is never pruned.
 */
static int cow_mm_fork(struct mm_struct *oldmm, struct mm_struct *mm)
{
	struct cow_context *parent = mm_cow_context(oldmm);
	struct cow_context *ctx = context_alloc(mm);

	if (!ctx)
		return -ENOMEM;
	if (ctx->inst->nr_spliced)
		walk_page_tables(oldmm, repoint_folio, NULL);
	ctx->fork_seq = COW_FORK_PENDING;
	ctx->parent = parent;
	cow_context_get(parent);
	spin_lock(&parent->lock);
	list_add_tail_rcu(&ctx->siblings, &parent->children);
	lock_touch(&parent->lock, 1);
	spin_unlock(&parent->lock);
	mm->rmap_private = ctx;
	return 0;
}

/*
 * dup_mmap() is done: no VMA of the parent is left to copy, so a folio
 * attached in the parent from now on cannot reach this child, and one
 * attached before now has a stamp below the sequence taken here. This
 * is where copy_process() counts total_forks.
 */
static void cow_mm_fork_done(struct mm_struct *oldmm, struct mm_struct *mm)
{
	struct cow_context *ctx = mm_cow_context(mm);

	(void)oldmm;
	CMM_STORE_SHARED(ctx->fork_seq,
			 __atomic_add_fetch(&ctx->inst->fork_seq, 1,
					    __ATOMIC_RELEASE));
}

static void cow_mm_exit(struct mm_struct *mm)
{
	struct cow_context *ctx = mm_cow_context(mm);

	if (remap_tree_nr(&ctx->remaps) || ctx->nr_lossy)
		cow_bug("mm %lu exits with %u remap entries, %u lossy",
			mm->id, remap_tree_nr(&ctx->remaps), ctx->nr_lossy);
	remap_write_lock(ctx);
	/* slots reserved by VMAs freed without being linked */
	remap_tree_drop_reservations(&ctx->remaps);
	remap_tree_destroy(&ctx->remaps);
	remap_write_unlock(ctx);
	if (ctx->mm_pins)
		cow_bug("mm %lu exits while a walk pins it", mm->id);
	rcu_assign_pointer(ctx->mm, NULL);
	mm->rmap_private = NULL;
	if (ctx->parent)
		cow_context_splice(ctx);
	else
		cow_context_put(ctx);
}

/* ---- remap entries ----------------------------------------------- */

static bool wants_entry(struct cow_context *ctx, struct vm_area_struct *vma)
{
	return (cow_vma_state(vma) & COW_VMA_LINKED) &&
	       vma->anon_vma == ctx && vma_remap_offset(vma) != 0;
}

/* A slot for @vma's entry, taken where failure can be reported */
static int reserve_slot(struct cow_context *ctx, struct vm_area_struct *vma)
{
	unsigned long st = cow_vma_state(vma);
	int err;

	if (st & (COW_VMA_ENTRY | COW_VMA_RESERVED))
		return 0;
	/*
	 * Not under remap_lock: an allocation may enter reclaim, whose
	 * walks wait for that lock's writers (remap_seq odd). The spare
	 * list takes the node without it (an llist in a kernel:
	 * llist_add() here, pops under remap_lock held for write by the
	 * insert).
	 */
	err = remap_tree_reserve(&ctx->remaps, 1);
	if (err)
		return err;
	vma_anon_flags_set(vma, COW_VMA_RESERVED);
	return 0;
}

static void release_slot(struct cow_context *ctx, struct vm_area_struct *vma)
{
	unsigned long st = cow_vma_state(vma);

	if (!(st & COW_VMA_RESERVED))
		return;
	remap_write_lock(ctx);
	remap_tree_unreserve(&ctx->remaps);
	remap_write_unlock(ctx);
	vma_anon_flags_clear(vma, COW_VMA_RESERVED);
}

static void set_lossy(struct cow_context *ctx, struct vm_area_struct *vma,
		      bool lossy)
{
	if (!!(cow_vma_state(vma) & COW_VMA_LOSSY) == lossy)
		return;
	if (lossy) {
		vma_anon_flags_set(vma, COW_VMA_LOSSY);
		ctx->nr_lossy++;
	} else {
		vma_anon_flags_clear(vma, COW_VMA_LOSSY);
		ctx->nr_lossy--;
	}
}

/* Make @vma's entry match what it should be, its fields being final. */
static void sync_entry(struct cow_context *ctx, struct vm_area_struct *vma)
{
	if (!wants_entry(ctx, vma)) {
		release_slot(ctx, vma);
		set_lossy(ctx, vma, false);
		return;
	}
	if (cow_vma_state(vma) & COW_VMA_ENTRY)
		return;
	/*
	 * No slot: a path this backend did not see coming. Allocating
	 * here may fail and cannot be reported; then the mm is walked
	 * the slow way until this VMA goes.
	 */
	if (reserve_slot(ctx, vma)) {
		set_lossy(ctx, vma, true);
		return;
	}
	remap_write_lock(ctx);
	if (!remap_tree_insert(&ctx->remaps, vma_anon_pgoff(vma), vma_pages(vma),
			       vma_remap_offset(vma)))
		cow_bug("mm %lu: two VMAs claim pgoff %#lx at offset %ld",
			ctx->mm_id, vma_anon_pgoff(vma), vma_remap_offset(vma));
	lock_touch(&ctx->remap_lock, 1);
	remap_write_unlock(ctx);
	vma_anon_flags_clear(vma, COW_VMA_RESERVED);
	vma_anon_flags_set(vma, COW_VMA_ENTRY);
	set_lossy(ctx, vma, false);
}

/* Take @vma's entry out, its fields still those it was inserted with. */
static void drop_entry(struct cow_context *ctx, struct vm_area_struct *vma,
		       bool keep_slot)
{
	unsigned long st = cow_vma_state(vma);

	set_lossy(ctx, vma, false);
	if (!(st & COW_VMA_ENTRY))
		return;
	remap_write_lock(ctx);
	if (!remap_tree_remove(&ctx->remaps, vma_anon_pgoff(vma), vma_pages(vma),
			       vma_remap_offset(vma), keep_slot))
		cow_bug("mm %lu: VMA [%#lx, %#lx) pgoff %#lx lost its entry",
			ctx->mm_id, vma->vm_start, vma->vm_end,
			vma_anon_pgoff(vma));
	lock_touch(&ctx->remap_lock, 1);
	remap_write_unlock(ctx);
	vma_anon_flags_clear(vma, COW_VMA_ENTRY);
	if (keep_slot)
		vma_anon_flags_set(vma, COW_VMA_RESERVED);
}

/* vma_start_write(): a writer would wait for the walks reading it */
static void assert_no_readers(struct vm_area_struct *vma, const char *what)
{
	if (vma->vm_lock_readers)
		cow_bug("%s of VMA [%#lx, %#lx) while a walk holds it (deadlock)",
			what, vma->vm_start, vma->vm_end);
}

/* ---- VMA hooks --------------------------------------------------- */

static int cow_anon_prepare(struct vm_area_struct *vma)
{
	struct cow_context *ctx = mm_cow_context(vma->vm_mm);
	int err = 0;

	if ((cow_vma_state(vma) & COW_VMA_LINKED) && vma_remap_offset(vma))
		err = reserve_slot(ctx, vma);
	if (!err) {
		/* the marker is the context: every VMA of an mm is alike */
		vma->anon_vma = ctx;
		sync_entry(ctx, vma);
	}
	return err;
}

static int cow_vma_clone(struct vm_area_struct *dst, struct vm_area_struct *src)
{
	struct cow_context *ctx = mm_cow_context(dst->vm_mm);
	int err = 0;

	(void)src;
	if (!dst->anon_vma)
		return 0;
	if (dst->anon_vma != ctx)
		cow_bug("vma_clone across mms");
	if (vma_remap_offset(dst))
		err = reserve_slot(ctx, dst);
	/* a merge's dup_anon_vma(): dst is live already */
	if (!err && (cow_vma_state(dst) & COW_VMA_LINKED)) {
		assert_no_readers(dst, "dup_anon_vma");
		sync_entry(ctx, dst);
	}
	return err;
}

static int cow_vma_fork(struct vm_area_struct *vma, struct vm_area_struct *pvma)
{
	struct cow_context *ctx = mm_cow_context(vma->vm_mm);
	int err = 0;

	/* vm_area_dup() copied the parent's marker; this mm has its own */
	vma_anon_flags_clear(vma, VMA_ANON_FLAGS_MASK);
	vma->anon_vma = pvma->anon_vma ? ctx : NULL;
	if (vma->anon_vma && vma_remap_offset(vma))
		err = reserve_slot(ctx, vma);
	if (err)
		vma->anon_vma = NULL;
	return err;
}

static void cow_vma_link(struct vm_area_struct *vma)
{
	struct cow_context *ctx = mm_cow_context(vma->vm_mm);

	vma_anon_flags_set(vma, COW_VMA_LINKED);
	sync_entry(ctx, vma);
}

static void cow_vma_unlink(struct vm_area_struct *vma)
{
	struct cow_context *ctx = mm_cow_context(vma->vm_mm);

	assert_no_readers(vma, "unlink");
	drop_entry(ctx, vma, false);
	release_slot(ctx, vma);
	/*
	 * With MREMAP_DONTUNMAP the VMA stays in the tree, without anon
	 * state; otherwise it has left the tree and is about to be freed.
	 */
	vma->anon_vma = NULL;
	if ((cow_vma_state(vma) & COW_VMA_LINKED) &&
	    vma_lookup(vma->vm_mm, vma->vm_start) != vma)
		vma_anon_flags_clear(vma, COW_VMA_LINKED);
}

static void cow_vma_adjust_begin(struct vm_area_struct *vma)
{
	struct cow_context *ctx = mm_cow_context(vma->vm_mm);

	assert_no_readers(vma, "resize");
	drop_entry(ctx, vma, true);
}

static void cow_vma_adjust_end(struct vm_area_struct *vma)
{
	struct cow_context *ctx = mm_cow_context(vma->vm_mm);

	sync_entry(ctx, vma);
}

/*
 * mremap moving PTEs between two VMAs of one mm. The walk's order in an
 * mm is offset 0, then the remap tree's order, which the move itself
 * changes (its new VMA's entry goes in first), so whether a destination
 * comes before the source cannot be told the way need_rmap_locks tells
 * it for anon_vma's interval tree. The COW context's rule: every move
 * is a remap_lock writer (rmap_locks_every_move), so it makes remap_seq
 * odd and then changes it, and a walk that was in the mm meanwhile
 * visits it again (cow_context_walk.c, point 3). A move is one
 * acquisition of a lock private to the mm, and waits for no walk;
 * anon_vma's takes a family-wide one, which walks hold.
 */
static void cow_take_rmap_locks(struct vm_area_struct *vma)
{
	remap_write_lock(mm_cow_context(vma->vm_mm));
}

static void cow_drop_rmap_locks(struct vm_area_struct *vma)
{
	remap_write_unlock(mm_cow_context(vma->vm_mm));
}

/* ---- folios ------------------------------------------------------ */

/*
 * folio->private holds the fork sequence at which the folio was attached
 * to its context: the kernel's folio->private is unused by anonymous
 * folios outside the swap cache (a swap-cache folio keeps its swap entry
 * in that word, so the kernel version would move the stamp, or drop
 * pruning for it, when it is added to swap). No byte is added per folio.
 * Its low bit says the folio was re-pointed (COW_STAMP_INHERITED).
 */
static void attach(struct folio *folio, struct cow_context *ctx)
{
	unsigned long stamp = cow_fork_seq_now(ctx->inst) << COW_STAMP_SHIFT;

	/*
	 * The context first, then the stamp, each published: a walk reads
	 * them in the other order's mirror (context, stamp, context again)
	 * and so never pairs the old context with the new, larger stamp,
	 * which would prune the new context's branch. The new context with
	 * the old stamp only prunes less.
	 */
	rcu_assign_pointer(folio->mapping,
			   (void *)((uintptr_t)ctx | PAGE_MAPPING_ANON));
	cmm_smp_wmb();
	CMM_STORE_SHARED(folio->private, stamp);
}

static void cow_folio_add_new(struct folio *folio, struct vm_area_struct *vma,
			      unsigned long address)
{
	struct cow_context *ctx = mm_cow_context(vma->vm_mm);

	cow_context_get(ctx);
	attach(folio, ctx);
	folio->index = linear_anon_page_index(vma, address);
}

/*
 * Exclusive reuse: this mm is the folio's only mapper now, so its
 * context (a descendant of the old one) is the lowest that can map it,
 * and no child forked before now can: the stamp is renewed even when
 * the context does not change.
 */
static void cow_folio_move(struct folio *folio, struct vm_area_struct *vma)
{
	struct cow_context *old = folio_cow_context(folio);
	struct cow_context *ctx = mm_cow_context(vma->vm_mm);

	if (old != ctx) {
		cow_context_get(ctx);
		attach(folio, ctx);
		cow_context_put(old);
	} else {
		attach(folio, ctx);
	}
}

static void cow_folio_free(struct folio *folio)
{
	cow_context_put(folio_cow_context(folio));
}

/* ---- figures ----------------------------------------------------- */

static void cow_print_json(struct model *m, FILE *out)
{
	struct cow_instance *inst = cow_instance(m);
	const struct cow_walk_stats *w = &inst->walk;

	fprintf(out, "\"locks\": {");
	lock_stat_print_json(out, inst->lock_stat.name, &inst->lock_stat);
	fputs(", ", out);
	lock_stat_print_json(out, inst->remap_lock_stat.name,
			     &inst->remap_lock_stat);
	fputs(", ", out);
	family_print_json(out, &m->family_lock_stat, &m->family);
	fprintf(out, "}, \"cow_context\": {\"contexts_visited\": %lu, "
		"\"mms_visited\": %lu, \"contexts_pruned\": %lu, "
		"\"remap_candidates\": %lu, \"lossy_scans\": %lu, "
		"\"vma_retries\": %lu, \"vma_busy\": %lu, "
		"\"vma_not_forked\": %lu, "
		"\"mm_retries\": %lu, \"root_retries\": %lu, "
		"\"pruning\": %s}",
		w->contexts_visited, w->mms_visited, w->contexts_pruned,
		w->remap_candidates, w->lossy_scans, w->vma_retries,
		w->vma_busy, w->vma_not_forked, w->mm_retries, w->root_retries,
		inst->walk_flags & COW_WALK_PRUNE ? "true" : "false");
}

/* lock_stat to walk: one anonymous struct in cow_instance */
static void *cow_counters(struct model *m, size_t *size)
{
	struct cow_instance *inst = cow_instance(m);

	*size = offsetof(struct cow_instance, walk) + sizeof(inst->walk) -
		offsetof(struct cow_instance, lock_stat);
	return &inst->lock_stat;
}

/*
 * What the COW context needs in every vm_area_struct, in place of
 * anon_vma's 24 bytes, two words:
 *  - vm_anon_pgoff, 8 bytes: the anonymous page offset in its low 56
 *    bits, COW_VMA_ENTRY, _RESERVED and _LOSSY in its top byte (and
 *    COW_VMA_LINKED, which is the kernel's vma_is_attached()), all read
 *    and written through the accessors of <cowctx/mm_types.h>;
 *  - the slot of the anon_vma pointer, 8 bytes, which holds
 *    anon_vma_id (mm/vma.c): Linux's merge rules ask which VMAs of an
 *    mm share an anon_vma, so a kernel keeping Linux's layouts keeps
 *    that number, and its being nonzero is the VMA's anonymous state
 *    (what the model's vma->anon_vma, the mm's context here, says).
 *    anon_vma is charged that slot as its pointer; so is this backend.
 * Charged whether or not the slab object grows.
 */
#define COW_VMA_FIELD_BYTES	(8 + 8)

#define COW_CONTEXT_OPS(ops_name, init_fn, walk_fn)			\
	.name = ops_name,						\
	.vma_field_bytes = COW_VMA_FIELD_BYTES,				\
	.init = init_fn,						\
	.destroy = cow_destroy,						\
	.mm_init = cow_mm_init,						\
	.mm_fork = cow_mm_fork,						\
	.mm_exit = cow_mm_exit,						\
	.anon_prepare = cow_anon_prepare,				\
	.vma_clone = cow_vma_clone,					\
	.vma_fork = cow_vma_fork,					\
	.vma_unlink = cow_vma_unlink,					\
	.vma_link = cow_vma_link,					\
	.vma_adjust_begin = cow_vma_adjust_begin,			\
	.vma_adjust_end = cow_vma_adjust_end,				\
	.folio_add_new = cow_folio_add_new,				\
	.folio_move = cow_folio_move,					\
	.folio_free = cow_folio_free,					\
	.walk = walk_fn,						\
	.take_rmap_locks = cow_take_rmap_locks,				\
	.rmap_locks_every_move = true,					\
	.mm_fork_done = cow_mm_fork_done,				\
	.drop_rmap_locks = cow_drop_rmap_locks,				\
	.print_json = cow_print_json,					\
	.counters = cow_counters

const struct rmap_ops cow_context_rmap_ops = {
	COW_CONTEXT_OPS("cow_context", cow_init, cow_context_walk),
	.description = "per-mm COW contexts with remap trees (the system)",
};

/* The testing room's variants: their own init, walk and name */
#define COW_CONTEXT_VARIANT(ops, ops_name, desc, flags, walk_fn)	\
static int ops##_init(struct model *m)					\
{									\
	return init_common(m, flags);					\
}									\
const struct rmap_ops ops = {						\
	COW_CONTEXT_OPS(ops_name, ops##_init, walk_fn),			\
	.description = desc,						\
};
#include "rmap/testing/cow_context_variants.h"
#undef COW_CONTEXT_VARIANT
