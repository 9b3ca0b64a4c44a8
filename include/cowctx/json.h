/* SPDX-License-Identifier: GPL-2.0 */
/* The little JSON the command line writes. */
#ifndef COWCTX_JSON_H
#define COWCTX_JSON_H

#include <stdio.h>

/* @s as a JSON string, quotes and escapes included */
void json_string(FILE *f, const char *s);

#endif /* COWCTX_JSON_H */
