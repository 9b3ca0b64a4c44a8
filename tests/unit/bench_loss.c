// SPDX-License-Identifier: GPL-2.0
/*
 * bench/loss.c's rule: a worse time is a loss beyond the noise only with
 * the two sides' quartiles apart and enough samples; only such a loss,
 * or a worse exact count, may be given a cause, and only where a counter
 * of the run shows it. Results are built by hand, so each case is exact
 * (a timing of this machine could land either side).
 */
#include <math.h>
#include <string.h>

#include "tap.h"
#include "bench/bench.h"

#define MPROTECT_NS	M_PHASE(PH_MPROTECT, PM_TIME_NS)

/* anon_vma's and the COW context's figure of @m, with quartiles */
static void set(struct workload_result *r, int m, double a, double aq1,
		double aq3, double c, double cq1, double cq3)
{
	r->ms[COL_ANON_VMA].v[m] = a;
	r->ms[COL_ANON_VMA].q1[m] = aq1;
	r->ms[COL_ANON_VMA].q3[m] = aq3;
	r->ms[COL_COW_CONTEXT].v[m] = c;
	r->ms[COL_COW_CONTEXT].q1[m] = cq1;
	r->ms[COL_COW_CONTEXT].q3[m] = cq3;
	r->ratio[COL_COW_CONTEXT].v[m] = metric_ratio(c, a);
}

static void count(struct workload_result *r, int m, double a, double c)
{
	set(r, m, a, NAN, NAN, c, NAN, NAN);
}

/* realzygote-like: 50 mprotect calls a replay, 5 replays */
static void fresh(struct workload_result *r)
{
	int c;

	memset(r, 0, sizeof(*r));
	r->inst.w = workload_find("realzygote");
	r->reps = 5;
	for (c = 0; c < NR_COLS; c++) {
		metric_set_clear(&r->ms[c]);
		metric_set_clear(&r->ratio[c]);
	}
	r->have[COL_ANON_VMA] = r->have[COL_COW_CONTEXT] = true;
	count(r, M_PHASE(PH_MPROTECT, PM_CALLS), 50, 50);
	count(r, M_PHASE(PH_MPROTECT, PM_LOCK_ACQ), 0, 0);
	count(r, M_PHASE(PH_MPROTECT, PM_ALLOCS), 0, 0);
	count(r, M_WALKS, 1000, 1000);
}

int main(void)
{
	struct workload_result r;
	struct loss_cause c;

	/* realzygote mprotect 1.43x, quartiles overlapping, no remap work */
	fresh(&r);
	set(&r, MPROTECT_NS, 30000, 25000, 41000, 43000, 29000, 52000);
	ok(bench_loss(&r, MPROTECT_NS) == LOSS_NOISE &&
	   !strcmp(loss_noise(&r, MPROTECT_NS), "the quartiles overlap"),
	   "mprotect_time_ns 1.43x with overlapping quartiles: within the noise");
	ok(!loss_cause(MPROTECT_NS, &r, &c),
	   "and it gets no cause");

	/* the same, one side's quartile just touching: still overlapping */
	set(&r, MPROTECT_NS, 30000, 25000, 41000, 43000, 41000, 52000);
	ok(bench_loss(&r, MPROTECT_NS) == LOSS_NOISE && !loss_cause(MPROTECT_NS, &r, &c),
	   "quartiles that meet overlap: no cause");

	/* apart, but no counter shows remap-tree work in the phase */
	set(&r, MPROTECT_NS, 30000, 29000, 31000, 43000, 42000, 44000);
	ok(bench_loss(&r, MPROTECT_NS) == LOSS_REAL,
	   "quartiles apart: a loss beyond the noise");
	ok(!loss_cause(MPROTECT_NS, &r, &c),
	   "with no remap-lock writer and no remap node in the phase, no cause");

	/* apart, and the phase took the remap lock: the cause, with it */
	count(&r, M_PHASE(PH_MPROTECT, PM_LOCK_ACQ), 0, 50);
	ok(loss_cause(MPROTECT_NS, &r, &c) &&
	   strstr(c.detail, "remap-tree upkeep") &&
	   strstr(c.counters, "mprotect_lock_acquisitions 50"),
	   "with 50 remap-lock writers in the phase: remap-tree upkeep, quoting them (%s)",
	   loss_cause(MPROTECT_NS, &r, &c) ? c.counters : "none");

	/* one replay: a total has no spread, whatever its quartiles say */
	r.reps = 1;
	ok(bench_loss(&r, MPROTECT_NS) == LOSS_NOISE &&
	   !loss_cause(MPROTECT_NS, &r, &c),
	   "one replay: within the noise, no cause");
	r.reps = 5;

	/* a per-call time on too few calls */
	fresh(&r);
	count(&r, M_FORKS, 6, 6);
	count(&r, M_FORK_RMAP_INSTRUCTIONS, 1000, 5000);
	set(&r, M_FORK_NS, 1000, 990, 1010, 2000, 1990, 2010);
	ok(bench_loss(&r, M_FORK_NS) == LOSS_NOISE &&
	   !loss_cause(M_FORK_NS, &r, &c),
	   "fork_ns on 6 forks: within the noise, no cause");

	/* an exact count is beyond the noise; its cause needs its counter */
	fresh(&r);
	count(&r, M_EXAMINED_PER_FOUND, 1.298, 1.352);
	count(&r, M_EXAMINED_PER_FOUND_FULL, 1.877, 1.452);
	ok(bench_loss(&r, M_EXAMINED_PER_FOUND) == LOSS_REAL &&
	   loss_cause(M_EXAMINED_PER_FOUND, &r, &c) &&
	   strstr(c.counters, "examined_per_found_full 1.452 against 1.877"),
	   "examined_per_found, a count: its cause, shown by examined_per_found_full");

	/* a better figure is no loss at all */
	count(&r, M_EXAMINED_PER_FOUND, 1.4, 1.3);
	ok(bench_loss(&r, M_EXAMINED_PER_FOUND) == LOSS_NONE &&
	   !loss_cause(M_EXAMINED_PER_FOUND, &r, &c),
	   "a better figure: no loss, no cause");
	return tap_done();
}
