// SPDX-License-Identifier: GPL-2.0
/*
 * The COW context walk: every (vma, address) that may map a folio.
 *
 * Depth first, parents before children, over the folio's context and
 * its descendants. In each live mm the candidates are the VMA at the
 * folio's own index (offset 0) and, for each distinct offset of the
 * mm's remap tree covering the index, the VMA at index + offset whose
 * own offset is that one. Nothing is allocated: the distinct offsets
 * come one at a time from the tree, smallest first.
 *
 * The callback may block, so the walk never holds the RCU read lock
 * across it. What lets it let go and carry on:
 *  - the context it stands on is pinned by a reference (taken with
 *    tryget under RCU: a context whose count reached 0 is dying, maps
 *    nothing, and is stepped over). A pinned context stays in its
 *    parent's children list (it leaves only at its last put), and its
 *    parent and every ancestor are pinned through its own reference,
 *    so after the callback the walk re-enters RCU and continues from
 *    the context's ->siblings.next or ->parent as if it had not left;
 *  - the candidate VMA is stabilised by the per-VMA read lock, the
 *    kernel's vma_start_read(): taken under RCU, then the VMA is
 *    revalidated (vm_lock_seq unchanged, still this mm's VMA at this
 *    address with this offset and anonymous state), as
 *    lock_vma_under_rcu() does for VMAs that are SLAB_TYPESAFE_BY_RCU.
 *    A writer (resize, unlink) waits for it; in the model a writer
 *    meeting a reader is a deadlock and stops the run;
 *  - within one mm the position is just the last offset visited: the
 *    next candidate is the smallest offset above it in the tree as it
 *    is now. An mm with remap entries is visited under its context's
 *    remap_lock (read), which mremap's PTE moves take for write, so a
 *    PTE cannot jump from an offset not yet visited to one already
 *    passed;
 *  - the mm itself is alive while its context's ->mm is set: the model
 *    clears it at exit, synchronously; a kernel would pin it with
 *    mmget_not_zero() for the visit.
 *
 * Fork racing a walk cannot make it miss a mapping. Fork links the
 * child's context at the tail of the parent's children before copying
 * any VMA, gives each child VMA its remap entry before it is linked, and
 * links it before copying its PTEs. Take a PTE the child copies from the
 * parent's PTE p. If the walk examines p after the copy, it has not yet
 * reached the parent's children (parents are visited first), so it will
 * reach the child, linked at the tail before the copy, and find the PTE
 * through the child's VMA tree or remap entries, both set up before the
 * copy. If the walk examined p before the copy, the copy is a mapping
 * made after the walk passed its source: it copies whatever the walk
 * left in p (unmapped, aged, a migration entry), exactly as with Linux's
 * anon_vma, where the child's chain is also linked before its PTEs are
 * copied. A fork that fails tears its child down through the normal exit
 * path. tests/unit/cow_context_race.c runs the walk of every folio at
 * every step of fork, and forks from inside walk callbacks.
 *
 * Fork-generation pruning. The folio's stamp (folio->private) is the fork
 * sequence when it was attached to its context X: by its first fault in
 * X's mm, or by exclusive reuse there. At that moment X's mm is its only
 * mapper, and a mapping reaches another mm only by fork. A context C
 * other than X created at or before the stamp (C->fork_seq <= stamp)
 * therefore did not map the folio then and cannot later: its own mm gets
 * no new mapping of an existing folio, and whatever forks below C copies
 * from mms that do not map it. So C's whole subtree is skipped. (Moves
 * do not break this: a folio moves only when exclusive, and its stamp is
 * renewed then.) This needs fork to be one step for the parent: the
 * model holds the parent's mmap_lock for write across dup_mmap(), so no
 * fault in the parent can attach a folio while a child is copied. The
 * kernel copies VMA by VMA, write-locking each as it goes, so page
 * faults under the per-VMA lock may still attach folios to the parent
 * in VMAs not yet copied; there the child's stamp must be taken when
 * dup_mmap() completes (where copy_process() counts total_forks), not
 * when the child's context is created.
 */
#include <cowctx/mm.h>
#include "rmap/cow_context.h"

struct cow_walk {
	struct folio *folio;
	struct rmap_walk_control *rwc;
	struct cow_instance *inst;
	unsigned long index;
	unsigned long stamp;
	bool prune;
	bool stopped;
};

