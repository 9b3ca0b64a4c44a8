// SPDX-License-Identifier: GPL-2.0
/*
 * Where the second column (a COW context) loses to the first
 * (anon_vma), and why: the verdict and report.md both ask here.
 *
 * A figure is worse as the two figures shown say: an exact count by any
 * amount, a time by more than 10%. A time's difference is beyond the
 * noise only where the quartiles of the two sides are apart (the worse
 * side's first above the other's third) and there are enough samples to
 * have quartiles at all; otherwise it is "within the noise", and no
 * cause is given for it. A cause is given only where one of this run's
 * counters shows it (remap-lock writers in the phase, VMAs examined,
 * contexts visited, instructions), and is printed with those counters:
 * a mechanism that merely could explain a difference is not a cause.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"

/* a per-call time on fewer calls than this is one draw of the noise */
#define MIN_TIMED_CALLS 20
/* a total's quartiles over fewer replays than this are not a spread */
#define MIN_REPLAYS 3

/* "KEY": in @json; a pointer just past it, or NULL */
static const char *json_key(const char *json, const char *key)
{
	char pat[64];
	const char *p;

	if (!json)
		return NULL;
	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(json, pat);
	return p ? p + strlen(pat) : NULL;
}

/* A number after "KEY": in a backend's JSON figures; -1 if absent */
static double json_number(const char *json, const char *key)
{
	const char *p = json_key(json, key);

	return p ? strtod(p, NULL) : -1;
}

double backend_figure(const struct workload_result *r, int c,
		      const char *key)
{
	return json_number(r->backend_json[c], key);
}

double backend_lock_acquisitions(const struct workload_result *r, int c,
				 const char *name)
{
	const char *p = json_key(r->backend_json[c], name);

	if (!p)
		return -1;
	return json_number(p, "read") + json_number(p, "write");
}

bool examined_more_in_full_walk(const struct workload_result *r)
{
	return r->ms[COL_COW_CONTEXT].v[M_EXAMINED_PER_FOUND_FULL] >
	       r->ms[COL_ANON_VMA].v[M_EXAMINED_PER_FOUND_FULL];
}

static bool is_time(int m)
{
	return metric_is_time(m) || m == M_RMAP_TIME_SHARE;
}

static int phase_of(int m)
{
	return m >= M_PHASE_BASE ? (m - M_PHASE_BASE) / PM_NR : -1;
}

static int what_of(int m)
{
	return m >= M_PHASE_BASE ? (m - M_PHASE_BASE) % PM_NR : -1;
}

static bool is_walk_time(int m)
{
	int ph = phase_of(m);

	return m == M_WALK_NS || m == M_WALK_MEAN_NS || m == M_FULL_WALK_NS ||
	       m == M_FULL_WALK_MEAN_NS ||
	       ((ph == PH_WALK || ph == PH_FULL_WALK) &&
		what_of(m) == PM_TIME_NS);
}

/* how many timings a time figure rests on */
static double timed_calls(const struct workload_result *r, int m)
{
	const struct metric_set *ms = &r->ms[COL_ANON_VMA];

	switch (m) {
	case M_FORK_NS:
		return ms->v[M_FORKS];
	case M_WALK_NS:
	case M_WALK_MEAN_NS:
	case M_FULL_WALK_NS:
	case M_FULL_WALK_MEAN_NS:
	case M_PHASE(PH_WALK, PM_TIME_NS):
	case M_PHASE(PH_FULL_WALK, PM_TIME_NS):
		/* one timed pass is thousands of walks */
		return ms->v[M_WALKS];
	case M_EXIT_NS:
		return ms->v[M_EXITS];
	case M_TOTAL_NS:
	case M_RMAP_TIME_SHARE:
		return INFINITY;
	default:
		return ms->v[m - (m - M_PHASE_BASE) % PM_NR + PM_CALLS];
	}
}

/*
 * Worse as the two figures shown say: a row is listed only where a
 * reader sees the second column's figure worse than the first's (the
 * ratio on the row is their quotient).
 */
static bool is_worse(const struct workload_result *r, int m)
{
	double c = r->ms[COL_COW_CONTEXT].v[m];
	double a = r->ms[COL_ANON_VMA].v[m];
	double q = r->ratio[COL_COW_CONTEXT].v[m];

	if (isnan(c) || isnan(a))
		return false;
	if (m == M_RMAP_TIME_SHARE)
		return c > a + 0.1;
	if (isnan(q))
		return a == 0 && c > 0;
	return is_time(m) ? q > 1.1 : q > 1;
}

