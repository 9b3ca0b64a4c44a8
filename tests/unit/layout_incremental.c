// SPDX-License-Identifier: GPL-2.0
/*
 * The layout check after each statement looks only at the VMAs the
 * statement acted on and their neighbours (scenario/layout.c), so that
 * files of millions of statements replay in seconds. What it must not
 * lose: a difference in that window is caught at once, a difference
 * elsewhere (a backend changing a process that did not act) is caught
 * by the whole check the statements pay for, at most as many
 * statements later as there are VMAs, and by a whole check at once.
 */
#include <string.h>
#include <stdlib.h>

#include <cowctx/mm.h>
#include <cowctx/rmap.h>
#include "scenario/exec.h"
#include "scenario/layout.h"
#include "scenario/scenario.h"
#include "tap.h"

#define B	0x100000000000UL
#define P	PAGE_SIZE

/* A and C, each with 8 VMAs (one page, a hole after each); C writes one */
static const char two_scn[] =
	"proc A\n"
	"A mmap 0x100000000000 4K rw\n"
	"A mmap 0x100000002000 4K rw\n"
	"A mmap 0x100000004000 4K rw\n"
	"A mmap 0x100000006000 4K rw\n"
	"A mmap 0x100000008000 4K rw\n"
	"A mmap 0x10000000a000 4K rw\n"
	"A mmap 0x10000000c000 4K rw\n"
	"A mmap 0x10000000e000 4K rw\n"
	"A touch 0x100000000000 4K read\n"
	"A touch 0x100000004000 4K read\n"
	"proc C\n"
	"C mmap 0x100000000000 4K rw\n"
	"C mmap 0x100000002000 4K rw\n"
	"C mmap 0x100000004000 4K rw\n"
	"C mmap 0x100000006000 4K rw\n"
	"C mmap 0x100000008000 4K rw\n"
	"C mmap 0x10000000a000 4K rw\n"
	"C mmap 0x10000000c000 4K rw\n"
	"C mmap 0x10000000e000 4K rw\n"
	"C touch 0x100000000000 4K write\n";

struct pair {
	struct scenario sc;
	struct exec_state ref, es;
};

/* Runs two_scn on anon_vma (the reference) and on cow_context */
static void pair_setup(struct pair *p)
{
	memset(p, 0, sizeof(*p));
	if (scenario_parse_string("t.scn", two_scn, &p->sc))
		abort();
	p->ref.m = model_create(&anon_vma_rmap_ops);
	p->es.m = model_create(rmap_backend_find("cow_context"));
	if (!p->ref.m || !p->es.m ||
	    scenario_exec(&p->ref, &p->sc, p->ref.m, stderr) ||
	    scenario_exec(&p->es, &p->sc, p->es.m, stderr))
		abort();
}

static void pair_free(struct pair *p)
{
	exec_state_release(&p->ref);
	exec_state_release(&p->es);
	model_destroy(p->ref.m);
	model_destroy(p->es.m);
	scenario_free(&p->sc);
}

static struct vm_area_struct *vma_of(struct exec_state *es, const char *name,
				     unsigned long addr)
{
	return vma_lookup(exec_find_proc(es, name)->mm, addr);
}

/* layout_check_stmt() after @st, which (in this test) changed nothing */
static int check_after(struct pair *p, const struct stmt *st, char **report)
{
	struct layout_watch w;
	size_t size;
	FILE *out = open_memstream(report, &size);
	int ret;

	if (!out)
		abort();
	layout_watch_begin(&w, &p->ref, &p->es, st);
	ret = layout_check_stmt(&w, &p->ref, &p->es, st, out, "t.scn:99");
	fclose(out);
	return ret;
}

static struct stmt stmt(enum stmt_kind kind, const char *proc,
			unsigned long addr, unsigned long len)
{
	struct stmt st = { .kind = kind, .line = 99, .addr = addr,
			   .len = len };

	snprintf(st.proc, sizeof(st.proc), "%s", proc);
	return st;
}

static void test_agree(void)
{
	struct pair p;
	struct stmt st = stmt(STMT_MPROTECT, "A", B + 4 * P, P);
	char *report;

	pair_setup(&p);
	is_long(check_after(&p, &st, &report), 0, "the same layouts agree");
	ok(report && !report[0], "nothing reported");
	free(report);
	is_long(layout_check_full(&p.ref, &p.es, stderr, "t.scn:99"), 0,
		"and agree as a whole");
	pair_free(&p);
}

