// SPDX-License-Identifier: GPL-2.0
/*
 * Test only: the proof of concept's walk, kept to show what it misses
 * (tests/cow_context.t, tests/unit/cow_context_gen.c) and what its
 * order costs (tests/unit/cow_context_race.c), as the backend
 * cow_context-poc.
 *
 * The real walk is compiled again here, as tools/testing/vma compiles
 * the kernel's own code: its steps are this file's statics, and its
 * entry point, renamed, is left unused. Two things differ, and the
 * real walk carries neither: the PoC stops looking once it has found a
 * folio mapped once (cow_walk_looks_further(), a compile-time seam;
 * with COW_WALK_POC_EARLY_STOP), and it goes children first, pinning
 * each context it stands on.
 */
#include <stdbool.h>

#include "rmap/testing/cow_context_poc.h"

struct cow_walk;
static bool poc_looks_further(const struct cow_walk *w);

#define cow_walk_looks_further(w)	poc_looks_further(w)
#define cow_context_walk		cow_context_walk_compiled_for_poc
#include "rmap/cow_context_walk.c"
#undef cow_context_walk

/*
 * The PoC's early stop: "exclusive folios are moved to the correct
 * context level, so we only look once". A folio mapped once is looked
 * for at its own index in the first live mm only; a move by mremap or
 * a fork since then makes it miss mappings, which the oracle catches.
 */
static bool poc_looks_further(const struct cow_walk *w)
{
	return !(w->inst->walk_flags & COW_WALK_POC_EARLY_STOP) ||
	       folio_mapcount(w->folio) > 1;
}

/*
 * The PoC's order pins each context it stands on: the real walk's next
 * unpruned context, skipped while its last reference is going
 */
static struct cow_context *pin_next(struct cow_walk *w,
				    struct cow_context *ctx)
{
	while (ctx && !cow_context_tryget(ctx))
		ctx = rcu_next_sibling(w, ctx);
	return ctx;
}

static struct cow_context *first_child(struct cow_walk *w,
				       struct cow_context *ctx)
{
	return pin_next(w, rcu_first_child(w, ctx));
}

static struct cow_context *next_sibling(struct cow_walk *w,
					struct cow_context *ctx)
{
	return pin_next(w, rcu_next_sibling(w, ctx));
}

/*
 * Back at the root: done, unless the root was spliced out mid-walk (its
 * mm exited); its children then follow it in its old parent's list, and
 * the walk goes on from there, up to the top if need be: more contexts
 * than needed, none missed, none twice. (The real walk counts levels
 * instead, see walk_parents_first().)
 */
static bool subtree_done(struct cow_walk *w, struct cow_context *cur)
{
	if (!cur->parent)
		return true;
	return cur == w->root && !CMM_LOAD_SHARED(cur->spliced);
}

/*
 * The PoC's traversal: a context after its children (the root first).
 * A child forked from a context the walk has not reached yet, after the
 * walk passed that context's children, copies a PTE the walk then
 * unmaps in the parent only: the real walk goes parents first.
 */
static struct cow_context *walk_children_first(struct cow_walk *w,
					       struct cow_context *root)
{
	struct cow_context *cur = root, *next;

	visit_context(w, root);
	for (;;) {
		while (!w->stopped && (next = first_child(w, cur))) {
			cow_context_put(cur);
			cur = next;
		}
		for (;;) {
			if (w->stopped || subtree_done(w, cur))
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

int cow_context_poc_walk(struct folio *folio, struct rmap_walk_control *rwc)
{
	struct cow_walk w = { 0 };
	struct cow_context *cur;

	walk_begin(&w, folio, rwc);
	if (!cow_context_tryget(w.root)) {
		cow_rcu_read_unlock();
		cow_walk_leave(w.tree);
		return 0;
	}
	cur = walk_children_first(&w, w.root);
	cow_rcu_read_unlock();
	cow_context_put(cur);
	cow_walk_leave(w.tree);
	return 0;
}
