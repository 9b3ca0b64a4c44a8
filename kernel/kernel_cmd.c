// SPDX-License-Identifier: GPL-2.0
/* cowctx kernel: the command line and its report. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cowctx/json.h>

#include "guest/idle.h"
#include "kernel/judge.h"
#include "kernel/kernel.h"
#include "scenario/scenario.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: cowctx kernel [--json] [--verbose] [--rmap=NAME] [--idle-walks]\n"
		"                     [--no-trace] FILE.scn\n"
		"\n"
		"Runs FILE.scn as real processes on this kernel (one process per\n"
		"scenario process, real fork(), real system calls, THP off) and in\n"
		"the model, and compares them at every `check` and at the end:\n"
		"each process's VMAs (/proc/PID/smaps), the sharing of every page\n"
		"(pagemap PFNs with kpageflags/kpagecount against model folios, one\n"
		"to one, with identical mapping sets) and the live anon_vma and\n"
		"anon_vma_chain objects the scenario made (tracefs kmem events,\n"
		"less a calibration run of the same process tree). Pages compared:\n"
		"every page of every VMA both sides have, at every comparison.\n"
		"\n"
		"  --json        one JSON object on stdout; differences go to stderr\n"
		"  --verbose     also print the kernel's pages at each check and the\n"
		"                trace events by call site\n"
		"  --rmap=NAME   the model's backend (default anon_vma, else scan)\n"
		"  --idle-walks  at every comparison, after it, force one rmap walk of\n"
		"                every anonymous folio the processes map (its PFN\n"
		"                written to /sys/kernel/mm/page_idle/bitmap, LRU\n"
		"                batches drained first) and read the idle bit back to\n"
		"                confirm the walk ran; an unconfirmed walk is a\n"
		"                difference. Under a cow_context=shadow kernel the\n"
		"                shadow check's count of those walks is reported\n"
		"  --no-trace    do not count anon_vma objects, for a kernel without\n"
		"                tracefs; VMAs and pages are still compared\n"
		"  --model-skip-cow=N\n"
		"                test only: the model's Nth COW fault writes into the\n"
		"                shared page, a wrong fact the comparison must catch\n"
		"  --model-zero-page=on|off\n"
		"                test only: the model maps the zero page on read\n"
		"                faults (on) or allocates (off) whatever this kernel\n"
		"                does, a wrong fact the comparison must catch\n"
		"\n"
		"The model runs as this kernel does: one read fault, read back through\n"
		"pagemap and kpageflags, tells whether it maps the shared zero page\n"
		"(reported as zero_page=on or off). A file that states the other\n"
		"(`kernel zero_page=...`) cannot be judged here: exit 77.\n"
		"\n"
		"Needs root, pagemap PFNs and tracefs (not with --no-trace), and\n"
		"page_idle with --idle-walks. RLIMIT_NOFILE is raised to\n"
		"its hard limit; a scenario needing more descriptors than that, a\n"
		"range within 1 MiB of the runner's own memory or a file over 1 GiB\n"
		"is refused at its line (docs/scenario.md, the runner's limits).\n"
		"Exit status: 0 kernel and model agree, 1 a difference, 2 bad input\n"
		"or a failed run (FILE:LINE: why, where a statement is the cause),\n"
		"77 this machine cannot serve (the reason on stderr).\n");
}

static void print_json(const char *path, const struct kjudge_result *r,
		       bool idle)
{
	const struct kcompare *c = &r->cmp;

	printf("{\"scenario\": ");
	json_string(stdout, path);
	printf(", \"rmap\": ");
	json_string(stdout, r->rmap ? r->rmap : "");
	printf(", \"zero_page\": \"%s\"",
	       scenario_zero_page_name(r->zero_page));
	printf(", \"checks\": %d, \"pages_compared\": %ld, \"vma_mismatches\": %ld, \"sharing_mismatches\": %ld, \"anon_vma_mismatches\": %ld, \"statement_mismatches\": %ld, \"anon_vma\": {\"kernel\": ",
	       c->checks, c->pages_compared, c->vma_mismatches,
	       c->sharing_mismatches, c->anon_vma_mismatches,
	       c->statement_mismatches);
	if (c->have_kernel_av)
		printf("{\"anon_vma\": %ld, \"anon_vma_chain\": %ld}",
		       c->kernel_av, c->kernel_avc);
	else
		printf("null");
	printf(", \"model\": ");
	if (c->have_model_av)
		printf("{\"anon_vma\": %ld, \"anon_vma_chain\": %ld}",
		       c->model_av, c->model_avc);
	else
		printf("null");
	printf("}");
	if (idle) {
		printf(", \"idle_walks\": {\"forced\": %ld, \"confirmed\": %ld, \"retried\": %ld, \"shadow_walks\": ",
		       r->idle.forced, r->idle.confirmed, r->idle.retried);
		if (r->idle.shadow_walks >= 0)
			printf("%lld, \"shadow_mismatches\": %lld}",
			       r->idle.shadow_walks,
			       r->idle.shadow_mismatches);
		else
			printf("null, \"shadow_mismatches\": null}");
	}
	printf("}\n");
}

static void print_text(const char *path, const struct kjudge_result *r,
		       const struct kjudge_opts *o)
{
	const struct kcompare *c = &r->cmp;

	printf("%s: %d checks, %ld pages compared: %ld VMA, %ld sharing, %ld anon_vma, %ld statement differences",
	       path, c->checks, c->pages_compared, c->vma_mismatches,
	       c->sharing_mismatches, c->anon_vma_mismatches,
	       c->statement_mismatches);
	if (c->have_kernel_av)
		printf("; live at the end: kernel %ld anon_vma %ld anon_vma_chain",
		       c->kernel_av, c->kernel_avc);
	if (c->have_model_av)
		printf(", model (%s) %ld and %ld", r->rmap, c->model_av,
		       c->model_avc);
	else if (o->no_trace)
		printf("; anon_vma objects not counted (--no-trace)");
	else
		printf(", model (%s) not compared", r->rmap ? r->rmap : "?");
	if (o->idle_walks) {
		printf("\nidle walks: %ld forced, %ld confirmed, %ld checks retried",
		       r->idle.forced, r->idle.confirmed, r->idle.retried);
		if (r->idle.shadow_walks >= 0)
			printf("; shadow check: %lld walks, %lld mismatches",
			       r->idle.shadow_walks,
			       r->idle.shadow_mismatches);
		else
			printf("; no shadow check counters (%s)", SHADOW_DIR);
	}
	if (r->model_zero_page == r->zero_page)
		printf("\nkernel and model: zero_page=%s (probed)",
		       scenario_zero_page_name(r->zero_page));
	else
		printf("\nkernel: zero_page=%s (probed), model: zero_page=%s (--model-zero-page)",
		       scenario_zero_page_name(r->zero_page),
		       scenario_zero_page_name(r->model_zero_page));
	printf("\n%s\n", kcompare_total(c) ||
	       r->idle.confirmed < r->idle.forced ? "DIFFERENT" : "agree");
}

static int parse_count(const char *s, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 0);
	return errno || end == s || *end || *out < 0 ? -1 : 0;
}

int cmd_kernel(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "rmap", required_argument, NULL, 'r' },
		{ "model-skip-cow", required_argument, NULL, 's' },
		{ "model-zero-page", required_argument, NULL, 'z' },
		{ "idle-walks", no_argument, NULL, 'i' },
		{ "no-trace", no_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct kjudge_opts o = { .max_report = 20 };
	struct kjudge_result res;
	struct scenario sc;
	bool json = false;
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'v':
			o.verbose = true;
			break;
		case 'r':
			o.rmap = optarg;
			break;
		case 's':
			if (parse_count(optarg, &o.skip_cow)) {
				fprintf(stderr, "cowctx kernel: bad --model-skip-cow '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'z':
			if (scenario_zero_page_parse(optarg,
						     &o.model_zero_page)) {
				fprintf(stderr, "cowctx kernel: bad --model-zero-page '%s' (on or off)\n",
					optarg);
				return 2;
			}
			break;
		case 'i':
			o.idle_walks = true;
			break;
		case 't':
			o.no_trace = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	/* the parser names the file and what is wrong with it */
	if (scenario_parse_file(argv[optind], &sc))
		return 2;
	fflush(stdout);
	o.report = json ? stderr : stdout;
	ret = kjudge_run(&sc, &o, &res);
	if (ret == KJUDGE_INTERRUPTED) {
		scenario_free(&sc);
		fflush(NULL);
		/* everything is cleaned up: now die of the signal, as asked */
		signal(res.signal, SIG_DFL);
		raise(res.signal);
		return 128 + res.signal;
	}
	if (ret == KERNEL_EXIT_SKIP) {
		fprintf(stderr, "cowctx kernel: skipped: %s\n", res.why);
	} else if (ret == 0 || ret == 1) {
		if (json)
			print_json(sc.path, &res, o.idle_walks);
		else
			print_text(sc.path, &res, &o);
	} else if (res.why[0] && res.line) {
		fprintf(stderr, "%s:%d: %s\n", sc.path, res.line, res.why);
	} else if (res.why[0]) {
		fprintf(stderr, "cowctx kernel: %s: %s\n", sc.path, res.why);
	}
	scenario_free(&sc);
	return ret;
}
