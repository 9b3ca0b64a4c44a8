// SPDX-License-Identifier: GPL-2.0
/* Reading the real tree's VMAs and pages at a check; see snapshot.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/snapshot.h"

/* Pages can move under us (compaction): reread until two reads agree */
#define SNAP_TRIES	5

static void say(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

/* Keep only the VMAs the scenario made: the agents' own overlap r->own */
static int read_vmas(struct krunner *r, struct kproc_snap *ps, char *why,
		     size_t whylen)
{
	struct kvma *all;
	int i, n, nr, err = proc_read_vmas(ps->pid, true, &all, &nr);

	if (err) {
		say(why, whylen, "/proc/%d/smaps (%s): %s", (int)ps->pid,
		    ps->name, strerror(-err));
		return -1;
	}
	for (i = n = 0; i < nr; i++)
		if (!krunner_overlaps_own(r, all[i].start, all[i].end, 0))
			all[n++] = all[i];
	ps->vmas = all;
	ps->nr_vmas = n;
	return 0;
}

/*
 * Opened for each read, not held for the whole snapshot: a descriptor
 * per process would double what a large tree needs (kernel/limits.h).
 */
static int read_pagemap(struct kproc_snap *ps, uint64_t *pm, char *why,
			size_t whylen)
{
	unsigned long done = 0;
	int i, err = 0, fd = proc_pagemap_open(ps->pid);

	if (fd < 0)
		err = fd;
	for (i = 0; !err && i < ps->nr_vmas; i++) {
		const struct kvma *v = &ps->vmas[i];
		unsigned long n = (v->end - v->start) / 4096;

		err = proc_pagemap_read(fd, v->start, n, pm + done);
		done += n;
	}
	if (fd >= 0)
		close(fd);
	if (err) {
		say(why, whylen, "/proc/%d/pagemap (%s): %s", (int)ps->pid,
		    ps->name, strerror(-err));
		return -1;
	}
	return 0;
}

static int alloc_pages(struct kproc_snap *ps, char *why, size_t whylen)
{
	unsigned long n = 0, k = 0, a;
	int i;

	for (i = 0; i < ps->nr_vmas; i++)
		n += (ps->vmas[i].end - ps->vmas[i].start) / 4096;
	ps->nr_pages = n;
	ps->pages = calloc(n ? n : 1, sizeof(*ps->pages));
	if (!ps->pages) {
		say(why, whylen, "out of memory");
		return -1;
	}
	for (i = 0; i < ps->nr_vmas; i++)
		for (a = ps->vmas[i].start; a < ps->vmas[i].end; a += 4096)
			ps->pages[k++].addr = a;
	return 0;
}

/* One read of every process's pagemap into @pm[i] */
static int read_all_pagemaps(struct ksnap *s, uint64_t **pm, char *why,
			     size_t whylen)
{
	int i;

	for (i = 0; i < s->nr; i++)
		if (read_pagemap(&s->procs[i], pm[i], why, whylen))
			return -1;
	return 0;
}

static int read_pages(struct ksnap *s, const struct kpage_files *kp,
		      char *why, size_t whylen)
{
	uint64_t **pm = calloc(s->nr ? s->nr : 1, sizeof(*pm));
	int i, try, ret = -1;
	unsigned long j;

	if (!pm) {
		say(why, whylen, "out of memory");
		return -1;
	}
	for (i = 0; i < s->nr; i++) {
		pm[i] = calloc(s->procs[i].nr_pages ? s->procs[i].nr_pages : 1,
			       sizeof(uint64_t));
		if (!pm[i]) {
			say(why, whylen, "out of memory");
			goto out;
		}
	}
	for (try = 0; try < SNAP_TRIES; try++) {
		bool same = true;

		for (i = 0; i < s->nr; i++)
			for (j = 0; j < s->procs[i].nr_pages; j++)
				s->procs[i].pages[j].pm = pm[i][j];
		if (read_all_pagemaps(s, pm, why, whylen))
			goto out;
		for (i = 0; i < s->nr && same; i++)
			for (j = 0; j < s->procs[i].nr_pages; j++)
				if (s->procs[i].pages[j].pm != pm[i][j] ||
				    !try) {
					same = false;
					break;
				}
		if (same)
			break;
	}
	if (try == SNAP_TRIES) {
		say(why, whylen, "pagemap keeps changing under paused processes");
		goto out;
	}
	for (i = 0; i < s->nr; i++) {
		for (j = 0; j < s->procs[i].nr_pages; j++) {
			struct kpage *p = &s->procs[i].pages[j];
			int err;

			if (!kpage_present(p))
				continue;
			err = kpage_read(kp, kpage_pfn(p), &p->kflags,
					 &p->kcount);
			if (err) {
				say(why, whylen, "/proc/kpageflags: pfn %#lx: %s",
				    kpage_pfn(p), strerror(-err));
				goto out;
			}
		}
	}
	ret = 0;
out:
	for (i = 0; i < s->nr; i++)
		free(pm[i]);
	free(pm);
	return ret;
}

int ksnap_take(struct krunner *r, const struct kpage_files *kp,
	       struct ksnap *s, char *why, size_t whylen)
{
	int i, ret = -1;

	memset(s, 0, sizeof(*s));
	s->procs = calloc(r->nr_procs ? r->nr_procs : 1, sizeof(*s->procs));
	if (!s->procs) {
		say(why, whylen, "out of memory");
		goto out;
	}
	for (i = 0; i < r->nr_procs; i++) {
		struct kproc_snap *ps = &s->procs[i];

		s->nr++;
		memcpy(ps->name, r->procs[i].name, sizeof(ps->name));
		ps->pid = r->procs[i].pid;
		if (read_vmas(r, ps, why, whylen) ||
		    alloc_pages(ps, why, whylen))
			goto out;
	}
	ret = read_pages(s, kp, why, whylen);
out:
	if (ret)
		ksnap_free(s);
	return ret;
}

void ksnap_free(struct ksnap *s)
{
	int i;

	for (i = 0; i < s->nr; i++) {
		free(s->procs[i].vmas);
		free(s->procs[i].pages);
	}
	free(s->procs);
	s->procs = NULL;
	s->nr = 0;
}

struct kproc_snap *ksnap_find(struct ksnap *s, const char *name)
{
	int i;

	for (i = 0; i < s->nr; i++)
		if (!strcmp(s->procs[i].name, name))
			return &s->procs[i];
	return NULL;
}

struct kpage *ksnap_page(struct kproc_snap *ps, unsigned long addr)
{
	unsigned long lo = 0, hi = ps->nr_pages;

	while (lo < hi) {
		unsigned long mid = lo + (hi - lo) / 2;

		if (ps->pages[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ps->nr_pages && ps->pages[lo].addr == addr ?
		&ps->pages[lo] : NULL;
}

static const char *prot_str(int prot, char *buf)
{
	buf[0] = prot & 1 ? 'r' : '-';
	buf[1] = prot & 2 ? 'w' : '-';
	buf[2] = prot & 4 ? 'x' : '-';
	buf[3] = '\0';
	return buf;
}

void ksnap_print(const struct ksnap *s, FILE *out)
{
	unsigned long j;
	char pb[4];
	int i, v;

	for (i = 0; i < s->nr; i++) {
		const struct kproc_snap *ps = &s->procs[i];

		fprintf(out, "%s (pid %d):\n", ps->name, (int)ps->pid);
		for (v = 0; v < ps->nr_vmas; v++)
			fprintf(out, "  vma %#lx-%#lx %s%s%s %s\n",
				ps->vmas[v].start, ps->vmas[v].end,
				prot_str(ps->vmas[v].prot, pb),
				ps->vmas[v].dontcopy ? " dontfork" : "",
				ps->vmas[v].wipeonfork ? " wipeonfork" : "",
				ps->vmas[v].path[0] ? ps->vmas[v].path : "anon");
		for (j = 0; j < ps->nr_pages; j++) {
			const struct kpage *p = &ps->pages[j];

			if (!kpage_present(p))
				continue;
			fprintf(out, "  %#lx pfn %#lx%s%s%s count %lu\n",
				p->addr, kpage_pfn(p),
				kpage_flag(p, KPF_ZERO_PAGE) ? " zero" :
				kpage_flag(p, KPF_ANON) ? " anon" : " file",
				p->pm & PM_EXCLUSIVE ? " exclusive" : "",
				p->pm & PM_SWAP ? " swapped" : "",
				(unsigned long)p->kcount);
		}
	}
}
