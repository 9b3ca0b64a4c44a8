// SPDX-License-Identifier: GPL-2.0
/*
 * What tests/record.t records: small programs, each doing one kind of
 * thing a recording must get right. Usage: workload cow|vfork|threads|
 * remap|brk|shm|mseal|single|unreplayed. Exit status 0 when every call
 * did what it should.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>

#define PAGE	4096UL

static int fail(const char *what)
{
	perror(what);
	return 1;
}

static void fill(char *p, size_t len, char c)
{
	size_t i;

	for (i = 0; i < len; i += PAGE)
		p[i] = c;
}

static int wait_child(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid)
		return fail("waitpid");
	return WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : 1;
}

/*
 * Waits (up to 10 s) until the parent sleeps, in waitpid(): the parent's
 * own faults on its way back from fork() (stack, libc's data) would
 * otherwise interleave with the child's run of COW writes and cut the
 * one touch a test expects in two.
 */
static void wait_parent_asleep(void)
{
	char path[64], buf[512], *state;
	int i, fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)getppid());
	for (i = 0; i < 10000; i++) {
		fd = open(path, O_RDONLY);
		if (fd < 0)
			return;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			return;
		buf[n] = '\0';
		state = strrchr(buf, ')');
		if (state && state[1] == ' ' && state[2] == 'S')
			return;
		usleep(1000);
	}
}

/* A parent and a child share written pages, then each breaks COW */
static int cow(void)
{
	size_t len = 64 * PAGE;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	volatile char sink = 0;
	pid_t pid;

	if (p == MAP_FAILED)
		return fail("mmap");
	fill(p, len, 1);
	pid = fork();
	if (pid < 0)
		return fail("fork");
	if (!pid) {
		wait_parent_asleep();
		fill(p, len / 2, 2);	/* COW: the child's own copies */
		sink = p[len - PAGE];	/* still shared */
		(void)sink;
		_exit(0);
	}
	if (wait_child(pid))
		return 1;
	fill(p + len / 2, len / 4, 3);	/* reuse: the child is gone */
	return munmap(p, len) ? fail("munmap") : 0;
}

/* vfork's child runs in the parent's mm until it execs or exits */
static int do_vfork(void)
{
	char *p = malloc(8 * PAGE);
	pid_t pid;

	if (!p)
		return fail("malloc");
	fill(p, 8 * PAGE, 1);
	pid = vfork();
	if (pid < 0)
		return fail("vfork");
	if (!pid) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	if (wait_child(pid))
		return 1;
	pid = vfork();
	if (pid < 0)
		return fail("vfork");
	if (!pid)
		_exit(0);	/* never execs: nothing of its own */
	free(p);
	return wait_child(pid);
}

static void *thread_main(void *arg)
{
	size_t len = (size_t)arg;
	char *p = malloc(len);

	if (p) {
		fill(p, len, 7);
		free(p);
	}
	return p ? NULL : (void *)1;
}

/* Threads are no processes: their stacks and arenas are the mm's */
static int threads(void)
{
	pthread_t t[2];
	void *r0, *r1;

	if (pthread_create(&t[0], NULL, thread_main, (void *)(256 * PAGE)) ||
	    pthread_create(&t[1], NULL, thread_main, (void *)(16 * PAGE)))
		return fail("pthread_create");
	if (pthread_join(t[0], &r0) || pthread_join(t[1], &r1))
		return fail("pthread_join");
	return r0 || r1;
}

/* mremap both ways, a split, a hole, populate, madvise, then a fork */
static int remap(void)
{
	size_t len = 16 * PAGE;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), *q, *r, *pop;
	pid_t pid;

	if (p == MAP_FAILED)
		return fail("mmap");
	fill(p, len, 1);
	q = mremap(p, len, 2 * len, MREMAP_MAYMOVE);
	if (q == MAP_FAILED)
		return fail("mremap");
	fill(q + len, len, 2);
	r = mmap(NULL, 4 * len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r == MAP_FAILED)
		return fail("mmap");
	if (mremap(q, 2 * len, 2 * len, MREMAP_MAYMOVE | MREMAP_FIXED,
		   r + len) == MAP_FAILED)
		return fail("mremap fixed");
	q = r + len;
	if (mprotect(q, 4 * PAGE, PROT_READ))
		return fail("mprotect");
	if (munmap(q + 8 * PAGE, 2 * PAGE))
		return fail("munmap");
	if (madvise(q + 12 * PAGE, 4 * PAGE, MADV_DONTNEED))
		return fail("madvise");
	pop = mmap(NULL, 8 * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (pop == MAP_FAILED)
		return fail("mmap populate");
	if (madvise(pop, 4 * PAGE, MADV_DONTFORK))
		return fail("madvise dontfork");
	/* an advice the language has not: a comment in the recording */
	if (madvise(pop + 4 * PAGE, 4 * PAGE, MADV_RANDOM))
		return fail("madvise random");
	pid = fork();
	if (pid < 0)
		return fail("fork");
	if (!pid) {
		fill(q + 4 * PAGE, 4 * PAGE, 3);
		_exit(0);
	}
	if (wait_child(pid))
		return 1;
	/* a refused call changes nothing and is not written */
	if (mprotect((char *)PAGE, PAGE, PROT_READ) == 0)
		return fail("mprotect of nothing succeeded");
	return 0;
}

