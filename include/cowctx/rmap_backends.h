/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every rmap backend built in, one line each: RMAP_BACKEND() for the
 * default list (`cowctx run` without --rmap, in this order),
 * RMAP_TEST_BACKEND() for those reachable by name only. Included with
 * both macros defined (include/linux/cgroup_subsys.h's pattern); no
 * include guard, on purpose. Adding a backend: docs/adding-a-backend.md.
 */
RMAP_BACKEND(scan_rmap_ops)
RMAP_BACKEND(anon_vma_rmap_ops)
RMAP_BACKEND(cow_context_rmap_ops)
RMAP_TEST_BACKEND(broken_scan_rmap_ops)
RMAP_TEST_BACKEND(cow_context_noprune_rmap_ops)
RMAP_TEST_BACKEND(cow_context_poc_rmap_ops)
RMAP_TEST_BACKEND(cow_context_poc_order_rmap_ops)