const char *loss_noise(const struct workload_result *r, int m)
{
	const struct metric_set *c = &r->ms[COL_COW_CONTEXT];
	const struct metric_set *a = &r->ms[COL_ANON_VMA];

	if (!is_time(m))
		return NULL;	/* a count is exact */
	if (m == M_RMAP_TIME_SHARE)
		return "a share of least times: no spread measured";
	if (timed_calls(r, m) < MIN_TIMED_CALLS)
		return "fewer than 20 timed calls";
	if (!metric_is_per_call(m) && r->reps < MIN_REPLAYS)
		return "fewer than 3 replays: no spread";
	if (isnan(c->q1[m]) || isnan(a->q3[m]))
		return "no spread measured";
	if (c->q1[m] <= a->q3[m])
		return "the quartiles overlap";
	return NULL;
}

int bench_loss(const struct workload_result *r, int m)
{
	if (!r->have[COL_COW_CONTEXT] || !r->have[COL_ANON_VMA] ||
	    r->error[0] || !metric_is_cost(m) || m == M_LEAK_BYTES ||
	    m == M_WALK_MISSED || !is_worse(r, m))
		return LOSS_NONE;
	return loss_noise(r, m) ? LOSS_NOISE : LOSS_REAL;
}

static double cow(const struct workload_result *r, int m)
{
	return r->ms[COL_COW_CONTEXT].v[m];
}

static double anon(const struct workload_result *r, int m)
{
	return r->ms[COL_ANON_VMA].v[m];
}

/* "NAME c against a" of metric @m into @c->counters; true */
static bool shown_by(struct loss_cause *c, const struct workload_result *r, int m)
{
	snprintf(c->counters, sizeof(c->counters), "%s %.4g against %.4g",
		 metric_name(m), cow(r, m), anon(r, m));
	return true;
}

static bool lock_cause(struct loss_cause *c, const struct workload_result *r)
{
	double lk = backend_lock_acquisitions(r, COL_COW_CONTEXT,
					      "cow_context.lock");
	double rl = backend_lock_acquisitions(r, COL_COW_CONTEXT,
					      "cow_context.remap_lock");

	c->brief = "the COW context's per-context locks are family-shared locks too";
	c->detail = "the COW context's locks are shared by processes of a fork family too and count here as anon_vma's root rwsem does: cow_context.lock (a context's children list, taken by fork and exit) and cow_context.remap_lock (a context's remap tree, taken by its mm's remap-tree changes, moves and exit; a walk reads its seqcount, remap_seq, before and after each mm and takes the lock only to wait for a writer), where anon_vma's walk takes its root rwsem once";
	if (!(lk + rl > 0))
		return false;
	snprintf(c->counters, sizeof(c->counters),
		 "cow_context.lock %.0f and cow_context.remap_lock %.0f acquisitions over the workload",
		 lk, rl);
	return true;
}

static bool examined_cause(struct loss_cause *c, const struct workload_result *r,
			   int m)
{
	double ctx = backend_figure(r, COL_COW_CONTEXT, "contexts_visited");
	double mms = backend_figure(r, COL_COW_CONTEXT, "mms_visited");

	if (m == M_EXAMINED_PER_FOUND && !examined_more_in_full_walk(r)) {
		c->brief = "its fork order meets more non-mapping candidates before the reclaim walk's last mapping, though a full walk examines no more";
		c->detail = "the order of the candidates: over a full walk the COW context examines no more VMAs than anon_vma, but the reclaim walk stops at the folio's last mapping, and in the COW context's order (parents before children, each list in fork order) more candidates that do not map the folio come before that one than in anon_vma's interval tree";
		return shown_by(c, r, M_EXAMINED_PER_FOUND_FULL);
	}
	c->brief = "its candidates are the forked VMAs at the address in every mm below the folio's context, and an exited mm's folios go to its parent's, whose other children are then visited too";
	c->detail = "its candidates are the VMAs whose anonymous state came by fork at the folio's address (or at a moved offset) in every mm below the folio's context, not only the VMAs forked from the folio's own, which anon_vma's tree holds exactly. When an mm exits, its context is spliced out and its folios are re-pointed to its parent's context, and a walk from there visits the exited mm's siblings forked since as well: their VMAs at that address were forked from the parent's, and fit (the reclaim workload with X=0, no exits, examines as many as anon_vma)";
	shown_by(c, r, M_EXAMINED_PER_FOUND_FULL);
	if (ctx > 0 && mms > 0) {
		size_t n = strlen(c->counters);

		snprintf(c->counters + n, sizeof(c->counters) - n,
			 "; contexts_visited %.0f, mms_visited %.0f", ctx, mms);
	}
	return examined_more_in_full_walk(r);
}

