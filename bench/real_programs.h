/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The "real programs" table: recordings of real process trees
 * (`cowctx record`, tools/record-workloads.sh) replayed on anon_vma and
 * the COW context, measured as the bench measures its workloads, and
 * held to the kernel's own anon_vma counts (docs/real-programs.md).
 */
#ifndef COWCTX_BENCH_REAL_PROGRAMS_H
#define COWCTX_BENCH_REAL_PROGRAMS_H

#include <stdio.h>

#include "bench/bench.h"

/* The two columns: Linux's anon_vma, and the COW context compared */
enum { REAL_ANON_VMA, REAL_COW, NR_REAL_COLS };

struct real_result {
	char name[64];			/* the file's name, less .scn */
	char *path;
	char error[512];		/* why it was not measured, if not */
	const struct rmap_ops *ops[NR_REAL_COLS];
	unsigned long statements;
	unsigned long processes;	/* `proc` and `fork` statements */
	int snap_line;			/* the snapshot: its busiest point */
	struct metric_set ms[NR_REAL_COLS];
	/* `recorded` statements, and those the model disagrees with */
	unsigned long fid_points, fid_diffs;
	/* the largest difference, in objects, and where */
	long fid_worst;
	int fid_worst_line;
	/* at the last `recorded` statement: model, kernel */
	long last_av[2], last_avc[2];
	char *fid_report;		/* every difference, one a line */
};

/*
 * The recordings added, then every DIR/\*.scn of o->real_dir (if set)
 * in name order, into o->real and o->nr_real, measured. A recording
 * that cannot be replayed gets its error and makes the return value
 * -1; the others are still measured.
 */
int real_programs_run(struct bench_opts *o, FILE *progress);
/*
 * @path, a recording named on the command line, as a row of the table
 * before the directory's: 0, or -ENOMEM.
 */
int real_programs_add(struct bench_opts *o, const char *path);
/* The report's section: the table, the Android row, the differences */
void real_programs_section(FILE *f, const struct bench_opts *o);
/*
 * --json: `, "real_programs": [...]`, a row per recording (its
 * figures by backend, its fidelity), or nothing without recordings
 */
void real_programs_json(FILE *f, const struct bench_opts *o);
/* The table alone, markdown, for standard output */
void real_programs_table(FILE *f, const struct bench_opts *o);
void real_programs_free(struct bench_opts *o);

#endif /* COWCTX_BENCH_REAL_PROGRAMS_H */
