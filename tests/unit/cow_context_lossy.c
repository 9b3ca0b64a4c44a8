// SPDX-License-Identifier: GPL-2.0
/*
 * The fallback when a remap entry cannot be allocated in a hook that may
 * not fail. The model never gets there (every path reserves the slot in
 * a hook that may fail; cow_context_gen's fault injection checks that no
 * VMA ends up "lossy"), so this test takes a moved VMA's slot away by
 * hand and fails the allocation that would replace it: the VMA is then
 * walked the slow way, and the walk must stay exact until it goes.
 */
#include "cow_context_harness.h"
#include "tap.h"

#define OLD	0x100000000000UL
#define NEW	0x100000100000UL

static unsigned long walk_count(struct folio *folio)
{
	unsigned long before = folio->model->walk.mappings_found;
	struct rmap_walk_control rwc = { 0 };

	rmap_walk(folio, &rwc);
	return folio->model->walk.mappings_found - before;
}

int main(void)
{
	struct model *m = model_create(&cow_context_rmap_ops);
	const struct rmap_ops *ops = &cow_context_rmap_ops;
	struct mm_struct *mm = mm_create(m, "P"), *child;
	struct cow_context *ctx = mm_cow_context(mm);
	struct check_stats cs = { .max_report = 3 };
	struct vm_area_struct *vma;
	struct folio *folio;

	ok(!do_mmap(mm, OLD, 4 * PAGE_SIZE, PROT_READ | PROT_WRITE, NULL, 0) &&
	   !handle_access(mm, OLD, true) &&
	   !do_mremap(mm, OLD, 4 * PAGE_SIZE, 4 * PAGE_SIZE,
		      MREMAP_MAYMOVE | MREMAP_FIXED, NEW),
	   "a faulted VMA moved");
	vma = vma_lookup(mm, NEW);
	folio = pte_lookup(mm, NEW)->folio;
	ok(vma && (cow_vma_state(vma) & COW_VMA_ENTRY) &&
	   remap_tree_nr(&ctx->remaps) == 1, "it owns a remap entry");

	/* a resize begins: the entry becomes a reserved slot... */
	ops->vma_adjust_begin(vma);
	/* ...which we take away, so the array goes too */
	vma_anon_flags_clear(vma, COW_VMA_RESERVED);
	remap_tree_unreserve(&ctx->remaps);
	ok(!remap_tree_maybe_populated(&ctx->remaps), "no slot left, no node");
	alloc_fail_nth = 1;
	ops->vma_adjust_end(vma);
	alloc_fail_nth = 0;
	ok((cow_vma_state(vma) & COW_VMA_LOSSY) && ctx->nr_lossy == 1 &&
	   !remap_tree_nr(&ctx->remaps),
	   "the entry could not be allocated: the VMA is lossy");

	is_long(walk_count(folio), 1, "the walk still finds the moved folio");
	ok(cow_instance(m)->walk.lossy_scans > 0, "by scanning the mm");
	model_check(m, &cs, stderr, "lossy");
	is_long(cs.mismatches, 0, "every folio's walk is exact");

	ok(!mm_fork(mm, "C", &child), "fork a child");
	model_check(m, &cs, stderr, "lossy fork");
	is_long(cs.mismatches, 0, "exact in the child too (it got a real entry)");
	ok(!mm_cow_context(child)->nr_lossy &&
	   remap_tree_nr(&mm_cow_context(child)->remaps) == 1,
	   "the child's copy reserved its slot at fork");

	ok(!do_munmap(mm, NEW, 4 * PAGE_SIZE), "unmap the lossy VMA");
	is_long(ctx->nr_lossy, 0, "nothing lossy left");
	ok(!cc_validate(m), "every invariant holds again");
	mm_exit(child);
	mm_exit(mm);
	is_long(account_live_total(&m->acct), 0, "everything freed");
	model_destroy(m);
	return tap_done();
}
