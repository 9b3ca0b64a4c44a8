// SPDX-License-Identifier: GPL-2.0
/*
 * The real-process runner, its snapshots and the tracefs counter,
 * without the model: hand-made scenarios run as real processes and
 * what the kernel then shows is checked against what Linux must do
 * (COW after fork, the zero page, exclusive bits, refusals), and the
 * anon_vma counts of the fan and chain fork shapes against the figures
 * measured in docs/real-kernel.md.
 *
 * Addresses are relative to a base this process leaves free (see
 * kernel_test_base.h): "$100000" is base + 0x100000.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>

#include "kernel/kernel.h"
#include "kernel/runner.h"
#include "kernel/snapshot.h"
#include "kernel/tracefs.h"
#include "kernel/zero_page.h"
#include "scenario/scenario.h"
#include "tap.h"
#include "kernel_test_base.h"

#define X	test_base
#define Y	(test_base + 0x100000)

static struct kpage_files kp = { -1, -1 };

static bool gone(pid_t pid)
{
	char path[64], buf[512], *s;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return true;
	s = fgets(buf, sizeof(buf), f);
	fclose(f);
	s = s ? strrchr(buf, ')') : NULL;
	return s && (s[2] == 'Z' || s[2] == 'X');
}

static pid_t ppid_of(pid_t pid)
{
	char path[64], buf[512], *s;
	FILE *f;
	int ppid = -1;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	s = fgets(buf, sizeof(buf), f);
	fclose(f);
	s = s ? strrchr(buf, ')') : NULL;
	if (s)
		sscanf(s + 2, "%*c %d", &ppid);
	return ppid;
}

static int parse(const char *tmpl, struct scenario *sc)
{
	char *text = at_base(tmpl);
	int ret;

	if (!text)
		return -1;
	ret = scenario_parse_string("test.scn", text, sc);
	free(text);
	return ret;
}

/* Run statements [from, to) of @sc on @r; the first refusal or failure */
static int run(struct krunner *r, const struct scenario *sc, int from,
	       int to, unsigned long *fault)
{
	int i, ret;

	for (i = from; i < to; i++) {
		ret = krunner_exec(r, &sc->stmts[i], fault);
		if (ret) {
			if (ret < 0)
				tap_diag("runner: %s", r->why);
			return ret;
		}
	}
	return 0;
}

static int stmt_index(const struct scenario *sc, int line)
{
	int i;

	for (i = 0; i < sc->nr; i++)
		if (sc->stmts[i].line == line)
			return i;
	return sc->nr;
}

static void test_sharing(void)
{
	static const char text[] =
		"proc A\n"					/* 1 */
		"A mmap $0 16K rw\n"
		"A touch $0 16K write\n"
		"A mmap $100000 8K r\n"
		"A touch $100000 8K read\n"		/* 5 */
		"A fork B\n"
		"B touch $0 4K write\n"
		"check\n"					/* 8 */
		"A exit\n"
		"check\n";					/* 10 */
	struct kproc_snap *a, *b;
	struct kpage *pa, *pb;
	struct scenario sc;
	struct krunner r;
	struct ksnap s;
	char why[256];
	pid_t apid;
	int i;

	if (parse(text, &sc))
		return;
	if (!is_long(krunner_start(&r, "/nonexistent"), 0, "start a zygote"))
		tap_diag("%s", r.why);
	is_long(run(&r, &sc, 0, stmt_index(&sc, 8), NULL), 0,
		"run up to the first check");
	is_long(r.nr_procs, 2, "two live processes");
	if (!is_long(ksnap_take(&r, &kp, &s, why, sizeof(why)), 0, "snapshot"))
		tap_diag("%s", why);
	a = ksnap_find(&s, "A");
	b = ksnap_find(&s, "B");
	ok(a && b && a->pid != b->pid, "A and B are two real processes");
	if (!a || !b)
		goto out;
	ok(a->nr_vmas == 2 && a->vmas[0].start == X &&
	   a->vmas[0].end == X + 16384 &&
	   a->vmas[0].prot == (PROT_READ | PROT_WRITE) &&
	   a->vmas[1].start == Y && a->vmas[1].prot == PROT_READ,
	   "A has exactly its two scenario VMAs");
	ok(b->nr_vmas == 2, "B inherited both");
	pa = ksnap_page(a, X);
	pb = ksnap_page(b, X);
	ok(pa && pb && kpage_pfn(pa) != kpage_pfn(pb),
	   "B's write copied the first page");
	ok(pa && pb && (pa->pm & PM_EXCLUSIVE) && (pb->pm & PM_EXCLUSIVE) &&
	   pa->kcount == 1 && pb->kcount == 1, "each copy exclusive, mapped once");
	for (i = 1; i < 4; i++) {
		pa = ksnap_page(a, X + i * 4096);
		pb = ksnap_page(b, X + i * 4096);
		if (!pa || !pb || kpage_pfn(pa) != kpage_pfn(pb) ||
		    pa->kcount != 2 || (pa->pm & PM_EXCLUSIVE) ||
		    !kpage_flag(pa, KPF_ANON))
			break;
	}
	is_long(i, 4, "the other three pages shared, anon, mapcount 2");
	pa = ksnap_page(a, Y);
	pb = ksnap_page(b, Y);
	if (kzero_page_probe(why, sizeof(why)) == SCN_ZERO_PAGE_ON) {
		ok(pa && kpage_present(pa) && kpage_flag(pa, KPF_ZERO_PAGE),
		   "zero_page=on: read-only touch mapped the zero page");
		ok(pb && !kpage_present(pb),
		   "fork copied no PTE of a VMA without anon_vma");
	} else {
		/* the read gave the VMA an anon_vma: fork shares the page */
		ok(pa && kpage_present(pa) && kpage_flag(pa, KPF_ANON) &&
		   !kpage_flag(pa, KPF_ZERO_PAGE),
		   "zero_page=off: read-only touch allocated an anonymous page");
		ok(pa && pb && kpage_present(pb) &&
		   kpage_pfn(pa) == kpage_pfn(pb) && pa->kcount == 2,
		   "fork shared it: the VMA had an anon_vma");
	}
	apid = a->pid;
	ksnap_free(&s);

	is_long(run(&r, &sc, stmt_index(&sc, 8), sc.nr, NULL), 0,
		"A exits");
	ok(gone(apid), "A's process is gone when exit returns");
	is_long(r.nr_procs, 1, "one live process");
	if (!is_long(ksnap_take(&r, &kp, &s, why, sizeof(why)), 0, "snapshot"))
		tap_diag("%s", why);
	b = ksnap_find(&s, "B");
	for (i = 0; b && i < 4; i++) {
		pb = ksnap_page(b, X + i * 4096);
		if (!pb || pb->kcount != 1 || !(pb->pm & PM_EXCLUSIVE))
			break;
	}
	is_long(i, 4, "all of B's pages exclusive after A's exit");
out:
	ksnap_free(&s);
	krunner_release(&r);
	scenario_free(&sc);
}