/* vma_start_read() / vma_end_read() of the model */
static void vma_read_lock(struct vm_area_struct *vma)
{
	cow_vma_set_state(vma, cow_vma_state(vma) +
			       (1UL << COW_VMA_READER_SHIFT));
}

static void vma_read_unlock(struct vm_area_struct *vma)
{
	if (!cow_vma_readers(vma))
		cow_bug("VMA read unlock without lock");
	cow_vma_set_state(vma, cow_vma_state(vma) -
			       (1UL << COW_VMA_READER_SHIFT));
}

/* Is @vma where @w's folio would be mapped at @addr, at @offset? */
static bool vma_fits(const struct cow_walk *w, struct cow_context *ctx,
		     struct mm_struct *mm, struct vm_area_struct *vma,
		     unsigned long addr, long offset)
{
	return vma && vma->vm_mm == mm && vma->anon_vma == ctx &&
	       addr >= vma->vm_start && addr < vma->vm_end &&
	       vma_remap_offset(vma) == offset &&
	       linear_page_index(vma, addr) == w->index;
}

/*
 * Look at one candidate. Entered and left under RCU; the callback runs
 * outside it, with the VMA read-locked. Returns false to stop the walk.
 */
static bool visit_candidate(struct cow_walk *w, struct cow_context *ctx,
			    struct mm_struct *mm, unsigned long addr,
			    long offset)
{
	struct vm_area_struct *vma;
	unsigned int seq;
	bool more;

	for (;;) {
		vma = vma_lookup(mm, addr);
		if (!vma_fits(w, ctx, mm, vma, addr, offset))
			return true;
		seq = CMM_LOAD_SHARED(vma->vm_lock_seq);
		vma_read_lock(vma);
		if (CMM_LOAD_SHARED(vma->vm_lock_seq) == seq &&
		    vma_fits(w, ctx, mm, vma, addr, offset))
			break;
		/* changed between lookup and lock: look again */
		vma_read_unlock(vma);
		w->inst->walk.vma_retries++;
	}
	rcu_read_unlock();
	more = rmap_walk_candidate(w->rwc, w->folio, vma, addr);
	vma_read_unlock(vma);
	rcu_read_lock();
	return more;
}

/*
 * VMAs that should have a remap entry and could not get one: look at
 * each of them directly (rare; see sync_entry()).
 */
static bool visit_lossy(struct cow_walk *w, struct cow_context *ctx,
			struct mm_struct *mm)
{
	unsigned long i;

	w->inst->walk.lossy_scans++;
	for (i = 0; i < mm->mm_mt.nr; i++) {
		struct vm_area_struct *vma = mm->mm_mt.vmas[i];
		unsigned long addr;

		if (!(cow_vma_state(vma) & COW_VMA_LOSSY) ||
		    w->index < vma->vm_pgoff ||
		    w->index >= vma->vm_pgoff + vma_pages(vma))
			continue;
		addr = vma_pgoff_address(vma, w->index);
		if (!visit_candidate(w, ctx, mm, addr, vma_remap_offset(vma)))
			return false;
	}
	return true;
}

static bool visit_remaps(struct cow_walk *w, struct cow_context *ctx,
			 struct mm_struct *mm)
{
	bool have = false;
	long offset = 0;

	while (remap_tree_next_offset(&ctx->remaps, w->index, have, offset,
				      &offset)) {
		have = true;
		w->inst->walk.remap_candidates++;
		lock_touch(&ctx->remap_lock, 1);
		if (!visit_candidate(w, ctx, mm,
				     (w->index + offset) << PAGE_SHIFT, offset))
			return false;
	}
	return true;
}

/* One context: its mm's candidates. Under RCU, @ctx pinned. */
static void visit_context(struct cow_walk *w, struct cow_context *ctx)
{
	struct mm_struct *mm = rcu_dereference(ctx->mm);
	bool remapped, more = true;

	w->inst->walk.contexts_visited++;
	if (!mm)
		return;
	w->inst->walk.mms_visited++;
	remapped = remap_tree_maybe_populated(&ctx->remaps) ||
		   CMM_LOAD_SHARED(ctx->nr_lossy);
	if (remapped) {
		/* a sleeping lock: not under RCU */
		rcu_read_unlock();
		down_read(&ctx->remap_lock);
		rcu_read_lock();
	}
	if (w->index < (TASK_SIZE >> PAGE_SHIFT))
		more = visit_candidate(w, ctx, mm, w->index << PAGE_SHIFT, 0);
	if (more && (w->inst->walk_flags & COW_WALK_POC_EARLY_STOP) &&
	    folio_mapcount(w->folio) <= 1) {
		/*
		 * The PoC: "exclusive folios are moved to the correct
		 * context level, so we only look once". Kept only to prove
		 * the oracle catches what it misses.
		 */
		more = false;
	}
	if (more && remapped)
		more = visit_remaps(w, ctx, mm);
	if (more && ctx->nr_lossy)
		more = visit_lossy(w, ctx, mm);
	if (remapped) {
		rcu_read_unlock();
		up_read(&ctx->remap_lock);
		rcu_read_lock();
	}
	if (!more)
		w->stopped = true;
}

