// SPDX-License-Identifier: GPL-2.0
/*
 * The verdict: what `make run` leaves on the screen, at most about 15
 * lines. The headline figures, every target met or not with the
 * figures it was judged on, and where the second column loses to the
 * first, one line per kind of loss with its worst case and why. The
 * whole table is behind --full, and everything is in report.md.
 */
#include <math.h>
#include <string.h>

#include "bench/bench.h"

/* at most this many loss lines: the screen is for the answer */
#define MAX_LOSS_LINES 3

enum loss_kind {
	LOSS_WALK_TIME,
	LOSS_EXAMINED,
	LOSS_MEMORY,
	LOSS_ALLOCS,
	LOSS_LOCKS,
	LOSS_OTHER,
	NR_LOSS_KINDS,
};

static const char *const loss_kind_name[NR_LOSS_KINDS] = {
	[LOSS_WALK_TIME] = "walk time",
	[LOSS_EXAMINED] = "VMAs examined per mapping found",
	[LOSS_MEMORY] = "rmap memory",
	[LOSS_ALLOCS] = "rmap allocations",
	[LOSS_LOCKS] = "lock scope",
	[LOSS_OTHER] = "time or instructions outside walks",
};

static enum loss_kind kind_of(int m)
{
	int ph = m >= M_PHASE_BASE ? (m - M_PHASE_BASE) / PM_NR : -1;
	int what = m >= M_PHASE_BASE ? (m - M_PHASE_BASE) % PM_NR : -1;

	if (m == M_EXAMINED_PER_FOUND || m == M_EXAMINED_PER_FOUND_FULL)
		return LOSS_EXAMINED;
	if (m == M_WALK_NS || m == M_WALK_MEAN_NS || m == M_FULL_WALK_NS ||
	    m == M_FULL_WALK_MEAN_NS ||
	    ((ph == PH_WALK || ph == PH_FULL_WALK) && what == PM_TIME_NS))
		return LOSS_WALK_TIME;
	if (m == M_BYTES || m == M_PEAK_BYTES || m == M_OBJECTS ||
	    m == M_OBJECT_BYTES || m == M_VMA_FIELD_BYTES ||
	    m == M_RMAP_TO_VMA_BYTES || m == M_MID_BYTES ||
	    m == M_MAIN_OBJECTS)
		return LOSS_MEMORY;
	if (m == M_FORK_ALLOCS || what == PM_ALLOCS)
		return LOSS_ALLOCS;
	if (m == M_FAMILY_LOCK_ACQUISITIONS || m == M_FAMILY_LOCK_OBJECTS ||
	    m == M_FAMILY_LOCK_MAX_OBJECTS || what == PM_LOCK_ACQ ||
	    what == PM_LOCK_OBJECTS)
		return LOSS_LOCKS;
	return LOSS_OTHER;
}

struct worst {
	int count;			/* workloads that lose on this kind */
	double ratio;
	const struct workload_result *r;
	int m;
};

/* "fork_ns 52327 [51044..53683]": a figure with its spread, if any */
static void value(FILE *f, const struct metric_set *ms, int m)
{
	print_number(f, ms->v[m]);
	if (!isnan(ms->q1[m]))
		fprintf(f, " [%.0f..%.0f]", ms->q1[m], ms->q3[m]);
}

/* bytes shown with their two parts: "(object_bytes X + vma_field_bytes Y)" */
static void bytes_parts(FILE *f, const struct metric_set *ms, bool named)
{
	fprintf(f, " (%s", named ? "object_bytes " : "");
	print_number(f, ms->v[M_OBJECT_BYTES]);
	fprintf(f, " + %s", named ? "vma_field_bytes " : "");
	print_number(f, ms->v[M_VMA_FIELD_BYTES]);
	fputc(')', f);
}

/*
 * The headline's figures, each named by its metric (bench/headline.c:
 * report.md's headline table shows the same ones under the same names).
 */
static void headline(FILE *f, const struct workload_result *res, int nr)
{
	const struct workload_result *z = headline_result(res, nr);
	const struct metric_set *c, *a;
	int i, n = 0;

	if (!z)
		return;
	c = &z->ms[COL_COW_CONTEXT];
	a = &z->ms[COL_ANON_VMA];
	fprintf(f, "%s, cow_context against anon_vma:", z->inst.label);
	for (i = 0; i < nr_headline_figures; i++) {
		int m = headline_figures[i].metric;

		if (!headline_figures[i].verdict)
			continue;
		fprintf(f, "%s %s ", n++ ? ";" : "", metric_name(m));
		value(f, c, m);
		if (m == M_BYTES)
			bytes_parts(f, c, true);
		fputs(" against ", f);
		value(f, a, m);
		if (m == M_BYTES)
			bytes_parts(f, a, false);
	}
	fputc('\n', f);
}

