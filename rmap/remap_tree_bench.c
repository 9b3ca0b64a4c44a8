// SPDX-License-Identifier: GPL-2.0
/*
 * The remap tree's cost per operation against the number of moved VMAs
 * in one mm (1,000 to 100,000), to show how it grows. A program of its
 * own, not part of cowctx, so it can be built against any version of
 * remap_tree.c:
 *
 *	cc -O2 -g -Iinclude -I. -D_GNU_SOURCE -o remap_tree_bench \
 *	   rmap/remap_tree_bench.c rmap/remap_tree.c lib/interval_tree.c \
 *	   lib/account.c -lurcu
 *	./remap_tree_bench			median ns per operation
 *	valgrind --tool=callgrind --collect-atstart=no \
 *	   --callgrind-out-file=/dev/null ./remap_tree_bench --op lookup \
 *	   --n 100000 --shape wide		instructions: I refs / ops
 *
 * The mm: N VMAs of 4 to 8 pages at consecutive pgoffs, each moved by
 * its own distance, so each owns one entry. Shape "wide" adds one more,
 * a moved VMA whose range covers all of theirs (a heap moved away, the
 * small mappings made where it was, then moved too): every lookup then
 * meets two entries, and a structure that scans back to the widest
 * entry pays for all N.
 *
 * Operations, each on random entries of a tree kept at N: remove (a
 * resize's first half, keeping the slot), insert (its second half, into
 * the slot), lookup (every offset covering one page). No allocation is
 * timed: slots are reserved before.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define HAVE_CALLGRIND 1
#endif
#endif
#ifndef HAVE_CALLGRIND
#define CALLGRIND_TOGGLE_COLLECT do { } while (0)
#endif

#include "rmap/remap_tree.h"

#define OPS		2000
#define REPEATS		7

struct vma_key {
	unsigned long pgoff, nr;
	long offset;
};

static uint64_t rng = 0x2545f4914f6cdd1dULL;

static unsigned long rnd(unsigned long n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned long)(rng % n);
}

static unsigned long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long)ts.tv_sec * 1000000000UL +
	       (unsigned long)ts.tv_nsec;
}

/* Every offset covering @index; how many */
static unsigned long lookup(const struct remap_tree *t, unsigned long index)
{
	struct remap_cursor pos = REMAP_CURSOR_INIT;
	unsigned long n = 0;
	long off;

	while (remap_tree_next_offset(t, index, index, &pos, &off))
		n++;
	return n;
}

struct mm_shape {
	struct vma_key *key;
	unsigned long *perm;	/* a shuffle of the entries, for picks */
	unsigned long nr;	/* entries, the wide one included */
	unsigned long span;	/* pgoffs covered */
};

static int build(struct remap_tree *t, struct mm_shape *s, unsigned long n,
		 bool wide)
{
	unsigned long i, pgoff = 0;

	s->key = calloc(n + 1, sizeof(*s->key));
	s->perm = calloc(n + 1, sizeof(*s->perm));
	if (!s->key || !s->perm ||
	    remap_tree_reserve(t, (unsigned int)(n + wide)))
		return -1;
	for (i = 0; i < n; i++) {
		/* distinct offsets: each VMA moved by its own distance */
		s->key[i] = (struct vma_key){ pgoff, 4 + rnd(5),
					      (long)(i + 1) * 1024 };
		pgoff += s->key[i].nr;
	}
	s->span = pgoff;
	if (wide)
		s->key[n] = (struct vma_key){ 0, pgoff, -(1L << 40) };
	s->nr = n + wide;
	for (i = 0; i < s->nr; i++)
		s->perm[i] = i;
	for (i = 0; i < s->nr; i++)
		if (!remap_tree_insert(t, s->key[i].pgoff, s->key[i].nr,
				       s->key[i].offset))
			return -1;
	return 0;
}

enum op { OP_REMOVE, OP_INSERT, OP_LOOKUP, NR_OPS_KINDS };
static const char *const op_name[] = { "remove", "insert", "lookup" };

/*
 * One round: @nops random distinct entries removed (slots kept), then
 * inserted back; @nops lookups at random pages. The time (or instructions) of
 * @which alone; 0 on success.
 */
