// SPDX-License-Identifier: GPL-2.0
/*
 * cowctx-generations [N]: a daemon that re-forks itself and exits, for N
 * generations (default 200), in the guest. The first generation faults
 * a region; each forks its successor and exits, so the last one maps the
 * first one's folios, whose COW context is that of an mm long gone. With
 * no splicing, every exited generation's context would stay, each
 * pinned by its child, and every walk of those folios would step through
 * all of them. The test reads debugfs cow_context/contexts_live before
 * and with the last generation alive: at most SLACK more (the first
 * generation's context, which its folios keep; the last one's; mms not
 * yet dropped by a CPU's lazy TLB). Then the last generation walks every
 * page through the page_idle bitmap (under cow_context=shadow both
 * reverse maps are compared: the COW walk starts at the first ancestor
 * still in the tree, this process's context) and reads the idle bits
 * back.
 *
 * The generations' parents exit, so this process takes them as a child
 * subreaper and reaps each. TAP on stdout; exit 0 when every check
 * passed, 1 otherwise, 2 on a bad argument, 4 (kselftest's skip) without
 * page_idle or the debugfs counters.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "idle.h"

#define NR_PAGES	64
#define ROUNDS		3
/* the first generation's context, the last's, and lazy TLB stragglers */
#define SLACK		8

static long page_size;

/* Blocks until the other end of @fd is closed. */
static int wait_closed(int fd)
{
	char c;

	return read(fd, &c, 1) == 0 ? 0 : -1;
}

/*
 * The generations, in the first one's child: fault, then fork and exit
 * @n times. The last says it is ready on @ready, waits for @go to close,
 * walks, and exits with its result (0 ok, 1 failed).
 */
static void generations(long n, int ready, int go, long *confirmed)
{
	size_t len = NR_PAGES * page_size;
	char *base;
	long gen;
	pid_t pid;

	base = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED)
		_exit(1);
	memset(base, 'g', len);
	for (gen = 1; gen <= n; gen++) {
		pid = fork();
		if (pid < 0)
			_exit(1);
		if (pid)
			_exit(0);
	}
	if (lru_drain_all() || write(ready, "r", 1) != 1 || wait_closed(go))
		_exit(1);
	*confirmed = idle_walk_range("last generation", base, len, page_size,
				     ROUNDS);
	fflush(stdout);
	_exit(*confirmed < 0);
}

static int number(const char *s, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	return errno || end == s || *end || *v < 1;
}

int main(int argc, char **argv)
{
	long n = 200, *confirmed, reaped = 0, before, with;
	int ready[2], go[2], status, failed = 0, last_ok = 0;
	struct shadow_counters s0, s1;
	long long seen;
	char c;

	if (argc > 2 || (argc == 2 && number(argv[1], &n))) {
		fprintf(stderr, "usage: cowctx-generations [N]\n");
		return 2;
	}
	page_size = sysconf(_SC_PAGESIZE);
	if (access(IDLE_BITMAP, W_OK)) {
		printf("1..0 # SKIP no page_idle bitmap: %s\n", strerror(errno));
		return 4;
	}
	before = shadow_counter("contexts_live");
	if (before < 0) {
		printf("1..0 # SKIP no %s/contexts_live\n", SHADOW_DIR);
		return 4;
	}
	confirmed = mmap(NULL, sizeof(*confirmed), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (confirmed == MAP_FAILED || pipe(ready) || pipe(go) ||
	    prctl(PR_SET_CHILD_SUBREAPER, 1)) {
		printf("not ok 1 - set-up: %s\n1..1\n", strerror(errno));
		return 1;
	}
	fflush(stdout);
	switch (fork()) {
	case -1:
		printf("not ok 1 - fork: %s\n1..1\n", strerror(errno));
		return 1;
	case 0:
		close(ready[0]);
		close(go[1]);
		generations(n, ready[1], go[0], confirmed);
	}
	close(ready[1]);
	close(go[0]);
	/* every generation but the last exits; each comes back to us */
	while (reaped < n && wait(&status) > 0) {
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			failed = 1;
		reaped++;
	}
	if (read(ready[0], &c, 1) != 1)
		failed = 1;
	with = shadow_counter("contexts_live");
	printf("# generations: %ld; contexts live %ld before, %ld with the last; contexts spliced %lld\n",
	       n, before, with, shadow_counter("contexts_spliced"));
	printf("%s 1 - %ld generations forked and exited (%ld reaped)\n",
	       failed || reaped != n ? "not ok" : "ok", n, reaped);
	printf("%s 2 - contexts live: %ld before, %ld with the last generation, at most %d more\n",
	       with >= 0 && with - before <= SLACK ? "ok" : "not ok", before,
	       with, SLACK);
	shadow_read(&s0);
	close(go[1]);
	if (wait(&status) > 0 && WIFEXITED(status) && !WEXITSTATUS(status))
		last_ok = 1;
	shadow_read(&s1);
	printf("%s 3 - the last generation's walks confirmed by the idle bit (%ld)\n",
	       last_ok ? "ok" : "not ok", *confirmed);
	/* each confirmed walk was a write and a read of the bitmap */
	seen = shadow_walks(&s0, &s1);
	printf("%s 4 - the shadow check saw them: %lld walks, at least %ld\n",
	       last_ok && seen >= 2 * *confirmed ? "ok" : "not ok", seen,
	       2 * *confirmed);
	printf("%s 5 - no shadow mismatch (%lld)\n",
	       s1.mismatches == s0.mismatches ? "ok" : "not ok",
	       s1.mismatches - s0.mismatches);
	printf("1..5\n");
	return failed || reaped != n || with < 0 || with - before > SLACK ||
	       !last_ok || seen < 2 * *confirmed ||
	       s1.mismatches != s0.mismatches;
}
