/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The model's Linux memory-management types, with the kernel's names
 * and field meanings (include/linux/mm_types.h), reduced to what anon
 * reverse mapping needs.
 */
#ifndef COWCTX_MM_TYPES_H
#define COWCTX_MM_TYPES_H

#include <stdbool.h>
#include <stdint.h>

#include <cowctx/account.h>
#include <cowctx/inject.h>
#include <cowctx/list.h>
#include <cowctx/lock.h>

#define PAGE_SHIFT	12
#define PAGE_SIZE	(1UL << PAGE_SHIFT)
#define PAGE_MASK	(~(PAGE_SIZE - 1))
#define PAGE_ALIGNED(x)	(((x) & (PAGE_SIZE - 1)) == 0)
#define PHYS_PFN(x)	((unsigned long)(x) >> PAGE_SHIFT)

/* x86-64 with 4-level paging: 47 bits of user space less one guard page */
#define TASK_SIZE	0x7ffffffff000UL

/* vm_flags: the kernel's bit values (include/linux/mm.h) */
#define VM_NONE		0x00000000UL
#define VM_READ		0x00000001UL
#define VM_WRITE	0x00000002UL
#define VM_EXEC		0x00000004UL
#define VM_SHARED	0x00000008UL
#define VM_MAYREAD	0x00000010UL
#define VM_MAYWRITE	0x00000020UL
#define VM_MAYEXEC	0x00000040UL
#define VM_MAYSHARE	0x00000080UL
#define VM_GROWSDOWN	0x00000100UL
#define VM_SEQ_READ	0x00008000UL
#define VM_RAND_READ	0x00010000UL
#define VM_DONTCOPY	0x00020000UL
#define VM_DONTEXPAND	0x00040000UL
#define VM_ACCOUNT	0x00100000UL
#define VM_WIPEONFORK	0x02000000UL
#define VM_SOFTDIRTY	0x08000000UL
#define VM_HUGEPAGE	0x20000000UL
#define VM_NOHUGEPAGE	0x40000000UL
#define VM_MERGEABLE	0x80000000UL
#define VM_SEALED	(1UL << 63)	/* mseal(): 64-bit only, as in Linux */

#define VM_ACCESS_FLAGS	(VM_READ | VM_WRITE | VM_EXEC)

/* mmap/mprotect protection bits (uapi) */
#define PROT_NONE	0x0
#define PROT_READ	0x1
#define PROT_WRITE	0x2
#define PROT_EXEC	0x4

/* mremap flags (uapi) */
#define MREMAP_MAYMOVE		1
#define MREMAP_FIXED		2
#define MREMAP_DONTUNMAP	4

/* madvise advice (uapi) */
#define MADV_NORMAL		0
#define MADV_RANDOM		1
#define MADV_SEQUENTIAL		2
#define MADV_DONTNEED		4
#define MADV_FREE		8
#define MADV_DONTFORK		10
#define MADV_DOFORK		11
#define MADV_MERGEABLE		12
#define MADV_UNMERGEABLE	13
#define MADV_HUGEPAGE		14
#define MADV_NOHUGEPAGE		15
#define MADV_WIPEONFORK		18
#define MADV_KEEPONFORK		19

/* folio->flags */
enum pageflags {
	PG_locked,
	PG_anon_exclusive,	/* kernel: PG_mappedtodisk's alias on anon pages */
	PG_zero,		/* model only: this is the shared zero page */
};

/* low bit of folio->mapping says "anonymous": the kernel's encoding */
#define PAGE_MAPPING_ANON	0x1UL

struct model;
struct address_space;

/*
 * Order-0 folios only. An anonymous folio's refcount equals its
 * mapcount (no swap, no pins, no LRU batches); a page-cache folio has
 * one more reference, the page cache's.
 */
struct folio {
	unsigned long flags;
	int _refcount;
	int _mapcount;		/* PTEs mapping it; not -1 biased as in Linux */
	void *mapping;		/* anon: backend object | PAGE_MAPPING_ANON */
	unsigned long index;	/* anon: linear_page_index(); file: pgoff */
	/*
	 * The kernel's folio->private: unused by anonymous folios that are
	 * not in the swap cache, so a backend may keep one word here.
	 */
	unsigned long private;
	unsigned long pfn;	/* allocation order: stable identity in reports */
	struct model *model;
	struct list_head lru;	/* model->folios */
};

