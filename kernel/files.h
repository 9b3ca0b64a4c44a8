/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The files behind a scenario's `file=NAME:OFFSET` mappings, made in a
 * private temporary directory: large enough for every mapping and
 * every growth the scenario asks for, with nonzero contents, and all
 * in the page cache (written page by page, so as small folios, and
 * synced, so no writeback is in flight while the scenario runs).
 */
#ifndef COWCTX_KERNEL_FILES_H
#define COWCTX_KERNEL_FILES_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "scenario/scenario.h"

/* A file that would need more than this is refused (exit 2) */
#define KFILE_MAX_BYTES	(1UL << 30)

struct kfiles {
	char dir[PATH_MAX];
	bool made;
	char (*names)[SCN_NAME_MAX];
	int nr;
	int stmt;	/* the statement a -2 is about */
};

/*
 * The size a scenario's file @name needs; *stmt gets the mapping that
 * reaches furthest into it (-1: none needs any of it)
 */
unsigned long kfile_size(const struct scenario *sc, const char *name,
			 int *stmt);

/*
 * Make the directory and every file; 0, or -1 with @why, or -2 when
 * the scenario asks for a file larger than KFILE_MAX_BYTES (@why, and
 * f->stmt the mapping that needs it)
 */
int kfiles_create(struct kfiles *f, const struct scenario *sc, char *why,
		  size_t whylen);
/* Remove the files and the directory; idempotent */
void kfiles_remove(struct kfiles *f);

#endif /* COWCTX_KERNEL_FILES_H */
