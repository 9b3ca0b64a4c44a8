/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The reverse-map interface. The model calls these hooks exactly where
 * Linux calls into anonymous rmap (mm/rmap.c, mm/vma.c, kernel/fork.c,
 * mm/memory.c); a backend implements them. Every backend answers the
 * same question: which (mm, address) pairs map this anonymous folio.
 *
 * Each model instance runs one backend, which owns folio->mapping of
 * the instance's anonymous folios and vma->anon_vma of its VMAs.
 *
 * The order of the hooks, operation by operation:
 *
 *   proc      ->mm_init
 *   fault     ->anon_prepare (first anonymous fault in the VMA), then
 *             ->folio_add_new for a new folio (first write, COW copy,
 *             file COW; the copied-from folio gets ->folio_mapcount_changed
 *             and maybe ->folio_free), or ->folio_move on exclusive reuse
 *   split     ->vma_clone(new, vma), ->vma_adjust_begin/end(vma),
 *             ->vma_link(new)
 *   merge     ->vma_clone(target, src) if the target takes anon state,
 *             ->vma_unlink of each swallowed VMA, then
 *             ->vma_adjust_begin/end of each VMA whose range changes
 *   mmap      a merge into a neighbour, or ->vma_link(new)
 *   munmap    splits at the edges; PTEs zapped; ->vma_unlink per VMA
 *   mremap    to move: a merge, or ->vma_clone(new, src) + ->vma_link(new);
 *             ->take_rmap_locks/->drop_rmap_locks around the PTE moves when
 *             need_rmap_locks; then the source range is unmapped, or with
 *             DONTUNMAP, if the source is exactly the moved range,
 *             ->vma_unlink(src) while it stays in the tree
 *   fork      ->mm_fork(parent, child); per copied VMA: ->vma_fork (not
 *             VM_WIPEONFORK), ->vma_link, then its PTEs are copied
 *             (->folio_mapcount_changed)
 *   exit      PTEs zapped, ->vma_unlink per VMA, ->mm_exit
 *
 * Contract on vma->anon_vma: the model treats it as "this VMA has
 * anonymous rmap state". It calls ->anon_prepare only while it is
 * NULL, and the hook must leave it non-NULL on success. Fork copies a
 * VMA's page tables only when it is non-NULL, as vma_needs_copy() does.
 */
#ifndef COWCTX_RMAP_H
#define COWCTX_RMAP_H

#include <stdbool.h>
#include <stdio.h>

#include <cowctx/mm_types.h>

struct rmap_walk_control {
	/*
	 * Called for each (vma, address) whose PTE maps the folio; return
	 * false to stop the walk (folio_referenced() stopping early).
	 */
	bool (*rmap_one)(struct folio *folio, struct vm_area_struct *vma,
			 unsigned long address, void *arg);
	void *arg;
	bool stopped;
};

struct rmap_ops {
	const char *name;
	const char *description;

	/* instance lifecycle: register object types in m->acct */
	int (*init)(struct model *m);
	void (*destroy)(struct model *m);

	/* a new, empty mm (the scenario's `proc`) */
	int (*mm_init)(struct mm_struct *mm);
	/* fork: @mm is the child, called before any VMA is copied */
	int (*mm_fork)(struct mm_struct *oldmm, struct mm_struct *mm);
	/* exit_mmap(), after every VMA is gone: the mm is dying */
	void (*mm_exit)(struct mm_struct *mm);

