// SPDX-License-Identifier: GPL-2.0
/* The parts of rmap every backend shares: candidate checks, the list. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cowctx/mm.h>
#include <cowctx/rmap.h>

#define RMAP_BACKEND(ops)	&ops,
#define RMAP_TEST_BACKEND(ops)
const struct rmap_ops *const rmap_backends[] = {
#include <cowctx/rmap_backends.h>
	NULL,
};
#undef RMAP_BACKEND
#undef RMAP_TEST_BACKEND

/* Test-only backends: reachable by name, never in the default list */
#define RMAP_BACKEND(ops)
#define RMAP_TEST_BACKEND(ops)	&ops,
static const struct rmap_ops *const test_backends[] = {
#include <cowctx/rmap_backends.h>
	NULL,
};
#undef RMAP_BACKEND
#undef RMAP_TEST_BACKEND

const struct rmap_ops *rmap_backend_find(const char *name)
{
	int i;

	for (i = 0; rmap_backends[i]; i++)
		if (!strcmp(rmap_backends[i]->name, name))
			return rmap_backends[i];
	for (i = 0; test_backends[i]; i++)
		if (!strcmp(test_backends[i]->name, name))
			return test_backends[i];
	return NULL;
}

bool rmap_walk_candidate(struct rmap_walk_control *rwc, struct folio *folio,
			 struct vm_area_struct *vma, unsigned long address)
{
	struct model *m = folio->model;

	if (rwc->stopped)
		return false;
	m->walk.vmas_examined++;
	if (address < vma->vm_start || address >= vma->vm_end)
		return true;
	if (!mm_maps_folio(vma->vm_mm, address, folio))
		return true;
	m->walk.mappings_found++;
	if (rwc->rmap_one && !rwc->rmap_one(folio, vma, address, rwc->arg)) {
		rwc->stopped = true;
		return false;
	}
	return true;
}

int rmap_walk(struct folio *folio, struct rmap_walk_control *rwc)
{
	struct model *m = folio->model;
	const void *writer = m->family.writer;
	int ret;

	m->walk.walks++;
	rwc->stopped = false;
	/* a walk writes from reclaim's CPU, not a family process's */
	m->family.writer = NULL;
	ret = m->rmap->walk(folio, rwc);
	m->family.writer = writer;
	return ret;
}

void rmap_vma_fields_charge(struct vm_area_struct *vma, long n)
{
	struct model *m = vma->vm_mm->model;
	size_t bytes = m->rmap->vma_field_bytes;

	/* the scan oracle needs no field: it then has no such type */
	if (!bytes)
		return;
	account_charge(&m->acct, account_register_field(&m->acct,
							RMAP_VMA_FIELDS),
		       n, bytes);
}

char *rmap_json(struct model *m, bool braces)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (!m->rmap->print_json)
		return NULL;
	f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	if (braces)
		fputc('{', f);
	m->rmap->print_json(m, f);
	if (braces)
		fputc('}', f);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}
