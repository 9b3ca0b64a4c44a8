// SPDX-License-Identifier: GPL-2.0
/*
 * The anon_vma backend rule by rule: neighbour reuse, fork-child
 * isolation, the fork-only reuse of idle ancestors, the root outliving
 * its process, folio placement, walk false positives, lock accounting,
 * and allocation failure at every point of a busy scenario.
 */
#include <errno.h>

#include "anon_vma_harness.h"
#include "tap.h"

#define A0	0x100000000000UL
#define PG	0x1000UL

static void validated(struct av_run *r, const char *what)
{
	ok(!r->ret && !r->cs.mismatches && !r->invalid,
	   "%s: ran, oracle and invariants agree", what);
	if (r->invalid)
		tap_diag("  %s", r->invalid);
}

/*
 * X | Y | Z, one page each, Y with a different protection (so nothing
 * merges): X faults first, then Z (its prev Y has no anon_vma yet),
 * then Y, which looks at next before prev and takes Z's.
 */
static void neighbour_next_first(void)
{
	struct av_run r;

	av_run_text(&r, "next-first",
		    "proc P\n"
		    "P mmap 0x100000000000 4K rw\n"
		    "P mmap 0x100000001000 4K rwx\n"
		    "P mmap 0x100000002000 4K rw\n"
		    "P touch 0x100000000000 4K write\n"
		    "P touch 0x100000002000 4K write\n"
		    "P touch 0x100000001000 4K write\n"
		    "check\n", NULL);
	validated(&r, "next-first");
	ok(av_of(&r, "P", A0 + PG) == av_of(&r, "P", A0 + 2 * PG) &&
	   av_of(&r, "P", A0) != av_of(&r, "P", A0 + PG),
	   "a new anon_vma user takes its next neighbour's before its prev's");
	is_long(av_live(&r, "anon_vma"), 2, "three VMAs, two anon_vmas");
	is_long(av_live(&r, "anon_vma_chain"), 3, "one AVC per VMA");
	av_run_end(&r);

	av_run_text(&r, "prev",
		    "proc P\n"
		    "P mmap 0x100000000000 4K rw\n"
		    "P mmap 0x100000001000 4K rwx\n"
		    "P touch 0x100000000000 4K write\n"
		    "P touch 0x100000001000 4K write\n"
		    "check\n", NULL);
	validated(&r, "prev");
	ok(av_of(&r, "P", A0) == av_of(&r, "P", A0 + PG),
	   "with no next, the prev neighbour's anon_vma is shared");
	av_run_end(&r);

	/* a moved VMA keeps its pgoff: not linear with its new neighbour */
	av_run_text(&r, "pgoff",
		    "proc P\n"
		    "P mmap 0x100000000000 4K rw\n"
		    "P mmap 0x100000100000 4K rwx\n"
		    "P mremap 0x100000100000 4K 4K to 0x100000001000\n"
		    "P touch 0x100000000000 4K write\n"
		    "P touch 0x100000001000 4K write\n"
		    "check\n", NULL);
	validated(&r, "pgoff");
	ok(av_of(&r, "P", A0) && av_of(&r, "P", A0 + PG) &&
	   av_of(&r, "P", A0) == av_of(&r, "P", A0 + PG),
	   "an unfaulted VMA moved next to a neighbour takes its address's pgoff and shares");
	av_run_end(&r);

	av_run_text(&r, "pgoff-faulted",
		    "proc P\n"
		    "P mmap 0x100000000000 4K rw\n"
		    "P mmap 0x100000100000 4K rwx\n"
		    "P touch 0x100000100000 4K write\n"
		    "P mremap 0x100000100000 4K 4K to 0x100000001000\n"
		    "P touch 0x100000000000 4K write\n"
		    "check\n", NULL);
	validated(&r, "pgoff-faulted");
	ok(av_of(&r, "P", A0) != av_of(&r, "P", A0 + PG),
	   "a faulted VMA moved next to a neighbour keeps its pgoff: no sharing");
	av_run_end(&r);
}

/*
 * A forked VMA shares its family's lock: a neighbour must neither
 * merge with it nor borrow its anon_vma (LTP's vma01).
 */
