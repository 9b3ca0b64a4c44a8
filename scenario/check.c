// SPDX-License-Identifier: GPL-2.0
/*
 * The checker. The truth comes from scanning every page table once per
 * check (the oracle in bulk); each folio's backend walk is then held
 * to it exactly, duplicates included: a VMA reported twice would be
 * aged twice by reclaim.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <cowctx/mm.h>
#include <cowctx/rmap.h>
#include "scenario/check.h"
#include "scenario/layout.h"
#include "scenario/scenario.h"

struct mapping {
	const struct folio *folio;
	const struct mm_struct *mm;
	unsigned long addr;
};

struct mapping_vec {
	struct mapping *v;
	size_t nr, cap;
	bool nomem;
};

static void vec_push(struct mapping_vec *vec, const struct folio *folio,
		     const struct mm_struct *mm, unsigned long addr)
{
	if (vec->nr == vec->cap) {
		size_t cap = vec->cap ? vec->cap * 2 : 256;
		struct mapping *v = realloc(vec->v, cap * sizeof(*v));

		if (!v) {
			vec->nomem = true;
			return;
		}
		vec->v = v;
		vec->cap = cap;
	}
	vec->v[vec->nr++] = (struct mapping){ folio, mm, addr };
}

static int cmp_mapping(const void *a, const void *b)
{
	const struct mapping *x = a, *y = b;

	if (x->folio != y->folio)
		return x->folio->pfn < y->folio->pfn ? -1 : 1;
	if (x->mm != y->mm)
		return x->mm->id < y->mm->id ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return 0;
}

struct ctx {
	struct check_stats *st;
	FILE *out;
	const char *where;
	const char *backend;
	struct mapping_vec truth;
};

__attribute__((format(printf, 2, 3)))
static void mismatch(struct ctx *c, const char *fmt, ...)
{
	va_list ap;

	c->st->mismatches++;
	if (c->st->reported >= c->st->max_report || !c->out)
		return;
	c->st->reported++;
	fprintf(c->out, "%s: %s: ", c->where, c->backend);
	va_start(ap, fmt);
	vfprintf(c->out, fmt, ap);
	va_end(ap);
	fputc('\n', c->out);
}

static void collect_pte(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
			void *arg)
{
	struct ctx *c = arg;

	if (!vma_lookup(mm, addr))
		mismatch(c, "%s maps pfn %lu at %#lx outside any VMA",
			 mm->comm, ptep->folio->pfn, addr);
	if (folio_test_flag(ptep->folio, PG_zero))
		return;
	vec_push(&c->truth, ptep->folio, mm, addr);
}

static void print_set(FILE *out, const struct mapping *v, size_t n)
{
	size_t i;

	fputc('{', out);
	for (i = 0; i < n; i++)
		fprintf(out, "%s%s:%#lx", i ? ", " : "", v[i].mm->comm,
			v[i].addr);
	fputc('}', out);
}

static void report_walk(struct ctx *c, const struct folio *folio,
			const struct mapping *want, size_t nwant,
			const struct mapping *got, size_t ngot)
{
	c->st->mismatches++;
	if (c->st->reported >= c->st->max_report || !c->out)
		return;
	c->st->reported++;
	fprintf(c->out, "%s: %s: folio pfn %lu index %#lx: expected ",
		c->where, c->backend, folio->pfn, folio->index);
	print_set(c->out, want, nwant);
	fprintf(c->out, ", got ");
	print_set(c->out, got, ngot);
	fputc('\n', c->out);
}

static bool collect_walk(struct folio *folio, struct vm_area_struct *vma,
			 unsigned long address, void *arg)
{
	vec_push(arg, folio, vma->vm_mm, address);
	return true;
}

static void check_folio(struct ctx *c, struct folio *folio,
			const struct mapping *want, size_t nwant)
{
	struct mapping_vec got = { 0 };
	struct rmap_walk_control rwc = {
		.rmap_one = collect_walk,
		.arg = &got,
	};
	int expect_refs = folio->_mapcount + (folio_test_anon(folio) ? 0 : 1);

	if ((size_t)folio->_mapcount != nwant)
		mismatch(c, "folio pfn %lu: mapcount %d but %zu PTEs map it",
			 folio->pfn, folio->_mapcount, nwant);
	if (folio->_refcount != expect_refs)
		mismatch(c, "folio pfn %lu: refcount %d, expected %d",
			 folio->pfn, folio->_refcount, expect_refs);
	if (!folio_test_anon(folio))
		return;
	c->st->folios_checked++;
	if (rmap_walk(folio, &rwc) < 0)
		mismatch(c, "folio pfn %lu: walk failed", folio->pfn);
	if (got.nomem) {
		c->truth.nomem = true;
		free(got.v);
		return;
	}
	if (got.nr)
		qsort(got.v, got.nr, sizeof(*got.v), cmp_mapping);
	if (got.nr != nwant ||
	    (nwant && memcmp(got.v, want, nwant * sizeof(*want))))
		report_walk(c, folio, want, nwant, got.v, got.nr);
	free(got.v);
}

/* With every process gone nothing may be left, in the model or rmap */
static void check_empty(struct ctx *c, struct model *m)
{
	int i;

	if (m->nr_anon_folios)
		mismatch(c, "%lu anonymous folios left after every exit",
			 m->nr_anon_folios);
	if (m->nr_pgtables)
		mismatch(c, "%lu page tables left after every exit",
			 m->nr_pgtables);
	if (m->nr_vmas)
		mismatch(c, "%lu VMAs left after every exit", m->nr_vmas);
	for (i = 0; i < m->acct.nr_types; i++)
		if (m->acct.type[i].live)
			mismatch(c, "%ld %s objects left after every exit",
				 m->acct.type[i].live, m->acct.type[i].name);
	if (m->acct.bytes)
		mismatch(c, "%ld rmap bytes left after every exit",
			 m->acct.bytes);
}

