/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The mmap_lock and the per-VMA lock (include/linux/mmap_lock.h,
 * include/linux/mm.h): the model's, for every backend, as the kernel's
 * are mm's and not the reverse map's.
 *
 * A VMA is write-locked from vma_start_write() until its mm's
 * mmap_write_unlock() (vma_end_write_all()): vm_lock_seq then equals
 * its mm's mm_lock_seq, biased by one so that a zeroed VMA is unlocked.
 * Readers take the VMA with vma_start_read(), a trylock: it fails while
 * the VMA is write-locked, as the kernel's does (and the kernel's may
 * also fail spuriously). A walker that gets false must not touch the
 * VMA: retry after dropping what a writer may be waiting for, or give
 * up on it and say so. vma_end_read() releases a successful read.
 *
 * The model is single-threaded: a writer meeting a reader (a walk's
 * callback that writes the VMA the walk holds) would wait forever in
 * the kernel, and is reported as a model bug (deadlock).
 */
#ifndef COWCTX_MMAP_LOCK_H
#define COWCTX_MMAP_LOCK_H

#include <stdbool.h>

#include <cowctx/mm_types.h>

static inline bool vma_is_write_locked(const struct vm_area_struct *vma)
{
	return vma->vm_lock_seq == vma->vm_mm->mm_lock_seq + 1;
}

/* Try to read-lock @vma; false if it is write-locked. */
bool vma_start_read(struct vm_area_struct *vma);
void vma_end_read(struct vm_area_struct *vma);
/* Write-lock @vma until mmap_write_unlock(); the mmap_lock is held. */
void vma_start_write(struct vm_area_struct *vma);

void mmap_write_lock(struct mm_struct *mm);
/* vma_end_write_all(), then the mmap_lock goes */
void mmap_write_unlock(struct mm_struct *mm);

#endif /* COWCTX_MMAP_LOCK_H */
