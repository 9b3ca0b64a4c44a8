// SPDX-License-Identifier: GPL-2.0
/*
 * Two workloads shaped like what a kernel developer will try first
 * (issue 9): a zygote whose parent has a real process's address space,
 * and a daemon that re-forks itself and exits, generation after
 * generation. Both end as every workload does: the steady state, a
 * reclaim pass and a full walk of every anonymous folio, then exits.
 */
#include <errno.h>
#include <stdio.h>

#include "bench/bench.h"

#define RW	(PROT_READ | PROT_WRITE)
#define RX	(PROT_READ | PROT_EXEC)

/* the heap and the stack, far from the libraries and from each other */
#define REAL_HEAP	(BENCH_BASE + 0x10000000000UL)
#define REAL_STACK	(BENCH_BASE + 0x20000000000UL)

/* ---- realzygote ------------------------------------------------------ */

enum { RZ_L, RZ_N, RZ_T, RZ_R, RZ_D, RZ_B, RZ_H, RZ_S, RZ_COW, RZ_NR };

static const struct bench_param realzygote_params[] = {
	{ "L", 1, 2000, "shared libraries, each with text, relro, data and bss" },
	{ "N", 0, 5000, "children forked, all kept alive" },
	{ "T", 1, 4096, "text pages per library (its file at offset 0, r-x, read)" },
	{ "R", 1, 256, "relro pages per library (its file after text, written, then r--)" },
	{ "D", 1, 256, "data pages per library (its file after relro, rw-, written)" },
	{ "B", 1, 256, "bss pages per library (anonymous, rw-, written)" },
	{ "H", 1, 65536, "heap pages (anonymous, written)" },
	{ "S", 1, 4096, "stack pages (anonymous, written)" },
	{ "cow", 0, 100, "percent of its data, bss, heap and stack pages each child writes" },
	{ NULL, 0, 0, NULL },
};

/* one MAP_PRIVATE mapping of file @f at @offset */
static void map_file(struct bench_prog *p, unsigned int proc,
		     unsigned long addr, unsigned long len, int prot,
		     unsigned int f, unsigned long offset)
{
	prog_mmap(p, proc, addr, len, 1, 0, prot);
	if (p->err)
		return;
	p->ops[p->nr - 1].file = true;
	p->ops[p->nr - 1].file_nr = f;
	p->ops[p->nr - 1].offset = offset;
}

static int realzygote_build(struct bench_prog *p, const long *v)
{
	unsigned long t = v[RZ_T] << PAGE_SHIFT, r = v[RZ_R] << PAGE_SHIFT;
	unsigned long d = v[RZ_D] << PAGE_SHIFT, b = v[RZ_B] << PAGE_SHIFT;
	unsigned long h = v[RZ_H] << PAGE_SHIFT, s = v[RZ_S] << PAGE_SHIFT;
	/* a library's four mappings, then a hole before the next one */
	unsigned long stride = t + r + d + b + PAGE_SIZE;
	unsigned int root = prog_proc(p), *child;
	long i, c;

	for (i = 0; i < v[RZ_L] && !p->err; i++) {
		unsigned long a = BENCH_BASE + i * stride;
		char name[24];
		unsigned int f;

		snprintf(name, sizeof(name), "lib%ld", i);
		f = prog_file(p, name);
		map_file(p, root, a, t, RX, f, 0);
		prog_touch(p, root, a, t, 1, 0, false, 100, 0);
		/*
		 * As ld.so does: relro and data are one writable segment,
		 * relocated (written), then relro is sealed read-only.
		 */
		map_file(p, root, a + t, r + d, RW, f, t);
		prog_touch(p, root, a + t, r + d, 1, 0, true, 100, 0);
		prog_mprotect(p, root, a + t, r, PROT_READ);
		prog_mmap(p, root, a + t + r + d, b, 1, 0, RW);
		prog_touch(p, root, a + t + r + d, b, 1, 0, true, 100, 0);
	}
	prog_mmap(p, root, REAL_HEAP, h, 1, 0, RW);
	prog_touch(p, root, REAL_HEAP, h, 1, 0, true, 100, 0);
	prog_mmap(p, root, REAL_STACK, s, 1, 0, RW);
	prog_touch(p, root, REAL_STACK, s, 1, 0, true, 100, 0);

	child = model_zalloc((v[RZ_N] + 1) * sizeof(*child));
	if (!child)
		p->err = -ENOMEM;
	for (c = 0; child && c < v[RZ_N] && !p->err; c++) {
		unsigned int salt = (unsigned int)c + 1;

		child[c] = prog_fork(p, root);
		/* every library's data and bss, which are adjacent */
		prog_touch(p, child[c], BENCH_BASE + t + r, d + b, v[RZ_L],
			   stride, true, v[RZ_COW], salt);
		prog_touch(p, child[c], REAL_HEAP, h, 1, 0, true, v[RZ_COW],
			   salt);
		prog_touch(p, child[c], REAL_STACK, s, 1, 0, true, v[RZ_COW],
			   salt);
	}
	prog_simple(p, OP_SNAPSHOT);
	prog_simple(p, OP_WALK);
	/* the zygote outlives its apps */
	for (i = 0; child && i < c; i++)
		prog_exit(p, child[i]);
	prog_exit(p, root);
	model_free(child);
	return p->err;
}

const struct workload bench_realzygote = {
	"realzygote",
	"a zygote with a real process's layout (libraries, heap, stack) forks N children that COW",
	realzygote_params, RZ_NR, realzygote_build, true,
};

/* ---- daemon ---------------------------------------------------------- */

enum { DA_G, DA_V, DA_P, DA_COW, DA_NR };

static const struct bench_param daemon_params[] = {
	{ "G", 1, 100000, "generations: each forks its successor, then exits" },
	{ "V", 1, 100000, "anonymous VMAs of the first generation, all written" },
	{ "P", 1, 64, "pages per VMA" },
	{ "cow", 0, 100, "percent of the pages each new generation writes" },
	{ NULL, 0, 0, NULL },
};

static int daemon_build(struct bench_prog *p, const long *v)
{
	unsigned long len = v[DA_P] << PAGE_SHIFT, stride = len + PAGE_SIZE;
	unsigned int cur = prog_proc(p);
	long g;

	prog_mmap(p, cur, BENCH_BASE, len, v[DA_V], stride, RW);
	prog_touch(p, cur, BENCH_BASE, len, v[DA_V], stride, true, 100, 0);
	for (g = 1; g <= v[DA_G] && !p->err; g++) {
		unsigned int next = prog_fork(p, cur);

		prog_exit(p, cur);
		prog_touch(p, next, BENCH_BASE, len, v[DA_V], stride, true,
			   v[DA_COW], (unsigned int)g);
		cur = next;
	}
	prog_simple(p, OP_SNAPSHOT);
	prog_simple(p, OP_WALK);
	prog_exit(p, cur);
	return p->err;
}

const struct workload bench_daemon = {
	"daemon", "a process forks its successor and exits, G generations",
	daemon_params, DA_NR, daemon_build, false,
};
