// SPDX-License-Identifier: GPL-2.0
/*
 * cowctx-backlog: walks that overlap without pause, and the splices they
 * hold off.
 *
 * While a walk is in a tree, no context is spliced out of it: a splice
 * waits on the tree root's list and the last walk to leave makes it
 * (patches/0019). Walks that overlap without pause would hold every
 * splice off for as long; patch 0026 bounds the list: while it holds
 * splice_backlog_max contexts, a walk waits, before it enters, for the
 * last walk in the tree to make the splices.
 *
 * NR_WALKERS threads of this process mark its NR_PAGES pages idle round
 * and round (each mark a walk of the page's folio in this process's
 * tree), every walk pausing DWELL_US in the tree (debugfs
 * debug_walk_dwell_us), so that some walk is always in the tree, while
 * the main thread forks NR_FORKS children that exit at once: each exit
 * is a splice in the tree. The pages are MADV_DONTFORK: the forks must
 * not take their anon_vma's lock, under which shadow's walks run. The
 * run is made twice, with no bound and with a bound of BOUND, each
 * measuring the longest list (splices_waiting_max, reset first). Without the bound the walks hold the exits off
 * (test 1: the list grew past 4 * BOUND, so the run does what it is
 * for); with it, the list stays near the bound (test 2: at most 2 *
 * BOUND: walks already in the tree end, and exits meanwhile still join
 * the list) and walks waited for it (test 3).
 *
 * Meanwhile a thread asks memory.reclaim of this process's memory
 * cgroup without pause, and a child of it, in the same tree, keeps
 * writing NR_TOUCHED pages of its own: reclaim's folio_referenced()
 * walks them, and only tries, so at the bound it must give up rather
 * than wait (test 4: walks_gave_up_backlog grew with the bound, not
 * without it). This process is mlockall()ed, so that reclaim takes
 * nothing from the walkers and their pages stay where they mark them.
 * Once the walks stop, every splice is made (test 5: contexts_live back
 * within SLACK of where it was), and the shadow check and the count
 * oracle found nothing wrong in any walk (test 6).
 *
 * TAP on stdout; exit 0 when every check passed, 1 otherwise, 4
 * (kselftest's skip) without page_idle or the debugfs knobs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "idle.h"

#define NR_PAGES	8
#define NR_WALKERS	8
#define NR_FORKS	200
#define DWELL_US	"10000"
#define BOUND		8
#define NR_TOUCHED	256
#define STACK_SIZE	(256 * 1024)
/* contexts not yet dropped by a CPU's lazy TLB or mmput_async() */
#define SLACK		16
#define SETTLE_MS	5000
#define CGDIR		CGROUP_ROOT "/cowctx-backlog"

static long page_size;
static uint64_t pfn[NR_PAGES];
static volatile int stop;
/* the threads' stacks, MADV_DONTFORK: see thread_start() */
static char *stacks;

struct run {
	long long waiting_max;	/* the longest list of held-off splices */
	long long waited;	/* walks that waited for the list */
	long long gave_up;	/* try-walks that gave up at the bound */
	long reclaims;		/* memory.reclaim writes */
	long walks;		/* marks the walkers made */
	int forks;
};

static void *walker(void *arg)
{
	long *walks = arg;

	*walks = idle_mark_until(pfn, NR_PAGES, &stop);
	return NULL;
}

/* memory.reclaim of this process's cgroup, until stop: the writes */
static void *reclaimer(void *arg)
{
	long *reclaims = arg;

	while (!stop) {
		/* fails (EAGAIN) when less could be reclaimed: asked again */
		write_knob(CGDIR "/memory.reclaim", "1M");
		(*reclaims)++;
	}
	return NULL;
}

