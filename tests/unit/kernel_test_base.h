/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For the kernel_* tests: scenario text at an address this process
 * (and so every agent forked from it) leaves free. The corpus's
 * 0x100000000000 is a sanitizer's shadow under ASan, and TSan guards
 * most of the address space; a "$OFF" in a template becomes
 * base + 0xOFF.
 */
#ifndef COWCTX_TEST_KERNEL_BASE_H
#define COWCTX_TEST_KERNEL_BASE_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>

#include "kernel/kernel.h"
#include "kernel/procfs.h"
#include "kernel/tracefs.h"

#define TEST_SPAN	(1UL << 32)	/* what the tests may use of it */
#define TEST_MARGIN	(1UL << 20)

static unsigned long test_base;

/* The first candidate clear of every VMA of ours; 0 if none is */
static unsigned long find_test_base(void)
{
	static const unsigned long candidates[] = {
		0x100000000000UL, 0x200000000000UL, 0x300000000000UL,
		0x7000000000UL, 0x6000000000UL,
	};
	struct kvma *v;
	size_t c;
	int i, nr;

	if (proc_read_vmas(getpid(), false, &v, &nr))
		return 0;
	for (c = 0; c < sizeof(candidates) / sizeof(candidates[0]); c++) {
		unsigned long lo = candidates[c] - TEST_MARGIN;
		unsigned long hi = candidates[c] + TEST_SPAN + TEST_MARGIN;

		for (i = 0; i < nr; i++)
			if (v[i].start < hi && v[i].end > lo)
				break;
		if (i == nr) {
			free(v);
			return candidates[c];
		}
	}
	free(v);
	return 0;
}

/* @tmpl with each "$HEX" replaced by test_base + 0xHEX; malloc()ed */
static char *at_base(const char *tmpl)
{
	size_t cap = strlen(tmpl) * 2 + 64, off = 0;
	char *out = malloc(cap);

	while (out && *tmpl) {
		if (cap - off < 64) {
			char *n = realloc(out, cap * 2);

			if (!n) {
				free(out);
				return NULL;
			}
			out = n;
			cap *= 2;
		}
		if (*tmpl == '$') {
			char *end;
			unsigned long v = strtoul(tmpl + 1, &end, 16);

			off += snprintf(out + off, cap - off, "%#lx",
					test_base + v);
			tmpl = end;
		} else {
			out[off++] = *tmpl++;
		}
	}
	if (out)
		out[off] = '\0';
	return out;
}

/*
 * Can real-kernel tests run here? If not, print the TAP skip line with
 * the reason and say no. If so, test_base is set and this process
 * reaps orphaned agents (a child subreaper).
 */
static inline bool kernel_tests_can_run(void)
{
	struct ktrace t;
	char why[256];

	if (KERNEL_UNDER_TSAN) {
		printf("1..0 # SKIP ThreadSanitizer runs a thread in every agent\n");
		return false;
	}
	if (geteuid() != 0) {
		printf("1..0 # SKIP not root\n");
		return false;
	}
	if (ktrace_open(&t, why, sizeof(why))) {
		printf("1..0 # SKIP %s\n", why);
		return false;
	}
	ktrace_close(&t);
	test_base = find_test_base();
	if (!test_base) {
		printf("1..0 # SKIP no free address range for the scenarios\n");
		return false;
	}
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	return true;
}

#endif /* COWCTX_TEST_KERNEL_BASE_H */
