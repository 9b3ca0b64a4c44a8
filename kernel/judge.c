// SPDX-License-Identifier: GPL-2.0
/*
 * The judged run; see judge.h.
 *
 * anon_vma objects are counted from tracefs events of the scenario's
 * processes, but those processes are copies of the runner and bring
 * its VMAs (binary, heap, stack), whose anon_vmas are cloned at every
 * fork and unlinked at every exit. A calibration tree, forked from the
 * runner right next to the real one and running only the scenario's
 * proc/fork/exit statements, makes exactly those objects; the real
 * tree's count less the calibration's at the same statement is what
 * the scenario's own memory made.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>

#include <cowctx/mm.h>
#include "kernel/files.h"
#include "kernel/judge.h"
#include "kernel/kernel.h"
#include "kernel/limits.h"
#include "kernel/runner.h"
#include "kernel/snapshot.h"
#include "kernel/tracefs.h"
#include "kernel/zero_page.h"
#include <cowctx/rmap.h>
#include "scenario/exec.h"

/* on_check's "stop here": the real side refused or failed */
#define JUDGE_STOP	1000
/* scenario memory this close to the runner's own might merge with it */
#define OWN_MARGIN	(1UL << 20)

struct judge {
	const struct scenario *sc;
	const struct kjudge_opts *o;
	struct kjudge_result *res;
	struct kfiles files;
	struct kpage_files kp;
	struct ktrace trace;
	struct krunner cal;
	struct krunner real;
	bool cal_up;
	bool real_up;
	bool trace_up;
	struct ktrace_counts counts[2];		/* [0] calibration, [1] real */
	struct ktrace_counts *cal_at;		/* at each check, and the end */
	int nr_points;
	int next;		/* the next statement the real side runs */
	int point;
	int kernel_err;		/* the real side refused statement ... */
	int kernel_err_stmt;	/* ... this one */
	unsigned long fault;
	int fault_sig;		/* SIGSEGV or SIGBUS, at fault */
	bool failed;		/* the run itself failed: res->why */
	struct model *m;
	long nofile;		/* RLIMIT_NOFILE, raised; -1 unknown */
};

static volatile sig_atomic_t caught_signal;

static void on_signal(int sig)
{
	krunner_interrupted = 1;
	caught_signal = sig;
}

static const int handled_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define NR_HANDLED	(sizeof(handled_signals) / sizeof(handled_signals[0]))

struct saved_state {
	struct sigaction sa[NR_HANDLED];
	int subreaper;
	long nofile;
};

static void install(struct saved_state *s, struct judge *j)
{
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: a blocked poll() must return and see the flag */
	for (i = 0; i < NR_HANDLED; i++)
		sigaction(handled_signals[i], &sa, &s->sa[i]);
	s->subreaper = 0;
	prctl(PR_GET_CHILD_SUBREAPER, &s->subreaper, 0, 0, 0);
	/* orphaned agents come back to us, to be waited for and reaped */
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	/* the agents inherit it, and hold every scenario file open */
	j->nofile = klimit_raise_nofile(&s->nofile);
}

static void restore(struct saved_state *s)
{
	size_t i;

	prctl(PR_SET_CHILD_SUBREAPER, s->subreaper, 0, 0, 0);
	klimit_restore_nofile(s->nofile);
	for (i = 0; i < NR_HANDLED; i++)
		sigaction(handled_signals[i], &s->sa[i], NULL);
}

__attribute__((format(printf, 2, 3)))
static void why(struct judge *j, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(j->res->why, sizeof(j->res->why), fmt, ap);
	va_end(ap);
	j->res->line = 0;
}

/* A reason about statement @st: the command tells it as FILE:LINE: */
__attribute__((format(printf, 3, 4)))
static void stmt_why(struct judge *j, const struct stmt *st,
		     const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(j->res->why, sizeof(j->res->why), fmt, ap);
	va_end(ap);
	j->res->line = st->line;
}

/* The first statement mapping file @name */
static const struct stmt *first_use(struct judge *j, const char *name)
{
	int i;

	for (i = 0; i < j->sc->nr; i++)
		if (j->sc->stmts[i].kind == STMT_MMAP &&
		    j->sc->stmts[i].is_file &&
		    !strcmp(j->sc->stmts[i].file, name))
			return &j->sc->stmts[i];
	return NULL;
}

