// SPDX-License-Identifier: GPL-2.0
/*
 * Four-level page tables, 512 entries a level, as on x86-64. Tables
 * are allocated on first use and freed when the range they cover is
 * left without VMAs (free_pgtables()), so the oracle's scan and the
 * leak checks see exactly what Linux would keep.
 */
#include <errno.h>

#include <cowctx/mm.h>
#include "mm/internal.h"

#define TOP_LEVEL	3	/* PGD; 0 is the PTE table */
#define USER_TOP	(1UL << 48)

static unsigned int level_shift(int level)
{
	return PAGE_SHIFT + 9 * level;
}

static unsigned int level_index(unsigned long addr, int level)
{
	return (addr >> level_shift(level)) & (PTRS_PER_TABLE - 1);
}

static void *table_alloc(struct mm_struct *mm, int level)
{
	size_t size = level ? sizeof(struct dir_table) :
			      sizeof(struct pte_table);
	void *t = model_zalloc(size);

	if (!t)
		return NULL;
	if (!level)
		spin_lock_init(&((struct pte_table *)t)->ptl,
			       &mm->model->ptl_stat);
	mm->model->nr_pgtables++;
	mm->pgtables_bytes += PAGE_SIZE;
	return t;
}

static void table_free(struct mm_struct *mm, void *t)
{
	mm->model->nr_pgtables--;
	mm->pgtables_bytes -= PAGE_SIZE;
	model_free(t);
}

struct pte_table *pte_table_lookup(struct mm_struct *mm, unsigned long addr)
{
	struct dir_table *dir = mm->pgd;
	int level;

	if (addr >= USER_TOP)
		return NULL;
	for (level = TOP_LEVEL; dir && level > 1; level--)
		dir = dir->entry[level_index(addr, level)];
	return dir ? dir->entry[level_index(addr, 1)] : NULL;
}

pte_t *pte_lookup(struct mm_struct *mm, unsigned long addr)
{
	struct pte_table *pt = pte_table_lookup(mm, addr);

	return pt ? &pt->pte[level_index(addr, 0)] : NULL;
}

pte_t *pte_alloc(struct mm_struct *mm, unsigned long addr)
{
	void **slot;
	int level;

	if (!mm->pgd) {
		mm->pgd = table_alloc(mm, TOP_LEVEL);
		if (!mm->pgd)
			return NULL;
	}
	slot = (void **)&mm->pgd;
	for (level = TOP_LEVEL; level > 0; level--) {
		struct dir_table *dir = *slot;

		slot = &dir->entry[level_index(addr, level)];
		if (!*slot) {
			*slot = table_alloc(mm, level - 1);
			if (!*slot)
				return NULL;
			dir->nr_used++;
		}
	}
	return &((struct pte_table *)*slot)->pte[level_index(addr, 0)];
}

void pte_table_account(struct mm_struct *mm, unsigned long addr, int delta)
{
	struct pte_table *pt = pte_table_lookup(mm, addr);

	if (!pt)
		model_bug("PTE change without a PTE table");
	pt->nr_used += delta;
}

static void free_subtree(struct mm_struct *mm, void *t, int level)
{
	if (level) {
		struct dir_table *dir = t;
		int i;

		for (i = 0; i < PTRS_PER_TABLE; i++)
			if (dir->entry[i])
				free_subtree(mm, dir->entry[i], level - 1);
	} else if (((struct pte_table *)t)->nr_used) {
		model_bug("freeing a PTE table that still maps pages");
	}
	table_free(mm, t);
}

static void free_range(struct mm_struct *mm, struct dir_table *dir, int level,
		       unsigned long base, unsigned long floor,
		       unsigned long ceiling)
{
	unsigned long size = 1UL << level_shift(level);
	int i;

	for (i = 0; i < PTRS_PER_TABLE; i++) {
		unsigned long start = base + i * size, end = start + size;

		if (!dir->entry[i] || end <= floor || start >= ceiling)
			continue;
		if (start >= floor && end <= ceiling) {
			free_subtree(mm, dir->entry[i], level - 1);
			dir->entry[i] = NULL;
			dir->nr_used--;
		} else if (level > 1) {
			free_range(mm, dir->entry[i], level - 1, start,
				   floor, ceiling);
		}
	}
}

/*
 * Free the tables that cover nothing but [floor, ceiling), a range no
 * VMA uses any more (free_pgd_range() with Linux's floor and ceiling).
 */
void free_pgd_range(struct mm_struct *mm, unsigned long floor,
		    unsigned long ceiling)
{
	if (!mm->pgd)
		return;
	if (ceiling > USER_TOP || !ceiling)
		ceiling = USER_TOP;
	free_range(mm, mm->pgd, TOP_LEVEL, 0, floor, ceiling);
}

void free_all_pgtables(struct mm_struct *mm)
{
	if (!mm->pgd)
		return;
	free_subtree(mm, mm->pgd, TOP_LEVEL);
	mm->pgd = NULL;
}

int move_pte(struct mm_struct *mm, unsigned long old_addr,
	     unsigned long new_addr)
{
	pte_t *old = pte_lookup(mm, old_addr), *new;

	if (!old || !pte_present(*old))
		return 0;
	new = pte_alloc(mm, new_addr);
	if (!new)
		return -ENOMEM;
	/* pte_alloc may not move tables: look the old PTE up again */
	old = pte_lookup(mm, old_addr);
	if (pte_present(*new))
		model_bug("mremap onto a present PTE");
	*new = *old;
	old->folio = NULL;
	old->flags = 0;
	pte_table_account(mm, old_addr, -1);
	pte_table_account(mm, new_addr, 1);
	return 0;
}

static void walk_level(struct mm_struct *mm, void *t, int level,
		       unsigned long base,
		       void (*fn)(struct mm_struct *, unsigned long, pte_t *,
				  void *),
		       void *arg)
{
	int i;

	if (!level) {
		struct pte_table *pt = t;

		for (i = 0; i < PTRS_PER_TABLE; i++)
			if (pte_present(pt->pte[i]))
				fn(mm, base + ((unsigned long)i << PAGE_SHIFT),
				   &pt->pte[i], arg);
		return;
	}
	for (i = 0; i < PTRS_PER_TABLE; i++) {
		struct dir_table *dir = t;

		if (dir->entry[i])
			walk_level(mm, dir->entry[i], level - 1,
				   base + ((unsigned long)i << level_shift(level)),
				   fn, arg);
	}
}

void walk_page_tables(struct mm_struct *mm,
		      void (*fn)(struct mm_struct *mm, unsigned long addr,
				 pte_t *ptep, void *arg),
		      void *arg)
{
	if (mm->pgd)
		walk_level(mm, mm->pgd, TOP_LEVEL, 0, fn, arg);
}
