// SPDX-License-Identifier: GPL-2.0
/*
 * A user's scenario as a bench workload. Each statement becomes one of
 * the operations the generated workloads are made of, so the scenario
 * is replayed on every backend side by side and measured exactly as
 * they are: a `check` is a walk of every mapped anonymous folio; the
 * snapshot of the steady state and its walk come after the scenario's
 * busiest statement (bench/busiest.c: a scenario that ends with its
 * exits has nothing left to measure after its last), and the ending is
 * theirs (every live process's exit, last created first).
 *
 * The scenario is run once on the baseline's model before it is
 * measured: a statement the kernel would refuse is then reported as
 * `cowctx run` reports it (FILE:LINE, exit 2), before anything is
 * measured, rather than as a failed workload; that run also finds the
 * busiest statement.
 */
#include <errno.h>
#include <string.h>

#include "bench/bench.h"
#include "scenario/exec.h"
#include "scenario/scenario.h"

static const struct bench_param no_params[] = {
	{ NULL, 0, 0, NULL },
};

const struct workload bench_scenario = {
	"scenario", "a user's FILE.scn, statement by statement",
	no_params, 0, NULL, false,
};

/* A scenario's process names, each with its current process number */
struct names {
	char (*name)[SCN_NAME_MAX];
	unsigned int *nr;
	bool *alive;
	size_t count;
};

static long name_find(const struct names *ns, const char *name)
{
	size_t i;

	for (i = ns->count; i-- > 0;)
		if (ns->alive[i] && !strcmp(ns->name[i], name))
			return (long)i;
	return -1;
}

static int name_add(struct names *ns, const char *name, unsigned int nr)
{
	size_t n = ns->count + 1;
	char (*nn)[SCN_NAME_MAX] = model_realloc(ns->name, n * sizeof(*nn));
	unsigned int *nnr;
	bool *na;

	if (!nn)
		return -ENOMEM;
	ns->name = nn;
	nnr = model_realloc(ns->nr, n * sizeof(*nnr));
	if (!nnr)
		return -ENOMEM;
	ns->nr = nnr;
	na = model_realloc(ns->alive, n * sizeof(*na));
	if (!na)
		return -ENOMEM;
	ns->alive = na;
	snprintf(ns->name[ns->count], SCN_NAME_MAX, "%s", name);
	ns->nr[ns->count] = nr;
	ns->alive[ns->count] = true;
	ns->count = n;
	return 0;
}

static void names_free(struct names *ns)
{
	model_free(ns->name);
	model_free(ns->nr);
	model_free(ns->alive);
}

/* The bench's programs have no op yet for the recordings' additions */
static void bench_unsupported(struct bench_prog *p, const struct stmt *st)
{
	fprintf(stderr, "%s:%d: cowctx bench cannot replay %s%s yet\n",
		p->path, st->line, stmt_kind_name(st->kind),
		st->kind == STMT_MMAP ? " with shared, fixed, stack or any" : "");
	p->err = -EOPNOTSUPP;
}

static void add_stmt(struct bench_prog *p, struct names *ns,
		     const struct stmt *st)
{
	long who = st->kind == STMT_PROC || st->kind == STMT_CHECK ? -1 :
		   name_find(ns, st->proc);
	unsigned int proc = who >= 0 ? ns->nr[who] : 0;
	struct bench_op *op = NULL;

	/* validated on the baseline first: a name not found is a bug */
	if (who < 0 && st->kind != STMT_PROC && st->kind != STMT_CHECK) {
		p->err = -EINVAL;
		return;
	}
	switch (st->kind) {
	case STMT_PROC:
		if (name_add(ns, st->proc, prog_proc(p)))
			p->err = -ENOMEM;
		break;
	case STMT_FORK:
		if (name_add(ns, st->child, prog_fork(p, proc)))
			p->err = -ENOMEM;
		break;
	case STMT_EXIT:
		prog_exit(p, proc);
		ns->alive[who] = false;
		break;
	case STMT_CHECK:
		prog_simple(p, OP_WALK);
		break;
	case STMT_MMAP:
		if (st->map_flags) {
			bench_unsupported(p, st);
			break;
		}
		prog_mmap(p, proc, st->addr, st->len, 1, 0, st->prot);
		if (!p->err && st->is_file) {
			unsigned int f = prog_file(p, st->file);

			op = &p->ops[p->nr - 1];
			op->file = true;
			op->file_nr = f;
			op->offset = st->offset;
		}
		break;
	case STMT_MUNMAP:
		prog_munmap(p, proc, st->addr, st->len);
		break;
	case STMT_MPROTECT:
		prog_mprotect(p, proc, st->addr, st->len, st->prot);
		break;
	case STMT_MREMAP:
		prog_mremap(p, proc, st->addr, st->len, st->new_len,
			    st->mremap_flags, st->new_addr);
		break;
	case STMT_MADVISE:
		op = prog_add(p, OP_MADVISE, proc);
		if (op) {
			op->addr = st->addr;
			op->len = st->len;
			op->flags = (unsigned long)st->advice;
		}
		break;
	case STMT_TOUCH:
		prog_touch(p, proc, st->addr, st->len, 1, 0, st->write, 100,
			   0);
		break;
	case STMT_EXEC:
	case STMT_BRK:
	case STMT_MSEAL:
		bench_unsupported(p, st);
		break;
	case STMT_RECORDED:
		break;	/* the kernel's counts: nothing to replay */
	}
	if (!p->err && p->nr)
		p->ops[p->nr - 1].line = st->line;
}

