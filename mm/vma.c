// SPDX-License-Identifier: GPL-2.0
/*
 * VMA lifetime, split and merge (Linux mm/vma.c). Merges decide how many
 * VMAs, and so how many anon_vma objects, exist: the rules follow the
 * kernel this project is judged on (6.18), step by step.
 */
#include <errno.h>

#include <cowctx/mm.h>
#include "mm/internal.h"

struct vm_area_struct *vm_area_alloc(struct mm_struct *mm)
{
	struct vm_area_struct *vma = model_zalloc(sizeof(*vma));

	if (!vma)
		return NULL;
	vma->vm_mm = mm;
	INIT_LIST_HEAD(&vma->anon_vma_chain);
	vma->id = mm->model->next_vma_id++;
	mm->model->nr_vmas++;
	rmap_vma_fields_charge(vma, 1);
	return vma;
}

/* A copy sharing @orig's anon_vma pointer but none of its chain */
struct vm_area_struct *vm_area_dup(struct vm_area_struct *orig)
{
	struct vm_area_struct *vma = vm_area_alloc(orig->vm_mm);

	if (!vma)
		return NULL;
	vma->vm_start = orig->vm_start;
	vma->vm_end = orig->vm_end;
	vma->vm_flags = orig->vm_flags;
	vma->vm_pgoff = orig->vm_pgoff;
	/* the offset only: the flags are the backend's state of @orig */
	vma_set_anon_pgoff(vma, vma_anon_pgoff(orig));
	vma->vm_file = orig->vm_file;
	vma->anon_vma = orig->anon_vma;
	vma->anon_vma_id = orig->anon_vma_id;
	return vma;
}

void vm_area_free(struct vm_area_struct *vma)
{
	vma->vm_mm->model->nr_vmas--;
	rmap_vma_fields_charge(vma, -1);
	model_free(vma);
}

void vma_link(struct mm_struct *mm, struct vm_area_struct *vma)
{
	vma_tree_insert(mm, vma);
	rmap_vma_link(vma);
}

/* Out of the tree, out of the rmap, freed. Its PTEs are already gone. */
void remove_vma(struct vm_area_struct *vma)
{
	vma_tree_remove(vma->vm_mm, vma);
	rmap_vma_unlink(vma);
	vma->anon_vma = NULL;
	vma->anon_vma_id = 0;
	vm_area_free(vma);
}

/*
 * Linux's merge rules look at a VMA's anon_vma for three things, and only
 * among VMAs of one mm: whether it is NULL, whether it is the very object
 * a neighbour has (is_mergeable_anon_vma(), can_vma_merge_right()'s check
 * that prev and next agree, find_mergeable_anon_vma() at a first fault),
 * and whether its chain came through fork (vma_had_uncowed_parents()).
 * A backend without anon_vmas (the COW context has one context for every
 * VMA of an mm) cannot answer the last two the same way, and a program
 * could then tell which reverse map runs by which mremap it is refused.
 * So the model keeps the answers itself, for every backend alike, in one
 * word per VMA, vma->anon_vma_id: 0 where Linux's anon_vma is NULL, else
 * a number two VMAs of one mm share exactly when Linux gives them one
 * anon_vma, with ANON_VMA_ID_FORKED set when that VMA's anon_vma_chain
 * has more than one link.
 *
 * Why one word is enough: within one mm, VMAs sharing an anon_vma also
 * share the shape of their chains. They got it by split, mremap's copy
 * or dup_anon_vma(), which copy the chain, or at a first fault from a
 * neighbour whose chain is a single link (and the new chain is one link
 * too). Fork gives every child VMA an anon_vma no other VMA of the child
 * has (a new one, or an old one no VMA uses any more), behind a chain of
 * two links or more. So a number is drawn where Linux allocates an
 * anon_vma (a first fault not sharing a neighbour's, and fork), copied
 * where Linux copies the pointer, cleared where Linux unlinks the chain,
 * and nothing else: no object, no lock, no backend hook. The anon_vma
 * instance checks after every statement that its real anon_vmas and
 * these numbers agree (scenario/layout.c). The kernel series keeps the
 * same number by the same rule (patch 0015, vma->anon_vma_id beside
 * ->anon_vma while one kernel boots both reverse maps), and under
 * cow_context=shadow asks each merge rule both ways at every decision,
 * as layout.c does here. A kernel running the COW context alone would
 * keep the number in vma->anon_vma, a pointer it no longer needs (a
 * VMA's context is its mm's); the slot is charged to it as its pointer
 * is to anon_vma (COW_VMA_FIELD_BYTES).
 *
 * The same places keep vm_anon_pgoff consistent: every VMA sharing an
 * anon_vma_id has one difference vm_anon_pgoff - vm_pgoff (split, the
 * copy and range changes all keep a VMA's difference), so two VMAs Linux
 * lets merge (same anon_vma, contiguous vm_pgoff) have contiguous
 * anonymous offsets as well, and no merge rule changes for them. A VMA
 * without anon state has no anonymous page, so its vm_anon_pgoff may
 * change freely: it takes anon_page_index(vm_start) (no remap entry
 * needed) when it gets a new anon_vma_id, and the difference of the VMA
 * whose anon_vma_id it takes otherwise; until then, whenever its range
 * changes, it is put back at anon_page_index(vm_start). That keeps every
 * VMA's difference one that a first fault set, from an address and a
 * valid vm_pgoff, which is what bounds the offsets (ANON_PGOFF_BIAS):
 * an unfaulted VMA grown down, cut at the top and moved, again and
 * again, would otherwise carry its offset down without end.
 */
