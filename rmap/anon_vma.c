// SPDX-License-Identifier: GPL-2.0
/*
 * The anon_vma backend: Linux's anonymous reverse map, object for
 * object (mm/rmap.c and mm/vma.c of 6.12, whose rules 6.18, the kernel
 * this project is judged on, still follows), so every figure the COW
 * context is compared with is the kernel's own.
 *
 * Each faulted VMA has an anon_vma; each (VMA, anon_vma it may hold
 * folios of) pair is an anon_vma_chain, kept in the anon_vma's interval
 * tree keyed by the VMA's pgoff range and on the VMA's same_vma list,
 * newest first. fork gives a child VMA links to every anon_vma of the
 * parent VMA plus an anon_vma of its own; one rwsem in the family's
 * root anon_vma covers every tree in the family.
 *
 * Upstream 7.0 reorders anon_vma_fork() (it allocates the child's
 * anon_vma and AVC before cloning and frees them again when an
 * ancestor is reused) and takes the root lock once in anon_vma_clone()
 * instead of per root; live objects and lock acquisitions come out the
 * same, only allocation events differ on reuse. The 6.12/6.18 order is
 * kept here because the running kernel's tracepoints are the judge.
 */
#include <errno.h>
#include <stdlib.h>

#include <cowctx/bug.h>
#include <cowctx/mm.h>
#include "mm/internal.h"
#include "rmap/anon_vma.h"
#include <cowctx/rmap.h>

/*
 * Lock accounting names, printed by ->print_json as
 * "locks": { NAME: {read, write, objects_touched, max_touched}, ... }.
 * "anon_vma_root" sums every site; "anon_vma_root.SITE" is one site.
 * (The same acquisitions also count in m->family_lock_stat, the
 * model's backend-independent family-lock figure.)
 * objects_touched counts anon_vma_chains (each one a VMA) inserted,
 * removed or visited in an interval tree while the root rwsem is held;
 * a VMA whose range changes counts each of its AVCs once.
 */
static const char *const site_name[AV_NR_LOCK_SITES] = {
	[AV_LOCK_PREPARE] = "anon_vma_root.prepare",
	[AV_LOCK_FORK] = "anon_vma_root.fork",
	[AV_LOCK_CLONE] = "anon_vma_root.clone",
	[AV_LOCK_UNLINK] = "anon_vma_root.unlink",
	[AV_LOCK_ADJUST] = "anon_vma_root.adjust",
	[AV_LOCK_WALK] = "anon_vma_root.walk",
	[AV_LOCK_MREMAP] = "anon_vma_root.mremap",
};

#define anon_vma_bug(...)	cowctx_bug("anon_vma", __VA_ARGS__)

static struct anon_vma_state *vma_state(struct vm_area_struct *vma)
{
	return anon_vma_state(vma->vm_mm->model);
}

/*
 * The root rwsem counts in m->family_lock_stat, where every backend's
 * family-wide lock counts; the root also remembers which call site
 * holds it, so the same acquisitions are broken down by site here.
 */
static void hold_begin(struct anon_vma_state *st, struct anon_vma *root,
		       enum anon_vma_lock_site site, bool write)
{
	root->hold_site = site;
	root->hold_touched = 0;
	if (write)
		st->site[site].write_acquired++;
	else
		st->site[site].read_acquired++;
}

static void hold_end(struct anon_vma_state *st, struct anon_vma *root)
{
	struct lock_stat *s = &st->site[root->hold_site];

	if (root->hold_touched > s->max_touched)
		s->max_touched = root->hold_touched;
}

/* @n AVCs inserted, removed or visited under @root's lock */
static void root_touch(struct anon_vma_state *st, struct anon_vma *root,
		       unsigned long n)
{
	lock_touch(&root->rwsem, n);
	root->hold_touched += n;
	st->site[root->hold_site].objects_touched += n;
}

static struct anon_vma *root_lock_write(struct anon_vma_state *st,
					struct anon_vma *anon_vma,
					enum anon_vma_lock_site site)
{
	struct anon_vma *root = anon_vma->root;

	down_write(&root->rwsem);
	hold_begin(st, root, site, true);
	return root;
}

static void root_unlock_write(struct anon_vma_state *st,
			      struct anon_vma *root)
{
	hold_end(st, root);
	up_write(&root->rwsem);
}

