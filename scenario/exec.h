/* SPDX-License-Identifier: GPL-2.0 */
/* Running a parsed scenario against one model instance. */
#ifndef COWCTX_EXEC_H
#define COWCTX_EXEC_H

#include <stdio.h>

#include <cowctx/mm.h>
#include "scenario/scenario.h"

/* A scenario process while it lives: its name and its mm */
struct exec_proc {
	char name[SCN_NAME_MAX];
	struct mm_struct *mm;
};

struct exec_state {
	const struct scenario *sc;
	struct model *m;
	struct exec_proc *procs;	/* live processes, creation order */
	int nr_procs;
	int capacity;
	/*
	 * Called at every `check` statement (and, with @st NULL, once at
	 * the end of the scenario). Returns 0 to go on, nonzero to stop.
	 */
	int (*on_check)(struct exec_state *es, const struct stmt *st,
			void *arg);
	void *arg;
	/*
	 * When set (to Linux's backend, anon_vma), a second instance runs
	 * every statement too, and after each the two must have accepted
	 * or refused it alike and hold the same VMA layout (layout.h).
	 */
	const struct rmap_ops *layout_ref;
	/* VMAs checked since the last whole layout check (layout.c) */
	unsigned long layout_debt;
	/*
	 * `recorded` statements met, and those whose kernel counts differ
	 * from the anon_vma instance's; each difference is printed to
	 * @fidelity_out when set ("FILE:LINE: fidelity: ...").
	 */
	FILE *fidelity_out;
	unsigned long fidelity_points;
	unsigned long fidelity_diffs;
};

/*
 * Execute every statement of @sc on @m. A statement the kernel would
 * refuse prints "FILE:LINE: message" to @err and returns 2; a nonzero
 * on_check return value is returned as is; a difference from the
 * layout_ref instance is reported to @err and returns 1; 0 when the
 * scenario ran to its end. The state stays valid (live processes, their mms) until
 * exec_state_release().
 */
int scenario_exec(struct exec_state *es, const struct scenario *sc,
		  struct model *m, FILE *err);
void exec_state_release(struct exec_state *es);

/* "EINVAL" for EINVAL: the errno names statement errors report */
const char *errno_name(int err);

/* The live process named @name, or NULL */
struct exec_proc *exec_find_proc(struct exec_state *es, const char *name);

#endif /* COWCTX_EXEC_H */
