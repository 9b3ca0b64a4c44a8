// SPDX-License-Identifier: GPL-2.0
/*
 * The zero page as a property of the modelled kernel: stock x86-64
 * Linux maps the shared zero page on a read fault of untouched private
 * anonymous memory; a kernel that forbids it (mm_forbids_zeropage())
 * allocates an anonymous folio and the VMA's reverse-map state there,
 * as do_anonymous_page() does for a write. Both modes on every backend,
 * each walk held to the page-table oracle; the `kernel zero_page=`
 * statement and --zero-page's rule; the real-kernel probe's decision
 * from a pagemap entry and kpageflags. Runs on any machine.
 */
#include <stdio.h>
#include <string.h>

#include <cowctx/mm.h>
#include <cowctx/rmap.h>
#include "kernel/procfs.h"
#include "kernel/zero_page.h"
#include "scenario/check.h"
#include "scenario/exec.h"
#include "tap.h"

#define B	0x100000000000UL
#define P	PAGE_SIZE

static long live(struct model *m, const char *name)
{
	int t;

	for (t = 0; t < m->acct.nr_types; t++)
		if (!strcmp(m->acct.type[t].name, name))
			return m->acct.type[t].live;
	return 0;
}

static struct folio *folio_at(struct mm_struct *mm, unsigned long addr)
{
	pte_t *ptep = pte_lookup(mm, addr);

	return ptep && pte_present(*ptep) ? ptep->folio : NULL;
}

static bool oracle_agrees(struct model *m)
{
	struct check_stats st = { .max_report = 5 };

	return !model_check(m, &st, stderr, "zero_page") && !st.mismatches;
}

/* A read of untouched memory, in each mode, on backend @ops */
static void test_read(const struct rmap_ops *ops, bool forbids)
{
	const char *mode = forbids ? "off" : "on";
	struct model *m = model_create(ops);
	struct mm_struct *mm, *child = NULL;
	struct vm_area_struct *vma;
	struct folio *f;
	pte_t *ptep;

	if (!m || !(mm = mm_create(m, "P"))) {
		ok(0, "%s: model", ops->name);
		model_destroy(m);
		return;
	}
	m->forbids_zero_page = forbids;
	do_mmap(mm, B, 4 * P, PROT_READ | PROT_WRITE, NULL, 0);
	do_mmap(mm, B + 8 * P, 2 * P, PROT_READ, NULL, 0);
	is_long(handle_access(mm, B, false), 0, "%s zero_page=%s: read",
		ops->name, mode);
	vma = vma_lookup(mm, B);
	f = folio_at(mm, B);
	if (!forbids) {
		ok(f == &m->zero_folio && !vma->anon_vma &&
		   !m->nr_anon_folios && !live(m, "anon_vma"),
		   "%s zero_page=on: the read maps the zero page, no anonymous state",
		   ops->name);
	} else {
		ptep = pte_lookup(mm, B);
		ok(f && f != &m->zero_folio && folio_test_anon(f) &&
		   folio_test_flag(f, PG_anon_exclusive) && vma->anon_vma &&
		   m->nr_anon_folios == 1,
		   "%s zero_page=off: the read allocates an exclusive anonymous folio and the VMA's anonymous state",
		   ops->name);
		ok(ptep && pte_write(*ptep) && (ptep->flags & _PAGE_DIRTY),
		   "%s zero_page=off: writable and dirty in a writable VMA, as Linux maps it",
		   ops->name);
		is_long(handle_access(mm, B, true), 0, "%s: then a write",
			ops->name);
		ok(folio_at(mm, B) == f && m->nr_anon_folios == 1,
		   "%s zero_page=off: the write takes the same folio, no copy",
		   ops->name);
	}
	is_long(handle_access(mm, B + 8 * P, false), 0,
		"%s zero_page=%s: read of a read-only VMA", ops->name, mode);
	ptep = pte_lookup(mm, B + 8 * P);
	ok(ptep && !pte_write(*ptep) &&
	   (forbids ? folio_test_anon(ptep->folio) :
		      ptep->folio == &m->zero_folio),
	   "%s zero_page=%s: read-only VMA: %s, mapped read-only",
	   ops->name, mode, forbids ? "an anonymous folio" : "the zero page");
	/* fork copies the PTEs only of VMAs with anonymous state */
	is_long(mm_fork(mm, "C", &child), 0, "%s zero_page=%s: fork",
		ops->name, mode);
	if (child) {
		f = folio_at(child, B);
		ok(forbids ? f == folio_at(mm, B) && f->_mapcount >= 1 :
			     !f,
		   "%s zero_page=%s: the child %s", ops->name, mode,
		   forbids ? "shares the parent's folio" :
			     "starts with nothing mapped (vma_needs_copy)");
		handle_access(child, B + P, false);
		handle_access(child, B, true);
		handle_access(mm, B + 2 * P, true);
	}
	ok(oracle_agrees(m), "%s zero_page=%s: every walk is the oracle's",
	   ops->name, mode);
	if (child)
		mm_exit(child);
	mm_exit(mm);
	ok(oracle_agrees(m) && !m->nr_anon_folios,
	   "%s zero_page=%s: nothing left after exit", ops->name, mode);
	model_destroy(m);
}

