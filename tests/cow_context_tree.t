#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The bounded context tree (issue 9): 200 generations of a process that
# forks its successor and exits, with and without a page written by each
# generation (tests/cow_context/fork-exit-200*.scn):
#  - every backend agrees with the oracle, cow_context-noprune too;
#  - cow_context keeps at most 4 contexts at the end (there were 201);
#  - its walks visit at most 2 contexts per walk (they visited 201).

set -u

. "$(dirname "$0")/lib/tap.sh"
tap_setup

for f in tests/cow_context/fork-exit-200.scn tests/cow_context/fork-exit-200-write.scn; do
	"$COWCTX" run --json --rmap=scan,anon_vma,cow_context,cow_context-noprune \
		"$f" > "$tmp/out.json" 2> "$tmp/err"
	ok $? "$f: every backend agrees with the oracle"
	ctxs=$(figure cow_context objects.cow_context "$tmp/out.json")
	[ "$ctxs" -le 4 ] 2>/dev/null
	ok $? "$f: $ctxs contexts live at the end (at most 4)"
	walks=$(figure cow_context walk.walks "$tmp/out.json")
	visited=$(figure cow_context cow_context.contexts_visited "$tmp/out.json")
	[ "$walks" -gt 0 ] 2>/dev/null && [ "$visited" -le $((2 * walks)) ] 2>/dev/null
	ok $? "$f: $visited contexts visited in $walks walks (at most 2 each)"
done

tap_done
