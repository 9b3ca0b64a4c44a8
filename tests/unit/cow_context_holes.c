// SPDX-License-Identifier: GPL-2.0
/*
 * One test per hole that issue 9 found in the cow_context walk's
 * concurrency argument. Each puts another CPU's action exactly where
 * the hole is (the model's fork hook, or the walk's own step hook) and
 * checks what the walk must guarantee there:
 *
 *  1. a first fault in the parent during dup_mmap(), before the VMA is
 *     copied: the child's copy must not be pruned away;
 *  2. exclusive reuse in the parent during dup_mmap(): the same;
 *  3. a first mremap of an mm, after the walk decided how to visit it:
 *     an unmapping walk must leave no mapping behind;
 *  4. folio_move_anon_rmap() between the walk's reads of the folio's
 *     context and of its stamp: the mapping must still be found;
 *  5. a VMA write-locked by a writer that wants the remap lock: the walk
 *     must not enter it while holding that lock (the kernel would
 *     deadlock), and a try-walker must give up and say so;
 *  6. the walk's visit of an mm must pin it (mmget_not_zero());
 *  7. context references taken from two threads at once must not be
 *     lost (atomic counts);
 *  8. exit splicing a context out while the walk climbs out of its last
 *     child or back into it: every mapping once, none lost.
 *  9. walks that overlap without pause hold every splice of their tree
 *     off: with the backlog at its bound, a new walk must wait for the
 *     walks in the tree to end and make the splices (a try-walker must
 *     give up), and then find every mapping once.
 */
#include <pthread.h>
#include <stdlib.h>
#include <ucontext.h>

#include "cow_context_harness.h"
#include "mm/internal.h"
#include "tap.h"

#define BASE	0x100000000000UL
#define OTHER	0x100000400000UL

struct found {
	int nr;
	unsigned long mm_id[16];
	bool entered_write_locked;
	bool unmap;
};

static bool note(struct folio *folio, struct vm_area_struct *vma,
		 unsigned long address, void *arg)
{
	struct found *f = arg;
	pte_t *ptep;

	if (vma_is_write_locked(vma))
		f->entered_write_locked = true;
	if (f->nr < 16)
		f->mm_id[f->nr] = vma->vm_mm->id;
	f->nr++;
	if (f->unmap) {
		ptep = pte_lookup(vma->vm_mm, address);
		if (ptep && ptep->folio == folio)
			pte_clear_and_put(vma->vm_mm, address, ptep);
	}
	return true;
}

static struct folio *folio_at(struct mm_struct *mm, unsigned long addr)
{
	pte_t *ptep = pte_lookup(mm, addr);

	return ptep && pte_present(*ptep) ? ptep->folio : NULL;
}

static int walk_count(struct folio *folio, struct found *f)
{
	struct rmap_walk_control rwc = { .rmap_one = note, .arg = f };

	rmap_walk(folio, &rwc);
	return f->nr;
}

static int nr_mappings(struct model *m, struct folio *folio)
{
	struct mm_struct *mms[16];
	unsigned long addrs[16];

	return cc_mappings(m, folio, mms, addrs, 16);
}

/* ---- 1, 2: the parent writes while dup_mmap() copies ------------- */

struct midfork {
	struct mm_struct *parent;
	unsigned long addr;
	enum model_hook_point when;
	bool done;
};

/*
 * The kernel's fault runs under the per-VMA lock, not mmap_lock, so it
 * can run while dup_mmap() holds the parent's mmap_lock; the model's
 * fault path takes mmap_lock, so the hook lends it for the fault.
 */
static void write_mid_fork(struct model *m, enum model_hook_point where,
			   struct mm_struct *mm, struct vm_area_struct *vma)
{
	struct midfork *mf = m->hook_data;

	(void)mm;
	(void)vma;
	if (mf->done || where != mf->when)
		return;
	mf->done = true;
	up_write(&mf->parent->mmap_lock);
	if (handle_access(mf->parent, mf->addr, true))
		tap_diag("the write mid-fork failed");
	down_write(&mf->parent->mmap_lock);
}

