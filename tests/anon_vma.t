#!/usr/bin/env perl
# SPDX-License-Identifier: GPL-2.0
#
# The anon_vma fork shapes: every tests/anon_vma/*.scn through
# "$COWCTX run --json --rmap=anon_vma", its live anon_vma and
# anon_vma_chain counts held to tests/anon_vma/shapes.txt, which records
# the counts derived from the rules and those measured on the kernel.
#
# With ANON_VMA_KERNEL=1, as root, the kernel column is measured again
# on this machine with tests/anon_vma/kmeasure.c (else skipped).

use strict;
use warnings;
use File::Basename qw(dirname);
use File::Temp qw(tempdir);
use JSON::PP;
use Test::More;

my $root = dirname(dirname(__FILE__));
$root = '.' if $root eq '';
chdir $root or die "chdir $root: $!";
my $cowctx = $ENV{COWCTX} // 'build/cowctx';
my $dir = 'tests/anon_vma';
# ok(), and the lines that say why when it fails
sub ok_or_diag {
	my ($cond, $name, @why) = @_;

	ok($cond, $name) or diag(map { "  $_" } @why);
	return $cond;
}

unless (-x $cowctx) {
	print "Bail out! cowctx binary not found: $cowctx\n";
	exit 1;
}

# file => [derived_av, derived_avc, kernel_av, kernel_avc]
my %data;
my $kernel_version = '?';
open my $fh, '<', "$dir/shapes.txt" or die "$dir/shapes.txt: $!";
while (<$fh>) {
	$kernel_version = $1 if /^# kernel-version: (\S+)/;
	next if /^\s*(#|$)/;
	my @f = split;
	die "$dir/shapes.txt:$.: want 5 fields\n" unless @f == 5;
	$data{$f[0]} = [ @f[1 .. 4] ];
}
close $fh;

sub run_json {
	my ($file) = @_;
	my $out = `'$cowctx' run --json --rmap=anon_vma '$file' 2>&1`;
	my $rc = $? >> 8;
	my $json = eval { decode_json($out) };
	return ($rc, $json, $out);
}

for my $file (sort keys %data) {
	my ($dav, $davc, $kav, $kavc) = @{ $data{$file} };
	my ($rc, $json, $out) = run_json("$dir/$file");
	my $b = $json ? $json->{backends}{anon_vma} : undef;

	unless (ok_or_diag($rc == 0 && $b && $b->{mismatches} == 0,
		   "$file: runs and agrees with the oracle",
		   "exit $rc", split /\n/, substr($out, 0, 2000))) {
		ok(0, "$file: counts") for 1 .. 2;
		next;
	}
	my ($av, $avc) = @{ $b->{objects} }{qw(anon_vma anon_vma_chain)};
	ok_or_diag($av == $dav && $avc == $davc,
	   "$file: $dav anon_vma, $davc anon_vma_chain, as derived",
	   "model: $av anon_vma, $avc anon_vma_chain");
	ok_or_diag($av == $kav && $avc == $kavc,
	   "$file: the kernel's counts ($kernel_version)",
	   "model: $av/$avc, kernel: $kav/$kavc");
	if ($file eq 'fan-n4-v3.scn') {
		my $l = $b->{locks} // {};
		my $sum = 0;
		$sum += $l->{$_}{write} for grep { /^anon_vma_root\./ } keys %$l;
		ok_or_diag($l->{'anon_vma_root'} &&
		   $l->{'anon_vma_root'}{write} == $sum &&
		   $l->{'anon_vma_root.fork'}{write} == 2 * 4 * 3 &&
		   $l->{'anon_vma_root.prepare'}{write} == 3,
		   "$file: --json locks: 3 prepares, 2 per forked VMA, sites sum to the total",
		   encode_json($l));
		ok_or_diag($b->{object_bytes} == 104 * $av + 64 * $avc &&
		   $b->{vma_field_bytes} > 0 && $b->{vma_field_bytes} % 24 == 0 &&
		   $b->{bytes} == $b->{object_bytes} + $b->{vma_field_bytes},
		   "$file: object bytes are 104 per anon_vma, 64 per AVC; bytes add 24 per VMA",
		   "bytes $b->{bytes}, objects $b->{object_bytes}, fields $b->{vma_field_bytes}");
	}
}

opendir my $dh, $dir or die "$dir: $!";
my @unrecorded = grep { /\.scn$/ && !$data{$_} } readdir $dh;
closedir $dh;
ok_or_diag(!@unrecorded, "every shape in $dir has its counts recorded",
   "unrecorded: @unrecorded");

# the generated shapes are what mkshapes.sh says they are
my $tmp = tempdir(CLEANUP => 1);
system('sh', "$dir/mkshapes.sh", $tmp) == 0 or die "mkshapes.sh failed\n";
opendir $dh, $tmp or die "$tmp: $!";
my @gen = sort grep { /\.scn$/ } readdir $dh;
closedir $dh;
my @stale = grep { system('cmp', '-s', "$tmp/$_", "$dir/$_") != 0 } @gen;
ok_or_diag(@gen >= 10 && !@stale,
   scalar(@gen) . " fan/chain shapes match mkshapes.sh's output",
   "differ: @stale");

if (($ENV{ANON_VMA_KERNEL} // '') eq '1' && $> == 0) {
	my $bin = "$tmp/kmeasure";
	my $build = ($ENV{BUILD} // 'build') . '/libcowctx.a';
	my $cc = $ENV{CC} // 'cc';
	system("$cc -std=gnu11 -O2 -D_GNU_SOURCE -Iinclude -I. -o '$bin' " .
	       "$dir/kmeasure.c '$build' -lurcu -lm") == 0
		or die "building kmeasure failed\n";
	my @files = map { "$dir/$_" } sort keys %data;
	my %k;
	for (`'$bin' @files`) {
		$k{$1} = [ $2, $3, $4, $5 ]
			if /^(\S+) (-?\d+) (-?\d+) .*leftover: (-?\d+) (-?\d+)\)/;
	}
	for my $file (sort keys %data) {
		my $m = $k{$file} // [ '?', '?', '?', '?' ];
		ok_or_diag("$m->[0] $m->[1]" eq "$data{$file}[2] $data{$file}[3]" &&
		   "$m->[2] $m->[3]" eq '0 0',
		   "$file: measured again on this kernel, all freed at exit",
		   "measured @$m, recorded $data{$file}[2] $data{$file}[3]");
	}
} else {
	# tests/kernel.t judges these shapes on the kernel through cowctx
	# kernel; kmeasure is the independent second opinion, on request
	SKIP: {
		skip "kmeasure re-measurement runs with ANON_VMA_KERNEL=1 as root; tests/kernel.t judges the shapes on the kernel", 1;
	}
}

done_testing();
