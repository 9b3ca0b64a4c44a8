// SPDX-License-Identifier: GPL-2.0
/*
 * The targets the COW context is held to, each checked on this run's
 * figures. They are stated here, in full, with where they were set:
 * the report and the verdict print them from this table, so neither
 * can speak of a target it does not name.
 */
#include <math.h>
#include <string.h>

#include "bench/bench.h"

/* where the targets were set: this project's issues 6 and 9 */
#define SRC_ISSUE6 "cowctx issue 6, the benchmark"
#define SRC_ISSUE9 "cowctx issue 9, COW context v2"

/* the first result of @name whose @param is at least @min, not failed */
static const struct workload_result *first(const struct workload_result *res,
					   int nr, const char *name,
					   const char *param, long min)
{
	int i;

	for (i = 0; i < nr; i++)
		if (!strcmp(res[i].inst.w->name, name) && !res[i].error[0] &&
		    inst_param(&res[i].inst, param) >= min)
			return &res[i];
	return NULL;
}

const struct workload_result *target_zygote(const struct workload_result *res,
					      int nr)
{
	int i;

	for (i = 0; i < nr; i++)
		if (!strcmp(res[i].inst.w->name, "zygote") &&
		    !res[i].error[0] && inst_param(&res[i].inst, "V") == 1000 &&
		    inst_param(&res[i].inst, "N") == 100 &&
		    !inst_param(&res[i].inst, "F"))
			return &res[i];
	return NULL;
}

/* whole numbers whole, the rest to 4 significant digits */
static const char *num(char *buf, size_t len, double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.4g", v);
	return buf;
}

static bool both(const struct workload_result *r)
{
	return r && r->have[COL_ANON_VMA] && r->have[COL_COW_CONTEXT];
}

static const struct workload_result *realzygote(const struct workload_result *res,
						 int nr)
{
	return first(res, nr, "realzygote", "L", 50);
}

static const struct workload_result *daemon(const struct workload_result *res,
					    int nr)
{
	return first(res, nr, "daemon", "G", 200);
}

enum target_kind {
	T_RATIO,	/* the COW context's figure / anon_vma's */
	T_EVERY,	/* each metric's ratio, on every workload (or one) */
	T_COUNT,	/* the COW context's figure itself */
};

/*
 * The targets, as their issues set them. A name is made from its
 * entry (scope, what, metrics, limit), so the name printed is the
 * threshold checked, and names the metrics (bench/metrics.c) judged;
 * `cowctx bench --targets` prints this table, and tests/docs.t holds
 * bench/README.md's copy to it.
 */
struct target {
	const char *scope;
	const char *what;
	enum target_kind kind;
	int metrics[2];
	int nr_metrics;
	double limit;
	const char *source;
	/* the workload judged; NULL: every workload */
	const struct workload_result *(*find)(const struct workload_result *res,
					      int nr);
};

static const struct target targets[] = {
	{ "zygote V=1000 N=100", "rmap bytes, per-VMA fields included",
	  T_RATIO, { M_BYTES }, 1, 0.01, SRC_ISSUE6, target_zygote },
	{ "zygote V=1000 N=100", "rmap allocations per fork",
	  T_RATIO, { M_FORK_ALLOCS }, 1, 0.02, SRC_ISSUE6, target_zygote },
	{ "every workload", "VMAs examined per mapping found, reclaim walk",
	  T_EVERY, { M_EXAMINED_PER_FOUND }, 1, 1, SRC_ISSUE6, NULL },
	{ "every workload", "mean walk time, reclaim and full",
	  T_EVERY, { M_WALK_MEAN_NS, M_FULL_WALK_MEAN_NS }, 2, 1.5,
	  SRC_ISSUE9, NULL },
	{ "realzygote L>=50", "VMAs examined per mapping found, reclaim and full walk",
	  T_EVERY, { M_EXAMINED_PER_FOUND, M_EXAMINED_PER_FOUND_FULL }, 2, 1,
	  SRC_ISSUE9, realzygote },
	{ "realzygote L>=50", "rmap bytes, per-VMA fields included",
	  T_RATIO, { M_BYTES }, 1, 0.05, SRC_ISSUE9, realzygote },
	{ "daemon G>=200", "live contexts after the generations",
	  T_COUNT, { M_MAIN_OBJECTS }, 1, 4, SRC_ISSUE9, daemon },
	{ "daemon G>=200", "mean full walk time",
	  T_RATIO, { M_FULL_WALK_MEAN_NS }, 1, 1.5, SRC_ISSUE9, daemon },
};

#define NR_TARGETS ((int)(sizeof(targets) / sizeof(targets[0])))

/* "<= 1% of anon_vma's", "<= 1.5x anon_vma's", "<= anon_vma's", "<= 4" */
static void limit_text(char *buf, size_t len, const struct target *t)
{
	if (t->kind == T_COUNT)
		snprintf(buf, len, "<= %g", t->limit);
	else if (t->limit < 0.5)
		snprintf(buf, len, "<= %g%% of anon_vma's", 100 * t->limit);
	else if (t->limit == 1)
		snprintf(buf, len, "<= anon_vma's");
	else
		snprintf(buf, len, "<= %gx anon_vma's", t->limit);
}

