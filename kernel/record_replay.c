// SPDX-License-Identifier: GPL-2.0
/*
 * A recording is complete only if it replays: after cowctx record has
 * written FILE, the file is parsed and run once in the model (Linux's
 * anon_vma backend, the oracle checking every walk at the end), as
 * `cowctx run` would. What refuses it is told as FILE:LINE.
 */
#include <stdio.h>

#include <cowctx/rmap.h>
#include "kernel/record.h"
#include "scenario/check.h"
#include "scenario/exec.h"

struct replay_check {
	struct check_stats st;
	int nomem;
};

static int on_check(struct exec_state *es, const struct stmt *st, void *arg)
{
	struct replay_check *rc = arg;

	if (model_check_at(es->m, es->sc->path, st, &rc->st, stderr)) {
		rc->nomem = 1;
		return 2;
	}
	return 0;
}

int rec_replay_check(const char *path)
{
	struct replay_check rc = { .st = { .max_report = 5 } };
	struct exec_state es = { .on_check = on_check, .arg = &rc };
	struct scenario sc;
	struct model *m;
	int ret;

	if (scenario_parse_file(path, &sc))
		return 1;
	m = model_create(&anon_vma_rmap_ops);
	if (!m) {
		scenario_free(&sc);
		fprintf(stderr, "%s: out of memory\n", path);
		return -1;
	}
	ret = scenario_exec(&es, &sc, m, stderr);
	exec_state_release(&es);
	model_destroy(m);
	scenario_free(&sc);
	if (rc.nomem) {
		fprintf(stderr, "%s: out of memory in the checker\n", path);
		return -1;
	}
	return ret || rc.st.mismatches ? 1 : 0;
}