/* lock_anon_vma_root(): relock only when the root changes */
static struct anon_vma *lock_anon_vma_root(struct anon_vma_state *st,
					   struct anon_vma *root,
					   struct anon_vma *anon_vma,
					   enum anon_vma_lock_site site)
{
	if (anon_vma->root == root)
		return root;
	/* one VMA's chain never spans two families; the kernel WARNs */
	if (root)
		anon_vma_bug("anon_vma chain with two roots");
	return root_lock_write(st, anon_vma, site);
}

static void unlock_anon_vma_root(struct anon_vma_state *st,
				 struct anon_vma *root)
{
	if (root)
		root_unlock_write(st, root);
}

static struct anon_vma *anon_vma_alloc(struct model *m)
{
	struct anon_vma_state *st = anon_vma_state(m);
	struct anon_vma *anon_vma;

	anon_vma = account_alloc(&m->acct, st->type_anon_vma,
				 sizeof(*anon_vma), ANON_VMA_KERNEL_BYTES);
	if (!anon_vma)
		return NULL;
	anon_vma->refcount = 1;
	anon_vma->parent = anon_vma;
	anon_vma->root = anon_vma;
	init_rwsem(&anon_vma->rwsem, &m->family_lock_stat);
	/* its first line: root, rwsem, refcount (and num_children) */
	anon_vma->rwsem.line = &anon_vma->line;
	family_line_init(&m->family, &anon_vma->line);
	interval_tree_init(&anon_vma->rb_root);
	anon_vma->id = st->next_id++;
	list_add_tail(&anon_vma->node, &st->anon_vmas);
	return anon_vma;
}

static void anon_vma_free(struct model *m, struct anon_vma *anon_vma)
{
	struct anon_vma_state *st = anon_vma_state(m);

	if (anon_vma->refcount)
		anon_vma_bug("freeing anon_vma %lu with refcount %d",
			     anon_vma->id, anon_vma->refcount);
	/*
	 * The kernel takes and drops the root lock here when it is held,
	 * to wait out a folio_lock_anon_vma_read() racing with the free.
	 * With one thread nobody can hold it now.
	 */
	if (rwsem_is_locked(&anon_vma->root->rwsem))
		anon_vma_bug("freeing anon_vma %lu under its root lock",
			     anon_vma->id);
	list_del(&anon_vma->node);
	account_free(&m->acct, st->type_anon_vma, anon_vma,
		     ANON_VMA_KERNEL_BYTES);
}

/* atomic_t refcount: every change is a read-modify-write of its line */
static void refcount_add(struct model *m, struct anon_vma *anon_vma, int n)
{
	anon_vma->refcount += n;
	family_atomic(&m->family, &anon_vma->line);
}

static void get_anon_vma(struct model *m, struct anon_vma *anon_vma)
{
	refcount_add(m, anon_vma, 1);
}

/*
 * __put_anon_vma(): a non-root anon_vma pins its root, so freeing it
 * may free the root too; the cascade is one level deep because every
 * descendant pins the root directly.
 */
static void put_anon_vma(struct model *m, struct anon_vma *anon_vma)
{
	struct anon_vma *root = anon_vma->root;

	refcount_add(m, anon_vma, -1);
	if (anon_vma->refcount)
		return;
	anon_vma_free(m, anon_vma);
	if (root == anon_vma)
		return;
	refcount_add(m, root, -1);
	if (!root->refcount)
		anon_vma_free(m, root);
}

static struct anon_vma_chain *anon_vma_chain_alloc(struct model *m)
{
	return account_alloc(&m->acct, anon_vma_state(m)->type_avc,
			     sizeof(struct anon_vma_chain),
			     ANON_VMA_CHAIN_KERNEL_BYTES);
}

static void anon_vma_chain_free(struct model *m, struct anon_vma_chain *avc)
{
	account_free(&m->acct, anon_vma_state(m)->type_avc, avc,
		     ANON_VMA_CHAIN_KERNEL_BYTES);
}

/* @avc joins @vma to @anon_vma; it goes on the VMA's list, newest first */
static void avc_attach(struct anon_vma_chain *avc, struct vm_area_struct *vma,
		       struct anon_vma *anon_vma)
{
	*avc = (struct anon_vma_chain){ .vma = vma, .anon_vma = anon_vma };
	list_add(&avc->same_vma, &vma->anon_vma_chain);
}

