// SPDX-License-Identifier: GPL-2.0
/*
 * cowctx: run scenarios against the reverse-map backends and the
 * oracle, generate random ones; `kernel` and `bench` live in kernel/
 * and bench/.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cowctx/mm.h>
#include <cowctx/json.h>
#include <cowctx/rmap.h>
#include <cowctx/version.h>
#include "scenario/check.h"
#include "scenario/exec.h"
#include "scenario/gen.h"
#include "scenario/scenario.h"
#include "tools/cowctx.h"

#define MAX_BACKENDS 8

static void usage_main(FILE *f)
{
	fprintf(f,
		"usage: cowctx COMMAND [ARGS]\n"
		"\n"
		"commands:\n"
		"  run     run a scenario on each rmap backend, checked against the oracle\n"
		"  gen     write a random valid scenario\n"
		"  kernel  run a scenario on the real kernel and compare it with the model\n"
		"  bench   measure anon_vma against cow_context\n"
		"  record  record a real process tree's memory as a scenario\n"
		"\n"
		"'cowctx COMMAND --help' describes each; 'cowctx --version'\n"
		"prints the version.\n");
}

static void usage_run(FILE *f)
{
	int i;

	fprintf(f,
		"usage: cowctx run [--rmap=LIST] [--json] [--fidelity=strict]\n"
		"                  [--zero-page=on|off] FILE.scn\n"
		"\n"
		"Runs FILE.scn once per backend in LIST (comma-separated; default: all\n"
		"of them). At every `check` statement and at the end, every anonymous\n"
		"folio's walk is compared with the page-table oracle, and the model's\n"
		"invariants are asserted. After every statement, each backend must have\n"
		"accepted or refused it as anon_vma (Linux) does and hold the same VMA\n"
		"layout; the first difference is printed with both layouts.\n"
		"\n"
		"  --rmap=LIST  backends to run:");
	for (i = 0; rmap_backends[i]; i++)
		fprintf(f, " %s", rmap_backends[i]->name);
	fprintf(f,
		"\n  --json       one JSON object on stdout (mismatches go to stderr)\n"
		"  --fidelity=strict  a `recorded` count the model does not match fails\n"
		"               the run (default: each difference is only reported)\n"
		"  --zero-page=on|off  the kernel modelled: read faults map the shared\n"
		"               zero page (on, stock x86-64 Linux, the default) or\n"
		"               allocate an anonymous folio (off, a kernel that\n"
		"               forbids it). A file's own `kernel zero_page=` line\n"
		"               decides for it; a different --zero-page is an error\n"
		"\n"
		"Exit status: 0 every check passed, 1 a mismatch or a layout difference\n"
		"(or, with --fidelity=strict, a fidelity difference), 2 bad input.\n");
}

static void usage_gen(FILE *f)
{
	fprintf(f,
		"usage: cowctx gen --seed N [--ops K] [--zero-page=on|off]\n"
		"\n"
		"Writes a random valid scenario to stdout: a fork tree using every\n"
		"statement, COW faults, remaps and exits. The same N gives the same\n"
		"scenario. K is the number of statements to draw (default 60).\n"
		"--zero-page=off makes it valid on a kernel without the shared zero\n"
		"page, and says so in its first statement (`kernel zero_page=off`).\n");
}

/* One backend's run of one scenario */
struct backend_run {
	const struct rmap_ops *ops;
	struct check_stats st;
	struct walk_stats walk;
	struct account acct;
	char *extra_json;	/* the backend's print_json output */
	/* `recorded` statements compared, and how many differed */
	unsigned long fidelity_points, fidelity_diffs;
};

struct run_ctx {
	struct backend_run *br;
	FILE *report;
	int failed;	/* nonzero: out of memory in the checker */
};

static int on_check(struct exec_state *es, const struct stmt *st, void *arg)
{
	struct run_ctx *rc = arg;

	if (model_check_at(es->m, es->sc->path, st, &rc->br->st, rc->report)) {
		fprintf(stderr, "%s:%d: out of memory in the checker\n",
			es->sc->path, st ? st->line : 0);
		rc->failed = 1;
		return 2;
	}
	return 0;
}

static int parse_rmap_list(const char *list, struct backend_run *runs,
			   int *nr)
{
	char *copy = strdup(list), *tok, *save = NULL;

	if (!copy)
		return -1;
	*nr = 0;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		const struct rmap_ops *ops = rmap_backend_find(tok);

		if (!ops) {
			fprintf(stderr, "cowctx run: unknown rmap backend '%s'\n",
				tok);
			free(copy);
			return -1;
		}
		if (*nr == MAX_BACKENDS) {
			fprintf(stderr, "cowctx run: too many backends\n");
			free(copy);
			return -1;
		}
		runs[(*nr)++].ops = ops;
	}
	free(copy);
	if (!*nr) {
		fprintf(stderr, "cowctx run: empty --rmap list\n");
		return -1;
	}
	return 0;
}