static void fault_mid_fork(const char *what, const char *text,
			   unsigned long addr, enum model_hook_point when)
{
	struct cc_run r = { 0 };
	struct midfork mf = { .addr = addr, .when = when };
	struct mm_struct *child;
	struct folio *folio;
	struct found f = { 0 };

	if (cc_run_text(&r, &cow_context_rmap_ops, what, text, stderr) < 0 ||
	    r.ret) {
		ok(0, "%s: scenario builds", what);
		return;
	}
	mf.parent = r.es.procs[0].mm;
	r.m->hook = write_mid_fork;
	r.m->hook_data = &mf;
	if (mm_fork(mf.parent, "C", &child)) {
		ok(0, "%s: fork", what);
		goto out;
	}
	r.m->hook = NULL;
	folio = folio_at(mf.parent, addr);
	if (!mf.done || !folio || nr_mappings(r.m, folio) != 2) {
		ok(0, "%s: the write happened mid-fork and the child copied it",
		   what);
		goto out;
	}
	is_long(walk_count(folio, &f), 2,
		"%s: the walk finds the parent and the child", what);
out:
	cc_exit_all(&r);
	cc_run_end(&r);
}

/* ---- the walk's step hook ---------------------------------------- */

struct stepper {
	enum cow_walk_step when;
	int skip;		/* act at the (skip + 1)-th such step */
	void (*act)(struct stepper *s, struct cow_context *ctx);
	struct cc_run *r;
	bool done;
	bool pinned;		/* the visited mm was pinned at that step */
	struct vm_area_struct *locked;
};

static void at_step(struct cow_instance *inst, enum cow_walk_step step,
		    struct cow_context *ctx, void *data)
{
	struct stepper *s = data;

	(void)inst;
	if (step == COW_STEP_VMA_BUSY && s->locked) {
		/* the writer finishes while the walk waits for it */
		mmap_write_unlock(s->locked->vm_mm);
		s->locked = NULL;
		return;
	}
	if (s->done || step != s->when || s->skip-- > 0)
		return;
	s->done = true;
	s->pinned = ctx->mm_pins > 0;
	s->act(s, ctx);
}

/* 3: the first move of this mm, with the walk between decision and visit */
static void first_move(struct stepper *s, struct cow_context *ctx)
{
	struct mm_struct *mm = s->r->es.procs[0].mm;

	if (ctx->mm != mm)
		return;
	if (do_mremap(mm, BASE, PAGE_SIZE, PAGE_SIZE,
		      MREMAP_MAYMOVE | MREMAP_FIXED, OTHER))
		tap_diag("the move failed");
}

static void remap_check(void)
{
	static const char text[] =
		"proc P\n"
		"P mmap 0x100000000000 16K rw\n"
		"P touch 0x100000000000 16K write\n";
	struct cc_run r = { 0 };
	struct stepper s = { .when = COW_STEP_MM, .act = first_move, .r = &r };
	struct found f = { .unmap = true };
	struct folio *folio;

	if (cc_run_text(&r, &cow_context_rmap_ops, "remap", text, stderr) < 0 ||
	    r.ret) {
		ok(0, "remap check: scenario builds");
		return;
	}
	folio = folio_at(r.es.procs[0].mm, BASE);
	folio_get(folio);
	cow_instance(r.m)->walk_step = at_step;
	cow_instance(r.m)->walk_step_data = &s;
	walk_count(folio, &f);
	cow_instance(r.m)->walk_step = NULL;
	/* a move that did not come mid-walk comes now (and fails the test) */
	if (!s.done || vma_lookup(r.es.procs[0].mm, OTHER) == NULL)
		first_move(&s, mm_cow_context(r.es.procs[0].mm));
	ok(s.done && cow_instance(r.m)->walk.mm_retries == 1,
	   "the first mremap came between the walk's remap check and its visit, and the walk visited the mm again");
	is_long(nr_mappings(r.m, folio), 0,
		"a first mremap racing the walk's remap check: the unmapping walk leaves no mapping");
	folio_put(folio);
	cc_exit_all(&r);
	cc_run_end(&r);
}

/* 4: exclusive reuse by the only mapper, between the walk's reads */
static void reuse_by_child(struct stepper *s, struct cow_context *ctx)
{
	(void)ctx;
	if (handle_access(s->r->es.procs[0].mm, BASE, true))
		tap_diag("the reuse write failed");
}