static unsigned long new_anon_vma_id(struct model *m, bool forked)
{
	return (++m->last_anon_vma_id << 1) | (forked ? ANON_VMA_ID_FORKED : 0);
}

/* @vma's anonymous offset for the pages at @pgoff, at @from's difference */
static unsigned long anon_pgoff_like(const struct vm_area_struct *from,
				     unsigned long pgoff)
{
	return pgoff + (vma_anon_pgoff(from) - from->vm_pgoff);
}

void vma_anon_pgoff_overflow(const struct vm_area_struct *vma,
			     unsigned long pgoff)
{
	model_bug("VMA [%#lx, %#lx) vm_pgoff %#lx: anonymous offset %#lx "
		  "reaches vm_anon_pgoff's flags", vma->vm_start, vma->vm_end,
		  vma->vm_pgoff, pgoff);
}

void vma_anon_flags_bad(const struct vm_area_struct *vma,
			unsigned long flags)
{
	model_bug("VMA [%#lx, %#lx): flags %#lx overlap the anonymous offset",
		  vma->vm_start, vma->vm_end, flags);
}

/* anon_vma_compatible() (mm/vma.c): could @a and @b share an anon_vma? */
static bool anon_compatible(const struct vm_area_struct *a,
			    const struct vm_area_struct *b)
{
	return a->vm_end == b->vm_start && a->vm_file == b->vm_file &&
	       !((a->vm_flags ^ b->vm_flags) &
		 ~(VM_ACCESS_FLAGS | VM_SOFTDIRTY)) &&
	       b->vm_pgoff == a->vm_pgoff +
			      ((b->vm_start - a->vm_start) >> PAGE_SHIFT);
}

/* reusable_anon_vma(): @old's anon_vma, if its chain is one link */
static const struct vm_area_struct *
reusable(const struct vm_area_struct *old, const struct vm_area_struct *a,
	 const struct vm_area_struct *b)
{
	if (anon_compatible(a, b) && old->anon_vma_id &&
	    !(old->anon_vma_id & ANON_VMA_ID_FORKED))
		return old;
	return NULL;
}

unsigned long anon_vma_id_prepare(struct vm_area_struct *vma)
{
	const struct vm_area_struct *from = NULL;
	struct vm_area_struct *prev = vma_prev(vma), *next = vma_next(vma);

	/* find_mergeable_anon_vma(): next first, then prev */
	if (next)
		from = reusable(next, vma, next);
	if (!from && prev)
		from = reusable(prev, prev, vma);
	if (from) {
		vma_set_anon_pgoff(vma, anon_pgoff_like(from, vma->vm_pgoff));
		return from->anon_vma_id;
	}
	vma_set_anon_pgoff(vma, anon_page_index(vma->vm_start));
	return new_anon_vma_id(vma->vm_mm->model, false);
}

void anon_vma_id_fork(struct vm_area_struct *vma,
		      const struct vm_area_struct *pvma)
{
	vma->anon_vma_id = pvma->anon_vma_id && vma->anon_vma ?
			   new_anon_vma_id(vma->vm_mm->model, true) : 0;
}

static void adjust_begin(struct vm_area_struct *vma)
{
	vma_start_write(vma);
	rmap_vma_prepare(vma, NULL);
}

static void adjust_end(struct vm_area_struct *vma)
{
	rmap_vma_complete(vma, NULL);
}

