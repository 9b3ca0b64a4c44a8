// SPDX-License-Identifier: GPL-2.0
/* mmap and munmap (Linux mm/mmap.c, mm/vma.c's munmap half). */
#include <errno.h>

#include <cowctx/mm.h>
#include "mm/internal.h"

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

/* vm_start_gap(): a stack keeps the guard gap below it free */
unsigned long vm_start_gap(const struct vm_area_struct *vma)
{
	unsigned long start = vma->vm_start;

	if (!(vma->vm_flags & VM_GROWSDOWN))
		return start;
	return start > STACK_GUARD_GAP ? start - STACK_GUARD_GAP : 0;
}

/*
 * unmapped_area_topdown(): the highest free range of @len below
 * mm->mmap_base and above mmap_min_addr, keeping the guard gap below
 * stacks. 0 when there is none (the kernel would then try bottom-up
 * from TASK_UNMAPPED_BASE; the model refuses with ENOMEM instead).
 */
static unsigned long unmapped_area_topdown(struct mm_struct *mm,
					   unsigned long len)
{
	unsigned long high = mm->mmap_base, i = mm->mm_mt.nr;

	for (;;) {
		struct vm_area_struct *next = i < mm->mm_mt.nr ?
					      mm->mm_mt.vmas[i] : NULL;
		struct vm_area_struct *prev = i ? mm->mm_mt.vmas[i - 1] : NULL;
		unsigned long end = next && vm_start_gap(next) < high ?
				    vm_start_gap(next) : high;
		unsigned long start = prev && prev->vm_end > MMAP_MIN_ADDR ?
				      prev->vm_end : MMAP_MIN_ADDR;

		if (end > start && end - start >= len)
			return end - len;
		if (!i--)
			return 0;
	}
}

/* A new shmem file for a MAP_SHARED|MAP_ANONYMOUS VMA, or -ENOMEM */
static int shmem_zero_setup(struct vm_area_struct *vma)
{
	struct file *file = model_shmem_file(vma->vm_mm->model);

	if (!file)
		return -ENOMEM;
	/* the object keeps the size it was created with */
	file->size_pages = vma_pages(vma);
	vma->vm_file = file;
	return 0;
}

/* __mmap_region(): the new range replaces whatever is there */
static int mmap_region(struct mm_struct *mm, unsigned long addr,
		       unsigned long len, unsigned long vm_flags,
		       struct file *file, unsigned long pgoff)
{
	struct vma_merge_struct vmg = { .mm = mm };
	struct vm_area_struct *vma;
	int err;

	/* MAP_FIXED: what was there goes, as munmap() would take it */
	err = do_vmi_munmap(mm, addr, len);
	if (err)
		return err;
	vmg.prev = vma_prev_of(mm, addr);
	vmg.next = find_vma(mm, addr);
	vmg.start = addr;
	vmg.end = addr + len;
	vmg.pgoff = pgoff;
	vmg.flags = vm_flags;
	vmg.file = file;
	/* a shared anonymous range gets its file only after this try */
	if (vma_merge_new_range(&vmg))
		goto out;
	if (vmg.nomem || vma_tree_reserve(mm, 1))
		return -ENOMEM;
	vma = vm_area_alloc(mm);
	if (!vma)
		return -ENOMEM;
	vma->vm_start = addr;
	vma->vm_end = addr + len;
	vma->vm_pgoff = pgoff;
	vma_set_anon_pgoff(vma, anon_page_index(addr));
	vma->vm_flags = vm_flags;
	vma->vm_file = file;
	if (!file && (vm_flags & VM_SHARED)) {
		err = shmem_zero_setup(vma);
		if (err) {
			vm_area_free(vma);
			return err;
		}
	}
	vma_link(mm, vma);
out:
	mm->total_vm += len >> PAGE_SHIFT;
	return 0;
}

