// SPDX-License-Identifier: GPL-2.0
/*
 * The layout check (scenario/layout.c): a backend instance whose VMA
 * layout leaves Linux's (the anon_vma instance's) is caught at the
 * statement where it does, with both layouts; and the model's
 * anon_vma_ids are checked against the anon_vma backend's real objects.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cowctx/mm.h>
#include <cowctx/rmap.h>
#include "scenario/exec.h"
#include "scenario/layout.h"
#include "scenario/scenario.h"
#include "tap.h"

#define B	0x100000000000UL
#define P	PAGE_SIZE

/* line 3 merges the new page into the first; line 4 grows the result */
static const char merge_scn[] =
	"proc P\n"
	"P mmap 0x100000000000 4K rw\n"
	"P mmap 0x100000001000 4K rw\n"
	"P mremap 0x100000000000 8K 12K\n"
	"P touch 0x100000000000 12K write\n";

static void diag_lines(char *text)
{
	char *line, *save = NULL;

	for (line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save))
		tap_diag("%s", line);
}

/*
 * Run @text on @backend, with its @nth merge refused (0: none), checked
 * against anon_vma's layout. Returns scenario_exec()'s value; what it
 * reported is in *@report (malloc'd).
 */
static int run(const char *backend, const char *text, long nth, char **report)
{
	struct exec_state es = { .layout_ref = &anon_vma_rmap_ops };
	struct scenario sc;
	struct model *m;
	size_t size;
	FILE *out;
	int ret;

	*report = NULL;
	if (scenario_parse_string("t.scn", text, &sc))
		return -1;
	m = model_create(rmap_backend_find(backend));
	out = open_memstream(report, &size);
	if (!m || !out)
		abort();
	m->skip_merge_nth = nth;
	ret = scenario_exec(&es, &sc, m, out);
	fclose(out);
	exec_state_release(&es);
	model_destroy(m);
	scenario_free(&sc);
	return ret;
}

static void test_broken_merge_caught(void)
{
	static const char *const backends[] = { "scan", "cow_context" };
	char *report;
	int i;

	for (i = 0; i < 2; i++) {
		is_long(run(backends[i], merge_scn, 0, &report), 0,
			"%s: Linux's layout at every statement", backends[i]);
		ok(report && !report[0], "%s: nothing reported", backends[i]);
		free(report);

		is_long(run(backends[i], merge_scn, 1, &report), 1,
			"%s with its first merge refused: a layout difference",
			backends[i]);
		ok(report && strstr(report, "t.scn:3: ") &&
		   strstr(report, "differs from anon_vma's"),
		   "%s: reported at the mmap that should have merged",
		   backends[i]);
		/* anon_vma's one VMA, then the broken instance's first one */
		ok(report &&
		   strstr(report, "0x100000000000-0x100000002000 rw-") &&
		   strstr(report, "0x100000000000-0x100000001000 rw-") &&
		   strstr(report, "0x100000001000-0x100000002000 rw-"),
		   "%s: both layouts are printed", backends[i]);
		diag_lines(report);
		free(report);
	}
}

/*
 * The reference backend is not compared with itself: its broken merge
 * shows only as the grow it makes the kernel refuse.
 */
static void test_reference_alone(void)
{
	char *report;

	is_long(run("anon_vma", merge_scn, 1, &report), 2,
		"anon_vma with a merge refused: only the refusal is seen");
	ok(report && strstr(report, "t.scn:4: ") &&
	   !strstr(report, "differs"), "no layout comparison with itself");
	free(report);
}

static struct vm_area_struct *vma_at(struct mm_struct *mm, unsigned long a)
{
	return vma_lookup(mm, a);
}

static void test_anon_vma_ids(void)
{
	struct model *m = model_create(&anon_vma_rmap_ops);
	struct mm_struct *mm = mm_create(m, "P"), *child;
	struct vm_area_struct *a, *c;
	unsigned long saved;

	/* |A|r|C|: two first faults either side of a page: two anon_vmas */
	do_mmap(mm, B, 3 * P, PROT_READ | PROT_WRITE, NULL, 0);
	do_mprotect(mm, B + P, P, PROT_READ);
	handle_access(mm, B, true);
	handle_access(mm, B + 2 * P, true);
	a = vma_at(mm, B);
	c = vma_at(mm, B + 2 * P);
	ok(anon_vma_id_check(m) == NULL, "ids agree with the anon_vmas");
	ok(a->anon_vma_id && c->anon_vma_id &&
	   a->anon_vma_id != c->anon_vma_id, "two anon_vmas, two ids");

	saved = c->anon_vma_id;
	c->anon_vma_id = a->anon_vma_id;
	ok(anon_vma_id_check(m) != NULL,
	   "one id for two anon_vmas is caught");
	c->anon_vma_id = saved;

	is_long(mm_fork(mm, "C", &child), 0, "fork");
	ok(anon_vma_id_check(m) == NULL, "ids agree after fork");
	a = vma_at(child, B);
	ok(a->anon_vma_id & ANON_VMA_ID_FORKED, "a child's VMA is forked");
	a->anon_vma_id &= ~ANON_VMA_ID_FORKED;
	ok(anon_vma_id_check(m) != NULL, "a lost fork bit is caught");
	a->anon_vma_id |= ANON_VMA_ID_FORKED;

	c = vma_at(child, B + P);
	c->anon_vma_id = 42 << 1;
	ok(anon_vma_id_check(m) != NULL,
	   "an id on a VMA without anon state is caught");
	c->anon_vma_id = 0;

	a = vma_at(mm, B);
	vma_set_anon_pgoff(a, vma_anon_pgoff(a) + 1);
	ok(anon_vma_id_check(m) == NULL,
	   "one VMA of an id may have any anonymous offset");
	vma_set_anon_pgoff(a, vma_anon_pgoff(a) - 1);
	model_destroy(m);
}

/* VMAs sharing an id must share their anonymous offsets' difference */
static void test_anon_pgoff_shared(void)
{
	struct model *m = model_create(&anon_vma_rmap_ops);
	struct mm_struct *mm = mm_create(m, "P");
	struct vm_area_struct *a;

	do_mmap(mm, B, 2 * P, PROT_READ | PROT_WRITE, NULL, 0);
	handle_access(mm, B, true);
	do_mprotect(mm, B + P, P, PROT_READ);
	ok(anon_vma_id_check(m) == NULL, "a split keeps the offsets");
	a = vma_at(mm, B + P);
	vma_set_anon_pgoff(a, vma_anon_pgoff(a) + 1);
	ok(anon_vma_id_check(m) != NULL,
	   "a split half with another anonymous offset is caught");
	vma_set_anon_pgoff(a, vma_anon_pgoff(a) - 1);
	model_destroy(m);
}

int main(void)
{
	test_broken_merge_caught();
	test_reference_alone();
	test_anon_vma_ids();
	test_anon_pgoff_shared();
	return tap_done();
}
