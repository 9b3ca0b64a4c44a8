// SPDX-License-Identifier: GPL-2.0
/*
 * Real programs: each recording (named to `cowctx bench` as FILE.scn,
 * or in o->real_dir) replayed on anon_vma and the COW context,
 * statement by statement through the scenario executor (a recording's exec, brk and mapping flags are beyond the
 * bench's programs), and measured with the bench's own snapshot, walks
 * and phase counters (bench/exec.c) into its metrics (bench/metrics.c).
 *
 * The snapshot is the recording's busiest point (bench/busiest.c: the
 * statement after which the anon_vma instance has the most rmap bytes
 * live), as for a user's scenario: a recording ends with every process
 * gone, and its busiest moment is the one a booted phone's figures (the
 * Android row) describe. The kernel's counts come
 * from the recording's `recorded` statements, compared with the
 * anon_vma instance's as `cowctx run` compares them.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cowctx/json.h>
#include <cowctx/mm.h>
#include <cowctx/rmap.h>
#include "bench/real_programs.h"
#include "scenario/exec.h"
#include "scenario/scenario.h"

/* One backend's replay of one recording */
struct replay {
	const struct scenario *sc;
	struct exec_state es;
	struct bench_run br;
	struct scenario one;	/* the statement being run, as a scenario */
	FILE *err;
};

static long live_of(const struct model *m, const char *type)
{
	int t;

	for (t = 0; t < m->acct.nr_types; t++)
		if (!strcmp(m->acct.type[t].name, type))
			return m->acct.type[t].live;
	return -1;
}

static int run_one(void *arg)
{
	struct replay *rp = arg;

	return scenario_exec(&rp->es, &rp->one, rp->br.m, rp->err);
}

/* The kernel's counts at a `recorded` statement, against the model's */
static void fidelity(struct real_result *r, const struct model *m,
		     const struct stmt *st)
{
	long av = live_of(m, "anon_vma"), avc = live_of(m, "anon_vma_chain");
	long d = labs(av - st->rec_anon_vma) +
		 labs(avc - st->rec_anon_vma_chain);

	r->last_av[0] = av;
	r->last_av[1] = st->rec_anon_vma;
	r->last_avc[0] = avc;
	r->last_avc[1] = st->rec_anon_vma_chain;
	if (d > r->fid_worst) {
		r->fid_worst = d;
		r->fid_worst_line = st->line;
	}
}

/*
 * Replay @sc on @ops, snapshotting and walking before statement
 * @snap_k (@sc->nr: at the end); with @peak_k, the busiest point is
 * found instead (*@peak_k: the statement after it), and the anon_vma
 * instance's fidelity taken. 0, or -1 and r->error.
 */
static int replay(struct real_result *r, const struct scenario *sc,
		  const struct rmap_ops *ops, int snap_k, int *peak_k,
		  struct metric_set *ms, FILE *fid_out)
{
	struct replay rp = { .sc = sc };
	struct busiest peak;
	char *errs = NULL;
	size_t errs_len;
	int k, ret = 0;

	rp.err = open_memstream(&errs, &errs_len);
	if (!rp.err) {
		snprintf(r->error, sizeof(r->error), "out of memory");
		return -1;
	}
	bench_run_init(&rp.br, ops);
	rp.br.m = model_create(ops);
	rp.es.fidelity_out = fid_out;
	if (!rp.br.m)
		ret = -ENOMEM;
	rp.one.path = sc->path;
	rp.one.nr = 1;
	rp.one.zero_page = sc->zero_page;
	busiest_init(&peak);
	for (k = 0; k <= sc->nr && !ret; k++) {
		const struct stmt *st = &sc->stmts[k];

		if (k == snap_k) {
			bench_run_snapshot(&rp.br);
			if (bench_run_walks(&rp.br)) {
				snprintf(r->error, sizeof(r->error), "%s",
					 rp.br.error);
				ret = -EIO;
				break;
			}
		}
		if (k == sc->nr)
			break;
		rp.one.stmts = (struct stmt *)st;
		ret = st->kind == STMT_FORK ?
		      bench_run_measured(&rp.br, PH_FORK, run_one, &rp) :
		      run_one(&rp);
		if (peak_k && !ret) {
			busiest_note(&peak, rp.br.m, k);
			*peak_k = peak.after + 1;
		}
		if (peak_k && st->kind == STMT_RECORDED &&
		    ops == &anon_vma_rmap_ops)
			fidelity(r, rp.br.m, st);
	}
	if (!ret && !rp.br.m->nr_mms)
		rp.br.leak_bytes = rp.br.m->acct.bytes;
	else
		rp.br.leak_bytes = -1;
	fclose(rp.err);
	/* the first line of what the executor said: a table cell */
	if (errs)
		errs[strcspn(errs, "\n")] = '\0';
	if (ret && !r->error[0])
		snprintf(r->error, sizeof(r->error), "%s on %s: %s",
			 ret == -ENOMEM ? "out of memory" : "replay failed",
			 ops->name, errs && errs[0] ? errs : "?");
	if (!ret)
		metrics_from_run(&rp.br, NULL, ms);
	if (peak_k && !ret) {
		r->fid_points = rp.es.fidelity_points;
		r->fid_diffs = rp.es.fidelity_diffs;
	}
	free(errs);
	exec_state_release(&rp.es);
	bench_run_release(&rp.br);
	return ret ? -1 : 0;
}

