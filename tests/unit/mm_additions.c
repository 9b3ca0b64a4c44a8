// SPDX-License-Identifier: GPL-2.0
/*
 * The model's side of the scenario additions for recordings
 * (docs/scenario.md): MAP_FIXED, MAP_SHARED, MAP_GROWSDOWN, mmap
 * without an address, exec's layout and brk, each held to what Linux
 * 6.12 does to the VMAs and to the anon_vma objects, on the anon_vma
 * backend whose counts a recording is compared with.
 */
#include <errno.h>
#include <string.h>

#include <cowctx/mm.h>
#include <cowctx/rmap.h>
#include "tap.h"

#define B	0x100000000000UL
#define P	PAGE_SIZE

static struct model *m;

static struct mm_struct *fresh(void)
{
	if (m)
		model_destroy(m);
	m = model_create(&anon_vma_rmap_ops);
	return m ? mm_create(m, "T") : NULL;
}

static long live(const char *name)
{
	int t;

	for (t = 0; t < m->acct.nr_types; t++)
		if (!strcmp(m->acct.type[t].name, name))
			return m->acct.type[t].live;
	return -1;
}

static int touch(struct mm_struct *mm, unsigned long addr, unsigned long len,
		 bool write)
{
	unsigned long off;
	int err;

	for (off = 0; off < len; off += P) {
		err = handle_access(mm, addr + off, write);
		if (err)
			return err;
	}
	return 0;
}

static void test_fixed(void)
{
	struct mm_struct *mm = fresh();

	do_mmap(mm, B, 16 * P, PROT_READ | PROT_WRITE, NULL, 0);
	touch(mm, B, 16 * P, true);
	is_long(do_mmap_flags(mm, B + 4 * P, 4 * P, PROT_READ, MM_MAP_FIXED,
			      NULL, 0, NULL), 0, "fixed over mapped memory");
	ok(mm->mm_mt.nr == 3 && !mm->mm_mt.vmas[1]->anon_vma &&
	   mm->mm_mt.vmas[1]->vm_start == B + 4 * P &&
	   m->nr_anon_folios == 12,
	   "fixed: the middle is new, its 4 pages gone, the rest kept");
	ok(live("anon_vma") == 1 && live("anon_vma_chain") == 2,
	   "fixed: the split's two parts share the anon_vma (2 links)");
	is_long(do_mmap_flags(mm, B + 4 * P, 4 * P, PROT_READ | PROT_WRITE,
			      MM_MAP_FIXED, NULL, 0, NULL), 0,
		"fixed rw over the r middle");
	ok(mm->mm_mt.nr == 1 && live("anon_vma_chain") == 1,
	   "fixed: a matching range merges both neighbours back into one");
}

static void test_shared(void)
{
	struct mm_struct *mm = fresh(), *child;
	struct file *f = model_file(m, "f");
	struct vm_area_struct *a, *b;

	do_mmap_flags(mm, B, 4 * P, PROT_READ | PROT_WRITE, MM_MAP_SHARED,
		      NULL, 0, NULL);
	do_mmap_flags(mm, B + 4 * P, 4 * P, PROT_READ | PROT_WRITE,
		      MM_MAP_SHARED, NULL, 0, NULL);
	a = mm->mm_mt.vmas[0];
	b = mm->mm_mt.nr > 1 ? mm->mm_mt.vmas[1] : NULL;
	ok(b && a->vm_file && a->vm_file->shmem && b->vm_file &&
	   a->vm_file != b->vm_file && !a->vm_pgoff && !b->vm_pgoff &&
	   (a->vm_flags & (VM_SHARED | VM_MAYSHARE)) ==
	   (VM_SHARED | VM_MAYSHARE) && !(a->vm_flags & VM_ACCOUNT),
	   "shared anon: a shmem file each, pgoff 0, no merge, not accounted");
	is_long(touch(mm, B, 8 * P, true), 0, "writes to shared memory");
	is_long(touch(mm, B + 2 * P, P, false), 0, "and a read");
	ok(!m->nr_anon_folios && live("anon_vma") == 0 && !a->anon_vma,
	   "shared: no anonymous folio, no anon_vma");
	is_long(mm_fork(mm, "C", &child), 0, "fork");
	ok(child->mm_mt.nr == 2 && !pte_lookup(child, B),
	   "fork: the child has the VMAs, not the page tables");
	is_long(touch(child, B, P, true), 0, "the child writes");
	ok(pte_lookup(child, B)->folio == pte_lookup(mm, B)->folio &&
	   !m->nr_anon_folios, "the child maps the parent's very page");
	/* the object keeps its size: the grown part is SIGBUS */
	is_long(do_munmap(mm, B + 4 * P, 4 * P), 0, "unmap the second");
	is_long(do_mremap(mm, B, 4 * P, 8 * P, 0, 0), 0,
		"shared anon grows in place");
	is_long(handle_access(mm, B + 3 * P, true), 0,
		"its last page within the object still works");
	is_long(handle_access(mm, B + 4 * P, false), -EIO,
		"a page past the object's end: SIGBUS (-EIO)");
	ok(!pte_lookup(mm, B + 4 * P) || !pte_present(*pte_lookup(mm, B + 4 * P)),
	   "and nothing is mapped there");

	mm = fresh();
	f = model_file(m, "f");
	do_mmap_flags(mm, B, 4 * P, PROT_READ | PROT_WRITE, MM_MAP_SHARED, f,
		      0, NULL);
	do_mmap_flags(mm, B + 4 * P, 4 * P, PROT_READ | PROT_WRITE, 0, f,
		      4 * P, NULL);
	ok(mm->mm_mt.nr == 2, "shared and private of one file stay apart");
	touch(mm, B, P, true);
	touch(mm, B + 4 * P, P, true);
	ok(m->nr_anon_folios == 1 && live("anon_vma") == 1 &&
	   !mm->mm_mt.vmas[0]->anon_vma,
	   "only the private write makes an anonymous folio");
	is_long(do_mmap_flags(mm, B + 16 * P, P, PROT_READ,
			      MM_MAP_SHARED | MM_MAP_GROWSDOWN, NULL, 0, NULL),
		-EINVAL, "shared stack: EINVAL");
	is_long(do_mmap_flags(mm, B + 16 * P, P, PROT_READ, MM_MAP_GROWSDOWN,
			      f, 0, NULL), -EINVAL, "file stack: EINVAL");
}

