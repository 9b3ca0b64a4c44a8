#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Usage: bench.sh OUTDIR BOOTS MODES
# Boots the guest BOOTS times in each of MODES (cow_context= values, the
# first the one the others are compared with), interleaved (off, on, off,
# on, ...) so that a drift of the host over the run falls on every mode
# alike, each boot running the benchmarks of BENCH_TESTS with the
# parameters of the table BENCH_TAB (guest/bench.tab or bench-smoke.tab).
# One kernel binary for every boot: only the mode differs. Every boot's
# console goes to OUTDIR/boot-B-MODE.log and its figures, through
# parse-log --bench (which also fails a boot with a failed benchmark or
# any kernel report), to OUTDIR/boot-B-MODE.fig (.fig.failed for a boot
# that failed, which the report leaves out). Prints TAP, one line a boot,
# then guest/bench-report's table of the boots that passed.
# Environment: GUEST_BZIMAGE, GUEST_INITRD (required), BENCH_TESTS,
# BENCH_TAB, BENCH_APPEND, GUEST_SMP, GUEST_MEM, GUEST_TIMEOUT,
# BENCH_MARKDOWN and BENCH_SVG (passed to bench-report).
set -u
dir=$(dirname "$0")
if [ $# -ne 3 ] || [ -z "${GUEST_BZIMAGE:-}" ] || [ -z "${GUEST_INITRD:-}" ]; then
	echo "usage: GUEST_BZIMAGE=... GUEST_INITRD=... bench.sh OUTDIR BOOTS MODES" >&2
	exit 2
fi
out=$1
boots=$2
modes=$3
case $boots in
''|*[!0-9]*|0) echo "bench.sh: BOOTS '$boots' is not a number above 0" >&2; exit 2 ;;
esac
mkdir -p "$out" || exit 2
rm -f "$out"/boot-*.log "$out"/boot-*.fig "$out"/boot-*.fig.failed
tests=$(echo "${BENCH_TESTS:-}" | tr ' ' ,)
n=0
failed=0
b=1
while [ "$b" -le "$boots" ]; do
	for m in $modes; do
		n=$((n + 1))
		log=$out/boot-$b-$m.log
		t0=$(date +%s)
		"$dir/run-qemu.sh" "$GUEST_BZIMAGE" "$GUEST_INITRD" "$log" \
			"${GUEST_TIMEOUT:-1500}" "${GUEST_SMP:-2}" \
			"${GUEST_MEM:-2G}" \
			"cow_context=$m slab_nomerge TAB=${BENCH_TAB:-bench.tab} TESTS=$tests ${BENCH_APPEND:-}"
		rc=$?
		if "$dir/parse-log" --bench "$out/boot-$b-$m.fig" "$log" \
			> "$out/boot-$b-$m.tap" 2>&1; then
			echo "ok $n - boot $b, cow_context=$m # $(($(date +%s) - t0)) s"
		else
			# a failed boot's figures stay out of the report
			mv "$out/boot-$b-$m.fig" "$out/boot-$b-$m.fig.failed" 2> /dev/null
			echo "not ok $n - boot $b, cow_context=$m # qemu exit $rc; console in $log"
			grep -E '^not ok|^# ' "$out/boot-$b-$m.tap" | sed 's/^/# /' | tail -40
			failed=$((failed + 1))
		fi
	done
	b=$((b + 1))
done
n=$((n + 1))
# every mode's figures, in boot order within a mode
figs=
for m in $modes; do
	b=1
	while [ "$b" -le "$boots" ]; do
		[ -s "$out/boot-$b-$m.fig" ] && figs="$figs $out/boot-$b-$m.fig"
		b=$((b + 1))
	done
done
# shellcheck disable=SC2086 # paths without spaces
if "$dir/bench-report" ${BENCH_MARKDOWN:+--markdown "$BENCH_MARKDOWN"} \
	${BENCH_SVG:+--svg "$BENCH_SVG"} $figs > "$out/report.txt" 2>&1; then
	echo "ok $n - bench-report over $(echo $figs | wc -w) boots"
else
	echo "not ok $n - bench-report over $(echo $figs | wc -w) boots"
	failed=$((failed + 1))
fi
sed 's/^/# /' "$out/report.txt"
echo "1..$n"
[ "$failed" = 0 ]
