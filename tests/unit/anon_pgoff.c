// SPDX-License-Identifier: GPL-2.0
/*
 * vm_anon_pgoff is one word: the anonymous page offset below, the
 * backend's per-VMA flags above (include/cowctx/mm_types.h). Two things
 * could break it: arithmetic on the offset carrying into the flags, or a
 * path that computes a new offset from the whole word. The first part
 * drives the accessors at the very top of the offset's bits; the second
 * runs every path that moves offsets (split, merge, expand, mremap,
 * fork's copy, DONTUNMAP) on cow_context VMAs whose flags are set, and
 * checks that flags, offsets, remap entries and walks all still agree;
 * the third checks that an offset that would reach the flags stops the
 * model instead of corrupting them.
 */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cow_context_harness.h"
#include "tap.h"

#define LOW	0x10000UL	/* MMAP_MIN_ADDR: the lowest first fault */
#define HIGH	0x100000000000UL
#define FOFF	0x1000000UL	/* the file offset of the written pages */
#define RW	(PROT_READ | PROT_WRITE)

static void test_accessors(void)
{
	struct vm_area_struct vma = { .vm_start = HIGH, .vm_end = HIGH + PAGE_SIZE };
	unsigned long all = VMA_ANON_FLAGS_MASK, top = VMA_ANON_PGOFF_MASK;
	int n;

	is_long(VMA_ANON_FLAGS_MASK & VMA_ANON_PGOFF_MASK, 0,
		"offset and flags share no bit");
	is_long(VMA_ANON_FLAGS_MASK | VMA_ANON_PGOFF_MASK, ~0UL,
		"and fill the word");
	for (n = 0; n < VMA_ANON_FLAG_BITS; n++)
		if (!(VMA_ANON_FLAG(n) & VMA_ANON_FLAGS_MASK))
			break;
	is_long(n, VMA_ANON_FLAG_BITS, "every VMA_ANON_FLAG() is a flag bit");
	ok(!(COW_VMA_LINKED & VMA_ANON_PGOFF_MASK) &&
	   !((COW_VMA_ENTRY | COW_VMA_RESERVED | COW_VMA_LOSSY) &
	     VMA_ANON_PGOFF_MASK), "cow_context's flags are flag bits");

	vma_anon_flags_set(&vma, all);
	vma_set_anon_pgoff(&vma, top);
	is_long(vma_anon_pgoff(&vma), top, "the largest offset reads back");
	is_long(vma_anon_flags(&vma), all, "beside every flag");
	/* what split, merge and mremap do: add and subtract page counts */
	vma_set_anon_pgoff(&vma, vma_anon_pgoff(&vma) - 1);
	vma_set_anon_pgoff(&vma, vma_anon_pgoff(&vma) + 1);
	is_long(vma_anon_word(&vma), ~0UL,
		"one below the top and back: the word is all ones");
	vma_set_anon_pgoff(&vma, 0);
	is_long(vma_anon_flags(&vma), all, "offset 0 keeps every flag");
	is_long(vma_anon_pgoff(&vma), 0, "and reads 0");
	vma_anon_flags_clear(&vma, all);
	vma_set_anon_pgoff(&vma, top);
	is_long(vma_anon_flags(&vma), 0, "the top offset sets no flag");
	vma_anon_flags_set(&vma, COW_VMA_ENTRY);
	vma_anon_flags_clear(&vma, COW_VMA_LOSSY);
	is_long(vma_anon_word(&vma), top | COW_VMA_ENTRY,
		"setting and clearing a flag leave the offset alone");
	vma_anon_flags_clear(&vma, COW_VMA_ENTRY);
	is_long(vma_anon_word(&vma), top, "the flag clears");

	is_long(anon_page_index(0), ANON_PGOFF_BIAS, "address 0 is the bias");
	is_long(anon_index_page(anon_page_index(HIGH)), HIGH >> PAGE_SHIFT,
		"anon_index_page() undoes anon_page_index()");
}

static struct vm_area_struct *at(struct mm_struct *mm, unsigned long addr)
{
	return vma_lookup(mm, addr);
}

/* Flags and entries agree (cc_validate) and every walk is exact */
static void all_agree(struct model *m, const char *what)
{
	struct check_stats cs = { .max_report = 3 };
	const char *bad = cc_validate(m);

	if (bad)
		tap_diag("%s", bad);
	ok(!bad && !model_check(m, &cs, stderr, what) && !cs.mismatches,
	   "%s: flags, remap entries and walks agree", what);
}

static bool flags_are(struct vm_area_struct *vma, unsigned long want)
{
	if (vma && cow_vma_state(vma) == want)
		return true;
	tap_diag("VMA at %#lx: flags %#lx, want %#lx", vma ? vma->vm_start : 0,
		 vma ? cow_vma_state(vma) : 0, want);
	return false;
}

