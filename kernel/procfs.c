// SPDX-License-Identifier: GPL-2.0
/* Reading /proc/PID/{maps,smaps,pagemap}, /proc/kpage{flags,count}. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "kernel/procfs.h"

/* "start-end perms offset dev inode path": 0 if @line is a VMA header */
static int parse_header(const char *line, struct kvma *v)
{
	char perms[8];
	int pos = 0;
	size_t n;

	memset(v, 0, sizeof(*v));
	if (sscanf(line, "%lx-%lx %7s %lx %*s %*u %n", &v->start, &v->end,
		   perms, &v->offset, &pos) != 4 || !pos || strlen(perms) != 4)
		return -1;
	v->prot = (perms[0] == 'r' ? PROT_READ : 0) |
		  (perms[1] == 'w' ? PROT_WRITE : 0) |
		  (perms[2] == 'x' ? PROT_EXEC : 0);
	v->shared = perms[3] == 's';
	n = strcspn(line + pos, "\n");
	if (n >= sizeof(v->path))
		n = sizeof(v->path) - 1;
	memcpy(v->path, line + pos, n);
	v->path[n] = '\0';
	return 0;
}

/* "VmFlags: rd wr mr mw me ac sd": the two-letter mnemonics */
static void parse_vmflags(const char *s, struct kvma *v)
{
	v->has_vmflags = true;
	for (;;) {
		s += strspn(s, " \t");
		if (!s[0] || s[0] == '\n')
			break;
		if (!strncmp(s, "dc", 2) && (s[2] == ' ' || s[2] == '\n' || !s[2]))
			v->dontcopy = true;
		if (!strncmp(s, "wf", 2) && (s[2] == ' ' || s[2] == '\n' || !s[2]))
			v->wipeonfork = true;
		s += strcspn(s, " \t\n");
	}
}

int proc_read_vmas(pid_t pid, bool smaps, struct kvma **vmasp, int *nrp)
{
	struct kvma *vmas = NULL, v;
	int nr = 0, cap = 0, ret = 0;
	char path[64], *line = NULL;
	size_t linecap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid,
		 smaps ? "smaps" : "maps");
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (getline(&line, &linecap, f) > 0) {
		if (!parse_header(line, &v)) {
			if (nr == cap) {
				int ncap = cap ? cap * 2 : 16;
				struct kvma *nv = realloc(vmas,
							  ncap * sizeof(*nv));

				if (!nv) {
					ret = -ENOMEM;
					break;
				}
				vmas = nv;
				cap = ncap;
			}
			vmas[nr++] = v;
		} else if (nr && !strncmp(line, "VmFlags:", 8)) {
			parse_vmflags(line + 8, &vmas[nr - 1]);
		}
	}
	if (!ret && ferror(f))
		ret = -EIO;
	free(line);
	fclose(f);
	if (ret) {
		free(vmas);
		return ret;
	}
	*vmasp = vmas;
	*nrp = nr;
	return 0;
}

int proc_pagemap_open(pid_t pid)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/pagemap", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static int pread_all(int fd, void *buf, size_t len, off_t off)
{
	char *p = buf;

	while (len) {
		ssize_t n = pread(fd, p, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		p += n;
		len -= n;
		off += n;
	}
	return 0;
}

int proc_pagemap_read(int fd, unsigned long start, unsigned long npages,
		      uint64_t *out)
{
	return pread_all(fd, out, npages * sizeof(*out),
			 (off_t)(start / 4096) * (off_t)sizeof(*out));
}

int kpage_open(struct kpage_files *kp)
{
	kp->flags_fd = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	if (kp->flags_fd < 0)
		return -errno;
	kp->count_fd = open("/proc/kpagecount", O_RDONLY | O_CLOEXEC);
	if (kp->count_fd < 0) {
		int err = -errno;

		close(kp->flags_fd);
		kp->flags_fd = -1;
		return err;
	}
	return 0;
}

void kpage_close(struct kpage_files *kp)
{
	if (kp->flags_fd >= 0)
		close(kp->flags_fd);
	if (kp->count_fd >= 0)
		close(kp->count_fd);
	kp->flags_fd = kp->count_fd = -1;
}

int kpage_read(const struct kpage_files *kp, unsigned long pfn,
	       uint64_t *flags, uint64_t *count)
{
	off_t off = (off_t)pfn * 8;
	int ret = pread_all(kp->flags_fd, flags, 8, off);

	return ret ? ret : pread_all(kp->count_fd, count, 8, off);
}