/* A PTE: the folio it maps (NULL: none) and x86's software-visible bits */
#define _PAGE_PRESENT	0x001U
#define _PAGE_RW	0x002U
#define _PAGE_ACCESSED	0x020U
#define _PAGE_DIRTY	0x040U

typedef struct {
	struct folio *folio;
	unsigned int flags;
} pte_t;

#define PTRS_PER_TABLE	512
#define PTE_SHIFT	PAGE_SHIFT
#define PMD_SHIFT	21
#define PUD_SHIFT	30
#define PGDIR_SHIFT	39
#define PMD_SIZE	(1UL << PMD_SHIFT)

/* One page-table page: a PTE table, or a PGD/PUD/PMD of pointers down */
struct pte_table {
	pte_t pte[PTRS_PER_TABLE];
	unsigned int nr_used;	/* present entries: freeing needs none */
	spinlock_t ptl;		/* split page-table lock */
};

struct dir_table {
	void *entry[PTRS_PER_TABLE];
	unsigned int nr_used;
};

/* A file for MAP_PRIVATE mappings: its page cache is its address_space */
struct address_space {
	struct file *host;
	struct folio **pages;	/* sorted by index */
	unsigned long nrpages;
	unsigned long capacity;
};

struct file {
	char *f_name;
	/*
	 * The shmem file behind one MAP_SHARED|MAP_ANONYMOUS mapping
	 * (shmem_zero_setup()): its cache holds only pages touched.
	 */
	bool shmem;
	/*
	 * A shmem file's size in pages, set when it is made: growing its
	 * mapping by mremap() does not grow it, and an access at or past
	 * it is SIGBUS (shmem_get_folio_gfp()). The model's regular files
	 * are as large as any mapping of them reaches (0 here).
	 */
	unsigned long size_pages;
	struct address_space f_mapping;
	struct list_head node;	/* model->files */
};

struct mm_struct;

struct vm_area_struct {
	unsigned long vm_start;
	unsigned long vm_end;
	struct mm_struct *vm_mm;
	unsigned long vm_flags;
	/* anon: vm_start >> PAGE_SHIFT at creation, kept across moves */
	unsigned long vm_pgoff;
	/*
	 * One word, two things. Its low VMA_ANON_PGOFF_BITS: the page
	 * offset of the VMA's anonymous pages, whatever it maps:
	 * anon_page_index(vm_start) when it first gets anonymous state,
	 * carried by split, merge and mremap as vm_pgoff is. Unlike
	 * vm_pgoff it is not a file offset, so a private file VMA that
	 * never moved maps its anonymous pages linearly. Only the
	 * cow_context backend indexes folios by it (anon_vma and scan use
	 * vm_pgoff, as Linux does); see mm/vma.c for how it is kept. Its
	 * high bits: the backend's per-VMA flags (VMA_ANON_FLAG()), so
	 * that state costs no word of its own. Private: only the
	 * accessors below touch it, so no arithmetic on the offset can
	 * reach the flags.
	 */
	unsigned long __vm_anon_pgoff;
	struct file *vm_file;
	/*
	 * The backend's per-VMA anonymous state. For the anon_vma backend
	 * a struct anon_vma *; for the others a non-NULL marker. NULL until
	 * the first anonymous fault, as in Linux, and fork copies page
	 * tables only where it is set (vma_needs_copy()).
	 */
	void *anon_vma;
	/*
	 * Which anon_vma Linux would give this VMA, as a number kept by the
	 * model whatever the backend, so every backend's VMAs merge as
	 * Linux's do: see the comment at anon_vma_id_prepare() in
	 * mm/vma.c.
	 */
	unsigned long anon_vma_id;
#define ANON_VMA_ID_FORKED	1UL	/* an anon_vma_chain of 2+ links */
	struct list_head anon_vma_chain;	/* anon_vma backend's AVCs */
	void *rmap_private;			/* any other backend state */
	/* the per-VMA lock: <cowctx/mmap_lock.h> */
	unsigned int vm_lock_seq;	/* write-locked: mm's mm_lock_seq + 1 */
	unsigned int vm_lock_readers;	/* vma_start_read() holders */
	unsigned long id;			/* creation order, for reports */
};

