#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cowctx kernel's options for the guest (guest/corpus.sh): --no-trace
# compares VMAs and pages without counting anon_vma objects, and still
# catches a wrong model; --idle-walks forces a page_idle rmap walk of
# every anonymous folio at each check and confirms it by the idle bit
# read back. Where this kernel has no page_idle bitmap, --idle-walks
# must exit 77 naming it; where it has one, a COW tree and a moved range
# must have every forced walk confirmed.

. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/expect.sh"
tap_setup

bitmap=/sys/kernel/mm/page_idle/bitmap

# Above 0x200000000000, clear of an AddressSanitizer build's shadow
cat > "$tmp/probe.scn" <<'EOF'
proc P
P mmap 0x200000000000 64K rw
P touch 0x200000000000 64K write
P fork C
C touch 0x200000000000 16K write
check
C mremap 0x200000008000 32K 32K to 0x200000100000
P fork D
check
EOF

"$COWCTX" kernel --no-trace "$tmp/probe.scn" > "$tmp/out" 2> "$tmp/err"
rc=$?
kernel_skip $rc "$tmp/err"
ok $rc "--no-trace: a COW tree with a moved range agrees (exit $rc)" ||
	diag_file "$tmp/err" 20
grep -q 'anon_vma objects not counted (--no-trace)' "$tmp/out"
ok $? "--no-trace says that anon_vma objects were not counted" ||
	diag_file "$tmp/out"
grep -q '3 checks, [1-9][0-9]* pages compared' "$tmp/out"
ok $? "--no-trace still compares pages at every check" ||
	diag_file "$tmp/out"

"$COWCTX" kernel --no-trace --json "$tmp/probe.scn" > "$tmp/out" 2> "$tmp/err"
grep -q '"anon_vma": {"kernel": null, "model": null}' "$tmp/out"
ok $? "--no-trace --json: no anon_vma figures on either side" ||
	diag_file "$tmp/out"

"$COWCTX" kernel --no-trace --model-skip-cow=1 "$tmp/probe.scn" \
	> "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc = 1 ] && grep -q DIFFERENT "$tmp/out"
ok $? "--no-trace still catches a model that skips a COW copy (exit $rc)" ||
	diag_file "$tmp/err"

"$COWCTX" kernel --help > "$tmp/out" 2>&1
grep -q -- '--idle-walks' "$tmp/out" && grep -q -- '--no-trace' "$tmp/out"
ok $? "--help names --idle-walks and --no-trace"

# "forced confirmed" from a --json report's idle_walks
idle_fields() {
	sed -n 's/.*"idle_walks": {"forced": \([0-9]*\), "confirmed": \([0-9]*\),.*/\1 \2/p' "$1"
}

if [ ! -e "$bitmap" ]; then
	"$COWCTX" kernel --no-trace --idle-walks "$tmp/probe.scn" \
		> "$tmp/out" 2> "$tmp/err"
	rc=$?
	[ $rc = 77 ] && grep -q "$bitmap" "$tmp/err" && [ ! -s "$tmp/out" ]
	ok $? "no page_idle here: --idle-walks exits 77 naming $bitmap (exit $rc)" ||
		diag_file "$tmp/err"
	ok 0 "forced walks confirmed" \
		"SKIP this kernel has no $bitmap (CONFIG_IDLE_PAGE_TRACKING); the guest runs them (cowctx-corpus)"
	tap_done
fi

"$COWCTX" kernel --idle-walks --json "$tmp/probe.scn" > "$tmp/out" 2> "$tmp/err"
rc=$?
set -- $(idle_fields "$tmp/out")
[ $rc = 0 ] && [ "${1:-0}" -gt 0 ] && [ "$1" = "$2" ]
ok $? "--idle-walks: exit $rc, ${1:-?} walks forced, ${2:-?} confirmed" ||
	diag_file "$tmp/err" 20
tap_done
