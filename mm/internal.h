/* SPDX-License-Identifier: GPL-2.0 */
/* Model-internal helpers shared between mm/ files (mm/internal.h's role). */
#ifndef COWCTX_MM_INTERNAL_H
#define COWCTX_MM_INTERNAL_H

#include <cowctx/bug.h>
#include <cowctx/mm.h>
#include <cowctx/rmap.h>

/*
 * vm.max_map_count as it bounds the scenario's own VMAs: the sysctl less
 * the VMAs every process has that the scenario does not see (the
 * kernel judge's runner: its binary, libraries, stack)
 */
static inline int mm_max_map_count(const struct mm_struct *mm)
{
	return mm->model->max_map_count;
}
/* /proc/sys/vm/mmap_min_addr's default */
#define MMAP_MIN_ADDR	0x10000UL

/* An internal inconsistency: always a bug in the model, never input. */
#define model_bug(...)	cowctx_bug("model", __VA_ARGS__)

/* vma_tree.c */
int vma_tree_reserve(struct mm_struct *mm, unsigned long extra);
void vma_tree_insert(struct mm_struct *mm, struct vm_area_struct *vma);
void vma_tree_remove(struct mm_struct *mm, struct vm_area_struct *vma);
/* A linked VMA's new range: every range change goes through here */
void vma_tree_set_range(struct vm_area_struct *vma, unsigned long start,
			unsigned long end);
void vma_tree_destroy(struct mm_struct *mm);
/* model_bug() unless every key matches its VMA (see vma_tree.c) */
void vma_tree_validate(struct mm_struct *mm, bool strict);
struct vm_area_struct *vma_prev(struct vm_area_struct *vma);

/* mseal.c: what a sealed VMA forbids (can_modify_vma() and _madv()) */
static inline bool vma_is_sealed(const struct vm_area_struct *vma)
{
	return vma->vm_flags & VM_SEALED;
}
/* Does [@start, @end) hold a sealed VMA? Then it may not be unmapped */
bool range_has_sealed(struct mm_struct *mm, unsigned long start,
		      unsigned long end);
/* May @advice discard @vma's pages? Not a sealed read-only anon VMA's */
bool vma_may_discard(const struct vm_area_struct *vma, int advice);
struct vm_area_struct *vma_next(struct vm_area_struct *vma);
struct vm_area_struct *vma_prev_of(struct mm_struct *mm, unsigned long addr);

/* pgtable.c */
pte_t *pte_alloc(struct mm_struct *mm, unsigned long addr);
void free_pgd_range(struct mm_struct *mm, unsigned long floor,
		    unsigned long ceiling);
void free_all_pgtables(struct mm_struct *mm);
void pte_table_account(struct mm_struct *mm, unsigned long addr, int delta);
/* Move @old_addr's PTE to @new_addr (mremap); the target PTE must be none */
int move_pte(struct mm_struct *mm, unsigned long old_addr,
	     unsigned long new_addr);

/* folio.c */
struct folio *folio_alloc(struct model *m);
void folio_get(struct folio *folio);
void folio_put(struct folio *folio);
/* mapcount changes (the PTE counts stay with set_pte()) */
void folio_add_mapcount(struct folio *folio, int delta);
/* set/clear a PTE, keeping per-table counts and folio maps right */
void set_pte(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
	     struct folio *folio, unsigned int flags);
void pte_clear_and_put(struct mm_struct *mm, unsigned long addr, pte_t *ptep);

/* filemap.c */
struct folio *filemap_get_folio(struct model *m, struct file *file,
				unsigned long index);
void filemap_release_all(struct model *m);
/* The cached folio at @index with a reference, or NULL: nothing read in */
struct folio *filemap_lookup_folio(struct file *file, unsigned long index);
/* A new, empty shmem file (one per shared anonymous mapping) */
struct file *model_shmem_file(struct model *m);

