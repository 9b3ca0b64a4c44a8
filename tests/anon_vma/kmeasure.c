// SPDX-License-Identifier: GPL-2.0
/*
 * kmeasure: count the anon_vma and anon_vma_chain objects a scenario's
 * processes leave live on the running kernel, for tests/anon_vma/
 * shapes.tsv. A stop-gap until `cowctx kernel` (issue 5) does this; it
 * follows docs/real-kernel.md:
 *
 *  - the scenario runs as real processes, each a server obeying one
 *    slot of a MAP_SHARED mailbox (shared memory has no anon_vma);
 *  - a private tracefs instance follows them (set_event_pid of each
 *    `proc`, options/event-fork for their descendants) and records
 *    kmem_cache_alloc/free of the two caches; an object counts when it
 *    was allocated from an anon_vma call site (the anon_vma_chain cache
 *    is shared with fs_struct) and is not freed by the end;
 *  - the same proc/fork/exit statements without the memory statements
 *    are run again as calibration (the processes' own heap, stack and
 *    data VMAs are cloned at every fork too) and subtracted;
 *  - an exit waits until the process is a zombie or gone, so its mm is
 *    torn down before the next statement.
 *
 * Build and run as root (needs the tree's libcowctx.a for the parser):
 *
 *   make && gcc -std=gnu11 -O2 -Wall -Wextra -D_GNU_SOURCE -Iinclude -I. \
 *	-o build/kmeasure tests/anon_vma/kmeasure.c build/libcowctx.a -lurcu -lm
 *   build/kmeasure tests/anon_vma/[a-z]*.scn
 *
 * Output, one line per scenario:
 *   NAME anon_vma AVC (full: av avc, calibration: av avc, leftover: n m)
 * where leftover counts objects still live once every process exited.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "scenario/scenario.h"

#define TRACEFS		"/sys/kernel/tracing"
#define MAX_SLOTS	512
#define MAX_FILES	16

enum op { OP_NONE, OP_MMAP, OP_MUNMAP, OP_MPROTECT, OP_MREMAP, OP_MADVISE,
	  OP_TOUCH, OP_FORK, OP_EXIT };

struct slot {
	int req;		/* futex: bumped by the runner for each op */
	int ack;		/* futex: set to req by the server when done */
	int op;
	int fd;
	unsigned long a[5];
	long result;
	int child_slot;		/* OP_FORK: the slot the child serves */
	pid_t pid;
};

static struct slot *slots;
static char instance[PATH_MAX];

static void die(const char *fmt, ...)
	__attribute__((noreturn, format(printf, 1, 2)));

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "kmeasure: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(2);
}

static void futex_wait(int *addr, int val)
{
	syscall(SYS_futex, addr, FUTEX_WAIT, val, NULL, NULL, 0);
}

