// SPDX-License-Identifier: GPL-2.0
/*
 * Scaling curves (bytes and fork cost against V and N, walk cost
 * against N and D) and the real-kernel anchor (fork of V faulted or
 * untouched VMAs): workloads swept over one parameter, every point run
 * on every backend side by side. The remap tree's own curves are
 * bench/remap_curve.c's; they come last.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"

struct sweep {
	const char *spec;	/* the workload and its fixed parameters */
	const char *fixed;	/* one more, sized by sweep_fixed[] */
	const char *param;	/* the one swept */
	long x[3][CURVE_MAX_POINTS];	/* per size, 0-terminated */
};

static const struct sweep sweeps[] = {
	{ "zygote:cow=10", "N", "V", {
		{ 5, 10, 20 }, { 10, 100, 300, 1000, 3000 },
		{ 10, 100, 1000, 3000, 10000 } } },
	{ "zygote:cow=10", "V", "N", {
		{ 1, 2, 4 }, { 1, 10, 30, 100, 200 },
		{ 1, 10, 50, 100, 200, 500 } } },
	{ "chain:V=100,exit=0", NULL, "D", {
		{ 1, 2, 4 }, { 1, 4, 16, 32, 64 }, { 1, 10, 50, 100, 200 } } },
	{ "chain:V=100,exit=1", NULL, "D", {
		{ 1, 2, 4 }, { 1, 4, 16, 32, 64 }, { 1, 10, 50, 100, 200 } } },
};

/* the fixed N of the V sweep and V of the N sweep, per size */
static const long sweep_fixed[2][3] = { { 4, 20, 100 }, { 20, 300, 1000 } };

/* which curves each sweep feeds */
struct curve_def {
	int sweep;
	const char *id;
	const char *title;
	const char *ylabel;
	int metric;
	bool logy;
};

static const struct curve_def curve_defs[] = {
	{ 0, "bytes_vs_V", "rmap bytes, zygote, against V",
	  "bytes (objects and per-VMA fields)", M_BYTES, true },
	{ 0, "fork_ns_vs_V", "median fork time, zygote, against V",
	  "fork_ns, ns per fork", M_FORK_NS, true },
	{ 0, "fork_allocs_vs_V", "rmap allocations per fork, zygote, against V",
	  "fork_allocs, allocations per fork", M_FORK_ALLOCS, true },
	{ 1, "bytes_vs_N", "rmap bytes, zygote, against N",
	  "bytes (objects and per-VMA fields)", M_BYTES, true },
	{ 1, "fork_ns_vs_N", "median fork time, zygote, against N",
	  "fork_ns, ns per fork", M_FORK_NS, true },
	{ 1, "fork_allocs_vs_N", "rmap allocations per fork, zygote, against N",
	  "fork_allocs, allocations per fork", M_FORK_ALLOCS, true },
	{ 1, "walk_mean_ns_vs_N", "mean reclaim walk, zygote, against N",
	  "walk_mean_ns, ns per walk", M_WALK_MEAN_NS, true },
	{ 1, "examined_per_found_vs_N",
	  "VMAs examined per mapping found, zygote, against N",
	  "examined_per_found", M_EXAMINED_PER_FOUND, false },
	{ 1, "examined_per_found_full_vs_N",
	  "VMAs examined per mapping found, full walk, zygote, against N",
	  "examined_per_found_full", M_EXAMINED_PER_FOUND_FULL, false },
	{ 2, "walk_mean_ns_vs_D", "mean reclaim walk, chain, against D",
	  "walk_mean_ns, ns per walk", M_WALK_MEAN_NS, true },
	{ 2, "full_walk_mean_ns_vs_D",
	  "mean full walk (every candidate), chain, against D",
	  "full_walk_mean_ns, ns per walk", M_FULL_WALK_MEAN_NS, true },
	{ 2, "examined_per_found_full_vs_D",
	  "VMAs examined per mapping found, full walk, chain, against D",
	  "examined_per_found_full", M_EXAMINED_PER_FOUND_FULL, false },
	{ 2, "examined_per_found_vs_D",
	  "VMAs examined per mapping found, chain, against D",
	  "examined_per_found", M_EXAMINED_PER_FOUND, false },
	{ 2, "bytes_vs_D", "rmap bytes, chain, against D",
	  "bytes (objects and per-VMA fields)", M_BYTES, true },
	{ 3, "walk_mean_ns_vs_D_exit",
	  "mean reclaim walk, chain with exiting parents, against D",
	  "walk_mean_ns, ns per walk", M_WALK_MEAN_NS, true },
	{ 3, "examined_per_found_full_vs_D_exit",
	  "VMAs examined per mapping found, full walk, chain with exiting parents, against D",
	  "examined_per_found_full", M_EXAMINED_PER_FOUND_FULL, false },
	{ 3, "examined_per_found_vs_D_exit",
	  "VMAs examined per mapping found, chain with exiting parents, against D",
	  "examined_per_found", M_EXAMINED_PER_FOUND, false },
	{ 3, "bytes_vs_D_exit", "rmap bytes, chain with exiting parents, against D",
	  "bytes (objects and per-VMA fields)", M_BYTES, true },
};

