// SPDX-License-Identifier: GPL-2.0
/*
 * The COW context walk: every (vma, address) that may map a folio.
 *
 * Depth first, parents before children, over the folio's context and
 * its descendants. In each live mm the candidates are the VMA at the
 * folio's own index (offset 0) and, for each distinct offset of the
 * mm's remap tree covering the index, the VMA at index + offset whose
 * own offset is that one. Nothing is allocated: the distinct offsets
 * come one at a time from the tree, in (pgoff, offset) order.
 *
 * The callback may block, so the walk never holds the RCU read lock
 * across it. The argument, step by step; each step names the test that
 * tries to break it (tests/unit/cow_context_holes.c, "hole N", and
 * tests/unit/cow_context_race.c, which runs every writer at every step
 * of the walk, fork at points of dup_mmap() too).
 *
 * 1. Where to start. A walker may not hold the folio lock
 *    (folio_referenced(), page_idle), so folio_move_anon_rmap() and
 *    fork's re-pointing may change folio->mapping and folio->private
 *    under it and put the old context. pin_root() reads the context
 *    under RCU, then the stamp, pins with tryget (one compare-and-swap:
 *    refcounts are atomic and a count that reached 0 is never revived)
 *    and reads the context again, retrying if it changed. attach()
 *    publishes the context before the stamp, so an unchanged context
 *    comes with its own stamp or an older one, never with the newer,
 *    larger stamp of a context below it, which would prune that
 *    context's branch (hole 4). A detached context (its mm exited, see
 *    cow_context.c) is on no list: the walk starts at its first ancestor
 *    that is not, which holds all its folios' mappers.
 *
 * 2. Moving between contexts. The context the walk stands on is pinned
 *    by a reference; its ancestors through its reference on its parent.
 *    After a callback the walk re-enters RCU and goes on from
 *    ->siblings.next or ->parent. Exit splices a context out and puts
 *    its children in its place, in its parent's list: a walk past it
 *    there has visited them, one before it will, one standing on it
 *    follows its ->siblings.next into them, and one standing on one of
 *    them climbs to the new parent and on to the contexts that followed
 *    the spliced one. If the walk's own root is spliced out, the walk
 *    goes on past it, up to the top if need be (cow_walk_subtree_done()):
 *    more contexts than needed, none missed, none twice.
 *
 * 3. An mm. The visit pins it (mmget_not_zero(): ->mm is cleared before
 *    exit_mmap() can run; hole 6) and holds the context's remap_lock for
 *    read from before it looks at the remap tree to after the last
 *    candidate. Every PTE move of the mm holds remap_lock for write
 *    (mremap's take_rmap_locks() on every move, the COW context's own
 *    rule: rmap_locks_every_move), and so do remap-tree changes. So no
 *    PTE moves in an mm while a walk is in it: not a first move between
 *    the test for entries and the visit of offset 0 (hole 3), not a move
 *    from an offset not yet visited to one already passed. Nothing is
 *    allocated under remap_lock: a slot is reserved before it is taken,
 *    since an allocation may enter reclaim, whose walks take it.
 *
 * 4. A candidate VMA. The per-VMA read lock, the kernel's
 *    vma_start_read(), is a trylock: taken under RCU, then the VMA is
 *    revalidated (vm_lock_seq unchanged, still this mm's VMA at this
 *    address with this offset and anonymous state), as
 *    lock_vma_under_rcu() does for SLAB_TYPESAFE_BY_RCU VMAs. It fails
 *    while a writer holds the VMA, and that writer may be an mremap
 *    waiting for the remap_lock the walk holds (ABBA). The walk never
 *    waits holding it: a try-walker (rwc->try_lock) stops and sets
 *    rwc->contended; any other drops remap_lock, waits for the writer,
 *    takes remap_lock again and looks the same candidate up again in the
 *    tree as it is then (hole 5). Its position in the mm is a key, the
 *    last offset visited. While it let go, a move may have carried a PTE
 *    to an offset already passed: that mapping is at a new address, and
 *    an unmapping walk leaves it, as any walk leaves a mapping made after
 *    it passed; try_to_unmap() sees the folio still mapped and fails, as
 *    it does for other reasons. Every mapping that stays at its address
 *    from before the walk to after it is found.
 *
 * 5. Fork racing a walk. Fork links the child's context at the tail of
 *    the parent's children before copying any VMA, gives each child VMA
 *    its remap entry before it is linked, and links it before copying
 *    its PTEs. Take a PTE the child copies from the parent's PTE p. If
 *    the walk examines p after the copy, it has not yet reached the
 *    parent's children (parents first), so it will reach the child and
 *    find the PTE through the child's VMA tree or remap entries, both set
 *    up before the copy. If the walk examined p before the copy, the copy
 *    is a mapping made after the walk passed its source: it copies
 *    whatever the walk left in p (unmapped, aged, a migration entry),
 *    exactly as with Linux's anon_vma, where the child's chain is also
 *    linked before its PTEs are copied. A fork that fails tears its child
 *    down through the normal exit path.
 *
 * 6. Fork-generation pruning. The folio's stamp (folio->private) is the
 *    count of completed forks (cow_instance->fork_seq) when it was
 *    attached to its context X: by its first fault in X's mm, or by
 *    exclusive reuse there. A child's fork_seq is taken when its
 *    dup_mmap() completes (cow_mm_fork_done(), where copy_process()
 *    counts total_forks); until then it is COW_FORK_PENDING and never
 *    pruned. dup_mmap() write-locks the parent's VMAs one at a time, so
 *    the parent may fault, or reuse a folio, in a VMA not yet copied
 *    (holes 1, 2): such a folio's stamp is below the child's fork_seq,
 *    and the child is visited. A context C other than the walk's root
 *    whose fork_seq is at or below the stamp existed, complete, when only
 *    X's mm mapped the folio; C's mm gets no new mapping of an existing
 *    folio, and whatever forks below C copies from mms that do not map
 *    it. So C's whole subtree is skipped. Splicing and re-pointing keep
 *    this exact: see "the bounded tree" in cow_context.c. (Moves do not
 *    break it: a folio moves only when exclusive, and gets a new stamp.)
 */
