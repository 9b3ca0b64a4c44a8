// SPDX-License-Identifier: GPL-2.0
/*
 * One workload on every backend at once, into figures and ratios; and
 * the cross-checks that make a figure trustworthy: every backend's
 * walks must find the same mappings, miss none, and leak nothing.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"

void workload_result_release(struct workload_result *r)
{
	int c;

	for (c = 0; c < NR_COLS; c++) {
		free(r->backend_json[c]);
		r->backend_json[c] = NULL;
	}
}

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

		const struct walk_pass *rw = &br->walk[WALK_RECLAIM];
		const struct walk_pass *fw = &br->walk[WALK_FULL];

		if (rw->missed || fw->missed || fw->extra) {
			snprintf(r->error, sizeof(r->error),
				 "%s: walks missed %lu mappings, reported %lu twice",
				 br->ops->name, rw->missed + fw->missed,
				 fw->extra);
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
		if (ref && (ref->walk[0].found != rw->found ||
			    ref->walk[0].walks != rw->walks ||
			    ref->walk[0].referenced != rw->referenced ||
			    ref->walk[1].found != fw->found)) {
			snprintf(r->error, sizeof(r->error),
				 "%s and %s disagree: %lu/%lu walks, %lu/%lu mappings found",
				 ref->ops->name, br->ops->name,
				 ref->walk[0].walks, rw->walks,
				 ref->walk[0].found, rw->found);
			return -1;
		}
		ref = br;
	}
	return 0;
}

/* One replay of @p on every backend, into @r (figures and ratios) */
static int run_once(const struct bench_opts *o, const struct bench_prog *p,
		    const struct workload_inst *inst, const double *instr,
		    struct workload_result *r, bool keep_json, FILE *progress)
{
	struct bench_run runs[NR_COLS];
	const struct bench_run *scan = NULL;
	int col_of[NR_COLS], nr, i, ret = 0;

	nr = setup_runs(o, runs, col_of);
	for (i = 0; i < nr; i++)
		runs[i].fork_instructions = instr[i];
	if (bench_exec(p, runs, nr, 0, inst->label, progress)) {
		for (i = 0; i < nr && !r->error[0]; i++)
			if (runs[i].error[0])
				snprintf(r->error, sizeof(r->error), "%s",
					 runs[i].error);
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
		if (keep_json)
			r->backend_json[col_of[i]] = rmap_json(runs[i].m, true);
	}
	for (i = 0; i < NR_METRICS; i++)
		r->ratio.v[i] = metric_ratio(r->ms[COL_COW_CONTEXT].v[i],
					     r->ms[COL_ANON_VMA].v[i]);
	for (i = 0; i < nr; i++)
		bench_run_release(&runs[i]);
	return ret;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of @n values, NAN if any is NAN (then all are: same program) */
static double median_d(double *v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (isnan(v[i]))
			return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	return n & 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * Each figure is the median over the repetitions: counts are the same
 * in every one; a time is then the middle of o->reps medians, and a
 * ratio the middle of o->reps ratios each taken side by side.
 */
static void combine(struct workload_result *r,
		    const struct workload_result *rep, int reps)
{
	double v[BENCH_MAX_REPS];
	int c, m, k;

	for (m = 0; m < NR_METRICS; m++) {
		for (c = 0; c < NR_COLS; c++) {
			if (!rep[0].have[c])
				continue;
			for (k = 0; k < reps; k++)
				v[k] = rep[k].ms[c].v[m];
			r->ms[c].v[m] = median_d(v, reps);
		}
		for (k = 0; k < reps; k++)
			v[k] = rep[k].ratio.v[m];
		r->ratio.v[m] = median_d(v, reps);
	}
	for (c = 0; c < NR_COLS; c++)
		r->have[c] = rep[0].have[c];
}

int bench_workload(const struct bench_opts *o,
		   const struct workload_inst *inst,
		   struct workload_result *r, bool callgrind, FILE *progress)
{
	const struct rmap_ops *ops[NR_COLS];
	double instr[NR_COLS];
	struct workload_result *rep;
	int reps = o->reps < 1 ? 1 : o->reps > BENCH_MAX_REPS ?
		   BENCH_MAX_REPS : o->reps;
	int c, i, k, nr = 0, ret = 0;
	struct bench_prog p;

	memset(r, 0, sizeof(*r));
	r->inst = *inst;
	for (i = 0; i < NR_COLS * NR_METRICS; i++)
		r->ms[i / NR_METRICS].v[i % NR_METRICS] = NAN;
	for (c = 0; c < NR_COLS; c++)
		if (o->col_ops[c])
			ops[nr++] = o->col_ops[c];
	for (i = 0; i < NR_COLS; i++)
		instr[i] = NAN;
	if (callgrind && inst->w->callgrind &&
	    callgrind_measure(inst, ops, nr, o->out_dir, instr, progress))
		for (i = 0; i < NR_COLS; i++)
			instr[i] = NAN;

	rep = model_zalloc(reps * sizeof(*rep));
	prog_init(&p);
	if (!rep || inst->w->build(&p, inst->v)) {
		snprintf(r->error, sizeof(r->error),
			 "building the program: out of memory");
		model_free(rep);
		prog_free(&p);
		return -1;
	}
	for (k = 0; k < reps && !ret; k++) {
		if (progress)
			fprintf(progress, "bench: %s%s", inst->label,
				reps > 1 ? "" : "\n");
		if (progress && reps > 1)
			fprintf(progress, " (%d/%d)\n", k + 1, reps);
		for (i = 0; i < NR_COLS * NR_METRICS; i++)
			rep[k].ms[i / NR_METRICS].v[i % NR_METRICS] = NAN;
		/* the backends' own figures are counts: one copy will do */
		ret = run_once(o, &p, inst, instr, &rep[k], k == 0, progress);
		if (ret)
			snprintf(r->error, sizeof(r->error), "%s",
				 rep[k].error[0] ? rep[k].error :
				 "out of memory");
	}
	if (!ret)
		combine(r, rep, reps);
	for (c = 0; c < NR_COLS; c++)
		r->backend_json[c] = rep[0].backend_json[c];
	for (k = 1; k < reps; k++)
		workload_result_release(&rep[k]);
	model_free(rep);
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
