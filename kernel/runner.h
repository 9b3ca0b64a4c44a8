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
	char (*files)[SCN_NAME_MAX];	/* opened by the zygote, in order */
	int *file_fds;		/* each one's descriptor in every agent */
	int nr_files;
	int fault_sig;		/* the last touch's SIGSEGV or SIGBUS */
	char why[256];		/* what went wrong, when a call failed */
};

#define KRUNNER_MAX_TREES	4

/*
 * Fork a zygote; the runner must already be a child subreaper.
 * Returns 0, or -1 with r->why set. r is zeroed first.
 */
int krunner_start(struct krunner *r, const char *filedir);
/*
 * The zygotes of @n trees, forked one right after the other from the
 * same runner memory (a calibration tree and its real tree). 0, or -1
 * with the failing tree's why set; all are initialised either way.
 */
int krunner_start_many(struct krunner *const *rs, int n,
		       const char *filedir);

/*
 * Have the zygote open the scenario's files @names (in r->filedir),
 * before any `proc`: all processes then share the open files.
 * 0, or -1 with r->why and r->nr_files the index of the file that
 * failed.
 */
int krunner_open_files(struct krunner *r, char (*names)[SCN_NAME_MAX],
		       int nr);

/*
 * Run one statement (check statements do nothing). Returns 0; a
 * positive errno when the kernel refused it (for a touch, *fault says
 * where); -1 when the runner itself failed (r->why).
 */
int krunner_exec(struct krunner *r, const struct stmt *st,
		 unsigned long *fault);

/*
 * How many VMAs each of the tree's processes has of the runner's own
 * (the zygote's, which every agent is a copy of): those of its
 * mm_struct, so not [vsyscall], which lies above user space
 */
int krunner_own_vmas(const struct krunner *r);

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
