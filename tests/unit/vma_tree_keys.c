// SPDX-License-Identifier: GPL-2.0
/*
 * The VMA tree's keys (mm/vma_tree.c): lookups read ranges kept beside
 * the VMA pointers, not the VMAs, so every path that changes a range
 * must keep them exact. Random operations of every kind that moves an
 * edge (mmap and its merges, munmap, mprotect splits and merges, mremap
 * in place and moving, stack growth, brk, fork, failed allocations),
 * and after each one every lookup is compared with a scan of the VMAs
 * themselves. The keys are also checked after every tree change
 * (tap.h sets vma_tree_debug), and a stale key is shown to be caught.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cowctx/account.h>
#include <cowctx/mm.h>
#include <cowctx/mmap_lock.h>
#include <cowctx/rmap.h>
#include "mm/internal.h"
#include "tap.h"

#define B	0x100000000000UL
#define P	PAGE_SIZE
#define PAGES	192UL

/* What the lookups must return, from the VMAs' own fields */
static struct vm_area_struct *scan_find(struct mm_struct *mm,
					unsigned long addr)
{
	struct vm_area_struct *vma;
	unsigned long i;

	for_each_vma(mm, vma, i)
		if (vma->vm_end > addr)
			return vma;
	return NULL;
}

static struct vm_area_struct *scan_prev_of(struct mm_struct *mm,
					   unsigned long addr)
{
	struct vm_area_struct *vma, *last = NULL;
	unsigned long i;

	for_each_vma(mm, vma, i)
		if (vma->vm_start < addr)
			last = vma;
	return last;
}

/* Every page of the window and both its edges; the mismatches */
static long lookups_disagree(struct mm_struct *mm)
{
	long bad = 0;
	unsigned long a;

	vma_tree_validate(mm, true);
	for (a = B - 2 * P; a <= B + (PAGES + 2) * P; a += P / 2) {
		struct vm_area_struct *f = scan_find(mm, a);
		struct vm_area_struct *l = f && f->vm_start <= a ? f : NULL;

		bad += find_vma(mm, a) != f;
		bad += vma_lookup(mm, a) != l;
		bad += vma_prev_of(mm, a) != scan_prev_of(mm, a);
	}
	return bad;
}

static unsigned long rnd(unsigned int *seed, unsigned long n)
{
	return (unsigned long)rand_r(seed) % n;
}

/* One random operation on @mm (its return value does not matter here) */
static void random_op(struct mm_struct *mm, unsigned int *seed)
{
	unsigned long first = rnd(seed, PAGES), n = 1 + rnd(seed, 12);
	unsigned long addr = B + first * P, len = n * P;
	int prot = rnd(seed, 3) ? PROT_READ | PROT_WRITE : PROT_READ;
	struct mm_struct *child;

	switch (rnd(seed, 9)) {
	case 0:
	case 1:
		do_mmap(mm, addr, len, prot, NULL, 0);
		break;
	case 2:
		do_munmap(mm, addr, len);
		break;
	case 3:
		do_mprotect(mm, addr, len, prot);
		break;
	case 4:
		/* in place: grow or shrink */
		do_mremap(mm, addr, len, (1 + rnd(seed, 12)) * P, 0, 0);
		break;
	case 5:
		do_mremap(mm, addr, len, (1 + rnd(seed, 12)) * P,
			  MREMAP_MAYMOVE | MREMAP_FIXED,
			  B + rnd(seed, PAGES) * P);
		break;
	case 6:
		/* faults give anon state, which changes what merges */
		handle_access(mm, addr, true);
		break;
	case 7:
		/* a stack below the window's top grows down on access */
		if (do_mmap_flags(mm, addr, P, PROT_READ | PROT_WRITE,
				  MM_MAP_GROWSDOWN, NULL, 0, NULL) == 0)
			handle_access(mm, addr - n * P, true);
		break;
	default:
		if (mm_fork(mm, "child", &child) == 0)
			mm_exit(child);
		break;
	}
}

static void test_random(const struct rmap_ops *ops, const char *name)
{
	struct model *m = model_create(ops);
	struct mm_struct *mm = mm_create(m, "T");
	unsigned int seed = 9;
	long bad = 0;
	int i;

	for (i = 0; i < 3000; i++) {
		/* now and then an allocation fails part way through */
		if (!rnd(&seed, 8))
			alloc_fail_nth = 1 + (long)rnd(&seed, 6);
		random_op(mm, &seed);
		alloc_fail_nth = 0;
		bad += lookups_disagree(mm);
	}
	is_long(bad, 0, "%s: find_vma, vma_lookup and vma_prev_of match the VMAs over 3000 operations",
		name);
	ok(mm->mm_mt.nr > 3, "%s: the window ends with %lu VMAs", name,
	   mm->mm_mt.nr);
	mm_exit(mm);
	model_destroy(m);
}

/*
 * A range changed behind the tree's back is caught at the next tree
 * change or mmap_lock release: in a child process, which aborts.
 */
static void test_stale_key_caught(void)
{
	pid_t pid = fork();
	int status;

	if (pid < 0) {
		ok(0, "fork for the stale-key test");
		return;
	}
	if (!pid) {
		struct model *m = model_create(&scan_rmap_ops);
		struct mm_struct *mm = mm_create(m, "T");

		if (!freopen("/dev/null", "w", stderr))
			_exit(3);
		do_mmap(mm, B, 4 * P, PROT_READ, NULL, 0);
		mm->mm_mt.vmas[0]->vm_end -= P;
		mmap_write_lock(mm);
		mmap_write_unlock(mm);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid) {
		ok(0, "waitpid for the stale-key test");
		return;
	}
	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT,
	   "a VMA end moved behind the tree's back is a model bug");
}

int main(void)
{
	test_random(&anon_vma_rmap_ops, "anon_vma");
	test_random(&cow_context_rmap_ops, "cow_context");
	test_stale_key_caught();
	return tap_done();
}
