#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Usage: format-series.sh DEVTREE PATCHDIR
#
# Writes the series of DEVTREE (make guest-dev: base..HEAD) into PATCHDIR
# as git format-patch does, RFC prefix and cover letter included, in place
# of PATCHDIR's old patches (which stay if it fails). The cover letter's
# subject and text are kept from PATCHDIR/0000-cover-letter.patch (they
# live nowhere else): git takes them from the branch's description, which
# is set from the old letter first; the shortlog and diffstat under them
# are regenerated.
set -eu
dev=$1
out=$(realpath "$2")
cover=$out/0000-cover-letter.patch
desc=$(mktemp "${TMPDIR:-/tmp}/cover.XXXXXX")
new=$(mktemp -d "${TMPDIR:-/tmp}/series.XXXXXX")
trap 'rm -rf "$desc" "$new"' EXIT INT TERM

if [ ! -f "$cover" ]; then
	echo "$cover: no cover letter to keep the text of" >&2
	exit 2
fi
# The subject (unfolded, without its prefix), a blank line, then the body
# up to the shortlog that git writes under it, whose first line is the
# first of the form "AUTHOR (N):".
awk '
	/^Subject: / { sub(/^Subject: \[[^]]*\] /, ""); subj = $0; insubj = 1; next }
	insubj && /^ / { sub(/^ /, ""); subj = subj " " $0; next }
	insubj { insubj = 0; print subj; print ""; body = 1; next }
	body && /^[^ ].* \([0-9]+\):$/ { exit }
	body { print }
' "$cover" > "$desc"
if [ "$(wc -l < "$desc")" -lt 3 ]; then
	echo "$cover: no subject and text found" >&2
	exit 2
fi
# the body ends with the blank line before the shortlog: drop it
sed -i '$ { /^$/d }' "$desc"

branch=$(git -C "$dev" symbolic-ref --short HEAD)
git -C "$dev" config "branch.$branch.description" "$(cat "$desc")"
git -C "$dev" -c user.name='cowctx developers' \
	-c user.email=cowctx@localhost format-patch -q --no-signature \
	--cover-letter --cover-from-description=subject \
	--subject-prefix='RFC PATCH' -o "$new" base..HEAD
# only once the new series is written: the old one goes
rm -f "$out"/[0-9][0-9][0-9][0-9]-*.patch
mv "$new"/*.patch "$out"/
