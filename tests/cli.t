#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The command line: help, usage errors (exit 2), and the --json shape
# people outside the project script against.
COWCTX=${COWCTX:-build/cowctx}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
t() {	# t DESCRIPTION WANT_STATUS CMD...
	local desc=$1 want=$2
	shift 2
	"$@" > "$tmp/out" 2> "$tmp/err"
	local rc=$?
	n=$((n + 1))
	if [ "$rc" = "$want" ]; then
		echo "ok $n - $desc"
	else
		echo "not ok $n - $desc (exit $rc, want $want)"
		sed 's/^/# /' "$tmp/err" | head -5
	fi
}

cat > "$tmp/ok.scn" <<'SCN'
proc A
A mmap 0x100000000000 16K rw
A touch 0x100000000000 16K write
A fork B
B touch 0x100000000000 4K write
check
SCN

t "cowctx --help" 0 "$COWCTX" --help
t "cowctx with no command" 2 "$COWCTX"
t "unknown command" 2 "$COWCTX" frobnicate
t "run --help" 0 "$COWCTX" run --help
t "run without a file" 2 "$COWCTX" run
t "run with two files" 2 "$COWCTX" run "$tmp/ok.scn" "$tmp/ok.scn"
t "run of a missing file" 2 "$COWCTX" run "$tmp/nope.scn"
t "run with an unknown backend" 2 "$COWCTX" run --rmap=nope "$tmp/ok.scn"
t "run with an unknown option" 2 "$COWCTX" run --frob "$tmp/ok.scn"
t "gen --help" 0 "$COWCTX" gen --help
t "gen without a seed" 2 "$COWCTX" gen
t "gen with a bad seed" 2 "$COWCTX" gen --seed x
t "gen with a bad --ops" 2 "$COWCTX" gen --seed 1 --ops 0
t "run of a good scenario" 0 "$COWCTX" run "$tmp/ok.scn"
printf 'proc A\0\n' > "$tmp/binary.scn"
t "run of a binary file" 2 "$COWCTX" run "$tmp/binary.scn"
n=$((n + 1))
grep -q "binary.scn: binary file" "$tmp/err" && echo "ok $n - a binary file is named as such" ||
	echo "not ok $n - binary file message: $(cat "$tmp/err")"
t "run of a directory" 2 "$COWCTX" run "$tmp"

t "run --json" 0 "$COWCTX" run --json "$tmp/ok.scn"
n=$((n + 1))
if perl -MJSON::PP -e '
	local $/; my $j = decode_json(<STDIN>);
	die "scenario\n" unless $j->{scenario} =~ /ok\.scn$/;
	die "no backends\n" unless %{$j->{backends}};
	for my $b (values %{$j->{backends}}) {
		for my $k (qw(checks folios_checked mismatches bytes peak_bytes)) {
			die "$k\n" unless exists $b->{$k} && $b->{$k} =~ /^\d+$/;
		}
		die "objects\n" unless ref $b->{objects} eq "HASH";
		for my $k (qw(walks vmas_examined mappings_found)) {
			die "walk.$k\n" unless $b->{walk}{$k} =~ /^\d+$/;
		}
		die "checks\n" unless $b->{checks} == 2;
		die "folios\n" unless $b->{folios_checked} == 10;
		die "mapped\n" unless $b->{walk}{mappings_found} == 16;
	}' < "$tmp/out" 2> "$tmp/err"; then
	echo "ok $n - --json has the documented shape and counts"
else
	echo "not ok $n - --json shape: $(cat "$tmp/err")"
	sed 's/^/# /' "$tmp/out"
fi
echo "1..$n"