static void test_window(void)
{
	struct pair p;
	struct stmt st = stmt(STMT_MPROTECT, "A", B + 4 * P, P);
	struct vm_area_struct *vma;
	char *report;

	pair_setup(&p);
	/* the neighbour after the range: a merge's other half */
	vma = vma_of(&p.es, "A", B + 6 * P);
	vma->vm_flags ^= VM_WRITE;
	is_long(check_after(&p, &st, &report), 1,
		"a difference beside the statement's range: caught at once");
	ok(report && strstr(report, "t.scn:99: ") &&
	   strstr(report, "VMA layout of A differs"),
	   "reported at the statement, naming the process");
	free(report);
	vma->vm_flags ^= VM_WRITE;

	vma = vma_of(&p.es, "A", B + 4 * P);
	vma->vm_pgoff++;
	is_long(check_after(&p, &st, &report), 1,
		"a difference in the range: caught at once");
	free(report);
	vma->vm_pgoff--;
	pair_free(&p);
}

static void test_ids_in_window(void)
{
	struct pair p;
	/* the hole after C's written VMA */
	struct stmt st = stmt(STMT_MUNMAP, "C", B + P, P);
	struct vm_area_struct *vma, *vma2;
	unsigned long saved;
	char *report;

	pair_setup(&p);
	/* lost on both sides alike: the layouts agree, the ids do not */
	vma = vma_of(&p.ref, "C", B);
	vma2 = vma_of(&p.es, "C", B);
	saved = vma->anon_vma_id;
	ok(saved && vma2->anon_vma_id == saved,
	   "C's written VMA has an anon_vma_id");
	vma->anon_vma_id = vma2->anon_vma_id = 0;
	is_long(check_after(&p, &st, &report), 1,
		"an id lost beside the range: caught at once");
	ok(report && strstr(report, "anon_vma_id: ") &&
	   strstr(report, "mm C"), "reported as an anon_vma_id error of C");
	free(report);
	vma->anon_vma_id = vma2->anon_vma_id = saved;
	pair_free(&p);
}

static void test_elsewhere(void)
{
	struct pair p;
	struct stmt st = stmt(STMT_TOUCH, "A", B, P);
	struct vm_area_struct *vma;
	unsigned long n, bound;
	char *report = NULL;
	int ret = 0;

	pair_setup(&p);
	/* a backend that changed C while A acted */
	vma = vma_of(&p.es, "C", B + 14 * P);
	vma->vm_flags ^= VM_WRITE;
	is_long(check_after(&p, &st, &report), 0,
		"a touch of A that changed no layout looks at no VMA of C");
	free(report);
	bound = p.es.m->nr_vmas + p.ref.m->nr_vmas;
	for (n = 1; n <= bound && !ret; n++) {
		ret = check_after(&p, &st, &report);
		if (!ret)
			free(report);
	}
	is_long(ret, 1, "caught by a whole check within %lu statements",
		bound);
	ok(report && strstr(report, "VMA layout of C differs"),
	   "which names C");
	free(report);
	{
		FILE *null = fopen("/dev/null", "w");

		is_long(layout_check_full(&p.ref, &p.es, null, "t.scn:99"), 1,
			"a whole check catches it at once");
		fclose(null);
	}

	st = stmt(STMT_MUNMAP, "A", B + 0x40 * P, P);
	is_long(check_after(&p, &st, &report), 0,
		"an unmap far from A's VMAs looks at none of C's");
	free(report);
	vma->vm_flags ^= VM_WRITE;
	pair_free(&p);
}

static void test_touch_changes(void)
{
	struct pair p;
	struct stmt st = stmt(STMT_TOUCH, "A", B + 2 * P, P);
	struct vm_area_struct *vma;
	char *report;

	pair_setup(&p);
	/* the touch gave the VMA its anon state on one side only */
	vma = vma_of(&p.es, "A", B + 2 * P);
	ok(!vma->anon_vma_id, "A's VMAs were only read");
	is_long(check_after(&p, &st, &report), 0, "no change, no report");
	free(report);
	{
		struct layout_watch w;
		size_t size;
		FILE *out = open_memstream(&report, &size);

		layout_watch_begin(&w, &p.ref, &p.es, &st);
		/* what a first write fault does, on the checked side */
		is_long(handle_access(exec_find_proc(&p.es, "A")->mm,
				      B + 2 * P, true), 0, "A writes");
		is_long(layout_check_stmt(&w, &p.ref, &p.es, &st, out,
					  "t.scn:99"), 1,
			"a touch that gave anon state on one side only is caught");
		fclose(out);
	}
	ok(report && strstr(report, "VMA layout of A differs"),
	   "as a layout difference of A");
	free(report);
	pair_free(&p);
}

int main(void)
{
	test_agree();
	test_window();
	test_ids_in_window();
	test_elsewhere();
	test_touch_changes();
	return tap_done();
}
