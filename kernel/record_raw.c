// SPDX-License-Identifier: GPL-2.0
/*
 * Reading the recording's events in the ring buffer's own binary form
 * (per_cpu/cpuN/trace_pipe_raw), merged by timestamp.
 *
 * Why not trace_pipe's text: the kernel formats every event for it,
 * and a page fault's %ps fields cost several microseconds each; a
 * recording of a quarter-million faults spent seconds there and fell
 * behind its workload. The binary pages cost a copy.
 *
 * The layouts come from the kernel, not from here: events/header_page
 * for the page, each event's format file for its fields, and the ring
 * buffer's event header (include/linux/ring_buffer.h: a 5-bit type_len,
 * a 27-bit time delta).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kernel/record.h"

/* ring buffer event types (include/linux/ring_buffer.h) */
#define RB_TYPE_PADDING		29
#define RB_TYPE_TIME_EXTEND	30
#define RB_TYPE_TIME_STAMP	31
#define RB_MISSED_EVENTS	(1UL << 31)
#define RB_MISSED_STORED	(1UL << 30)
#define RB_TS_MSB		(0xf8ULL << 56)
#define PAGE_HDR		16	/* u64 timestamp, local_t commit */

enum raw_kind {
	RK_NONE,
	RK_FAULT_USER,
	RK_FAULT_KERNEL,
	RK_ALLOC,
	RK_FREE,
	RK_NEWTASK,
	RK_EXEC,
	RK_EXIT,
	RK_SYS_ENTER,
	RK_SYS_EXIT,
};

struct raw_fmt {
	enum raw_kind kind;
	enum rec_sys sys;
	int off[6];
	int nr_off;
};

struct raw_cpu {
	int fd;
	struct rec_event *ev;
	size_t head, nr, cap;
};

struct rec_raw {
	int nr_cpus;
	struct raw_cpu *cpu;
	size_t page_size;
	unsigned char *page;
	short by_id[65536];	/* index into fmts, 0: not ours */
	struct raw_fmt fmts[96];
	int nr_fmts;
	long missed;
};

