// SPDX-License-Identifier: GPL-2.0
/*
 * Replaying a program on several model instances at once, with every
 * operation charged to its phase: time, rmap allocations, and the
 * family-wide lock's acquisitions and the objects touched under it.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#endif
#endif
#ifndef CALLGRIND_TOGGLE_COLLECT
#define CALLGRIND_TOGGLE_COLLECT do { } while (0)
#endif

#include "bench/bench.h"

const char *const bench_phase_name[NR_PHASES] = {
	[PH_MMAP] = "mmap",
	[PH_FAULT] = "fault",
	[PH_FORK] = "fork",
	[PH_MREMAP] = "mremap",
	[PH_MPROTECT] = "mprotect",
	[PH_MUNMAP] = "munmap",
	[PH_EXIT] = "exit",
	[PH_WALK] = "walk",
	[PH_FULL_WALK] = "full_walk",
};

static unsigned long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long)ts.tv_sec * 1000000000UL + ts.tv_nsec;
}

/*
 * What two back-to-back clock reads cost, measured once: taken off
 * every timed interval, so a walk of a few tens of nanoseconds is not
 * mostly the clock's own time.
 */
static unsigned long clock_cost(void)
{
	static unsigned long cost = ~0UL;
	unsigned long v[101];
	struct sample_set s = { .v = v, .nr = 101, .capacity = 101 };
	int i;

	if (cost != ~0UL)
		return cost;
	for (i = 0; i < 101; i++) {
		unsigned long t = now_ns();

		v[i] = now_ns() - t;
	}
	cost = sample_median(&s);
	return cost;
}

static unsigned long elapsed_since(unsigned long t)
{
	unsigned long ns = now_ns() - t, cost = clock_cost();

	return ns > cost ? ns - cost : 0;
}

void bench_run_init(struct bench_run *br, const struct rmap_ops *ops)
{
	memset(br, 0, sizeof(*br));
	br->ops = ops;
	br->fork_instructions = NAN;
}

void bench_run_release(struct bench_run *br)
{
	if (br->m)
		model_destroy(br->m);
	br->m = NULL;
	model_free(br->procs);
	br->procs = NULL;
	model_free(br->fork_ns.v);
	model_free(br->exit_ns.v);
	model_free(br->walk[WALK_RECLAIM].ns.v);
	model_free(br->walk[WALK_FULL].ns.v);
	model_free(br->op_ns);
	br->op_ns = NULL;
	br->fork_ns = br->exit_ns = (struct sample_set){ 0 };
	br->walk[WALK_RECLAIM].ns = br->walk[WALK_FULL].ns =
		(struct sample_set){ 0 };
}