/*
 * The mm's VMA tree: a sorted array of VMAs (the maple tree's leaves,
 * flattened). Lookup is a binary search; iteration is by index. Each
 * VMA's range is kept beside it, as the maple tree keeps its pivots in
 * its nodes, so a lookup compares keys and touches no VMA: ends[i] and
 * starts[i] are vmas[i]'s vm_end and vm_start, always (mm/vma_tree.c).
 */
struct vma_tree {
	struct vm_area_struct **vmas;
	unsigned long *ends;
	unsigned long *starts;
	unsigned long nr;
	unsigned long capacity;
};

struct mm_struct {
	struct model *model;
	struct vma_tree mm_mt;
	struct dir_table *pgd;
	unsigned long pgtables_bytes;	/* page-table pages, as in the kernel */
	struct rw_semaphore mmap_lock;
	unsigned int mm_lock_seq;	/* mmap_write_unlock()s so far */
	int map_count;
	unsigned long total_vm;
	/* the heap: [start_brk, brk), both 0 until exec or brk sets them */
	unsigned long start_brk;
	unsigned long brk;
	/* where mmap() without an address searches down from */
	unsigned long mmap_base;
	/* backend's per-mm state: the COW context lives here */
	void *rmap_private;
	char comm[32];		/* the scenario's process name, for reports */
	unsigned long id;	/* creation order */
	struct list_head mmlist;	/* model->mms */
};

struct rmap_ops;

struct walk_stats {
	unsigned long walks;
	unsigned long vmas_examined;	/* candidates whose PTE was looked at */
	unsigned long mappings_found;	/* candidates whose PTE mapped the folio */
};

/* /proc/sys/vm/max_map_count's default */
#define DEFAULT_MAX_MAP_COUNT	65530

/* One model instance: a machine running one rmap backend. */
struct model {
	const struct rmap_ops *rmap;
	void *rmap_private;	/* backend's per-instance state */
	struct account acct;	/* backend's rmap objects */
	struct list_head mms;
	struct list_head folios;
	struct list_head files;
	struct folio zero_folio;
	/*
	 * The kernel modelled forbids the shared zero page, as Linux does
	 * where mm_forbids_zeropage() holds (and some hypervisors' guest
	 * kernels do): a read fault on untouched private anonymous memory
	 * allocates an anonymous folio, and with it the VMA's reverse-map
	 * state, as a write fault does. False (zeroed) is stock x86-64.
	 */
	bool forbids_zero_page;
	/*
	 * How many VMAs one process may have: vm.max_map_count (its
	 * default, DEFAULT_MAX_MAP_COUNT, unless a runner says otherwise),
	 * less what each real process maps that the model does not.
	 */
	int max_map_count;
	unsigned long next_pfn;
	unsigned long next_vma_id;
	unsigned long next_mm_id;
	unsigned long total_forks;	/* kernel/fork.c's total_forks */
	unsigned long nr_folios;	/* anonymous and page cache */
	unsigned long nr_anon_folios;
	unsigned long nr_pgtables;
	unsigned long nr_vmas;
	unsigned long nr_mms;
	unsigned long nr_shmem_files;	/* shmem_zero_setup()s so far */
	struct walk_stats walk;
	struct lock_stat mmap_lock_stat;
	struct lock_stat ptl_stat;
	/*
	 * Every lock that processes of one fork family share counts here,
	 * whatever the backend, so lock scope can be compared: anon_vma's
	 * root rwsem (inited with &m->family_lock_stat), a COW context's
	 * locks (their lock_stat's ->family points here). The writes to
	 * the cachelines of those locks and of family-shared atomics count
	 * in family (<cowctx/lock.h>).
	 */
	struct lock_stat family_lock_stat;
	struct family_stat family;
	/* a test may observe fork's steps (<cowctx/inject.h>) */
	void (*hook)(struct model *m, enum model_hook_point where,
		     struct mm_struct *mm, struct vm_area_struct *vma);
	void *hook_data;
	/*
	 * Deliberately wrong facts, so tests can prove a comparison fails:
	 * skip_cow_nth > 0 makes the Nth COW fault from now write into the
	 * shared folio instead of copying it.
	 */
	long skip_cow_nth;
	/* > 0: the Nth merge from now is refused (a wrong layout) */
	long skip_merge_nth;
	/* the last id given by anon_vma_id_prepare() and fork */
	unsigned long last_anon_vma_id;
};