static int scenario_prog(const struct workload_inst *inst,
			 struct bench_prog *p)
{
	struct scenario sc;
	struct names ns = { 0 };
	size_t i;
	int k;

	if (scenario_parse_file(inst->path, &sc))
		return -EINVAL;
	p->path = inst->path;
	p->forbids_zero_page = sc.zero_page == SCN_ZERO_PAGE_OFF;
	for (k = 0; k < sc.nr && !p->err; k++) {
		add_stmt(p, &ns, &sc.stmts[k]);
		if (k != inst->snap_after)
			continue;
		prog_simple(p, OP_SNAPSHOT);
		prog_simple(p, OP_WALK);
	}
	if (inst->snap_after < 0 || inst->snap_after >= sc.nr) {
		prog_simple(p, OP_SNAPSHOT);
		prog_simple(p, OP_WALK);
	}
	for (i = ns.count; i-- > 0;)
		if (ns.alive[i])
			prog_exit(p, ns.nr[i]);
	names_free(&ns);
	scenario_free(&sc);
	return p->err;
}

int workload_build(const struct workload_inst *inst, struct bench_prog *p)
{
	if (inst->path)
		return scenario_prog(inst, p);
	return inst->w->build(p, inst->v);
}

/*
 * exec, brk, mseal and the mapping flags of recordings have no op in the
 * bench's programs; such a file is replayed statement by statement by
 * the real programs table instead (bench/real_programs.c).
 */
static bool is_recording(const struct scenario *sc)
{
	int k;

	for (k = 0; k < sc->nr; k++)
		if (sc->stmts[k].kind == STMT_EXEC ||
		    sc->stmts[k].kind == STMT_BRK ||
		    sc->stmts[k].kind == STMT_MSEAL ||
		    (sc->stmts[k].kind == STMT_MMAP && sc->stmts[k].map_flags))
			return true;
	return false;
}

/*
 * Run @sc on @m statement by statement, as `cowctx run` would (no
 * checks: the backends are compared when measured), noting its busiest
 * statement in @b. 0, or nonzero with FILE:LINE: what is wrong on
 * stderr.
 */
static int run_noting(const struct scenario *sc, struct model *m,
		      struct busiest *b)
{
	struct exec_state es = { 0 };
	struct scenario one = *sc;
	int k, ret = 0;

	one.nr = 1;
	busiest_init(b);
	for (k = 0; k < sc->nr && !ret; k++) {
		one.stmts = &sc->stmts[k];
		ret = scenario_exec(&es, &one, m, stderr);
		if (!ret)
			busiest_note(b, m, k);
	}
	exec_state_release(&es);
	return ret;
}

int scenario_inst(const char *path, const struct rmap_ops *baseline,
		  struct workload_inst *inst)
{
	struct busiest b;
	struct scenario sc;
	struct model *m;
	bool recording;
	int ret;

	/* it says FILE:LINE, or that the file cannot be read */
	if (scenario_parse_file(path, &sc))
		return -EINVAL;
	m = model_create(baseline);
	if (!m) {
		scenario_free(&sc);
		fprintf(stderr, "%s: out of memory\n", path);
		return -ENOMEM;
	}
	ret = run_noting(&sc, m, &b);
	model_destroy(m);
	recording = is_recording(&sc);
	if (ret || recording) {
		scenario_free(&sc);
		return ret ? -EINVAL : 1;
	}
	memset(inst, 0, sizeof(*inst));
	inst->w = &bench_scenario;
	inst->path = path;
	inst->snap_after = b.after;
	inst->snap_line = b.after >= 0 ? sc.stmts[b.after].line : 0;
	inst->snap_backend = baseline->name;
	snprintf(inst->label, sizeof(inst->label), "%s", path);
	scenario_free(&sc);
	return 0;
}

void scenario_snapshot_note(FILE *f, const struct workload_inst *inst)
{
	if (!inst->path)
		return;
	if (inst->snap_after < 0) {
		fprintf(f, "%s: no statement ran; measured empty\n",
			inst->path);
		return;
	}
	fprintf(f, "%s: measured after line %d, its busiest point (the most rmap bytes, objects and per-VMA fields, live on %s)\n",
		inst->path, inst->snap_line, inst->snap_backend);
}