static int sample_add(struct sample_set *s, unsigned long v)
{
	if (s->nr == s->capacity) {
		size_t cap = s->capacity ? 2 * s->capacity : 1024;
		unsigned long *nv = model_realloc(s->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		s->v = nv;
		s->capacity = cap;
	}
	s->v[s->nr++] = v;
	return 0;
}

static int cmp_ulong(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a;
	unsigned long y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/* 0 for an empty set; sorts the samples in place */
unsigned long sample_median(const struct sample_set *s)
{
	if (!s->nr)
		return 0;
	qsort(s->v, s->nr, sizeof(*s->v), cmp_ulong);
	if (s->nr & 1)
		return s->v[s->nr / 2];
	return (s->v[s->nr / 2 - 1] + s->v[s->nr / 2]) / 2;
}

/* linear interpolation between the closest ranks, as R's default */
double sample_quartile(const struct sample_set *s, int q)
{
	double pos, frac;
	size_t i;

	if (!s->nr)
		return 0;
	qsort(s->v, s->nr, sizeof(*s->v), cmp_ulong);
	pos = (s->nr - 1) * q / 4.0;
	i = (size_t)pos;
	frac = pos - i;
	if (i + 1 >= s->nr)
		return s->v[s->nr - 1];
	return s->v[i] + frac * ((double)s->v[i + 1] - s->v[i]);
}

/* The counters a phase is charged with, as they were when it began */
struct phase_mark {
	unsigned long allocs;
	unsigned long acquired;
	unsigned long objects;
	unsigned long max_before;
	unsigned long t;
};

static unsigned long rmap_allocs(const struct account *acct)
{
	unsigned long n = 0;
	int i;

	for (i = 0; i < acct->nr_types; i++)
		n += acct->type[i].allocs;
	return n;
}

static void phase_begin(struct bench_run *br, struct phase_mark *pm)
{
	struct lock_stat *fl = &br->m->family_lock_stat;

	pm->allocs = rmap_allocs(&br->m->acct);
	pm->acquired = fl->read_acquired + fl->write_acquired;
	pm->objects = fl->objects_touched;
	/* the lock keeps a running maximum: take this phase's alone */
	pm->max_before = fl->max_touched;
	fl->max_touched = 0;
	pm->t = br->callgrind ? 0 : (clock_cost(), now_ns());
}

static unsigned long phase_end(struct bench_run *br, enum bench_phase ph,
			       const struct phase_mark *pm)
{
	struct lock_stat *fl = &br->m->family_lock_stat;
	struct phase_stat *ps = &br->phase[ph];
	unsigned long ns = br->callgrind ? 0 : elapsed_since(pm->t);

	ps->calls++;
	ps->ns += ns;
	ps->allocs += rmap_allocs(&br->m->acct) - pm->allocs;
	ps->lock_acquired += fl->read_acquired + fl->write_acquired -
			     pm->acquired;
	ps->lock_objects += fl->objects_touched - pm->objects;
	if (fl->max_touched > ps->lock_max)
		ps->lock_max = fl->max_touched;
	if (pm->max_before > fl->max_touched)
		fl->max_touched = pm->max_before;
	if (br->op_ns && ph != PH_WALK && ph != PH_FULL_WALK)
		br->op_ns[br->cur_op] += ns;
	return ns;
}

static int fail(struct bench_run *br, const struct bench_op *op, int err,
		const char *what)
{
	/* a user's scenario: its line, as `cowctx run` would say it */
	if (op->line && br->path)
		snprintf(br->error, sizeof(br->error),
			 "%s:%d: %s: %s failed: %s", br->path, op->line,
			 br->ops->name, what, strerror(-err));
	else
		snprintf(br->error, sizeof(br->error),
			 "%s: %s of p%u at %#lx failed: %s", br->ops->name,
			 what, op->proc, op->addr, strerror(-err));
	return -1;
}

static struct mm_struct *proc_mm(struct bench_run *br,
				 const struct bench_op *op)
{
	struct mm_struct *mm = br->procs[op->proc];

	if (!mm)
		snprintf(br->error, sizeof(br->error),
			 "program bug: p%u is not alive", op->proc);
	return mm;
}

static int exec_ranges(struct bench_run *br, const struct bench_op *op,
		       struct mm_struct *mm)
{
	struct file *file = NULL;
	unsigned long k;
	int err = 0;

	if (op->type == OP_MMAP && op->file) {
		file = model_file(br->m, br->files[op->file_nr]);
		if (!file)
			return fail(br, op, -ENOMEM, "mmap");
	}
	for (k = 0; k < op->count && !err; k++) {
		unsigned long a = op->addr + k * op->stride;

		switch (op->type) {
		case OP_MMAP:
			err = do_mmap(mm, a, op->len, op->prot, file,
				      op->offset + k * op->len);
			break;
		case OP_MPROTECT:
			err = do_mprotect(mm, a, op->len, op->prot);
			break;
		case OP_MUNMAP:
			err = do_munmap(mm, a, op->len);
			break;
		case OP_MADVISE:
			err = do_madvise(mm, a, op->len, (int)op->flags);
			break;
		default:
			break;
		}
	}
	if (err)
		return fail(br, op, err, op->type == OP_MMAP ? "mmap" :
			    op->type == OP_MPROTECT ? "mprotect" :
			    op->type == OP_MADVISE ? "madvise" : "munmap");
	return 0;
}

static int exec_touch(struct bench_run *br, const struct bench_op *op,
		      struct mm_struct *mm)
{
	unsigned long pages = op->len >> PAGE_SHIFT, k, i;
	int err;

	for (k = 0; k < op->count; k++) {
		unsigned long a = op->addr + k * op->stride;

		for (i = 0; i < pages; i++) {
			if (!touch_selects(op, k * pages + i))
				continue;
			err = handle_access(mm, a + (i << PAGE_SHIFT),
					    op->write);
			if (err)
				return fail(br, op, err, "touch");
		}
	}
	return 0;
}

/* folio_referenced()'s argument: mappings still to be found */
struct referenced_arg {
	int mapcount;
	int referenced;
};

/*
 * folio_referenced_one(): test and clear the young bit, and stop the
 * walk once every mapping has been seen, as reclaim does.
 */
static bool referenced_one(struct folio *folio, struct vm_area_struct *vma,
			   unsigned long address, void *arg)
{
	struct referenced_arg *ra = arg;
	pte_t *ptep = pte_lookup(vma->vm_mm, address);

	(void)folio;
	if (ptep && (ptep->flags & _PAGE_ACCESSED)) {
		ptep->flags &= ~_PAGE_ACCESSED;
		ra->referenced++;
	}
	return --ra->mapcount > 0;
}

/*
 * remove_migration_ptes() and the other walks without a done() test
 * visit every candidate: the walk's whole cost, not reclaim's share.
 */
static bool count_one(struct folio *folio, struct vm_area_struct *vma,
		      unsigned long address, void *arg)
{
	struct referenced_arg *ra = arg;

	(void)folio;
	(void)vma;
	(void)address;
	ra->mapcount--;
	return true;
}

/* A pass's callback: the counted pass and the timing pass use the same */
static bool (*rmap_one_of(int kind))(struct folio *, struct vm_area_struct *,
				     unsigned long, void *)
{
	return kind == WALK_FULL ? count_one : referenced_one;
}

static int exec_walk(struct bench_run *br, int kind)
{
	struct walk_pass *wp = &br->walk[kind];
	struct model *m = br->m;
	unsigned long examined = m->walk.vmas_examined;
	unsigned long found = m->walk.mappings_found;
	struct folio *folio;

	list_for_each_entry(folio, &m->folios, lru) {
		struct referenced_arg ra;
		struct rmap_walk_control rwc = {
			.rmap_one = rmap_one_of(kind),
			.arg = &ra,
		};
		int err;

		if (!folio_test_anon(folio) || !folio_mapped(folio))
			continue;
		ra.mapcount = folio_mapcount(folio);
		ra.referenced = 0;
		err = rmap_walk(folio, &rwc);
		if (err) {
			snprintf(br->error, sizeof(br->error),
				 "%s: rmap_walk of folio %lu failed: %s",
				 br->ops->name, folio->pfn, strerror(-err));
			return -1;
		}
		wp->walks++;
		if (ra.mapcount > 0)
			wp->missed += ra.mapcount;
		else
			wp->extra -= ra.mapcount;
		wp->referenced += ra.referenced;
	}
	wp->examined += m->walk.vmas_examined - examined;
	wp->found += m->walk.mappings_found - found;
	return 0;
}

/*
 * Every counter a walk moves: the model's and the backend's own. The
 * timing pass puts them back, so that every figure counts each walk
 * once.
 */
struct walk_counters {
	struct walk_stats walk;
	struct lock_stat mmap_lock_stat;
	struct lock_stat ptl_stat;
	struct lock_stat family_lock_stat;
	struct family_stat family;
	void *backend;
	size_t backend_size;
};

static int counters_save(struct model *m, struct walk_counters *wc)
{
	void *block = m->rmap->counters ?
		      m->rmap->counters(m, &wc->backend_size) : NULL;

	wc->walk = m->walk;
	wc->mmap_lock_stat = m->mmap_lock_stat;
	wc->ptl_stat = m->ptl_stat;
	wc->family_lock_stat = m->family_lock_stat;
	wc->family = m->family;
	wc->backend = NULL;
	if (!block)
		return 0;
	wc->backend = model_zalloc(wc->backend_size);
	if (!wc->backend)
		return -ENOMEM;
	memcpy(wc->backend, block, wc->backend_size);
	return 0;
}

static void counters_restore(struct model *m, struct walk_counters *wc)
{
	size_t size;

	m->walk = wc->walk;
	m->mmap_lock_stat = wc->mmap_lock_stat;
	m->ptl_stat = wc->ptl_stat;
	m->family_lock_stat = wc->family_lock_stat;
	m->family = wc->family;
	if (wc->backend)
		memcpy(m->rmap->counters(m, &size), wc->backend,
		       wc->backend_size);
	model_free(wc->backend);
	wc->backend = NULL;
}

/*
 * The time of one walk of @folio. This machine's clock reads cost about
 * 20 ns and move in steps of 10 ns (the TSC too, under this
 * hypervisor), and a model walk takes from 10 ns to a few microseconds:
 * timed alone, a short walk came out as 10, 20 or 30 ns, and the least
 * over the replays, what a call is charged, favoured the low step. So
 * the walk is repeated back to back until the batch is about
 * WALK_BATCH_NS long (WALK_MAX_REPEAT times at most) and the batch
 * divided: a step is then a few percent of the figure at most. A first
 * walk, timed alone, says how many. Repeated, the walk finds the
 * folio's tree and pages in cache, for every backend alike: the figure
 * is the walk's work, not its cache misses.
 */
#define WALK_BATCH_NS		2000
#define WALK_MAX_REPEAT		32

static int time_one_walk(struct folio *folio, struct rmap_walk_control *rwc,
			 struct referenced_arg *ra, unsigned long *ns)
{
	unsigned long t, first, n, i;
	int err;

	ra->mapcount = folio_mapcount(folio);
	t = now_ns();
	err = rmap_walk(folio, rwc);
	first = elapsed_since(t);
	if (err)
		return err;
	n = WALK_BATCH_NS / (first > 10 ? first : 10);
	n = n < 1 ? 1 : n > WALK_MAX_REPEAT ? WALK_MAX_REPEAT : n;
	t = now_ns();
	for (i = 0; i < n && !err; i++) {
		ra->mapcount = folio_mapcount(folio);
		err = rmap_walk(folio, rwc);
	}
	*ns = (elapsed_since(t) + n / 2) / n;
	return err;
}

/*
 * The timing pass, after the counted one (exec_walk()) and outside its
 * phase: each folio's walk timed as time_one_walk() says, into the
 * pass's per-call samples; then every counter is put back.
 */
static int time_walks(struct bench_run *br, int kind)
{
	struct walk_pass *wp = &br->walk[kind];
	struct model *m = br->m;
	struct walk_counters wc;
	struct folio *folio;
	int err;

	if (br->callgrind)
		return 0;
	err = counters_save(m, &wc);
	list_for_each_entry(folio, &m->folios, lru) {
		struct referenced_arg ra = { 0 };
		struct rmap_walk_control rwc = {
			.rmap_one = rmap_one_of(kind),
			.arg = &ra,
		};
		unsigned long ns = 0;

		if (err)
			break;
		if (!folio_test_anon(folio) || !folio_mapped(folio))
			continue;
		err = time_one_walk(folio, &rwc, &ra, &ns);
		if (!err)
			err = sample_add(&wp->ns, ns);
	}
	counters_restore(m, &wc);
	if (err)
		snprintf(br->error, sizeof(br->error),
			 "%s: timing the walks failed: %s", br->ops->name,
			 strerror(-err));
	return err ? -1 : 0;
}

/* The two walk passes, each counted, then timed */
static int walk_passes(struct bench_run *br)
{
	struct phase_mark pm;
	int err, kind;

	for (kind = 0; kind < NR_WALKS; kind++) {
		phase_begin(br, &pm);
		err = exec_walk(br, kind);
		phase_end(br, kind == WALK_FULL ? PH_FULL_WALK : PH_WALK, &pm);
		if (!err)
			err = time_walks(br, kind);
		if (err)
			return err;
	}
	return 0;
}

/*
 * The backend's node type: the one named as the backend (anon_vma's
 * anon_vma, the COW context's cow_context, its variants' too), the
 * longest such name; -1 when none is.
 */
static long main_objects(const struct account *acct, const char *backend)
{
	size_t best = 0;
	long live = -1;
	int i;

	for (i = 0; i < acct->nr_types; i++) {
		size_t n = strlen(acct->type[i].name);

		if (n > best && !strncmp(acct->type[i].name, backend, n)) {
			best = n;
			live = acct->type[i].live;
		}
	}
	return live;
}

static void snapshot(struct bench_run *br)
{
	struct account *acct = &br->m->acct;

	br->snapped = true;
	br->snap_bytes = acct->bytes;
	br->snap_field_bytes = acct->field_bytes;
	br->snap_objects = account_live_total(acct);
	br->snap_vmas = br->m->nr_vmas;
	br->snap_mms = br->m->nr_mms;
	br->snap_folios = br->m->nr_anon_folios;
	br->snap_main = main_objects(acct, br->ops->name);
}

static const enum bench_phase op_phase[] = {
	[OP_PROC] = PH_MMAP,
	[OP_MMAP] = PH_MMAP,
	[OP_TOUCH] = PH_FAULT,
	[OP_MPROTECT] = PH_MPROTECT,
	[OP_MUNMAP] = PH_MUNMAP,
	[OP_MREMAP] = PH_MREMAP,
	[OP_FORK] = PH_FORK,
	[OP_EXIT] = PH_EXIT,
	[OP_WALK] = PH_WALK,
	[OP_SNAPSHOT] = PH_MMAP,
	[OP_MARK] = PH_MMAP,
	[OP_MADVISE] = PH_MUNMAP,
};

static int exec_fork(struct bench_run *br, const struct bench_op *op,
		     struct mm_struct *mm)
{
	struct phase_mark pm;
	char comm[16];
	int err;

	snprintf(comm, sizeof(comm), "p%u", op->child);
	phase_begin(br, &pm);
	if (br->callgrind)
		CALLGRIND_TOGGLE_COLLECT;
	err = mm_fork(mm, comm, &br->procs[op->child]);
	if (br->callgrind)
		CALLGRIND_TOGGLE_COLLECT;
	if (sample_add(&br->fork_ns, phase_end(br, PH_FORK, &pm)))
		err = -ENOMEM;
	return err ? fail(br, op, err, "fork") : 0;
}

static int exec_one(struct bench_run *br, const struct bench_op *op)
{
	struct mm_struct *mm = NULL;
	struct phase_mark pm;
	unsigned long ns;
	int err = 0;

	if (op->type == OP_PROC) {
		char comm[16];

		snprintf(comm, sizeof(comm), "p%u", op->proc);
		br->procs[op->proc] = mm_create(br->m, comm);
		return br->procs[op->proc] ? 0 :
		       fail(br, op, -ENOMEM, "proc");
	}
	if (op->type == OP_SNAPSHOT) {
		snapshot(br);
		return 0;
	}
	if (op->type == OP_MARK) {
		br->marked = true;
		br->mark_bytes = br->m->acct.bytes;
		return 0;
	}
	if (op->type == OP_WALK) {
		if (br->skip_walk)
			return 0;
		return walk_passes(br);
	}
	mm = proc_mm(br, op);
	if (!mm)
		return -1;
	if (op->type == OP_FORK)
		return exec_fork(br, op, mm);

	phase_begin(br, &pm);
	switch (op->type) {
	case OP_MMAP:
	case OP_MPROTECT:
	case OP_MUNMAP:
	case OP_MADVISE:
		err = exec_ranges(br, op, mm);
		break;
	case OP_TOUCH:
		err = exec_touch(br, op, mm);
		break;
	case OP_MREMAP:
		err = do_mremap(mm, op->addr, op->len, op->new_len, op->flags,
				op->new_addr);
		if (err)
			err = fail(br, op, err, "mremap");
		break;
	case OP_EXIT:
		mm_exit(mm);
		br->procs[op->proc] = NULL;
		break;
	default:
		break;
	}
	ns = phase_end(br, op_phase[op->type], &pm);
	if (op->type == OP_EXIT && sample_add(&br->exit_ns, ns))
		return fail(br, op, -ENOMEM, "exit");
	return err;
}

static int run_start(const struct bench_prog *p, struct bench_run *br)
{
	br->m = model_create(br->ops);
	if (br->m)
		br->m->forbids_zero_page = p->forbids_zero_page;
	br->procs = model_zalloc((p->nr_procs + 1) * sizeof(*br->procs));
	br->op_ns = model_zalloc((p->nr + 1) * sizeof(*br->op_ns));
	br->files = p->files;
	br->path = p->path;
	if (!br->m || !br->procs || !br->op_ns) {
		snprintf(br->error, sizeof(br->error), "%s: out of memory",
			 br->ops->name);
		return -1;
	}
	return 0;
}

/* every process gone: what is still live is a leak */
static void run_finish(struct bench_run *br)
{
	br->peak_bytes = br->m->acct.peak_bytes;
	br->leak_bytes = br->m->nr_mms ? -1 : br->m->acct.bytes;
}

int bench_exec(const struct bench_prog *p, struct bench_run *runs, int nr,
	       size_t stop_after, const char *label, FILE *progress)
{
	size_t n, end = stop_after ? stop_after : p->nr;
	unsigned long last = now_ns();
	int i;

	if (p->err) {
		snprintf(runs[0].error, sizeof(runs[0].error),
			 "building the program: %s", strerror(-p->err));
		return -1;
	}
	for (i = 0; i < nr; i++)
		if (run_start(p, &runs[i]))
			return -1;
	for (n = 0; n < end; n++) {
		for (i = 0; i < nr; i++) {
			runs[i].cur_op = n;
			if (exec_one(&runs[i], &p->ops[n]))
				return -1;
		}
		/* a line every few seconds: long runs show they move */
		if (progress && now_ns() - last > 5000000000UL) {
			last = now_ns();
			fprintf(progress, "bench: %s: %zu/%zu operations\n",
				label, n + 1, end);
		}
	}
	for (i = 0; i < nr; i++)
		run_finish(&runs[i]);
	return 0;
}

/*
 * For a driver other than bench_exec(): bench/real_programs.c replays
 * recordings, whose statements the bench's programs cannot express,
 * and measures them with the same snapshot, walks and phase counters.
 */
void bench_run_snapshot(struct bench_run *br)
{
	snapshot(br);
}

int bench_run_walks(struct bench_run *br)
{
	return walk_passes(br);
}

int bench_run_measured(struct bench_run *br, enum bench_phase ph,
		       int (*fn)(void *arg), void *arg)
{
	struct phase_mark pm;
	int err;

	phase_begin(br, &pm);
	err = fn(arg);
	phase_end(br, ph, &pm);
	return err;
}
