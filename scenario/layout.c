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

/*
 * One VMA's anon state, in an open-addressed table keyed by its id or
 * by its anon_vma: each mm is checked in time linear in its VMAs, since
 * the check runs after nearly every statement of files of millions.
 */
struct id_slot {
	unsigned long key;	/* 0: empty (no id and no anon_vma is 0) */
	const struct vm_area_struct *vma;
};

struct id_table {
	struct id_slot *slot;
	unsigned long mask;
};

static unsigned long hash_key(unsigned long key)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdUL;
	return key ^ (key >> 33);
}

/* The VMA entered first under @key, after entering @vma there if none */
static const struct vm_area_struct *
id_table_enter(struct id_table *t, unsigned long key,
	       const struct vm_area_struct *vma)
{
	unsigned long i = hash_key(key) & t->mask;

	while (t->slot[i].key && t->slot[i].key != key)
		i = (i + 1) & t->mask;
	if (t->slot[i].key)
		return t->slot[i].vma;
	t->slot[i].key = key;
	t->slot[i].vma = vma;
	return vma;
}

static unsigned long anon_diff(const struct vm_area_struct *vma)
{
	return vma_anon_pgoff(vma) - vma->vm_pgoff;
}

static const char *check_vma(struct mm_struct *mm,
			     struct vm_area_struct *vma,
			     bool (*fork_child)(struct vm_area_struct *),
			     struct id_table *by_id, struct id_table *by_ptr)
{
	const struct vm_area_struct *first;

	if (!vma->anon_vma != !vma->anon_vma_id) {
		snprintf(msg, sizeof(msg), "mm %s: VMA %#lx: anon state %s but anon_vma_id %#lx",
			 mm->comm, vma->vm_start,
			 vma->anon_vma ? "set" : "NULL", vma->anon_vma_id);
		return msg;
	}
	if (!vma->anon_vma_id)
		return NULL;
	if (fork_child && fork_child(vma) !=
	    !!(vma->anon_vma_id & ANON_VMA_ID_FORKED)) {
		snprintf(msg, sizeof(msg), "mm %s: VMA %#lx: anon_vma_id %#lx says %sforked, its chain says otherwise",
			 mm->comm, vma->vm_start, vma->anon_vma_id,
			 vma->anon_vma_id & ANON_VMA_ID_FORKED ? "" : "not ");
		return msg;
	}
	first = id_table_enter(by_id, vma->anon_vma_id, vma);
	if (anon_diff(first) != anon_diff(vma)) {
		snprintf(msg, sizeof(msg), "mm %s: VMAs %#lx and %#lx share anon_vma_id %#lx, not their anonymous offsets",
			 mm->comm, first->vm_start, vma->vm_start,
			 vma->anon_vma_id);
		return msg;
	}
	if (!fork_child)
		return NULL;
	if (first->anon_vma != vma->anon_vma) {
		snprintf(msg, sizeof(msg), "mm %s: VMAs %#lx and %#lx share anon_vma_id %#lx, not their anon_vma",
			 mm->comm, first->vm_start, vma->vm_start,
			 vma->anon_vma_id);
		return msg;
	}
	first = id_table_enter(by_ptr, (unsigned long)vma->anon_vma, vma);
	if (first->anon_vma_id != vma->anon_vma_id) {
		snprintf(msg, sizeof(msg), "mm %s: VMAs %#lx and %#lx share an anon_vma, not their anon_vma_id",
			 mm->comm, first->vm_start, vma->vm_start);
		return msg;
	}
	return NULL;
}

/*
 * The indices [*@lo, *@hi) of @mm's VMAs that meet @rg, with the
 * neighbour either side (a merge's other half); every VMA if @rg is
 * NULL.
 */
static void window(struct mm_struct *mm, const struct layout_range *rg,
		   unsigned long *lo, unsigned long *hi)
{
	unsigned long i;

	if (!rg) {
		*lo = 0;
		*hi = mm->mm_mt.nr;
		return;
	}
	i = vma_tree_index(mm, rg->start);
	*lo = i ? i - 1 : 0;
	while (i < mm->mm_mt.nr && mm->mm_mt.vmas[i]->vm_start < rg->end)
		i++;
	*hi = i < mm->mm_mt.nr ? i + 1 : i;
}

