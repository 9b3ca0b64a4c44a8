/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every way a test reaches into the model, in one place: what each
 * seam injects, where the model reaches it, and which tests use it.
 * The model's code tests each for zero or NULL and does nothing else
 * with it; no seam changes what the model does unless a test sets it.
 * (The backends that exist only for tests live in rmap/testing/.)
 *
 *  seam                     set by                 reached in
 *  alloc_fail_nth           anon_vma_rules.c,      model_zalloc(),
 *                           mm_additions.c, ...    model_realloc()
 *  vma_tree_debug           tests/tap.h            every VMA tree change
 *  model->hook              cow_context_race.c,    dup_mmap()'s steps
 *                           cow_context_holes.c
 *  model->skip_cow_nth      kernel.t (cowctx       do_wp_page()
 *                           kernel --model-skip-cow), kernel_judge.c
 *  model->skip_merge_nth    layout_check.c         the VMA merges
 *  cow_instance->walk_step  cow_context_race.c     the COW context walk
 */
#ifndef COWCTX_INJECT_H
#define COWCTX_INJECT_H

#include <stdbool.h>

/*
 * Allocation failure, process-wide like the kernel's failslab: when
 * alloc_fail_nth is N > 0, the Nth allocation from now fails (model and
 * backends alike). 0 disables it.
 */
extern long alloc_fail_nth;

/* Check the VMA tree's keys against its VMAs after every change */
extern bool vma_tree_debug;

/*
 * Fork's steps, where model->hook (when set) is called with its
 * model->hook_data: a test observes or acts between them
 * (deterministic race testing). The wrong facts model->skip_cow_nth and
 * model->skip_merge_nth are documented in struct model.
 */
enum model_hook_point {
	HOOK_FORK_START,	/* child mm exists, no VMA copied yet */
	HOOK_FORK_VMA_LINKED,	/* one more VMA copied and its rmap set up */
	HOOK_FORK_PTES_COPIED,	/* that VMA's page tables copied */
	HOOK_FORK_END,		/* the child is complete */
};

/*
 * Points inside the COW context walk where another CPU may act:
 * cow_instance->walk_step (when set) runs a test's writers there,
 * deterministically.
 */
enum cow_walk_step {
	COW_STEP_ROOT_READ,	/* folio's context read, not yet pinned */
	COW_STEP_CONTEXT,	/* before a context's visit (ctx pinned) */
	COW_STEP_MM,		/* mm pinned, remap state read, not visited */
	COW_STEP_CANDIDATE,	/* between two candidates of one mm */
	COW_STEP_MM_END,	/* an mm visited, remap_seq not checked */
	COW_STEP_VMA_BUSY,	/* a VMA is write-locked: the walk waits */
	COW_STEP_CLIMB,		/* ctx's subtree done, the way on not read */
	COW_STEP_BACKLOG,	/* the tree's splices backlogged: it waits */
	NR_COW_WALK_STEPS,
};

#endif /* COWCTX_INJECT_H */
