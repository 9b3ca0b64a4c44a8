// SPDX-License-Identifier: GPL-2.0
/*
 * Subcommands not built yet answer clearly instead of failing to link.
 * Each is weak, so the real one replaces it when its file is built.
 */
#include <stdio.h>

#include "tools/cowctx.h"

__attribute__((weak)) int cmd_kernel(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "cowctx kernel: not built in this tree\n");
	return 2;
}

__attribute__((weak)) int cmd_bench(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "cowctx bench: not built in this tree\n");
	return 2;
}
