// SPDX-License-Identifier: GPL-2.0
/*
 * Races between a cow_context walk and the model's other operations,
 * made deterministic.
 *
 * 1. Fork steps: the model calls m->hook at every step of fork (child
 *    mm made; each VMA linked with its rmap; each VMA's PTEs copied;
 *    done). At every one of them, every folio's walk must equal the
 *    page tables exactly, and the backend's invariants must hold.
 * 2. Interference from a blocked callback: the walk calls back with no
 *    RCU read lock held, so another task may fork, exit or unmap while
 *    it waits. At the k-th callback of a walk the test does that to
 *    some other process, for every k and every process. Every mapping
 *    that exists before the walk and after it must have been reported,
 *    nothing reported may be made up, nothing twice.
 * 3. An unmapping walk (try_to_unmap()'s job) with a fork at the k-th
 *    callback: when the walk is done, no mapping of the folio may be
 *    left, whichever process forked when. This is the property that
 *    fork's ordering (child linked at the tail of its parent's children
 *    before any PTE is copied; parents visited before children) buys.
 */
#include <stdlib.h>

#include "cow_context_harness.h"
#include "mm/internal.h"
#include "tap.h"

#define MAX_MAP 128

/* A family with moves, a MAP_PRIVATE file, COW and an exited parent */
static const char family[] =
	"proc P\n"
	"P mmap 0x100000000000 64K rw\n"
	"P touch 0x100000000000 64K write\n"
	"P mremap 0x100000004000 16K 16K to 0x100000200000\n"
	"P mmap 0x100000400000 16K rw file=f:0x5000\n"
	"P touch 0x100000400000 16K write\n"
	"P fork C\n"
	"C touch 0x100000000000 8K write\n"
	"C mremap 0x100000000000 8K 8K to 0x100000300000\n"
	"C fork G\n"
	"P touch 0x100000008000 4K write\n"
	"P fork Q\n"
	"Q mremap 0x100000200000 8K 8K to 0x100000600000\n"
	"Q fork R\n"
	"Q exit\n"
	"G mremap 0x100000300000 4K 4K to 0x100000000000\n"
	"R fork S\n";

struct mapping {
	unsigned long mm_id;
	unsigned long addr;
};

struct mapset {
	struct mapping v[MAX_MAP];
	int nr;
	bool dup;
};

static void set_add(struct mapset *s, unsigned long id, unsigned long addr)
{
	int i;

	for (i = 0; i < s->nr; i++)
		if (s->v[i].mm_id == id && s->v[i].addr == addr)
			s->dup = true;
	if (s->nr < MAX_MAP)
		s->v[s->nr++] = (struct mapping){ id, addr };
}

static bool set_has(const struct mapset *s, unsigned long id,
		    unsigned long addr)
{
	int i;

	for (i = 0; i < s->nr; i++)
		if (s->v[i].mm_id == id && s->v[i].addr == addr)
			return true;
	return false;
}

static void truth(struct model *m, struct folio *folio, struct mapset *s)
{
	struct mm_struct *mms[MAX_MAP];
	unsigned long addrs[MAX_MAP];
	int n = cc_mappings(m, folio, mms, addrs, MAX_MAP), i;

	s->nr = 0;
	s->dup = false;
	for (i = 0; i < n; i++)
		set_add(s, mms[i]->id, addrs[i]);
}

static bool collect(struct folio *folio, struct vm_area_struct *vma,
		    unsigned long address, void *arg)
{
	(void)folio;
	set_add(arg, vma->vm_mm->id, address);
	return true;
}

static bool same(const struct mapset *a, const struct mapset *b)
{
	int i;

	if (a->nr != b->nr || a->dup || b->dup)
		return false;
	for (i = 0; i < a->nr; i++)
		if (!set_has(b, a->v[i].mm_id, a->v[i].addr))
			return false;
	return true;
}

/* ---- 1. the walk at every step of fork ----------------------------- */

struct step_state {
	unsigned long points, folio_walks, mismatches, child_mappings;
	unsigned long invalid;
	char first[300];
};

