// SPDX-License-Identifier: GPL-2.0
/*
 * cowctx record's loop: start the command under ptrace with THP off
 * and a seccomp filter, read the trace, serve the ptrace stops, and feed
 * the writer the stream in order (record.h says why it is built so).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/shm.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/user.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "kernel/kernel.h"
#include "kernel/record.h"
#include "kernel/zero_page.h"

#define R_MAP_ANONYMOUS	0x20
/* an event the writer waits on for this long has lost its stop */
#define GIVE_UP_NS	(10ULL * 1000000000ULL)

struct evqueue {
	struct rec_event *ev;
	size_t head, nr, cap;	/* a ring */
};

struct rec_loop {
	struct rec_trace trace;
	struct rec_raw *raw;
	struct rec_writer *w;
	struct evqueue q;
	struct rec_ptrset tracees;	/* tids still to be reaped */
	struct rec_ptrset reaped;	/* reaped before their fork's stop */
	uint64_t seq;
	uint64_t drains_started, drains_done;
	pid_t root;
	int root_status;
	bool root_done;
	uint64_t blocked_since;
	char why[256];		/* what stopped the recording */
};

static int failed(struct rec_loop *l, const char *what, int err)
{
	if (!l->why[0])
		snprintf(l->why, sizeof(l->why), "%s: %s", what,
			 strerror(err));
	return -1;
}

static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
	stop_signal = sig;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static struct rec_event *q_at(struct evqueue *q, size_t i)
{
	return &q->ev[(q->head + i) % q->cap];
}

static int q_push(struct evqueue *q, const struct rec_event *ev)
{
	if (q->nr == q->cap) {
		size_t ncap = q->cap ? q->cap * 2 : 4096, i;
		struct rec_event *n = malloc(ncap * sizeof(*n));

		if (!n)
			return -1;
		for (i = 0; i < q->nr; i++)
			n[i] = *q_at(q, i);
		free(q->ev);
		q->ev = n;
		q->cap = ncap;
		q->head = 0;
	}
	*q_at(q, q->nr) = *ev;
	q->nr++;
	return 0;
}

static void q_pop(struct evqueue *q)
{
	q->head = (q->head + 1) % q->cap;
	q->nr--;
}

/*
 * Only file mmaps and shmat() stop: the tracer reads the file behind
 * the descriptor, or the SysV segment's size, there. Anything else,
 * other ABIs included, runs on.
 */
static int install_seccomp(void)
{
#if defined(__x86_64__)
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		/* shmat: to the last statement, TRACE */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_shmat, 5, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mmap, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		/* the flags' low word (little-endian) */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, args[3])),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, R_MAP_ANONYMOUS, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE),
	};
	struct sock_fprog prog = {
		.len = sizeof(f) / sizeof(f[0]),
		.filter = f,
	};

	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
#else
	errno = ENOSYS;
	return -1;
#endif
}