static void fork_child_isolated(void)
{
	struct av_run r;
	struct vm_area_struct *x;

	av_run_text(&r, "fork-child",
		    "proc P\n"
		    "P mmap 0x100000000000 4K rw\n"
		    "P touch 0x100000000000 4K write\n"
		    "P fork C\n"
		    "C mmap 0x100000001000 4K rw\n"
		    "C touch 0x100000001000 4K write\n"
		    "check\n", NULL);
	validated(&r, "fork-child");
	x = av_vma(&r, "C", A0);
	ok(x && x->vm_end == A0 + PG,
	   "a new range next to a forked VMA does not merge into it");
	ok(av_of(&r, "C", A0 + PG) && av_of(&r, "C", A0 + PG) !=
	   av_of(&r, "C", A0), "nor does it share the forked VMA's anon_vma");
	is_long(av_live(&r, "anon_vma"), 3, "P's, C's inherited, C's new");
	is_long(av_live(&r, "anon_vma_chain"), 4, "1 + 2 + 1 chains");
	av_run_end(&r);
}

/*
 * root -> c1 -> c2, c1 exits, c2 forks c3: c1's anon_vma has no VMA
 * left and one child, so c3 adopts it instead of allocating.
 */
static void fork_reuses_idle_ancestor(void)
{
	struct av_run r;
	struct anon_vma *av1;
	struct vm_area_struct *c3;

	av_run_text(&r, "reuse",
		    "proc R\n"
		    "R mmap 0x100000000000 4K rw\n"
		    "R touch 0x100000000000 4K write\n"
		    "R fork c1\n"
		    "c1 fork c2\n"
		    "c1 exit\n"
		    "c2 fork c3\n"
		    "check\n", NULL);
	validated(&r, "reuse");
	c3 = av_vma(&r, "c3", A0);
	av1 = av_of(&r, "c2", A0)->parent;
	ok(c3 && c3->anon_vma == av1 && av1 != av1->root,
	   "the exited middle generation's anon_vma is adopted by the next fork");
	ok(av1->num_active_vmas == 1 && av1->num_children == 1,
	   "adopted anon_vma: one VMA, one child");
	is_long(av_chain_len(c3), 3, "the adopter still links every generation");
	is_long(av_live(&r, "anon_vma"), 3, "no anon_vma allocated by the fork");
	is_long(av_live(&r, "anon_vma_chain"), 7, "R 1 + c2 3 + c3 3 chains");
	av_run_end(&r);

	/* the root itself is never adopted: it keeps its self-parent link */
	av_run_text(&r, "no-root-reuse",
		    "proc R\n"
		    "R mmap 0x100000000000 4K rw\n"
		    "R touch 0x100000000000 4K write\n"
		    "R fork c1\n"
		    "R exit\n"
		    "c1 fork c2\n"
		    "check\n", NULL);
	validated(&r, "no-root-reuse");
	ok(av_of(&r, "c2", A0) != av_of(&r, "c1", A0)->root,
	   "a root with no VMA left is not reused");
	is_long(av_live(&r, "anon_vma"), 3, "root, c1's, c2's");
	av_run_end(&r);
}

static void root_outlives_process(void)
{
	struct av_run r;
	struct anon_vma *av, *root;

	av_run_text(&r, "zombie-root",
		    "proc R\n"
		    "R mmap 0x100000000000 8K rw\n"
		    "R touch 0x100000000000 8K write\n"
		    "R fork C\n"
		    "R exit\n"
		    "check\n", NULL);
	validated(&r, "zombie-root");
	av = av_of(&r, "C", A0);
	root = av ? av->root : NULL;
	ok(root && root != av && root->refcount == 2 &&
	   root->num_active_vmas == 0 && root->rb_root.nr == 1,
	   "an exited root stays, pinned by its child, linking only the child");
	is_long(av_live(&r, "anon_vma"), 2, "root and child anon_vma live");
	av_run_end(&r);

	av_run_text(&r, "all-exit",
		    "proc R\n"
		    "R mmap 0x100000000000 8K rw\n"
		    "R touch 0x100000000000 8K write\n"
		    "R fork C\n"
		    "C fork D\n"
		    "R exit\n"
		    "D exit\n"
		    "C exit\n"
		    "check\n", NULL);
	validated(&r, "all-exit");
	ok(av_live(&r, "anon_vma") == 0 && av_live(&r, "anon_vma_chain") == 0 &&
	   r.m->acct.bytes == 0, "the last exit frees every object and byte");
	av_run_end(&r);
}

