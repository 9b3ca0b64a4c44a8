/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The model's operations: Linux's system calls and faults on one
 * model instance, with Linux's semantics and errors (negative errno).
 */
#ifndef COWCTX_MM_H
#define COWCTX_MM_H

#include <cowctx/mm_types.h>
#include <cowctx/mmap_flags.h>
#include <cowctx/mmap_lock.h>

struct rmap_ops;

/* A machine running @ops; NULL on allocation failure. */
struct model *model_create(const struct rmap_ops *ops);
/* Tears down every mm and the page cache, then the backend. */
void model_destroy(struct model *m);

/* A file for MAP_PRIVATE mappings, created on first use. */
struct file *model_file(struct model *m, const char *name);

struct mm_struct *mm_create(struct model *m, const char *comm);
/* fork(): dup_mmap() of @oldmm into a new mm; 0 or -ENOMEM. */
int mm_fork(struct mm_struct *oldmm, const char *comm,
	    struct mm_struct **childp);
/* exit_mmap() and the mm's end. */
void mm_exit(struct mm_struct *mm);

/* mmap(MAP_PRIVATE | MAP_FIXED_NOREPLACE [| MAP_ANONYMOUS]) */
int do_mmap(struct mm_struct *mm, unsigned long addr, unsigned long len,
	    int prot, struct file *file, unsigned long offset);

/* Where mmap() without an address searches down from, unless exec says */
#define MM_DEFAULT_MMAP_BASE	0x7f0000000000UL
/* stack_guard_gap's default: 256 pages */
#define STACK_GUARD_GAP		(256UL << PAGE_SHIFT)
/* RLIMIT_STACK's usual soft limit (ulimit -s 8192) */
#define STACK_RLIMIT		(8UL << 20)

/*
 * mmap() with @flags (MM_MAP_*; without MM_MAP_FIXED or MM_MAP_ANY it
 * is MAP_FIXED_NOREPLACE). @file NULL maps anonymous memory. The
 * address mapped goes to *@addrp when not NULL.
 */
int do_mmap_flags(struct mm_struct *mm, unsigned long addr,
		  unsigned long len, int prot, unsigned int flags,
		  struct file *file, unsigned long offset,
		  unsigned long *addrp);
/* brk(): 0, or -ENOMEM where the kernel leaves the break unchanged */
int do_brk(struct mm_struct *mm, unsigned long brk);
/* exec: @mm's heap starts at @brk (0: none yet); mmap() searches below @base */
void mm_exec_layout(struct mm_struct *mm, unsigned long brk,
		    unsigned long mmap_base);
int do_munmap(struct mm_struct *mm, unsigned long addr, unsigned long len);
int do_mprotect(struct mm_struct *mm, unsigned long addr, unsigned long len,
		int prot);
int do_mremap(struct mm_struct *mm, unsigned long addr,
	      unsigned long old_len, unsigned long new_len,
	      unsigned long flags, unsigned long new_addr);
int do_madvise(struct mm_struct *mm, unsigned long addr, unsigned long len,
	       int advice);
/* mseal(ADDR, LEN, 0): seal every VMA of the range (it must be mapped) */
int do_mseal(struct mm_struct *mm, unsigned long addr, unsigned long len);
/*
 * A user access (load or store) at @addr: the hardware's PTE checks,
 * then handle_mm_fault(). -EFAULT where the process would get SIGSEGV,
 * -EIO where it would get SIGBUS (a shared memory object's page at or
 * past its end).
 */
int handle_access(struct mm_struct *mm, unsigned long addr, bool write);

/* VMA tree */
struct vm_area_struct *find_vma(struct mm_struct *mm, unsigned long addr);
struct vm_area_struct *vma_lookup(struct mm_struct *mm, unsigned long addr);
/* index of the first VMA ending above @addr (== nr if none) */
unsigned long vma_tree_index(struct mm_struct *mm, unsigned long addr);
#define for_each_vma(mm, vma, i)					\
	for ((i) = 0; (i) < (mm)->mm_mt.nr &&				\
	     ((vma) = (mm)->mm_mt.vmas[(i)], 1); (i)++)

/* Page tables: the PTE for @addr, or NULL where no table exists */
pte_t *pte_lookup(struct mm_struct *mm, unsigned long addr);
/* The table holding @addr's PTE (for its lock), or NULL */
struct pte_table *pte_table_lookup(struct mm_struct *mm, unsigned long addr);

static inline bool pte_present(pte_t pte)
{
	return pte.flags & _PAGE_PRESENT;
}

static inline bool pte_write(pte_t pte)
{
	return pte.flags & _PAGE_RW;
}

/* Every present PTE of @mm, in address order (the oracle's scan) */
void walk_page_tables(struct mm_struct *mm,
		      void (*fn)(struct mm_struct *mm, unsigned long addr,
				 pte_t *ptep, void *arg),
		      void *arg);

/* Does @mm map @folio at @addr? */
bool mm_maps_folio(struct mm_struct *mm, unsigned long addr,
		   const struct folio *folio);

/* The VMAs of @mm, one a line (debugging, reports) */
#include <stdio.h>
void mm_dump(struct mm_struct *mm, FILE *out);

#endif /* COWCTX_MM_H */
