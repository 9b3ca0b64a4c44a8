// SPDX-License-Identifier: GPL-2.0
/*
 * The scenario grammar where a process is named like a statement word
 * (docs/scenario.md, "Names and keywords"): the second word decides,
 * every version 1 file keeps its meaning, and the one line both
 * statements fit, "proc exit", ends a live process named proc. Then
 * the additions for recordings: mmap's flags and `any`, exec, brk and
 * recorded, each word read as docs/scenario.md says.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cowctx/mm.h>
#include "scenario/scenario.h"
#include "tap.h"

/* "KIND:PROC[:CHILD]" for each statement, space separated */
static void describe(const struct scenario *sc, char *buf, size_t len)
{
	size_t off = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < sc->nr && off < len; i++) {
		const struct stmt *st = &sc->stmts[i];

		off += snprintf(buf + off, len - off, "%s%s", i ? " " : "",
				stmt_kind_name(st->kind));
		if (st->kind != STMT_CHECK && st->kind != STMT_RECORDED &&
		    off < len)
			off += snprintf(buf + off, len - off, ":%s", st->proc);
		if (st->kind == STMT_FORK && off < len)
			off += snprintf(buf + off, len - off, ":%s",
					st->child);
	}
}

static void parses_as(const char *text, const char *want, const char *what)
{
	struct scenario sc;
	char got[1024];

	if (!ok(!scenario_parse_string("t.scn", text, &sc), "%s: parses",
		what))
		return;
	describe(&sc, got, sizeof(got));
	if (!ok(!strcmp(got, want), "%s: %s", what, want))
		tap_diag("got %s", got);
	scenario_free(&sc);
}

/* Refused at @line with @msg in the report (stderr, captured) */
static void refused(const char *text, int line, const char *msg,
		    const char *what)
{
	char buf[512] = "", want[64];
	struct scenario sc;
	FILE *cap = tmpfile();
	int saved = dup(2), ret;

	if (!cap || saved < 0) {
		ok(0, "%s: capture stderr", what);
		return;
	}
	fflush(stderr);
	dup2(fileno(cap), 2);
	ret = scenario_parse_string("t.scn", text, &sc);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(cap);
	if (!fgets(buf, sizeof(buf), cap))
		buf[0] = '\0';
	fclose(cap);
	snprintf(want, sizeof(want), "t.scn:%d: ", line);
	ok(ret == -1 && !strncmp(buf, want, strlen(want)) && strstr(buf, msg),
	   "%s: refused at line %d, '%s'", what, line, msg);
	if (ret != -1 || strncmp(buf, want, strlen(want)) || !strstr(buf, msg))
		tap_diag("got %d: %s", ret, buf);
	if (!ret)
		scenario_free(&sc);
}

/* The last statement of @text, which must parse */
static bool last_stmt(const char *text, struct stmt *out, const char *what)
{
	struct scenario sc;

	if (!ok(!scenario_parse_string("t.scn", text, &sc), "%s: parses",
		what))
		return false;
	*out = sc.stmts[sc.nr - 1];
	scenario_free(&sc);
	return true;
}

static void mmap_reads(const char *line, unsigned int flags,
		       unsigned long addr, const char *file, const char *what)
{
	char text[256];
	struct stmt st;

	snprintf(text, sizeof(text), "proc P\n%s\n", line);
	if (!last_stmt(text, &st, what))
		return;
	ok(st.kind == STMT_MMAP && st.map_flags == flags && st.addr == addr &&
	   st.is_file == !!file && (!file || !strcmp(st.file, file)),
	   "%s: flags %#x at %#lx%s%s", what, flags, addr, file ? " file " : "",
	   file ? file : "");
}