static void futex_wake(int *addr)
{
	syscall(SYS_futex, addr, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static long do_op(struct slot *s);

/* A scenario process: obey the slot until told to exit. */
static void __attribute__((noreturn)) serve(struct slot *s)
{
	/* ack, not req: the runner may post before this process runs */
	int seen = __atomic_load_n(&s->ack, __ATOMIC_ACQUIRE);

	for (;;) {
		int req;

		while ((req = __atomic_load_n(&s->req, __ATOMIC_ACQUIRE)) ==
		       seen)
			futex_wait(&s->req, seen);
		seen = req;
		s->result = do_op(s);
		__atomic_store_n(&s->ack, seen, __ATOMIC_RELEASE);
		futex_wake(&s->ack);
	}
}

static long do_op(struct slot *s)
{
	unsigned long *a = s->a, off;
	void *p;
	pid_t pid;

	switch (s->op) {
	case OP_MMAP:
		p = mmap((void *)a[0], a[1], (int)a[2],
			 MAP_PRIVATE | MAP_FIXED_NOREPLACE |
			 (s->fd < 0 ? MAP_ANONYMOUS : 0), s->fd, (off_t)a[3]);
		return p == MAP_FAILED ? -errno : 0;
	case OP_MUNMAP:
		return munmap((void *)a[0], a[1]) ? -errno : 0;
	case OP_MPROTECT:
		return mprotect((void *)a[0], a[1], (int)a[2]) ? -errno : 0;
	case OP_MREMAP:
		p = mremap((void *)a[0], a[1], a[2], (int)a[3], (void *)a[4]);
		return p == MAP_FAILED ? -errno : 0;
	case OP_MADVISE:
		return madvise((void *)a[0], a[1], (int)a[2]) ? -errno : 0;
	case OP_TOUCH:
		for (off = 0; off < a[1]; off += 4096) {
			volatile char *c = (volatile char *)(a[0] + off);

			if (a[2])
				*c = 1;
			else
				(void)*c;
		}
		return 0;
	case OP_FORK: {
		/*
		 * The slot is shared: read it before fork, since the runner
		 * may reuse it for the next op before the child runs.
		 */
		struct slot *c = &slots[s->child_slot];

		pid = fork();
		if (pid < 0)
			return -errno;
		if (!pid)
			serve(c);
		return pid;
	}
	case OP_EXIT:
		_exit(0);
	}
	return -EINVAL;
}

/* Hand @s an operation and wait for its answer. */
static long call(struct slot *s)
{
	int req = s->req + 1;
	int ack;

	__atomic_store_n(&s->req, req, __ATOMIC_RELEASE);
	futex_wake(&s->req);
	while ((ack = __atomic_load_n(&s->ack, __ATOMIC_ACQUIRE)) != req)
		futex_wait(&s->ack, ack);
	return s->result;
}

/* Has @pid finished exit_mm()? A zombie or a reaped process has. */
static bool exited(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return true;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');
	return !p || p[1] == 0 || p[2] == 'Z' || p[2] == 'X';
}

static void wait_exited(pid_t pid)
{
	struct timespec ts = { 0, 200000 };
	int i;

	for (i = 0; i < 50000; i++) {
		waitpid(-1, NULL, WNOHANG);	/* reap what is ours */
		if (exited(pid))
			return;
		nanosleep(&ts, NULL);
	}
	die("process %d did not exit", pid);
}

static void tracefs_write(const char *file, const char *val, bool append)
{
	char path[PATH_MAX + 64];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", instance, file);
	fd = open(path, O_WRONLY | (append ? O_APPEND : O_TRUNC));
	if (fd < 0)
		die("open %s: %s", path, strerror(errno));
	n = write(fd, val, strlen(val));
	if (n != (ssize_t)strlen(val))
		die("write '%s' to %s: %s", val, path,
		    n < 0 ? strerror(errno) : "short write");
	close(fd);
}

static char *slurp(const char *path, size_t *lenp)
{
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap);
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (!buf || fd < 0)
		die("read %s: %s", path, strerror(errno));
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += (size_t)n;
		if (cap - len < 4096) {
			cap *= 2;
			buf = realloc(buf, cap);
			if (!buf)
				die("out of memory");
		}
	}
	close(fd);
	buf[len] = 0;
	*lenp = len;
	return buf;
}

/* set_event_pid must list @pid, or the instance traces everybody */
static void trace_pid(pid_t pid)
{
	char val[32], path[PATH_MAX + 32], *got, *p;
	size_t len;
	bool found = false;

	snprintf(val, sizeof(val), "%d", pid);
	tracefs_write("set_event_pid", val, true);
	snprintf(path, sizeof(path), "%s/set_event_pid", instance);
	got = slurp(path, &len);
	for (p = strtok(got, " \n"); p; p = strtok(NULL, " \n"))
		if (atoi(p) == pid)
			found = true;
	free(got);
	if (!found)
		die("set_event_pid does not list %d", pid);
}

