// SPDX-License-Identifier: GPL-2.0
/*
 * report.md, results.json and the SVG curves in --out: what a kernel
 * developer would bring to the list, with the machine, the commit and
 * the command on top, the targets checked against the figures,
 * every metric cow_context loses on, and the anchors to the real kernel.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench.h"

/* The first line a shell command prints, or "" */
static void first_line(const char *cmd, char *buf, size_t len)
{
	FILE *p = popen(cmd, "r");

	buf[0] = '\0';
	if (!p)
		return;
	if (!fgets(buf, (int)len, p))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	pclose(p);
}

static void cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) || !colon)
			continue;
		colon += 1 + (colon[1] == ' ');
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(buf, len, "%s", colon);
		break;
	}
	fclose(f);
}

static void header(FILE *f, const struct bench_opts *o)
{
	struct utsname u;
	char commit[128], dirty[8], cpu[128];
	time_t now = time(NULL);
	int i;

	first_line("git rev-parse HEAD 2>/dev/null", commit, sizeof(commit));
	first_line("git status --porcelain --untracked-files=no 2>/dev/null | head -1",
		   dirty, sizeof(dirty));
	cpu_model(cpu, sizeof(cpu));
	fprintf(f, "# cowctx bench: anon_vma against the COW context\n\n");
	fprintf(f, "- command: `cowctx");
	for (i = 0; i < o->argc; i++)
		fprintf(f, " %s", o->argv[i]);
	fprintf(f, "`\n");
	fprintf(f, "- commit: %s%s\n", commit[0] ? commit : "unknown (no git)",
		dirty[0] ? " with uncommitted changes" : "");
	if (!uname(&u))
		fprintf(f, "- machine: %s %s %s %s, %ld CPUs, %s\n", u.sysname,
			u.nodename, u.release, u.machine,
			sysconf(_SC_NPROCESSORS_ONLN), cpu);
	fprintf(f, "- date: %s", ctime(&now));
	fprintf(f, "- sizes: %s, %d replays of each workload (every figure the median over them)\n",
		o->size == SIZE_FULL ? "full" :
		o->size == SIZE_QUICK ? "quick" : "tiny", o->reps);
	fprintf(f, "- backends: anon_vma (Linux's, the baseline)%s%s%s\n\n",
		o->col_ops[COL_COW_CONTEXT] ? ", " : "",
		o->col_ops[COL_COW_CONTEXT] ? o->col_ops[COL_COW_CONTEXT]->name :
		"",
		o->col_ops[COL_SCAN] ? ", scan (the oracle: no rmap objects, "
		"the model's own cost)" : "");
	fprintf(f, "Times are medians on a noisy shared machine; every ratio "
		"(cow_context / anon_vma) compares figures taken in this run, "
		"with the backends interleaved operation by operation. Counts "
		"(objects, bytes, allocations, lock objects, VMAs examined, "
		"instructions) are exact and the same on every run.\n\n");
}

static const struct workload_result *find_result(const struct workload_result *res,
						 int nr, const char *name,
						 const char *p1, long v1,
						 const char *p2, long v2)
{
	int i;

	for (i = 0; i < nr; i++)
		if (!strcmp(res[i].inst.w->name, name) && !res[i].error[0] &&
		    inst_param(&res[i].inst, p1) == v1 &&
		    inst_param(&res[i].inst, p2) == v2 &&
		    (strcmp(name, "zygote") || !inst_param(&res[i].inst, "F")))
			return &res[i];
	return NULL;
}

static void fnum(FILE *f, double v)
{
	if (isnan(v))
		fputs("n/a", f);
	else
		print_number(f, v);
}

