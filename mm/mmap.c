// SPDX-License-Identifier: GPL-2.0
/* mmap and munmap (Linux mm/mmap.c, mm/vma.c's munmap half). */
#include <errno.h>

#include <cowctx/mm.h>
#include "mm/internal.h"


/* the largest regular file on 64-bit: LLONG_MAX bytes */
#define MAX_LFS_FILESIZE	0x7fffffffffffffffUL

bool range_in_user_space(unsigned long addr, unsigned long len)
{
	return len <= TASK_SIZE && addr <= TASK_SIZE - len;
}

/* accountable_mapping(): private writable memory is charged */
static bool accountable_mapping(unsigned long vm_flags)
{
	return (vm_flags & (VM_SHARED | VM_WRITE)) == VM_WRITE;
}

static bool range_has_vma(struct mm_struct *mm, unsigned long start,
			  unsigned long end)
{
	struct vm_area_struct *vma = find_vma(mm, start);

	return vma && vma->vm_start < end;
}

int do_mmap(struct mm_struct *mm, unsigned long addr, unsigned long len,
	    int prot, struct file *file, unsigned long offset)
{
	struct vma_merge_struct vmg = { .mm = mm };
	struct vm_area_struct *vma;
	unsigned long vm_flags, pgoff;
	int err = 0;

	set_current_mm(mm);
	/* the order of Linux's checks decides which error is seen */
	if (offset & ~PAGE_MASK)
		return -EINVAL;
	if (!len)
		return -EINVAL;
	len = (len + PAGE_SIZE - 1) & PAGE_MASK;
	if (!len)
		return -ENOMEM;
	pgoff = file ? offset >> PAGE_SHIFT : addr >> PAGE_SHIFT;
	if (pgoff + (len >> PAGE_SHIFT) < pgoff)
		return -EOVERFLOW;
	if (mm->map_count > MAX_MAP_COUNT)
		return -ENOMEM;
	if (len > TASK_SIZE || addr > TASK_SIZE - len)
		return -ENOMEM;
	if (addr & ~PAGE_MASK)
		return -EINVAL;

	mmap_write_lock(mm);
	if (range_has_vma(mm, addr, addr + len)) {
		err = -EEXIST;	/* MAP_FIXED_NOREPLACE */
		goto out;
	}
	/* file_mmap_ok(): the mapping must end within MAX_LFS_FILESIZE */
	if (file && pgoff > (MAX_LFS_FILESIZE - len) >> PAGE_SHIFT) {
		err = -EOVERFLOW;
		goto out;
	}
	vm_flags = calc_vm_prot_bits(prot) | VM_MAYREAD | VM_MAYWRITE |
		   VM_MAYEXEC;
	if (accountable_mapping(vm_flags))
		vm_flags |= VM_ACCOUNT;

	vmg.prev = vma_prev_of(mm, addr);
	vmg.next = find_vma(mm, addr);
	vmg.start = addr;
	vmg.end = addr + len;
	vmg.pgoff = pgoff;
	vmg.flags = vm_flags;
	vmg.file = file;
	if (vma_merge_new_range(&vmg))
		goto out;
	if (vmg.nomem || vma_tree_reserve(mm, 1)) {
		err = -ENOMEM;
		goto out;
	}
	vma = vm_area_alloc(mm);
	if (!vma) {
		err = -ENOMEM;
		goto out;
	}
	vma->vm_start = addr;
	vma->vm_end = addr + len;
	vma->vm_pgoff = pgoff;
	vma->vm_anon_pgoff = addr >> PAGE_SHIFT;
	vma->vm_flags = vm_flags;
	vma->vm_file = file;
	vma_link(mm, vma);
out:
	if (!err)
		mm->total_vm += len >> PAGE_SHIFT;
	mmap_write_unlock(mm);
	return err;
}

/*
 * do_vmi_munmap() with the mmap_lock held: split the VMAs at the
 * edges, zap, free the page tables the hole leaves unused, remove.
 */
int do_vmi_munmap(struct mm_struct *mm, unsigned long start,
		  unsigned long len)
{
	unsigned long end, floor, ceiling, i;
	struct vm_area_struct *vma, *prev, *next;
	int err;

	if ((start & ~PAGE_MASK) || start > TASK_SIZE || len > TASK_SIZE - start)
		return -EINVAL;
	len = (len + PAGE_SIZE - 1) & PAGE_MASK;
	if (!len)
		return -EINVAL;
	end = start + len;

	vma = find_vma(mm, start);
	if (!vma || vma->vm_start >= end)
		return 0;
	if (start > vma->vm_start) {
		/* a split into three must fit under the map count limit */
		if (end < vma->vm_end && mm->map_count >= MAX_MAP_COUNT)
			return -ENOMEM;
		err = split_vma(vma, start, 1);
		if (err)
			return err;
	}
	/* the last VMA in the range may need its tail split off */
	next = find_vma(mm, end - 1);
	if (next && next->vm_start < end && next->vm_end > end) {
		err = split_vma(next, end, 0);
		if (err)
			return err;
	}

	i = vma_tree_index(mm, start);
	prev = i ? mm->mm_mt.vmas[i - 1] : NULL;
	while (i < mm->mm_mt.nr && mm->mm_mt.vmas[i]->vm_start < end) {
		vma = mm->mm_mt.vmas[i];
		zap_page_range(vma, vma->vm_start, vma->vm_end);
		mm->total_vm -= vma_pages(vma);
		remove_vma(vma);
	}
	next = i < mm->mm_mt.nr ? mm->mm_mt.vmas[i] : NULL;
	floor = prev ? prev->vm_end : 0;
	ceiling = next ? next->vm_start : 0;
	free_pgd_range(mm, floor, ceiling);
	return 0;
}

int do_munmap(struct mm_struct *mm, unsigned long addr, unsigned long len)
{
	int err;

	set_current_mm(mm);
	mmap_write_lock(mm);
	err = do_vmi_munmap(mm, addr, len);
	mmap_write_unlock(mm);
	return err;
}
