// SPDX-License-Identifier: GPL-2.0
/*
 * Races between a cow_context walk and the model's other operations,
 * made deterministic.
 *
 * 1. Fork steps: the model calls m->hook at every step of fork (child
 *    mm made; each VMA linked with its rmap; each VMA's PTEs copied;
 *    done). At every one of them, every folio's walk must equal the
 *    page tables exactly, and the backend's invariants must hold. The
 *    walks there are try-walkers: dup_mmap() holds the parent's VMAs
 *    write-locked, and a walk that meets one gives up (contended), as
 *    folio_referenced() does; it must not have reported anything false
 *    first. A walk that waits for the fork instead is in part 4.
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
#include <errno.h>
#include <stdlib.h>
#include <ucontext.h>

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
	unsigned long invalid, contended;
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
			.try_lock = true,
		};
		bool wrong = false;
		int i;

		if (!folio_test_anon(folio))
			continue;
		truth(m, folio, &want);
		rmap_walk(folio, &rwc);
		s->folio_walks++;
		for (i = 0; i < want.nr; i++)
			if (want.v[i].mm_id == mm->id)
				s->child_mappings++;
		if (rwc.contended) {
			s->contended++;
			for (i = 0; i < got.nr; i++)
				wrong |= !set_has(&want, got.v[i].mm_id,
						  got.v[i].addr);
			wrong |= got.dup;
		} else {
			wrong = !same(&want, &got);
		}
		if (wrong) {
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
	ok(forks >= 10 && s.points > 100 && s.child_mappings > 100 &&
	   s.contended && s.contended < s.folio_walks,
	   "%s: %d forks, %lu hook points, %lu folio walks (%lu gave up on a VMA fork holds), %lu child mappings mid-fork",
	   ops->name, forks, s.points, s.folio_walks, s.contended,
	   s.child_mappings);
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
	bool at_steps;		/* act at the k-th walk step, not callback */
	int calls, steps;
	bool acted, skipped;
	bool deferred;		/* a fork waiting for the walk's VMA lock */
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
	/*
	 * The callback holds one of this mm's VMAs read-locked, and fork
	 * write-locks them all: it waits until the callback returns, and
	 * runs at the next one in another mm, or after the walk.
	 */
	if (mm == current) {
		t->deferred = true;
		return;
	}
	t->deferred = false;
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
	if ((t->calls++ == t->k && !t->at_steps) || t->deferred)
		interfere(t, mm);
	if (t->unmap) {
		pte_t *ptep = pte_lookup(mm, address);

		if (ptep && ptep->folio == folio)
			pte_clear_and_put(mm, address, ptep);
	}
	return true;
}

/*
 * The k-th step inside the walk (cow_instance->walk_step): no VMA is
 * read-locked there, so a fork of any mm, the visited one too, runs.
 */
static void interfering_step(struct cow_instance *inst,
			     enum cow_walk_step step, struct cow_context *ctx,
			     void *data)
{
	struct trial *t = data;

	(void)inst;
	(void)step;
	(void)ctx;
	if (t->steps++ == t->k)
		interfere(t, NULL);
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
	if (t.at_steps) {
		cow_instance(r.m)->walk_step = interfering_step;
		cow_instance(r.m)->walk_step_data = &t;
	}
	truth(r.m, folio, &before);
	folio_get(folio);	/* the walker's reference, as in reclaim */
	rmap_walk(folio, &rwc);
	if (t.deferred)
		interfere(&t, NULL);
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
			     bool at_steps, struct interference_stats *st)
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
						.at_steps = at_steps,
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

	interference_run(ops, name, text, unmap, 0, false, &st);
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
			interference_run(ops, "gen", text, unmap, 0, false,
					 &st);
		free(text);
	}
	interference_report(ops, unmap ? "30 generated (unmapping)" :
				       "30 generated", unmap, &st);
}

/*
 * The PoC's traversal, children before their parent, with nothing else
 * changed: an unmapping walk with a fork in its middle leaves mappings.
 * The fork comes at a step of the walk: during a callback it would
 * wait for the VMA the walk holds.
 */
