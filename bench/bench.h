/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cowctx bench: the same generated workload, run on every rmap backend
 * side by side, measured the same way for all (bench/README.md).
 *
 * A workload generator writes a program: a list of operations on
 * numbered processes. The executor replays one program on several
 * model instances, one per backend, operation by operation and
 * alternating between them, so slow drift of a noisy machine hits
 * every backend alike and only ratios measured in one run are
 * compared.
 */
#ifndef COWCTX_BENCH_H
#define COWCTX_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <cowctx/mm.h>
#include <cowctx/rmap.h>

/* Where the generators map: the scenario corpus's region */
#define BENCH_BASE	0x100000000000UL

enum bench_op_type {
	OP_PROC,	/* a new process with an empty address space */
	OP_MMAP,	/* count mappings of len at addr + k * stride */
	OP_TOUCH,	/* pages of count ranges of len at addr + k * stride */
	OP_MPROTECT,	/* count ranges, as OP_MMAP */
	OP_MUNMAP,	/* count ranges, as OP_MMAP */
	OP_MREMAP,	/* one mremap: len -> new_len, flags, new_addr */
	OP_FORK,	/* proc forks child */
	OP_EXIT,	/* proc exits */
	OP_WALK,	/* on every mapped anonymous folio: folio_referenced(),
			   then a walk of every candidate */
	OP_SNAPSHOT,	/* the workload's steady state: objects live now */
	OP_MARK,	/* a second look at live bytes (mid_bytes) */
	OP_MADVISE,	/* one madvise(addr, len, flags) (user scenarios) */
};

struct bench_op {
	enum bench_op_type type;
	unsigned int proc;
	unsigned int child;	/* fork */
	unsigned long addr;
	unsigned long len;
	unsigned long count;	/* repeat count (>= 1) */
	unsigned long stride;
	unsigned long new_len;	/* mremap */
	unsigned long new_addr;	/* mremap */
	unsigned long flags;	/* mremap */
	unsigned long offset;	/* mmap of the file: offset of the first */
	int prot;		/* mmap, mprotect */
	bool file;		/* mmap: MAP_PRIVATE of file @file_nr */
	unsigned int file_nr;	/* index into the program's file names */
	int line;		/* a user scenario's line, for errors */
	bool write;		/* touch */
	unsigned int pct;	/* touch: share of pages accessed, 1..100 */
	unsigned int salt;	/* touch: which pages, deterministically */
};

/* A generated program; err is sticky (-ENOMEM while building) */
struct bench_prog {
	struct bench_op *ops;
	size_t nr;
	size_t capacity;
	unsigned int nr_procs;	/* process numbers handed out */
	size_t last_fork;	/* index of the last OP_FORK + 1 (0: none) */
	char **files;		/* file names, by op->file_nr */
	unsigned int nr_files;
	const char *path;	/* a user scenario's file, for errors */
	bool forbids_zero_page;	/* the file's `kernel zero_page=off` */
	int err;
};

/* ---- workloads (bench/workloads.c) ---------------------------------- */

#define BENCH_MAX_PARAMS 10

struct bench_param {
	const char *name;
	long min;
	long max;
	const char *help;
};

struct workload {
	const char *name;
	const char *summary;
	const struct bench_param *params;	/* NULL-name terminated */
	int nr_params;
	/* fills @p from @v (one value per param); 0 or -errno */
	int (*build)(struct bench_prog *p, const long *v);
	bool callgrind;		/* count fork instructions on it */
};

/* One workload with its parameters */
struct workload_inst {
	const struct workload *w;
	long v[BENCH_MAX_PARAMS];
	char label[96];		/* "zygote V=1000 N=100 ..." */
	const char *path;	/* a user's scenario (w is bench_scenario) */
	/* a scenario is measured after its busiest statement (busiest.c) */
	int snap_after;		/* its index */
	int snap_line;		/* its line */
	const char *snap_backend;	/* whose rmap bytes decided it */
};

