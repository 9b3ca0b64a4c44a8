/* SPDX-License-Identifier: GPL-2.0 */
/* The checker: every backend's walk against the page-table oracle. */
#ifndef COWCTX_CHECK_H
#define COWCTX_CHECK_H

#include <stdio.h>

#include <cowctx/mm_types.h>

struct check_stats {
	unsigned long checks;
	unsigned long folios_checked;
	unsigned long mismatches;
	unsigned long reported;		/* mismatches printed so far */
	unsigned long max_report;	/* print at most this many */
};

/*
 * One `check`: for every anonymous folio the backend's walk must find
 * exactly the (mm, address) pairs the page tables hold; mapcounts and
 * refcounts must match the PTEs; with no process left, nothing may be
 * left (folios, page tables, VMAs, rmap objects). Mismatches are
 * counted in @st and the first st->max_report printed to @out, each
 * prefixed with @where ("FILE:LINE"). Returns 0, or -ENOMEM.
 */
int model_check(struct model *m, struct check_stats *st, FILE *out,
		const char *where);

struct stmt;
/*
 * model_check() at statement @at of the scenario file @path ("FILE:LINE"
 * in reports), or at its end when @at is NULL ("FILE:end")
 */
int model_check_at(struct model *m, const char *path, const struct stmt *at,
		   struct check_stats *st, FILE *out);

#endif /* COWCTX_CHECK_H */