static int preflight(struct judge *j)
{
	int err;

	if (KERNEL_UNDER_TSAN) {
		why(j, "a ThreadSanitizer build: its thread in every agent would be counted too");
		return KERNEL_EXIT_SKIP;
	}
	if (geteuid() != 0) {
		why(j, "not root: pagemap PFNs, kpageflags and tracefs need root");
		return KERNEL_EXIT_SKIP;
	}
	err = kpage_open(&j->kp);
	if (err) {
		why(j, "/proc/kpageflags or /proc/kpagecount: %s",
		    strerror(-err));
		return KERNEL_EXIT_SKIP;
	}
	/*
	 * The kernel's behaviour is an input, never an assumption; the
	 * probe's page also shows whether pagemap hides PFNs here
	 */
	j->res->zero_page = kzero_page_probe(j->res->why,
					     sizeof(j->res->why));
	if (j->res->zero_page == SCN_ZERO_PAGE_UNSTATED)
		return KERNEL_EXIT_SKIP;
	if (j->sc->zero_page != SCN_ZERO_PAGE_UNSTATED &&
	    j->sc->zero_page != j->res->zero_page) {
		why(j, "%s:%d: the file states zero_page=%s, and this kernel is zero_page=%s: it cannot be judged here",
		    j->sc->path, j->sc->zero_page_line,
		    scenario_zero_page_name(j->sc->zero_page),
		    scenario_zero_page_name(j->res->zero_page));
		return KERNEL_EXIT_SKIP;
	}
	if (j->o->idle_walks &&
	    kidle_open(&j->res->idle, j->o->report, j->res->cmp.max_report,
		       j->res->why, sizeof(j->res->why)))
		return KERNEL_EXIT_SKIP;
	if (j->o->no_trace)
		return 0;
	if (ktrace_open(&j->trace, j->res->why, sizeof(j->res->why)))
		return KERNEL_EXIT_SKIP;
	j->trace_up = true;
	return 0;
}

/*
 * The runner's own VMA within OWN_MARGIN of [lo, hi), or NULL. The
 * kernel's half (the vsyscall page) is left out: a scenario reaching
 * there is refused by the kernel and the model alike.
 */
static const struct krange *own_overlap(const struct krunner *r,
					unsigned long lo, unsigned long hi)
{
	int i;

	for (i = 0; i < r->nr_own; i++) {
		const struct krange *o = &r->own[i];

		if ((long)o->start < 0)
			continue;
		if (lo < o->end + OWN_MARGIN &&
		    hi + OWN_MARGIN > o->start)
			return o;
	}
	return NULL;
}

/*
 * Every range a statement maps or may grow into must be clear of the
 * runner's own memory, which every real process is a copy of: bad
 * input, told at its line. A range that wraps is the kernel's and the
 * model's to refuse.
 */
static int check_ranges(struct judge *j)
{
	int i;

	for (i = 0; i < j->sc->nr; i++) {
		const struct stmt *st = &j->sc->stmts[i];
		unsigned long lo[2], hi[2];
		int k, n = 0;

		if (st->kind == STMT_MMAP) {
			lo[n] = st->addr;
			hi[n++] = st->addr + st->len;
		} else if (st->kind == STMT_MREMAP) {
			lo[n] = st->addr;
			hi[n++] = st->addr + (st->new_len > st->len ?
					      st->new_len : st->len);
			if (st->mremap_flags & MREMAP_FIXED) {
				lo[n] = st->new_addr;
				hi[n++] = st->new_addr + st->new_len;
			}
		}
		for (k = 0; k < n; k++) {
			const struct krange *o;

			if (hi[k] <= lo[k])
				continue;
			o = own_overlap(&j->real, lo[k], hi[k]);
			if (!o)
				continue;
			stmt_why(j, st, "%#lx-%#lx comes within 1 MiB of the runner's own memory at %#lx-%#lx, which every real process is a copy of; %s",
				 lo[k], hi[k], o->start, o->end,
				 KERNEL_UNDER_ASAN ?
				 "this AddressSanitizer build's shadow memory takes 0x7fff8000-0x10007fff8000: run a plain build, or map from 0x200000000000 up" :
				 "map from 0x100000000000 up, as the corpus does");
			return 2;
		}
	}
	return 0;
}

