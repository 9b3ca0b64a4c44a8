#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The real kernel as judge: every scenario of the corpus and 100
# generated ones run through `cowctx kernel`, which must find the kernel
# and the model in agreement (err-*.scn: refused by both, exit 2, at
# the line their header names). Also: a model told a wrong fact is
# caught, the JSON report, bad input, 77 where the machine cannot
# serve, and the runner's limits (docs/scenario.md): 600 processes and
# 300 files from a soft limit of 1024 descriptors, and FILE:LINE
# refusals (exit 2) for too few descriptors, a mapping over the
# runner's own memory and a file too large. Prints the pages compared.
#
# A scenario with a line "# kernel: TODO reason" is a known, open
# disagreement: its result is reported as a TODO test.

COWCTX=${COWCTX:-build/cowctx}
here=$(dirname "$0")
. "$here/lib/tap.sh"
. "$here/lib/expect.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kernel-t.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

pages=0
runs=0

tap() {	# tap OK DESCRIPTION [DIRECTIVE]: OK is 1 for a pass
	[ "$1" = 1 ]
	ok $? "$2" "${3-}"
}

# "checks pages_compared sharing_mismatches" from a JSON report
json_fields() {
	perl -MJSON::PP -0777 -ne '
		my $j = eval { decode_json($_) } or exit 1;
		for my $k (qw(scenario checks pages_compared vma_mismatches
			      sharing_mismatches anon_vma)) {
			exists $j->{$k} or exit 1;
		}
		exists $j->{anon_vma}{kernel}{anon_vma} or exit 1;
		exists $j->{anon_vma}{model} or exit 1;
		print "$j->{checks} $j->{pages_compared} $j->{sharing_mismatches}\n";
	' "$1"
}