	/* __anon_vma_prepare(): first anonymous fault in @vma */
	int (*anon_prepare)(struct vm_area_struct *vma);
	/*
	 * anon_vma_clone(): @dst takes @src's anon state (split, the
	 * mremap copy, dup_anon_vma() when a merge expands @dst over
	 * @src). @dst->anon_vma was already copied from @src by the model.
	 */
	int (*vma_clone)(struct vm_area_struct *dst, struct vm_area_struct *src);
	/*
	 * anon_vma_fork(): @vma is the child's copy of @pvma, not yet in the
	 * child's tree. Called, as in dup_mmap(), for every copied VMA but
	 * those with VM_WIPEONFORK (whose anon_vma the model has cleared:
	 * they start empty in the child, and only ->vma_link sees them).
	 */
	int (*vma_fork)(struct vm_area_struct *vma, struct vm_area_struct *pvma);
	/*
	 * unlink_anon_vmas(): @vma is about to be freed, or (mremap
	 * DONTUNMAP) keeps living without its pages. Must leave
	 * vma->anon_vma NULL.
	 */
	void (*vma_unlink)(struct vm_area_struct *vma);
	/* a VMA was inserted into its mm's tree (mmap, split, move, fork) */
	void (*vma_link)(struct vm_area_struct *vma);
	/*
	 * vm_start/vm_end/vm_pgoff of a linked VMA are about to change,
	 * and have changed (anon_vma_interval_tree_pre/post_update_vma()).
	 */
	void (*vma_adjust_begin)(struct vm_area_struct *vma);
	void (*vma_adjust_end)(struct vm_area_struct *vma);
	/*
	 * vma_is_fork_child(): does @vma's anon state come from a parent
	 * (an anon_vma chain of more than one link)? Linux refuses merges
	 * that would spread such a VMA's lock scope (is_mergeable_anon_vma()
	 * in mm/vma.c, 6.16+). The model applies the rest of that rule
	 * itself: anon states merge when one is NULL or both are equal.
	 * NULL means "never".
	 */
	bool (*vma_is_fork_child)(struct vm_area_struct *vma);

	/* folio_add_new_anon_rmap(): a new exclusive folio at @address */
	void (*folio_add_new)(struct folio *folio, struct vm_area_struct *vma,
			      unsigned long address);
	/* folio_move_anon_rmap(): exclusive reuse by @vma's mm */
	void (*folio_move)(struct folio *folio, struct vm_area_struct *vma);
	/* the folio's mapcount went up (fork) or down (zap, COW) */
	void (*folio_mapcount_changed)(struct folio *folio);
	/* the last reference is gone; folio->mapping is still set */
	void (*folio_free)(struct folio *folio);

	/*
	 * rmap_walk(): report every (vma, address) that may map @folio
	 * through rmap_walk_candidate(). Returns 0 or -errno.
	 */
	int (*walk)(struct folio *folio, struct rmap_walk_control *rwc);

	/*
	 * take_rmap_locks()/drop_rmap_locks(): mremap moving PTEs into a VMA
	 * an rmap walk may visit before the source (need_rmap_locks).
	 */
	void (*take_rmap_locks)(struct vm_area_struct *vma);
	void (*drop_rmap_locks)(struct vm_area_struct *vma);

	/*
	 * Let deferred frees run (RCU callbacks), so leak checks and object
	 * counts see what a quiescent kernel would. May be NULL.
	 */
	void (*quiesce)(struct model *m);

	/* --json: extra backend figures ("locks": {...}); may be NULL */
	void (*print_json)(struct model *m, FILE *out);
};

/*
 * Look at @vma's PTE for @address: counts one VMA examined, and if it
 * maps @folio one mapping found, and calls rwc->rmap_one. Returns false
 * when the walk must stop. The rmap backends report candidates through
 * this, so their walk statistics are measured the same way; the scan
 * oracle counts for itself (every VMA of every mm examined).
 */
bool rmap_walk_candidate(struct rmap_walk_control *rwc, struct folio *folio,
			 struct vm_area_struct *vma, unsigned long address);

/* Call the backend's walk, counting it */
int rmap_walk(struct folio *folio, struct rmap_walk_control *rwc);

/*
 * The backend's print_json output as a string (malloc'd; NULL if it has
 * none or on ENOMEM), wrapped in {} when @braces.
 */
char *rmap_json(struct model *m, bool braces);

/* Every backend built in, NULL-terminated; and lookup by name */
extern const struct rmap_ops *const rmap_backends[];
const struct rmap_ops *rmap_backend_find(const char *name);

/* backends */
extern const struct rmap_ops scan_rmap_ops;
extern const struct rmap_ops anon_vma_rmap_ops;
extern const struct rmap_ops cow_context_rmap_ops;
extern const struct rmap_ops cow_context_noprune_rmap_ops;	/* test only */
extern const struct rmap_ops cow_context_poc_rmap_ops;		/* test only */
extern const struct rmap_ops broken_scan_rmap_ops;	/* test only */

#endif /* COWCTX_RMAP_H */
