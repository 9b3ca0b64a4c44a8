// SPDX-License-Identifier: GPL-2.0
/*
 * The VMA tree: a sorted array standing in for the maple tree. What
 * matters to reverse mapping is ordered lookup and iteration, which
 * this gives in O(log n) and O(1) per step, deterministically.
 */
#include <errno.h>
#include <string.h>

#include <cowctx/mm.h>
#include "mm/internal.h"

unsigned long vma_tree_index(struct mm_struct *mm, unsigned long addr)
{
	unsigned long lo = 0, hi = mm->mm_mt.nr;

	/* first VMA with vm_end > addr */
	while (lo < hi) {
		unsigned long mid = lo + (hi - lo) / 2;

		if (mm->mm_mt.vmas[mid]->vm_end > addr)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

struct vm_area_struct *find_vma(struct mm_struct *mm, unsigned long addr)
{
	unsigned long i = vma_tree_index(mm, addr);

	return i < mm->mm_mt.nr ? mm->mm_mt.vmas[i] : NULL;
}

struct vm_area_struct *vma_lookup(struct mm_struct *mm, unsigned long addr)
{
	struct vm_area_struct *vma = find_vma(mm, addr);

	return vma && vma->vm_start <= addr ? vma : NULL;
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

	if (i < mm->mm_mt.nr && mm->mm_mt.vmas[i]->vm_start < addr)
		return mm->mm_mt.vmas[i];
	return i > 0 ? mm->mm_mt.vmas[i - 1] : NULL;
}

/* Make room for one more VMA; done before anything changes. */
int vma_tree_reserve(struct mm_struct *mm, unsigned long extra)
{
	struct vma_tree *mt = &mm->mm_mt;
	struct vm_area_struct **vmas;
	unsigned long cap;

	if (mt->nr + extra <= mt->capacity)
		return 0;
	cap = mt->capacity ? mt->capacity * 2 : 16;
	while (cap < mt->nr + extra)
		cap *= 2;
	vmas = model_realloc(mt->vmas, cap * sizeof(*vmas));
	if (!vmas)
		return -ENOMEM;
	mt->vmas = vmas;
	mt->capacity = cap;
	return 0;
}

/* Insert; the caller reserved room and checked for overlap. */
void vma_tree_insert(struct mm_struct *mm, struct vm_area_struct *vma)
{
	struct vma_tree *mt = &mm->mm_mt;
	unsigned long i = vma_tree_index(mm, vma->vm_start);

	if (mt->nr >= mt->capacity)
		model_bug("vma_tree_insert without reserve");
	if (i < mt->nr && mt->vmas[i]->vm_start < vma->vm_end)
		model_bug("vma_tree_insert of an overlapping VMA");
	memmove(&mt->vmas[i + 1], &mt->vmas[i],
		(mt->nr - i) * sizeof(*mt->vmas));
	mt->vmas[i] = vma;
	mt->nr++;
	mm->map_count++;
}

void vma_tree_remove(struct mm_struct *mm, struct vm_area_struct *vma)
{
	struct vma_tree *mt = &mm->mm_mt;
	unsigned long i = vma_tree_index(mm, vma->vm_start);

	if (i >= mt->nr || mt->vmas[i] != vma)
		model_bug("vma_tree_remove of a VMA not in the tree");
	memmove(&mt->vmas[i], &mt->vmas[i + 1],
		(mt->nr - i - 1) * sizeof(*mt->vmas));
	mt->nr--;
	mm->map_count--;
}

