#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make run: the bundled scenarios, one line each, then the comparison
# (cowctx bench --quick): its table on stdout, report and plots in
# build/report/ (or $BENCH_OUT).
#
#   tools/run-default.sh path/to/cowctx

set -u

cowctx=${1:?usage: $0 path/to/cowctx}
root=$(cd "$(dirname "$0")/.." && pwd)
out=${BENCH_OUT:-$root/build/report}

echo "== scenarios (cowctx run tests/scenarios/*.scn, every backend against the oracle)"
pass=0 fail=0 refused=0
for f in "$root"/tests/scenarios/*.scn; do
	name=$(basename "$f" .scn)
	text=$("$cowctx" run "$f" 2>/dev/null)
	rc=$?
	# a scenario the kernel would refuse is meant to stop with status 2
	if grep -q '^# expect-error:' "$f"; then
		if [ $rc -eq 2 ]; then
			refused=$((refused + 1))
			printf '  %-40s refused, as the kernel would\n' "$name"
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
echo "   $pass passed, $refused refused as the kernel would, $fail failed"

echo
echo "== comparison (cowctx bench --quick; report in $out)"
"$cowctx" bench --quick --out "$out"
rc=$?
[ $fail -eq 0 ] || exit 1
exit $rc