/* The figures a reader wants first, from this run */
static void headline(FILE *f, const struct bench_opts *o,
		     const struct workload_result *res, int nr)
{
	const struct workload_result *z = find_result(res, nr, "zygote", "V",
						      1000, "N", 100);
	static const struct {
		int m;
		const char *what;
	} rows[] = {
		{ M_BYTES, "rmap bytes" },
		{ M_FORK_ALLOCS, "rmap allocations per fork" },
		{ M_FORK_RMAP_INSTRUCTIONS, "rmap instructions per fork" },
		{ M_FORK_NS, "fork time, ns (median)" },
		{ M_FAMILY_LOCK_OBJECTS, "objects touched under a family-wide lock" },
		{ M_EXAMINED_PER_FOUND, "VMAs examined per mapping found (reclaim)" },
		{ M_WALK_MEAN_NS, "reclaim walk, ns (mean)" },
	};
	double lo = INFINITY, hi = -INFINITY;
	size_t k;
	int i;

	if (!z || !z->have[COL_COW_CONTEXT])
		return;
	fprintf(f, "## Headline: zygote V=1000 N=100\n\n| figure | anon_vma | %s | ratio |\n|---|---:|---:|---:|\n",
		o->col_ops[COL_COW_CONTEXT]->name);
	for (k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
		fprintf(f, "| %s | ", rows[k].what);
		fnum(f, z->ms[COL_ANON_VMA].v[rows[k].m]);
		fputs(" | ", f);
		fnum(f, z->ms[COL_COW_CONTEXT].v[rows[k].m]);
		fputs(" | ", f);
		fnum(f, z->ratio.v[rows[k].m]);
		fputs(" |\n", f);
	}
	for (i = 0; i < nr; i++) {
		double q = res[i].ratio.v[M_WALK_MEAN_NS];

		if (!res[i].have[COL_COW_CONTEXT] || isnan(q))
			continue;
		lo = fmin(lo, q);
		hi = fmax(hi, q);
	}
	if (lo <= hi)
		fprintf(f, "\nAcross every workload the mean reclaim walk takes %.2f to %.2f times anon_vma's.\n", lo, hi);
	fputc('\n', f);
}

static void targets(FILE *f, const struct workload_result *res, int nr)
{
	const struct workload_result *z = find_result(res, nr, "zygote", "V",
						      1000, "N", 100);
	int i, worse = 0, compared = 0;

	fprintf(f, "## The issue's targets\n\n");
	if (!z || !z->have[COL_COW_CONTEXT]) {
		fprintf(f, "- zygote (V=1000, N=100): %s\n",
			z ? "not measurable: no cow_context backend in this build" :
			"not run (include `zygote:V=1000,N=100`)");
	} else {
		double b = z->ratio.v[M_BYTES], a = z->ratio.v[M_FORK_ALLOCS];

		fprintf(f, "- zygote (V=1000, N=100), cow_context bytes at most 1%% of anon_vma's: **%s** (",
			!isnan(b) && b <= 0.01 ? "met" : "NOT met");
		fnum(f, z->ms[COL_COW_CONTEXT].v[M_BYTES]);
		fprintf(f, " against ");
		fnum(f, z->ms[COL_ANON_VMA].v[M_BYTES]);
		fprintf(f, " bytes, ratio ");
		fnum(f, b);
		fprintf(f, ")\n- zygote (V=1000, N=100), rmap allocations per fork at most 2%% of anon_vma's: **%s** (",
			!isnan(a) && a <= 0.02 ? "met" : "NOT met");
		fnum(f, z->ms[COL_COW_CONTEXT].v[M_FORK_ALLOCS]);
		fprintf(f, " against ");
		fnum(f, z->ms[COL_ANON_VMA].v[M_FORK_ALLOCS]);
		fprintf(f, ", ratio ");
		fnum(f, a);
		fprintf(f, ")\n");
	}
	for (i = 0; i < nr; i++) {
		double c = res[i].ms[COL_COW_CONTEXT].v[M_EXAMINED_PER_FOUND];
		double av = res[i].ms[COL_ANON_VMA].v[M_EXAMINED_PER_FOUND];

		if (!res[i].have[COL_COW_CONTEXT] || isnan(c) || isnan(av))
			continue;
		compared++;
		if (c > av + 1e-9)
			worse++;
	}
	if (!compared) {
		fprintf(f, "- reclaim walks, VMAs examined per mapping found no worse than anon_vma's on every workload: not measurable\n\n");
		return;
	}
	fprintf(f, "- reclaim walks, VMAs examined per mapping found no worse than anon_vma's on every workload: **%s** (%d of %d workloads worse)\n\n",
		worse ? "NOT met" : "met", worse, compared);
	fprintf(f, "| workload | anon_vma | cow_context | ratio |\n|---|---:|---:|---:|\n");
	for (i = 0; i < nr; i++) {
		if (!res[i].have[COL_COW_CONTEXT])
			continue;
		fprintf(f, "| %s | ", res[i].inst.label);
		fnum(f, res[i].ms[COL_ANON_VMA].v[M_EXAMINED_PER_FOUND]);
		fputs(" | ", f);
		fnum(f, res[i].ms[COL_COW_CONTEXT].v[M_EXAMINED_PER_FOUND]);
		fputs(" | ", f);
		fnum(f, res[i].ratio.v[M_EXAMINED_PER_FOUND]);
		fputs(" |\n", f);
	}
	fputc('\n', f);
}