/*
 * bench/busiest.c: the statement after which the most rmap bytes are
 * live (the most VMAs among equals, the last of equal points); fed
 * after each statement @k with the model it ran on.
 */
struct busiest {
	long bytes;
	unsigned long vmas;
	int after;		/* -1: none yet */
};
void busiest_init(struct busiest *b);
void busiest_note(struct busiest *b, const struct model *m, int k);

extern const struct workload *const bench_workloads[];
const struct workload *workload_find(const char *name);
/* bench/workloads_real.c: real address spaces, long-lived families */
extern const struct workload bench_realzygote;
extern const struct workload bench_daemon;
/* the pseudo-workload of a user's FILE.scn (bench/user_scn.c) */
extern const struct workload bench_scenario;
/* @inst's program into @p: its generator, or its scenario file */
int workload_build(const struct workload_inst *inst, struct bench_prog *p);
/*
 * @path as a workload instance, after running it once on @baseline,
 * which finds its busiest statement: 0; 1 if it is a recording (exec,
 * brk, mapping flags, mseal), which only the real programs table replays,
 * @inst untouched; or -errno with FILE:LINE: what is wrong on stderr.
 */
int scenario_inst(const char *path, const struct rmap_ops *baseline,
		  struct workload_inst *inst);
/* "FILE: measured after line N, its busiest point (...)", a line */
void scenario_snapshot_note(FILE *f, const struct workload_inst *inst);

enum bench_size { SIZE_TINY, SIZE_QUICK, SIZE_FULL };

/*
 * The default instances of @w (or of every workload, @w NULL) at
 * @size: appended to *@list. 0 or -ENOMEM.
 */
int workload_defaults(const struct workload *w, enum bench_size size,
		      struct workload_inst **list, int *nr);
/* "NAME" or "NAME:K=V,K=V": one instance, defaults for the rest */
int workload_parse(const char *spec, enum bench_size size,
		   struct workload_inst *inst, char *err, size_t errlen);
void workload_label(struct workload_inst *inst);
/* the spec string workload_parse() reads back: "NAME:K=V,..." */
void workload_spec(const struct workload_inst *inst, char *buf, size_t len);
long inst_param(const struct workload_inst *inst, const char *name);
void workload_usage(FILE *f);

/* ---- programs (bench/prog.c) ---------------------------------------- */

void prog_init(struct bench_prog *p);
void prog_free(struct bench_prog *p);
struct bench_op *prog_add(struct bench_prog *p, enum bench_op_type type,
			  unsigned int proc);
/* the number of file @name in @p (added if new); p->err on failure */
unsigned int prog_file(struct bench_prog *p, const char *name);
/* OP_PROC: a new root process; its number */
unsigned int prog_proc(struct bench_prog *p);
/* shorthands; each leaves p->err set on failure */
void prog_mmap(struct bench_prog *p, unsigned int proc, unsigned long addr,
	       unsigned long len, unsigned long count, unsigned long stride,
	       int prot);
void prog_touch(struct bench_prog *p, unsigned int proc, unsigned long addr,
		unsigned long len, unsigned long count, unsigned long stride,
		bool write, unsigned int pct, unsigned int salt);
void prog_mprotect(struct bench_prog *p, unsigned int proc,
		   unsigned long addr, unsigned long len, int prot);
void prog_munmap(struct bench_prog *p, unsigned int proc, unsigned long addr,
		 unsigned long len);
void prog_mremap(struct bench_prog *p, unsigned int proc, unsigned long addr,
		 unsigned long len, unsigned long new_len,
		 unsigned long flags, unsigned long new_addr);
unsigned int prog_fork(struct bench_prog *p, unsigned int proc);
void prog_exit(struct bench_prog *p, unsigned int proc);
void prog_simple(struct bench_prog *p, enum bench_op_type type);
/* Does touch op @op access page @i of its range? (deterministic) */
bool touch_selects(const struct bench_op *op, unsigned long i);
/* The program as scenario text (cowctx run checks it with the oracle) */
int prog_write_scenario(const struct bench_prog *p, FILE *out);