/* The tree key is the VMA's pgoff range (avc_start_pgoff/last_pgoff) */
static void avc_tree_insert(struct anon_vma_state *st,
			    struct anon_vma_chain *avc)
{
	struct vm_area_struct *vma = avc->vma;

	avc->rb.start = vma->vm_pgoff;
	avc->rb.last = vma->vm_pgoff + vma_pages(vma) - 1;
	interval_tree_insert(&avc->rb, &avc->anon_vma->rb_root);
	root_touch(st, avc->anon_vma->root, 1);
}

static void avc_tree_remove(struct anon_vma_state *st,
			    struct anon_vma_chain *avc)
{
	interval_tree_remove(&avc->rb, &avc->anon_vma->rb_root);
	root_touch(st, avc->anon_vma->root, 1);
}

/*
 * anon_vma_compatible(): @b directly follows @a and could be one VMA
 * with it but for the access bits (what mprotect splits on), so
 * folios may later move between them under one anon_vma. The model
 * has no mempolicies; they are always equal.
 */
static bool anon_vma_compatible(struct vm_area_struct *a,
				struct vm_area_struct *b)
{
	return a->vm_end == b->vm_start && a->vm_file == b->vm_file &&
	       !((a->vm_flags ^ b->vm_flags) &
		 ~(VM_ACCESS_FLAGS | VM_SOFTDIRTY)) &&
	       b->vm_pgoff == a->vm_pgoff +
			      ((b->vm_start - a->vm_start) >> PAGE_SHIFT);
}

/*
 * reusable_anon_vma(): @old's anon_vma is shareable only while it is
 * the sole link of @old's chain; a chain that went through fork would
 * drag the new VMA into a whole family's lock.
 */
static struct anon_vma *reusable_anon_vma(struct vm_area_struct *old,
					  struct vm_area_struct *a,
					  struct vm_area_struct *b)
{
	if (anon_vma_compatible(a, b) && old->anon_vma &&
	    list_is_singular(&old->anon_vma_chain))
		return old->anon_vma;
	return NULL;
}

/* find_mergeable_anon_vma() (mm/vma.c): next first, then prev. */
static struct anon_vma *find_mergeable_anon_vma(struct vm_area_struct *vma)
{
	struct mm_struct *mm = vma->vm_mm;
	unsigned long i = vma_tree_index(mm, vma->vm_start);
	struct anon_vma *anon_vma;

	if (i >= mm->mm_mt.nr || mm->mm_mt.vmas[i] != vma)
		anon_vma_bug("anon_prepare on a VMA not in its mm's tree");
	if (i + 1 < mm->mm_mt.nr) {
		struct vm_area_struct *next = mm->mm_mt.vmas[i + 1];

		anon_vma = reusable_anon_vma(next, vma, next);
		if (anon_vma)
			return anon_vma;
	}
	if (i > 0) {
		struct vm_area_struct *prev = mm->mm_mt.vmas[i - 1];

		return reusable_anon_vma(prev, prev, vma);
	}
	return NULL;
}

/* __anon_vma_prepare() */
static int anon_vma_prepare(struct vm_area_struct *vma)
{
	struct model *m = vma->vm_mm->model;
	struct anon_vma_state *st = anon_vma_state(m);
	struct anon_vma *anon_vma, *root;
	struct anon_vma_chain *avc;

	if (vma->anon_vma)
		anon_vma_bug("anon_prepare on a VMA with an anon_vma");
	avc = anon_vma_chain_alloc(m);
	if (!avc)
		return -ENOMEM;
	anon_vma = find_mergeable_anon_vma(vma);
	if (!anon_vma) {
		anon_vma = anon_vma_alloc(m);
		if (!anon_vma) {
			anon_vma_chain_free(m, avc);
			return -ENOMEM;
		}
		anon_vma->num_children++;	/* self-parent link of a root */
	}
	/*
	 * The kernel rechecks vma->anon_vma under the page_table_lock for
	 * a racing fault in another thread; there is one thread here.
	 */
	root = root_lock_write(st, anon_vma, AV_LOCK_PREPARE);
	vma->anon_vma = anon_vma;
	avc_attach(avc, vma, anon_vma);
	avc_tree_insert(st, avc);
	anon_vma->num_active_vmas++;
	root_unlock_write(st, root);
	return 0;
}