static void measure(struct real_result *r)
{
	struct metric_set scratch;
	struct scenario sc;
	size_t len;
	FILE *fid;
	int k, snap_k = 0, c;

	if (scenario_parse_file(r->path, &sc)) {
		snprintf(r->error, sizeof(r->error),
			 "not a valid scenario (cowctx run %s says why)",
			 r->path);
		return;
	}
	r->statements = sc.nr;
	for (k = 0; k < sc.nr; k++)
		if (sc.stmts[k].kind == STMT_PROC ||
		    sc.stmts[k].kind == STMT_FORK)
			r->processes++;
	fid = open_memstream(&r->fid_report, &len);
	if (!fid) {
		snprintf(r->error, sizeof(r->error), "out of memory");
		scenario_free(&sc);
		return;
	}
	/* first: the busiest point, and the kernel's counts */
	r->fid_worst = 0;
	r->last_av[0] = r->last_av[1] = -1;
	r->last_avc[0] = r->last_avc[1] = -1;
	if (!replay(r, &sc, &anon_vma_rmap_ops, -1, &snap_k, &scratch, fid)) {
		r->snap_line = snap_k ? sc.stmts[snap_k - 1].line : 0;
		for (c = 0; c < NR_REAL_COLS; c++)
			if (replay(r, &sc, r->ops[c], snap_k, NULL, &r->ms[c],
				   NULL))
				break;
	}
	fclose(fid);
	scenario_free(&sc);
}

static int scn_filter(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 4 && !strcmp(d->d_name + n - 4, ".scn");
}

int real_programs_add(struct bench_opts *o, const char *path)
{
	const char *base = strrchr(path, '/');
	struct real_result *nr, *r;
	size_t len;

	nr = model_realloc(o->real, (o->nr_real + 1) * sizeof(*nr));
	if (!nr)
		return -ENOMEM;
	o->real = nr;
	r = &nr[o->nr_real];
	memset(r, 0, sizeof(*r));
	r->path = strdup(path);
	if (!r->path)
		return -ENOMEM;
	base = base ? base + 1 : path;
	len = strlen(base);
	if (len > 4 && !strcmp(base + len - 4, ".scn"))
		len -= 4;
	snprintf(r->name, sizeof(r->name), "%.*s",
		 (int)(len < sizeof(r->name) ? len : sizeof(r->name) - 1),
		 base);
	o->nr_real++;
	return 0;
}

