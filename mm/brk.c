// SPDX-License-Identifier: GPL-2.0
/*
 * brk() (Linux mm/mmap.c's brk syscall and do_brk_flags()) and the heap
 * and mmap base that exec sets: the heap is the one mapping whose
 * growth the kernel places itself, and it merges by its own rule.
 */
#include <errno.h>

#include <cowctx/mm.h>
#include "mm/internal.h"

void mm_exec_layout(struct mm_struct *mm, unsigned long brk,
		    unsigned long mmap_base)
{
	mm->start_brk = mm->brk = brk;
	mm->mmap_base = mmap_base;
}

/*
 * do_brk_flags(): [addr, addr + len) joins @brkvma when it ends there
 * and the merge rules allow (never after fork: the chain is no longer
 * singular), else it is a new anonymous VMA that merges with nothing.
 */
static int do_brk_flags(struct mm_struct *mm, struct vm_area_struct *brkvma,
			unsigned long addr, unsigned long len)
{
	unsigned long flags = VM_READ | VM_WRITE | VM_MAYREAD | VM_MAYWRITE |
			      VM_MAYEXEC | VM_ACCOUNT;
	struct vm_area_struct *vma;

	if (mm->map_count > mm_max_map_count(mm))
		return -ENOMEM;
	if (brkvma && brkvma->vm_end == addr) {
		struct vma_merge_struct vmg = {
			.mm = mm,
			.prev = brkvma,
			.start = addr,
			.end = addr + len,
			.pgoff = addr >> PAGE_SHIFT,
			.flags = flags,
			.just_expand = true,
		};

		if (vma_merge_new_range(&vmg))
			goto out;
		if (vmg.nomem)
			return -ENOMEM;
	}
	if (vma_tree_reserve(mm, 1))
		return -ENOMEM;
	vma = vm_area_alloc(mm);
	if (!vma)
		return -ENOMEM;
	vma->vm_start = addr;
	vma->vm_end = addr + len;
	vma->vm_pgoff = addr >> PAGE_SHIFT;
	vma_set_anon_pgoff(vma, anon_page_index(addr));
	vma->vm_flags = flags;
	vma_link(mm, vma);
out:
	mm->total_vm += len >> PAGE_SHIFT;
	return 0;
}

/* The brk syscall with the mmap_lock held; @brk is page aligned */
static int brk_locked(struct mm_struct *mm, unsigned long brk)
{
	unsigned long oldbrk = mm->brk, gap_end, i;
	struct vm_area_struct *next, *brkvma;

	if (brk < mm->start_brk)
		return -ENOMEM;
	if (brk == oldbrk)
		return 0;
	if (brk < oldbrk) {
		/* shrinking needs some VMA in [brk, oldbrk) to unmap */
		next = find_vma(mm, brk);
		if (!next || next->vm_start >= oldbrk)
			return -ENOMEM;
		if (do_vmi_munmap(mm, brk, oldbrk - brk))
			return -ENOMEM;
		mm->brk = brk;
		return 0;
	}
	/* check_brk_limits(): get_unmapped_area(MAP_FIXED)'s range check */
	if (!range_in_user_space(oldbrk, brk - oldbrk) ||
	    brk - oldbrk > TASK_SIZE - MMAP_MIN_ADDR)
		return -ENOMEM;
	/* the next mapping, with a stack's guard gap, is a page away */
	next = find_vma(mm, oldbrk);
	gap_end = brk + PAGE_SIZE + STACK_GUARD_GAP;
	if (next && next->vm_start < gap_end &&
	    brk + PAGE_SIZE > vm_start_gap(next))
		return -ENOMEM;
	/* vma_prev_limit(): the VMA below oldbrk, if it reaches the heap */
	i = vma_tree_index(mm, oldbrk);
	brkvma = i ? mm->mm_mt.vmas[i - 1] : NULL;
	if (brkvma && brkvma->vm_end <= mm->start_brk)
		brkvma = NULL;
	if (do_brk_flags(mm, brkvma, oldbrk, brk - oldbrk))
		return -ENOMEM;
	mm->brk = brk;
	return 0;
}

int do_brk(struct mm_struct *mm, unsigned long brk)
{
	int err;

	set_current_mm(mm);
	mmap_write_lock(mm);
	if (!mm->start_brk && !mm->brk) {
		/* no heap yet: the first break says where it starts */
		mm_exec_layout(mm, brk, mm->mmap_base);
		err = 0;
	} else {
		err = brk_locked(mm, brk);
	}
	mmap_write_unlock(mm);
	return err;
}
