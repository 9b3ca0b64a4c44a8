// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <cowctx/bug.h>

void cowctx_bug(const char *who, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "cowctx: %s bug: ", who);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}
