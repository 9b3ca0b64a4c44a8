/* SPDX-License-Identifier: GPL-2.0 */
/* Random valid scenarios, for property tests and fuzzing. */
#ifndef COWCTX_GEN_H
#define COWCTX_GEN_H

#include <stdbool.h>
#include <stdio.h>

/*
 * Write a scenario of about @ops statements to @out: a fork tree using
 * every statement of the language, valid on Linux by construction (it
 * is run on a shadow model as it is written). Same seed, same text.
 * Returns 0, or -ENOMEM.
 */
int scenario_gen(unsigned long seed, int ops, FILE *out);
/*
 * The same for a kernel without the shared zero page when
 * @forbids_zero_page (the text then starts with `kernel zero_page=off`,
 * and is valid there: reads give VMAs anonymous state, so merges and
 * remaps go other ways).
 */
int scenario_gen_mode(unsigned long seed, int ops, bool forbids_zero_page,
		      FILE *out);

#endif /* COWCTX_GEN_H */
