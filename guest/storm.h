/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The storm (storm.c): mutators (storm-mutate.c) fork, exit, move,
 * protect, fault and COW anonymous memory on every CPU while walkers
 * (storm-walk.c) force rmap walks of it from other processes, and bulk
 * walkers mark a large, quiet fork tree idle over and over, so that the
 * run compares many walks besides the few that the churn leaves time
 * for. They meet
 * in a table of slots in shared memory: each live mutator process
 * publishes its pid and the arena its mappings stay in.
 */
#ifndef GUEST_STORM_H
#define GUEST_STORM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define STORM_SLOTS	64

struct storm_slot {
	pid_t pid;		/* 0: free */
	uintptr_t base;
	size_t len;
};

/* Per-kind tallies, summed into the report; errors fail the storm. */
struct storm_tally {
	long rounds;		/* mutator trees, or walker passes */
	long forks;
	long ops;		/* mutations, or pages handed to a walk */
	long errors;
	char first_error[96];
};

enum storm_kind {
	STORM_MUTATE,
	STORM_IDLE,
	STORM_MIGRATE,
	STORM_PAGEOUT,
	STORM_COMPACT,
	STORM_BULK,
	STORM_NR_KINDS,
};

struct storm_shared {
	double start;			/* CLOCK_MONOTONIC seconds */
	double deadline;
	int nr_nodes;
	struct storm_slot slot[STORM_SLOTS];
	struct storm_tally tally[STORM_NR_KINDS];
};

extern struct storm_shared *storm;
extern long storm_page_size;

double storm_now(void);
int storm_over(void);
void storm_count(enum storm_kind kind, long rounds, long forks, long ops);
void storm_error(enum storm_kind kind, const char *what, int err);
unsigned int storm_rand(unsigned int *seed, unsigned int n);

void storm_mutator(int cpu);
void storm_walker(enum storm_kind kind, int cpu);
void storm_bulk(int cpu);

#endif