static int add_dir(struct bench_opts *o)
{
	struct dirent **names;
	char *path;
	int n, i, ret = 0;

	n = scandir(o->real_dir, &names, scn_filter, alphasort);
	if (n < 0) {
		fprintf(stderr, "cowctx bench: --real %s: %s\n", o->real_dir,
			strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (!ret && asprintf(&path, "%s/%s", o->real_dir,
				     names[i]->d_name) < 0)
			ret = -ENOMEM;
		else if (!ret) {
			ret = real_programs_add(o, path);
			free(path);
		}
		free(names[i]);
	}
	free(names);
	if (ret)
		fprintf(stderr, "cowctx bench: out of memory\n");
	return ret ? -1 : 0;
}

int real_programs_run(struct bench_opts *o, FILE *progress)
{
	const struct rmap_ops *cow = o->nr_cols > 1 && cols_are_proposal(o) ?
				     o->col_ops[1] :
				     rmap_backend_find("cow_context");
	int i, ret = 0;

	if (o->real_dir && add_dir(o))
		return -1;
	for (i = 0; i < o->nr_real; i++) {
		struct real_result *r = &o->real[i];

		r->ops[REAL_ANON_VMA] = &anon_vma_rmap_ops;
		r->ops[REAL_COW] = cow;
		if (progress)
			fprintf(progress, "bench: real program %s\n", r->name);
		if (cow)
			measure(r);
		else
			snprintf(r->error, sizeof(r->error),
				 "no COW context backend built");
		if (r->error[0]) {
			fprintf(stderr, "cowctx bench: %s: %s\n", r->name,
				r->error);
			ret = -1;
		}
	}
	return ret;
}

static void num(FILE *f, double v)
{
	if (isnan(v))
		fputs("n/a", f);
	else if (v == floor(v) && fabs(v) < 1e15)
		fprintf(f, "%.0f", v);
	else
		fprintf(f, "%.3g", v);
}

static void pair(FILE *f, const struct real_result *r, int m)
{
	num(f, r->ms[REAL_ANON_VMA].v[m]);
	fputs(" / ", f);
	num(f, r->ms[REAL_COW].v[m]);
}

static void fidelity_cell(FILE *f, const struct real_result *r)
{
	if (!r->fid_points) {
		fputs("no `recorded` counts", f);
		return;
	}
	fprintf(f, "%lu of %lu points equal", r->fid_points - r->fid_diffs,
		r->fid_points);
	if (r->fid_diffs)
		fprintf(f, "; worst: line %d, %ld objects", r->fid_worst_line,
			r->fid_worst);
	fprintf(f, "; end: model %ld/%ld, kernel %ld/%ld", r->last_av[0],
		r->last_avc[0], r->last_av[1], r->last_avc[1]);
}

/* rmap bytes as everywhere: "total (objects + per-VMA fields)" */
static void bytes_cell(FILE *f, const struct metric_set *ms)
{
	num(f, ms->v[M_BYTES]);
	fputs(" (", f);
	num(f, ms->v[M_OBJECT_BYTES]);
	fputs(" + ", f);
	num(f, ms->v[M_VMA_FIELD_BYTES]);
	fputc(')', f);
}

void real_programs_table(FILE *f, const struct bench_opts *o)
{
	const char *cow = o->nr_real ? o->real[0].ops[REAL_COW]->name :
				       "cow_context";
	unsigned long slab = vma_slab_bytes();
	double vmas = 117035.0 * 1024 / slab;
	int i;

	fprintf(f, "| recording | statements | measured after line | processes | VMAs | anon_vma rmap bytes (objects + per-VMA fields) | %s rmap bytes (objects + per-VMA fields) | object bytes / VMA slab bytes (anon_vma / %s) | VMAs examined per mapping found (anon_vma / %s) | rmap allocations per fork (anon_vma / %s) | fidelity: kernel's anon_vma/anon_vma_chain against the model's |\n",
		cow, cow, cow, cow);
	fprintf(f, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
	for (i = 0; i < o->nr_real; i++) {
		const struct real_result *r = &o->real[i];

		if (r->error[0]) {
			fprintf(f, "| %s | error: %s |||||||||\n", r->name,
				r->error);
			continue;
		}
		fprintf(f, "| %s | %lu | %d | %lu | ", r->name, r->statements,
			r->snap_line, r->processes);
		num(f, r->ms[REAL_ANON_VMA].v[M_VMAS]);
		fputs(" | ", f);
		bytes_cell(f, &r->ms[REAL_ANON_VMA]);
		fputs(" | ", f);
		bytes_cell(f, &r->ms[REAL_COW]);
		fputs(" | ", f);
		pair(f, r, M_RMAP_TO_VMA_BYTES);
		fputs(" | ", f);
		pair(f, r, M_EXAMINED_PER_FOUND);
		fputs(" | ", f);
		pair(f, r, M_FORK_ALLOCS);
		fputs(" | ", f);
		fidelity_cell(f, r);
		fputs(" |\n", f);
	}
	/*
	 * docs/sources.md: 20426 KB + 18866 KB beside 117035 KB; its VMAs
	 * are that slab / the slab size, and their fields anon_vma's 24 B
	 * each, as the model charges them.
	 */
	fprintf(f, "| Android after boot (HONOR, 2026) | | | | about %.0f | about %.0f (%.0f + about %.0f) | | %.3g | | | |\n",
		vmas, (20426.0 + 18866.0) * 1024 + 24 * round(vmas),
		(20426.0 + 18866.0) * 1024, 24 * round(vmas),
		(20426.0 + 18866.0) / 117035.0);
}

/* Is @path one of --real DIR's files? */
static bool in_real_dir(const struct bench_opts *o, const char *path)
{
	size_t n = o->real_dir ? strlen(o->real_dir) : 0;

	return n && !strncmp(path, o->real_dir, n) && path[n] == '/';
}

/* Where the rows come from: --real DIR, and files named as arguments */
static void read_from(FILE *f, const struct bench_opts *o)
{
	int i, n = 0;

	fputs("Read from", f);
	if (o->real_dir) {
		fprintf(f, " `%s/*.scn`", o->real_dir);
		n++;
	}
	for (i = 0; i < o->nr_real; i++)
		if (!in_real_dir(o, o->real[i].path))
			fprintf(f, "%s `%s`", n++ ? "," : "", o->real[i].path);
	fputs(".\n\n", f);
}

void real_programs_section(FILE *f, const struct bench_opts *o)
{
	int i;

	fprintf(f, "## Real programs\n\n");
	fprintf(f, "Recordings of real process trees (`cowctx record`; `make recordings` records the set of "
		"[docs/real-programs.md](../../docs/real-programs.md)), each replayed on anon_vma and %s. "
		"Each row's figures are at its snapshot, its busiest point: the statement after which the anon_vma instance has "
		"the most rmap bytes live (objects and per-VMA fields; a recording ends with every process gone); the walks are the bench's reclaim walk of every mapped anonymous folio there; allocations per "
		"fork are over the whole recording. Rmap bytes are counted as everywhere in the bench: the objects at their kernel "
		"sizes plus the backend's fields in every VMA (anon_vma 24 bytes, cow_context 16), the total with its two parts "
		"beside it. The Android comparison (rmap_to_vma_bytes) is slab against slab: the objects alone, the fields being "
		"inside the vm_area_struct slab, over VMAs x %lu bytes (this kernel's vm_area_struct slab), as in the Android row "
		"(docs/sources.md). Fidelity: the anon_vma instance's live anon_vma and anon_vma_chain counts against the "
		"kernel's at every `recorded` statement (after each process exit and at the end).\n\n",
		o->nr_real ? o->real[0].ops[REAL_COW]->name : "cow_context",
		vma_slab_bytes());
	read_from(f, o);
	real_programs_table(f, o);
	for (i = 0; i < o->nr_real; i++) {
		const struct real_result *r = &o->real[i];

		if (!r->fid_report || !r->fid_report[0])
			continue;
		fprintf(f, "\n%s: where the model's counts differ from the kernel's (`cowctx run %s` prints the same):\n\n",
			r->name, r->path);
		fprintf(f, "```\n%s```\n", r->fid_report);
	}
	fputc('\n', f);
}

static void fidelity_json(FILE *f, const struct real_result *r)
{
	fprintf(f, "{\"points\": %lu, \"differences\": %lu", r->fid_points,
		r->fid_diffs);
	if (r->fid_diffs)
		fprintf(f, ", \"worst\": {\"line\": %d, \"objects\": %ld}",
			r->fid_worst_line, r->fid_worst);
	if (r->fid_points)
		fprintf(f, ", \"end\": {\"model\": {\"anon_vma\": %ld, \"anon_vma_chain\": %ld}, "
			"\"kernel\": {\"anon_vma\": %ld, \"anon_vma_chain\": %ld}}",
			r->last_av[0], r->last_avc[0], r->last_av[1],
			r->last_avc[1]);
	fputc('}', f);
}

void real_programs_json(FILE *f, const struct bench_opts *o)
{
	int i, c;

	if (!o->nr_real)
		return;
	fprintf(f, ",\n \"real_programs\": [");
	for (i = 0; i < o->nr_real; i++) {
		const struct real_result *r = &o->real[i];

		fprintf(f, "%s\n  {\"name\": ", i ? "," : "");
		json_string(f, r->name);
		fprintf(f, ", \"path\": ");
		json_string(f, r->path);
		if (r->error[0]) {
			fprintf(f, ", \"error\": ");
			json_string(f, r->error);
			fputc('}', f);
			continue;
		}
		fprintf(f, ", \"statements\": %lu, \"processes\": %lu, \"snapshot_line\": %d",
			r->statements, r->processes, r->snap_line);
		for (c = 0; c < NR_REAL_COLS; c++) {
			fprintf(f, ",\n   \"%s\": ", r->ops[c]->name);
			print_metrics_json(f, &r->ms[c]);
		}
		fprintf(f, ",\n   \"fidelity\": ");
		fidelity_json(f, r);
		fputc('}', f);
	}
	fputc(']', f);
}

void real_programs_free(struct bench_opts *o)
{
	int i;

	for (i = 0; i < o->nr_real; i++) {
		free(o->real[i].path);
		free(o->real[i].fid_report);
	}
	model_free(o->real);
	o->real = NULL;
	o->nr_real = 0;
}
