/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The agent: one real process per scenario process. It sits blocked on
 * its command socket (so every agent is paused at a known point between
 * commands) and turns each command into real system calls on its own
 * address space. The runner is the only other end of the socket.
 */
#ifndef COWCTX_KERNEL_AGENT_H
#define COWCTX_KERNEL_AGENT_H

#include <sys/types.h>

/* An agent's command socket always lives at this descriptor */
#define AGENT_FD	3
#define AGENT_PATH_MAX	512

enum agent_op {
	AGENT_MMAP = 1,
	AGENT_MUNMAP,
	AGENT_MPROTECT,
	AGENT_MREMAP,
	AGENT_MADVISE,
	AGENT_TOUCH,
	AGENT_MSEAL,
	/* fork(); the child's socket comes with the command (SCM_RIGHTS) */
	AGENT_FORK,
	/* _exit(0) at once, no reply: the runner watches the pidfd */
	AGENT_EXIT,
	/*
	 * Open a scenario file and keep it: the zygote opens each once, so
	 * every process maps the same open file, as the model's one
	 * struct file per name (VMAs of two opens of one file never merge)
	 */
	AGENT_OPEN,
};

struct agent_cmd {
	int op;
	int prot;
	int advice;
	int write;
	unsigned long addr;
	unsigned long len;
	unsigned long new_len;
	unsigned long new_addr;
	unsigned long flags;
	unsigned long offset;
	int file;			/* mmap: AGENT_OPEN's fd, -1 anon */
	char path[AGENT_PATH_MAX];	/* open */
};

struct agent_reply {
	int err;			/* 0 or a positive errno */
	pid_t pid;			/* hello: own pid; fork: the child */
	int file;			/* open: the file's descriptor */
	unsigned long fault_addr;	/* touch: where SIGSEGV/SIGBUS hit */
	int fault_sig;			/* touch: which of the two */
};

/*
 * Become an agent on socket @fd: never returns. Called in a freshly
 * forked child of the runner; everything else the runner had open is
 * closed, so the agent holds no descriptor but its own socket.
 */
__attribute__((noreturn)) void agent_main(int fd);

#endif /* COWCTX_KERNEL_AGENT_H */
