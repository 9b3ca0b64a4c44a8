// SPDX-License-Identifier: GPL-2.0
/*
 * cowctx record's pure parts: the live-object set (kmem pointers, with
 * backward-shift deletion) against a plain array, and the file names a
 * recording gives paths (the scenario language's rules, unique), the
 * SysV attachments shmdt() is written from, and the replay check that
 * decides whether a recording is complete.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "kernel/record.h"

#define N	20000

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static bool in_array(const uint64_t *a, int n, uint64_t k)
{
	int i;

	for (i = 0; i < n; i++)
		if (a[i] == k)
			return true;
	return false;
}

static void ptrset_tests(void)
{
	static uint64_t ref[N];
	struct rec_ptrset s = { 0 };
	uint64_t seed = 42;
	int nr = 0, i, wrong = 0;

	/* few distinct keys: adds of present keys, deletes of absent ones */
	for (i = 0; i < 200000; i++) {
		uint64_t k = rnd(&seed) % 3000 * 64;
		bool had = in_array(ref, nr, k);

		if (rnd(&seed) & 1) {
			if (rec_ptrset_add(&s, k))
				wrong++;
			if (!had)
				ref[nr++] = k;
		} else {
			if (rec_ptrset_del(&s, k) != had)
				wrong++;
			if (had) {
				int j;

				for (j = 0; ref[j] != k; j++)
					;
				ref[j] = ref[--nr];
			}
		}
		if (s.nr != (size_t)nr)
			wrong++;
	}
	is_long(wrong, 0, "200000 random adds and deletes agree with a plain list");
	for (i = 0; i < nr; i++)
		if (!rec_ptrset_del(&s, ref[i]))
			wrong++;
	ok(!wrong && !s.nr, "every key left is found, and then none is");
	ok(!rec_ptrset_add(&s, 0) && s.nr == 1 && rec_ptrset_del(&s, 0) &&
	   !s.nr && !rec_ptrset_del(&s, 0), "the key 0 is a key like others");
	rec_ptrset_free(&s);
}

static bool valid_name(const char *n)
{
	size_t len = strlen(n);

	return len && len <= 63 && strcmp(n, ".") && strcmp(n, "..") &&
	       strspn(n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		      "0123456789._+-") == len;
}

static void names_tests(void)
{
	struct rec_names *n = rec_names_create();
	char longpath[200];
	const char *a, *b, *c, *d, *e;

	if (!n) {
		ok(0, "rec_names_create");
		return;
	}
	a = rec_names_get(n, "/usr/lib/x86_64-linux-gnu/libc.so.6");
	ok(a && !strcmp(a, "libc.so.6"), "a library is its last component (%s)",
	   a ? a : "NULL");
	b = rec_names_get(n, "/opt/other/libc.so.6");
	ok(b && strcmp(a, b) && valid_name(b),
	   "another path of the same name gets another name (%s)",
	   b ? b : "NULL");
	ok(rec_names_get(n, "/usr/lib/x86_64-linux-gnu/libc.so.6") == a,
	   "a path asked again keeps its name");
	c = rec_names_get(n, "/memfd:jit cache (deleted)");
	ok(c && valid_name(c) && !strcmp(c, "memfd_jit"),
	   "':' and the rest of a deleted memfd's name are not kept (%s)",
	   c ? c : "NULL");
	memset(longpath, 'x', sizeof(longpath) - 1);
	longpath[0] = '/';
	longpath[sizeof(longpath) - 1] = '\0';
	d = rec_names_get(n, longpath);
	longpath[5] = 'y';
	e = rec_names_get(n, longpath);
	ok(d && e && valid_name(d) && valid_name(e) && strcmp(d, e),
	   "two long names stay within 63 characters and apart");
	ok(valid_name(rec_names_get(n, "/a/..")), "'..' is no file name");
	rec_names_destroy(n);
}

/* shmdt() needs the length shmat() mapped; fork copies the table */
static void shm_tests(void)
{
	struct rec_shm_set a = { 0 }, b = { 0 };

	ok(!rec_shm_attach(&a, 0x1000, 0x4000) &&
	   !rec_shm_attach(&a, 0x9000, 0x2000), "two segments attached");
	ok(!rec_shm_copy(&b, &a) && b.nr == 2, "fork copies both");
	is_long(rec_shm_detach(&a, 0x9000), 0x2000, "detach gives its length");
	is_long(rec_shm_detach(&a, 0x9000), 0, "a second detach finds none");
	is_long(rec_shm_detach(&b, 0x9000), 0x2000,
		"the child's copy is its own");
	is_long(rec_shm_detach(&a, 0x1000), 0x4000, "and the other");
	rec_shm_free(&a);
	rec_shm_free(&b);
}

/* What record's replay check refuses, told at its line */
static void replay_tests(void)
{
	static const char good[] = "kernel zero_page=on\nproc p1\n"
		"p1 mmap 0x100000000000 8K rw\n"
		"p1 touch 0x100000000000 8K write\n"
		"p1 fork p2\np2 exit\np1 exit\n";
	static const char bad[] = "proc p1\np1 mmap 0x100000000000 8K r\n"
		"p1 touch 0x100000000000 4K write\n";
	char path[] = "/tmp/record-parts-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
	FILE *save = stderr;

	if (!ok(f != NULL, "a scratch file"))
		return;
	fputs(good, f);
	fclose(f);
	is_long(rec_replay_check(path), 0, "a recording that replays: 0");
	f = fopen(path, "w");
	if (f) {
		fputs(bad, f);
		fclose(f);
	}
	stderr = fopen("/dev/null", "w");
	is_long(rec_replay_check(path), 1,
		"one whose write faults in the model (SIGSEGV): 1");
	fclose(stderr);
	stderr = save;
	unlink(path);
}

int main(void)
{
	ptrset_tests();
	names_tests();
	shm_tests();
	replay_tests();
	return tap_done();
}
