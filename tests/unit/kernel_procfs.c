// SPDX-License-Identifier: GPL-2.0
/*
 * The readers of kernel/procfs.c and the trace line parser, on this
 * process's own memory: maps/smaps boundaries, protections and
 * VmFlags; pagemap presence, PFNs and the exclusive bit; kpageflags'
 * zero page and anonymous pages; kpagecount of a page shared by fork.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "kernel/procfs.h"
#include "kernel/tracefs.h"
#include "kernel/zero_page.h"
#include "tap.h"

static const struct kvma *find_vma(const struct kvma *v, int nr,
				   unsigned long addr)
{
	int i;

	for (i = 0; i < nr; i++)
		if (v[i].start <= addr && addr < v[i].end)
			return &v[i];
	return NULL;
}

static void test_vmas(void)
{
	/* PROT_NONE guard pages on both sides: no merge with neighbours */
	char *g = mmap(NULL, 6 * 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	char *p = g + 4096;
	const struct kvma *a, *b;
	struct kvma *v;
	int nr, err;

	if (!ok(g != MAP_FAILED, "mmap a test region"))
		return;
	ok(!mprotect(p, 4 * 4096, PROT_READ | PROT_WRITE), "open it up");
	/* a split into rw | r | rw (dontfork) that can't merge back */
	ok(!mprotect(p + 4096, 4096, PROT_READ), "mprotect the second page");
	ok(!madvise(p + 2 * 4096, 2 * 4096, MADV_DONTFORK),
	   "madvise dontfork the last two pages");
	err = proc_read_vmas(getpid(), true, &v, &nr);
	if (!is_long(err, 0, "read /proc/self/smaps"))
		return;
	a = find_vma(v, nr, (unsigned long)p);
	b = find_vma(v, nr, (unsigned long)p + 4096);
	ok(a && a->start == (unsigned long)p &&
	   a->end == (unsigned long)p + 4096, "first page is a VMA alone");
	ok(a && a->prot == (PROT_READ | PROT_WRITE) && !a->shared &&
	   !a->path[0], "rw-p anonymous");
	ok(a && a->has_vmflags && !a->dontcopy && !a->wipeonfork,
	   "VmFlags read: no dc");
	ok(b && b->start == (unsigned long)p + 4096 &&
	   b->end == (unsigned long)p + 2 * 4096 && b->prot == PROT_READ,
	   "second page r--");
	b = find_vma(v, nr, (unsigned long)p + 2 * 4096);
	ok(b && b->end == (unsigned long)p + 4 * 4096 && b->dontcopy,
	   "last two pages carry dc");
	free(v);
	ok(!madvise(p + 2 * 4096, 2 * 4096, MADV_WIPEONFORK),
	   "madvise wipeonfork");
	err = proc_read_vmas(getpid(), false, &v, &nr);
	is_long(err, 0, "read /proc/self/maps");
	b = err ? NULL : find_vma(v, nr, (unsigned long)p + 2 * 4096);
	ok(b && !b->has_vmflags, "maps has no VmFlags");
	if (!err)
		free(v);
	err = proc_read_vmas(getpid(), true, &v, &nr);
	b = err ? NULL : find_vma(v, nr, (unsigned long)p + 2 * 4096);
	ok(b && b->wipeonfork && b->dontcopy, "wf and dc together");
	if (!err)
		free(v);
	munmap(g, 6 * 4096);
	is_long(proc_read_vmas(-1, true, &v, &nr), -ENOENT,
		"no such process: -ENOENT");
}

