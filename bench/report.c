// SPDX-License-Identifier: GPL-2.0
/*
 * report.md, results.json and the SVG curves in --out: what a kernel
 * developer would bring to the list, with the machine, the commit and
 * the command on top, the targets (bench/targets.c) checked against the figures,
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

#include <cowctx/version.h>

#include "bench/bench.h"
#include "bench/real_programs.h"

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
	char cpu[128];
	time_t now = time(NULL);
	int i;

	cpu_model(cpu, sizeof(cpu));
	fprintf(f, "# cowctx bench: anon_vma against the COW context\n\n");
	fprintf(f, "- command: `cowctx");
	for (i = 0; i < o->argc; i++)
		fprintf(f, " %s", o->argv[i]);
	fprintf(f, "`\n");
	/* the binary's build, whatever directory it runs in */
	fprintf(f, "- build: cowctx %s (`cowctx --version`: the tree it was built from; -dirty: with uncommitted changes)\n",
		cowctx_version);
	if (!uname(&u))
		fprintf(f, "- machine: %s %s %s %s, %ld CPUs, %s\n", u.sysname,
			u.nodename, u.release, u.machine,
			sysconf(_SC_NPROCESSORS_ONLN), cpu);
	fprintf(f, "- date: %s", ctime(&now));
	fprintf(f, "- sizes: %s, %d replays of each workload (every figure the median over them)\n",
		o->size == SIZE_FULL ? "full" :
		o->size == SIZE_QUICK ? "quick" : "tiny", o->reps);
	fprintf(f, "- backends: %s (the baseline of every ratio)", col_name(o, 0));
	for (i = 1; i < o->nr_cols; i++)
		fprintf(f, ", %s", col_name(o, i));
	fprintf(f, "%s\n\n", o->col_ops[COL_SCAN] ?
		"; and scan, the oracle (no rmap objects: the model's own cost), not shown" : "");
	fprintf(f, "Times are taken on a noisy shared machine, with the backends interleaved operation by operation. "
		"A per-call time (fork_ns, exit_ns, walk_ns, full_walk_ns) charges each call its least "
		"time over the replays (a stall only adds time) and is the median over the calls; a phase total, and a walk's "
		"mean (walk_mean_ns, full_walk_mean_ns: the counted pass's time over its walks, no clock read between them), is "
		"the median over the replays. A walk's call is timed as a batch of the same walk repeated to about 2 us, the "
		"clock here moving in 10 ns steps (bench/README.md, \"How walks are timed\"). `[Q1..Q3]` after a time is its spread, the first and third quartiles: over the "
		"calls for a per-call time, over the replays for a total or a mean. A ratio is the quotient of the two figures on its row (a column / the first column). "
		"Counts (objects, bytes, allocations, lock objects, VMAs examined, instructions) are exact and the same on "
		"every run.\n\n");
}

static void fnum(FILE *f, double v)
{
	if (isnan(v))
		fputs("n/a", f);
	else
		print_number(f, v);
}

/* a figure with its spread where it has one */
static void fnum_spread(FILE *f, const struct metric_set *ms, int m)
{
	fnum(f, ms->v[m]);
	if (isnan(ms->q1[m]) || isnan(ms->q3[m]))
		return;
	fprintf(f, " [%.0f..%.0f]", ms->q1[m], ms->q3[m]);
}

/*
 * The figures a reader wants first, from this run: bench/headline.c's,
 * each with its metric's name, as the verdict names them.
 */
