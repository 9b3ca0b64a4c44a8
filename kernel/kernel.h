/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cowctx kernel: the real kernel as the model's judge. A scenario runs
 * as real processes and in the model side by side; at every check the
 * two must agree on VMAs, page sharing and live anon_vma objects.
 */
#ifndef COWCTX_KERNEL_H
#define COWCTX_KERNEL_H

/* Exit status when this machine cannot serve (not root, no tracefs) */
#define KERNEL_EXIT_SKIP	77

/* cowctx kernel [--json] [--verbose] [--help] FILE.scn */
int cmd_kernel(int argc, char **argv);

#endif /* COWCTX_KERNEL_H */