static void at_fork_step(struct model *m, enum model_hook_point where,
			 struct mm_struct *mm, struct vm_area_struct *vma)
{
	struct step_state *s = m->hook_data;
	struct folio *folio;
	const char *err;

	(void)vma;
	s->points++;
	list_for_each_entry(folio, &m->folios, lru) {
		struct mapset want, got = { .nr = 0 };
		struct rmap_walk_control rwc = {
			.rmap_one = collect,
			.arg = &got,
		};
		int i;

		if (!folio_test_anon(folio))
			continue;
		truth(m, folio, &want);
		rmap_walk(folio, &rwc);
		s->folio_walks++;
		for (i = 0; i < want.nr; i++)
			if (want.v[i].mm_id == mm->id)
				s->child_mappings++;
		if (!same(&want, &got)) {
			if (!s->mismatches++)
				snprintf(s->first, sizeof(s->first),
					 "hook %d, child %s: folio pfn %lu: %d mappings, walk found %d",
					 where, mm->comm, folio->pfn, want.nr,
					 got.nr);
		}
	}
	err = cc_validate(m);
	if (err && !s->invalid++ && !s->first[0])
		snprintf(s->first, sizeof(s->first), "hook %d: %s", where, err);
}

static void fork_steps(const struct rmap_ops *ops)
{
	struct step_state s = { 0 };
	struct cc_run r = { 0 };
	int i, forks = 0;

	if (cc_run_text(&r, ops, "family", family, stderr) < 0 || r.ret) {
		ok(0, "%s: family builds", ops->name);
		return;
	}
	r.m->hook = at_fork_step;
	r.m->hook_data = &s;
	/* fork every process, and a child of each fork again */
	for (i = 0; i < r.es.nr_procs; i++) {
		struct mm_struct *child, *grandchild;
		char name[32];

		snprintf(name, sizeof(name), "F%d", i);
		if (mm_fork(r.es.procs[i].mm, name, &child))
			continue;
		forks++;
		snprintf(name, sizeof(name), "FF%d", i);
		if (!mm_fork(child, name, &grandchild)) {
			forks++;
			mm_exit(grandchild);
		}
		mm_exit(child);
	}
	r.m->hook = NULL;
	ok(forks >= 10 && s.points > 100 && s.child_mappings > 100,
	   "%s: %d forks, %lu hook points, %lu folio walks, %lu child mappings seen mid-fork",
	   ops->name, forks, s.points, s.folio_walks, s.child_mappings);
	is_long(s.mismatches, 0,
		"%s: at every step of fork every walk equals the page tables",
		ops->name);
	is_long(s.invalid, 0, "%s: and the invariants hold there", ops->name);
	if (s.first[0])
		tap_diag("first: %s", s.first);
	cc_exit_all(&r);
	is_long(account_live_total(&r.m->acct), 0, "%s: nothing left", ops->name);
	cc_run_end(&r);
}

/* ---- 2 and 3. interference while the walk is blocked --------------- */

enum interference { DO_FORK, DO_EXIT, DO_MUNMAP, NR_OPS };

static const char *const op_name[] = { "fork", "exit", "munmap" };

struct trial {
	unsigned int walk_flags;	/* 0: the backend's own */
	struct model *m;
	struct exec_state *es;
	enum interference op;
	int k;			/* act at the k-th callback */
	int target;		/* index of the process acted on */
	bool unmap;		/* the walk unmaps what it finds */
	int calls;
	bool acted, skipped;
	struct mapset found;
};

static struct mm_struct *proc_mm(struct exec_state *es, int i)
{
	return i < es->nr_procs ? es->procs[i].mm : NULL;
}

