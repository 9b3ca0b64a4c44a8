#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Private file mappings need no remap entry (issue 9): anonymous folios
# are indexed by vm_anon_pgoff, not by file offset, so 50 files all
# mapped at file offset 0 (tests/cow_context/files-50x20.scn, 20
# children) no longer collide. Asserted: cow_context has no remap entry,
# examines no more VMAs per mapping found than anon_vma (the page-table
# scan's 50 per mapping before), its rmap objects take at most 5% of
# anon_vma's object bytes, and with each backend's fields in every VMA
# (cow_context 16 bytes, anon_vma 24) its bytes are at most 8% of
# anon_vma's (7.3%: over issue 9's 5% once anon_vma's fields count too).

set -u

. "$(dirname "$0")/lib/tap.sh"
tap_setup

f=tests/cow_context/files-50x20.scn
"$COWCTX" run --json --rmap=anon_vma,cow_context "$f" > "$tmp/f.json" \
	2> "$tmp/err"
ok $? "files-50x20: both backends exact, with Linux's layout"
diag_file "$tmp/err" 5

av_ex=$(figure anon_vma walk.vmas_examined "$tmp/f.json")
av_fo=$(figure anon_vma walk.mappings_found "$tmp/f.json")
cc_ex=$(figure cow_context walk.vmas_examined "$tmp/f.json")
cc_fo=$(figure cow_context walk.mappings_found "$tmp/f.json")
[ "$cc_fo" = "$av_fo" ] && [ "$cc_fo" = 16800 ]
ok $? "files-50x20: both find the 8,400 mappings at each of two checks ($cc_fo, $av_fo)"
perl -e 'exit(!($ARGV[0] * $ARGV[3] <= $ARGV[2] * $ARGV[1]))' \
	"$cc_ex" "$cc_fo" "$av_ex" "$av_fo"
ok $? "files-50x20: cow_context examines $cc_ex VMAs for $cc_fo mappings, anon_vma $av_ex for $av_fo: no more per mapping"

entries=$(figure cow_context objects.remap_entry "$tmp/f.json")
[ "$entries" = 0 ]
ok $? "files-50x20: no remap entry ($entries)"

fields=$(figure cow_context vma_field_bytes "$tmp/f.json")
[ "$fields" = $((1050 * 16)) ]
ok $? "files-50x20: 16 bytes of fields counted in every VMA of 21 processes ($fields)"

avo=$(figure anon_vma object_bytes "$tmp/f.json")
cco=$(figure cow_context object_bytes "$tmp/f.json")
perl -e 'exit(!($ARGV[1] > 0 && $ARGV[0] / $ARGV[1] <= 0.05))' "$cco" "$avo"
ok $? "files-50x20: cow_context $cco bytes of objects, anon_vma $avo: at most 5%"
av=$(figure anon_vma bytes "$tmp/f.json")
cc=$(figure cow_context bytes "$tmp/f.json")
perl -e 'exit(!($ARGV[1] > 0 && $ARGV[0] / $ARGV[1] <= 0.08))' "$cc" "$av"
ok $? "files-50x20: cow_context $cc rmap bytes, anon_vma $av, fields included: at most 8%"

tap_done
