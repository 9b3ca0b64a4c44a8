/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Linux's behaviour kept: a program must not be able to tell which
 * reverse map runs, so every backend's model instance must build the
 * VMA layout the anon_vma instance builds (Linux's), statement by
 * statement, and accept and refuse the same calls.
 */
#ifndef COWCTX_LAYOUT_H
#define COWCTX_LAYOUT_H

#include <stdio.h>

#include <cowctx/mm_types.h>

struct exec_state;

/*
 * Do the live processes of @es and @ref have the same VMAs (range,
 * flags, file, pgoff, whether and which anon_vma Linux gives them)?
 * Returns 0 if so; else 1, and prints the first differing process's
 * two layouts to @out, after "@where: ".
 */
int layout_compare(struct exec_state *ref, struct exec_state *es,
		   FILE *out, const char *where);

/*
 * For a backend with Linux's anon_vmas (it implements
 * ->vma_is_fork_child): do the model's anon_vma_ids name exactly its
 * anon_vmas, VMA by VMA within each mm, and is ANON_VMA_ID_FORKED set
 * exactly on fork children? And, for every backend: does every VMA
 * with anon state have an id and the reverse, and do VMAs sharing an
 * id share one vm_anon_pgoff - vm_pgoff? NULL if so, else what is
 * wrong (a static buffer), or anon_vma_id_nomem.
 */
const char *anon_vma_id_check(struct model *m);
extern const char anon_vma_id_nomem[];

struct stmt;

/* [start, end): what a statement acted on */
struct layout_range {
	unsigned long start, end;
};

/*
 * What a touch may change of its process's layout on one instance: a
 * fault never moves a VMA (stack growth takes the mmap write lock), it
 * only gives one its anon state.
 */
#define LAYOUT_WATCH_MAX	8
struct layout_watch_mm {
	struct mm_struct *mm;
	unsigned int seq;		/* mm_lock_seq */
	unsigned long nr_vmas;
	unsigned int nr;		/* VMAs in the range (> MAX: too many) */
	struct vm_area_struct *vma[LAYOUT_WATCH_MAX];
	unsigned long anon_vma_id[LAYOUT_WATCH_MAX];
	void *anon_vma[LAYOUT_WATCH_MAX];
};

struct layout_watch {
	bool touch;
	struct layout_watch_mm mm[2];	/* ref's, es's */
};

/* Before @st runs on @ref and @es: what layout_check_stmt() needs */
void layout_watch_begin(struct layout_watch *w, struct exec_state *ref,
			struct exec_state *es, const struct stmt *st);

/*
 * After @st ran on both (and both accepted it): the layout check of
 * the VMAs @st acted on and their neighbours (none after a touch that
 * changed no layout; a fork: both processes' every VMA), and of every
 * process once the statements since the last whole check have cost as
 * much (es->layout_debt), and at a `check`.
 * 0 if they agree; else 1 (2: out of memory) and the report on @out,
 * after "@where: ", as layout_compare() and anon_vma_id_check() say.
 */
int layout_check_stmt(const struct layout_watch *w, struct exec_state *ref,
		      struct exec_state *es, const struct stmt *st, FILE *out,
		      const char *where);
/* The same for every process, and the ids of every mm */
int layout_check_full(struct exec_state *ref, struct exec_state *es,
		      FILE *out, const char *where);

#endif /* COWCTX_LAYOUT_H */