/* ---- execution (bench/exec.c) --------------------------------------- */

enum bench_phase {
	PH_MMAP,
	PH_FAULT,
	PH_FORK,
	PH_MREMAP,
	PH_MPROTECT,
	PH_MUNMAP,
	PH_EXIT,
	PH_WALK,	/* folio_referenced(): stops when all are found */
	PH_FULL_WALK,	/* remove_migration_ptes(): every candidate */
	NR_PHASES,
};

extern const char *const bench_phase_name[NR_PHASES];

struct phase_stat {
	unsigned long calls;
	unsigned long ns;
	unsigned long allocs;		/* rmap objects allocated */
	unsigned long lock_acquired;	/* family-wide lock, read + write */
	unsigned long lock_objects;	/* objects touched while held */
	unsigned long lock_max;		/* most objects in one hold */
};

struct sample_set {
	unsigned long *v;
	size_t nr;
	size_t capacity;
};

/* One kind of walk over every mapped anonymous folio */
enum { WALK_RECLAIM, WALK_FULL, NR_WALKS };

struct walk_pass {
	struct sample_set ns;
	unsigned long walks;
	unsigned long examined;
	unsigned long found;
	unsigned long missed;		/* mappings a walk did not report */
	unsigned long extra;		/* reported more than once */
	unsigned long referenced;
};

/* One backend's run of one program */
struct bench_run {
	const struct rmap_ops *ops;
	struct model *m;
	struct mm_struct **procs;	/* by process number; NULL: none */
	bool skip_walk;			/* the oracle: too slow to walk */
	bool callgrind;			/* toggle collection around forks */
	struct phase_stat phase[NR_PHASES];
	struct sample_set fork_ns;
	struct sample_set exit_ns;
	struct walk_pass walk[NR_WALKS];
	bool snapped;
	long snap_bytes;		/* objects and per-VMA fields */
	long snap_field_bytes;		/* the per-VMA fields' part */
	long snap_objects;
	unsigned long snap_vmas;
	unsigned long snap_mms;
	unsigned long snap_folios;
	bool marked;
	long mark_bytes;
	long peak_bytes;
	long leak_bytes;		/* live after every process exited */
	long snap_main;			/* live objects of the main type */
	unsigned long *op_ns;		/* per operation, walks left out */
	size_t cur_op;			/* the operation being replayed */
	char *const *files;		/* the program's file names */
	const char *path;		/* a user scenario's, for errors */
	double fork_instructions;	/* per fork; NAN: not measured */
	char error[256];		/* why it stopped, if it did */
};

void bench_run_init(struct bench_run *br, const struct rmap_ops *ops);
void bench_run_release(struct bench_run *br);

/*
 * Replay @p on each of @runs, alternating per operation. @stop_after
 * (0: all) ends the replay early (callgrind: after the last fork).
 * Progress lines go to @progress (may be NULL) with @label. 0, or -1
 * with br->error set on the run that failed.
 */
int bench_exec(const struct bench_prog *p, struct bench_run *runs, int nr,
	       size_t stop_after, const char *label, FILE *progress);

/*
 * The same measurements for a driver of its own (bench/real_programs.c):
 * the snapshot, the reclaim and full walks of every mapped anonymous
 * folio (br->walk, PH_WALK, PH_FULL_WALK), and @fn(@arg) counted as one
 * call of phase @ph (its rmap allocations, locks and time).
 */
void bench_run_snapshot(struct bench_run *br);
int bench_run_walks(struct bench_run *br);
int bench_run_measured(struct bench_run *br, enum bench_phase ph,
		       int (*fn)(void *arg), void *arg);

unsigned long sample_median(const struct sample_set *s);
/* the @q-th quartile (1, 2 or 3); 0 for an empty set; sorts in place */
double sample_quartile(const struct sample_set *s, int q);

