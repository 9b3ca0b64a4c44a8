// SPDX-License-Identifier: GPL-2.0
/* The runner's side of the agent protocol; see runner.h and agent.h. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "kernel/agent.h"
#include "kernel/procfs.h"
#include "kernel/runner.h"

/* An agent answers within microseconds; this only catches a hung one */
#define REPLY_TIMEOUT_MS	30000
#define EXIT_TIMEOUT_MS		30000

volatile int krunner_interrupted;

static void fail(struct krunner *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
}

static int sys_pidfd_open(pid_t pid)
{
	return syscall(SYS_pidfd_open, pid, 0);
}

static int sys_pidfd_kill(int pidfd)
{
	return syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

/*
 * Wait up to @timeout_ms for @events on @fd. 1 when they came, 0 on
 * timeout, -1 when interrupted by the user's signal. In slices, so a
 * signal caught just before poll() is still seen soon.
 */
static int wait_fd(int fd, short events, int timeout_ms)
{
	long deadline = now_ms() + timeout_ms;
	struct pollfd p = { .fd = fd, .events = events };

	for (;;) {
		long left = deadline - now_ms();
		int n;

		if (krunner_interrupted)
			return -1;
		if (left < 0)
			left = 0;
		n = poll(&p, 1, left > 100 ? 100 : (int)left);
		if (n > 0)
			return 1;
		if ((n == 0 && !left) || (n < 0 && errno != EINTR))
			return 0;
	}
}

static int send_cmd(struct krunner *r, struct kproc *p,
		    const struct agent_cmd *cmd, int passfd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { .iov_base = (void *)cmd, .iov_len = sizeof(*cmd) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (passfd >= 0) {
		struct cmsghdr *c;

		memset(&ctl, 0, sizeof(ctl));
		msg.msg_control = ctl.buf;
		msg.msg_controllen = sizeof(ctl.buf);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &passfd, sizeof(int));
	}
	do {
		n = sendmsg(p->sock, &msg, MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR && !krunner_interrupted);
	if (n != sizeof(*cmd)) {
		fail(r, krunner_interrupted ? "interrupted" :
		     "%s (pid %d): cannot send a command: %s", p->name,
		     (int)p->pid, strerror(errno));
		return -1;
	}
	return 0;
}

static int recv_reply(struct krunner *r, int sock, const char *name,
		      struct agent_reply *rep)
{
	int w = wait_fd(sock, POLLIN, REPLY_TIMEOUT_MS);
	ssize_t n;

	if (w <= 0) {
		fail(r, w < 0 ? "interrupted" : "%s: no reply from its agent",
		     name);
		return -1;
	}
	do {
		n = recv(sock, rep, sizeof(*rep), 0);
	} while (n < 0 && errno == EINTR && !krunner_interrupted);
	if (n != sizeof(*rep)) {
		fail(r, n == 0 ? "%s: its agent died" :
		     "%s: bad reply from its agent", name);
		return -1;
	}
	return 0;
}

static int add_pid(struct krunner *r, pid_t pid)
{
	if (r->nr_pids == r->pids_capacity) {
		int cap = r->pids_capacity ? r->pids_capacity * 2 : 16;
		pid_t *p = realloc(r->pids, cap * sizeof(*p));

		if (!p) {
			fail(r, "out of memory");
			return -1;
		}
		r->pids = p;
		r->pids_capacity = cap;
	}
	r->pids[r->nr_pids++] = pid;
	return 0;
}

static struct kproc *new_proc(struct krunner *r)
{
	struct kproc *p;

	if (r->nr_procs == r->capacity) {
		int cap = r->capacity ? r->capacity * 2 : 8;

		p = realloc(r->procs, cap * sizeof(*p));
		if (!p) {
			fail(r, "out of memory");
			return NULL;
		}
		r->procs = p;
		r->capacity = cap;
	}
	p = &r->procs[r->nr_procs];
	memset(p, 0, sizeof(*p));
	p->pidfd = p->sock = -1;
	return p;
}

/* Kill @p if it still runs (by pidfd: no pid reuse race) */
static void kill_proc(struct kproc *p)
{
	if (p->pidfd >= 0)
		sys_pidfd_kill(p->pidfd);
}

/* Has @p exited (EPOLLIN) or been reaped too (EPOLLHUP)? */
static bool proc_done(struct kproc *p, bool reaped)
{
	struct pollfd pf = { .fd = p->pidfd, .events = POLLIN };

	if (poll(&pf, 1, 0) <= 0)
		return false;
	return reaped ? (pf.revents & POLLHUP) != 0 :
		(pf.revents & (POLLIN | POLLHUP)) != 0;
}

static void close_proc(struct kproc *p)
{
	if (p->sock >= 0)
		close(p->sock);
	if (p->pidfd >= 0)
		close(p->pidfd);
	p->sock = p->pidfd = -1;
}

/*
 * Wait until @p has exited: its mm is then torn down (exit_mm() comes
 * before exit_notify() marks it a zombie). An orphan is the runner's
 * child by then, so reap it here; the rest are reaped by their
 * parents, whose SIGCHLD is ignored.
 */
static int wait_exited(struct krunner *r, struct kproc *p)
{
	int w = wait_fd(p->pidfd, POLLIN, EXIT_TIMEOUT_MS);

	if (w <= 0) {
		fail(r, w < 0 ? "interrupted" : "%s (pid %d) does not exit",
		     p->name, (int)p->pid);
		return -1;
	}
	waitpid(p->pid, NULL, WNOHANG | __WALL);
	return 0;
}

/* The new agent's hello on @sock; then its pidfd */
static int adopt(struct krunner *r, struct kproc *p, int sock, pid_t pid)
{
	struct agent_reply hello;

	p->sock = sock;
	p->pid = pid;
	if (recv_reply(r, sock, p->name, &hello))
		return -1;
	if (hello.pid != pid) {
		fail(r, "%s: agent says it is pid %d, not %d", p->name,
		     (int)hello.pid, (int)pid);
		return -1;
	}
	p->pidfd = sys_pidfd_open(pid);
	if (p->pidfd < 0) {
		fail(r, "pidfd_open(%d): %s", (int)pid, strerror(errno));
		return -1;
	}
	return add_pid(r, pid);
}

static int read_own(struct krunner *r)
{
	struct kvma *vmas;
	int i, nr, err = proc_read_vmas(r->zygote.pid, false, &vmas, &nr);

	if (err) {
		fail(r, "/proc/%d/maps: %s", (int)r->zygote.pid,
		     strerror(-err));
		return -1;
	}
	r->own = malloc((nr ? nr : 1) * sizeof(*r->own));
	if (!r->own) {
		free(vmas);
		fail(r, "out of memory");
		return -1;
	}
	for (i = 0; i < nr; i++) {
		r->own[i].start = vmas[i].start;
		r->own[i].end = vmas[i].end;
	}
	r->nr_own = nr;
	free(vmas);
	return 0;
}

/*
 * Fork @n zygotes with nothing in between: the runner's memory must be
 * the same in each (a malloc() between two forks may add VMAs, which
 * the calibration tree would then lack).
 */
int krunner_start_many(struct krunner *const *rs, int n,
		       const char *filedir)
{
	int sv[KRUNNER_MAX_TREES][2], i, ret = 0;
	pid_t pid[KRUNNER_MAX_TREES];

	for (i = 0; i < n; i++) {
		struct krunner *r = rs[i];

		memset(r, 0, sizeof(*r));
		r->zygote.sock = r->zygote.pidfd = -1;
		r->filedir = filedir;
		snprintf(r->zygote.name, sizeof(r->zygote.name), "(zygote)");
		sv[i][0] = sv[i][1] = -1;
		pid[i] = -1;
	}
	if (n > KRUNNER_MAX_TREES) {
		fail(rs[0], "too many trees");
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
			       sv[i])) {
			fail(rs[i], "socketpair: %s", strerror(errno));
			ret = -1;
			goto out;
		}
	}
	fflush(NULL);
	for (i = 0; i < n; i++) {
		pid[i] = fork();
		if (pid[i] < 0) {
			fail(rs[i], "fork: %s", strerror(errno));
			ret = -1;
			break;
		}
		if (pid[i] == 0) {
			close(sv[i][0]);
			agent_main(sv[i][1]);
		}
	}
out:
	for (i = 0; i < n; i++) {
		struct krunner *r = rs[i];

		if (sv[i][1] >= 0)
			close(sv[i][1]);
		if (pid[i] <= 0) {
			if (sv[i][0] >= 0)
				close(sv[i][0]);
			continue;
		}
		if (adopt(r, &r->zygote, sv[i][0], pid[i]) || read_own(r)) {
			/* adopt() may fail before the pidfd exists */
			if (r->zygote.pidfd < 0)
				kill(pid[i], SIGKILL);
			ret = -1;
		}
	}
	if (ret)
		for (i = 0; i < n; i++)
			krunner_stop(rs[i]);
	return ret;
}