static bool walk_cause(struct loss_cause *c, const struct workload_result *r)
{
	double ctx = backend_figure(r, COL_COW_CONTEXT, "contexts_visited");
	double mms = backend_figure(r, COL_COW_CONTEXT, "mms_visited");

	if (ctx > 0 && mms > 0 && ctx >= 1.5 * mms) {
		c->brief = "exited processes' contexts stay on the walk's path";
		c->detail = "the walks step through more contexts than there are live mms to visit: an exited process's context stays while a child or a folio still references it, so a chain whose parents exit leaves every intermediate's context between the root's folios and the live leaf; anon_vma's fork reuses an exited parent's anon_vma (no VMA uses it, one child), so its family stays shallow";
		snprintf(c->counters, sizeof(c->counters),
			 "contexts_visited %.0f for mms_visited %.0f", ctx,
			 mms);
		return true;
	}
	if (examined_more_in_full_walk(r)) {
		c->brief = "it examines more VMAs per mapping found in a full walk";
		c->detail = "the COW context examines more VMAs here, and per candidate it looks the folio's address up in the mm's VMA tree (a binary search, the maple tree in the kernel), where anon_vma's walk steps from one AVC to the next in an interval tree it already holds";
		return shown_by(c, r, M_EXAMINED_PER_FOUND_FULL);
	}
	c->brief = "no more VMAs examined, but each costs a VMA-tree lookup and a context pin where anon_vma steps along an interval tree";
	c->detail = "per candidate the COW context looks the folio's address up in the mm's VMA tree (a binary search, the maple tree in the kernel) and pins the context it stands on, where anon_vma's walk steps from one AVC to the next in an interval tree it already holds: it examines no more VMAs here over a full walk, but each costs more";
	if (!(mms > 0))
		return false;
	shown_by(c, r, M_EXAMINED_PER_FOUND_FULL);
	snprintf(c->counters + strlen(c->counters),
		 sizeof(c->counters) - strlen(c->counters),
		 "; mms_visited %.0f (a VMA-tree lookup each)", mms);
	return true;
}

/* mmap, mremap, mprotect, munmap: only remap-tree work is the rmap's */
static bool remap_cause(struct loss_cause *c, const struct workload_result *r,
			int ph)
{
	double acq = cow(r, M_PHASE(ph, PM_LOCK_ACQ));
	double allocs = cow(r, M_PHASE(ph, PM_ALLOCS));

	c->brief = "remap-tree upkeep";
	c->detail = ph == PH_MMAP ?
		"MAP_PRIVATE file VMAs carry an offset other than 0, so the COW context tracks them in its remap tree; anon_vma creates no rmap state at mmap" :
		"remap-tree upkeep: a moved or split VMA's entry is removed and reinserted under the mm's remap lock, where anon_vma only re-keys its AVCs";
	if (!(acq > 0) && !(allocs > 0))
		return false;
	snprintf(c->counters, sizeof(c->counters),
		 "%s_lock_acquisitions %.0f (remap-lock writers), %s_rmap_allocs %.0f (remap-tree nodes)",
		 bench_phase_name[ph], acq, bench_phase_name[ph], allocs);
	return true;
}

static bool fork_cause(struct loss_cause *c, const struct workload_result *r,
		       int m)
{
	c->brief = "per fork it allocates a context and records the child's moved and file VMAs in its remap tree";
	c->detail = "per fork the COW context allocates one context and records the child's moved and MAP_PRIVATE file VMAs in its remap tree; where the parent has few faulted VMAs this fixed cost is larger than anon_vma's per-VMA work";
	if (m == M_FORK_INSTRUCTIONS || m == M_FORK_RMAP_INSTRUCTIONS ||
	    what_of(m) == PM_ALLOCS)
		return shown_by(c, r, M_FORK_ALLOCS);
	/* a time: shown if its own instructions are more too */
	if (!(cow(r, M_FORK_RMAP_INSTRUCTIONS) >
	      anon(r, M_FORK_RMAP_INSTRUCTIONS)))
		return false;
	return shown_by(c, r, M_FORK_RMAP_INSTRUCTIONS);
}

