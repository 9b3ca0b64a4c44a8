/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test only: every anon_vma invariant of a model, checked by brute
 * force (trees, counters, refcounts, chains, and that every mapped
 * anonymous folio points at a live anon_vma). The backend never calls
 * it; the anon_vma tests do at every `check`.
 */
#ifndef COWCTX_TESTS_ANON_VMA_VALIDATE_H
#define COWCTX_TESTS_ANON_VMA_VALIDATE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cowctx/mm.h>
#include "rmap/anon_vma.h"

static char av_validate_msg[256];

#define av_invalid(...)							\
	({								\
		snprintf(av_validate_msg, sizeof(av_validate_msg), __VA_ARGS__); \
		av_validate_msg;						\
	})

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;

	return x < y ? -1 : x > y;
}

/* Per-anon_vma tallies gathered from the VMAs and anon_vmas */
struct av_tally {
	unsigned long avcs;
	unsigned long active;
	unsigned long children;
	long pins;		/* descendants pinning this root */
};

static struct av_tally *tally_of(struct anon_vma **sorted, size_t n,
				 struct av_tally *tally, struct anon_vma *av)
{
	struct anon_vma **p = bsearch(&av, sorted, n, sizeof(*sorted),
				      cmp_ptr);

	return p ? &tally[p - sorted] : NULL;
}

static const char *validate_vma(struct vm_area_struct *vma,
				struct anon_vma **sorted, size_t n,
				struct av_tally *tally)
{
	struct anon_vma_chain *avc;
	struct anon_vma *root = NULL;
	struct av_tally *t;
	bool own_found = false;

	if (!vma->anon_vma != list_empty(&vma->anon_vma_chain))
		return av_invalid("VMA %lu: anon_vma %s but chain %s", vma->id,
			       vma->anon_vma ? "set" : "NULL",
			       list_empty(&vma->anon_vma_chain) ?
			       "empty" : "not empty");
	if (!vma->anon_vma)
		return NULL;
	t = tally_of(sorted, n, tally, vma->anon_vma);
	if (!t)
		return av_invalid("VMA %lu points at a freed anon_vma", vma->id);
	t->active++;
	list_for_each_entry(avc, &vma->anon_vma_chain, same_vma) {
		struct anon_vma *av = avc->anon_vma;

		t = tally_of(sorted, n, tally, av);
		if (!t)
			return av_invalid("VMA %lu links a freed anon_vma",
				       vma->id);
		t->avcs++;
		if (avc->vma != vma)
			return av_invalid("VMA %lu: AVC of another VMA", vma->id);
		if (avc->rb.start != vma->vm_pgoff ||
		    avc->rb.last != vma->vm_pgoff + vma_pages(vma) - 1)
			return av_invalid("VMA %lu: AVC key is not its range",
				       vma->id);
		if (root && av->root != root)
			return av_invalid("VMA %lu: chain spans two roots",
				       vma->id);
		root = av->root;
		if (av == vma->anon_vma)
			own_found = true;
	}
	if (!own_found)
		return av_invalid("VMA %lu: its anon_vma is not on its chain",
			       vma->id);
	avc = list_last_entry(&vma->anon_vma_chain, struct anon_vma_chain,
			      same_vma);
	if (avc->anon_vma != root)
		return av_invalid("VMA %lu: oldest link is not the root", vma->id);
	return NULL;
}

/*
 * NULL when every invariant holds, else a description of the first
 * problem (in a static buffer).
 */
