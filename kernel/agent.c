// SPDX-License-Identifier: GPL-2.0
/*
 * The agent's side of the runner protocol. Everything here runs in a
 * forked copy of the runner, so it must neither allocate nor touch
 * memory the calibration run would not touch too: the runner counts
 * the kernel's anon_vma objects by subtracting a run of the same
 * process tree without memory statements, and any anon_vma the agent
 * code itself created only in one of the runs would spoil it.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include <cowctx/mmap_flags.h>
#include "kernel/agent.h"

/*
 * Scenario memory and the runner's VMAs are no objects of this program:
 * a sanitizer has nothing to check there (and its shadow of a shadow
 * region is unmapped).
 */
#define NO_SANITIZE __attribute__((no_sanitize("address", "thread")))

static sigjmp_buf touch_env;
static volatile sig_atomic_t in_touch;
static volatile unsigned long touch_addr;
static volatile unsigned long touch_left;	/* pages, touch_addr's on */
static volatile sig_atomic_t touch_sig;

static void fault_handler(int sig)
{
	if (in_touch) {
		in_touch = 0;
		touch_sig = sig;
		siglongjmp(touch_env, 1);
	}
	/* not a touch: die of it as the program would */
	signal(sig, SIG_DFL);
}

static void reply(const struct agent_reply *rep)
{
	/* a failed send means the runner is gone: nothing left to do */
	if (send(AGENT_FD, rep, sizeof(*rep), MSG_NOSIGNAL) != sizeof(*rep))
		_exit(1);
}

/* Parse "start-end perms ..." of a maps line: true for a rw private VMA */
static bool writable_private(const char *line, unsigned long *start)
{
	unsigned long v = 0;
	const char *p = line;
	int d;

	for (; *p && *p != '-'; p++) {
		d = *p >= '0' && *p <= '9' ? *p - '0' :
		    *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 : -1;
		if (d < 0)
			return false;
		v = v * 16 + d;
	}
	while (*p && *p != ' ')
		p++;
	if (!p[0] || !p[1] || !p[2] || !p[3] || !p[4])
		return false;
	*start = v;
	return p[2] == 'w' && p[4] == 'p';
}

/*
 * Write one byte of every writable private VMA the zygote has from the
 * runner, so each has its anon_vma before the first fork. Otherwise
 * the first write to one of them by agent code (a touch's jump buffer,
 * a page of the stack) would make an anon_vma in the real run only,
 * and in every process forked after it. The add of zero keeps the
 * byte's value, atomically, whatever else shares the page.
 */
NO_SANITIZE
static void prefault_own_vmas(void)
{
	static char buf[4096], line[4096];
	size_t len = 0;
	ssize_t n, i;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (i = 0; i < n; i++) {
			unsigned long start;

			if (buf[i] != '\n') {
				if (len < sizeof(line) - 1)
					line[len++] = buf[i];
				continue;
			}
			line[len] = '\0';
			len = 0;
			if (writable_private(line, &start))
				__atomic_fetch_add((unsigned char *)start, 0,
						   __ATOMIC_RELAXED);
		}
	}
	close(fd);
}

/*
 * A `stack` mapping grows to RLIMIT_STACK, which the model takes as
 * 8 MiB (mm.h's STACK_RLIMIT): the agents use that soft limit whatever
 * the runner's shell set, where the hard limit allows it.
 */
static void set_stack_limit(void)
{
	const rlim_t want = 8UL << 20;
	struct rlimit rl;

	if (getrlimit(RLIMIT_STACK, &rl) || rl.rlim_cur == want)
		return;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want)
		return;
	rl.rlim_cur = want;
	setrlimit(RLIMIT_STACK, &rl);
}

