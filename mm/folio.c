// SPDX-License-Identifier: GPL-2.0
/*
 * Folios and the PTEs that map them. Every PTE change goes through
 * set_pte()/pte_clear_and_put() so the mapcount, refcount and the
 * per-table counts can never drift from the page tables.
 */
#include <cowctx/mm.h>
#include "mm/internal.h"

struct folio *folio_alloc(struct model *m)
{
	struct folio *folio = model_zalloc(sizeof(*folio));

	if (!folio)
		return NULL;
	folio->_refcount = 1;
	folio->pfn = m->next_pfn++;
	folio->model = m;
	list_add_tail(&folio->lru, &m->folios);
	m->nr_folios++;
	return folio;
}

void folio_get(struct folio *folio)
{
	if (folio_test_flag(folio, PG_zero))
		return;
	folio->_refcount++;
}

void folio_put(struct folio *folio)
{
	struct model *m = folio->model;

	if (folio_test_flag(folio, PG_zero))
		return;
	if (folio->_refcount <= 0)
		model_bug("folio_put of a free folio (pfn %lu)", folio->pfn);
	if (--folio->_refcount)
		return;
	if (folio->_mapcount)
		model_bug("freeing a mapped folio (pfn %lu)", folio->pfn);
	if (folio_test_anon(folio)) {
		rmap_folio_free(folio);
		m->nr_anon_folios--;
	}
	list_del(&folio->lru);
	m->nr_folios--;
	model_free(folio);
}

void folio_add_mapcount(struct folio *folio, int delta)
{
	if (folio_test_flag(folio, PG_zero))
		return;
	folio->_mapcount += delta;
	if (folio->_mapcount < 0)
		model_bug("negative mapcount (pfn %lu)", folio->pfn);
}

/*
 * Map @folio at @addr: the caller already holds a reference for the
 * new mapping (as after folio_alloc() or folio_get()).
 */
void set_pte(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
	     struct folio *folio, unsigned int flags)
{
	if (pte_present(*ptep))
		model_bug("set_pte over a present PTE at %#lx", addr);
	ptep->folio = folio;
	ptep->flags = flags | _PAGE_PRESENT;
	pte_table_account(mm, addr, 1);
	folio_add_mapcount(folio, 1);
}

/* Unmap whatever @ptep maps, dropping the mapping's reference. */
void pte_clear_and_put(struct mm_struct *mm, unsigned long addr, pte_t *ptep)
{
	struct folio *folio = ptep->folio;

	if (!pte_present(*ptep))
		return;
	ptep->folio = NULL;
	ptep->flags = 0;
	pte_table_account(mm, addr, -1);
	folio_add_mapcount(folio, -1);
	folio_put(folio);
}

bool mm_maps_folio(struct mm_struct *mm, unsigned long addr,
		   const struct folio *folio)
{
	pte_t *ptep = pte_lookup(mm, addr);

	return ptep && pte_present(*ptep) && ptep->folio == folio;
}