struct count_arg {
	unsigned long calls;
};

static bool count_one(struct folio *folio, struct vm_area_struct *vma,
		      unsigned long address, void *arg)
{
	struct count_arg *c = arg;

	(void)folio;
	(void)vma;
	(void)address;
	c->calls++;
	return true;
}

/* One walk of @folio: VMAs examined and mappings found */
static void walk_once(struct av_run *r, struct folio *folio,
		      unsigned long *examined, unsigned long *found)
{
	struct count_arg c = { 0 };
	struct rmap_walk_control rwc = { .rmap_one = count_one, .arg = &c };
	struct walk_stats before = r->m->walk;

	rmap_walk(folio, &rwc);
	*examined = r->m->walk.vmas_examined - before.vmas_examined;
	*found = r->m->walk.mappings_found - before.mappings_found;
	if (c.calls != *found)
		*found = (unsigned long)-1;
}

/*
 * Linux's known false positives: a folio the parent faults after
 * forking lives in the parent's anon_vma, whose tree links every
 * child's VMA too; the walk examines them all and finds one mapping.
 */
static void walk_false_positives(void)
{
	struct av_run r;
	struct folio *fresh, *shared, *cow;
	unsigned long ex, found;

	av_run_text(&r, "false-positives",
		    "proc P\n"
		    "P mmap 0x100000000000 8K rw\n"
		    "P touch 0x100000000000 4K write\n"
		    "P fork C1\nP fork C2\nP fork C3\nP fork C4\n"
		    "P touch 0x100000001000 4K write\n"
		    "C1 touch 0x100000000000 4K write\n"
		    "check\n", NULL);
	validated(&r, "false-positives");
	fresh = av_folio(&r, "P", A0 + PG);
	shared = av_folio(&r, "P", A0);
	cow = av_folio(&r, "C1", A0);
	ok(fresh && folio_anon_rmap(fresh) == av_of(&r, "P", A0),
	   "the parent's new folio belongs to the parent's anon_vma");
	walk_once(&r, fresh, &ex, &found);
	ok(ex == 5 && found == 1,
	   "walking it examines 5 VMAs (parent and 4 children) for 1 mapping (got %lu for %lu)",
	   ex, found);
	walk_once(&r, shared, &ex, &found);
	ok(ex == 5 && found == 4,
	   "the pre-fork folio, COWed by one child: 5 VMAs for 4 mappings (got %lu for %lu)",
	   ex, found);
	ok(cow && folio_anon_rmap(cow) == av_of(&r, "C1", A0),
	   "a child's COW copy belongs to the child's own anon_vma");
	walk_once(&r, cow, &ex, &found);
	ok(ex == 1 && found == 1,
	   "walking the child's copy examines only the child (got %lu for %lu)",
	   ex, found);
	av_run_end(&r);

	/* folio_move_anon_rmap(): sole user after the parent exits */
	av_run_text(&r, "move",
		    "proc P\n"
		    "P mmap 0x100000000000 4K rw\n"
		    "P touch 0x100000000000 4K write\n"
		    "P fork C\n"
		    "P exit\n"
		    "C touch 0x100000000000 4K write\n"
		    "check\n", NULL);
	validated(&r, "move");
	shared = av_folio(&r, "C", A0);
	ok(shared && folio_anon_rmap(shared) == av_of(&r, "C", A0) &&
	   folio_test_flag(shared, PG_anon_exclusive),
	   "reusing an inherited folio moves it to the child's anon_vma");
	av_run_end(&r);
}

/*
 * Write acquisitions are held to the kernel's source in anon_vma_locks.c;
 * here, the read side: a walk read-locks the root once and counts every
 * AVC it visits.
 */
