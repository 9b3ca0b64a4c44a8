/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Object accounting for reverse-map backends: every rmap object is
 * allocated through here, so live/peak counts and kernel-equivalent
 * bytes are measured, not estimated, and allocation failure can be
 * injected to test the error paths.
 */
#ifndef COWCTX_ACCOUNT_H
#define COWCTX_ACCOUNT_H

#include <stdbool.h>
#include <stddef.h>

#include <cowctx/inject.h>

#define ACCOUNT_MAX_TYPES 8

struct obj_type_stat {
	const char *name;	/* as reported in --json "objects" */
	long live;
	long peak;
	unsigned long allocs;
	unsigned long frees;
	/* registered by account_register_field(): no object of its own */
	bool field;
};

struct account {
	struct obj_type_stat type[ACCOUNT_MAX_TYPES];
	int nr_types;
	long bytes;		/* kernel-equivalent bytes live now */
	long peak_bytes;
	/* the part of bytes in fields of other structures (see below) */
	long field_bytes;
};

/* Register a type; returns its index (types are fixed per backend). */
int account_register(struct account *acct, const char *name);
/*
 * Register a type of field that lives inside another structure (a
 * backend's fields in every vm_area_struct): counted with
 * account_charge(), in bytes and field_bytes, never among the objects.
 */
int account_register_field(struct account *acct, const char *name);

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
 * Count @n fields of @type (n < 0: that many fewer), a type registered
 * by account_register_field(). Nothing is allocated: they count in
 * bytes and field_bytes, not as objects nor as allocations, so object
 * counts stay comparable with the kernel's slab counts.
 */
void account_charge(struct account *acct, int type, long n,
		    size_t kernel_bytes);

/* Objects live now: every type but the fields */
long account_live_total(const struct account *acct);
/* Bytes of the objects alone (the kernel's slabs): bytes - field_bytes */
static inline long account_object_bytes(const struct account *acct)
{
	return acct->bytes - acct->field_bytes;
}

/* Allocations that a test can make fail (alloc_fail_nth, <cowctx/inject.h>) */
void *model_zalloc(size_t size);
void *model_realloc(void *p, size_t size);
void model_free(void *p);

#endif /* COWCTX_ACCOUNT_H */
