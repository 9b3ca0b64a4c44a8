// SPDX-License-Identifier: GPL-2.0
/* Executing a parsed scenario on one model instance. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cowctx/mm.h>
#include "scenario/exec.h"

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

static int exec_stmt(struct exec_state *es, const struct stmt *st, FILE *err)
{
	struct model *m = es->m;
	struct exec_proc *p = NULL;
	struct mm_struct *mm = NULL, *child;
	struct file *file = NULL;
	unsigned long fault_addr = 0;
	int ret = 0;

	if (st->kind != STMT_PROC && st->kind != STMT_CHECK) {
		p = exec_find_proc(es, st->proc);
		if (!p) {
			/* the parser checked liveness: only a bug gets here */
			fprintf(err, "%s:%d: unknown process '%s'\n",
				es->sc->path, st->line, st->proc);
			return 2;
		}
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
		ret = do_mmap(mm, st->addr, st->len, st->prot, file,
			      st->offset);
		break;
	case STMT_MUNMAP:
		ret = do_munmap(mm, st->addr, st->len);
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
		ret = touch(mm, st, &fault_addr);
		if (ret == -EFAULT) {
			fprintf(err, "%s:%d: %s touch %s of %#lx: unmapped or inaccessible page (SIGSEGV)\n",
				es->sc->path, st->line, st->proc,
				st->write ? "write" : "read", fault_addr);
			return 2;
		}
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
	case STMT_CHECK:
		if (es->on_check)
			return es->on_check(es, st, es->arg);
		return 0;
	}
	if (ret) {
		fprintf(err, "%s:%d: %s %s: %s (%s)\n", es->sc->path, st->line,
			st->proc, stmt_kind_name(st->kind), strerror(-ret),
			errno_name(-ret));
		return 2;
	}
	return 0;
}

int scenario_exec(struct exec_state *es, const struct scenario *sc,
		  struct model *m, FILE *err)
{
	int i, ret;

	es->sc = sc;
	es->m = m;
	for (i = 0; i < sc->nr; i++) {
		ret = exec_stmt(es, &sc->stmts[i], err);
		if (ret)
			return ret;
	}
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
