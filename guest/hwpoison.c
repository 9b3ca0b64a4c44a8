// SPDX-License-Identifier: GPL-2.0
/*
 * cowctx-hwpoison: memory-failure's collection of a poisoned page's
 * mappings, compared with the COW walk's.
 *
 * collect_procs_anon() reads anon_vma's tree for the processes to signal
 * and does not go through rmap_walk(); patch 0027 compares the (mm,
 * address) pairs it finds with those of a COW walk (debugfs mf_*).
 *
 * The parent faults NR_PAGES pages in two regions, the second moved by
 * mremap() after its first fault (so that its VMA has a remap entry),
 * and forks NR_CHILDREN children, the first of which forks a grandchild:
 * every page is then mapped by the parent, the children and the
 * grandchild, which pause. The parent poisons each page with
 * MADV_HWPOISON (memory_failure(), which collects the processes, then
 * unmaps the page everywhere) and takes the SIGBUS it is sent.
 *
 * Exit 0 when every page was compared, the comparisons held every
 * mapping (mf_mappings grew by NR_PAGES * (NR_CHILDREN + 2)), and
 * neither this comparison nor the shadow check of the unmapping walks
 * reported a mismatch; 1 otherwise; 4 (kselftest's skip) without the
 * counters (a kernel without CONFIG_MEMORY_FAILURE or not booted with
 * cow_context=shadow).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "idle.h"

#define NR_PAGES	8
#define NR_CHILDREN	4
/* every process that maps the pages: parent, children, grandchild */
#define NR_MAPPERS	(NR_CHILDREN + 2)

static volatile sig_atomic_t sigbus;

static void on_sigbus(int sig, siginfo_t *info, void *uc)
{
	(void)sig;
	(void)uc;
	if (info->si_code == BUS_MCEERR_AR || info->si_code == BUS_MCEERR_AO)
		sigbus++;
}

/* A child that maps what the parent mapped, and waits to be killed */
static pid_t mapper(int grandchild)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	if (grandchild && mapper(0) < 0)
		_exit(1);
	for (;;)
		pause();
}

int main(void)
{
	long long compared, mappings, mismatches, shadow_mismatches;
	long page_size = sysconf(_SC_PAGESIZE);
	size_t half = NR_PAGES / 2 * page_size;
	struct sigaction sa = { 0 };
	pid_t pids[NR_CHILDREN];
	char *base, *moved, *to;
	int i, failed = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	compared = shadow_counter("mf_compared");
	mappings = shadow_counter("mf_mappings");
	mismatches = shadow_counter("mf_mismatches");
	shadow_mismatches = shadow_counter("mismatches");
	if (compared < 0 || mappings < 0 || mismatches < 0 ||
	    shadow_mismatches < 0) {
		printf("# hwpoison: SKIP, no cow_context mf_* counters\n");
		return 4;
	}
	base = mmap(NULL, half, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	moved = mmap(NULL, half, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	/* a hole to move into, far from both */
	to = mmap(NULL, 4 * half, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		  -1, 0);
	if (base == MAP_FAILED || moved == MAP_FAILED || to == MAP_FAILED) {
		printf("# hwpoison: mmap: %s\n", strerror(errno));
		return 1;
	}
	memset(base, 'h', half);
	memset(moved, 'm', half);
	moved = mremap(moved, half, half, MREMAP_MAYMOVE | MREMAP_FIXED,
		       to + 2 * half);
	if (moved == MAP_FAILED) {
		printf("# hwpoison: mremap: %s\n", strerror(errno));
		return 1;
	}
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGBUS, &sa, NULL);
	for (i = 0; i < NR_CHILDREN; i++) {
		pids[i] = mapper(i == 0);
		if (pids[i] < 0) {
			printf("# hwpoison: fork: %s\n", strerror(errno));
			while (i--)
				kill(pids[i], SIGKILL);
			return 1;
		}
	}
	/* the grandchild forks after its parent's fork returns: let it */
	usleep(200 * 1000);
	for (i = 0; i < NR_PAGES; i++) {
		char *p = (i < NR_PAGES / 2 ? base : moved) +
			  (i % (NR_PAGES / 2)) * page_size;

		if (madvise(p, page_size, MADV_HWPOISON)) {
			printf("# hwpoison: MADV_HWPOISON: %s\n",
			       strerror(errno));
			failed = 1;
			break;
		}
	}
	for (i = 0; i < NR_CHILDREN; i++)
		kill(pids[i], SIGKILL);
	while (wait(NULL) > 0)
		;
	compared = shadow_counter("mf_compared") - compared;
	mappings = shadow_counter("mf_mappings") - mappings;
	mismatches = shadow_counter("mf_mismatches") - mismatches;
	shadow_mismatches = shadow_counter("mismatches") - shadow_mismatches;
	printf("# hwpoison: %d pages poisoned, %d SIGBUS, %lld collections compared holding %lld mappings; %lld and %lld mismatches\n",
	       NR_PAGES, (int)sigbus, compared, mappings, mismatches,
	       shadow_mismatches);
	printf("%s 1 - every poisoned page's collection compared: %lld of %d\n",
	       !failed && compared == NR_PAGES ? "ok" : "not ok", compared,
	       NR_PAGES);
	failed |= compared != NR_PAGES;
	printf("%s 2 - they held every mapping: %lld of %d\n",
	       mappings == NR_PAGES * NR_MAPPERS ? "ok" : "not ok", mappings,
	       NR_PAGES * NR_MAPPERS);
	failed |= mappings != NR_PAGES * NR_MAPPERS;
	printf("%s 3 - no mismatch of the collection or of the unmapping walks: %lld, %lld\n",
	       mismatches || shadow_mismatches ? "not ok" : "ok", mismatches,
	       shadow_mismatches);
	failed |= mismatches || shadow_mismatches;
	printf("1..3\n");
	return failed;
}
