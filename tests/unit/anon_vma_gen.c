// SPDX-License-Identifier: GPL-2.0
/*
 * 500 generated scenarios through the anon_vma backend, with the
 * oracle and every anon_vma invariant (counters, refcounts, trees,
 * chains) checked at each `check`, and nothing left once every
 * process has exited. The oracle alone would miss a wrong
 * num_children or refcount until it changed a later reuse decision.
 */
#include <stdlib.h>

#include "anon_vma_harness.h"
#include "scenario/gen.h"
#include "tap.h"

#define NR_SEEDS	500

static char *gen_text(unsigned long seed)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	if (scenario_gen(seed, 60, f)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	return buf;
}

int main(void)
{
	unsigned long seed, failed = 0, leaked = 0, checks = 0, folios = 0;
	unsigned long max_av = 0, max_avc = 0;
	char first[400] = "";
	struct av_run r;

	for (seed = 1; seed <= NR_SEEDS; seed++) {
		char name[32], *text = gen_text(seed);
		bool bad;

		snprintf(name, sizeof(name), "seed-%lu", seed);
		if (!text || av_run_text(&r, name, text, NULL) < 0) {
			if (!failed++)
				snprintf(first, sizeof(first),
					 "%s: could not generate or parse", name);
			free(text);
			continue;
		}
		if ((unsigned long)av_live(&r, "anon_vma") > max_av)
			max_av = av_live(&r, "anon_vma");
		if ((unsigned long)av_live(&r, "anon_vma_chain") > max_avc)
			max_avc = av_live(&r, "anon_vma_chain");
		bad = r.ret || r.cs.mismatches || r.invalid;
		if (bad && !failed++)
			snprintf(first, sizeof(first),
				 "%s: ret %d, %lu mismatches, %s", name, r.ret,
				 r.cs.mismatches, r.invalid ? r.invalid : "valid");
		checks += r.cs.checks;
		folios += r.cs.folios_checked;
		while (r.es.nr_procs) {
			mm_exit(r.es.procs[r.es.nr_procs - 1].mm);
			r.es.nr_procs--;
		}
		if (account_live_total(&r.m->acct) || r.m->acct.bytes) {
			if (!leaked++ && !first[0])
				snprintf(first, sizeof(first), "%s leaks", name);
		}
		av_run_end(&r);
		free(text);
	}
	ok(!failed, "%d generated scenarios agree with the oracle and keep every anon_vma invariant",
	   NR_SEEDS);
	ok(!leaked, "every anon_vma and AVC is freed when the last process exits");
	if (first[0])
		tap_diag("first failure: %s", first);
	ok(checks > NR_SEEDS && folios > 0,
	   "%lu checks walked %lu folios", checks, folios);
	tap_diag("largest end state: %lu anon_vmas, %lu AVCs", max_av, max_avc);
	return tap_done();
}