/*
 * @mm's system call or fault starts: until the next one, or a walk,
 * the model's family-shared writes are its CPU's (current->mm).
 */
static inline void set_current_mm(struct mm_struct *mm)
{
	mm->model->family.writer = mm;
}

static inline bool folio_test_anon(const struct folio *folio)
{
	return ((uintptr_t)folio->mapping & PAGE_MAPPING_ANON) != 0;
}

/* The backend object an anonymous folio points at */
static inline void *folio_anon_rmap(const struct folio *folio)
{
	return (void *)((uintptr_t)folio->mapping & ~PAGE_MAPPING_ANON);
}

static inline void folio_set_anon_rmap(struct folio *folio, void *obj)
{
	folio->mapping = (void *)((uintptr_t)obj | PAGE_MAPPING_ANON);
}

static inline bool folio_test_flag(const struct folio *folio, int bit)
{
	return (folio->flags >> bit) & 1;
}

static inline void folio_set_flag(struct folio *folio, int bit)
{
	folio->flags |= 1UL << bit;
}

static inline void folio_clear_flag(struct folio *folio, int bit)
{
	folio->flags &= ~(1UL << bit);
}

static inline bool folio_mapped(const struct folio *folio)
{
	return folio->_mapcount > 0;
}

static inline int folio_mapcount(const struct folio *folio)
{
	return folio->_mapcount;
}

static inline unsigned long vma_pages(const struct vm_area_struct *vma)
{
	return (vma->vm_end - vma->vm_start) >> PAGE_SHIFT;
}

static inline bool vma_is_anonymous(const struct vm_area_struct *vma)
{
	return !vma->vm_file;
}

/* The pgoff a page at @address has in @vma (mm/internal.h's name) */
static inline unsigned long linear_page_index(const struct vm_area_struct *vma,
					      unsigned long address)
{
	return ((address - vma->vm_start) >> PAGE_SHIFT) + vma->vm_pgoff;
}

/*
 * vm_anon_pgoff's word: the offset below, eight flag bits above. The
 * offset needs 53 bits, not 64 - PAGE_SHIFT: a VMA's anonymous offsets
 * keep the difference to vm_pgoff they had at its first fault (mm/vma.c),
 * vm_pgoff is a file offset of up to MAX_LFS_FILESIZE >> PAGE_SHIFT
 * (2^51 - 1) pages, and that first fault set the offset from an address.
 * So one VMA's offsets can lie 2^51 pages below or above an address's.
 * ANON_PGOFF_BIAS moves them all up by 2^51, so none is negative; the
 * largest is then below 2^52 + 2^35, which the assertion below checks.
 */
/* the largest regular file on 64-bit: LLONG_MAX bytes */
#define MAX_LFS_FILESIZE	0x7fffffffffffffffUL
#define MAX_FILE_PGOFF		(MAX_LFS_FILESIZE >> PAGE_SHIFT)
#define ANON_PGOFF_BIAS		(MAX_FILE_PGOFF + 1)
#define VMA_ANON_FLAG_BITS	8
#define VMA_ANON_PGOFF_BITS	(64 - VMA_ANON_FLAG_BITS)
#define VMA_ANON_PGOFF_MASK	((1UL << VMA_ANON_PGOFF_BITS) - 1)
#define VMA_ANON_FLAGS_MASK	(~VMA_ANON_PGOFF_MASK)
/* flag @n (0..7) of the word, for the backend that owns the VMA's rmap */
#define VMA_ANON_FLAG(n)	(1UL << (VMA_ANON_PGOFF_BITS + (n)))

/*
 * Smallest: a page at file offset 0 of a VMA first faulted at address 0
 * with vm_pgoff MAX_FILE_PGOFF. Largest: the reverse, one page past the
 * end of the largest file, first faulted at the top of user space.
 */
_Static_assert(ANON_PGOFF_BIAS >= MAX_FILE_PGOFF,
	       "an anonymous page offset can be negative");