int krunner_start(struct krunner *r, const char *filedir)
{
	return krunner_start_many(&r, 1, filedir);
}

/* @parent_name NULL: the zygote, whose child is a fresh `proc` */
static int spawn(struct krunner *r, const char *parent_name,
		 const char *name)
{
	struct agent_cmd cmd = { .op = AGENT_FORK };
	struct kproc *p, *parent = &r->zygote;
	struct agent_reply rep;
	int sv[2];

	/* new_proc() may move the array: look the parent up after it */
	p = new_proc(r);
	if (!p)
		return -1;
	if (parent_name) {
		parent = krunner_find(r, parent_name);
		if (!parent) {
			fail(r, "no live process %s", parent_name);
			return -1;
		}
	}
	snprintf(p->name, sizeof(p->name), "%s", name);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		fail(r, "socketpair: %s", strerror(errno));
		return -1;
	}
	if (send_cmd(r, parent, &cmd, sv[1])) {
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	close(sv[1]);
	if (recv_reply(r, parent->sock, parent->name, &rep)) {
		close(sv[0]);
		return -1;
	}
	if (rep.err) {
		close(sv[0]);
		return rep.err;
	}
	/* counted live from here on, so that a failure still kills it */
	r->nr_procs++;
	if (adopt(r, p, sv[0], rep.pid)) {
		if (p->pidfd < 0)
			kill(rep.pid, SIGKILL);
		return -1;
	}
	return 0;
}

