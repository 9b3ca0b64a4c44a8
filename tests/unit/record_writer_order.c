// SPDX-License-Identifier: GPL-2.0
/*
 * cowctx record's writer, fed a stream in an order two CPUs can give and
 * a program on its own seldom does: its recorded lines must be the
 * counts of the statements written before them.
 *
 * - A joined thread's exit is traced before its mmput(); pthread_join()
 *   returns in between, so the process may exit, and be traced, before
 *   the thread's mmput() frees the mm. The line after the exit waits for
 *   the thread's last event, not only the exiting task's.
 * - A fault is traced at its entry only, and anon_vma_prepare() allocates
 *   the chain before the anon_vma: while another task's fault may still
 *   have objects to come, the busiest point is not written.
 * - An exec's old mm is torn down before its exec event, whose statement
 *   waits for the layout ptrace reads: an exit's line placed meanwhile
 *   would count the teardown of an exec not yet written.
 * - Two threads acting on their mm at once (a fault, a call that changes
 *   the layout) leave the order of their statements to the trace: no
 *   count is written while that mm lives. A vfork child's faults, its
 *   parent asleep in vfork(), are no such race.
 * - A thread that left an mm holds no other process's line back: not a
 *   leader gone by pthread_exit() (reaped only with its last thread),
 *   nor one a thread's exec took the pid of (never reaped at all).
 *
 * The loop is record_run.c's, in small: a queue of drained events fed in
 * order, a task reaped, a drain after it, then the teardowns placed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "kernel/record.h"

#define ROOT		100
#define THREAD		101
#define CHILD		102
#define EXECER		(ROOT + 1024)	/* ROOT's bucket in the writer */
#define R_CLONE_VM	0x00000100UL
#define R_CLONE_THREAD	0x00010000UL
#define MAX_EVENTS	64

struct stream {
	struct rec_writer *w;
	struct rec_event q[MAX_EVENTS];
	int head, nr;
	uint64_t seq, drains;
	pid_t reaped[8];	/* ptrace reaps a task once */
	int nr_reaped;
	char *text;
	size_t len;
	FILE *out;
};

static void stream_init(struct stream *s)
{
	struct rec_layout none = { .start_brk = 0x600000 };

	memset(s, 0, sizeof(*s));
	s->out = open_memstream(&s->text, &s->len);
	s->w = s->out ? rec_writer_create(s->out, ROOT) : NULL;
	if (!s->w) {
		printf("Bail out! no memory for a writer\n");
		exit(1);
	}
	if (rec_writer_layout(s->w, ROOT, &none)) {
		printf("Bail out! no memory for a layout\n");
		exit(1);
	}
}

static struct rec_event *add(struct stream *s, enum rec_ev_type type,
			     pid_t pid)
{
	struct rec_event *ev;

	if (s->nr == MAX_EVENTS) {
		printf("Bail out! MAX_EVENTS too small\n");
		exit(1);
	}
	ev = &s->q[s->nr++];
	memset(ev, 0, sizeof(*ev));
	ev->type = type;
	ev->pid = pid;
	ev->seq = ++s->seq;
	ev->ts = ev->seq;
	return ev;
}

static void sys_enter(struct stream *s, pid_t pid, enum rec_sys nr,
		      unsigned long a0, unsigned long a1, unsigned long a2,
		      unsigned long a3)
{
	struct rec_event *ev = add(s, REV_SYS_ENTER, pid);

	ev->sys = nr;
	ev->args[0] = a0;
	ev->args[1] = a1;
	ev->args[2] = a2;
	ev->args[3] = a3;
}

static void sys_exit(struct stream *s, pid_t pid, enum rec_sys nr, long ret)
{
	struct rec_event *ev = add(s, REV_SYS_EXIT, pid);

	ev->sys = nr;
	ev->ret = ret;
}

/* A call with nothing of its own in the stream */
static void sys(struct stream *s, pid_t pid, enum rec_sys nr,
		unsigned long a0, unsigned long a1, unsigned long a2,
		unsigned long a3, long ret)
{
	sys_enter(s, pid, nr, a0, a1, a2, a3);
	sys_exit(s, pid, nr, ret);
}

static void obj(struct stream *s, enum rec_ev_type type, pid_t pid,
		bool is_av, uint64_t ptr)
{
	struct rec_event *ev = add(s, type, pid);

	ev->is_av = is_av;
	ev->ptr = ptr;
}

static void fault(struct stream *s, pid_t pid, unsigned long addr)
{
	struct rec_event *ev = add(s, REV_FAULT, pid);

	ev->args[0] = addr;
	ev->args[1] = 0x6;	/* a user-mode write to a page not present */
}