/* ---- metrics (bench/metrics.c) -------------------------------------- */

enum bench_metric {
	M_MMS,
	M_VMAS,
	M_ANON_FOLIOS,
	M_OBJECTS,
	M_BYTES,
	M_OBJECT_BYTES,
	M_VMA_FIELD_BYTES,
	M_PEAK_BYTES,
	M_RMAP_TO_VMA_BYTES,
	M_MID_BYTES,
	M_FORKS,
	M_FORK_ALLOCS,
	M_FORK_NS,
	M_FORK_INSTRUCTIONS,
	M_FORK_RMAP_INSTRUCTIONS,
	M_WALKS,
	M_WALK_NS,
	M_WALK_MEAN_NS,
	M_EXAMINED_PER_FOUND,
	M_WALK_MISSED,
	M_FULL_WALK_NS,
	M_FULL_WALK_MEAN_NS,
	M_EXAMINED_PER_FOUND_FULL,
	M_EXITS,
	M_EXIT_NS,
	M_FAMILY_LOCK_ACQUISITIONS,
	M_FAMILY_LOCK_OBJECTS,
	M_FAMILY_LOCK_MAX_OBJECTS,
	M_TOTAL_NS,
	M_RMAP_TIME_SHARE,
	M_LEAK_BYTES,
	M_MAIN_OBJECTS,
	M_PHASE_BASE,	/* then PM_NR per phase, in enum order */
};

enum { PM_CALLS, PM_TIME_NS, PM_ALLOCS, PM_LOCK_ACQ, PM_LOCK_OBJECTS, PM_NR };

#define NR_METRICS	(M_PHASE_BASE + PM_NR * NR_PHASES)
#define M_PHASE(ph, what) (M_PHASE_BASE + PM_NR * (ph) + (what))

struct metric_set {
	double v[NR_METRICS];	/* NAN: not measured or not defined */
	/* a time's spread, first and third quartiles; NAN for the rest */
	double q1[NR_METRICS];
	double q3[NR_METRICS];
};

const char *metric_name(int metric);
/* Is a larger value worse? (every metric but the counts of things) */
bool metric_is_cost(int metric);
/* Is it a time, whose spread is measured? */
bool metric_is_time(int metric);
/* Per-call times: quartiles over the calls (else over the replays) */
bool metric_is_per_call(int metric);
/* Every value NAN */
void metric_set_clear(struct metric_set *ms);
/* vm_area_struct's slab size: this kernel's, else 6.18's 192 */
unsigned long vma_slab_bytes(void);
void metrics_from_run(const struct bench_run *br,
		      const struct bench_run *scan, struct metric_set *ms);
/* a column / the baseline, NAN where the baseline's is 0 or missing */
double metric_ratio(double cow, double anon);

/* ---- callgrind (bench/callgrind.c) ---------------------------------- */

/* fork_instructions is the mean over the first this many forks */
#define CALLGRIND_MAX_FORKS 32

/* Is valgrind usable here? (found once, remembered) */
bool callgrind_available(void);
/*
 * Instructions per fork of @inst on each backend in @ops, by running
 * this binary under callgrind (two at a time). out[i] is NAN where it
 * could not be measured. @dir keeps the callgrind output files.
 */
int callgrind_measure(const struct workload_inst *inst,
		      const struct rmap_ops *const *ops, int nr,
		      const char *dir, double *out, FILE *progress);
/* The child side: `cowctx bench --callgrind-child=BACKEND SPEC` */
int callgrind_child(const char *backend, const char *spec);

/* ---- results and output (bench/output.c, bench/report.c) ------------ */

/*
 * The backends a bench compares, in column order (--rmap=LIST): the
 * first is the baseline every ratio divides by; the report's and the
 * verdict's comparison is of the first two. The scan oracle runs in a
 * column of its own, not shown, for the model's own share of the time.
 */