/* A child that keeps its own pages in memory for reclaim to walk */
static pid_t toucher(void)
{
	pid_t pid = fork();
	char *p;
	long i;

	if (pid)
		return pid;
	p = mmap(NULL, NR_TOUCHED * page_size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		_exit(1);
	for (;;) {
		for (i = 0; i < NR_TOUCHED; i++)
			p[i * page_size]++;
		usleep(10 * 1000);
	}
}

static void leave_cgroup(void)
{
	char pid[32];

	snprintf(pid, sizeof(pid), "%d", getpid());
	write_knob(CGROUP_ROOT "/cgroup.procs", pid);
	rmdir(CGDIR);
}

/*
 * Thread @i, on a stack of its own that forks do not copy. Each fork
 * write-protects what it copies and write-locks every VMA while it
 * copies: a walker that wrote to a copied stack between two walks would
 * wait there for the fork, out of the tree, until all had, and the
 * tree would drain at every fork.
 */
static int thread_start(pthread_t *thread, int i, void *(*fn)(void *),
			void *arg)
{
	pthread_attr_t attr;
	int ret;

	if (pthread_attr_init(&attr))
		return -1;
	ret = pthread_attr_setstack(&attr, stacks + i * STACK_SIZE,
				    STACK_SIZE) ||
	      pthread_create(thread, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	return ret ? -1 : 0;
}

static int knob(const char *name, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%s", SHADOW_DIR, name);
	if (write_knob(path, val)) {
		printf("# backlog: cannot write %s to %s\n", val, path);
		return -1;
	}
	return 0;
}

/* One run with the bound @bound ("0": none): 0, or -1 */
static int run(const char *bound, struct run *r)
{
	long walks[NR_WALKERS] = { 0 };
	pthread_t thread[NR_WALKERS], reclaim;
	int i, n = 0, ret = 0;
	pid_t pid;

	if (knob("splice_backlog_max", bound) ||
	    knob("splices_waiting_max", "0"))
		return -1;
	r->waited = shadow_counter("walks_waited_backlog");
	r->gave_up = shadow_counter("walks_gave_up_backlog");
	r->reclaims = 0;
	stop = 0;
	for (n = 0; n < NR_WALKERS; n++)
		if (thread_start(&thread[n], n, walker, &walks[n])) {
			printf("# backlog: pthread_create failed\n");
			ret = -1;
			break;
		}
	if (!ret && thread_start(&reclaim, NR_WALKERS, reclaimer,
				 &r->reclaims)) {
		printf("# backlog: pthread_create failed\n");
		ret = -1;
	}
	/* let the walkers fill the tree before the first exit */
	usleep(100 * 1000);
	for (r->forks = 0; !ret && r->forks < NR_FORKS; r->forks++) {
		pid = fork();
		if (pid == 0)
			_exit(0);
		if (pid < 0 || waitpid(pid, NULL, 0) != pid) {
			printf("# backlog: fork: %s\n", strerror(errno));
			ret = -1;
		}
	}
	stop = 1;
	r->walks = 0;
	for (i = 0; i < n; i++) {
		pthread_join(thread[i], NULL);
		r->walks += walks[i];
	}
	if (n == NR_WALKERS && !ret)
		pthread_join(reclaim, NULL);
	r->waiting_max = shadow_counter("splices_waiting_max");
	r->waited = shadow_counter("walks_waited_backlog") - r->waited;
	r->gave_up = shadow_counter("walks_gave_up_backlog") - r->gave_up;
	printf("# backlog: bound %s: %d exits, %ld walks asked, longest list of held-off splices %lld, %lld walks waited for it, %lld try-walks gave up (%ld reclaims)\n",
	       bound, r->forks, r->walks, r->waiting_max, r->waited,
	       r->gave_up, r->reclaims);
	return ret;
}

/* contexts_live, once it is within SLACK of @before or SETTLE_MS passed */
static long long settled_live(long long before)
{
	long long live = shadow_counter("contexts_live");
	int ms;

	for (ms = 0; live > before + SLACK && ms < SETTLE_MS; ms += 100) {
		usleep(100 * 1000);
		live = shadow_counter("contexts_live");
	}
	return live;
}

int main(void)
{
	long long old_bound, live_before, live, mismatches, count_mismatches;
	struct run none = { 0 }, bounded = { 0 };
	char *base, val[32];
	int failed, ok;
	pid_t touch;

	setvbuf(stdout, NULL, _IOLBF, 0);
	page_size = sysconf(_SC_PAGESIZE);
	old_bound = read_knob(SHADOW_DIR "/splice_backlog_max");
	mismatches = shadow_counter("mismatches");
	count_mismatches = shadow_counter("verify_count_mismatches");
	live_before = shadow_counter("contexts_live");
	if (access(IDLE_BITMAP, W_OK) || old_bound < 0 || mismatches < 0 ||
	    count_mismatches < 0 || live_before < 0 ||
	    access(SHADOW_DIR "/debug_walk_dwell_us", W_OK)) {
		printf("# backlog: SKIP, no page_idle bitmap or no cow_context knobs\n");
		return 4;
	}
	base = mmap(NULL, NR_PAGES * page_size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED) {
		printf("# backlog: mmap: %s\n", strerror(errno));
		return 1;
	}
	memset(base, 'b', NR_PAGES * page_size);
	stacks = mmap(NULL, (NR_WALKERS + 1) * STACK_SIZE,
		      PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		      0);
	if (stacks == MAP_FAILED ||
	    madvise(stacks, (NR_WALKERS + 1) * STACK_SIZE, MADV_DONTFORK)) {
		printf("# backlog: stacks: %s\n", strerror(errno));
		return 1;
	}
	if (memcg_enter(CGDIR) || mlockall(MCL_CURRENT | MCL_FUTURE)) {
		printf("# backlog: memory cgroup or mlockall: %s\n",
		       strerror(errno));
		return 1;
	}
	/*
	 * Not copied into the children: a fork would take the pages'
	 * anon_vma lock for write, and the shadow check walks under it for
	 * read, so each fork would make the walks pause, and drain the list.
	 */
	if (madvise(base, NR_PAGES * page_size, MADV_DONTFORK)) {
		printf("# backlog: MADV_DONTFORK: %s\n", strerror(errno));
		return 1;
	}
	if (self_pfns(base, NR_PAGES, page_size, pfn) != NR_PAGES ||
	    lru_drain_all()) {
		printf("# backlog: pagemap or drop_caches failed\n");
		return 1;
	}
	touch = toucher();
	failed = touch < 0 || knob("debug_walk_dwell_us", DWELL_US);
	snprintf(val, sizeof(val), "%d", BOUND);
	if (!failed)
		failed = run("0", &none) || run(val, &bounded);
	knob("debug_walk_dwell_us", "0");
	if (touch > 0) {
		kill(touch, SIGKILL);
		waitpid(touch, NULL, 0);
	}
	snprintf(val, sizeof(val), "%lld", old_bound);
	knob("splice_backlog_max", val);
	leave_cgroup();
	live = settled_live(live_before);
	mismatches = shadow_counter("mismatches") - mismatches;
	count_mismatches = shadow_counter("verify_count_mismatches") -
			   count_mismatches;

	ok = !failed && none.waiting_max > 4 * BOUND;
	printf("%s 1 - without a bound the walks held the splices off: longest list %lld of %d exits (more than %d)\n",
	       ok ? "ok" : "not ok", none.waiting_max, none.forks, 4 * BOUND);
	failed |= !ok;
	ok = bounded.waiting_max > 0 && bounded.waiting_max <= 2 * BOUND;
	printf("%s 2 - with a bound of %d the list stayed near it: longest %lld (at most %d)\n",
	       ok ? "ok" : "not ok", BOUND, bounded.waiting_max, 2 * BOUND);
	failed |= !ok;
	ok = bounded.waited > 0;
	printf("%s 3 - walks waited for the splices: %lld\n",
	       ok ? "ok" : "not ok", bounded.waited);
	failed |= !ok;
	ok = !none.gave_up && bounded.gave_up > 0;
	printf("%s 4 - reclaim's try-walks gave up at the bound, and only there: %lld, %lld without it\n",
	       ok ? "ok" : "not ok", bounded.gave_up, none.gave_up);
	failed |= !ok;
	ok = live <= live_before + SLACK;
	printf("%s 5 - every held-off splice was made once the walks stopped: contexts_live %lld, %lld before\n",
	       ok ? "ok" : "not ok", live, live_before);
	failed |= !ok;
	ok = !mismatches && !count_mismatches;
	printf("%s 6 - no shadow or count mismatch: %lld, %lld\n",
	       ok ? "ok" : "not ok", mismatches, count_mismatches);
	failed |= !ok;
	printf("1..6\n");
	return failed;
}