/*
 * Refused at its line: a scenario needing more descriptors than
 * RLIMIT_NOFILE gives, now that it is raised (kernel/limits.h). Before
 * anything runs, as the parser's errors are.
 */
static int check_limits(struct judge *j)
{
	char buf[sizeof(j->res->why)];
	long base = klimit_fds_in_use();
	int i;

	if (j->nofile < 0 || base < 0)
		return 0;	/* unknown: a failing run still says why */
	i = klimit_check(j->sc, base, j->nofile, buf, sizeof(buf));
	if (i == -2) {
		why(j, "out of memory");
		return 2;
	}
	if (i >= 0) {
		stmt_why(j, &j->sc->stmts[i], "%s", buf);
		return 2;
	}
	return 0;
}

static int drain(struct judge *j)
{
	struct krunner *const trees[2] = { &j->cal, &j->real };

	if (!j->trace_up)
		return 0;
	if (ktrace_drain(&j->trace, trees, j->counts, 2, j->res->why,
			 sizeof(j->res->why))) {
		j->failed = true;
		return -1;
	}
	return 0;
}

static int runner_failed(struct judge *j, struct krunner *r,
			 const char *side, const struct stmt *st)
{
	stmt_why(j, st, "%s run: %s", side, r->why);
	j->failed = true;
	return -1;
}

/*
 * The model never refuses a process: a fork the kernel refuses met a
 * limit of this machine (pid_max, threads-max, a cgroup's pids.max,
 * memory), not a rule of the scenario.
 */
static int fork_refused(struct judge *j, const char *side,
			const struct stmt *st, int err)
{
	stmt_why(j, st, "%s run: the kernel refused the %s of %s: %s (a process limit of this machine: pid_max, threads-max, pids.max, memory)",
		 side, st->kind == STMT_FORK ? "fork" : "creation",
		 st->kind == STMT_FORK ? st->child : st->proc, strerror(err));
	j->failed = true;
	return -1;
}

static int calibrate(struct judge *j)
{
	int i, k = 0;

	for (i = 0; i < j->sc->nr; i++) {
		const struct stmt *st = &j->sc->stmts[i];
		int ret;

		if (st->kind == STMT_CHECK) {
			j->cal_at[k++] = j->counts[0];
			continue;
		}
		if (st->kind != STMT_PROC && st->kind != STMT_FORK &&
		    st->kind != STMT_EXIT)
			continue;
		ret = krunner_exec(&j->cal, st, NULL);
		if (ret > 0)
			return fork_refused(j, "calibration", st, ret);
		if (ret < 0)
			return runner_failed(j, &j->cal, "calibration", st);
		if (drain(j)) {
			j->res->line = st->line;
			return -1;
		}
	}
	j->cal_at[k] = j->counts[0];
	/*
	 * Its teardown's events still come to counts[0], now unused, but
	 * hundreds of processes killed at once can overrun the trace
	 * buffer, and a lost event fails every later drain: they exit one
	 * at a time, newest first, drained in between.
	 */
	while (j->cal.nr_procs) {
		struct stmt st = { .kind = STMT_EXIT };

		memcpy(st.proc, j->cal.procs[j->cal.nr_procs - 1].name,
		       sizeof(st.proc));
		if (krunner_exec(&j->cal, &st, NULL)) {
			why(j, "calibration run: teardown: %s", j->cal.why);
			j->failed = true;
			return -1;
		}
		if (drain(j))
			return -1;
	}
	krunner_stop(&j->cal);
	return drain(j);
}

/*
 * Run the real side up to statement @end (excluded). 0; 1 when the
 * kernel refused one (j->kernel_err); -1 when the run failed.
 */
static int run_real_until(struct judge *j, int end)
{
	while (j->next < end) {
		const struct stmt *st = &j->sc->stmts[j->next];
		unsigned long fault = 0;
		int ret = krunner_exec(&j->real, st, &fault);

		if (ret < 0)
			return runner_failed(j, &j->real, "real", st);
		if (drain(j)) {
			j->res->line = st->line;
			return -1;
		}
		if (ret > 0 && (st->kind == STMT_PROC || st->kind == STMT_FORK))
			return fork_refused(j, "real", st, ret);
		if (ret > 0) {
			j->kernel_err = ret;
			j->kernel_err_stmt = j->next;
			j->fault = fault;
			j->fault_sig = j->real.fault_sig;
			j->next++;
			return 1;
		}
		j->next++;
	}
	return 0;
}

