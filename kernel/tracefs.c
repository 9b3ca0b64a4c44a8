// SPDX-License-Identifier: GPL-2.0
/* A private tracefs instance counting anon_vma objects; see tracefs.h. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "kernel/runner.h"
#include "kernel/tracefs.h"

#define TRACEFS		"/sys/kernel/tracing"
#define TRACEFS_OLD	"/sys/kernel/debug/tracing"
#define FILTER		"name == \"anon_vma\" || name == \"anon_vma_chain\""
/* per CPU: one statement's events must fit between two reads */
#define BUFFER_KB	"8192"

void tracefs_say(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

#define say tracefs_say

/* Write @val to @file in instance @dir and check all of it was taken */
int tracefs_write(const char *dir, const char *file, const char *val,
		  char *why, size_t whylen)
{
	char path[512];
	size_t len = strlen(val);
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0) {
		say(why, whylen, "tracefs: %s: %s", path, strerror(errno));
		return -1;
	}
	n = write(fd, val, len);
	if (n != (ssize_t)len) {
		say(why, whylen, "tracefs: writing '%s' to %s: %s", val, path,
		    n < 0 ? strerror(errno) : "short write");
		close(fd);
		return -1;
	}
	if (close(fd)) {
		say(why, whylen, "tracefs: %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Read @file of instance @dir into @buf, NUL-terminated; -1 if it cannot */
int tracefs_read(const char *dir, const char *file, char *buf, size_t len)
{
	char path[512];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

static int tset(struct ktrace *t, const char *file, const char *val,
		char *why, size_t whylen)
{
	return tracefs_write(t->dir, file, val, why, whylen);
}

static int tget(struct ktrace *t, const char *file, char *buf, size_t len)
{
	return tracefs_read(t->dir, file, buf, len);
}

static const char *tracefs_root(void)
{
	if (!access(TRACEFS "/instances", F_OK))
		return TRACEFS;
	/* not mounted: mount it where it belongs (and leave it there) */
	if (!mount("tracefs", TRACEFS, "tracefs", 0, NULL) &&
	    !access(TRACEFS "/instances", F_OK))
		return TRACEFS;
	if (!access(TRACEFS_OLD "/instances", F_OK))
		return TRACEFS_OLD;
	return NULL;
}

/* A new instance named @prefix-PID-N; its path goes to @dir */
int tracefs_instance_create(char *dir, size_t dirlen, const char *prefix,
			    char *why, size_t whylen)
{
	const char *root = tracefs_root();
	int tries;

	if (!root) {
		say(why, whylen, "no tracefs (mount -t tracefs nodev %s)",
		    TRACEFS);
		return -1;
	}
	for (tries = 0; tries < 100; tries++) {
		snprintf(dir, dirlen, "%s/instances/%s-%d-%d", root, prefix,
			 (int)getpid(), tries);
		if (!mkdir(dir, 0700))
			return 0;
		if (errno != EEXIST) {
			say(why, whylen, "tracefs: mkdir %s: %s", dir,
			    strerror(errno));
			return -1;
		}
	}
	say(why, whylen, "tracefs: no free instance name");
	return -1;
}

/*
 * An instance is busy while files are open in it or its events are being
 * torn down (agents may still be dying): retry for up to a second.
 */
void tracefs_instance_remove(const char *dir)
{
	int i;

	for (i = 0; i < 1000 && rmdir(dir) && errno == EBUSY; i++)
		usleep(1000);
}

/* Events the instance's per-CPU buffers overran or dropped */
long tracefs_lost(const char *dir)
{
	long lost = 0;
	int cpu;

	for (cpu = 0; cpu < 4096; cpu++) {
		char file[64], buf[1024], *s;

		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
		if (tracefs_read(dir, file, buf, sizeof(buf)))
			break;
		s = strstr(buf, "overrun:");
		if (s)
			lost += strtol(s + 8, NULL, 10);
		s = strstr(buf, "dropped events:");
		if (s)
			lost += strtol(s + 15, NULL, 10);
	}
	return lost;
}

int ktrace_open(struct ktrace *t, char *why, size_t whylen)
{
	memset(t, 0, sizeof(*t));
	t->pipe_fd = -1;
	if (tracefs_instance_create(t->dir, sizeof(t->dir), "cowctx", why,
				    whylen))
		return -1;
	t->created = true;
	if (tset(t, "tracing_on", "0", why, whylen) ||
	    tset(t, "buffer_size_kb", BUFFER_KB, why, whylen) ||
	    tset(t, "events/kmem/kmem_cache_alloc/filter", FILTER, why,
		 whylen) ||
	    tset(t, "events/kmem/kmem_cache_free/filter", FILTER, why,
		 whylen) ||
	    tset(t, "options/event-fork", "1", why, whylen)) {
		ktrace_close(t);
		return -1;
	}
	return 0;
}

int ktrace_start(struct ktrace *t, const pid_t *pids, int nr, char *why,
		 size_t whylen)
{
	char list[1024], back[1024], path[512];
	size_t off = 0;
	int i;

	list[0] = '\0';
	for (i = 0; i < nr; i++)
		off += snprintf(list + off, sizeof(list) - off, "%s%d",
				i ? " " : "", (int)pids[i]);
	if (off >= sizeof(list)) {
		say(why, whylen, "tracefs: too many pids");
		return -1;
	}
	if (tset(t, "set_event_pid", list, why, whylen))
		return -1;
	/*
	 * A rejected pid list leaves the instance tracing everything and
	 * the counts plausible but wrong: check it took every pid.
	 */
	if (tget(t, "set_event_pid", back, sizeof(back))) {
		say(why, whylen, "tracefs: cannot read set_event_pid back");
		return -1;
	}
	for (i = 0; i < nr; i++) {
		char *s = back, *end;
		bool found = false;

		while (*s) {
			long v = strtol(s, &end, 10);

			if (end == s)
				break;
			if (v == pids[i])
				found = true;
			s = end;
			while (*s && !isdigit((unsigned char)*s))
				s++;
		}
		if (!found) {
			say(why, whylen, "tracefs: set_event_pid lost pid %d",
			    (int)pids[i]);
			return -1;
		}
	}
	if (tset(t, "events/kmem/kmem_cache_alloc/enable", "1", why, whylen) ||
	    tset(t, "events/kmem/kmem_cache_free/enable", "1", why, whylen) ||
	    tset(t, "tracing_on", "1", why, whylen))
		return -1;
	snprintf(path, sizeof(path), "%s/trace_pipe", t->dir);
	t->pipe_fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (t->pipe_fd < 0) {
		say(why, whylen, "tracefs: %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static void copy_token(char *dst, size_t len, const char *src,
		       const char *stop)
{
	size_t n = strcspn(src, stop);

	if (n >= len)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/*
 *   comm-PID [CPU] flags TIME: kmem_cache_alloc: call_site=SYM+0x40/0x1e0
 *   ptr=... name=anon_vma_chain ...
 * The comm may hold blanks and dashes, so the pid is found backwards
 * from the CPU's bracket.
 */
int ktrace_parse_line(const char *line, pid_t *pid, bool *is_free,
		      char *name, size_t namelen, char *site, size_t sitelen)
{
	const char *ev, *br, *p, *cs, *nm;
	const char *alloc = ": kmem_cache_alloc: ";
	const char *freed = ": kmem_cache_free: ";

	ev = strstr(line, alloc);
	*is_free = false;
	if (!ev) {
		ev = strstr(line, freed);
		*is_free = true;
	}
	if (!ev)
		return -1;
	for (br = ev; br > line && *br != '['; br--)
		;
	if (*br != '[')
		return -1;
	p = br;
	while (p > line && p[-1] == ' ')
		p--;
	while (p > line && isdigit((unsigned char)p[-1]))
		p--;
	if (p == line || p[-1] != '-' || !isdigit((unsigned char)*p))
		return -1;
	*pid = (pid_t)strtol(p, NULL, 10);
	cs = strstr(ev, "call_site=");
	nm = strstr(ev, " name=");
	if (!cs || !nm)
		return -1;
	copy_token(site, sitelen, cs + 10, "+ \n");
	copy_token(name, namelen, nm + 6, " \n");
	return 0;
}

static void count_site(struct ktrace *t, bool is_free, const char *name,
		       const char *site)
{
	struct ktrace_site *s;
	int i;

	for (i = 0; i < t->nr_sites; i++) {
		s = &t->sites[i];
		if (s->is_free == is_free && !strcmp(s->name, name) &&
		    !strcmp(s->site, site)) {
			s->count++;
			return;
		}
	}
	if (t->nr_sites == KTRACE_MAX_SITES)
		return;
	s = &t->sites[t->nr_sites++];
	s->is_free = is_free;
	snprintf(s->name, sizeof(s->name), "%s", name);
	snprintf(s->site, sizeof(s->site), "%s", site);
	s->count = 1;
}

/* The rmap's own uses of the anon_vma_chain cache (mm/rmap.c) */
static bool avc_site(const char *site)
{
	static const char *const sites[] = {
		"__anon_vma_prepare", "anon_vma_clone", "anon_vma_fork",
		"unlink_anon_vmas", "anon_vma_chain_alloc",
		"anon_vma_chain_free", NULL
	};
	int i;

	for (i = 0; sites[i]; i++)
		if (!strcmp(site, sites[i]))
			return true;
	return false;
}

static void account_event(struct ktrace_counts *c, bool is_free,
			  const char *name, const char *site)
{
	if (!strcmp(name, "anon_vma")) {
		if (is_free)
			c->av_free++;
		else
			c->av_alloc++;
	} else if (!strcmp(name, "anon_vma_chain") && avc_site(site)) {
		if (is_free)
			c->avc_free++;
		else
			c->avc_alloc++;
	} else {
		c->other++;
	}
}

static void handle_line(struct ktrace *t, const char *line,
			struct krunner *const *trees,
			struct ktrace_counts *counts, int nr_trees)
{
	char name[32], site[KTRACE_SITE_MAX];
	bool is_free;
	pid_t pid;
	int i;

	if (ktrace_parse_line(line, &pid, &is_free, name, sizeof(name), site,
			      sizeof(site))) {
		/* "CPU:1 [LOST 23 EVENTS]" and the like */
		t->unparsed++;
		return;
	}
	count_site(t, is_free, name, site);
	for (i = 0; i < nr_trees; i++) {
		if (krunner_has_pid(trees[i], pid)) {
			account_event(&counts[i], is_free, name, site);
			return;
		}
	}
	t->foreign++;
	t->foreign_pid = pid;
}

int ktrace_drain(struct ktrace *t, struct krunner *const *trees,
		 struct ktrace_counts *counts, int nr_trees, char *why,
		 size_t whylen)
{
	char buf[16384];

	for (;;) {
		ssize_t n = read(t->pipe_fd, buf, sizeof(buf));
		ssize_t i;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n < 0) {
			say(why, whylen, "tracefs: trace_pipe: %s",
			    strerror(errno));
			return -1;
		}
		if (n == 0)
			break;
		for (i = 0; i < n; i++) {
			if (buf[i] != '\n') {
				if (t->line_len < sizeof(t->line) - 1)
					t->line[t->line_len++] = buf[i];
				continue;
			}
			t->line[t->line_len] = '\0';
			handle_line(t, t->line, trees, counts, nr_trees);
			t->line_len = 0;
		}
	}
	if (t->foreign) {
		say(why, whylen,
		    "tracefs: %ld events from pid %d, not ours: set_event_pid is not honoured",
		    t->foreign, (int)t->foreign_pid);
		return -1;
	}
	if (t->unparsed || ktrace_lost(t)) {
		say(why, whylen, "tracefs: events lost (%ld unreadable lines, %ld overruns)",
		    t->unparsed, ktrace_lost(t));
		return -1;
	}
	return 0;
}

long ktrace_lost(struct ktrace *t)
{
	return tracefs_lost(t->dir);
}

void ktrace_close(struct ktrace *t)
{
	char why[128];

	if (!t->created)
		return;
	tset(t, "tracing_on", "0", why, sizeof(why));
	tset(t, "events/kmem/kmem_cache_alloc/enable", "0", why, sizeof(why));
	tset(t, "events/kmem/kmem_cache_free/enable", "0", why, sizeof(why));
	if (t->pipe_fd >= 0)
		close(t->pipe_fd);
	t->pipe_fd = -1;
	tracefs_instance_remove(t->dir);
	t->created = false;
}

void ktrace_print_sites(const struct ktrace *t, FILE *out)
{
	int i;

	for (i = 0; i < t->nr_sites; i++)
		fprintf(out, "  %-5s %-15s %-24s %ld\n",
			t->sites[i].is_free ? "free" : "alloc",
			t->sites[i].name, t->sites[i].site, t->sites[i].count);
}
