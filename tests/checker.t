#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The checker can fail: a test-only backend that loses one mapping of
# every shared folio must be caught, with the folio and both sets shown.
. "$(dirname "$0")/lib/tap.sh"
tap_setup
tap_plan 4

cat > "$tmp/share.scn" <<'SCN'
proc A
A mmap 0x100000000000 8K rw
A touch 0x100000000000 8K write
A fork B
check
SCN
"$COWCTX" run --rmap=broken-scan "$tmp/share.scn" > "$tmp/out" 2>&1
rc=$?
[ $rc = 1 ]
ok $? "a walk that drops a mapping exits 1 (got $rc)"
grep -q 'share.scn:5: broken-scan: folio pfn 1 index 0x100000000: expected {A:0x100000000000, B:0x100000000000}, got {A:0x100000000000}' "$tmp/out"
ok $? "the mismatch names the folio, the expected and the found mappings" ||
	diag_file "$tmp/out"

"$COWCTX" run --rmap=scan "$tmp/share.scn" > /dev/null 2>&1
ok $? "the oracle itself passes the same scenario"

caught=0
for s in $(seq 1 30); do
	"$COWCTX" gen --seed "$s" > "$tmp/g.scn"
	"$COWCTX" run --rmap=broken-scan "$tmp/g.scn" > /dev/null 2>&1
	[ $? = 1 ] && caught=$((caught + 1))
done
[ $caught -gt 0 ]
ok $? "the broken walk is caught on $caught of 30 random seeds"
tap_done
