#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make run: the bundled scenarios as one count line (failures listed),
# then the comparison (cowctx bench --quick) as its verdict, in about
# 15 lines; report and plots in build/report/ (or $BENCH_OUT).
# BENCH_FULL=1 lists every scenario and prints the bench's whole table.
#
#   tools/run-default.sh path/to/cowctx

set -u

cowctx=${1:?usage: $0 path/to/cowctx}
root=$(cd "$(dirname "$0")/.." && pwd)
out=${BENCH_OUT:-$root/build/report}
full=${BENCH_FULL:-0}

say() { [ "$full" = 1 ] && printf "$@"; return 0; }

pass=0 fail=0 refused=0
for f in "$root"/tests/scenarios/*.scn; do
	name=$(basename "$f" .scn)
	text=$("$cowctx" run "$f" 2>/dev/null)
	rc=$?
	# a scenario the kernel would refuse is meant to stop with status 2
	if grep -q '^# expect-error:' "$f"; then
		if [ $rc -eq 2 ]; then
			refused=$((refused + 1))
			say '  %-40s refused, as the kernel would\n' "$name"
		else
			fail=$((fail + 1))
			printf '  %-40s FAIL (expected an error, got status %d)\n' "$name" $rc
		fi
		continue
	fi
	if [ $rc -ne 0 ]; then
		fail=$((fail + 1))
		printf '  %-40s FAIL (status %d)\n' "$name" $rc
		continue
	fi
	pass=$((pass + 1))
	[ "$full" = 1 ] || continue
	# one line: every backend agreed with the oracle; their rmap bytes
	printf '  %-40s ok ' "$name"
	echo "$text" | awk '
		($2 == "ok:" || $2 == "FAIL:") && $1 != "scan" {
			for (i = 1; i <= NF; i++)
				if ($(i + 1) == "rmap" && $(i + 2) == "bytes")
					b = $i
			printf " %s %s B", $1, b
		}
		END { printf "\n" }'
done
echo "corpus: $((pass + refused + fail)) scenarios of tests/scenarios, every backend against the oracle: $pass passed, $refused refused as the kernel would (as they expect), $fail failed"

opt=
[ "$full" = 1 ] && opt=--full
"$cowctx" bench --quick $opt --out "$out"
rc=$?
[ $fail -eq 0 ] || exit 1
exit $rc