/* "SCOPE: WHAT (METRIC, ...) LIMIT": the name says what is compared */
static void target_name(char *buf, size_t len, const struct target *t)
{
	char lim[48];
	size_t n;
	int k;

	n = snprintf(buf, len, "%s: %s (", t->scope, t->what);
	for (k = 0; k < t->nr_metrics && n < len; k++)
		n += snprintf(buf + n, len - n, "%s%s", k ? ", " : "",
			      metric_name(t->metrics[k]));
	limit_text(lim, sizeof(lim), t);
	if (n < len)
		snprintf(buf + n, len - n, ") %s", lim);
}

/*
 * A bytes figure's two parts, so a reader sees how much of each side
 * is objects and how much per-VMA fields.
 */
static void with_parts(struct target_check *t)
{
	const struct metric_set *c = &t->r->ms[COL_COW_CONTEXT];
	const struct metric_set *a = &t->r->ms[COL_ANON_VMA];
	size_t len = strlen(t->figure);

	snprintf(t->figure + len, sizeof(t->figure) - len,
		 " (object_bytes %.0f + vma_field_bytes %.0f against %.0f + %.0f)",
		 c->v[M_OBJECT_BYTES], c->v[M_VMA_FIELD_BYTES],
		 a->v[M_OBJECT_BYTES], a->v[M_VMA_FIELD_BYTES]);
}

/* a ratio of the two columns held to at most the limit */
static void ratio_at_most(struct target_check *t, const struct target *tg)
{
	char cs[32], as[32];
	int m = tg->metrics[0];
	double a, c, q;

	if (!both(t->r)) {
		t->met = -1;
		return;
	}
	a = t->r->ms[COL_ANON_VMA].v[m];
	c = t->r->ms[COL_COW_CONTEXT].v[m];
	q = metric_ratio(c, a);
	t->met = isnan(q) ? -1 : q <= tg->limit;
	snprintf(t->figure, sizeof(t->figure), "%s against %s, %.3g%s",
		 num(cs, sizeof(cs), c), num(as, sizeof(as), a),
		 tg->limit < 0.5 ? 100 * q : q, tg->limit < 0.5 ? "%" : "x");
	if (t->met >= 0 && m == M_BYTES)
		with_parts(t);
}

/*
 * Each metric no worse than anon_vma's (times: at most the limit times)
 * on every workload of @res; the figure names the worst.
 */
static void every_workload(struct target_check *t, const struct target *tg,
			   const struct workload_result *res, int nr)
{
	double worst = -INFINITY;
	int i, k, bad = 0, seen = 0;
	const char *wl = NULL, *wm = NULL;

	for (i = 0; i < nr; i++) {
		if (!both(&res[i]) || res[i].error[0])
			continue;
		for (k = 0; k < tg->nr_metrics; k++) {
			int m = tg->metrics[k];
			double q = metric_ratio(res[i].ms[COL_COW_CONTEXT].v[m],
						res[i].ms[COL_ANON_VMA].v[m]);

			if (isnan(q))
				continue;
			seen++;
			bad += q > tg->limit + 1e-9;
			if (q > worst) {
				worst = q;
				wl = res[i].inst.label;
				wm = metric_name(m);
			}
		}
	}
	if (!seen) {
		t->met = -1;
		return;
	}
	t->met = !bad;
	snprintf(t->figure, sizeof(t->figure), "%d of %d worse; worst %.3gx, %s, %s",
		 bad, seen, worst, wm, wl);
}

/* One workload's metrics, each against anon_vma's: "M c against a, ..." */
static void every_metric(struct target_check *t, const struct target *tg)
{
	size_t n = 0;
	int k;

	every_workload(t, tg, t->r, 1);
	if (t->met < 0)
		return;
	for (k = 0; k < tg->nr_metrics && n < sizeof(t->figure); k++) {
		int m = tg->metrics[k];

		n += snprintf(t->figure + n, sizeof(t->figure) - n,
			      "%s%s %.4g against %.4g", k ? ", " : "",
			      metric_name(m), t->r->ms[COL_COW_CONTEXT].v[m],
			      t->r->ms[COL_ANON_VMA].v[m]);
	}
}

/* The COW context's own figure held to at most the limit */
static void count_at_most(struct target_check *t, const struct target *tg)
{
	int m = tg->metrics[0];

	if (!both(t->r) || isnan(t->r->ms[COL_COW_CONTEXT].v[m])) {
		t->met = -1;
		return;
	}
	t->met = t->r->ms[COL_COW_CONTEXT].v[m] <= tg->limit;
	snprintf(t->figure, sizeof(t->figure), "%s %.0f (anon_vma's: %.0f)",
		 metric_name(m), t->r->ms[COL_COW_CONTEXT].v[m],
		 t->r->ms[COL_ANON_VMA].v[m]);
}

int targets_check(const struct bench_opts *o,
		  const struct workload_result *res, int nr,
		  struct target_check *out, int max)
{
	int n = 0, i;

	if (!cols_are_proposal(o))
		return 0;
	for (i = 0; i < NR_TARGETS && n < max; i++) {
		const struct target *tg = &targets[i];
		struct target_check *t = &out[n++];

		memset(t, 0, sizeof(*t));
		target_name(t->what, sizeof(t->what), tg);
		t->source = tg->source;
		t->every = !tg->find;
		t->r = tg->find ? tg->find(res, nr) : NULL;
		if (!tg->find)
			every_workload(t, tg, res, nr);
		else if (tg->kind == T_EVERY)
			every_metric(t, tg);
		else if (tg->kind == T_COUNT)
			count_at_most(t, tg);
		else
			ratio_at_most(t, tg);
	}
	return n;
}
