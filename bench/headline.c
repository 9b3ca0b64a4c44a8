// SPDX-License-Identifier: GPL-2.0
/*
 * The headline: the workload and the figures the verdict and report.md
 * both put first. One list, so that the two can never show different
 * numbers under one name: each figure is printed with the name of the
 * metric it is (bench/metrics.c), the vocabulary of bench/README.md.
 */
#include <string.h>

#include "bench/bench.h"

const struct headline_figure headline_figures[] = {
	{ M_BYTES, "rmap bytes: objects and per-VMA fields", true },
	{ M_OBJECT_BYTES, "of which objects", false },
	{ M_VMA_FIELD_BYTES, "of which per-VMA fields", false },
	{ M_FORK_ALLOCS, "rmap allocations per fork", true },
	{ M_FORK_RMAP_INSTRUCTIONS, "rmap instructions per fork (callgrind)",
	  false },
	{ M_FORK_NS, "fork time, median per call", true },
	{ M_FAMILY_LOCK_OBJECTS, "objects touched under family-shared locks",
	  false },
	{ M_EXAMINED_PER_FOUND, "VMAs examined per mapping found, reclaim walk",
	  false },
	{ M_WALK_MEAN_NS, "reclaim walk time, mean over the counted pass",
	  true },
};

const int nr_headline_figures = sizeof(headline_figures) /
				sizeof(headline_figures[0]);

/*
 * The first zygote without file VMAs that both columns ran: at the
 * quick and full sizes issue 6's V=1000 N=100, at the tiny ones the
 * tiny zygote.
 */
const struct workload_result *headline_result(const struct workload_result *res,
					      int nr)
{
	int i;

	for (i = 0; i < nr; i++)
		if (!strcmp(res[i].inst.w->name, "zygote") &&
		    !res[i].error[0] && !inst_param(&res[i].inst, "F") &&
		    res[i].have[COL_ANON_VMA] && res[i].have[COL_COW_CONTEXT])
			return &res[i];
	return NULL;
}