/* The child: THP off (inherited, kept across exec), wait, exec CMD */
static void child_main(int go_fd, char **argv)
{
	char c;

	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0)) {
		perror("cowctx record: PR_SET_THP_DISABLE");
		_exit(127);
	}
	if (read(go_fd, &c, 1) != 1)
		_exit(127);
	close(go_fd);
	if (install_seccomp()) {
		perror("cowctx record: seccomp");
		_exit(127);
	}
	execvp(argv[0], argv);
	fprintf(stderr, "cowctx record: %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

static int enqueue(void *arg, struct rec_event *ev)
{
	struct rec_loop *l = arg;

	ev->seq = ++l->seq;
	return q_push(&l->q, ev);
}

static int drain(struct rec_loop *l, bool all)
{
	int got;

	l->drains_started++;
	got = rec_raw_drain(l->raw, all, enqueue, l);
	if (got < 0)
		return failed(l, "reading the trace", errno ? errno : ENOMEM);
	l->drains_done = l->drains_started;
	return got;
}

/*
 * shmat()'s segment, before it is attached: its size (which the system
 * call does not carry) and a name from its key and id. RFILE_BAD where
 * it cannot be read (a bad id: then shmat fails and writes nothing).
 */
static int on_shmat_stop(struct rec_loop *l, pid_t pid,
			 const struct user_regs_struct *regs)
{
	struct shmid_ds ds;
	char name[64];
	int ret;

	if (shmctl((int)regs->rdi, IPC_STAT, &ds)) {
		ret = rec_writer_file(l->w, pid, RFILE_BAD, "", 0);
	} else {
		snprintf(name, sizeof(name), "SYSV%08x.%d",
			 (unsigned int)ds.shm_perm.__key, (int)regs->rdi);
		ret = rec_writer_file(l->w, pid, RFILE_SHM, name,
				      ds.shm_segsz);
	}
	return ret ? failed(l, "a shmat's segment", -ret) : 0;
}

/* The file behind an mmap's descriptor, at its seccomp stop */
static int on_seccomp(struct rec_loop *l, pid_t pid)
{
#if defined(__x86_64__)
	enum rec_file_kind kind = RFILE_BAD;
	struct user_regs_struct regs;
	char link[64], path[4096] = "";
	struct stat st;
	ssize_t n;
	int ret;

	if (ptrace(PTRACE_GETREGS, pid, NULL, &regs))
		return 0;	/* killed meanwhile: its mmap never runs */
	if (regs.orig_rax == __NR_shmat)
		return on_shmat_stop(l, pid, &regs);
	snprintf(link, sizeof(link), "/proc/%d/fd/%d", (int)pid,
		 (int)regs.r8);
	n = readlink(link, path, sizeof(path) - 1);
	if (n > 0 && !stat(link, &st)) {
		path[n] = '\0';
		kind = RFILE_REGULAR;
		if (S_ISCHR(st.st_mode))
			kind = major(st.st_rdev) == 1 && minor(st.st_rdev) == 5 ?
			       RFILE_ZERO : RFILE_DEVICE;
	} else {
		path[0] = '\0';
	}
	ret = rec_writer_file(l->w, pid, kind, path, 0);
	return ret ? failed(l, "an mmap's file", -ret) : 0;
#else
	(void)l;
	(void)pid;
	return 0;
#endif
}

static int on_exec_stop(struct rec_loop *l, pid_t pid)
{
	struct rec_layout lay;
	unsigned long old = 0;
	int ret;

	if (!ptrace(PTRACE_GETEVENTMSG, pid, NULL, &old) && (pid_t)old != pid)
		rec_ptrset_del(&l->tracees, (uint64_t)old);
	ret = rec_layout_read(pid, &lay);
	if (ret == -ENOMEM)
		return failed(l, "reading exec's layout", ENOMEM);
	/* an unreadable layout is said in the file, at its exec */
	if (ret)
		return 0;
	if (rec_writer_layout(l->w, pid, &lay)) {
		rec_layout_free(&lay);
		return failed(l, "keeping exec's layout", ENOMEM);
	}
	return 0;
}

static int on_wait(struct rec_loop *l, pid_t pid, int status)
{
	int event = status >> 16, sig, ret = 0;
	unsigned long child;

	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		rec_ptrset_del(&l->tracees, (uint64_t)pid);
		if (rec_ptrset_add(&l->reaped, (uint64_t)pid))
			return failed(l, "the task set", ENOMEM);
		rec_writer_reaped(l->w, pid, l->drains_started);
		if (pid == l->root) {
			l->root_status = status;
			l->root_done = true;
		}
		return 0;
	}
	if (!WIFSTOPPED(status))
		return 0;
	if (rec_ptrset_add(&l->tracees, (uint64_t)pid))
		return failed(l, "the task set", ENOMEM);
	sig = WSTOPSIG(status);
	switch (event) {
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
	case PTRACE_EVENT_CLONE:
		/*
		 * The child may have run, exited and been reaped while its
		 * parent sat in this stop: it is gone, not to be waited for.
		 */
		if (!ptrace(PTRACE_GETEVENTMSG, pid, NULL, &child) &&
		    !rec_ptrset_del(&l->reaped, (uint64_t)child) &&
		    rec_ptrset_add(&l->tracees, (uint64_t)child))
			return failed(l, "the task set", ENOMEM);
		sig = 0;
		break;
	case PTRACE_EVENT_EXEC:
		ret = on_exec_stop(l, pid);
		sig = 0;
		break;
	case PTRACE_EVENT_SECCOMP:
		ret = on_seccomp(l, pid);
		sig = 0;
		break;
	case PTRACE_EVENT_STOP:
		/* a group stop stays a stop; the first stop of a new task goes */
		if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
		    sig == SIGTTOU) {
			ptrace(PTRACE_LISTEN, pid, NULL, NULL);
			return 0;
		}
		sig = 0;
		break;
	default:
		break;		/* a signal for the tracee: deliver it */
	}
	ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig);
	return ret;
}

static int reap(struct rec_loop *l)
{
	int status, got = 0;
	pid_t pid;

	while ((pid = waitpid(-1, &status, __WALL | WNOHANG)) > 0) {
		got = 1;
		if (on_wait(l, pid, status))
			return -1;
	}
	return got;
}

static uint64_t last_seq_of(struct rec_loop *l, pid_t tid)
{
	size_t i;

	for (i = l->q.nr; i > 0; i--)
		if (q_at(&l->q, i - 1)->pid == tid)
			return q_at(&l->q, i - 1)->seq;
	return 0;
}

