// SPDX-License-Identifier: GPL-2.0
/*
 * cowctx-storm [SECONDS [MIN_WALKS [UNTIL]]]: the storm of issue 10, run
 * in the guest under cow_context=shadow. On every CPU at once a mutator
 * forks, exits, moves, protects, faults and COWs anonymous memory
 * (storm-mutate.c), a walker marks it idle and a bulk walker marks its
 * own quiet fork tree idle; one walker each migrates the mutators' pages
 * between the NUMA nodes, pages them out to swap and compacts memory
 * (storm-walk.c). Every process stops after SECONDS (default $STORM_SECS,
 * else 30), or sooner once the kernel's walks_compared since boot reaches
 * UNTIL (default $STORM_UNTIL, else never), so that a run reaches its
 * total on any machine with SECONDS as the bound. The shadow check's
 * debugfs counters, read before and after, say how many walks were
 * compared. TAP on stdout; exit 0 when every process ended cleanly, no
 * syscall failed unexpectedly, every kind of walker ran, walks were
 * compared (at least MIN_WALKS, default $STORM_MIN_WALKS, else 1) and
 * none mismatched; 1 otherwise; 2 on bad arguments.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "idle.h"
#include "storm.h"

/* TCG is slow and compaction of the whole guest slower: after this long
 * past the deadline a process still running is a hang.
 */
#define GRACE_SECS	120
#define MAX_PROCS	64

static const char *const kind_name[STORM_NR_KINDS] = {
	[STORM_MUTATE] = "mutate",
	[STORM_IDLE] = "idle",
	[STORM_MIGRATE] = "migrate",
	[STORM_PAGEOUT] = "pageout",
	[STORM_COMPACT] = "compact",
	[STORM_BULK] = "bulk",
};

static pid_t procs[MAX_PROCS];
static int nr_procs;

/* Every numeric debugfs counter, to say which walks the storm made. */
#define MAX_COUNTERS	64

struct counter_set {
	int nr;
	char name[MAX_COUNTERS][48];
	long long val[MAX_COUNTERS];
};

