/* SPDX-License-Identifier: GPL-2.0 */
/* The subcommands that live outside tools/cowctx.c. */
#ifndef COWCTX_TOOLS_H
#define COWCTX_TOOLS_H

/* kernel/kernel_cmd.c: cowctx kernel */
int cmd_kernel(int argc, char **argv);
/* bench/bench_cmd.c: cowctx bench */
int cmd_bench(int argc, char **argv);
/* kernel/record_cmd.c: cowctx record */
int cmd_record(int argc, char **argv);

#endif /* COWCTX_TOOLS_H */
