/* SPDX-License-Identifier: GPL-2.0 */
/* A tiny TAP producer for the C unit tests (run under prove). */
#ifndef COWCTX_TAP_H
#define COWCTX_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

static int tap_count;
static int tap_failed;

/*
 * Every unit test runs the model with the VMA tree's keys checked
 * against the VMAs after each change (mm/vma_tree.c): a writer that
 * moves a VMA's edge behind the tree's back fails where it does so.
 */
extern bool vma_tree_debug;

__attribute__((constructor)) static void tap_model_debug(void)
{
	vma_tree_debug = true;
}

static inline void tap_plan(int n)
{
	printf("1..%d\n", n);
}

static inline void tap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static inline int tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;

	tap_count++;
	if (!cond) {
		tap_failed++;
		printf("not ");
	}
	printf("ok %d - ", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	return cond;
}

#define ok(cond, ...) tap_ok(!!(cond), __VA_ARGS__)

#define is_long(got, want, ...)						\
	({								\
		long __g = (long)(got), __w = (long)(want);		\
		int __r = tap_ok(__g == __w, __VA_ARGS__);		\
		if (!__r)						\
			tap_diag("  got %ld, want %ld", __g, __w);	\
		__r;							\
	})

/* End without a plan given up front; exit status says if all passed. */
static inline int tap_done(void)
{
	printf("1..%d\n", tap_count);
	return tap_failed ? 1 : 0;
}

#endif /* COWCTX_TAP_H */
