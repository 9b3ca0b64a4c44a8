// SPDX-License-Identifier: GPL-2.0
/*
 * mremap (Linux mm/mremap.c): resize in place, or move with
 * MREMAP_FIXED [| MREMAP_DONTUNMAP]. A move keeps vm_pgoff, which is
 * exactly what makes remapped anonymous memory hard to reverse-map.
 */
#include <errno.h>

#include <cowctx/mm.h>
#include "mm/internal.h"


/*
 * copy_vma(): the VMA that will receive [addr, addr + len) of @vma's
 * pages, merged into a neighbour where possible. *vmap follows @vma if
 * the merge swallowed it. NULL on ENOMEM.
 */
static struct vm_area_struct *copy_vma(struct vm_area_struct **vmap,
				       unsigned long addr, unsigned long len,
				       unsigned long pgoff,
				       bool *need_rmap_locks)
{
	struct vm_area_struct *vma = *vmap, *new_vma;
	struct mm_struct *mm = vma->vm_mm;
	unsigned long vma_start = vma->vm_start, anon_pgoff;
	struct vma_merge_struct vmg = {
		.mm = mm,
		.start = addr,
		.end = addr + len,
		.flags = vma->vm_flags,
		.file = vma->vm_file,
		.anon_vma_id = vma->anon_vma_id,
		.copied_from = vma,
	};

	/* the pages keep their anonymous offsets, as they keep vm_pgoff */
	anon_pgoff = vma->anon_vma_id ?
		     pgoff + (vma_anon_pgoff(vma) - vma->vm_pgoff) :
		     anon_page_index(addr);
	/* unfaulted anonymous memory may take a pgoff that merges better */
	if (vma_is_anonymous(vma) && !vma->anon_vma)
		pgoff = addr >> PAGE_SHIFT;
	vmg.pgoff = pgoff;
	vmg.prev = vma_prev_of(mm, addr);
	vmg.next = find_vma(mm, addr);
	if (vmg.next && vmg.next->vm_start < addr + len)
		model_bug("copy_vma onto mapped memory");

	new_vma = vma_merge_new_range(&vmg);
	if (new_vma) {
		if (vma_start >= new_vma->vm_start &&
		    vma_start < new_vma->vm_end)
			*vmap = vma = new_vma;
		*need_rmap_locks = new_vma->vm_pgoff <= vma->vm_pgoff;
		return new_vma;
	}
	if (vmg.nomem || vma_tree_reserve(mm, 1))
		return NULL;
	new_vma = vm_area_dup(vma);
	if (!new_vma)
		return NULL;
	new_vma->vm_start = addr;
	new_vma->vm_end = addr + len;
	vma_set_anon_pgoff(new_vma, anon_pgoff);
	new_vma->vm_pgoff = pgoff;
	if (rmap_vma_clone(new_vma, vma)) {
		vm_area_free(new_vma);
		return NULL;
	}
	vma_link(mm, new_vma);
	*need_rmap_locks = false;
	return new_vma;
}

/*
 * move_page_tables(): page by page. The destination tables are made
 * first, so the move itself cannot fail half way.
 */
static int move_page_tables(struct vm_area_struct *vma, unsigned long old_addr,
			    unsigned long new_addr, unsigned long len,
			    bool need_rmap_locks)
{
	struct mm_struct *mm = vma->vm_mm;
	unsigned long off;

	for (off = 0; off < len; off += PAGE_SIZE) {
		pte_t *ptep = pte_lookup(mm, old_addr + off);

		if (ptep && pte_present(*ptep) && !pte_alloc(mm, new_addr + off))
			return -ENOMEM;
	}
	need_rmap_locks = rmap_move_needs_locks(vma, need_rmap_locks);
	if (need_rmap_locks)
		rmap_take_locks(vma);
	for (off = 0; off < len; off += PAGE_SIZE)
		if (move_pte(mm, old_addr + off, new_addr + off))
			model_bug("move_pte failed after preallocation");
	if (need_rmap_locks)
		rmap_drop_locks(vma);
	return 0;
}