static void instance_setup(void)
{
	static const char filter[] =
		"name == \"anon_vma\" || name == \"anon_vma_chain\"";
	snprintf(instance, sizeof(instance), TRACEFS "/instances/kmeasure_%d",
		 getpid());
	if (mkdir(instance, 0700))
		die("mkdir %s: %s", instance, strerror(errno));
	tracefs_write("buffer_size_kb", "65536", false);
	tracefs_write("options/event-fork", "1", false);
	tracefs_write("events/kmem/kmem_cache_alloc/filter", filter, false);
	tracefs_write("events/kmem/kmem_cache_free/filter", filter, false);
	tracefs_write("trace", "", false);
	tracefs_write("tracing_on", "1", false);
}

static void events_enable(bool on)
{
	tracefs_write("events/kmem/kmem_cache_alloc/enable", on ? "1" : "0",
		      false);
	tracefs_write("events/kmem/kmem_cache_free/enable", on ? "1" : "0",
		      false);
}

static void instance_teardown(void)
{
	if (instance[0] && rmdir(instance))
		fprintf(stderr, "kmeasure: rmdir %s: %s\n", instance,
			strerror(errno));
	instance[0] = 0;
}

/* Live objects by pointer, from one read of the trace */
struct live {
	struct obj {
		char ptr[24];
		bool avc;
	} *v;
	size_t nr, cap;
	unsigned long lost;
};

static bool field(const char *line, const char *key, char *out, size_t size)
{
	const char *p = strstr(line, key);
	size_t n = 0;

	if (!p)
		return false;
	p += strlen(key);
	while (p[n] && p[n] != ' ' && p[n] != '+' && p[n] != '\n' &&
	       n + 1 < size) {
		out[n] = p[n];
		n++;
	}
	out[n] = 0;
	return true;
}

static void count_live(struct live *l, long *av, long *avc)
{
	char path[PATH_MAX + 16], *buf, *line, *save = NULL;
	size_t len, i;

	l->nr = 0;
	l->lost = 0;
	snprintf(path, sizeof(path), "%s/trace", instance);
	buf = slurp(path, &len);
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char site[128], ptr[24], name[32];
		bool alloc;
		unsigned long in, written;

		if (sscanf(line, "# entries-in-buffer/entries-written: %lu/%lu",
			   &in, &written) == 2 && in != written)
			l->lost = written - in;
		if (strstr(line, "kmem_cache_alloc: "))
			alloc = true;
		else if (strstr(line, "kmem_cache_free: "))
			alloc = false;
		else
			continue;
		if (!field(line, "call_site=", site, sizeof(site)) ||
		    !field(line, "ptr=", ptr, sizeof(ptr)) ||
		    !field(line, "name=", name, sizeof(name)))
			die("unparsable trace line: %s", line);
		if (alloc) {
			/* fs_struct shares the anon_vma_chain cache */
			if (!strstr(site, "anon_vma"))
				continue;
			if (l->nr == l->cap) {
				l->cap = l->cap ? 2 * l->cap : 4096;
				l->v = realloc(l->v, l->cap * sizeof(*l->v));
				if (!l->v)
					die("out of memory");
			}
			snprintf(l->v[l->nr].ptr, sizeof(l->v[l->nr].ptr),
				 "%s", ptr);
			l->v[l->nr++].avc = !strcmp(name, "anon_vma_chain");
			continue;
		}
		for (i = l->nr; i-- > 0;) {
			if (!strcmp(l->v[i].ptr, ptr)) {
				l->v[i] = l->v[--l->nr];
				break;
			}
		}
	}
	free(buf);
	if (l->lost)
		die("the trace lost %lu events: enlarge buffer_size_kb",
		    l->lost);
	*av = *avc = 0;
	for (i = 0; i < l->nr; i++) {
		if (l->v[i].avc)
			(*avc)++;
		else
			(*av)++;
	}
}

struct files {
	char name[MAX_FILES][SCN_NAME_MAX];
	int fd[MAX_FILES];
	int nr;
	char dir[64];
};

static int file_fd(struct files *fs, const char *name)
{
	int i;

	for (i = 0; i < fs->nr; i++)
		if (!strcmp(fs->name[i], name))
			return fs->fd[i];
	return -1;
}