cat > "$tmp/probe.scn" <<'EOF'
proc P
P mmap 0x100000000000 16K rw
P touch 0x100000000000 16K write
P fork C
C touch 0x100000000000 4K write
check
EOF
"$COWCTX" kernel --json "$tmp/probe.scn" > "$tmp/out" 2> "$tmp/err"
rc=$?
kernel_skip $rc "$tmp/err"
tap "$([ $rc = 0 ] && echo 1)" "a COW tree agrees (exit $rc)"
[ $rc = 0 ] || diag_file "$tmp/err" 1000
fields=$(json_fields "$tmp/out")
tap "$([ -n "$fields" ] && echo 1)" "--json has every field"
# the kernel's zero page, as the judge probed it: the model ran the same
kzero=$(perl -MJSON::PP -0777 -ne '
	my $j = eval { decode_json($_) } or exit 1;
	print $j->{zero_page} // "";' "$tmp/out")
tap "$(case $kzero in on|off) echo 1 ;; esac)" \
	"--json says which zero-page mode the kernel has (zero_page=$kzero)"
kother=on
[ "$kzero" = on ] && kother=off

# a model in the other zero-page mode is caught: a read, then fork
cat > "$tmp/read.scn" <<'EOF'
proc P
P mmap 0x100000000000 16K rw
P touch 0x100000000000 16K read
P fork C
check
C touch 0x100000000000 8K read
EOF
"$COWCTX" kernel --model-zero-page=$kzero "$tmp/read.scn" > "$tmp/out" 2>&1
tap "$([ $? = 0 ] && grep -q "zero_page=$kzero (probed)" "$tmp/out" && echo 1)" \
	"reads and fork agree with the model in the kernel's mode"
"$COWCTX" kernel --model-zero-page=$kother "$tmp/read.scn" > "$tmp/out" 2>&1
rc=$?
tap "$([ $rc = 1 ] && grep -q 'zero page differs' "$tmp/out" && echo 1)" \
	"a model in the other mode (zero_page=$kother) is caught (exit $rc)"
{ echo "kernel zero_page=$kother"; cat "$tmp/read.scn"; } > "$tmp/other.scn"
"$COWCTX" kernel "$tmp/other.scn" > "$tmp/out" 2> "$tmp/err"
rc=$?
tap "$([ $rc = 77 ] && grep -q "$tmp/other.scn:1: the file states zero_page=$kother" "$tmp/err" && echo 1)" \
	"a file stating the other mode cannot be judged here: 77 with the reason (exit $rc)"

# the comparison can fail: the model's first COW fault skips the copy
"$COWCTX" kernel --json --model-skip-cow=1 "$tmp/probe.scn" > "$tmp/out" \
	2> "$tmp/err"
rc=$?
set -- $(json_fields "$tmp/out")
tap "$([ $rc = 1 ] && [ "${3:-0}" -gt 0 ] && echo 1)" \
	"a model skipping one COW copy is caught (exit $rc, ${3:-?} sharing differences)"
tap "$(grep -q 'sharing: .*mapped by' "$tmp/err" && echo 1)" \
	"the difference is told with both sides' mappings"

# bad input
"$COWCTX" kernel "$tmp/none.scn" > /dev/null 2>&1
tap "$([ $? = 2 ] && echo 1)" "a missing file: exit 2"
"$COWCTX" kernel --bogus "$tmp/probe.scn" > /dev/null 2>&1
tap "$([ $? = 2 ] && echo 1)" "an unknown option: exit 2"
"$COWCTX" kernel --help > "$tmp/out" 2>&1
tap "$([ $? = 0 ] && grep -q 'usage: cowctx kernel' "$tmp/out" && echo 1)" \
	"--help"

# not root: 77 with a reason
if command -v setpriv > /dev/null && [ "$(id -u)" = 0 ]; then
	chmod 755 "$tmp" && chmod 644 "$tmp/probe.scn"
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$COWCTX" kernel "$tmp/probe.scn" > /dev/null 2> "$tmp/err"
	rc=$?
	if [ $rc = 126 ] || [ $rc = 127 ]; then
		tap 1 "not root: 77" "SKIP $COWCTX not runnable as nobody"
	else
		tap "$([ $rc = 77 ] && grep -q 'not root' "$tmp/err" && echo 1)" \
			"not root: exit 77 with the reason (exit $rc)"
	fi
else
	tap 1 "not root: 77" "SKIP no setpriv"
fi

# refused FILE LINE TEXT NAME: exit 2 (already in $rc), and the first
# report on stderr is "FILE:LINE: ..." containing TEXT
refused() {
	first=$(grep -m1 "^$1:[0-9]*: " "$tmp/err")
	tap "$([ $rc = 2 ] && [ "${first#"$1:$2: "}" != "$first" ] &&
	       printf '%s' "$first" | grep -q -F -- "$3" && echo 1)" \
		"$4 (exit $rc, line $2)"
	[ $rc = 2 ] && [ "${first#"$1:$2: "}" != "$first" ] || diag_file "$tmp/err" 1000
}

# A mapping or a move over the runner's own memory (its binary lies
# somewhere in 64K-127T, wherever ASLR put it)
printf 'proc P\nP mmap 0x10000 0x7fff00000000 rw\n' > "$tmp/own.scn"
"$COWCTX" kernel "$tmp/own.scn" > "$tmp/out" 2> "$tmp/err"
rc=$?
refused "$tmp/own.scn" 2 "the runner's own memory" \
	"a mapping over the runner's own memory is bad input"
printf 'proc P\nP mmap 0x100000000000 4K rw\ncheck\nP mremap 0x100000000000 4K 0x7f0000000000 to 0x10000\n' \
	> "$tmp/own2.scn"
"$COWCTX" kernel "$tmp/own2.scn" > "$tmp/out" 2> "$tmp/err"
rc=$?
refused "$tmp/own2.scn" 4 "the runner's own memory" \
	"a move over it too, before anything runs"
tap "$([ ! -s "$tmp/out" ] && echo 1)" "and no comparison was printed"

# A file offset past what the runner makes (1 GiB a file)
printf 'proc P\nP mmap 0x100000000000 4K r file=f:4K\nP mmap 0x100000010000 4K r file=f:2G\n' \
	> "$tmp/big.scn"
"$COWCTX" kernel "$tmp/big.scn" > "$tmp/out" 2> "$tmp/err"
rc=$?
refused "$tmp/big.scn" 3 "file f would need" \
	"a file offset too large for the runner: refused at its mapping"

# vm.max_map_count counts the agents' own VMAs too: a scenario that
# splits one mapping until the kernel refuses is refused at the same
# statement by the model, which is told the runner's footprint
perl -e 'print "proc P\nP mmap 0x100000000000 272000K rw\n";
	printf "P mprotect 0x%x 4K r\n", 0x100000000000 + 8192 * $_
		for 0 .. 33999' > "$tmp/maxmap.scn"
"$COWCTX" kernel "$tmp/maxmap.scn" > "$tmp/out" 2> "$tmp/err"
rc=$?
tap "$([ $rc = 2 ] && grep -q 'ENOMEM) (refused by both)' "$tmp/out" "$tmp/err" && echo 1)" \
	"splitting up to vm.max_map_count: kernel and model refuse the same statement (exit $rc)"
[ $rc = 2 ] || diag_file "$tmp/out" 5

# judge one scenario FILE NAME: what tests/lib/expect.sh says it wants
judge() {
	file=$1
	name=$2
	scn_expect "$file"
	"$COWCTX" kernel --json "$file" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	# a file written for the other kind of kernel is refused, not judged
	if grep -q "^kernel[[:space:]]*zero_page=$kother" "$file"; then
		tap "$([ $rc = 77 ] && grep -q "states zero_page=$kother" "$tmp/err" && echo 1)" \
			"$name: states zero_page=$kother, this kernel is $kzero: exit 77 (exit $rc)"
		return
	fi
	if [ $rc = 77 ]; then
		tap 1 "$name" "SKIP $(tail -1 "$tmp/err")"
		return
	fi
	runs=$((runs + 1))
	what="exit $rc"
	if [ $rc = 0 ] || [ $rc = 1 ]; then
		set -- $(json_fields "$tmp/out")
		what="$1 checks, $2 pages compared"
		pages=$((pages + ${2:-0}))
	fi
	at=1
	if [ $rc = 2 ] && [ -n "$line" ]; then
		what="$what at line $line"
		grep -q "^$file:$line: " "$tmp/err" || at=
	fi
	tap "$([ $rc = $want ] && [ -n "$at" ] && echo 1)" "$name: $what" \
		"$todo"
	[ $rc = $want ] && [ -n "$at" ] || diag_file "$tmp/err" 20
}

for f in "$here"/scenarios/*.scn "$here"/scenarios/*/*.scn \
	 "$here"/anon_vma/*.scn; do
	[ -f "$f" ] || continue
	judge "$f" "${f#$here/}"
done

# 600 live processes, 300 files: P maps the files and forks 20
# children, 579 more processes are made with proc; two checks
many=$tmp/many.scn
{
	echo "proc P"
	i=0
	while [ $i -lt 300 ]; do
		printf 'P mmap 0x1000%08x 4K r file=f%d:0\n' $((i * 8192)) $i
		i=$((i + 1))
	done
	i=0
	while [ $i -lt 300 ]; do
		printf 'P touch 0x1000%08x 4K read\n' $((i * 8192))
		i=$((i + 7))
	done
	i=1
	while [ $i -lt 21 ]; do
		echo "P fork C$i"
		i=$((i + 1))
	done
	echo "C1 touch 0x100000000000 4K read"
	echo check
	while [ $i -lt 600 ]; do
		echo "proc Q$i"
		if [ $((i % 10)) = 0 ]; then
			echo "Q$i mmap 0x100000000000 8K rw"
			echo "Q$i touch 0x100000000000 4K write"
		fi
		i=$((i + 1))
	done
	echo check
} > "$many"
start=$(date +%s)
(ulimit -Sn 1024 && exec "$COWCTX" kernel --json "$many") > "$tmp/out" \
	2> "$tmp/err"
rc=$?
set -- $(json_fields "$tmp/out")
tap "$([ $rc = 0 ] && echo 1)" \
	"600 processes and 300 files agree from a soft limit of 1024 descriptors (exit $rc, ${2:-?} pages compared, $(($(date +%s) - start))s)"
[ $rc = 0 ] || diag_file "$tmp/err" 20

# the statement (its first two words) at line $2 of file $1
words_at() {
	sed -n "$2{s/#.*//;p;}" "$1" | awk '{ print $1, $2 }'
}

