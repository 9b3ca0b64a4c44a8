#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Property test: random valid scenarios from `cowctx gen` pass every check
# with every backend. GEN_SEEDS (default 2000) says how many; one in four
# is generated again for a kernel without the zero page (gen
# --zero-page=off), where reads allocate and give VMAs anonymous state,
# so merges, remaps and forks go other ways.
. "$(dirname "$0")/lib/tap.sh"
tap_setup
seeds=${GEN_SEEDS:-2000}

tap_plan $((seeds + seeds / 4 + 2))
for s in $(seq 1 "$seeds"); do
	seed_test "$s" $((60 + s % 120)) "passes the oracle on every backend"
done
for s in $(seq 4 4 "$seeds"); do
	seed_test "$s" $((60 + s % 120)) \
		"zero_page=off: passes the oracle on every backend" \
		--zero-page=off
done

# the same seed gives the same scenario
"$COWCTX" gen --seed 7 > "$tmp/a"
"$COWCTX" gen --seed 7 > "$tmp/b"
cmp -s "$tmp/a" "$tmp/b"
ok $? "gen is deterministic (--seed 7 twice)"

# every statement kind appears across the first seeds
for s in $(seq 1 20); do "$COWCTX" gen --seed "$s"; done > "$tmp/all"
missing=""
for w in proc mmap munmap mprotect mremap madvise touch fork exit check \
	 file= dontunmap " to " dontneed dontfork dofork wipeonfork keeponfork; do
	grep -q -- "$w" "$tmp/all" || missing="$missing '$w'"
done
[ -z "$missing" ]
ok $? "the generator uses every statement and option${missing:+ (never:$missing)}"
tap_done