static void headline(FILE *f, const struct bench_opts *o,
		     const struct workload_result *res, int nr)
{
	const struct workload_result *z = headline_result(res, nr);
	double lo = INFINITY, hi = -INFINITY;
	int i;

	if (!z)
		return;
	fprintf(f, "## Headline: %s\n\nA parent with V=%ld written %ld-page VMAs forks N=%ld children, each writing %ld%% of the pages "
		"(the figures the verdict gives first, under the same metric names; bench/README.md defines each metric).\n\n"
		"| figure | metric | %s | %s | ratio |\n|---|---|---:|---:|---:|\n",
		z->inst.label, inst_param(&z->inst, "V"), inst_param(&z->inst, "P"),
		inst_param(&z->inst, "N"), inst_param(&z->inst, "cow"),
		col_name(o, 0), col_name(o, 1));
	for (i = 0; i < nr_headline_figures; i++) {
		int m = headline_figures[i].metric;

		fprintf(f, "| %s | %s | ", headline_figures[i].what,
			metric_name(m));
		fnum_spread(f, &z->ms[COL_ANON_VMA], m);
		fputs(" | ", f);
		fnum_spread(f, &z->ms[COL_COW_CONTEXT], m);
		fputs(" | ", f);
		fnum(f, z->ratio[COL_COW_CONTEXT].v[m]);
		fputs(" |\n", f);
	}
	for (i = 0; i < nr; i++) {
		double q = res[i].ratio[COL_COW_CONTEXT].v[M_WALK_MEAN_NS];

		if (!res[i].have[COL_COW_CONTEXT] || isnan(q))
			continue;
		lo = fmin(lo, q);
		hi = fmax(hi, q);
	}
	if (lo <= hi)
		fprintf(f, "\nAcross every workload, %s's walk_mean_ns is %.2f to %.2f times %s's.\n", col_name(o, 1), lo, hi,
			col_name(o, 0));
	fputc('\n', f);
}

static void targets(FILE *f, const struct bench_opts *o,
		    const struct workload_result *res, int nr)
{
	struct target_check t[16];
	int i, n = targets_check(o, res, nr, t, 16);

	fprintf(f, "## Targets\n\n");
	fprintf(f, "What the COW context is held to, as this project's issues set it; each is checked on this run's figures "
		"(bench/targets.c states them; realzygote and daemon are defined under Workloads and parameters below).\n\n");
	fprintf(f, "Rmap bytes are counted the same way for every backend: its objects at their kernel sizes, and the fields it needs in "
		"every vm_area_struct, times the VMAs (per-VMA fields: anon_vma's anon_vma_chain list_head and anon_vma pointer, "
		"24 bytes in 6.12's include/linux/mm_types.h; the COW context's vm_anon_pgoff, its flags packed in, and the anon_vma slot holding anon_vma_id, 16 bytes). "
		"The fields are a line of their own (vma_field_bytes); object counts and the kernel comparisons leave them out.\n\n");
	fprintf(f, "| target | set in | result | figures (%s against %s) |\n|---|---|---|---|\n",
		col_name(o, 1), col_name(o, 0));
	for (i = 0; i < n; i++)
		fprintf(f, "| %s | %s | **%s** | %s |\n", t[i].what, t[i].source,
			t[i].met < 0 ? "not measured" : t[i].met ? "met" : "NOT met",
			t[i].met < 0 ? (t[i].r || t[i].every ? "no figures" :
					"workload not run") : t[i].figure);
	fprintf(f, "\n| workload | examined_per_found, %s | %s | examined_per_found_full, %s | %s |\n|---|---:|---:|---:|---:|\n",
		col_name(o, 0), col_name(o, 1), col_name(o, 0), col_name(o, 1));
	for (i = 0; i < nr; i++) {
		if (!res[i].have[COL_COW_CONTEXT])
			continue;
		fprintf(f, "| %s | ", res[i].inst.label);
		fnum(f, res[i].ms[COL_ANON_VMA].v[M_EXAMINED_PER_FOUND]);
		fputs(" | ", f);
		fnum(f, res[i].ms[COL_COW_CONTEXT].v[M_EXAMINED_PER_FOUND]);
		fputs(" | ", f);
		fnum(f, res[i].ms[COL_ANON_VMA].v[M_EXAMINED_PER_FOUND_FULL]);
		fputs(" | ", f);
		fnum(f, res[i].ms[COL_COW_CONTEXT].v[M_EXAMINED_PER_FOUND_FULL]);
		fputs(" |\n", f);
	}
	fputc('\n', f);
}

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

/* a row of "Where cow_context loses": figures, ratio, why, counters */
static void loss_row(FILE *f, const struct workload_result *r, int m,
		     struct reasons *rs)
{
	struct loss_cause c;
	bool why = loss_cause(m, r, &c);