int do_mmap_flags(struct mm_struct *mm, unsigned long addr,
		  unsigned long len, int prot, unsigned int flags,
		  struct file *file, unsigned long offset,
		  unsigned long *addrp)
{
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
	if (mm->map_count > mm_max_map_count(mm))
		return -ENOMEM;

	mmap_write_lock(mm);
	if (flags & MM_MAP_ANY) {
		/* get_unmapped_area(): no hint, top-down */
		addr = len <= TASK_SIZE ? unmapped_area_topdown(mm, len) : 0;
		if (!addr) {
			err = -ENOMEM;
			goto out;
		}
		if (!file)
			pgoff = addr >> PAGE_SHIFT;
	} else {
		if (len > TASK_SIZE || addr > TASK_SIZE - len) {
			err = -ENOMEM;
			goto out;
		}
		if (addr & ~PAGE_MASK) {
			err = -EINVAL;
			goto out;
		}
		if (!(flags & MM_MAP_FIXED) &&
		    range_has_vma(mm, addr, addr + len)) {
			err = -EEXIST;	/* MAP_FIXED_NOREPLACE */
			goto out;
		}
	}
	vm_flags = calc_vm_prot_bits(prot) | VM_MAYREAD | VM_MAYWRITE |
		   VM_MAYEXEC;
	if (flags & MM_MAP_GROWSDOWN)
		vm_flags |= VM_GROWSDOWN;
	if (flags & MM_MAP_NOHUGEPAGE)
		vm_flags |= VM_NOHUGEPAGE;
	if (file) {
		/* file_mmap_ok(): the mapping must end within MAX_LFS_FILESIZE */
		if (pgoff > (MAX_LFS_FILESIZE - len) >> PAGE_SHIFT) {
			err = -EOVERFLOW;
			goto out;
		}
		/* the model's files are open for reading and writing */
		if (flags & MM_MAP_SHARED)
			vm_flags |= VM_SHARED | VM_MAYSHARE;
		if (vm_flags & VM_GROWSDOWN) {
			err = -EINVAL;
			goto out;
		}
	} else if (flags & MM_MAP_SHARED) {
		if (vm_flags & VM_GROWSDOWN) {
			err = -EINVAL;
			goto out;
		}
		/* shmem pages are indexed from the mapping's start */
		pgoff = 0;
		vm_flags |= VM_SHARED | VM_MAYSHARE;
	}
	if (accountable_mapping(vm_flags))
		vm_flags |= VM_ACCOUNT;
	err = mmap_region(mm, addr, len, vm_flags, file, pgoff);
	if (!err && addrp)
		*addrp = addr;
out:
	mmap_write_unlock(mm);
	return err;
}

int do_mmap(struct mm_struct *mm, unsigned long addr, unsigned long len,
	    int prot, struct file *file, unsigned long offset)
{
	return do_mmap_flags(mm, addr, len, prot, 0, file, offset, NULL);
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
		if (end < vma->vm_end && mm->map_count >= mm_max_map_count(mm))
			return -ENOMEM;
		/* no split of what cannot be unmapped anyway */
		if (vma_is_sealed(vma))
			return -EPERM;
		err = split_vma(vma, start, 1);
		if (err)
			return err;
	}
	/* vms_gather_munmap_vmas(): a sealed VMA in the range, after the split */
	if (range_has_sealed(mm, start, end))
		return -EPERM;
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

/*
 * expand_downwards(): the guard gap below is checked, the anon_vma is
 * prepared (even when the growth then fails, as in Linux), then the
 * range grows, vm_pgoff with it.
 */
static int expand_downwards(struct vm_area_struct *vma, unsigned long address)
{
	struct mm_struct *mm = vma->vm_mm;
	struct vm_area_struct *prev = vma_prev(vma);
	unsigned long grow;
	int err;

	address &= PAGE_MASK;
	if (address < MMAP_MIN_ADDR)
		return -EPERM;
	if (prev && !(prev->vm_flags & VM_GROWSDOWN) &&
	    (prev->vm_flags & VM_ACCESS_FLAGS) &&
	    address - prev->vm_end < STACK_GUARD_GAP)
		return -ENOMEM;
	err = vma_anon_prepare(vma);
	if (err)
		return err;
	if (address >= vma->vm_start)
		return 0;
	grow = (vma->vm_start - address) >> PAGE_SHIFT;
	/* acct_stack_growth(): RLIMIT_STACK bounds the whole stack */
	if (grow > vma->vm_pgoff || vma->vm_end - address > STACK_RLIMIT)
		return -ENOMEM;
	vma_set_range(vma, address, vma->vm_end, vma->vm_pgoff - grow);
	mm->total_vm += grow;
	return 0;
}

int expand_stack(struct mm_struct *mm, unsigned long addr)
{
	struct vm_area_struct *vma;
	int err = -EFAULT;

	mmap_write_lock(mm);
	vma = find_vma(mm, addr);
	if (vma && vma->vm_start <= addr)
		err = 0;	/* the caller looks again */
	else if (vma && (vma->vm_flags & VM_GROWSDOWN))
		err = expand_downwards(vma, addr);
	mmap_write_unlock(mm);
	return err;
}
