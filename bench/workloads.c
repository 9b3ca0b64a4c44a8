// SPDX-License-Identifier: GPL-2.0
/*
 * The workload generators. Each writes a program (bench/bench.h) from
 * its parameters; bench/README.md describes them. Every layout keeps a
 * one-page hole between mappings unless merging is the point, so the
 * VMA count, and with it the anon_vma count, is what the parameters
 * say and can be checked against docs/real-kernel.md's tables.
 *
 * Every program ends the same way: a snapshot of the steady state, one
 * reclaim pass over every anonymous folio (folio_referenced()), and
 * the exit of every process, so every workload also measures walks,
 * teardown and leaks.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"

#define RW	(PROT_READ | PROT_WRITE)
#define RX	(PROT_READ | PROT_EXEC)

/* A far-away region for a workload's second kind of mapping */
#define BENCH_FAR	(BENCH_BASE + 0x10000000000UL)

/* Which processes a generator has alive, in creation order */
struct procs {
	unsigned int *nr_of;	/* process numbers */
	bool *alive;
	size_t nr;
	size_t capacity;
};

static int procs_add(struct procs *ps, unsigned int proc)
{
	if (ps->nr == ps->capacity) {
		size_t cap = ps->capacity ? 2 * ps->capacity : 64;
		unsigned int *n;
		bool *a;

		n = model_realloc(ps->nr_of, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		ps->nr_of = n;
		a = model_realloc(ps->alive, cap * sizeof(*a));
		if (!a)
			return -ENOMEM;
		ps->alive = a;
		ps->capacity = cap;
	}
	ps->nr_of[ps->nr] = proc;
	ps->alive[ps->nr++] = true;
	return 0;
}

static void procs_free(struct procs *ps)
{
	model_free(ps->nr_of);
	model_free(ps->alive);
}

/* fork @parent (index into @ps) and remember the child; its index */
static size_t procs_fork(struct bench_prog *p, struct procs *ps,
			 size_t parent)
{
	unsigned int child = prog_fork(p, ps->nr_of[parent]);

	if (procs_add(ps, child))
		p->err = -ENOMEM;
	return ps->nr - 1;
}

static void procs_exit(struct bench_prog *p, struct procs *ps, size_t i)
{
	if (!ps->alive[i])
		return;
	prog_exit(p, ps->nr_of[i]);
	ps->alive[i] = false;
}

/* the common ending: steady state, a reclaim pass, then leaves first */
static void finish(struct bench_prog *p, struct procs *ps)
{
	size_t i;

	prog_simple(p, OP_SNAPSHOT);
	prog_simple(p, OP_WALK);
	for (i = ps->nr; i-- > 0;)
		procs_exit(p, ps, i);
}

static int done(struct bench_prog *p, struct procs *ps)
{
	procs_free(ps);
	return p->err;
}

/* A deterministic value in [0, n) for (a, b, c): layouts vary, runs don't */
static unsigned long pick(unsigned long a, unsigned long b, unsigned long c,
			  unsigned long n)
{
	unsigned long long x = a * 0x9e3779b97f4a7c15ULL ^
			       (b + 0x632be59bd9b4e019ULL) * 0xbf58476d1ce4e5b9ULL ^
			       (c + 0x85157af5ULL) * 0x94d049bb133111ebULL;

	x ^= x >> 29;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 32;
	return n ? (unsigned long)(x % n) : 0;
}

/* V mappings of P pages with a one-page hole after each, all written */
static void map_spread(struct bench_prog *p, unsigned int proc,
		       unsigned long base, long v, long pages, bool file)
{
	unsigned long len = pages << PAGE_SHIFT;
	unsigned long stride = (pages + 1) << PAGE_SHIFT;

	if (!v)
		return;
	prog_mmap(p, proc, base, len, v, stride, RW);
	if (!p->err && file) {
		unsigned int f = prog_file(p, "lib");

		p->ops[p->nr - 1].file = !p->err;
		p->ops[p->nr - 1].file_nr = f;
	}
	prog_touch(p, proc, base, len, v, stride, true, 100, 0);
}

static void cow_spread(struct bench_prog *p, unsigned int proc,
		       unsigned long base, long v, long pages, long pct,
		       unsigned int salt)
{
	if (v)
		prog_touch(p, proc, base, pages << PAGE_SHIFT, v,
			   (pages + 1) << PAGE_SHIFT, true, pct, salt);
}

/* ---- zygote ---------------------------------------------------------- */

enum { ZY_V, ZY_N, ZY_P, ZY_COW, ZY_F };

static const struct bench_param zygote_params[] = {
	{ "V", 1, 100000, "anonymous VMAs in the parent, all written" },
	{ "N", 0, 5000, "children forked, all kept alive" },
	{ "P", 1, 64, "pages per VMA" },
	{ "cow", 0, 100, "percent of the pages each child writes (COW)" },
	{ "F", 0, 100000, "MAP_PRIVATE file VMAs in the parent, all written" },
	{ NULL, 0, 0, NULL },
};

static int zygote_build(struct bench_prog *p, const long *v)
{
	struct procs ps = { 0 };
	unsigned int root = prog_proc(p);
	long c;

	if (procs_add(&ps, root))
		p->err = -ENOMEM;
	map_spread(p, root, BENCH_BASE, v[ZY_V], v[ZY_P], false);
	map_spread(p, root, BENCH_FAR, v[ZY_F], v[ZY_P], true);
	for (c = 0; c < v[ZY_N] && !p->err; c++) {
		size_t i = procs_fork(p, &ps, 0);
		unsigned int child = ps.nr_of[i];

		cow_spread(p, child, BENCH_BASE, v[ZY_V], v[ZY_P], v[ZY_COW],
			   (unsigned int)c + 1);
		cow_spread(p, child, BENCH_FAR, v[ZY_F], v[ZY_P], v[ZY_COW],
			   (unsigned int)c + 1);
	}
	/* Android's zygote outlives its apps: children go first */
	prog_simple(p, OP_SNAPSHOT);
	prog_simple(p, OP_WALK);
	for (c = 1; c < (long)ps.nr; c++)
		procs_exit(p, &ps, (size_t)c);
	procs_exit(p, &ps, 0);
	return done(p, &ps);
}

/* ---- chain ----------------------------------------------------------- */

enum { CH_D, CH_V, CH_P, CH_COW, CH_EXIT };

static const struct bench_param chain_params[] = {
	{ "D", 1, 2000, "depth: forks, each by the previous child" },
	{ "V", 1, 100000, "anonymous VMAs in the root, all written" },
	{ "P", 1, 64, "pages per VMA" },
	{ "cow", 0, 100, "percent of the pages each child writes" },
	{ "exit", 0, 1, "1: each parent but the root exits once it forked" },
	{ NULL, 0, 0, NULL },
};

static int chain_build(struct bench_prog *p, const long *v)
{
	struct procs ps = { 0 };
	unsigned int root = prog_proc(p);
	size_t cur = 0;
	long d;

	if (procs_add(&ps, root))
		p->err = -ENOMEM;
	map_spread(p, root, BENCH_BASE, v[CH_V], v[CH_P], false);
	for (d = 1; d <= v[CH_D] && !p->err; d++) {
		size_t child = procs_fork(p, &ps, cur);

		if (p->err)
			break;
		cow_spread(p, ps.nr_of[child], BENCH_BASE, v[CH_V], v[CH_P],
			   v[CH_COW], (unsigned int)d);
		if (v[CH_EXIT] && cur != 0)
			procs_exit(p, &ps, cur);
		cur = child;
	}
	finish(p, &ps);
	return done(p, &ps);
}

/* ---- realloc --------------------------------------------------------- */

enum { RE_N, RE_B, RE_G, RE_COW, RE_K };

static const struct bench_param realloc_params[] = {
	{ "N", 0, 1000, "children of the root" },
	{ "B", 1, 4096, "buffers per process, one page at first" },
	{ "G", 1, 12, "growth rounds: every buffer doubles each round" },
	{ "cow", 0, 100, "percent of old pages written after each growth" },
	{ "K", 0, 16, "grandchildren each child forks halfway through" },
	{ NULL, 0, 0, NULL },
};

/*
 * Even buffers grow in place (mremap without MAYMOVE), odd ones move
 * between two regions as they grow (MREMAP_MAYMOVE | MREMAP_FIXED),
 * glibc realloc()'s two outcomes; moves keep vm_pgoff, so moved
 * anonymous memory is what an rmap has to remember.
 */
static int realloc_build(struct bench_prog *p, const long *v)
{
	unsigned long slot = (2UL << v[RE_G]) << PAGE_SHIFT;
	unsigned long region[2];
	struct procs ps = { 0 };
	unsigned char *where = NULL;	/* per (process, buffer): region */
	unsigned int root = prog_proc(p);
	long b, g, c, k;
	size_t i, maxp = 1 + v[RE_N] + v[RE_N] * v[RE_K];

	region[0] = BENCH_BASE;
	region[1] = BENCH_BASE + ((v[RE_B] * slot + 0x3fffffffUL) &
				  ~0x3fffffffUL);
	where = model_zalloc(maxp * v[RE_B]);
	if (!where || procs_add(&ps, root))
		p->err = -ENOMEM;
	prog_mmap(p, root, region[0], PAGE_SIZE, v[RE_B], slot, RW);
	prog_touch(p, root, region[0], PAGE_SIZE, v[RE_B], slot, true, 100, 0);
	for (c = 0; c < v[RE_N] && !p->err; c++)
		procs_fork(p, &ps, 0);
	for (g = 1; g <= v[RE_G] && !p->err; g++) {
		unsigned long old = PAGE_SIZE << (g - 1), new = old * 2;

		for (i = 0; i < ps.nr && !p->err; i++) {
			unsigned int proc = ps.nr_of[i];

			if (!ps.alive[i])
				continue;
			for (b = 0; b < v[RE_B]; b++) {
				unsigned char *w = &where[i * v[RE_B] + b];
				unsigned long a = region[*w] + b * slot;

				if (b & 1) {
					*w ^= 1;
					prog_mremap(p, proc, a, old, new,
						    MREMAP_MAYMOVE |
						    MREMAP_FIXED,
						    region[*w] + b * slot);
					a = region[*w] + b * slot;
				} else {
					prog_mremap(p, proc, a, old, new, 0, 0);
				}
				prog_touch(p, proc, a + old, old, 1, 0, true,
					   100, 0);
				prog_touch(p, proc, a, old, 1, 0, true,
					   v[RE_COW], (unsigned int)(i * 131 + g));
			}
		}
		if (g != (v[RE_G] + 1) / 2)
			continue;
		/* grandchildren inherit moved buffers: fork after moves */
		for (c = 1; c <= v[RE_N] && !p->err; c++) {
			for (k = 0; k < v[RE_K] && !p->err; k++) {
				size_t gc = procs_fork(p, &ps, (size_t)c);

				if (p->err)
					break;
				memcpy(&where[gc * v[RE_B]],
				       &where[c * v[RE_B]], v[RE_B]);
			}
		}
	}
	model_free(where);
	finish(p, &ps);
	return done(p, &ps);
}

/* ---- jit ------------------------------------------------------------- */

enum { JI_N, JI_R, JI_P, JI_ROUNDS, JI_COW };

static const struct bench_param jit_params[] = {
	{ "N", 0, 1000, "children of the root; all run the JIT rounds" },
	{ "R", 1, 4096, "code regions per process, guard page each end" },
	{ "P", 8, 4096, "pages per region" },
	{ "rounds", 1, 10000, "split/merge rounds per process" },
	{ "cow", 0, 100, "percent of a patched range written" },
	{ NULL, 0, 0, NULL },
};

/*
 * A JIT's code cache: regions written, then fenced with PROT_NONE guard
 * pages; each round flips a small range to r-x and back (mprotect
 * splits, then merges), patches it, and every fourth round drops one
 * page and maps it again (munmap, then a hole-filling mmap merge).
 */
static int jit_build(struct bench_prog *p, const long *v)
{
	unsigned long len = v[JI_P] << PAGE_SHIFT;
	unsigned long stride = (v[JI_P] + 16) << PAGE_SHIFT;
	struct procs ps = { 0 };
	unsigned int root = prog_proc(p);
	long r, g, c;
	size_t i;

	if (procs_add(&ps, root))
		p->err = -ENOMEM;
	prog_mmap(p, root, BENCH_BASE, len, v[JI_R], stride, RW);
	prog_touch(p, root, BENCH_BASE, len, v[JI_R], stride, true, 100, 0);
	for (r = 0; r < v[JI_R]; r++) {
		unsigned long a = BENCH_BASE + r * stride;

		prog_mprotect(p, root, a, PAGE_SIZE, PROT_NONE);
		prog_mprotect(p, root, a + len - PAGE_SIZE, PAGE_SIZE,
			      PROT_NONE);
	}
	for (c = 0; c < v[JI_N] && !p->err; c++)
		procs_fork(p, &ps, 0);
	for (i = 0; i < ps.nr && !p->err; i++) {
		unsigned int proc = ps.nr_of[i];

		for (g = 0; g < v[JI_ROUNDS] && !p->err; g++) {
			for (r = 0; r < v[JI_R]; r++) {
				unsigned long a = BENCH_BASE + r * stride;
				unsigned long n = 1 + pick(i, g, r, 8);
				unsigned long s;

				if (n > (unsigned long)v[JI_P] - 3)
					n = v[JI_P] - 3;
				s = 1 + pick(r, i, g, v[JI_P] - 2 - n);
				a += s << PAGE_SHIFT;
				prog_mprotect(p, proc, a, n << PAGE_SHIFT, RX);
				prog_mprotect(p, proc, a, n << PAGE_SHIFT, RW);
				prog_touch(p, proc, a, n << PAGE_SHIFT, 1, 0,
					   true, v[JI_COW],
					   (unsigned int)(i + g + r));
				if (g % 4 != 3)
					continue;
				prog_munmap(p, proc, a, PAGE_SIZE);
				prog_mmap(p, proc, a, PAGE_SIZE, 1, 0, RW);
				prog_touch(p, proc, a, PAGE_SIZE, 1, 0, true,
					   100, 0);
			}
		}
	}
	finish(p, &ps);
	return done(p, &ps);
}

/* ---- reclaim --------------------------------------------------------- */

enum { RC_V, RC_P, RC_F, RC_L, RC_COW, RC_X, RC_PASSES };

static const struct bench_param reclaim_params[] = {
	{ "V", 1, 100000, "anonymous VMAs in the root, all written" },
	{ "P", 1, 64, "pages per VMA" },
	{ "F", 1, 100, "fan-out: children per process" },
	{ "L", 1, 10, "levels of the fork tree below the root" },
	{ "cow", 0, 100, "percent of the pages each child writes" },
	{ "X", 0, 100, "percent of interior processes that exit" },
	{ "passes", 1, 100, "reclaim passes over every folio" },
	{ NULL, 0, 0, NULL },
};

static int reclaim_build(struct bench_prog *p, const long *v)
{
	struct procs ps = { 0 };
	unsigned int root = prog_proc(p);
	size_t first = 0, last = 1, i;
	long l, f, pass;

	if (procs_add(&ps, root))
		p->err = -ENOMEM;
	map_spread(p, root, BENCH_BASE, v[RC_V], v[RC_P], false);
	for (l = 1; l <= v[RC_L] && !p->err; l++) {
		for (i = first; i < last && !p->err; i++) {
			if (!ps.alive[i])
				continue;
			for (f = 0; f < v[RC_F] && !p->err; f++) {
				size_t ch = procs_fork(p, &ps, i);

				if (p->err)
					break;
				cow_spread(p, ps.nr_of[ch], BENCH_BASE,
					   v[RC_V], v[RC_P], v[RC_COW],
					   (unsigned int)ch);
			}
			/* interior exits leave stale links behind */
			if (i && (long)pick(i, l, 7, 100) < v[RC_X])
				procs_exit(p, &ps, i);
		}
		first = last;
		last = ps.nr;
	}
	prog_simple(p, OP_SNAPSHOT);
	for (pass = 0; pass < v[RC_PASSES]; pass++)
		prog_simple(p, OP_WALK);
	for (i = ps.nr; i-- > 0;)
		procs_exit(p, &ps, i);
	return done(p, &ps);
}

/* ---- exit ------------------------------------------------------------ */

enum { EX_V, EX_P, EX_N, EX_D, EX_COW, EX_ORDER };

static const struct bench_param exit_params[] = {
	{ "V", 1, 100000, "anonymous VMAs in the root, all written" },
	{ "P", 1, 64, "pages per VMA" },
	{ "N", 1, 1000, "children of the root" },
	{ "D", 1, 100, "each child heads a chain this deep" },
	{ "cow", 0, 100, "percent of the pages each process writes" },
	{ "order", 0, 2, "0 root first, 1 leaves first, 2 shuffled" },
	{ NULL, 0, 0, NULL },
};

static int exit_build(struct bench_prog *p, const long *v)
{
	struct procs ps = { 0 };
	unsigned int root = prog_proc(p);
	size_t *order = NULL, n, i;
	long c, d;

	if (procs_add(&ps, root))
		p->err = -ENOMEM;
	map_spread(p, root, BENCH_BASE, v[EX_V], v[EX_P], false);
	for (c = 0; c < v[EX_N] && !p->err; c++) {
		size_t cur = 0;

		for (d = 0; d < v[EX_D] && !p->err; d++) {
			cur = procs_fork(p, &ps, cur);
			if (p->err)
				break;
			cow_spread(p, ps.nr_of[cur], BENCH_BASE, v[EX_V],
				   v[EX_P], v[EX_COW], (unsigned int)cur);
		}
	}
	prog_simple(p, OP_SNAPSHOT);
	prog_simple(p, OP_WALK);
	n = ps.nr;
	order = model_zalloc((n + 1) * sizeof(*order));
	if (!order)
		p->err = -ENOMEM;
	for (i = 0; order && i < n; i++)
		order[i] = v[EX_ORDER] == 1 ? n - 1 - i : i;
	if (order && v[EX_ORDER] == 2) {
		for (i = n; i > 1; i--) {
			size_t j = pick(i, n, 3, i), t = order[i - 1];

			order[i - 1] = order[j];
			order[j] = t;
		}
	}
	for (i = 0; order && i < n; i++) {
		procs_exit(p, &ps, order[i]);
		if (i + 1 == n / 2)
			prog_simple(p, OP_MARK);
	}
	model_free(order);
	return done(p, &ps);
}

/* ---- the table of workloads, defaults, parsing ----------------------- */

static const struct workload zygote = {
	"zygote", "a parent with V written VMAs forks N children that COW",
	zygote_params, 5, zygote_build, true,
};
static const struct workload chain = {
	"chain", "a fork chain D deep, with or without exiting parents",
	chain_params, 5, chain_build, true,
};
static const struct workload realloc_wl = {
	"realloc", "buffers grow by mremap, in place and moving, in a fork tree",
	realloc_params, 5, realloc_build, false,
};
static const struct workload jit = {
	"jit", "mprotect splits and merges, guard pages, holes, after fork",
	jit_params, 5, jit_build, false,
};
static const struct workload reclaim = {
	"reclaim", "a fork tree with exits, then reclaim walks every folio",
	reclaim_params, 7, reclaim_build, false,
};
static const struct workload exit_wl = {
	"exit", "a fork tree torn down root first, leaves first or shuffled",
	exit_params, 6, exit_build, false,
};

const struct workload *const bench_workloads[] = {
	&zygote, &chain, &realloc_wl, &jit, &reclaim, &exit_wl,
	&bench_realzygote, &bench_daemon, NULL,
};

/*
 * Base values per size, then the default instances: tiny is for the
 * tests, quick for `make run` (under two minutes on two cores), full
 * for `make bench`. The headline's point, zygote V=1000 N=100 (issue
 * 6's targets), is in quick and full alike.
 */
struct size_defaults {
	const char *name;
	const char *base[3];		/* tiny, quick, full */
};

static const struct size_defaults bases[] = {
	{ "zygote", { "V=40,N=6,P=1,cow=10,F=0", "V=1000,N=100,P=1,cow=10,F=0",
		      "V=1000,N=100,P=1,cow=10,F=0" } },
	{ "chain", { "D=6,V=20,P=1,cow=10,exit=0", "D=50,V=100,P=1,cow=10,exit=0",
		     "D=200,V=100,P=1,cow=10,exit=0" } },
	{ "realloc", { "N=3,B=4,G=3,cow=20,K=1", "N=20,B=32,G=6,cow=20,K=1",
		       "N=100,B=64,G=7,cow=20,K=1" } },
	{ "jit", { "N=2,R=3,P=16,rounds=4,cow=50", "N=10,R=16,P=64,rounds=20,cow=50",
		   "N=50,R=32,P=128,rounds=40,cow=50" } },
	{ "reclaim", { "V=20,P=1,F=2,L=2,cow=20,X=25,passes=2",
		       "V=200,P=1,F=4,L=3,cow=20,X=25,passes=2",
		       "V=1000,P=1,F=5,L=3,cow=20,X=25,passes=2" } },
	{ "exit", { "V=20,P=1,N=3,D=2,cow=10,order=0",
		    "V=200,P=1,N=20,D=2,cow=10,order=0",
		    "V=1000,P=1,N=100,D=3,cow=10,order=0" } },
	/* issue 9's sizes from quick up: 50 libraries, 30 children */
	{ "realzygote", { "L=4,N=3,T=4,R=1,D=2,B=1,H=8,S=4,cow=20",
			  "L=50,N=30,T=16,R=2,D=4,B=2,H=64,S=16,cow=20",
			  "L=200,N=100,T=16,R=2,D=4,B=2,H=256,S=32,cow=20" } },
	/* and 200 generations */
	{ "daemon", { "G=10,V=8,P=2,cow=20", "G=200,V=20,P=4,cow=20",
		      "G=1000,V=20,P=4,cow=20" } },
};

/* the default instances: overrides of the base, per size */
struct default_inst {
	const char *spec;
	unsigned int sizes;	/* 1 << enum bench_size */
};

#define ALL	7U
#define QF	6U

static const struct default_inst default_insts[] = {
	{ "zygote", ALL },
	{ "zygote:V=10000,N=500", 1U << SIZE_FULL },
	{ "zygote:F=250", QF },
	{ "zygote:F=10", 1U << SIZE_TINY },
	{ "chain", ALL },
	{ "chain:exit=1", ALL },
	{ "realloc", ALL },
	{ "jit", ALL },
	{ "reclaim", ALL },
	{ "exit", ALL },
	{ "exit:order=1", ALL },
	{ "exit:order=2", ALL },
	{ "realzygote", ALL },
	{ "daemon", ALL },
};

const struct workload *workload_find(const char *name)
{
	int i;

	for (i = 0; bench_workloads[i]; i++)
		if (!strcmp(bench_workloads[i]->name, name))
			return bench_workloads[i];
	return NULL;
}

long inst_param(const struct workload_inst *inst, const char *name)
{
	int i;

	for (i = 0; i < inst->w->nr_params; i++)
		if (!strcmp(inst->w->params[i].name, name))
			return inst->v[i];
	return -1;
}

/* apply "K=V,K=V" to @inst */
static int apply_params(struct workload_inst *inst, const char *list,
			char *err, size_t errlen)
{
	const char *s = list;

	while (*s) {
		const char *eq = strchr(s, '='), *end;
		char *num_end;
		long val;
		int i;

		if (!eq) {
			snprintf(err, errlen, "'%s': expected NAME=VALUE", s);
			return -EINVAL;
		}
		for (i = 0; i < inst->w->nr_params; i++)
			if (strlen(inst->w->params[i].name) == (size_t)(eq - s) &&
			    !strncmp(inst->w->params[i].name, s, eq - s))
				break;
		if (i == inst->w->nr_params) {
			snprintf(err, errlen, "%s has no parameter '%.*s'",
				 inst->w->name, (int)(eq - s), s);
			return -EINVAL;
		}
		errno = 0;
		val = strtol(eq + 1, &num_end, 10);
		end = num_end;
		if (errno || end == eq + 1 || (*end && *end != ',') ||
		    val < inst->w->params[i].min ||
		    val > inst->w->params[i].max) {
			snprintf(err, errlen, "%s: %s must be %ld to %ld",
				 inst->w->name, inst->w->params[i].name,
				 inst->w->params[i].min,
				 inst->w->params[i].max);
			return -EINVAL;
		}
		inst->v[i] = val;
		s = *end ? end + 1 : end;
	}
	return 0;
}

static const char *base_of(const struct workload *w, enum bench_size size)
{
	size_t i;

	for (i = 0; i < sizeof(bases) / sizeof(bases[0]); i++)
		if (!strcmp(bases[i].name, w->name))
			return bases[i].base[size];
	return "";
}

void workload_label(struct workload_inst *inst)
{
	size_t len;
	int i;

	len = snprintf(inst->label, sizeof(inst->label), "%s", inst->w->name);
	for (i = 0; i < inst->w->nr_params && len < sizeof(inst->label); i++)
		len += snprintf(inst->label + len, sizeof(inst->label) - len,
				" %s=%ld", inst->w->params[i].name,
				inst->v[i]);
}

void workload_spec(const struct workload_inst *inst, char *buf, size_t len)
{
	size_t n = snprintf(buf, len, "%s:", inst->w->name);
	int i;

	for (i = 0; i < inst->w->nr_params && n < len; i++)
		n += snprintf(buf + n, len - n, "%s%s=%ld", i ? "," : "",
			      inst->w->params[i].name, inst->v[i]);
}

int workload_parse(const char *spec, enum bench_size size,
		   struct workload_inst *inst, char *err, size_t errlen)
{
	const char *colon = strchr(spec, ':');
	size_t nlen = colon ? (size_t)(colon - spec) : strlen(spec);
	char name[32];
	int ret;

	if (nlen >= sizeof(name)) {
		snprintf(err, errlen, "unknown workload '%s'", spec);
		return -EINVAL;
	}
	memcpy(name, spec, nlen);
	name[nlen] = '\0';
	memset(inst, 0, sizeof(*inst));
	inst->w = workload_find(name);
	if (!inst->w) {
		snprintf(err, errlen, "unknown workload '%s'", name);
		return -EINVAL;
	}
	ret = apply_params(inst, base_of(inst->w, size), err, errlen);
	if (!ret && colon)
		ret = apply_params(inst, colon + 1, err, errlen);
	if (!ret)
		workload_label(inst);
	return ret;
}

int workload_defaults(const struct workload *w, enum bench_size size,
		      struct workload_inst **list, int *nr)
{
	size_t i;
	char err[128];

	for (i = 0; i < sizeof(default_insts) / sizeof(default_insts[0]);
	     i++) {
		const struct default_inst *d = &default_insts[i];
		struct workload_inst *nl;
		size_t nlen = strcspn(d->spec, ":");

		if (!(d->sizes & (1U << size)))
			continue;
		if (w && (strlen(w->name) != nlen ||
			  strncmp(w->name, d->spec, nlen)))
			continue;
		nl = model_realloc(*list, (*nr + 1) * sizeof(*nl));
		if (!nl)
			return -ENOMEM;
		*list = nl;
		if (workload_parse(d->spec, size, &nl[*nr], err, sizeof(err)))
			return -EINVAL;	/* a bad table entry: a bug */
		(*nr)++;
	}
	return 0;
}

void workload_usage(FILE *f)
{
	int i, j;

	for (i = 0; bench_workloads[i]; i++) {
		const struct workload *w = bench_workloads[i];

		fprintf(f, "  %s: %s\n", w->name, w->summary);
		for (j = 0; j < w->nr_params; j++)
			fprintf(f, "    %-7s %s (%ld to %ld)\n",
				w->params[j].name, w->params[j].help,
				w->params[j].min, w->params[j].max);
		fprintf(f, "    quick: %s\n    full:  %s\n",
			base_of(w, SIZE_QUICK), base_of(w, SIZE_FULL));
	}
}