/* The heap by brk: grow, write, shrink */
static int heap(void)
{
	char *start = sbrk(0), *p;

	if (sbrk(32 * PAGE) == (void *)-1)
		return fail("sbrk");
	p = (char *)(((unsigned long)start + PAGE - 1) & ~(PAGE - 1));
	fill(p, 16 * PAGE, 1);
	if (sbrk(-(long)(16 * PAGE)) == (void *)-1)
		return fail("sbrk shrink");
	return 0;
}

/*
 * A SysV segment, attached, written, shared with a forked child that
 * writes too and detaches; then the parent reads and detaches, and
 * anonymous memory beside it is written and COW-shared as usual.
 */
static int sysv_shm(void)
{
	int id = shmget(IPC_PRIVATE, 16 * PAGE, IPC_CREAT | 0600);
	char *seg, *anon;
	pid_t pid;
	int ret = 0;

	if (id < 0)
		return fail("shmget");
	seg = shmat(id, NULL, 0);
	/* gone when the last process detaches */
	shmctl(id, IPC_RMID, NULL);
	if (seg == (void *)-1)
		return fail("shmat");
	anon = mmap(NULL, 8 * PAGE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (anon == MAP_FAILED)
		return fail("mmap");
	fill(seg, 16 * PAGE, 1);
	fill(anon, 8 * PAGE, 2);
	pid = fork();
	if (pid < 0)
		return fail("fork");
	if (pid == 0) {
		fill(seg + 8 * PAGE, 8 * PAGE, 3);
		fill(anon, 4 * PAGE, 4);
		_exit(shmdt(seg) ? 1 : 0);
	}
	if (wait_child(pid))
		ret = fail("child");
	if (seg[8 * PAGE] != 3)
		ret = fail("the child's write is not in the segment");
	if (shmdt(seg))
		ret = fail("shmdt");
	munmap(anon, 8 * PAGE);
	return ret;
}

/*
 * mseal() of the middle page of a written VMA: the kernel splits it in
 * three; a forked child writes under the seal, and an munmap of the
 * sealed page is refused (and so never written to the recording).
 */
static int sealed(void)
{
	char *p = mmap(NULL, 8 * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pid_t pid;

	if (p == MAP_FAILED)
		return fail("mmap");
	fill(p, 8 * PAGE, 1);
	/* x86-64's number: libc may have no wrapper */
	if (syscall(462, p + 3 * PAGE, PAGE, 0))
		return fail("mseal");
	if (munmap(p, 8 * PAGE) == 0)
		return fail("munmap of a sealed page succeeded");
	pid = fork();
	if (pid < 0)
		return fail("fork");
	if (pid == 0) {
		fill(p, 8 * PAGE, 2);
		_exit(0);
	}
	return wait_child(pid);
}

/*
 * One process that builds up memory and frees it all before it ends,
 * as a compiler or sort does: the recording's last point has nothing
 * live, so only the point at its busiest moment has state in it.
 */
static int single(void)
{
	char *p[16];
	int i;

	for (i = 0; i < 16; i++) {
		p[i] = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE,
			    i % 2 ? MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK :
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p[i] == MAP_FAILED)
			return fail("mmap");
		fill(p[i], 4 * PAGE, (char)i);
	}
	for (i = 0; i < 16; i++)
		munmap(p[i], 4 * PAGE);
	return 0;
}

/*
 * Calls that change memory in ways the scenario language cannot say:
 * a name for anonymous memory (PR_SET_VMA, which splits the VMA) and
 * process_madvise(MADV_COLD) on itself. Either may be missing from a
 * kernel's configuration; what it refuses is not recorded.
 */
static int unreplayed(void)
{
	char *p = mmap(NULL, 8 * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct iovec iov = { .iov_len = 4 * PAGE };
	int pidfd;

	if (p == MAP_FAILED)
		return fail("mmap");
	fill(p, 8 * PAGE, 1);
	/* PR_SET_VMA, PR_SET_VMA_ANON_NAME */
	prctl(0x53564d41, 0, (unsigned long)p, 4 * PAGE,
	      (unsigned long)"cowctx");
	iov.iov_base = p;
	pidfd = syscall(SYS_pidfd_open, getpid(), 0);
	/* MADV_COLD */
	if (pidfd >= 0)
		syscall(SYS_process_madvise, pidfd, &iov, 1, 20, 0);
	return 0;
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";

	if (!strcmp(what, "cow"))
		return cow();
	if (!strcmp(what, "vfork"))
		return do_vfork();
	if (!strcmp(what, "threads"))
		return threads();
	if (!strcmp(what, "remap"))
		return remap();
	if (!strcmp(what, "brk"))
		return heap();
	if (!strcmp(what, "shm"))
		return sysv_shm();
	if (!strcmp(what, "mseal"))
		return sealed();
	if (!strcmp(what, "single"))
		return single();
	if (!strcmp(what, "unreplayed"))
		return unreplayed();
	fprintf(stderr, "usage: workload cow|vfork|threads|remap|brk|shm|mseal|single|unreplayed\n");
	return 2;
}