static void poc_order(void)
{
	struct interference_stats st = { 0 };

	interference_run(&cow_context_poc_order_rmap_ops, "family", family,
			 true, 0, true, &st);
	ok(st.trials > 200 && st.left_mapped > 0,
	   "children-first order (the PoC's): %lu of %lu unmapping walks with a fork leave a mapping",
	   st.left_mapped, st.trials);
	memset(&st, 0, sizeof(st));
	interference_run(&cow_context_poc_order_rmap_ops, "family", family,
			 false, 0, false, &st);
	ok(!st.missed && !st.dup,
	   "yet it finds every mapping when nothing races it");
}

/* ---- 4. every writer at every step inside the walk ----------------- */

/*
 * The walk's own step hook (cow_instance->walk_step) marks every point
 * where another CPU may act: after the folio's context is read, before
 * each context, when an mm is pinned, between two candidates, and at
 * each step of climbing out of a finished subtree (an exit there would
 * splice out a context the walk is leaving or has climbed back into;
 * the splice must wait for the walk's end: point 2). A trial
 * lets the walk run to its k-th step, runs one writer there, and lets
 * the walk finish; for every k, every writer and every process. A
 * writer that would wait for the walk (exit of the mm the walk pins)
 * runs at the first later step where it would not, or after the walk,
 * as it would.
 *
 * Fork is run at every point of dup_mmap(): the walk runs in a
 * coroutine (ucontext) and is resumed from the model's fork hook at
 * the j-th point of the fork, so its steps k.. run while the fork is
 * frozen there; where it meets a VMA the fork holds write-locked it
 * waits (COW_STEP_VMA_BUSY), and goes on once the fork is done.
 *
 * What must hold: every (mm, address) mapping the folio both before the
 * walk and after it was reported; nothing reported twice; nothing that
 * mapped the folio neither before nor after. Which folios, processes
 * and addresses are tried comes from a seed (COWCTX_RACE_SEED to pick
 * one); a failure prints it.
 */
enum writer {
	W_FORK, W_EXIT, W_MUNMAP, W_MOVE, W_GROW, W_SHRINK, W_DONTUNMAP,
	W_NEIGHBOUR, W_SPLIT, W_MERGE, W_FIRST_FAULT, W_COW_FAULT, W_REUSE,
	W_DONTNEED, NR_WRITERS
};

static const char *const writer_name[] = {
	"fork", "exit", "munmap", "mremap move", "mremap grow",
	"mremap shrink", "mremap DONTUNMAP", "mremap onto a neighbour",
	"mprotect split", "mprotect merge", "first fault", "COW fault",
	"exclusive reuse", "MADV_DONTNEED",
};

#define FAR_AWAY	0x100040000000UL

struct steps_trial {
	struct exec_state *es;
	struct model *m;
	struct folio *folio;
	enum writer w;
	int target;		/* process index */
	int k;			/* act at the k-th walk step */
	int fork_point;		/* fork: resume the walk at this hook point */
	unsigned long rnd;
	int step;
	bool unmap;		/* try_to_unmap()'s walk: clear what is found */
	bool pending, acted;
	struct mapset found;
	/* the coroutine */
	ucontext_t walk_ctx, main_ctx;
	bool in_coroutine, walk_done, yielded, in_fork;
	int hook_points, vma_waits;
};

static unsigned long steps_seed = 20260301;

static unsigned long mix(unsigned long x)
{
	x ^= x >> 31;
	x *= 0x7fb5d329728ea185UL;
	x ^= x >> 27;
	x *= 0x81dadef4bc2dd44dUL;
	return x ^ (x >> 33);
}

/* Where @mm maps the folio, or its first VMA's start */
static unsigned long target_addr(struct steps_trial *t, struct mm_struct *mm)
{
	struct vm_area_struct *vma;
	unsigned long i, addr;

	for_each_vma(mm, vma, i)
		for (addr = vma->vm_start; addr < vma->vm_end; addr += PAGE_SIZE)
			if (mm_maps_folio(mm, addr, t->folio))
				return addr;
	return mm->mm_mt.nr ? mm->mm_mt.vmas[t->rnd % mm->mm_mt.nr]->vm_start :
			      0;
}