static int move_vma(struct vm_area_struct *vma, unsigned long old_addr,
		    unsigned long old_len, unsigned long new_len,
		    unsigned long new_addr, unsigned long flags)
{
	struct mm_struct *mm = vma->vm_mm;
	bool dontunmap = flags & MREMAP_DONTUNMAP;
	struct vm_area_struct *new_vma;
	unsigned long new_pgoff;
	bool need_rmap_locks;
	int err;

	if (mm->map_count >= mm_max_map_count(mm) - 3)
		return -ENOMEM;
	vma_start_write(vma);
	new_pgoff = vma->vm_pgoff + ((old_addr - vma->vm_start) >> PAGE_SHIFT);
	new_vma = copy_vma(&vma, new_addr, new_len, new_pgoff,
			   &need_rmap_locks);
	if (!new_vma)
		return -ENOMEM;
	err = move_page_tables(vma, old_addr, new_addr, old_len,
			       need_rmap_locks);
	if (err) {
		/* nothing moved: drop the new range instead of the old */
		do_vmi_munmap(mm, new_addr, new_len);
		return err;
	}
	mm->total_vm += new_len >> PAGE_SHIFT;

	if (dontunmap) {
		/*
		 * The source stays, empty. If it is exactly the moved range
		 * it forgets its anon state, but keeps its pgoff: 6.18 does
		 * not reset it, whatever 6.12's source says (found on the
		 * real kernel: kernel-findings/mremap-dontunmap-keeps-pgoff).
		 */
		if (vma->vm_start == old_addr &&
		    vma->vm_end == old_addr + old_len) {
			rmap_vma_unlink(vma);
			vma->anon_vma = NULL;
			vma->anon_vma_id = 0;
		}
		return 0;
	}
	/* on failure to split, Linux keeps both; so do we */
	do_vmi_munmap(mm, old_addr, old_len);
	return 0;
}

/* vma_to_resize(): the VMA at @addr, if the request fits it */
static struct vm_area_struct *vma_to_resize(struct mm_struct *mm,
					    unsigned long addr,
					    unsigned long old_len,
					    unsigned long new_len,
					    unsigned long flags, int *errp)
{
	struct vm_area_struct *vma = vma_lookup(mm, addr);
	unsigned long pgoff;

	*errp = -EFAULT;
	if (!vma)
		return NULL;
	if (!old_len) {
		/* duplicating a private mapping is not supported */
		*errp = -EINVAL;
		return NULL;
	}
	if (old_len > vma->vm_end - addr)
		return NULL;	/* across VMA boundaries */
	*errp = 0;
	if (new_len == old_len)
		return vma;
	pgoff = vma->vm_pgoff + ((addr - vma->vm_start) >> PAGE_SHIFT);
	if (pgoff + (new_len >> PAGE_SHIFT) < pgoff) {
		*errp = -EINVAL;
		return NULL;
	}
	(void)flags;
	return vma;
}

static int mremap_to(struct mm_struct *mm, unsigned long addr,
		     unsigned long old_len, unsigned long new_addr,
		     unsigned long new_len, unsigned long flags)
{
	struct vm_area_struct *vma;
	int err;

	if (new_addr & ~PAGE_MASK)
		return -EINVAL;
	if (new_len > TASK_SIZE || new_addr > TASK_SIZE - new_len)
		return -EINVAL;
	/* the old and new ranges must not overlap */
	if (addr + old_len > new_addr && new_addr + new_len > addr)
		return -EINVAL;
	if (mm->map_count + 2 >= mm_max_map_count(mm) - 3)
		return -ENOMEM;
	/* MREMAP_FIXED replaces whatever is at the destination, first */
	err = do_vmi_munmap(mm, new_addr, new_len);
	if (err)
		return err;
	if (old_len > new_len) {
		err = do_vmi_munmap(mm, addr + new_len, old_len - new_len);
		if (err)
			return err;
		old_len = new_len;
	}
	vma = vma_to_resize(mm, addr, old_len, new_len, flags, &err);
	if (!vma)
		return err;
	return move_vma(vma, addr, old_len, new_len, new_addr, flags);
}

/* vma_expandable(): room after the VMA for @delta more bytes? */
static bool vma_expandable(struct vm_area_struct *vma, unsigned long delta)
{
	unsigned long end = vma->vm_end + delta;
	struct vm_area_struct *next;

	if (end < vma->vm_end)
		return false;
	next = find_vma(vma->vm_mm, vma->vm_end);
	if (next && next->vm_start < end)
		return false;
	return range_in_user_space(vma->vm_start, end - vma->vm_start);
}

/* Grow in place (vma_merge_extend()): may also join the next VMA */
static int mremap_expand(struct vm_area_struct *vma, unsigned long delta)
{
	struct mm_struct *mm = vma->vm_mm;
	struct vma_merge_struct vmg = {
		.mm = mm,
		.prev = vma,
		.next = find_vma(mm, vma->vm_end),
		.start = vma->vm_end,
		.end = vma->vm_end + delta,
		.pgoff = vma->vm_pgoff + vma_pages(vma),
		.flags = vma->vm_flags,
		.file = vma->vm_file,
		.anon_vma_id = vma->anon_vma_id,
	};

	if (!vma_merge_new_range(&vmg))
		return -ENOMEM;
	mm->total_vm += delta >> PAGE_SHIFT;
	return 0;
}