static void set_range(struct vm_area_struct *vma, unsigned long start,
		      unsigned long end, unsigned long pgoff)
{
	vma_set_anon_pgoff(vma, vma->anon_vma_id ?
				anon_pgoff_like(vma, pgoff) :
				anon_page_index(start));
	vma_tree_set_range(vma, start, end);
	vma->vm_pgoff = pgoff;
}

void vma_set_range(struct vm_area_struct *vma, unsigned long start,
		   unsigned long end, unsigned long pgoff)
{
	adjust_begin(vma);
	set_range(vma, start, end, pgoff);
	adjust_end(vma);
}

static int clone_anon(struct vm_area_struct *dst, struct vm_area_struct *src)
{
	return rmap_vma_clone(dst, src);
}

/*
 * __split_vma(): the new VMA takes [vm_start, addr) when @new_below,
 * else [addr, vm_end); @vma keeps the rest.
 */
int split_vma(struct vm_area_struct *vma, unsigned long addr, int new_below)
{
	struct mm_struct *mm = vma->vm_mm;
	unsigned long lo_start, hi_start;
	struct vm_area_struct *new;
	int err;

	if (addr <= vma->vm_start || addr >= vma->vm_end)
		model_bug("split_vma outside the VMA");
	if (mm->map_count >= mm_max_map_count(mm))
		return -ENOMEM;
	if (vma_tree_reserve(mm, 1))
		return -ENOMEM;
	/* the two sides of @addr, and which one the new VMA takes */
	lo_start = vma->vm_start;
	hi_start = addr;
	new = vm_area_dup(vma);
	if (!new)
		return -ENOMEM;
	new->vm_start = new_below ? lo_start : hi_start;
	new->vm_end = new_below ? hi_start : vma->vm_end;
	new->vm_pgoff = linear_page_index(vma, new->vm_start);
	vma_set_anon_pgoff(new, linear_anon_page_index(vma, new->vm_start));
	err = clone_anon(new, vma);
	if (err) {
		vm_area_free(new);
		return err;
	}
	if (new_below)
		vma_set_range(vma, hi_start, vma->vm_end,
			      linear_page_index(vma, hi_start));
	else
		vma_set_range(vma, lo_start, hi_start, vma->vm_pgoff);
	vma_link(mm, new);
	return 0;
}

/* vma_had_uncowed_parents(), from the model's anon_vma_id */
static bool fork_child(struct vm_area_struct *vma)
{
	return vma && (vma->anon_vma_id & ANON_VMA_ID_FORKED);
}

static bool is_mergeable_vma(struct vma_merge_struct *vmg, bool merge_next)
{
	struct vm_area_struct *vma = merge_next ? vmg->next : vmg->prev;

	/* soft-dirty alone never keeps VMAs apart */
	if ((vma->vm_flags ^ vmg->flags) & ~VM_SOFTDIRTY)
		return false;
	return vma->vm_file == vmg->file;
}

/*
 * is_mergeable_anon_vma() as of Linux 6.16+: a merge may import anon
 * state into an unfaulted neighbour, or extend a faulted one, unless
 * the VMA whose anon state spreads came from a fork.
 */
static bool is_mergeable_anon_vma(struct vma_merge_struct *vmg,
				  bool merge_next)
{
	struct vm_area_struct *tgt = merge_next ? vmg->next : vmg->prev;
	unsigned long tgt_anon = tgt->anon_vma_id;
	unsigned long src_anon = vmg->anon_vma_id;

	if (!tgt_anon && src_anon)
		return !fork_child(vmg->middle) && !fork_child(vmg->copied_from);
	if (tgt_anon && !src_anon)
		return !fork_child(tgt);
	return src_anon == tgt_anon;
}

/* Can [start, end) go in front of next (lower address and pgoff)? */
static bool can_vma_merge_before(struct vma_merge_struct *vmg)
{
	unsigned long pglen = PHYS_PFN(vmg->end - vmg->start);

	return is_mergeable_vma(vmg, true) &&
	       is_mergeable_anon_vma(vmg, true) &&
	       vmg->next->vm_pgoff == vmg->pgoff + pglen;
}

/* Can [start, end) go after prev? */
static bool can_vma_merge_after(struct vma_merge_struct *vmg)
{
	return is_mergeable_vma(vmg, false) &&
	       is_mergeable_anon_vma(vmg, false) &&
	       vmg->prev->vm_pgoff + vma_pages(vmg->prev) == vmg->pgoff;
}

static bool can_vma_merge_left(struct vma_merge_struct *vmg)
{
	return vmg->prev && vmg->prev->vm_end == vmg->start &&
	       can_vma_merge_after(vmg);
}

