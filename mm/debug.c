// SPDX-License-Identifier: GPL-2.0
/* Human-readable dumps of model state, for reports and debugging. */
#include <stdio.h>

#include <cowctx/mm.h>
#include "mm/internal.h"

void mm_dump(struct mm_struct *mm, FILE *out)
{
	struct vm_area_struct *vma;
	unsigned long i;

	fprintf(out, "mm %s:\n", mm->comm);
	for_each_vma(mm, vma, i)
		fprintf(out, "  %#lx-%#lx %c%c%c%c pgoff %#lx%s%s%s%s\n",
			vma->vm_start, vma->vm_end,
			vma->vm_flags & VM_READ ? 'r' : '-',
			vma->vm_flags & VM_WRITE ? 'w' : '-',
			vma->vm_flags & VM_EXEC ? 'x' : '-',
			vma->vm_flags & VM_SHARED ? 's' : 'p',
			vma->vm_pgoff,
			vma->vm_file ? " file" : "",
			vma->anon_vma ? " anon" : "",
			vma->vm_flags & VM_ACCOUNT ? " account" : "",
			vma->vm_flags & VM_DONTCOPY ? " dontcopy" :
			vma->vm_flags & VM_WIPEONFORK ? " wipeonfork" : "");
}
