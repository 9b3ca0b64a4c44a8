// SPDX-License-Identifier: GPL-2.0
/* The results as JSON (--json) and as the comparison table. */
#include <math.h>
#include <string.h>

#include <cowctx/json.h>

#include "bench/bench.h"
#include "bench/real_programs.h"

const char *col_name(const struct bench_opts *o, int c)
{
	return o->col_ops[c] ? o->col_ops[c]->name : "-";
}

bool cols_are_proposal(const struct bench_opts *o)
{
	return o->nr_cols >= 2 && !strcmp(col_name(o, 0), "anon_vma") &&
	       !strncmp(col_name(o, 1), "cow_context", 11);
}

/* Is the oracle also a shown column? Then JSON's "scan" is that one */
static bool scan_shown(const struct bench_opts *o)
{
	int c;

	for (c = 0; c < o->nr_cols; c++)
		if (!strcmp(col_name(o, c), "scan"))
			return true;
	return false;
}

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

void print_metrics_json(FILE *f, const struct metric_set *ms)
{
	int i;

	fputc('{', f);
	for (i = 0; i < NR_METRICS; i++) {
		fprintf(f, "%s\"%s\": ", i ? ", " : "", metric_name(i));
		print_number(f, ms->v[i]);
	}
	fputc('}', f);
}

/* {METRIC: [Q1, Q3]} for every time that has a spread */
static void json_spread(FILE *f, const struct metric_set *ms)
{
	int i, n = 0;

	fputc('{', f);
	for (i = 0; i < NR_METRICS; i++) {
		if (isnan(ms->q1[i]) || isnan(ms->q3[i]))
			continue;
		fprintf(f, "%s\"%s\": [", n++ ? ", " : "", metric_name(i));
		print_number(f, ms->q1[i]);
		fputs(", ", f);
		print_number(f, ms->q3[i]);
		fputc(']', f);
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
		if (r->inst.path) {
			fprintf(f, ", \"path\": ");
			json_string(f, r->inst.path);
			/* measured after its busiest statement */
			fprintf(f, ", \"snapshot_line\": %d", r->inst.snap_line);
		}
		if (r->error[0]) {
			fprintf(f, ", \"error\": ");
			json_string(f, r->error);
		}
		for (c = 0; c < NR_COLS; c++) {
			if (c >= o->nr_cols && (c != COL_SCAN || scan_shown(o)))
				continue;
			fprintf(f, ",\n   \"%s\": ",
				c == COL_SCAN ? "scan" : col_name(o, c));
			if (r->have[c])
				print_metrics_json(f, &r->ms[c]);
			else
				fputs("null", f);
		}
		fprintf(f, ",\n   \"spread\": {");
		for (c = 0, j = 0; c < o->nr_cols; c++) {
			if (!r->have[c])
				continue;
			fprintf(f, "%s\"%s\": ", j++ ? ", " : "",
				col_name(o, c));
			json_spread(f, &r->ms[c]);
		}
		fprintf(f, "}");
		fprintf(f, ",\n   \"backend_figures\": {");
		for (c = 0, j = 0; c < o->nr_cols; c++) {
			if (!r->backend_json[c])
				continue;
			fprintf(f, "%s\"%s\": %s", j++ ? ", " : "",
				col_name(o, c), r->backend_json[c]);
		}
		fprintf(f, "}");
		fprintf(f, ",\n   \"ratio\": ");
		if (o->nr_cols > 1 && r->have[0] && r->have[1])
			print_metrics_json(f, &r->ratio[1]);
		else
			fputs("null", f);
		fprintf(f, ",\n   \"ratios\": {");
		for (c = 1, j = 0; c < o->nr_cols; c++) {
			if (!r->have[0] || !r->have[c])
				continue;
			fprintf(f, "%s\"%s\": ", j++ ? ", " : "",
				col_name(o, c));
			print_metrics_json(f, &r->ratio[c]);
		}
		fprintf(f, "}}");
	}
	fprintf(f, "],\n \"columns\": [");
	for (c = 0; c < o->nr_cols; c++) {
		fputs(c ? ", " : "", f);
		json_string(f, col_name(o, c));
	}
	fprintf(f, "],\n \"backends\": {");
	for (c = 0; c < o->nr_cols; c++)
		fprintf(f, "%s\"%s\": true", c ? ", " : "", col_name(o, c));
	if (!scan_shown(o))
		fprintf(f, ", \"scan\": %s",
			o->col_ops[COL_SCAN] ? "true" : "false");
	fprintf(f, "},\n \"cow_context_backend\": ");
	if (o->nr_cols > 1)
		json_string(f, col_name(o, 1));
	else
		fputs("null", f);
	real_programs_json(f, o);
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
	M_OBJECT_BYTES,
	M_VMA_FIELD_BYTES,
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
	M_MAIN_OBJECTS,
};

/* a figure, and a time's quartiles after it: "651462 [600100..702000]" */
static void cell(FILE *f, const struct metric_set *ms, int m, bool have)
{
	fputs(" | ", f);
	if (!have) {
		fputs("-", f);
		return;
	}
	if (isnan(ms->v[m])) {
		fputs("n/a", f);
		return;
	}
	print_number(f, ms->v[m]);
	if (isnan(ms->q1[m]) || isnan(ms->q3[m]))
		return;
	fputs(" [", f);
	print_number(f, round(ms->q1[m]));
	fputs("..", f);
	print_number(f, round(ms->q3[m]));
	fputc(']', f);
}

static bool row_empty(const struct workload_result *r, int m)
{
	int c;

	for (c = 0; c < BENCH_MAX_COLS; c++)
		if (r->have[c] && !isnan(r->ms[c].v[m]) &&
		    (r->ms[c].v[m] != 0 || m < M_PHASE_BASE))
			return false;
	return true;
}

void print_table(FILE *f, const struct bench_opts *o,
		 const struct workload_result *res, int nr, bool all_metrics)
{
	int i, k, c, nm = all_metrics ? NR_METRICS :
		       (int)(sizeof(table_metrics) / sizeof(table_metrics[0]));

	fprintf(f, "| workload | metric |");
	for (c = 0; c < o->nr_cols; c++)
		fprintf(f, " %s |", col_name(o, c));
	for (c = 1; c < o->nr_cols; c++)
		fprintf(f, " %s / %s |", col_name(o, c), col_name(o, 0));
	fprintf(f, "\n|---|---|");
	for (c = 1; c < 2 * o->nr_cols; c++)
		fprintf(f, "---:|");
	fputc('\n', f);
	for (i = 0; i < nr; i++) {
		const struct workload_result *r = &res[i];

		if (r->error[0]) {
			fprintf(f, "| %s | error: %s |", r->inst.label,
				r->error);
			for (c = 1; c < 2 * o->nr_cols; c++)
				fputs(" |", f);
			fputc('\n', f);
			continue;
		}
		for (k = 0; k < nm; k++) {
			int m = all_metrics ? k : table_metrics[k];

			/* per-phase lock rows only where a lock was used */
			if (row_empty(r, m))
				continue;
			fprintf(f, "| %s | %s", r->inst.label, metric_name(m));
			for (c = 0; c < o->nr_cols; c++)
				cell(f, &r->ms[c], m, r->have[c]);
			for (c = 1; c < o->nr_cols; c++)
				cell(f, &r->ratio[c], m,
				     r->have[0] && r->have[c]);
			fputs(" |\n", f);
		}
	}
}