static void additions(void)
{
	struct stmt st;

	mmap_reads("P mmap 0x1000 4K r file=f:0 fixed", MM_MAP_FIXED, 0x1000,
		   "f", "fixed after MAPPING");
	mmap_reads("P mmap 0x1000 4K rw stack fixed shared",
		   MM_MAP_FIXED | MM_MAP_SHARED | MM_MAP_GROWSDOWN, 0x1000,
		   NULL, "flags in any order, MAPPING left out");
	mmap_reads("P mmap 0x1000 4K rw anon shared", MM_MAP_SHARED, 0x1000,
		   NULL, "anon shared");
	mmap_reads("P mmap 0x1000 4K rw", 0, 0x1000, NULL,
		   "version 1 mmap: no flag");
	mmap_reads("P mmap any 8K rw", MM_MAP_ANY, 0, NULL, "mmap any");
	mmap_reads("P mmap any 8K r file=g:4K shared",
		   MM_MAP_ANY | MM_MAP_SHARED, 0, "g", "mmap any of a file");

	if (last_stmt("proc P\nP exec\n", &st, "bare exec"))
		ok(st.kind == STMT_EXEC && !st.brk &&
		   st.mmap_base == MM_DEFAULT_MMAP_BASE,
		   "bare exec: no heap, the default mmap base");
	if (last_stmt("proc P\nP exec mmap_base=0x200000000000 brk=0x5000\n",
		      &st, "exec with both words"))
		ok(st.kind == STMT_EXEC && st.brk == 0x5000 &&
		   st.mmap_base == 0x200000000000UL,
		   "exec: brk= and mmap_base= in either order");
	if (last_stmt("proc P\nP madvise 0x1000 4K free\n", &st, "free"))
		ok(st.kind == STMT_MADVISE && st.advice == MADV_FREE,
		   "madvise free is MADV_FREE");
	mmap_reads("P mmap 0x1000 68K none nohugepage", MM_MAP_NOHUGEPAGE,
		   0x1000, NULL, "nohugepage (a thread stack)");
	mmap_reads("P mmap any 8K rw nohugepage stack",
		   MM_MAP_ANY | MM_MAP_NOHUGEPAGE | MM_MAP_GROWSDOWN, 0, NULL,
		   "nohugepage beside stack, after any");
	{
		static const struct {
			const char *word;
			int advice;
		} vm_flag_advice[] = {
			{ "normal", MADV_NORMAL },
			{ "random", MADV_RANDOM },
			{ "sequential", MADV_SEQUENTIAL },
			{ "hugepage", MADV_HUGEPAGE },
			{ "nohugepage", MADV_NOHUGEPAGE },
			{ "mergeable", MADV_MERGEABLE },
			{ "unmergeable", MADV_UNMERGEABLE },
		};
		char text[64];
		size_t i;

		for (i = 0; i < sizeof(vm_flag_advice) /
				sizeof(vm_flag_advice[0]); i++) {
			snprintf(text, sizeof(text),
				 "proc P\nP madvise 0x1000 4K %s\n",
				 vm_flag_advice[i].word);
			if (last_stmt(text, &st, vm_flag_advice[i].word))
				ok(st.kind == STMT_MADVISE &&
				   st.advice == vm_flag_advice[i].advice,
				   "madvise %s is advice %d",
				   vm_flag_advice[i].word,
				   vm_flag_advice[i].advice);
		}
	}
	if (last_stmt("proc P\nP brk 0x7000\n", &st, "brk"))
		ok(st.kind == STMT_BRK && st.brk == 0x7000, "brk ADDR");
	if (last_stmt("recorded anon_vma_chain=7 anon_vma=3\n", &st,
		      "recorded"))
		ok(st.kind == STMT_RECORDED && st.rec_anon_vma == 3 &&
		   st.rec_anon_vma_chain == 7,
		   "recorded: both counts, in either order");

	parses_as("proc recorded\n"
		  "recorded mmap 0x1000 4K rw\n"
		  "recorded brk 0x2000\n"
		  "recorded anon_vma=0 anon_vma_chain=0\n"
		  "recorded exec brk=0x3000\n"
		  "recorded exit\n",
		  "proc:recorded mmap:recorded brk:recorded recorded exec:recorded exit:recorded",
		  "a process named recorded beside the statement");
	if (last_stmt("proc P\nP mseal 0x7000 8K\n", &st, "mseal"))
		ok(st.kind == STMT_MSEAL && st.addr == 0x7000 &&
		   st.len == 0x2000, "mseal ADDR LEN");
	parses_as("proc mseal\n"
		  "proc kernel\n"
		  "mseal mseal 0x1000 4K\n"
		  "kernel mseal 0x1000 4K\n"
		  "mseal exit\n",
		  "proc:mseal proc:kernel mseal:mseal mseal:kernel exit:mseal",
		  "proc mseal and proc kernel create processes; a verb after kernel makes it one");
	parses_as("proc exec\n"
		  "proc brk\n"
		  "exec mmap 0x1000 4K rw\n"
		  "brk exit\n"
		  "exec exit\n",
		  "proc:exec proc:brk mmap:exec exit:brk exit:exec",
		  "proc exec and proc brk create exec and brk, as in version 1");
	parses_as("proc proc\n"
		  "proc exec brk=0x1000\n"
		  "proc brk 0x2000\n"
		  "proc check\n"
		  "check exec\n",
		  "proc:proc exec:proc brk:proc proc:check exec:check",
		  "proc and check exec and brk with words after the verb");

	refused("proc P\nP mmap 0x1000 4K rw shared shared\n", 2,
		"'shared' given twice", "a flag twice");
	refused("proc P\nP mmap 0x1000 4K rw nohugepage nohugepage\n", 2,
		"'nohugepage' given twice", "nohugepage twice");
	refused("proc P\nP madvise 0x1000 4K dontdump\n", 2,
		"bad advice 'dontdump'", "advice the language has not");
	refused("proc P\nP mmap any 4K rw fixed\n", 2,
		"'fixed' needs an address", "any with fixed");
	refused("proc P\nP mmap 0x1000 4K rw shared anon\n", 2,
		"bad mmap flag 'anon'", "MAPPING after a flag");
	refused("proc P\nP mmap 0x1000 4K rw anonymous\n", 2,
		"bad mapping 'anonymous'", "neither MAPPING nor flag");
	refused("proc P\nP mmap any 4K\n", 2, "missing argument",
		"mmap any without PROT");
	refused("proc P\nP exec brk=0x1001\n", 2,
		"not a multiple of 4096", "exec brk= unaligned");
	refused("proc P\nP exec brk=0x1000 brk=0x2000\n", 2,
		"unexpected 'brk=0x2000' in exec", "exec brk= twice");
	refused("proc P\nP exec now\n", 2, "unexpected 'now' in exec",
		"exec with a stray word");
	refused("proc P\nP brk\n", 2, "missing argument", "brk alone");
	refused("proc P\nP brk 0x1000 0x2000\n", 2,
		"unexpected '0x2000'", "brk with two addresses");
	refused("recorded anon_vma=1\n", 1, "missing argument",
		"recorded with one count");
	refused("recorded anon_vma=1 anon_vma=2\n", 1,
		"unexpected 'anon_vma=2'", "recorded anon_vma twice");
	refused("recorded anon_vma=x anon_vma_chain=1\n", 1,
		"not a number", "recorded with a bad count");
	refused("proc P\nrecorded mmap 0x1000 4K rw\n", 2,
		"unknown process 'recorded'",
		"recorded VERB with no process recorded");
}