static uint64_t last_seq_of(struct stream *s, pid_t tid)
{
	int i;

	for (i = s->nr; i > s->head; i--)
		if (s->q[i - 1].pid == tid)
			return s->q[i - 1].seq;
	return 0;
}

/* Place what can be placed; feed the queue until the writer waits */
static void process(struct stream *s)
{
	pid_t tid;

	for (;;) {
		while ((tid = rec_writer_teardown_ready(s->w, s->drains))) {
			rec_writer_teardown_end(s->w, tid, last_seq_of(s, tid));
			rec_writer_after(s->w);
		}
		if (s->head == s->nr ||
		    rec_writer_event(s->w, &s->q[s->head]))
			return;
		s->head++;
		rec_writer_after(s->w);
	}
}

/* ptrace reaps @tid; a drain starts and ends after it */
static void reap(struct stream *s, pid_t tid)
{
	int i;

	for (i = 0; i < s->nr_reaped; i++)
		if (s->reaped[i] == tid)
			return;
	if (s->nr_reaped < 8)
		s->reaped[s->nr_reaped++] = tid;
	rec_writer_reaped(s->w, tid, ++s->drains);
	s->drains++;
}

/*
 * Every task exits, the children first: ptrace reaps each (the leader
 * once its threads are gone), then the writer takes the rest
 */
static char *finish(struct stream *s, bool child)
{
	if (child)
		reap(s, CHILD);
	reap(s, THREAD);
	reap(s, ROOT);
	process(s);
	rec_writer_finish(s->w, "done");
	rec_writer_destroy(s->w);
	fclose(s->out);
	return s->text;
}

/* The recorded lines of @text, one after another, held to @want */
static void lines_are(const char *text, const char *want, const char *what)
{
	char buf[256];
	const char *p = text;
	size_t n = 0;
	long av, avc;

	buf[0] = '\0';
	while ((p = strstr(p, "recorded anon_vma="))) {
		if (sscanf(p, "recorded anon_vma=%ld anon_vma_chain=%ld",
			   &av, &avc) == 2 && n < sizeof(buf))
			n += snprintf(buf + n, sizeof(buf) - n, "%s%ld/%ld",
				      n ? " " : "", av, avc);
		p++;
	}
	if (!ok(!strcmp(buf, want), "%s: '%s', want '%s'", what, buf, want))
		tap_diag("%s", text);
}

/* @pid's first write to its mapping at @addr: a chain, then an anon_vma */
static void first_write(struct stream *s, pid_t pid, unsigned long addr,
			uint64_t avc, uint64_t av)
{
	fault(s, pid, addr);
	obj(s, REV_ALLOC, pid, false, avc);
	if (av)
		obj(s, REV_ALLOC, pid, true, av);
}

static void start(struct stream *s)
{
	struct rec_event *ev;

	stream_init(s);
	ev = add(s, REV_EXEC, ROOT);
	ev->other = ROOT;
	/* 4 pages at 0x10000000, then a thread */
	sys(s, ROOT, RSYS_MMAP, 0, 0x4000, 3, 0x22, 0x10000000);
	ev = add(s, REV_NEWTASK, ROOT);
	ev->other = THREAD;
	ev->args[0] = R_CLONE_VM | R_CLONE_THREAD;
}

static void new_child(struct stream *s, unsigned long clone_flags)
{
	struct rec_event *ev = add(s, REV_NEWTASK, ROOT);

	ev->other = CHILD;
	ev->args[0] = clone_flags;
}

/* munmap() of the first mapping: chain 0xc1 and anon_vma 0xa1 freed */
static void unmap_first(struct stream *s, pid_t pid)
{
	sys_enter(s, pid, RSYS_MUNMAP, 0x10000000, 0x4000, 0, 0);
	obj(s, REV_FREE, pid, false, 0xc1);
	obj(s, REV_FREE, pid, true, 0xa1);
	sys_exit(s, pid, RSYS_MUNMAP, 0);
}

static void thread_frees_the_mm(void)
{
	struct stream s;
	char *text;

	start(&s);
	first_write(&s, THREAD, 0x10000000, 0xc1, 0xa1);
	add(&s, REV_EXIT, THREAD);
	/* pthread_join() returned: the process exits before the thread's
	 * mmput(), which frees what the mm held */
	add(&s, REV_EXIT, ROOT);
	obj(&s, REV_FREE, THREAD, false, 0xc1);
	obj(&s, REV_FREE, THREAD, true, 0xa1);
	/* the leader is reaped once its threads are: all is drained */
	text = finish(&s, false);
	ok(strstr(text, "p100 touch 0x10000000 4K write\n") &&
	   strstr(text, "p100 exit\n"),
	   "the thread's touch and the process's exit are written");
	/* before: "1/1 1/1", the line written at the leader's last event */
	lines_are(text, "1/1 0/0",
		  "the line after the exit waits for the thread's mmput()");
	free(text);
}

