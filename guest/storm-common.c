// SPDX-License-Identifier: GPL-2.0
/* What the storm's processes share: the clock, the tallies, a PRNG. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "storm.h"

struct storm_shared *storm;
long storm_page_size;

double storm_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int storm_over(void)
{
	return storm_now() >= storm->deadline;
}

/* The tallies are shared by every process of a kind: atomic adds. */
void storm_count(enum storm_kind kind, long rounds, long forks, long ops)
{
	struct storm_tally *t = &storm->tally[kind];

	__atomic_add_fetch(&t->rounds, rounds, __ATOMIC_RELAXED);
	__atomic_add_fetch(&t->forks, forks, __ATOMIC_RELAXED);
	__atomic_add_fetch(&t->ops, ops, __ATOMIC_RELAXED);
}

/* The first error of a kind is kept for the report. */
void storm_error(enum storm_kind kind, const char *what, int err)
{
	struct storm_tally *t = &storm->tally[kind];

	if (__atomic_fetch_add(&t->errors, 1, __ATOMIC_RELAXED) == 0)
		snprintf(t->first_error, sizeof(t->first_error), "%s: %s",
			 what, strerror(err));
}

/* A uniform-enough number below @n; each process has its own seed. */
unsigned int storm_rand(unsigned int *seed, unsigned int n)
{
	*seed = *seed * 1103515245u + 12345u;
	return (*seed >> 8) % n;
}