static int on_check(struct exec_state *es, const struct stmt *st, void *arg)
{
	struct judge *j = arg;
	struct kjudge_result *res = j->res;
	int end = st ? (int)(st - j->sc->stmts) : j->sc->nr;
	const struct ktrace_counts *cal;
	char where[SCN_NAME_MAX + 4096];
	struct ksnap ks;

	if (j->point >= j->nr_points) {
		why(j, "more checks than the scenario has");
		j->failed = true;
		return JUDGE_STOP;
	}
	cal = &j->cal_at[j->point];
	if (run_real_until(j, end))
		return JUDGE_STOP;
	if (st)
		j->next = end + 1;
	if (st)
		snprintf(where, sizeof(where), "%s:%d", j->sc->path, st->line);
	else
		snprintf(where, sizeof(where), "%s:end", j->sc->path);
	if (ksnap_take(&j->real, &j->kp, &ks, res->why, sizeof(res->why))) {
		res->line = st ? st->line : 0;
		j->failed = true;
		return JUDGE_STOP;
	}
	if (j->o->verbose && j->o->report) {
		fprintf(j->o->report, "%s: the kernel has:\n", where);
		ksnap_print(&ks, j->o->report);
	}
	if (kcompare_memory(&res->cmp, &ks, es, where)) {
		ksnap_free(&ks);
		why(j, "out of memory");
		j->failed = true;
		return JUDGE_STOP;
	}
	/* after the comparison, which the idle flags must not sway */
	if (j->o->idle_walks &&
	    kidle_walk_check(&res->idle, &j->real, &j->kp, &ks, where,
			     res->why, sizeof(res->why))) {
		ksnap_free(&ks);
		res->line = st ? st->line : 0;
		j->failed = true;
		return JUDGE_STOP;
	}
	ksnap_free(&ks);
	if (j->trace_up)
		kcompare_anon_vma(&res->cmp, j->m,
				  ktrace_live_av(&j->counts[1]) -
				  ktrace_live_av(cal),
				  ktrace_live_avc(&j->counts[1]) -
				  ktrace_live_avc(cal), where);
	j->point++;
	return 0;
}

static const char *kernel_error_name(struct judge *j)
{
	const struct stmt *st = &j->sc->stmts[j->kernel_err_stmt];

	if (st->kind == STMT_TOUCH && j->kernel_err == EFAULT)
		return j->fault_sig == SIGBUS ? "SIGBUS" : "SIGSEGV";
	return errno_name(j->kernel_err);
}

static void tell_kernel_refusal(struct judge *j, const char *tail)
{
	const struct stmt *st = &j->sc->stmts[j->kernel_err_stmt];
	FILE *out = j->o->report ? j->o->report : stderr;

	if (st->kind == STMT_TOUCH && j->kernel_err == EFAULT)
		fprintf(out, "%s:%d: %s touch %s of %#lx: kernel: %s%s\n",
			j->sc->path, st->line, st->proc,
			st->write ? "write" : "read", j->fault,
			kernel_error_name(j), tail);
	else
		fprintf(out, "%s:%d: %s %s: kernel: %s (%s)%s\n", j->sc->path,
			st->line, st->proc, stmt_kind_name(st->kind),
			strerror(j->kernel_err), errno_name(j->kernel_err),
			tail);
}

/* The line of the model's "FILE:LINE: message", or -1 */
static int model_error_stmt(struct judge *j, const char *msg)
{
	size_t n = strlen(j->sc->path);
	long line;
	int i;

	if (!msg || strncmp(msg, j->sc->path, n) || msg[n] != ':')
		return -1;
	line = strtol(msg + n + 1, NULL, 10);
	for (i = 0; i < j->sc->nr; i++)
		if (j->sc->stmts[i].line == line)
			return i;
	return -1;
}

/*
 * The error the model's message ends with: "(EEXIST)", "(SIGSEGV)".
 * Copied into @buf, "" when there is none.
 */