static void test_pages(bool root)
{
	char *p = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct kpage_files kp = { -1, -1 };
	uint64_t pm[3], flags, count;
	char why[256] = "";
	int fd, pipefd[2];
	pid_t child;
	char c;

	if (!ok(p != MAP_FAILED, "mmap three pages"))
		return;
	prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
	p[0] = 1;
	(void)*(volatile char *)(p + 4096);
	fd = proc_pagemap_open(getpid());
	ok(fd >= 0, "open own pagemap");
	is_long(proc_pagemap_read(fd, (unsigned long)p, 3, pm), 0,
		"read three entries");
	ok(pm[0] & PM_PRESENT, "written page present");
	ok(pm[1] & PM_PRESENT, "read page present");
	ok(!(pm[2] & PM_PRESENT), "untouched page not present");
	if (!root) {
		printf("# not root: PFNs and kpageflags not checked\n");
		close(fd);
		munmap(p, 3 * 4096);
		return;
	}
	ok(pm[0] & PM_EXCLUSIVE, "written page exclusive");
	ok((pm[0] & PM_PFN_MASK) != 0, "real PFN shown to root");
	is_long(kpage_open(&kp), 0, "open kpageflags/kpagecount");
	is_long(kpage_read(&kp, pm[0] & PM_PFN_MASK, &flags, &count), 0,
		"read the written page's flags");
	ok((flags >> KPF_ANON) & 1, "written page is anonymous");
	ok(!((flags >> KPF_ZERO_PAGE) & 1), "and not the zero page");
	is_long(count, 1, "mapped once");
	kpage_read(&kp, pm[1] & PM_PFN_MASK, &flags, &count);
	/* which, the kernel decides: the probe's answer, held to both bits */
	if (kzero_page_probe(why, sizeof(why)) == SCN_ZERO_PAGE_ON) {
		ok((flags >> KPF_ZERO_PAGE) & 1,
		   "zero_page=on: read fault maps the zero page");
		ok(!(pm[1] & PM_EXCLUSIVE), "zero page never exclusive");
	} else {
		ok(((flags >> KPF_ANON) & 1) &&
		   !((flags >> KPF_ZERO_PAGE) & 1),
		   "zero_page=off (%s): read fault allocates an anonymous page",
		   why[0] ? why : "probed");
		ok(pm[1] & PM_EXCLUSIVE, "exclusive, as a written page");
	}

	/* a paused child shares the written page: mapcount 2 */
	if (pipe(pipefd))
		return;
	child = fork();
	if (child == 0) {
		close(pipefd[1]);
		if (read(pipefd[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(pipefd[0]);
	proc_pagemap_read(fd, (unsigned long)p, 1, pm);
	kpage_read(&kp, pm[0] & PM_PFN_MASK, &flags, &count);
	is_long(count, 2, "after fork the page is mapped twice");
	ok(!(pm[0] & PM_EXCLUSIVE), "and no longer exclusive");
	{
		int cfd = proc_pagemap_open(child);
		uint64_t cpm = 0;

		ok(cfd >= 0 && !proc_pagemap_read(cfd, (unsigned long)p, 1,
						  &cpm) &&
		   (cpm & PM_PFN_MASK) == (pm[0] & PM_PFN_MASK),
		   "the paused child's pagemap shows the same PFN");
		if (cfd >= 0)
			close(cfd);
	}
	if (write(pipefd[1], "x", 1) != 1)
		kill(child, SIGKILL);
	close(pipefd[1]);
	waitpid(child, NULL, 0);
	kpage_close(&kp);
	close(fd);
	munmap(p, 3 * 4096);
}

static void test_trace_lines(void)
{
	char name[32], site[64];
	bool is_free;
	pid_t pid;

	is_long(ktrace_parse_line("     cowctx-agent-8203    [001] .....  2972.944266: kmem_cache_alloc: call_site=anon_vma_clone+0x66/0x1e0 ptr=0000000062a5d73c name=anon_vma_chain bytes_req=64 bytes_alloc=64 gfp_flags=GFP_NOWAIT node=-1 accounted=true",
				  &pid, &is_free, name, sizeof(name), site,
				  sizeof(site)), 0, "parse an alloc line");
	is_long(pid, 8203, "its pid, after a comm with a dash");
	ok(!is_free && !strcmp(name, "anon_vma_chain") &&
	   !strcmp(site, "anon_vma_clone"), "alloc, cache, call site");
	is_long(ktrace_parse_line(" my prog [x]-17 [000] d..1. 1.000001: kmem_cache_free: call_site=__put_anon_vma+0x4c/0xa0 ptr=00000000deadbeef name=anon_vma",
				  &pid, &is_free, name, sizeof(name), site,
				  sizeof(site)), 0,
		"parse a free line whose comm has blanks and brackets");
	ok(pid == 17 && is_free && !strcmp(name, "anon_vma") &&
	   !strcmp(site, "__put_anon_vma"), "free of an anon_vma");
	ok(ktrace_parse_line("CPU:1 [LOST 23 EVENTS]", &pid, &is_free, name,
			     sizeof(name), site, sizeof(site)) < 0,
	   "a lost-events line is not an event");
	ok(ktrace_parse_line("     x-12 [000] ..... 1.0: sched_switch: prev=a",
			     &pid, &is_free, name, sizeof(name), site,
			     sizeof(site)) < 0, "another event is refused");
}

int main(void)
{
	bool root = geteuid() == 0;

	test_vmas();
	test_pages(root);
	test_trace_lines();
	return tap_done();
}
