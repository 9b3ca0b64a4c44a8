// SPDX-License-Identifier: GPL-2.0
/*
 * cowctx record's tracefs instance: the events that change a recorded
 * tree's memory (record_raw.c reads them).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/record.h"
#include "kernel/tracefs.h"

#define KMEM_FILTER	"name == \"anon_vma\" || name == \"anon_vma_chain\""
/*
 * The rmap's own allocations (mm/rmap.c): anon_vma_chain's slab cache
 * also serves fs_struct (copy_fs_struct()), which must not count. A
 * free needs no site: only a pointer the tree allocated counts.
 * (The filter parser takes no parentheses around .function terms.)
 */
#define ALLOC_FILTER	"call_site.function == __anon_vma_prepare || " \
			"call_site.function == anon_vma_clone || " \
			"call_site.function == anon_vma_fork"
/* kernel-mode faults on kernel addresses are no touch of the tree's */
#define KFAULT_FILTER	"address < 0x800000000000"

const char *const rec_sys_names[RSYS_NR] = {
	[RSYS_MMAP] = "mmap",
	[RSYS_MUNMAP] = "munmap",
	[RSYS_MPROTECT] = "mprotect",
	[RSYS_PKEY_MPROTECT] = "pkey_mprotect",
	[RSYS_MREMAP] = "mremap",
	[RSYS_MADVISE] = "madvise",
	[RSYS_BRK] = "brk",
	[RSYS_EXECVE] = "execve",
	[RSYS_EXECVEAT] = "execveat",
	[RSYS_MLOCK] = "mlock",
	[RSYS_MLOCK2] = "mlock2",
	[RSYS_MLOCKALL] = "mlockall",
	[RSYS_MSEAL] = "mseal",
	[RSYS_SHMAT] = "shmat",
	[RSYS_SHMDT] = "shmdt",
	[RSYS_PROCESS_MADVISE] = "process_madvise",
	[RSYS_PROCESS_VM_WRITEV] = "process_vm_writev",
	[RSYS_REMAP_FILE_PAGES] = "remap_file_pages",
	[RSYS_MBIND] = "mbind",
	[RSYS_MAP_SHADOW_STACK] = "map_shadow_stack",
	[RSYS_MUNLOCK] = "munlock",
	[RSYS_MUNLOCKALL] = "munlockall",
	[RSYS_PRCTL] = "prctl",
	[RSYS_IOCTL] = "ioctl",
	[RSYS_CLONE] = "clone",
	[RSYS_CLONE3] = "clone3",
	[RSYS_FORK] = "fork",
	[RSYS_VFORK] = "vfork",
};

static const char *const plain_events[] = {
	"task/task_newtask",
	"sched/sched_process_exec",
	"sched/sched_process_exit",
	"kmem/kmem_cache_alloc",
	"kmem/kmem_cache_free",
	"exceptions/page_fault_user",
	"exceptions/page_fault_kernel",
	NULL
};

#define say tracefs_say

static int tset(struct rec_trace *t, const char *file, const char *val,
		char *why, size_t whylen)
{
	return tracefs_write(t->dir, file, val, why, whylen);
}

static int tget(struct rec_trace *t, const char *file, char *buf, size_t len)
{
	return tracefs_read(t->dir, file, buf, len);
}

/* Does the instance have @file (an event this kernel may lack)? */
static bool rec_trace_has(struct rec_trace *t, const char *file)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", t->dir, file);
	return !access(path, F_OK);
}

int rec_trace_open(struct rec_trace *t, unsigned long buffer_kb, char *why,
		   size_t whylen)
{
	char val[32], file[128];
	int i;

	memset(t, 0, sizeof(*t));
	if (tracefs_instance_create(t->dir, sizeof(t->dir), "cowctx-rec", why,
				    whylen))
		return -1;
	t->created = true;
	snprintf(val, sizeof(val), "%lu", buffer_kb);
	/*
	 * The per-CPU buffers are merged by timestamp: the clock must be
	 * one clock for every CPU, which "local" does not promise.
	 */
	if (tset(t, "tracing_on", "0", why, whylen) ||
	    tset(t, "trace_clock", "mono", why, whylen) ||
	    tset(t, "buffer_size_kb", val, why, whylen) ||
	    tset(t, "options/event-fork", "1", why, whylen) ||
	    tset(t, "events/kmem/kmem_cache_alloc/filter", ALLOC_FILTER, why,
		 whylen) ||
	    tset(t, "events/kmem/kmem_cache_free/filter", KMEM_FILTER, why,
		 whylen) ||
	    tset(t, "events/exceptions/page_fault_kernel/filter",
		 KFAULT_FILTER, why, whylen))
		goto fail;
	for (i = 0; plain_events[i]; i++) {
		snprintf(file, sizeof(file), "events/%s/enable",
			 plain_events[i]);
		if (tset(t, file, "1", why, whylen))
			goto fail;
	}
	for (i = 1; i < RSYS_NR; i++) {
		snprintf(file, sizeof(file),
			 "events/syscalls/sys_enter_%s/enable", rec_sys_names[i]);
		/* a system call this kernel lacks is one no program makes */
		if (rec_sys_optional(i) && !rec_trace_has(t, file))
			continue;
		if (tset(t, file, "1", why, whylen))
			goto fail;
		snprintf(file, sizeof(file),
			 "events/syscalls/sys_exit_%s/enable", rec_sys_names[i]);
		if (tset(t, file, "1", why, whylen))
			goto fail;
	}
	return 0;
fail:
	rec_trace_close(t);
	return -1;
}

int rec_trace_start(struct rec_trace *t, pid_t pid, char *why,
		    size_t whylen)
{
	char val[32], back[256];

	snprintf(val, sizeof(val), "%d", (int)pid);
	if (tset(t, "set_event_pid", val, why, whylen))
		return -1;
	/*
	 * A refused pid leaves the instance tracing the whole machine,
	 * with plausible counts: read it back.
	 */
	if (tget(t, "set_event_pid", back, sizeof(back)) ||
	    strtol(back, NULL, 10) != pid) {
		say(why, whylen, "tracefs: set_event_pid did not take pid %d",
		    (int)pid);
		return -1;
	}
	return tset(t, "tracing_on", "1", why, whylen);
}

long rec_trace_lost(struct rec_trace *t)
{
	return tracefs_lost(t->dir);
}

void rec_trace_close(struct rec_trace *t)
{
	char why[128];

	if (!t->created)
		return;
	tset(t, "tracing_on", "0", why, sizeof(why));
	tracefs_instance_remove(t->dir);
	t->created = false;
}
