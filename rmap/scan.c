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

/*
 * Every VMA of every mm is examined; every page of it is looked at.
 * @drop_last makes the broken test backend forget one mapping of each
 * shared folio, to prove the checker catches a wrong walk.
 */
static int scan_walk_common(struct folio *folio, struct rmap_walk_control *rwc,
			    bool drop_last)
{
	struct model *m = folio->model;
	struct mm_struct *mm;
	int seen = 0;

	list_for_each_entry(mm, &m->mms, mmlist) {
		struct vm_area_struct *vma;
		unsigned long i, addr;

		for_each_vma(mm, vma, i) {
			m->walk.vmas_examined++;
			for (addr = vma->vm_start; addr < vma->vm_end;
			     addr += PAGE_SIZE) {
				if (!mm_maps_folio(mm, addr, folio))
					continue;
				if (drop_last && folio->_mapcount > 1 &&
				    ++seen == folio->_mapcount)
					continue;
				m->walk.mappings_found++;
				if (rwc->rmap_one &&
				    !rwc->rmap_one(folio, vma, addr, rwc->arg)) {
					rwc->stopped = true;
					return 0;
				}
			}
		}
	}
	return 0;
}

static int scan_walk(struct folio *folio, struct rmap_walk_control *rwc)
{
	return scan_walk_common(folio, rwc, false);
}

static int broken_scan_walk(struct folio *folio, struct rmap_walk_control *rwc)
{
	return scan_walk_common(folio, rwc, true);
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

const struct rmap_ops broken_scan_rmap_ops = {
	.name = "broken-scan",
	.description = "test only: the oracle, losing one mapping of each shared folio",
	.anon_prepare = scan_anon_prepare,
	.vma_fork = scan_vma_fork,
	.folio_add_new = scan_folio_add_new,
	.folio_move = scan_folio_move,
	.walk = broken_scan_walk,
};
