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
	mm->fork_seq = m->total_forks;
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
	if (m->rmap->mm_init && m->rmap->mm_init(mm)) {
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

	down_write(&mm->mmap_lock);
	for (i = 0; i < mm->mm_mt.nr; i++) {
		struct vm_area_struct *vma = mm->mm_mt.vmas[i];

		zap_page_range(vma, vma->vm_start, vma->vm_end);
	}
	free_all_pgtables(mm);
	while (mm->mm_mt.nr)
		remove_vma(mm->mm_mt.vmas[mm->mm_mt.nr - 1]);
	up_write(&mm->mmap_lock);
}

void mm_exit(struct mm_struct *mm)
{
	struct model *m = mm->model;

	exit_mmap(mm);
	if (m->rmap->mm_exit)
		m->rmap->mm_exit(mm);
	model_free(mm->mm_mt.vmas);
	list_del(&mm->mmlist);
	m->nr_mms--;
	model_free(mm);
}

/* Copy one VMA into the child: its rmap, then its page tables. */
static int dup_vma(struct mm_struct *mm, struct vm_area_struct *mpnt)
{
	const struct rmap_ops *ops = mm->model->rmap;
	struct vm_area_struct *tmp;
	int err;

	tmp = vm_area_dup(mpnt);
	if (!tmp)
		return -ENOMEM;
	tmp->vm_mm = mm;
	if (tmp->vm_flags & VM_WIPEONFORK) {
		/* the child starts with fresh, empty anonymous memory */
		tmp->anon_vma = NULL;
	} else if (ops->vma_fork) {
		err = ops->vma_fork(tmp, mpnt);
		if (err) {
			vm_area_free(tmp);
			return err;
		}
	}
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

	m->total_forks++;
	mm = mm_alloc(m, comm);
	if (!mm)
		return -ENOMEM;
	if (m->rmap->mm_fork && m->rmap->mm_fork(oldmm, mm)) {
		model_free(mm);
		return -ENOMEM;
	}
	mm_add(mm);

	down_write(&oldmm->mmap_lock);
	down_write(&mm->mmap_lock);
	model_hook(m, HOOK_FORK_START, mm, NULL);
	err = vma_tree_reserve(mm, oldmm->mm_mt.nr);
	for (i = 0; !err && i < oldmm->mm_mt.nr; i++) {
		struct vm_area_struct *mpnt = oldmm->mm_mt.vmas[i];

		if (mpnt->vm_flags & VM_DONTCOPY)
			continue;
		err = dup_vma(mm, mpnt);
	}
	mm->total_vm = oldmm->total_vm;
	up_write(&mm->mmap_lock);
	up_write(&oldmm->mmap_lock);
	if (err) {
		/* a failed fork tears the half-made child down */
		mm_exit(mm);
		return err;
	}
	model_hook(m, HOOK_FORK_END, mm, NULL);
	*childp = mm;
	return 0;
}
