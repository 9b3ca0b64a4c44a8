#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The benchmark harness of make guest-bench, run once, small: one boot of
# cow_context=off and one of shadow on the kernel guest.t boots, each
# running every benchmark with guest/bench-smoke.tab's parameters; then
# every workload's figures must be in both boots' files, and the report
# and its plot must be made. The figures prove the harness, not the
# kernel: they come from a debug kernel and a run of seconds.
# Environment as guest.t's: GUEST_BZIMAGE and GUEST_INITRD, and
# GUEST_BENCH_PROGS, the benchmarks (guest.mk's list).
set -u
dir=$(dirname "$0")
if [ -z "${GUEST_BZIMAGE:-}" ] || [ -z "${GUEST_INITRD:-}" ] ||
   [ -z "${GUEST_BENCH_PROGS:-}" ]; then
	echo "1..0 # SKIP GUEST_BZIMAGE, GUEST_INITRD or GUEST_BENCH_PROGS not set (make guest-check sets them)"
	exit 0
fi
out=${BENCH_SMOKE_OUT:-$(dirname "$GUEST_INITRD")/bench-smoke}
BENCH_TESTS=$GUEST_BENCH_PROGS BENCH_TAB=bench-smoke.tab BENCH_SVG=$out/fork.svg \
	GUEST_TIMEOUT=600 "$dir/bench.sh" "$out" 1 "off shadow" > "$out.tap" 2>&1
rc=$?
sed 's/^/# /' "$out.tap"
n=1
if [ "$rc" = 0 ]; then
	echo "ok $n - bench.sh: both boots ran every benchmark, the report was made"
else
	echo "not ok $n - bench.sh: exit $rc (its TAP is above)"
fi
# the keys of every workload, as bench-smoke.tab's parameters make them
want="fork.v10.us fork.v100.us slab.parent.vm_area_struct
slab.family.vm_area_struct slab.family.anon_vma slab.family.anon_vma_chain
slab.family.cow_context slab.family.remap_entries cow.seq.pages_per_s
rmap.pageout.k1.unmoved rmap.pageout.k1.moved contend.forks_per_s
contend.walks_per_s ksm.merged_pages ksm.pages_moved ksm.move.mean_ns
ksm.move.max_ns zygote.libs zygote.vmas slab.zygote.vm_area_struct
slab.zygote.anon_vma slab.zygote.anon_vma_chain slab.zygote.cow_context
redis.keys redis.fork_us slab.redis.vm_area_struct slab.redis.anon_vma
slab.redis.anon_vma_chain slab.redis.cow_context"
for op in idle migrate reclaim; do
	for k in 1 4; do
		want="$want rmap.$op.k$k.unmoved rmap.$op.k$k.moved"
	done
done
for m in off shadow; do
	n=$((n + 1))
	missing=
	for key in $want; do
		grep -q "^$key [0-9.e+-]* " "$out/boot-1-$m.fig" 2> /dev/null ||
			missing="$missing $key"
	done
	if [ -z "$missing" ]; then
		echo "ok $n - cow_context=$m: every workload's figures"
	else
		echo "not ok $n - cow_context=$m: no figure for$missing"
	fi
	n=$((n + 1))
	# a time or a rate of 0 would be a benchmark that measured nothing
	zero=$(grep -E '^(fork|rmap|cow|contend|ksm)\.|^redis\.fork_us ' "$out/boot-1-$m.fig" 2> /dev/null |
	       awk '$2 <= 0 { print $1 }' | tr '\n' ' ')
	if [ -z "$zero" ] && [ -s "$out/boot-1-$m.fig" ]; then
		echo "ok $n - cow_context=$m: every time and rate above 0"
	else
		echo "not ok $n - cow_context=$m: 0 or nothing for: ${zero:-every figure}"
	fi
done
n=$((n + 1))
if grep -q '<svg' "$out/fork.svg" 2> /dev/null &&
   grep -q 'shadow/off' "$out/report.txt"; then
	echo "ok $n - the report's table and its SVG plot"
else
	echo "not ok $n - the report's table and its SVG plot"
fi
echo "1..$n"
