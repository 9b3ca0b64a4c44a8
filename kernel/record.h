/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cowctx record: a real process tree, written as a scenario.
 *
 * How the pieces fit, and why:
 * - Everything that changes an address space comes from one private
 *   tracefs instance (record_trace.c): the memory system calls' enter
 *   and exit events, task_newtask (fork, vfork, thread), the exec and
 *   exit events, page faults (user and kernel mode) and the kmem events
 *   of anon_vma and anon_vma_chain. record_raw.c merges the per-CPU
 *   buffers by timestamp (one clock for every CPU), so one stream
 *   orders every process's statements, faults and rmap objects
 *   consistently, with no stop at every system call.
 * - ptrace (record_run.c) is there only for what the trace cannot say:
 *   the address space exec built, read from /proc before the program
 *   runs (PTRACE_EVENT_EXEC), and the file behind an mmap's descriptor,
 *   read at a seccomp stop that only file mmaps take (the descriptor may
 *   be closed by the time the trace is read).
 * - record_write.c turns the stream into statements; it waits, event by
 *   event, for what ptrace must supply first.
 */
#ifndef COWCTX_KERNEL_RECORD_H
#define COWCTX_KERNEL_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "kernel/procfs.h"

/* The system calls the trace follows */
enum rec_sys {
	RSYS_NONE,
	RSYS_MMAP,
	RSYS_MUNMAP,
	RSYS_MPROTECT,
	RSYS_PKEY_MPROTECT,
	RSYS_MREMAP,
	RSYS_MADVISE,
	RSYS_BRK,
	RSYS_EXECVE,
	RSYS_EXECVEAT,
	RSYS_MLOCK,
	RSYS_MLOCK2,
	RSYS_MLOCKALL,
	/*
	 * Optional: traced where the kernel has them (its configuration
	 * or version may not), from RSYS_FIRST_OPTIONAL on
	 */
	RSYS_MSEAL,
	RSYS_SHMAT,
	RSYS_SHMDT,
	RSYS_PROCESS_MADVISE,
	RSYS_PROCESS_VM_WRITEV,
	RSYS_REMAP_FILE_PAGES,
	RSYS_MBIND,
	RSYS_MAP_SHADOW_STACK,
	RSYS_MUNLOCK,
	RSYS_MUNLOCKALL,
	RSYS_PRCTL,
	RSYS_IOCTL,
	/* only to know a task is in them: fork's objects are its own */
	RSYS_CLONE,
	RSYS_CLONE3,
	RSYS_FORK,
	RSYS_VFORK,
	RSYS_NR
};

enum rec_ev_type {
	REV_NEWTASK,	/* pid: parent; child, clone_flags */
	REV_EXEC,	/* pid: new pid; old_pid */
	REV_EXIT,	/* pid: the task */
	REV_ALLOC,	/* kmem alloc of anon_vma (is_av) or anon_vma_chain */
	REV_FREE,
	REV_FAULT,	/* addr, error_code, kernel */
	REV_SYS_ENTER,	/* sys, args */
	REV_SYS_EXIT,	/* sys, ret */
};

struct rec_event {
	enum rec_ev_type type;
	pid_t pid;
	uint64_t seq;		/* order in the stream */
	uint64_t ts;		/* trace clock (CLOCK_MONOTONIC), ns */
	enum rec_sys sys;
	bool is_av;		/* kmem: anon_vma, else anon_vma_chain */
	bool kernel;		/* fault in kernel mode */
	pid_t other;		/* newtask: child; exec: old pid */
	unsigned long args[6];	/* syscall args; fault: addr, error_code */
	long ret;
	uint64_t ptr;		/* kmem: the (hashed) object pointer */
};

/* record_trace.c: the tracefs instance */
struct rec_trace {
	char dir[256];
	bool created;
};

#define RSYS_FIRST_OPTIONAL	RSYS_MSEAL
#define RSYS_LAST_OPTIONAL	RSYS_IOCTL

static inline bool rec_sys_optional(int sys)
{
	return sys >= RSYS_FIRST_OPTIONAL && sys <= RSYS_LAST_OPTIONAL;
}

/* The system calls' event names, by enum rec_sys */
extern const char *const rec_sys_names[RSYS_NR];

int rec_trace_open(struct rec_trace *t, unsigned long buffer_kb, char *why,
		   size_t whylen);
int rec_trace_start(struct rec_trace *t, pid_t pid, char *why,
		    size_t whylen);
/* Events lost to a full buffer so far */
long rec_trace_lost(struct rec_trace *t);
void rec_trace_close(struct rec_trace *t);

/* record_raw.c: the instance's per-CPU binary buffers, merged */
struct rec_raw;
struct rec_raw *rec_raw_open(const char *dir, const char *const *sys_names,
			     char *why, size_t whylen);
/*
 * Hand @emit every event read so far, oldest first (@all: also those
 * newer than the read, at the end). 1 some, 0 none, -1 a read error.
 */