static bool can_vma_merge_right(struct vma_merge_struct *vmg,
				bool can_merge_left)
{
	unsigned long prev_anon, next_anon;

	if (!vmg->next || vmg->end != vmg->next->vm_start ||
	    !can_vma_merge_before(vmg))
		return false;
	if (!can_merge_left)
		return true;
	/* both sides fit the range; they must also fit each other */
	prev_anon = vmg->prev->anon_vma_id;
	next_anon = vmg->next->anon_vma_id;
	return !prev_anon || !next_anon || prev_anon == next_anon;
}

/*
 * dup_anon_vma(): the expanding @dst covers pages @src had faulted,
 * so it takes @src's anon state if it has none, and with it @src's
 * anonymous offsets (@dst has no anonymous page to keep in place).
 */
static int dup_anon_vma(struct vm_area_struct *dst, struct vm_area_struct *src)
{
	unsigned long anon_pgoff = vma_anon_pgoff(dst);
	int err;

	if (!src->anon_vma_id || dst->anon_vma_id)
		return 0;
	dst->anon_vma = src->anon_vma;
	vma_set_anon_pgoff(dst, anon_pgoff_like(src, dst->vm_pgoff));
	err = clone_anon(dst, src);
	if (err) {
		dst->anon_vma = NULL;
		vma_set_anon_pgoff(dst, anon_pgoff);
		return err;
	}
	dst->anon_vma_id = src->anon_vma_id;
	return 0;
}

/* Did a test ask for this merge to be refused (a deliberately wrong layout)? */
static bool skip_this_merge(struct model *m)
{
	if (m->skip_merge_nth <= 0)
		return false;
	return --m->skip_merge_nth == 0;
}

/*
 * vma_expand(): grow vmg->target to [start, end), swallowing
 * vmg->next when the range reaches its end. Pages copied in by mremap
 * bring their anon state along: the target takes the source's when it
 * has none (the 2026 fix for merging a faulted copy into an unfaulted
 * neighbour, in 6.18 stable).
 */
static int vma_expand(struct vma_merge_struct *vmg)
{
	struct vm_area_struct *target = vmg->target, *next = vmg->next;
	bool remove_next = next && next != target && vmg->end == next->vm_end;
	int err = 0;

	if (remove_next)
		err = dup_anon_vma(target, next);
	if (!err && vmg->copied_from)
		err = dup_anon_vma(target, vmg->copied_from);
	if (err)
		return err;
	if (remove_next)
		remove_vma(next);
	vma_set_range(target, vmg->start, vmg->end, vmg->pgoff);
	return 0;
}

/*
 * vma_merge_new_range(): a new range [start, end) (mmap, the mremap
 * copy, mremap growing in place) joins prev and/or next if it can.
 * Returns the VMA that now covers it, or NULL (vmg->nomem on ENOMEM).
 */
struct vm_area_struct *vma_merge_new_range(struct vma_merge_struct *vmg)
{
	unsigned long pglen = PHYS_PFN(vmg->end - vmg->start);
	bool left, right;

	if (!vmg->prev && !vmg->next)
		return NULL;
	left = can_vma_merge_left(vmg);
	right = !vmg->just_expand && can_vma_merge_right(vmg, left);
	if ((!left && !right) || skip_this_merge(vmg->mm->model))
		return NULL;
	if (right) {
		vmg->target = vmg->next;
		vmg->end = vmg->next->vm_end;
		vmg->pgoff = vmg->next->vm_pgoff - pglen;
	}
	if (left) {
		vmg->target = vmg->prev;
		vmg->start = vmg->prev->vm_start;
		vmg->pgoff = vmg->prev->vm_pgoff;
	}
	if (vma_expand(vmg)) {
		vmg->nomem = true;
		return NULL;
	}
	return vmg->target;
}

/*
 * The plan of an existing-range merge: which VMA survives with which
 * range, which VMAs go, and which neighbour has its edge moved.
 */
struct merge_plan {
	struct vm_area_struct *survivor;	/* gets [start, end) at pgoff */
	unsigned long start, end, pgoff;
	struct vm_area_struct *gone[2];		/* swallowed VMAs */
	struct vm_area_struct *moved;		/* a VMA whose start moves */
	long moved_by;				/* bytes; < 0: downwards */
	struct vm_area_struct *returned;	/* what the caller gets */
};

/*
 * vma_merge_existing_range(): [start, end) of vmg->middle is changing
 * to vmg->flags; merge it into prev and/or next where they match.
 * Pictured with the changing range as ====:
 *
 *	prev|====|next	both neighbours match: prev spans all three
 *	prev|====--	prev matches: prev grows to the range's end, the
 *			middle keeps what is left of it (or goes)
 *	--====|next	next matches: next grows down to the range's start,
 *			the middle keeps what is left (or goes)
 */