	fprintf(f, "| %s | %s | ", r->inst.label, metric_name(m));
	fnum_spread(f, &r->ms[COL_ANON_VMA], m);
	fputs(" | ", f);
	fnum_spread(f, &r->ms[COL_COW_CONTEXT], m);
	fputs(" | ", f);
	fnum(f, r->ratio[COL_COW_CONTEXT].v[m]);
	if (why)
		fprintf(f, " | %d | %s |\n", reason_cite(rs, c.detail),
			c.counters);
	else
		fputs(" | - | |\n", f);
}

/*
 * Every loss beyond the noise, with its cause where a counter shows
 * one (bench/loss.c); then the differences within the noise, figures
 * only.
 */
static void losses(FILE *f, const struct workload_result *res, int nr)
{
	struct reasons rs = { .nr = 0 };
	struct loss_cause c;
	int i, m, n = 0, noisy = 0, bare = 0;

	fprintf(f, "## Where cow_context loses\n\n");
	fprintf(f, "Every metric of every workload where cow_context's figure is worse than anon_vma's beyond the noise: an exact "
		"count by any amount; a time by more than 10%%, with the quartiles apart (cow_context's first above anon_vma's third), "
		"on at least 20 timed calls and, for a total or a mean, 3 replays. A cause is given only where a counter of this run "
		"shows it, and is quoted with those counters (over the whole workload, or its phase); `-`: no counter shows one. Worse times within the noise follow the "
		"table, without a cause.\n\n");
	for (i = 0; i < nr; i++) {
		for (m = 0; m < NR_METRICS; m++) {
			int l = bench_loss(&res[i], m);

			noisy += l == LOSS_NOISE;
			if (l != LOSS_REAL)
				continue;
			if (!n++)
				fprintf(f, "| workload | metric | anon_vma | cow_context | ratio | why (below) | the counters that show it |\n|---|---|---:|---:|---:|---:|---|\n");
			bare += !loss_cause(m, &res[i], &c);
			loss_row(f, &res[i], m, &rs);
		}
	}
	if (rs.nr) {
		fprintf(f, "\nWhy:\n\n");
		reasons_print(f, &rs);
	}
	if (bare)
		fprintf(f, "\n%d of the rows have no cause: no counter of this run shows one.\n", bare);
	if (!n)
		fprintf(f, "%s\n", res && nr && res[0].have[COL_COW_CONTEXT] ?
			"On no metric of any workload, beyond the noise." :
			"Not measurable: no cow_context backend in this build.");
	if (noisy)
		fprintf(f, "\nWithin the noise (more than 10%% worse as shown, no cause given):\n\n");
	for (i = 0; noisy && i < nr; i++) {
		for (m = 0; m < NR_METRICS; m++) {
			if (bench_loss(&res[i], m) != LOSS_NOISE)
				continue;
			fprintf(f, "- %s, %s: ", res[i].inst.label,
				metric_name(m));
			fnum_spread(f, &res[i].ms[COL_COW_CONTEXT], m);
			fputs(" against ", f);
			fnum_spread(f, &res[i].ms[COL_ANON_VMA], m);
			fprintf(f, ", %s\n", loss_noise(&res[i], m));
		}
	}
	fputc('\n', f);
}

/* one lock's acquisitions, from the COW context's own figures */
static void lock_cell(FILE *f, const struct workload_result *r,
		      const char *name)
{
	double n = backend_lock_acquisitions(r, COL_COW_CONTEXT, name);

	fnum(f, n < 0 ? NAN : n);
}

/*
 * Lock scope: what the family lock figures count (include/cowctx/lock.h:
 * every lock that more than one process of a fork family takes), and
 * the COW context's two locks apart, so the sum can be seen.
 */
