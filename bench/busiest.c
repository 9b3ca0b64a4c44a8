// SPDX-License-Identifier: GPL-2.0
/*
 * A scenario's busiest point, where `cowctx bench` measures a user's
 * scenario and a recording: the statement after which the most rmap
 * bytes (objects and per-VMA fields) are live on the baseline's model.
 * Both usually end with their processes gone, so the state after the
 * last statement would show no rmap at all.
 *
 * The most VMAs decide between equal bytes (and are all there is on a
 * baseline that keeps no rmap, the scan oracle); of equal points the
 * last is taken, so that the faults after the last new rmap object (a
 * page written in a VMA that already has its anonymous state) have
 * mapped their folios when the walks run.
 */
#include "bench/bench.h"

void busiest_init(struct busiest *b)
{
	b->bytes = -1;
	b->vmas = 0;
	b->after = -1;
}

void busiest_note(struct busiest *b, const struct model *m, int k)
{
	if (m->acct.bytes < b->bytes ||
	    (m->acct.bytes == b->bytes && m->nr_vmas < b->vmas))
		return;
	b->bytes = m->acct.bytes;
	b->vmas = m->nr_vmas;
	b->after = k;
}
