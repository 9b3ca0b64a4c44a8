// SPDX-License-Identifier: GPL-2.0
/*
 * One workload on every backend at once, into figures and ratios; and
 * the cross-checks that make a figure trustworthy: every backend's
 * walks must find the same mappings, miss none, and leak nothing.
 */
#include <errno.h>
#include <limits.h>
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

/*
 * Each operation's least time over the replays so far, per column:
 * what rmap_time_share is computed from (see rmap_time_share()).
 */
static void keep_least(unsigned long **least, const struct bench_run *runs,
		       const int *col_of, int nr, size_t nr_ops)
{
	size_t n;
	int i;

	for (i = 0; i < nr; i++) {
		unsigned long *l = least[col_of[i]];

		for (n = 0; l && n < nr_ops; n++)
			if (runs[i].op_ns[n] < l[n])
				l[n] = runs[i].op_ns[n];
	}
}

/*
 * The timed calls of a run, in the order the program made them (the
 * same in every replay): fork, exit, and each walk of each kind.
 */
enum { LC_FORK, LC_EXIT, LC_WALK, LC_FULL_WALK, NR_LC };

struct least_calls {
	struct sample_set s[NR_LC];
};

static const struct sample_set *call_series(const struct bench_run *br,
					    int k)
{
	switch (k) {
	case LC_FORK:
		return &br->fork_ns;
	case LC_EXIT:
		return &br->exit_ns;
	case LC_WALK:
		return &br->walk[WALK_RECLAIM].ns;
	default:
		return &br->walk[WALK_FULL].ns;
	}
}

/*
 * Each call's least time over the replays so far (before the metrics
 * sort the samples): a stall only ever adds time. 0 or -ENOMEM.
 */
static int keep_least_calls(struct least_calls *lc,
			    const struct bench_run *runs, const int *col_of,
			    int nr)
{
	size_t n;
	int i, k;

	for (i = 0; i < nr; i++) {
		for (k = 0; k < NR_LC; k++) {
			const struct sample_set *from = call_series(&runs[i], k);
			struct sample_set *to = &lc[col_of[i]].s[k];

			if (!to->v && from->nr) {
				to->v = model_zalloc(from->nr * sizeof(*to->v));
				if (!to->v)
					return -ENOMEM;
				memcpy(to->v, from->v, from->nr * sizeof(*to->v));
				to->nr = to->capacity = from->nr;
				continue;
			}
			for (n = 0; n < to->nr && n < from->nr; n++)
				if (from->v[n] < to->v[n])
					to->v[n] = from->v[n];
		}
	}
	return 0;
}

static void least_calls_free(struct least_calls *lc)
{
	int c, k;

	for (c = 0; c < NR_COLS; c++)
		for (k = 0; k < NR_LC; k++)
			model_free(lc[c].s[k].v);
}

/* One replay of @p on every backend, into @r (figures) */
static int run_once(const struct bench_opts *o, const struct bench_prog *p,
		    const struct workload_inst *inst, const double *instr,
		    struct workload_result *r, bool keep_json,
		    unsigned long **least, struct least_calls *lc,
		    FILE *progress)
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
	if (!ret && keep_least_calls(lc, runs, col_of, nr)) {
		snprintf(r->error, sizeof(r->error), "out of memory");
		ret = -1;
	}
	for (i = 0; i < nr; i++)
		if (col_of[i] == COL_SCAN)
			scan = &runs[i];
	for (i = 0; !ret && i < nr; i++) {
		r->have[col_of[i]] = true;
		metrics_from_run(&runs[i], scan, &r->ms[col_of[i]]);
		if (keep_json)
			r->backend_json[col_of[i]] = rmap_json(runs[i].m, true);
	}
	if (!ret)
		keep_least(least, runs, col_of, nr, p->nr);
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

/* The @q-th quartile of @n sorted values, interpolated */
static double quartile_d(const double *v, int n, int q)
{
	double pos = (n - 1) * q / 4.0;
	int i = (int)pos;

	if (i + 1 >= n)
		return v[n - 1];
	return v[i] + (pos - i) * (v[i + 1] - v[i]);
}