/* shmem's read fault-around maps only pages already in its cache */
static void test_shmem_fault_around(void)
{
	struct mm_struct *mm = fresh();

	do_mmap_flags(mm, B, 16 * P, PROT_READ | PROT_WRITE, MM_MAP_SHARED,
		      NULL, 0, NULL);
	touch(mm, B + 3 * P, P, true);
	touch(mm, B, P, false);
	ok(pte_lookup(mm, B + 3 * P) &&
	   pte_present(*pte_lookup(mm, B + 3 * P)) &&
	   !pte_present(*pte_lookup(mm, B + 5 * P)) &&
	   mm->mm_mt.vmas[0]->vm_file->f_mapping.nrpages == 2,
	   "shmem read: the written page mapped around, no other page made");
}

static void test_stack(void)
{
	struct mm_struct *mm = fresh();
	struct vm_area_struct *stack;

	do_mmap(mm, B, P, PROT_READ | PROT_WRITE, NULL, 0);
	do_mmap_flags(mm, B + 1024 * P, 16 * P, PROT_READ | PROT_WRITE,
		      MM_MAP_GROWSDOWN, NULL, 0, NULL);
	stack = mm->mm_mt.vmas[1];
	ok(stack->vm_flags & VM_GROWSDOWN, "stack: VM_GROWSDOWN");
	is_long(touch(mm, B + 1000 * P, P, false), 0, "a read below it");
	ok(stack->vm_start == B + 1000 * P &&
	   stack->vm_pgoff == ((B + 1000 * P) >> PAGE_SHIFT) &&
	   stack->anon_vma && live("anon_vma") == 1 && !m->nr_anon_folios,
	   "grows it, pgoff with it, with an anon_vma though nothing written");
	/* the VMA below ends at B + P */
	is_long(touch(mm, B + 257 * P, P, true), 0,
		"down to exactly the guard gap above the VMA below");
	is_long(touch(mm, B + 256 * P, P, true), -EFAULT,
		"one page further: SIGSEGV");
	ok(stack->vm_start == B + 257 * P, "and no growth");
	mm = fresh();
	do_mmap_flags(mm, B + 4096 * P, P, PROT_READ, MM_MAP_GROWSDOWN, NULL,
		      0, NULL);
	is_long(touch(mm, B + 4096 * P - STACK_RLIMIT, P, false), -EFAULT,
		"past RLIMIT_STACK: SIGSEGV");
	ok(mm->mm_mt.vmas[0]->anon_vma && live("anon_vma") == 1,
	   "the anon_vma was prepared before the limit refused (as 6.12)");
	is_long(touch(mm, B + 4095 * P, P, true), -EFAULT,
		"a write grows a read-only stack, then faults");
	ok(mm->mm_mt.vmas[0]->vm_start == B + 4095 * P,
	   "the growth stays, as lock_mm_and_find_vma() grows first");
}