static void point_not_in_an_open_fault(void)
{
	struct stream s;
	char *text;

	start(&s);
	new_child(&s, 0);
	/* the busiest point so far: the root's 1 anon_vma, 1 chain */
	first_write(&s, ROOT, 0x10000000, 0xc1, 0xa1);
	/* the child's fault on its copy: its chain is in, its anon_vma not */
	first_write(&s, CHILD, 0x10000000, 0xc2, 0);
	/* meanwhile the root unmaps: the counts fall */
	unmap_first(&s, ROOT);
	obj(&s, REV_ALLOC, CHILD, true, 0xa2);
	/* the child's next event: its fault is done */
	add(&s, REV_EXIT, CHILD);
	obj(&s, REV_FREE, CHILD, false, 0xc2);
	obj(&s, REV_FREE, CHILD, true, 0xa2);
	add(&s, REV_EXIT, THREAD);
	add(&s, REV_EXIT, ROOT);
	text = finish(&s, true);
	/*
	 * Before: "1/2 0/0 0/0", a point with the child's touch written
	 * and half its objects counted (the model has 1/1 there)
	 */
	lines_are(text, "1/1 0/0 0/0",
		  "the busiest point waits for the open fault");
	free(text);
}

static void line_not_inside_a_held_exec(void)
{
	struct rec_layout none = { .start_brk = 0x700000 };
	struct rec_event *ev;
	struct stream s;
	char *text, *exit_at, *line_at, *exec_at;

	start(&s);
	first_write(&s, ROOT, 0x10000000, 0xc1, 0xa1);
	new_child(&s, 0);
	add(&s, REV_EXIT, CHILD);
	add(&s, REV_EXIT, THREAD);
	/* the root execs: its old mm goes before the exec event */
	sys_enter(&s, ROOT, RSYS_EXECVE, 0, 0, 0, 0);
	obj(&s, REV_FREE, ROOT, false, 0xc1);
	obj(&s, REV_FREE, ROOT, true, 0xa1);
	ev = add(&s, REV_EXEC, ROOT);
	ev->other = ROOT;
	add(&s, REV_EXIT, ROOT);
	/* held at the exec, its layout not read, when the child is reaped */
	process(&s);
	reap(&s, CHILD);
	process(&s);
	if (rec_writer_layout(s.w, ROOT, &none)) {
		printf("Bail out! no memory for a layout\n");
		exit(1);
	}
	text = finish(&s, false);
	exit_at = strstr(text, "p102 exit\n");
	line_at = exit_at ? strstr(exit_at, "recorded ") : NULL;
	exec_at = exit_at ? strstr(exit_at, "p100 exec ") : NULL;
	if (!ok(line_at && exec_at && exec_at < line_at,
		"the child's exit line waits for the root's held exec"))
		tap_diag("%s", text);
	free(text);
}

static void threads_at_once(void)
{
	struct stream s;
	char *text;

	start(&s);
	first_write(&s, ROOT, 0x10000000, 0xc1, 0xa1);
	sys(&s, ROOT, RSYS_MMAP, 0, 0x4000, 3, 0x22, 0x20000000);
	/* the thread's fault, and the root's mprotect before its next event */
	first_write(&s, THREAD, 0x20000000, 0xc2, 0xa2);
	sys_enter(&s, ROOT, RSYS_MPROTECT, 0x20000000, 0x1000, 1, 0);
	obj(&s, REV_ALLOC, ROOT, false, 0xc3);
	sys_exit(&s, ROOT, RSYS_MPROTECT, 0);
	/* a fall: the busiest point would be here */
	unmap_first(&s, ROOT);
	add(&s, REV_EXIT, THREAD);
	add(&s, REV_EXIT, ROOT);
	obj(&s, REV_FREE, ROOT, false, 0xc2);
	obj(&s, REV_FREE, ROOT, false, 0xc3);
	obj(&s, REV_FREE, ROOT, true, 0xa2);
	text = finish(&s, false);
	ok(strstr(text, "# p100: two of its tasks acted on it at once"),
	   "threads at once: the recording says so");
	lines_are(text, "0/0",
		  "threads at once: no count until the mm is gone");
	free(text);
}