/* anon_vma_id_check() for the VMAs of @mm in the windows of @nr @rg */
static const char *ids_check_mm(struct mm_struct *mm,
				const struct layout_range *rg, int nr)
{
	bool (*fork_child)(struct vm_area_struct *) =
		mm->model->rmap->vma_is_fork_child;
	struct id_table by_id, by_ptr;
	unsigned long size = 16, n = 0, lo, hi;
	const char *err = NULL;
	int k;

	for (k = 0; k < (nr ? nr : 1); k++) {
		window(mm, nr ? &rg[k] : NULL, &lo, &hi);
		n += hi - lo;
	}
	while (size < 2 * n)
		size <<= 1;
	by_id.slot = calloc(2 * size, sizeof(*by_id.slot));
	if (!by_id.slot)
		return anon_vma_id_nomem;
	by_ptr.slot = by_id.slot + size;
	by_id.mask = by_ptr.mask = size - 1;
	for (k = 0; k < (nr ? nr : 1) && !err; k++) {
		window(mm, nr ? &rg[k] : NULL, &lo, &hi);
		for (; lo < hi && !err; lo++)
			err = check_vma(mm, mm->mm_mt.vmas[lo], fork_child,
					&by_id, &by_ptr);
	}
	free(by_id.slot);
	return err;
}

const char *anon_vma_id_check(struct model *m)
{
	struct mm_struct *mm;
	const char *err = NULL;

	list_for_each_entry(mm, &m->mms, mmlist) {
		err = ids_check_mm(mm, NULL, 0);
		if (err)
			break;
	}
	return err;
}

/* Snapshot what a touch of [@addr, @addr + @len) may change in @mm */
static void watch_mm(struct layout_watch_mm *w, struct mm_struct *mm,
		     unsigned long addr, unsigned long len)
{
	unsigned long i = vma_tree_index(mm, addr);

	w->mm = mm;
	w->seq = mm->mm_lock_seq;
	w->nr_vmas = mm->mm_mt.nr;
	for (w->nr = 0; i < mm->mm_mt.nr; i++, w->nr++) {
		struct vm_area_struct *vma = mm->mm_mt.vmas[i];

		if (vma->vm_start >= addr + len)
			break;
		if (w->nr == LAYOUT_WATCH_MAX)
			return;
		w->vma[w->nr] = vma;
		w->anon_vma_id[w->nr] = vma->anon_vma_id;
		w->anon_vma[w->nr] = vma->anon_vma;
	}
}

void layout_watch_begin(struct layout_watch *w, struct exec_state *ref,
			struct exec_state *es, const struct stmt *st)
{
	struct exec_proc *r, *p;

	w->touch = false;
	if (st->kind != STMT_TOUCH)
		return;
	r = exec_find_proc(ref, st->proc);
	p = exec_find_proc(es, st->proc);
	if (!r || !p)
		return;
	w->touch = true;
	watch_mm(&w->mm[0], r->mm, st->addr, st->len);
	watch_mm(&w->mm[1], p->mm, st->addr, st->len);
}

static bool watch_unchanged(const struct layout_watch_mm *w,
			    const struct stmt *st)
{
	struct layout_watch_mm now;
	unsigned int i;

	if (w->nr > LAYOUT_WATCH_MAX)
		return false;
	watch_mm(&now, w->mm, st->addr, st->len);
	if (now.seq != w->seq || now.nr_vmas != w->nr_vmas || now.nr != w->nr)
		return false;
	for (i = 0; i < w->nr; i++)
		if (now.vma[i] != w->vma[i] ||
		    now.anon_vma_id[i] != w->anon_vma_id[i] ||
		    now.anon_vma[i] != w->anon_vma[i])
			return false;
	return true;
}

/* 0, else 1 (2 out of memory) and the report, as layout_compare() */
static int ids_report(const char *bad, FILE *out, const char *where)
{
	if (bad == anon_vma_id_nomem) {
		fprintf(out, "%s: out of memory\n", where);
		return 2;
	}
	if (bad) {
		fprintf(out, "%s: anon_vma_id: %s\n", where, bad);
		return 1;
	}
	return 0;
}

int layout_check_full(struct exec_state *ref, struct exec_state *es,
		      FILE *out, const char *where)
{
	int ret;

	es->layout_debt = 0;
	ret = ids_report(anon_vma_id_check(ref->m), out, where);
	if (!ret)
		ret = ids_report(anon_vma_id_check(es->m), out, where);
	return ret ? ret : layout_compare(ref, es, out, where);
}

