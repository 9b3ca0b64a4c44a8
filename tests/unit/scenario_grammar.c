// SPDX-License-Identifier: GPL-2.0
/*
 * The scenario grammar where a process is named like a statement word
 * (docs/scenario.md, "Names and keywords"): the second word decides,
 * every version 1 file keeps its meaning, and the one line both
 * statements fit, "proc exit", ends a live process named proc.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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
		if (st->kind != STMT_CHECK && off < len)
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
	return tap_done();
}
