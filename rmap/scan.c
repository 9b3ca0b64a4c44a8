// SPDX-License-Identifier: GPL-2.0
/*
 * The oracle: reverse mapping by scanning every page table of every
 * mm, as Linux did before 2002. Slow, obviously right, and the truth
 * every other backend is held to.
 *
 * It keeps no rmap objects: vma->anon_vma and folio->mapping only get
 * a marker (the mm), so the model's "has anonymous pages" rules and
 * merges behave as with a per-mm design.
 */
#include <cowctx/mm.h>
#include <cowctx/rmap.h>

static int scan_anon_prepare(struct vm_area_struct *vma)
{
	vma->anon_vma = vma->vm_mm;
	return 0;
}

static int scan_vma_fork(struct vm_area_struct *vma,
			 struct vm_area_struct *pvma)
{
	vma->anon_vma = pvma->anon_vma ? vma->vm_mm : NULL;
	return 0;
}

static void scan_folio_add_new(struct folio *folio, struct vm_area_struct *vma,
			       unsigned long address)
{
	folio_set_anon_rmap(folio, vma->vm_mm);
	folio->index = linear_page_index(vma, address);
}

static void scan_folio_move(struct folio *folio, struct vm_area_struct *vma)
{
	folio_set_anon_rmap(folio, vma->vm_mm);
}

/* The PTE table last looked up in one mm: neighbouring VMAs share one */
struct table_cache {
	unsigned long base;	/* its PMD_SIZE-aligned range, or 1: none */
	struct pte_table *pt;
};

/*
 * The first page of [@addr, @end) at which @mm maps @folio, else @end.
 * One page-table lookup per PTE table, not one per page: the oracle
 * still looks at every page, at a cost recordings of thousands of
 * VMAs can bear.
 */
static unsigned long next_mapping(struct mm_struct *mm, unsigned long addr,
				  unsigned long end, const struct folio *folio,
				  struct table_cache *tc)
{
	while (addr < end) {
		unsigned long base = addr & ~(PMD_SIZE - 1);
		unsigned long table_end = base + PMD_SIZE;

		if (tc->base != base) {
			tc->base = base;
			tc->pt = pte_table_lookup(mm, addr);
		}
		if (table_end > end)
			table_end = end;
		for (; tc->pt && addr < table_end; addr += PAGE_SIZE) {
			pte_t *ptep = &tc->pt->pte[(addr >> PAGE_SHIFT) %
						   PTRS_PER_TABLE];

			if (pte_present(*ptep) && ptep->folio == folio)
				return addr;
		}
		addr = table_end;
	}
	return end;
}

/* Every VMA of every mm is examined; every page of it is looked at. */
static int scan_walk(struct folio *folio, struct rmap_walk_control *rwc)
{
	struct model *m = folio->model;
	struct mm_struct *mm;

	list_for_each_entry(mm, &m->mms, mmlist) {
		struct table_cache tc = { .base = 1 };
		struct vm_area_struct *vma;
		unsigned long i, addr;

		for_each_vma(mm, vma, i) {
			m->walk.vmas_examined++;
			for (addr = next_mapping(mm, vma->vm_start,
						 vma->vm_end, folio, &tc);
			     addr < vma->vm_end;
			     addr = next_mapping(mm, addr + PAGE_SIZE,
						 vma->vm_end, folio, &tc)) {
				m->walk.mappings_found++;
				if (rwc->rmap_one &&
				    !rwc->rmap_one(folio, vma, addr, rwc->arg)) {
					rwc->stopped = true;
					return 0;
				}
				/* rmap_one may have changed the tables */
				tc.base = 1;
			}
		}
	}
	return 0;
}

const struct rmap_ops scan_rmap_ops = {
	.name = "scan",
	.description = "walk every page table of every mm (the oracle)",
	.anon_prepare = scan_anon_prepare,
	.vma_fork = scan_vma_fork,
	.folio_add_new = scan_folio_add_new,
	.folio_move = scan_folio_move,
	.walk = scan_walk,
};

