/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the real kernel has at one point of a scenario: for each live
 * scenario process, its VMAs in the scenario's region (those not
 * inherited from the runner) and, for every page in them, the pagemap
 * entry and the page's kpageflags and kpagecount.
 */
#ifndef COWCTX_KERNEL_SNAPSHOT_H
#define COWCTX_KERNEL_SNAPSHOT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "kernel/procfs.h"
#include "kernel/runner.h"

struct kpage {
	unsigned long addr;
	uint64_t pm;		/* pagemap entry */
	uint64_t kflags;	/* kpageflags of its PFN, when present */
	uint64_t kcount;	/* kpagecount of its PFN, when present */
};

struct kproc_snap {
	char name[SCN_NAME_MAX];
	pid_t pid;
	struct kvma *vmas;	/* the scenario's, address order */
	int nr_vmas;
	struct kpage *pages;	/* every page of those VMAs, address order */
	unsigned long nr_pages;
};

struct ksnap {
	struct kproc_snap *procs;	/* the runner's live order */
	int nr;
};

static inline bool kpage_present(const struct kpage *p)
{
	return p->pm & PM_PRESENT;
}

static inline unsigned long kpage_pfn(const struct kpage *p)
{
	return p->pm & PM_PFN_MASK;
}

static inline bool kpage_flag(const struct kpage *p, int bit)
{
	return (p->kflags >> bit) & 1;
}

/*
 * Read the whole tree while every agent is blocked on its socket.
 * 0, or -1 with @why.
 */
int ksnap_take(struct krunner *r, const struct kpage_files *kp,
	       struct ksnap *s, char *why, size_t whylen);
void ksnap_free(struct ksnap *s);

struct kproc_snap *ksnap_find(struct ksnap *s, const char *name);
/* The page at @addr, or NULL when no scenario VMA holds it */
struct kpage *ksnap_page(struct kproc_snap *ps, unsigned long addr);

/* A human-readable dump, for debugging and tests */
void ksnap_print(const struct ksnap *s, FILE *out);

#endif /* COWCTX_KERNEL_SNAPSHOT_H */
