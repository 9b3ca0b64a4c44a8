#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The checker can fail: a test-only backend that loses one mapping of
# every shared folio must be caught, with the folio and both sets shown.
COWCTX=${COWCTX:-build/cowctx}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "1..4"

cat > "$tmp/share.scn" <<'SCN'
proc A
A mmap 0x100000000000 8K rw
A touch 0x100000000000 8K write
A fork B
check
SCN
"$COWCTX" run --rmap=broken-scan "$tmp/share.scn" > "$tmp/out" 2>&1
rc=$?
[ $rc = 1 ] && echo "ok 1 - a walk that drops a mapping exits 1" ||
	echo "not ok 1 - broken walk exit status $rc, want 1"
grep -q 'share.scn:5: broken-scan: folio pfn 1 index 0x100000000: expected {A:0x100000000000, B:0x100000000000}, got {A:0x100000000000}' "$tmp/out" &&
	echo "ok 2 - the mismatch names the folio, the expected and the found mappings" ||
	{ echo "not ok 2 - mismatch report"; sed 's/^/# /' "$tmp/out"; }

"$COWCTX" run --rmap=scan "$tmp/share.scn" > /dev/null 2>&1 &&
	echo "ok 3 - the oracle itself passes the same scenario" ||
	echo "not ok 3 - scan failed"

caught=0
for s in $(seq 1 30); do
	"$COWCTX" gen --seed "$s" > "$tmp/g.scn"
	"$COWCTX" run --rmap=broken-scan "$tmp/g.scn" > /dev/null 2>&1
	[ $? = 1 ] && caught=$((caught + 1))
done
[ $caught -gt 0 ] && echo "ok 4 - the broken walk is caught on $caught of 30 random seeds" ||
	echo "not ok 4 - the broken walk passed every random seed"
