// SPDX-License-Identifier: GPL-2.0
/*
 * mseal() (Linux mm/mseal.c): a range's VMAs are sealed for the rest of
 * the mm's life. Sealing is a vm_flags change like any other, so it
 * splits a VMA at the range's edges and keeps a sealed VMA from merging
 * with an unsealed neighbour; what it forbids is checked where Linux
 * checks it (can_modify_vma(): munmap, mmap over it, mremap, mprotect;
 * can_modify_vma_madv(): discarding advice on read-only anonymous
 * memory). Nothing unseals.
 */
#include <errno.h>

#include <cowctx/mm.h>
#include "mm/internal.h"

bool vma_may_discard(const struct vm_area_struct *vma, int advice)
{
	switch (advice) {
	case MADV_FREE:
	case MADV_DONTNEED:
	case MADV_DONTFORK:
	case MADV_WIPEONFORK:
		break;
	default:
		return true;
	}
	if (!vma_is_sealed(vma))
		return true;
	/* is_ro_anon(): only read-only private anonymous memory is kept */
	return vma->vm_file || (vma->vm_flags & VM_SHARED) ||
	       (vma->vm_flags & VM_WRITE);
}

bool range_has_sealed(struct mm_struct *mm, unsigned long start,
		      unsigned long end)
{
	struct vm_area_struct *vma;

	for (vma = find_vma(mm, start); vma && vma->vm_start < end;
	     vma = find_vma(mm, vma->vm_end))
		if (vma_is_sealed(vma))
			return true;
	return false;
}

/* check_mm_seal(): the whole range must be mapped */
static bool range_mapped(struct mm_struct *mm, unsigned long start,
			 unsigned long end)
{
	struct vm_area_struct *vma;
	unsigned long next = start;

	for (vma = find_vma(mm, start); vma; vma = find_vma(mm, vma->vm_end)) {
		if (vma->vm_start > next)
			return false;
		if (vma->vm_end >= end)
			return true;
		next = vma->vm_end;
	}
	return false;
}

/* apply_mm_seal(): each VMA in the range gets VM_SEALED */
static int apply_seal(struct mm_struct *mm, unsigned long start,
		      unsigned long end)
{
	struct vm_area_struct *vma = find_vma(mm, start), *prev;
	unsigned long nstart = start;
	int err;

	prev = vma_prev(vma);
	if (start > vma->vm_start)
		prev = vma;
	while (vma && vma->vm_start < end) {
		unsigned long tmp = vma->vm_end < end ? vma->vm_end : end;

		if (!vma_is_sealed(vma)) {
			vma = vma_modify_flags(prev, vma, nstart, tmp,
					       vma->vm_flags | VM_SEALED, &err);
			if (!vma)
				return err;
			vma_start_write(vma);
			vma->vm_flags |= VM_SEALED;
		}
		prev = vma;
		nstart = vma->vm_end;
		vma = find_vma(mm, nstart);
	}
	return 0;
}

int do_mseal(struct mm_struct *mm, unsigned long start, unsigned long len)
{
	unsigned long alen = (len + PAGE_SIZE - 1) & PAGE_MASK, end;
	int err;

	if (start & ~PAGE_MASK)
		return -EINVAL;
	/* a length that rounds up to 0, or a range past the top */
	if (len && !alen)
		return -EINVAL;
	end = start + alen;
	if (end < start)
		return -EINVAL;
	if (end == start)
		return 0;
	set_current_mm(mm);
	mmap_write_lock(mm);
	err = range_mapped(mm, start, end) ? apply_seal(mm, start, end) :
					    -ENOMEM;
	mmap_write_unlock(mm);
	return err;
}