static void walk_lock_accounting(void)
{
	struct anon_vma_state *st;
	struct av_run r;
	unsigned long walks_before, reads_before;
	struct folio *f;
	unsigned long ex, found;

	av_run_text(&r, "locks",
		    "proc P\n"
		    "P mmap 0x100000000000 4K rw\n"
		    "P touch 0x100000000000 4K write\n"
		    "P fork C\n", NULL);
	ok(!r.ret, "locks: ran");
	st = anon_vma_state(r.m);
	reads_before = st->site[AV_LOCK_WALK].read_acquired;
	walks_before = r.m->walk.walks;
	f = av_folio(&r, "P", A0);
	walk_once(&r, f, &ex, &found);
	is_long(st->site[AV_LOCK_WALK].read_acquired - reads_before,
		r.m->walk.walks - walks_before, "a walk read-locks the root once");
	ok(st->site[AV_LOCK_WALK].max_touched >= 2,
	   "and touches every AVC it visits");
	av_run_end(&r);
}

/*
 * Fail the Nth allocation of a busy scenario for every N: each run
 * must stop with ENOMEM or finish, never corrupt the anon_vma family
 * or leak an object once every process is gone.
 */
static void allocation_failures(void)
{
	static const char text[] =
		"proc P\n"
		"P mmap 0x100000000000 32K rw\n"
		"P mmap 0x100000010000 8K rwx\n"
		"P touch 0x100000000000 32K write\n"
		"P touch 0x100000010000 4K write\n"
		"P fork C\n"
		"C fork D\n"
		"C mprotect 0x100000002000 4K r\n"
		"D touch 0x100000000000 8K write\n"
		"C exit\n"
		"D fork E\n"
		"E mremap 0x100000004000 8K 8K to 0x100000100000\n"
		"E mprotect 0x100000002000 4K rw\n"
		"P munmap 0x100000006000 4K\n"
		"E mremap 0x100000100000 8K 8K to 0x100000004000\n"
		"P fork F\n"
		"check\n";
	FILE *devnull = fopen("/dev/null", "w");
	unsigned long n, failed_runs = 0, bad = 0, leaks = 0, absorbed = 0;
	struct av_run r;
	char first_bad[300] = "";

	for (n = 1; n < 100000; n++) {
		const char *why;
		bool injected;

		memset(&r, 0, sizeof(r));
		if (scenario_parse_string("nomem", text, &r.sc))
			break;
		r.m = model_create(&anon_vma_rmap_ops);
		if (!r.m)
			break;
		r.es.on_check = av_on_check;
		r.es.arg = &r;
		alloc_fail_nth = (long)n;
		r.ret = scenario_exec(&r.es, &r.sc, r.m, devnull);
		injected = alloc_fail_nth == 0;
		alloc_fail_nth = 0;
		why = anon_vma_validate(r.m);
		if (!why && r.invalid)
			why = r.invalid;
		/*
		 * An injected failure may be absorbed: anon_vma_clone()
		 * retries a failed AVC allocation once, as the kernel's
		 * GFP_NOWAIT-then-GFP_KERNEL does.
		 */
		if (injected && !r.ret)
			absorbed++;
		if (why || (injected && r.ret && r.ret != 2) ||
		    (!injected && r.ret)) {
			if (!bad++)
				snprintf(first_bad, sizeof(first_bad),
					 "N=%lu ret=%d: %s", n, r.ret,
					 why ? why : "unexpected result");
		}
		while (r.es.nr_procs) {
			mm_exit(r.es.procs[r.es.nr_procs - 1].mm);
			r.es.nr_procs--;
		}
		if (account_live_total(&r.m->acct) || r.m->acct.bytes)
			leaks++;
		av_run_end(&r);
		if (!injected)
			break;
		failed_runs++;
	}
	if (devnull)
		fclose(devnull);
	ok(failed_runs > 50, "failed each of the scenario's %lu allocations in turn",
	   failed_runs);
	ok(!bad, "every failure stops cleanly with ENOMEM, invariants intact");
	ok(absorbed > 0 && absorbed < failed_runs,
	   "%lu failures absorbed by anon_vma_clone's retry, the rest ENOMEM",
	   absorbed);
	if (bad)
		tap_diag("  %lu bad, first: %s", bad, first_bad);
	ok(!leaks, "and nothing leaks once every process exits (%lu leaked)",
	   leaks);
}

int main(void)
{
	neighbour_next_first();
	fork_child_isolated();
	fork_reuses_idle_ancestor();
	root_outlives_process();
	walk_false_positives();
	walk_lock_accounting();
	allocation_failures();
	return tap_done();
}
