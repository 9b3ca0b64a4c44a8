// SPDX-License-Identifier: GPL-2.0
/*
 * The VMA tree: a sorted array standing in for the maple tree. What
 * matters to reverse mapping is ordered lookup and iteration, which
 * this gives in O(log n) and O(1) per step, deterministically.
 *
 * Every VMA's range is kept in the tree beside its pointer, as the
 * maple tree keeps pivots in its nodes: a walk's vma_lookup() then
 * compares keys in two dense arrays and touches no VMA, instead of
 * one dependent load through a VMA at every step of the search. So
 * the keys must be exact at all times: the tree's own insert and
 * remove write them, and every change to a linked VMA's range goes
 * through vma_tree_set_range(). With vma_tree_debug set (the unit
 * tests set it), every change checks every key against its VMA.
 */
#include <errno.h>
#include <string.h>

#include <cowctx/mm.h>
#include "mm/internal.h"

bool vma_tree_debug;

/*
 * The first VMA with vm_end > @addr, or nr. A plain branch per step,
 * not a mask: walks look up nearby addresses one after another, so
 * the branches predict and the CPU loads the next keys ahead, where a
 * branch-free search waits for each key before the next address
 * (callgrind: 4% fewer instructions in the COW context's walk).
 */
static inline unsigned long tree_index(const struct vma_tree *mt,
				       unsigned long addr)
{
	const unsigned long *ends = mt->ends, *base = ends;
	unsigned long len = mt->nr;

	if (!len)
		return 0;
	while (len > 1) {
		unsigned long half = len / 2;

		if (base[half - 1] <= addr)
			base += half;
		len -= half;
	}
	return (base - ends) + (*base <= addr);
}

unsigned long vma_tree_index(struct mm_struct *mm, unsigned long addr)
{
	return tree_index(&mm->mm_mt, addr);
}

struct vm_area_struct *find_vma(struct mm_struct *mm, unsigned long addr)
{
	unsigned long i = vma_tree_index(mm, addr);

	return i < mm->mm_mt.nr ? mm->mm_mt.vmas[i] : NULL;
}

/* Keys only: the VMA returned is the first one the lookup touches */
struct vm_area_struct *vma_lookup(struct mm_struct *mm, unsigned long addr)
{
	const struct vma_tree *mt = &mm->mm_mt;
	unsigned long i = tree_index(mt, addr);

	return i < mt->nr && mt->starts[i] <= addr ? mt->vmas[i] : NULL;
}

struct vm_area_struct *vma_prev(struct vm_area_struct *vma)
{
	struct mm_struct *mm = vma->vm_mm;
	unsigned long i = vma_tree_index(mm, vma->vm_start);

	return i > 0 ? mm->mm_mt.vmas[i - 1] : NULL;
}

struct vm_area_struct *vma_next(struct vm_area_struct *vma)
{
	struct mm_struct *mm = vma->vm_mm;
	unsigned long i = vma_tree_index(mm, vma->vm_start);

	return i + 1 < mm->mm_mt.nr ? mm->mm_mt.vmas[i + 1] : NULL;
}

/* The last VMA starting below @addr, whether or not it contains it */
struct vm_area_struct *vma_prev_of(struct mm_struct *mm, unsigned long addr)
{
	unsigned long i = vma_tree_index(mm, addr);

	if (i < mm->mm_mt.nr && mm->mm_mt.starts[i] < addr)
		return mm->mm_mt.vmas[i];
	return i > 0 ? mm->mm_mt.vmas[i - 1] : NULL;
}

/*
 * Every slot's key against its VMA. Inside a change, one edge may have
 * moved before its neighbour's (a merge grows the survivor, then moves
 * the neighbour's start), so ranges may overlap there for a moment:
 * @strict, at the end of an mmap_lock writer, also wants no overlap.
 */
void vma_tree_validate(struct mm_struct *mm, bool strict)
{
	const struct vma_tree *mt = &mm->mm_mt;
	unsigned long i;

	for (i = 0; i < mt->nr; i++) {
		const struct vm_area_struct *vma = mt->vmas[i];

		if (vma->vm_mm != mm || mt->starts[i] != vma->vm_start ||
		    mt->ends[i] != vma->vm_end)
			model_bug("mm %lu: VMA tree slot %lu holds [%#lx, %#lx), its VMA %lu is [%#lx, %#lx)",
				  mm->id, i, mt->starts[i], mt->ends[i],
				  vma->id, vma->vm_start, vma->vm_end);
		if (vma->vm_start >= vma->vm_end)
			model_bug("mm %lu: empty VMA %lu in the tree", mm->id,
				  vma->id);
		if (!i)
			continue;
		if (mt->starts[i - 1] >= mt->starts[i] ||
		    mt->ends[i - 1] >= mt->ends[i] ||
		    (strict && mt->ends[i - 1] > mt->starts[i]))
			model_bug("mm %lu: VMA tree slots %lu and %lu out of order: [%#lx, %#lx) [%#lx, %#lx)",
				  mm->id, i - 1, i, mt->starts[i - 1],
				  mt->ends[i - 1], mt->starts[i], mt->ends[i]);
	}
	if ((unsigned long)mm->map_count != mt->nr)
		model_bug("mm %lu: map_count %d, %lu VMAs in the tree",
			  mm->id, mm->map_count, mt->nr);
}

