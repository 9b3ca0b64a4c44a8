// SPDX-License-Identifier: GPL-2.0
/*
 * fork's dup_mmap() and exit's exit_mmap() (kernel/fork.c, mm/mmap.c):
 * the two places whole address spaces are copied and torn down, and so
 * where the rmap designs differ most in cost.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <cowctx/mm.h>
#include "mm/internal.h"

static struct mm_struct *mm_alloc(struct model *m, const char *comm)
{
	struct mm_struct *mm = model_zalloc(sizeof(*mm));

	if (!mm)
		return NULL;
	mm->model = m;
	init_rwsem(&mm->mmap_lock, &m->mmap_lock_stat);
	snprintf(mm->comm, sizeof(mm->comm), "%s", comm);
	mm->id = m->next_mm_id++;
	mm->mmap_base = MM_DEFAULT_MMAP_BASE;
	return mm;
}

static void mm_add(struct mm_struct *mm)
{
	list_add_tail(&mm->mmlist, &mm->model->mms);
	mm->model->nr_mms++;
}

struct mm_struct *mm_create(struct model *m, const char *comm)
{
	struct mm_struct *mm = mm_alloc(m, comm);

	if (!mm)
		return NULL;
	set_current_mm(mm);
	if (rmap_mm_init(mm)) {
		model_free(mm);
		return NULL;
	}
	mm_add(mm);
	return mm;
}

/* exit_mmap(): zap everything, free the page tables, drop every VMA */
static void exit_mmap(struct mm_struct *mm)
{
	unsigned long i;

	mmap_write_lock(mm);
	for (i = 0; i < mm->mm_mt.nr; i++) {
		struct vm_area_struct *vma = mm->mm_mt.vmas[i];

		zap_page_range(vma, vma->vm_start, vma->vm_end);
	}
	free_all_pgtables(mm);
	while (mm->mm_mt.nr)
		remove_vma(mm->mm_mt.vmas[mm->mm_mt.nr - 1]);
	mmap_write_unlock(mm);
}

void mm_exit(struct mm_struct *mm)
{
	struct model *m = mm->model;

	set_current_mm(mm);
	exit_mmap(mm);
	rmap_mm_exit(mm);
	vma_tree_destroy(mm);
	list_del(&mm->mmlist);
	m->nr_mms--;
	model_free(mm);
}

/* Copy one VMA into the child: its rmap, then its page tables. */
static int dup_vma(struct mm_struct *mm, struct vm_area_struct *mpnt)
{
	struct vm_area_struct *tmp;
	int err;

	tmp = vm_area_dup(mpnt);
	if (!tmp)
		return -ENOMEM;
	tmp->vm_mm = mm;
	if (tmp->vm_flags & VM_WIPEONFORK) {
		/* the child starts with fresh, empty anonymous memory */
		tmp->anon_vma = NULL;
	} else {
		err = rmap_vma_fork(tmp, mpnt);
		if (err) {
			vm_area_free(tmp);
			return err;
		}
	}
	anon_vma_id_fork(tmp, mpnt);
	vma_link(mm, tmp);
	model_hook(mm->model, HOOK_FORK_VMA_LINKED, mm, tmp);
	if (!(tmp->vm_flags & VM_WIPEONFORK)) {
		err = copy_page_range(tmp, mpnt);
		if (err)
			return err;
	}
	model_hook(mm->model, HOOK_FORK_PTES_COPIED, mm, tmp);
	return 0;
}

int mm_fork(struct mm_struct *oldmm, const char *comm,
	    struct mm_struct **childp)
{
	struct model *m = oldmm->model;
	struct mm_struct *mm;
	unsigned long i;
	int err = 0;

	set_current_mm(oldmm);
	m->total_forks++;
	mm = mm_alloc(m, comm);
	if (!mm)
		return -ENOMEM;
	if (rmap_mm_fork(oldmm, mm)) {
		model_free(mm);
		return -ENOMEM;
	}
	mm_add(mm);

	mmap_write_lock(oldmm);
	mmap_write_lock(mm);
	model_hook(m, HOOK_FORK_START, mm, NULL);
	err = vma_tree_reserve(mm, oldmm->mm_mt.nr);
	for (i = 0; !err && i < oldmm->mm_mt.nr; i++) {
		struct vm_area_struct *mpnt = oldmm->mm_mt.vmas[i];

		/* dup_mmap(): each parent VMA stays write-locked to the end */
		vma_start_write(mpnt);
		if (mpnt->vm_flags & VM_DONTCOPY)
			continue;
		err = dup_vma(mm, mpnt);
	}
	mm->total_vm = oldmm->total_vm;
	/* dup_mm() copies the whole mm_struct: the heap and mmap base too */
	mm->start_brk = oldmm->start_brk;
	mm->brk = oldmm->brk;
	mm->mmap_base = oldmm->mmap_base;
	mmap_write_unlock(mm);
	mmap_write_unlock(oldmm);
	if (err) {
		/* a failed fork tears the half-made child down */
		mm_exit(mm);
		return err;
	}
	rmap_mm_fork_done(oldmm, mm);
	model_hook(m, HOOK_FORK_END, mm, NULL);
	*childp = mm;
	return 0;
}