static void unlink_anon_vmas(struct vm_area_struct *vma,
			     enum anon_vma_lock_site site);

/*
 * anon_vma_clone(): give @dst a link to every anon_vma of @src, oldest
 * first (so @dst's chain keeps @src's order). For a split, merge or
 * mremap copy @dst->anon_vma already equals @src's; only fork comes
 * here with it NULL, and may then adopt an ancestor that no VMA uses
 * and that has at most one child, instead of growing the family by
 * one more generation (Linux 3.19's fix for endless anon_vma chains).
 */
static int anon_vma_clone(struct vm_area_struct *dst,
			  struct vm_area_struct *src,
			  enum anon_vma_lock_site site)
{
	struct model *m = dst->vm_mm->model;
	struct anon_vma_state *st = anon_vma_state(m);
	struct anon_vma_chain *avc, *pavc;
	struct anon_vma *root = NULL;

	list_for_each_entry_reverse(pavc, &src->anon_vma_chain, same_vma) {
		struct anon_vma *anon_vma = pavc->anon_vma;

		avc = anon_vma_chain_alloc(m);
		if (!avc) {
			/*
			 * The kernel's first try is GFP_NOWAIT under the
			 * lock; on failure it drops the lock and retries
			 * with GFP_KERNEL, which may also fail.
			 */
			unlock_anon_vma_root(st, root);
			root = NULL;
			avc = anon_vma_chain_alloc(m);
			if (!avc)
				goto enomem_failure;
		}
		root = lock_anon_vma_root(st, root, anon_vma, site);
		avc_attach(avc, dst, anon_vma);
		avc_tree_insert(st, avc);
		/*
		 * A root is never reused: its self-link counts one child,
		 * and the parent VMA either still uses it or uses an
		 * anon_vma below it, which is a second child.
		 */
		if (!dst->anon_vma && src->anon_vma &&
		    anon_vma->num_children < 2 &&
		    anon_vma->num_active_vmas == 0)
			dst->anon_vma = anon_vma;
	}
	if (dst->anon_vma)
		((struct anon_vma *)dst->anon_vma)->num_active_vmas++;
	unlock_anon_vma_root(st, root);
	return 0;

enomem_failure:
	/* so that unlink does not drop a num_active_vmas never taken */
	dst->anon_vma = NULL;
	unlink_anon_vmas(dst, site);
	return -ENOMEM;
}

static int anon_vma_vma_clone(struct vm_area_struct *dst,
			      struct vm_area_struct *src)
{
	if (dst->anon_vma != src->anon_vma)
		anon_vma_bug("vma_clone with dst->anon_vma != src->anon_vma");
	if (!list_empty(&dst->anon_vma_chain))
		anon_vma_bug("vma_clone into a VMA that has a chain");
	return anon_vma_clone(dst, src, AV_LOCK_CLONE);
}

/* anon_vma_fork(): @vma is the child's copy of @pvma */
static int anon_vma_fork(struct vm_area_struct *vma,
			 struct vm_area_struct *pvma)
{
	struct model *m = vma->vm_mm->model;
	struct anon_vma_state *st = anon_vma_state(m);
	struct anon_vma *anon_vma, *root;
	struct anon_vma_chain *avc;
	int err;

	/* dup_mmap() does not call anon_vma_fork() for these */
	if (vma->vm_flags & VM_WIPEONFORK) {
		vma->anon_vma = NULL;
		return 0;
	}
	if (!pvma->anon_vma)
		return 0;
	if (!list_empty(&vma->anon_vma_chain))
		anon_vma_bug("vma_fork into a VMA that has a chain");

	/* reuse an ancestor, or allocate below the parent's own */
	vma->anon_vma = NULL;
	err = anon_vma_clone(vma, pvma, AV_LOCK_FORK);
	if (err)
		return err;
	if (vma->anon_vma)
		return 0;