int rec_raw_drain(struct rec_raw *r, bool all,
		  int (*emit)(void *arg, struct rec_event *ev), void *arg);
/* Pages that said events were lost before them */
long rec_raw_missed(const struct rec_raw *r);
void rec_raw_close(struct rec_raw *r);

/* record_layout.c: what exec built, read while the task is stopped */
struct rec_vma {
	unsigned long start, end, offset;
	int prot;
	bool shared, stack, special, anon;
	char path[KVMA_PATH_MAX];
	/* runs of pages already present: [start, end) and written */
	int nr_runs;
	struct rec_run {
		unsigned long start, end;
		bool write;
	} *runs;
};

struct rec_layout {
	unsigned long start_brk;
	int nr;
	struct rec_vma *vmas;
};

int rec_layout_read(pid_t pid, struct rec_layout *l);
void rec_layout_free(struct rec_layout *l);

/* record_names.c: a short file name per path, unique in the recording */
struct rec_names;
struct rec_names *rec_names_create(void);
void rec_names_destroy(struct rec_names *n);
/* NULL on allocation failure */
const char *rec_names_get(struct rec_names *n, const char *path);

/* A pointer set: the live rmap objects of the tree */
struct rec_ptrset {
	uint64_t *keys;
	size_t cap, nr;
	bool has_zero;
};

int rec_ptrset_add(struct rec_ptrset *s, uint64_t key);
bool rec_ptrset_del(struct rec_ptrset *s, uint64_t key);
void rec_ptrset_free(struct rec_ptrset *s);

/* record_shm.c: an address space's attached SysV segments */
struct rec_shm_att {
	unsigned long addr, len;
};

struct rec_shm_set {
	struct rec_shm_att *att;
	size_t nr, cap;
};

/* 0 or -ENOMEM */
int rec_shm_attach(struct rec_shm_set *s, unsigned long addr,
		   unsigned long len);
/* The length attached at @addr, forgotten; 0 if none was */
unsigned long rec_shm_detach(struct rec_shm_set *s, unsigned long addr);
/* fork: @dst gets @src's attachments; 0 or -ENOMEM */
int rec_shm_copy(struct rec_shm_set *dst, const struct rec_shm_set *src);
void rec_shm_free(struct rec_shm_set *s);

/* record_write.c: the stream made into statements */
struct rec_writer;

/* What file an mmap's descriptor was, read at its seccomp stop */
enum rec_file_kind {
	RFILE_REGULAR, RFILE_ZERO, RFILE_DEVICE, RFILE_BAD,
	RFILE_SHM,	/* shmat()'s SysV segment: path names it, with its size */
};

struct rec_writer *rec_writer_create(FILE *out, pid_t root);
void rec_writer_destroy(struct rec_writer *w);
/* ptrace's side: what an event in the stream will need */
int rec_writer_file(struct rec_writer *w, pid_t tid, enum rec_file_kind kind,
		    const char *path, unsigned long size);
int rec_writer_layout(struct rec_writer *w, pid_t pid, struct rec_layout *l);
void rec_writer_reaped(struct rec_writer *w, pid_t tid, uint64_t epoch);
/*
 * Handle @ev: 0 done, 1 it needs something ptrace has not yet given
 * (try again later), -1 out of memory or a write error.
 */
int rec_writer_event(struct rec_writer *w, const struct rec_event *ev);
/*
 * An exit's teardown (the kmem frees after the exit event) ends with the
 * last event of the exiting task and of each thread that left its mm
 * before it (whose mmput() may be the last): once such a task is reaped
 * and the trace drained after that (@drain_epoch moved past the reap), a
 * task whose teardown is ready to be placed, or 0.
 */
pid_t rec_writer_teardown_ready(const struct rec_writer *w,
				uint64_t drain_epoch);
/* @last_seq: its last event still queued, 0 when none is */
void rec_writer_teardown_end(struct rec_writer *w, pid_t tid,
			     uint64_t last_seq);
/* After each event: writes the recorded line once it is due */
int rec_writer_after(struct rec_writer *w);
/* Stop waiting for what ptrace should have given (it never came) */
void rec_writer_give_up(struct rec_writer *w);
int rec_writer_finish(struct rec_writer *w, const char *status);
struct rec_stats {
	long statements, events, faults, comments, skipped_faults;
	long av_live, avc_live;
};
void rec_writer_stats(const struct rec_writer *w, struct rec_stats *st);

/* record_run.c */
struct rec_opts {
	const char *out_path;	/* NULL: stdout */
	unsigned long buffer_kb;
	char **argv;
};

int rec_run(const struct rec_opts *o);

/* cowctx record's exit status when what it wrote does not replay */
#define REC_EXIT_NO_REPLAY	3

/*
 * Replay the recording at @path in the model, as `cowctx run` does:
 * 0 when it runs to its end with every walk the oracle's; 1 when it is
 * refused or a walk differs (told on stderr, FILE:LINE: what); -1 out
 * of memory.
 */
int rec_replay_check(const char *path);

#endif /* COWCTX_KERNEL_RECORD_H */