/*
 * remap_move() (Linux 6.17+): a move without resize may span several
 * VMAs, gaps included. Each VMA's part moves on its own, to the same
 * distance from new_addr as it had from addr, so the gaps between them
 * are kept (and whatever the destination has in the gaps stays).
 */
static int remap_move(struct mm_struct *mm, unsigned long addr,
		      unsigned long len, unsigned long new_addr,
		      unsigned long flags)
{
	unsigned long end = addr + len, target = new_addr, last_end = 0;
	struct vm_area_struct *vma;
	bool seen = false;
	int err;

	if (new_addr & ~PAGE_MASK)
		return -EINVAL;
	if (len > TASK_SIZE || new_addr > TASK_SIZE - len)
		return -EINVAL;
	if (addr + len > new_addr && new_addr + len > addr)
		return -EINVAL;
	vma = find_vma(mm, addr);
	if (!vma || vma->vm_start >= end)
		return -EFAULT;
	while (vma && vma->vm_start < end) {
		unsigned long from = vma->vm_start > addr ? vma->vm_start : addr;
		unsigned long n = (vma->vm_end < end ? vma->vm_end : end) - from;
		unsigned long offset = seen ? vma->vm_start - last_end : 0;

		/* no gap is allowed at the start of the range */
		if (!seen && addr < vma->vm_start)
			return -EFAULT;
		last_end = vma->vm_end;
		err = mremap_to(mm, from, n, target + offset, n, flags);
		if (err)
			return err;
		target += offset + n;
		seen = true;
		/*
		 * Go on from where that VMA ended, as the kernel's iterator
		 * does: a copy that merged into its own source must not be
		 * seen again.
		 */
		if (last_end >= end)
			break;
		vma = find_vma(mm, last_end);
	}
	return 0;
}

static int mremap_locked(struct mm_struct *mm, unsigned long addr,
			 unsigned long old_len, unsigned long new_len,
			 unsigned long flags, unsigned long new_addr)
{
	struct vm_area_struct *vma;
	int err;

	if ((flags & MREMAP_FIXED) && old_len == new_len) {
		/* remap_move() checks each VMA it would move */
		if (range_has_sealed(mm, addr, addr + old_len))
			return -EPERM;
		return remap_move(mm, addr, old_len, new_addr, flags);
	}
	vma = vma_lookup(mm, addr);
	if (!vma)
		return -EFAULT;
	/* no remapping of a sealed VMA */
	if (vma_is_sealed(vma))
		return -EPERM;
	if (flags & (MREMAP_FIXED | MREMAP_DONTUNMAP))
		return mremap_to(mm, addr, old_len, new_addr, new_len, flags);
	/* shrinking always works: it is an munmap of the tail */
	if (old_len >= new_len) {
		if (old_len == new_len)
			return 0;
		return do_vmi_munmap(mm, addr + new_len, old_len - new_len);
	}
	vma = vma_to_resize(mm, addr, old_len, new_len, flags, &err);
	if (!vma)
		return err;
	if (old_len == vma->vm_end - addr &&
	    vma_expandable(vma, new_len - old_len))
		return mremap_expand(vma, new_len - old_len);
	/* no MREMAP_MAYMOVE in the language without MREMAP_FIXED */
	return -ENOMEM;
}

int do_mremap(struct mm_struct *mm, unsigned long addr,
	      unsigned long old_len, unsigned long new_len,
	      unsigned long flags, unsigned long new_addr)
{
	int err;

	if (flags & ~(MREMAP_FIXED | MREMAP_MAYMOVE | MREMAP_DONTUNMAP))
		return -EINVAL;
	if ((flags & MREMAP_FIXED) && !(flags & MREMAP_MAYMOVE))
		return -EINVAL;
	if ((flags & MREMAP_DONTUNMAP) &&
	    (!(flags & MREMAP_MAYMOVE) || old_len != new_len))
		return -EINVAL;
	if (addr & ~PAGE_MASK)
		return -EINVAL;
	old_len = (old_len + PAGE_SIZE - 1) & PAGE_MASK;
	new_len = (new_len + PAGE_SIZE - 1) & PAGE_MASK;
	if (!new_len)
		return -EINVAL;

	set_current_mm(mm);
	mmap_write_lock(mm);
	err = mremap_locked(mm, addr, old_len, new_len, flags, new_addr);
	mmap_write_unlock(mm);
	return err;
}