/*
 * One line per kind of loss beyond the noise, with its worst case and
 * its cause where a counter shows one (bench/loss.c); then how many
 * worse figures are within the noise, which get no cause.
 */
static void losses(FILE *f, const struct workload_result *res, int nr)
{
	struct worst w[NR_LOSS_KINDS] = { 0 };
	int i, m, k, lines = 0, more = 0, noisy = 0;

	for (i = 0; i < nr; i++) {
		bool counted[NR_LOSS_KINDS] = { false };

		for (m = 0; m < NR_METRICS; m++) {
			int l = bench_loss(&res[i], m);
			double q;

			noisy += l == LOSS_NOISE;
			if (l != LOSS_REAL)
				continue;
			k = kind_of(m);
			q = res[i].ratio[COL_COW_CONTEXT].v[m];
			if (isnan(q))
				q = INFINITY;
			if (!counted[k]) {
				counted[k] = true;
				w[k].count++;
			}
			if (!w[k].r || q > w[k].ratio) {
				w[k].ratio = q;
				w[k].r = &res[i];
				w[k].m = m;
			}
		}
	}
	for (k = 0; k < NR_LOSS_KINDS; k++) {
		const struct workload_result *r = w[k].r;
		struct loss_cause c;

		if (!r)
			continue;
		if (lines++ >= MAX_LOSS_LINES) {
			fprintf(f, "%s%s", more++ ? ", " : "loses also on ",
				loss_kind_name[k]);
			continue;
		}
		fprintf(f, "loses on %s (%d of %d workloads); worst %s %s: ",
			loss_kind_name[k], w[k].count, nr, r->inst.label,
			metric_name(w[k].m));
		value(f, &r->ms[COL_COW_CONTEXT], w[k].m);
		fputs(" against ", f);
		value(f, &r->ms[COL_ANON_VMA], w[k].m);
		if (isfinite(w[k].ratio))
			fprintf(f, " (%.3gx)", w[k].ratio);
		if (loss_cause(w[k].m, r, &c))
			fprintf(f, ", %s (%s)\n", c.brief, c.counters);
		else
			fprintf(f, ", no counter shows a cause\n");
	}
	if (more)
		fprintf(f, " (report.md)\n");
	if (!lines)
		fprintf(f, "loses on no figure of any workload beyond the noise\n");
	if (noisy)
		fprintf(f, "within the noise: %d more figures worse by over 10%% as shown, quartiles overlapping or too few samples; no cause given (report.md)\n",
			noisy);
}

/* Any other columns: one line per workload, each column's key figures */
static void columns_summary(FILE *f, const struct bench_opts *o,
			    const struct workload_result *res, int nr)
{
	int i, c, shown = 0;

	for (i = 0; i < nr; i++) {
		if (res[i].error[0])
			continue;
		if (shown++ == 10) {
			fprintf(f, "... %d more workloads: --full\n", nr - 10);
			break;
		}
		fprintf(f, "%s:", res[i].inst.label);
		for (c = 1; c < o->nr_cols; c++) {
			const struct metric_set *q = &res[i].ratio[c];

			fprintf(f, " %s/%s bytes %.3g, fork_ns %.3g, walk_mean_ns %.3g%s",
				col_name(o, c), col_name(o, 0), q->v[M_BYTES],
				q->v[M_FORK_NS], q->v[M_WALK_MEAN_NS],
				c + 1 < o->nr_cols ? ";" : "");
		}
		fputc('\n', f);
	}
}

void print_verdict(FILE *f, const struct bench_opts *o,
		   const struct workload_result *res, int nr)
{
	struct target_check t[16];
	int i, n, failed = 0;

	for (i = 0; i < nr; i++)
		if (res[i].error[0]) {
			failed++;
			fprintf(f, "FAILED %s: %s\n", res[i].inst.label,
				res[i].error);
		}
	if (cols_are_proposal(o)) {
		headline(f, res, nr);
		n = targets_check(o, res, nr, t, 16);
		for (i = 0; i < n; i++) {
			fprintf(f, "%s %s", t[i].met < 0 ? "[n/a]    " :
				t[i].met ? "[met]    " : "[NOT met]", t[i].what);
			if (t[i].met >= 0)
				fprintf(f, ": %s", t[i].figure);
			fputc('\n', f);
		}
		losses(f, res, nr);
	} else if (o->nr_cols > 1) {
		columns_summary(f, o, res, nr);
	}
	for (i = 0; i < nr; i++)
		scenario_snapshot_note(f, &res[i].inst);
	for (i = 0; i < o->nr_cols; i++)
		fprintf(f, "%s%s", i ? " against " : "", col_name(o, i));
	fprintf(f, ", %d workloads x %d replays (medians, [Q1..Q3] quartiles); report %s/report.md, whole table --full\n",
		nr, o->reps, o->out_dir);
}
