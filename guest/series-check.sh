#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Usage: series-check.sh DEVTREE OBJ FRAGMENT...
#
# Checks every patch of the series on its own, as a maintainer applying
# it one at a time would: DEVTREE is the git tree of make guest-dev (the
# pristine kernel tagged "base", the series on top). For each commit in
# base..HEAD, oldest first, it checks the commit out, builds bzImage in
# OBJ with the configuration that FRAGMENT... give (guest/mkconfig.sh),
# and runs scripts/checkpatch.pl --strict on it. Then, on the whole
# series, the same build with CONFIG_COW_CONTEXT off, so that the stubs
# a kernel without the option compiles are built too. TAP on stdout;
# DEVTREE is left at the series' last commit.
#
# A build error fails; a checkpatch ERROR fails, and so does a Python
# traceback from it (a check that could not run); checkpatch warnings are
# printed as diagnostics (the one expected: a new file, whose MAINTAINERS
# entry patch 1 adds as a pattern).
set -u
dev=$1
obj=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
kmake() {
	MAKEFLAGS= MAKELEVEL= nice make -s -j"${GUEST_JOBS:-2}" -C "$dev" \
		O="$(realpath "$obj")" "$@"
}

head=$(git -C "$dev" rev-parse HEAD) || exit 1
commits=$(git -C "$dev" rev-list --reverse base..HEAD)
n=$(echo "$commits" | wc -w)
echo "1..$((2 * n + 1))"
log=$(mktemp "${TMPDIR:-/tmp}/series-check.XXXXXX") || exit 1
trap 'rm -f "$log"; git -C "$dev" checkout -q "$head"' EXIT INT TERM
mkdir -p "$obj"

i=0
fail=0
for c in $commits; do
	i=$((i + 1))
	subject=$(git -C "$dev" log -1 --format=%s "$c")
	git -C "$dev" checkout -q "$c" || exit 1
	t0=$(date +%s)
	if "$here/mkconfig.sh" "$dev" "$obj" "$@" > "$log" 2>&1 &&
	   kmake bzImage >> "$log" 2>&1; then
		echo "ok $((2 * i - 1)) - patch $i builds ($(($(date +%s) - t0)) s): $subject"
	else
		echo "not ok $((2 * i - 1)) - patch $i builds: $subject"
		tail -20 "$log" | sed 's/^/# /'
		fail=1
	fi
	# Debian's python3 first: checkpatch's SPDX check imports ply and
	# git, which Debian's packages give it, not another python3 on PATH
	(cd "$dev" && PATH=/usr/bin:$PATH \
		./scripts/checkpatch.pl --strict -q -g "$c") > "$log" 2>&1
	# a Python traceback is a check that did not run (the SPDX one)
	errors=$(grep -c -E '^(ERROR|Traceback)' "$log")
	if [ "$errors" = 0 ]; then
		echo "ok $((2 * i)) - patch $i: checkpatch --strict, no error"
	else
		echo "not ok $((2 * i)) - patch $i: checkpatch --strict, $errors errors"
		fail=1
	fi
	grep -A3 -E '^(ERROR|WARNING|CHECK|Traceback)' "$log" | sed 's/^/# /'
done

# The whole series with the option off: the stubs must build too.
git -C "$dev" checkout -q "$head"
# The fragments without their CONFIG_COW_CONTEXT line, since mkconfig.sh
# checks that every line of every fragment came out as written.
off=$(mktemp -d "${TMPDIR:-/tmp}/series-check-off.XXXXXX") || exit 1
frags=
for f in "$@"; do
	grep -v '^CONFIG_COW_CONTEXT=' "$f" > "$off/$(basename "$f")"
	frags="$frags $off/$(basename "$f")"
done
echo "CONFIG_COW_CONTEXT=n" > "$off/cow-context-off.config"
# shellcheck disable=SC2086 # $frags is a list of paths without spaces
if "$here/mkconfig.sh" "$dev" "$obj-off" $frags "$off/cow-context-off.config" \
	> "$log" 2>&1 &&
   MAKEFLAGS= MAKELEVEL= nice make -s -j"${GUEST_JOBS:-2}" -C "$dev" \
	O="$(realpath "$obj-off")" bzImage >> "$log" 2>&1; then
	echo "ok $((2 * n + 1)) - the series builds with CONFIG_COW_CONTEXT=n"
else
	echo "not ok $((2 * n + 1)) - the series builds with CONFIG_COW_CONTEXT=n"
	tail -20 "$log" | sed 's/^/# /'
	fail=1
fi
rm -rf "$off"
exit $fail