int model_check(struct model *m, struct check_stats *st, FILE *out,
		const char *where)
{
	struct ctx c = { .st = st, .out = out, .where = where,
			 .backend = m->rmap->name };
	struct mm_struct *mm;
	struct folio *folio, *tmp;
	const char *bad;
	size_t i = 0;

	st->checks++;
	list_for_each_entry(mm, &m->mms, mmlist)
		walk_page_tables(mm, collect_pte, &c);
	if (c.truth.nomem) {
		free(c.truth.v);
		return -ENOMEM;
	}
	if (c.truth.nr)
		qsort(c.truth.v, c.truth.nr, sizeof(*c.truth.v), cmp_mapping);
	/* folios are listed in pfn order, as the sorted truth is */
	list_for_each_entry_safe(folio, tmp, &m->folios, lru) {
		size_t j;

		while (i < c.truth.nr && c.truth.v[i].folio->pfn < folio->pfn)
			i++;
		for (j = i; j < c.truth.nr && c.truth.v[j].folio == folio; j++)
			;
		check_folio(&c, folio, c.truth.v + i, j - i);
		i = j;
	}
	if (list_empty(&m->mms))
		check_empty(&c, m);
	free(c.truth.v);
	/* the merge decisions rest on these: see mm/vma.c */
	bad = anon_vma_id_check(m);
	if (bad == anon_vma_id_nomem)
		return -ENOMEM;
	if (bad)
		mismatch(&c, "%s", bad);
	return c.truth.nomem ? -ENOMEM : 0;
}

int model_check_at(struct model *m, const char *path, const struct stmt *at,
		   struct check_stats *st, FILE *out)
{
	char where[512];

	if (at)
		snprintf(where, sizeof(where), "%s:%d", path, at->line);
	else
		snprintf(where, sizeof(where), "%s:end", path);
	return model_check(m, st, out, where);
}
