/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test only: the proof of concept's walk, kept to show what it misses
 * (tests/cow_context.t, tests/unit/cow_context_gen.c) and what its
 * order costs (tests/unit/cow_context_race.c). It is reached only
 * through COW_WALK_POC_* flags, which no production backend sets.
 *
 * The real walk (cow_context_walk.c) lends it its steps; the PoC code
 * itself lives in cow_context_poc.c.
 */
#ifndef COWCTX_RMAP_COW_CONTEXT_POC_H
#define COWCTX_RMAP_COW_CONTEXT_POC_H

#include <stdbool.h>

struct cow_context;
struct cow_walk;
struct folio;

/* cow_context_walk.c: the steps, each under RCU with @ctx pinned */
void visit_context(struct cow_walk *w, struct cow_context *ctx);
struct cow_context *first_child(struct cow_walk *w, struct cow_context *ctx);
struct cow_context *next_sibling(struct cow_walk *w, struct cow_context *ctx);
bool cow_walk_stopped(const struct cow_walk *w);
/* back at the walk's root (or at the top, if it was spliced out) */
bool cow_walk_subtree_done(struct cow_walk *w, struct cow_context *cur);

/* cow_context_poc.c */
struct cow_context *cow_poc_walk_children_first(struct cow_walk *w,
						struct cow_context *root);
bool cow_poc_looks_further(struct folio *folio);

#endif /* COWCTX_RMAP_COW_CONTEXT_POC_H */
