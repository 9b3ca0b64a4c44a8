#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cow_context's scenarios and workloads (tests/cow_context/):
#  - every scenario passes the oracle with scan, anon_vma and cow_context;
#  - the poc-*.scn ones fail with cow_context-poc, the PoC's walk, and
#    the mismatch names the mapping it missed;
#  - zygote-300x50: cow_context's rmap objects take at most 1% of
#    anon_vma's object bytes; each backend is charged its fields in every
#    VMA (anon_vma 24 bytes, cow_context 16; 15,300 VMAs here), and with
#    them cow_context's bytes are at most 7% of anon_vma's (6.4%: issue
#    9's 5% is not met once anon_vma's fields count too, as the bench's
#    verdict says);
#  - fork32-fault: cow_context examines at most 1.05 VMAs per mapping
#    found, anon_vma about 33, and so would cow_context without pruning;
#  - refill-after-fork: a child's own VMA at the address of the parent's
#    folio is no candidate (its anonymous state did not come by fork):
#    cow_context examines exactly as many VMAs as anon_vma.

set -u
. "$(dirname "$0")/lib/tap.sh"
tap_setup

for f in tests/cow_context/*.scn; do
	"$COWCTX" run --rmap=scan,anon_vma,cow_context "$f" > "$tmp/out" 2>&1
	rc=$?
	ok $rc "$f passes with scan, anon_vma and cow_context"
	[ $rc = 0 ] || diag_file "$tmp/out"
done

for f in tests/cow_context/poc-*.scn; do
	"$COWCTX" run --rmap=cow_context-poc "$f" > "$tmp/out" 2>&1
	rc=$?
	missed=1
	grep -q 'expected {[A-Z][A-Za-z0-9_]*:0x[0-9a-f]*.*}, got {' "$tmp/out" &&
		missed=0
	[ $rc = 1 ] && [ $missed = 0 ]
	ok $? "$f: the PoC's early stop misses a mapping the oracle sees"
done

# at_most A B LIMIT: is A/B <= LIMIT?
at_most() {
	perl -e 'exit(!($ARGV[1] > 0 && $ARGV[0] / $ARGV[1] <= $ARGV[2]))' "$@"
}

ratio() {
	perl -e 'printf "%.4f", $ARGV[1] ? $ARGV[0] / $ARGV[1] : -1' "$@"
}

z=tests/cow_context/zygote-300x50.scn
"$COWCTX" run --json --rmap=anon_vma,cow_context "$z" > "$tmp/z.json" 2> "$tmp/err"
ok $? "zygote: both backends exact"
av=$(figure anon_vma bytes "$tmp/z.json")
cc=$(figure cow_context bytes "$tmp/z.json")
avo=$(figure anon_vma object_bytes "$tmp/z.json")
cco=$(figure cow_context object_bytes "$tmp/z.json")
avf=$(figure anon_vma vma_field_bytes "$tmp/z.json")
ccf=$(figure cow_context vma_field_bytes "$tmp/z.json")
avp=$(figure anon_vma peak_bytes "$tmp/z.json")
ccp=$(figure cow_context peak_bytes "$tmp/z.json")
at_most "$cco" "$avo" 0.01
ok $? "zygote: cow_context $cco bytes of objects, anon_vma $avo: ratio $(ratio "$cco" "$avo") <= 0.01"
[ "$avf" = $((15300 * 24)) ] && [ "$ccf" = $((15300 * 16)) ] &&
	[ "$av" = $((avo + avf)) ] && [ "$cc" = $((cco + ccf)) ]
ok $? "zygote: per-VMA fields, 24 and 16 bytes in each of 15300 VMAs ($avf, $ccf), are in bytes"
at_most "$cc" "$av" 0.07
ok $? "zygote: cow_context $cc rmap bytes, anon_vma $av, fields included: ratio $(ratio "$cc" "$av") <= 0.07"
at_most "$ccp" "$avp" 0.07
ok $? "zygote: peak bytes $ccp against $avp: ratio $(ratio "$ccp" "$avp") <= 0.07"
ctxs=$(figure cow_context objects.cow_context "$tmp/z.json")
[ "$ctxs" = 51 ]
ok $? "zygote: one context per process ($ctxs)"

f=tests/cow_context/fork32-fault.scn
"$COWCTX" run --json --rmap=anon_vma,cow_context,cow_context-noprune "$f" \
	> "$tmp/f.json" 2> "$tmp/err"
ok $? "fork32: all three exact"
for b in anon_vma cow_context cow_context-noprune; do
	ex=$(figure "$b" walk.vmas_examined "$tmp/f.json")
	fo=$(figure "$b" walk.mappings_found "$tmp/f.json")
	eval "ex_${b//-/_}=$ex fo_${b//-/_}=$fo"
done
at_most "$ex_cow_context" "$fo_cow_context" 1.05
ok $? "fork32: cow_context examines $(ratio "$ex_cow_context" "$fo_cow_context") VMAs per mapping found (<= 1.05)"
perl -e 'my $r = $ARGV[0] / $ARGV[1]; exit(!($r >= 32 && $r <= 34))' \
	"$ex_anon_vma" "$fo_anon_vma"
ok $? "fork32: anon_vma examines $(ratio "$ex_anon_vma" "$fo_anon_vma") (about 33)"
perl -e 'my $r = $ARGV[0] / $ARGV[1]; exit(!($r >= 32 && $r <= 34))' \
	"$ex_cow_context_noprune" "$fo_cow_context_noprune"
ok $? "fork32: without pruning cow_context would examine $(ratio "$ex_cow_context_noprune" "$fo_cow_context_noprune")"
pruned=$(figure cow_context cow_context.contexts_pruned "$tmp/f.json")
[ "$pruned" -ge 32000 ] 2>/dev/null
ok $? "fork32: $pruned child subtrees pruned (32 per walk)"

f=tests/cow_context/refill-after-fork.scn
"$COWCTX" run --json --rmap=anon_vma,cow_context "$f" > "$tmp/r.json" 2> "$tmp/err"
ok $? "refill: both backends exact"
exa=$(figure anon_vma walk.vmas_examined "$tmp/r.json")
exc=$(figure cow_context walk.vmas_examined "$tmp/r.json")
nf=$(figure cow_context cow_context.vma_not_forked "$tmp/r.json")
[ "$exc" = "$exa" ] 2>/dev/null
ok $? "refill: cow_context examines as many VMAs as anon_vma ($exc, $exa)"
[ "$nf" = 16 ]
ok $? "refill: the 8 refilled VMAs skipped in both walks of the parent's folio ($nf)"

tap_done