static void locks_section(FILE *f, const struct workload_result *res, int nr)
{
	int i, c;

	fprintf(f, "## Lock scope\n\n");
	fprintf(f, "The lock figures (family_lock_acquisitions, family_lock_objects, family_lock_max_objects; per operation type "
		"`PHASE_lock_*` in results.json) count every lock that more than one process of a fork family takes (the model's "
		"family_lock_stat, include/cowctx/lock.h), the same way for both backends. For anon_vma that is the root rwsem, one "
		"lock for the whole family. For the COW context it is each context's two locks: cow_context.lock, its children list, "
		"taken by the mm's forks, its children's exits and its own last put; and cow_context.remap_lock, its remap tree, taken "
		"by the mm's own remap-tree changes, mremap moves and exit, and by a walk only to wait for a writer it met (a walk reads "
		"the remap seqcount, remap_seq, before and after each mm, under RCU). Both are counted here, as the root rwsem is: the "
		"COW context does take locks that other processes of its family take. What differs is the scope of one hold: a write "
		"hold of anon_vma's root excludes every process of the family from changing or walking its anonymous rmap; a hold of "
		"a context's lock excludes only the users of that one context (its mm, its parent and children at fork and exit, walks "
		"of its mm), which `max in one hold` (family_lock_max_objects: AVCs for anon_vma, children or remap entries for the COW "
		"context) shows.\n\n");
	fprintf(f, "| workload | anon_vma family_lock_acquisitions | family_lock_objects | family_lock_max_objects | "
		"cow_context family_lock_acquisitions | of which cow_context.lock | of which cow_context.remap_lock | "
		"family_lock_objects | family_lock_max_objects |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (i = 0; i < nr; i++) {
		const struct workload_result *r = &res[i];
		if (r->error[0])
			continue;
		fprintf(f, "| %s", r->inst.label);
		for (c = 0; c < 2; c++) {
			fputs(" | ", f);
			fnum(f, r->ms[c].v[M_FAMILY_LOCK_ACQUISITIONS]);
			if (c == COL_COW_CONTEXT) {
				fputs(" | ", f);
				lock_cell(f, r, "cow_context.lock");
				fputs(" | ", f);
				lock_cell(f, r, "cow_context.remap_lock");
			}
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
		fprintf(f, "\nThe COW context's own figures on %s, as the backend reports them (`locks.family` is the sum above, "
			"with the writes to those locks' and refcounts' cachelines):\n\n    %s\n",
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
		"tests/bench.t holds the model's anon_vma counts to docs/real-kernel.md's fan and chain tables.\n\n",
		100 * sh[0], 100 * sh[1], tu[0], tu[1], sl[0], sl[1]);
}

static void anchors_section(FILE *f, const struct anchor_row *ar, int nr)
{
	int i;

	if (!nr)
		return;
	fprintf(f, "## The model against the real kernel: fork of V one-page VMAs\n\n");
	fprintf(f, "The kernel's figures are docs/real-kernel.md's (Linux 6.18, this project's x86-64 VMs, median fork() in the parent). "
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
	const struct workload_result *z = target_zygote(res, nr);
	int i, c;

	fprintf(f, "## Android: rmap memory beside VMA memory\n\n");
	fprintf(f, "HONOR's Android figures (2026; the cover letter of the ANON_VMA_LAZY patch series, cited in "
		"[docs/sources.md](../../docs/sources.md#external-figures)): after boot the anon_vma and anon_vma_chain slabs "
		"take about a third of the memory of the VMAs themselves (20426 KB and 18866 KB beside 117035 KB of vm_area_struct). "
		"The model's figure is rmap_to_vma_bytes, slab against slab as Android's is: the rmap's objects (object_bytes) / (VMAs x %lu bytes, "
		"this kernel's vm_area_struct slab size); the per-VMA fields (vma_field_bytes) are inside the vm_area_struct slab, so neither side "
		"counts them apart, where every other bytes figure of this report adds them (bytes = object_bytes + vma_field_bytes); "
		"the model's zygote has every VMA faulted and private, where a booted phone also has file-backed and never-written VMAs "
		"without anon_vmas, so the model's anon_vma figure is an upper bound of the phone's.\n\n",
		vma_slab_bytes());
	fprintf(f, "| workload | VMAs | anon_vma object_bytes | vma_field_bytes | rmap_to_vma_bytes | cow_context object_bytes | vma_field_bytes | rmap_to_vma_bytes |\n"
		"|---|---:|---:|---:|---:|---:|---:|---:|\n");
	for (i = 0; i < nr; i++) {
		const struct workload_result *r = &res[i];

		if (strcmp(r->inst.w->name, "zygote") || r->error[0])
			continue;
		fprintf(f, "| %s%s | ", r->inst.label, r == z ? " (the headline's)" : "");
		fnum(f, r->ms[COL_ANON_VMA].v[M_VMAS]);
		for (c = 0; c < 2; c++) {
			fputs(" | ", f);
			fnum(f, r->ms[c].v[M_OBJECT_BYTES]);
			fputs(" | ", f);
			fnum(f, r->ms[c].v[M_VMA_FIELD_BYTES]);
			fputs(" | ", f);
			fnum(f, r->ms[c].v[M_RMAP_TO_VMA_BYTES]);
		}
		fputs(" |\n", f);
	}
	fprintf(f, "\nAndroid (HONOR, 2026, docs/sources.md): about 0.33.");
	if (z && z->have[COL_COW_CONTEXT]) {
		double a = z->ms[COL_ANON_VMA].v[M_RMAP_TO_VMA_BYTES];
		double q = z->ratio[COL_COW_CONTEXT].v[M_OBJECT_BYTES];

		fprintf(f, " At the model's cost per faulted VMA (%.2f of a VMA's bytes on the headline's zygote), the phone's third "
			"means roughly %.0f%% of its VMAs carrying a zygote child's anon_vma state. If the phone's rmap slabs shrank by the "
			"model's ratio of object bytes on this workload (%.4g), the anon_vma slabs' third of VMA memory would become about %.2g%% of it "
			"(and each vm_area_struct 8 bytes smaller: 16 bytes of fields in place of 24); that is an extrapolation from a model workload, not a measurement of a phone.",
			a, 100 * 0.33 / a, q, 100 * 0.33 * q);
	}
	fprintf(f, "\n\n");
}

/* ---- plots ----------------------------------------------------------- */

static int write_plot_files(const struct bench_opts *o, const char *dir,
			    const struct curve *cu)
{
	char path[4096];
	bool logy = cu->logy;
	int nser = curve_nr_series(o, cu);
	/* with a spread each series has three columns: median, Q1, Q3 */
	int width = cu->spread ? 3 : 1;
	FILE *f;
	int i, c, first = 1;

	snprintf(path, sizeof(path), "%s/%s.dat", dir, cu->id);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "# %s\n# %s:", cu->title, cu->xlabel);
	for (c = 0; c < nser; c++)
		fprintf(f, cu->spread ? " '%s' Q1 Q3" : " '%s'",
			curve_series_name(o, cu, c));
	fputc('\n', f);
	for (i = 0; i < cu->nr; i++) {
		fprintf(f, "%g", cu->x[i]);
		for (c = 0; c < nser; c++) {
			double y = cu->y[i][c];

			if (isnan(y))
				fprintf(f, " NaN");
			else
				fprintf(f, " %.6g", y);
			if (cu->spread)
				fprintf(f, " %.6g %.6g", cu->q1[i][c],
					cu->q3[i][c]);
			/* a log axis cannot show a zero: draw it linear */
			if (!isnan(y) && y <= 0)
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
	for (c = 0; c < nser; c++) {
		int col = 2 + width * c;
		bool any = false;

		for (i = 0; i < cu->nr; i++)
			any |= !isnan(cu->y[i][c]);
		if (!any)
			continue;
		/* dashed over solid: equal curves stay visible */
		if (cu->spread)
			fprintf(f, "%s'%s.dat' using 1:%d:%d:%d with yerrorlines lw %d dt %d pt %d title '%s'",
				first ? "" : ", ", cu->id, col, col + 1,
				col + 2, c < 2 ? 3 - c : 1, 1 + c, 7 + 2 * c,
				curve_series_name(o, cu, c));
		else
			fprintf(f, "%s'%s.dat' using 1:%d with linespoints lw %d dt %d pt %d title '%s'",
				first ? "" : ", ", cu->id, col,
				c < 2 ? 3 - c : 1, 1 + c, 7 + 2 * c,
				curve_series_name(o, cu, c));
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

static void curves_section(FILE *f, const struct bench_opts *o,
			   const char *dir, const struct curve *cv, int nr)
{
	int i, made = 0, k, c, nser, nratio;

	if (!nr)
		return;
	fprintf(f, "## Scaling curves\n\n");
	fprintf(f, "Each curve sweeps one parameter of a workload (named on its x axis and defined under Workloads and "
		"parameters below) with the others fixed as its title says; every point is the workload run on every backend "
		"side by side, its figure the median over the replays. The remap tree's curves, last, measure the COW context's "
		"remap tree alone (bench/remap_curve.c): n moved VMAs of one mm, each with its entry; per operation the median time "
		"over rounds of 2,000 (at most n/2) random removes, inserts and lookups, with its quartiles, and the tree nodes stepped "
		"on, a count that does not depend on the machine: O(log n) operations keep it growing like log n.\n\n");
	for (i = 0; i < nr; i++) {
		char script[128];

		if (write_plot_files(o, dir, &cv[i]))
			continue;
		snprintf(script, sizeof(script), "%s.gp", cv[i].id);
		if (run_gnuplot(dir, script)) {
			fprintf(f, "- %s: gnuplot failed or is missing; the data is in %s.dat\n",
				cv[i].title, cv[i].id);
			continue;
		}
		made++;
		/* ratios between backends; a structure's series have none */
		nser = curve_nr_series(o, &cv[i]);
		nratio = cv[i].series ? 0 : nser - 1;
		fprintf(f, "### %s\n\n![%s](%s.svg)\n\n| %s |", cv[i].title,
			cv[i].title, cv[i].id, cv[i].xlabel);
		for (c = 0; c < nser; c++)
			fprintf(f, " %s |", curve_series_name(o, &cv[i], c));
		for (c = 1; c <= nratio; c++)
			fprintf(f, " %s / %s |", col_name(o, c), col_name(o, 0));
		fprintf(f, "\n|");
		for (c = 0; c < 1 + nser + nratio; c++)
			fprintf(f, "---:|");
		fputc('\n', f);
		for (k = 0; k < cv[i].nr; k++) {
			fprintf(f, "| %g", cv[i].x[k]);
			for (c = 0; c < nser; c++) {
				fputs(" | ", f);
				fnum(f, cv[i].y[k][c]);
				if (cv[i].spread)
					fprintf(f, " [%.4g..%.4g]",
						cv[i].q1[k][c], cv[i].q3[k][c]);
			}
			for (c = 1; c <= nratio; c++) {
				fputs(" | ", f);
				fnum(f, metric_ratio(cv[i].y[k][c],
						     cv[i].y[k][0]));
			}
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

/*
 * Every parameter of every workload run, and of those the curves
 * sweep, defined where the report uses them.
 */
static void params_section(FILE *f, const struct workload_result *res, int nr,
			   bool curves)
{
	const struct workload *seen[64];
	int i, j, k, nseen = 0;

	fprintf(f, "## Workloads and parameters\n\n");
	if (curves)
		fprintf(f, "The curves sweep zygote's V and N and chain's D.\n\n");
	for (i = 0; i < nr + 2 * curves; i++) {
		const struct workload *w = i < nr ? res[i].inst.w :
			workload_find(i == nr ? "zygote" : "chain");

		for (j = 0; j < nseen && seen[j] != w; j++)
			;
		if (j < nseen || nseen == 64)
			continue;
		seen[nseen++] = w;
		fprintf(f, "- **%s**: %s.", w->name, w->summary);
		for (k = 0; k < w->nr_params; k++)
			fprintf(f, " %s: %s.", w->params[k].name,
				w->params[k].help);
		fputc('\n', f);
	}
	for (i = 0; i < nr; i++) {
		if (!res[i].inst.path)
			continue;
		fputs("- ", f);
		scenario_snapshot_note(f, &res[i].inst);
	}
	fputc('\n', f);
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
	/* the proposal's own comparison: anon_vma, then a COW context */
	if (cols_are_proposal(o)) {
		headline(f, o, res, nr);
		targets(f, o, res, nr);
		losses(f, res, nr);
		locks_section(f, res, nr);
		anchors_section(f, anchors, nr_anchors);
		android_section(f, res, nr);
	}
	if (o->nr_real)
		real_programs_section(f, o);
	curves_section(f, o, o->out_dir, curves, nr_curves);
	params_section(f, res, nr, nr_curves > 0);
	fprintf(f, "## Every workload\n\nMetrics are defined in bench/README.md. `-`: backend not built; `n/a`: not defined "
		"(no walks, no forks, or the ratio of something to zero); `[Q1..Q3]`: a time's quartiles.\n\n");
	print_table(f, o, res, nr, false);
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
