/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An internal inconsistency: always a bug in cowctx (the model, a
 * backend, a lock's use), never bad input. One reporter for all, so
 * every such stop reads "cowctx: WHO bug: what" and aborts (a core, and
 * a sanitizer's stack trace).
 */
#ifndef COWCTX_BUG_H
#define COWCTX_BUG_H

__attribute__((noreturn, format(printf, 2, 3)))
void cowctx_bug(const char *who, const char *fmt, ...);

#endif /* COWCTX_BUG_H */
