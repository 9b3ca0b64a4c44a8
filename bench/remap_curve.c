// SPDX-License-Identifier: GPL-2.0
/*
 * The remap tree's curve: insert, remove and lookup against the number
 * of moved VMAs in one mm, up to 100,000 (issue 9 asks for the curve
 * that shows them O(log n)).
 *
 * The mm: n VMAs of 4 to 8 pages at consecutive pgoffs, each moved by a
 * distance of its own, so each owns one entry. One series more adds a
 * moved VMA whose range covers all of theirs (a heap moved away, small
 * mappings made where it was, then moved too): every lookup then meets
 * two entries, and a structure that scanned back to the widest entry
 * would pay for all n there.
 *
 * A round: k distinct random entries removed, their slots kept (a
 * resize's first half), inserted back into those slots (its second
 * half), then k lookups of random pages (every offset covering one
 * page). Nothing timed allocates. Each kind is timed over the round and
 * divided by k; a point is the median over the rounds, with quartiles.
 * Steps are interval_tree_steps per operation, from a fixed seed: the
 * same on every run, so tests/bench.t can hold their growth to log n
 * without timing anything.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cowctx/interval_tree.h>
#include "bench/bench.h"
#include "rmap/remap_tree.h"

enum remap_series {
	RS_INSERT,
	RS_REMOVE,
	RS_LOOKUP,
	RS_LOOKUP_WIDE,
	NR_RS,
};

static const char *const series_name[NR_RS] = {
	[RS_INSERT] = "insert",
	[RS_REMOVE] = "remove",
	[RS_LOOKUP] = "lookup",
	[RS_LOOKUP_WIDE] = "lookup, with a covering entry",
};

/* entries per point, per size; 0-terminated */
static const unsigned long sizes[3][CURVE_MAX_POINTS] = {
	[SIZE_TINY] = { 100, 1000, 10000 },
	[SIZE_QUICK] = { 1000, 3000, 10000, 30000, 100000 },
	[SIZE_FULL] = { 1000, 3000, 10000, 30000, 100000 },
};

static const int rounds_of[3] = {
	[SIZE_TINY] = 3, [SIZE_QUICK] = 9, [SIZE_FULL] = 15,
};

/* operations of each kind per round: enough to rise above the clock */
#define REMAP_OPS	2000
#define REMAP_MAX_ROUNDS 15

struct moved_vma {
	unsigned long pgoff, nr;
	long offset;
};

struct remap_mm {
	struct account acct;
	struct remap_tree t;
	struct moved_vma *vma;
	unsigned long *perm;	/* a shuffle of the entries, for picks */
	unsigned long nr;	/* entries, the covering one included */
	unsigned long span;	/* pgoffs covered */
	uint64_t rng;
};

static unsigned long rnd(struct remap_mm *mm, unsigned long n)
{
	mm->rng ^= mm->rng << 13;
	mm->rng ^= mm->rng >> 7;
	mm->rng ^= mm->rng << 17;
	return (unsigned long)(mm->rng % n);
}

static unsigned long clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long)ts.tv_sec * 1000000000UL +
	       (unsigned long)ts.tv_nsec;
}

static void mm_release(struct remap_mm *mm)
{
	unsigned long i;

	for (i = 0; mm->vma && i < mm->nr; i++)
		remap_tree_remove(&mm->t, mm->vma[i].pgoff, mm->vma[i].nr,
				  mm->vma[i].offset, false);
	remap_tree_destroy(&mm->t);
	model_free(mm->vma);
	model_free(mm->perm);
}