static void counters_read(struct counter_set *cs)
{
	DIR *d = opendir(SHADOW_DIR);
	struct dirent *e;
	char path[320];
	FILE *f;

	cs->nr = 0;
	while (d && (e = readdir(d)) && cs->nr < MAX_COUNTERS) {
		if (e->d_name[0] == '.' || strlen(e->d_name) >= 48)
			continue;
		snprintf(path, sizeof(path), "%s/%s", SHADOW_DIR, e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%lld", &cs->val[cs->nr]) == 1)
			strcpy(cs->name[cs->nr++], e->d_name);
		fclose(f);
	}
	if (d)
		closedir(d);
}

static void counters_print(const struct counter_set *b,
			   const struct counter_set *a)
{
	int i, j;

	for (i = 0; i < a->nr; i++) {
		for (j = 0; j < b->nr && strcmp(b->name[j], a->name[i]); j++)
			;
		if (j < b->nr && a->val[i] != b->val[j])
			printf("# storm-delta %s %lld\n", a->name[i],
			       a->val[i] - b->val[j]);
	}
}

static int number(const char *what, const char *s, long *val)
{
	char *end;

	errno = 0;
	*val = strtol(s, &end, 10);
	if (errno || end == s || *end || *val < 0) {
		fprintf(stderr, "cowctx-storm:1: %s '%s' is not a count\n",
			what, s);
		return -1;
	}
	return 0;
}

static void spawn(enum storm_kind kind, int cpu)
{
	cpu_set_t set;
	pid_t pid;

	if (nr_procs == MAX_PROCS)
		return;
	pid = fork();
	if (pid < 0) {
		storm_error(kind, "fork", errno);
		return;
	}
	if (pid) {
		procs[nr_procs++] = pid;
		return;
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		storm_error(kind, "sched_setaffinity", errno);
	if (kind == STORM_MUTATE)
		storm_mutator(cpu);
	else if (kind == STORM_BULK)
		storm_bulk(cpu);
	else
		storm_walker(kind, cpu);
	_exit(0);
}

/* Reaps every process; those alive GRACE_SECS past the deadline are
 * killed, and the number of processes that did not end cleanly returned.
 */
static int reap(long until)
{
	struct timespec tick = { 0, 100 * 1000 * 1000 };
	int i, status, left = nr_procs, bad = 0;
	struct shadow_counters now;
	double next = 0;

	while (left) {
		pid_t pid = waitpid(-1, &status, WNOHANG);

		if (pid > 0) {
			for (i = 0; i < nr_procs; i++) {
				if (procs[i] != pid)
					continue;
				procs[i] = 0;
				left--;
				if (!WIFEXITED(status) || WEXITSTATUS(status))
					bad++;
			}
			continue;
		}
		if (until && storm_now() >= next && !storm_over()) {
			next = storm_now() + 1;
			shadow_read(&now);
			if (now.compared >= until) {
				printf("# walks_compared reached %lld after %.0f s: stopping\n",
				       now.compared, storm_now() - storm->start);
				storm->deadline = storm_now();
			}
		}
		if (storm_now() > storm->deadline + GRACE_SECS) {
			for (i = 0; i < nr_procs; i++)
				if (procs[i] > 0)
					kill(procs[i], SIGKILL);
			printf("# %d processes still running %d s after the deadline, killed\n",
			       left, GRACE_SECS);
			bad += left;
			while (wait(&status) > 0)
				;
			break;
		}
		nanosleep(&tick, NULL);
	}
	return bad;
}

static int count_nodes(void)
{
	char path[64];
	int n = 0;

	for (;;) {
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d", n);
		if (access(path, F_OK))
			return n;
		n++;
	}
}

int main(int argc, char **argv)
{
	const char *secs_s = argc > 1 ? argv[1] : getenv("STORM_SECS");
	const char *min_s = argc > 2 ? argv[2] : getenv("STORM_MIN_WALKS");
	const char *until_s = argc > 3 ? argv[3] : getenv("STORM_UNTIL");
	struct shadow_counters before, after;
	static struct counter_set all_before, all_after;
	long secs = 30, min_walks = 1, until = 0, errors = 0;
	int cpu, ncpu, k, bad, t = 0;
	long long compared, skipped, mismatches;
	double t0, took;

	if (argc > 4 || (secs_s && number("SECONDS", secs_s, &secs)) ||
	    (min_s && number("MIN_WALKS", min_s, &min_walks)) ||
	    (until_s && number("UNTIL", until_s, &until))) {
		fprintf(stderr, "usage: cowctx-storm [SECONDS [MIN_WALKS [UNTIL]]]\n");
		return 2;
	}
	if (access(IDLE_BITMAP, W_OK)) {
		printf("1..0 # SKIP no page_idle bitmap: %s\n", strerror(errno));
		return 4;
	}
	storm_page_size = sysconf(_SC_PAGESIZE);
	storm = mmap(NULL, sizeof(*storm), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (storm == MAP_FAILED) {
		printf("not ok 1 - mmap: %s\n1..1\n", strerror(errno));
		return 1;
	}
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	storm->nr_nodes = count_nodes();
	shadow_read(&before);
	counters_read(&all_before);
	t0 = storm_now();
	storm->start = t0;
	storm->deadline = t0 + secs;
	fflush(stdout);
	for (cpu = 0; cpu < ncpu; cpu++) {
		spawn(STORM_MUTATE, cpu);
		spawn(STORM_IDLE, cpu);
		spawn(STORM_BULK, cpu);
	}
	if (storm->nr_nodes >= 2)
		spawn(STORM_MIGRATE, 0 % ncpu);
	spawn(STORM_PAGEOUT, 1 % ncpu);
	spawn(STORM_COMPACT, 2 % ncpu);
	bad = reap(until);
	took = storm_now() - t0;
	shadow_read(&after);
	counters_read(&all_after);

	printf("# storm: %d CPUs, %d NUMA nodes, %ld s asked, %.1f s taken, "
	       "%d processes\n", ncpu, storm->nr_nodes, secs, took, nr_procs);
	for (k = 0; k < STORM_NR_KINDS; k++) {
		struct storm_tally *s = &storm->tally[k];

		printf("# %s: %ld rounds, %ld forks, %ld ops/pages, %ld errors%s%s\n",
		       kind_name[k], s->rounds, s->forks, s->ops, s->errors,
		       s->errors ? "; first: " : "", s->first_error);
		errors += s->errors;
	}
	counters_print(&all_before, &all_after);
	printf("%s %d - every storm process ended by itself (%d did not)\n",
	       bad ? "not ok" : "ok", ++t, bad);
	printf("%s %d - no storm syscall failed unexpectedly (%ld did)\n",
	       errors ? "not ok" : "ok", ++t, errors);
	printf("%s %d - both NUMA nodes were migrated between (%d nodes)\n",
	       storm->nr_nodes >= 2 ? "ok" : "not ok", ++t, storm->nr_nodes);
	printf("%s %d - every kind of walker ran\n",
	       storm->tally[STORM_IDLE].ops && storm->tally[STORM_MIGRATE].ops &&
	       storm->tally[STORM_PAGEOUT].ops && storm->tally[STORM_BULK].ops &&
	       storm->tally[STORM_COMPACT].rounds ? "ok" : "not ok", ++t);
	if (shadow_walks(&before, &after) < 0) {
		printf("not ok %d - the shadow counters are readable in %s\n",
		       ++t, SHADOW_DIR);
		printf("1..%d\n", t);
		return 1;
	}
	compared = after.compared - before.compared;
	skipped = after.skipped - before.skipped;
	mismatches = after.mismatches - before.mismatches;
	printf("# storm-walks compared %lld skipped %lld mismatches %lld "
	       "seconds %.1f rate %.0f/s\n", compared, skipped, mismatches, took, took > 0 ? compared / took : 0);
	printf("%s %d - at least %ld walks compared (%lld)\n",
	       compared >= min_walks && compared > 0 ? "ok" : "not ok", ++t,
	       min_walks, compared);
	printf("%s %d - no shadow mismatch (%lld)\n",
	       mismatches ? "not ok" : "ok", ++t, mismatches);
	printf("1..%d\n", t);
	return bad || errors || storm->nr_nodes < 2 ||
	       !storm->tally[STORM_IDLE].ops || !storm->tally[STORM_MIGRATE].ops ||
	       !storm->tally[STORM_PAGEOUT].ops || !storm->tally[STORM_BULK].ops ||
	       !storm->tally[STORM_COMPACT].rounds ||
	       compared < min_walks || !compared || mismatches;
}
