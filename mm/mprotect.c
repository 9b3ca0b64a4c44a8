// SPDX-License-Identifier: GPL-2.0
/* mprotect (Linux mm/mprotect.c): flag changes that split and merge. */
#include <errno.h>

#include <cowctx/mm.h>
#include "mm/internal.h"

static int mprotect_fixup(struct vm_area_struct *vma,
			  struct vm_area_struct **pprev, unsigned long start,
			  unsigned long end, unsigned long newflags)
{
	unsigned long oldflags = vma->vm_flags;
	int err;

	if (vma_is_sealed(vma))
		return -EPERM;
	if (newflags == oldflags) {
		*pprev = vma;
		return 0;
	}
	/*
	 * Making private memory writable charges it (VM_ACCOUNT) and the
	 * charge stays when it becomes read-only again, except for
	 * anonymous memory never faulted: Linux's accounting, and it
	 * decides later merges.
	 */
	if (newflags & VM_WRITE) {
		if (!(oldflags & (VM_ACCOUNT | VM_WRITE | VM_SHARED)))
			newflags |= VM_ACCOUNT;
	} else if ((oldflags & VM_ACCOUNT) && vma_is_anonymous(vma) &&
		   !vma->anon_vma) {
		newflags &= ~VM_ACCOUNT;
	}
	vma = vma_modify_flags(*pprev, vma, start, end, newflags, &err);
	if (!vma)
		return err;
	*pprev = vma;
	vma_start_write(vma);
	vma->vm_flags = newflags;
	change_protection(vma, start, end, newflags);
	return 0;
}

int do_mprotect(struct mm_struct *mm, unsigned long start, unsigned long len,
		int prot)
{
	struct vm_area_struct *vma, *prev;
	unsigned long end, nstart, tmp;
	int err = 0;

	if (start & ~PAGE_MASK)
		return -EINVAL;
	if (!len)
		return 0;
	len = (len + PAGE_SIZE - 1) & PAGE_MASK;
	end = start + len;
	if (end <= start)
		return -ENOMEM;
	if (prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC))
		return -EINVAL;

	set_current_mm(mm);
	mmap_write_lock(mm);
	vma = find_vma(mm, start);
	if (!vma || vma->vm_start >= end || vma->vm_start > start) {
		err = -ENOMEM;
		goto out;
	}
	prev = vma_prev(vma);
	if (start > vma->vm_start)
		prev = vma;
	nstart = start;
	tmp = vma->vm_start;
	while (vma && vma->vm_start < end) {
		unsigned long newflags;

		if (vma->vm_start != tmp) {
			err = -ENOMEM;	/* a hole in the range */
			break;
		}
		newflags = calc_vm_prot_bits(prot) |
			   (vma->vm_flags & ~VM_ACCESS_FLAGS);
		/* VM_MAY* shifted onto VM_*: asking more than allowed */
		if ((newflags & ~(newflags >> 4)) & VM_ACCESS_FLAGS) {
			err = -EACCES;
			break;
		}
		tmp = vma->vm_end < end ? vma->vm_end : end;
		err = mprotect_fixup(vma, &prev, nstart, tmp, newflags);
		if (err)
			break;
		/* where the (maybe merged) VMA now ends, as vma_iter_end() */
		tmp = prev->vm_end;
		nstart = tmp;
		vma = find_vma(mm, tmp);
	}
	if (!err && tmp < end)
		err = -ENOMEM;	/* the range runs past the last VMA */
out:
	mmap_write_unlock(mm);
	return err;
}