static void test_refusals(void)
{
	static const char text[] =
		"proc A\n"
		"A mmap $0 16K r\n"
		"A mmap $2000 16K rw\n"		/* EEXIST */
		"A touch $0 16K write\n"		/* SIGSEGV */
		"A mmap $10000 4K rw\n"
		"A mremap $0 16K 128K\n"		/* ENOMEM */
		"A mprotect $0 64K rw\n";		/* ENOMEM */
	unsigned long fault = 0;
	struct scenario sc;
	struct krunner r;

	if (parse(text, &sc))
		return;
	krunner_start(&r, "/nonexistent");
	run(&r, &sc, 0, 2, NULL);
	is_long(run(&r, &sc, 2, 3, NULL), EEXIST,
		"mmap over a mapping: EEXIST (MAP_FIXED_NOREPLACE)");
	is_long(run(&r, &sc, 3, 4, &fault), EFAULT,
		"write to a read-only mapping: the fault comes back");
	is_long(fault, X, "at the first page");
	run(&r, &sc, 4, 5, NULL);
	is_long(run(&r, &sc, 5, 6, NULL), ENOMEM,
		"mremap growing into a mapping: ENOMEM");
	is_long(run(&r, &sc, 6, 7, NULL), ENOMEM,
		"mprotect over a hole: ENOMEM");
	is_long(r.nr_procs, 1, "the process survived its SIGSEGV");
	krunner_release(&r);
	scenario_free(&sc);
}

static void test_orphans_and_cleanup(void)
{
	static const char text[] =
		"proc A\n"
		"A fork B\n"
		"A exit\n"
		"B fork C\n"
		"C fork D\n"
		"B exit\n";
	struct kproc *bp, *cp;
	struct scenario sc;
	struct krunner r;
	pid_t b, c;

	if (parse(text, &sc))
		return;
	krunner_start(&r, "/nonexistent");
	is_long(run(&r, &sc, 0, 4, NULL), 0, "fork from an orphan");
	bp = krunner_find(&r, "B");
	cp = krunner_find(&r, "C");
	if (!ok(bp && cp, "B and C live")) {
		krunner_release(&r);
		scenario_free(&sc);
		return;
	}
	b = bp->pid;
	c = cp->pid;
	is_long(ppid_of(b), getpid(), "the orphan came to the runner");
	is_long(ppid_of(c), b, "C is B's child");
	is_long(run(&r, &sc, 4, sc.nr, NULL), 0, "the orphan exits");
	ok(gone(b), "and is reaped");
	is_long(ppid_of(c), getpid(), "its child came to the runner");
	krunner_release(&r);
	scenario_free(&sc);
}