/*
 * Would @w on @mm wait for the walk as it stands now? At a step the walk
 * holds no lock (remap writers only change remap_seq, which the walk
 * reads) and no VMA: only the mm pin, which exit_mmap() waits for.
 */
static bool waits_for_walk(enum writer w, struct mm_struct *mm)
{
	return w == W_EXIT && mm_cow_context(mm)->mm_pins;
}

static bool is_free(struct mm_struct *mm, unsigned long a, unsigned long len)
{
	struct vm_area_struct *vma = find_vma(mm, a);

	return !vma || vma->vm_start >= a + len;
}

static int free_spot(struct mm_struct *mm, unsigned long len,
		     unsigned long *addr)
{
	unsigned long a;

	for (a = FAR_AWAY; a < FAR_AWAY + 64 * PMD_SIZE; a += PMD_SIZE)
		if (is_free(mm, a, len)) {
			*addr = a;
			return 0;
		}
	return -ENOMEM;
}

static int run_writer(struct steps_trial *t, struct mm_struct *mm)
{
	unsigned long addr = target_addr(t, mm), to, i;
	struct vm_area_struct *vma = addr ? vma_lookup(mm, addr) : NULL, *o;
	struct mm_struct *child;

	if (t->w == W_EXIT) {
		for (i = 0; i < (unsigned long)t->es->nr_procs; i++)
			if (t->es->procs[i].mm == mm)
				t->es->procs[i] = t->es->procs[--t->es->nr_procs];
		mm_exit(mm);
		return 0;
	}
	if (t->w == W_FORK)
		return mm_fork(mm, "Z", &child);
	if (!vma)
		return -EINVAL;
	switch (t->w) {
	case W_MUNMAP:
		return do_munmap(mm, vma->vm_start, PAGE_SIZE);
	case W_MOVE:
		return free_spot(mm, vma->vm_end - vma->vm_start, &to) ?:
		       do_mremap(mm, vma->vm_start, vma->vm_end - vma->vm_start,
				 vma->vm_end - vma->vm_start,
				 MREMAP_MAYMOVE | MREMAP_FIXED, to);
	case W_GROW:
		return do_mremap(mm, vma->vm_start, vma->vm_end - vma->vm_start,
				 vma->vm_end - vma->vm_start + PAGE_SIZE, 0, 0);
	case W_SHRINK:
		if (vma->vm_end - vma->vm_start < 2 * PAGE_SIZE)
			return -EINVAL;
		return do_mremap(mm, vma->vm_start, vma->vm_end - vma->vm_start,
				 vma->vm_end - vma->vm_start - PAGE_SIZE, 0, 0);
	case W_DONTUNMAP:
		return free_spot(mm, PAGE_SIZE, &to) ?:
		       do_mremap(mm, addr, PAGE_SIZE, PAGE_SIZE,
				 MREMAP_MAYMOVE | MREMAP_FIXED |
				 MREMAP_DONTUNMAP, to);
	case W_NEIGHBOUR:
		/* the page after another VMA, so that it merges there */
		for_each_vma(mm, o, i) {
			to = o->vm_end;
			if (o != vma && is_free(mm, to, PAGE_SIZE))
				return do_mremap(mm, addr, PAGE_SIZE, PAGE_SIZE,
						 MREMAP_MAYMOVE | MREMAP_FIXED,
						 to);
		}
		return -EINVAL;
	case W_SPLIT:
		return do_mprotect(mm, addr, PAGE_SIZE, PROT_READ);
	case W_MERGE:
		return do_mprotect(mm, addr, PAGE_SIZE, PROT_READ) ?:
		       do_mprotect(mm, addr, PAGE_SIZE, PROT_READ | PROT_WRITE);
	case W_FIRST_FAULT:
		for (to = vma->vm_start; to < vma->vm_end; to += PAGE_SIZE)
			if (!pte_lookup(mm, to) || !pte_present(*pte_lookup(mm, to)))
				return handle_access(mm, to, true);
		/* every page is there: a first fault in a new VMA, then */
		return free_spot(mm, PAGE_SIZE, &to) ?:
		       do_mmap(mm, to, PAGE_SIZE, PROT_READ | PROT_WRITE,
			       NULL, 0) ?:
		       handle_access(mm, to, true);
	case W_COW_FAULT:
		return handle_access(mm, addr, true);
	case W_REUSE:
		/* drop the other mappings first, then write: reuse */
		return do_madvise(mm, addr, PAGE_SIZE, MADV_DONTNEED) ?:
		       handle_access(mm, addr, false) ?:
		       handle_access(mm, addr, true);
	case W_DONTNEED:
		return do_madvise(mm, vma->vm_start, PAGE_SIZE, MADV_DONTNEED);
	default:
		return -EINVAL;
	}
}

