// SPDX-License-Identifier: GPL-2.0
/*
 * Page faults, zapping and fork's page-table copy (Linux mm/memory.c):
 * where anonymous folios are born, shared, copied and reused, and so
 * where every rmap decision starts.
 */
#include <errno.h>

#include <cowctx/mm.h>
#include "mm/internal.h"

int vma_anon_prepare(struct vm_area_struct *vma)
{
	unsigned long id;
	int err;

	if (vma->anon_vma)
		return 0;
	/* before the backend looks: it may key on vm_anon_pgoff */
	id = anon_vma_id_prepare(vma);
	err = rmap_anon_prepare(vma);
	if (err)
		return err;
	if (!vma->anon_vma)
		model_bug("%s: anon_prepare left anon_vma NULL",
			  mm_rmap(vma->vm_mm)->name);
	vma->anon_vma_id = id;
	return 0;
}

/* A new exclusive anonymous folio for @vma at @addr, not yet mapped */
static struct folio *new_anon_folio(struct vm_area_struct *vma,
				    unsigned long addr)
{
	struct model *m = vma->vm_mm->model;
	struct folio *folio = folio_alloc(m);

	if (!folio)
		return NULL;
	folio_set_flag(folio, PG_anon_exclusive);
	rmap_folio_add_new(folio, vma, addr);
	if (!folio_test_anon(folio))
		model_bug("%s: folio_add_new left the folio without mapping",
			  m->rmap->name);
	m->nr_anon_folios++;
	return folio;
}

static unsigned int write_pte_flags(void)
{
	return _PAGE_RW | _PAGE_DIRTY | _PAGE_ACCESSED;
}

/*
 * A new exclusive folio mapped with @pte_flags in place of whatever
 * @ptep maps: a write that needs one (first write, COW of the zero page,
 * a file page or a shared folio), or a read where there is no zero page.
 */
static int map_anon_folio(struct vm_area_struct *vma, unsigned long addr,
			  pte_t *ptep, unsigned int pte_flags)
{
	struct folio *folio;
	int err;

	err = vma_anon_prepare(vma);
	if (err)
		return err;
	folio = new_anon_folio(vma, addr);
	if (!folio)
		return -ENOMEM;
	pte_clear_and_put(vma->vm_mm, addr, ptep);
	set_pte(vma->vm_mm, addr, ptep, folio, pte_flags);
	return 0;
}

static int map_new_anon_folio(struct vm_area_struct *vma, unsigned long addr,
			      pte_t *ptep)
{
	return map_anon_folio(vma, addr, ptep, write_pte_flags());
}

/*
 * do_anonymous_page(): nothing mapped yet in an anonymous VMA. Reads
 * see the shared zero page unless the kernel forbids it; then a read
 * allocates as a write does (vmf_anon_prepare(), so the VMA gets its
 * anon_vma), and the PTE is writable and dirty when the VMA is
 * writable, as Linux makes it, so a later write takes no fault.
 */
static int do_anonymous_page(struct vm_area_struct *vma, unsigned long addr,
			     pte_t *ptep, bool write)
{
	struct model *m = vma->vm_mm->model;

	if (write)
		return map_new_anon_folio(vma, addr, ptep);
	if (!m->forbids_zero_page) {
		set_pte(vma->vm_mm, addr, ptep, &m->zero_folio, _PAGE_ACCESSED);
		return 0;
	}
	return map_anon_folio(vma, addr, ptep,
			      vma->vm_flags & VM_WRITE ? write_pte_flags() :
							 _PAGE_ACCESSED);
}

/* fault_around_bytes' default: 64K, sixteen pages */
#define FAULT_AROUND_PAGES	16

static unsigned long max_ul(unsigned long a, unsigned long b)
{
	return a > b ? a : b;
}

static unsigned long min_ul(unsigned long a, unsigned long b)
{
	return a < b ? a : b;
}

/*
 * do_fault_around(): a read fault on a file also maps the neighbouring
 * pages already in the page cache. The window is sixteen pages from
 * the 64K-aligned block's start, or from the VMA's start if that is
 * later (then it crosses the block's end), and never leaves the VMA
 * or the PTE table. The model's files are wholly cached (as a file just
 * written is), so every empty PTE of the window gets its page.
 */
