/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Counting the kernel's anon_vma and anon_vma_chain objects exactly:
 * kmem:kmem_cache_alloc/free events in a private tracefs instance,
 * limited to the runner's process trees with set_event_pid and
 * options/event-fork. Slab counters are too noisy for this
 * (docs/real-kernel.md).
 */
#ifndef COWCTX_KERNEL_TRACEFS_H
#define COWCTX_KERNEL_TRACEFS_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

struct krunner;

struct ktrace_counts {
	long av_alloc;		/* anon_vma */
	long av_free;
	long avc_alloc;		/* anon_vma_chain, by rmap call sites */
	long avc_free;
	/*
	 * anon_vma_chain's slab cache is merged with fs_cache: fork's
	 * copy_fs_struct() and exit's fs_struct free land here.
	 */
	long other;
};

static inline long ktrace_live_av(const struct ktrace_counts *c)
{
	return c->av_alloc - c->av_free;
}

static inline long ktrace_live_avc(const struct ktrace_counts *c)
{
	return c->avc_alloc - c->avc_free;
}

#define KTRACE_MAX_SITES	32
#define KTRACE_SITE_MAX		64

/* Every (event, cache, call site) seen, for --verbose and for tests */
struct ktrace_site {
	bool is_free;
	char name[32];
	char site[KTRACE_SITE_MAX];
	long count;
};

struct ktrace {
	char dir[256];		/* the instance */
	int pipe_fd;
	bool created;
	char line[1024];	/* a partial line between reads */
	size_t line_len;
	struct ktrace_site sites[KTRACE_MAX_SITES];
	int nr_sites;
	long foreign;		/* events of no tree we know */
	pid_t foreign_pid;
	long unparsed;
};

/*
 * Create the instance (mounting tracefs if nobody has). Returns 0, or
 * -1 with a one-line reason in @why: the machine cannot serve.
 */
/* Shared with the recorder (kernel/record_trace.c), which has its own instance */
void tracefs_say(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int tracefs_write(const char *dir, const char *file, const char *val,
		  char *why, size_t whylen);
int tracefs_read(const char *dir, const char *file, char *buf, size_t len);
int tracefs_instance_create(char *dir, size_t dirlen, const char *prefix,
			    char *why, size_t whylen);
void tracefs_instance_remove(const char *dir);
long tracefs_lost(const char *dir);

int ktrace_open(struct ktrace *t, char *why, size_t whylen);
/*
 * Follow @pids (and, through event-fork, all their descendants) and
 * start the events. 0, or -1 with @why.
 */
int ktrace_start(struct ktrace *t, const pid_t *pids, int nr, char *why,
		 size_t whylen);
/*
 * Read every event recorded so far; each is counted into @counts[i]
 * for the tree trees[i] it came from. 0, or -1 with @why.
 */
int ktrace_drain(struct ktrace *t, struct krunner *const *trees,
		 struct ktrace_counts *counts, int nr_trees, char *why,
		 size_t whylen);
/* Events lost to a full buffer since the start (0 when all were read) */
long ktrace_lost(struct ktrace *t);
/* Stop, close and remove the instance; idempotent */
void ktrace_close(struct ktrace *t);
void ktrace_print_sites(const struct ktrace *t, FILE *out);

/* Parse one trace_pipe line: exposed for the unit test */
int ktrace_parse_line(const char *line, pid_t *pid, bool *is_free,
		      char *name, size_t namelen, char *site, size_t sitelen);

#endif /* COWCTX_KERNEL_TRACEFS_H */