/* vma.c */
struct vm_area_struct *vm_area_alloc(struct mm_struct *mm);
struct vm_area_struct *vm_area_dup(struct vm_area_struct *vma);
void vm_area_free(struct vm_area_struct *vma);
/* link into the tree and tell the backend; room must be reserved */
void vma_link(struct mm_struct *mm, struct vm_area_struct *vma);
/* unlink from the tree, rmap and free */
void remove_vma(struct vm_area_struct *vma);
int split_vma(struct vm_area_struct *vma, unsigned long addr, int new_below);
void vma_set_range(struct vm_area_struct *vma, unsigned long start,
		   unsigned long end, unsigned long pgoff);

/*
 * The id a first fault gives @vma (a neighbour's, or a new one), with
 * vm_anon_pgoff set to match; the caller stores the id once the backend
 * has prepared the VMA.
 */
unsigned long anon_vma_id_prepare(struct vm_area_struct *vma);
/* fork: the child's copy @vma of @pvma gets an anon_vma of its own */
void anon_vma_id_fork(struct vm_area_struct *vma,
		      const struct vm_area_struct *pvma);

/* The merge state: Linux's struct vma_merge_struct, reduced */
struct vma_merge_struct {
	struct mm_struct *mm;
	struct vm_area_struct *prev;
	struct vm_area_struct *next;
	struct vm_area_struct *middle;	/* the VMA being modified, if any */
	struct vm_area_struct *target;	/* the VMA that survives */
	struct vm_area_struct *copied_from;	/* mremap's source */
	unsigned long start;
	unsigned long end;
	unsigned long pgoff;
	unsigned long flags;
	struct file *file;
	unsigned long anon_vma_id;	/* Linux's vmg->anon_vma, as a number */
	bool just_expand;
	bool nomem;
};

struct vm_area_struct *vma_merge_new_range(struct vma_merge_struct *vmg);
/* mprotect's and madvise's flag changes: merge, or split to fit */
struct vm_area_struct *vma_modify_flags(struct vm_area_struct *prev,
					struct vm_area_struct *vma,
					unsigned long start, unsigned long end,
					unsigned long new_flags, int *err);

/* memory.c */
/* __anon_vma_prepare() with the model's anon_vma_id: a VMA's anon state */
int vma_anon_prepare(struct vm_area_struct *vma);
void zap_page_range(struct vm_area_struct *vma, unsigned long start,
		    unsigned long end);
int copy_page_range(struct vm_area_struct *dst, struct vm_area_struct *src);
void change_protection(struct vm_area_struct *vma, unsigned long start,
		       unsigned long end, unsigned long newflags);

/* mmap.c */
int do_vmi_munmap(struct mm_struct *mm, unsigned long start,
		  unsigned long len);
/* is [addr, addr + len) a valid user range? */
bool range_in_user_space(unsigned long addr, unsigned long len);
unsigned long vm_start_gap(const struct vm_area_struct *vma);
/*
 * A fault at @addr below a VM_GROWSDOWN VMA: grow it down to @addr
 * (lock_mm_and_find_vma()); 0, or the error that makes it SIGSEGV.
 */
int expand_stack(struct mm_struct *mm, unsigned long addr);

static inline unsigned long calc_vm_prot_bits(int prot)
{
	return (prot & PROT_READ ? VM_READ : 0) |
	       (prot & PROT_WRITE ? VM_WRITE : 0) |
	       (prot & PROT_EXEC ? VM_EXEC : 0);
}

/* is_cow_mapping(): private and may become writable */
static inline bool is_cow_mapping(unsigned long flags)
{
	return (flags & (VM_SHARED | VM_MAYWRITE)) == VM_MAYWRITE;
}

static inline void model_hook(struct model *m, enum model_hook_point where,
			      struct mm_struct *mm, struct vm_area_struct *vma)
{
	if (m->hook)
		m->hook(m, where, mm, vma);
}

#endif /* COWCTX_MM_INTERNAL_H */
