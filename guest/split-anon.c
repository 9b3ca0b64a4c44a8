// SPDX-License-Identifier: GPL-2.0
/*
 * split_huge_page_test without its pagecache splits: the kernel's own test,
 * compiled from the extracted tree, under a main of ours that runs the THP
 * splits it makes first (zero-filled, PMD-mapped anonymous THPs split to
 * every order the test takes, PTE-mapped anonymous THPs, then one file THP
 * on a huge=always tmpfs, which costs one write), and then checks that the
 * splits left no folio reference behind.
 *
 * The test has no option to leave anything out, and the pagecache splits
 * after those write their files a byte per write(2): under TCG that is
 * minutes apiece, and on the guest's tmpfs each ends in a skip (no large
 * pagecache folio) with no anonymous folio ever made. The anonymous splits
 * are what cow_context=shadow checks: a split unmaps and remaps the folio
 * through its rmap, and gives each new folio, of any order, the context.
 *
 * The last test line is ours: debugfs cow_context/folio_refs (folios
 * pointing at a context) must come back to what it was before the splits,
 * since every buffer split is freed. A split that gave a context to pages
 * that stay tails of a new folio of order above 0 would leave one
 * reference per such page, which the free of the folio's head never drops.
 */
/* guest.mk compiles the kernel's sources with the warnings it gives them */
#define main split_huge_page_test_main
#include "split_huge_page_test.c"
#undef main

#include "idle.h"

/* Other processes (init's shell) may map or free a few meanwhile */
#define FOLIO_REFS_SLACK 64

int main(void)
{
	long long before, after;
	unsigned int i;

	ksft_print_header();
	/* The splits are asked for through debugfs. */
	if (geteuid() != 0)
		ksft_exit_skip("needs root\n");

	pagesize = getpagesize();
	pageshift = ffs(pagesize) - 1;
	pmd_pagesize = read_pmd_pagesize();
	if (!pmd_pagesize)
		ksft_exit_fail_msg("no PMD page size: is THP built in?\n");
	pmd_order = sz2ord(pmd_pagesize, pagesize);
	expected_orders = malloc(sizeof(int) * (pmd_order + 1));
	if (!expected_orders)
		ksft_exit_fail_msg("no memory\n");
	pagemap_fd = open(pagemap_proc, O_RDONLY);
	kpageflags_fd = open(kpageflags_proc, O_RDONLY);
	if (pagemap_fd < 0 || kpageflags_fd < 0)
		ksft_exit_fail_msg("open pagemap or kpageflags: %s\n",
				   strerror(errno));
	/* zero pages, to every order but 1, PTE-mapped, one file, ours */
	ksft_set_plan(1 + (pmd_order - 1) + 1 + 1 + 1);

	before = shadow_counter("folio_refs");
	/* Each reports one TAP line and exits on a failure. */
	split_pmd_zero_pages();
	for (i = 0; i < pmd_order; i++)
		if (i != 1)
			split_pmd_thp_to_order(i);
	split_pte_mapped_thp();
	after = shadow_counter("folio_refs");
	split_file_backed_thp(0);

	if (before < 0 || after < 0)
		ksft_test_result_skip("no %s/folio_refs (booted without cow_context=shadow?)\n",
				      SHADOW_DIR);
	else
		ksft_test_result(after <= before + FOLIO_REFS_SLACK,
				 "folio_refs back after the anonymous splits: %lld before, %lld after\n",
				 before, after);
	ksft_finished();
}
