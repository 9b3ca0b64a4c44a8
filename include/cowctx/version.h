/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The version this binary was built from: the Makefile's VERSION and,
 * in a git checkout, `git describe --always --dirty` of the tree at
 * build time. `cowctx --version` prints it, and report.md names it, so
 * a report says which build measured it, not which tree it was run in.
 */
#ifndef COWCTX_VERSION_H
#define COWCTX_VERSION_H

extern const char cowctx_version[];

#endif /* COWCTX_VERSION_H */
