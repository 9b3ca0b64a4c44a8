// SPDX-License-Identifier: GPL-2.0
/*
 * The trace stream made into scenario statements (docs/scenario.md and
 * the recording additions: exec, brk, shared/fixed/stack, recorded).
 *
 * A scenario process is an address space, not a task: threads (clone
 * with CLONE_VM) and vfork children act as their mm's owner, which is
 * named p<PID> after the task that made it (fork, or the exec that left
 * a shared mm). Only what succeeded is written: a failed system call
 * changed nothing, and a fault the kernel refused (SIGSEGV, EFAULT) is
 * no touch.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "kernel/record.h"

#define PAGE		4096UL
#define PAGE_ALIGN(x)	(((x) + PAGE - 1) & ~(PAGE - 1))
#define TASK_BUCKETS	1024

/* x86-64 values, from the uapi headers, spelt out for old libcs */
#define R_CLONE_VM		0x00000100UL
#define R_MAP_SHARED		0x01UL
#define R_MAP_SHARED_VALIDATE	0x03UL
#define R_MAP_TYPE		0x0fUL
#define R_MAP_FIXED		0x10UL
#define R_MAP_ANONYMOUS		0x20UL
#define R_MAP_GROWSDOWN		0x0100UL
#define R_MAP_LOCKED		0x2000UL
#define R_MAP_POPULATE		0x8000UL
#define R_MAP_STACK		0x20000UL
#define R_MAP_NONBLOCK		0x10000UL
#define R_MAP_HUGETLB		0x40000UL
#define R_MREMAP_FIXED		2UL
#define R_MREMAP_DONTUNMAP	4UL
#define R_PROT_GROWS		0x03000000UL
/* page fault error code (arch/x86/include/asm/trap_pf.h) */
#define PF_PROT			0x1UL
#define PF_WRITE		0x2UL

struct rmm {
	char name[32];
	int users;
	int active;		/* its tasks with rtask->active set */
	/*
	 * Two of its tasks acted on it at once (two CPUs): the order of
	 * their statements is the trace's, which need not be the order
	 * the kernel took (a touch before or after a split, an anon_vma
	 * reused or not), so its counts may not be the model's
	 */
	bool unordered;
	unsigned long brk;	/* page aligned, as the model keeps it */
	struct rec_shm_set shm;	/* SysV segments attached, for shmdt() */
};

struct rfile {
	enum rec_file_kind kind;
	char *path;
	unsigned long size;	/* RFILE_SHM: the segment's */
};

struct rtask {
	struct rtask *next;
	pid_t tid;
	bool known;		/* in the tree: the root, or made by newtask */
	bool in_exec;		/* faults of exec's own work are its layout */
	bool reaped;
	bool exited;		/* its exit read, its reap not yet seen */
	uint64_t reap_mark;
	bool in_call;		/* between a system call's enter and exit */
	/*
	 * A fault traced and its objects perhaps not all in: the trace
	 * has only a fault's entry, so it is open until the task's next
	 * event (anon_vma_prepare() allocates the chain, then the
	 * anon_vma)
	 */
	bool fault_open;
	/*
	 * Acting on its mm: a fault open, or in a call that changes the
	 * layout (not a thread's or vfork's clone, not exec)
	 */
	bool active;
	long pend_av, pend_avc;	/* its objects, for the statement to come */
	struct rmm *mm;		/* NULL: the root before its first exec */
	enum rec_sys sys;	/* the system call it is in */
	unsigned long args[6];
	struct rfile file;	/* an mmap's file, from its seccomp stop */
	/*
	 * Files of mmaps to come: ptrace serves the stops at once, while
	 * the trace may lag by many calls (ld.so, locale files)
	 */
	struct rfile *fq;
	int fq_head, fq_nr, fq_cap;
};

struct rlayout {
	struct rlayout *next;
	pid_t pid;
	struct rec_layout l;
};

/*
 * An exit whose frees must be in before the counts are written: the
 * exit written, or a thread that left an mm others still used. A task's
 * exit is traced before its mmput() (do_exit()), so the task that frees
 * an mm need not be the one whose exit is written: a joined thread may
 * still be on its way out when the process it left exits. Such a
 * thread's entry has @mm set while that mm lives, and holds no line
 * back: its frees can come only after the mm's last exit, whose
 * teardown it then joins (@mm cleared).
 */
struct teardown {
	pid_t tid;
	bool reaped, resolved;
	uint64_t reap_mark;
	struct rmm *mm;
};

struct rec_writer {
	FILE *out;
	struct rtask *tasks[TASK_BUCKETS];
	struct rlayout *layouts;
	struct rec_names *names;
	struct rec_ptrset av, avc;	/* the kernel's live objects */
	long live_av, live_avc;		/* those of the statements written */
	/* a run of faults of one mm, of one kind, on ascending pages */
	struct {
		struct rmm *mm;
		unsigned long start, end;
		bool write;
	} touch;
	struct teardown *tds;
	int nr_tds, cap_tds;
	bool recorded_due;
	uint64_t recorded_after, done_seq;
	bool give_up;
	/*
	 * An event was handled in part and waits for ptrace (its task's
	 * counts already moved, its statement not written): no line until
	 * it is done
	 */
	bool held;
	bool stack_nohugepage;	/* MAP_STACK sets VM_NOHUGEPAGE here */
	long recorded_at;	/* statements written when it was last written */
	/*
	 * The busiest moment: live objects (anon_vma and chains) reached
	 * a new high, more than a sixteenth above the last such point
	 * written, and no lower since; written before they first fall
	 * (peak_rise(), peak_fall()), so a program that frees everything
	 * before it ends still has a point with state in it.
	 */
	long peak_written;
	bool peak_pending;
	long checked_at;	/* statements written at the last check */
	int faults_open;	/* tasks with fault_open set */
	int nr_unordered;	/* live mms with ->unordered: no counts */
	int error;
	struct rec_stats st;
};

static struct rtask **task_slot(struct rec_writer *w, pid_t tid)
{
	struct rtask **p = &w->tasks[(unsigned int)tid % TASK_BUCKETS];