static void test_any(void)
{
	struct mm_struct *mm = fresh(), *child;
	unsigned long a = 0, b = 0;

	is_long(do_mmap_flags(mm, 0, 16 * P, PROT_READ, MM_MAP_ANY, NULL, 0,
			      &a), 0, "mmap any");
	ok(a == MM_DEFAULT_MMAP_BASE - 16 * P, "right below the default base");
	do_mmap_flags(mm, 0, 16 * P, PROT_READ, MM_MAP_ANY, NULL, 0, &b);
	ok(b == a - 16 * P && mm->mm_mt.nr == 1, "the next below, merged");
	do_munmap(mm, b, 32 * P);
	do_mmap_flags(mm, MM_DEFAULT_MMAP_BASE - 8 * P, 8 * P, PROT_READ,
		      MM_MAP_GROWSDOWN, NULL, 0, NULL);
	do_mmap_flags(mm, 0, P, PROT_READ, MM_MAP_ANY, NULL, 0, &a);
	ok(a == MM_DEFAULT_MMAP_BASE - 8 * P - STACK_GUARD_GAP - P,
	   "below a stack, its guard gap stays free");
	mm_exec_layout(mm, B, B + 64 * P);
	is_long(mm_fork(mm, "C", &child), 0, "fork");
	do_mmap_flags(child, 0, P, PROT_READ, MM_MAP_ANY, NULL, 0, &a);
	ok(child->start_brk == B && child->brk == B && a == B + 63 * P,
	   "fork copies the heap and the mmap base");
	mm = fresh();
	mm_exec_layout(mm, 0, 0x30000);
	is_long(do_mmap_flags(mm, 0, 0x30000, PROT_READ, MM_MAP_ANY, NULL, 0,
			      NULL), -ENOMEM,
		"no room below the base, above mmap_min_addr");
	do_mmap_flags(mm, 0, 0x20000, PROT_READ, MM_MAP_ANY, NULL, 0, &a);
	ok(a == 0x10000, "the room there is, to the byte");
}

static void test_brk(void)
{
	struct mm_struct *mm = fresh(), *child;

	mm_exec_layout(mm, B, MM_DEFAULT_MMAP_BASE);
	do_mmap(mm, B - P, P, PROT_READ | PROT_WRITE, NULL, 0);	/* .bss */
	is_long(do_brk(mm, B + 4 * P), 0, "brk grows");
	ok(mm->mm_mt.nr == 2 && mm->mm_mt.vmas[1]->vm_start == B,
	   "the first growth is a VMA of its own, not .bss grown");
	is_long(do_brk(mm, B + 8 * P), 0, "brk grows again");
	ok(mm->mm_mt.nr == 2 && mm->mm_mt.vmas[1]->vm_end == B + 8 * P,
	   "the heap VMA expands in place");
	touch(mm, B, 8 * P, true);
	is_long(mm_fork(mm, "C", &child), 0, "fork");
	is_long(do_brk(child, B + 12 * P), 0, "the child's brk grows");
	ok(child->mm_mt.nr == 3 && child->brk == B + 12 * P,
	   "its inherited heap VMA (chain through fork) cannot expand");
	touch(child, B + 8 * P, P, true);
	/* the parent's 1 + 1, the child's fork 1 + 2, its new heap 1 + 1 */
	ok(live("anon_vma") == 3 && live("anon_vma_chain") == 4,
	   "the child's new heap VMA gets an anon_vma of its own");
	is_long(do_brk(mm, B + 2 * P), 0, "brk shrinks");
	ok(mm->mm_mt.vmas[1]->vm_end == B + 2 * P && mm->brk == B + 2 * P,
	   "unmapping the top");
	is_long(do_brk(mm, B - P), -ENOMEM, "below the heap's start");
	do_mmap(mm, B + 8 * P, P, PROT_READ, NULL, 0);
	is_long(do_brk(mm, B + 7 * P), 0, "up to a page short of a mapping");
	is_long(do_brk(mm, B + 8 * P), -ENOMEM, "not closer");
	ok(mm->brk == B + 7 * P, "a refused brk keeps the break");
	mm = fresh();
	is_long(do_brk(mm, B), 0, "no heap yet: a first brk");
	ok(!mm->mm_mt.nr && mm->start_brk == B && mm->brk == B,
	   "only sets where the heap starts");
}

/* An allocation failing half way leaves a model that tears down clean */
static void test_nomem(void)
{
	struct mm_struct *mm;
	int n, failed = 0, clean = 0;

	for (n = 1; n <= 40; n++) {
		mm = fresh();
		alloc_fail_nth = n;
		if (do_mmap_flags(mm, B, 4 * P, PROT_READ | PROT_WRITE,
				  MM_MAP_SHARED, NULL, 0, NULL) ||
		    do_mmap_flags(mm, B + 16 * P, 4 * P, PROT_READ | PROT_WRITE,
				  MM_MAP_GROWSDOWN, NULL, 0, NULL) ||
		    touch(mm, B + 10 * P, P, true) || do_brk(mm, B + 64 * P) ||
		    do_brk(mm, B + 68 * P) || touch(mm, B, P, true))
			failed++;
		alloc_fail_nth = 0;
		mm_exit(mm);
		clean += !m->nr_vmas && !m->nr_anon_folios &&
			 !live("anon_vma") && !live("anon_vma_chain");
	}
	ok(failed > 0 && clean == 40,
	   "%d injected failures, every model left clean after exit", failed);
}

int main(void)
{
	test_fixed();
	test_shared();
	test_shmem_fault_around();
	test_stack();
	test_any();
	test_brk();
	test_nomem();
	model_destroy(m);
	return tap_done();
}
