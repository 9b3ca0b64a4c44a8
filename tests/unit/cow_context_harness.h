/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the cow_context tests: run scenario text on a model, check
 * every `check` with the oracle and with cow_context's own invariants,
 * and look at mappings by brute force.
 *
 * The invariants, beyond what the oracle sees:
 *  - each live mm's remap tree holds exactly one entry per VMA that is
 *    linked, has this mm's anonymous state and a nonzero offset, with
 *    that VMA's range and offset, and nothing else;
 *  - no VMA is read-locked, no VMA is "lossy" in a normal run;
 *  - every context's refcount equals 1 for a live mm, plus its children,
 *    plus the folios pointing at it; a child is younger than its parent,
 *    and only the last child may still be forking;
 *  - an exited context is off the walk's path (spliced, with no mm and
 *    no children) unless it is a family's root;
 *  - the instance's count of contexts equals those reachable from live
 *    mms and folios (so none leaked out of sight).
 */
#ifndef COWCTX_TEST_COW_CONTEXT_HARNESS_H
#define COWCTX_TEST_COW_CONTEXT_HARNESS_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cowctx/mm.h>
#include "rmap/cow_context.h"
#include "scenario/check.h"
#include "scenario/exec.h"
#include "scenario/gen.h"
#include "scenario/scenario.h"

static char cc_msg[512];

static __attribute__((format(printf, 1, 2))) const char *cc_fail(const char *fmt,
								  ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cc_msg, sizeof(cc_msg), fmt, ap);
	va_end(ap);
	return cc_msg;
}

static const char *cc_validate_remaps(struct mm_struct *mm)
{
	struct cow_context *ctx = mm_cow_context(mm);
	struct vm_area_struct *vma;
	unsigned int want = 0, i;
	unsigned long j;

	if (ctx->mm != mm)
		return cc_fail("mm %s: context points at another mm", mm->comm);
	if (ctx->nr_lossy)
		return cc_fail("mm %s: %u lossy VMAs", mm->comm, ctx->nr_lossy);
	for_each_vma(mm, vma, j) {
		unsigned long st = cow_vma_state(vma);
		bool found = false;

		if (!(st & COW_VMA_LINKED))
			return cc_fail("mm %s: linked VMA %#lx not marked",
				       mm->comm, vma->vm_start);
		if (vma->vm_lock_readers)
			return cc_fail("mm %s: VMA %#lx still read-locked",
				       mm->comm, vma->vm_start);
		if (vma->anon_vma && vma->anon_vma != ctx)
			return cc_fail("mm %s: VMA %#lx has another mm's marker",
				       mm->comm, vma->vm_start);
		if (!vma->anon_vma || !vma_remap_offset(vma)) {
			if (st & (COW_VMA_ENTRY | COW_VMA_RESERVED))
				return cc_fail("mm %s: VMA %#lx holds an entry it should not",
					       mm->comm, vma->vm_start);
			continue;
		}
		want++;
		if (!(st & COW_VMA_ENTRY))
			return cc_fail("mm %s: VMA %#lx pgoff %#lx lacks its entry",
				       mm->comm, vma->vm_start, vma_anon_pgoff(vma));
		for (i = 0; i < remap_tree_nr(&ctx->remaps); i++) {
			const struct remap_entry *e =
				remap_tree_entry(&ctx->remaps, i);

			if (remap_entry_pgoff(e) == vma_anon_pgoff(vma) &&
			    remap_entry_end(e) == vma_anon_pgoff(vma) + vma_pages(vma) &&
			    e->offset == vma_remap_offset(vma))
				found = true;
		}
		if (!found)
			return cc_fail("mm %s: no tree entry for VMA %#lx", mm->comm,
				       vma->vm_start);
	}
	if (remap_tree_nr(&ctx->remaps) != want)
		return cc_fail("mm %s: %u tree entries for %u remapped VMAs",
			       mm->comm, remap_tree_nr(&ctx->remaps), want);
	if (remap_tree_reserved(&ctx->remaps))
		return cc_fail("mm %s: %u reservations outstanding", mm->comm,
			       remap_tree_reserved(&ctx->remaps));
	return NULL;
}

/* Contexts reachable from mms and folios, with their expected counts */
struct cc_seen {
	struct cow_context *ctx[4096];
	int want[4096];
	bool walked[4096];	/* its reference on its parent counted */
	int nr;
};

static int cc_index(struct cc_seen *s, struct cow_context *ctx)
{
	int i;

	for (i = 0; i < s->nr; i++)
		if (s->ctx[i] == ctx)
			return i;
	if (s->nr == 4096)
		return -1;
	s->ctx[s->nr] = ctx;
	s->want[s->nr] = 0;
	s->walked[s->nr] = false;
	return s->nr++;
}

/* Add @ctx and its ancestors; each link up counts one child reference */
static bool cc_add_chain(struct cc_seen *s, struct cow_context *ctx)
{
	for (; ctx; ctx = ctx->parent) {
		int i = cc_index(s, ctx), p;

		if (i < 0)
			return false;
		if (s->walked[i])
			return true;
		s->walked[i] = true;
		if (!ctx->parent)
			return true;
		p = cc_index(s, ctx->parent);
		if (p < 0)
			return false;
		s->want[p]++;
	}
	return true;
}