(ulimit -n 512 && exec "$COWCTX" kernel "$many") > "$tmp/out" 2> "$tmp/err"
rc=$?
line=$(grep -m1 "^$many:[0-9]*: " "$tmp/err" | cut -d: -f2)
stmt=$(words_at "$many" "${line:-0}")
tap "$([ $rc = 2 ] && grep -q "^$many:$line: .*live processes need .*RLIMIT_NOFILE's 512" \
	"$tmp/err" && case "$stmt" in "proc "* | *" fork") echo 1 ;; esac)" \
	"a hard limit of 512 descriptors: refused at the process that passes it (exit $rc, line ${line:-?}: $stmt)"
[ $rc = 2 ] || diag_file "$tmp/err" 1000

(ulimit -n 128 && exec "$COWCTX" kernel "$many") > "$tmp/out" 2> "$tmp/err"
rc=$?
refused "$many" 125 "file f123 is the scenario's file number 124" \
	"a hard limit of 128: refused at the mapping of the 124th file"

# A fork the machine refuses: in a pids cgroup of 40 (cgroup v1's pids
# hierarchy, or v2 where the root delegates pids), 60 forks
pids_cgroup() {
	for base in /sys/fs/cgroup/pids /sys/fs/cgroup; do
		[ -f "$base/cgroup.procs" ] || continue
		[ "$base" = /sys/fs/cgroup/pids ] ||
			grep -qw pids "$base/cgroup.subtree_control" 2> /dev/null ||
			continue
		cg=$base/cowctx-kernel-t.$$
		mkdir "$cg" 2> /dev/null || continue
		if echo 40 > "$cg/pids.max" 2> /dev/null; then
			echo "$cg"
			return
		fi
		rmdir "$cg"
	done
}
cg=$(pids_cgroup)
if [ -n "$cg" ]; then
	{
		echo "proc P"
		i=1
		while [ $i -le 60 ]; do
			echo "P fork C$i"
			i=$((i + 1))
		done
		echo check
	} > "$tmp/pids.scn"
	sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2" kernel "$3"' sh \
		"$cg" "$COWCTX" "$tmp/pids.scn" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	rmdir "$cg"
	line=$(grep -m1 "^$tmp/pids.scn:[0-9]*: " "$tmp/err" | cut -d: -f2)
	stmt=$(words_at "$tmp/pids.scn" "${line:-0}")
	tap "$([ $rc = 2 ] && [ "$stmt" = "P fork" ] &&
	       grep -q 'refused the fork of C' "$tmp/err" && echo 1)" \
		"a fork the machine refuses (pids.max 40): exit $rc at line ${line:-?} ($stmt)"
	[ $rc = 2 ] || diag_file "$tmp/err" 1000
else
	tap 1 "a fork the machine refuses" "SKIP no pids cgroup to make"
fi

if "$COWCTX" gen --seed 1 > /dev/null 2>&1; then
	seed=1
	# valid on this kernel: its reads may give VMAs anonymous state
	while [ $seed -le 100 ]; do
		"$COWCTX" gen --seed $seed --zero-page="$kzero" \
			> "$tmp/seed-$seed.scn"
		judge "$tmp/seed-$seed.scn" "gen --seed $seed --zero-page=$kzero"
		rm -f "$tmp/seed-$seed.scn"
		seed=$((seed + 1))
	done
else
	tap 1 "generated scenarios" "SKIP no cowctx gen"
fi

echo "# $runs scenarios judged, $pages pages compared with the kernel"
tap_done