static void try_pending(struct steps_trial *t)
{
	struct mm_struct *mm = proc_mm(t->es, t->target);

	if (!t->pending)
		return;
	if (!mm) {
		t->pending = false;
		return;
	}
	if (waits_for_walk(t->w, mm))
		return;
	t->pending = false;
	if (!run_writer(t, mm))
		t->acted = true;
}

static void steps_fork_hook(struct model *m, enum model_hook_point where,
			    struct mm_struct *mm, struct vm_area_struct *vma)
{
	struct steps_trial *t = m->hook_data;

	(void)where;
	(void)mm;
	(void)vma;
	if (t->hook_points++ == t->fork_point && !t->walk_done) {
		t->acted = true;
		t->in_fork = true;
		swapcontext(&t->main_ctx, &t->walk_ctx);
		t->in_fork = false;
	}
}

static void at_walk_step(struct cow_instance *inst, enum cow_walk_step step,
			 struct cow_context *ctx, void *data)
{
	struct steps_trial *t = data;

	(void)inst;
	(void)ctx;
	if (step == COW_STEP_VMA_BUSY && t->in_fork) {
		/*
		 * dup_mmap() holds the parent's VMAs write-locked: the walk
		 * waits for the fork to end, and goes on after it.
		 */
		t->vma_waits++;
		swapcontext(&t->walk_ctx, &t->main_ctx);
		return;
	}
	if (t->step++ == t->k) {
		if (t->w == W_FORK && t->in_coroutine) {
			t->yielded = true;
			swapcontext(&t->walk_ctx, &t->main_ctx);
			return;
		}
		t->pending = true;
	}
	try_pending(t);
}

static bool collect_step(struct folio *folio, struct vm_area_struct *vma,
			 unsigned long address, void *arg)
{
	struct steps_trial *t = arg;
	pte_t *ptep;

	set_add(&t->found, vma->vm_mm->id, address);
	if (t->unmap) {
		ptep = pte_lookup(vma->vm_mm, address);
		if (ptep && ptep->folio == folio)
			pte_clear_and_put(vma->vm_mm, address, ptep);
	}
	return true;
}

static void do_walk(struct steps_trial *t)
{
	struct rmap_walk_control rwc = { .rmap_one = collect_step, .arg = t };

	rmap_walk(t->folio, &rwc);
}

static struct steps_trial *coroutine_trial;

static void walk_coroutine(void)
{
	do_walk(coroutine_trial);
	coroutine_trial->walk_done = true;
}

