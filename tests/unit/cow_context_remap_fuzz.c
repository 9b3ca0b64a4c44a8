// SPDX-License-Identifier: GPL-2.0
/*
 * A fuzzer aimed where the remap tree is hardest: mremap chains across
 * fork trees (moving ranges that were already moved, often inherited),
 * moves back to the address that gives offset 0 again, partial moves and
 * partial overlaps, DONTUNMAP, MAP_PRIVATE file mappings, splits by
 * mprotect and munmap, and exits of interior processes. After every
 * operation the oracle and cow_context's invariants are checked.
 *
 * Then one mm with hundreds of moved VMAs, so its remap tree is deep:
 * thousands of moves, splits, resizes and unmaps, and after each one
 * lookups over random pgoff ranges compared with brute force over the
 * mm's VMAs (the failing seed printed), and the oracle now and then.
 */
#include <stdint.h>

#include "cow_context_harness.h"
#include "tap.h"

#define NR_SEEDS	600
#define NR_OPS		150
#define MAX_PROCS	10
#define BASE		0x100000000000UL
#define SPAN_PAGES	192UL

static uint64_t rng;

static unsigned long rnd(unsigned long n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return n ? (unsigned long)(rng % n) : 0;
}

struct proc {
	struct mm_struct *mm;
	int parent;	/* index, -1 for none */
	bool alive;
};

struct fuzz {
	struct model *m;
	struct proc p[64];
	int nr;
	struct check_stats cs;
	const char *invalid;
	char where[64];
	unsigned long moves, moves_of_moved, moves_home, dontunmaps;
	unsigned long interior_exits, forks, file_maps;
};

static int pick_live(struct fuzz *f)
{
	int live[64], n = 0, i;

	for (i = 0; i < f->nr; i++)
		if (f->p[i].alive)
			live[n++] = i;
	return n ? live[rnd((unsigned long)n)] : -1;
}

static int nr_live(struct fuzz *f)
{
	int i, n = 0;

	for (i = 0; i < f->nr; i++)
		n += f->p[i].alive;
	return n;
}

static struct vm_area_struct *pick_vma(struct mm_struct *mm)
{
	return mm->mm_mt.nr ? mm->mm_mt.vmas[rnd(mm->mm_mt.nr)] : NULL;
}

/* A random page-aligned subrange of @vma: [*start, *start + *len) */
static void subrange(struct vm_area_struct *vma, unsigned long *start,
		     unsigned long *len)
{
	unsigned long pages = vma_pages(vma);
	unsigned long first = rnd(pages);
	unsigned long n = 1 + rnd(pages - first);

	if (rnd(3) == 0) {	/* often the whole VMA */
		first = 0;
		n = pages;
	}
	*start = vma->vm_start + first * PAGE_SIZE;
	*len = n * PAGE_SIZE;
}

static void op_mmap(struct fuzz *f, struct mm_struct *mm)
{
	unsigned long addr = BASE + rnd(SPAN_PAGES) * PAGE_SIZE;
	unsigned long len = (1 + rnd(8)) * PAGE_SIZE;
	struct file *file = NULL;
	unsigned long off = 0;

	if (rnd(4) == 0) {
		file = model_file(f->m, rnd(2) ? "lib" : "data");
		off = rnd(64) * PAGE_SIZE;
		f->file_maps++;
	}
	if (!do_mmap(mm, addr, len, PROT_READ | PROT_WRITE, file, off) &&
	    rnd(2))
		for (; len; len -= PAGE_SIZE, addr += PAGE_SIZE)
			handle_access(mm, addr, true);
}

static void op_touch(struct mm_struct *mm)
{
	struct vm_area_struct *vma = pick_vma(mm);
	unsigned long start, len;

	if (!vma)
		return;
	subrange(vma, &start, &len);
	for (; len; len -= PAGE_SIZE, start += PAGE_SIZE)
		if (handle_access(mm, start, rnd(4) != 0))
			break;
}