static void move_race(void)
{
	static const char text[] =
		"proc P\n"
		"P mmap 0x100000000000 16K rw\n"
		"P touch 0x100000000000 16K write\n"
		"P fork C\n"
		"P exit\n";
	struct cc_run r = { 0 };
	struct stepper s = { .when = COW_STEP_ROOT_READ, .act = reuse_by_child,
			     .r = &r };
	struct found f = { 0 };
	struct folio *folio;
	struct cow_context *before;

	if (cc_run_text(&r, &cow_context_rmap_ops, "move", text, stderr) < 0 ||
	    r.ret) {
		ok(0, "move race: scenario builds");
		return;
	}
	folio = folio_at(r.es.procs[0].mm, BASE);
	before = folio_cow_context(folio);
	/*
	 * No reference of the walker's here: reuse checks the refcount
	 * before a walker that comes later can take one.
	 */
	cow_instance(r.m)->walk_step = at_step;
	cow_instance(r.m)->walk_step_data = &s;
	walk_count(folio, &f);
	cow_instance(r.m)->walk_step = NULL;
	ok(s.done && folio_cow_context(folio) != before,
	   "move race: the folio moved to the child's context mid-walk");
	is_long(f.nr, 1,
		"folio_move_anon_rmap() between the walk's reads of context and stamp: the mapping is found");
	cc_exit_all(&r);
	cc_run_end(&r);
}

/* 5: a VMA write-locked by a writer that waits for the remap lock */
static void vma_busy(bool try_lock)
{
	static const char text[] =
		"proc P\n"
		"P mmap 0x100000000000 16K rw\n"
		"P touch 0x100000000000 16K write\n"
		"P mremap 0x100000000000 16K 16K to 0x100000400000\n";
	struct cc_run r = { 0 };
	struct stepper s = { .when = NR_COW_WALK_STEPS, .r = &r };
	struct found f = { 0 };
	struct rmap_walk_control rwc = { .rmap_one = note, .arg = &f,
					 .try_lock = try_lock };
	struct mm_struct *mm;
	struct folio *folio;

	if (cc_run_text(&r, &cow_context_rmap_ops, "busy", text, stderr) < 0 ||
	    r.ret) {
		ok(0, "busy VMA: scenario builds");
		return;
	}
	mm = r.es.procs[0].mm;
	folio = folio_at(mm, OTHER);
	s.locked = vma_lookup(mm, OTHER);
	/* a writer in the middle of its change: the model's own VMA lock */
	mmap_write_lock(mm);
	vma_start_write(s.locked);
	cow_instance(r.m)->walk_step = at_step;
	cow_instance(r.m)->walk_step_data = &s;
	rmap_walk(folio, &rwc);
	cow_instance(r.m)->walk_step = NULL;
	if (s.locked)
		mmap_write_unlock(mm);
	ok(!f.entered_write_locked,
	   "%s: the walk never enters a VMA write-locked by a writer waiting for the remap lock",
	   try_lock ? "try-walker" : "walker");
	if (try_lock)
		ok(rwc.contended && f.nr == 0,
		   "try-walker: gives up and reports contention");
	else
		is_long(f.nr, 1, "walker: waits for the writer and finds the mapping");
	cc_exit_all(&r);
	cc_run_end(&r);
}

/* 6: the visit pins the mm */
static void nothing(struct stepper *s, struct cow_context *ctx)
{
	(void)s;
	(void)ctx;
}

static void mm_pin(void)
{
	static const char text[] =
		"proc P\n"
		"P mmap 0x100000000000 16K rw\n"
		"P touch 0x100000000000 16K write\n";
	struct cc_run r = { 0 };
	struct stepper s = { .when = COW_STEP_MM, .act = nothing, .r = &r };
	struct found f = { 0 };

	if (cc_run_text(&r, &cow_context_rmap_ops, "pin", text, stderr) < 0 ||
	    r.ret) {
		ok(0, "mm pin: scenario builds");
		return;
	}
	cow_instance(r.m)->walk_step = at_step;
	cow_instance(r.m)->walk_step_data = &s;
	walk_count(folio_at(r.es.procs[0].mm, BASE), &f);
	ok(s.done && s.pinned, "the walk pins the mm it visits (mmget_not_zero)");
	cc_exit_all(&r);
	cc_run_end(&r);
}

/*
 * 8: an exit while the walk climbs out of a context's children. Until
 * the splice waited for the walks in its tree, a context spliced out
 * there led the walk into its children again.
 */
struct climb {
	struct cc_run *r;
	const char *victim;	/* the process that exits */
	const char *at;		/* at the climb step of this one's context */
	struct cow_context *at_ctx, *victim_ctx;
	bool done, spliced;
	int nr;
	unsigned long mm_id[16], addr[16];
};

