// SPDX-License-Identifier: GPL-2.0
/* One model instance: a machine running one rmap backend. */
#include <cowctx/mm.h>
#include "mm/internal.h"

struct model *model_create(const struct rmap_ops *ops)
{
	struct model *m = model_zalloc(sizeof(*m));

	if (!m)
		return NULL;
	m->rmap = ops;
	INIT_LIST_HEAD(&m->mms);
	INIT_LIST_HEAD(&m->folios);
	INIT_LIST_HEAD(&m->files);
	/* the zero page: mapped by read faults, never counted */
	m->zero_folio.flags = 1UL << PG_zero;
	m->zero_folio.model = m;
	m->zero_folio.pfn = 0;
	INIT_LIST_HEAD(&m->zero_folio.lru);
	m->next_pfn = 1;
	m->max_map_count = DEFAULT_MAX_MAP_COUNT;
	m->mmap_lock_stat.name = "mmap_lock";
	m->ptl_stat.name = "ptl";
	m->family_lock_stat.name = "family";
	m->family_lock_stat.lines = &m->family;
	if (rmap_init(m)) {
		model_free(m);
		return NULL;
	}
	return m;
}

void model_destroy(struct model *m)
{
	if (!m)
		return;
	while (!list_empty(&m->mms))
		mm_exit(list_first_entry(&m->mms, struct mm_struct, mmlist));
	filemap_release_all(m);
	rmap_destroy(m);
	model_free(m);
}
