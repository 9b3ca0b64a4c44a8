// SPDX-License-Identifier: GPL-2.0
/* cowctx bench: the command line, and the order things are measured in. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench/bench.h"
#include "tools/cowctx.h"

#define MAX_NOTES 8

static void usage(FILE *f)
{
	fprintf(f,
		"usage: cowctx bench [--quick|--tiny] [--json] [--out DIR] [--all] [--reps N]\n"
		"                    [--no-callgrind] [--no-curves] [--cow BACKEND] [--scenario]\n"
		"                    [WORKLOAD[:PARAM=VALUE,...]...]\n"
		"\n"
		"Runs each workload on anon_vma and cow_context (and the scan oracle,\n"
		"for the model's own share of the time) side by side, and prints\n"
		"`workload | metric | anon_vma | cow_context | ratio` (ratio:\n"
		"cow_context / anon_vma). Without WORKLOAD, every default workload.\n"
		"Writes DIR/report.md, results.json and SVG scaling curves\n"
		"(default DIR: build/report).\n"
		"\n"
		"  --quick         `make run` sizes (under two minutes on two cores);\n"
		"                  without it the full sizes of `make bench`\n"
		"  --tiny          tiny sizes, for the tests\n"
		"  --json          the results as JSON on stdout instead of the table\n"
		"  --out DIR       where the report, plots and callgrind files go\n"
		"  --all           every metric in the table, not a selection\n"
		"  --reps N        replays of each workload (default 5, tiny 1);\n"
		"                  every figure is the median over them\n"
		"  --no-callgrind  skip instruction counts (valgrind)\n"
		"  --no-curves     skip the scaling curves and the kernel anchor\n"
		"  --cow BACKEND   the backend in the cow_context columns (default\n"
		"                  cow_context; e.g. cow_context-noprune, cow_context-poc;\n"
		"                  none: anon_vma alone)\n"
		"  --scenario      print each WORKLOAD's program as a scenario (for\n"
		"                  `cowctx run`, which checks it with the oracle)\n"
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
		ret = list[i].w->build(&p, list[i].v);
		if (!ret)
			ret = prog_write_scenario(&p, stdout);
		prog_free(&p);
	}
	if (ret)
		fprintf(stderr, "cowctx bench: %s\n", strerror(-ret));
	return ret ? 2 : 0;
}

static int parse_args(int argc, char **argv, struct bench_opts *o,
		      bool *all, bool *scenario, const char **cg_child)
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
		{ "reps", required_argument, NULL, 'r' },
		{ "cow", required_argument, NULL, 'w' },
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
			*all = true;
			break;
		case 'C':
			o->callgrind = false;
			break;
		case 'K':
			o->curves = false;
			break;
		case 's':
			*scenario = true;
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
			*cg_child = optarg;
			break;
		case 'w':
			o->cow_name = optarg;
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

static int collect_workloads(int argc, char **argv, const struct bench_opts *o,
			     struct workload_inst **list, int *nr)
{
	char err[160];
	int i;

	if (optind == argc)
		return workload_defaults(NULL, o->size, list, nr) ? 2 : 0;
	for (i = optind; i < argc; i++) {
		const struct workload *w = workload_find(argv[i]);
		struct workload_inst *nl;

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
		.cow_name = "cow_context",
		.argc = argc,
		.argv = argv,
	};
	const char *notes[MAX_NOTES], *cg_child = NULL;
	struct workload_inst *list = NULL;
	struct workload_result *res = NULL;
	struct curve *curves = NULL;
	struct anchor_row *anchors = NULL;
	int nr = 0, nr_notes = 0, nr_curves = 0, nr_anchors = 0, i;
	bool all = false, scenario = false, failed = false;
	int ret;

	ret = parse_args(argc, argv, &o, &all, &scenario, &cg_child);
	if (ret)
		return ret == 1 ? 0 : ret;
	if (!o.reps)
		o.reps = o.size == SIZE_TINY ? 1 : 5;
	if (cg_child) {
		if (optind != argc - 1) {
			usage(stderr);
			return 2;
		}
		return callgrind_child(cg_child, argv[optind]);
	}
	ret = collect_workloads(argc, argv, &o, &list, &nr);
	if (ret || !nr) {
		model_free(list);
		return ret ? ret : 2;
	}
	if (scenario) {
		ret = write_scenarios(list, nr);
		model_free(list);
		return ret;
	}

	o.col_ops[COL_ANON_VMA] = rmap_backend_find("anon_vma");
	if (strcmp(o.cow_name, "none")) {
		o.col_ops[COL_COW_CONTEXT] = rmap_backend_find(o.cow_name);
		if (!o.col_ops[COL_COW_CONTEXT] &&
		    strcmp(o.cow_name, "cow_context")) {
			fprintf(stderr, "cowctx bench: unknown backend '%s'\n",
				o.cow_name);
			model_free(list);
			return 2;
		}
	}
	o.col_ops[COL_SCAN] = rmap_backend_find("scan");
	if (!o.col_ops[COL_ANON_VMA]) {
		fprintf(stderr, "cowctx bench: no anon_vma backend in this build\n");
		model_free(list);
		return 2;
	}
	if (!o.col_ops[COL_COW_CONTEXT])
		notes[nr_notes++] = "no cow_context backend in this run (not built, or --cow none): its columns and every ratio are missing ('-' in the table, null in JSON)";
	else if (strcmp(o.cow_name, "cow_context"))
		notes[nr_notes++] = "--cow: the cow_context columns are another COW context backend (named in the report's header and in JSON's cow_context_backend)";
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
		model_free(list);
		return 2;
	}

	res = model_zalloc(nr * sizeof(*res));
	if (!res) {
		fprintf(stderr, "cowctx bench: out of memory\n");
		model_free(list);
		return 2;
	}
	for (i = 0; i < nr; i++) {
		fprintf(stderr, "bench: [%d/%d] ", i + 1, nr);
		if (bench_workload(&o, &list[i], &res[i], o.callgrind, stderr))
			failed = true;
	}
	if (o.curves) {
		if (curves_measure(&o, &curves, &nr_curves, stderr) ||
		    anchors_measure(&o, &anchors, &nr_anchors, stderr)) {
			fprintf(stderr, "cowctx bench: scaling curves failed\n");
			failed = true;
		}
	}

	if (o.json)
		print_json(stdout, &o, res, nr, notes, nr_notes);
	else
		print_table(stdout, res, nr, all);
	if (report_write(&o, res, nr, curves, nr_curves, anchors, nr_anchors,
			 notes, nr_notes))
		failed = true;
	for (i = 0; !o.json && i < nr_notes; i++)
		printf("note: %s\n", notes[i]);
	if (!o.json)
		printf("report: %s/report.md\n", o.out_dir);
	model_free(curves);
	model_free(anchors);
	for (i = 0; i < nr; i++)
		workload_result_release(&res[i]);
	model_free(res);
	model_free(list);
	return failed ? 1 : 0;
}
