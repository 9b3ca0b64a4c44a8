// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel runner's limits, without a kernel run: RLIMIT_NOFILE is
 * raised to its hard limit and restored; a scenario is refused at the
 * statement whose processes or files would pass the descriptors the
 * runner can have, and not before; the files made for file=NAME
 * mappings are sized by the mapping that reaches furthest, leaving out
 * those mmap() refuses with EOVERFLOW whatever the file's size.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>

#include "kernel/files.h"
#include "kernel/limits.h"
#include "scenario/scenario.h"
#include "tap.h"

static int parse(const char *text, struct scenario *sc)
{
	return scenario_parse_string("t.scn", text, sc);
}

/* The line klimit_check() refuses @text at, under @limit; -1 none */
static int refused_line(const char *text, long base, long limit,
			char *why, size_t len)
{
	struct scenario sc;
	int i, line;

	if (parse(text, &sc))
		return -2;
	why[0] = '\0';
	i = klimit_check(&sc, base, limit, why, len);
	line = i >= 0 ? sc.stmts[i].line : i;
	scenario_free(&sc);
	return line;
}

/* "proc P" and @n forks of P, one a line */
static char *fan(int n, bool exit_each)
{
	size_t cap = 64 + n * 48, off = 0;
	char *s = malloc(cap);
	int i;

	if (!s)
		return NULL;
	off += snprintf(s + off, cap - off, "proc P\n");
	for (i = 0; i < n; i++) {
		off += snprintf(s + off, cap - off, "P fork C%d\n", i);
		if (exit_each)
			off += snprintf(s + off, cap - off, "C%d exit\n", i);
	}
	return s;
}

/* @n mappings, each of its own file but every third one repeated */
static char *many_files(int n)
{
	size_t cap = 64 + n * 64, off = 0;
	char *s = malloc(cap);
	int i;

	if (!s)
		return NULL;
	off += snprintf(s + off, cap - off, "proc P\n");
	for (i = 0; i < n; i++)
		off += snprintf(s + off, cap - off,
				"P mmap %#lx 4K r file=f%d:0\n",
				0x100000000000UL + i * 0x2000UL,
				i % 3 == 2 ? i - 1 : i);
	return s;
}

static void test_processes(void)
{
	/* base 10: live processes fit while 10 + 8 + 2 * (2 + live) <= 32 */
	long base = 10, limit = base + KLIMIT_TRANSIENT +
		    KLIMIT_FDS_PER_PROC * (KLIMIT_ZYGOTES + 5);
	char why[512], *s = fan(4, false);

	if (!s)
		return;
	is_long(refused_line(s, base, limit, why, sizeof(why)), -1,
		"five live processes fit in %ld descriptors", limit);
	free(s);
	s = fan(5, false);
	if (!s)
		return;
	is_long(refused_line(s, base, limit, why, sizeof(why)), 6,
		"the sixth is refused at its fork, line 6");
	ok(strstr(why, "6 live processes") && strstr(why, "RLIMIT_NOFILE") &&
	   strstr(why, "ulimit -Hn"),
	   "the reason names the count, the limit and the way out");
	tap_diag("%s", why);
	free(s);
	s = fan(50, true);
	if (!s)
		return;
	is_long(refused_line(s, base, limit, why, sizeof(why)), -1,
		"fifty forks that exit in turn never pass it");
	free(s);
}

static void test_files(void)
{
	/*
	 * f0 f1 f1 f3 f4 f4 ...: 30 mappings of 20 files; the 21st file is
	 * f30, mapped at line 32. One process needs far fewer here.
	 */
	long limit = KLIMIT_AGENT_FDS + 20;
	char why[512], *s = many_files(30);

	if (!s)
		return;
	is_long(refused_line(s, 0, limit, why, sizeof(why)), -1,
		"20 distinct files in 30 mappings fit in %ld", limit);
	free(s);
	s = many_files(31);
	if (!s)
		return;
	is_long(refused_line(s, 0, limit, why, sizeof(why)), 32,
		"the 21st distinct file is refused at its mapping, line 32");
	ok(strstr(why, "file f30") && strstr(why, "number 21"),
	   "the reason names the file");
	tap_diag("%s", why);
	free(s);
	s = many_files(300);
	if (!s)
		return;
	is_long(refused_line(s, 10, 1024, why, sizeof(why)), -1,
		"300 mappings of 200 files fit in 1024 descriptors");
	free(s);
}

static void test_raise(void)
{
	struct rlimit rl, now;
	long old, got, in_use;
	int fds[2];

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_max < 64) {
		ok(1, "raise # SKIP no usable RLIMIT_NOFILE");
		return;
	}
	now = rl;
	now.rlim_cur = 32;
	if (setrlimit(RLIMIT_NOFILE, &now)) {
		ok(1, "raise # SKIP cannot lower the soft limit");
		return;
	}
	got = klimit_raise_nofile(&old);
	is_long(old, 32, "the soft limit before is reported");
	getrlimit(RLIMIT_NOFILE, &now);
	ok(now.rlim_cur == rl.rlim_max && (rl.rlim_max == RLIM_INFINITY ||
					   got == (long)rl.rlim_max),
	   "the soft limit is raised to the hard limit (%ld)", got);
	klimit_restore_nofile(old);
	getrlimit(RLIMIT_NOFILE, &now);
	is_long(now.rlim_cur, 32, "and restored");
	setrlimit(RLIMIT_NOFILE, &rl);

	in_use = klimit_fds_in_use();
	if (pipe(fds)) {
		ok(0, "pipe");
		return;
	}
	is_long(klimit_fds_in_use(), in_use + 2,
		"a pipe's two descriptors are counted (%ld before)", in_use);
	close(fds[0]);
	close(fds[1]);
}

static void test_file_size(void)
{
	static const char text[] =
		"proc P\n"
		"P mmap 0x100000000000 4K r file=f:0x7ffffffffffff000\n"
		"P mmap 0x100000010000 8K r file=f:16K\n"
		"P mmap 0x100000020000 4K r file=f:4K\n"
		"P mremap 0x100000020000 4K 12K\n";
	struct scenario sc;
	unsigned long size;
	int far;

	if (parse(text, &sc)) {
		ok(0, "parse");
		return;
	}
	size = kfile_size(&sc, "f", &far);
	is_long(far, 2, "the furthest mapping mmap() accepts is line 3");
	is_long(size, 24576 + 8192 + (256 << 10),
		"its end, the mremap's growth and the fault-around slack");
	ok(size <= KFILE_MAX_BYTES,
	   "the mapping past MAX_LFS_FILESIZE asks for no file bytes");
	size = kfile_size(&sc, "g", &far);
	is_long(far, -1, "a file no mapping uses: no statement");
	scenario_free(&sc);
}

int main(void)
{
	test_processes();
	test_files();
	test_raise();
	test_file_size();
	return tap_done();
}