static int read_file(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

/* The offset of field @name in a format file's text, or -1 */
static int field_offset(const char *fmt, const char *name)
{
	const char *p = fmt;
	size_t len = strlen(name);

	while ((p = strstr(p, "field:"))) {
		const char *semi = strchr(p, ';'), *n, *off;

		if (!semi)
			return -1;
		n = semi;
		while (n > p && n[-1] != ' ' && n[-1] != '\t')
			n--;
		off = strstr(semi, "offset:");
		if ((size_t)(semi - n) >= len && !strncmp(n, name, len) &&
		    (n[len] == ';' || n[len] == '[') && off)
			return atoi(off + 7);
		p = semi;
	}
	return -1;
}

static int add_format(struct rec_raw *r, const char *dir, const char *event,
		      enum raw_kind kind, enum rec_sys sys,
		      const char *const *fields, char *why, size_t whylen)
{
	char path[512], fmt[8192], *id;
	struct raw_fmt *f;
	int i;

	snprintf(path, sizeof(path), "%s/events/%s/format", dir, event);
	if (read_file(path, fmt, sizeof(fmt)) || !(id = strstr(fmt, "ID: "))) {
		snprintf(why, whylen, "tracefs: cannot read %s", path);
		return -1;
	}
	if (r->nr_fmts + 1 == (int)(sizeof(r->fmts) / sizeof(r->fmts[0]))) {
		snprintf(why, whylen, "tracefs: too many events");
		return -1;
	}
	f = &r->fmts[++r->nr_fmts];
	f->kind = kind;
	f->sys = sys;
	for (i = 0; fields && fields[i]; i++) {
		f->off[i] = field_offset(fmt, fields[i]);
		if (f->off[i] < 0) {
			snprintf(why, whylen, "tracefs: %s has no field %s",
				 event, fields[i]);
			return -1;
		}
	}
	f->nr_off = i;
	r->by_id[atoi(id + 4) & 0xffff] = (short)r->nr_fmts;
	return 0;
}

struct rec_raw *rec_raw_open(const char *dir, const char *const *sys_names,
			     char *why, size_t whylen)
{
	static const char *const fault[] = { "address", "error_code", NULL };
	static const char *const kmem[] = { "ptr", "name", NULL };
	static const char *const newtask[] = { "pid", "clone_flags", NULL };
	static const char *const exec[] = { "pid", "old_pid", NULL };
	static const char *const sysexit[] = { "ret", NULL };
	struct rec_raw *r = calloc(1, sizeof(*r));
	char path[512], buf[64];
	int i, cpu;

	if (!r) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/buffer_subbuf_size_kb", dir);
	r->page_size = read_file(path, buf, sizeof(buf)) ? 4096 :
		       strtoul(buf, NULL, 10) * 1024;
	r->page = malloc(r->page_size);
	if (!r->page ||
	    add_format(r, dir, "exceptions/page_fault_user", RK_FAULT_USER,
		       RSYS_NONE, fault, why, whylen) ||
	    add_format(r, dir, "exceptions/page_fault_kernel", RK_FAULT_KERNEL,
		       RSYS_NONE, fault, why, whylen) ||
	    add_format(r, dir, "kmem/kmem_cache_alloc", RK_ALLOC, RSYS_NONE,
		       kmem, why, whylen) ||
	    add_format(r, dir, "kmem/kmem_cache_free", RK_FREE, RSYS_NONE,
		       kmem, why, whylen) ||
	    add_format(r, dir, "task/task_newtask", RK_NEWTASK, RSYS_NONE,
		       newtask, why, whylen) ||
	    add_format(r, dir, "sched/sched_process_exec", RK_EXEC, RSYS_NONE,
		       exec, why, whylen) ||
	    add_format(r, dir, "sched/sched_process_exit", RK_EXIT, RSYS_NONE,
		       NULL, why, whylen))
		goto fail;
	for (i = 1; i < RSYS_NR; i++) {
		char ev[128], fmt[8192];
		struct raw_fmt *f;

		snprintf(ev, sizeof(ev), "syscalls/sys_enter_%s", sys_names[i]);
		snprintf(path, sizeof(path), "%s/events/%s/format", dir, ev);
		/* not traced where this kernel lacks it (record_trace.c) */
		if (rec_sys_optional(i) && access(path, F_OK))
			continue;
		if (add_format(r, dir, ev, RK_SYS_ENTER, i, NULL, why, whylen))
			goto fail;
		/* the arguments follow __syscall_nr, eight bytes each */
		snprintf(path, sizeof(path), "%s/events/%s/format", dir, ev);
		if (read_file(path, fmt, sizeof(fmt)))
			goto fail;
		f = &r->fmts[r->nr_fmts];
		f->off[0] = field_offset(fmt, "__syscall_nr");
		if (f->off[0] < 0)
			goto fail;
		f->off[0] += 8;
		snprintf(ev, sizeof(ev), "syscalls/sys_exit_%s", sys_names[i]);
		if (add_format(r, dir, ev, RK_SYS_EXIT, i, sysexit, why,
			       whylen))
			goto fail;
	}
	r->nr_cpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	r->cpu = calloc(r->nr_cpus, sizeof(*r->cpu));
	if (!r->cpu)
		goto fail;
	for (cpu = 0; cpu < r->nr_cpus; cpu++)
		r->cpu[cpu].fd = -1;
	for (cpu = 0; cpu < r->nr_cpus; cpu++) {
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/trace_pipe_raw",
			 dir, cpu);
		r->cpu[cpu].fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (r->cpu[cpu].fd < 0 && errno != ENOENT) {
			snprintf(why, whylen, "%s: %s", path, strerror(errno));
			goto fail;
		}
	}
	return r;
fail:
	if (!why[0])
		snprintf(why, whylen, "tracefs: reading the event formats");
	rec_raw_close(r);
	return NULL;
}

void rec_raw_close(struct rec_raw *r)
{
	int cpu;

	if (!r)
		return;
	for (cpu = 0; r->cpu && cpu < r->nr_cpus; cpu++) {
		if (r->cpu[cpu].fd >= 0)
			close(r->cpu[cpu].fd);
		free(r->cpu[cpu].ev);
	}
	free(r->cpu);
	free(r->page);
	free(r);
}

long rec_raw_missed(const struct rec_raw *r)
{
	return r->missed;
}

static uint64_t get64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* One event's payload into @ev; false if it is none of ours */
static bool decode(const struct rec_raw *r, const unsigned char *d,
		   size_t len, struct rec_event *ev)
{
	const struct raw_fmt *f;
	int i;

	if (len < 8)
		return false;
	f = &r->fmts[r->by_id[d[0] | d[1] << 8]];
	if (f->kind == RK_NONE)
		return false;
	memset(ev, 0, sizeof(*ev));
	ev->pid = (pid_t)get32(d + 4);
	for (i = 0; i < f->nr_off; i++)
		if ((size_t)f->off[i] + 4 > len)
			return false;
	switch (f->kind) {
	case RK_FAULT_USER:
	case RK_FAULT_KERNEL:
		ev->type = REV_FAULT;
		ev->kernel = f->kind == RK_FAULT_KERNEL;
		ev->args[0] = get64(d + f->off[0]);
		ev->args[1] = get64(d + f->off[1]);
		return true;
	case RK_ALLOC:
	case RK_FREE: {
		uint32_t loc = get32(d + f->off[1]);
		size_t at = loc & 0xffff, n = loc >> 16;
		const char *name = (const char *)d + at;

		if (at + n > len)
			return false;
		ev->type = f->kind == RK_ALLOC ? REV_ALLOC : REV_FREE;
		ev->ptr = get64(d + f->off[0]);
		ev->is_av = !strncmp(name, "anon_vma", n) && n >= 9 &&
			    name[8] == '\0';
		return true;
	}
	case RK_NEWTASK:
		ev->type = REV_NEWTASK;
		ev->other = (pid_t)get32(d + f->off[0]);
		ev->args[0] = get64(d + f->off[1]);
		return true;
	case RK_EXEC:
		ev->type = REV_EXEC;
		ev->pid = (pid_t)get32(d + f->off[0]);
		ev->other = (pid_t)get32(d + f->off[1]);
		return true;
	case RK_EXIT:
		ev->type = REV_EXIT;
		return true;
	case RK_SYS_ENTER:
		ev->type = REV_SYS_ENTER;
		ev->sys = f->sys;
		for (i = 0; i < 6 && (size_t)f->off[0] + 8 * i + 8 <= len; i++)
			ev->args[i] = get64(d + f->off[0] + 8 * i);
		return true;
	case RK_SYS_EXIT:
		ev->type = REV_SYS_EXIT;
		ev->sys = f->sys;
		ev->ret = (long)get64(d + f->off[0]);
		return true;
	default:
		return false;
	}
}

