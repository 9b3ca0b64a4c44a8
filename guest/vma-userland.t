#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The kernel's own userland VMA tests, which nobody in the project wrote:
# tools/testing/vma compiles mm/vma.c (with the series applied, its
# COW context hooks included) into a userland binary with the kernel's
# stubs, and checks merges, splits, expansion and anon_vma handling.
# It must build and report every one of its tests passed. Run by make
# guest-check, which gives the patched tree in GUEST_SRC.
if [ -z "${GUEST_SRC:-}" ] || [ ! -d "$GUEST_SRC/tools/testing/vma" ]; then
	echo "1..0 # SKIP no patched kernel tree in GUEST_SRC (run make guest-check)"
	exit 0
fi
echo "1..2"
dir=$GUEST_SRC/tools/testing/vma
log=$(mktemp "${TMPDIR:-/tmp}/vma-userland.XXXXXX") || exit 1
trap 'rm -f "$log"' EXIT INT TERM
# the kernel's make must see none of ours
if MAKEFLAGS= MAKELEVEL= make -C "$dir" > "$log" 2>&1; then
	echo "ok 1 - tools/testing/vma builds with the series applied"
else
	echo "not ok 1 - tools/testing/vma builds with the series applied"
	tail -20 "$log" | sed 's/^/# /'
fi
"$dir/vma" > "$log" 2>&1
rc=$?
last=$(tail -1 "$log")
case $last in
*" tests run, "*" passed, 0 failed.") passed=$rc ;;
*) passed=1 ;;
esac
if [ "$passed" = 0 ]; then
	echo "ok 2 - tools/testing/vma: $last"
else
	echo "not ok 2 - tools/testing/vma: exit $rc, '$last'"
	tail -20 "$log" | sed 's/^/# /'
fi
