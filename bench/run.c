// SPDX-License-Identifier: GPL-2.0
/*
 * One workload on every backend at once, into figures and ratios; and
 * the cross-checks that make a figure trustworthy: every backend's
 * walks must find the same mappings, miss none, and leak nothing.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "bench/bench.h"

/* the columns that have a backend, as runs; how many */
static int setup_runs(const struct bench_opts *o, struct bench_run *runs,
		      int *col_of)
{
	int c, nr = 0;

	for (c = 0; c < NR_COLS; c++) {
		if (!o->col_ops[c])
			continue;
		bench_run_init(&runs[nr], o->col_ops[c]);
		/* the oracle scans every page table per folio: too slow */
		runs[nr].skip_walk = c == COL_SCAN;
		col_of[nr++] = c;
	}
	return nr;
}

static int cross_check(struct workload_result *r, const struct bench_run *runs,
		       int nr)
{
	const struct bench_run *ref = NULL;
	int i;

	for (i = 0; i < nr; i++) {
		const struct bench_run *br = &runs[i];

		if (br->missed) {
			snprintf(r->error, sizeof(r->error),
				 "%s: walks missed %lu mappings",
				 br->ops->name, br->missed);
			return -1;
		}
		if (br->leak_bytes > 0) {
			snprintf(r->error, sizeof(r->error),
				 "%s: %ld rmap bytes live after every exit",
				 br->ops->name, br->leak_bytes);
			return -1;
		}
		if (br->skip_walk)
			continue;
		if (ref && (ref->found != br->found ||
			    ref->walks != br->walks ||
			    ref->referenced != br->referenced)) {
			snprintf(r->error, sizeof(r->error),
				 "%s and %s disagree: %lu/%lu walks, %lu/%lu mappings found",
				 ref->ops->name, br->ops->name, ref->walks,
				 br->walks, ref->found, br->found);
			return -1;
		}
		ref = br;
	}
	return 0;
}

int bench_workload(const struct bench_opts *o,
		   const struct workload_inst *inst,
		   struct workload_result *r, bool callgrind, FILE *progress)
{
	struct bench_run runs[NR_COLS];
	const struct rmap_ops *ops[NR_COLS];
	double instr[NR_COLS];
	const struct bench_run *scan = NULL;
	int col_of[NR_COLS], nr, i, ret = 0;
	struct bench_prog p;

	memset(r, 0, sizeof(*r));
	r->inst = *inst;
	for (i = 0; i < NR_COLS * NR_METRICS; i++)
		r->ms[i / NR_METRICS].v[i % NR_METRICS] = NAN;
	nr = setup_runs(o, runs, col_of);
	for (i = 0; i < nr; i++)
		ops[i] = runs[i].ops;
	if (callgrind && inst->w->callgrind &&
	    callgrind_measure(inst, ops, nr, o->out_dir, instr, progress) == 0)
		for (i = 0; i < nr; i++)
			runs[i].fork_instructions = instr[i];

	if (progress)
		fprintf(progress, "bench: %s\n", inst->label);
	prog_init(&p);
	if (inst->w->build(&p, inst->v) ||
	    bench_exec(&p, runs, nr, 0, inst->label, progress)) {
		for (i = 0; i < nr && !r->error[0]; i++)
			if (runs[i].error[0])
				snprintf(r->error, sizeof(r->error), "%s",
					 runs[i].error);
		if (!r->error[0])
			snprintf(r->error, sizeof(r->error),
				 "building the program: out of memory");
		ret = -1;
	}
	if (!ret)
		ret = cross_check(r, runs, nr);
	for (i = 0; i < nr; i++)
		if (col_of[i] == COL_SCAN)
			scan = &runs[i];
	for (i = 0; !ret && i < nr; i++) {
		r->have[col_of[i]] = true;
		metrics_from_run(&runs[i], scan, &r->ms[col_of[i]]);
	}
	for (i = 0; i < NR_METRICS; i++)
		r->ratio.v[i] = metric_ratio(r->ms[COL_COW_CONTEXT].v[i],
					     r->ms[COL_ANON_VMA].v[i]);
	for (i = 0; i < nr; i++)
		bench_run_release(&runs[i]);
	prog_free(&p);
	if (ret && progress)
		fprintf(progress, "bench: %s: %s\n", inst->label, r->error);
	return ret;
}

int bench_prog_fork_ns(const struct bench_opts *o, struct bench_prog *p,
		       const char *label, double *fork_ns, FILE *progress)
{
	struct bench_run runs[NR_COLS];
	int col_of[NR_COLS], nr, i, ret;

	for (i = 0; i < NR_COLS; i++)
		fork_ns[i] = NAN;
	nr = setup_runs(o, runs, col_of);
	if (progress)
		fprintf(progress, "bench: %s\n", label);
	ret = bench_exec(p, runs, nr, 0, label, progress);
	for (i = 0; i < nr; i++) {
		if (!ret)
			fork_ns[col_of[i]] = runs[i].fork_ns.nr ?
				(double)sample_median(&runs[i].fork_ns) : NAN;
		else if (runs[i].error[0] && progress)
			fprintf(progress, "bench: %s: %s\n", label,
				runs[i].error);
		bench_run_release(&runs[i]);
	}
	return ret;
}
