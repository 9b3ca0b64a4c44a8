#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Large files replay: a generated build-like process tree of 100,000
# statements (tools/big-scenario.pl; recordings are of this size and
# more) runs on every backend, checked against the oracle and Linux's
# layout, within a bound twenty times the CPU time it takes here on a loaded
# two-core machine. Before the layout check looked at the statement's
# own VMAs only, it took minutes: each statement compared every
# process's every VMA. No bound under the sanitisers, whose cost is
# their own.

set -u
. "$(dirname "$0")/lib/tap.sh"
tap_setup
tap_plan 4

n=100000
bound=60

tools/big-scenario.pl $n 7 > "$tmp/big.scn" 2> "$tmp/err"
ok $? "big-scenario.pl writes $n statements" || diag_file "$tmp/err"
lines=$(grep -vc '^#' "$tmp/big.scn")
[ "$lines" -ge $n ]
ok $? "at least $n statements ($lines)"

tools/big-scenario.pl $n 7 | cmp -s - "$tmp/big.scn"
ok $? "the same seed gives the same file"

start=$(date +%s%N)
"$COWCTX" run "$tmp/big.scn" > "$tmp/out" 2>&1
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
diag "cowctx run, every backend: $lines statements in $ms ms"
case ${BUILD-} in
*asan* | *tsan*)
	ok $rc "replayed on every backend, checked (no bound under sanitisers)"
	;;
*)
	[ $rc = 0 ] && [ $ms -lt $((bound * 1000)) ]
	ok $? "replayed on every backend, checked, in under $bound s"
	;;
esac || diag_file "$tmp/out" 20
tap_done
