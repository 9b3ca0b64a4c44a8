// SPDX-License-Identifier: GPL-2.0
/* Executing a parsed scenario on one model instance. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cowctx/mm.h>
#include <cowctx/rmap.h>
#include "scenario/exec.h"
#include "scenario/layout.h"

struct exec_proc *exec_find_proc(struct exec_state *es, const char *name)
{
	int i;

	for (i = 0; i < es->nr_procs; i++)
		if (!strcmp(es->procs[i].name, name))
			return &es->procs[i];
	return NULL;
}

static int add_proc(struct exec_state *es, const char *name,
		    struct mm_struct *mm)
{
	if (es->nr_procs == es->capacity) {
		int cap = es->capacity ? es->capacity * 2 : 16;
		void *n = realloc(es->procs, cap * sizeof(*es->procs));

		if (!n)
			return -ENOMEM;
		es->procs = n;
		es->capacity = cap;
	}
	snprintf(es->procs[es->nr_procs].name, SCN_NAME_MAX, "%s", name);
	es->procs[es->nr_procs++].mm = mm;
	return 0;
}

static void del_proc(struct exec_state *es, struct exec_proc *p)
{
	int i = p - es->procs;

	memmove(p, p + 1, (es->nr_procs - i - 1) * sizeof(*p));
	es->nr_procs--;
}

const char *errno_name(int err)
{
	switch (err) {
	case EINVAL: return "EINVAL";
	case ENOMEM: return "ENOMEM";
	case EEXIST: return "EEXIST";
	case EFAULT: return "EFAULT";
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case EAGAIN: return "EAGAIN";
	case EBUSY: return "EBUSY";
	case EOVERFLOW: return "EOVERFLOW";
	case ENOENT: return "ENOENT";
	}
	return "E?";
}

static int touch(struct mm_struct *mm, const struct stmt *st,
		 unsigned long *fault_addr)
{
	unsigned long off;
	int err;

	for (off = 0; off < st->len; off += PAGE_SIZE) {
		err = handle_access(mm, st->addr + off, st->write);
		if (err) {
			*fault_addr = st->addr + off;
			return err;
		}
	}
	return 0;
}

/*
 * Run one statement other than `check`: 0, or the kernel's -errno
 * (a touch's -EFAULT with the faulting address in *@fault_addr).
 */
static int do_stmt(struct exec_state *es, const struct stmt *st,
		   unsigned long *fault_addr)
{
	struct model *m = es->m;
	struct exec_proc *p = NULL;
	struct mm_struct *mm = NULL, *child;
	struct file *file = NULL;
	int ret = 0;

	if (st->kind != STMT_PROC) {
		/* the parser checked liveness: only a bug fails here */
		p = exec_find_proc(es, st->proc);
		if (!p)
			return -ENOENT;
		mm = p->mm;
	}
	switch (st->kind) {
	case STMT_PROC:
		mm = mm_create(m, st->proc);
		ret = mm ? add_proc(es, st->proc, mm) : -ENOMEM;
		break;
	case STMT_MMAP:
		if (st->is_file) {
			file = model_file(m, st->file);
			if (!file) {
				ret = -ENOMEM;
				break;
			}
		}
		ret = do_mmap_flags(mm, st->addr, st->len, st->prot,
				    st->map_flags, file, st->offset, NULL);
		break;
	case STMT_MUNMAP:
		ret = do_munmap(mm, st->addr, st->len);
		break;
	case STMT_MSEAL:
		ret = do_mseal(mm, st->addr, st->len);
		break;
	case STMT_MPROTECT:
		ret = do_mprotect(mm, st->addr, st->len, st->prot);
		break;
	case STMT_MREMAP:
		ret = do_mremap(mm, st->addr, st->len, st->new_len,
				st->mremap_flags, st->new_addr);
		break;
	case STMT_MADVISE:
		ret = do_madvise(mm, st->addr, st->len, st->advice);
		break;
	case STMT_TOUCH:
		ret = touch(mm, st, fault_addr);
		break;
	case STMT_FORK:
		ret = mm_fork(mm, st->child, &child);
		if (!ret)
			ret = add_proc(es, st->child, child);
		break;
	case STMT_EXIT:
		mm_exit(mm);
		del_proc(es, p);
		break;
	case STMT_EXEC:
		/* bprm_mm_init() makes the new mm; exec_mmap() drops the old */
		child = mm_create(m, st->proc);
		if (!child) {
			ret = -ENOMEM;
			break;
		}
		mm_exit(mm);
		p->mm = child;
		mm_exec_layout(child, st->brk, st->mmap_base);
		break;
	case STMT_BRK:
		ret = do_brk(mm, st->brk);
		break;
	case STMT_CHECK:
	case STMT_RECORDED:
		break;
	}
	return ret;
}

/* "FILE:LINE: why the kernel refuses @st" */
static void report_refusal(struct exec_state *es, const struct stmt *st,
			   int ret, unsigned long fault_addr, FILE *err)
{
	if (ret == -ENOENT && !exec_find_proc(es, st->proc))
		fprintf(err, "%s:%d: unknown process '%s'\n", es->sc->path,
			st->line, st->proc);
	else if (st->kind == STMT_TOUCH && ret == -EFAULT)
		fprintf(err, "%s:%d: %s touch %s of %#lx: unmapped or inaccessible page (SIGSEGV)\n",
			es->sc->path, st->line, st->proc,
			st->write ? "write" : "read", fault_addr);
	else if (st->kind == STMT_TOUCH && ret == -EIO)
		fprintf(err, "%s:%d: %s touch %s of %#lx: past the end of its shared memory object (SIGBUS)\n",
			es->sc->path, st->line, st->proc,
			st->write ? "write" : "read", fault_addr);
	else
		fprintf(err, "%s:%d: %s %s: %s (%s)\n", es->sc->path,
			st->line, st->proc, stmt_kind_name(st->kind),
			strerror(-ret), errno_name(-ret));
}