#define NR_SWEEPS (sizeof(sweeps) / sizeof(sweeps[0]))
#define NR_CURVES (sizeof(curve_defs) / sizeof(curve_defs[0]))

static int sweep_point(const struct bench_opts *o, int s, long x,
		       struct workload_result *r, FILE *progress)
{
	struct workload_inst inst;
	char spec[128], err[128];
	size_t n;

	n = snprintf(spec, sizeof(spec), "%s", sweeps[s].spec);
	if (sweeps[s].fixed)
		n += snprintf(spec + n, sizeof(spec) - n, ",%s=%ld",
			      sweeps[s].fixed, sweep_fixed[s][o->size]);
	snprintf(spec + n, sizeof(spec) - n, ",%s=%ld", sweeps[s].param, x);
	if (workload_parse(spec, o->size, &inst, err, sizeof(err))) {
		fprintf(stderr, "cowctx bench: sweep %s: %s\n", spec, err);
		return -EINVAL;
	}
	return bench_workload(o, &inst, r, false, progress);
}

/*
 * The title names what is held fixed ("zygote cow=10 N=20") and the x
 * label defines the parameter swept, from the workload's own table.
 */
static void curve_labels(struct curve *cu, const struct curve_def *d,
			 enum bench_size size)
{
	const struct sweep *sw = &sweeps[d->sweep];
	size_t nlen = strcspn(sw->spec, ":");
	const struct workload *w;
	const char *help = "";
	char name[32], fixed[96];
	int k;

	snprintf(name, sizeof(name), "%.*s", (int)nlen, sw->spec);
	w = workload_find(name);
	for (k = 0; w && k < w->nr_params; k++)
		if (!strcmp(w->params[k].name, sw->param))
			help = w->params[k].help;
	snprintf(fixed, sizeof(fixed), "%s%s", sw->spec[nlen] ?
		 sw->spec + nlen + 1 : "", sw->fixed ? "," : "");
	if (sw->fixed)
		snprintf(fixed + strlen(fixed), sizeof(fixed) - strlen(fixed),
			 "%s=%ld", sw->fixed, sweep_fixed[d->sweep][size]);
	for (k = 0; fixed[k]; k++)
		if (fixed[k] == ',')
			fixed[k] = ' ';
	snprintf(cu->title, sizeof(cu->title), "%s: %s (%s %s)", d->title,
		 metric_name(d->metric), name, fixed);
	snprintf(cu->xlabel, sizeof(cu->xlabel), "%s: %s", sw->param, help);
}

int curve_nr_series(const struct bench_opts *o, const struct curve *cu)
{
	return cu->series ? cu->nr_series : o->nr_cols;
}

const char *curve_series_name(const struct bench_opts *o,
			      const struct curve *cu, int c)
{
	return cu->series ? cu->series[c] : col_name(o, c);
}

