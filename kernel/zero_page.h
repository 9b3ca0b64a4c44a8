/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Does the running kernel map the shared zero page? Stock x86-64 Linux
 * maps it on a read fault of untouched private anonymous memory; a
 * kernel where mm_forbids_zeropage() holds (and some hypervisors' guest
 * kernels) allocates an anonymous folio there instead, and with it an
 * anon_vma. The judge and the recorder run the model the same way.
 */
#ifndef COWCTX_KERNEL_ZERO_PAGE_H
#define COWCTX_KERNEL_ZERO_PAGE_H

#include <stddef.h>
#include <stdint.h>

#include "scenario/scenario.h"

/*
 * The decision from one read-faulted page's pagemap entry @pm and its
 * kpageflags @kflags: SCN_ZERO_PAGE_ON or _OFF, or SCN_ZERO_PAGE_UNSTATED
 * with the reason in @why when they cannot tell (not present, PFN
 * hidden, neither the zero page nor an anonymous page).
 */
enum scn_zero_page kzero_page_decide(uint64_t pm, uint64_t kflags,
				     char *why, size_t whylen);

/*
 * Read-fault one page of a fresh private anonymous mapping of this
 * process and decide from it (needs root: PFNs and kpageflags).
 * SCN_ZERO_PAGE_UNSTATED, with @why, when it cannot decide.
 */
enum scn_zero_page kzero_page_probe(char *why, size_t whylen);

#endif /* COWCTX_KERNEL_ZERO_PAGE_H */