/* Run @sc on one backend; 0, or the exit status to stop with */
static int run_backend(const struct scenario *sc, struct backend_run *br,
		       FILE *report, FILE *fidelity)
{
	struct run_ctx rc = { .br = br, .report = report };
	struct exec_state es = {
		.on_check = on_check,
		.arg = &rc,
		/* every other backend must build Linux's layout */
		.layout_ref = &anon_vma_rmap_ops,
		.fidelity_out = fidelity,
	};
	struct model *m = model_create(br->ops);
	int ret;

	if (!m) {
		fprintf(stderr, "cowctx run: out of memory\n");
		return 2;
	}
	br->st.max_report = 5;
	ret = scenario_exec(&es, sc, m, stderr);
	br->walk = m->walk;
	br->acct = m->acct;
	br->fidelity_points = es.fidelity_points;
	br->fidelity_diffs = es.fidelity_diffs;
	br->extra_json = rmap_json(m, false);
	if (m->rmap->print_json && !br->extra_json && !ret) {
		fprintf(stderr, "cowctx run: out of memory\n");
		ret = 2;
	}
	exec_state_release(&es);
	model_destroy(m);
	return ret;
}

static void print_json(const char *path, struct backend_run *runs, int nr)
{
	int i, t, n;

	printf("{\"scenario\": ");
	json_string(stdout, path);
	printf(", \"backends\": {");
	for (i = 0; i < nr; i++) {
		struct backend_run *br = &runs[i];

		printf("%s", i ? ", " : "");
		json_string(stdout, br->ops->name);
		printf(": {\"checks\": %lu, \"folios_checked\": %lu, \"mismatches\": %lu, \"objects\": {",
		       br->st.checks, br->st.folios_checked,
		       br->st.mismatches);
		for (t = 0, n = 0; t < br->acct.nr_types; t++) {
			if (br->acct.type[t].field)
				continue;
			printf("%s", n++ ? ", " : "");
			json_string(stdout, br->acct.type[t].name);
			printf(": %ld", br->acct.type[t].live);
		}
		/* bytes: the objects' and the per-VMA fields', each apart too */
		printf("}, \"bytes\": %ld, \"object_bytes\": %ld, \"vma_field_bytes\": %ld, \"peak_bytes\": %ld, \"walk\": {\"walks\": %lu, \"vmas_examined\": %lu, \"mappings_found\": %lu}",
		       br->acct.bytes, account_object_bytes(&br->acct),
		       br->acct.field_bytes, br->acct.peak_bytes, br->walk.walks,
		       br->walk.vmas_examined, br->walk.mappings_found);
		if (br->extra_json)
			printf(", %s", br->extra_json);
		printf("}");
	}
	printf("}");
	if (nr && runs[0].fidelity_points)
		printf(", \"fidelity\": {\"points\": %lu, \"differences\": %lu}",
		       runs[0].fidelity_points, runs[0].fidelity_diffs);
	printf("}\n");
}

static void print_text(const char *path, struct backend_run *runs, int nr)
{
	int i, t;

	printf("%s\n", path);
	for (i = 0; i < nr; i++) {
		struct backend_run *br = &runs[i];

		printf("  %-12s %s: %lu checks, %lu folios checked, %lu mismatches; %ld rmap bytes (peak %ld)",
		       br->ops->name, br->st.mismatches ? "FAIL" : "ok",
		       br->st.checks, br->st.folios_checked,
		       br->st.mismatches, br->acct.bytes,
		       br->acct.peak_bytes);
		for (t = 0; t < br->acct.nr_types; t++)
			printf(", %ld %s", br->acct.type[t].live,
			       br->acct.type[t].name);
		printf("; walks %lu, %lu VMAs examined for %lu mappings\n",
		       br->walk.walks, br->walk.vmas_examined,
		       br->walk.mappings_found);
	}
}