static void interfere(struct trial *t, struct mm_struct *current)
{
	struct mm_struct *mm = proc_mm(t->es, t->target), *child;
	struct vm_area_struct *vma;
	int i;

	/* the walk pins the mm it is in (mmget): never that one */
	if (!mm || (mm == current && t->op != DO_FORK)) {
		t->skipped = true;
		return;
	}
	t->acted = true;
	switch (t->op) {
	case DO_FORK:
		/*
		 * The child stays with the model (listed in m->mms), freed
		 * at model_destroy(); the exec state does not know it.
		 */
		mm_fork(mm, "Z", &child);
		break;
	case DO_EXIT:
		for (i = 0; i < t->es->nr_procs; i++)
			if (t->es->procs[i].mm == mm)
				t->es->procs[i] = t->es->procs[--t->es->nr_procs];
		mm_exit(mm);
		break;
	case DO_MUNMAP:
		vma = mm->mm_mt.nr ? mm->mm_mt.vmas[0] : NULL;
		if (vma)
			do_munmap(mm, vma->vm_start, vma->vm_end - vma->vm_start);
		break;
	default:
		break;
	}
}

static bool interfering_callback(struct folio *folio,
				 struct vm_area_struct *vma,
				 unsigned long address, void *arg)
{
	struct trial *t = arg;
	struct mm_struct *mm = vma->vm_mm;

	set_add(&t->found, mm->id, address);
	if (t->calls++ == t->k)
		interfere(t, mm);
	if (t->unmap) {
		pte_t *ptep = pte_lookup(mm, address);

		if (ptep && ptep->folio == folio)
			pte_clear_and_put(mm, address, ptep);
	}
	return true;
}

static struct folio *folio_by_pfn(struct model *m, unsigned long pfn)
{
	struct folio *folio;

	list_for_each_entry(folio, &m->folios, lru)
		if (folio->pfn == pfn)
			return folio;
	return NULL;
}

struct interference_stats {
	unsigned long trials, acted, missed, phantom, dup, left_mapped;
	unsigned long new_child_found;
	char first[300];
};

static void one_trial(const struct rmap_ops *ops, const char *text,
		      unsigned long pfn, struct trial *proto,
		      struct interference_stats *st)
{
	struct cc_run r = { 0 };
	struct mapset before, after;
	struct folio *folio;
	struct trial t = *proto;
	struct rmap_walk_control rwc = {
		.rmap_one = interfering_callback,
		.arg = &t,
	};
	int i;

	if (cc_run_text(&r, ops, "trial", text, stderr) < 0)
		return;
	folio = folio_by_pfn(r.m, pfn);
	if (!folio || !folio_test_anon(folio))
		goto out;
	t.m = r.m;
	t.es = &r.es;
	if (t.walk_flags)
		cow_instance(r.m)->walk_flags = t.walk_flags;
	truth(r.m, folio, &before);
	folio_get(folio);	/* the walker's reference, as in reclaim */
	rmap_walk(folio, &rwc);
	truth(r.m, folio, &after);
	st->trials++;
	if (t.acted)
		st->acted++;
	if (t.found.dup)
		st->dup++;
	for (i = 0; i < before.nr; i++) {
		const struct mapping *p = &before.v[i];

		if (!t.unmap && set_has(&after, p->mm_id, p->addr) &&
		    !set_has(&t.found, p->mm_id, p->addr)) {
			if (!st->missed++)
				snprintf(st->first, sizeof(st->first),
					 "pfn %lu, %s of proc %d at call %d: missed mm %lu at %#lx",
					 pfn, op_name[t.op], t.target, t.k,
					 p->mm_id, p->addr);
		}
	}
	for (i = 0; i < t.found.nr; i++) {
		const struct mapping *p = &t.found.v[i];

		if (!set_has(&before, p->mm_id, p->addr)) {
			if (!t.unmap && !set_has(&after, p->mm_id, p->addr))
				st->phantom++;
			else
				st->new_child_found++;
		}
	}
	if (t.unmap && after.nr) {
		if (!st->left_mapped++)
			snprintf(st->first, sizeof(st->first),
				 "pfn %lu, fork of proc %d at call %d: %d mappings survive the unmapping walk",
				 pfn, t.target, t.k, after.nr);
	}
	folio_put(folio);
out:
	cc_run_end(&r);
}

static void interference_run(const struct rmap_ops *ops, const char *name,
			     const char *text, bool unmap, unsigned int flags,
			     struct interference_stats *st)
{
	unsigned long pfns[64];
	int nr_pfns = 0, nr_procs, op, k, target, i;
	struct cc_run r = { 0 };
	struct folio *folio;