/*
 * Why cow_context can cost more on a metric: the mechanism, from the
 * design and from experiments on these workloads (bench/README.md); the
 * figures beside it are this run's.
 */
static const char *loss_mechanism(int m, const struct workload_result *r)
{
	const char *w = r->inst.w->name;
	int ph = m >= M_PHASE_BASE ? (m - M_PHASE_BASE) / PM_NR : -1;
	int what = m >= M_PHASE_BASE ? (m - M_PHASE_BASE) % PM_NR : -1;

	if ((m == M_EXAMINED_PER_FOUND || m == M_EXAMINED_PER_FOUND_FULL) &&
	    !strcmp(w, "jit"))
		return "every fourth round a process unmaps one page and maps it again. In a forked child Linux refuses to merge the new VMA into its neighbours (a fork child's anon_vma chain must not spread, is_mergeable_anon_vma()), so the new page gets a VMA of its own whose fresh anon_vma is not linked into the parent's: a walk of the parent's folio at that address never looks there. The COW context merges the page back into the big VMA and knows only that the child's mm descends from the folio's context, so it looks the address up in that mm and finds the child's own page: one more VMA examined, nothing found. With rounds below 4 (no refills) the figures are equal; the merge also leaves cow_context with far fewer VMAs (see vmas)";
	if (m == M_EXAMINED_PER_FOUND || m == M_EXAMINED_PER_FOUND_FULL)
		return "the COW context knows which mms descend from the folio's context, not which of their VMAs were forked from the one that faulted it: every descendant mm with a VMA at the folio's address is a candidate, where anon_vma's tree holds exactly the VMAs linked to the folio's anon_vma";
	if (m == M_WALK_NS || m == M_WALK_MEAN_NS || m == M_FULL_WALK_NS ||
	    m == M_FULL_WALK_MEAN_NS || ph == PH_WALK || ph == PH_FULL_WALK)
		return r->ms[COL_COW_CONTEXT].v[M_EXAMINED_PER_FOUND_FULL] <=
		       r->ms[COL_ANON_VMA].v[M_EXAMINED_PER_FOUND_FULL] ?
		       "per candidate the COW context looks the folio's address up in the mm's VMA tree (a binary search, the maple tree in the kernel) and pins the context it stands on, where anon_vma's walk steps from one AVC to the next in an interval tree it already holds: it examines no more VMAs here (examined_per_found, examined_per_found_full), but each costs more" :
		       "the COW context examines more VMAs here (examined_per_found_full), and per candidate it looks the folio's address up in the mm's VMA tree (a binary search, the maple tree in the kernel), where anon_vma's walk steps from one AVC to the next in an interval tree it already holds";
	if (what == PM_ALLOCS && ph == PH_EXIT)
		return "the remap array shrinks when most of its entries are gone (remap_tree.c maybe_shrink()): unlinking the MAP_PRIVATE file and moved VMAs at exit reallocates it smaller. A failed shrink keeps the larger array, so teardown cannot fail, but it is an allocation on the unmap path that anon_vma does not make";
	if (ph == PH_MMAP && !strcmp(w, "zygote") &&
	    inst_param(&r->inst, "F") > 0)
		return "one timed call (mmap of all VMAs at once): MAP_PRIVATE file VMAs carry an offset other than 0, so the COW context tracks them in the remap tree; on a single sample this is at the edge of this machine's noise";
	if (ph == PH_MMAP)
		return "mmap creates no rmap state in either backend (anonymous state comes with the first fault); one timed call, so this is one draw of this machine's noise";
	if (ph == PH_FAULT)
		return "a new anonymous folio takes a reference on its context, and exclusive reuse moves it (a put and a get), where an anon_vma folio holds no reference (its anon_vma is pinned by the VMAs); in the kernel these are atomic operations on a shared cache line";
	if (m == M_FORK_NS || m == M_FORK_INSTRUCTIONS ||
	    m == M_FORK_RMAP_INSTRUCTIONS || ph == PH_FORK)
		return "per fork the COW context allocates one context and records the child's moved and MAP_PRIVATE file VMAs in its remap tree; where the parent has few faulted VMAs this fixed cost is larger than anon_vma's per-VMA work";
	if (m == M_BYTES || m == M_PEAK_BYTES || m == M_OBJECTS ||
	    m == M_RMAP_TO_VMA_BYTES || m == M_MID_BYTES)
		return "the COW context keeps one context per mm plus a remap-array slot for every moved range and every MAP_PRIVATE file VMA, and a context outlives its exited process while a child or a folio still references it";
	if (m == M_EXIT_NS || ph == PH_EXIT)
		return "an exiting mm drops its context, which may cascade up through exited ancestors and frees after an RCU grace period";
	if (m == M_TOTAL_NS || m == M_RMAP_TIME_SHARE)
		return "the sum of the phases: see the phase whose time is larger";
	if (ph == PH_MREMAP || ph == PH_MPROTECT || ph == PH_MUNMAP)
		return "remap-tree upkeep: a moved or split VMA's entry is removed and reinserted under the mm's remap lock, where anon_vma only re-keys its AVCs";
	return "see the phase breakdown in results.json";
}