#define BENCH_MAX_COLS	8
enum { COL_ANON_VMA, COL_COW_CONTEXT };
#define COL_SCAN	BENCH_MAX_COLS
#define NR_COLS		(BENCH_MAX_COLS + 1)

struct workload_result {
	struct workload_inst inst;
	int reps;				/* replays the figures are over */
	bool have[NR_COLS];
	struct metric_set ms[NR_COLS];
	struct metric_set ratio[NR_COLS];	/* column / column 0 */
	char error[256];
	char *backend_json[NR_COLS];	/* ->print_json(), as an object */
};

void workload_result_release(struct workload_result *r);

/*
 * One scaling curve: a parameter swept, a metric per backend; or, where
 * series is set, nr_series named series of one structure (the remap
 * tree's operations), each point with its spread when spread is set.
 */
#define CURVE_MAX_POINTS 8

struct bench_opts;

struct curve {
	const char *id;		/* file name stem: "bytes_vs_V" */
	char title[192];	/* with the parameters held fixed */
	char xlabel[128];	/* the parameter swept, defined */
	const char *ylabel;
	int metric;
	int nr;
	double x[CURVE_MAX_POINTS];
	double y[CURVE_MAX_POINTS][NR_COLS];
	bool logy;
	const char *const *series;	/* NULL: the backends' columns */
	int nr_series;
	bool spread;			/* q1 and q3 hold the quartiles */
	double q1[CURVE_MAX_POINTS][NR_COLS];
	double q3[CURVE_MAX_POINTS][NR_COLS];
};

/* how many series @cu has, and the name of series @c */
int curve_nr_series(const struct bench_opts *o, const struct curve *cu);
const char *curve_series_name(const struct bench_opts *o,
			      const struct curve *cu, int c);

/*
 * bench/remap_curve.c: the remap tree's insert, remove and lookup
 * against the entries of one mm, up to 100,000 moved VMAs: time per
 * operation (median over rounds, quartiles) and steps per operation
 * (interval_tree_steps). Fills @cv[0] (ns) and @cv[1] (steps).
 */
#define NR_REMAP_CURVES 2
int remap_curves_measure(const struct bench_opts *o, struct curve *cv,
			 FILE *progress);

#define BENCH_MAX_REPS 15

struct bench_opts {
	enum bench_size size;
	int reps;		/* replays per workload; figures are medians */
	bool json;
	bool callgrind;
	bool curves;
	bool full;		/* the whole table on stdout, not the verdict */
	bool verbose;		/* a progress line per replay on stderr */
	const char *out_dir;
	int argc;		/* the command, for the report */
	char **argv;
	int nr_cols;		/* backends shown, col_ops[0..nr_cols-1] */
	const struct rmap_ops *col_ops[NR_COLS];	/* [COL_SCAN]: oracle */
	/* --real DIR: its recordings (bench/real_programs.c) */
	const char *real_dir;
	struct real_result *real;
	int nr_real;
};

/* column @c's backend name */
const char *col_name(const struct bench_opts *o, int c);
/* Is the comparison the proposal's: anon_vma, then a COW context? */
bool cols_are_proposal(const struct bench_opts *o);

/*
 * bench/run.c: @inst on every backend of @o side by side, into @r;
 * fork instructions too when @callgrind. 0, or -1 with r->error set.
 */
int bench_workload(const struct bench_opts *o,
		   const struct workload_inst *inst,
		   struct workload_result *r, bool callgrind, FILE *progress);
/* bench/run.c: @p on every backend, fork_ns medians only (anchors) */
int bench_prog_fork_ns(const struct bench_opts *o, struct bench_prog *p,
		       const char *label, double *fork_ns, FILE *progress);

void print_json(FILE *f, const struct bench_opts *o,
		const struct workload_result *res, int nr,
		const char *const *notes, int nr_notes);
/* "workload | metric | BACKEND... | BACKEND / BASELINE...", markdown */
void print_table(FILE *f, const struct bench_opts *o,
		 const struct workload_result *res, int nr, bool all_metrics);