/* Every file the scenario maps, big enough, nonzero, opened up front */
static void files_open(struct files *fs, const struct scenario *sc)
{
	int i;

	fs->nr = 0;
	snprintf(fs->dir, sizeof(fs->dir), "/tmp/kmeasure.XXXXXX");
	if (!mkdtemp(fs->dir))
		die("mkdtemp: %s", strerror(errno));
	for (i = 0; i < sc->nr; i++) {
		const struct stmt *st = &sc->stmts[i];
		char path[128], chunk[4096];
		unsigned long size = 0, off;
		int j, fd;

		if (st->kind != STMT_MMAP || !st->is_file ||
		    file_fd(fs, st->file) >= 0)
			continue;
		if (fs->nr == MAX_FILES)
			die("too many files");
		for (j = 0; j < sc->nr; j++) {
			const struct stmt *o = &sc->stmts[j];
			unsigned long end = o->offset + o->len + (64UL << 20);

			if (o->kind == STMT_MMAP && o->is_file &&
			    !strcmp(o->file, st->file) && end > size)
				size = end;
		}
		snprintf(path, sizeof(path), "%s/%s", fs->dir, st->file);
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
		if (fd < 0)
			die("create %s: %s", path, strerror(errno));
		memset(chunk, 0x5a, sizeof(chunk));
		for (off = 0; off < size; off += sizeof(chunk))
			if (write(fd, chunk, sizeof(chunk)) != sizeof(chunk))
				die("write %s: %s", path, strerror(errno));
		unlink(path);
		snprintf(fs->name[fs->nr], SCN_NAME_MAX, "%s", st->file);
		fs->fd[fs->nr++] = fd;
	}
}

static void files_close(struct files *fs)
{
	int i;

	for (i = 0; i < fs->nr; i++)
		close(fs->fd[i]);
	rmdir(fs->dir);
	fs->nr = 0;
}

struct proc {
	char name[SCN_NAME_MAX];
	int slot;
};

struct result {
	long av, avc;			/* live at the end of the scenario */
	long left_av, left_avc;		/* live once every process exited */
};

static int find_proc(struct proc *procs, int nr, const char *name)
{
	int i;

	for (i = 0; i < nr; i++)
		if (!strcmp(procs[i].name, name))
			return i;
	die("unknown process %s", name);
}

