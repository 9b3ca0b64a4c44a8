#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Property test: random valid scenarios from `cowctx gen` pass every check
# with every backend. GEN_SEEDS (default 2000) says how many.
COWCTX=${COWCTX:-build/cowctx}
seeds=${GEN_SEEDS:-2000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "1..$((seeds + 2))"
n=0
for s in $(seq 1 "$seeds"); do
	n=$((n + 1))
	ops=$((60 + s % 120))
	if ! "$COWCTX" gen --seed "$s" --ops "$ops" > "$tmp/s.scn" 2> "$tmp/err"; then
		echo "not ok $n - gen --seed $s --ops $ops failed"
		sed 's/^/# /' "$tmp/err"
		continue
	fi
	if "$COWCTX" run "$tmp/s.scn" > "$tmp/out" 2>&1; then
		echo "ok $n - seed $s ($ops ops) passes the oracle on every backend"
	else
		echo "not ok $n - seed $s ($ops ops): cowctx run failed"
		head -20 "$tmp/out" | sed 's/^/# /'
	fi
done

# the same seed gives the same scenario
"$COWCTX" gen --seed 7 > "$tmp/a"
"$COWCTX" gen --seed 7 > "$tmp/b"
n=$((n + 1))
if cmp -s "$tmp/a" "$tmp/b"; then
	echo "ok $n - gen is deterministic"
else
	echo "not ok $n - gen --seed 7 differs between runs"
fi

# every statement kind appears across the first seeds
n=$((n + 1))
for s in $(seq 1 20); do "$COWCTX" gen --seed "$s"; done > "$tmp/all"
missing=""
for w in proc mmap munmap mprotect mremap madvise touch fork exit check \
	 file= dontunmap " to " dontneed dontfork dofork wipeonfork keeponfork; do
	grep -q -- "$w" "$tmp/all" || missing="$missing '$w'"
done
if [ -z "$missing" ]; then
	echo "ok $n - the generator uses every statement and option"
else
	echo "not ok $n - never generated:$missing"
fi