/* fork at fork_point of dup_mmap(), with the walk stopped at step k */
static void walk_with_fork(struct steps_trial *t)
{
	static char stack[1 << 18];
	struct mm_struct *mm, *child;

	getcontext(&t->walk_ctx);
	t->walk_ctx.uc_stack.ss_sp = stack;
	t->walk_ctx.uc_stack.ss_size = sizeof(stack);
	t->walk_ctx.uc_link = &t->main_ctx;
	coroutine_trial = t;
	t->in_coroutine = true;
	makecontext(&t->walk_ctx, walk_coroutine, 0);
	swapcontext(&t->main_ctx, &t->walk_ctx);
	mm = proc_mm(t->es, t->target);
	if (t->yielded && mm) {
		t->m->hook = steps_fork_hook;
		t->m->hook_data = t;
		mm_fork(mm, "Z", &child);
		t->m->hook = NULL;
	}
	if (!t->walk_done)
		swapcontext(&t->main_ctx, &t->walk_ctx);
}

struct steps_stats {
	unsigned long trials, acted, missed, phantom, dup;
	unsigned long mm_retries, fork_waits, left_mapped;
	unsigned long per_writer[NR_WRITERS];
	char first[400];
};

static void steps_one(const char *text, unsigned long seed, unsigned long pfn,
		      struct steps_trial *proto, struct steps_stats *st)
{
	struct cc_run r = { 0 };
	struct steps_trial t = *proto;
	struct mapset before, after;
	const char *err;
	int i;

	if (cc_run_text(&r, &cow_context_rmap_ops, "steps", text, stderr) < 0)
		return;
	t.folio = folio_by_pfn(r.m, pfn);
	if (!t.folio || !folio_test_anon(t.folio))
		goto out;
	t.m = r.m;
	t.es = &r.es;
	truth(r.m, t.folio, &before);
	folio_get(t.folio);
	cow_instance(r.m)->walk_step = at_walk_step;
	cow_instance(r.m)->walk_step_data = &t;
	if (t.w == W_FORK)
		walk_with_fork(&t);
	else
		do_walk(&t);
	cow_instance(r.m)->walk_step = NULL;
	try_pending(&t);
	truth(r.m, t.folio, &after);
	st->trials++;
	st->mm_retries += cow_instance(r.m)->walk.mm_retries;
	st->fork_waits += t.vma_waits;
	if (t.acted) {
		st->acted++;
		st->per_writer[t.w]++;
	}
	if (t.found.dup && !st->dup++ && !st->first[0])
		snprintf(st->first, sizeof(st->first),
			 "seed %lu: pfn %lu, %s by proc %d at walk step %d (fork point %d): a mapping reported twice",
			 seed, pfn, writer_name[t.w], t.target, t.k,
			 t.fork_point);
	for (i = 0; i < before.nr; i++) {
		const struct mapping *p = &before.v[i];

		if (set_has(&after, p->mm_id, p->addr) &&
		    !set_has(&t.found, p->mm_id, p->addr) && !st->missed++)
			snprintf(st->first, sizeof(st->first),
				 "seed %lu: pfn %lu, %s by proc %d at walk step %d (fork point %d): missed mm %lu at %#lx",
				 seed, pfn, writer_name[t.w], t.target, t.k,
				 t.fork_point, p->mm_id, p->addr);
	}
	/* an unmapping walk may find a fork's copy: after has neither */
	for (i = 0; i < t.found.nr && !t.unmap; i++)
		if (!set_has(&before, t.found.v[i].mm_id, t.found.v[i].addr) &&
		    !set_has(&after, t.found.v[i].mm_id, t.found.v[i].addr))
			st->phantom++;
	if (t.unmap && after.nr && !st->left_mapped++)
		snprintf(st->first, sizeof(st->first),
			 "seed %lu: pfn %lu, %s by proc %d at walk step %d (fork point %d): %d mappings survive the unmapping walk",
			 seed, pfn, writer_name[t.w], t.target, t.k,
			 t.fork_point, after.nr);
	err = cc_validate(r.m);
	if (err && !st->missed++)
		snprintf(st->first, sizeof(st->first), "seed %lu: %s after %s",
			 seed, err, writer_name[t.w]);
	folio_put(t.folio);
out:
	cc_run_end(&r);
}