int curves_measure(const struct bench_opts *o, struct curve **curves,
		   int *nr, FILE *progress)
{
	struct curve *cv = model_zalloc((NR_CURVES + NR_REMAP_CURVES) *
					sizeof(*cv));
	struct workload_result *r = model_zalloc(sizeof(*r));
	size_t s, k, j;
	int c, err;

	if (!cv || !r) {
		model_free(cv);
		model_free(r);
		return -ENOMEM;
	}
	for (k = 0; k < NR_CURVES; k++) {
		const struct curve_def *d = &curve_defs[k];

		cv[k].id = d->id;
		curve_labels(&cv[k], d, o->size);
		cv[k].ylabel = d->ylabel;
		cv[k].metric = d->metric;
		cv[k].logy = d->logy;
	}
	for (s = 0; s < NR_SWEEPS; s++) {
		const long *xs = sweeps[s].x[o->size];

		for (j = 0; j < CURVE_MAX_POINTS && xs[j]; j++) {
			/* a failed point stays out; the report says so */
			bool ok = !sweep_point(o, (int)s, xs[j], r, progress);

			workload_result_release(r);

			for (k = 0; k < NR_CURVES; k++) {
				struct curve *cu = &cv[k];

				if (curve_defs[k].sweep != (int)s)
					continue;
				cu->x[cu->nr] = xs[j];
				for (c = 0; c < NR_COLS; c++)
					cu->y[cu->nr][c] = ok && r->have[c] ?
						r->ms[c].v[cu->metric] : NAN;
				cu->nr++;
			}
		}
	}
	model_free(r);
	err = remap_curves_measure(o, &cv[NR_CURVES], progress);
	if (err) {
		model_free(cv);
		return err;
	}
	*curves = cv;
	*nr = (int)(NR_CURVES + NR_REMAP_CURVES);
	return 0;
}

/*
 * docs/real-kernel.md: fork() of a process with V one-page
 * anonymous VMAs, unmergeable, median time in the parent, Linux 6.18
 * on this project's x86-64 VMs.
 */
static const struct {
	unsigned long v;
	double untouched_ms;
	double touched_ms;
} kernel_fork[] = {
	{ 1, 0.06, 0.04 },
	{ 100, 0.08, 0.12 },
	{ 1000, 0.47, 1.0 },
	{ 10000, 5.5, 15 },
};

/*
 * Fork then exit a child, again and again, from a parent that stays
 * as it is: every fork sees the same state, so the median is the cost
 * of one fork of V VMAs.
 */
static int anchor_prog(struct bench_prog *p, unsigned long v, bool touched,
		       int reps)
{
	unsigned int root = prog_proc(p);
	int i;

	prog_mmap(p, root, BENCH_BASE, PAGE_SIZE, v, 2 * PAGE_SIZE,
		  PROT_READ | PROT_WRITE);
	if (touched)
		prog_touch(p, root, BENCH_BASE, PAGE_SIZE, v, 2 * PAGE_SIZE,
			   true, 100, 0);
	for (i = 0; i < reps; i++)
		prog_exit(p, prog_fork(p, root));
	prog_exit(p, root);
	return p->err;
}

int anchors_measure(const struct bench_opts *o, struct anchor_row **rows,
		    int *nr, FILE *progress)
{
	size_t n = sizeof(kernel_fork) / sizeof(kernel_fork[0]), i;
	struct anchor_row *ar = model_zalloc(n * sizeof(*ar));
	int t, ret = 0;

	if (!ar)
		return -ENOMEM;
	for (i = 0; i < n && !ret; i++) {
		unsigned long v = kernel_fork[i].v;
		int reps = o->size == SIZE_TINY ? 3 :
			   v >= 10000 ? (o->size == SIZE_FULL ? 30 : 10) :
			   (o->size == SIZE_FULL ? 200 : 50);

		/* tiny runs keep the anchor's shape, not its sizes */
		if (o->size == SIZE_TINY && v > 100)
			v = 100;
		ar[i].v = v;
		ar[i].kernel_untouched_ms = kernel_fork[i].untouched_ms;
		ar[i].kernel_touched_ms = kernel_fork[i].touched_ms;
		for (t = 0; t < 2 && !ret; t++) {
			struct bench_prog p;
			char label[64];

			snprintf(label, sizeof(label), "anchor V=%lu %s", v,
				 t ? "touched" : "untouched");
			prog_init(&p);
			ret = anchor_prog(&p, v, t, reps);
			if (!ret)
				ret = bench_prog_fork_ns(o, &p, label,
							 ar[i].model_ns[t],
							 progress);
			prog_free(&p);
		}
	}
	*rows = ar;
	*nr = (int)n;
	return ret;
}