static int mm_build(struct remap_mm *mm, unsigned long n, bool wide)
{
	unsigned long i, pgoff = 0, inserted;

	memset(mm, 0, sizeof(*mm));
	/* the same mm, and the same picks, on every run */
	mm->rng = 0x2545f4914f6cdd1dULL;
	remap_tree_init(&mm->t, &mm->acct,
			account_register(&mm->acct, "remap_entry"));
	mm->vma = model_zalloc((n + 1) * sizeof(*mm->vma));
	mm->perm = model_zalloc((n + 1) * sizeof(*mm->perm));
	if (!mm->vma || !mm->perm ||
	    remap_tree_reserve(&mm->t, (unsigned int)(n + wide)))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		mm->vma[i] = (struct moved_vma){ pgoff, 4 + rnd(mm, 5),
						 (long)(i + 1) * 1024 };
		pgoff += mm->vma[i].nr;
	}
	mm->span = pgoff;
	if (wide)
		mm->vma[n] = (struct moved_vma){ 0, pgoff, -(1L << 40) };
	for (i = 0; i < n + wide; i++) {
		mm->perm[i] = i;
		if (!remap_tree_insert(&mm->t, mm->vma[i].pgoff,
				       mm->vma[i].nr, mm->vma[i].offset))
			break;
	}
	/* only what went in is taken out again by mm_release() */
	inserted = i;
	mm->nr = inserted;
	return inserted == n + wide ? 0 : -EINVAL;
}

/* every offset covering @page; how many */
static unsigned long lookup(const struct remap_tree *t, unsigned long page)
{
	struct remap_cursor pos = REMAP_CURSOR_INIT;
	unsigned long n = 0;
	long off;

	while (remap_tree_next_offset(t, page, page, &pos, &off))
		n++;
	return n;
}

/*
 * One round of @k of each kind: time (ns) and steps per operation into
 * @ns and @steps, indexed by RS_INSERT, RS_REMOVE, RS_LOOKUP. -EINVAL
 * if an operation did not do what it must.
 */
