#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The shadow check can fail: booted with the COW walk's debug knob that
# stops it at the folio's own context (so it loses every mapping in a
# forked child), a guest run of cowctx-walks, which walks folios shared by
# a parent and its forked children through page_idle, must be judged
# failed by parse-log, and for shadow mismatches. (The cow selftest does
# not do: MADV_PAGEOUT leaves shared folios alone, so its walks are of
# folios that one mm maps.) Run by make guest-check-broken, which sets
# what guest.t gets.
dir=$(dirname "$0")
if [ -z "${GUEST_BZIMAGE:-}" ] || [ -z "${GUEST_INITRD:-}" ]; then
	echo "1..0 # SKIP no guest built (run make guest-check-broken)"
	exit 0
fi
echo "1..3"
log=${GUEST_LOG%.log}-broken.log
"$dir/run-qemu.sh" "$GUEST_BZIMAGE" "$GUEST_INITRD" "$log" \
	"${GUEST_TIMEOUT:-1500}" "${GUEST_SMP:-3}" "${GUEST_MEM:-2G}" \
	"TESTS=cowctx-walks cow_context=shadow COWCTX_BREAK=1"
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