	while (*p && (*p)->tid != tid)
		p = &(*p)->next;
	return p;
}

static struct rtask *task_find(struct rec_writer *w, pid_t tid)
{
	return *task_slot(w, tid);
}

static struct rtask *task_get(struct rec_writer *w, pid_t tid)
{
	struct rtask **p = task_slot(w, tid);

	if (*p)
		return *p;
	*p = calloc(1, sizeof(**p));
	if (*p)
		(*p)->tid = tid;
	else
		w->error = -ENOMEM;
	return *p;
}

static void task_free(struct rtask *t)
{
	int i;

	free(t->file.path);
	for (i = 0; i < t->fq_nr; i++)
		free(t->fq[t->fq_head + i].path);
	free(t->fq);
	free(t);
}

static void task_remove(struct rec_writer *w, pid_t tid)
{
	struct rtask **p = task_slot(w, tid), *t = *p;

	if (!t)
		return;
	if (t->fault_open)
		w->faults_open--;
	if (t->active && t->mm)
		t->mm->active--;
	*p = t->next;
	task_free(t);
}

/*
 * calc_vm_flag_bits() turns MAP_STACK into VM_NOHUGEPAGE since Linux
 * 6.7, when transparent huge pages are configured (their sysfs
 * directory exists even when they are off).
 */
static bool map_stack_is_nohugepage(void)
{
	struct utsname u;
	int major, minor;

	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return false;
	if (major < 6 || (major == 6 && minor < 7))
		return false;
	return !access("/sys/kernel/mm/transparent_hugepage", F_OK);
}

struct rec_writer *rec_writer_create(FILE *out, pid_t root)
{
	struct rec_writer *w = calloc(1, sizeof(*w));
	struct rtask *t;

	if (!w)
		return NULL;
	w->out = out;
	w->stack_nohugepage = map_stack_is_nohugepage();
	w->names = rec_names_create();
	t = w->names ? task_get(w, root) : NULL;
	if (!t) {
		rec_writer_destroy(w);
		return NULL;
	}
	t->known = true;
	return w;
}

void rec_writer_destroy(struct rec_writer *w)
{
	int i;

	if (!w)
		return;
	for (i = 0; i < TASK_BUCKETS; i++) {
		struct rtask *t = w->tasks[i], *next;

		for (; t; t = next) {
			next = t->next;
			if (t->mm && !--t->mm->users)
				free(t->mm);
			task_free(t);
		}
	}
	while (w->layouts) {
		struct rlayout *l = w->layouts;

		w->layouts = l->next;
		rec_layout_free(&l->l);
		free(l);
	}
	rec_names_destroy(w->names);
	rec_ptrset_free(&w->av);
	rec_ptrset_free(&w->avc);
	free(w->tds);
	free(w);
}

static void put(struct rec_writer *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (vfprintf(w->out, fmt, ap) < 0 && !w->error)
		w->error = -EIO;
	va_end(ap);
}

/* Lengths in the largest unit that is exact: compact files */
static const char *len_str(unsigned long len, char *buf, size_t size)
{
	if (len && !(len % (1UL << 30)))
		snprintf(buf, size, "%luG", len >> 30);
	else if (len && !(len % (1UL << 20)))
		snprintf(buf, size, "%luM", len >> 20);
	else
		snprintf(buf, size, "%luK", len >> 10);
	return buf;
}

static const char *prot_str(unsigned long prot)
{
	static const char *const s[8] = {
		"none", "r", "w", "rw", "x", "rx", "wx", "rwx"
	};

	return s[prot & 7];
}

static void flush_touch(struct rec_writer *w)
{
	char len[32];

	if (!w->touch.mm)
		return;
	put(w, "%s touch 0x%lx %s %s\n", w->touch.mm->name, w->touch.start,
	    len_str(w->touch.end - w->touch.start, len, sizeof(len)),
	    w->touch.write ? "write" : "read");
	w->st.statements++;
	w->touch.mm = NULL;
}

/* A line after any touch still held back; @count is what it adds to */
static void vline(struct rec_writer *w, long *count,
		  const char *fmt, va_list ap)
{
	flush_touch(w);
	if (vfprintf(w->out, fmt, ap) < 0 && !w->error)
		w->error = -EIO;
	(*count)++;
}

/* One statement of @mm (or none: a statement of its own) */
static void stmt(struct rec_writer *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline(w, &w->st.statements, fmt, ap);
	va_end(ap);
}

static void comment(struct rec_writer *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline(w, &w->st.comments, fmt, ap);
	va_end(ap);
}

static void touch(struct rec_writer *w, struct rmm *mm, unsigned long start,
		  unsigned long end, bool write)
{
	if (w->touch.mm == mm && w->touch.write == write &&
	    start >= w->touch.start && start <= w->touch.end) {
		/*
		 * Touching a page again, with nothing between, changes
		 * nothing: a retried fault, or the next page of a run.
		 */
		if (end > w->touch.end)
			w->touch.end = end;
		return;
	}
	flush_touch(w);
	w->touch.mm = mm;
	w->touch.start = start;
	w->touch.end = end;
	w->touch.write = write;
}

/* Names must be unique among live processes; pids are, nearly always */
static struct rmm *mm_new(struct rec_writer *w, pid_t pid)
{
	struct rmm *mm = calloc(1, sizeof(*mm));

	if (!mm) {
		w->error = -ENOMEM;
		return NULL;
	}
	snprintf(mm->name, sizeof(mm->name), "p%d", (int)pid);
	mm->users = 1;
	return mm;
}

/* Mark @mm unordered or not, keeping w->nr_unordered its count */
static void mm_set_unordered(struct rec_writer *w, struct rmm *mm,
			     bool unordered)
{
	if (mm->unordered == unordered)
		return;
	mm->unordered = unordered;
	if (unordered)
		w->nr_unordered++;
	else
		w->nr_unordered--;
}

static void mm_put(struct rec_writer *w, struct rmm *mm)
{
	if (mm && !--mm->users) {
		mm_set_unordered(w, mm, false);
		rec_shm_free(&mm->shm);
		free(mm);
	}
}