static void debug_check(struct mm_struct *mm)
{
	if (vma_tree_debug)
		vma_tree_validate(mm, false);
}

/*
 * Make room for @extra more VMAs; done before anything changes. An
 * array grown before a later one fails is only room: nothing changed.
 */
int vma_tree_reserve(struct mm_struct *mm, unsigned long extra)
{
	struct vma_tree *mt = &mm->mm_mt;
	struct vm_area_struct **vmas;
	unsigned long cap, *keys;

	if (mt->nr + extra <= mt->capacity)
		return 0;
	cap = mt->capacity ? mt->capacity * 2 : 16;
	while (cap < mt->nr + extra)
		cap *= 2;
	vmas = model_realloc(mt->vmas, cap * sizeof(*vmas));
	if (!vmas)
		return -ENOMEM;
	mt->vmas = vmas;
	keys = model_realloc(mt->ends, cap * sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	mt->ends = keys;
	keys = model_realloc(mt->starts, cap * sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	mt->starts = keys;
	mt->capacity = cap;
	return 0;
}

/* The tree's memory, once every VMA is gone (exit) */
void vma_tree_destroy(struct mm_struct *mm)
{
	struct vma_tree *mt = &mm->mm_mt;

	if (mt->nr)
		model_bug("mm %lu: VMA tree freed with %lu VMAs", mm->id,
			  mt->nr);
	model_free(mt->vmas);
	model_free(mt->ends);
	model_free(mt->starts);
	memset(mt, 0, sizeof(*mt));
}

/* Insert; the caller reserved room and checked for overlap. */
void vma_tree_insert(struct mm_struct *mm, struct vm_area_struct *vma)
{
	struct vma_tree *mt = &mm->mm_mt;
	unsigned long i = vma_tree_index(mm, vma->vm_start);

	if (mt->nr >= mt->capacity)
		model_bug("vma_tree_insert without reserve");
	if (i < mt->nr && mt->starts[i] < vma->vm_end)
		model_bug("vma_tree_insert of an overlapping VMA");
	memmove(&mt->vmas[i + 1], &mt->vmas[i],
		(mt->nr - i) * sizeof(*mt->vmas));
	memmove(&mt->ends[i + 1], &mt->ends[i],
		(mt->nr - i) * sizeof(*mt->ends));
	memmove(&mt->starts[i + 1], &mt->starts[i],
		(mt->nr - i) * sizeof(*mt->starts));
	mt->vmas[i] = vma;
	mt->ends[i] = vma->vm_end;
	mt->starts[i] = vma->vm_start;
	mt->nr++;
	mm->map_count++;
	debug_check(mm);
}

void vma_tree_remove(struct mm_struct *mm, struct vm_area_struct *vma)
{
	struct vma_tree *mt = &mm->mm_mt;
	unsigned long i = vma_tree_index(mm, vma->vm_start);

	if (i >= mt->nr || mt->vmas[i] != vma)
		model_bug("vma_tree_remove of a VMA not in the tree");
	memmove(&mt->vmas[i], &mt->vmas[i + 1],
		(mt->nr - i - 1) * sizeof(*mt->vmas));
	memmove(&mt->ends[i], &mt->ends[i + 1],
		(mt->nr - i - 1) * sizeof(*mt->ends));
	memmove(&mt->starts[i], &mt->starts[i + 1],
		(mt->nr - i - 1) * sizeof(*mt->starts));
	mt->nr--;
	mm->map_count--;
	debug_check(mm);
}

/*
 * A linked VMA's range changes (vma_store() in the maple tree): the VMA
 * and its keys together. Its slot is found by its end, not its start:
 * a merge that moves two edges grows the survivor first, which may
 * then overlap the head of the neighbour whose start moves next, but
 * never reaches its end.
 */
void vma_tree_set_range(struct vm_area_struct *vma, unsigned long start,
			unsigned long end)
{
	struct mm_struct *mm = vma->vm_mm;
	struct vma_tree *mt = &mm->mm_mt;
	unsigned long i = vma_tree_index(mm, vma->vm_end - 1);

	if (i >= mt->nr || mt->vmas[i] != vma)
		model_bug("vma_tree_set_range of a VMA not in the tree");
	if (start >= end)
		model_bug("vma_tree_set_range to an empty range");
	vma->vm_start = start;
	vma->vm_end = end;
	mt->starts[i] = start;
	mt->ends[i] = end;
	debug_check(mm);
}