static struct vm_area_struct *
vma_merge_existing_range(struct vma_merge_struct *vmg)
{
	struct vm_area_struct *mid = vmg->middle, *prev = vmg->prev;
	struct vm_area_struct *next = NULL;
	bool at_start = vmg->start == mid->vm_start;
	bool at_end = vmg->end == mid->vm_end;
	bool into_prev, into_next, whole = at_start && at_end;
	struct merge_plan plan = { 0 };
	int i, err;

	if (!at_start && !at_end)
		return NULL;
	into_prev = at_start && can_vma_merge_left(vmg);
	into_next = false;
	if (at_end) {
		next = vmg->next = vma_next(mid);
		into_next = can_vma_merge_right(vmg, into_prev);
	}
	if ((!into_prev && !into_next) || skip_this_merge(vmg->mm->model))
		return NULL;

	if (into_prev) {
		plan.survivor = plan.returned = prev;
		plan.start = prev->vm_start;
		plan.pgoff = prev->vm_pgoff;
		plan.end = into_next ? next->vm_end : vmg->end;
		if (whole)
			plan.gone[0] = mid;
		else {
			plan.moved = mid;
			plan.moved_by = (long)(vmg->end - mid->vm_start);
		}
		if (into_next)
			plan.gone[1] = next;
		/* prev imports the anon state of what it swallows */
		err = dup_anon_vma(prev,
				   into_next && next->anon_vma_id ? next : mid);
	} else if (whole) {
		plan.survivor = plan.returned = next;
		plan.start = vmg->start;
		plan.end = next->vm_end;
		plan.pgoff = next->vm_pgoff - PHYS_PFN(vmg->end - vmg->start);
		plan.gone[0] = mid;
		err = dup_anon_vma(next, mid);
	} else {
		/* the middle keeps its head; next's start moves down */
		plan.survivor = mid;
		plan.returned = next;
		plan.start = mid->vm_start;
		plan.end = vmg->start;
		plan.pgoff = mid->vm_pgoff;
		plan.moved = next;
		plan.moved_by = -(long)(mid->vm_end - vmg->start);
		err = dup_anon_vma(next, mid);
	}
	if (err) {
		vmg->nomem = true;
		return NULL;
	}

	/* swallowed VMAs leave first, so ranges never overlap in the tree */
	for (i = 0; i < 2; i++)
		if (plan.gone[i])
			remove_vma(plan.gone[i]);
	/*
	 * commit_merge(): one vma_prepare()/vma_complete() for the survivor
	 * and the neighbour whose edge moves (its adj_next), so a backend
	 * locks once for both, as Linux does.
	 */
	vma_start_write(plan.survivor);
	if (plan.moved)
		vma_start_write(plan.moved);
	rmap_vma_prepare(plan.survivor, plan.moved);
	set_range(plan.survivor, plan.start, plan.end, plan.pgoff);
	if (plan.moved)
		set_range(plan.moved, plan.moved->vm_start + plan.moved_by,
			  plan.moved->vm_end,
			  plan.moved->vm_pgoff + plan.moved_by / (long)PAGE_SIZE);
	rmap_vma_complete(plan.survivor, plan.moved);
	return plan.returned;
}

struct vm_area_struct *vma_modify_flags(struct vm_area_struct *prev,
					struct vm_area_struct *vma,
					unsigned long start, unsigned long end,
					unsigned long new_flags, int *errp)
{
	struct vma_merge_struct vmg = {
		.mm = vma->vm_mm,
		.prev = prev,
		.middle = vma,
		.start = start,
		.end = end,
		.pgoff = vma->vm_pgoff + ((start - vma->vm_start) >> PAGE_SHIFT),
		.flags = new_flags,
		.file = vma->vm_file,
		.anon_vma_id = vma->anon_vma_id,
	};
	struct vm_area_struct *merged;
	int err;

	*errp = 0;
	merged = vma_merge_existing_range(&vmg);
	if (merged)
		return merged;
	if (vmg.nomem) {
		*errp = -ENOMEM;
		return NULL;
	}
	if (vma->vm_start < start) {
		err = split_vma(vma, start, 1);
		if (err) {
			*errp = err;
			return NULL;
		}
	}
	if (vma->vm_end > end) {
		err = split_vma(vma, end, 0);
		if (err) {
			*errp = err;
			return NULL;
		}
	}
	return vma;
}
