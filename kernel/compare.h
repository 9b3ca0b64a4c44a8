/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Holding the model to the real kernel at one point of a scenario:
 * the VMAs of every process, the sharing of every page (real PFNs
 * against model folios, one to one, with identical mapping sets) and
 * the number of live anon_vma objects.
 */
#ifndef COWCTX_KERNEL_COMPARE_H
#define COWCTX_KERNEL_COMPARE_H

#include <stdbool.h>
#include <stdio.h>

#include "kernel/snapshot.h"
#include "scenario/exec.h"

struct kcompare {
	FILE *out;		/* where differences are told */
	const char *filedir;	/* `file=` files live here (kernel paths) */
	long max_report;	/* tell at most this many per check */
	/* totals over the run */
	int checks;
	long pages_compared;
	long vma_mismatches;
	long sharing_mismatches;
	long anon_vma_mismatches;
	/* statements one side refused and the other ran */
	long statement_mismatches;
	/* the last point's anon_vma figures */
	bool have_kernel_av;
	long kernel_av;
	long kernel_avc;
	bool have_model_av;
	long model_av;
	long model_avc;
};

/*
 * Compare VMAs and pages of @ks with the model state @es. @where
 * prefixes each difference ("FILE:LINE"). 0, or -ENOMEM.
 */
int kcompare_memory(struct kcompare *c, struct ksnap *ks,
		    struct exec_state *es, const char *where);

/*
 * Compare the kernel's live anon_vma/anon_vma_chain counts (created by
 * the scenario: calibration already subtracted) with the model's
 * anon_vma backend, when the model runs that backend.
 */
void kcompare_anon_vma(struct kcompare *c, struct model *m, long kernel_av,
		       long kernel_avc, const char *where);

static inline long kcompare_total(const struct kcompare *c)
{
	return c->vma_mismatches + c->sharing_mismatches +
	       c->anon_vma_mismatches + c->statement_mismatches;
}

#endif /* COWCTX_KERNEL_COMPARE_H */