void print_number(FILE *f, double v);
/* {METRIC: VALUE, ...}: every metric of @ms */
void print_metrics_json(FILE *f, const struct metric_set *ms);
/*
 * bench/headline.c: the figures the verdict and report.md put first,
 * each named by its metric; @verdict: on the verdict's line too.
 */
struct headline_figure {
	int metric;
	const char *what;
	bool verdict;
};
extern const struct headline_figure headline_figures[];
extern const int nr_headline_figures;
/* the headline's workload: the first plain zygote both columns ran */
const struct workload_result *headline_result(const struct workload_result *res,
					      int nr);
/* bench/verdict.c: the short answer on stdout (at most ~15 lines) */
void print_verdict(FILE *f, const struct bench_opts *o,
		   const struct workload_result *res, int nr);
/* bench/targets.c: the proposal's targets, checked on @res */
struct target_check {
	char what[192];		/* "SCOPE: WHAT (METRIC) <= LIMIT" */
	bool every;		/* judged on every workload run */
	const char *source;	/* where the target is stated */
	const struct workload_result *r;	/* NULL: not run */
	int met;		/* 1 met, 0 not, -1 not measurable */
	char figure[160];	/* the figures it was judged on */
};
/* zygote V=1000 N=100 without file VMAs, not failed: issue 6's figures */
const struct workload_result *target_zygote(const struct workload_result *res,
					      int nr);
int targets_check(const struct bench_opts *o,
		  const struct workload_result *res, int nr,
		  struct target_check *out, int max);

/* the curves of @o->size: swept workloads, measured */
int curves_measure(const struct bench_opts *o, struct curve **curves,
		   int *nr, FILE *progress);
/* the model's fork of V touched/untouched VMAs, beside the kernel's */
struct anchor_row {
	unsigned long v;
	double kernel_untouched_ms;
	double kernel_touched_ms;
	double model_ns[2][NR_COLS];	/* [touched][col], median per fork */
};
int anchors_measure(const struct bench_opts *o, struct anchor_row **rows,
		    int *nr, FILE *progress);

/*
 * bench/loss.c: is column 1's figure of @m worse than column 0's, as
 * shown? LOSS_NONE no; LOSS_REAL yes, beyond the noise (an exact count,
 * or a time whose quartiles are apart); LOSS_NOISE worse as shown but
 * within the noise (loss_noise() says why), so no cause is given.
 */
enum { LOSS_NONE, LOSS_REAL, LOSS_NOISE };
int bench_loss(const struct workload_result *r, int m);
/* why a worse time is within the noise; NULL if it is not */
const char *loss_noise(const struct workload_result *r, int m);
/* Why it is worse: the mechanism, and this run's counters that show it */
struct loss_cause {
	const char *brief;	/* the verdict's clause */
	const char *detail;	/* report.md's */
	char counters[240];	/* "examined_per_found_full 1.452 against ..." */
};
/*
 * @c filled and true where a cause may be given: a LOSS_REAL whose
 * cause a counter of this run shows; false otherwise.
 */
bool loss_cause(int m, const struct workload_result *r,
		struct loss_cause *c);
/* does the COW context examine more VMAs per mapping over a full walk? */
bool examined_more_in_full_walk(const struct workload_result *r);
/* a number the backend reports in its own figures; -1 if absent */
double backend_figure(const struct workload_result *r, int c,
		      const char *key);
/* read + write acquisitions of lock @name in its figures; -1 if absent */
double backend_lock_acquisitions(const struct workload_result *r, int c,
				 const char *name);

int report_write(const struct bench_opts *o,
		 const struct workload_result *res, int nr,
		 const struct curve *curves, int nr_curves,
		 const struct anchor_row *anchors, int nr_anchors,
		 const char *const *notes, int nr_notes);

#endif /* COWCTX_BENCH_H */
