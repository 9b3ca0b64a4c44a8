// SPDX-License-Identifier: GPL-2.0
/*
 * The scenario language's parser (docs/scenario.md, version 1).
 * Every error is found before anything runs: syntax, numbers, and the
 * process names, whose liveness is known statically from the order of
 * proc/fork/exit statements.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cowctx/mm.h>
#include "scenario/scenario.h"

#define MAX_TOKENS 16

struct parser {
	const char *path;
	int line;
	char *tok[MAX_TOKENS];
	int ntok;
	/* live process names, for the static checks */
	char (*live)[SCN_NAME_MAX];
	int nr_live;
	int cap_live;
};

__attribute__((format(printf, 2, 3)))
static int perr(struct parser *p, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%d: ", p->path, p->line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

static bool valid_name(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	for (s++; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

static int live_index(struct parser *p, const char *name)
{
	int i;

	for (i = 0; i < p->nr_live; i++)
		if (!strcmp(p->live[i], name))
			return i;
	return -1;
}

static int add_live(struct parser *p, const char *name)
{
	if (p->nr_live == p->cap_live) {
		int cap = p->cap_live ? p->cap_live * 2 : 16;
		void *n = realloc(p->live, cap * sizeof(*p->live));

		if (!n)
			return perr(p, "out of memory");
		p->live = n;
		p->cap_live = cap;
	}
	snprintf(p->live[p->nr_live++], SCN_NAME_MAX, "%s", name);
	return 0;
}

static void del_live(struct parser *p, int i)
{
	memmove(p->live[i], p->live[i + 1],
		(p->nr_live - i - 1) * sizeof(*p->live));
	p->nr_live--;
}

/* A new process name: well formed and not live */
static int new_name(struct parser *p, const char *name, char *out)
{
	if (!valid_name(name))
		return perr(p, "bad process name '%s'", name);
	if (strlen(name) >= SCN_NAME_MAX)
		return perr(p, "process name '%s' is too long", name);
	if (live_index(p, name) >= 0)
		return perr(p, "process '%s' already exists", name);
	strcpy(out, name);
	return 0;
}

/* Decimal or hex, optional K/M/G; no overflow, nothing trailing */
static int parse_number(struct parser *p, const char *s, const char *what,
			unsigned long *out)
{
	unsigned long long v, mul = 1;
	const char *digits = s;
	char *end;
	int base = 10;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		digits = s + 2;
		/* strtoull would take a second 0x: "0x0x10" is no number */
		if (digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X'))
			return perr(p, "bad %s '%s': not a number", what, s);
	}
	if (!isxdigit((unsigned char)*digits) ||
	    (base == 10 && !isdigit((unsigned char)*digits)))
		return perr(p, "bad %s '%s': not a number", what, s);
	errno = 0;
	v = strtoull(digits, &end, base);
	if (errno == ERANGE)
		return perr(p, "bad %s '%s': too large", what, s);
	if (*end == 'K')
		mul = 1ULL << 10;
	else if (*end == 'M')
		mul = 1ULL << 20;
	else if (*end == 'G')
		mul = 1ULL << 30;
	if (mul != 1)
		end++;
	if (*end)
		return perr(p, "bad %s '%s': not a number", what, s);
	if (v > ~0ULL / mul)
		return perr(p, "bad %s '%s': too large", what, s);
	*out = (unsigned long)(v * mul);
	return 0;
}

static int parse_aligned(struct parser *p, const char *s, const char *what,
			 unsigned long *out)
{
	if (parse_number(p, s, what, out))
		return -1;
	if (*out & (PAGE_SIZE - 1))
		return perr(p, "%s %s is not a multiple of 4096", what, s);
	return 0;
}

static int parse_prot(struct parser *p, const char *s, int *prot)
{
	static const struct {
		const char *name;
		int prot;
	} prots[] = {
		{ "none", PROT_NONE },
		{ "r", PROT_READ },
		{ "rw", PROT_READ | PROT_WRITE },
		{ "rx", PROT_READ | PROT_EXEC },
		{ "rwx", PROT_READ | PROT_WRITE | PROT_EXEC },
		{ "w", PROT_WRITE },
		{ "wx", PROT_WRITE | PROT_EXEC },
		{ "x", PROT_EXEC },
	};
	size_t i;

	for (i = 0; i < sizeof(prots) / sizeof(prots[0]); i++) {
		if (!strcmp(s, prots[i].name)) {
			*prot = prots[i].prot;
			return 0;
		}
	}
	return perr(p, "bad protection '%s' (none, or r, w, x in that order)",
		    s);
}

static const struct {
	const char *name;
	int advice;
} advices[] = {
	{ "dontneed", MADV_DONTNEED },
	{ "dontfork", MADV_DONTFORK },
	{ "dofork", MADV_DOFORK },
	{ "wipeonfork", MADV_WIPEONFORK },
	{ "keeponfork", MADV_KEEPONFORK },
	{ "free", MADV_FREE },
	{ "normal", MADV_NORMAL },
	{ "random", MADV_RANDOM },
	{ "sequential", MADV_SEQUENTIAL },
	{ "hugepage", MADV_HUGEPAGE },
	{ "nohugepage", MADV_NOHUGEPAGE },
	{ "mergeable", MADV_MERGEABLE },
	{ "unmergeable", MADV_UNMERGEABLE },
};

const char *stmt_kind_name(enum stmt_kind kind)
{
	static const char *const names[] = {
		[STMT_PROC] = "proc", [STMT_MMAP] = "mmap",
		[STMT_MUNMAP] = "munmap", [STMT_MPROTECT] = "mprotect",
		[STMT_MREMAP] = "mremap", [STMT_MADVISE] = "madvise",
		[STMT_TOUCH] = "touch", [STMT_FORK] = "fork",
		[STMT_EXIT] = "exit", [STMT_CHECK] = "check",
		[STMT_EXEC] = "exec", [STMT_BRK] = "brk",
		[STMT_RECORDED] = "recorded", [STMT_MSEAL] = "mseal",
	};

	return names[kind];
}

static int want_args(struct parser *p, int min, int max, const char *usage)
{
	if (p->ntok < min)
		return perr(p, "missing argument: %s", usage);
	if (p->ntok > max)
		return perr(p, "unexpected '%s' after '%s'", p->tok[max],
			    p->tok[max - 1]);
	return 0;
}

/* "P VERB ADDR LEN ...": exactly @nargs words, ADDR and LEN page aligned */
static int parse_range(struct parser *p, int nargs, const char *usage,
		       struct stmt *st)
{
	return want_args(p, nargs, nargs, usage) ||
	       parse_aligned(p, p->tok[2], "address", &st->addr) ||
	       parse_aligned(p, p->tok[3], "length", &st->len) ? -1 : 0;
}

static int parse_mapping(struct parser *p, const char *s, struct stmt *st)
{
	const char *colon;
	size_t n;

	if (!strcmp(s, "anon"))
		return 0;
	if (strncmp(s, "file=", 5))
		return perr(p, "bad mapping '%s' (anon or file=NAME:OFFSET)", s);
	s += 5;
	colon = strchr(s, ':');
	if (!colon || colon == s)
		return perr(p, "bad mapping 'file=%s' (file=NAME:OFFSET)", s);
	n = colon - s;
	if (n >= SCN_NAME_MAX)
		return perr(p, "file name too long");
	memcpy(st->file, s, n);
	st->file[n] = '\0';
	if (strchr(st->file, '/') || !strcmp(st->file, ".") ||
	    !strcmp(st->file, ".."))
		return perr(p, "bad file name '%s'", st->file);
	st->is_file = true;
	return parse_aligned(p, colon + 1, "file offset", &st->offset);
}

/*
 * mmap's trailing words: MAPPING first if given, then the flags in any
 * order, each once. `any` (in ADDR's place) excludes `fixed`.
 */
static int parse_mmap_tail(struct parser *p, int t, struct stmt *st)
{
	static const struct {
		const char *name;
		unsigned int flag;
	} flags[] = {
		{ "shared", MM_MAP_SHARED },
		{ "fixed", MM_MAP_FIXED },
		{ "stack", MM_MAP_GROWSDOWN },
		{ "nohugepage", MM_MAP_NOHUGEPAGE },
	};
	size_t f;

	if (t < p->ntok && (!strcmp(p->tok[t], "anon") ||
			    !strncmp(p->tok[t], "file=", 5))) {
		if (parse_mapping(p, p->tok[t], st))
			return -1;
		t++;
	}
	for (; t < p->ntok; t++) {
		for (f = 0; f < sizeof(flags) / sizeof(flags[0]); f++)
			if (!strcmp(p->tok[t], flags[f].name))
				break;
		if (f == sizeof(flags) / sizeof(flags[0])) {
			if (t == 5)	/* the word MAPPING would be */
				return parse_mapping(p, p->tok[t], st);
			return perr(p, "bad mmap flag '%s' (shared, fixed, stack, nohugepage; MAPPING comes first)",
				    p->tok[t]);
		}
		if (st->map_flags & flags[f].flag)
			return perr(p, "'%s' given twice", p->tok[t]);
		st->map_flags |= flags[f].flag;
	}
	if ((st->map_flags & MM_MAP_ANY) && (st->map_flags & MM_MAP_FIXED))
		return perr(p, "'fixed' needs an address, not 'any'");
	return 0;
}

/* exec's optional words, in any order, each once */
static int parse_exec_args(struct parser *p, struct stmt *st)
{
	bool have_brk = false, have_base = false;
	int t;

	st->mmap_base = MM_DEFAULT_MMAP_BASE;
	for (t = 2; t < p->ntok; t++) {
		const char *s = p->tok[t];

		if (!strncmp(s, "brk=", 4) && !have_brk) {
			have_brk = true;
			if (parse_aligned(p, s + 4, "brk", &st->brk))
				return -1;
		} else if (!strncmp(s, "mmap_base=", 10) && !have_base) {
			have_base = true;
			if (parse_aligned(p, s + 10, "mmap_base", &st->mmap_base))
				return -1;
		} else {
			return perr(p, "unexpected '%s' in exec (brk=ADDR, mmap_base=ADDR, each once)",
				    s);
		}
	}
	return 0;
}

/* An object count: a number that fits a long */
static int parse_count(struct parser *p, const char *s, long *out)
{
	unsigned long v;

	if (parse_number(p, s, "count", &v))
		return -1;
	if (v > (unsigned long)__LONG_MAX__)
		return perr(p, "bad count '%s': too large", s);
	*out = (long)v;
	return 0;
}

/* recorded anon_vma=N anon_vma_chain=M, in either order */
static int parse_recorded(struct parser *p, struct stmt *st)
{
	static const char usage[] = "recorded anon_vma=N anon_vma_chain=M";
	bool have_av = false, have_avc = false;
	int t;

	if (want_args(p, 3, 3, usage))
		return -1;
	for (t = 1; t < 3; t++) {
		const char *s = p->tok[t];

		if (!strncmp(s, "anon_vma=", 9) && !have_av) {
			have_av = true;
			if (parse_count(p, s + 9, &st->rec_anon_vma))
				return -1;
		} else if (!strncmp(s, "anon_vma_chain=", 15) && !have_avc) {
			have_avc = true;
			if (parse_count(p, s + 15, &st->rec_anon_vma_chain))
				return -1;
		} else {
			return perr(p, "unexpected '%s' (%s)", s, usage);
		}
	}
	return 0;
}

static bool is_verb(const char *s)
{
	static const char *const verbs[] = {
		"mmap", "munmap", "mprotect", "mremap", "madvise", "touch",
		"fork", "exit", "exec", "brk", "mseal",
	};
	size_t i;

	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (!strcmp(s, verbs[i]))
			return true;
	return false;
}

/*
 * Is the first word of a line that starts with "check" or "proc" the
 * name of a process that acts? The language reserves no words, so the
 * second word decides: a verb makes the first word a process name.
 * Only "proc exit" fits both "proc P" and "P exit"; it ends a live
 * process named proc, and otherwise creates one named exit, as it
 * always did (docs/scenario.md, "Names and keywords").
 */
static bool names_actor(struct parser *p)
{
	if (p->ntok < 2 || !is_verb(p->tok[1]))
		return false;
	/* "proc mmap" is "proc P": no verb but exit goes without words */
	if (p->ntok == 2 && !strcmp(p->tok[0], "proc"))
		return !strcmp(p->tok[1], "exit") &&
		       live_index(p, "proc") >= 0;
	return true;
}

/*
 * kernel zero_page=on|off: what the file says of the kernel it was
 * written for. Before every statement, so that nothing has run in
 * another mode, and each setting once.
 */
static int parse_kernel(struct parser *p, struct scenario *sc)
{
	static const char usage[] = "kernel zero_page=on|off";
	int t;

	if (sc->nr)
		return perr(p, "'kernel' comes before every statement");
	if (p->ntok < 2)
		return perr(p, "missing argument: %s", usage);
	for (t = 1; t < p->ntok; t++) {
		const char *s = p->tok[t];

		if (strncmp(s, "zero_page=", 10))
			return perr(p, "unexpected '%s' (%s)", s, usage);
		if (sc->zero_page_line)
			return perr(p, "zero_page already stated at line %d",
				    sc->zero_page_line);
		if (scenario_zero_page_parse(s + 10, &sc->zero_page))
			return perr(p, "bad zero_page '%s' (on or off)",
				    s + 10);
		sc->zero_page_line = p->line;
	}
	return 0;
}

/* One statement from p->tok; fills @st. */
static int parse_stmt(struct parser *p, struct stmt *st)
{
	const char *verb;
	int i;

	memset(st, 0, sizeof(*st));
	st->line = p->line;
	if (!strcmp(p->tok[0], "check") && !names_actor(p)) {
		st->kind = STMT_CHECK;
		return want_args(p, 1, 1, "check");
	}
	if (!strcmp(p->tok[0], "recorded") && !names_actor(p)) {
		st->kind = STMT_RECORDED;
		return parse_recorded(p, st);
	}
	if (!strcmp(p->tok[0], "proc") && !names_actor(p)) {
		st->kind = STMT_PROC;
		if (want_args(p, 2, 2, "proc P") ||
		    new_name(p, p->tok[1], st->proc))
			return -1;
		return add_live(p, st->proc);
	}
	if (p->ntok < 2)
		return perr(p, "unknown statement '%s'", p->tok[0]);
	verb = p->tok[1];
	if (!valid_name(p->tok[0]))
		return perr(p, "unknown statement '%s'", p->tok[0]);
	i = live_index(p, p->tok[0]);
	if (!strcmp(verb, "mmap")) {
		st->kind = STMT_MMAP;
		if (p->ntok > 2 && !strcmp(p->tok[2], "any"))
			st->map_flags = MM_MAP_ANY;
		if (want_args(p, 5, 9,
			      "P mmap ADDR|any LEN PROT [MAPPING] [shared] [fixed] [stack]") ||
		    (!st->map_flags &&
		     parse_aligned(p, p->tok[2], "address", &st->addr)) ||
		    parse_aligned(p, p->tok[3], "length", &st->len) ||
		    parse_prot(p, p->tok[4], &st->prot) ||
		    parse_mmap_tail(p, 5, st))
			return -1;
	} else if (!strcmp(verb, "exec")) {
		st->kind = STMT_EXEC;
		if (parse_exec_args(p, st))
			return -1;
	} else if (!strcmp(verb, "brk")) {
		st->kind = STMT_BRK;
		if (want_args(p, 3, 3, "P brk ADDR") ||
		    parse_aligned(p, p->tok[2], "address", &st->brk))
			return -1;
	} else if (!strcmp(verb, "mseal")) {
		st->kind = STMT_MSEAL;
		if (parse_range(p, 4, "P mseal ADDR LEN", st))
			return -1;
	} else if (!strcmp(verb, "munmap")) {
		st->kind = STMT_MUNMAP;
		if (parse_range(p, 4, "P munmap ADDR LEN", st))
			return -1;
	} else if (!strcmp(verb, "mprotect")) {
		st->kind = STMT_MPROTECT;
		if (parse_range(p, 5, "P mprotect ADDR LEN PROT", st) ||
		    parse_prot(p, p->tok[4], &st->prot))
			return -1;
	} else if (!strcmp(verb, "mremap")) {
		int t = 5;

		st->kind = STMT_MREMAP;
		if (want_args(p, 5, 8,
			      "P mremap ADDR OLDLEN NEWLEN [to NEWADDR] [dontunmap]") ||
		    parse_aligned(p, p->tok[2], "address", &st->addr) ||
		    parse_aligned(p, p->tok[3], "length", &st->len) ||
		    parse_aligned(p, p->tok[4], "length", &st->new_len))
			return -1;
		if (t < p->ntok && !strcmp(p->tok[t], "to")) {
			if (t + 1 >= p->ntok)
				return perr(p, "missing argument: to NEWADDR");
			if (parse_aligned(p, p->tok[t + 1], "address",
					  &st->new_addr))
				return -1;
			st->mremap_flags = MREMAP_MAYMOVE | MREMAP_FIXED;
			t += 2;
		}
		if (t < p->ntok && !strcmp(p->tok[t], "dontunmap")) {
			if (!(st->mremap_flags & MREMAP_FIXED))
				return perr(p, "dontunmap needs 'to NEWADDR'");
			st->mremap_flags |= MREMAP_DONTUNMAP;
			t++;
		}
		if (t < p->ntok)
			return perr(p, "unexpected '%s' in mremap", p->tok[t]);
	} else if (!strcmp(verb, "madvise")) {
		size_t a;

		st->kind = STMT_MADVISE;
		if (parse_range(p, 5, "P madvise ADDR LEN ADVICE", st))
			return -1;
		for (a = 0; a < sizeof(advices) / sizeof(advices[0]); a++)
			if (!strcmp(p->tok[4], advices[a].name))
				break;
		if (a == sizeof(advices) / sizeof(advices[0]))
			return perr(p, "bad advice '%s' (dontneed, dontfork, dofork, wipeonfork, keeponfork, free, normal, random, sequential, hugepage, nohugepage, mergeable, unmergeable)",
				    p->tok[4]);
		st->advice = advices[a].advice;
	} else if (!strcmp(verb, "touch")) {
		st->kind = STMT_TOUCH;
		if (parse_range(p, 5, "P touch ADDR LEN read|write", st))
			return -1;
		if (!strcmp(p->tok[4], "write"))
			st->write = true;
		else if (strcmp(p->tok[4], "read"))
			return perr(p, "bad access '%s' (read or write)",
				    p->tok[4]);
	} else if (!strcmp(verb, "fork")) {
		st->kind = STMT_FORK;
		if (want_args(p, 3, 3, "P fork C"))
			return -1;
	} else if (!strcmp(verb, "exit")) {
		st->kind = STMT_EXIT;
		if (want_args(p, 2, 2, "P exit"))
			return -1;
	} else {
		return perr(p, "unknown statement '%s'", verb);
	}
	/* the actor must be alive: known only now the syntax is right */
	if (i < 0)
		return perr(p, "unknown process '%s'", p->tok[0]);
	strcpy(st->proc, p->tok[0]);
	if (st->kind == STMT_FORK) {
		if (new_name(p, p->tok[2], st->child))
			return -1;
		return add_live(p, st->child);
	}
	if (st->kind == STMT_EXIT)
		del_live(p, i);
	return 0;
}

/*
 * A recording's comment "# ...: not in the language" (kernel/
 * record_write.c): kept for the warning. -1 out of memory.
 */
static int note_unreplayed(struct scenario *sc, const char *line, int nr)
{
	static const char tail[] = "not in the language";
	const char *s = line + strspn(line, " \t");
	size_t len, tl = sizeof(tail) - 1;
	int k = sc->nr_unreplayed;

	/* statements, the most of any file, are not scanned again */
	if (*s != '#')
		return 0;
	len = strcspn(line, "\r\n");
	if (len < tl || strncmp(line + len - tl, tail, tl))
		return 0;
	sc->nr_unreplayed++;
	if (k >= SCN_UNREPLAYED_KEEP)
		return 0;
	sc->unreplayed_line[k] = nr;
	sc->unreplayed[k] = strndup(s, line + len - s);
	return sc->unreplayed[k] ? 0 : -1;
}

void scenario_warn_unreplayed(const struct scenario *sc, FILE *out)
{
	int k;

	for (k = 0; k < sc->nr_unreplayed && k < SCN_UNREPLAYED_KEEP; k++)
		fprintf(out, "%s:%d: warning: not replayed: %s\n", sc->path,
			sc->unreplayed_line[k], sc->unreplayed[k]);
	if (sc->nr_unreplayed > SCN_UNREPLAYED_KEEP)
		fprintf(out, "%s: warning: %d more lines not replayed (comments ending \"not in the language\")\n",
			sc->path, sc->nr_unreplayed - SCN_UNREPLAYED_KEEP);
}

static void tokenize(struct parser *p, char *line)
{
	char *s = line, *hash = strchr(line, '#');

	if (hash)
		*hash = '\0';
	p->ntok = 0;
	for (;;) {
		while (*s == ' ' || *s == '\t' || *s == '\r')
			s++;
		if (!*s || *s == '\n')
			break;
		if (p->ntok == MAX_TOKENS) {
			p->ntok++;	/* too many: reported by the caller */
			break;
		}
		p->tok[p->ntok++] = s;
		while (*s && *s != ' ' && *s != '\t' && *s != '\r' &&
		       *s != '\n')
			s++;
		if (*s)
			*s++ = '\0';
	}
}

int scenario_parse_string(const char *path, const char *text,
			  struct scenario *sc)
{
	struct parser p = { .path = path };
	char *buf = strdup(text), *line, *next;
	int cap = 0, err = 0;

	memset(sc, 0, sizeof(*sc));
	sc->path = strdup(path);
	if (!buf || !sc->path) {
		free(buf);
		free(sc->path);
		sc->path = NULL;
		fprintf(stderr, "%s: out of memory\n", path);
		return -1;
	}
	for (line = buf; line && !err; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		p.line++;
		if (note_unreplayed(sc, line, p.line)) {
			err = perr(&p, "out of memory");
			break;
		}
		tokenize(&p, line);
		if (!p.ntok)
			continue;
		if (p.ntok > MAX_TOKENS) {
			err = perr(&p, "too many words");
			break;
		}
		if (!strcmp(p.tok[0], "kernel") && !names_actor(&p)) {
			err = parse_kernel(&p, sc);
			continue;
		}
		if (sc->nr == cap) {
			void *n;

			cap = cap ? cap * 2 : 64;
			n = realloc(sc->stmts, cap * sizeof(*sc->stmts));
			if (!n) {
				err = perr(&p, "out of memory");
				break;
			}
			sc->stmts = n;
		}
		err = parse_stmt(&p, &sc->stmts[sc->nr]);
		if (!err)
			sc->nr++;
	}
	free(p.live);
	free(buf);
	if (err)
		scenario_free(sc);
	return err;
}

int scenario_parse_file(const char *path, struct scenario *sc)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t len = 0, cap = 0, n;
	char chunk[4096];
	int ret;

	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -2;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (len + n + 1 > cap) {
			char *t;

			cap = (len + n + 1) * 2;
			t = realloc(text, cap);
			if (!t) {
				free(text);
				fclose(f);
				fprintf(stderr, "%s: out of memory\n", path);
				return -2;
			}
			text = t;
		}
		memcpy(text + len, chunk, n);
		len += n;
	}
	if (ferror(f)) {
		fprintf(stderr, "%s: read error\n", path);
		free(text);
		fclose(f);
		return -2;
	}
	fclose(f);
	if (text)
		text[len] = '\0';
	if (text && memchr(text, '\0', len)) {
		fprintf(stderr, "%s: binary file\n", path);
		free(text);
		return -1;
	}
	ret = scenario_parse_string(path, text ? text : "", sc);
	free(text);
	return ret;
}

void scenario_free(struct scenario *sc)
{
	int k;

	for (k = 0; k < SCN_UNREPLAYED_KEEP; k++)
		free(sc->unreplayed[k]);
	free(sc->stmts);
	free(sc->path);
	memset(sc, 0, sizeof(*sc));
}

const char *scenario_zero_page_name(enum scn_zero_page mode)
{
	return mode == SCN_ZERO_PAGE_OFF ? "off" : "on";
}

int scenario_zero_page_parse(const char *s, enum scn_zero_page *mode)
{
	if (!strcmp(s, "on"))
		*mode = SCN_ZERO_PAGE_ON;
	else if (!strcmp(s, "off"))
		*mode = SCN_ZERO_PAGE_OFF;
	else
		return -1;
	return 0;
}

int scenario_set_zero_page(struct scenario *sc, enum scn_zero_page mode,
			   const char *who, FILE *err)
{
	if (mode == SCN_ZERO_PAGE_UNSTATED)
		return 0;
	if (sc->zero_page != SCN_ZERO_PAGE_UNSTATED && sc->zero_page != mode) {
		fprintf(err, "%s:%d: the file states zero_page=%s, %s is zero_page=%s\n",
			sc->path, sc->zero_page_line,
			scenario_zero_page_name(sc->zero_page), who,
			scenario_zero_page_name(mode));
		return -1;
	}
	sc->zero_page = mode;
	return 0;
}

void scenario_apply_zero_page(const struct scenario *sc, struct model *m)
{
	m->forbids_zero_page = sc->zero_page == SCN_ZERO_PAGE_OFF;
}
