#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The command line: help, usage errors (exit 2), and the --json shape
# people outside the project script against.
. "$(dirname "$0")/lib/tap.sh"
tap_setup
t() {	# t DESCRIPTION WANT_STATUS CMD...
	local desc=$1 want=$2
	shift 2
	"$@" > "$tmp/out" 2> "$tmp/err"
	local rc=$?
	[ "$rc" = "$want" ]
	ok $? "$desc (exit $rc, want $want)" || diag_file "$tmp/err" 5
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
grep -q "binary.scn: binary file" "$tmp/err"
ok $? "a binary file is named as such" || diag_file "$tmp/err"
t "run of a directory" 2 "$COWCTX" run "$tmp"

t "run --json" 0 "$COWCTX" run --json "$tmp/ok.scn"
perl -MJSON::PP -e '
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
	}' < "$tmp/out" 2> "$tmp/err"
ok $? "--json has the documented shape and counts" ||
	{ diag_file "$tmp/err"; diag_file "$tmp/out"; }

# The family-shared locks and atomics, in the same terms for both
# backends, and measured: a fork and a COW fault write lines that
# parent and child share in either design.
perl -MJSON::PP -e '
	local $/; my $j = decode_json(<STDIN>);
	for my $n (qw(anon_vma cow_context)) {
		my $f = $j->{backends}{$n}{locks}{family} or die "$n: no locks.family\n";
		for my $k (qw(acquisitions read write objects_touched max_touched
			      atomics line_writes line_transfers)) {
			die "$n: family.$k\n" unless defined $f->{$k} && $f->{$k} =~ /^\d+$/;
		}
		die "$n: acquisitions\n"
			unless $f->{acquisitions} == $f->{read} + $f->{write};
		for my $k (qw(acquisitions atomics line_writes line_transfers)) {
			die "$n: family.$k is 0\n" unless $f->{$k} > 0;
		}
	}' < "$tmp/out" 2> "$tmp/err"
ok $? "--json locks.family: every key, for anon_vma and cow_context, none 0" ||
	diag_file "$tmp/err"
tap_done