	/* nothing to reuse: a new anon_vma of our own, under the parent's */
	anon_vma = anon_vma_alloc(m);
	avc = anon_vma ? anon_vma_chain_alloc(m) : NULL;
	if (!avc) {
		if (anon_vma)
			put_anon_vma(m, anon_vma);
		/* the links the clone made go too */
		unlink_anon_vmas(vma, AV_LOCK_FORK);
		return -ENOMEM;
	}
	anon_vma->num_active_vmas++;
	anon_vma->parent = pvma->anon_vma;
	anon_vma->root = anon_vma->parent->root;
	/* the lock lives in the root: it must outlive every descendant */
	get_anon_vma(m, anon_vma->root);
	vma->anon_vma = anon_vma;
	avc_attach(avc, vma, anon_vma);
	root = root_lock_write(st, anon_vma, AV_LOCK_FORK);
	avc_tree_insert(st, avc);
	anon_vma->parent->num_children++;
	root_unlock_write(st, root);
	return 0;
}

/*
 * unlink_anon_vmas(): drop every link of @vma, newest first; anon_vmas
 * left with an empty tree stay on the chain until the lock is dropped
 * and are then put, newest first, so the root goes last.
 */
static void unlink_anon_vmas(struct vm_area_struct *vma,
			     enum anon_vma_lock_site site)
{
	struct model *m = vma->vm_mm->model;
	struct anon_vma_state *st = anon_vma_state(m);
	struct anon_vma_chain *avc, *next;
	struct anon_vma *root = NULL;

	list_for_each_entry_safe(avc, next, &vma->anon_vma_chain, same_vma) {
		struct anon_vma *anon_vma = avc->anon_vma;

		root = lock_anon_vma_root(st, root, anon_vma, site);
		avc_tree_remove(st, avc);
		if (interval_tree_empty(&anon_vma->rb_root)) {
			anon_vma->parent->num_children--;
			continue;
		}
		list_del(&avc->same_vma);
		anon_vma_chain_free(m, avc);
	}
	if (vma->anon_vma) {
		((struct anon_vma *)vma->anon_vma)->num_active_vmas--;
		vma->anon_vma = NULL;
	}
	unlock_anon_vma_root(st, root);

	list_for_each_entry_safe(avc, next, &vma->anon_vma_chain, same_vma) {
		struct anon_vma *anon_vma = avc->anon_vma;

		if (anon_vma->num_children || anon_vma->num_active_vmas)
			anon_vma_bug("unused anon_vma %lu still has %lu children, %lu VMAs",
				     anon_vma->id, anon_vma->num_children,
				     anon_vma->num_active_vmas);
		put_anon_vma(m, anon_vma);
		list_del(&avc->same_vma);
		anon_vma_chain_free(m, avc);
	}
}

static void anon_vma_vma_unlink(struct vm_area_struct *vma)
{
	unlink_anon_vmas(vma, AV_LOCK_UNLINK);
}

static struct anon_vma *vma_root(struct vm_area_struct *vma)
{
	return vma->anon_vma ? ((struct anon_vma *)vma->anon_vma)->root : NULL;
}

/*
 * vma_prepare()/vma_complete(): the tree key is the VMA's range, so
 * its AVCs leave every tree before the range changes and come back
 * after, under the root's write lock. vma_prepare() takes that lock
 * once for its vma and adj_next together (they share an anon_vma, or
 * one has none), so the pair is one acquisition here too: taken by the
 * first begin that has anon state, dropped by the last end.
 */
static void anon_vma_adjust_begin(struct vm_area_struct *vma)
{
	struct anon_vma_state *st = vma_state(vma);
	struct anon_vma *root = vma_root(vma);
	struct anon_vma_chain *avc;

	if (st->nr_adjusting == sizeof(st->adjusting) / sizeof(*st->adjusting))
		anon_vma_bug("more than two VMAs in one vma_prepare()");
	if (!st->nr_adjusting)
		st->adjust_root = NULL;
	st->adjusting[st->nr_adjusting++] = vma;
	if (!root)
		return;
	if (!st->adjust_root)
		st->adjust_root = root_lock_write(st, vma->anon_vma,
						  AV_LOCK_ADJUST);
	else if (st->adjust_root != root)
		anon_vma_bug("vma_prepare() over two anon_vma families");
	list_for_each_entry(avc, &vma->anon_vma_chain, same_vma)
		avc_tree_remove(st, avc);
}

