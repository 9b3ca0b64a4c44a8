// SPDX-License-Identifier: GPL-2.0
/* madvise (Linux mm/madvise.c): the advice the scenario language has. */
#include <errno.h>

#include <cowctx/mm.h>
#include "mm/internal.h"

/* madvise_update_vma(): a flag change, merging or splitting as needed */
static int update_flags(struct vm_area_struct *vma,
			struct vm_area_struct **prev, unsigned long start,
			unsigned long end, unsigned long new_flags)
{
	int err;

	if (new_flags == vma->vm_flags) {
		*prev = vma;
		return 0;
	}
	vma = vma_modify_flags(*prev, vma, start, end, new_flags, &err);
	if (!vma)
		return err;
	*prev = vma;
	vma_start_write(vma);
	vma->vm_flags = new_flags;
	return 0;
}

static int madvise_vma(struct vm_area_struct *vma,
		       struct vm_area_struct **prev, unsigned long start,
		       unsigned long end, int advice)
{
	unsigned long flags = vma->vm_flags;

	if (!vma_may_discard(vma, advice))
		return -EPERM;
	switch (advice) {
	case MADV_DONTNEED:
		*prev = vma;
		zap_page_range(vma, start, end);
		return 0;
	case MADV_FREE:
		/*
		 * madvise_free_single_vma(): private anonymous memory only.
		 * The folios stay mapped (lazily freed by reclaim, which the
		 * model has not), so the rmap sees no change.
		 */
		if (!vma_is_anonymous(vma))
			return -EINVAL;
		*prev = vma;
		return 0;
	case MADV_DONTFORK:
		flags |= VM_DONTCOPY;
		break;
	case MADV_DOFORK:
		flags &= ~VM_DONTCOPY;
		break;
	case MADV_WIPEONFORK:
		/* only private anonymous memory can be wiped */
		if (vma->vm_file || (vma->vm_flags & VM_SHARED))
			return -EINVAL;
		flags |= VM_WIPEONFORK;
		break;
	case MADV_KEEPONFORK:
		flags &= ~VM_WIPEONFORK;
		break;
	/*
	 * The read-ahead hints and the THP and KSM advice change only
	 * vm_flags, but that is enough to split a VMA and to refuse a
	 * merge or a neighbour's anon_vma (madvise_vma_behavior()).
	 */
	case MADV_NORMAL:
		flags &= ~(VM_RAND_READ | VM_SEQ_READ);
		break;
	case MADV_RANDOM:
		flags = (flags & ~VM_SEQ_READ) | VM_RAND_READ;
		break;
	case MADV_SEQUENTIAL:
		flags = (flags & ~VM_RAND_READ) | VM_SEQ_READ;
		break;
	case MADV_HUGEPAGE:	/* hugepage_madvise() */
		flags = (flags & ~VM_NOHUGEPAGE) | VM_HUGEPAGE;
		break;
	case MADV_NOHUGEPAGE:
		flags = (flags & ~VM_HUGEPAGE) | VM_NOHUGEPAGE;
		break;
	case MADV_MERGEABLE:
		/* ksm_madvise(): shared memory ignores it (no error) */
		if (!(flags & (VM_SHARED | VM_MAYSHARE | VM_DONTEXPAND)))
			flags |= VM_MERGEABLE;
		break;
	case MADV_UNMERGEABLE:
		/* nothing here was merged: ksmd never ran on the model */
		flags &= ~VM_MERGEABLE;
		break;
	default:
		return -EINVAL;
	}
	return update_flags(vma, prev, start, end, flags);
}

static bool advice_valid(int advice)
{
	switch (advice) {
	case MADV_DONTNEED:
	case MADV_FREE:
	case MADV_DONTFORK:
	case MADV_DOFORK:
	case MADV_WIPEONFORK:
	case MADV_KEEPONFORK:
	case MADV_NORMAL:
	case MADV_RANDOM:
	case MADV_SEQUENTIAL:
	case MADV_HUGEPAGE:
	case MADV_NOHUGEPAGE:
	case MADV_MERGEABLE:
	case MADV_UNMERGEABLE:
		return true;
	}
	return false;
}

/*
 * madvise_walk_vmas(): the advice applies to every VMA in the range;
 * holes make the call fail with ENOMEM, after the rest was advised.
 */
int do_madvise(struct mm_struct *mm, unsigned long start, unsigned long len,
	       int advice)
{
	struct vm_area_struct *vma, *prev;
	int unmapped_error = 0, err = 0;
	unsigned long end, tmp;

	if (!advice_valid(advice))
		return -EINVAL;
	if (start & ~PAGE_MASK)
		return -EINVAL;
	tmp = (len + PAGE_SIZE - 1) & PAGE_MASK;
	if (len && !tmp)
		return -EINVAL;
	end = start + tmp;
	if (end < start)
		return -EINVAL;
	if (end == start)
		return 0;

	set_current_mm(mm);
	/* DONTNEED and FREE only read the VMA tree; the rest change VMAs */
	if (advice == MADV_DONTNEED || advice == MADV_FREE)
		down_read(&mm->mmap_lock);
	else
		mmap_write_lock(mm);
	vma = find_vma(mm, start);
	prev = vma ? vma_prev(vma) : NULL;
	if (vma && start > vma->vm_start)
		prev = vma;
	for (;;) {
		if (!vma) {
			err = -ENOMEM;
			break;
		}
		if (start < vma->vm_start) {
			unmapped_error = -ENOMEM;
			start = vma->vm_start;
			if (start >= end)
				break;
		}
		tmp = vma->vm_end < end ? vma->vm_end : end;
		err = madvise_vma(vma, &prev, start, tmp, advice);
		if (err)
			break;
		start = tmp;
		if (prev && start < prev->vm_end)
			start = prev->vm_end;
		if (start >= end)
			break;
		vma = find_vma(mm, prev ? prev->vm_end : start);
	}
	if (advice == MADV_DONTNEED || advice == MADV_FREE)
		up_read(&mm->mmap_lock);
	else
		mmap_write_unlock(mm);
	return err ? err : unmapped_error;
}
