// SPDX-License-Identifier: GPL-2.0
/*
 * Forced rmap walks through page_idle; see idle_walks.h. The bitmap
 * calls and the LRU drain are the guest tests' own (guest/idle.c), so
 * that the runner and cowctx-walks force walks the same way.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guest/idle.h"
#include "kernel/idle_walks.h"

/* One mapping of a folio to walk: the first one seen tells it */
struct idle_ref {
	uint64_t pfn;
	const char *proc;
	unsigned long addr;
};

static void say(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

int kidle_open(struct kidle *k, FILE *report, long max_report, char *why,
	       size_t whylen)
{
	struct shadow_counters c;

	memset(k, 0, sizeof(*k));
	k->report = report;
	k->max_report = max_report;
	k->bitmap = open(IDLE_BITMAP, O_RDWR | O_CLOEXEC);
	if (k->bitmap < 0) {
		say(why, whylen, "--idle-walks: %s: %s (CONFIG_IDLE_PAGE_TRACKING)",
		    IDLE_BITMAP, strerror(errno));
		return -1;
	}
	shadow_read(&c);
	k->shadow_walks = k->shadow_mismatches = c.compared < 0 ? -1 : 0;
	return 0;
}

void kidle_close(struct kidle *k)
{
	if (k->bitmap >= 0)
		close(k->bitmap);
	k->bitmap = -1;
}

static int by_pfn(const void *a, const void *b)
{
	const struct idle_ref *x = a, *y = b;

	return x->pfn < y->pfn ? -1 : x->pfn > y->pfn;
}

/*
 * Every present anonymous page of @ks, sorted by PFN. The zero page and
 * page-cache folios are left out: only anonymous walks are compared.
 */
static struct idle_ref *collect(const struct ksnap *ks, size_t *nr)
{
	struct idle_ref *refs;
	size_t n = 0;
	unsigned long j;
	int i;

	for (i = 0; i < ks->nr; i++)
		n += ks->procs[i].nr_pages;
	refs = calloc(n ? n : 1, sizeof(*refs));
	if (!refs)
		return NULL;
	n = 0;
	for (i = 0; i < ks->nr; i++) {
		const struct kproc_snap *ps = &ks->procs[i];

		for (j = 0; j < ps->nr_pages; j++) {
			const struct kpage *p = &ps->pages[j];

			if (!kpage_present(p) || !kpage_pfn(p) ||
			    !kpage_flag(p, KPF_ANON) ||
			    kpage_flag(p, KPF_ZERO_PAGE))
				continue;
			refs[n].pfn = kpage_pfn(p);
			refs[n].proc = ps->name;
			refs[n++].addr = p->addr;
		}
	}
	qsort(refs, n, sizeof(*refs), by_pfn);
	*nr = n;
	return refs;
}

/*
 * One round: mark each distinct PFN idle (a walk each), then read each
 * bitmap word once (a walk of each idle folio in it). Unconfirmed walks
 * are told only when @tell. 0, or -1 with @why.
 */
static int walk_round(struct kidle *k, const struct ksnap *ks,
		      const char *where, bool tell, long *forced,
		      long *confirmed, char *why, size_t whylen)
{
	size_t i, n, told = 0;
	struct idle_ref *refs = collect(ks, &n);
	uint64_t word = 0, word_idx = UINT64_MAX;
	int ret = -1;

	*forced = *confirmed = 0;
	if (!refs) {
		say(why, whylen, "out of memory");
		return -1;
	}
	/* a folio still in a per-CPU LRU batch is not on an LRU list */
	if (n && lru_drain_all()) {
		say(why, whylen, "--idle-walks: draining the LRU batches (/proc/sys/vm/drop_caches): %s",
		    strerror(errno));
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (i && refs[i].pfn == refs[i - 1].pfn)
			continue;
		if (idle_mark(k->bitmap, refs[i].pfn)) {
			say(why, whylen, "--idle-walks: writing pfn %#llx to %s: %s",
			    (unsigned long long)refs[i].pfn, IDLE_BITMAP,
			    strerror(errno));
			goto out;
		}
		(*forced)++;
	}
	for (i = 0; i < n; i++) {
		if (i && refs[i].pfn == refs[i - 1].pfn)
			continue;
		if (refs[i].pfn / 64 != word_idx) {
			word_idx = refs[i].pfn / 64;
			if (idle_word(k->bitmap, refs[i].pfn, &word)) {
				say(why, whylen, "--idle-walks: reading pfn %#llx from %s: %s",
				    (unsigned long long)refs[i].pfn,
				    IDLE_BITMAP, strerror(errno));
				goto out;
			}
		}
		if (word & (1ULL << (refs[i].pfn % 64))) {
			(*confirmed)++;
			continue;
		}
		if (tell && k->report && told++ < (size_t)k->max_report)
			fprintf(k->report, "%s: idle walk: pfn %#llx (%s at %#lx): the idle bit is clear after the forced walk, so page_idle did not walk the folio\n",
				where, (unsigned long long)refs[i].pfn,
				refs[i].proc, refs[i].addr);
	}
	ret = 0;
out:
	free(refs);
	return ret;
}

int kidle_walk_check(struct kidle *k, struct krunner *r,
		     const struct kpage_files *kp, struct ksnap *ks,
		     const char *where, char *why, size_t whylen)
{
	struct shadow_counters before, after;
	long forced, confirmed;
	struct ksnap again;
	int ret;

	shadow_read(&before);
	ret = walk_round(k, ks, where, false, &forced, &confirmed, why,
			 whylen);
	if (!ret && confirmed < forced) {
		k->retried++;
		ret = ksnap_take(r, kp, &again, why, whylen);
		if (!ret) {
			ret = walk_round(k, &again, where, true, &forced,
					 &confirmed, why, whylen);
			ksnap_free(&again);
		}
	}
	if (ret)
		return ret;
	k->forced += forced;
	k->confirmed += confirmed;
	shadow_read(&after);
	if (k->shadow_walks >= 0 && shadow_walks(&before, &after) >= 0 &&
	    before.mismatches >= 0 && after.mismatches >= 0) {
		k->shadow_walks += shadow_walks(&before, &after);
		k->shadow_mismatches += after.mismatches - before.mismatches;
	} else {
		k->shadow_walks = k->shadow_mismatches = -1;
	}
	return 0;
}
