// SPDX-License-Identifier: GPL-2.0
/*
 * From one backend's run to its figures (bench/README.md defines each),
 * and the ratio cow_context / anon_vma of every figure.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/bench.h"

static const char *const names[M_PHASE_BASE] = {
	[M_MMS] = "mms",
	[M_VMAS] = "vmas",
	[M_ANON_FOLIOS] = "anon_folios",
	[M_OBJECTS] = "objects",
	[M_BYTES] = "bytes",
	[M_OBJECT_BYTES] = "object_bytes",
	[M_VMA_FIELD_BYTES] = "vma_field_bytes",
	[M_PEAK_BYTES] = "peak_bytes",
	[M_RMAP_TO_VMA_BYTES] = "rmap_to_vma_bytes",
	[M_MID_BYTES] = "mid_exit_bytes",
	[M_FORKS] = "forks",
	[M_FORK_ALLOCS] = "fork_allocs",
	[M_FORK_NS] = "fork_ns",
	[M_FORK_INSTRUCTIONS] = "fork_instructions",
	[M_FORK_RMAP_INSTRUCTIONS] = "fork_rmap_instructions",
	[M_WALKS] = "walks",
	[M_WALK_NS] = "walk_ns",
	[M_WALK_MEAN_NS] = "walk_mean_ns",
	[M_EXAMINED_PER_FOUND] = "examined_per_found",
	[M_WALK_MISSED] = "walk_missed",
	[M_FULL_WALK_NS] = "full_walk_ns",
	[M_FULL_WALK_MEAN_NS] = "full_walk_mean_ns",
	[M_EXAMINED_PER_FOUND_FULL] = "examined_per_found_full",
	[M_EXITS] = "exits",
	[M_EXIT_NS] = "exit_ns",
	[M_FAMILY_LOCK_ACQUISITIONS] = "family_lock_acquisitions",
	[M_FAMILY_LOCK_OBJECTS] = "family_lock_objects",
	[M_FAMILY_LOCK_MAX_OBJECTS] = "family_lock_max_objects",
	[M_TOTAL_NS] = "total_ns",
	[M_RMAP_TIME_SHARE] = "rmap_time_share",
	[M_LEAK_BYTES] = "leak_bytes",
	[M_MAIN_OBJECTS] = "main_objects",
};

static const char *const phase_what[PM_NR] = {
	[PM_CALLS] = "calls",
	[PM_TIME_NS] = "time_ns",
	[PM_ALLOCS] = "rmap_allocs",
	[PM_LOCK_ACQ] = "lock_acquisitions",
	[PM_LOCK_OBJECTS] = "lock_objects",
};

const char *metric_name(int metric)
{
	static char buf[NR_METRICS][40];
	int ph, what;

	if (metric < M_PHASE_BASE)
		return names[metric];
	ph = (metric - M_PHASE_BASE) / PM_NR;
	what = (metric - M_PHASE_BASE) % PM_NR;
	if (!buf[metric][0])
		snprintf(buf[metric], sizeof(buf[metric]), "%s_%s",
			 bench_phase_name[ph], phase_what[what]);
	return buf[metric];
}

bool metric_is_cost(int metric)
{
	switch (metric) {
	case M_MMS:
	case M_VMAS:
	case M_ANON_FOLIOS:
	case M_FORKS:
	case M_WALKS:
	case M_EXITS:
		return false;
	case M_PHASE_BASE ... NR_METRICS - 1:
		return (metric - M_PHASE_BASE) % PM_NR != PM_CALLS;
	default:
		return true;
	}
}

bool metric_is_time(int metric)
{
	switch (metric) {
	case M_FORK_NS:
	case M_WALK_NS:
	case M_WALK_MEAN_NS:
	case M_FULL_WALK_NS:
	case M_FULL_WALK_MEAN_NS:
	case M_EXIT_NS:
	case M_TOTAL_NS:
		return true;
	case M_PHASE_BASE ... NR_METRICS - 1:
		return (metric - M_PHASE_BASE) % PM_NR == PM_TIME_NS;
	default:
		return false;
	}
}

bool metric_is_per_call(int metric)
{
	return metric == M_FORK_NS || metric == M_WALK_NS ||
	       metric == M_FULL_WALK_NS || metric == M_EXIT_NS;
}

void metric_set_clear(struct metric_set *ms)
{
	int i;

	for (i = 0; i < NR_METRICS; i++)
		ms->v[i] = ms->q1[i] = ms->q3[i] = NAN;
}

/*
 * The Android comparison needs the kernel's vm_area_struct cost: read
 * it from this kernel's slab where possible (192 bytes on 6.18 x86-64).
 */
unsigned long vma_slab_bytes(void)
{
	static unsigned long bytes;
	FILE *f;

	if (bytes)
		return bytes;
	bytes = 192;
	f = fopen("/sys/kernel/slab/vm_area_struct/slab_size", "r");
	if (f) {
		unsigned long v;

		if (fscanf(f, "%lu", &v) == 1 && v >= 64 && v <= 1024)
			bytes = v;
		fclose(f);
	}
	return bytes;
}

static double div_or_nan(double a, double b)
{
	return b ? a / b : NAN;
}

