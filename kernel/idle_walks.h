/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cowctx kernel --idle-walks: at a check, one reverse-map walk forced on
 * every anonymous folio the scenario's processes map. Each present
 * anonymous PFN of a snapshot is written to the page_idle bitmap, which
 * makes the kernel walk that folio's rmap (page_idle_clear_pte_refs())
 * and then mark it idle; reading the bit back walks it again and shows
 * the first walk ran: the bit is set only on a folio that page_idle took
 * (on an LRU list) and in which no walk found a young PTE. Under the
 * patched guest kernel's cow_context=shadow each of those walks is
 * compared between anon_vma and the COW context (guest/idle.h).
 */
#ifndef COWCTX_KERNEL_IDLE_WALKS_H
#define COWCTX_KERNEL_IDLE_WALKS_H

#include <stdio.h>

#include "kernel/snapshot.h"

struct kidle {
	int bitmap;		/* the page_idle bitmap, read-write */
	FILE *report;		/* unconfirmed walks are told here */
	long max_report;
	/* totals over the run */
	long forced;		/* distinct anonymous PFNs written */
	long confirmed;		/* of those, idle bit read back set */
	long retried;		/* checks whose first round missed some */
	/* the shadow check's own count of the walks, -1 without it */
	long long shadow_walks;
	long long shadow_mismatches;
};

/* 0, or -1 with @why: no page_idle bitmap, or it cannot be opened */
int kidle_open(struct kidle *k, FILE *report, long max_report, char *why,
	       size_t whylen);
void kidle_close(struct kidle *k);

/*
 * Force and confirm a walk of every anonymous folio in @ks, whose
 * processes are all paused. A folio can move between the snapshot and
 * the walk (compaction), so a round that leaves any walk unconfirmed is
 * repeated once on a fresh snapshot of @r; the last round counts.
 * 0, or -1 with @why when the bitmap or a snapshot cannot be read.
 * @where prefixes each unconfirmed walk told.
 */
int kidle_walk_check(struct kidle *k, struct krunner *r,
		     const struct kpage_files *kp, struct ksnap *ks,
		     const char *where, char *why, size_t whylen);

#endif /* COWCTX_KERNEL_IDLE_WALKS_H */
