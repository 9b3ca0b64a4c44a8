// SPDX-License-Identifier: GPL-2.0
/* The mmap_lock and the per-VMA lock: see <cowctx/mmap_lock.h>. */
#include <cowctx/mm.h>
#include "mm/internal.h"

bool vma_start_read(struct vm_area_struct *vma)
{
	if (vma_is_write_locked(vma))
		return false;
	vma->vm_lock_readers++;
	return true;
}

void vma_end_read(struct vm_area_struct *vma)
{
	if (!vma->vm_lock_readers)
		model_bug("vma_end_read of VMA [%#lx, %#lx) not read-locked",
			  vma->vm_start, vma->vm_end);
	vma->vm_lock_readers--;
}

void vma_start_write(struct vm_area_struct *vma)
{
	if (vma->vm_lock_readers)
		model_bug("vma_start_write of VMA [%#lx, %#lx) while a walk reads it (deadlock)",
			  vma->vm_start, vma->vm_end);
	vma->vm_lock_seq = vma->vm_mm->mm_lock_seq + 1;
}

void mmap_write_lock(struct mm_struct *mm)
{
	down_write(&mm->mmap_lock);
}

void mmap_write_unlock(struct mm_struct *mm)
{
	/* every change the writer made is complete: no overlap either */
	if (vma_tree_debug)
		vma_tree_validate(mm, true);
	mm->mm_lock_seq++;
	up_write(&mm->mmap_lock);
}
