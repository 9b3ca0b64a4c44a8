// SPDX-License-Identifier: GPL-2.0
/* cowctx bench: the command line, and the order things are measured in. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/bench.h"
#include "bench/real_programs.h"
#include "tools/cowctx.h"

#define MAX_NOTES 8

static void usage(FILE *f)
{
	fprintf(f,
		"usage: cowctx bench [--quick|--tiny] [--full|--json] [--out DIR] [--all] [--reps N]\n"
		"                    [--no-callgrind] [--no-curves] [--rmap LIST] [--cow BACKEND]\n"
		"                    [--scenario] [--verbose] [--real DIR]\n"
		"                    [WORKLOAD[:PARAM=VALUE,...]|FILE.scn...]\n"
		"       cowctx bench --targets\n"
		"\n"
		"Runs each workload on every backend of LIST (default anon_vma,cow_context)\n"
		"side by side, and the scan oracle beside them for the model's own share\n"
		"of the time. Prints a verdict: the headline figures, each target met or\n"
		"not, where the second backend loses to the first beyond the noise and,\n"
		"where a counter shows it, why; --full prints\n"
		"the whole table `workload | metric | BACKEND... | BACKEND / FIRST...`\n"
		"instead. Without WORKLOAD, every default workload; a FILE.scn runs a\n"
		"scenario (the scenario language) as a workload, measured after its\n"
		"busiest statement (the most rmap bytes live), or, if it uses exec,\n"
		"brk, mapping flags or mseal (a recording), as a row of the real\n"
		"programs table (--real). Writes DIR/report.md,\n"
		"results.json and SVG scaling curves (default DIR: build/report).\n"
		"\n"
		"  --quick         `make run` sizes (under two minutes on two cores);\n"
		"                  without it the full sizes of `make bench`\n"
		"  --tiny          tiny sizes, for the tests\n"
		"  --full          the whole table on stdout, not the verdict\n"
		"  --json          the results as JSON on stdout instead\n"
		"  --out DIR       where the report, plots and callgrind files go\n"
		"  --all           every metric in the table, not a selection\n"
		"  --reps N        replays of each workload (default 5, tiny 1);\n"
		"                  every figure is the median over them\n"
		"  --no-callgrind  skip instruction counts (valgrind)\n"
		"  --no-curves     skip the scaling curves and the kernel anchor\n"
		"  --rmap LIST     the backends compared, comma-separated, one column\n"
		"                  each (at most 8); the first is the baseline of every\n"
		"                  ratio. e.g. anon_vma,cow_context,cow_context-noprune\n"
		"  --cow BACKEND   short for --rmap anon_vma,BACKEND (none: anon_vma alone)\n"
		"  --verbose       a progress line per replay on standard error\n"
		"  --real DIR      the real programs table: every DIR/*.scn (recordings,\n"
		"                  `make recordings`) replayed on anon_vma and the COW\n"
		"                  context, with the kernel's counts beside; alone, only\n"
		"                  that table (stdout and report.md)\n"
		"  --scenario      print each WORKLOAD's program as a scenario (for\n"
		"                  `cowctx run`, which checks it with the oracle)\n"
		"  --targets       print the targets the verdict checks (bench/targets.c)\n"
		"                  as a markdown table, and nothing else\n"
		"\n"
		"Workloads and their parameters:\n");
	workload_usage(f);
}

static int mkdir_p(const char *dir)
{
	char buf[4096];
	size_t i, n = strlen(dir);

	if (n >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, dir, n + 1);
	for (i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		buf[i] = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -errno;
		buf[i] = dir[i];
	}
	return 0;
}

static int write_scenarios(const struct workload_inst *list, int nr)
{
	int i, ret = 0;

	for (i = 0; i < nr && !ret; i++) {
		struct bench_prog p;

		prog_init(&p);
		printf("# %s\n", list[i].label);
		ret = workload_build(&list[i], &p);
		if (!ret)
			ret = prog_write_scenario(&p, stdout);
		prog_free(&p);
	}
	if (ret)
		fprintf(stderr, "cowctx bench: %s\n", strerror(-ret));
	return ret ? 2 : 0;
}

/*
 * --targets: the table the documents copy (bench/README.md; tests/docs.t
 * holds the copy to this), so a target's name and threshold are said in
 * one place, bench/targets.c.
 */
