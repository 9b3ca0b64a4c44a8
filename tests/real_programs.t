#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Real programs (docs/real-programs.md): tools/record-workloads.sh's
# usage, its quick workloads run unrecorded (recording needs root and
# tracefs: tests/record.t's business), and `cowctx bench --real DIR` on
# hand-written recordings: the table's figures are the model's own
# (processes, VMAs at the busiest moment, bytes, forks) and the
# fidelity column reports the kernel counts the model misses.

set -u
. "$(dirname "$0")/lib/tap.sh"
tap_setup

script=tools/record-workloads.sh

[ "$($script --list)" = "pipeline make git python redis" ]
ok $? "--list names the five workloads"

$script --no-record nosuch > /dev/null 2> "$tmp/err"
[ $? = 2 ] && grep -q "unknown workload 'nosuch'" "$tmp/err"
ok $? "an unknown workload: exit 2, named" || diag_file "$tmp/err"

$script --bogus > /dev/null 2>&1
[ $? = 2 ]
ok $? "an unknown option: exit 2"

if command -v python3 > /dev/null && command -v redis-server > /dev/null &&
	command -v redis-cli > /dev/null && command -v git > /dev/null; then
	$script --no-record --out "$tmp/norec" pipeline python > "$tmp/out" 2>&1
	rc=$?
	[ $rc = 0 ] && [ "$(cat "$tmp/norec/pipeline.out")" = 3 ] &&
		grep -q '^32 ' "$tmp/norec/python.out"
	ok $? "pipeline and the python fork pool run and give their answers" ||
		diag_file "$tmp/out"
	[ ! -e "$tmp/norec/scratch" ]
	ok $? "no scratch directory is left behind"
else
	ok 0 "the workloads run" "SKIP python3, redis or git missing (make recordings-deps)"
	ok 0 "no scratch left" "SKIP as above"
fi

# Two processes; the parent has 3 VMAs and forks (3 copied, 6 live at
# the busiest moment), then both exit. The kernel's counts: the first
# `recorded` agrees with Linux's (2 anon_vma and 3 chains: the parent's
# written VMA, the child's, its chain to the parent's), the second
# claims one anon_vma and one chain the model does not have.
mkdir -p "$tmp/rec"
cat > "$tmp/rec/fork.scn" <<'EOF'
proc P
P mmap 0x100000000000 4K rw
P mmap 0x100000002000 4K r
P mmap 0x100000004000 4K rw
P touch 0x100000000000 4K write
P fork C
C touch 0x100000000000 4K write
C exit
recorded anon_vma=1 anon_vma_chain=1
P exit
recorded anon_vma=1 anon_vma_chain=1
EOF
printf 'proc Q\nQ mmap 0x100000000000 4K rw\nQ exit\n' > "$tmp/rec/nokernel.scn"
echo "not a scenario" > "$tmp/rec/notes.txt"

"$COWCTX" bench --real "$tmp/rec" --out "$tmp/report" > "$tmp/table" \
	2> "$tmp/err"
ok $? "bench --real runs" || diag_file "$tmp/err"
row=$(grep '^| fork |' "$tmp/table")
diag "$row"
# | fork | statements | measured after line | processes | VMAs | anon_vma
# bytes | cow bytes | ...: the busiest point is the fork, and the child's
# write after it adds no rmap object, so it is after that (line 7)
field() { echo "$row" | awk -F' *\\| *' -v n="$1" '{ print $(n + 1) }'; }
[ "$(field 2)" = 11 ] && [ "$(field 3)" = 7 ] && [ "$(field 4)" = 2 ] &&
	[ "$(field 5)" = 6 ]
ok $? "statements, the busiest point's line, processes and its VMAs"
# at the fork: 2 anon_vmas (104 B) and 3 chains (64 B), 24 B of fields
# in each of the 6 VMAs; 2 contexts (128 B) and 16 B a VMA
[ "$(field 6)" = "$((2 * 104 + 3 * 64 + 6 * 24)) ($((2 * 104 + 3 * 64)) + $((6 * 24)))" ]
ok $? "anon_vma's rmap bytes at that moment: the total, objects + per-VMA fields"
[ "$(field 7)" = "$((2 * 128 + 6 * 16)) ($((2 * 128)) + $((6 * 16)))" ]
ok $? "the COW context's, counted the same way"
[ "$(field 9)" = "1 / 1" ]
ok $? "the walk finds each mapping at the first VMA it examines"
# fork: anon_vma_fork()'s anon_vma and two chains; one COW context
[ "$(field 10)" = "3 / 1" ]
ok $? "rmap allocations per fork, on each backend"
echo "$row" | grep -q '1 of 2 points equal; worst: line 11, 2 objects; end: model 0/0, kernel 1/1'
ok $? "the fidelity column: the differing point, the worst, the end"
grep -q '^| nokernel |.*no `recorded` counts' "$tmp/table"
ok $? "a scenario without kernel counts says so"
! grep -q notes "$tmp/table"
ok $? "only *.scn files are read"
grep -q '^| Android after boot (HONOR, 2026) |.* 0.336 |' "$tmp/table"
ok $? "the Android row, as docs/sources.md gives it"
grep -q '^## Real programs' "$tmp/report/report.md" &&
	grep -q "fork.scn:11: fidelity: anon_vma model 0 kernel 1" \
		"$tmp/report/report.md"
