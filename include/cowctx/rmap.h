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
 * A backend must implement ->anon_prepare, ->folio_add_new,
 * ->folio_move and ->walk, and give ->name and ->description; every
 * other hook is optional (NULL: nothing to do). The model never calls
 * a hook directly: it calls the rmap_*() wrappers below, as Linux's mm
 * calls include/linux/rmap.h, and they skip the optional hooks that are
 * NULL. Adding a backend: docs/adding-a-backend.md.
 *
 * The order of the hooks, operation by operation:
 *
 *   proc      ->mm_init
 *   fault     ->anon_prepare (first anonymous fault in the VMA), then
 *             ->folio_add_new for a new folio (first write, COW copy,
 *             file COW; the copied-from folio may get ->folio_free), or
 *             ->folio_move on exclusive reuse
 *   split     ->vma_clone(new, vma), ->vma_adjust_begin/end(vma),
 *             ->vma_link(new)
 *   merge     ->vma_clone(target, src) if the target takes anon state,
 *             ->vma_unlink of each swallowed VMA, then one critical
 *             section for the VMAs whose ranges change (vma_prepare()
 *             and vma_complete(): at most two, the expanding VMA and
 *             the neighbour whose edge moves): ->vma_adjust_begin of
 *             each, the ranges change, ->vma_adjust_end of each
 *   mmap      a merge into a neighbour, or ->vma_link(new)
 *   munmap    splits at the edges; PTEs zapped; ->vma_unlink per VMA
 *   mremap    to move: a merge, or ->vma_clone(new, src) + ->vma_link(new);
 *             ->take_rmap_locks/->drop_rmap_locks around the PTE moves when
 *             need_rmap_locks; then the source range is unmapped, or with
 *             DONTUNMAP, if the source is exactly the moved range,
 *             ->vma_unlink(src) while it stays in the tree
 *   fork      ->mm_fork(parent, child); per copied VMA: ->vma_fork (not
 *             VM_WIPEONFORK), ->vma_link, then its PTEs are copied; then
 *             ->mm_fork_done(parent, child)
 *   exit      PTEs zapped, ->vma_unlink per VMA, ->mm_exit
 *
 * Contract on vma->anon_vma: the model treats it as "this VMA has
 * anonymous rmap state". It calls ->anon_prepare only while it is
 * NULL, and the hook must leave it non-NULL on success. Fork copies a
 * VMA's page tables only when it is non-NULL, as vma_needs_copy() does.
 *
 * The per-VMA lock and the mmap_lock are the model's (<cowctx/mmap_lock.h>),
 * not a backend's. Locks and atomics that processes of one fork family
 * share count in the model's family figures (<cowctx/lock.h>), so every
 * backend's are measured in the same terms.
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
	/*
	 * rmap_walk_control.try_lock/contended in Linux: a try-walker
	 * (folio_referenced() without the folio lock) does not wait for a
	 * lock; the walk stops and sets contended instead.
	 */
	bool try_lock;
	bool contended;
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
	/* fork: dup_mmap() copied every VMA of @oldmm into @mm, successfully */
	void (*mm_fork_done)(struct mm_struct *oldmm, struct mm_struct *mm);
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
	 * One critical section may adjust two VMAs (vma_prepare()'s vma and
	 * adj_next): begin(vma), begin(adj_next), the ranges change,
	 * end(vma), end(adj_next). A backend with a lock takes it once for
	 * the pair, as vma_prepare() does.
	 */
	void (*vma_adjust_begin)(struct vm_area_struct *vma);
	void (*vma_adjust_end)(struct vm_area_struct *vma);
	/*
	 * vma_is_fork_child(): does @vma's anon state come from a parent
	 * (an anon_vma chain of more than one link)? The model decides
	 * merges from its own vma->anon_vma_id for every backend alike;
	 * scenario/layout.c asks a backend that has chains (anon_vma) to
	 * confirm that id. Optional: only a backend with Linux's chains
	 * can answer.
	 */
	bool (*vma_is_fork_child)(struct vm_area_struct *vma);

	/* folio_add_new_anon_rmap(): a new exclusive folio at @address */
	void (*folio_add_new)(struct folio *folio, struct vm_area_struct *vma,
			      unsigned long address);
	/* folio_move_anon_rmap(): exclusive reuse by @vma's mm */
	void (*folio_move)(struct folio *folio, struct vm_area_struct *vma);
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
	 * The backend's walk order is not anon_vma's: mremap takes the rmap
	 * locks around every PTE move, whatever need_rmap_locks says.
	 */
	bool rmap_locks_every_move;
	/*
	 * Bytes of the fields this reverse map needs in every
	 * vm_area_struct (anon_vma's: its anon_vma pointer and
	 * anon_vma_chain list_head). The model charges them for every VMA
	 * it allocates, the same way for every backend, as fields, not
	 * objects: see rmap_vma_fields_charge().
	 */
	size_t vma_field_bytes;

	/* --json: extra backend figures ("locks": {...}); may be NULL */
	void (*print_json)(struct model *m, FILE *out);
	/*
	 * The backend's own counters (the ones print_json prints), as one
	 * block of *@size bytes that a caller may copy and put back: the
	 * bench repeats walks to time them and puts every counter back as
	 * it was before. NULL: the backend keeps none.
	 */
	void *(*counters)(struct model *m, size_t *size);
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
 * @n VMAs (n < 0: that many fewer) were allocated: charge the backend's
 * vma_field_bytes for each, as the "vma_fields" field type of m->acct.
 * Called from vm_area_alloc() and vm_area_free() only, so every backend
 * pays for exactly the VMAs that exist (the model's nr_vmas).
 */
void rmap_vma_fields_charge(struct vm_area_struct *vma, long n);
#define RMAP_VMA_FIELDS	"vma_fields"

/*
 * The backend's print_json output as a string (malloc'd; NULL if it has
 * none or on ENOMEM), wrapped in {} when @braces.
 */
char *rmap_json(struct model *m, bool braces);

/*
 * The default backends (RMAP_BACKEND() in <cowctx/rmap_backends.h>),
 * NULL-terminated; and lookup by name among every backend built in,
 * test-only ones included.
 */
extern const struct rmap_ops *const rmap_backends[];
const struct rmap_ops *rmap_backend_find(const char *name);

#define RMAP_BACKEND(ops)	extern const struct rmap_ops ops;
#define RMAP_TEST_BACKEND(ops)	extern const struct rmap_ops ops;
#include <cowctx/rmap_backends.h>
#undef RMAP_BACKEND
#undef RMAP_TEST_BACKEND

/*
 * The model's calls into the backend (include/linux/rmap.h's role):
 * every optional hook is tested for NULL here and nowhere else.
 */
static inline const struct rmap_ops *mm_rmap(const struct mm_struct *mm)
{
	return mm->model->rmap;
}

static inline int rmap_init(struct model *m)
{
	return m->rmap->init ? m->rmap->init(m) : 0;
}

static inline void rmap_destroy(struct model *m)
{
	if (m->rmap->destroy)
		m->rmap->destroy(m);
}

static inline int rmap_mm_init(struct mm_struct *mm)
{
	return mm_rmap(mm)->mm_init ? mm_rmap(mm)->mm_init(mm) : 0;
}

static inline int rmap_mm_fork(struct mm_struct *oldmm, struct mm_struct *mm)
{
	return mm_rmap(mm)->mm_fork ? mm_rmap(mm)->mm_fork(oldmm, mm) : 0;
}

static inline void rmap_mm_fork_done(struct mm_struct *oldmm,
				     struct mm_struct *mm)
{
	if (mm_rmap(mm)->mm_fork_done)
		mm_rmap(mm)->mm_fork_done(oldmm, mm);
}

static inline void rmap_mm_exit(struct mm_struct *mm)
{
	if (mm_rmap(mm)->mm_exit)
		mm_rmap(mm)->mm_exit(mm);
}

/* __anon_vma_prepare(); the caller checks vma->anon_vma is NULL */
static inline int rmap_anon_prepare(struct vm_area_struct *vma)
{
	return mm_rmap(vma->vm_mm)->anon_prepare(vma);
}

/* anon_vma_clone() */
static inline int rmap_vma_clone(struct vm_area_struct *dst,
				 struct vm_area_struct *src)
{
	const struct rmap_ops *ops = mm_rmap(dst->vm_mm);

	return ops->vma_clone ? ops->vma_clone(dst, src) : 0;
}

/* anon_vma_fork() */
static inline int rmap_vma_fork(struct vm_area_struct *vma,
				struct vm_area_struct *pvma)
{
	const struct rmap_ops *ops = mm_rmap(vma->vm_mm);

	return ops->vma_fork ? ops->vma_fork(vma, pvma) : 0;
}

/* unlink_anon_vmas() */
static inline void rmap_vma_unlink(struct vm_area_struct *vma)
{
	if (mm_rmap(vma->vm_mm)->vma_unlink)
		mm_rmap(vma->vm_mm)->vma_unlink(vma);
}

static inline void rmap_vma_link(struct vm_area_struct *vma)
{
	if (mm_rmap(vma->vm_mm)->vma_link)
		mm_rmap(vma->vm_mm)->vma_link(vma);
}

/*
 * vma_prepare()/vma_complete()'s anon part: @adj_next (may be NULL) is
 * the neighbour adjusted in the same critical section.
 */
static inline void rmap_vma_prepare(struct vm_area_struct *vma,
				    struct vm_area_struct *adj_next)
{
	const struct rmap_ops *ops = mm_rmap(vma->vm_mm);

	if (!ops->vma_adjust_begin)
		return;
	ops->vma_adjust_begin(vma);
	if (adj_next)
		ops->vma_adjust_begin(adj_next);
}

static inline void rmap_vma_complete(struct vm_area_struct *vma,
				     struct vm_area_struct *adj_next)
{
	const struct rmap_ops *ops = mm_rmap(vma->vm_mm);

	if (!ops->vma_adjust_end)
		return;
	ops->vma_adjust_end(vma);
	if (adj_next)
		ops->vma_adjust_end(adj_next);
}

/* folio_add_new_anon_rmap() */
static inline void rmap_folio_add_new(struct folio *folio,
				      struct vm_area_struct *vma,
				      unsigned long address)
{
	mm_rmap(vma->vm_mm)->folio_add_new(folio, vma, address);
}

/* folio_move_anon_rmap() */
static inline void rmap_folio_move(struct folio *folio,
				   struct vm_area_struct *vma)
{
	mm_rmap(vma->vm_mm)->folio_move(folio, vma);
}

static inline void rmap_folio_free(struct folio *folio)
{
	if (folio->model->rmap->folio_free)
		folio->model->rmap->folio_free(folio);
}

/* Does this move need the rmap locks? (mm/mremap.c) */
static inline bool rmap_move_needs_locks(struct vm_area_struct *vma,
					 bool need_rmap_locks)
{
	return need_rmap_locks || mm_rmap(vma->vm_mm)->rmap_locks_every_move;
}

/* mm/mremap.c's take_rmap_locks()/drop_rmap_locks() */
static inline void rmap_take_locks(struct vm_area_struct *vma)
{
	if (mm_rmap(vma->vm_mm)->take_rmap_locks)
		mm_rmap(vma->vm_mm)->take_rmap_locks(vma);
}

static inline void rmap_drop_locks(struct vm_area_struct *vma)
{
	if (mm_rmap(vma->vm_mm)->drop_rmap_locks)
		mm_rmap(vma->vm_mm)->drop_rmap_locks(vma);
}

#endif /* COWCTX_RMAP_H */