static const char *anon_vma_validate(struct model *m)
{
	struct anon_vma_state *st = anon_vma_state(m);
	struct anon_vma **sorted = NULL;
	struct av_tally *tally = NULL;
	const char *err = NULL;
	struct anon_vma *av;
	struct mm_struct *mm;
	struct folio *folio;
	size_t n = 0, i;

	list_for_each_entry(av, &st->anon_vmas, node)
		n++;
	if ((long)n != m->acct.type[st->type_anon_vma].live)
		return av_invalid("%zu anon_vmas listed, %ld accounted", n,
			       m->acct.type[st->type_anon_vma].live);
	if (n) {
		sorted = calloc(n, sizeof(*sorted));
		tally = calloc(n, sizeof(*tally));
		if (!sorted || !tally) {
			err = "out of memory while validating";
			goto out;
		}
	}
	i = 0;
	list_for_each_entry(av, &st->anon_vmas, node)
		sorted[i++] = av;
	if (n)
		qsort(sorted, n, sizeof(*sorted), cmp_ptr);

	/* the family tree: parents, roots, children and root pins */
	for (i = 0; i < n; i++) {
		struct av_tally *pt, *rt;

		av = sorted[i];
		pt = tally_of(sorted, n, tally, av->parent);
		rt = tally_of(sorted, n, tally, av->root);
		if (!pt || !rt) {
			err = av_invalid("anon_vma %lu: freed parent or root",
				      av->id);
			goto out;
		}
		if (av->root->root != av->root) {
			err = av_invalid("anon_vma %lu: root is not a root",
				      av->id);
			goto out;
		}
		if ((av == av->root) != (av->parent == av)) {
			err = av_invalid("anon_vma %lu: self-parent iff root broken",
				      av->id);
			goto out;
		}
		pt->children++;
		if (av != av->root)
			rt->pins++;
		err = interval_tree_check(&av->rb_root);
		if (err) {
			err = av_invalid("anon_vma %lu: tree: %s", av->id, err);
			goto out;
		}
		if (interval_tree_empty(&av->rb_root)) {
			err = av_invalid("anon_vma %lu is live with an empty tree",
				      av->id);
			goto out;
		}
	}

	list_for_each_entry(mm, &m->mms, mmlist) {
		unsigned long j;
		struct vm_area_struct *vma;

		for_each_vma(mm, vma, j) {
			err = validate_vma(vma, sorted, n, tally);
			if (err)
				goto out;
		}
	}

	for (i = 0; i < n; i++) {
		av = sorted[i];
		if (av->rb_root.nr != tally[i].avcs) {
			err = av_invalid("anon_vma %lu: %lu AVCs in tree, %lu on chains",
				      av->id, av->rb_root.nr, tally[i].avcs);
			goto out;
		}
		if (av->num_active_vmas != tally[i].active) {
			err = av_invalid("anon_vma %lu: num_active_vmas %lu, %lu VMAs",
				      av->id, av->num_active_vmas,
				      tally[i].active);
			goto out;
		}
		if (av->num_children != tally[i].children) {
			err = av_invalid("anon_vma %lu: num_children %lu, %lu counted",
				      av->id, av->num_children,
				      tally[i].children);
			goto out;
		}
		if (av->refcount != 1 + (av == av->root ? tally[i].pins : 0)) {
			err = av_invalid("anon_vma %lu: refcount %d, want %ld",
				      av->id, av->refcount,
				      1 + (av == av->root ? tally[i].pins : 0));
			goto out;
		}
		if (rwsem_is_locked(&av->rwsem)) {
			err = av_invalid("anon_vma %lu: lock held at rest",
				      av->id);
			goto out;
		}
	}

	{
		long avcs = 0;

		for (i = 0; i < n; i++)
			avcs += (long)tally[i].avcs;
		if (avcs != m->acct.type[st->type_avc].live) {
			err = av_invalid("%ld AVCs on chains, %ld accounted", avcs,
				      m->acct.type[st->type_avc].live);
			goto out;
		}
	}

	list_for_each_entry(folio, &m->folios, lru) {
		if (!folio_test_anon(folio) || !folio_mapped(folio))
			continue;
		if (!tally_of(sorted, n, tally, folio_anon_rmap(folio))) {
			err = av_invalid("mapped folio %lu points at a freed anon_vma",
				      folio->pfn);
			goto out;
		}
	}
out:
	free(sorted);
	free(tally);
	return err;
}

#endif /* COWCTX_TESTS_ANON_VMA_VALIDATE_H */
