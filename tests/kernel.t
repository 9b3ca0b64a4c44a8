#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The real kernel as judge: every scenario of the corpus and 100
# generated ones run through `cowctx kernel`, which must find the kernel
# and the model in agreement (err-*.scn: refused by both, exit 2). Also:
# a model told a wrong fact is caught, the JSON report, bad input, and
# 77 where the machine cannot serve. Prints the pages compared.
#
# A scenario with a line "# kernel: TODO reason" is a known, open
# disagreement: its result is reported as a TODO test.

COWCTX=${COWCTX:-build/cowctx}
here=$(dirname "$0")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kernel-t.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

n=0
failed=0
pages=0
runs=0

tap() {	# tap OK DESCRIPTION [DIRECTIVE]
	n=$((n + 1))
	if [ "$1" = 1 ]; then
		echo "ok $n - $2${3:+ # $3}"
	else
		echo "not ok $n - $2${3:+ # $3}"
		case "$3" in TODO*) ;; *) failed=$((failed + 1)) ;; esac
	fi
}

diag() {
	sed 's/^/# /' "$@"
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
if [ $rc = 77 ]; then
	echo "1..0 # SKIP $(tail -1 "$tmp/err")"
	exit 0
fi
tap "$([ $rc = 0 ] && echo 1)" "a COW tree agrees (exit $rc)"
[ $rc = 0 ] || diag "$tmp/err"
fields=$(json_fields "$tmp/out")
tap "$([ -n "$fields" ] && echo 1)" "--json has every field"

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

# judge one scenario FILE NAME: the expected status from its name
judge() {
	file=$1
	name=$2
	want=0
	case "$(basename "$file")" in err-*) want=2 ;; esac
	todo=$(sed -n 's/^# kernel: \(TODO.*\)/\1/p' "$file" | head -1)
	"$COWCTX" kernel --json "$file" > "$tmp/out" 2> "$tmp/err"
	rc=$?
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
	tap "$([ $rc = $want ] && echo 1)" "$name: $what" "$todo"
	[ $rc = $want ] || head -20 "$tmp/err" | diag
}

for f in "$here"/scenarios/*.scn "$here"/scenarios/*/*.scn \
	 "$here"/anon_vma/*.scn; do
	[ -f "$f" ] || continue
	judge "$f" "${f#$here/}"
done

if "$COWCTX" gen --seed 1 > /dev/null 2>&1; then
	seed=1
	while [ $seed -le 100 ]; do
		"$COWCTX" gen --seed $seed > "$tmp/seed-$seed.scn"
		judge "$tmp/seed-$seed.scn" "gen --seed $seed"
		rm -f "$tmp/seed-$seed.scn"
		seed=$((seed + 1))
	done
else
	tap 1 "generated scenarios" "SKIP no cowctx gen"
fi

echo "# $runs scenarios judged, $pages pages compared with the kernel"
echo "1..$n"
[ $failed = 0 ]
