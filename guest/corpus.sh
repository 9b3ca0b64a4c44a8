#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cowctx-corpus: the project's scenario corpus and generated scenarios as
# real processes in the guest, judged by `cowctx kernel` (the static
# build in cowctx-corpus.d/, with the corpus under
# cowctx-corpus.d/tests/scenarios/), each with --idle-walks: at every
# check every anonymous folio of the scenario gets one page_idle rmap
# walk, which cow_context=shadow compares between anon_vma and the COW
# context, and the idle bit read back confirms that the walk ran.
#
# A corpus file the runner does not run (exec, brk, `mmap any`,
# `recorded`: refused at its line before anything runs), or one written
# for a kernel whose zero page differs from the guest's (`kernel
# zero_page=`, exit 77), is skipped and counted with its reason. Otherwise the judge must agree (exit 0), or,
# for an error scenario (err-*, or an "# expect-error: LINE" header),
# kernel and model must both refuse it (exit 2) at the line named.
# The model follows Linux 6.18 and the guest runs 7.3: a scenario
# listed in guest/corpus-known-7.3 may differ from the model (exit 1)
# without failing; it is counted, and its reason and first difference are
# printed. Any other difference fails.
# Generated scenarios use fixed seeds, 1 to CORPUS_SEEDS, so every run
# is the same. anon_vma objects are not counted (--no-trace; below, why).
#
# Exit 0 when every scenario run passed, at least one walk was forced,
# every forced walk was confirmed and the shadow check counted at least
# one walk per write and per confirming read; 1 otherwise; 4
# (kselftest's skip) without page_idle.
here=$(cd "$(dirname "$0")" && pwd)/cowctx-corpus.d
cowctx=$here/cowctx
. "$here/tests/lib/expect.sh" || exit 1
seeds=${CORPUS_SEEDS:-10}
tmp=/tmp/cowctx-corpus
# The model follows Linux 6.18 (README, "Which Linux"); the guest runs 7.3.
known_list=$here/guest/corpus-known-7.3
bitmap=/sys/kernel/mm/page_idle/bitmap

if [ ! -w "$bitmap" ]; then
	echo "# SKIP no page_idle bitmap ($bitmap)"
	exit 4
fi
if [ ! -x "$cowctx" ]; then
	echo "not ok - $cowctx is missing"
	exit 1
fi
mkdir -p "$tmp" || exit 1
# The model treats MADV_MERGEABLE as a VMA flag and nothing more, as the
# host's kernel does with ksmd stopped (its default). ksm_functional_tests,
# earlier in the guest's run, leaves ksmd running: it would merge the
# scenarios' identical pages behind the judge's back (madvise-vm-flags.scn
# failed so, in one run of two).
if [ -w /sys/kernel/mm/ksm/run ]; then
	echo 0 > /sys/kernel/mm/ksm/run || exit 1
fi
# anon_vma objects are not counted here (--no-trace), though the 7.3
# kernel with PROVE_LOCKING has tracefs events: the judge turns kmem
# events and its pid filter on and off around every scenario, and each
# turn live-patches the kernel's text (static keys and calls, int3 first).
# Under TCG with three vCPUs one run of two on 2026-12-06 died of it: an
# "Oops: int3" in __schedule() at the sched_switch tracepoint's call site,
# in the middle of the corpus. Layouts and sharing are what the guest
# judges; object counts are judged against the host's kernel (tests/*.t).
opts="--idle-walks --no-trace"
echo "# corpus: anon_vma objects not counted (--no-trace): tracing is not turned on and off under TCG"
printf 'proc P\nP mmap 0x100000000000 4K rw\nP touch 0x100000000000 4K write\n' \
	> "$tmp/probe.scn"
# The generated scenarios are made valid for this kernel's zero page,
# which the judge probes and reports
zero_page=$("$cowctx" kernel $opts "$tmp/probe.scn" 2> "$tmp/err" |
	    sed -n 's/^kernel and model: zero_page=\([a-z]*\) (probed)$/\1/p')
if [ -z "$zero_page" ]; then
	echo "not ok - the judge's zero-page probe: $(tail -1 "$tmp/err")"
	exit 1
fi
echo "# corpus: this kernel is zero_page=$zero_page"