/* An instance's live objects of type @name (-1: it has no such type) */
static long live_objects(const struct model *m, const char *name)
{
	int t;

	for (t = 0; t < m->acct.nr_types; t++)
		if (!strcmp(m->acct.type[t].name, name))
			return m->acct.type[t].live;
	return -1;
}

/*
 * `recorded`: the kernel's live anon_vma and anon_vma_chain counts for
 * the recorded tree, against the anon_vma instance's (@es's own, or
 * its layout reference @ref); nothing to compare without one. A
 * difference is reported, never fatal here: the caller decides.
 */
static int exec_recorded(struct exec_state *es, const struct model *ref,
			 const struct stmt *st)
{
	const struct model *m = es->m->rmap == &anon_vma_rmap_ops ? es->m :
				ref && ref->rmap == &anon_vma_rmap_ops ? ref :
				NULL;
	long av, avc;

	if (!m)
		return 0;
	av = live_objects(m, "anon_vma");
	avc = live_objects(m, "anon_vma_chain");
	es->fidelity_points++;
	if (av == st->rec_anon_vma && avc == st->rec_anon_vma_chain)
		return 0;
	es->fidelity_diffs++;
	if (es->fidelity_out)
		fprintf(es->fidelity_out,
			"%s:%d: fidelity: anon_vma model %ld kernel %ld, anon_vma_chain model %ld kernel %ld\n",
			es->sc->path, st->line, av, st->rec_anon_vma, avc,
			st->rec_anon_vma_chain);
	return 0;
}

static int exec_stmt(struct exec_state *es, const struct stmt *st, FILE *err)
{
	unsigned long fault_addr = 0;
	int ret;

	if (st->kind == STMT_RECORDED)
		return exec_recorded(es, NULL, st);
	if (st->kind == STMT_CHECK)
		return es->on_check ? es->on_check(es, st, es->arg) : 0;
	ret = do_stmt(es, st, &fault_addr);
	if (ret) {
		report_refusal(es, st, ret, fault_addr, err);
		return 2;
	}
	return 0;
}

/*
 * One statement on @es and on the reference instance @ref: both must
 * accept it or refuse it alike, and leave the same layout (layout.c).
 * 1 and a report on @err when they differ.
 */
static int exec_stmt_ref(struct exec_state *es, struct exec_state *ref,
			 const struct stmt *st, FILE *err)
{
	unsigned long fault_addr = 0, ref_fault_addr = 0;
	struct layout_watch w;
	char where[512];
	int ret, ref_ret;

	if (st->kind == STMT_RECORDED)
		return exec_recorded(es, ref->m, st);
	snprintf(where, sizeof(where), "%s:%d", es->sc->path, st->line);
	layout_watch_begin(&w, ref, es, st);
	ref_ret = st->kind == STMT_CHECK ? 0 :
		  do_stmt(ref, st, &ref_fault_addr);
	if (st->kind == STMT_CHECK) {
		ret = es->on_check ? es->on_check(es, st, es->arg) : 0;
		if (ret)
			return ret;
	} else {
		ret = do_stmt(es, st, &fault_addr);
	}
	if (ret != ref_ret || fault_addr != ref_fault_addr) {
		fprintf(err, "%s: %s %s what %s %s\n", where, es->m->rmap->name,
			ret ? "refuses" : "accepts", ref->m->rmap->name,
			ref_ret ? "refuses" : "accepts");
		if (ret)
			report_refusal(es, st, ret, fault_addr, err);
		if (ref_ret)
			report_refusal(ref, st, ref_ret, ref_fault_addr, err);
		return 1;
	}
	if (ret) {
		report_refusal(es, st, ret, fault_addr, err);
		return 2;
	}
	return layout_check_stmt(&w, ref, es, st, err, where);
}

int scenario_exec(struct exec_state *es, const struct scenario *sc,
		  struct model *m, FILE *err)
{
	struct exec_state ref = { .sc = sc };
	int i, ret = 0;

	es->sc = sc;
	es->m = m;
	scenario_apply_zero_page(sc, m);
	if (es->layout_ref && es->layout_ref != m->rmap) {
		ref.m = model_create(es->layout_ref);
		if (!ref.m) {
			fprintf(err, "%s: out of memory\n", sc->path);
			return 2;
		}
		scenario_apply_zero_page(sc, ref.m);
	}
	for (i = 0; i < sc->nr && !ret; i++)
		ret = ref.m ? exec_stmt_ref(es, &ref, &sc->stmts[i], err) :
			      exec_stmt(es, &sc->stmts[i], err);
	if (ref.m && !ret && sc->nr) {
		/* the statements since the last whole check */
		char where[512];

		snprintf(where, sizeof(where), "%s:%d", sc->path,
			 sc->stmts[sc->nr - 1].line);
		ret = layout_check_full(&ref, es, err, where);
	}
	if (ref.m) {
		exec_state_release(&ref);
		model_destroy(ref.m);
	}
	if (ret)
		return ret;
	if (es->on_check)
		return es->on_check(es, NULL, es->arg);
	return 0;
}

void exec_state_release(struct exec_state *es)
{
	free(es->procs);
	es->procs = NULL;
	es->nr_procs = es->capacity = 0;
}
