// SPDX-License-Identifier: GPL-2.0
/*
 * Page tables and the VMA tree: four levels of 512 entries, tables
 * made on first touch and freed with the VMAs that needed them; the
 * sorted VMA tree against a brute-force list under random operations.
 */
#include <errno.h>
#include <stdlib.h>

#include <cowctx/mm.h>
#include <cowctx/rmap.h>
#include "tap.h"

#define B	0x100000000000UL
#define P	PAGE_SIZE

static void test_tables(void)
{
	struct model *m = model_create(&scan_rmap_ops);
	struct mm_struct *mm = mm_create(m, "T");

	ok(!pte_lookup(mm, B), "no page table before the first fault");
	do_mmap(mm, B, 4 * P, PROT_READ | PROT_WRITE, NULL, 0);
	ok(!pte_lookup(mm, B), "mmap alone makes no page table");
	handle_access(mm, B, true);
	is_long(m->nr_pgtables, 4, "one fault builds PGD, PUD, PMD and PTE tables");
	handle_access(mm, B + 3 * P, true);
	is_long(m->nr_pgtables, 4, "a neighbour in the same 2M shares them");
	is_long(pte_table_lookup(mm, B)->nr_used, 2, "two PTEs present");

	do_mmap(mm, B + 512 * P, P, PROT_READ | PROT_WRITE, NULL, 0);
	handle_access(mm, B + 512 * P, true);
	is_long(m->nr_pgtables, 5, "the next 2M needs one more PTE table");
	ok(pte_table_lookup(mm, B) != pte_table_lookup(mm, B + 512 * P),
	   "and it is a different table");

	do_munmap(mm, B + 512 * P, P);
	is_long(m->nr_pgtables, 4, "munmap frees the table it no longer needs");
	do_madvise(mm, B, 4 * P, MADV_DONTNEED);
	is_long(m->nr_pgtables, 4, "MADV_DONTNEED zaps PTEs but keeps tables");
	ok(!pte_present(*pte_lookup(mm, B)), "the PTE is gone");
	is_long(m->nr_anon_folios, 0, "and so is its folio");
	do_munmap(mm, B, 4 * P);
	/* the PGD lives as long as the mm, as in Linux */
	is_long(m->nr_pgtables, 1, "with no VMA left, all but the PGD is freed");

	handle_access(mm, B, false);	/* a SIGSEGV, nothing mapped */
	is_long(m->nr_pgtables, 1, "a fault outside any VMA builds nothing");
	mm_exit(mm);
	model_destroy(m);
}

/* The VMA tree against a bitmap of mapped pages, under random ops */
static void test_vma_tree_random(void)
{
	enum { PAGES = 256 };
	struct model *m = model_create(&scan_rmap_ops);
	struct mm_struct *mm = mm_create(m, "T");
	unsigned int seed = 42;
	bool mapped[PAGES] = { false };
	int i, bad = 0;

	for (i = 0; i < 4000; i++) {
		unsigned long first = rand_r(&seed) % PAGES;
		unsigned long n = 1 + rand_r(&seed) % 8;
		unsigned long j, a;

		if (first + n > PAGES)
			n = PAGES - first;
		if (rand_r(&seed) % 2) {
			bool free_range = true;

			for (j = first; j < first + n; j++)
				free_range &= !mapped[j];
			if (do_mmap(mm, B + first * P, n * P,
				    (rand_r(&seed) % 2) ? PROT_READ :
				    PROT_READ | PROT_WRITE, NULL, 0) !=
			    (free_range ? 0 : -EEXIST))
				bad++;
			if (free_range)
				for (j = first; j < first + n; j++)
					mapped[j] = true;
		} else {
			do_munmap(mm, B + first * P, n * P);
			for (j = first; j < first + n; j++)
				mapped[j] = false;
		}
		for (a = 0; a < PAGES; a++)
			if (!!vma_lookup(mm, B + a * P) != mapped[a])
				bad++;
	}
	is_long(bad, 0, "vma_lookup agrees with the bitmap over 4000 ops");
	for (i = 1; i < (int)mm->mm_mt.nr; i++)
		if (mm->mm_mt.vmas[i - 1]->vm_end > mm->mm_mt.vmas[i]->vm_start)
			bad++;
	is_long(bad, 0, "the tree is sorted and non-overlapping");
	mm_exit(mm);
	is_long(m->nr_vmas, 0, "exit frees every VMA");
	model_destroy(m);
}

int main(void)
{
	test_tables();
	test_vma_tree_random();
	return tap_done();
}
