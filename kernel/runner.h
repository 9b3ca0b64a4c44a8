/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The runner: a scenario's process tree as real processes. A zygote
 * agent, forked once from the runner, is the parent of every `proc`;
 * `P fork C` is a real fork() of P's agent. Statements are sent to the
 * agents one at a time, in scenario order, and each is complete when
 * its reply (or, for exit, the process's end) has been seen.
 */
#ifndef COWCTX_KERNEL_RUNNER_H
#define COWCTX_KERNEL_RUNNER_H

#include <stdbool.h>
#include <sys/types.h>

#include "scenario/scenario.h"

struct kproc {
	char name[SCN_NAME_MAX];
	pid_t pid;
	int pidfd;
	int sock;
};

/* An address range of the agents' own (the runner's copied memory) */
struct krange {
	unsigned long start;
	unsigned long end;
};

struct krunner {
	struct kproc zygote;
	struct kproc *procs;	/* live scenario processes, creation order */
	int nr_procs;
	int capacity;
	/* every pid this tree ever had, for telling its trace events */
	pid_t *pids;
	int nr_pids;
	int pids_capacity;
	struct krange *own;	/* the zygote's VMAs when it was made */
	int nr_own;
	const char *filedir;	/* where `file=NAME` files are */
	char why[256];		/* what went wrong, when a call failed */
};

/*
 * Fork a zygote; the runner must already be a child subreaper.
 * Returns 0, or -1 with r->why set. r is zeroed first.
 */
int krunner_start(struct krunner *r, const char *filedir);

/*
 * Run one statement (check statements do nothing). Returns 0; a
 * positive errno when the kernel refused it (for a touch, *fault says
 * where); -1 when the runner itself failed (r->why).
 */
int krunner_exec(struct krunner *r, const struct stmt *st,
		 unsigned long *fault);

/* Kill and reap every process of the tree, the zygote last; idempotent */
void krunner_stop(struct krunner *r);
/* krunner_stop() and free everything */
void krunner_release(struct krunner *r);

struct kproc *krunner_find(struct krunner *r, const char *name);
bool krunner_has_pid(const struct krunner *r, pid_t pid);
/* Does [start, end) come within @margin bytes of the agents' memory? */
bool krunner_overlaps_own(const struct krunner *r, unsigned long start,
			  unsigned long end, unsigned long margin);

/* Set by the signal handler the command installs; checked everywhere */
extern volatile int krunner_interrupted;

#endif /* COWCTX_KERNEL_RUNNER_H */