static void remove_proc(struct krunner *r, struct kproc *p)
{
	int i = p - r->procs;

	close_proc(p);
	memmove(p, p + 1, (r->nr_procs - i - 1) * sizeof(*p));
	r->nr_procs--;
}

static int do_exit(struct krunner *r, struct kproc *p)
{
	struct agent_cmd cmd = { .op = AGENT_EXIT };

	if (send_cmd(r, p, &cmd, -1) || wait_exited(r, p))
		return -1;
	remove_proc(r, p);
	return 0;
}

static int file_index(struct krunner *r, const char *name)
{
	int i;

	for (i = 0; i < r->nr_files; i++)
		if (!strcmp(r->files[i], name))
			return i;
	return -1;
}

int krunner_open_files(struct krunner *r, char (*names)[SCN_NAME_MAX],
		       int nr)
{
	int i;

	free(r->file_fds);
	r->file_fds = malloc((nr ? nr : 1) * sizeof(*r->file_fds));
	if (!r->file_fds) {
		fail(r, "out of memory");
		return -1;
	}
	/* counted as they open: a failure leaves the failing one's index */
	r->files = names;
	r->nr_files = 0;
	for (i = 0; i < nr; i++) {
		struct agent_cmd cmd = { .op = AGENT_OPEN, .file = -1 };
		struct agent_reply rep;

		if (snprintf(cmd.path, sizeof(cmd.path), "%s/%s", r->filedir,
			     names[i]) >= (int)sizeof(cmd.path)) {
			fail(r, "file path too long");
			return -1;
		}
		if (send_cmd(r, &r->zygote, &cmd, -1) ||
		    recv_reply(r, r->zygote.sock, r->zygote.name, &rep))
			return -1;
		if (rep.err) {
			fail(r, "file %s: %s", names[i], strerror(rep.err));
			return -1;
		}
		r->file_fds[r->nr_files++] = rep.file;
	}
	return 0;
}