static void test_paths(void)
{
	struct model *m = model_create(&cow_context_rmap_ops);
	struct mm_struct *mm = mm_create(m, "P"), *child;
	struct file *f = model_file(m, "f");
	unsigned long first = anon_page_index(LOW), linked_entry;
	struct vm_area_struct *vma;

	linked_entry = COW_VMA_LINKED | COW_VMA_ENTRY;
	/* four private file pages written at the lowest address */
	ok(!do_mmap(mm, LOW, 4 * PAGE_SIZE, RW, f, FOFF) &&
	   !handle_access(mm, LOW, true) &&
	   !handle_access(mm, LOW + 3 * PAGE_SIZE, true), "map and write");
	vma = at(mm, LOW);
	is_long(vma_anon_pgoff(vma), first, "indexed by their address");
	ok(flags_are(vma, COW_VMA_LINKED), "linked, no entry");

	ok(!do_mremap(mm, LOW, 4 * PAGE_SIZE, 4 * PAGE_SIZE,
		      MREMAP_MAYMOVE | MREMAP_FIXED, HIGH), "mremap: move");
	vma = at(mm, HIGH);
	is_long(vma_anon_pgoff(vma), first, "the offset moves with the pages");
	ok(flags_are(vma, linked_entry), "and it owns an entry");
	all_agree(m, "moved");

	ok(!do_mprotect(mm, HIGH + PAGE_SIZE, PAGE_SIZE, PROT_READ),
	   "mprotect: split in three");
	is_long(vma_anon_pgoff(at(mm, HIGH + PAGE_SIZE)), first + 1,
		"the middle piece's offset");
	is_long(vma_anon_pgoff(at(mm, HIGH + 2 * PAGE_SIZE)), first + 2,
		"the top piece's offset");
	ok(flags_are(at(mm, HIGH), linked_entry) &&
	   flags_are(at(mm, HIGH + PAGE_SIZE), linked_entry) &&
	   flags_are(at(mm, HIGH + 2 * PAGE_SIZE), linked_entry),
	   "each piece owns its entry");
	all_agree(m, "split");

	ok(!do_mprotect(mm, HIGH + PAGE_SIZE, PAGE_SIZE, RW), "merge back");
	vma = at(mm, HIGH);
	ok(vma->vm_end == HIGH + 4 * PAGE_SIZE &&
	   vma_anon_pgoff(vma) == first && flags_are(vma, linked_entry),
	   "one VMA again, its offset and flags whole");
	all_agree(m, "merged");

	ok(!do_mremap(mm, HIGH, 4 * PAGE_SIZE, 8 * PAGE_SIZE, 0, 0),
	   "mremap: grow in place");
	vma = at(mm, HIGH);
	ok(vma->vm_end == HIGH + 8 * PAGE_SIZE &&
	   vma_anon_pgoff(vma) == first && flags_are(vma, linked_entry),
	   "expanded: offset and flags kept");

	/*
	 * The file's 100 pages before these, mapped just below: they merge
	 * and take offsets 100 pages below the first fault's, below what an
	 * address gives: without the bias they would be negative.
	 */
	ok(!do_mmap(mm, HIGH - 100 * PAGE_SIZE, 100 * PAGE_SIZE, RW, f,
		    FOFF - 100 * PAGE_SIZE), "map the file's pages below");
	vma = at(mm, HIGH - 100 * PAGE_SIZE);
	ok(vma && vma->vm_end == HIGH + 8 * PAGE_SIZE &&
	   vma_anon_pgoff(vma) == first - 100 && flags_are(vma, linked_entry),
	   "merged below: offset 100 pages lower, flags kept");
	ok(!handle_access(mm, HIGH - 100 * PAGE_SIZE, true), "write there");
	all_agree(m, "extended below");

	ok(!mm_fork(mm, "C", &child), "fork");
	vma = at(child, HIGH - 100 * PAGE_SIZE);
	ok(vma && vma_anon_pgoff(vma) == first - 100 &&
	   flags_are(vma, linked_entry), "the child's copy: offset and flags");
	all_agree(m, "forked");

	ok(!do_mremap(child, HIGH, PAGE_SIZE, PAGE_SIZE,
		      MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP,
		      2 * HIGH), "mremap: DONTUNMAP a page in the child");
	vma = at(child, 2 * HIGH);
	ok(vma && vma_anon_pgoff(vma) == first &&
	   flags_are(vma, linked_entry), "the moved page: offset and flags");
	vma = at(child, HIGH);
	ok(vma && flags_are(vma, vma->anon_vma && vma_remap_offset(vma) ?
				 linked_entry : COW_VMA_LINKED),
	   "the source stays mapped, its flags what its offset says");
	all_agree(m, "dontunmap");

	mm_exit(child);
	mm_exit(mm);
	is_long(account_live_total(&m->acct), 0, "everything freed");
	model_destroy(m);
}

/* An offset that reaches the flags stops the model (in a child) */
static void test_overflow_caught(void)
{
	struct vm_area_struct vma = { .vm_start = HIGH, .vm_end = HIGH + PAGE_SIZE };
	int status = 0;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		ok(0, "fork for the overflow test");
		return;
	}
	if (!pid) {
		if (!freopen("/dev/null", "w", stderr))
			_exit(3);
		vma_anon_flags_set(&vma, COW_VMA_ENTRY);
		vma_set_anon_pgoff(&vma, VMA_ANON_PGOFF_MASK);
		vma_set_anon_pgoff(&vma, vma_anon_pgoff(&vma) + 1);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT,
	   "one past the largest offset is a model bug, not a flag");
}

int main(void)
{
	test_accessors();
	test_paths();
	test_overflow_caught();
	return tap_done();
}
