// SPDX-License-Identifier: GPL-2.0
/*
 * The COW context backend: contexts and their lifetime, and the hooks
 * that keep each context's remap tree exact. The walk is in
 * cow_context_walk.c, the remap tree in remap_tree.c.
 *
 * References on a context: one for its mm (dropped at exit), one per
 * child context, one per folio whose mapping points at it, and one per
 * walk standing on it. The last put unlinks it from its parent and frees
 * it after an RCU grace period, then drops its reference on the parent,
 * which may cascade up a chain of exited processes.
 *
 * Remap entries: a VMA owns one exactly while it is linked, has this
 * mm's anonymous state (vma->anon_vma == its context) and an offset
 * other than 0. The slot for it is reserved where the VMA first gets
 * anonymous state (anon_prepare, vma_clone, vma_fork: hooks that may
 * fail), so link and resize, which may not fail, never allocate; a
 * resize turns the entry back into a reservation and reinserts it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <cowctx/mm.h>
#include "rmap/cow_context.h"

void cow_bug(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "cowctx: cow_context bug: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

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
static void context_free_rcu(struct rcu_head *head)
{
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

void cow_context_get(struct cow_context *ctx)
{
	if (ctx->refcount <= 0)
		cow_bug("get of a dead context (mm %lu)", ctx->mm_id);
	ctx->refcount++;
}

bool cow_context_tryget(struct cow_context *ctx)
{
	if (CMM_LOAD_SHARED(ctx->refcount) <= 0)
		return false;
	ctx->refcount++;
	return true;
}

void cow_context_put(struct cow_context *ctx)
{
	while (ctx) {
		struct cow_context *parent = ctx->parent;

		if (ctx->refcount <= 0)
			cow_bug("put of a dead context (mm %lu)", ctx->mm_id);
		if (--ctx->refcount)
			return;
		if (!list_empty(&ctx->children) || ctx->mm)
			cow_bug("context %lu freed with children or mm",
				ctx->mm_id);
		if (remap_tree_nr(&ctx->remaps) || ctx->remaps.arr)
			cow_bug("context %lu freed with remap entries",
				ctx->mm_id);
		if (parent) {
			spin_lock(&parent->lock);
			list_del_rcu(&ctx->siblings);
			spin_unlock(&parent->lock);
		}
		ctx->inst->nr_contexts--;
		account_free(&ctx->inst->m->acct, ctx->inst->type_context,
			     ctx->charge, COW_CONTEXT_KERNEL_BYTES);
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
	ctx->mm = mm;
	INIT_LIST_HEAD(&ctx->children);
	INIT_LIST_HEAD(&ctx->siblings);
	ctx->fork_seq = mm->fork_seq;
	init_rwsem(&ctx->remap_lock, &inst->remap_lock_stat);
	remap_tree_init(&ctx->remaps, &mm->model->acct, inst->type_remap);
	ctx->inst = inst;
	ctx->mm_id = mm->id;
	inst->nr_contexts++;
	return ctx;
}

static void remap_write_lock(struct cow_context *ctx)
{
	down_write(&ctx->remap_lock);
}

/* ---- instance ---------------------------------------------------- */

static int init_common(struct model *m, unsigned int walk_flags)
{
	struct cow_instance *inst = model_zalloc(sizeof(*inst));

	if (!inst)
		return -ENOMEM;
	inst->m = m;
	inst->walk_flags = walk_flags;
	inst->type_context = account_register(&m->acct, "cow_context");
	inst->type_remap = account_register(&m->acct, "remap_array");
	inst->lock_stat.name = "cow_context.lock";
	inst->remap_lock_stat.name = "cow_context.remap_lock";
	m->rmap_private = inst;
	cow_rcu_thread_get();
	return 0;
}

static int cow_init(struct model *m)
{
	return init_common(m, COW_WALK_PRUNE);
}

static int cow_init_noprune(struct model *m)
{
	return init_common(m, 0);
}