static void run(const struct scenario *sc, bool calibrate, struct result *res)
{
	struct proc procs[MAX_SLOTS];
	int nr = 0, next_slot = 0, i;
	bool tracing = false;
	struct files fs;
	struct live l = { 0 };

	memset(slots, 0, MAX_SLOTS * sizeof(*slots));
	files_open(&fs, sc);
	instance_setup();
	for (i = 0; i < sc->nr; i++) {
		const struct stmt *st = &sc->stmts[i];
		struct slot *s = NULL;
		long r = 0;
		int p = -1;

		if (st->kind != STMT_PROC && st->kind != STMT_CHECK) {
			p = find_proc(procs, nr, st->proc);
			s = &slots[procs[p].slot];
		}
		if (calibrate && st->kind != STMT_PROC &&
		    st->kind != STMT_FORK && st->kind != STMT_EXIT)
			continue;
		if (s) {
			memset(s->a, 0, sizeof(s->a));
			s->fd = -1;
		}
		switch (st->kind) {
		case STMT_PROC: {
			pid_t pid;

			if (next_slot == MAX_SLOTS)
				die("too many processes");
			pid = fork();
			if (pid < 0)
				die("fork: %s", strerror(errno));
			if (!pid) {
				slots[next_slot].pid = getpid();
				serve(&slots[next_slot]);
			}
			slots[next_slot].pid = pid;
			trace_pid(pid);
			if (!tracing) {
				events_enable(true);
				tracing = true;
			}
			snprintf(procs[nr].name, SCN_NAME_MAX, "%s", st->proc);
			procs[nr++].slot = next_slot++;
			break;
		}
		case STMT_MMAP:
			s->op = OP_MMAP;
			s->a[0] = st->addr;
			s->a[1] = st->len;
			s->a[2] = (unsigned long)st->prot;
			s->a[3] = st->offset;
			if (st->is_file)
				s->fd = file_fd(&fs, st->file);
			r = call(s);
			break;
		case STMT_MUNMAP:
			s->op = OP_MUNMAP;
			s->a[0] = st->addr;
			s->a[1] = st->len;
			r = call(s);
			break;
		case STMT_MPROTECT:
			s->op = OP_MPROTECT;
			s->a[0] = st->addr;
			s->a[1] = st->len;
			s->a[2] = (unsigned long)st->prot;
			r = call(s);
			break;
		case STMT_MREMAP:
			s->op = OP_MREMAP;
			s->a[0] = st->addr;
			s->a[1] = st->len;
			s->a[2] = st->new_len;
			s->a[3] = st->mremap_flags;
			s->a[4] = st->new_addr;
			r = call(s);
			break;
		case STMT_MADVISE:
			s->op = OP_MADVISE;
			s->a[0] = st->addr;
			s->a[1] = st->len;
			s->a[2] = (unsigned long)st->advice;
			r = call(s);
			break;
		case STMT_TOUCH:
			s->op = OP_TOUCH;
			s->a[0] = st->addr;
			s->a[1] = st->len;
			s->a[2] = st->write;
			r = call(s);
			break;
		case STMT_FORK:
			if (next_slot == MAX_SLOTS)
				die("too many processes");
			s->op = OP_FORK;
			s->child_slot = next_slot;
			r = call(s);
			if (r > 0) {
				slots[next_slot].pid = (pid_t)r;
				snprintf(procs[nr].name, SCN_NAME_MAX, "%s",
					 st->child);
				procs[nr++].slot = next_slot++;
				r = 0;
			}
			break;
		case STMT_EXIT:
			s->op = OP_EXIT;
			__atomic_store_n(&s->req, s->req + 1, __ATOMIC_RELEASE);
			futex_wake(&s->req);
			wait_exited(s->pid);
			procs[p] = procs[--nr];
			break;
		case STMT_CHECK:
			break;
		}
		if (r)
			die("%s:%d: %s failed: %s", sc->path, st->line,
			    stmt_kind_name(st->kind), strerror((int)-r));
	}

	tracefs_write("tracing_on", "0", false);
	count_live(&l, &res->av, &res->avc);
	tracefs_write("tracing_on", "1", false);
	while (nr) {
		struct slot *s = &slots[procs[--nr].slot];

		s->op = OP_EXIT;
		__atomic_store_n(&s->req, s->req + 1, __ATOMIC_RELEASE);
		futex_wake(&s->req);
		wait_exited(s->pid);
	}
	tracefs_write("tracing_on", "0", false);
	count_live(&l, &res->left_av, &res->left_avc);
	events_enable(false);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	free(l.v);
	instance_teardown();
	files_close(&fs);
}

static pid_t runner_pid;

static void cleanup(void)
{
	if (getpid() == runner_pid)
		instance_teardown();
}

/* An interrupted run must not leave its tracefs instance behind */
static void on_signal(int sig)
{
	cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

int main(int argc, char **argv)
{
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: kmeasure FILE.scn...\n");
		return 2;
	}
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) ||
	    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
		die("prctl: %s", strerror(errno));
	slots = mmap(NULL, MAX_SLOTS * sizeof(*slots), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (slots == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	runner_pid = getpid();
	atexit(cleanup);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	for (i = 1; i < argc; i++) {
		struct scenario sc;
		struct result full, cal;
		const char *base = strrchr(argv[i], '/');

		if (scenario_parse_file(argv[i], &sc))
			return 2;
		run(&sc, false, &full);
		run(&sc, true, &cal);
		printf("%s %ld %ld (full: %ld %ld, calibration: %ld %ld, leftover: %ld %ld)\n",
		       base ? base + 1 : argv[i], full.av - cal.av,
		       full.avc - cal.avc, full.av, full.avc, cal.av, cal.avc,
		       full.left_av - cal.left_av,
		       full.left_avc - cal.left_avc);
		fflush(stdout);
		scenario_free(&sc);
	}
	return 0;
}