static void exit_proc(struct exec_state *es, const char *name)
{
	int i;

	for (i = 0; i < es->nr_procs; i++)
		if (!strcmp(es->procs[i].name, name)) {
			mm_exit(es->procs[i].mm);
			es->procs[i] = es->procs[--es->nr_procs];
			return;
		}
}

static void at_climb(struct cow_instance *inst, enum cow_walk_step step,
		     struct cow_context *ctx, void *data)
{
	struct climb *c = data;
	struct cow_context *victim;

	(void)inst;
	if (c->done || step != COW_STEP_CLIMB || ctx != c->at_ctx)
		return;
	c->done = true;
	victim = mm_cow_context(exec_find_proc(&c->r->es, c->victim)->mm);
	/*
	 * C's own folio, mapped by G1 and G2 after C goes, pins its
	 * context: readable after the walk
	 */
	c->victim_ctx = victim;
	exit_proc(&c->r->es, c->victim);
	c->spliced = CMM_LOAD_SHARED(victim->spliced);
}

static bool note_climb(struct folio *folio, struct vm_area_struct *vma,
		       unsigned long address, void *arg)
{
	struct climb *c = arg;

	(void)folio;
	if (c->nr < 16) {
		c->mm_id[c->nr] = vma->vm_mm->id;
		c->addr[c->nr] = address;
	}
	c->nr++;
	return true;
}

/* How often the walk reported (@mm, @addr) */
static int times_found(const struct climb *c, struct mm_struct *mm,
		       unsigned long addr)
{
	int i, n = 0;

	for (i = 0; i < c->nr && i < 16; i++)
		n += c->mm_id[i] == mm->id && c->addr[i] == addr;
	return n;
}

/*
 * P's folio is mapped by P, C, its children G1 and G2, and D; C's own
 * folio by C, G1 and G2. C exits as the walk stands on G2 with C's
 * children done (climbing out), or on C again after them (climbing
 * in). Spliced then, C's children would sit where C was, and C's
 * ->siblings.next would lead to G1, which the walk has visited. The
 * splice must wait for the walk's end, and happen then.
 */
static void splice_climb(const char *what, unsigned long addr,
			 const char *at)
{
	static const char text[] =
		"proc P\n"
		"P mmap 0x100000000000 16K rw\n"
		"P touch 0x100000000000 16K write\n"
		"P fork C\n"
		"C touch 0x100000001000 4K write\n"
		"C fork G1\n"
		"C fork G2\n"
		"P fork D\n";
	struct cc_run r = { 0 };
	struct climb c = { .r = &r, .victim = "C", .at = at };
	struct rmap_walk_control rwc = { .rmap_one = note_climb, .arg = &c };
	struct mm_struct *mms[16];
	unsigned long addrs[16];
	struct folio *folio;
	long deferred;
	int i, n, lost = 0, twice = 0;

	if (cc_run_text(&r, &cow_context_rmap_ops, "climb", text, stderr) < 0 ||
	    r.ret) {
		ok(0, "%s: scenario builds", what);
		return;
	}
	folio = folio_at(exec_find_proc(&r.es, "C")->mm, addr);
	c.at_ctx = mm_cow_context(exec_find_proc(&r.es, at)->mm);
	folio_get(folio);
	cow_instance(r.m)->walk_step = at_climb;
	cow_instance(r.m)->walk_step_data = &c;
	deferred = cow_instance(r.m)->splices_deferred;
	rmap_walk(folio, &rwc);
	cow_instance(r.m)->walk_step = NULL;
	is_long(cow_instance(r.m)->splices_deferred - deferred, 1,
		"%s: C's splice is counted as one that waited for a walk", what);
	n = cc_mappings(r.m, folio, mms, addrs, 16);
	for (i = 0; i < n; i++) {
		lost += !times_found(&c, mms[i], addrs[i]);
		twice += times_found(&c, mms[i], addrs[i]) > 1;
	}
	ok(c.done && !c.spliced && c.victim_ctx &&
	   CMM_LOAD_SHARED(c.victim_ctx->spliced) && n >= 2,
	   "%s: C exited at the climb step of %s's context and was spliced out when the walk ended, not before; %d mappings left",
	   what, at, n);
	ok(!lost && !twice && c.nr <= n + 1,
	   "%s: every mapping reported once, none lost (%d reports, %d mappings after, %d lost, %d twice)",
	   what, c.nr, n, lost, twice);
	folio_put(folio);
	cc_exit_all(&r);
	cc_run_end(&r);
}

