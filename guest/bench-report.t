#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0
# guest/bench-report, fed small figure files: medians and spreads across
# boots, ratios to the first mode, the fitted fork slope, the targets
# judged against a mode named on, the document's table replaced in place,
# and a clear error (FILE:LINE, exit 2) for each kind of bad input.
use strict;
use warnings;
use File::Temp qw(tempdir);
use File::Basename qw(dirname);

my $report = dirname($0) . '/bench-report';
my $dir = tempdir(CLEANUP => 1);
my $t = 0;
my $failed = 0;

sub ok {
	my ($cond, $name, $diag) = @_;
	$t++;
	$failed++ unless $cond;
	print(($cond ? 'ok' : 'not ok') . " $t - $name\n");
	print map { "# $_\n" } split /\n/, $diag if !$cond && defined $diag;
}

sub put {
	my ($name, @lines) = @_;
	open(my $fh, '>', "$dir/$name") or die "$dir/$name: $!";
	print $fh map { "$_\n" } @lines;
	close($fh);
	return "$dir/$name";
}

sub run {
	my $out = `$report @_ 2>&1`;
	return ($? >> 8, $out);
}

my @off = (put('boot-1-off.fig', 'fork.v10.us 100 us', 'fork.v1000.us 1100 us',
	       'cow.seq.pages_per_s 1000 pages/s', 'ksm.move.max_ns 1000 ns',
	       'slab.zygote.anon_vma 200 bytes', 'slab.zygote.anon_vma_chain 100 bytes',
	       'slab.zygote.vm_area_struct 1000 bytes'),
	   put('boot-2-off.fig', 'fork.v10.us 120 us', 'fork.v1000.us 1000 us',
	       'cow.seq.pages_per_s 1200 pages/s', 'ksm.move.max_ns 1200 ns',
	       'slab.zygote.anon_vma 200 bytes', 'slab.zygote.anon_vma_chain 300 bytes',
	       'slab.zygote.vm_area_struct 1000 bytes'),
	   put('boot-3-off.fig', 'fork.v10.us 110 us', 'fork.v1000.us 900 us',
	       'cow.seq.pages_per_s 1100 pages/s', 'ksm.move.max_ns 1100 ns',
	       'slab.zygote.anon_vma 100 bytes', 'slab.zygote.anon_vma_chain 300 bytes',
	       'slab.zygote.vm_area_struct 1000 bytes'));
my @on = (put('boot-1-on.fig', 'fork.v10.us 50 us', 'fork.v1000.us 500 us',
	      'cow.seq.pages_per_s 1000 pages/s', 'ksm.move.max_ns 100 ns',
	      'slab.zygote.anon_vma 0 bytes', 'slab.zygote.anon_vma_chain 0 bytes',
	      'slab.zygote.cow_context 10 bytes', 'slab.zygote.vm_area_struct 1000 bytes'),
	  put('boot-2-on.fig', 'fork.v10.us 70 us', 'fork.v1000.us 700 us',
	      'cow.seq.pages_per_s 900 pages/s', 'ksm.move.max_ns 90 ns'));

my ($rc, $out) = run(@off, @on);
ok($rc == 0, 'good figures: exit 0', $out);
ok(scalar($out =~ /^\| figure \| unit \| off \(n=3\) \| on \(n=2\) \| on\/off \|$/m),
   'a column per mode with its boots, and the ratio to the first', $out);
ok(scalar($out =~ /^\| fork\.v10\.us \| us \| 110 \(100-120\) \| 60 \(50-70\) \| 0\.545 \|$/m),
   'median and spread of each mode; the ratio of the medians', $out);
ok(scalar($out =~ /^\| fork\.slope\.us_per_vma \| us \| 0\.899 \| 0\.545 \| 0\.607 \|$/m),
   'the fork slope is fitted to the medians', $out);
ok(scalar($out =~ /^  met: fork at V=1,000 fork\.v1000\.us \(0\.600 <= 0\.6\)$/m &&
   $out =~ /^  NOT MET: COW throughput cow\.seq\.pages_per_s \(0\.864 >= 0\.95\)$/m),
   'targets are judged against on, met and not met', $out);
