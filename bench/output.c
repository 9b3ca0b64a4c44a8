// SPDX-License-Identifier: GPL-2.0
/* The results as JSON (--json) and as the comparison table. */
#include <math.h>
#include <string.h>

#include <cowctx/json.h>

#include "bench/bench.h"

const char *const bench_col_name[NR_COLS] = {
	[COL_ANON_VMA] = "anon_vma",
	[COL_COW_CONTEXT] = "cow_context",
	[COL_SCAN] = "scan",
};

/* Counts print as integers, the rest with four significant digits */
void print_number(FILE *f, double v)
{
	if (isnan(v) || isinf(v))
		fputs("null", f);
	else if (v == floor(v) && fabs(v) < 1e15)
		fprintf(f, "%.0f", v);
	else
		fprintf(f, "%.4g", v);
}

static void json_metrics(FILE *f, const struct metric_set *ms)
{
	int i;

	fputc('{', f);
	for (i = 0; i < NR_METRICS; i++) {
		fprintf(f, "%s\"%s\": ", i ? ", " : "", metric_name(i));
		print_number(f, ms->v[i]);
	}
	fputc('}', f);
}

void print_json(FILE *f, const struct bench_opts *o,
		const struct workload_result *res, int nr,
		const char *const *notes, int nr_notes)
{
	int i, j, c;

	fprintf(f, "{\"workloads\": [");
	for (i = 0; i < nr; i++) {
		const struct workload_result *r = &res[i];

		fprintf(f, "%s\n  {\"name\": ", i ? "," : "");
		json_string(f, r->inst.w->name);
		fprintf(f, ", \"label\": ");
		json_string(f, r->inst.label);
		fprintf(f, ", \"params\": {");
		for (j = 0; j < r->inst.w->nr_params; j++)
			fprintf(f, "%s\"%s\": %ld", j ? ", " : "",
				r->inst.w->params[j].name, r->inst.v[j]);
		fprintf(f, "}");
		if (r->error[0]) {
			fprintf(f, ", \"error\": ");
			json_string(f, r->error);
		}
		for (c = 0; c < NR_COLS; c++) {
			fprintf(f, ",\n   \"%s\": ", bench_col_name[c]);
			if (r->have[c])
				json_metrics(f, &r->ms[c]);
			else
				fputs("null", f);
		}
		fprintf(f, ",\n   \"backend_figures\": {");
		for (c = 0, j = 0; c < NR_COLS; c++) {
			if (!r->backend_json[c])
				continue;
			fprintf(f, "%s\"%s\": %s", j++ ? ", " : "",
				bench_col_name[c], r->backend_json[c]);
		}
		fprintf(f, "}");
		fprintf(f, ",\n   \"ratio\": ");
		if (r->have[COL_ANON_VMA] && r->have[COL_COW_CONTEXT])
			json_metrics(f, &r->ratio);
		else
			fputs("null", f);
		fputc('}', f);
	}
	fprintf(f, "],\n \"backends\": {");
	for (c = 0; c < NR_COLS; c++)
		fprintf(f, "%s\"%s\": %s", c ? ", " : "", bench_col_name[c],
			o->col_ops[c] ? "true" : "false");
	fprintf(f, "},\n \"cow_context_backend\": ");
	if (o->col_ops[COL_COW_CONTEXT])
		json_string(f, o->col_ops[COL_COW_CONTEXT]->name);
	else
		fputs("null", f);
	fprintf(f, ",\n \"vm_area_struct_bytes\": %lu,\n \"notes\": [",
		vma_slab_bytes());
	for (i = 0; i < nr_notes; i++) {
		fputs(i ? ", " : "", f);
		json_string(f, notes[i]);
	}
	fprintf(f, "]}\n");
}

/* The figures the table shows by default; --all shows every one */
static const int table_metrics[] = {
	M_VMAS,
	M_OBJECTS,
	M_BYTES,
	M_PEAK_BYTES,
	M_RMAP_TO_VMA_BYTES,
	M_FORK_ALLOCS,
	M_FORK_NS,
	M_FORK_INSTRUCTIONS,
	M_FORK_RMAP_INSTRUCTIONS,
	M_WALK_NS,
	M_WALK_MEAN_NS,
	M_EXAMINED_PER_FOUND,
	M_FULL_WALK_MEAN_NS,
	M_EXAMINED_PER_FOUND_FULL,
	M_FAMILY_LOCK_ACQUISITIONS,
	M_FAMILY_LOCK_OBJECTS,
	M_FAMILY_LOCK_MAX_OBJECTS,
	M_PHASE(PH_FORK, PM_LOCK_OBJECTS),
	M_PHASE(PH_FAULT, PM_LOCK_OBJECTS),
	M_PHASE(PH_MREMAP, PM_LOCK_OBJECTS),
	M_PHASE(PH_MPROTECT, PM_LOCK_OBJECTS),
	M_PHASE(PH_MUNMAP, PM_LOCK_OBJECTS),
	M_PHASE(PH_EXIT, PM_LOCK_OBJECTS),
	M_PHASE(PH_WALK, PM_LOCK_OBJECTS),
	M_PHASE(PH_FULL_WALK, PM_LOCK_OBJECTS),
	M_MID_BYTES,
	M_EXIT_NS,
	M_TOTAL_NS,
	M_RMAP_TIME_SHARE,
};

static void cell(FILE *f, double v, bool have)
{
	fputs(" | ", f);
	if (!have)
		fputs("-", f);
	else if (isnan(v))
		fputs("n/a", f);
	else
		print_number(f, v);
}

static bool row_empty(const struct workload_result *r, int m)
{
	int c;

	for (c = 0; c < NR_COLS; c++)
		if (r->have[c] && !isnan(r->ms[c].v[m]) &&
		    (r->ms[c].v[m] != 0 || m < M_PHASE_BASE))
			return false;
	return true;
}

void print_table(FILE *f, const struct workload_result *res, int nr,
		 bool all_metrics)
{
	int i, k, nm = all_metrics ? NR_METRICS :
		       (int)(sizeof(table_metrics) / sizeof(table_metrics[0]));

	fprintf(f, "| workload | metric | anon_vma | cow_context | ratio |\n");
	fprintf(f, "|---|---|---:|---:|---:|\n");
	for (i = 0; i < nr; i++) {
		const struct workload_result *r = &res[i];

		if (r->error[0]) {
			fprintf(f, "| %s | error: %s | | | |\n",
				r->inst.label, r->error);
			continue;
		}
		for (k = 0; k < nm; k++) {
			int m = all_metrics ? k : table_metrics[k];

			/* per-phase lock rows only where a lock was used */
			if (row_empty(r, m))
				continue;
			fprintf(f, "| %s | %s", r->inst.label, metric_name(m));
			cell(f, r->ms[COL_ANON_VMA].v[m],
			     r->have[COL_ANON_VMA]);
			cell(f, r->ms[COL_COW_CONTEXT].v[m],
			     r->have[COL_COW_CONTEXT]);
			cell(f, r->ratio.v[m], r->have[COL_ANON_VMA] &&
			     r->have[COL_COW_CONTEXT]);
			fputs(" |\n", f);
		}
	}
}