static void op_move(struct fuzz *f, struct mm_struct *mm)
{
	struct vm_area_struct *vma = pick_vma(mm);
	unsigned long start, len, dst, flags = MREMAP_MAYMOVE | MREMAP_FIXED;
	long offset;

	if (!vma)
		return;
	offset = vma_remap_offset(vma);
	subrange(vma, &start, &len);
	if (offset && rnd(5) < 2) {
		/* home: the address where this range's offset is 0 again */
		dst = start - ((unsigned long)offset << PAGE_SHIFT);
		f->moves_home++;
	} else {
		dst = BASE + rnd(SPAN_PAGES) * PAGE_SIZE;
	}
	if (rnd(6) == 0) {
		flags |= MREMAP_DONTUNMAP;
		f->dontunmaps++;
	}
	if (offset)
		f->moves_of_moved++;
	f->moves++;
	do_mremap(mm, start, len, len, flags, dst);
}

static void op_resize(struct mm_struct *mm)
{
	struct vm_area_struct *vma = pick_vma(mm);
	unsigned long start, len;

	if (!vma)
		return;
	start = vma->vm_start;
	len = vma->vm_end - start;
	if (rnd(2))
		do_mremap(mm, start, len, len + (1 + rnd(4)) * PAGE_SIZE, 0, 0);
	else if (len > PAGE_SIZE)
		do_mremap(mm, start, len, len - PAGE_SIZE, 0, 0);
}

static void op_split(struct mm_struct *mm)
{
	struct vm_area_struct *vma = pick_vma(mm);
	unsigned long start, len;

	if (!vma)
		return;
	subrange(vma, &start, &len);
	if (rnd(2))
		do_munmap(mm, start, len);
	else
		do_mprotect(mm, start, len,
			    rnd(2) ? PROT_READ : PROT_READ | PROT_WRITE);
}

static void op_fork(struct fuzz *f, int i)
{
	struct mm_struct *child;
	char name[16];

	if (nr_live(f) >= MAX_PROCS || f->nr == 64)
		return;
	snprintf(name, sizeof(name), "P%d", f->nr);
	if (mm_fork(f->p[i].mm, name, &child))
		return;
	f->p[f->nr++] = (struct proc){ child, i, true };
	f->forks++;
}

static bool has_live_child(struct fuzz *f, int i)
{
	int j;

	for (j = 0; j < f->nr; j++)
		if (f->p[j].alive && f->p[j].parent == i)
			return true;
	return false;
}

static void op_exit(struct fuzz *f, int i)
{
	if (nr_live(f) <= 1)
		return;
	/* prefer interior processes: their contexts must outlive them */
	if (!has_live_child(f, i) && rnd(3)) {
		int j;

		for (j = 0; j < f->nr; j++)
			if (f->p[j].alive && has_live_child(f, j)) {
				i = j;
				break;
			}
	}
	if (has_live_child(f, i))
		f->interior_exits++;
	mm_exit(f->p[i].mm);
	f->p[i].alive = false;
}

static void check(struct fuzz *f)
{
	const char *err;

	model_check(f->m, &f->cs, stderr, f->where);
	err = cc_validate(f->m);
	if (err && !f->invalid) {
		static char buf[600];

		snprintf(buf, sizeof(buf), "%s: %s", f->where, err);
		f->invalid = buf;
	}
}

#define DENSE_SEEDS	6
#define DENSE_OPS	1500
#define DENSE_SPAN	4096UL	/* pages the dense mm maps within */

struct dense_key {
	unsigned long pgoff, last;
	long offset;
};