/* the median of @s into ms->v[@m], its quartiles beside it */
static void per_call(struct metric_set *ms, int m, const struct sample_set *s)
{
	if (!s->nr)
		return;
	ms->v[m] = (double)sample_median(s);
	ms->q1[m] = sample_quartile(s, 1);
	ms->q3[m] = sample_quartile(s, 3);
}

void metrics_from_run(const struct bench_run *br,
		      const struct bench_run *scan, struct metric_set *ms)
{
	const struct phase_stat *fork = &br->phase[PH_FORK];
	unsigned long acq = 0, objs = 0, max = 0, total = 0;
	int ph;

	metric_set_clear(ms);
	if (br->snapped) {
		ms->v[M_MMS] = br->snap_mms;
		ms->v[M_VMAS] = br->snap_vmas;
		ms->v[M_ANON_FOLIOS] = br->snap_folios;
		ms->v[M_OBJECTS] = br->snap_objects;
		ms->v[M_BYTES] = br->snap_bytes;
		ms->v[M_OBJECT_BYTES] = br->snap_bytes - br->snap_field_bytes;
		ms->v[M_VMA_FIELD_BYTES] = br->snap_field_bytes;
		if (br->snap_main >= 0)
			ms->v[M_MAIN_OBJECTS] = br->snap_main;
		/*
		 * Slab against slab, as Android's figure is: the per-VMA
		 * fields are inside the vm_area_struct slab already.
		 */
		ms->v[M_RMAP_TO_VMA_BYTES] =
			div_or_nan(br->snap_bytes - br->snap_field_bytes,
				   (double)br->snap_vmas * vma_slab_bytes());
	}
	ms->v[M_PEAK_BYTES] = br->peak_bytes;
	if (br->marked)
		ms->v[M_MID_BYTES] = br->mark_bytes;
	ms->v[M_FORKS] = fork->calls;
	ms->v[M_FORK_ALLOCS] = div_or_nan(fork->allocs, fork->calls);
	per_call(ms, M_FORK_NS, &br->fork_ns);
	ms->v[M_FORK_INSTRUCTIONS] = br->fork_instructions;
	if (!br->skip_walk) {
		const struct walk_pass *rw = &br->walk[WALK_RECLAIM];
		const struct walk_pass *fw = &br->walk[WALK_FULL];

		ms->v[M_WALKS] = rw->walks;
		per_call(ms, M_WALK_NS, &rw->ns);
		/*
		 * The mean: the counted pass's time over its walks, the
		 * walks as they run, caches as they are, no clock read
		 * between them (the per-call samples are the timing
		 * pass's, repeated walks in a warm cache: bench/exec.c).
		 */
		ms->v[M_WALK_MEAN_NS] = div_or_nan(br->phase[PH_WALK].ns,
						   rw->walks);
		ms->v[M_EXAMINED_PER_FOUND] = div_or_nan(rw->examined,
							 rw->found);
		ms->v[M_WALK_MISSED] = rw->missed + fw->missed + fw->extra;
		per_call(ms, M_FULL_WALK_NS, &fw->ns);
		ms->v[M_FULL_WALK_MEAN_NS] =
			div_or_nan(br->phase[PH_FULL_WALK].ns, fw->walks);
		ms->v[M_EXAMINED_PER_FOUND_FULL] = div_or_nan(fw->examined,
							      fw->found);
	}
	ms->v[M_EXITS] = br->phase[PH_EXIT].calls;
	per_call(ms, M_EXIT_NS, &br->exit_ns);
	for (ph = 0; ph < NR_PHASES; ph++) {
		const struct phase_stat *ps = &br->phase[ph];

		if ((ph == PH_WALK || ph == PH_FULL_WALK) && br->skip_walk)
			continue;
		ms->v[M_PHASE(ph, PM_CALLS)] = ps->calls;
		ms->v[M_PHASE(ph, PM_TIME_NS)] = ps->ns;
		ms->v[M_PHASE(ph, PM_ALLOCS)] = ps->allocs;
		ms->v[M_PHASE(ph, PM_LOCK_ACQ)] = ps->lock_acquired;
		ms->v[M_PHASE(ph, PM_LOCK_OBJECTS)] = ps->lock_objects;
		acq += ps->lock_acquired;
		objs += ps->lock_objects;
		if (ps->lock_max > max)
			max = ps->lock_max;
		total += ps->ns;
	}
	ms->v[M_FAMILY_LOCK_ACQUISITIONS] = acq;
	ms->v[M_FAMILY_LOCK_OBJECTS] = objs;
	ms->v[M_FAMILY_LOCK_MAX_OBJECTS] = max;
	ms->v[M_TOTAL_NS] = total;
	/* rmap_time_share is bench/run.c's: it needs every replay */
	if (scan && scan != br)
		ms->v[M_FORK_RMAP_INSTRUCTIONS] = br->fork_instructions -
						  scan->fork_instructions;
	if (br->leak_bytes >= 0)
		ms->v[M_LEAK_BYTES] = br->leak_bytes;
}

double metric_ratio(double cow, double anon)
{
	if (isnan(cow) || isnan(anon))
		return NAN;
	if (anon == 0)
		return cow == 0 ? 1.0 : NAN;
	return cow / anon;
}