static bool fault_cause(struct loss_cause *c, const struct workload_result *r)
{
	double ca = backend_figure(r, COL_COW_CONTEXT, "atomics");
	double aa = backend_figure(r, COL_ANON_VMA, "atomics");

	c->brief = "a new folio takes a reference on its context, an atomic on a family-shared line";
	c->detail = "a new anonymous folio takes a reference on its context, and exclusive reuse moves it (a put and a get), where an anon_vma folio holds no reference (its anon_vma is pinned by the VMAs); in the kernel these are atomic operations on a shared cache line";
	if (!(ca > aa))
		return false;
	snprintf(c->counters, sizeof(c->counters),
		 "family atomics %.0f against %.0f over the workload", ca, aa);
	return true;
}

static bool exit_cause(struct loss_cause *c, const struct workload_result *r)
{
	int m = M_PHASE(PH_EXIT, PM_LOCK_OBJECTS);

	c->brief = "an exiting mm splices its context out, moving its children to its parent";
	c->detail = "an exiting mm splices its context out of its parent's children list, moving its own children there under both lists' locks, and drops its context, which may cascade up through exited ancestors and frees after an RCU grace period";
	if (!(cow(r, m) > anon(r, m)))
		return false;
	return shown_by(c, r, m);
}

static bool memory_cause(struct loss_cause *c, const struct workload_result *r,
			 int m)
{
	if (m == M_VMA_FIELD_BYTES) {
		c->brief = "more VMAs, each with its per-VMA fields";
		c->detail = "each backend pays its fields in every vm_area_struct (anon_vma 24 bytes, cow_context 16, see docs/design.md): more here means more VMAs";
		return shown_by(c, r, M_VMAS);
	}
	c->brief = "one context per mm, kept while a child or a folio references it, plus remap-tree nodes";
	c->detail = "the COW context keeps one context per mm plus a remap-tree node for every moved range and every MAP_PRIVATE file VMA, and a context outlives its exited process while a child or a folio still references it";
	return shown_by(c, r, M_MAIN_OBJECTS);
}

/*
 * The cause of a loss on @m, into @c; false where no counter of this
 * run shows one (then @c's texts are the mechanism that was looked
 * for, never printed as a cause).
 */
static bool cause_of(int m, const struct workload_result *r, struct loss_cause *c)
{
	int ph = phase_of(m), what = what_of(m);

	memset(c, 0, sizeof(*c));
	if (m == M_FAMILY_LOCK_ACQUISITIONS || m == M_FAMILY_LOCK_OBJECTS ||
	    m == M_FAMILY_LOCK_MAX_OBJECTS || what == PM_LOCK_ACQ ||
	    what == PM_LOCK_OBJECTS)
		return lock_cause(c, r);
	if (m == M_EXAMINED_PER_FOUND || m == M_EXAMINED_PER_FOUND_FULL)
		return examined_cause(c, r, m);
	if (is_walk_time(m))
		return walk_cause(c, r);
	if (ph == PH_MMAP || ph == PH_MREMAP || ph == PH_MPROTECT ||
	    ph == PH_MUNMAP)
		return remap_cause(c, r, ph);
	if (m == M_FORK_NS || m == M_FORK_INSTRUCTIONS ||
	    m == M_FORK_RMAP_INSTRUCTIONS || m == M_FORK_ALLOCS ||
	    ph == PH_FORK)
		return fork_cause(c, r, m);
	if (ph == PH_FAULT)
		return fault_cause(c, r);
	if (m == M_EXIT_NS || ph == PH_EXIT)
		return exit_cause(c, r);
	if (m == M_BYTES || m == M_PEAK_BYTES || m == M_OBJECTS ||
	    m == M_OBJECT_BYTES || m == M_VMA_FIELD_BYTES ||
	    m == M_RMAP_TO_VMA_BYTES || m == M_MID_BYTES ||
	    m == M_MAIN_OBJECTS)
		return memory_cause(c, r, m);
	/* total_ns, rmap_time_share: sums, whose parts have their rows */
	return false;
}

bool loss_cause(int m, const struct workload_result *r,
		struct loss_cause *c)
{
	return bench_loss(r, m) == LOSS_REAL && cause_of(m, r, c);
}
