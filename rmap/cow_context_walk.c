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
 * across it; everywhere else it is under RCU, and it writes nothing
 * shared but the pin of an mm it looks into. The argument, step by
 * step; each step names the test that tries to break it
 * (tests/unit/cow_context_holes.c, "hole N", and
 * tests/unit/cow_context_race.c, which runs every writer at every step
 * of the walk, plain and unmapping, fork at points of dup_mmap() too).
 *
 * 1. Where to start. A walker may not hold the folio lock
 *    (folio_referenced(), page_idle), so folio_move_anon_rmap() and
 *    fork's re-pointing may change folio->mapping and folio->private
 *    under it and put the old context. find_root() reads the context
 *    under RCU, then the stamp, then the context's first ancestor that
 *    is not spliced (the root: a spliced context, its mm exited, is
 *    on no list, and that ancestor holds all its folios' mappers), and
 *    reads the context again, retrying if it changed. attach()
 *    publishes the context before the stamp, so an unchanged context
 *    comes with its own stamp or an older one, never with the newer,
 *    larger stamp of a context below it, which would prune that
 *    context's branch (hole 4). Unchanged, the context still held the
 *    folio's reference, so it and its ancestors (each holds one on its
 *    parent) were alive: nothing is pinned, RCU keeps them readable.
 *    The root's own mm is looked at only when the root is the folio's
 *    context and the folio was not re-pointed there: otherwise the root
 *    is an ancestor of the context that attached it, whose mm maps none
 *    of that context's folios, now or later.
 *
 * 2. Moving between contexts, under RCU, pinning none, in a tree that
 *    holds still. The walk may sleep standing on a context (in a
 *    callback, or waiting for a lock, out of RCU), and must go on from
 *    there without visiting any context twice. Exit splices a context
 *    out and puts its children in its place, in its parent's list; a
 *    walk that climbed back into it from them would be led into them
 *    again by its ->siblings.next, and one that stood on a context
 *    spliced and freed meanwhile would have nowhere to go on from. So
 *    no context leaves a tree while a walk is in it: the walk counts
 *    itself in the tree root's ->walkers (cow_walk_enter(), before it
 *    finds its root), an exit's splice that finds walks there waits on
 *    the root's ->deferred list, and the last walk to leave makes it
 *    (cow_walk_leave()); the context keeps its mm's reference while it
 *    waits. Every context in the tree then stays in it, and alive (by
 *    its mm's reference, or as an ancestor of one), the root included,
 *    and the lists change only by forks adding children at their
 *    tails (point 5): a plain depth-first walk. The kernel makes the
 *    handshake with a seqcount the splice writes and the walk waits on
 *    (patches/0019). The price: one atomic on the tree root's line per
 *    walk and per leave, which the model charges. A tree walked
 *    without pause would keep its exited contexts until the walks
 *    pause, each walk stepping through more of them: so while the
 *    root's list holds splice_backlog_max contexts (64), no walk enters
 *    the tree; one that may sleep waits until the last walk in it has
 *    left and made the splices, and a try-walker gives up
 *    (wait_for_backlog(), patches/0026). The waiter has entered no
 *    tree and holds nothing a walk waits for, and no walk is taken
 *    inside another, so the walks in the tree end and the wait does.
 *    (Until then the walk went on through splices, by a count of
 *    levels and a rule for a context spliced out behind it; that rule
 *    could not tell where a list ended once two nested contexts were
 *    spliced, and visited some contexts twice.)
 *
 * 3. An mm. The visit pins it (mmget_not_zero(): ->mm is cleared before
 *    exit_mmap() can run; hole 6), before any VMA is looked up, since
 *    exit_mmap() takes the VMA tree out of RCU mode and frees it at
 *    once. Every PTE move of the mm (mremap's take_rmap_locks() on every
 *    move, the COW context's own rule: rmap_locks_every_move) and every
 *    remap-tree change is a writer of remap_lock, inside which remap_seq
 *    is odd; walks never take that lock. The walk reads remap_seq (an
 *    odd one: it waits for the writer on the lock, out of RCU), then
 *    whether there are entries, visits offset 0, the tree's offsets and
 *    the lossy VMAs, and reads remap_seq again. Changed, and the folio
 *    not found in this mm: a PTE may have moved from a place not yet
 *    visited to one passed, or out of offset 0 after the test for
 *    entries (hole 3), so the mm is visited again. Found: the model's
 *    folios are order 0, mapped at one address per mm at most, so the
 *    visit ends there (found_in_mm()) and a moved PTE is never
 *    reported twice. The tree is read while writers may change it (a
 *    kernel's would be RCU-safe, as the maple tree is); each next
 *    offset is looked up by key. Nothing is allocated under remap_lock:
 *    a slot is reserved before it is taken, since an allocation may
 *    enter reclaim, whose walks wait for that lock's writers.
 *
 * 4. A candidate VMA. The per-VMA read lock is the model's
 *    vma_start_read() (<cowctx/mmap_lock.h>), a trylock as the
 *    kernel's: taken under RCU, then the VMA is revalidated (still this
 *    mm's VMA at this address with this offset and anonymous state), as
 *    lock_vma_under_rcu() does for SLAB_TYPESAFE_BY_RCU VMAs. It fails
 *    while an mmap_lock writer holds the VMA write-locked, and fork's
 *    dup_mmap() holds every VMA of the parent so. A try-walker
 *    (rwc->try_lock) then stops and sets rwc->contended; any other
 *    leaves RCU and waits for the writer (mmap_read_lock() in a
 *    kernel), holding only the mm pin, which no writer waits for (exit
 *    runs after the last mmput()), so no ABBA (hole 5); then it looks
 *    the same candidate up again in the tree as it is then: its
 *    position in the mm is a key, the last offset visited, and a move
 *    meanwhile makes the mm's visit start again as in 3. The price:
 *    a walk that must look into an mm that is forking waits for the
 *    fork, where anon_vma's walk does not. Every mapping that stays at
 *    its address from before the walk to after it is found, and an
 *    unmapping walk leaves none.
 *
 *    The kernel (patches/0017) has taken the rule REPLACE-MODE.md 3.3.1
 *    recommends instead of points 3 and 4: a per-mm rmap_lock, read for
 *    the whole visit of an mm and written, briefly, by every move of a
 *    PTE, every remap-tree change and every split, merge or growth of a
 *    VMA with anonymous state, with free_pgtables() passing a write
 *    section before it frees a detached VMA's tables. No remap_seq
 *    retry and no VMA lock: a VMA found under the read lock (the mm's,
 *    attached, with anonymous state) stays so for the visit. Its walk
 *    leaves RCU to take that lock, waiting for a writer, as this walk
 *    leaves RCU to wait in point 4, with only the mm pinned
 *    (patches/0018; a walker that only tries, folio_referenced(), only
 *    tries it), and calls back under it, outside RCU (patches/0020), as
 *    this walk calls back outside RCU with the VMA read-locked. A child
 *    that dup_mmap() is filling is visited under its rmap_lock too,
 *    where this walk waits for the fork: dup_mmap() keeps the child's
 *    VMA tree in RCU mode, the parent's VMAs that __mt_dup() left there
 *    are refused as not the child's, and a failed fork marks the child
 *    and passes a write section before it frees the tables of VMAs
 *    still attached (patches/0022). Remap entries are taken in batches
 *    by VMA address, unique in an mm and still under the lock, so
 *    that a batch never repeats one (patches/0023). Both
 *    rules find every mapping that stays from before the walk to after
 *    it, once; the model keeps points 3 and 4 until its walk and its
 *    interleaving tests move to the rmap_lock (not done yet: writers
 *    that take it while a walk holds it must then wait for the walk's
 *    visit of that mm, as tests/unit/cow_context_race.c makes exit wait
 *    for the mm pin).
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
 *
 * 7. Forked VMAs only, below the folio's mm. In any mm but the one the
 *    folio was attached in (X's, and only while the stamp does not say
 *    it was re-pointed from below), the folio can be mapped only by
 *    fork's copy and by moves of that copy: a VMA whose anonymous state
 *    the mm gave it itself (a first fault there, or a neighbour's such
 *    state taken at it) holds none of an older mm's folios, however
 *    well its address and offset fit. The model's vma->anon_vma_id says
 *    which is which, as Linux's anon_vma_chain does: ANON_VMA_ID_FORKED
 *    is set by fork before the VMA is linked (dup_vma()), carried by
 *    split, merge and mremap's copy, never given to a first fault
 *    (reusable_anon_vma() takes no forked neighbour's) and taken away
 *    only with the VMA's pages (MREMAP_DONTUNMAP's source). A walk of
 *    the parent's folio then skips the child's refilled hole at the
 *    same address, as anon_vma's walk never meets that VMA's new
 *    anon_vma. The id is read with the rest of the candidate's fit,
 *    before and after its read lock; it changes only from 0 (and the
 *    VMA had no anonymous state, so it did not fit) or with a VMA write.
 */
/*
 * liburcu's read side inline, as the kernel's rcu_read_lock() is: a
 * call into the library and a __tls_get_addr() each time cost the walk
 * more than all its other work.
 */
#define _LGPL_SOURCE
#include <cowctx/mm.h>
#include "rmap/cow_context.h"

/*
 * After an mm's own candidate: look in the rest of it and in further
 * mms? Always, for the real walk. The testing room compiles this file
 * again with its own answer (rmap/testing/cow_context_poc.c): a seam
 * that exists at compile time only.
 */
#ifndef cow_walk_looks_further
#define cow_walk_looks_further(w)	true
#endif

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
	bool inherited;			/* COW_STAMP_INHERITED */
	struct cow_context *tree;	/* the tree's root: walk_enter()ed */
	struct cow_context *root;	/* where the walk started */
	struct cow_context *attached;	/* the folio's context, as read */
	unsigned long mm_found;		/* mappings found before this mm */
	bool prune;
	bool forked_only;		/* COW_WALK_FORKED_ONLY */
	bool stopped;
};

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
 * Is @ctx's mm the one @w's folio was attached in? Not when the stamp
 * says the folio was re-pointed to @ctx from a context below it.
 */
static bool in_attached_mm(const struct cow_walk *w,
			   const struct cow_context *ctx)
{
	return ctx == w->attached && !w->inherited;
}

/*
 * Below the mm the folio was attached in, only a VMA whose anonymous
 * state came by fork can map it: see point 7 at the top.
 */
static bool may_map_folio(const struct cow_walk *w, struct cow_context *ctx,
			  const struct vm_area_struct *vma)
{
	return (vma->anon_vma_id & ANON_VMA_ID_FORKED) || !w->forked_only ||
	       in_attached_mm(w, ctx);
}

/*
 * The VMA is write-locked. A try-walker gives up (rwc->contended, as
 * folio_referenced() does); any other leaves RCU (the mm pin keeps the
 * context), waits for the writer (the kernel: mmap_read_lock(), which
 * every VMA writer holds for write) and looks the same candidate up
 * again in the tree as it is now: its position is a key (the offset it
 * is at), so it resumes where it was. The walk holds no lock a writer
 * waits for, so the wait ends. Returns false when the walk stops.
 */
static bool wait_for_vma(struct cow_walk *w, struct cow_context *ctx,
			 struct mm_struct *mm)
{
	w->inst->walk.vma_busy++;
	if (w->rwc->try_lock) {
		w->rwc->contended = true;
		return false;
	}
	cow_rcu_read_unlock();
	walk_step(w->inst, COW_STEP_VMA_BUSY, ctx);
	/* the writer may have freed the VMA: only the pinned mm is looked at */
	if (CMM_LOAD_SHARED(mm->mmap_lock.writer))
		cow_bug("mm %lu: a VMA is write-locked and no writer to wait for",
			mm->id);
	rcu_read_lock();
	return true;
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
	bool more;

	for (;;) {
		vma = vma_lookup(mm, addr);
		if (!vma_fits(w, ctx, mm, vma, addr, offset))
			return true;
		if (!may_map_folio(w, ctx, vma)) {
			w->inst->walk.vma_not_forked++;
			return true;
		}
		if (!vma_start_read(vma)) {
			if (!wait_for_vma(w, ctx, mm))
				return false;
			continue;
		}
		/* lock_vma_under_rcu(): it may have changed before the lock */
		if (vma_fits(w, ctx, mm, vma, addr, offset) &&
		    may_map_folio(w, ctx, vma))
			break;
		vma_end_read(vma);
		w->inst->walk.vma_retries++;
	}
	cow_rcu_read_unlock();
	more = rmap_walk_candidate(w->rwc, w->folio, vma, addr);
	vma_end_read(vma);
	rcu_read_lock();
	return more;
}

/*
 * The model's anonymous folios are order 0, and one mm maps such a folio
 * at one address at most (only fork copies a mapping, into another mm;
 * mremap moves it). So once the walk found it in an mm, any other PTE
 * there that maps it was made after that one was looked at: no mapping
 * that stays from before the walk to after it, and possibly the same one
 * moved, which must not be reported twice. The visit of the mm ends.
 * (A kernel walk of a large folio, which may be mapped in pieces at
 * several addresses of one mm, would go on, skipping the offsets it
 * visited.)
 */
static bool found_in_mm(const struct cow_walk *w)
{
	return w->inst->m->walk.mappings_found != w->mm_found;
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
	for (i = 0; i < mm->mm_mt.nr && !found_in_mm(w); i++) {
		struct vm_area_struct *vma = mm->mm_mt.vmas[i];
		unsigned long addr;

		if (!(cow_vma_state(vma) & COW_VMA_LOSSY) ||
		    w->index < vma_anon_pgoff(vma) ||
		    w->index >= vma_anon_pgoff(vma) + vma_pages(vma))
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

	while (!found_in_mm(w) &&
	       remap_tree_next_offset(&ctx->remaps, w->index, w->index, &pos,
				      &offset)) {
		walk_step(w->inst, COW_STEP_CANDIDATE, ctx);
		w->inst->walk.remap_candidates++;
		if (!visit_candidate(w, ctx, mm,
				     (anon_index_page(w->index) + offset) <<
				     PAGE_SHIFT, offset))
			return false;
	}
	return true;
}

/*
 * The remap sequence before a visit of @ctx's mm. Odd: a writer is
 * inside, and it may sleep (mremap allocates page tables), so the walk
 * leaves RCU (the mm pin keeps the context) and waits for it on the
 * lock, as a seqcount_mutex_t reader does, then reads again.
 */
static unsigned int remap_seq_begin(struct cow_context *ctx)
{
	unsigned int seq;

	while ((seq = remap_seq_read(ctx)) & 1) {
		cow_rcu_read_unlock();
		down_read(&ctx->remap_lock);
		up_read(&ctx->remap_lock);
		rcu_read_lock();
	}
	return seq;
}

/*
 * An mm's candidates: offset 0, the remap tree's offsets, the lossy
 * VMAs. Visited again while a remap writer ran meanwhile and nothing
 * was found: see point 3 at the top. Under RCU, the mm pinned.
 */
static bool visit_mm(struct cow_walk *w, struct cow_context *ctx,
		     struct mm_struct *mm)
{
	unsigned int seq;
	bool remapped, more = true;

	w->mm_found = w->inst->m->walk.mappings_found;
	for (;;) {
		seq = remap_seq_begin(ctx);
		remapped = remap_tree_maybe_populated(&ctx->remaps);
		walk_step(w->inst, COW_STEP_MM, ctx);
		if (anon_index_page(w->index) < (TASK_SIZE >> PAGE_SHIFT))
			more = visit_candidate(w, ctx, mm,
					       anon_index_page(w->index) <<
					       PAGE_SHIFT, 0);
		if (more)
			more = cow_walk_looks_further(w);
		if (more && remapped)
			more = visit_remaps(w, ctx, mm);
		if (more && CMM_LOAD_SHARED(ctx->nr_lossy))
			more = visit_lossy(w, ctx, mm);
		walk_step(w->inst, COW_STEP_MM_END, ctx);
		if (!more || found_in_mm(w) || !remap_seq_changed(ctx, seq))
			return more;
		w->inst->walk.mm_retries++;
	}
}

/*
 * One context: its mm's candidates. Under RCU; @ctx is not pinned (the
 * grace period keeps it readable), its mm is pinned for the visit, and
 * that keeps the context too (the mm's reference) while the walk is out
 * of RCU.
 */
static void visit_context(struct cow_walk *w, struct cow_context *ctx)
{
	struct mm_struct *mm;

	walk_step(w->inst, COW_STEP_CONTEXT, ctx);
	w->inst->walk.contexts_visited++;
	/*
	 * mmget_not_zero() right after reading ->mm, nothing between: exit
	 * clears ->mm before exit_mmap() may run, and a kernel context
	 * would hold mmgrab() on its mm so the struct outlives the read.
	 * It comes before the VMA lookup: exit_mmap() takes the VMA tree
	 * out of RCU mode (mt_clear_in_rcu()) and frees it at once. The
	 * model counts the pin and its cacheline write instead of making
	 * it an atomic, as lib/lock.c counts every lock.
	 */
	mm = rcu_dereference(ctx->mm);
	if (!mm)
		return;
	ctx->mm_pins++;
	family_atomic(&w->inst->m->family, &ctx->mm_users_line);
	w->inst->walk.mms_visited++;
	if (!visit_mm(w, ctx, mm))
		w->stopped = true;
	/* mmput(): never the last here, the mm's own reference is */
	ctx->mm_pins--;
	family_atomic(&w->inst->m->family, &ctx->mm_users_line);
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
 * @head that is not pruned; NULL at the end. Under RCU: nothing is
 * pinned, a context whose last reference goes meanwhile stays readable
 * until the walk leaves RCU, with no mm and no children (its visit
 * finds nothing), and list_del_rcu() leaves its ->next to go on by.
 */
static struct cow_context *rcu_next_unpruned(struct cow_walk *w,
					     struct list_head *pos,
					     struct list_head *head)
{
	for (; pos != head; pos = rcu_dereference(pos->next)) {
		struct cow_context *ctx = list_entry(pos, struct cow_context,
						     siblings);

		if (!pruned(w, ctx))
			return ctx;
	}
	return NULL;
}

static struct cow_context *rcu_first_child(struct cow_walk *w,
					   struct cow_context *ctx)
{
	return rcu_next_unpruned(w, rcu_dereference(ctx->children.next),
				 &ctx->children);
}

static struct cow_context *rcu_next_sibling(struct cow_walk *w,
					    struct cow_context *ctx)
{
	struct cow_context *parent = rcu_dereference(ctx->parent);

	return rcu_next_unpruned(w, rcu_dereference(ctx->siblings.next),
				 &parent->children);
}

/*
 * Parents before children: see the fork argument at the top. Under RCU
 * from start to end (out of it only inside visit_context(), with the
 * mm pinned): no context is pinned, so nothing is written on the way
 * but the mm pins. No context of the tree is spliced out while the walk
 * is in it (point 2), so the root and every context the walk stands on
 * stay in the tree, and alive, whatever it waits for, and the lists
 * change only by forks adding children at their tails: a plain
 * depth-first walk of the root's subtree visits each context once.
 */
static void walk_parents_first(struct cow_walk *w, struct cow_context *root)
{
	struct cow_context *cur = root, *next;

	/*
	 * A root above the folio's own context X (X's mm exited) is an
	 * ancestor of X, and only X's mm and its descendants map X's
	 * folios (see "the bounded tree" in cow_context.c): its mm is not
	 * looked at; nor is it when the folio was re-pointed to the root
	 * from such an X (the stamp says so). No mapping of an existing
	 * folio ever comes to an existing mm, so that holds for the whole
	 * walk, whatever moves the folio meanwhile.
	 */
	if (in_attached_mm(w, root))
		visit_context(w, cur);
	for (;;) {
		if (w->stopped)
			return;
		next = rcu_first_child(w, cur);
		while (!next) {
			walk_step(w->inst, COW_STEP_CLIMB, cur);
			if (cur == root)
				return;
			next = rcu_next_sibling(w, cur);
			if (!next)
				cur = rcu_dereference(cur->parent);
		}
		cur = next;
		visit_context(w, cur);
	}
}

/*
 * @w's tree holds off as many splices as it may: no walk enters it until
 * the last walk in it has left and made them (point 2). A try-walker
 * gives up (rwc->contended), as the kernel's; any other leaves RCU and
 * waits (the kernel: wait_var_event() on the tree root's count, woken by
 * the splicer), holding nothing any walk waits for, and then reads the
 * folio's context again: nothing was pinned. Returns false when the
 * walk gives up. The model's walks are one thread's: a waiter needs a
 * test to end the walks in the tree at COW_STEP_BACKLOG, and one that
 * would wait for ever is a bug.
 */
static bool wait_for_backlog(struct cow_walk *w, struct cow_context *ctx)
{
	struct cow_instance *inst = w->inst;

	if (w->rwc->try_lock) {
		inst->walk.backlog_gave_up++;
		w->rwc->contended = true;
		return false;
	}
	inst->walk.backlog_waits++;
	if (!__atomic_load_n(&w->tree->walkers, __ATOMIC_SEQ_CST))
		cow_bug("splices backlogged with no walk in the tree to make them");
	cow_rcu_read_unlock();
	walk_step(inst, COW_STEP_BACKLOG, ctx);
	rcu_read_lock();
	return true;
}

/*
 * The folio's context and stamp, and where the walk starts. The walker
 * may not hold the folio lock (folio_referenced(), page_idle), so
 * folio_move_anon_rmap() may change both at any time and put the old
 * context: read the context under RCU, then the stamp, find the root,
 * and read the context again; attach() publishes context then stamp,
 * so an unchanged context means the stamp is its own or an older one.
 * Unchanged, the context still holds the folio's reference, so it and
 * its ancestors (each holds one on its parent) are alive at that read:
 * the root is no dying context.
 */
static struct cow_context *find_root(struct cow_walk *w, struct folio *folio)
{
	struct cow_context *ctx, *root;
	unsigned long stamp;

	for (;;) {
		ctx = rcu_dereference(folio->mapping);
		ctx = (void *)((uintptr_t)ctx & ~PAGE_MAPPING_ANON);
		walk_step(ctx->inst, COW_STEP_ROOT_READ, ctx);
		cmm_smp_rmb();
		stamp = CMM_LOAD_SHARED(folio->private);
		w->stamp = stamp >> COW_STAMP_SHIFT;
		w->inherited = stamp & COW_STAMP_INHERITED;
		cmm_smp_rmb();
		w->tree = cow_context_tree_root(ctx);
		if (cow_splice_backlog_full(w->tree)) {
			if (!wait_for_backlog(w, ctx))
				return NULL;
			continue;
		}
		/* from here on no splice moves the root: point 2 */
		cow_walk_enter(w->tree);
		root = cow_context_walk_root(ctx);
		cmm_smp_rmb();
		w->attached = ctx;
		if (folio_cow_context(folio) == ctx)
			return root;
		cow_walk_leave(w->tree);
		ctx->inst->walk.root_retries++;
	}
}

/*
 * @w set up for @folio, in an RCU read section, its root found; or none,
 * the walk given up (wait_for_backlog())
 */
static void walk_begin(struct cow_walk *w, struct folio *folio,
		       struct rmap_walk_control *rwc)
{
	w->folio = folio;
	w->rwc = rwc;
	w->inst = folio_cow_context(folio)->inst;
	w->index = folio->index;
	w->prune = w->inst->walk_flags & COW_WALK_PRUNE;
	w->forked_only = w->inst->walk_flags & COW_WALK_FORKED_ONLY;
	rcu_read_lock();
	w->root = find_root(w, folio);
}

int cow_context_walk(struct folio *folio, struct rmap_walk_control *rwc)
{
	struct cow_walk w = { 0 };

	walk_begin(&w, folio, rwc);
	if (!w.root) {
		/* a try-walker that gave up at a backlog: it never entered */
		cow_rcu_read_unlock();
		return 0;
	}
	walk_parents_first(&w, w.root);
	cow_rcu_read_unlock();
	cow_walk_leave(w.tree);
	return 0;
}
