#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0
# guest/selftests.tab, which init reads in the guest, is checked here on the
# host: a line init would misread, or one naming a test the initramfs does
# not hold, would otherwise only show as a run that lasted too long. Where
# the kernel tree is extracted, the subtests a line selects by name must
# exist, since uffd-unit-tests -f with no match runs nothing and passes.
# The benchmarks' tables (bench.tab, bench-smoke.tab) are held to the same
# format, and the smoke run's must run every benchmark.
use strict;
use warnings;
use File::Temp qw(tempdir);
use File::Basename qw(dirname);

my $dir = dirname($0);
my $mm = "$dir/../build-guest/linux/tools/testing/selftests/mm";
my $t = 0;
my $failed = 0;

sub ok {
	my ($cond, $name, @diag) = @_;
	$t++;
	$failed++ unless $cond;
	print(($cond ? 'ok' : 'not ok') . " $t - $name\n");
	print map { "# $_\n" } @diag unless $cond;
}

# The programs guest.mk puts in the initramfs: the tests of
# GUEST_ALL_TESTS, or with $var the benchmarks of GUEST_BENCH_PROGS.
sub guest_tests {
	my ($var) = @_;
	$var //= 'GUEST_ALL_TESTS';
	open(my $fh, '<', "$dir/guest.mk") or die "$dir/guest.mk: $!";
	my $text = do { local $/; <$fh> };
	close($fh);
	$text =~ s/\\\n/ /g;
	$text =~ /^$var\s*:=\s*(.*)$/m or return ();
	return split ' ', $1;
}

# Names a selftest's source defines, for the option that selects by them.
sub subtests {
	my ($test) = @_;
	my ($file, $re) = $test eq 'uffd-unit-tests' ?
		('uffd-unit-tests.c', qr/\.name\s*=\s*"([^"]+)"/) :
		$test eq 'migration' ?
		('migration.c', qr/TEST_F(?:_TIMEOUT)?\(migration,\s*(\w+)/) :
		$test eq 'khugepaged' ?
		('khugepaged.c',
		 qr/^static void (\w+)\(struct collapse_context \*c/m) :
		return;
	open(my $fh, '<', "$mm/$file") or return;
	my $src = do { local $/; <$fh> };
	close($fh);
	return [ $src =~ /$re/g ];
}

# Returns "FILE:LINE: what is wrong" for each bad line of the table.
sub check_table {
	my ($path, $known, $list) = @_;
	$list //= 'GUEST_ALL_TESTS';
	my @bad;
	open(my $fh, '<', $path) or return ("$path:1: cannot read: $!");
	while (my $line = <$fh>) {
		next if $line =~ /^\s*(#|$)/;
		my ($test, $limit, @args) = split ' ', $line;
		my $at = "$path:$.";
		if (!$known->{$test}) {
			push @bad, "$at: $test is not in $list";
			next;
		}
		my $racy;
		($limit, $racy) = ($1, $2)
			if defined $limit && $limit =~ /^([^:]*):(.*)$/;
		if (!defined $limit || $limit !~ /^[1-9]\d*$/) {
			push @bad, "$at: time limit '" . ($limit // '') .
				   "' is not a number of seconds";
			next;
		}
		if (defined $racy && $racy !~ /^\w+(,\w+)*$/) {
			push @bad, "$at: racy cases '$racy' are not a " .
				   "comma-separated list of case names";
			next;
		}
		my $names = subtests($test);
		if (defined $racy && $names) {
			for my $c (split /,/, $racy) {
				push @bad, "$at: $test has no case '$c'"
					unless grep { $_ eq $c } @$names;
			}
		}
		next unless $names;
		for (my $i = 0; $i < @args; $i++) {
			next unless $args[$i] =~ /^-[ft]$/;
			my $want = $args[$i + 1] // '';
			my $hit = $test eq 'uffd-unit-tests' ?
				grep({ index($_, $want) >= 0 } @$names) :
				grep({ $_ eq $want } @$names);
			push @bad, "$at: $test $args[$i] '$want' selects nothing"
				unless $hit && $want ne '';
		}
	}
	close($fh);
	return @bad;
}

my %known = map { $_ => 1 } guest_tests();
ok(scalar(keys %known) > 0, 'guest.mk names the initramfs tests');

my @bad = check_table("$dir/selftests.tab", \%known);
ok(!@bad, 'selftests.tab: every line names a guest test and a limit', @bad);

# The benchmarks' tables: every line a benchmark of the initramfs, and
# the smoke run's table has every benchmark, so that make check proves
# each one runs.
my @bench = guest_tests('GUEST_BENCH_PROGS');
my %bench = map { $_ => 1 } @bench;
ok(@bench > 0, 'guest.mk names the benchmarks');
for my $tab (qw(bench.tab bench-smoke.tab)) {
	@bad = check_table("$dir/$tab", \%bench, 'GUEST_BENCH_PROGS');
	ok(!@bad, "$tab: every line names a benchmark and a limit", @bad);
}
open(my $sfh, '<', "$dir/bench-smoke.tab") or die "bench-smoke.tab: $!";
my %smoked = map { /^(\S+)/ ? ($1 => 1) : () } grep { !/^\s*(#|$)/ } <$sfh>;
close($sfh);
my @unsmoked = grep { !$smoked{$_} } @bench;
ok(!@unsmoked, 'bench-smoke.tab runs every benchmark',
   map { "not in bench-smoke.tab: $_" } @unsmoked);

my $tree = -r "$mm/uffd-unit-tests.c";
my $tmp = tempdir(CLEANUP => 1);
my @cases = (
	[ "no-such-test\t60\n", qr/not in GUEST_ALL_TESTS/,
	  'a test the initramfs lacks' ],
	[ "migration\tsoon\n", qr/not a number/, 'a limit that is no number' ],
	[ "migration\n", qr/not a number/, 'a line with no limit' ],
	[ "khugepaged\t60:\tall:anon\n", qr/not a comma-separated/,
	  'a colon with no racy case after it' ],
	[ "khugepaged\tsoon:collapse_full\n", qr/not a number/,
	  'racy cases after a limit that is no number' ],
);
push @cases, [ "uffd-unit-tests\t60\t-f no-such-subtest\n",
	       qr/selects nothing/, 'a uffd filter that matches nothing' ],
	     [ "migration\t60\t-t private\n", qr/selects nothing/,
	       'a harness test name that is only a prefix' ],
	     [ "khugepaged\t60:collapse_max_ptes\tall:anon\n",
	       qr/has no case 'collapse_max_ptes'/,
	       'a racy case the selftest does not have' ] if $tree;
for my $c (@cases) {
	my ($text, $want, $name) = @$c;
	my $f = "$tmp/tab$t";
	open(my $fh, '>', $f) or die "$f: $!";
	print $fh "# a comment line\n\n$text";
	close($fh);
	my @got = check_table($f, \%known);
	ok(@got == 1 && $got[0] =~ /^\Q$f\E:3: / && $got[0] =~ $want,
	   "rejected: $name", @got);
}
print "# kernel tree not extracted: subtest names not checked\n" unless $tree;
print "1..$t\n";
exit($failed ? 1 : 0);
