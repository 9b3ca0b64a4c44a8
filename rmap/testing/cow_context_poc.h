/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test only: the proof of concept's walk (rmap/testing/cow_context_poc.c),
 * the backend of the cow_context-poc variants.
 */
#ifndef COWCTX_RMAP_TESTING_COW_CONTEXT_POC_H
#define COWCTX_RMAP_TESTING_COW_CONTEXT_POC_H

struct folio;
struct rmap_walk_control;

/*
 * A cow_instance walk flag the real walk never reads: the PoC's early
 * stop, a folio mapped once looked for in the first mm only.
 */
#define COW_WALK_POC_EARLY_STOP	(1U << 8)

/* Children first, each context pinned; the early stop with the flag */
int cow_context_poc_walk(struct folio *folio, struct rmap_walk_control *rwc);

#endif /* COWCTX_RMAP_TESTING_COW_CONTEXT_POC_H */