static void model_error_name(const char *msg, char *buf, size_t len)
{
	size_t eol = strcspn(msg, "\n"), n;
	const char *open = NULL, *p;

	buf[0] = '\0';
	for (p = msg; p < msg + eol; p++)
		if (*p == '(')
			open = p;
	if (!open)
		return;
	n = strcspn(open + 1, ")\n");
	if (n >= len)
		n = len - 1;
	memcpy(buf, open + 1, n);
	buf[n] = '\0';
}

/*
 * The model refused a statement: the kernel must refuse the same one,
 * with the same error. 2 when it does (bad input, agreed) and all
 * before agreed too, else 1.
 */
static int settle_model_refusal(struct judge *j, const char *msg)
{
	FILE *out = j->o->report ? j->o->report : stderr;
	int e = model_error_stmt(j, msg), ret;
	char name[32];

	fputs(msg ? msg : "model: error\n", stderr);
	if (e < 0)
		return 2;
	ret = run_real_until(j, e + 1);
	if (ret < 0)
		return 2;
	if (ret > 0 && j->kernel_err_stmt == e) {
		model_error_name(msg, name, sizeof(name));
		if (!strcmp(name, kernel_error_name(j))) {
			tell_kernel_refusal(j, " (refused by both)");
			return kcompare_total(&j->res->cmp) ? 1 : 2;
		}
		tell_kernel_refusal(j, ", where the model's error differs");
	} else if (ret > 0) {
		tell_kernel_refusal(j, ", where the model went on");
	} else {
		fprintf(out, "%s:%d: the model refused it, the kernel did not\n",
			j->sc->path, j->sc->stmts[e].line);
	}
	j->res->cmp.statement_mismatches++;
	return 1;
}

static const struct rmap_ops *pick_backend(struct judge *j)
{
	const struct rmap_ops *ops;

	if (j->o->rmap) {
		ops = rmap_backend_find(j->o->rmap);
		if (!ops)
			why(j, "unknown rmap backend '%s'", j->o->rmap);
		return ops;
	}
	ops = rmap_backend_find("anon_vma");
	return ops ? ops : rmap_backend_find("scan");
}

/*
 * The recordings' additions the real side cannot run yet: exec would
 * replace the agent itself, brk moves the agent's own heap, `mmap any`
 * lets the kernel pick an address among the runner's own mappings,
 * and `recorded` counts belong to another tree. Refused before anything
 * runs rather than run wrongly (docs/scenario.md).
 */
static int check_supported(struct judge *j)
{
	int i;

	for (i = 0; i < j->sc->nr; i++) {
		const struct stmt *st = &j->sc->stmts[i];
		const char *what = NULL;

		if (st->kind == STMT_EXEC || st->kind == STMT_BRK ||
		    st->kind == STMT_RECORDED)
			what = stmt_kind_name(st->kind);
		else if (st->kind == STMT_MMAP &&
			 (st->map_flags & MM_MAP_ANY))
			what = "mmap any";
		if (!what)
			continue;
		stmt_why(j, st, "cowctx kernel does not run '%s' on the real kernel (docs/scenario.md, the runner's limits); cowctx run replays it in the model",
			 what);
		return 2;
	}
	return 0;
}