static int print_targets(const struct bench_opts *o)
{
	struct target_check t[16];
	int i, n = targets_check(o, NULL, 0, t, 16);

	if (!n) {
		fprintf(stderr, "cowctx bench: --targets: the targets compare anon_vma with a COW context\n");
		return 2;
	}
	printf("| target | set in |\n|---|---|\n");
	for (i = 0; i < n; i++)
		printf("| %s | %s |\n", t[i].what, t[i].source);
	return 0;
}

/* What the command line asked for besides struct bench_opts */
struct bench_args {
	bool all;
	bool scenario;
	bool targets;
	const char *cg_child;
	const char *rmap;	/* --rmap LIST */
	const char *cow;	/* --cow BACKEND */
};

static int parse_args(int argc, char **argv, struct bench_opts *o,
		      struct bench_args *a)
{
	static const struct option opts[] = {
		{ "quick", no_argument, NULL, 'q' },
		{ "tiny", no_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "out", required_argument, NULL, 'o' },
		{ "all", no_argument, NULL, 'a' },
		{ "no-callgrind", no_argument, NULL, 'C' },
		{ "no-curves", no_argument, NULL, 'K' },
		{ "scenario", no_argument, NULL, 's' },
		{ "targets", no_argument, NULL, 'T' },
		{ "reps", required_argument, NULL, 'r' },
		{ "cow", required_argument, NULL, 'w' },
		{ "rmap", required_argument, NULL, 'R' },
		{ "full", no_argument, NULL, 'F' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "real", required_argument, NULL, 'P' },
		{ "callgrind-child", required_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'q':
			o->size = SIZE_QUICK;
			break;
		case 't':
			o->size = SIZE_TINY;
			break;
		case 'j':
			o->json = true;
			break;
		case 'o':
			o->out_dir = optarg;
			break;
		case 'a':
			a->all = true;
			break;
		case 'F':
			o->full = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'P':
			o->real_dir = optarg;
			break;
		case 'R':
			a->rmap = optarg;
			break;
		case 'C':
			o->callgrind = false;
			break;
		case 'K':
			o->curves = false;
			break;
		case 's':
			a->scenario = true;
			break;
		case 'T':
			a->targets = true;
			break;
		case 'r': {
			char *end;

			o->reps = (int)strtol(optarg, &end, 10);
			if (*end || end == optarg || o->reps < 1 ||
			    o->reps > BENCH_MAX_REPS) {
				fprintf(stderr, "cowctx bench: --reps must be 1 to %d\n",
					BENCH_MAX_REPS);
				return 2;
			}
			break;
		}
		case 'g':
			a->cg_child = optarg;
			break;
		case 'w':
			a->cow = optarg;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			usage(stderr);
			return 2;
		}
	}
	return 0;
}

/*
 * The columns: --rmap's list, or anon_vma and --cow's backend (default
 * cow_context), and the oracle. 0, or 2 with the reason on stderr.
 */
static int set_columns(struct bench_opts *o, const struct bench_args *a)
{
	char list[256], *tok, *save = NULL;
	int c;

	if (a->rmap && a->cow) {
		fprintf(stderr, "cowctx bench: --rmap and --cow exclude each other\n");
		return 2;
	}
	if (a->rmap)
		snprintf(list, sizeof(list), "%s", a->rmap);
	else if (a->cow && !strcmp(a->cow, "none"))
		snprintf(list, sizeof(list), "anon_vma");
	else
		snprintf(list, sizeof(list), "anon_vma,%s",
			 a->cow ? a->cow : "cow_context");
	for (tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		const struct rmap_ops *ops = rmap_backend_find(tok);

		if (!ops) {
			fprintf(stderr, "cowctx bench: unknown backend '%s'\n",
				tok);
			return 2;
		}
		for (c = 0; c < o->nr_cols; c++)
			if (o->col_ops[c] == ops) {
				fprintf(stderr, "cowctx bench: backend '%s' listed twice\n",
					tok);
				return 2;
			}
		if (o->nr_cols == BENCH_MAX_COLS) {
			fprintf(stderr, "cowctx bench: at most %d backends\n",
				BENCH_MAX_COLS);
			return 2;
		}
		o->col_ops[o->nr_cols++] = ops;
	}
	if (!o->nr_cols) {
		fprintf(stderr, "cowctx bench: --rmap needs a backend\n");
		return 2;
	}
	o->col_ops[COL_SCAN] = rmap_backend_find("scan");
	return 0;
}