static int cow_init_poc(struct model *m)
{
	return init_common(m, COW_WALK_POC_EARLY_STOP | COW_WALK_POC_ORDER);
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

/*
 * The child's context is linked under the parent's now, before any VMA
 * or PTE is copied, and at the tail: children lists stay in fork order
 * (so fork_seq grows along them), and a walk, which visits a parent
 * before its children, meets the new child after the parent. See the
 * argument at cow_context_walk().
 */
static int cow_mm_fork(struct mm_struct *oldmm, struct mm_struct *mm)
{
	struct cow_context *parent = mm_cow_context(oldmm);
	struct cow_context *ctx = context_alloc(mm);

	if (!ctx)
		return -ENOMEM;
	ctx->parent = parent;
	cow_context_get(parent);
	spin_lock(&parent->lock);
	list_add_tail_rcu(&ctx->siblings, &parent->children);
	lock_touch(&parent->lock, 1);
	spin_unlock(&parent->lock);
	mm->rmap_private = ctx;
	return 0;
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
	up_write(&ctx->remap_lock);
	rcu_assign_pointer(ctx->mm, NULL);
	mm->rmap_private = NULL;
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
	remap_write_lock(ctx);
	err = remap_tree_reserve(&ctx->remaps, 1);
	up_write(&ctx->remap_lock);
	if (err)
		return err;
	cow_vma_set_state(vma, st | COW_VMA_RESERVED);
	return 0;
}

static void release_slot(struct cow_context *ctx, struct vm_area_struct *vma)
{
	unsigned long st = cow_vma_state(vma);

	if (!(st & COW_VMA_RESERVED))
		return;
	remap_write_lock(ctx);
	remap_tree_unreserve(&ctx->remaps);
	up_write(&ctx->remap_lock);
	cow_vma_set_state(vma, st & ~COW_VMA_RESERVED);
}

static void set_lossy(struct cow_context *ctx, struct vm_area_struct *vma,
		      bool lossy)
{
	unsigned long st = cow_vma_state(vma);

	if (!!(st & COW_VMA_LOSSY) == lossy)
		return;
	cow_vma_set_state(vma, lossy ? st | COW_VMA_LOSSY :
				       st & ~COW_VMA_LOSSY);
	if (lossy)
		ctx->nr_lossy++;
	else
		ctx->nr_lossy--;
}

/* Make @vma's entry match what it should be, its fields being final. */
static void sync_entry(struct cow_context *ctx, struct vm_area_struct *vma)
{
	unsigned long st;

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
	if (!remap_tree_insert(&ctx->remaps, vma->vm_pgoff, vma_pages(vma),
			       vma_remap_offset(vma)))
		cow_bug("mm %lu: two VMAs claim pgoff %#lx at offset %ld",
			ctx->mm_id, vma->vm_pgoff, vma_remap_offset(vma));
	lock_touch(&ctx->remap_lock, 1);
	up_write(&ctx->remap_lock);
	st = cow_vma_state(vma) & ~COW_VMA_RESERVED;
	cow_vma_set_state(vma, st | COW_VMA_ENTRY);
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
	if (!remap_tree_remove(&ctx->remaps, vma->vm_pgoff, vma_pages(vma),
			       vma_remap_offset(vma), keep_slot))
		cow_bug("mm %lu: VMA [%#lx, %#lx) pgoff %#lx lost its entry",
			ctx->mm_id, vma->vm_start, vma->vm_end, vma->vm_pgoff);
	lock_touch(&ctx->remap_lock, 1);
	up_write(&ctx->remap_lock);
	st &= ~COW_VMA_ENTRY;
	cow_vma_set_state(vma, keep_slot ? st | COW_VMA_RESERVED : st);
}

/* vma_start_write(): a writer would wait for the walks reading it */
static void assert_no_readers(struct vm_area_struct *vma, const char *what)
{
	if (cow_vma_readers(vma))
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
	cow_vma_set_state(vma, 0);
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

	cow_vma_set_state(vma, cow_vma_state(vma) | COW_VMA_LINKED);
	sync_entry(ctx, vma);
}

static void cow_vma_unlink(struct vm_area_struct *vma)
{
	struct cow_context *ctx = mm_cow_context(vma->vm_mm);

	assert_no_readers(vma, "unlink");
	drop_entry(ctx, vma, false);
	release_slot(ctx, vma);
	/* with MREMAP_DONTUNMAP the VMA stays linked, without anon state */
	vma->anon_vma = NULL;
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
 * mremap moving PTEs between two VMAs of one mm: a walk visits offset 0
 * first, then offsets in increasing order, so a PTE moving to an offset
 * the walk looks at earlier could pass it by. The walk holds remap_lock
 * for read across its visit of an mm with remap entries; the move holds
 * it for write. The model calls this only where anon_vma's walk order
 * needs it (need_rmap_locks); cow_context would need it for every move
 * whose destination offset comes before the source's in its own order.
 * In the single-threaded model no walk runs during a move either way.
 */
static void cow_take_rmap_locks(struct vm_area_struct *vma)
{
	down_write(&mm_cow_context(vma->vm_mm)->remap_lock);
}

static void cow_drop_rmap_locks(struct vm_area_struct *vma)
{
	up_write(&mm_cow_context(vma->vm_mm)->remap_lock);
}

/* ---- folios ------------------------------------------------------ */

/*
 * folio->private holds the fork sequence at which the folio was attached
 * to its context: the kernel's folio->private is unused by anonymous
 * folios outside the swap cache (a swap-cache folio keeps its swap entry
 * in that word, so the kernel version would move the stamp, or drop
 * pruning for it, when it is added to swap). No byte is added per folio.
 */
static void attach(struct folio *folio, struct cow_context *ctx)
{
	folio_set_anon_rmap(folio, ctx);
	folio->private = folio->model->total_forks;
}

static void cow_folio_add_new(struct folio *folio, struct vm_area_struct *vma,
			      unsigned long address)
{
	struct cow_context *ctx = mm_cow_context(vma->vm_mm);

	cow_context_get(ctx);
	attach(folio, ctx);
	folio->index = linear_page_index(vma, address);
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

static void print_lock_stat(FILE *out, const struct lock_stat *s, bool comma)
{
	fprintf(out, "\"%s\": {\"read\": %lu, \"write\": %lu, "
		"\"objects_touched\": %lu, \"max_touched\": %lu}%s",
		s->name, s->read_acquired, s->write_acquired,
		s->objects_touched, s->max_touched, comma ? ", " : "");
}

static void cow_print_json(struct model *m, FILE *out)
{
	struct cow_instance *inst = cow_instance(m);
	const struct cow_walk_stats *w = &inst->walk;

	fprintf(out, "\"locks\": {");
	print_lock_stat(out, &inst->lock_stat, true);
	print_lock_stat(out, &inst->remap_lock_stat, false);
	fprintf(out, "}, \"cow_context\": {\"contexts_visited\": %lu, "
		"\"mms_visited\": %lu, \"contexts_pruned\": %lu, "
		"\"remap_candidates\": %lu, \"lossy_scans\": %lu, "
		"\"vma_retries\": %lu, \"pruning\": %s}",
		w->contexts_visited, w->mms_visited, w->contexts_pruned,
		w->remap_candidates, w->lossy_scans, w->vma_retries,
		inst->walk_flags & COW_WALK_PRUNE ? "true" : "false");
}

#define COW_CONTEXT_OPS(ops_name, init_fn)				\
	.name = ops_name,						\
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
	.walk = cow_context_walk,					\
	.take_rmap_locks = cow_take_rmap_locks,				\
	.drop_rmap_locks = cow_drop_rmap_locks,				\
	.print_json = cow_print_json

const struct rmap_ops cow_context_rmap_ops = {
	COW_CONTEXT_OPS("cow_context", cow_init),
	.description = "per-mm COW contexts with remap trees (the system)",
};

const struct rmap_ops cow_context_noprune_rmap_ops = {
	COW_CONTEXT_OPS("cow_context-noprune", cow_init_noprune),
	.description = "test only: cow_context without fork-generation pruning",
};

const struct rmap_ops cow_context_poc_rmap_ops = {
	COW_CONTEXT_OPS("cow_context-poc", cow_init_poc),
	.description = "test only: cow_context walking as the PoC does (early stop, children first)",
};
