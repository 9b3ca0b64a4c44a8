// SPDX-License-Identifier: GPL-2.0
/*
 * Test only: the proof of concept's walk (see cow_context_poc.h). No
 * production backend reaches this file; it is linked so that tests can
 * name cow_context-poc and the COW_WALK_POC_* flags.
 */
#include <cowctx/mm.h>
#include "rmap/cow_context.h"
#include "rmap/cow_context_poc.h"

/*
 * The PoC's early stop: "exclusive folios are moved to the correct
 * context level, so we only look once". A folio mapped once is looked
 * for at its own index in the first live mm only; a move by mremap or
 * a fork since then makes it miss mappings, which the oracle catches.
 */
bool cow_poc_looks_further(struct folio *folio)
{
	return folio_mapcount(folio) > 1;
}

/*
 * The PoC's traversal: a context after its children (the root first).
 * A child forked from a context the walk has not reached yet, after the
 * walk passed that context's children, copies a PTE the walk then
 * unmaps in the parent only: the real walk goes parents first.
 */
struct cow_context *cow_poc_walk_children_first(struct cow_walk *w,
						struct cow_context *root)
{
	struct cow_context *cur = root, *next;

	visit_context(w, root);
	for (;;) {
		while (!cow_walk_stopped(w) && (next = first_child(w, cur))) {
			cow_context_put(cur);
			cur = next;
		}
		for (;;) {
			if (cow_walk_stopped(w) || cow_walk_subtree_done(w, cur))
				return cur;
			visit_context(w, cur);
			next = next_sibling(w, cur);
			if (next) {
				cow_context_put(cur);
				cur = next;
				break;
			}
			next = cur->parent;
			cow_context_get(next);
			cow_context_put(cur);
			cur = next;
		}
	}
}