/*
 * Process @name's VMAs in the windows of @nr @rg (every VMA if @nr is
 * 0) on both instances: the same VMAs, and anon_vma_ids that agree
 * with each other. *@cost grows by the VMAs looked at.
 */
static int proc_check(struct exec_state *ref, struct exec_state *es,
		      const char *name, const struct layout_range *rg, int nr,
		      FILE *out, const char *where, unsigned long *cost)
{
	struct exec_proc *r = exec_find_proc(ref, name);
	struct exec_proc *p = exec_find_proc(es, name);
	unsigned long lo, hi;
	bool same = true;
	int ret, k;

	if (!r || !p)
		return !r && !p ? 0 : layout_compare(ref, es, out, where);
	if (r->mm->mm_mt.nr != p->mm->mm_mt.nr)
		same = false;
	for (k = 0; k < (nr ? nr : 1) && same; k++) {
		window(r->mm, nr ? &rg[k] : NULL, &lo, &hi);
		*cost += 2 * (hi - lo);
		for (; lo < hi && same; lo++)
			same = vma_same(r->mm->mm_mt.vmas[lo],
					p->mm->mm_mt.vmas[lo]);
	}
	if (!same) {
		fprintf(out, "%s: %s's VMA layout of %s differs from %s's\n",
			where, es->m->rmap->name, name, ref->m->rmap->name);
		dump(r->mm, ref->m->rmap->name, out);
		dump(p->mm, es->m->rmap->name, out);
		return 1;
	}
	ret = ids_report(ids_check_mm(r->mm, rg, nr), out, where);
	return ret ? ret : ids_report(ids_check_mm(p->mm, rg, nr), out,
				      where);
}

/*
 * The ranges whose VMAs @st may have changed, with their neighbours
 * (the windows): 0 where it may have changed any of its process's.
 */
static int stmt_ranges(const struct stmt *st, struct exec_state *ref,
		       struct layout_range *rg)
{
	struct exec_proc *r;

	switch (st->kind) {
	case STMT_MMAP:
		/* a mapping placed elsewhere (the kernel chose) */
		r = exec_find_proc(ref, st->proc);
		if (!r || !vma_lookup(r->mm, st->addr))
			return 0;
		break;
	case STMT_MUNMAP:
	case STMT_MSEAL:
	case STMT_MPROTECT:
	case STMT_MADVISE:
	case STMT_TOUCH:
		break;
	case STMT_MREMAP:
		if ((st->mremap_flags & MREMAP_MAYMOVE) &&
		    !(st->mremap_flags & MREMAP_FIXED))
			return 0;
		rg[0].start = st->addr;
		rg[0].end = st->addr + (st->new_len > st->len ? st->new_len :
							       st->len);
		if (!(st->mremap_flags & MREMAP_FIXED))
			return 1;
		rg[1].start = st->new_addr;
		rg[1].end = st->new_addr + st->new_len;
		return 2;
	default:
		return 0;
	}
	rg[0].start = st->addr;
	rg[0].end = st->addr + st->len;
	return 1;
}

int layout_check_stmt(const struct layout_watch *w, struct exec_state *ref,
		      struct exec_state *es, const struct stmt *st, FILE *out,
		      const char *where)
{
	struct layout_range rg[2];
	unsigned long cost = 1;
	int ret = 0, nr;

	if (st->kind == STMT_CHECK || ref->nr_procs != es->nr_procs)
		return layout_check_full(ref, es, out, where);
	if (st->kind == STMT_FORK) {
		ret = proc_check(ref, es, st->proc, NULL, 0, out, where,
				 &cost);
		if (!ret)
			ret = proc_check(ref, es, st->child, NULL, 0, out,
					 where, &cost);
	} else if (!w->touch || !watch_unchanged(&w->mm[0], st) ||
		   !watch_unchanged(&w->mm[1], st)) {
		nr = stmt_ranges(st, ref, rg);
		ret = proc_check(ref, es, st->proc, rg, nr, out, where,
				 &cost);
	}
	if (ret)
		return ret;
	/*
	 * A statement changes the VMAs of its range and their neighbours
	 * (a fork: of both processes) and no others; a bug that changed
	 * others is still caught, once the statements since the last
	 * whole check have cost as much as one: all of it costs at most
	 * twice what the statements' own windows do.
	 */
	es->layout_debt += cost;
	if (es->layout_debt < es->m->nr_vmas + ref->m->nr_vmas)
		return 0;
	return layout_check_full(ref, es, out, where);
}
