/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test only: variants of the cow_context backend, one line each,
 * COW_CONTEXT_VARIANT(ops, name, description, walk flags, walk).
 * rmap/cow_context.c includes this list with the macro defined and
 * stamps out each variant's ops from the backend's own hooks
 * (include/linux/cgroup_subsys.h's pattern); no include guard, on
 * purpose. cow_context-noprune measures what pruning saves;
 * cow_context-poc walks as the proof of concept does
 * (rmap/testing/cow_context_poc.c), to prove the oracle catches what
 * its early stop misses; cow_context-poc-order takes only its order
 * (children first), with pruning, to show what that order costs under
 * a racing fork (tests/unit/cow_context_race.c).
 */
COW_CONTEXT_VARIANT(cow_context_noprune_rmap_ops, "cow_context-noprune",
		    "test only: cow_context without fork-generation pruning",
		    COW_WALK_FORKED_ONLY, cow_context_walk)
COW_CONTEXT_VARIANT(cow_context_poc_rmap_ops, "cow_context-poc",
		    "test only: cow_context walking as the PoC does (early stop, children first)",
		    COW_WALK_POC_EARLY_STOP, cow_context_poc_walk)
COW_CONTEXT_VARIANT(cow_context_poc_order_rmap_ops, "cow_context-poc-order",
		    "test only: cow_context walking children first, as the PoC does",
		    COW_WALK_PRUNE, cow_context_poc_walk)