/* A number after "KEY": in a backend's JSON figures; -1 if absent */
static double json_number(const char *json, const char *key)
{
	char pat[64];
	const char *p;

	if (!json)
		return -1;
	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(json, pat);
	return p ? strtod(p + strlen(pat), NULL) : -1;
}

/*
 * The mechanism, and where the backend's own counters show it, the
 * figures: a walk that steps through more contexts than there are live
 * mms is walking exited processes' contexts.
 */
static const char *loss_reason(int m, const struct workload_result *r)
{
	static char buf[1024];
	const char *why = loss_mechanism(m, r);
	const char *cj = r->backend_json[COL_COW_CONTEXT];
	double ctx = json_number(cj, "contexts_visited");
	double mms = json_number(cj, "mms_visited");
	int ph = m >= M_PHASE_BASE ? (m - M_PHASE_BASE) / PM_NR : -1;
	bool walk = m == M_WALK_NS || m == M_WALK_MEAN_NS ||
		    m == M_FULL_WALK_NS || m == M_FULL_WALK_MEAN_NS ||
		    ph == PH_WALK || ph == PH_FULL_WALK;

	if (!walk || ctx <= 0 || mms <= 0 || ctx < 1.5 * mms)
		return why;
	snprintf(buf, sizeof(buf),
		 "%s. Here above all: the walks stepped through %.0f contexts to reach %.0f live mms (the backend's contexts_visited, mms_visited). "
		 "An exited process's context stays while a child or a folio still references it, so a chain whose parents exit leaves every "
		 "intermediate's context between the root's folios and the live leaf; anon_vma's fork reuses an exited parent's anon_vma "
		 "(no VMA uses it, one child), so its family stays shallow",
		 why, ctx, mms);
	return buf;
}

