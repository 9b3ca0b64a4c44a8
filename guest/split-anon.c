// SPDX-License-Identifier: GPL-2.0
/*
 * split_huge_page_test without its pagecache splits: the kernel's own test,
 * compiled from the extracted tree, under a main of ours that runs the THP
 * splits it makes first (zero-filled, PMD-mapped and PTE-mapped anonymous
 * THPs, then one file THP on a huge=always tmpfs, which costs one write).
 *
 * The test has no option to leave anything out, and the nine pagecache
 * splits after those each write a 4 MB file one byte per write(2): under
 * TCG that is minutes apiece, and on the guest's tmpfs each ends in a skip
 * (no large pagecache folio) with no anonymous folio ever made. The
 * anonymous splits are what cow_context=shadow checks: a split unmaps and
 * remaps the folio through its rmap.
 */
/* The kernel builds its test without -Wextra; one parameter is unused. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#define main split_huge_page_test_main
#include "split_huge_page_test.c"
#undef main
#pragma GCC diagnostic pop

int main(void)
{
	ksft_print_header();
	/* The splits are asked for through debugfs. */
	if (geteuid() != 0)
		ksft_exit_skip("needs root\n");
	ksft_set_plan(3);

	pagesize = getpagesize();
	pageshift = ffs(pagesize) - 1;
	pmd_pagesize = read_pmd_pagesize();
	if (!pmd_pagesize)
		ksft_exit_fail_msg("no PMD page size: is THP built in?\n");

	/* Reports no TAP line of its own; it exits on failure. */
	split_pmd_zero_pages();
	split_pmd_thp();
	split_pte_mapped_thp();
	split_file_backed_thp();
	ksft_finished();
}