static int push(struct raw_cpu *c, const struct rec_event *ev)
{
	if (c->head + c->nr == c->cap) {
		if (c->head) {
			memmove(c->ev, c->ev + c->head, c->nr * sizeof(*c->ev));
			c->head = 0;
		} else {
			size_t ncap = c->cap ? c->cap * 2 : 1024;
			struct rec_event *n = realloc(c->ev,
						      ncap * sizeof(*n));

			if (!n)
				return -1;
			c->ev = n;
			c->cap = ncap;
		}
	}
	c->ev[c->head + c->nr++] = *ev;
	return 0;
}

/* A page of one CPU's buffer into its queue */
static int decode_page(struct rec_raw *r, struct raw_cpu *c, size_t got)
{
	const unsigned char *pg = r->page, *p, *end;
	uint64_t ts = get64(pg), commit = get64(pg + 8);
	size_t size = commit & ~(RB_MISSED_EVENTS | RB_MISSED_STORED);

	if (commit & RB_MISSED_EVENTS)
		r->missed++;
	if (size > got - PAGE_HDR)
		size = got - PAGE_HDR;
	p = pg + PAGE_HDR;
	end = p + size;
	while (p + 4 <= end) {
		uint32_t h = get32(p);
		unsigned int type = h & 0x1f;
		uint64_t delta = h >> 5;
		const unsigned char *data;
		size_t len;
		struct rec_event ev;

		if (type == RB_TYPE_PADDING) {
			if (!delta || p + 8 > end)
				break;	/* the rest of the page is empty */
			p += 4 + get32(p + 4);
			continue;
		}
		if (p + 8 > end)
			break;
		if (type == RB_TYPE_TIME_EXTEND) {
			ts += delta | (uint64_t)get32(p + 4) << 27;
			p += 8;
			continue;
		}
		if (type == RB_TYPE_TIME_STAMP) {
			ts = (delta | (uint64_t)get32(p + 4) << 27) |
			     (ts & RB_TS_MSB);
			p += 8;
			continue;
		}
		ts += delta;
		if (type) {
			len = type * 4;
			data = p + 4;
		} else {
			len = get32(p + 4) - 4;
			data = p + 8;
		}
		if (data + len > end)
			break;
		p = data + len;
		if (decode(r, data, len, &ev)) {
			ev.ts = ts;
			if (push(c, &ev))
				return -1;
		}
	}
	return 0;
}

static uint64_t mono_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + t.tv_nsec;
}

int rec_raw_drain(struct rec_raw *r, bool all,
		  int (*emit)(void *arg, struct rec_event *ev), void *arg)
{
	/*
	 * An event not yet read when its CPU's buffer was found empty is
	 * later than this: what is older may go out in order.
	 */
	uint64_t upto = all ? UINT64_MAX : mono_now();
	int cpu, got = 0;

	for (cpu = 0; cpu < r->nr_cpus; cpu++) {
		struct raw_cpu *c = &r->cpu[cpu];

		for (;;) {
			ssize_t n;

			if (c->fd < 0)
				break;
			n = read(c->fd, r->page, r->page_size);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && errno == EAGAIN)
				break;
			if (n < 0)
				return -1;
			if (n <= PAGE_HDR)
				break;
			if (decode_page(r, c, (size_t)n))
				return -1;
		}
	}
	for (;;) {
		struct raw_cpu *best = NULL;

		for (cpu = 0; cpu < r->nr_cpus; cpu++) {
			struct raw_cpu *c = &r->cpu[cpu];

			if (c->nr && c->ev[c->head].ts <= upto &&
			    (!best || c->ev[c->head].ts < best->ev[best->head].ts))
				best = c;
		}
		if (!best)
			break;
		if (emit(arg, &best->ev[best->head]))
			return -1;
		best->head++;
		best->nr--;
		got = 1;
	}
	return got;
}
