/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One judged run of a scenario: a calibration run of its process tree
 * alone, then the scenario on the real kernel and in the model in
 * lockstep, compared at every check and at the end. Everything real
 * it made (processes, tracefs instance, files) is gone when it returns,
 * whatever happened, a SIGINT included.
 */
#ifndef COWCTX_KERNEL_JUDGE_H
#define COWCTX_KERNEL_JUDGE_H

#include <stdbool.h>
#include <stdio.h>

#include "kernel/compare.h"
#include "kernel/idle_walks.h"
#include "scenario/scenario.h"

/* kjudge_run() returns this after a SIGINT/SIGTERM/SIGHUP */
#define KJUDGE_INTERRUPTED	130

struct kjudge_opts {
	const char *rmap;	/* model backend; NULL: anon_vma if built */
	long skip_cow;		/* model->skip_cow_nth (a test's wrong fact) */
	bool verbose;		/* snapshots and trace call sites to @report */
	FILE *report;		/* differences and errors are told here */
	long max_report;	/* per check */
	/* a forced rmap walk of every anonymous folio at each check */
	bool idle_walks;
	/*
	 * For a kernel without tracefs (the guest's): anon_vma objects
	 * are not counted, VMAs and pages are still compared
	 */
	bool no_trace;
	/*
	 * The model's zero-page mode whatever the probe finds (a test's
	 * wrong fact); SCN_ZERO_PAGE_UNSTATED: the probe's
	 */
	enum scn_zero_page model_zero_page;
};

struct kjudge_result {
	struct kcompare cmp;
	struct kidle idle;	/* with opts.idle_walks */
	const char *rmap;	/* the backend the model ran */
	enum scn_zero_page zero_page;	/* the kernel's, as probed */
	enum scn_zero_page model_zero_page;	/* the model's */
	int signal;		/* the signal that interrupted the run */
	int line;		/* the statement why is about; 0 none */
	char why[512];		/* a 77's or failure's reason */
};

/*
 * 0 when kernel and model agree everywhere (and, with idle_walks, every
 * forced walk was confirmed), 1 on a difference, 2 when
 * the scenario is refused (by both, or the run failed: res->why),
 * 77 when this machine cannot serve (res->why), or KJUDGE_INTERRUPTED.
 */
int kjudge_run(const struct scenario *sc, const struct kjudge_opts *o,
	       struct kjudge_result *res);

#endif /* COWCTX_KERNEL_JUDGE_H */