/* ratios that count as a loss: any for exact counts, >10% for times */
static bool is_time(int m)
{
	return m == M_FORK_NS || m == M_WALK_NS || m == M_WALK_MEAN_NS ||
	       m == M_FULL_WALK_NS || m == M_FULL_WALK_MEAN_NS ||
	       m == M_EXIT_NS || m == M_TOTAL_NS || m == M_RMAP_TIME_SHARE ||
	       (m >= M_PHASE_BASE && (m - M_PHASE_BASE) % PM_NR == PM_TIME_NS);
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
 * Worse by the side-by-side ratio (the median of the replays' ratios),
 * or, where anon_vma's figure is 0, by any amount at all.
 */
static bool is_lost(const struct workload_result *r, int m)
{
	double c = r->ms[COL_COW_CONTEXT].v[m];
	double a = r->ms[COL_ANON_VMA].v[m];
	double q = r->ratio.v[m];

	if (m == M_RMAP_TIME_SHARE)
		return c > a + 0.1;
	if (isnan(q))
		return a == 0 && c > 0;
	return is_time(m) ? q > 1.1 : q > 1;
}

/* a time on fewer samples than this is one draw of the noise */
#define MIN_TIMED_CALLS 20

#define MAX_REASONS 32

/* The reasons cited so far, each printed once below the table */
struct reasons {
	char *text[MAX_REASONS];
	int nr;
};

/* @why's number in @rs (1-based); 0 when the list is full */
static int reason_cite(struct reasons *rs, const char *why)
{
	int i;

	for (i = 0; i < rs->nr; i++)
		if (!strcmp(rs->text[i], why))
			return i + 1;
	if (rs->nr == MAX_REASONS)
		return 0;
	rs->text[rs->nr] = strdup(why);
	if (!rs->text[rs->nr])
		return 0;
	return ++rs->nr;
}

static void reasons_print(FILE *f, struct reasons *rs)
{
	int i;

	for (i = 0; i < rs->nr; i++) {
		fprintf(f, "%d. %s.\n", i + 1, rs->text[i]);
		free(rs->text[i]);
	}
	rs->nr = 0;
}

static void losses(FILE *f, const struct workload_result *res, int nr)
{
	struct reasons rs = { .nr = 0 };
	int i, m, n = 0, noisy = 0;

	fprintf(f, "## Where cow_context loses\n\n");
	fprintf(f, "Every metric of every workload where cow_context's figure is worse than anon_vma's: any amount for exact counts, "
		"more than 10%% for times. Times resting on fewer than %d timed calls are listed apart, below the table.\n\n",
		MIN_TIMED_CALLS);
	for (i = 0; i < nr; i++) {
		const struct workload_result *r = &res[i];

		if (!r->have[COL_COW_CONTEXT] || !r->have[COL_ANON_VMA])
			continue;
		for (m = 0; m < NR_METRICS; m++) {
			double c = r->ms[COL_COW_CONTEXT].v[m];
			double a = r->ms[COL_ANON_VMA].v[m];
			bool lost;

			if (!metric_is_cost(m) || m == M_LEAK_BYTES ||
			    m == M_WALK_MISSED || isnan(c) || isnan(a))
				continue;
			lost = is_lost(r, m);
			if (!lost)
				continue;
			if (is_time(m) && timed_calls(r, m) < MIN_TIMED_CALLS) {
				noisy++;
				continue;
			}
			if (!n++)
				fprintf(f, "| workload | metric | anon_vma | cow_context | ratio | why (below) |\n|---|---|---:|---:|---:|---:|\n");
			fprintf(f, "| %s | %s | ", r->inst.label,
				metric_name(m));
			fnum(f, a);
			fputs(" | ", f);
			fnum(f, c);
			fputs(" | ", f);
			fnum(f, r->ratio.v[m]);
			fprintf(f, " | %d |\n", reason_cite(&rs, loss_reason(m, r)));
		}
	}
	if (n) {
		fprintf(f, "\nWhy:\n\n");
		reasons_print(f, &rs);
	}
	if (!n)
		fprintf(f, "%s\n", res && nr && res[0].have[COL_COW_CONTEXT] ?
			"On no metric of any workload." :
			"Not measurable: no cow_context backend in this build.");
	if (noisy) {
		fprintf(f, "\nTimes on fewer than %d calls where cow_context is more than 10%% slower (one sample of a noisy machine each; "
			"the exact counts of the same phases are in the table above or equal):\n\n", MIN_TIMED_CALLS);
		for (i = 0; i < nr; i++) {
			const struct workload_result *r = &res[i];

			if (!r->have[COL_COW_CONTEXT])
				continue;
			for (m = 0; m < NR_METRICS; m++) {
				double c = r->ms[COL_COW_CONTEXT].v[m];
				double a = r->ms[COL_ANON_VMA].v[m];

				if (!is_time(m) || m == M_RMAP_TIME_SHARE ||
				    isnan(c) || isnan(a) || !is_lost(r, m) ||
				    timed_calls(r, m) >= MIN_TIMED_CALLS)
					continue;
				fprintf(f, "- %s, %s: %.0f against %.0f ns (%s)\n",
					r->inst.label, metric_name(m), c, a,
					loss_reason(m, r));
			}
		}
	}
	fputc('\n', f);
}

/* Lock scope: the family-wide lock, and what the backends say of theirs */
static void locks_section(FILE *f, const struct workload_result *res, int nr)
{
	int i, c;

	fprintf(f, "## Lock scope\n\n");
	fprintf(f, "A family-wide lock is one whose holder excludes every process of a fork family: anon_vma's root rwsem. "
		"Every backend's such locks count in the model's family_lock_stat; the figures are acquisitions, objects (AVCs, VMAs) "
		"touched while one is held, and the most touched in one hold, per operation type in results.json (`PHASE_lock_*`).\n\n");
	fprintf(f, "| workload | anon_vma acquisitions | anon_vma objects | anon_vma max in one hold | cow_context acquisitions | cow_context objects | cow_context max in one hold |\n|---|---:|---:|---:|---:|---:|---:|\n");
	for (i = 0; i < nr; i++) {
		const struct workload_result *r = &res[i];

		if (r->error[0])
			continue;
		fprintf(f, "| %s", r->inst.label);
		for (c = 0; c < 2; c++) {
			fputs(" | ", f);
			fnum(f, r->ms[c].v[M_FAMILY_LOCK_ACQUISITIONS]);
			fputs(" | ", f);
			fnum(f, r->ms[c].v[M_FAMILY_LOCK_OBJECTS]);
			fputs(" | ", f);
			fnum(f, r->ms[c].v[M_FAMILY_LOCK_MAX_OBJECTS]);
		}
		fputs(" |\n", f);
	}
	for (i = 0; i < nr; i++) {
		if (!res[i].backend_json[COL_COW_CONTEXT])
			continue;
		fprintf(f, "\nThe COW context takes no family-wide lock: its locks are per context, that is per mm "
			"(a spinlock for writers of a context's children list, an rwsem over its remap tree), and walks run under RCU. "
			"Its own figures on %s, as the backend reports them:\n\n    %s\n",
			res[i].inst.label, res[i].backend_json[COL_COW_CONTEXT]);
		break;
	}
	fputc('\n', f);
}

/* The anchor in words: ranges over the rows with V >= 100 */
static void anchors_summary(FILE *f, const struct anchor_row *ar, int nr)
{
	double tu[2] = { INFINITY, -INFINITY }, sh[2] = { INFINITY, -INFINITY };
	double sl[2] = { INFINITY, -INFINITY };
	int i, rows = 0;

	for (i = 0; i < nr; i++) {
		double au = ar[i].model_ns[0][COL_ANON_VMA];
		double at = ar[i].model_ns[1][COL_ANON_VMA];
		double st = ar[i].model_ns[1][COL_SCAN];
		double x;

		if (ar[i].v < 100 || !(au > 0) || !(at > 0) || isnan(st))
			continue;
		rows++;
		x = at / au;
		tu[0] = fmin(tu[0], x);
		tu[1] = fmax(tu[1], x);
		x = (at - st) / at;
		sh[0] = fmin(sh[0], x);
		sh[1] = fmax(sh[1], x);
		x = ar[i].kernel_touched_ms * 1e6 / at;
		sl[0] = fmin(sl[0], x);
		sl[1] = fmax(sl[1], x);
	}
	if (!rows) {
		fputc('\n', f);
		return;
	}
	fprintf(f, "\nFrom V=100 up, anon_vma's bookkeeping is %.0f%% to %.0f%% of the model's touched fork, and a touched fork costs %.1f to %.1f "
		"times an untouched one, against about half and 1.5 to 2.7 times on the real kernel. The model's fork is %.0f to %.0f times faster "
		"than the kernel's (no maple tree, no per-VMA locks, no mm_struct or task setup, page tables as plain arrays), and the "
		"rmap's own work is the same work, so the rmap takes a larger share of the model's fork than of the kernel's: time ratios between "
		"backends measured in the model overstate what the kernel would show for fork, and the kernel's saving would be about the "
		"rmap share of its fork times the model's ratio. The counts (objects, allocations, lock objects) are the kernel's exactly: "
		"tests/bench.t holds the model's anon_vma counts to reference/REAL-KERNEL.md's fan and chain tables.\n\n",
		100 * sh[0], 100 * sh[1], tu[0], tu[1], sl[0], sl[1]);
}

static void anchors_section(FILE *f, const struct anchor_row *ar, int nr)
{
	int i;

	if (!nr)
		return;
	fprintf(f, "## The model against the real kernel: fork of V one-page VMAs\n\n");
	fprintf(f, "The kernel's figures are reference/REAL-KERNEL.md's (Linux 6.18, this project's x86-64 VMs, median fork() in the parent). "
		"There a faulted VMA costs about twice an untouched one: anon_vma bookkeeping plus the PTE copy are about half of fork's work. "
		"The model's columns are medians of `mm_fork()` of the same layouts; `anon_vma share` is the part of the model's touched fork "
		"that the anon_vma backend adds over the scan oracle, whose rmap hooks are empty (PTE copy and VMA copy are in both).\n\n");
	fprintf(f, "| V | kernel untouched ms | kernel touched ms | kernel touched/untouched | model anon_vma untouched ns | model anon_vma touched ns | model touched/untouched | model scan touched ns | anon_vma share of model fork | model cow_context touched ns | cow_context / anon_vma |\n");
	fprintf(f, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (i = 0; i < nr; i++) {
		const struct anchor_row *r = &ar[i];
		double au = r->model_ns[0][COL_ANON_VMA];
		double at = r->model_ns[1][COL_ANON_VMA];
		double st = r->model_ns[1][COL_SCAN];
		double ct = r->model_ns[1][COL_COW_CONTEXT];

		fprintf(f, "| %lu | %.2f | %.2f | %.2f | ", r->v,
			r->kernel_untouched_ms, r->kernel_touched_ms,
			r->kernel_touched_ms / r->kernel_untouched_ms);
		fnum(f, au);
		fputs(" | ", f);
		fnum(f, at);
		fputs(" | ", f);
		fnum(f, au > 0 ? at / au : NAN);
		fputs(" | ", f);
		fnum(f, st);
		fputs(" | ", f);
		fnum(f, at > 0 && !isnan(st) ? (at - st) / at : NAN);
		fputs(" | ", f);
		fnum(f, ct);
		fputs(" | ", f);
		fnum(f, at > 0 ? ct / at : NAN);
		fputs(" |\n", f);
	}
	anchors_summary(f, ar, nr);
}

static void android_section(FILE *f, const struct workload_result *res,
			    int nr)
{
	const struct workload_result *z = find_result(res, nr, "zygote", "V",
						      1000, "N", 100);
	int i;

	fprintf(f, "## Android: rmap memory beside VMA memory\n\n");
	fprintf(f, "HONOR reported (2026) that on Android after boot the anon_vma and anon_vma_chain slabs take about a third of the memory "
		"of the VMAs themselves. The model's figure is rmap bytes / (VMAs x %lu bytes, this kernel's vm_area_struct slab size); "
		"the model's zygote has every VMA faulted and private, where a booted phone also has file-backed and never-written VMAs "
		"without anon_vmas, so the model's anon_vma figure is an upper bound of the phone's.\n\n",
		vma_slab_bytes());
	fprintf(f, "| workload | VMAs | anon_vma bytes / VMA bytes | cow_context bytes / VMA bytes |\n|---|---:|---:|---:|\n");
	for (i = 0; i < nr; i++) {
		const struct workload_result *r = &res[i];

		if (strcmp(r->inst.w->name, "zygote") || r->error[0])
			continue;
		fprintf(f, "| %s%s | ", r->inst.label, r == z ? " (the issue's)" : "");
		fnum(f, r->ms[COL_ANON_VMA].v[M_VMAS]);
		fputs(" | ", f);
		fnum(f, r->ms[COL_ANON_VMA].v[M_RMAP_TO_VMA_BYTES]);
		fputs(" | ", f);
		fnum(f, r->ms[COL_COW_CONTEXT].v[M_RMAP_TO_VMA_BYTES]);
		fputs(" |\n", f);
	}
	fprintf(f, "\nAndroid (HONOR, 2026): about 0.33.");
	if (z && z->have[COL_COW_CONTEXT]) {
		double a = z->ms[COL_ANON_VMA].v[M_RMAP_TO_VMA_BYTES];
		double q = z->ratio.v[M_BYTES];

		fprintf(f, " At the model's cost per faulted VMA (%.2f of a VMA's bytes on the issue's zygote), the phone's third "
			"means roughly %.0f%% of its VMAs carrying a zygote child's anon_vma state. If the phone's rmap memory shrank by the "
			"model's ratio on this workload (%.4g), the anon_vma slabs' third of VMA memory would become about %.2g%% of it; "
			"that is an extrapolation from a model workload, not a measurement of a phone.",
			a, 100 * 0.33 / a, q, 100 * 0.33 * q);
	}
	fprintf(f, "\n\n");
}

/* ---- plots ----------------------------------------------------------- */

static int write_plot_files(const char *dir, const struct curve *cu)
{
	char path[4096];
	bool logy = cu->logy;
	FILE *f;
	int i, c, first = 1;

	snprintf(path, sizeof(path), "%s/%s.dat", dir, cu->id);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "# %s\n# %s anon_vma cow_context scan\n", cu->title,
		cu->xlabel);
	for (i = 0; i < cu->nr; i++) {
		fprintf(f, "%g", cu->x[i]);
		for (c = 0; c < NR_COLS; c++) {
			double y = cu->y[i][c];

			if (isnan(y))
				fprintf(f, " NaN");
			else
				fprintf(f, " %.6g", y);
			/* a log axis cannot show a zero: draw it linear */
			if (c != COL_SCAN && !isnan(y) && y <= 0)
				logy = false;
		}
		fputc('\n', f);
	}
	fclose(f);

	snprintf(path, sizeof(path), "%s/%s.gp", dir, cu->id);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "set terminal svg size 720,440 dynamic noenhanced font 'sans,11' background rgb 'white'\n"
		"set output '%s.svg'\nset title \"%s\"\nset xlabel '%s'\n"
		"set ylabel '%s'\nset grid\nset key outside right top\n"
		"set logscale x\n%s",
		cu->id, cu->title, cu->xlabel, cu->ylabel,
		logy ? "set logscale y\n" : "set yrange [0:*]\n");
	fprintf(f, "plot ");
	for (c = 0; c < NR_COLS; c++) {
		bool any = false;

		if (c == COL_SCAN)
			continue;
		for (i = 0; i < cu->nr; i++)
			any |= !isnan(cu->y[i][c]);
		if (!any)
			continue;
		/* dashed over solid: equal curves stay visible */
		fprintf(f, "%s'%s.dat' using 1:%d with linespoints lw %d dt %d pt %d title '%s'",
			first ? "" : ", ", cu->id, c + 2, 3 - c, 1 + c,
			7 + 2 * c, bench_col_name[c]);
		first = 0;
	}
	fputc('\n', f);
	fclose(f);
	return first ? -ENODATA : 0;
}

/* gnuplot SCRIPT in DIR, quietly; 0 when it wrote its plot */
static int run_gnuplot(const char *dir, const char *script)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (chdir(dir))
			_exit(126);
		if (fd >= 0) {
			dup2(fd, 1);
			close(fd);
		}
		execlp("gnuplot", "gnuplot", script, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -ECHILD;
}

static void curves_section(FILE *f, const char *dir, const struct curve *cv,
			   int nr)
{
	int i, made = 0, k, c;

	if (!nr)
		return;
	fprintf(f, "## Scaling curves\n\n");
	for (i = 0; i < nr; i++) {
		char script[128];

		if (write_plot_files(dir, &cv[i]))
			continue;
		snprintf(script, sizeof(script), "%s.gp", cv[i].id);
		if (run_gnuplot(dir, script)) {
			fprintf(f, "- %s: gnuplot failed or is missing; the data is in %s.dat\n",
				cv[i].title, cv[i].id);
			continue;
		}
		made++;
		fprintf(f, "### %s\n\n![%s](%s.svg)\n\n| %s | anon_vma | cow_context | ratio |\n|---:|---:|---:|---:|\n",
			cv[i].title, cv[i].title, cv[i].id, cv[i].xlabel);
		for (k = 0; k < cv[i].nr; k++) {
			fprintf(f, "| %g", cv[i].x[k]);
			for (c = 0; c < 2; c++) {
				fputs(" | ", f);
				fnum(f, cv[i].y[k][c]);
			}
			fputs(" | ", f);
			fnum(f, metric_ratio(cv[i].y[k][COL_COW_CONTEXT],
					     cv[i].y[k][COL_ANON_VMA]));
			fputs(" |\n", f);
		}
		fputc('\n', f);
	}
	if (!made)
		fprintf(f, "No plots were drawn (is gnuplot installed? `make deps`).\n\n");
}

static int write_json_file(const struct bench_opts *o,
			   const struct workload_result *res, int nr,
			   const char *const *notes, int nr_notes)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/results.json", o->out_dir);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	print_json(f, o, res, nr, notes, nr_notes);
	return fclose(f) ? -errno : 0;
}

