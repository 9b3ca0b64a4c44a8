/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the anon_vma unit tests: run scenario text on a model with
 * the anon_vma backend, holding it to the oracle and to every anon_vma
 * invariant at each `check` and at the end.
 */
#ifndef COWCTX_TESTS_ANON_VMA_HARNESS_H
#define COWCTX_TESTS_ANON_VMA_HARNESS_H

#include <stdio.h>
#include <string.h>

#include <cowctx/mm.h>
#include "rmap/anon_vma.h"
#include <cowctx/rmap.h>
#include "scenario/check.h"
#include "scenario/exec.h"
#include "scenario/scenario.h"
#include "anon_vma_validate.h"

struct av_run {
	struct scenario sc;
	struct exec_state es;
	struct model *m;
	struct check_stats cs;
	const char *invalid;	/* first anon_vma_validate() complaint */
	char invalid_buf[256];
	int ret;		/* scenario_exec()'s result */
};

static inline int av_on_check(struct exec_state *es,
			      const struct stmt *st, void *arg)
{
	struct av_run *r = arg;
	const char *bad;

	(void)st;
	if (model_check(es->m, &r->cs, stderr, es->sc->path))
		return 2;
	bad = anon_vma_validate(es->m);
	if (bad && !r->invalid) {
		snprintf(r->invalid_buf, sizeof(r->invalid_buf), "%s", bad);
		r->invalid = r->invalid_buf;
	}
	return 0;
}

/*
 * Run @text; 0 when every statement ran. @err takes the scenario's
 * error messages (NULL: stderr). The model stays up for inspection
 * until av_run_end().
 */
static inline int av_run_text(struct av_run *r, const char *name,
			      const char *text, FILE *err)
{
	memset(r, 0, sizeof(*r));
	if (scenario_parse_string(name, text, &r->sc))
		return -1;
	r->m = model_create(&anon_vma_rmap_ops);
	if (!r->m)
		return -1;
	r->cs.max_report = 5;
	r->es.on_check = av_on_check;
	r->es.arg = r;
	r->ret = scenario_exec(&r->es, &r->sc, r->m, err ? err : stderr);
	return r->ret;
}

static inline void av_run_end(struct av_run *r)
{
	exec_state_release(&r->es);
	model_destroy(r->m);
	scenario_free(&r->sc);
	r->m = NULL;
}

static inline struct mm_struct *av_mm(struct av_run *r, const char *name)
{
	struct exec_proc *p = exec_find_proc(&r->es, name);

	return p ? p->mm : NULL;
}

static inline struct vm_area_struct *av_vma(struct av_run *r, const char *name,
				     unsigned long addr)
{
	struct mm_struct *mm = av_mm(r, name);

	return mm ? vma_lookup(mm, addr) : NULL;
}

static inline struct anon_vma *av_of(struct av_run *r, const char *name,
			      unsigned long addr)
{
	struct vm_area_struct *vma = av_vma(r, name, addr);

	return vma ? vma->anon_vma : NULL;
}

/* The folio @name maps at @addr, or NULL */
static inline struct folio *av_folio(struct av_run *r, const char *name,
			      unsigned long addr)
{
	struct mm_struct *mm = av_mm(r, name);
	pte_t *ptep = mm ? pte_lookup(mm, addr) : NULL;

	return ptep && pte_present(*ptep) ? ptep->folio : NULL;
}

static inline long av_live(struct av_run *r, const char *type)
{
	int i;

	for (i = 0; i < r->m->acct.nr_types; i++)
		if (!strcmp(r->m->acct.type[i].name, type))
			return r->m->acct.type[i].live;
	return -1;
}

static inline unsigned long av_chain_len(struct vm_area_struct *vma)
{
	struct anon_vma_chain *avc;
	unsigned long n = 0;

	list_for_each_entry(avc, &vma->anon_vma_chain, same_vma)
		n++;
	return n;
}

#endif /* COWCTX_TESTS_ANON_VMA_HARNESS_H */
