// SPDX-License-Identifier: GPL-2.0
/*
 * Test only: broken-scan, the oracle made to forget the last mapping
 * it finds of each shared folio, so that a test can prove the checker
 * and the comparisons fail a wrong walk. It wraps the oracle's own walk
 * from outside: rmap/scan.c carries nothing for it.
 */
#include <cowctx/mm.h>
#include <cowctx/rmap.h>

struct drop_last {
	struct rmap_walk_control *caller;
	int seen;
};

static bool drop_last_one(struct folio *folio, struct vm_area_struct *vma,
			  unsigned long address, void *arg)
{
	struct drop_last *d = arg;
	struct rmap_walk_control *rwc = d->caller;

	/* the walk goes on as if the mapping had been told */
	if (folio->_mapcount > 1 && ++d->seen == folio->_mapcount)
		return true;
	return !rwc->rmap_one || rwc->rmap_one(folio, vma, address, rwc->arg);
}

static int broken_scan_walk(struct folio *folio, struct rmap_walk_control *rwc)
{
	struct drop_last d = { .caller = rwc };
	struct rmap_walk_control inner = *rwc;
	int ret;

	inner.rmap_one = drop_last_one;
	inner.arg = &d;
	inner.stopped = false;
	ret = scan_rmap_ops.walk(folio, &inner);
	rwc->stopped = inner.stopped;
	rwc->contended = inner.contended;
	return ret;
}

/* Everything else is the oracle's, called through its ops */
static int broken_anon_prepare(struct vm_area_struct *vma)
{
	return scan_rmap_ops.anon_prepare(vma);
}

static int broken_vma_fork(struct vm_area_struct *vma,
			   struct vm_area_struct *pvma)
{
	return scan_rmap_ops.vma_fork(vma, pvma);
}

static void broken_folio_add_new(struct folio *folio,
				 struct vm_area_struct *vma,
				 unsigned long address)
{
	scan_rmap_ops.folio_add_new(folio, vma, address);
}

static void broken_folio_move(struct folio *folio, struct vm_area_struct *vma)
{
	scan_rmap_ops.folio_move(folio, vma);
}

const struct rmap_ops broken_scan_rmap_ops = {
	.name = "broken-scan",
	.description = "test only: the oracle, losing one mapping of each shared folio",
	.anon_prepare = broken_anon_prepare,
	.vma_fork = broken_vma_fork,
	.folio_add_new = broken_folio_add_new,
	.folio_move = broken_folio_move,
	.walk = broken_scan_walk,
};