static int dense_key_cmp(const void *a, const void *b)
{
	const struct dense_key *x = a, *y = b;

	if (x->pgoff != y->pgoff)
		return x->pgoff < y->pgoff ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/*
 * Brute force from the VMAs: the distinct offsets of the moved VMAs
 * overlapping [first, last], in the (pgoff, offset) order of the VMA
 * that first brings each. Returns how many, at most @max.
 */
static int dense_want(struct mm_struct *mm, unsigned long first,
		      unsigned long last, long *out, int max)
{
	static struct dense_key keys[4096];
	struct cow_context *ctx = mm_cow_context(mm);
	struct vm_area_struct *vma;
	unsigned long j;
	int n = 0, i, k, got = 0;

	for_each_vma(mm, vma, j) {
		unsigned long end = vma_anon_pgoff(vma) + vma_pages(vma) - 1;

		if (vma->anon_vma != ctx || !vma_remap_offset(vma) ||
		    vma_anon_pgoff(vma) > last || end < first || n == 4096)
			continue;
		keys[n++] = (struct dense_key){ vma_anon_pgoff(vma), end,
						vma_remap_offset(vma) };
	}
	qsort(keys, (size_t)n, sizeof(keys[0]), dense_key_cmp);
	for (i = 0; i < n && got < max; i++) {
		bool seen = false;

		for (k = 0; k < i; k++)
			if (keys[k].offset == keys[i].offset)
				seen = true;
		if (!seen)
			out[got++] = keys[i].offset;
	}
	return got;
}

/* The tree's answer for [first, last]; 0 if it equals brute force */
static int dense_compare(struct mm_struct *mm, unsigned long first,
			 unsigned long last, unsigned long *max_offsets)
{
	struct remap_cursor pos = REMAP_CURSOR_INIT;
	long want[64], got[64];
	int nw = dense_want(mm, first, last, want, 64), ng = 0, i;

	while (ng < 64 && remap_tree_next_offset(&mm_cow_context(mm)->remaps,
						 first, last, &pos, &got[ng]))
		ng++;
	if ((unsigned long)nw > *max_offsets)
		*max_offsets = (unsigned long)nw;
	if (nw != ng)
		return 1;
	for (i = 0; i < nw; i++)
		if (want[i] != got[i])
			return 1;
	return 0;
}

static void dense_op(struct model *m, struct mm_struct *mm)
{
	struct vm_area_struct *vma = pick_vma(mm);
	unsigned long start, len, r = rnd(10);

	if (r < 3 || !vma) {
		/* small mappings, faulted, wherever there is room */
		unsigned long addr = BASE + rnd(DENSE_SPAN) * PAGE_SIZE;

		len = (1 + rnd(3)) * PAGE_SIZE;
		if (!do_mmap(mm, addr, len, PROT_READ | PROT_WRITE,
			     rnd(8) ? NULL : model_file(m, "lib"),
			     rnd(64) * PAGE_SIZE))
			for (; len; len -= PAGE_SIZE, addr += PAGE_SIZE)
				handle_access(mm, addr, true);
		return;
	}
	subrange(vma, &start, &len);
	if (r < 7) {
		unsigned long dst = BASE + rnd(DENSE_SPAN) * PAGE_SIZE;
		long offset = vma_remap_offset(vma);

		if (offset && rnd(4) == 0)
			dst = start - ((unsigned long)offset << PAGE_SHIFT);
		do_mremap(mm, start, len, len,
			  MREMAP_MAYMOVE | MREMAP_FIXED |
			  (rnd(8) ? 0 : MREMAP_DONTUNMAP), dst);
	} else if (r < 8) {
		start = vma->vm_start;
		len = vma->vm_end - start;
		do_mremap(mm, start, len,
			  rnd(2) || len == PAGE_SIZE ? len + PAGE_SIZE :
						       len - PAGE_SIZE, 0, 0);
	} else if (r < 9) {
		do_mprotect(mm, start, len,
			    rnd(2) ? PROT_READ : PROT_READ | PROT_WRITE);
	} else if (mm->mm_mt.nr > 150) {
		do_munmap(mm, start, len);
	}
}

/* Deep remap trees: lookups against brute force after every step */
static void dense_mm(void)
{
	unsigned long seed, lookups = 0, max_entries = 0, max_offsets = 0;
	unsigned long bad_lookups = 0, mismatches = 0, leaks = 0;
	unsigned long failing = 0;
	const char *invalid = NULL;

	for (seed = 1; seed <= DENSE_SEEDS; seed++) {
		struct check_stats cs = { .max_report = 3 };
		struct mm_struct *mm;
		struct model *m;
		int op, k;

		rng = 0x9e3779b97f4a7c15ULL * seed;
		m = model_create(&cow_context_rmap_ops);
		if (!m)
			break;
		mm = mm_create(m, "D");
		for (op = 0; op < DENSE_OPS; op++) {
			char where[64];
			unsigned long before = bad_lookups;

			dense_op(m, mm);
			for (k = 0; k < 4; k++) {
				unsigned long first = anon_page_index(BASE) +
						      rnd(DENSE_SPAN);
				unsigned long last = first +
						     (rnd(2) ? 0 : rnd(64));

				bad_lookups += dense_compare(mm, first, last,
							     &max_offsets);
				lookups++;
			}
			if (remap_tree_nr(&mm_cow_context(mm)->remaps) >
			    max_entries)
				max_entries = remap_tree_nr(
					&mm_cow_context(mm)->remaps);
			if (op % 100 == 99 || bad_lookups != before) {
				snprintf(where, sizeof(where),
					 "dense seed %lu op %d", seed, op);
				model_check(m, &cs, stderr, where);
				if (!invalid && cc_validate(m))
					invalid = cc_validate(m);
			}
			if (!failing && (bad_lookups != before ||
					 cs.mismatches || invalid))
				failing = seed;
		}
		mismatches += cs.mismatches;
		mm_exit(mm);
		if (account_live_total(&m->acct) || m->acct.bytes)
			leaks++;
		model_destroy(m);
	}
	if (failing)
		tap_diag("first failing dense seed: %lu", failing);
	is_long(bad_lookups, 0,
		"dense mm: %lu range lookups equal brute force over the VMAs",
		lookups);
	is_long(mismatches, 0, "dense mm: every walk equals the page tables");
	ok(!invalid, "dense mm: every cow_context invariant holds");
	if (invalid)
		tap_diag("first: %s", invalid);
	is_long(leaks, 0, "dense mm: nothing left after exit");
	ok(max_entries >= 200 && max_offsets >= 4,
	   "coverage: up to %lu entries in one tree, %lu distinct offsets in one lookup",
	   max_entries, max_offsets);
}

int main(void)
{
	unsigned long seed, folios = 0, remaps = 0, leaks = 0;
	struct fuzz total = { 0 };
	const char *invalid = NULL;

	for (seed = 1; seed <= NR_SEEDS; seed++) {
		struct fuzz f = { 0 };
		int op, i;

		rng = 0x2545f4914f6cdd1dULL * seed;
		f.m = model_create(&cow_context_rmap_ops);
		if (!f.m)
			break;
		f.p[0] = (struct proc){ mm_create(f.m, "P0"), -1, true };
		f.nr = 1;
		f.cs.max_report = 3;
		for (op = 0; op < NR_OPS; op++) {
			i = pick_live(&f);
			snprintf(f.where, sizeof(f.where), "seed %lu op %d", seed,
				 op);
			switch (rnd(16)) {
			case 0: case 1:
				op_mmap(&f, f.p[i].mm);
				break;
			case 2: case 3: case 4:
				op_touch(f.p[i].mm);
				break;
			case 5: case 6: case 7: case 8:
				op_move(&f, f.p[i].mm);
				break;
			case 9:
				op_resize(f.p[i].mm);
				break;
			case 10: case 11:
				op_split(f.p[i].mm);
				break;
			case 12: case 13: case 14:
				op_fork(&f, i);
				break;
			default:
				op_exit(&f, i);
				break;
			}
			check(&f);
		}
		folios += f.cs.folios_checked;
		remaps += cow_instance(f.m)->walk.remap_candidates;
		for (i = 0; i < f.nr; i++)
			if (f.p[i].alive)
				mm_exit(f.p[i].mm);
		if (account_live_total(&f.m->acct) || f.m->acct.bytes)
			leaks++;
		if (f.invalid && !invalid)
			invalid = f.invalid;
		total.cs.mismatches += f.cs.mismatches;
		total.moves += f.moves;
		total.moves_of_moved += f.moves_of_moved;
		total.moves_home += f.moves_home;
		total.dontunmaps += f.dontunmaps;
		total.interior_exits += f.interior_exits;
		total.forks += f.forks;
		total.file_maps += f.file_maps;
		model_destroy(f.m);
	}
	is_long(total.cs.mismatches, 0,
		"%d fuzzed families: every walk equals the page tables after every operation",
		NR_SEEDS);
	ok(!invalid, "and every cow_context invariant holds");
	if (invalid)
		tap_diag("first: %s", invalid);
	is_long(leaks, 0, "nothing left after the last exit");
	ok(total.moves_of_moved > 1000 && total.moves_home > 500 &&
	   total.interior_exits > 300 && total.dontunmaps > 200 &&
	   total.file_maps > 300 && remaps > 5000,
	   "coverage: %lu moves (%lu of moved ranges, %lu home), %lu DONTUNMAP, %lu interior exits, %lu forks, %lu file maps, %lu folio walks, %lu remapped candidates",
	   total.moves, total.moves_of_moved, total.moves_home,
	   total.dontunmaps, total.interior_exits, total.forks,
	   total.file_maps, folios, remaps);
	dense_mm();
	return tap_done();
}