static void agent_setup(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fault_handler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	/*
	 * Children that exit while their parent agent lives are reaped by
	 * the kernel at once; orphans go to the runner (a subreaper).
	 */
	signal(SIGCHLD, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
	set_stack_limit();
}

NO_SANITIZE
static int do_touch(const struct agent_cmd *cmd, struct agent_reply *rep)
{
	/*
	 * Counted in pages, not up to addr + len: a range that ends at
	 * the top of the address space wraps that sum to 0, and must
	 * still fault at its first page, as the model's touch does.
	 */
	touch_addr = cmd->addr;
	touch_left = cmd->len / 4096;
	if (sigsetjmp(touch_env, 1)) {
		rep->fault_addr = touch_addr;
		rep->fault_sig = touch_sig;
		return EFAULT;
	}
	in_touch = 1;
	for (; touch_left; touch_left--, touch_addr += 4096) {
		volatile unsigned char *p = (unsigned char *)touch_addr;

		if (cmd->write)
			*p = 0x5a;
		else
			(void)*p;
	}
	in_touch = 0;
	return 0;
}

/*
 * The descriptor itself names the file from then on, in the zygote and
 * in every process forked from it: no table here, so no limit but
 * RLIMIT_NOFILE's (kernel/limits.h).
 */
static int do_open(const struct agent_cmd *cmd, struct agent_reply *rep)
{
	/* writable, as the model's files are: MAP_SHARED may write them */
	int fd = open(cmd->path, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return errno;
	rep->file = fd;
	return 0;
}

static int do_mmap_cmd(const struct agent_cmd *cmd)
{
	int flags = cmd->flags & MM_MAP_SHARED ? MAP_SHARED : MAP_PRIVATE;
	int fd = -1;
	void *p;

	/* the runner refuses MM_MAP_ANY before any run */
	flags |= cmd->flags & MM_MAP_FIXED ? MAP_FIXED : MAP_FIXED_NOREPLACE;
	if (cmd->flags & MM_MAP_GROWSDOWN)
		flags |= MAP_GROWSDOWN;
	/* what glibc's thread stacks do; VM_NOHUGEPAGE since Linux 6.7 */
	if (cmd->flags & MM_MAP_NOHUGEPAGE)
		flags |= MAP_STACK;
	if (cmd->file >= 0)
		fd = cmd->file;
	else
		flags |= MAP_ANONYMOUS;
	p = (void *)syscall(SYS_mmap, cmd->addr, cmd->len, cmd->prot, flags,
			    fd, cmd->offset);
	if (p == MAP_FAILED)
		return errno;
	if ((unsigned long)p != cmd->addr)
		/* an old kernel ignoring MAP_FIXED_NOREPLACE: refuse */
		return syscall(SYS_munmap, p, cmd->len) ? errno : EEXIST;
	return 0;
}

/*
 * fork(): the child takes @newfd as its socket and says hello there;
 * the parent tells the runner the child's pid on its own socket.
 */
static int do_fork(int newfd, struct agent_reply *rep)
{
	pid_t pid;

	if (newfd < 0)
		return EBADF;
	pid = fork();
	if (pid < 0) {
		close(newfd);
		return errno;
	}
	if (pid == 0) {
		struct agent_reply hello = { .pid = getpid() };

		if (dup2(newfd, AGENT_FD) < 0)
			_exit(1);
		close(newfd);
		prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
		reply(&hello);
		return -1;	/* the caller goes on as the child */
	}
	close(newfd);
	rep->pid = pid;
	return 0;
}

/* Receive one command and, with AGENT_FORK, the child's socket */
static ssize_t recv_cmd(struct agent_cmd *cmd, int *fdp)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { .iov_base = cmd, .iov_len = sizeof(*cmd) };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = ctl.buf,
		.msg_controllen = sizeof(ctl.buf),
	};
	struct cmsghdr *c;
	ssize_t n;

	*fdp = -1;
	do {
		n = recvmsg(AGENT_FD, &msg, MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	for (c = CMSG_FIRSTHDR(&msg); n > 0 && c; c = CMSG_NXTHDR(&msg, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
			memcpy(fdp, CMSG_DATA(c), sizeof(int));
	return n;
}

static int do_cmd(const struct agent_cmd *cmd, int fd,
		  struct agent_reply *rep)
{
	/*
	 * Raw system calls throughout: a sanitizer's wrappers would also
	 * remap its shadow of the range, splitting the agent's own VMAs.
	 */
	switch (cmd->op) {
	case AGENT_MMAP:
		return do_mmap_cmd(cmd);
	case AGENT_MUNMAP:
		return syscall(SYS_munmap, cmd->addr, cmd->len) ? errno : 0;
	case AGENT_MSEAL:
		/* libc may have no wrapper: x86-64's number since 6.10 */
		return syscall(462, cmd->addr, cmd->len, 0) ? errno : 0;
	case AGENT_MPROTECT:
		return syscall(SYS_mprotect, cmd->addr, cmd->len, cmd->prot) ?
			errno : 0;
	case AGENT_MREMAP:
		return syscall(SYS_mremap, cmd->addr, cmd->len, cmd->new_len,
			       cmd->flags, cmd->new_addr) == -1 ? errno : 0;
	case AGENT_MADVISE:
		return syscall(SYS_madvise, cmd->addr, cmd->len,
			       cmd->advice) ? errno : 0;
	case AGENT_TOUCH:
		return do_touch(cmd, rep);
	case AGENT_FORK:
		return do_fork(fd, rep);
	case AGENT_EXIT:
		_exit(0);
	case AGENT_OPEN:
		return do_open(cmd, rep);
	}
	return EINVAL;
}

void agent_main(int fd)
{
	struct agent_reply hello;
	struct agent_cmd cmd;

	if (fd != AGENT_FD) {
		if (dup2(fd, AGENT_FD) < 0)
			_exit(1);
		close(fd);
	}
	/* nothing of the runner's stays open here: see agent.h */
	close_range(AGENT_FD + 1, ~0U, 0);
	agent_setup();
	prefault_own_vmas();
	prctl(PR_SET_NAME, "cowctx-agent", 0, 0, 0);
	memset(&hello, 0, sizeof(hello));
	hello.pid = getpid();
	reply(&hello);

	for (;;) {
		struct agent_reply rep;
		int newfd, err;
		ssize_t n = recv_cmd(&cmd, &newfd);

		if (n <= 0)
			_exit(0);	/* the runner is gone */
		if (n != sizeof(cmd)) {
			if (newfd >= 0)
				close(newfd);
			_exit(1);
		}
		if (cmd.op != AGENT_FORK && newfd >= 0)
			close(newfd);
		memset(&rep, 0, sizeof(rep));
		err = do_cmd(&cmd, newfd, &rep);
		if (err < 0)
			continue;	/* a new child: already said hello */
		rep.err = err;
		reply(&rep);
	}
}