static int do_fault_around(struct vm_area_struct *vma, unsigned long addr)
{
	struct mm_struct *mm = vma->vm_mm;
	unsigned long window = FAULT_AROUND_PAGES * PAGE_SIZE;
	unsigned long table = addr & ~(PMD_SIZE - 1), start, end, a;

	start = max_ul(addr & ~(window - 1), max_ul(vma->vm_start, table));
	end = min_ul(start + window, min_ul(table + PMD_SIZE, vma->vm_end));
	for (a = start; a < end; a += PAGE_SIZE) {
		pte_t *ptep = pte_lookup(mm, a);
		struct folio *page;

		if (a == addr || !ptep || pte_present(*ptep))
			continue;
		/* shmem has in its cache only what was touched */
		if (vma->vm_file->shmem) {
			page = filemap_lookup_folio(vma->vm_file,
						    linear_page_index(vma, a));
			if (!page)
				continue;
		} else {
			page = filemap_get_folio(mm->model, vma->vm_file,
						 linear_page_index(vma, a));
			if (!page)
				return -ENOMEM;
		}
		set_pte(mm, a, ptep, page, 0);
	}
	return 0;
}

/*
 * do_read_fault() / do_cow_fault() / do_shared_fault(): a file page;
 * a MAP_SHARED write maps the page cache's folio itself, writable.
 */
static int do_file_fault(struct vm_area_struct *vma, unsigned long addr,
			 pte_t *ptep, bool write)
{
	struct model *m = vma->vm_mm->model;
	unsigned long index = linear_page_index(vma, addr);
	struct folio *page;

	/* past a shared memory object's end: VM_FAULT_SIGBUS */
	if (vma->vm_file->shmem && index >= vma->vm_file->size_pages)
		return -EIO;
	/* either way the file page is read into the page cache */
	page = filemap_get_folio(m, vma->vm_file, index);
	if (!page)
		return -ENOMEM;
	if (!write) {
		set_pte(vma->vm_mm, addr, ptep, page, _PAGE_ACCESSED);
		return do_fault_around(vma, addr);
	}
	if (vma->vm_flags & VM_SHARED) {
		set_pte(vma->vm_mm, addr, ptep, page, write_pte_flags());
		return 0;
	}
	/* the write gets a private copy; the page stays in the cache */
	folio_put(page);
	return map_new_anon_folio(vma, addr, ptep);
}

/* Did a test ask the model to skip this COW (a deliberately wrong fact)? */
static bool skip_this_cow(struct model *m)
{
	if (m->skip_cow_nth <= 0)
		return false;
	return --m->skip_cow_nth == 0;
}

/*
 * do_wp_page(): a write to a present, write-protected PTE. An anon
 * folio is reused when exclusive, or when this is its only reference
 * (wp_can_reuse_anon_folio(), which then moves it to this VMA's rmap);
 * everything else is copied.
 */
static int do_wp_page(struct vm_area_struct *vma, unsigned long addr,
		      pte_t *ptep)
{
	struct model *m = vma->vm_mm->model;
	struct folio *folio = ptep->folio;

	/* wp_page_shared(): no copy, the shared page becomes writable */
	if (vma->vm_flags & VM_SHARED) {
		ptep->flags |= write_pte_flags();
		return 0;
	}
	if (folio_test_anon(folio)) {
		bool reuse = folio_test_flag(folio, PG_anon_exclusive);

		if (!reuse && folio->_refcount == 1) {
			if (!vma->anon_vma)
				model_bug("reuse in a VMA without anon_vma");
			rmap_folio_move(folio, vma);
			folio_set_flag(folio, PG_anon_exclusive);
			reuse = true;
		}
		if (!reuse && skip_this_cow(m))
			reuse = true;
		if (reuse) {
			ptep->flags |= write_pte_flags();
			return 0;
		}
	}
	return map_new_anon_folio(vma, addr, ptep);	/* wp_page_copy() */
}

static bool access_permitted(struct vm_area_struct *vma, bool write)
{
	/* x86 without protection keys: any access right allows reads */
	if (write)
		return vma->vm_flags & VM_WRITE;
	return vma->vm_flags & VM_ACCESS_FLAGS;
}