	if (cc_run_text(&r, ops, name, text, stderr) < 0)
		return;
	nr_procs = r.es.nr_procs;
	/* the folios worth racing: mapped more than once, or remapped */
	list_for_each_entry(folio, &r.m->folios, lru)
		if (folio_test_anon(folio) && nr_pfns < 64 &&
		    (folio->_mapcount > 1 || nr_pfns < 4))
			pfns[nr_pfns++] = folio->pfn;
	cc_run_end(&r);

	for (i = 0; i < nr_pfns; i++)
		for (op = 0; op < NR_OPS; op++) {
			if (unmap && op != DO_FORK)
				continue;
			for (target = 0; target < nr_procs; target++)
				for (k = 0; k < 8; k++) {
					struct trial t = {
						.walk_flags = flags,
						.op = op, .k = k,
						.target = target,
						.unmap = unmap,
					};

					one_trial(ops, text, pfns[i], &t, st);
				}
		}
}

static void interference_report(const struct rmap_ops *ops, const char *name,
				bool unmap, struct interference_stats *st)
{
	ok(st->trials > 200 && st->acted > 50,
	   "%s %s: %lu trials, %lu with interference during a callback",
	   ops->name, name, st->trials, st->acted);
	if (unmap) {
		is_long(st->left_mapped, 0,
			"%s %s: an unmapping walk leaves no mapping, whenever a fork comes",
			ops->name, name);
	} else {
		is_long(st->missed, 0,
			"%s %s: every mapping there before and after is found",
			ops->name, name);
		is_long(st->phantom, 0, "%s %s: nothing made up", ops->name,
			name);
	}
	is_long(st->dup, 0, "%s %s: nothing reported twice", ops->name, name);
	if (st->first[0])
		tap_diag("first: %s", st->first);
	tap_diag("%s %s: %lu mappings made during the walk were found too",
		 ops->name, name, st->new_child_found);
}

static void interference(const struct rmap_ops *ops, const char *name,
			 const char *text, bool unmap)
{
	struct interference_stats st = { 0 };

	interference_run(ops, name, text, unmap, 0, &st);
	interference_report(ops, name, unmap, &st);
}

/* Generated families: many small ones, summed */
static void interference_gen(const struct rmap_ops *ops, bool unmap)
{
	struct interference_stats st = { 0 };
	unsigned long seed;

	for (seed = 1; seed <= 30; seed++) {
		char *text = cc_gen_text(seed, 40);

		if (text)
			interference_run(ops, "gen", text, unmap, 0, &st);
		free(text);
	}
	interference_report(ops, unmap ? "30 generated (unmapping)" :
				       "30 generated", unmap, &st);
}

/*
 * The PoC's traversal, children before their parent, with nothing else
 * changed: an unmapping walk with a fork in its middle leaves mappings.
 */
static void poc_order(void)
{
	struct interference_stats st = { 0 };

	interference_run(&cow_context_rmap_ops, "family", family, true,
			 COW_WALK_PRUNE | COW_WALK_POC_ORDER, &st);
	ok(st.trials > 200 && st.left_mapped > 0,
	   "children-first order (the PoC's): %lu of %lu unmapping walks with a fork leave a mapping",
	   st.left_mapped, st.trials);
	memset(&st, 0, sizeof(st));
	interference_run(&cow_context_rmap_ops, "family", family, false,
			 COW_WALK_PRUNE | COW_WALK_POC_ORDER, &st);
	ok(!st.missed && !st.dup,
	   "yet it finds every mapping when nothing races it");
}

int main(void)
{
	fork_steps(&cow_context_rmap_ops);
	fork_steps(&cow_context_noprune_rmap_ops);
	interference(&cow_context_rmap_ops, "family", family, false);
	interference(&cow_context_rmap_ops, "family (unmapping)", family, true);
	interference_gen(&cow_context_rmap_ops, false);
	interference_gen(&cow_context_rmap_ops, true);
	poc_order();
	return tap_done();
}