ok $? "report.md has the section and each difference"

printf 'proc Q\nQ touch 0x100000000000 4K write\n' > "$tmp/rec/bad.scn"
"$COWCTX" bench --real "$tmp/rec" --out "$tmp/report" > "$tmp/table" \
	2> "$tmp/err"
[ $? = 1 ] && grep -q '^| bad | error: replay failed on anon_vma: .*bad.scn:2:' "$tmp/table"
ok $? "a recording that does not replay: its error, exit 1" ||
	diag_file "$tmp/table"

# `cowctx bench FILE.scn` on a recording (exec, brk, `mmap any`, a shared
# mapping: no bench op for them) gives its row of the real programs
# table, the row `--real DIR` gives. At the fork: the heap's anon_vma
# and chain, the child's anon_vma and its two chains (400 bytes); the
# shared and the untouched mappings have none.
mkdir -p "$tmp/one"
cat > "$tmp/one/rec.scn" <<'EOF'
proc P
P exec brk=0x555500000000 mmap_base=0x7f0000000000
P mmap 0x555400000000 8K r file=prog:0
P brk 0x555500002000
P touch 0x555500000000 8K write
P mmap any 16K rw
P mmap 0x7e0000000000 4K rw shared
P touch 0x7e0000000000 4K write
P fork C
C touch 0x555500000000 4K write
C exit
recorded anon_vma=1 anon_vma_chain=1
P exit
recorded anon_vma=0 anon_vma_chain=0
EOF
"$COWCTX" bench --tiny "$tmp/one/rec.scn" --out "$tmp/onereport" \
	> "$tmp/onetable" 2> "$tmp/err"
ok $? "bench FILE.scn runs a recording" || diag_file "$tmp/err"
! grep -q "cannot replay" "$tmp/err"
ok $? "and does not refuse its exec, brk or mapping flags" ||
	diag_file "$tmp/err"
row=$(grep '^| rec |' "$tmp/onetable")
diag "$row"
[ "$(field 2)" = 14 ] && [ "$(field 3)" = 10 ] && [ "$(field 4)" = 2 ] &&
	[ "$(field 5)" = 8 ] &&
	[ "$(field 6)" = "$((2 * 104 + 3 * 64 + 8 * 24)) ($((2 * 104 + 3 * 64)) + $((8 * 24)))" ] &&
	[ "$(field 10)" = "3 / 1" ]
ok $? "its row: statements, busiest line, processes, VMAs, bytes, allocations per fork"
echo "$row" | grep -q '| 2 of 2 points equal; end: model 0/0, kernel 0/0 |$'
ok $? "its fidelity: both kernel counts met"
"$COWCTX" bench --real "$tmp/one" --out "$tmp/onereport2" \
	> "$tmp/dirtable" 2> "$tmp/err"
[ "$(grep '^| rec |' "$tmp/dirtable")" = "$row" ]
ok $? "the same row as bench --real DIR" || diag_file "$tmp/dirtable"
grep -q '^## Real programs' "$tmp/onereport/report.md" &&
	grep -q "^Read from \`$tmp/one/rec.scn\`\.$" "$tmp/onereport/report.md" &&
	! grep -q '(null)' "$tmp/onereport/report.md"
ok $? "report.md has the real programs section, read from the file named" ||
	diag_file "$tmp/onereport/report.md"

# --json has the recordings' rows: the table's figures, by backend
"$COWCTX" bench --tiny --json "$tmp/one/rec.scn" --out "$tmp/onereport3" \
	> "$tmp/one.json" 2> "$tmp/err"
perl -MJSON::PP -e '
	my $j = decode_json(do { local $/; <STDIN> });
	my $r = $j->{real_programs}[0] or exit 1;
	exit !(@{$j->{workloads}} == 0 && $r->{name} eq "rec" &&
	       $r->{statements} == 14 && $r->{snapshot_line} == 10 &&
	       $r->{processes} == 2 && $r->{anon_vma}{vmas} == 8 &&
	       $r->{anon_vma}{bytes} == 592 &&
	       $r->{anon_vma}{object_bytes} == 400 &&
	       $r->{cow_context}{bytes} == 384 &&
	       $r->{fidelity}{points} == 2 && $r->{fidelity}{differences} == 0);
' < "$tmp/one.json"
ok $? "bench --json FILE.scn: the recording's row in real_programs" ||
	diag_file "$tmp/one.json"

# refused by the model: FILE:LINE on stderr, exit 2, no report made
printf 'proc P\nP exec\nP touch 0x555500000000 4K write\n' \
	> "$tmp/badrec.scn"
"$COWCTX" bench --tiny "$tmp/badrec.scn" --out "$tmp/badreport" \
	> /dev/null 2> "$tmp/err"
[ $? = 2 ] && grep -q "badrec.scn:3:" "$tmp/err" && [ ! -e "$tmp/badreport" ]
ok $? "a recording the model refuses: FILE:LINE, exit 2, nothing written" ||
	diag_file "$tmp/err"
tap_done