int handle_access(struct mm_struct *mm, unsigned long addr, bool write)
{
	struct vm_area_struct *vma;
	pte_t *ptep;
	int err;

	addr &= PAGE_MASK;
	set_current_mm(mm);
	down_read(&mm->mmap_lock);
	vma = vma_lookup(mm, addr);
	if (!vma) {
		/* lock_mm_and_find_vma(): a stack grows down to the access */
		up_read(&mm->mmap_lock);
		if (expand_stack(mm, addr))
			return -EFAULT;
		down_read(&mm->mmap_lock);
		vma = vma_lookup(mm, addr);
	}
	if (!vma || !access_permitted(vma, write)) {
		up_read(&mm->mmap_lock);
		return -EFAULT;
	}
	ptep = pte_lookup(mm, addr);
	if (ptep && pte_present(*ptep)) {
		if (!write) {
			ptep->flags |= _PAGE_ACCESSED;
			err = 0;
		} else if (pte_write(*ptep)) {
			ptep->flags |= _PAGE_DIRTY | _PAGE_ACCESSED;
			err = 0;
		} else {
			err = do_wp_page(vma, addr, ptep);
		}
		up_read(&mm->mmap_lock);
		return err;
	}
	ptep = pte_alloc(mm, addr);
	if (!ptep)
		err = -ENOMEM;
	else if (vma->vm_file)
		err = do_file_fault(vma, addr, ptep, write);
	else
		err = do_anonymous_page(vma, addr, ptep, write);
	up_read(&mm->mmap_lock);
	return err;
}

void zap_page_range(struct vm_area_struct *vma, unsigned long start,
		    unsigned long end)
{
	struct mm_struct *mm = vma->vm_mm;
	unsigned long addr;

	for (addr = start; addr < end; addr += PAGE_SIZE) {
		struct pte_table *pt = pte_table_lookup(mm, addr);

		if (!pt) {
			/* skip the whole missing table */
			addr = (addr | (PMD_SIZE - 1)) + 1 - PAGE_SIZE;
			continue;
		}
		pte_clear_and_put(mm, addr,
				  &pt->pte[(addr >> PAGE_SHIFT) &
					   (PTRS_PER_TABLE - 1)]);
	}
}

/*
 * copy_page_range(): fork shares every present page. Private writable
 * PTEs become read-only on both sides, anonymous folios lose
 * PG_anon_exclusive, the child's PTEs start old.
 */
int copy_page_range(struct vm_area_struct *dst, struct vm_area_struct *src)
{
	bool cow = is_cow_mapping(src->vm_flags);
	unsigned long addr;

	/* vma_needs_copy(): faults refill VMAs without anon pages */
	if (!src->anon_vma)
		return 0;
	for (addr = src->vm_start; addr < src->vm_end; addr += PAGE_SIZE) {
		pte_t *sp = pte_lookup(src->vm_mm, addr), *dp;
		struct folio *folio;

		if (!sp) {
			addr = (addr | (PMD_SIZE - 1)) + 1 - PAGE_SIZE;
			continue;
		}
		if (!pte_present(*sp))
			continue;
		dp = pte_alloc(dst->vm_mm, addr);
		if (!dp)
			return -ENOMEM;
		/* pte_alloc() in the child never moves the parent's tables */
		folio = sp->folio;
		if (folio_test_anon(folio))
			folio_clear_flag(folio, PG_anon_exclusive);
		if (cow && pte_write(*sp))
			sp->flags &= ~_PAGE_RW;
		folio_get(folio);
		set_pte(dst->vm_mm, addr, dp, folio,
			sp->flags & ~_PAGE_ACCESSED);
	}
	return 0;
}

/*
 * change_protection(): PTEs follow the VMA's new protection. Write
 * access is granted at once only to exclusive anonymous folios
 * (can_change_pte_writable()); everything else takes a write fault.
 */
void change_protection(struct vm_area_struct *vma, unsigned long start,
		       unsigned long end, unsigned long newflags)
{
	unsigned long addr;

	for (addr = start; addr < end; addr += PAGE_SIZE) {
		pte_t *ptep = pte_lookup(vma->vm_mm, addr);

		if (!ptep || !pte_present(*ptep))
			continue;
		if (!(newflags & VM_WRITE))
			ptep->flags &= ~_PAGE_RW;
		else if (folio_test_anon(ptep->folio) &&
			 folio_test_flag(ptep->folio, PG_anon_exclusive))
			ptep->flags |= _PAGE_RW;
	}
}