static const char *cc_validate(struct model *m)
{
	static struct cc_seen s;
	struct mm_struct *mm;
	struct folio *folio;
	const char *err;
	long spliced = 0;
	int i;

	s.nr = 0;
	list_for_each_entry(mm, &m->mms, mmlist) {
		err = cc_validate_remaps(mm);
		if (err)
			return err;
		if (!cc_add_chain(&s, mm_cow_context(mm)))
			return "too many contexts";
		s.want[cc_index(&s, mm_cow_context(mm))]++;
	}
	list_for_each_entry(folio, &m->folios, lru) {
		if (!folio_test_anon(folio))
			continue;
		if (!cc_add_chain(&s, folio_cow_context(folio)))
			return "too many contexts";
		s.want[cc_index(&s, folio_cow_context(folio))]++;
	}
	for (i = 0; i < s.nr; i++) {
		struct cow_context *ctx = s.ctx[i], *c;

		if (ctx->refcount != s.want[i])
			return cc_fail("context of mm %lu: refcount %d, expected %d",
				       ctx->mm_id, ctx->refcount, s.want[i]);
		if (ctx->mm_pins)
			return cc_fail("context of mm %lu: mm still pinned",
				       ctx->mm_id);
		if (ctx->spliced) {
			spliced++;
			if (ctx->mm || !list_empty(&ctx->children))
				return cc_fail("spliced context %lu has an mm or children",
					       ctx->mm_id);
		} else if (!ctx->mm && ctx->parent) {
			return cc_fail("exited context %lu left on the walk's path",
				       ctx->mm_id);
		}
		list_for_each_entry(c, &ctx->children, siblings) {
			if (c->parent != ctx)
				return "a child with another parent";
			if (c->spliced)
				return "a spliced context on a children list";
			/* a child is forked after its parent (wherever it hangs) */
			if (c->fork_seq <= ctx->fork_seq)
				return "a child older than its parent";
			/* only the fork in progress (at most one, the last) waits */
			if (c->fork_seq == COW_FORK_PENDING &&
			    c->siblings.next != &ctx->children)
				return "a pending fork not at the tail";
		}
	}
	if (cow_instance(m)->nr_spliced != spliced)
		return cc_fail("%ld contexts spliced, %ld reachable",
			       cow_instance(m)->nr_spliced, spliced);
	if (cow_instance(m)->nr_contexts != s.nr)
		return cc_fail("%ld contexts live, %d reachable",
			       cow_instance(m)->nr_contexts, s.nr);
	return NULL;
}

/* ---- running scenarios ------------------------------------------- */

struct cc_run {
	FILE *report;		/* where mismatches go (NULL: stderr) */
	struct model *m;
	struct exec_state es;
	struct scenario sc;
	struct check_stats cs;
	const char *invalid;	/* first invariant broken, or NULL */
	char invalid_buf[512];
	int ret;
	/* extra work at each check, after the oracle (may be NULL) */
	void (*at_check)(struct cc_run *r);
};

static int cc_on_check(struct exec_state *es, const struct stmt *st, void *arg)
{
	struct cc_run *r = arg;
	const char *err;

	(void)st;
	if (model_check(es->m, &r->cs, r->report ? r->report : stderr,
			r->sc.path) < 0)
		return 1;
	err = cc_validate(es->m);
	if (err && !r->invalid) {
		snprintf(r->invalid_buf, sizeof(r->invalid_buf), "%s", err);
		r->invalid = r->invalid_buf;
	}
	if (r->at_check)
		r->at_check(r);
	return 0;
}

/* Run @text on a fresh model of @ops; the model stays until cc_run_end */
static __attribute__((unused)) int cc_run_text(struct cc_run *r, const struct rmap_ops *ops,
		       const char *name, const char *text, FILE *err)
{
	void (*at_check)(struct cc_run *r) = r->at_check;
	FILE *report = r->report;

	memset(r, 0, sizeof(*r));
	r->at_check = at_check;
	r->report = report;
	r->cs.max_report = 3;
	if (scenario_parse_string(name, text, &r->sc))
		return -1;
	r->m = model_create(ops);
	if (!r->m) {
		scenario_free(&r->sc);
		return -1;
	}
	r->es.on_check = cc_on_check;
	r->es.arg = r;
	r->ret = scenario_exec(&r->es, &r->sc, r->m, err);
	return 0;
}

/* Exit every process still alive (the last check, with nothing left) */
static __attribute__((unused)) void cc_exit_all(struct cc_run *r)
{
	while (r->es.nr_procs) {
		mm_exit(r->es.procs[r->es.nr_procs - 1].mm);
		r->es.nr_procs--;
	}
}

static __attribute__((unused)) void cc_run_end(struct cc_run *r)
{
	exec_state_release(&r->es);
	model_destroy(r->m);
	scenario_free(&r->sc);
}

static __attribute__((unused)) char *cc_gen_text(unsigned long seed, int ops)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	if (scenario_gen(seed, ops, f)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	return buf;
}

/* ---- brute force ------------------------------------------------- */

/* Every (mm, address) mapping @folio, by looking at every PTE */
static __attribute__((unused)) int cc_mappings(struct model *m, const struct folio *folio,
		       struct mm_struct **mms, unsigned long *addrs, int max)
{
	struct mm_struct *mm;
	int n = 0;

	list_for_each_entry(mm, &m->mms, mmlist) {
		struct vm_area_struct *vma;
		unsigned long i, addr;

		for_each_vma(mm, vma, i)
			for (addr = vma->vm_start; addr < vma->vm_end;
			     addr += PAGE_SIZE)
				if (mm_maps_folio(mm, addr, folio) && n < max) {
					mms[n] = mm;
					addrs[n++] = addr;
				}
	}
	return n;
}

#endif /* COWCTX_TEST_COW_CONTEXT_HARNESS_H */