# Centiseconds of uptime, without a process: TCG makes each one dear.
now_cs() {
	read -r up _ < /proc/uptime
	# "1${up#*.} - 100", not "${up#*.}": a leading 0 would read as octal
	echo $((${up%.*} * 100 + 1${up#*.} - 100))
}

run=0
failed=0
skipped=0
todos=0
known=0
forced=0
confirmed=0
retried=0
shadow=0
mismatches=0
noshadow=
shadow_seen=
t0=$(cut -d. -f1 /proc/uptime)

# The N of "N word" in line $2 of "idle walks: ..." ($1 the word); 0 if absent
field() {
	echo "$2" | sed -n "s/.*[^0-9]\([0-9][0-9]*\) $1.*/\1/p"
}

# judge FILE NAME KEY: as tests/kernel.t does, with the skip for the
# runner's refusals; KEY names it in the list of known differences
judge() {
	file=$1
	name=$2
	key=$3
	scn_expect "$file"
	s0=$(now_cs)
	"$cowctx" kernel $opts "$file" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	cs=$(($(now_cs) - s0))
	echo "$cs $name" >> "$tmp/times"
	# written for the other kind of kernel (`kernel zero_page=`): the
	# judge refuses it with 77 and the reason, as tests/kernel.t asserts
	if [ $rc = 77 ] && grep -q ': the file states zero_page=' "$tmp/err"; then
		skipped=$((skipped + 1))
		echo "# corpus skip: $name: $(sed -n 's/.*: the file states/the file states/p' "$tmp/err" | head -1)"
		return
	fi
	first=$(grep -m1 "^$file:[0-9]*: " "$tmp/err")
	case "$first" in
	*"cowctx kernel does not run"*|*"the runner's own memory"*)
		if [ $rc = 2 ]; then
			skipped=$((skipped + 1))
			echo "# corpus skip: $name:${first#"$file:"}" |
				sed 's/ on the real kernel (.*//'
			return
		fi ;;
	esac
	run=$((run + 1))
	idle=$(grep '^idle walks: ' "$tmp/out")
	f=$(field forced "$idle")
	c=$(field confirmed "$idle")
	r=$(field 'checks retried' "$idle")
	forced=$((forced + ${f:-0}))
	confirmed=$((confirmed + ${c:-0}))
	retried=$((retried + ${r:-0}))
	case "$idle" in
	*"shadow check: "*)
		w=$(field walks "$idle")
		m=$(field mismatches "$idle")
		shadow_seen=1
		shadow=$((shadow + ${w:-0}))
		mismatches=$((mismatches + ${m:-0})) ;;
	*"no shadow check counters"*)
		noshadow=1 ;;
	esac
	ok=1
	[ $rc = $want ] || ok=
	if [ $rc = 2 ] && [ -n "$line" ]; then
		grep -q "^$file:$line: " "$tmp/err" || ok=
	fi
	if [ -n "$ok" ]; then
		echo "ok - $name: exit $rc, ${f:-0} walks forced, ${c:-0} confirmed, $((cs / 100)).$((cs % 100 / 10)) s"
		return
	fi
	if [ -n "$todo" ]; then
		todos=$((todos + 1))
		echo "not ok - $name: exit $rc # $todo"
		return
	fi
	why=$(sed -n "s|^$key[[:space:]][[:space:]]*||p" "$known_list")
	if [ $rc = 1 ] && [ -n "$why" ]; then
		known=$((known + 1))
		echo "# corpus known: $name: $why"
		head -1 "$tmp/out" | cut -c1-160 |
			sed "s|^|# corpus known: $name: |"
		return
	fi
	failed=$((failed + 1))
	echo "not ok - $name: exit $rc, $want wanted${line:+ at line $line}"
	sed 's/^/# /' "$tmp/out" | head -10
	sed 's/^/# /' "$tmp/err" | head -20
}

cd "$here" || exit 1
for f in tests/scenarios/*.scn tests/scenarios/*/*.scn; do
	[ -f "$f" ] || continue
	judge "$f" "${f#tests/scenarios/}" "${f#tests/scenarios/}"
done
corpus_run=$run
corpus_secs=$(($(cut -d. -f1 /proc/uptime) - t0))
seed=1
while [ $seed -le "$seeds" ]; do
	if ! "$cowctx" gen --seed $seed --zero-page=$zero_page \
		> "$tmp/seed-$seed.scn"; then
		failed=$((failed + 1))
		echo "not ok - cowctx gen --seed $seed failed"
	else
		judge "$tmp/seed-$seed.scn" "gen --seed $seed" "seed-$seed"
	fi
	rm -f "$tmp/seed-$seed.scn"
	seed=$((seed + 1))
done
sort -rn "$tmp/times" | head -5 | while read -r cs name; do
	echo "# corpus slowest: $name $((cs / 100)).$((cs % 100 / 10)) s"
done
rm -rf "$tmp"

t1=$(cut -d. -f1 /proc/uptime)
if [ -n "$noshadow" ] || [ -z "$shadow_seen" ]; then
	walks="no shadow check counters"
else
	walks="shadow check $shadow walks, $mismatches mismatches"
fi
echo "# corpus: $run scenarios run ($corpus_run corpus, $((run - corpus_run)) generated; the corpus took $corpus_secs s), $skipped skipped, $failed failed, $known known differences of 7.3 from the model, $todos TODO; walks forced $forced, confirmed $confirmed ($retried checks retried); $walks; $((t1 - t0)) s"
status=0
if [ $failed != 0 ]; then
	echo "not ok - $failed scenarios failed"
	status=1
fi
if [ $forced = 0 ] || [ $confirmed != $forced ]; then
	echo "not ok - forced walks confirmed: $confirmed of $forced"
	status=1
fi
if [ -z "$noshadow" ] && [ -n "$shadow_seen" ] && [ $shadow -lt $((forced + confirmed)) ]; then
	echo "not ok - the shadow check counted $shadow walks, fewer than the $((forced + confirmed)) forced and confirming ones"
	status=1
fi
exit $status