static void test_release_kills_all(void)
{
	static const char text[] =
		"proc A\n"
		"A fork B\n"
		"B fork C\n"
		"A exit\n"
		"proc D\n";
	struct scenario sc;
	struct krunner r;
	pid_t pids[8];
	int i, n, alive = 0;

	if (parse(text, &sc))
		return;
	krunner_start(&r, "/nonexistent");
	is_long(run(&r, &sc, 0, sc.nr, NULL), 0, "a tree with an orphan");
	n = r.nr_pids < 8 ? r.nr_pids : 8;
	memcpy(pids, r.pids, n * sizeof(*pids));
	is_long(n, 5, "zygote and four processes were made");
	krunner_release(&r);
	for (i = 0; i < n; i++)
		alive += !gone(pids[i]);
	is_long(alive, 0, "release killed and reaped every one");
	scenario_free(&sc);
}

/*
 * The kernel's live anon_vma objects made by @text's memory statements:
 * the real tree's count less a calibration tree's (same process tree,
 * no memory statements), as kernel/judge.c does.
 */
static int count_objects(const char *text, long *av, long *avc)
{
	struct ktrace_counts counts[2] = { { 0 } };
	struct krunner cal, real;
	struct krunner *const trees[2] = { &cal, &real };
	struct scenario sc;
	struct ktrace t;
	char why[256];
	pid_t pids[2];
	int i, ret = -1;

	if (parse(text, &sc))
		return -1;
	if (ktrace_open(&t, why, sizeof(why))) {
		tap_diag("%s", why);
		scenario_free(&sc);
		return -1;
	}
	krunner_start_many(trees, 2, "/nonexistent");
	pids[0] = cal.zygote.pid;
	pids[1] = real.zygote.pid;
	if (ktrace_start(&t, pids, 2, why, sizeof(why)))
		goto out;
	for (i = 0; i < sc.nr; i++) {
		const struct stmt *st = &sc.stmts[i];

		if ((st->kind == STMT_PROC || st->kind == STMT_FORK ||
		     st->kind == STMT_EXIT) && krunner_exec(&cal, st, NULL))
			goto out;
		if (krunner_exec(&real, st, NULL))
			goto out;
		if (ktrace_drain(&t, trees, counts, 2, why, sizeof(why)))
			goto out;
	}
	*av = ktrace_live_av(&counts[1]) - ktrace_live_av(&counts[0]);
	*avc = ktrace_live_avc(&counts[1]) - ktrace_live_avc(&counts[0]);
	ret = 0;
out:
	if (ret)
		tap_diag("%s / %s / %s", why, cal.why, real.why);
	krunner_release(&cal);
	krunner_release(&real);
	ktrace_close(&t);
	scenario_free(&sc);
	return ret;
}

/* V one-page VMAs with one-page holes, each written once */
static int gap_layout(char *buf, size_t len, int v)
{
	int i, off;

	off = snprintf(buf, len, "proc R\n");
	for (i = 0; i < v; i++)
		off += snprintf(buf + off, len - off,
				"R mmap $%lx 4K rw\nR touch $%lx 4K write\n",
				2UL * i * 4096, 2UL * i * 4096);
	return off;
}

static void test_fork_shapes(void)
{
	const int v = 3, n = 4;
	char text[8192];
	long av = -1, avc = -1;
	int i, off;

	off = gap_layout(text, sizeof(text), v);
	for (i = 0; i < n; i++)
		off += snprintf(text + off, sizeof(text) - off, "R fork F%d\n",
				i);
	is_long(count_objects(text, &av, &avc), 0, "fan counted");
	/* the root's own V, then N anon_vmas and 2N AVCs per root VMA */
	is_long(av, v + n * v, "fan: live anon_vma");
	is_long(avc, v + 2 * n * v, "fan: live anon_vma_chain");

	off = gap_layout(text, sizeof(text), v);
	off += snprintf(text + off, sizeof(text) - off, "R fork C1\n");
	for (i = 1; i < n; i++)
		off += snprintf(text + off, sizeof(text) - off,
				"C%d fork C%d\n", i, i + 1);
	is_long(count_objects(text, &av, &avc), 0, "chain counted");
	is_long(av, v + n * v, "chain: live anon_vma");
	is_long(avc, v + v * n * (n + 3) / 2, "chain: live anon_vma_chain");

	/* no memory statements: nothing left once calibrated */
	is_long(count_objects("proc A\nA fork B\nB fork C\nA exit\n", &av,
			      &avc), 0, "memoryless tree counted");
	ok(av == 0 && avc == 0, "calibration cancels the runner's own VMAs");
}

int main(void)
{
	if (!kernel_tests_can_run())
		return 0;
	if (kpage_open(&kp)) {
		printf("1..0 # SKIP no /proc/kpageflags\n");
		return 0;
	}
	test_sharing();
	test_refusals();
	test_orphans_and_cleanup();
	test_release_kills_all();
	test_fork_shapes();
	kpage_close(&kp);
	return tap_done();
}
