/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Object accounting for reverse-map backends: every rmap object is
 * allocated through here, so live/peak counts and kernel-equivalent
 * bytes are measured, not estimated, and allocation failure can be
 * injected to test the error paths.
 */
#ifndef COWCTX_ACCOUNT_H
#define COWCTX_ACCOUNT_H

#include <stddef.h>

#define ACCOUNT_MAX_TYPES 8

struct obj_type_stat {
	const char *name;	/* as reported in --json "objects" */
	long live;
	long peak;
	unsigned long allocs;
	unsigned long frees;
};

struct account {
	struct obj_type_stat type[ACCOUNT_MAX_TYPES];
	int nr_types;
	long bytes;		/* kernel-equivalent bytes live now */
	long peak_bytes;
};

/* Register a type; returns its index (types are fixed per backend). */
int account_register(struct account *acct, const char *name);

/*
 * Allocate @size zeroed bytes for an object of @type whose kernel
 * counterpart occupies @kernel_bytes. Returns NULL on failure (real or
 * injected), counting nothing.
 */
void *account_alloc(struct account *acct, int type, size_t size,
		    size_t kernel_bytes);
void account_free(struct account *acct, int type, void *p,
		  size_t kernel_bytes);

/*
 * Count @n objects of @type (n < 0: that many fewer) that live inside
 * another structure, so nothing is allocated: a field a backend adds to
 * every VMA, say. They count in "objects" and "bytes" like the rest,
 * but not as allocations.
 */
void account_charge(struct account *acct, int type, long n,
		    size_t kernel_bytes);

long account_live_total(const struct account *acct);

/*
 * Fault injection, process-wide like the kernel's failslab: when
 * fail_nth is N > 0, the Nth allocation from now fails (model and
 * backends alike). 0 disables it.
 */
extern long alloc_fail_nth;
void *model_zalloc(size_t size);
void *model_realloc(void *p, size_t size);
void model_free(void *p);

#endif /* COWCTX_ACCOUNT_H */