#include <cowctx/mm.h>
#include "rmap/cow_context.h"
#include "rmap/cow_context_poc.h"

/* Another CPU acts here (tests only: see cow_instance->walk_step) */
static void walk_step(struct cow_instance *inst, enum cow_walk_step step,
		      struct cow_context *ctx)
{
	if (inst->walk_step)
		inst->walk_step(inst, step, ctx, inst->walk_step_data);
}

struct cow_walk {
	struct folio *folio;
	struct rmap_walk_control *rwc;
	struct cow_instance *inst;
	unsigned long index;
	unsigned long stamp;
	struct cow_context *root;	/* where the walk started */
	bool prune;
	bool stopped;
};

/*
 * vma_start_read() / vma_end_read() of the model. A trylock, as the
 * kernel's: it fails while a writer holds the VMA (vma_start_write()).
 */
static bool vma_read_trylock(struct vm_area_struct *vma)
{
	unsigned long st = cow_vma_state(vma);

	if (st & COW_VMA_WRITER)
		return false;
	cow_vma_set_state(vma, st + (1UL << COW_VMA_READER_SHIFT));
	return true;
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
	       linear_anon_page_index(vma, addr) == w->index;
}

/*
 * Look at one candidate. Entered and left under RCU; the callback runs
 * outside it, with the VMA read-locked. Returns false to stop the walk.
 */
/*
 * The VMA is write-locked: its writer may be an mremap that wants this
 * mm's remap_lock for write, which the walk holds for read (ABBA). So
 * the walk never waits for a VMA while holding it: a try-walker gives up
 * (rwc->contended, as folio_referenced() does); any other lets go of
 * remap_lock, waits for the writer (the kernel: mmap_read_lock(), which
 * every VMA writer holds for write), takes remap_lock again and looks
 * up the same candidate in the tree as it is now. Its position is a key
 * (the offset it is at), so it resumes where it was. Returns false when
 * the walk stops.
 */
static bool wait_for_vma(struct cow_walk *w, struct cow_context *ctx,
			 struct vm_area_struct *vma)
{
	w->inst->walk.vma_busy++;
	if (w->rwc->try_lock) {
		w->rwc->contended = true;
		return false;
	}
	rcu_read_unlock();
	up_read(&ctx->remap_lock);
	walk_step(w->inst, COW_STEP_VMA_BUSY, ctx);
	if (cow_vma_state(vma) & COW_VMA_WRITER)
		cow_bug("VMA write-locked and no writer to wait for");
	down_read(&ctx->remap_lock);
	rcu_read_lock();
	return true;
}

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
		if (!vma_read_trylock(vma)) {
			if (!wait_for_vma(w, ctx, vma))
				return false;
			continue;
		}
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
		    w->index < vma->vm_anon_pgoff ||
		    w->index >= vma->vm_anon_pgoff + vma_pages(vma))
			continue;
		addr = vma_anon_address(vma, w->index);
		if (!visit_candidate(w, ctx, mm, addr, vma_remap_offset(vma)))
			return false;
	}
	return true;
}

static bool visit_remaps(struct cow_walk *w, struct cow_context *ctx,
			 struct mm_struct *mm)
{
	struct remap_cursor pos = REMAP_CURSOR_INIT;
	long offset;

	while (remap_tree_next_offset(&ctx->remaps, w->index, w->index, &pos,
				      &offset)) {
		walk_step(w->inst, COW_STEP_CANDIDATE, ctx);
		w->inst->walk.remap_candidates++;
		lock_touch(&ctx->remap_lock, 1);
		if (!visit_candidate(w, ctx, mm,
				     (w->index + offset) << PAGE_SHIFT, offset))
			return false;
	}
	return true;
}

