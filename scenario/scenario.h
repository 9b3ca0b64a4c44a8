/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The scenario language, version 1 and its additions (docs/scenario.md):
 * parsed once, then executed against a model instance or real processes.
 */
#ifndef COWCTX_SCENARIO_H
#define COWCTX_SCENARIO_H

#include <stdbool.h>
#include <stdio.h>

#define SCN_NAME_MAX	64
#define SCN_UNREPLAYED_KEEP	5

enum stmt_kind {
	STMT_PROC,
	STMT_MMAP,
	STMT_MUNMAP,
	STMT_MPROTECT,
	STMT_MREMAP,
	STMT_MADVISE,
	STMT_TOUCH,
	STMT_FORK,
	STMT_EXIT,
	STMT_CHECK,
	/* the additions for recordings (docs/scenario.md) */
	STMT_EXEC,
	STMT_BRK,
	STMT_RECORDED,
	/* added for mseal() */
	STMT_MSEAL,
};

struct stmt {
	enum stmt_kind kind;
	int line;
	char proc[SCN_NAME_MAX];	/* who acts (proc: who is created) */
	char child[SCN_NAME_MAX];	/* fork: the child */
	unsigned long addr;
	unsigned long len;		/* mremap: old length */
	unsigned long new_len;		/* mremap */
	unsigned long new_addr;		/* mremap ... to NEWADDR */
	unsigned long mremap_flags;	/* MREMAP_* */
	int prot;			/* PROT_* */
	bool is_file;			/* mmap file=NAME:OFFSET */
	char file[SCN_NAME_MAX];
	unsigned long offset;		/* file offset in bytes */
	int advice;			/* MADV_* */
	bool write;			/* touch write (else read) */
	unsigned int map_flags;		/* mmap: MM_MAP_* (<cowctx/mm.h>) */
	unsigned long brk;		/* exec brk=, brk ADDR */
	unsigned long mmap_base;	/* exec mmap_base= (0: the default) */
	long rec_anon_vma;		/* recorded anon_vma=N */
	long rec_anon_vma_chain;	/* recorded anon_vma_chain=M */
};

/*
 * What the file says of the kernel it was written for (`kernel
 * zero_page=on|off`, docs/scenario.md): unstated, the runner decides
 * (cowctx run: stock x86-64, or --zero-page; cowctx kernel: the probe).
 */
enum scn_zero_page {
	SCN_ZERO_PAGE_UNSTATED,
	SCN_ZERO_PAGE_ON,	/* read faults map the shared zero page */
	SCN_ZERO_PAGE_OFF,	/* the kernel forbids it: reads allocate */
};

struct scenario {
	char *path;
	struct stmt *stmts;
	int nr;
	enum scn_zero_page zero_page;
	int zero_page_line;	/* its `kernel` line; 0 when unstated */
	/*
	 * Comments that end "not in the language": what a recording met
	 * and could not write (docs/scenario.md), so a replay may differ
	 * there. Counted; the first SCN_UNREPLAYED_KEEP kept with lines.
	 */
	int nr_unreplayed;
	int unreplayed_line[SCN_UNREPLAYED_KEEP];
	char *unreplayed[SCN_UNREPLAYED_KEEP];
};

/*
 * Parse @path. On any syntax or static error (unknown or duplicate
 * process, unaligned number) prints "FILE:LINE: message" to stderr and
 * returns -1; nothing else happens. Returns -2 if the file can't be read.
 */
int scenario_parse_file(const char *path, struct scenario *sc);
/* Same, from a string; @path names it in messages. */
int scenario_parse_string(const char *path, const char *text,
			  struct scenario *sc);
void scenario_free(struct scenario *sc);

/*
 * Run @sc in zero-page mode @mode (@who names the command line or
 * probe that asks, for the message) unless the file states another:
 * then prints "FILE:LINE: ..." to @err and returns -1. An unstated
 * file takes @mode; SCN_ZERO_PAGE_UNSTATED changes nothing.
 */
int scenario_set_zero_page(struct scenario *sc, enum scn_zero_page mode,
			   const char *who, FILE *err);
/* "on" or "off" (stock when unstated) */
const char *scenario_zero_page_name(enum scn_zero_page mode);
/* "on" or "off" (a command line's) into *@mode: 0, or -1 for anything else */
int scenario_zero_page_parse(const char *s, enum scn_zero_page *mode);
/* Set @m's zero-page mode from @sc (stock when unstated) */
struct model;
void scenario_apply_zero_page(const struct scenario *sc, struct model *m);

/*
 * One "FILE:LINE: warning: ..." line on @out for each comment of @sc
 * that says it was not in the language (the first few, then a count)
 */
void scenario_warn_unreplayed(const struct scenario *sc, FILE *out);

/* The statement's keyword ("mmap" for STMT_MMAP), for reports */
const char *stmt_kind_name(enum stmt_kind kind);

#endif /* COWCTX_SCENARIO_H */