/* Place the end of every exit's teardown that can now be placed */
static int resolve(struct rec_loop *l)
{
	pid_t tid;

	while ((tid = rec_writer_teardown_ready(l->w, l->drains_done))) {
		rec_writer_teardown_end(l->w, tid, last_seq_of(l, tid));
		if (rec_writer_after(l->w))
			return -1;
	}
	return 0;
}

/* Feed the writer; 1 if it moved, 0 if not, -1 on error */
static int process(struct rec_loop *l, bool final)
{
	int moved = 0;

	if (resolve(l))
		return -1;
	while (l->q.nr) {
		int r = rec_writer_event(l->w, q_at(&l->q, 0));

		if (r < 0)
			return failed(l, "writing the scenario", EIO);
		if (r > 0) {
			uint64_t now = now_ns();

			if (!l->blocked_since)
				l->blocked_since = now;
			/* nothing is left to give it, or nothing came */
			if (!final && now - l->blocked_since < GIVE_UP_NS)
				break;
			rec_writer_give_up(l->w);
			continue;
		}
		l->blocked_since = 0;
		q_pop(&l->q);
		moved = 1;
		if (rec_writer_after(l->w) || resolve(l))
			return -1;
	}
	return moved;
}

static void write_header(FILE *out, char **argv, enum scn_zero_page zp)
{
	struct utsname u;
	time_t now = time(NULL);
	char date[64];
	int i;

	fprintf(out, "# cowctx record:");
	for (i = 0; argv[i]; i++) {
		const char *s;

		/* one comment line, whatever the arguments hold */
		fputc(' ', out);
		for (s = argv[i]; *s; s++)
			if ((unsigned char)*s < ' ')
				fprintf(out, "\\x%02x", (unsigned char)*s);
			else
				fputc(*s, out);
	}
	uname(&u);
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S UTC", gmtime(&now));
	fprintf(out, "\n# kernel: %s %s %s; recorded %s\n", u.sysname,
		u.release, u.machine, date);
	fprintf(out, "# THP off for the tree (PR_SET_THP_DISABLE); process p<PID> is the mm made by task PID\n");
	/* probed: the replay runs the model as this kernel ran the program */
	fprintf(out, "kernel zero_page=%s\n", scenario_zero_page_name(zp));
}

static int start_child(struct rec_loop *l, const struct rec_opts *o,
		       char *why, size_t whylen)
{
	long opts = PTRACE_O_TRACEEXEC | PTRACE_O_TRACEFORK |
		    PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE |
		    PTRACE_O_TRACESECCOMP | PTRACE_O_EXITKILL;
	int go[2];

	if (pipe2(go, O_CLOEXEC)) {
		snprintf(why, whylen, "pipe: %s", strerror(errno));
		return -1;
	}
	l->root = fork();
	if (l->root < 0) {
		snprintf(why, whylen, "fork: %s", strerror(errno));
		return -1;
	}
	if (!l->root) {
		close(go[1]);
		child_main(go[0], o->argv);
	}
	close(go[0]);
	if (ptrace(PTRACE_SEIZE, l->root, NULL, (void *)opts)) {
		snprintf(why, whylen, "ptrace: %s", strerror(errno));
		kill(l->root, SIGKILL);
		close(go[1]);
		return -1;
	}
	if (rec_ptrset_add(&l->tracees, (uint64_t)l->root) ||
	    rec_trace_start(&l->trace, l->root, why, whylen)) {
		kill(l->root, SIGKILL);
		close(go[1]);
		return -1;
	}
	if (write(go[1], "g", 1) != 1) {
		snprintf(why, whylen, "pipe: %s", strerror(errno));
		close(go[1]);
		return -1;
	}
	close(go[1]);
	return 0;
}

static void kill_tracees(struct rec_loop *l)
{
	size_t i;

	for (i = 0; i < l->tracees.cap; i++)
		if (l->tracees.keys[i])
			kill((pid_t)l->tracees.keys[i], SIGKILL);
}

static int loop(struct rec_loop *l, int sfd)
{
	bool killed = false;

	for (;;) {
		struct pollfd pfd = { .fd = sfd, .events = POLLIN };
		struct signalfd_siginfo si;
		int a, b, c;

		if (stop_signal && !killed) {
			kill_tracees(l);
			killed = true;
		}
		b = reap(l);
		a = drain(l, false);
		c = process(l, false);
		if (a < 0 || b < 0 || c < 0)
			return -1;
		if (!l->tracees.nr && l->root_done)
			break;
		/* asked to stop, the tree killed: whatever is left is lost */
		if (killed && l->root_done && !a && !b && !c)
			break;
		if (!a && !b && !c) {
			/* a stop wakes it at once; events can wait a little */
			poll(&pfd, 1, 5);
			while (read(sfd, &si, sizeof(si)) > 0)
				;
		}
	}
	/* every task is gone: its last events are in the buffer */
	if (drain(l, true) < 0 || process(l, true) < 0)
		return -1;
	return 0;
}