static bool pruned(struct cow_walk *w, struct cow_context *ctx)
{
	if (!w->prune || ctx->fork_seq > w->stamp)
		return false;
	w->inst->walk.contexts_pruned++;
	return true;
}

/*
 * The first context from @pos on (inclusive) in the list headed by
 * @head that is neither pruned nor dying, pinned; NULL at the end.
 * Under RCU.
 */
static struct cow_context *pin_from(struct cow_walk *w, struct list_head *pos,
				    struct list_head *head)
{
	for (; pos != head; pos = rcu_dereference(pos->next)) {
		struct cow_context *ctx = list_entry(pos, struct cow_context,
						     siblings);

		if (!pruned(w, ctx) && cow_context_tryget(ctx))
			return ctx;
	}
	return NULL;
}

static struct cow_context *first_child(struct cow_walk *w,
				       struct cow_context *ctx)
{
	return pin_from(w, rcu_dereference(ctx->children.next),
			&ctx->children);
}

static struct cow_context *next_sibling(struct cow_walk *w,
					struct cow_context *ctx)
{
	return pin_from(w, rcu_dereference(ctx->siblings.next),
			&ctx->parent->children);
}

/*
 * The proof of concept's traversal: a context after its children (the
 * root first). Kept, behind COW_WALK_POC_ORDER, to show what it costs:
 * a child forked from a context the walk has not reached yet, after the
 * walk passed that context's children, copies a PTE the walk then
 * unmaps in the parent only (tests/unit/cow_context_race.c).
 */
static struct cow_context *walk_children_first(struct cow_walk *w,
					       struct cow_context *root)
{
	struct cow_context *cur = root, *next;

	visit_context(w, root);
	for (;;) {
		while (!w->stopped && (next = first_child(w, cur))) {
			cow_context_put(cur);
			cur = next;
		}
		for (;;) {
			if (w->stopped || cur == root)
				return cur;
			visit_context(w, cur);
			next = next_sibling(w, cur);
			if (next) {
				cow_context_put(cur);
				cur = next;
				break;
			}
			next = cur->parent;
			cow_context_get(next);
			cow_context_put(cur);
			cur = next;
		}
	}
}

/* Parents before children: see the fork argument at the top */
static struct cow_context *walk_parents_first(struct cow_walk *w,
					      struct cow_context *root)
{
	struct cow_context *cur = root, *next;

	for (;;) {
		visit_context(w, cur);
		if (w->stopped)
			return cur;
		next = first_child(w, cur);
		/*
		 * Done with cur's subtree: on to the next sibling, or up.
		 * Each step pins the next context before letting go of the
		 * current one, whose last put may free it (after this read
		 * section) and which the walk does not touch again.
		 */
		while (!next && cur != root) {
			next = next_sibling(w, cur);
			if (!next) {
				next = cur->parent;
				cow_context_get(next);
				cow_context_put(cur);
				cur = next;
				next = NULL;
			}
		}
		if (!next)
			return cur;
		cow_context_put(cur);
		cur = next;
	}
}

int cow_context_walk(struct folio *folio, struct rmap_walk_control *rwc)
{
	struct cow_context *root = folio_cow_context(folio), *cur;
	struct cow_walk w = {
		.folio = folio,
		.rwc = rwc,
		.inst = root->inst,
		.index = folio->index,
		.stamp = folio->private,
		.prune = root->inst->walk_flags & COW_WALK_PRUNE,
	};

	/* the folio's reference pins root; the walk takes its own */
	cow_context_get(root);
	rcu_read_lock();
	if (w.inst->walk_flags & COW_WALK_POC_ORDER)
		cur = walk_children_first(&w, root);
	else
		cur = walk_parents_first(&w, root);
	rcu_read_unlock();
	cow_context_put(cur);
	return 0;
}