/* the median of the replays' values of @pick, over @reps */
#define MEDIAN_OVER(reps, rep, c, pick) ({				\
	double _v[BENCH_MAX_REPS];					\
	int _k;								\
									\
	for (_k = 0; _k < (reps); _k++)					\
		_v[_k] = (rep)[_k].ms[c].pick;				\
	median_d(_v, (reps));						\
})

/*
 * Each figure is the median over the replays (counts are the same in
 * every one), a total's spread the quartiles of the replays' figures;
 * per_call_figures() then replaces the per-call times. A ratio is the
 * quotient of the two figures on its row, so a reader can check it.
 */
static void combine(struct workload_result *r,
		    const struct workload_result *rep, int reps)
{
	double v[BENCH_MAX_REPS];
	int c, m, k;

	for (c = 0; c < NR_COLS; c++) {
		r->have[c] = rep[0].have[c];
		if (!r->have[c])
			continue;
		for (m = 0; m < NR_METRICS; m++) {
			r->ms[c].v[m] = MEDIAN_OVER(reps, rep, c, v[m]);
			if (metric_is_per_call(m)) {
				r->ms[c].q1[m] = MEDIAN_OVER(reps, rep, c, q1[m]);
				r->ms[c].q3[m] = MEDIAN_OVER(reps, rep, c, q3[m]);
			} else if (metric_is_time(m) &&
				   !isnan(r->ms[c].v[m])) {
				for (k = 0; k < reps; k++)
					v[k] = rep[k].ms[c].v[m];
				/* median_d() sorted them */
				median_d(v, reps);
				r->ms[c].q1[m] = quartile_d(v, reps, 1);
				r->ms[c].q3[m] = quartile_d(v, reps, 3);
			}
		}
	}
	for (c = 0; c < NR_COLS; c++) {
		metric_set_clear(&r->ratio[c]);
		if (!r->have[c] || !r->have[COL_ANON_VMA])
			continue;
		for (m = 0; m < NR_METRICS; m++)
			r->ratio[c].v[m] = metric_ratio(r->ms[c].v[m],
							r->ms[COL_ANON_VMA].v[m]);
	}
}

/*
 * Per-call times (fork_ns, exit_ns, walk_ns, full_walk_ns): each call
 * is charged its least time over the replays, as the operations of
 * rmap_time_share are below, and the figure is the median over the
 * calls, its spread the quartiles over the calls. (A walk's call is its
 * repeated batch, bench/exec.c. The walks' means are not per call: the
 * counted pass's time over its walks, a median over the replays as
 * every total is, is the figure the walk targets are stated in.)
 */
static void per_call_figures(struct workload_result *r,
			     struct least_calls *lc)
{
	static const int median_of[NR_LC] = {
		[LC_FORK] = M_FORK_NS, [LC_EXIT] = M_EXIT_NS,
		[LC_WALK] = M_WALK_NS, [LC_FULL_WALK] = M_FULL_WALK_NS,
	};
	int c, k, m;

	for (c = 0; c < NR_COLS; c++) {
		for (k = 0; r->have[c] && k < NR_LC; k++) {
			struct sample_set *s = &lc[c].s[k];

			if (!s->nr)
				continue;
			m = median_of[k];
			/* a nanosecond is the clock's resolution */
			r->ms[c].v[m] = round(sample_quartile(s, 2));
			r->ms[c].q1[m] = sample_quartile(s, 1);
			r->ms[c].q3[m] = sample_quartile(s, 3);
		}
	}
	for (c = 0; c < NR_COLS; c++) {
		if (!r->have[c] || !r->have[COL_ANON_VMA])
			continue;
		for (k = 0; k < NR_LC; k++) {
			m = median_of[k];
			r->ratio[c].v[m] = metric_ratio(r->ms[c].v[m],
							r->ms[COL_ANON_VMA].v[m]);
		}
	}
}

