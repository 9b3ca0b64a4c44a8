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
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include "kernel/agent.h"

static sigjmp_buf touch_env;
static volatile sig_atomic_t in_touch;
static volatile unsigned long touch_addr;

static void fault_handler(int sig)
{
	if (in_touch) {
		in_touch = 0;
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
}

static int do_touch(const struct agent_cmd *cmd, struct agent_reply *rep)
{
	unsigned long end = cmd->addr + cmd->len;

	touch_addr = cmd->addr;
	if (sigsetjmp(touch_env, 1)) {
		rep->fault_addr = touch_addr;
		return EFAULT;
	}
	in_touch = 1;
	for (; touch_addr < end; touch_addr += 4096) {
		volatile unsigned char *p = (unsigned char *)touch_addr;

		if (cmd->write)
			*p = 0x5a;
		else
			(void)*p;
	}
	in_touch = 0;
	return 0;
}

static int do_mmap_cmd(const struct agent_cmd *cmd)
{
	int flags = MAP_PRIVATE | MAP_FIXED_NOREPLACE;
	int fd = -1, err = 0;
	void *p;

	if (cmd->path[0]) {
		fd = open(cmd->path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return errno;
	} else {
		flags |= MAP_ANONYMOUS;
	}
	p = mmap((void *)cmd->addr, cmd->len, cmd->prot, flags, fd,
		 (off_t)cmd->offset);
	if (p == MAP_FAILED)
		err = errno;
	else if ((unsigned long)p != cmd->addr)
		/* an old kernel ignoring MAP_FIXED_NOREPLACE: refuse */
		err = munmap(p, cmd->len) ? errno : EEXIST;
	if (fd >= 0)
		close(fd);
	return err;
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
	switch (cmd->op) {
	case AGENT_MMAP:
		return do_mmap_cmd(cmd);
	case AGENT_MUNMAP:
		return munmap((void *)cmd->addr, cmd->len) ? errno : 0;
	case AGENT_MPROTECT:
		return mprotect((void *)cmd->addr, cmd->len, cmd->prot) ?
			errno : 0;
	case AGENT_MREMAP:
		/* the raw call: glibc's wrapper drops new_addr without FIXED */
		return syscall(SYS_mremap, cmd->addr, cmd->len, cmd->new_len,
			       cmd->flags, cmd->new_addr) == -1 ? errno : 0;
	case AGENT_MADVISE:
		return madvise((void *)cmd->addr, cmd->len, cmd->advice) ?
			errno : 0;
	case AGENT_TOUCH:
		return do_touch(cmd, rep);
	case AGENT_FORK:
		return do_fork(fd, rep);
	case AGENT_EXIT:
		_exit(0);
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