int main(void)
{
	parses_as("proc check\n"
		  "check mmap 0x1000 4K rw\n"
		  "check\n"
		  "check fork c\n"
		  "check exit\n"
		  "check\n",
		  "proc:check mmap:check check fork:check:c exit:check check",
		  "a process named check");
	parses_as("proc proc\n"
		  "proc mmap 0x1000 4K rw\n"
		  "proc fork exit\n"
		  "exit exit\n"
		  "proc exit\n"
		  "proc exit\n",
		  "proc:proc mmap:proc fork:proc:exit exit:exit exit:proc proc:exit",
		  "proc exit: ends a live proc, else creates exit");
	parses_as("proc proc\n"
		  "proc mmap\n"
		  "proc fork\n"
		  "proc touch\n"
		  "proc check\n",
		  "proc:proc proc:mmap proc:fork proc:touch proc:check",
		  "proc VERB alone creates VERB, as in version 1");
	parses_as("proc exit\n"
		  "exit mmap 0x1000 4K rw\n"
		  "exit exit\n",
		  "proc:exit mmap:exit exit:exit",
		  "a version 1 file: proc exit with no proc creates exit");
	parses_as("proc P\n"
		  "P fork check\n"
		  "P fork proc\n"
		  "check exit\n"
		  "proc exit\n"
		  "check\n",
		  "proc:P fork:P:check fork:P:proc exit:check exit:proc check",
		  "children named check and proc");

	refused("proc P\ncheck P\n", 2, "unexpected 'P' after 'check'",
		"check takes no argument");
	refused("proc P\ncheck mmap 0x1000 4K rw\n", 2,
		"unknown process 'check'", "check VERB with no process check");
	refused("proc proc\nproc exit\nproc touch 0x1000 4K read\n", 3,
		"unknown process 'proc'", "proc exit ended proc");
	refused("proc proc\nproc exit\nexit exit\n", 3,
		"unknown process 'exit'", "proc exit created no exit");
	refused("proc P\nproc\n", 2, "missing argument", "proc alone");
	refused("proc exit\nproc exit\n", 2, "already exists",
		"proc exit twice with no proc: exit exists");
	refused("proc proc\nproc fork\nproc fork\n", 3, "already exists",
		"proc fork with a live process fork");
	additions();
	return tap_done();
}
