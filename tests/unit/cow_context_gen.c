// SPDX-License-Identifier: GPL-2.0
/*
 * Generated scenarios through cow_context: the oracle and the backend's
 * own invariants (exact remap trees, exact refcounts, no leaked context)
 * at every `check`, nothing left once every process has exited; the same
 * scenarios without pruning, to show pruning changes no answer and to
 * count what it saves; the PoC's early stop, which the oracle must catch;
 * and every allocation failing in turn on a few scenarios.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cow_context_harness.h"
#include "tap.h"

#define NR_SEEDS	400
#define NR_FAIL_SEEDS	12

struct totals {
	unsigned long failed, leaked, checks, folios, mismatches;
	unsigned long examined, found, pruned, remap_candidates;
	char first[600];
};

static void note(struct totals *t, const char *fmt, const char *a,
		 const char *b)
{
	if (!t->first[0])
		snprintf(t->first, sizeof(t->first), fmt, a, b);
}

static void run_seeds(const struct rmap_ops *ops, struct totals *t,
		      bool quiet)
{
	unsigned long seed;
	FILE *devnull = fopen("/dev/null", "w");

	for (seed = 1; seed <= NR_SEEDS; seed++) {
		char name[32], *text = cc_gen_text(seed, 60);
		struct cc_run r = { .report = quiet ? devnull : NULL };

		snprintf(name, sizeof(name), "seed-%lu", seed);
		if (!text || cc_run_text(&r, ops, name, text, devnull) < 0) {
			t->failed++;
			note(t, "%s: %s", name, "could not generate or parse");
			free(text);
			continue;
		}
		t->checks += r.cs.checks;
		t->folios += r.cs.folios_checked;
		t->mismatches += r.cs.mismatches;
		if (r.ret || r.invalid) {
			t->failed++;
			note(t, "%s: %s", name,
			     r.invalid ? r.invalid : "scenario stopped");
		}
		cc_exit_all(&r);
		if (account_live_total(&r.m->acct) || r.m->acct.bytes ||
		    cow_instance(r.m)->nr_contexts) {
			t->leaked++;
			note(t, "%s: %s", name, "leaks after the last exit");
		}
		t->examined += r.m->walk.vmas_examined;
		t->found += r.m->walk.mappings_found;
		t->pruned += cow_instance(r.m)->walk.contexts_pruned;
		t->remap_candidates += cow_instance(r.m)->walk.remap_candidates;
		cc_run_end(&r);
		free(text);
	}
	fclose(devnull);
}

/*
 * Fail the 1st, 2nd, ... allocation of a run until one gets through.
 * Whatever the failure did, what is left must be consistent, and
 * everything must be freed once the processes exit.
 */
static void fault_injection(void)
{
	unsigned long seed, runs = 0, bad = 0, leaks = 0, stopped = 0;
	FILE *devnull = fopen("/dev/null", "w");
	char first[400] = "";

	for (seed = 1; seed <= NR_FAIL_SEEDS; seed++) {
		char *text = cc_gen_text(seed * 7, 40);
		long nth;

		for (nth = 1; text && nth < 2000; nth++) {
			struct cc_run r = { .report = devnull };
			const char *err;
			bool done;

			if (cc_run_text(&r, &cow_context_rmap_ops, "fail", "",
					devnull) < 0)
				break;
			/* the model exists: now fail the nth from here */
			scenario_free(&r.sc);
			if (scenario_parse_string("fail", text, &r.sc))
				break;
			alloc_fail_nth = nth;
			r.ret = scenario_exec(&r.es, &r.sc, r.m, devnull);
			done = alloc_fail_nth > 0;
			alloc_fail_nth = 0;
			runs++;
			if (r.ret)
				stopped++;
			err = cc_validate(r.m);
			if (err) {
				if (!bad++)
					snprintf(first, sizeof(first),
						 "seed %lu nth %ld: %s", seed * 7,
						 nth, err);
			}
			cc_exit_all(&r);
			if (account_live_total(&r.m->acct) || r.m->acct.bytes) {
				if (!leaks++ && !first[0])
					snprintf(first, sizeof(first),
						 "seed %lu nth %ld leaks", seed * 7,
						 nth);
			}
			cc_run_end(&r);
			if (done)
				break;
		}
		free(text);
	}
	fclose(devnull);
	ok(runs > 100 && stopped > 50,
	   "%lu runs with one allocation failing, %lu stopped by ENOMEM",
	   runs, stopped);
	is_long(bad, 0, "invariants hold after every injected failure");
	is_long(leaks, 0, "and nothing leaks once the processes exit");
	if (first[0])
		tap_diag("first: %s", first);
}

int main(void)
{
	struct totals real = { 0 }, noprune = { 0 }, poc = { 0 };

	run_seeds(&cow_context_rmap_ops, &real, false);
	ok(!real.failed && !real.mismatches,
	   "%d generated scenarios: oracle and invariants hold at every check",
	   NR_SEEDS);
	if (real.first[0])
		tap_diag("first failure: %s", real.first);
	ok(!real.leaked, "contexts and remap arrays all freed after the last exit");
	ok(real.checks > NR_SEEDS && real.folios > 1000 &&
	   real.remap_candidates > 100,
	   "the seeds exercise it: %lu checks, %lu folio walks, %lu remapped candidates",
	   real.checks, real.folios, real.remap_candidates);

	run_seeds(&cow_context_noprune_rmap_ops, &noprune, false);
	ok(!noprune.failed && !noprune.mismatches && !noprune.leaked,
	   "without pruning: also exact");
	is_long(noprune.found, real.found,
		"pruning finds the same mappings");
	ok(real.pruned > 0 && real.examined < noprune.examined,
	   "pruning skipped %lu subtrees: %lu VMAs examined instead of %lu",
	   real.pruned, real.examined, noprune.examined);
	tap_diag("VMAs examined per mapping found: %.3f pruned, %.3f not",
		 (double)real.examined / (double)real.found,
		 (double)noprune.examined / (double)noprune.found);

	run_seeds(&cow_context_poc_rmap_ops, &poc, true);
	ok(poc.mismatches > 0,
	   "the PoC's early stop misses mappings the oracle sees (%lu mismatches)",
	   poc.mismatches);

	fault_injection();
	return tap_done();
}
