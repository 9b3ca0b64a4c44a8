#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `recorded` (docs/scenario.md): cowctx run compares the kernel's counts
# with its anon_vma instance, reports each difference once on stdout as
# FILE:LINE: fidelity: ..., with a summary line, and fails only under
# --fidelity=strict. The corpus files that carry `recorded` counts
# (derived from Linux 6.12 for exec, brk, stack growth, MAP_FIXED and
# shared mappings) must match them exactly.
. "$(dirname "$0")/lib/tap.sh"
tap_setup

for f in tests/scenarios/*.scn; do
	case $(basename "$f") in err-*) continue ;; esac
	grep -Eq '^recorded[[:space:]]+anon_vma' "$f" || continue
	n=$(grep -Ec '^recorded[[:space:]]+anon_vma' "$f")
	"$COWCTX" run --fidelity=strict "$f" > "$tmp/out" 2>&1
	rc=$?
	[ $rc = 0 ] && grep -q "^$f: fidelity: 0 of $n recorded points differ" \
		"$tmp/out"
	ok $? "$f: the model's anon_vma counts equal all $n recorded (exit $rc)" ||
		diag_file "$tmp/out" 12
done

cat > "$tmp/wrong.scn" <<'SCN'
proc P
P mmap 0x100000000000 64K rw
P touch 0x100000000000 64K write
recorded anon_vma=1 anon_vma_chain=1
P fork C
recorded anon_vma=5 anon_vma_chain=7
C exit
SCN
w=$tmp/wrong.scn
"$COWCTX" run "$w" > "$tmp/out" 2> "$tmp/err"
rc=$?
ok $rc "a difference alone does not fail the run (exit $rc)" ||
	diag_file "$tmp/err"
[ "$(grep -c 'fidelity: anon_vma' "$tmp/out")" = 1 ] &&
	grep -qx "$w:6: fidelity: anon_vma model 2 kernel 5, anon_vma_chain model 3 kernel 7" \
		"$tmp/out"
ok $? "the one difference is printed once for three backends, as FILE:LINE: fidelity: ..." ||
	diag_file "$tmp/out"
grep -q "^$w: fidelity: 1 of 2 recorded points differ" "$tmp/out"
ok $? "a summary line counts the points and the differences" ||
	diag_file "$tmp/out"

"$COWCTX" run --fidelity=strict --rmap=cow_context "$w" > "$tmp/out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q "$w:6: fidelity: anon_vma model 2 kernel 5" "$tmp/out"
ok $? "--fidelity=strict fails it (exit $rc), from cow_context's run too" ||
	diag_file "$tmp/out"

"$COWCTX" run --json "$w" > "$tmp/out" 2> "$tmp/err"
perl -MJSON::PP -0777 -ne '
	my $j = decode_json($_);
	exit !($j->{fidelity}{points} == 2 && $j->{fidelity}{differences} == 1);
' "$tmp/out" && grep -q "$w:6: fidelity:" "$tmp/err"
ok $? "--json: the counts in the object, the report on stderr" ||
	diag_file "$tmp/out"

"$COWCTX" run --fidelity=loose "$w" > /dev/null 2> "$tmp/err"
rc=$?
[ $rc = 2 ]
ok $? "a bad --fidelity is a usage error (exit $rc)" || diag_file "$tmp/err"

"$COWCTX" kernel "$w" > /dev/null 2> "$tmp/err"
rc=$?
[ $rc = 2 ] && grep -q "^$w:4: cowctx kernel does not run 'recorded'" \
	"$tmp/err"
ok $? "cowctx kernel refuses recorded at its line before running (exit $rc)" ||
	diag_file "$tmp/err"

tap_done