int report_write(const struct bench_opts *o,
		 const struct workload_result *res, int nr,
		 const struct curve *curves, int nr_curves,
		 const struct anchor_row *anchors, int nr_anchors,
		 const char *const *notes, int nr_notes)
{
	char path[4096];
	FILE *f;
	int i;

	if (write_json_file(o, res, nr, notes, nr_notes))
		fprintf(stderr, "cowctx bench: cannot write %s/results.json\n",
			o->out_dir);
	snprintf(path, sizeof(path), "%s/report.md", o->out_dir);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "cowctx bench: cannot write %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	header(f, o);
	for (i = 0; i < nr_notes; i++)
		fprintf(f, "> note: %s\n\n", notes[i]);
	headline(f, o, res, nr);
	targets(f, res, nr);
	losses(f, res, nr);
	locks_section(f, res, nr);
	anchors_section(f, anchors, nr_anchors);
	android_section(f, res, nr);
	curves_section(f, o->out_dir, curves, nr_curves);
	fprintf(f, "## Every workload\n\nMetrics are defined in bench/README.md. `-`: backend not built; `n/a`: not defined "
		"(no walks, no forks, or the ratio of something to zero).\n\n");
	print_table(f, res, nr, false);
	fprintf(f, "\n## Reproducing\n\n    make && build/cowctx");
	for (i = 0; i < o->argc; i++)
		fprintf(f, " %s", o->argv[i]);
	fprintf(f, "\n\n`results.json` beside this file holds every metric of every workload; `callgrind.*.out` "
		"are the instruction counts' profiles (`callgrind_annotate` reads them); `*.dat`/`*.gp` are the curves' data "
		"and gnuplot scripts.\n");
	if (fclose(f)) {
		fprintf(stderr, "cowctx bench: writing %s failed\n", path);
		return -1;
	}
	return 0;
}