static bool is_scenario_file(const char *arg)
{
	size_t n = strlen(arg);

	return n > 4 && !strcmp(arg + n - 4, ".scn");
}

static int collect_workloads(int argc, char **argv, struct bench_opts *o,
			     struct workload_inst **list, int *nr)
{
	char err[160];
	int i, ret;

	if (optind == argc)
		return workload_defaults(NULL, o->size, list, nr) ? 2 : 0;
	for (i = optind; i < argc; i++) {
		const struct workload *w = workload_find(argv[i]);
		struct workload_inst *nl;

		if (is_scenario_file(argv[i])) {
			nl = model_realloc(*list, (*nr + 1) * sizeof(*nl));
			if (!nl)
				return 2;
			*list = nl;
			ret = scenario_inst(argv[i], o->col_ops[0], &nl[*nr]);
			/* a recording: a row of the real programs table */
			if (ret == 1 && real_programs_add(o, argv[i])) {
				fprintf(stderr, "cowctx bench: out of memory\n");
				return 2;
			}
			if (ret < 0)
				return 2;
			if (!ret)
				(*nr)++;
			continue;
		}
		/* a bare name: its default instances; with ':': exactly one */
		if (w) {
			if (workload_defaults(w, o->size, list, nr))
				return 2;
			continue;
		}
		nl = model_realloc(*list, (*nr + 1) * sizeof(*nl));
		if (!nl)
			return 2;
		*list = nl;
		if (workload_parse(argv[i], o->size, &nl[*nr], err,
				   sizeof(err))) {
			fprintf(stderr, "cowctx bench: %s\n", err);
			return 2;
		}
		(*nr)++;
	}
	return 0;
}