/* How many steps an undisturbed walk of @pfn takes */
static int steps_of(const char *text, unsigned long pfn)
{
	struct steps_trial t = { .k = -1, .w = NR_WRITERS };
	struct cc_run r = { 0 };

	if (cc_run_text(&r, &cow_context_rmap_ops, "steps", text, stderr) < 0)
		return 0;
	t.folio = folio_by_pfn(r.m, pfn);
	if (t.folio && folio_test_anon(t.folio)) {
		t.es = &r.es;
		cow_instance(r.m)->walk_step = at_walk_step;
		cow_instance(r.m)->walk_step_data = &t;
		do_walk(&t);
	}
	cc_run_end(&r);
	return t.step;
}

static void steps_run(const char *text, unsigned long seed, bool unmap,
		      struct steps_stats *st)
{
	unsigned long pfns[64];
	int nr_pfns = 0, nr_procs, w, k, p, j, nr_steps;
	struct cc_run r = { 0 };
	struct folio *folio;

	if (cc_run_text(&r, &cow_context_rmap_ops, "steps", text, stderr) < 0)
		return;
	nr_procs = r.es.nr_procs;
	list_for_each_entry(folio, &r.m->folios, lru)
		if (folio_test_anon(folio) && nr_pfns < 64)
			pfns[nr_pfns++] = folio->pfn;
	cc_run_end(&r);
	if (!nr_pfns)
		return;
	/* two folios per seed, the most shared first among a seeded pick */
	for (j = 0; j < 2; j++) {
		unsigned long pfn = pfns[mix(seed + j) % nr_pfns];

		nr_steps = steps_of(text, pfn);
		for (w = 0; w < NR_WRITERS; w++)
			for (p = 0; p < nr_procs; p++)
				for (k = 0; k < nr_steps; k++) {
					struct steps_trial t = {
						.w = w, .target = p, .k = k,
						.rnd = mix(seed ^ ((unsigned long)w << 8 | p)),
						.fork_point = (int)(mix(seed + k) % 8),
						.unmap = unmap,
					};

					steps_one(text, seed, pfn, &t, st);
				}
	}
}

static void steps_report(struct steps_stats *st, const char *what,
			 bool unmap)
{
	int w;
	bool all = true;

	for (w = 0; w < NR_WRITERS; w++)
		if (!st->per_writer[w]) {
			all = false;
			tap_diag("%s: %s never acted", what, writer_name[w]);
		}
	ok(st->trials > 1000 && all,
	   "%s: %lu trials, %lu with a writer inside the walk, every writer acted",
	   what, st->trials, st->acted);
	is_long(st->missed, 0,
		"%s: every mapping there before and after the walk is found, and the invariants hold",
		what);
	if (!unmap)
		is_long(st->phantom, 0, "%s: nothing made up", what);
	is_long(st->dup, 0, "%s: nothing reported twice", what);
	if (unmap)
		is_long(st->left_mapped, 0,
			"%s: no mapping is left, whatever writer comes", what);
	ok(st->mm_retries && st->fork_waits,
	   "%s: %lu visits of an mm again after a remap writer came, %lu waits for a fork holding a VMA",
	   what, st->mm_retries, st->fork_waits);
	if (st->first[0])
		tap_diag("first: %s", st->first);
}

static void walk_steps(void)
{
	static struct steps_stats st, unmapping;
	const char *env = getenv("COWCTX_RACE_SEED");
	unsigned long seed;
	int i;

	if (env)
		steps_seed = strtoul(env, NULL, 0);
	tap_diag("writers inside the walk: seed %lu (COWCTX_RACE_SEED)",
		 steps_seed);
	steps_run(family, steps_seed, false, &st);
	steps_run(family, steps_seed, true, &unmapping);
	for (i = 1; i <= 3; i++) {
		char *text;

		seed = mix(steps_seed + i) % 100000;
		text = cc_gen_text(seed, 40);
		if (text)
			steps_run(text, seed, false, &st);
		free(text);
	}
	steps_report(&st, "writers at every walk step", false);
	steps_report(&unmapping, "writers at every step of an unmapping walk",
		     true);
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
	walk_steps();
	return tap_done();
}