/* One context: its mm's candidates. Under RCU, @ctx pinned. */
void visit_context(struct cow_walk *w, struct cow_context *ctx)
{
	struct mm_struct *mm;
	bool remapped, more = true;

	walk_step(w->inst, COW_STEP_CONTEXT, ctx);
	w->inst->walk.contexts_visited++;
	/*
	 * mmget_not_zero() right after reading ->mm, nothing between: exit
	 * clears ->mm before exit_mmap() may run, and a kernel context
	 * would hold mmgrab() on its mm so the struct outlives the read.
	 */
	mm = rcu_dereference(ctx->mm);
	if (!mm)
		return;
	__atomic_add_fetch(&ctx->mm_pins, 1, __ATOMIC_ACQUIRE);
	family_atomic(&w->inst->m->family, &ctx->mm_users_line);
	w->inst->walk.mms_visited++;
	/*
	 * remap_lock for read across the whole visit, taken before the
	 * tree is looked at: every PTE move of this mm holds it for write,
	 * so none can carry a PTE from a place not yet visited to one
	 * already passed, and a first move cannot slip in between the
	 * test for entries and the visit of offset 0.
	 */
	rcu_read_unlock();
	down_read(&ctx->remap_lock);
	rcu_read_lock();
	remapped = remap_tree_maybe_populated(&ctx->remaps);
	walk_step(w->inst, COW_STEP_MM, ctx);
	if (w->index < (TASK_SIZE >> PAGE_SHIFT))
		more = visit_candidate(w, ctx, mm, w->index << PAGE_SHIFT, 0);
	if (more && (w->inst->walk_flags & COW_WALK_POC_EARLY_STOP))
		more = cow_poc_looks_further(w->folio);
	if (more && remapped)
		more = visit_remaps(w, ctx, mm);
	if (more && ctx->nr_lossy)
		more = visit_lossy(w, ctx, mm);
	rcu_read_unlock();
	up_read(&ctx->remap_lock);
	/* mmput(): never the last here, the mm's own reference is */
	__atomic_sub_fetch(&ctx->mm_pins, 1, __ATOMIC_RELEASE);
	family_atomic(&w->inst->m->family, &ctx->mm_users_line);
	rcu_read_lock();
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

struct cow_context *first_child(struct cow_walk *w, struct cow_context *ctx)
{
	return pin_from(w, rcu_dereference(ctx->children.next),
			&ctx->children);
}

struct cow_context *next_sibling(struct cow_walk *w, struct cow_context *ctx)
{
	return pin_from(w, rcu_dereference(ctx->siblings.next),
			&ctx->parent->children);
}

bool cow_walk_stopped(const struct cow_walk *w)
{
	return w->stopped;
}

/*
 * Back at the root: done, unless the root was spliced out mid-walk (its
 * mm exited); its children then follow it in its old parent's list, and
 * the walk goes on from there, up to the top if need be: more contexts
 * than needed, none missed, none twice.
 */
bool cow_walk_subtree_done(struct cow_walk *w, struct cow_context *cur)
{
	if (!cur->parent)
		return true;
	return cur == w->root && !CMM_LOAD_SHARED(cur->detached);
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
		while (!next && !cow_walk_subtree_done(w, cur)) {
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

/*
 * The folio's context and stamp, and a pin on where the walk starts.
 * The walker may not hold the folio lock (folio_referenced(),
 * page_idle), so folio_move_anon_rmap() may change both at any time and
 * put the old context: read the context under RCU, then the stamp, pin
 * with tryget, and read the context again; attach() publishes context
 * then stamp, so an unchanged context means the stamp is its own or an
 * older one. NULL when the folio's context is dying: nothing maps it.
 */
static struct cow_context *pin_root(struct cow_walk *w, struct folio *folio)
{
	struct cow_context *ctx, *root;

	for (;;) {
		ctx = rcu_dereference(folio->mapping);
		ctx = (void *)((uintptr_t)ctx & ~PAGE_MAPPING_ANON);
		walk_step(ctx->inst, COW_STEP_ROOT_READ, ctx);
		cmm_smp_rmb();
		w->stamp = CMM_LOAD_SHARED(folio->private);
		cmm_smp_rmb();
		root = cow_context_walk_root(ctx);
		if (!cow_context_tryget(root))
			root = NULL;
		if (folio_cow_context(folio) == ctx)
			return root;
		if (root)
			cow_context_put(root);
		ctx->inst->walk.root_retries++;
	}
}

int cow_context_walk(struct folio *folio, struct rmap_walk_control *rwc)
{
	struct cow_context *root, *cur;
	struct cow_walk w = {
		.folio = folio,
		.rwc = rwc,
		.inst = folio_cow_context(folio)->inst,
		.index = folio->index,
	};

	w.prune = w.inst->walk_flags & COW_WALK_PRUNE;
	rcu_read_lock();
	root = pin_root(&w, folio);
	if (!root) {
		rcu_read_unlock();
		return 0;
	}
	w.root = root;
	if (w.inst->walk_flags & COW_WALK_POC_ORDER)
		cur = cow_poc_walk_children_first(&w, root);
	else
		cur = walk_parents_first(&w, root);
	rcu_read_unlock();
	cow_context_put(cur);
	return 0;
}