static int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "rmap", required_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'j' },
		{ "fidelity", required_argument, NULL, 'f' },
		{ "zero-page", required_argument, NULL, 'z' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum scn_zero_page zero_page = SCN_ZERO_PAGE_UNSTATED;
	struct backend_run runs[MAX_BACKENDS] = { 0 };
	const char *list = NULL;
	struct scenario sc;
	bool json = false, strict = false;
	int nr = 0, i, c, ret = 0, failed = 0;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			list = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'f':
			if (strcmp(optarg, "strict") && strcmp(optarg, "report")) {
				fprintf(stderr, "cowctx run: bad --fidelity '%s' (strict or report)\n",
					optarg);
				return 2;
			}
			strict = !strcmp(optarg, "strict");
			break;
		case 'z':
			if (scenario_zero_page_parse(optarg, &zero_page)) {
				fprintf(stderr, "cowctx run: bad --zero-page '%s' (on or off)\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			usage_run(stdout);
			return 0;
		default:
			usage_run(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage_run(stderr);
		return 2;
	}
	if (list) {
		if (parse_rmap_list(list, runs, &nr))
			return 2;
	} else {
		for (nr = 0; rmap_backends[nr] && nr < MAX_BACKENDS; nr++)
			runs[nr].ops = rmap_backends[nr];
	}
	if (scenario_parse_file(argv[optind], &sc))
		return 2;
	if (scenario_set_zero_page(&sc, zero_page, "--zero-page", stderr)) {
		scenario_free(&sc);
		return 2;
	}
	/* a recording says where it could not write what the program did */
	scenario_warn_unreplayed(&sc, stderr);
	for (i = 0; i < nr && !ret; i++) {
		/* every run compares the same anon_vma instance: print once */
		ret = run_backend(&sc, &runs[i], json ? stderr : stdout,
				  i ? NULL : json ? stderr : stdout);
		if (runs[i].st.mismatches)
			failed = 1;
	}
	if (!ret && runs[0].fidelity_points) {
		fprintf(json ? stderr : stdout,
			"%s: fidelity: %lu of %lu recorded points differ from the model's anon_vma instance%s\n",
			sc.path, runs[0].fidelity_diffs,
			runs[0].fidelity_points,
			runs[0].fidelity_diffs && !strict ?
			" (reported, not failed: --fidelity=strict fails)" : "");
		if (strict && runs[0].fidelity_diffs)
			failed = 1;
	}
	if (!ret) {
		if (json)
			print_json(sc.path, runs, nr);
		else
			print_text(sc.path, runs, nr);
	}
	for (i = 0; i < nr; i++)
		free(runs[i].extra_json);
	scenario_free(&sc);
	if (ret)
		return ret;
	return failed;
}

static int parse_ulong(const char *s, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 0);
	return errno || end == s || *end || *s == '-' ? -1 : 0;
}

static int cmd_gen(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "ops", required_argument, NULL, 'o' },
		{ "zero-page", required_argument, NULL, 'z' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum scn_zero_page zero_page = SCN_ZERO_PAGE_ON;
	unsigned long seed = 0, ops = 60;
	bool have_seed = false;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (parse_ulong(optarg, &seed)) {
				fprintf(stderr, "cowctx gen: bad seed '%s'\n",
					optarg);
				return 2;
			}
			have_seed = true;
			break;
		case 'o':
			if (parse_ulong(optarg, &ops) || !ops || ops > 100000) {
				fprintf(stderr, "cowctx gen: bad --ops '%s' (1 to 100000)\n",
					optarg);
				return 2;
			}
			break;
		case 'z':
			if (scenario_zero_page_parse(optarg, &zero_page)) {
				fprintf(stderr, "cowctx gen: bad --zero-page '%s' (on or off)\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			usage_gen(stdout);
			return 0;
		default:
			usage_gen(stderr);
			return 2;
		}
	}
	if (!have_seed || optind != argc) {
		usage_gen(stderr);
		return 2;
	}
	if (scenario_gen_mode(seed, (int)ops, zero_page == SCN_ZERO_PAGE_OFF,
			      stdout)) {
		fprintf(stderr, "cowctx gen: out of memory\n");
		return 2;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd;

	if (argc < 2) {
		usage_main(stderr);
		return 2;
	}
	cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") ||
	    !strcmp(cmd, "help")) {
		usage_main(stdout);
		return 0;
	}
	if (!strcmp(cmd, "--version")) {
		printf("cowctx %s\n", cowctx_version);
		return 0;
	}
	if (!strcmp(cmd, "run"))
		return cmd_run(argc - 1, argv + 1);
	if (!strcmp(cmd, "gen"))
		return cmd_gen(argc - 1, argv + 1);
	if (!strcmp(cmd, "kernel"))
		return cmd_kernel(argc - 1, argv + 1);
	if (!strcmp(cmd, "bench"))
		return cmd_bench(argc - 1, argv + 1);
	if (!strcmp(cmd, "record"))
		return cmd_record(argc - 1, argv + 1);
	fprintf(stderr, "cowctx: unknown command '%s'\n", cmd);
	usage_main(stderr);
	return 2;
}