/* The statement, the command line's rule, and the model it makes */
static void test_statement(void)
{
	struct scenario sc;
	FILE *devnull = fopen("/dev/null", "w");
	struct exec_state es = { 0 };
	struct model *m;

	is_long(scenario_parse_string("t", "kernel zero_page=off\nproc P\n",
				      &sc), 0, "kernel zero_page=off parses");
	ok(sc.zero_page == SCN_ZERO_PAGE_OFF && sc.zero_page_line == 1 &&
	   sc.nr == 1, "it is a property of the file, not a statement");
	is_long(scenario_set_zero_page(&sc, SCN_ZERO_PAGE_ON, "--zero-page",
				       devnull), -1,
		"a command line that says otherwise is refused");
	is_long(scenario_set_zero_page(&sc, SCN_ZERO_PAGE_OFF, "--zero-page",
				       devnull), 0, "one that agrees is not");
	m = model_create(&anon_vma_rmap_ops);
	if (m) {
		scenario_exec(&es, &sc, m, devnull);
		ok(m->forbids_zero_page, "scenario_exec runs the model in the file's mode");
		exec_state_release(&es);
		model_destroy(m);
	}
	scenario_free(&sc);
	is_long(scenario_parse_string("t", "proc P\n", &sc), 0, "unstated");
	ok(sc.zero_page == SCN_ZERO_PAGE_UNSTATED &&
	   !scenario_set_zero_page(&sc, SCN_ZERO_PAGE_OFF, "x", devnull) &&
	   sc.zero_page == SCN_ZERO_PAGE_OFF,
	   "an unstated file takes the command line's mode");
	scenario_free(&sc);
	is_long(scenario_parse_string("t", "proc kernel\nkernel mmap 0x100000000000 4K rw\n",
				      &sc), 0, "a process named kernel still acts");
	ok(sc.nr == 2 && sc.zero_page == SCN_ZERO_PAGE_UNSTATED,
	   "and states nothing");
	scenario_free(&sc);
	fclose(devnull);
}

static void refused(const char *text, const char *what)
{
	struct scenario sc;
	FILE *save = stderr;

	stderr = fopen("/dev/null", "w");
	ok(scenario_parse_string("t", text, &sc) == -1, "refused: %s", what);
	fclose(stderr);
	stderr = save;
}

static void test_decide(void)
{
	char why[256];
	uint64_t pm = PM_PRESENT | 0x1234;

	is_long(kzero_page_decide(pm, 1ULL << KPF_ZERO_PAGE, why, sizeof(why)),
		SCN_ZERO_PAGE_ON, "probe: the zero page's flag is zero_page=on");
	is_long(kzero_page_decide(pm, (1ULL << KPF_ANON) | 1, why, sizeof(why)),
		SCN_ZERO_PAGE_OFF, "probe: an anonymous page is zero_page=off");
	is_long(kzero_page_decide(0, 0, why, sizeof(why)),
		SCN_ZERO_PAGE_UNSTATED, "probe: a page not present decides nothing");
	ok(strstr(why, "not present") != NULL, "and says why");
	is_long(kzero_page_decide(PM_PRESENT, 1ULL << KPF_ANON, why,
				  sizeof(why)),
		SCN_ZERO_PAGE_UNSTATED, "probe: hidden PFNs decide nothing");
	ok(strstr(why, "hides PFNs") != NULL, "and says why");
	is_long(kzero_page_decide(pm, 1ULL << 5, why, sizeof(why)),
		SCN_ZERO_PAGE_UNSTATED, "probe: neither zero nor anonymous decides nothing");
	ok(strstr(why, "neither") != NULL, "and says why");
}

int main(void)
{
	int i;

	for (i = 0; rmap_backends[i]; i++) {
		test_read(rmap_backends[i], false);
		test_read(rmap_backends[i], true);
	}
	test_statement();
	refused("proc P\nkernel zero_page=off\n", "kernel after a statement");
	refused("kernel zero_page=off\nkernel zero_page=off\n", "stated twice");
	refused("kernel zero_page=maybe\n", "neither on nor off");
	refused("kernel\n", "no setting");
	refused("kernel zero_page=on hugepages=off\n", "an unknown setting");
	test_decide();
	return tap_done();
}