/*
 * 9: the splice backlog. P's folio is mapped by P, A, X1, X2, X3 and B.
 * An outer walk of it stands on its first context when X1 and X2 exit:
 * their splices wait on the tree's list, which the bound (2 here) then
 * holds full. There, a try-walk of the folio must give up and report
 * nothing; and a walk that may wait (run as a coroutine: the model's
 * walks are one thread's) must wait at COW_STEP_BACKLOG, until the outer
 * walk has ended and made the splices, then report every mapping once.
 * With no bound, the same walk enters at once, amid the held-off
 * splices.
 */
struct backlog {
	struct cc_run *r;
	struct folio *folio;
	int bound;
	bool acted, waiting, gave_up, reported, entered_full, twice;
	int outer_nr, waiter_nr, waits;
	unsigned long waiter_mm[16];
	ucontext_t main_ctx, walk_ctx;
	bool walk_done;
};

static struct backlog *backlog_trial;

static bool note_waiter(struct folio *folio, struct vm_area_struct *vma,
			unsigned long address, void *arg)
{
	struct backlog *b = arg;
	int i;

	(void)folio;
	(void)address;
	if (cow_splice_backlog_full(cow_context_tree_root(vma->anon_vma)))
		b->entered_full = true;
	for (i = 0; i < b->waiter_nr && i < 16; i++)
		b->twice |= b->waiter_mm[i] == vma->vm_mm->id;
	if (b->waiter_nr < 16)
		b->waiter_mm[b->waiter_nr] = vma->vm_mm->id;
	b->waiter_nr++;
	return true;
}

static bool note_any(struct folio *folio, struct vm_area_struct *vma,
		     unsigned long address, void *arg)
{
	int *nr = arg;

	(void)folio;
	(void)vma;
	(void)address;
	(*nr)++;
	return true;
}

static void backlog_walker(void)
{
	struct backlog *b = backlog_trial;
	struct rmap_walk_control rwc = { .rmap_one = note_waiter, .arg = b };

	rmap_walk(b->folio, &rwc);
	b->walk_done = true;
}

static void at_backlog(struct cow_instance *inst, enum cow_walk_step step,
		       struct cow_context *ctx, void *data)
{
	static char stack[1 << 18];
	struct backlog *b = data;
	int nr = 0;
	struct rmap_walk_control try = {
		.rmap_one = note_any, .arg = &nr, .try_lock = true,
	};

	(void)ctx;
	if (step == COW_STEP_BACKLOG && b->waiting) {
		/* the waiter sleeps: the outer walk goes on */
		b->waits++;
		swapcontext(&b->walk_ctx, &b->main_ctx);
		return;
	}
	if (b->acted || step != COW_STEP_CONTEXT)
		return;
	b->acted = true;
	inst->splice_backlog_max = b->bound;
	exit_proc(&b->r->es, "X1");
	exit_proc(&b->r->es, "X2");
	rmap_walk(b->folio, &try);
	b->gave_up = try.contended && !nr;
	b->reported = nr;
	getcontext(&b->walk_ctx);
	b->walk_ctx.uc_stack.ss_sp = stack;
	b->walk_ctx.uc_stack.ss_size = sizeof(stack);
	b->walk_ctx.uc_link = &b->main_ctx;
	backlog_trial = b;
	b->waiting = true;
	makecontext(&b->walk_ctx, backlog_walker, 0);
	swapcontext(&b->main_ctx, &b->walk_ctx);
}