static void anon_vma_adjust_end(struct vm_area_struct *vma)
{
	struct anon_vma_state *st = vma_state(vma);
	struct anon_vma *root = vma_root(vma);
	struct anon_vma_chain *avc;
	unsigned int i;

	for (i = 0; i < st->nr_adjusting && st->adjusting[i] != vma; i++)
		;
	if (i == st->nr_adjusting)
		anon_vma_bug("vma_adjust_end without vma_adjust_begin");
	st->adjusting[i] = st->adjusting[--st->nr_adjusting];
	if (root && root != st->adjust_root)
		anon_vma_bug("VMA %lu changed anon_vma while adjusting",
			     vma->id);
	if (root) {
		list_for_each_entry(avc, &vma->anon_vma_chain, same_vma) {
			avc->rb.start = vma->vm_pgoff;
			avc->rb.last = vma->vm_pgoff + vma_pages(vma) - 1;
			interval_tree_insert(&avc->rb,
					     &avc->anon_vma->rb_root);
		}
	}
	if (!st->nr_adjusting && st->adjust_root) {
		root_unlock_write(st, st->adjust_root);
		st->adjust_root = NULL;
	}
}

/*
 * take_rmap_locks()/drop_rmap_locks() (mm/mremap.c): PTEs moving into
 * a VMA that a walk could reach before the source must not be missed
 * by a walk in between, so the move holds the family's lock.
 */
static void anon_vma_take_rmap_locks(struct vm_area_struct *vma)
{
	if (vma->anon_vma)
		root_lock_write(vma_state(vma), vma->anon_vma,
				AV_LOCK_MREMAP);
}

static void anon_vma_drop_rmap_locks(struct vm_area_struct *vma)
{
	if (vma->anon_vma)
		root_unlock_write(vma_state(vma),
				  ((struct anon_vma *)vma->anon_vma)->root);
}

/*
 * vma_is_fork_child() (mm/vma.c): a chain of more than one link means
 * the VMA shares its family's lock; merging it would widen that lock.
 */
static bool anon_vma_is_fork_child(struct vm_area_struct *vma)
{
	return vma->anon_vma && !list_is_singular(&vma->anon_vma_chain);
}

/* __folio_set_anon() for an exclusive folio: the VMA's own anon_vma */
static void anon_vma_folio_add_new(struct folio *folio,
				   struct vm_area_struct *vma,
				   unsigned long address)
{
	if (!vma->anon_vma)
		anon_vma_bug("new anon folio in a VMA without anon_vma");
	folio_set_anon_rmap(folio, vma->anon_vma);
	folio->index = linear_page_index(vma, address);
}

/*
 * folio_move_anon_rmap(): the folio is now exclusive to @vma's mm, so
 * walks start at its anon_vma and skip parent and siblings. The index
 * stays: @vma maps it linearly, as every VMA of the family does.
 */
static void anon_vma_folio_move(struct folio *folio,
				struct vm_area_struct *vma)
{
	if (!vma->anon_vma)
		anon_vma_bug("folio_move to a VMA without anon_vma");
	folio_set_anon_rmap(folio, vma->anon_vma);
}

/*
 * rmap_walk_anon(): every VMA linked to the folio's anon_vma whose
 * pgoff range holds the folio's index is a candidate, whether or not
 * it still maps the folio (a COWed child, a sibling forked later):
 * those are the walk's false positives, counted by rmap_walk_candidate.
 */
static int anon_vma_walk(struct folio *folio, struct rmap_walk_control *rwc)
{
	struct anon_vma_state *st = anon_vma_state(folio->model);
	struct interval_tree_node *n;
	struct anon_vma *anon_vma, *root;
	unsigned long pgoff = folio->index;

	/*
	 * folio_lock_anon_vma_read(): an unmapped folio's anon_vma may
	 * be gone, and there is nothing to find anyway.
	 */
	if (!folio_test_anon(folio) || !folio_mapped(folio))
		return 0;
	anon_vma = folio_anon_rmap(folio);
	root = anon_vma->root;
	down_read(&root->rwsem);
	/* a nested reader (an rmap_one that walks) keeps the outer site */
	if (root->rwsem.readers == 1)
		hold_begin(st, root, AV_LOCK_WALK, false);
	else
		st->site[AV_LOCK_WALK].read_acquired++;
	for (n = interval_tree_iter_first(&anon_vma->rb_root, pgoff, pgoff);
	     n; n = interval_tree_iter_next(n, pgoff, pgoff)) {
		struct anon_vma_chain *avc =
			container_of(n, struct anon_vma_chain, rb);
		struct vm_area_struct *vma = avc->vma;

		/* a stale key means a range changed without adjust hooks */
		if (n->start != vma->vm_pgoff ||
		    n->last != vma->vm_pgoff + vma_pages(vma) - 1)
			anon_vma_bug("AVC key [%lu, %lu] but VMA pgoff range [%lu, %lu]",
				     n->start, n->last, vma->vm_pgoff,
				     vma->vm_pgoff + vma_pages(vma) - 1);
		root_touch(st, root, 1);
		if (!rmap_walk_candidate(rwc, folio, vma,
					 vma_pgoff_address(vma, pgoff)))
			break;
	}
	if (root->rwsem.readers == 1)
		hold_end(st, root);
	up_read(&root->rwsem);
	return 0;
}

