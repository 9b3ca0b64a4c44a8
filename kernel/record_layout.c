// SPDX-License-Identifier: GPL-2.0
/*
 * The address space exec built, read at the exec stop before the
 * program runs: its VMAs (/proc/PID/maps), where its heap starts
 * (/proc/PID/stat) and the pages the kernel filled in without a fault
 * event (pagemap): the argument pages on the stack, and the tail of
 * .data that the ELF loader zeroes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "kernel/procfs.h"
#include "kernel/record.h"

#define PAGE		4096UL
/* The user half of x86-64; [vsyscall] lies above it and is no VMA */
#define USER_TOP	0x800000000000UL

/* start_brk is field 47 of /proc/PID/stat (proc_pid_stat(5)) */
static int read_start_brk(pid_t pid, unsigned long *out)
{
	char path[64], buf[4096], *p, *end;
	ssize_t n;
	FILE *f;
	int field;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n > 0 ? n : 0] = '\0';
	/* the command name may hold anything but ends at the last ')' */
	p = strrchr(buf, ')');
	if (!p)
		return -EINVAL;
	p++;
	for (field = 3; field < 47; field++) {
		p += strspn(p, " ");
		p += strcspn(p, " ");
	}
	*out = strtoul(p, &end, 10);
	return end == p ? -EINVAL : 0;
}

static bool is_special(const char *path)
{
	return !strcmp(path, "[vdso]") || !strcmp(path, "[vvar]") ||
	       !strcmp(path, "[vvar_vclock]") || !strcmp(path, "[uprobes]");
}

/* Runs of present pages: exclusively mapped anon ones were written */
static int read_runs(int pm, struct rec_vma *v)
{
	unsigned long npages = (v->end - v->start) / PAGE, i;
	uint64_t *ents;
	int ret, cap = 0;

	ents = malloc(npages * sizeof(*ents));
	if (!ents)
		return -ENOMEM;
	ret = proc_pagemap_read(pm, v->start, npages, ents);
	if (ret)
		goto out;
	for (i = 0; i < npages; i++) {
		bool write;
		struct rec_run *r;

		if (!(ents[i] & PM_PRESENT))
			continue;
		write = !(ents[i] & PM_FILE) && (ents[i] & PM_EXCLUSIVE);
		r = v->nr_runs ? &v->runs[v->nr_runs - 1] : NULL;
		if (r && r->end == v->start + i * PAGE && r->write == write) {
			r->end += PAGE;
			continue;
		}
		if (v->nr_runs == cap) {
			int ncap = cap ? cap * 2 : 4;
			struct rec_run *nr = realloc(v->runs,
						     ncap * sizeof(*nr));

			if (!nr) {
				ret = -ENOMEM;
				goto out;
			}
			v->runs = nr;
			cap = ncap;
		}
		r = &v->runs[v->nr_runs++];
		r->start = v->start + i * PAGE;
		r->end = r->start + PAGE;
		r->write = write;
	}
out:
	free(ents);
	return ret;
}

int rec_layout_read(pid_t pid, struct rec_layout *l)
{
	struct kvma *kv = NULL;
	int nr = 0, i, pm, ret;

	memset(l, 0, sizeof(*l));
	ret = read_start_brk(pid, &l->start_brk);
	if (ret)
		return ret;
	ret = proc_read_vmas(pid, false, &kv, &nr);
	if (ret)
		return ret;
	l->vmas = calloc(nr ? nr : 1, sizeof(*l->vmas));
	if (!l->vmas) {
		free(kv);
		return -ENOMEM;
	}
	pm = proc_pagemap_open(pid);
	if (pm < 0) {
		free(kv);
		return pm;
	}
	for (i = 0; i < nr; i++) {
		struct rec_vma *v = &l->vmas[l->nr];

		if (kv[i].start >= USER_TOP)
			continue;
		v->start = kv[i].start;
		v->end = kv[i].end;
		v->offset = kv[i].offset;
		v->prot = kv[i].prot;
		v->shared = kv[i].shared;
		v->stack = !strcmp(kv[i].path, "[stack]");
		v->special = is_special(kv[i].path);
		v->anon = !kv[i].path[0] || kv[i].path[0] == '[';
		snprintf(v->path, sizeof(v->path), "%s", kv[i].path);
		l->nr++;
		/* special mappings hold no anon rmap: their pages matter not */
		if (!v->special) {
			ret = read_runs(pm, v);
			if (ret)
				break;
		}
	}
	close(pm);
	free(kv);
	if (ret)
		rec_layout_free(l);
	return ret;
}

void rec_layout_free(struct rec_layout *l)
{
	int i;

	for (i = 0; i < l->nr; i++)
		free(l->vmas[i].runs);
	free(l->vmas);
	memset(l, 0, sizeof(*l));
}