static void status_text(int st, char *buf, size_t len)
{
	if (WIFEXITED(st))
		snprintf(buf, len, "the command exited with status %d",
			 WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		snprintf(buf, len, "the command was killed by signal %d",
			 WTERMSIG(st));
	else
		snprintf(buf, len, "the command's end is unknown");
}

static int finish(struct rec_loop *l, FILE *out, uint64_t t0)
{
	char status[128];
	struct rec_stats st;
	long lost = rec_trace_lost(&l->trace) + rec_raw_missed(l->raw);
	double secs = (now_ns() - t0) / 1e9;
	long bytes;
	int ret = 0;

	status_text(l->root_status, status, sizeof(status));
	if (lost) {
		fprintf(out, "# INCOMPLETE: trace events lost (%ld overruns; raise --buffer-kb)\n",
			lost);
		ret = 1;
	}
	if (rec_writer_finish(l->w, status)) {
		fprintf(stderr, "cowctx record: writing the scenario: %s\n",
			strerror(errno));
		return 2;
	}
	rec_writer_stats(l->w, &st);
	bytes = ftell(out);
	fprintf(stderr,
		"cowctx record: %ld statements, %ld events (%ld faults), %.3f s, %ld bytes, %.0f statements/s; live at the end: %ld anon_vma, %ld anon_vma_chain; %s%s\n",
		st.statements, st.events, st.faults, secs, bytes,
		secs > 0 ? st.statements / secs : 0.0, st.av_live, st.avc_live,
		status, ret ? "; INCOMPLETE: events were lost" : "");
	return ret;
}

int rec_run(const struct rec_opts *o)
{
	struct rec_loop l;
	char why[512] = "";
	sigset_t mask;
	FILE *out = stdout;
	uint64_t t0 = now_ns();
	enum scn_zero_page zp;
	int sfd, ret = 2;

	memset(&l, 0, sizeof(l));
	if (geteuid()) {
		fprintf(stderr, "cowctx record: skipped: needs root (ptrace of the tree, tracefs)\n");
		return KERNEL_EXIT_SKIP;
	}
	zp = kzero_page_probe(why, sizeof(why));
	if (zp == SCN_ZERO_PAGE_UNSTATED) {
		fprintf(stderr, "cowctx record: skipped: %s\n", why);
		return KERNEL_EXIT_SKIP;
	}
	if (rec_trace_open(&l.trace, o->buffer_kb, why, sizeof(why))) {
		fprintf(stderr, "cowctx record: skipped: %s\n", why);
		return KERNEL_EXIT_SKIP;
	}
	l.raw = rec_raw_open(l.trace.dir, rec_sys_names, why, sizeof(why));
	if (!l.raw) {
		fprintf(stderr, "cowctx record: skipped: %s\n", why);
		rec_trace_close(&l.trace);
		return KERNEL_EXIT_SKIP;
	}
	if (o->out_path) {
		out = fopen(o->out_path, "we");
		if (!out) {
			fprintf(stderr, "cowctx record: %s: %s\n", o->out_path,
				strerror(errno));
			rec_raw_close(l.raw);
			rec_trace_close(&l.trace);
			return 2;
		}
	}
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	signal(SIGTERM, on_stop_signal);
	signal(SIGHUP, on_stop_signal);
	/* ^C reaches the command too; the recording ends with it */
	signal(SIGINT, SIG_IGN);
	write_header(out, o->argv, zp);
	if (sfd < 0) {
		fprintf(stderr, "cowctx record: signalfd: %s\n",
			strerror(errno));
		goto out;
	}
	if (start_child(&l, o, why, sizeof(why))) {
		fprintf(stderr, "cowctx record: %s\n", why);
		goto out;
	}
	l.w = rec_writer_create(out, l.root);
	if (!l.w || loop(&l, sfd)) {
		fprintf(stderr, "cowctx record: %s\n",
			l.why[0] ? l.why : "out of memory");
		kill_tracees(&l);
		goto out;
	}
	ret = finish(&l, out, t0);
out:
	if (sfd >= 0)
		close(sfd);
	rec_raw_close(l.raw);
	rec_trace_close(&l.trace);
	rec_writer_destroy(l.w);
	rec_ptrset_free(&l.tracees);
	rec_ptrset_free(&l.reaped);
	free(l.q.ev);
	if (out != stdout && fclose(out) && !ret) {
		fprintf(stderr, "cowctx record: %s: %s\n", o->out_path,
			strerror(errno));
		ret = 2;
	}
	return ret;
}