static int round_of(struct remap_tree *t, const struct mm_shape *s,
		    unsigned long nops, enum op which, bool toggle,
		    unsigned long *ns)
{
	static unsigned long pick[OPS], page[OPS];
	unsigned long i, t0, found = 0;
	int bad = 0;

	/* distinct picks (a partial shuffle), so each removal finds its entry */
	for (i = 0; i < nops; i++) {
		unsigned long j = i + rnd(s->nr - i), x = s->perm[j];

		s->perm[j] = s->perm[i];
		s->perm[i] = x;
		pick[i] = x;
		page[i] = rnd(s->span);
	}
	t0 = now_ns();
	if (toggle && which == OP_REMOVE)
		CALLGRIND_TOGGLE_COLLECT;
	for (i = 0; i < nops; i++) {
		const struct vma_key *k = &s->key[pick[i]];

		bad |= !remap_tree_remove(t, k->pgoff, k->nr, k->offset, true);
	}
	if (toggle && which == OP_REMOVE)
		CALLGRIND_TOGGLE_COLLECT;
	if (which == OP_REMOVE)
		*ns = now_ns() - t0;
	t0 = now_ns();
	if (toggle && which == OP_INSERT)
		CALLGRIND_TOGGLE_COLLECT;
	for (i = 0; i < nops; i++) {
		const struct vma_key *k = &s->key[pick[i]];

		bad |= !remap_tree_insert(t, k->pgoff, k->nr, k->offset);
	}
	if (toggle && which == OP_INSERT)
		CALLGRIND_TOGGLE_COLLECT;
	if (which == OP_INSERT)
		*ns = now_ns() - t0;
	t0 = now_ns();
	if (toggle && which == OP_LOOKUP)
		CALLGRIND_TOGGLE_COLLECT;
	for (i = 0; i < nops; i++)
		found += lookup(t, page[i]);
	if (toggle && which == OP_LOOKUP)
		CALLGRIND_TOGGLE_COLLECT;
	if (which == OP_LOOKUP)
		*ns = now_ns() - t0;
	/* every page is covered by one VMA's entry, and the wide one's */
	if (found < nops)
		bad = 1;
	return bad;
}

static int cmp_ul(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a;
	unsigned long y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

static int measure(unsigned long n, bool wide, enum op which, bool toggle,
		   int repeats, double *ns_per_op, double *bytes_per_entry)
{
	struct mm_shape s = { 0 };
	struct remap_tree t;
	struct account acct;
	unsigned long ns[REPEATS], nops = n / 2 < OPS ? n / 2 : OPS;
	int r, err = 0;

	memset(&acct, 0, sizeof(acct));
	remap_tree_init(&t, &acct, account_register(&acct, "remap"));
	if (build(&t, &s, n, wide)) {
		fprintf(stderr, "remap_tree_bench: building %lu entries failed\n",
			n);
		err = -1;
		goto out;
	}
	*bytes_per_entry = (double)acct.bytes / (double)s.nr;
	for (r = 0; r < repeats && !err; r++)
		err = round_of(&t, &s, nops, which, toggle, &ns[r]);
	if (err) {
		fprintf(stderr, "remap_tree_bench: an operation failed\n");
		goto out;
	}
	qsort(ns, (size_t)repeats, sizeof(ns[0]), cmp_ul);
	*ns_per_op = (double)ns[repeats / 2] / (double)nops;
out:
	while (s.nr && s.key) {
		s.nr--;
		remap_tree_remove(&t, s.key[s.nr].pgoff, s.key[s.nr].nr,
				  s.key[s.nr].offset, false);
	}
	remap_tree_destroy(&t);
	free(s.key);
	free(s.perm);
	return err;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: remap_tree_bench [--op remove|insert|lookup --n N "
		"[--shape disjoint|wide]]\n");
	return 2;
}

int main(int argc, char **argv)
{
	static const unsigned long sizes[] = { 1000, 10000, 100000 };
	double ns, bytes;
	int op = -1, i, w;
	unsigned long n = 0;
	bool wide = false;
	size_t k;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--op") && i + 1 < argc) {
			for (op = 0; op < NR_OPS_KINDS; op++)
				if (!strcmp(argv[i + 1], op_name[op]))
					break;
			if (op == NR_OPS_KINDS)
				return usage();
			i++;
		} else if (!strcmp(argv[i], "--n") && i + 1 < argc) {
			n = strtoul(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "--shape") && i + 1 < argc) {
			i++;
			if (strcmp(argv[i], "wide") && strcmp(argv[i], "disjoint"))
				return usage();
			wide = !strcmp(argv[i], "wide");
		} else {
			return usage();
		}
	}
	if (op >= 0) {
		/* one round, counted by callgrind: I refs / operations */
		if (n < 2)
			return usage();
		if (measure(n, wide, (enum op)op, true, 1, &ns, &bytes))
			return 1;
		printf("%s n=%lu %s: %lu operations counted\n", op_name[op], n,
		       wide ? "wide" : "disjoint", n / 2 < OPS ? n / 2 : OPS);
		return 0;
	}
	if (argc > 1)
		return usage();
	printf("shape     entries  op      ns/op  bytes/entry\n");
	for (w = 0; w < 2; w++)
		for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
			for (op = 0; op < NR_OPS_KINDS; op++) {
				if (measure(sizes[k], w, (enum op)op, false,
					    REPEATS, &ns, &bytes))
					return 1;
				printf("%-9s %7lu  %-6s %7.1f  %6.1f\n",
				       w ? "wide" : "disjoint", sizes[k],
				       op_name[op], ns, bytes);
			}
	return 0;
}