static int one_round(struct remap_mm *mm, unsigned long k,
		     unsigned long *pick, unsigned long *page,
		     double ns[RS_LOOKUP + 1], double steps[RS_LOOKUP + 1],
		     unsigned long want_found)
{
	unsigned long i, t0, s0, found = 0;
	bool bad = false;

	/* distinct picks, a partial shuffle, so each removal finds its entry */
	for (i = 0; i < k; i++) {
		unsigned long j = i + rnd(mm, mm->nr - i), x = mm->perm[j];

		mm->perm[j] = mm->perm[i];
		mm->perm[i] = x;
		pick[i] = x;
		page[i] = rnd(mm, mm->span);
	}
	s0 = interval_tree_steps;
	t0 = clock_ns();
	for (i = 0; i < k; i++) {
		const struct moved_vma *v = &mm->vma[pick[i]];

		bad |= !remap_tree_remove(&mm->t, v->pgoff, v->nr, v->offset,
					  true);
	}
	ns[RS_REMOVE] = (double)(clock_ns() - t0) / k;
	steps[RS_REMOVE] = (double)(interval_tree_steps - s0) / k;
	s0 = interval_tree_steps;
	t0 = clock_ns();
	for (i = 0; i < k; i++) {
		const struct moved_vma *v = &mm->vma[pick[i]];

		bad |= !remap_tree_insert(&mm->t, v->pgoff, v->nr, v->offset);
	}
	ns[RS_INSERT] = (double)(clock_ns() - t0) / k;
	steps[RS_INSERT] = (double)(interval_tree_steps - s0) / k;
	s0 = interval_tree_steps;
	t0 = clock_ns();
	for (i = 0; i < k; i++)
		found += lookup(&mm->t, page[i]);
	ns[RS_LOOKUP] = (double)(clock_ns() - t0) / k;
	steps[RS_LOOKUP] = (double)(interval_tree_steps - s0) / k;
	/* every page lies in one VMA's entry, and in the covering one's */
	return bad || found != want_found * k ? -EINVAL : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* quartile @q (1, 2, 3) of @n sorted values, interpolated as R's default */
static double quartile(const double *v, int n, int q)
{
	double pos = (n - 1) * q / 4.0;
	int i = (int)pos;

	if (i + 1 >= n)
		return v[n - 1];
	return v[i] + (pos - i) * (v[i + 1] - v[i]);
}

static void set_point(struct curve *cu, int p, int c, double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	cu->y[p][c] = quartile(v, n, 2);
	cu->q1[p][c] = quartile(v, n, 1);
	cu->q3[p][c] = quartile(v, n, 3);
}

/*
 * One point of both curves: @n entries, each series' rounds. Steps are
 * the mean over the rounds (they hardly vary: the tree is the same).
 */
static int measure_point(const struct bench_opts *o, unsigned long n,
			 struct curve *time, struct curve *steps, int p)
{
	int rounds = rounds_of[o->size], r, c, wide, err = 0;
	unsigned long k = n / 2 < REMAP_OPS ? n / 2 : REMAP_OPS;
	double ns[NR_RS][REMAP_MAX_ROUNDS], st[NR_RS] = { 0 };
	unsigned long *pick = model_zalloc(k * sizeof(*pick));
	unsigned long *page = model_zalloc(k * sizeof(*page));
	struct remap_mm mm;

	if (!pick || !page) {
		err = -ENOMEM;
		goto out;
	}
	for (wide = 0; wide < 2 && !err; wide++) {
		err = mm_build(&mm, n, wide);
		for (r = 0; r < rounds && !err; r++) {
			double t[RS_LOOKUP + 1], s[RS_LOOKUP + 1];

			err = one_round(&mm, k, pick, page, t, s, 1 + wide);
			if (wide) {
				ns[RS_LOOKUP_WIDE][r] = t[RS_LOOKUP];
				st[RS_LOOKUP_WIDE] += s[RS_LOOKUP] / rounds;
				continue;
			}
			for (c = 0; c <= RS_LOOKUP; c++) {
				ns[c][r] = t[c];
				st[c] += s[c] / rounds;
			}
		}
		mm_release(&mm);
	}
	if (err)
		goto out;
	time->x[p] = steps->x[p] = (double)n;
	for (c = 0; c < NR_RS; c++) {
		set_point(time, p, c, ns[c], rounds);
		steps->y[p][c] = st[c];
	}
out:
	model_free(pick);
	model_free(page);
	return err;
}

static void curve_init(struct curve *cu, const char *id, const char *title,
		       const char *ylabel, bool spread)
{
	int p, c;

	memset(cu, 0, sizeof(*cu));
	cu->id = id;
	snprintf(cu->title, sizeof(cu->title), "%s", title);
	snprintf(cu->xlabel, sizeof(cu->xlabel),
		 "n: moved VMAs in one mm, one remap entry each");
	cu->ylabel = ylabel;
	cu->metric = -1;
	cu->logy = false;
	cu->series = series_name;
	cu->nr_series = NR_RS;
	cu->spread = spread;
	for (p = 0; p < CURVE_MAX_POINTS; p++)
		for (c = 0; c < NR_COLS; c++)
			cu->y[p][c] = cu->q1[p][c] = cu->q3[p][c] = NAN;
}

int remap_curves_measure(const struct bench_opts *o, struct curve *cv,
			 FILE *progress)
{
	const unsigned long *n = sizes[o->size];
	int p, err;

	if (rounds_of[o->size] > REMAP_MAX_ROUNDS)
		return -EINVAL;
	curve_init(&cv[0], "remap_ns_vs_n",
		   "remap tree: time per operation (median over rounds, quartiles), against n",
		   "ns per operation", true);
	curve_init(&cv[1], "remap_steps_vs_n",
		   "remap tree: tree nodes stepped on per operation, against n",
		   "nodes per operation", false);
	for (p = 0; p < CURVE_MAX_POINTS && n[p]; p++) {
		if (progress)
			fprintf(progress, "\rbench: remap tree, n=%lu%-40s",
				n[p], "");
		err = measure_point(o, n[p], &cv[0], &cv[1], p);
		if (err)
			return err;
		cv[0].nr = cv[1].nr = p + 1;
	}
	return 0;
}
