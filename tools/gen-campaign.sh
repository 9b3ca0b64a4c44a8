#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A generated-scenario campaign: for each seed, `cowctx gen` then
# `cowctx run` on every backend (the oracle and the layout check at
# every statement), and a count of what failed and why.
#
#   tools/gen-campaign.sh COWCTX FIRST LAST [OPS]
#
# OPS 0 or absent: the size tests/gen.t uses (60 + seed % 120). Prints
# one line per failing seed (reproduce: cowctx gen --seed S --ops O) and
# a total; exits 1 if any seed failed.
set -u
[ $# -ge 3 ] || { echo "usage: $0 COWCTX FIRST LAST [OPS]" >&2; exit 2; }
bin=$1 first=$2 last=$3 ops=${4:-0}
dir=$(mktemp -d) || exit 2
trap 'rm -rf "$dir"' EXIT
ok=0 layout=0 oracle=0 other=0
for s in $(seq "$first" "$last"); do
	o=$ops
	[ "$o" = 0 ] && o=$((60 + s % 120))
	if ! "$bin" gen --seed "$s" --ops "$o" >"$dir/s.scn" 2>"$dir/gen.err"; then
		other=$((other + 1))
		echo "seed $s ops $o: gen failed: $(head -1 "$dir/gen.err")"
		continue
	fi
	if "$bin" run "$dir/s.scn" >"$dir/out" 2>&1; then
		ok=$((ok + 1))
		continue
	fi
	# The layout check's and the oracle's reports (scenario/layout.c,
	# scenario/check.c) name what kind of failure it was.
	if grep -q "differs from\|accepts what\|refuses what\|anon_vma_id:" "$dir/out"; then
		layout=$((layout + 1))
		echo "seed $s ops $o: layout: $(grep -m1 "differs from\|accepts what\|refuses what\|anon_vma_id:" "$dir/out")"
	elif grep -q "expected {" "$dir/out"; then
		oracle=$((oracle + 1))
		echo "seed $s ops $o: oracle: $(grep -m1 'expected {' "$dir/out")"
	else
		other=$((other + 1))
		echo "seed $s ops $o: $(head -1 "$dir/out")"
	fi
done
echo "seeds $first..$last: $ok passed, $layout layout divergences, $oracle oracle mismatches, $other other failures"
[ $((layout + oracle + other)) = 0 ]
