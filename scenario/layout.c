// SPDX-License-Identifier: GPL-2.0
/*
 * The layout check: after every statement, each backend's instance must
 * hold the VMAs the anon_vma instance holds. Both run the same model
 * code, so a difference means a backend's state leaked into a layout
 * decision, which a program could observe (/proc/PID/maps, or a call
 * refused on one side only).
 */
#include <stdlib.h>
#include <string.h>

#include <cowctx/mm.h>
#include <cowctx/rmap.h>
#include "scenario/exec.h"
#include "scenario/layout.h"

/* What a program can see of a VMA, or what decides what it will see */
static bool vma_same(const struct vm_area_struct *a,
		     const struct vm_area_struct *b)
{
	/* files are per instance: the name is what is shared */
	const char *fa = a->vm_file ? a->vm_file->f_name : "";
	const char *fb = b->vm_file ? b->vm_file->f_name : "";

	return a->vm_start == b->vm_start && a->vm_end == b->vm_end &&
	       a->vm_flags == b->vm_flags && a->vm_pgoff == b->vm_pgoff &&
	       !strcmp(fa, fb) && a->anon_vma_id == b->anon_vma_id;
}

static bool mm_same(struct mm_struct *a, struct mm_struct *b)
{
	unsigned long i;

	if (a->mm_mt.nr != b->mm_mt.nr)
		return false;
	for (i = 0; i < a->mm_mt.nr; i++)
		if (!vma_same(a->mm_mt.vmas[i], b->mm_mt.vmas[i]))
			return false;
	return true;
}

static void dump(struct mm_struct *mm, const char *who, FILE *out)
{
	struct vm_area_struct *vma;
	unsigned long i;

	fprintf(out, "  %s:\n", who);
	for_each_vma(mm, vma, i) {
		fprintf(out, "    %#lx-%#lx %c%c%c pgoff %#lx%s%s",
			vma->vm_start, vma->vm_end,
			vma->vm_flags & VM_READ ? 'r' : '-',
			vma->vm_flags & VM_WRITE ? 'w' : '-',
			vma->vm_flags & VM_EXEC ? 'x' : '-', vma->vm_pgoff,
			vma->vm_file ? " file=" : "",
			vma->vm_file ? vma->vm_file->f_name : "");
		if (vma->anon_vma_id)
			fprintf(out, " anon_vma %lu%s", vma->anon_vma_id >> 1,
				vma->anon_vma_id & ANON_VMA_ID_FORKED ?
				" (forked)" : "");
		fputc('\n', out);
	}
}

int layout_compare(struct exec_state *ref, struct exec_state *es,
		   FILE *out, const char *where)
{
	int i;

	if (ref->nr_procs != es->nr_procs) {
		fprintf(out, "%s: %s has %d processes, %s %d\n", where,
			es->m->rmap->name, es->nr_procs, ref->m->rmap->name,
			ref->nr_procs);
		return 1;
	}
	for (i = 0; i < es->nr_procs; i++) {
		struct exec_proc *p = &es->procs[i], *r = &ref->procs[i];

		if (!strcmp(p->name, r->name) && mm_same(p->mm, r->mm))
			continue;
		fprintf(out, "%s: %s's VMA layout of %s differs from %s's\n",
			where, es->m->rmap->name, p->name, ref->m->rmap->name);
		dump(r->mm, ref->m->rmap->name, out);
		dump(p->mm, es->m->rmap->name, out);
		return 1;
	}
	return 0;
}

static char msg[256];
const char anon_vma_id_nomem[] = "out of memory";

struct id_ptr {
	unsigned long id;
	void *anon_vma;
	unsigned long diff;	/* vm_anon_pgoff - vm_pgoff */
	unsigned long start;
};

static int cmp_id(const void *a, const void *b)
{
	const struct id_ptr *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_ptr(const void *a, const void *b)
{
	const struct id_ptr *x = a, *y = b;

	return x->anon_vma < y->anon_vma ? -1 : x->anon_vma > y->anon_vma;
}

static const char *check_mm(struct mm_struct *mm, struct id_ptr *v)
{
	bool (*fork_child)(struct vm_area_struct *) =
		mm->model->rmap->vma_is_fork_child;
	struct vm_area_struct *vma;
	unsigned long i, n = 0;

	for_each_vma(mm, vma, i) {
		if (!vma->anon_vma != !vma->anon_vma_id) {
			snprintf(msg, sizeof(msg), "mm %s: VMA %#lx: anon state %s but anon_vma_id %#lx",
				 mm->comm, vma->vm_start,
				 vma->anon_vma ? "set" : "NULL",
				 vma->anon_vma_id);
			return msg;
		}
		if (!vma->anon_vma_id)
			continue;
		if (fork_child && fork_child(vma) !=
		    !!(vma->anon_vma_id & ANON_VMA_ID_FORKED)) {
			snprintf(msg, sizeof(msg), "mm %s: VMA %#lx: anon_vma_id %#lx says %sforked, its chain says otherwise",
				 mm->comm, vma->vm_start, vma->anon_vma_id,
				 vma->anon_vma_id & ANON_VMA_ID_FORKED ?
				 "" : "not ");
			return msg;
		}
		v[n].id = vma->anon_vma_id;
		v[n].anon_vma = vma->anon_vma;
		v[n].diff = vma->vm_anon_pgoff - vma->vm_pgoff;
		v[n++].start = vma->vm_start;
	}
	qsort(v, n, sizeof(*v), cmp_id);
	for (i = 1; i < n; i++) {
		if (v[i].id != v[i - 1].id)
			continue;
		if (v[i].diff != v[i - 1].diff) {
			snprintf(msg, sizeof(msg), "mm %s: VMAs %#lx and %#lx share anon_vma_id %#lx, not their anonymous offsets",
				 mm->comm, v[i - 1].start, v[i].start, v[i].id);
			return msg;
		}
		if (fork_child && v[i].anon_vma != v[i - 1].anon_vma) {
			snprintf(msg, sizeof(msg), "mm %s: VMAs %#lx and %#lx share anon_vma_id %#lx, not their anon_vma",
				 mm->comm, v[i - 1].start, v[i].start, v[i].id);
			return msg;
		}
	}
	if (!fork_child)
		return NULL;
	qsort(v, n, sizeof(*v), cmp_ptr);
	for (i = 1; i < n; i++)
		if (v[i].anon_vma == v[i - 1].anon_vma &&
		    v[i].id != v[i - 1].id) {
			snprintf(msg, sizeof(msg), "mm %s: VMAs %#lx and %#lx share an anon_vma, not their anon_vma_id",
				 mm->comm, v[i - 1].start, v[i].start);
			return msg;
		}
	return NULL;
}

const char *anon_vma_id_check(struct model *m)
{
	struct mm_struct *mm;
	const char *err = NULL;

	list_for_each_entry(mm, &m->mms, mmlist) {
		struct id_ptr *v = malloc((mm->mm_mt.nr + 1) * sizeof(*v));

		if (!v)
			return anon_vma_id_nomem;
		err = check_mm(mm, v);
		free(v);
		if (err)
			break;
	}
	return err;
}