static void splice_backlog(int bound)
{
	static const char text[] =
		"proc P\n"
		"P mmap 0x100000000000 16K rw\n"
		"P touch 0x100000000000 16K write\n"
		"P fork A\n"
		"P fork X1\n"
		"P fork X2\n"
		"P fork X3\n"
		"P fork B\n";
	struct cc_run r = { 0 };
	struct backlog b = { .r = &r, .bound = bound };
	struct rmap_walk_control rwc = { .rmap_one = note_any,
					 .arg = &b.outer_nr };
	struct cow_context *tree;
	struct cow_instance *inst;
	unsigned long waits, gave_up, addrs[16];
	struct mm_struct *mms[16];
	int n;

	if (cc_run_text(&r, &cow_context_rmap_ops, "backlog", text,
			stderr) < 0 || r.ret) {
		ok(0, "backlog: scenario builds");
		return;
	}
	inst = cow_instance(r.m);
	b.folio = folio_at(exec_find_proc(&r.es, "P")->mm, BASE);
	folio_get(b.folio);
	tree = cow_context_tree_root(folio_cow_context(b.folio));
	waits = inst->walk.backlog_waits;
	gave_up = inst->walk.backlog_gave_up;
	inst->walk_step = at_backlog;
	inst->walk_step_data = &b;
	rmap_walk(b.folio, &rwc);
	ok(b.acted && CMM_LOAD_SHARED(tree->nr_deferred) == 0 &&
	   !tree->deferred,
	   "backlog %d: X1 and X2 exited in the walk; its end made their splices",
	   bound);
	if (bound) {
		ok(b.gave_up && !b.reported &&
		   inst->walk.backlog_gave_up - gave_up == 1,
		   "backlog %d: a try-walk at the full backlog gave up, reporting nothing",
		   bound);
		ok(!b.walk_done && b.waits == 1 && b.waiter_nr == 0 &&
		   inst->walk.backlog_waits - waits == 1,
		   "backlog %d: a walk that may wait waited, and entered no tree, while the outer walk ran",
		   bound);
		if (!b.walk_done)
			swapcontext(&b.main_ctx, &b.walk_ctx);
	} else {
		ok(!b.gave_up && b.reported && b.walk_done && !b.waits &&
		   inst->walk.backlog_waits == waits,
		   "backlog off: both walks entered at once, amid the held-off splices");
	}
	inst->walk_step = NULL;
	n = cc_mappings(r.m, b.folio, mms, addrs, 16);
	ok(b.walk_done && !b.entered_full && !b.twice && b.waiter_nr == n &&
	   n == 4,
	   "backlog %d: the waiting walk %s, and reported each of the %d mappings once (%d reports)",
	   bound, bound ? "entered once the splices were made" : "ran",
	   n, b.waiter_nr);
	folio_put(b.folio);
	cc_exit_all(&r);
	cc_run_end(&r);
}

/* 7: references from two threads */
#define HAMMER	2000000

static void *hammer(void *arg)
{
	struct cow_context *ctx = arg;
	int i;

	for (i = 0; i < HAMMER; i++) {
		if (i & 1) {
			cow_context_get(ctx);
		} else if (!cow_context_tryget(ctx)) {
			continue;
		}
		cow_context_put(ctx);
	}
	return NULL;
}

static void atomic_counts(void)
{
	static struct cow_context ctx;
	pthread_t t[2];
	int i;

	ctx.refcount = 1000;	/* never reaches 0 unless an update is lost */
	for (i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, hammer, &ctx)) {
			ok(0, "threads start");
			return;
		}
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	is_long(ctx.refcount, 1000,
		"gets, trygets and puts from two threads: no update lost");
}

int main(void)
{
	static const char one_vma[] =
		"proc P\n"
		"P mmap 0x100000000000 64K rw\n"
		"P touch 0x100000000000 4K write\n";
	static const char two_vmas[] =
		"proc P\n"
		"P mmap 0x100000000000 16K rw\n"
		"P touch 0x100000000000 4K write\n"
		"P mmap 0x100000400000 16K rw\n"
		"P touch 0x100000400000 4K write\n";
	static const char reuse[] =
		"proc P\n"
		"P mmap 0x100000000000 16K rw\n"
		"P touch 0x100000000000 16K write\n"
		"P fork A\n"
		"A exit\n";

	fault_mid_fork("first fault before any VMA is copied", one_vma,
		       BASE + 0x8000, HOOK_FORK_START);
	fault_mid_fork("first fault in a VMA not yet copied", two_vmas,
		       OTHER + 0x1000, HOOK_FORK_VMA_LINKED);
	fault_mid_fork("exclusive reuse before the VMA is copied", reuse,
		       BASE, HOOK_FORK_START);
	remap_check();
	move_race();
	vma_busy(false);
	vma_busy(true);
	mm_pin();
	splice_climb("P's folio, climbing out of the last child", BASE, "G2");
	splice_climb("P's folio, climbing back into the context", BASE, "C");
	splice_climb("the root's folio, climbing out of the last child",
		     BASE + 0x1000, "G2");
	splice_climb("the root's folio, climbing back into the root",
		     BASE + 0x1000, "C");
	splice_backlog(2);
	splice_backlog(0);
	atomic_counts();
	return tap_done();
}