/*
 * rmap_time_share: 1 - the oracle's time / the backend's, walks left
 * out. The oracle keeps no rmap objects and its hooks are empty, so
 * what a backend spends beyond it is rmap work.
 *
 * Taken as the quotient of two replays' wall-clock totals, it came out
 * negative (-0.1 to -0.2 on realloc and exit) where a backend's rmap
 * work is a few per cent of the model's: on a shared two-core machine a
 * replay's total also holds every preemption and interrupt that landed
 * on that backend's operations, and one such stall is as large as the
 * difference being measured. A stall only ever adds time, so each
 * operation is charged its least time over the replays, for the
 * backend and the oracle alike, and the share is computed from the
 * sums of those: the same work, without the stalls.
 */
static void rmap_time_share(struct workload_result *r, unsigned long **least,
			    size_t nr_ops)
{
	double t[NR_COLS] = { 0 };
	size_t n;
	int c;

	if (!least[COL_SCAN])
		return;
	for (c = 0; c < NR_COLS; c++)
		for (n = 0; least[c] && n < nr_ops; n++)
			t[c] += least[c][n];
	for (c = 0; c < BENCH_MAX_COLS; c++) {
		if (!least[c] || !r->have[c] || !(t[c] > 0))
			continue;
		r->ms[c].v[M_RMAP_TIME_SHARE] = 1 - t[COL_SCAN] / t[c];
		r->ratio[c].v[M_RMAP_TIME_SHARE] =
			metric_ratio(r->ms[c].v[M_RMAP_TIME_SHARE],
				     r->ms[COL_ANON_VMA].v[M_RMAP_TIME_SHARE]);
	}
}

int bench_workload(const struct bench_opts *o,
		   const struct workload_inst *inst,
		   struct workload_result *r, bool callgrind, FILE *progress)
{
	const struct rmap_ops *ops[NR_COLS];
	unsigned long *least[NR_COLS] = { NULL };
	struct least_calls *lc;
	double instr[NR_COLS];
	struct workload_result *rep;
	int reps = o->reps < 1 ? 1 : o->reps > BENCH_MAX_REPS ?
		   BENCH_MAX_REPS : o->reps;
	int c, i, k, nr = 0, ret = 0;
	struct bench_prog p;

	memset(r, 0, sizeof(*r));
	r->inst = *inst;
	r->reps = reps;
	for (c = 0; c < NR_COLS; c++) {
		metric_set_clear(&r->ms[c]);
		metric_set_clear(&r->ratio[c]);
	}
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
	lc = model_zalloc(NR_COLS * sizeof(*lc));
	prog_init(&p);
	ret = rep && lc ? workload_build(inst, &p) : -ENOMEM;
	for (c = 0; !ret && c < NR_COLS; c++) {
		if (!o->col_ops[c])
			continue;
		least[c] = model_zalloc((p.nr + 1) * sizeof(*least[c]));
		if (!least[c])
			ret = -ENOMEM;
		for (i = 0; least[c] && i <= (int)p.nr; i++)
			least[c][i] = ULONG_MAX;
	}
	if (ret) {
		snprintf(r->error, sizeof(r->error),
			 "building the program: %s", strerror(-ret));
		for (c = 0; c < NR_COLS; c++)
			model_free(least[c]);
		model_free(lc);
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
		for (c = 0; c < NR_COLS; c++)
			metric_set_clear(&rep[k].ms[c]);
		/* the backends' own figures are counts: one copy will do */
		ret = run_once(o, &p, inst, instr, &rep[k], k == 0, least,
			       lc, progress);
		if (ret)
			snprintf(r->error, sizeof(r->error), "%s",
				 rep[k].error[0] ? rep[k].error :
				 "out of memory");
	}
	if (!ret) {
		combine(r, rep, reps);
		per_call_figures(r, lc);
		rmap_time_share(r, least, p.nr);
	}
	least_calls_free(lc);
	model_free(lc);
	for (c = 0; c < NR_COLS; c++) {
		r->backend_json[c] = rep[0].backend_json[c];
		model_free(least[c]);
	}
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
