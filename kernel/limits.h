/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The runner's file descriptor budget. The runner holds two descriptors
 * for each live real process (its command socket and its pidfd), and
 * every agent holds each scenario file open (all processes map the one
 * open file, as the model's one struct file per name). RLIMIT_NOFILE
 * bounds both, so it is raised to its hard limit first, and a scenario
 * that would still need more is refused at the statement that would
 * pass it, before anything runs.
 */
#ifndef COWCTX_KERNEL_LIMITS_H
#define COWCTX_KERNEL_LIMITS_H

#include <stddef.h>

#include "scenario/scenario.h"

/* The runner's descriptors for each live process: socket and pidfd */
#define KLIMIT_FDS_PER_PROC	2
/* Two trees' zygotes: the calibration tree's and the real one's */
#define KLIMIT_ZYGOTES		2
/*
 * Opened for a moment while a tree runs: a fork's socket pair, the
 * trace pipe, one /proc file of a snapshot, a directory listing
 */
#define KLIMIT_TRANSIENT	8
/* An agent's own: stdin, stdout, stderr, its socket, a fork's socket */
#define KLIMIT_AGENT_FDS	5

/*
 * Raise the soft RLIMIT_NOFILE to the hard limit. Returns the limit in
 * force afterwards (the old one if raising failed); *old gets the soft
 * limit before, for klimit_restore().
 */
long klimit_raise_nofile(long *old);
void klimit_restore_nofile(long old);

/*
 * How many descriptors are open now; -1 if unknown. A new one takes
 * the lowest free number, so this many are taken from the limit.
 */
long klimit_fds_in_use(void);

/*
 * Does @sc fit under @limit descriptors, with @base already in use by
 * the runner? -1 when it does; else the index of the first statement
 * that would pass the limit, with what it needs told in @why; -2 out
 * of memory.
 */
int klimit_check(const struct scenario *sc, long base, long limit,
		 char *why, size_t whylen);

/*
 * vm.max_map_count, which bounds every real process's VMAs, the
 * runner's own (binary, libraries, stack, vDSO) included; -1 if it
 * cannot be read. The judge gives the model this less the agents' own
 * VMAs, so that both refuse a mapping at the same statement.
 */
long klimit_max_map_count(void);

#endif /* COWCTX_KERNEL_LIMITS_H */