_Static_assert(ANON_PGOFF_BIAS + MAX_FILE_PGOFF + 1 +
	       (TASK_SIZE >> PAGE_SHIFT) <= VMA_ANON_PGOFF_MASK,
	       "an anonymous page offset can reach vm_anon_pgoff's flags");
_Static_assert(sizeof(unsigned long) == 8, "vm_anon_pgoff is one 8-byte word");

/* The anonymous page offset a page first given anon state at @address gets */
static inline unsigned long anon_page_index(unsigned long address)
{
	return (address >> PAGE_SHIFT) + ANON_PGOFF_BIAS;
}

/*
 * The page number (address >> PAGE_SHIFT) at which anonymous page offset
 * @index sits if it has not moved; the caller checks it is in user space
 */
static inline unsigned long anon_index_page(unsigned long index)
{
	return index - ANON_PGOFF_BIAS;
}

/*
 * The word is read and written whole and at once (READ_ONCE() and
 * WRITE_ONCE() in a kernel): a walk may read the offset while a first
 * fault sets a flag, and must never see half of either. The offset's
 * writers hold the VMA's write lock; the flags' writers hold the mmap
 * lock for write, or are anon_prepare under the fault's own
 * serialisation (__anon_vma_prepare()'s page_table_lock), so two writes
 * of the word never race.
 */
static inline unsigned long vma_anon_word(const struct vm_area_struct *vma)
{
	return __atomic_load_n(&vma->__vm_anon_pgoff, __ATOMIC_RELAXED);
}

static inline void vma_anon_word_set(struct vm_area_struct *vma,
				     unsigned long word)
{
	__atomic_store_n(&vma->__vm_anon_pgoff, word, __ATOMIC_RELAXED);
}

static inline unsigned long vma_anon_pgoff(const struct vm_area_struct *vma)
{
	return vma_anon_word(vma) & VMA_ANON_PGOFF_MASK;
}

void vma_anon_pgoff_overflow(const struct vm_area_struct *vma,
			     unsigned long pgoff);

/* Set the offset, keeping the flags; one that does not fit is a bug */
static inline void vma_set_anon_pgoff(struct vm_area_struct *vma,
				      unsigned long pgoff)
{
	if (pgoff & VMA_ANON_FLAGS_MASK)
		vma_anon_pgoff_overflow(vma, pgoff);
	vma_anon_word_set(vma, (vma_anon_word(vma) & VMA_ANON_FLAGS_MASK) |
			       pgoff);
}

static inline unsigned long vma_anon_flags(const struct vm_area_struct *vma)
{
	return vma_anon_word(vma) & VMA_ANON_FLAGS_MASK;
}

void vma_anon_flags_bad(const struct vm_area_struct *vma,
			unsigned long flags);

static inline void vma_anon_flags_set(struct vm_area_struct *vma,
				      unsigned long flags)
{
	if (flags & VMA_ANON_PGOFF_MASK)
		vma_anon_flags_bad(vma, flags);
	vma_anon_word_set(vma, vma_anon_word(vma) | flags);
}

static inline void vma_anon_flags_clear(struct vm_area_struct *vma,
					unsigned long flags)
{
	if (flags & VMA_ANON_PGOFF_MASK)
		vma_anon_flags_bad(vma, flags);
	vma_anon_word_set(vma, vma_anon_word(vma) & ~flags);
}

/* The anonymous page offset of the page at @address in @vma */
static inline unsigned long linear_anon_page_index(const struct vm_area_struct *vma,
						   unsigned long address)
{
	return ((address - vma->vm_start) >> PAGE_SHIFT) + vma_anon_pgoff(vma);
}

/*
 * Where a pgoff is mapped in @vma; the caller checks it is inside.
 * The kernel's vma_address() without the range check.
 */
static inline unsigned long vma_pgoff_address(const struct vm_area_struct *vma,
					      unsigned long pgoff)
{
	return vma->vm_start + ((pgoff - vma->vm_pgoff) << PAGE_SHIFT);
}

/* Where anonymous page offset @index is mapped in @vma; caller checks */
static inline unsigned long vma_anon_address(const struct vm_area_struct *vma,
					     unsigned long index)
{
	return vma->vm_start + ((index - vma_anon_pgoff(vma)) << PAGE_SHIFT);
}

#endif /* COWCTX_MM_TYPES_H */