int rec_writer_file(struct rec_writer *w, pid_t tid, enum rec_file_kind kind,
		    const char *path, unsigned long size)
{
	struct rtask *t = task_get(w, tid);
	struct rfile *f;

	if (!t)
		return -ENOMEM;
	if (!t->fq_nr)
		t->fq_head = 0;
	if (t->fq_head + t->fq_nr == t->fq_cap) {
		int ncap = t->fq_cap ? t->fq_cap * 2 : 8;
		struct rfile *n = realloc(t->fq, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		t->fq = n;
		t->fq_cap = ncap;
	}
	f = &t->fq[t->fq_head + t->fq_nr];
	f->kind = kind;
	f->size = size;
	f->path = strdup(path);
	if (!f->path)
		return -ENOMEM;
	t->fq_nr++;
	return 0;
}

int rec_writer_layout(struct rec_writer *w, pid_t pid, struct rec_layout *l)
{
	struct rlayout *rl = calloc(1, sizeof(*rl)), **p;

	if (!rl)
		return -ENOMEM;
	rl->pid = pid;
	rl->l = *l;
	/* in order: a task may exec again before its first exec is written */
	for (p = &w->layouts; *p; p = &(*p)->next)
		;
	*p = rl;
	return 0;
}

void rec_writer_reaped(struct rec_writer *w, pid_t tid, uint64_t mark)
{
	/*
	 * The stream may lag: a task can be reaped before its newtask is
	 * read, and its exit's teardown must still find it reaped. A task
	 * whose exit was read is kept until here, so that a task not found
	 * is one still to come, never one gone (whose tid may be reused).
	 */
	struct rtask *t = task_get(w, tid);
	int i;

	if (t) {
		t->reaped = true;
		t->reap_mark = mark;
	}
	for (i = 0; i < w->nr_tds; i++) {
		if (w->tds[i].tid == tid && !w->tds[i].reaped) {
			w->tds[i].reaped = true;
			w->tds[i].reap_mark = mark;
		}
	}
	if (t && t->exited)
		task_remove(w, tid);
}

void rec_writer_give_up(struct rec_writer *w)
{
	w->give_up = true;
}

static struct rlayout *take_layout(struct rec_writer *w, pid_t pid)
{
	struct rlayout **p;

	for (p = &w->layouts; *p; p = &(*p)->next) {
		if ((*p)->pid == pid) {
			struct rlayout *l = *p;

			*p = l->next;
			return l;
		}
	}
	return NULL;
}

static void write_layout(struct rec_writer *w, struct rmm *mm,
			 const struct rec_layout *l)
{
	char len[32];
	int i, j;

	for (i = 0; i < l->nr; i++) {
		const struct rec_vma *v = &l->vmas[i];
		const char *name = NULL;
		char bare[sizeof(v->path)];

		if (!v->anon || v->special) {
			/*
			 * [vdso], [vvar]: the kernel's own pages, no anon
			 * rmap; written as shared files so that the layout
			 * keeps them (they are neighbours no VMA merges with)
			 */
			snprintf(bare, sizeof(bare), "%.*s",
				 v->special ? (int)strcspn(v->path + 1, "]") :
				 (int)strlen(v->path), v->path + v->special);
			name = rec_names_get(w->names, bare);
			if (!name) {
				w->error = -ENOMEM;
				return;
			}
		}
		if (name)
			stmt(w, "%s mmap 0x%lx %s %s file=%s:%lu%s\n",
			     mm->name, v->start,
			     len_str(v->end - v->start, len, sizeof(len)),
			     prot_str(v->prot), name,
			     v->special ? 0 : v->offset,
			     v->shared || v->special ? " shared" : "");
		else
			stmt(w, "%s mmap 0x%lx %s %s%s%s\n", mm->name, v->start,
			     len_str(v->end - v->start, len, sizeof(len)),
			     prot_str(v->prot), v->shared ? " shared" : "",
			     v->stack ? " stack" : "");
	}
	/* then the pages the kernel filled in for it */
	for (i = 0; i < l->nr; i++)
		for (j = 0; j < l->vmas[i].nr_runs; j++) {
			const struct rec_run *r = &l->vmas[i].runs[j];

			touch(w, mm, r->start, r->end, r->write);
			flush_touch(w);
		}
}

/* Wait for @t's last event before the next counts are written */
static int add_teardown(struct rec_writer *w, const struct rtask *t,
			struct rmm *left)
{
	struct teardown *td;

	if (w->nr_tds == w->cap_tds) {
		int ncap = w->cap_tds ? w->cap_tds * 2 : 8;
		struct teardown *n = realloc(w->tds, ncap * sizeof(*n));

		if (!n) {
			w->error = -ENOMEM;
			return -1;
		}
		w->tds = n;
		w->cap_tds = ncap;
	}
	td = &w->tds[w->nr_tds++];
	td->tid = t->tid;
	td->reaped = t->reaped;
	td->reap_mark = t->reap_mark;
	td->resolved = false;
	td->mm = left;
	return 0;
}

/*
 * The teardowns of @mm's threads that left it: with @last, they join the
 * teardown of @mm's last exit; without, @mm goes with none of theirs
 * (exec's own call frees it), so they are waited for no longer.
 */
static void leavers_end(struct rec_writer *w, struct rmm *mm, bool last)
{
	int i;

	for (i = 0; i < w->nr_tds; i++) {
		if (w->tds[i].mm != mm)
			continue;
		w->tds[i].mm = NULL;
		if (!last)
			w->tds[i].resolved = true;
	}
}

/* Whether an exit's teardown is still to come in: a line must wait */
static bool teardown_pending(const struct rec_writer *w)
{
	int i;

	for (i = 0; i < w->nr_tds; i++)
		if (!w->tds[i].resolved && !w->tds[i].mm)
			return true;
	return false;
}

/*
 * Resolved entries go: their last events are in recorded_after already.
 * After a give-up, so do the unresolved exits' (not the leavers').
 */
static void teardowns_compact(struct rec_writer *w, bool give_up)
{
	int i, n = 0;

	for (i = 0; i < w->nr_tds; i++) {
		if (w->tds[i].resolved || (give_up && !w->tds[i].mm))
			continue;
		w->tds[n++] = w->tds[i];
	}
	w->nr_tds = n;
}

static int on_task_exec(struct rec_writer *w, const struct rec_event *ev)
{
	struct rtask *t = task_find(w, ev->other);
	struct rlayout *rl;
	struct rmm *mm;

	if (!t || !t->known)
		return 0;
	rl = take_layout(w, ev->pid);
	if (!rl && !t->reaped && !w->give_up)
		return 1;
	w->give_up = false;
	if (ev->other != ev->pid) {
		/* a thread's exec: it takes the leader's pid (de_thread) */
		struct rtask **p;

		/* the old leader first: it may share @t's bucket */
		task_remove(w, ev->pid);
		p = task_slot(w, ev->other);
		*p = t->next;
		t->tid = ev->pid;
		p = task_slot(w, ev->pid);
		t->next = NULL;
		*p = t;
	}
	t->in_exec = false;
	if (t->mm && t->mm->users == 1) {
		/* its own mm: replaced, and the process keeps its name */
		mm = t->mm;
		/*
		 * The threads that left it (the old leader among them, never
		 * reaped: its tid is taken) did not free it: exec did, in
		 * its own call
		 */
		leavers_end(w, mm, false);
		/* what was out of order went with the old mm */
		mm_set_unordered(w, mm, false);
		stmt(w, "%s exec brk=0x%lx\n", mm->name,
		     rl ? rl->l.start_brk : 0);
	} else {
		/* the root, or a vfork child leaving its parent's mm */
		mm_put(w, t->mm);
		mm = t->mm = mm_new(w, ev->pid);
		if (!mm)
			return -1;
		stmt(w, "proc %s\n", mm->name);
		stmt(w, "%s exec brk=0x%lx\n", mm->name,
		     rl ? rl->l.start_brk : 0);
	}
	mm->brk = rl ? rl->l.start_brk : 0;
	if (rl) {
		write_layout(w, mm, &rl->l);
		rec_layout_free(&rl->l);
		free(rl);
	} else {
		comment(w, "# %s: the layout exec built could not be read (the task died at its exec)\n",
			mm->name);
	}
	return 0;
}

static int on_newtask(struct rec_writer *w, const struct rec_event *ev)
{
	struct rtask *parent = task_find(w, ev->pid), *child;

	if (!parent || !parent->known || !parent->mm)
		return 0;
	child = task_get(w, ev->other);
	if (!child)
		return -1;
	child->known = true;
	if (ev->args[0] & R_CLONE_VM) {
		/* a thread, or a vfork child: it acts as the mm's owner */
		child->mm = parent->mm;
		child->mm->users++;
		return 0;
	}
	child->mm = mm_new(w, ev->other);
	if (!child->mm)
		return -1;
	child->mm->brk = parent->mm->brk;
	/* a copy of a layout the model may not have */
	mm_set_unordered(w, child->mm, parent->mm->unordered);
	/* fork attaches the parent's segments in the child too */
	if (rec_shm_copy(&child->mm->shm, &parent->mm->shm)) {
		w->error = -ENOMEM;
		return -1;
	}
	stmt(w, "%s fork %s\n", parent->mm->name, child->mm->name);
	return 0;
}

static void write_recorded(struct rec_writer *w)
{
	stmt(w, "recorded anon_vma=%ld anon_vma_chain=%ld\n", w->live_av,
	     w->live_avc);
	w->recorded_at = w->st.statements;
}

/*
 * Whether the counts now are those of the statements written: no
 * event held half done, no fault open (its anon_vma may be still to
 * come), no mm whose order is the trace's guess
 */
static bool counts_settled(const struct rec_writer *w)
{
	return !w->held && !w->faults_open && !w->nr_unordered;
}

/* After the live counts rose: is this a high worth a point? */
static void peak_rise(struct rec_writer *w)
{
	long total = w->live_av + w->live_avc;

	if (total > w->peak_written + (w->peak_written / 16 > 0 ?
				       w->peak_written / 16 : 0))
		w->peak_pending = true;
}

/*
 * Before the live counts fall: the high they leave gets its point,
 * where the statements written are exactly what made the counts (no
 * exit's teardown pending: its frees may be only partly in; no fault
 * open: its touch is written, its anon_vma perhaps not yet in). The
 * touch being gathered is written first, since its faults' objects
 * are already counted. A point not written now waits for a later fall.
 */
static void peak_fall(struct rec_writer *w)
{
	/*
	 * Before the first statement the objects are the command's copy
	 * of the recorder's, which its exec frees: no point of the tree's
	 */
	if (!w->st.statements)
		w->peak_pending = false;
	if (!w->peak_pending || w->recorded_due || !counts_settled(w))
		return;
	flush_touch(w);
	write_recorded(w);
	w->peak_written = w->live_av + w->live_avc;
	w->peak_pending = false;
}

static int on_task_exit(struct rec_writer *w, const struct rec_event *ev)
{
	struct rtask *t = task_find(w, ev->pid);

	if (!t)
		return 0;
	/* a thread leaving: its mmput() may be the one that frees the mm */
	if (t->known && t->mm && t->mm->users > 1 &&
	    add_teardown(w, t, t->mm))
		return -1;
	if (t->known && t->mm && t->mm->users == 1) {
		/*
		 * One recorded line per exit: the previous exit's line
		 * comes first, once its teardown is all in.
		 */
		if (teardown_pending(w) && !w->give_up)
			return 1;
		/*
		 * The earlier teardown may end after this exit in the
		 * stream (two CPUs), or the counts not be settled: then
		 * its line cannot come first, and the one line after this
		 * exit waits for both teardowns, so its point stays where
		 * the earlier one ends.
		 */
		if (w->recorded_due && w->done_seq >= w->recorded_after &&
		    counts_settled(w)) {
			write_recorded(w);
			w->recorded_after = 0;
		}
		teardowns_compact(w, w->give_up);
		w->recorded_due = false;
		w->give_up = false;
		/* the high this exit's teardown will leave */
		peak_fall(w);
		/*
		 * A check at the end alone would find every process gone:
		 * the replay compares walks with the oracle before exits,
		 * the first and then at doubling distances, so that a
		 * long recording pays for a few checks only.
		 */
		if (!w->checked_at || w->st.statements >= 2 * w->checked_at) {
			stmt(w, "check\n");
			w->checked_at = w->st.statements;
		}
		stmt(w, "%s exit\n", t->mm->name);
		if (add_teardown(w, t, NULL))
			return -1;
		leavers_end(w, t->mm, true);
		w->recorded_due = true;
	}
	if (t->mm)
		mm_put(w, t->mm);
	t->mm = NULL;
	if (t->reaped)
		task_remove(w, ev->pid);
	else
		t->exited = true;
	return 0;
}

static void on_fault(struct rec_writer *w, const struct rec_event *ev)
{
	struct rtask *t = task_find(w, ev->pid);
	unsigned long addr = ev->args[0] & ~(PAGE - 1);
	unsigned long code = ev->args[1];

	if (!t || !t->known || !t->mm || t->in_exec)
		return;
	w->st.faults++;
	/*
	 * A read fault on a present page is an access error on x86 (an
	 * instruction fetch from a no-exec page): SIGSEGV, no touch.
	 */
	if ((code & PF_PROT) && !(code & PF_WRITE)) {
		w->st.skipped_faults++;
		return;
	}
	touch(w, t->mm, addr, addr + PAGE, code & PF_WRITE);
	t->fault_open = true;
	w->faults_open++;
}

static int on_sys_enter(struct rec_writer *w, const struct rec_event *ev)
{
	struct rtask *t = task_find(w, ev->pid);

	if (!t || !t->known)
		return 0;
	if (ev->sys == RSYS_EXECVE || ev->sys == RSYS_EXECVEAT)
		t->in_exec = true;
	if ((ev->sys == RSYS_MMAP && !(ev->args[3] & R_MAP_ANONYMOUS)) ||
	    ev->sys == RSYS_SHMAT) {
		if (!t->fq_nr && !w->give_up)
			return 1;
		free(t->file.path);
		t->file.path = NULL;
		t->file.kind = RFILE_BAD;
		if (t->fq_nr) {
			t->file = t->fq[t->fq_head++];
			t->fq_nr--;
		}
		w->give_up = false;
	}
	t->sys = ev->sys;
	memcpy(t->args, ev->args, sizeof(t->args));
	return 0;
}

static const char *advice_name(unsigned long advice)
{
	static const char *const names[] = {
		[0] = "normal", [1] = "random", [2] = "sequential",
		[3] = "willneed", [4] = "dontneed", [8] = "free",
		[9] = "remove", [10] = "dontfork", [11] = "dofork",
		[12] = "mergeable", [13] = "unmergeable", [14] = "hugepage",
		[15] = "nohugepage", [16] = "dontdump", [17] = "dodump",
		[18] = "wipeonfork", [19] = "keeponfork", [20] = "cold",
		[21] = "pageout", [22] = "populate_read",
		[23] = "populate_write", [24] = "dontneed_locked",
		[25] = "collapse",
	};

	if (advice < sizeof(names) / sizeof(names[0]) && names[advice])
		return names[advice];
	if (advice == 102)
		return "guard_install";
	if (advice == 103)
		return "guard_remove";
	return "unknown";
}

static void write_madvise(struct rec_writer *w, struct rmm *mm,
			  const unsigned long *a)
{
	unsigned long start = a[0], len = PAGE_ALIGN(a[1]);
	const char *name = advice_name(a[2]);
	char l[32];

	len_str(len, l, sizeof(l));
	switch (a[2]) {
	case 4:		/* MADV_DONTNEED */
	case 24:	/* MADV_DONTNEED_LOCKED: nothing here is locked */
		stmt(w, "%s madvise 0x%lx %s dontneed\n", mm->name, start, l);
		return;
	case 10: case 11: case 18: case 19:
	case 0: case 1: case 2:		/* normal, random, sequential */
	case 12: case 13:		/* mergeable, unmergeable */
	case 14: case 15:		/* hugepage, nohugepage */
	case 8:		/* free: the folios stay mapped until reclaim */
		stmt(w, "%s madvise 0x%lx %s %s\n", mm->name, start, l, name);
		return;
	case 22:	/* MADV_POPULATE_READ/WRITE: faults without events */
	case 23:
		touch(w, mm, start, start + len, a[2] == 23);
		flush_touch(w);
		return;
	case 3:		/* MADV_WILLNEED: read-ahead, nothing mapped */
		return;
	}
	/*
	 * The rest change VMA flags the language has no word for
	 * (dontdump, dodump: a split, a merge refused), or
	 * drop pages only under reclaim (cold, pageout): said, not
	 * replayed.
	 */
	comment(w, "# %s madvise 0x%lx %s %s: not in the language\n",
		mm->name, start, l, name);
}

static void write_mmap(struct rec_writer *w, struct rtask *t,
		       unsigned long addr)
{
	const unsigned long *a = t->args;
	unsigned long len = PAGE_ALIGN(a[1]), prot = a[2] & 7, flags = a[3];
	unsigned long type = flags & R_MAP_TYPE;
	bool shared = type == R_MAP_SHARED || type == R_MAP_SHARED_VALIDATE;
	bool anon = (flags & R_MAP_ANONYMOUS) || t->file.kind == RFILE_ZERO;
	char mapping[128] = "", l[32];

	if (!anon) {
		const char *name = rec_names_get(w->names, t->file.path ?
						 t->file.path : "unknown");

		if (!name) {
			w->error = -ENOMEM;
			return;
		}
		snprintf(mapping, sizeof(mapping), " file=%s:%lu", name, a[5]);
		if (t->file.kind == RFILE_DEVICE && !shared) {
			comment(w, "# %s: a private mapping of device %s, written as shared\n",
				t->mm->name, t->file.path);
			shared = true;
		}
	}
	if (flags & R_MAP_HUGETLB) {
		comment(w, "# %s: hugetlb mapping, written as shared (no anon rmap of the model's kind)\n",
			t->mm->name);
		shared = true;
	}
	stmt(w, "%s mmap 0x%lx %s %s%s%s%s%s%s\n", t->mm->name, addr,
	     len_str(len, l, sizeof(l)), prot_str(prot), mapping,
	     shared ? " shared" : "", flags & R_MAP_FIXED ? " fixed" : "",
	     anon && (flags & R_MAP_GROWSDOWN) ? " stack" : "",
	     w->stack_nohugepage && (flags & R_MAP_STACK) ?
	     " nohugepage" : "");
	/*
	 * MAP_POPULATE (and MAP_LOCKED) fault the range in without fault
	 * events; a private writable mapping is populated by writes, which
	 * break COW (populate_vma_page_range()).
	 */
	if ((flags & (R_MAP_POPULATE | R_MAP_LOCKED)) &&
	    !(flags & R_MAP_NONBLOCK) && prot) {
		touch(w, t->mm, addr, addr + len,
		      !shared && (prot & PROT_WRITE));
		flush_touch(w);
	}
}

static void write_mremap(struct rec_writer *w, struct rtask *t, long ret)
{
	const unsigned long *a = t->args;
	unsigned long old_len = PAGE_ALIGN(a[1]), new_len = PAGE_ALIGN(a[2]);
	char lo[32], ln[32];

	len_str(old_len, lo, sizeof(lo));
	len_str(new_len, ln, sizeof(ln));
	if (!old_len) {
		comment(w, "# %s mremap 0x%lx 0 %s to 0x%lx: a copy of a shared mapping, not in the language\n",
			t->mm->name, a[0], ln, (unsigned long)ret);
		return;
	}
	if ((unsigned long)ret == a[0] &&
	    !(a[3] & (R_MREMAP_FIXED | R_MREMAP_DONTUNMAP)))
		stmt(w, "%s mremap 0x%lx %s %s\n", t->mm->name, a[0], lo, ln);
	else
		stmt(w, "%s mremap 0x%lx %s %s to 0x%lx%s\n", t->mm->name,
		     a[0], lo, ln, (unsigned long)ret,
		     a[3] & R_MREMAP_DONTUNMAP ? " dontunmap" : "");
}

/*
 * shmat(): the segment as a shared mapping of a file named after it
 * (one per segment, shared by every process that attaches it), its
 * size from the seccomp stop. The model's file is wholly cached where
 * shmem caches only what was touched; neither has an anonymous page.
 */
static void write_shmat(struct rec_writer *w, struct rtask *t,
			unsigned long addr)
{
	const unsigned long *a = t->args;
	unsigned long len = PAGE_ALIGN(t->file.size);
	const char *name;
	char l[32];
	/* SHM_RDONLY, SHM_REMAP, SHM_EXEC */
	int prot = (a[2] & 010000 ? PROT_READ : PROT_READ | PROT_WRITE) |
		   (a[2] & 0100000 ? PROT_EXEC : 0);

	if (t->file.kind != RFILE_SHM || !len) {
		comment(w, "# %s shmat at 0x%lx: the segment's size was not read: not in the language\n",
			t->mm->name, addr);
		return;
	}
	name = rec_names_get(w->names, t->file.path);
	if (!name || rec_shm_attach(&t->mm->shm, addr, len)) {
		w->error = -ENOMEM;
		return;
	}
	stmt(w, "%s mmap 0x%lx %s %s file=%s:0 shared%s\n", t->mm->name, addr,
	     len_str(len, l, sizeof(l)), prot_str(prot), name,
	     a[2] & 040000 ? " fixed" : "");
}

/* shmdt(): the munmap of what shmat() mapped there */
static void write_shmdt(struct rec_writer *w, struct rtask *t)
{
	unsigned long addr = t->args[0],
		      len = rec_shm_detach(&t->mm->shm, addr);
	char l[32];

	if (!len) {
		comment(w, "# %s shmdt 0x%lx: no segment recorded there: not in the language\n",
			t->mm->name, addr);
		return;
	}
	stmt(w, "%s munmap 0x%lx %s\n", t->mm->name, addr,
	     len_str(len, l, sizeof(l)));
}

/* userfaultfd's ioctls that place pages or change VMA flags */
static const char *uffd_ioctl_name(unsigned long cmd)
{
	static const char *const names[] = {
		[0x00] = "UFFDIO_REGISTER", [0x01] = "UFFDIO_UNREGISTER",
		[0x03] = "UFFDIO_COPY", [0x04] = "UFFDIO_ZEROPAGE",
		[0x05] = "UFFDIO_MOVE", [0x07] = "UFFDIO_CONTINUE",
		[0x08] = "UFFDIO_POISON",
	};
	unsigned long nr = cmd & 0xff;

	/* _IOC_TYPE 0xAA is userfaultfd's */
	if (((cmd >> 8) & 0xff) != 0xaa || nr >= sizeof(names) / sizeof(names[0]))
		return NULL;
	return names[nr];
}

/*
 * The system calls that change a process's mappings or pages in ways
 * the language has no word for: each is named at its place in the
 * recording (a comment ending "not in the language", which `cowctx run`
 * warns of), so that a replay that differs says where.
 */
static void write_unreplayed(struct rec_writer *w, struct rtask *t,
			     enum rec_sys sys, long ret)
{
	const unsigned long *a = t->args;
	const char *who = t->mm->name, *what;
	char l[32];

	switch (sys) {
	case RSYS_PROCESS_MADVISE:
		comment(w, "# %s process_madvise pidfd %lu advice %s (%ld bytes): not in the language\n",
			who, a[0], advice_name(a[3]), ret);
		break;
	case RSYS_PROCESS_VM_WRITEV:
		comment(w, "# %s process_vm_writev to pid %lu (%ld bytes, faults without fault events): not in the language\n",
			who, a[0], ret);
		break;
	case RSYS_REMAP_FILE_PAGES:
		comment(w, "# %s remap_file_pages 0x%lx %s pgoff %lu: not in the language\n",
			who, a[0], len_str(PAGE_ALIGN(a[1]), l, sizeof(l)),
			a[3]);
		break;
	case RSYS_MBIND:
		comment(w, "# %s mbind 0x%lx %s mode %lu (a memory policy splits VMAs): not in the language\n",
			who, a[0], len_str(PAGE_ALIGN(a[1]), l, sizeof(l)),
			a[2]);
		break;
	case RSYS_MAP_SHADOW_STACK:
		comment(w, "# %s map_shadow_stack 0x%lx %s: not in the language\n",
			who, (unsigned long)ret,
			len_str(PAGE_ALIGN(a[1]), l, sizeof(l)));
		break;
	case RSYS_MUNLOCK:
		comment(w, "# %s munlock 0x%lx %s: not in the language\n", who,
			a[0], len_str(PAGE_ALIGN(a[1]), l, sizeof(l)));
		break;
	case RSYS_MUNLOCKALL:
		comment(w, "# %s munlockall: not in the language\n", who);
		break;
	case RSYS_PRCTL:
		/* PR_SET_VMA, PR_SET_VMA_ANON_NAME: a name splits VMAs */
		if (a[0] == 0x53564d41 && a[1] == 0)
			comment(w, "# %s prctl PR_SET_VMA_ANON_NAME 0x%lx %s: not in the language\n",
				who, a[2],
				len_str(PAGE_ALIGN(a[3]), l, sizeof(l)));
		break;
	case RSYS_IOCTL:
		what = uffd_ioctl_name(a[1]);
		if (what)
			comment(w, "# %s userfaultfd %s: not in the language\n",
				who, what);
		break;
	default:
		break;
	}
}

static void on_sys_exit(struct rec_writer *w, const struct rec_event *ev)
{
	struct rtask *t = task_find(w, ev->pid);
	const unsigned long *a;
	enum rec_sys sys;
	char l[32];

	if (!t || !t->known || t->sys != ev->sys)
		return;
	sys = t->sys;
	t->sys = RSYS_NONE;
	a = t->args;
	if (ev->ret < 0 && ev->ret >= -4095) {
		/* refused: nothing changed */
		if (sys == RSYS_EXECVE || sys == RSYS_EXECVEAT)
			t->in_exec = false;
		return;
	}
	if (!t->mm)
		return;
	switch (sys) {
	case RSYS_MMAP:
		write_mmap(w, t, (unsigned long)ev->ret);
		break;
	case RSYS_MUNMAP:
		stmt(w, "%s munmap 0x%lx %s\n", t->mm->name, a[0],
		     len_str(PAGE_ALIGN(a[1]), l, sizeof(l)));
		break;
	case RSYS_MPROTECT:
	case RSYS_PKEY_MPROTECT:
		if (a[2] & R_PROT_GROWS)
			comment(w, "# %s mprotect 0x%lx with PROT_GROWSDOWN/UP: not in the language\n",
				t->mm->name, a[0]);
		else
			stmt(w, "%s mprotect 0x%lx %s %s\n", t->mm->name, a[0],
			     len_str(PAGE_ALIGN(a[1]), l, sizeof(l)),
			     prot_str(a[2]));
		break;
	case RSYS_MREMAP:
		write_mremap(w, t, ev->ret);
		break;
	case RSYS_MADVISE:
		write_madvise(w, t->mm, a);
		break;
	case RSYS_BRK: {
		/* brk returns the break, moved or not */
		unsigned long brk = PAGE_ALIGN((unsigned long)ev->ret);

		if (brk != t->mm->brk) {
			stmt(w, "%s brk 0x%lx\n", t->mm->name, brk);
			t->mm->brk = brk;
		}
		break;
	}
	case RSYS_MLOCK:
	case RSYS_MLOCK2:
		comment(w, "# %s mlock 0x%lx %s: pages it populated without faults are not recorded, VM_LOCKED: not in the language\n",
			t->mm->name, a[0], len_str(PAGE_ALIGN(a[1]), l, sizeof(l)));
		break;
	case RSYS_MLOCKALL:
		comment(w, "# %s mlockall 0x%lx: pages it populates without faults are not recorded, VM_LOCKED: not in the language\n",
			t->mm->name, a[0]);
		break;
	case RSYS_MSEAL:
		stmt(w, "%s mseal 0x%lx %s\n", t->mm->name, a[0],
		     len_str(PAGE_ALIGN(a[1]), l, sizeof(l)));
		break;
	case RSYS_SHMAT:
		write_shmat(w, t, (unsigned long)ev->ret);
		break;
	case RSYS_SHMDT:
		write_shmdt(w, t);
		break;
	default:
		write_unreplayed(w, t, sys, ev->ret);
		break;
	}
	free(t->file.path);
	t->file.path = NULL;
}

/*
 * Which statement an object belongs to. The recorded counts must be
 * those of the statements written before them, while the stream
 * interleaves CPUs: another task may be in the middle of a system call
 * whose objects are in the trace and whose statement is not yet
 * written. A task's objects made between a system call's enter and its
 * exit (mmap, mprotect's split, fork's copies, exec's new mm) wait for
 * its next event, where that statement is written; those made after a
 * fault or an exit belong to the touch or exit already written.
 */
static void account(struct rec_writer *w, const struct rec_event *ev,
		    long delta)
{
	struct rtask *t = task_find(w, ev->pid);

	if (t && t->in_call) {
		*(ev->is_av ? &t->pend_av : &t->pend_avc) += delta;
		return;
	}
	if (delta < 0)
		peak_fall(w);
	*(ev->is_av ? &w->live_av : &w->live_avc) += delta;
	if (delta > 0)
		peak_rise(w);
}

/*
 * Calls that may change the caller's own layout or pages: not a thread's
 * or vfork's clone, not exec, not a call on another process's memory,
 * and of ioctl() and prctl() only those write_unreplayed() names (a
 * thread asleep in another ioctl() acts on nothing)
 */
static bool changes_layout(const struct rec_event *ev)
{
	switch (ev->sys) {
	case RSYS_CLONE:
		return !(ev->args[0] & R_CLONE_VM);
	case RSYS_CLONE3:	/* its flags are behind a pointer */
	case RSYS_VFORK:
	case RSYS_EXECVE:
	case RSYS_EXECVEAT:
	case RSYS_PROCESS_MADVISE:
	case RSYS_PROCESS_VM_WRITEV:
		return false;
	case RSYS_IOCTL:
		return uffd_ioctl_name(ev->args[1]) != NULL;
	case RSYS_PRCTL:
		return ev->args[0] == 0x53564d41;	/* PR_SET_VMA */
	default:
		return true;
	}
}

/*
 * @t starts acting on its mm (a fault, a call that changes the layout):
 * if another of the mm's tasks is acting on it too, the two run at once
 * and the stream's order of their statements is a guess. From then on
 * the mm's counts are not the model's to check: no count is written
 * while it lives, nor while a process forked from it lives.
 */
static void act(struct rec_writer *w, struct rtask *t)
{
	struct rmm *mm = t->mm;

	if (!mm || t->active)
		return;
	if (mm->active && !mm->unordered) {
		mm_set_unordered(w, mm, true);
		comment(w, "# %s: two of its tasks acted on it at once: the order here is the trace's, and no count is written while it lives\n",
			mm->name);
	}
	t->active = true;
	mm->active++;
}

static void settle(struct rec_writer *w, pid_t tid, bool in_call)
{
	struct rtask *t = task_find(w, tid);

	if (!t)
		return;
	/* its next event: the fault before it is done */
	if (t->fault_open) {
		t->fault_open = false;
		w->faults_open--;
	}
	/* and so is the call it was in */
	if (t->active) {
		t->active = false;
		t->mm->active--;
	}
	if (t->pend_av + t->pend_avc < 0)
		peak_fall(w);
	w->live_av += t->pend_av;
	w->live_avc += t->pend_avc;
	if (t->pend_av + t->pend_avc > 0)
		peak_rise(w);
	t->pend_av = t->pend_avc = 0;
	t->in_call = in_call;
}

int rec_writer_event(struct rec_writer *w, const struct rec_event *ev)
{
	struct rec_ptrset *set = ev->is_av ? &w->av : &w->avc;
	size_t before = set->nr;
	int ret = 0;

	if (ev->type == REV_EXEC)
		settle(w, ev->other, false);
	else if (ev->type != REV_ALLOC && ev->type != REV_FREE)
		settle(w, ev->pid, ev->type == REV_SYS_ENTER);
	switch (ev->type) {
	case REV_NEWTASK:
		ret = on_newtask(w, ev);
		break;
	case REV_EXEC:
		ret = on_task_exec(w, ev);
		break;
	case REV_EXIT:
		ret = on_task_exit(w, ev);
		break;
	case REV_ALLOC:
		if (rec_ptrset_add(set, ev->ptr))
			ret = -1;
		else
			account(w, ev, (long)(set->nr - before));
		break;
	case REV_FREE:
		/* an object the tree did not allocate counts for nothing */
		if (rec_ptrset_del(set, ev->ptr))
			account(w, ev, -1);
		break;
	case REV_FAULT:
		on_fault(w, ev);
		break;
	case REV_SYS_ENTER:
		ret = on_sys_enter(w, ev);
		break;
	case REV_SYS_EXIT:
		on_sys_exit(w, ev);
		break;
	}
	w->held = ret == 1;
	if (ret == 1)
		return 1;
	if (ev->type == REV_FAULT || (ev->type == REV_SYS_ENTER &&
				      changes_layout(ev))) {
		struct rtask *t = task_find(w, ev->pid);

		/* a fault that made no touch acts on nothing */
		if (t && t->known && (ev->type != REV_FAULT || t->fault_open))
			act(w, t);
	}
	if (ret || w->error)
		return -1;
	w->st.events++;
	w->done_seq = ev->seq;
	return 0;
}

pid_t rec_writer_teardown_ready(const struct rec_writer *w,
				uint64_t drain_done)
{
	int i;

	for (i = 0; i < w->nr_tds; i++)
		if (!w->tds[i].resolved && w->tds[i].reaped &&
		    drain_done > w->tds[i].reap_mark)
			return w->tds[i].tid;
	return 0;
}

void rec_writer_teardown_end(struct rec_writer *w, pid_t tid,
			     uint64_t last_seq)
{
	int i;

	for (i = 0; i < w->nr_tds; i++) {
		if (w->tds[i].tid == tid && !w->tds[i].resolved) {
			w->tds[i].resolved = true;
			if (last_seq > w->recorded_after)
				w->recorded_after = last_seq;
		}
	}
}


/*
 * The counts after an exit include its teardown, whose frees follow
 * the exit event: the line waits for the last event of the exiting task
 * and of the threads that left its mm, and for every other exit pending
 * at the time (their statements are already written, so their frees
 * must be in the count too). It never comes while an event is held half
 * done: an exec waiting for its layout has its teardown counted already.
 */
int rec_writer_after(struct rec_writer *w)
{
	teardowns_compact(w, false);
	if (!w->recorded_due || !counts_settled(w) ||
	    w->done_seq < w->recorded_after || teardown_pending(w))
		return 0;
	write_recorded(w);
	w->recorded_due = false;
	w->recorded_after = 0;
	return w->error ? -1 : 0;
}

int rec_writer_finish(struct rec_writer *w, const char *status)
{
	int i;

	/* tasks still in a call when the recording ended */
	for (i = 0; i < TASK_BUCKETS; i++) {
		struct rtask *t;

		for (t = w->tasks[i]; t; t = t->next)
			settle(w, t->tid, false);
	}
	flush_touch(w);
	/* the counts at the end, unless the last exit's line gave them */
	if (w->nr_unordered)
		comment(w, "# no count at the end: %d address spaces acted on at once still live\n",
			w->nr_unordered);
	else if (w->recorded_at != w->st.statements)
		write_recorded(w);
	stmt(w, "check\n");
	comment(w, "# %s\n", status);
	if (fflush(w->out) && !w->error)
		w->error = -EIO;
	return w->error ? -1 : 0;
}

void rec_writer_stats(const struct rec_writer *w, struct rec_stats *st)
{
	*st = w->st;
	st->av_live = (long)w->av.nr;
	st->avc_live = (long)w->avc.nr;
}
