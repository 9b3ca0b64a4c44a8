#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The shadow check can fail: booted with the COW walk's debug knob that
# stops it at the folio's own context (so it loses every mapping in a
# forked child), a guest run of cowctx-walks, which walks folios shared by
# a parent and its forked children through page_idle, must be judged
# failed by parse-log, and for shadow mismatches. (The cow selftest does
# not do: MADV_PAGEOUT leaves shared folios alone, so its walks are of
# folios that one mm maps.) The verifier's count and scan oracles must
# fail it as well: they are what judges the walk where no anon_vma is left
# to compare with. The same boot draws fork children's anon_vma ids
# without ANON_VMA_ID_FORKED, and the merge selftest, whose fixtures fork,
# must then make the merge rules on ids disagree with anon_vma's; and
# cowctx-hwpoison, whose poisoned pages the children map, must make
# memory-failure's collection of mappings disagree with the COW walk's.
# Run by make guest-check-broken, which sets what guest.t gets.
dir=$(dirname "$0")
if [ -z "${GUEST_BZIMAGE:-}" ] || [ -z "${GUEST_INITRD:-}" ]; then
	echo "1..0 # SKIP no guest built (run make guest-check-broken)"
	exit 0
fi
echo "1..7"
log=${GUEST_LOG%.log}-broken.log
"$dir/run-qemu.sh" "$GUEST_BZIMAGE" "$GUEST_INITRD" "$log" \
	"${GUEST_TIMEOUT:-1500}" "${GUEST_SMP:-3}" "${GUEST_MEM:-2G}" \
	"TESTS=cowctx-walks,merge,cowctx-hwpoison cow_context=shadow cow_context_scan=1 COWCTX_BREAK=1"
out=$("$dir/parse-log" --shadow "$log")
rc=$?
echo "$out" | sed 's/^/# /'
if [ $rc = 1 ]; then
	echo "ok 1 - parse-log fails the broken walk's run"
else
	echo "not ok 1 - parse-log fails the broken walk's run (exit $rc)"
fi
if echo "$out" | grep -q '^not ok [0-9]* - shadow: no mismatch$'; then
	echo "ok 2 - the debugfs mismatch counter is what fails"
else
	echo "not ok 2 - the debugfs mismatch counter is what fails"
fi
if grep -q 'cow_context: shadow mismatch' "$log"; then
	echo "ok 3 - the kernel printed the mismatch"
else
	echo "not ok 3 - the kernel printed the mismatch"
fi
# The verifier's oracles judge the same broken walk without anon_vma: the
# count oracle on every walk, the scan oracle (cow_context_scan=1) too.
n=4
for oracle in count scan; do
	if echo "$out" | grep -q "^not ok [0-9]* - verifier: no $oracle mismatch\$" &&
	   grep -q "cow_context: $oracle mismatch" "$log"; then
		echo "ok $n - the $oracle oracle fails the broken walk"
	else
		echo "not ok $n - the $oracle oracle fails the broken walk"
	fi
	n=$((n + 1))
done
if echo "$out" | grep -q '^not ok [0-9]* - anon_vma ids: no mismatch$' &&
   grep -q 'cow_context: anon_vma_id mismatch' "$log"; then
	echo "ok 6 - the anon_vma id check fails ids drawn without their fork"
else
	echo "not ok 6 - the anon_vma id check fails ids drawn without their fork"
fi
if echo "$out" | grep -q '^not ok [0-9]* - memory failure: no mismatch$' &&
   grep -q 'cow_context: memory-failure collection' "$log"; then
	echo "ok 7 - the memory-failure comparison fails the broken walk"
else
	echo "not ok 7 - the memory-failure comparison fails the broken walk"
fi