/* The comparison proper; everything it starts is stopped by the caller */
static int judge(struct judge *j)
{
	struct exec_state es = { .on_check = on_check, .arg = j };
	struct scenario run;
	const struct rmap_ops *ops;
	long sysctl;
	const pid_t *pids;
	char *msg = NULL;
	size_t msglen = 0;
	FILE *err;
	int i, ret, nr_checks = 0;

	ret = check_supported(j);
	if (!ret)
		ret = preflight(j);
	if (!ret)
		ret = check_limits(j);
	if (ret)
		return ret;
	ops = pick_backend(j);
	if (!ops)
		return 2;
	j->res->rmap = ops->name;
	for (i = 0; i < j->sc->nr; i++)
		nr_checks += j->sc->stmts[i].kind == STMT_CHECK;
	j->cal_at = calloc(nr_checks + 1, sizeof(*j->cal_at));
	if (!j->cal_at) {
		why(j, "out of memory");
		return 2;
	}
	j->nr_points = nr_checks + 1;
	ret = kfiles_create(&j->files, j->sc, j->res->why, sizeof(j->res->why));
	if (ret == -2) {
		j->res->line = j->sc->stmts[j->files.stmt].line;
		return 2;
	}
	if (ret)
		return KERNEL_EXIT_SKIP;
	j->res->cmp.filedir = j->files.dir;
	/* back to back, so both trees start from the same runner */
	ret = krunner_start_many((struct krunner *const[]){ &j->cal, &j->real },
				 2, j->files.dir);
	j->cal_up = j->real_up = true;	/* initialised, even on failure */
	if (ret) {
		why(j, "%s", j->cal.why[0] ? j->cal.why : j->real.why);
		return 2;
	}
	ret = check_ranges(j);
	if (ret)
		return ret;
	if (krunner_open_files(&j->real, j->files.names, j->files.nr)) {
		const struct stmt *st = j->real.nr_files < j->files.nr ?
			first_use(j, j->files.names[j->real.nr_files]) : NULL;

		if (st)
			stmt_why(j, st, "%s", j->real.why);
		else
			why(j, "%s", j->real.why);
		return 2;
	}
	pids = (const pid_t[]){ j->cal.zygote.pid, j->real.zygote.pid };
	/* the calibration tree serves the object counts alone */
	if (j->trace_up) {
		if (ktrace_start(&j->trace, pids, 2, j->res->why,
				 sizeof(j->res->why)))
			return KERNEL_EXIT_SKIP;
		if (calibrate(j))
			return 2;
	}

	j->m = model_create(ops);
	if (!j->m) {
		why(j, "out of memory");
		return 2;
	}
	j->m->skip_cow_nth = j->o->skip_cow;
	/* the kernel counts the agents' own VMAs too: the model cannot */
	sysctl = klimit_max_map_count();
	j->m->max_map_count = (sysctl > 0 ? sysctl : DEFAULT_MAX_MAP_COUNT) -
			      krunner_own_vmas(&j->real);
	err = open_memstream(&msg, &msglen);
	if (!err) {
		why(j, "out of memory");
		return 2;
	}
	/* the model runs as the kernel does (or as a test says) */
	run = *j->sc;
	run.zero_page = j->o->model_zero_page ? j->o->model_zero_page :
			j->res->zero_page;
	j->res->model_zero_page = run.zero_page;
	ret = scenario_exec(&es, &run, j->m, err);
	fclose(err);
	if (ret == 2 && !j->failed)
		ret = settle_model_refusal(j, msg);
	else if (ret == JUDGE_STOP && !j->failed) {
		j->res->cmp.statement_mismatches++;
		tell_kernel_refusal(j, ", where the model went on");
		ret = 1;
	} else if (ret == JUDGE_STOP || j->failed) {
		ret = 2;
	} else if (ret || (msg && msg[0])) {
		fputs(msg ? msg : "", stderr);
		ret = ret ? 2 : 0;
	}
	free(msg);
	exec_state_release(&es);
	if (!ret && kcompare_total(&j->res->cmp))
		ret = 1;
	if (!ret && j->res->idle.confirmed < j->res->idle.forced)
		ret = 1;
	return ret;
}

int kjudge_run(const struct scenario *sc, const struct kjudge_opts *o,
	       struct kjudge_result *res)
{
	struct saved_state saved;
	struct judge j;
	int ret;

	memset(res, 0, sizeof(*res));
	memset(&j, 0, sizeof(j));
	j.sc = sc;
	j.o = o;
	j.res = res;
	j.kp.flags_fd = j.kp.count_fd = -1;
	res->idle.bitmap = -1;
	res->cmp.out = o->report;
	res->cmp.max_report = o->max_report > 0 ? o->max_report : 20;
	krunner_interrupted = 0;
	caught_signal = 0;
	install(&saved, &j);

	ret = judge(&j);
	res->cmp.filedir = NULL;

	if (j.real_up)
		krunner_release(&j.real);
	if (j.cal_up)
		krunner_release(&j.cal);
	if (j.trace_up) {
		if (o->verbose && o->report) {
			fprintf(o->report, "tracefs events by call site:\n");
			ktrace_print_sites(&j.trace, o->report);
		}
		ktrace_close(&j.trace);
	}
	kfiles_remove(&j.files);
	kpage_close(&j.kp);
	kidle_close(&res->idle);
	if (j.m)
		model_destroy(j.m);
	free(j.cal_at);
	restore(&saved);
	if (caught_signal) {
		res->signal = caught_signal;
		return KJUDGE_INTERRUPTED;
	}
	return ret;
}