ok(scalar($out =~ /^\| slab\.zygote\.rmap_bytes \| bytes \| 400 \(300-500\) \| 10 \| 0\.025 \|$/m &&
	  $out =~ /^\| slab\.zygote\.rmap_per_vma \| ratio \| 0\.4 \(0\.3-0\.5\) \| 0\.01 \| 0\.025 \|$/m &&
	  $out =~ /^  met: reverse-map slab bytes slab\.zygote\.rmap_bytes \(0\.025 <= 0\.03\)$/m),
   'each boot\'s reverse-map bytes and their share of the VMAs\' are derived and judged', $out);
my @lk = (put('lock-1-off.fig', 'lockstat.contend.anon_vma_rwsem.contentions 40 contentions',
	       'lockstat.contend.cow_context_lock.contentions 0 contentions'),
	  put('lock-1-on.fig', 'lockstat.contend.anon_vma_rwsem.contentions 0 contentions',
	      'lockstat.contend.cow_context_lock.contentions 2 contentions',
	      'lockstat.contend.cow_context_rmap_lock.contentions 4 contentions'));
my ($lrc, $lout) = run(@lk);
ok(scalar($lrc == 0 &&
	  $lout =~ /^\| lockstat\.contend\.rmap_locks\.contentions \| contentions \| 40 \| 6 \| 0\.150 \|$/m &&
	  $lout =~ /^  NOT MET: reverse-map lock contentions lockstat\.contend\.rmap_locks\.contentions \(0\.150 <= 0\.1\)$/m),
   'the reverse maps\' lock contentions (anon_vma\'s, the COW context\'s two) are summed per boot and judged', $lout);
ok(scalar($out =~ /^  met: largest KSM page move ksm\.move\.max_ns \(0\.086 <= 0\.1\)$/m),
   'the largest KSM page move is judged at 0.1 of off', $out);

($rc, $out) = run(@off, map { my $f = $_; $f =~ s/-on\.fig$/-shadow.fig/;
			      system('cp', $_, $f); $f } @on);
ok(scalar($rc == 0 && $out =~ /judged only against a mode named on/),
   'no target is judged without a mode named on', $out);

my $doc = put('doc.md', '# Results', 'prose before', '<!-- bench-report -->',
	      'old table', '<!-- /bench-report -->', 'prose after');
($rc, $out) = run('--markdown', $doc, @off, @on);
my $text = do { local (@ARGV, $/) = ($doc); <> };
ok(scalar($rc == 0 && $text =~ /\A# Results\nprose before\n<!-- bench-report -->\n\| figure /
   && $text !~ /old table/ && $text =~ /<!-- \/bench-report -->\nprose after\n\z/),
   '--markdown replaces the table between the markers and nothing else', $text);

my @bad = (
	[ put('boot-1-x.fig', 'fork.v10.us 1 us', 'fork.v10.us'),
	  qr/boot-1-x\.fig:2: want "KEY VALUE UNIT"/, 'a line without a unit' ],
	[ put('boot-1-y.fig', 'fork.v10.us fast us'),
	  qr/boot-1-y\.fig:1: fork\.v10\.us: 'fast' is not a number/, 'a value that is no number' ],
	[ put('boot-1-z.fig', 'fork.v10.us 1 us', 'fork.v10.us 1 ms'),
	  qr/boot-1-z\.fig:2: fork\.v10\.us is in ms here, us before/, 'a key whose unit changes' ],
	[ put('figures.txt', 'fork.v10.us 1 us'),
	  qr/figures\.txt:1: not a figures file/, 'a file named with no mode' ],
	[ "$dir/boot-9-off.fig", qr/boot-9-off\.fig:1: cannot read/, 'a file that is missing' ],
);
for my $b (@bad) {
	my ($file, $want, $name) = @$b;
	($rc, $out) = run($file);
	ok(scalar($rc == 2 && $out =~ $want), "rejected with FILE:LINE, exit 2: $name", $out);
}
my $nomark = put('nomark.md', 'no markers here');
($rc, $out) = run('--markdown', $nomark, @off);
my $kept = do { local (@ARGV, $/) = ($nomark); <> };
ok(scalar($rc == 2 && $out =~ /nomark\.md:1: no <!-- bench-report -->/ &&
   $kept eq "no markers here\n"), 'a document without markers: error, unchanged', $out);
($rc, $out) = run();
ok(scalar($rc == 2 && $out =~ /^usage:/), 'no figures: usage, exit 2', $out);

print "1..$t\n";
exit($failed ? 1 : 0);