static int anon_vma_init(struct model *m)
{
	struct anon_vma_state *st = model_zalloc(sizeof(*st));
	int i;

	if (!st)
		return -ENOMEM;
	st->type_anon_vma = account_register(&m->acct, "anon_vma");
	st->type_avc = account_register(&m->acct, "anon_vma_chain");
	INIT_LIST_HEAD(&st->anon_vmas);
	for (i = 0; i < AV_NR_LOCK_SITES; i++)
		st->site[i].name = site_name[i];
	m->rmap_private = st;
	return 0;
}

static void anon_vma_destroy(struct model *m)
{
	/*
	 * Every mm is gone by now, and with them every anon_vma; any left
	 * would be a leak, which the model's checks and ASan report.
	 */
	model_free(m->rmap_private);
	m->rmap_private = NULL;
}

static void *anon_vma_counters(struct model *m, size_t *size)
{
	struct anon_vma_state *st = anon_vma_state(m);

	*size = sizeof(st->site);
	return st->site;
}

static void anon_vma_print_json(struct model *m, FILE *out)
{
	struct anon_vma_state *st = anon_vma_state(m);
	struct lock_stat total = { .name = "anon_vma_root" };
	int i;

	for (i = 0; i < AV_NR_LOCK_SITES; i++) {
		const struct lock_stat *s = &st->site[i];

		total.read_acquired += s->read_acquired;
		total.write_acquired += s->write_acquired;
		total.objects_touched += s->objects_touched;
		if (s->max_touched > total.max_touched)
			total.max_touched = s->max_touched;
	}
	fprintf(out, "\"locks\": {");
	lock_stat_print_json(out, total.name, &total);
	for (i = 0; i < AV_NR_LOCK_SITES; i++) {
		fputs(", ", out);
		lock_stat_print_json(out, site_name[i], &st->site[i]);
	}
	fputs(", ", out);
	family_print_json(out, &m->family_lock_stat, &m->family);
	fputc('}', out);
}

/*
 * What anon_vma needs in every vm_area_struct (6.12's
 * include/linux/mm_types.h): struct list_head anon_vma_chain, 16 bytes,
 * and struct anon_vma *anon_vma, 8. A replacement drops both.
 */
#define ANON_VMA_VMA_FIELD_BYTES	(16 + 8)

const struct rmap_ops anon_vma_rmap_ops = {
	.name = "anon_vma",
	.description = "Linux's anon_vma/anon_vma_chain reverse map (baseline)",
	.vma_field_bytes = ANON_VMA_VMA_FIELD_BYTES,
	.init = anon_vma_init,
	.destroy = anon_vma_destroy,
	.anon_prepare = anon_vma_prepare,
	.vma_clone = anon_vma_vma_clone,
	.vma_fork = anon_vma_fork,
	.vma_unlink = anon_vma_vma_unlink,
	.vma_adjust_begin = anon_vma_adjust_begin,
	.vma_adjust_end = anon_vma_adjust_end,
	.vma_is_fork_child = anon_vma_is_fork_child,
	.folio_add_new = anon_vma_folio_add_new,
	.folio_move = anon_vma_folio_move,
	.walk = anon_vma_walk,
	.take_rmap_locks = anon_vma_take_rmap_locks,
	.drop_rmap_locks = anon_vma_drop_rmap_locks,
	.print_json = anon_vma_print_json,
	.counters = anon_vma_counters,
};

