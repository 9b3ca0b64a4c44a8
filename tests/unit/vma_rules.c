// SPDX-License-Identifier: GPL-2.0
/*
 * VMA merge and split rules, in the style of the kernel's
 * tools/testing/vma: each case draws the layout it builds and asserts
 * exactly which VMAs result. Linux's rules decide how many VMAs (and so
 * how many anon_vmas) exist, so each rule gets a case.
 */
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include <cowctx/mm.h>
#include <cowctx/rmap.h>
#include "tap.h"

#define B	0x100000000000UL
#define P	PAGE_SIZE

/*
 * Does @mm's VMA list read as @spec: "START-END PROT[+anon] ..." with
 * addresses in pages from B, e.g. "0-3 rw 5-6 r"?
 */
static bool layout_is(struct mm_struct *mm, const char *spec)
{
	char buf[512], *tok, *save = NULL;
	unsigned long i = 0;

	snprintf(buf, sizeof(buf), "%s", spec);
	for (tok = strtok_r(buf, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		unsigned long s, e;
		struct vm_area_struct *vma;
		char *prot = strtok_r(NULL, " ", &save);
		char got[4];

		if (sscanf(tok, "%lu-%lu", &s, &e) != 2 || !prot ||
		    i >= mm->mm_mt.nr)
			goto bad;
		vma = mm->mm_mt.vmas[i++];
		snprintf(got, sizeof(got), "%s%s%s",
			 vma->vm_flags & VM_READ ? "r" : "",
			 vma->vm_flags & VM_WRITE ? "w" : "",
			 vma->vm_flags & VM_EXEC ? "x" : "");
		if (!got[0])
			strcpy(got, "-");
		if (vma->vm_start != B + s * P || vma->vm_end != B + e * P ||
		    strcmp(got, prot))
			goto bad;
	}
	if (i == mm->mm_mt.nr)
		return true;
bad:
	tap_diag("expected: %s", spec);
	mm_dump(mm, stdout);
	return false;
}

static struct model *m;

static struct mm_struct *fresh(const char *backend)
{
	if (m)
		model_destroy(m);
	m = model_create(rmap_backend_find(backend));
	return mm_create(m, "T");
}

/* Objects of type @name the backend of m has live (-1: no such type) */
static long live_objects(const char *name)
{
	int t;

	for (t = 0; t < m->acct.nr_types; t++)
		if (!strcmp(m->acct.type[t].name, name))
			return m->acct.type[t].live;
	return -1;
}

static void test_mmap_merges(void)
{
	struct mm_struct *mm = fresh("scan");

	/*
	 * |AAA|   |CCC|  then B fills the gap:
	 * |AAA|BBB|CCC|  -> one VMA
	 */
	do_mmap(mm, B, 3 * P, PROT_READ | PROT_WRITE, NULL, 0);
	do_mmap(mm, B + 6 * P, 3 * P, PROT_READ | PROT_WRITE, NULL, 0);
	ok(layout_is(mm, "0-3 rw 6-9 rw"), "two separate mappings");
	do_mmap(mm, B + 3 * P, 3 * P, PROT_READ | PROT_WRITE, NULL, 0);
	ok(layout_is(mm, "0-9 rw"), "filling the gap merges all three");

	/* |rw|r | : different protections never merge */
	mm = fresh("scan");
	do_mmap(mm, B, P, PROT_READ | PROT_WRITE, NULL, 0);
	do_mmap(mm, B + P, P, PROT_READ, NULL, 0);
	ok(layout_is(mm, "0-1 rw 1-2 r"), "different protections stay apart");
}

static void test_mprotect_split_merge(void)
{
	struct mm_struct *mm = fresh("anon_vma");

	/*
	 * |rw rw rw|  mprotect the middle page read-only:
	 * |rw|r |rw|  and back:
	 * |rw rw rw|
	 */
	do_mmap(mm, B, 3 * P, PROT_READ | PROT_WRITE, NULL, 0);
	handle_access(mm, B, true);
	is_long(do_mprotect(mm, B + P, P, PROT_READ), 0, "mprotect middle");
	ok(layout_is(mm, "0-1 rw 1-2 r 2-3 rw"), "split into three");
	is_long(do_mprotect(mm, B + P, P, PROT_READ | PROT_WRITE), 0,
		"mprotect back");
	ok(layout_is(mm, "0-3 rw"), "merged back into one");
	ok(mm->mm_mt.vmas[0]->anon_vma, "the merged VMA kept its anon_vma");
}

static void test_vm_account(void)
{
	struct mm_struct *mm = fresh("scan");

	/*
	 * |r |rw|  mprotect the first rw: it is charged (VM_ACCOUNT) and
	 * |rw rw|  merges. Then rw -> r of a faulted VMA keeps the charge,
	 * so a fresh read-only neighbour does not merge with it.
	 */
	do_mmap(mm, B, P, PROT_READ, NULL, 0);
	do_mmap(mm, B + P, P, PROT_READ | PROT_WRITE, NULL, 0);
	ok(layout_is(mm, "0-1 r 1-2 rw"), "read-only beside writable");
	do_mprotect(mm, B, P, PROT_READ | PROT_WRITE);
	ok(layout_is(mm, "0-2 rw"), "made writable, charged and merged");
	handle_access(mm, B, true);
	do_mprotect(mm, B, 2 * P, PROT_READ);
	ok(mm->mm_mt.vmas[0]->vm_flags & VM_ACCOUNT,
	   "a faulted VMA keeps VM_ACCOUNT when made read-only");
	do_mmap(mm, B + 2 * P, P, PROT_READ, NULL, 0);
	ok(layout_is(mm, "0-2 r 2-3 r"),
	   "an uncharged read-only neighbour does not merge");
}

static void test_fork_child_no_merge(void)
{
	struct mm_struct *mm = fresh("anon_vma"), *child;

	static const char *const others[] = { "scan", "cow_context" };
	int i;

	/*
	 * parent: |AAA|      fork; in the child A's anon_vma chain has two
	 * child:  |AAA|BBB|  links, so the new B may not extend it (lock
	 * scope). Per-mm backends have no chain, and keep Linux's rule
	 * all the same: the model decides from vma->anon_vma_id.
	 */
	do_mmap(mm, B, 3 * P, PROT_READ | PROT_WRITE, NULL, 0);
	handle_access(mm, B, true);
	is_long(mm_fork(mm, "C", &child), 0, "fork");
	do_mmap(child, B + 3 * P, 3 * P, PROT_READ | PROT_WRITE, NULL, 0);
	ok(layout_is(child, "0-3 rw 3-6 rw"),
	   "anon_vma: a forked VMA does not absorb a new neighbour");

	for (i = 0; i < 2; i++) {
		mm = fresh(others[i]);
		do_mmap(mm, B, 3 * P, PROT_READ | PROT_WRITE, NULL, 0);
		handle_access(mm, B, true);
		mm_fork(mm, "C", &child);
		do_mmap(child, B + 3 * P, 3 * P, PROT_READ | PROT_WRITE,
			NULL, 0);
		ok(layout_is(child, "0-3 rw 3-6 rw"),
		   "%s: the same layout as anon_vma's", others[i]);
	}
}

/*
 * |A|r|C|: first faults on either side of a read-only page give two
 * anon_vmas; made writable, the middle joins A but A and C stay apart
 * (prev and next anon_vmas differ). Per-mm backends, where every VMA's
 * anon state is the mm's, must not merge all three.
 */
static void test_two_anon_vmas_no_merge(void)
{
	static const char *const backends[] = {
		"anon_vma", "scan", "cow_context"
	};
	struct mm_struct *mm;
	int i;

	for (i = 0; i < 3; i++) {
		mm = fresh(backends[i]);
		do_mmap(mm, B, 3 * P, PROT_READ | PROT_WRITE, NULL, 0);
		do_mprotect(mm, B + P, P, PROT_READ);
		handle_access(mm, B, true);
		handle_access(mm, B + 2 * P, true);
		do_mprotect(mm, B + P, P, PROT_READ | PROT_WRITE);
		ok(layout_is(mm, "0-2 rw 2-3 rw"),
		   "%s: two anon_vmas keep prev and next apart", backends[i]);
	}
}

/*
 * vm_anon_pgoff: a private file VMA's anonymous pages are indexed from
 * where it was first faulted, not by file offset, so a file VMA that
 * never moved needs no remap entry; a VMA that shares a neighbour's
 * anon_vma takes the neighbour's offsets, so the two can merge.
 */
static void test_anon_pgoff(void)
{
	struct mm_struct *mm = fresh("cow_context");
	struct file *f = model_file(m, "f");
	struct vm_area_struct *a, *b;
	unsigned long base = anon_page_index(B);

	do_mmap(mm, B + 10 * P, P, PROT_READ | PROT_WRITE, f, 0);
	handle_access(mm, B + 10 * P, true);
	a = vma_lookup(mm, B + 10 * P);
	is_long(vma_anon_pgoff(a), base + 10,
		"a file VMA's anonymous pages are indexed by address");
	is_long(a->vm_pgoff, 0, "its vm_pgoff stays the file offset");

	is_long(do_mremap(mm, B + 10 * P, P, P, MREMAP_MAYMOVE | MREMAP_FIXED,
			  B), 0, "move it");
	a = vma_lookup(mm, B);
	is_long(vma_anon_pgoff(a), base + 10,
		"moved, it keeps its anonymous offset");

	/* B: the next file page, executable too, beside A */
	do_mmap(mm, B + P, P, PROT_READ | PROT_WRITE | PROT_EXEC, f, P);
	handle_access(mm, B + P, true);
	a = vma_lookup(mm, B);
	b = vma_lookup(mm, B + P);
	ok(b->anon_vma_id == a->anon_vma_id,
	   "a first fault beside a compatible VMA shares its anon_vma");
	is_long(vma_anon_pgoff(b), base + 11,
		"and takes that VMA's anonymous offsets");
	is_long(do_mprotect(mm, B + P, P, PROT_READ | PROT_WRITE), 0,
		"mprotect it like A");
	ok(layout_is(mm, "0-2 rw"), "the two merge, as Linux's do");
	a = vma_lookup(mm, B);
	is_long(vma_anon_pgoff(a), base + 10, "at A's anonymous offset");

	/* an unfaulted file VMA moved, then faulted: no offset to keep */
	do_mmap(mm, B + 20 * P, P, PROT_READ | PROT_WRITE, f, 7 * P);
	do_mremap(mm, B + 20 * P, P, P, MREMAP_MAYMOVE | MREMAP_FIXED,
		  B + 30 * P);
	handle_access(mm, B + 30 * P, true);
	a = vma_lookup(mm, B + 30 * P);
	is_long(vma_anon_pgoff(a), base + 30,
		"moved before its first fault, it is indexed where it is");
	is_long(mm->mm_mt.nr, 2, "two VMAs");
	is_long(live_objects(RMAP_VMA_FIELDS), 2,
		"cow_context counts its fields in each VMA");
	is_long(m->acct.field_bytes, 2 * 16,
		"16 bytes each: vm_anon_pgoff's word and the anon_vma_id slot");
}

static void test_munmap_split(void)
{
	struct mm_struct *mm = fresh("scan");

	/* |AAAAAAAA| munmap the middle: |AA|  |AAAA| */
	do_mmap(mm, B, 8 * P, PROT_READ | PROT_WRITE, NULL, 0);
	handle_access(mm, B + 3 * P, true);
	is_long(do_munmap(mm, B + 2 * P, 2 * P), 0, "munmap the middle");
	ok(layout_is(mm, "0-2 rw 4-8 rw"), "split around the hole");
	is_long(mm->mm_mt.vmas[1]->vm_pgoff, (B >> PAGE_SHIFT) + 4,
		"the tail keeps a linear pgoff");
	is_long(m->nr_anon_folios, 0, "the unmapped page's folio is freed");
	is_long(do_munmap(mm, B + 20 * P, P), 0,
		"munmap of an empty range succeeds");
}

static void test_mremap_pgoff(void)
{
	struct mm_struct *mm = fresh("scan");
	struct vm_area_struct *vma;

	/*
	 * A faulted VMA moved keeps its pgoff (the folio index stays);
	 * an unfaulted one takes the pgoff of its new address.
	 */
	do_mmap(mm, B, 2 * P, PROT_READ | PROT_WRITE, NULL, 0);
	handle_access(mm, B, true);
	is_long(do_mremap(mm, B, 2 * P, 2 * P, MREMAP_MAYMOVE | MREMAP_FIXED,
			  B + 100 * P), 0, "move a faulted VMA");
	vma = vma_lookup(mm, B + 100 * P);
	ok(vma && vma->vm_pgoff == B >> PAGE_SHIFT, "pgoff kept across the move");
	ok(mm_maps_folio(mm, B + 100 * P, pte_lookup(mm, B + 100 * P)->folio),
	   "the page moved with it");

	do_mmap(mm, B + 10 * P, 2 * P, PROT_READ | PROT_WRITE, NULL, 0);
	do_mremap(mm, B + 10 * P, 2 * P, 2 * P, MREMAP_MAYMOVE | MREMAP_FIXED,
		  B + 200 * P);
	vma = vma_lookup(mm, B + 200 * P);
	ok(vma && vma->vm_pgoff == (B >> PAGE_SHIFT) + 200,
	   "an unfaulted VMA takes its new address as pgoff");
}

static void test_file_merge(void)
{
	struct mm_struct *mm = fresh("scan");
	struct file *f = model_file(m, "f");

	/* file pages merge only where the file offsets are contiguous */
	do_mmap(mm, B, P, PROT_READ, f, 0);
	do_mmap(mm, B + P, P, PROT_READ, f, P);
	ok(layout_is(mm, "0-2 r"), "contiguous file offsets merge");
	do_mmap(mm, B + 2 * P, P, PROT_READ, f, 10 * P);
	ok(layout_is(mm, "0-2 r 2-3 r"), "a jump in offset does not");
}

static void test_errors(void)
{
	struct mm_struct *mm = fresh("scan");

	do_mmap(mm, B, 4 * P, PROT_READ | PROT_WRITE, NULL, 0);
	is_long(do_mmap(mm, B + P, P, PROT_READ, NULL, 0), -EEXIST,
		"MAP_FIXED_NOREPLACE over a mapping: EEXIST");
	is_long(do_mmap(mm, B + 10 * P, 0, PROT_READ, NULL, 0), -EINVAL,
		"zero-length mmap: EINVAL");
	is_long(do_mmap(mm, TASK_SIZE, P, PROT_READ, NULL, 0), -ENOMEM,
		"mmap beyond user space: ENOMEM");
	is_long(do_munmap(mm, B, 0), -EINVAL, "zero-length munmap: EINVAL");
	is_long(do_mprotect(mm, B, 8 * P, PROT_READ), -ENOMEM,
		"mprotect past the end: ENOMEM");
	is_long(do_mremap(mm, B + 50 * P, P, P, MREMAP_MAYMOVE | MREMAP_FIXED,
			  B + 60 * P), -EFAULT,
		"mremap of unmapped memory: EFAULT");
	is_long(do_mremap(mm, B, 4 * P, 8 * P, 0, 0), 0,
		"growing in place into free space");
	do_mmap(mm, B + 9 * P, P, PROT_READ, NULL, 0);
	is_long(do_mremap(mm, B, 8 * P, 12 * P, 0, 0), -ENOMEM,
		"growing in place into a mapping: ENOMEM");
	is_long(handle_access(mm, B + 9 * P, true), -EFAULT,
		"writing read-only memory faults (SIGSEGV)");
	is_long(do_madvise(mm, B, 12 * P, MADV_DONTNEED), -ENOMEM,
		"madvise over a hole: ENOMEM");
}

int main(void)
{
	test_mmap_merges();
	test_mprotect_split_merge();
	test_vm_account();
	test_fork_child_no_merge();
	test_two_anon_vmas_no_merge();
	test_anon_pgoff();
	test_munmap_split();
	test_mremap_pgoff();
	test_file_merge();
	test_errors();
	model_destroy(m);
	return tap_done();
}