static int do_mem(struct krunner *r, struct kproc *p, const struct stmt *st,
		  unsigned long *fault)
{
	struct agent_cmd cmd;
	struct agent_reply rep;

	memset(&cmd, 0, sizeof(cmd));
	cmd.file = -1;
	cmd.addr = st->addr;
	cmd.len = st->len;
	cmd.prot = st->prot;
	switch (st->kind) {
	case STMT_MMAP:
		cmd.op = AGENT_MMAP;
		cmd.flags = st->map_flags;
		if (st->is_file) {
			int f = file_index(r, st->file);

			if (f < 0) {
				fail(r, "file %s was not opened", st->file);
				return -1;
			}
			cmd.file = r->file_fds[f];
			cmd.offset = st->offset;
		}
		break;
	case STMT_MUNMAP:
		cmd.op = AGENT_MUNMAP;
		break;
	case STMT_MSEAL:
		cmd.op = AGENT_MSEAL;
		break;
	case STMT_MPROTECT:
		cmd.op = AGENT_MPROTECT;
		break;
	case STMT_MREMAP:
		cmd.op = AGENT_MREMAP;
		cmd.new_len = st->new_len;
		cmd.new_addr = st->new_addr;
		cmd.flags = st->mremap_flags;
		break;
	case STMT_MADVISE:
		cmd.op = AGENT_MADVISE;
		cmd.advice = st->advice;
		break;
	case STMT_TOUCH:
		cmd.op = AGENT_TOUCH;
		cmd.write = st->write;
		break;
	default:
		fail(r, "statement kind %d is not a memory statement",
		     (int)st->kind);
		return -1;
	}
	if (send_cmd(r, p, &cmd, -1) || recv_reply(r, p->sock, p->name, &rep))
		return -1;
	if (fault)
		*fault = rep.fault_addr;
	r->fault_sig = rep.fault_sig;
	return rep.err;
}

int krunner_exec(struct krunner *r, const struct stmt *st,
		 unsigned long *fault)
{
	struct kproc *p = NULL;

	if (krunner_interrupted) {
		fail(r, "interrupted");
		return -1;
	}
	if (st->kind == STMT_CHECK)
		return 0;
	if (st->kind == STMT_PROC)
		return spawn(r, NULL, st->proc);
	if (st->kind == STMT_FORK)
		return spawn(r, st->proc, st->child);
	p = krunner_find(r, st->proc);
	if (!p) {
		fail(r, "no live process %s", st->proc);
		return -1;
	}
	if (st->kind == STMT_EXIT)
		return do_exit(r, p);
	return do_mem(r, p, st, fault);
}

void krunner_stop(struct krunner *r)
{
	long deadline = now_ms() + EXIT_TIMEOUT_MS;
	bool all_gone;
	int i;

	for (i = r->nr_procs - 1; i >= 0; i--)
		kill_proc(&r->procs[i]);
	kill_proc(&r->zygote);
	do {
		all_gone = true;
		for (i = -1; i < r->nr_procs; i++) {
			struct kproc *p = i < 0 ? &r->zygote : &r->procs[i];

			if (p->pidfd < 0)
				continue;
			/* orphans are ours to reap; others go by themselves */
			waitpid(p->pid, NULL, WNOHANG | __WALL);
			if (proc_done(p, true))
				close_proc(p);
			else
				all_gone = false;
		}
		if (!all_gone)
			usleep(1000);
	} while (!all_gone && now_ms() < deadline);
	for (i = 0; i < r->nr_procs; i++)
		close_proc(&r->procs[i]);
	close_proc(&r->zygote);
	r->nr_procs = 0;
}

void krunner_release(struct krunner *r)
{
	krunner_stop(r);
	free(r->procs);
	free(r->pids);
	free(r->own);
	free(r->file_fds);
	r->file_fds = NULL;
	r->procs = NULL;
	r->pids = NULL;
	r->own = NULL;
	r->capacity = r->pids_capacity = r->nr_pids = r->nr_own = 0;
	r->files = NULL;
	r->nr_files = 0;
}

struct kproc *krunner_find(struct krunner *r, const char *name)
{
	int i;

	for (i = 0; i < r->nr_procs; i++)
		if (!strcmp(r->procs[i].name, name))
			return &r->procs[i];
	return NULL;
}

bool krunner_has_pid(const struct krunner *r, pid_t pid)
{
	int i;

	for (i = 0; i < r->nr_pids; i++)
		if (r->pids[i] == pid)
			return true;
	return false;
}

int krunner_own_vmas(const struct krunner *r)
{
	/* x86-64's TASK_SIZE with 4-level page tables, and with 5 */
	const unsigned long user_top = 1UL << 56;
	int i, n = 0;

	for (i = 0; i < r->nr_own; i++)
		n += r->own[i].start < user_top;
	return n;
}

bool krunner_overlaps_own(const struct krunner *r, unsigned long start,
			  unsigned long end, unsigned long margin)
{
	int i;

	for (i = 0; i < r->nr_own; i++) {
		unsigned long lo = r->own[i].start > margin ?
				   r->own[i].start - margin : 0;
		unsigned long hi = r->own[i].end + margin;

		if (start < hi && end > lo)
			return true;
	}
	return false;
}