static void vfork_child_alone(void)
{
	struct stream s;
	char *text;

	start(&s);
	first_write(&s, ROOT, 0x10000000, 0xc1, 0xa1);
	/* vfork(): the parent sleeps in it while the child uses its mm */
	sys_enter(&s, ROOT, RSYS_VFORK, 0, 0, 0, 0);
	new_child(&s, R_CLONE_VM);
	fault(&s, CHILD, 0x10001000);
	unmap_first(&s, CHILD);
	add(&s, REV_EXIT, CHILD);
	sys_exit(&s, ROOT, RSYS_VFORK, CHILD);
	add(&s, REV_EXIT, THREAD);
	add(&s, REV_EXIT, ROOT);
	text = finish(&s, true);
	ok(!strstr(text, "at once"), "a vfork child is no race");
	lines_are(text, "1/1 0/0", "a vfork child: the points stay");
	free(text);
}

static void exit_line_not_in_an_open_fault(void)
{
	struct stream s;
	char *text;

	start(&s);
	new_child(&s, 0);
	add(&s, REV_EXIT, CHILD);
	/* the root's fault: its chain, the child's last event, its anon_vma */
	first_write(&s, ROOT, 0x10000000, 0xc1, 0);
	obj(&s, REV_FREE, CHILD, false, 0xdead);
	obj(&s, REV_ALLOC, ROOT, true, 0xa1);
	sys(&s, ROOT, RSYS_MMAP, 0, 0x4000, 3, 0x22, 0x20000000);
	add(&s, REV_EXIT, THREAD);
	add(&s, REV_EXIT, ROOT);
	obj(&s, REV_FREE, ROOT, false, 0xc1);
	obj(&s, REV_FREE, ROOT, true, 0xa1);
	reap(&s, CHILD);
	text = finish(&s, false);
	/* before: "0/1 1/1 0/0", the child's line inside the root's fault */
	lines_are(text, "1/1 1/1 0/0",
		  "an exit's line waits for an open fault");
	free(text);
}

/* The output so far, and a line after @stmt in it */
static bool line_after(struct stream *s, const char *stmt)
{
	const char *at;

	fflush(s->out);
	at = strstr(s->text, stmt);
	return at && strstr(at, "recorded ");
}

static void leader_left_first(void)
{
	struct stream s;
	char *text;

	start(&s);
	new_child(&s, 0);
	/* pthread_exit() in the leader; its thread runs on */
	add(&s, REV_EXIT, ROOT);
	add(&s, REV_EXIT, CHILD);
	reap(&s, CHILD);
	process(&s);
	ok(line_after(&s, "p102 exit\n"),
	   "a leader gone before its thread holds no other exit's line");
	add(&s, REV_EXIT, THREAD);
	text = finish(&s, false);
	lines_are(text, "0/0 0/0", "a leader gone first: each exit its line");
	free(text);
}

static void thread_execs(void)
{
	struct rec_layout none = { .start_brk = 0x700000 };
	struct rec_event *ev;
	struct stream s;
	char *text;

	start(&s);
	ev = add(&s, REV_NEWTASK, ROOT);
	ev->other = EXECER;
	ev->args[0] = R_CLONE_VM | R_CLONE_THREAD;
	first_write(&s, ROOT, 0x10000000, 0xc1, 0xa1);
	new_child(&s, 0);
	/* de_thread(): the other threads exit, the leader among them */
	add(&s, REV_EXIT, ROOT);
	add(&s, REV_EXIT, THREAD);
	reap(&s, THREAD);
	sys_enter(&s, EXECER, RSYS_EXECVE, 0, 0, 0, 0);
	/* exec_mmap() frees the old mm: the exec'ing thread has ROOT's pid */
	obj(&s, REV_FREE, ROOT, false, 0xc1);
	obj(&s, REV_FREE, ROOT, true, 0xa1);
	ev = add(&s, REV_EXEC, ROOT);
	ev->other = EXECER;
	if (rec_writer_layout(s.w, ROOT, &none)) {
		printf("Bail out! no memory for a layout\n");
		exit(1);
	}
	add(&s, REV_EXIT, CHILD);
	reap(&s, CHILD);
	process(&s);
	ok(line_after(&s, "p102 exit\n"),
	   "a thread's exec: the old leader, never reaped, holds no line");
	add(&s, REV_EXIT, ROOT);
	text = finish(&s, false);
	ok(strstr(text, "p100 exec brk=0x700000\n") != NULL,
	   "a thread's exec is the process's");
	free(text);
}

int main(void)
{
	thread_frees_the_mm();
	point_not_in_an_open_fault();
	line_not_inside_a_held_exec();
	threads_at_once();
	vfork_child_alone();
	exit_line_not_in_an_open_fault();
	leader_left_first();
	thread_execs();
	return tap_done();
}