int cmd_bench(int argc, char **argv)
{
	struct bench_opts o = {
		.size = SIZE_FULL,
		.callgrind = true,
		.curves = true,
		.out_dir = "build/report",
		.argc = argc,
		.argv = argv,
	};
	struct bench_args a = { 0 };
	const char *notes[MAX_NOTES];
	struct workload_inst *list = NULL;
	struct workload_result *res = NULL;
	struct curve *curves = NULL;
	struct anchor_row *anchors = NULL;
	int nr = 0, nr_notes = 0, nr_curves = 0, nr_anchors = 0, i;
	bool failed = false, tty = isatty(2);
	FILE *progress;
	int ret;

	ret = parse_args(argc, argv, &o, &a);
	if (ret)
		return ret == 1 ? 0 : ret;
	if (!o.reps)
		o.reps = o.size == SIZE_TINY ? 1 : 5;
	if (a.cg_child) {
		if (optind != argc - 1) {
			usage(stderr);
			return 2;
		}
		return callgrind_child(a.cg_child, argv[optind]);
	}
	if (set_columns(&o, &a))
		return 2;
	if (a.targets)
		return print_targets(&o);
	/* --real alone: the recordings, not the default workloads */
	ret = o.real_dir && optind == argc ? 0 :
	      collect_workloads(argc, argv, &o, &list, &nr);
	if (!nr && !ret && (o.real_dir || o.nr_real))
		o.curves = false;
	else if (ret || !nr) {
		real_programs_free(&o);
		model_free(list);
		return ret ? ret : 2;
	}
	if (a.scenario) {
		ret = write_scenarios(list, nr);
		real_programs_free(&o);
		model_free(list);
		return ret;
	}

	if (o.nr_cols < 2)
		notes[nr_notes++] = "one backend in this run (--cow none or --rmap with one name): there is no second column and no ratio ('-' in the table, null in JSON)";
	else if (!cols_are_proposal(&o))
		notes[nr_notes++] = "the columns are not anon_vma then a COW context: the proposal's targets and the reasons for its losses are left out";
	for (i = 0; i < nr; i++)
		if ((list[i].path || o.nr_real) && o.curves) {
			notes[nr_notes++] = "a user's scenario among the workloads: the scaling curves and the kernel anchor are left out (--no-curves)";
			o.curves = false;
		}
	if (!o.col_ops[COL_SCAN])
		notes[nr_notes++] = "no scan oracle: rmap_time_share is not measured";
	if (o.callgrind && !callgrind_available()) {
		notes[nr_notes++] = "valgrind (callgrind) is not installed or cannot run this binary: fork_instructions are not measured";
		o.callgrind = false;
	}
	if (!o.callgrind && nr_notes < MAX_NOTES && callgrind_available())
		notes[nr_notes++] = "--no-callgrind: fork_instructions are not measured";
	if (mkdir_p(o.out_dir)) {
		fprintf(stderr, "cowctx bench: cannot create %s: %s\n",
			o.out_dir, strerror(errno));
		real_programs_free(&o);
		model_free(list);
		return 2;
	}

	res = model_zalloc(nr * sizeof(*res));
	if (!res) {
		fprintf(stderr, "cowctx bench: out of memory\n");
		real_programs_free(&o);
		model_free(list);
		return 2;
	}
	/*
	 * Progress: every replay with --verbose; else one line that
	 * rewrites itself on a terminal, and nothing in a log, so that
	 * what stays on the screen is the verdict.
	 */
	progress = o.verbose ? stderr : NULL;
	for (i = 0; i < nr; i++) {
		if (o.verbose)
			fprintf(stderr, "bench: [%d/%d] ", i + 1, nr);
		else if (tty)
			fprintf(stderr, "\rbench: [%d/%d] %-60.60s", i + 1, nr,
				list[i].label);
		if (bench_workload(&o, &list[i], &res[i], o.callgrind,
				   progress)) {
			failed = true;
			if (!o.verbose)
				fprintf(stderr, "%sbench: %s: %s\n",
					tty ? "\n" : "", list[i].label,
					res[i].error);
		}
	}
	if (o.curves) {
		if (!o.verbose && tty)
			fprintf(stderr, "\rbench: scaling curves and the kernel anchor%-40s",
				"");
		if (curves_measure(&o, &curves, &nr_curves, progress) ||
		    anchors_measure(&o, &anchors, &nr_anchors, progress)) {
			fprintf(stderr, "cowctx bench: scaling curves failed\n");
			failed = true;
		}
	}
	if ((o.real_dir || o.nr_real) && real_programs_run(&o, progress))
		failed = true;
	if (!o.verbose && tty)
		fprintf(stderr, "\r%-80s\r", "");

	if (o.json)
		print_json(stdout, &o, res, nr, notes, nr_notes);
	else if (o.full)
		print_table(stdout, &o, res, nr, a.all);
	if (report_write(&o, res, nr, curves, nr_curves, anchors, nr_anchors,
			 notes, nr_notes))
		failed = true;
	for (i = 0; o.full && !o.json && i < nr_notes; i++)
		printf("note: %s\n", notes[i]);
	for (i = 0; o.full && !o.json && i < nr; i++)
		scenario_snapshot_note(stdout, &res[i].inst);
	if (o.full && !o.json)
		printf("report: %s/report.md\n", o.out_dir);
	if (!o.full && !o.json && nr)
		print_verdict(stdout, &o, res, nr);
	if (!nr && !o.json)
		real_programs_table(stdout, &o);
	real_programs_free(&o);
	model_free(curves);
	model_free(anchors);
	for (i = 0; i < nr; i++)
		workload_result_release(&res[i]);
	model_free(res);
	model_free(list);
	return failed ? 1 : 0;
}
