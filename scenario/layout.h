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

#endif /* COWCTX_LAYOUT_H */
