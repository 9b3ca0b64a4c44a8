#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Usage: apply-patches.sh TREE APPLIED_DIR PATCH...
# Makes TREE the pristine tree plus PATCH... in order. APPLIED_DIR keeps
# copies of the series last applied, which is reversed first (last patch
# first), so that only the files the series touches change. Every patch is
# dry-run before it is applied: a patch that does not apply leaves the tree
# as the previous patches left it and says which one failed. Fuzz is 0: a
# hunk whose context moved must not land in another function.
set -eu
tree=$1
applied=$2
shift 2

# Files the old series touched, with their content's hash and mtime: a
# file the new series leaves as it was gets its old mtime back, so that
# rewriting one patch does not rebuild everything an earlier one touched.
saved=$(dirname "$applied")/applied-files
: > "$saved.new"
if [ -d "$applied" ]; then
	for p in $(ls "$applied" | sort); do
		sed -n 's|^+++ b/||p' "$applied/$p"
	done | sort -u | while read -r f; do
		[ -f "$tree/$f" ] || continue
		echo "$(sha256sum < "$tree/$f" | cut -c1-64) $(stat -c %Y "$tree/$f") $f"
	done > "$saved.new"
fi

if [ -d "$applied" ]; then
	for p in $(ls "$applied" | sort -r); do
		if ! patch -d "$tree" -p1 -R -s -f --dry-run < "$applied/$p" >/dev/null; then
			echo "guest: cannot reverse $p in $tree; remove $(dirname "$tree")/extract-*.stamp to re-extract" >&2
			exit 1
		fi
		patch -d "$tree" -p1 -R -s -f < "$applied/$p"
		rm "$applied/$p"
	done
fi
mkdir -p "$applied"
for p in "$@"; do
	if ! patch -d "$tree" -p1 -N -s -f -F0 --dry-run < "$p" > "$applied/.dry-run.out" 2>&1; then
		sed 's/^/  /' "$applied/.dry-run.out" >&2
		echo "$p:1: does not apply to $tree after the patches before it" >&2
		exit 1
	fi
	patch -d "$tree" -p1 -N -s -f -F0 < "$p"
	cp "$p" "$applied/"
done
rm -f "$applied/.dry-run.out"
while read -r sum mtime f; do
	if [ -f "$tree/$f" ] &&
	   [ "$(sha256sum < "$tree/$f" | cut -c1-64)" = "$sum" ]; then
		touch -d "@$mtime" "$tree/$f"
	fi
done < "$saved.new"
rm -f "$saved.new"
