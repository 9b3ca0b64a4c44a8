/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Readers for what the kernel shows of a process's memory:
 * /proc/PID/smaps (VMAs), /proc/PID/pagemap (PTEs), /proc/kpageflags
 * and /proc/kpagecount (the pages themselves). Documented in the
 * kernel's Documentation/admin-guide/mm/pagemap.rst.
 */
#ifndef COWCTX_KERNEL_PROCFS_H
#define COWCTX_KERNEL_PROCFS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* pagemap entry bits */
#define PM_PRESENT	(1ULL << 63)
#define PM_SWAP		(1ULL << 62)
#define PM_FILE		(1ULL << 61)	/* file page or shared anon */
#define PM_EXCLUSIVE	(1ULL << 56)	/* mapped exactly once */
#define PM_PFN_MASK	((1ULL << 55) - 1)

/* kpageflags bits (include/uapi/linux/kernel-page-flags.h) */
#define KPF_COMPOUND_HEAD	15
#define KPF_COMPOUND_TAIL	16
#define KPF_ANON		12
#define KPF_KSM			21
#define KPF_THP			22
#define KPF_ZERO_PAGE		24

#define KVMA_PATH_MAX	512

struct kvma {
	unsigned long start;
	unsigned long end;
	int prot;		/* PROT_* */
	bool shared;
	bool dontcopy;		/* VmFlags "dc": MADV_DONTFORK */
	bool wipeonfork;	/* VmFlags "wf": MADV_WIPEONFORK */
	bool has_vmflags;	/* read from smaps, not maps */
	unsigned long offset;	/* file offset in bytes (0 for anon) */
	char path[KVMA_PATH_MAX];	/* "" for anonymous memory */
};

/*
 * Every VMA of @pid, from smaps when @smaps (VmFlags too) else maps.
 * *vmasp is malloc()ed. Returns 0 or -errno.
 */
int proc_read_vmas(pid_t pid, bool smaps, struct kvma **vmasp, int *nrp);

/* /proc/PID/pagemap, opened read-only; -errno on failure */
int proc_pagemap_open(pid_t pid);
/* @npages entries from virtual address @start; 0 or -errno */
int proc_pagemap_read(int fd, unsigned long start, unsigned long npages,
		      uint64_t *out);

struct kpage_files {
	int flags_fd;
	int count_fd;
};

int kpage_open(struct kpage_files *kp);
void kpage_close(struct kpage_files *kp);
/* kpageflags and kpagecount of @pfn; 0 or -errno */
int kpage_read(const struct kpage_files *kp, unsigned long pfn,
	       uint64_t *flags, uint64_t *count);

#endif /* COWCTX_KERNEL_PROCFS_H */
