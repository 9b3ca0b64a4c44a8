#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0
# parse-log must fail a guest run for each kind of report it claims to
# catch, and pass a clean one: fed small console logs, it is judged by
# its exit status and by the TAP line it prints for the report.
use strict;
use warnings;
use File::Temp qw(tempdir);
use File::Basename qw(dirname);

my $parser = dirname($0) . '/parse-log';
my $dir = tempdir(CLEANUP => 1);
my $t = 0;
my $failed = 0;

sub ok {
	my ($cond, $name) = @_;
	$t++;
	$failed++ unless $cond;
	print(($cond ? 'ok' : 'not ok') . " $t - $name\n");
}

# Runs the parser on LINES; returns (exit status, its output).
sub parse {
	my ($opt, @lines) = @_;
	my $f = "$dir/log$t";
	open(my $fh, '>', $f) or die "$f: $!";
	print $fh map { "$_\n" } @lines;
	close($fh);
	my $out = `$parser $opt $f 2>&1`;
	return ($? >> 8, $out);
}

my @clean = (
	'[    0.000000] Linux version 6.12.118',
	'GUEST-PLAN setup-numa cow',
	'GUEST-TAP ok - setup-numa # 2 nodes',
	'[    3.100000] some ordinary kernel line',
	'GUEST-TAP ok - cow',
	'GUEST-STAT walks_compared 1200',
	'GUEST-STAT mismatches 0',
	'GUEST-STAT verify_count_checked 900',
	'GUEST-STAT verify_count_mismatches 0',
	'GUEST-STAT verify_scanned 40',
	'GUEST-STAT verify_scan_mismatches 0',
	'GUEST-STAT anon_vma_id_checked 500',
	'GUEST-STAT anon_vma_id_mismatches 0',
	'GUEST-STAT mf_mismatches 0',
	'GUEST-DONE',
);
my ($rc, $out) = parse('', @clean);
ok($rc == 0, 'a clean log passes');
ok($out =~ /^1\.\.\d+$/m && $out !~ /^not ok/m, 'a clean log prints a plan and no failure');
($rc, $out) = parse('--shadow', @clean);
ok($rc == 0, 'a clean log with shadow counters passes --shadow');

my %report = (
	'WARN' => '[   12.000000] WARNING: CPU: 1 PID: 50 at mm/rmap.c:100 foo+0x1/0x2',
	'BUG or oops' => '[   12.000000] BUG: Bad page state in process cow  pfn:1234',
	'lockdep' => '[   12.000000] WARNING: possible circular locking dependency detected',
	'KASAN' => '[   12.000000] BUG: KASAN: slab-use-after-free in cow_context_walk+0x10/0x20',
	'UBSAN' => '[   12.000000] UBSAN: shift-out-of-bounds in mm/cow_context.c:10:2',
	'stall or hung task' => '[   99.000000] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:',
	'COW context shadow mismatch' => '[   12.000000] cow_context: walk mismatch for folio 0x1234',
);
for my $kind (sort keys %report) {
	my @log = @clean;
	splice(@log, 3, 0, $report{$kind});
	($rc, $out) = parse('', @log);
	ok($rc == 1, "a $kind report fails the run");
	ok($out =~ /^not ok \d+ - kernel log: no \Q$kind\E$/m, "the $kind check is the one that fails");
}

my @mismatch = ('[   12.000000] cow_context: scan mismatch: folio pfn 0x4569 index 0x7f: the walk found 2 mappings, the page tables 1',
		'[   12.000001] cow_context:   walk: mm 0000000001 vma 0000000002 address 0x7f000: 1 mapped',
		'[   12.000002] other: not part of it',
		'[   12.000003] cow_context:   page tables: mm 0000000001 vma 0000000003 address 0x7f000: 1 mapped');
($rc, $out) = parse('', @clean[0 .. 2], 'GUEST-DIAG cow: x', '[   11.000000] cow_context: not a report', @mismatch,
		    @clean[3 .. $#clean]);
ok($out =~ /^# kernel said: \S+:\d+: cow_context: scan mismatch: .*\n# kernel said: \S+:\d+: cow_context:   walk: .*\n# kernel said: \S+:\d+: cow_context:   page tables: .*\n1\.\./m,
   "a mismatch report's cow_context lines come last, whole");
ok($out !~ /not a report|not part of it/, 'and only they, from the first mismatch on');
($rc, $out) = parse('', @clean[0 .. 2], map({ $mismatch[1] } 1 .. 80), $mismatch[0], map({ $mismatch[1] } 1 .. 80),
		    @clean[3 .. $#clean]);
ok((() = $out =~ /^# kernel said:/mg) == 60, 'a report is cut at 60 lines');
($rc, $out) = parse('', @clean);
ok($out !~ /kernel said/, 'a clean log says nothing more');
($rc, $out) = parse('', grep { !/GUEST-TAP ok - cow/ } @clean);
ok($rc == 1 && $out =~ /^not ok \d+ - guest: cow$/m, 'a planned test with no result fails');
($rc, $out) = parse('', map { s/GUEST-TAP ok - cow/GUEST-TAP not ok - cow/r } @clean);
ok($rc == 1 && $out =~ /^not ok \d+ - guest: cow$/m, 'a failed guest test fails the run');
($rc, $out) = parse('', 'GUEST-DIAG cow 3: rc=1, 1..2 s', 'GUEST-DIAG cow: first: mremap failed',
		   'GUEST-DIAG setup-numa: not this one',
		   map { s/GUEST-TAP ok - cow/GUEST-TAP not ok - cow/r } @clean);
ok($out =~ /^# guest said: cow 3: rc=1, 1\.\.2 s\n# guest said: cow: first: mremap failed\n1\.\./m,
   "a failed guest test's diagnostics come last");
ok($out !~ /not this one/, 'a passed test says nothing more');
($rc, $out) = parse('', grep { !/GUEST-DONE/ } @clean);
ok($rc == 1 && $out =~ /^not ok \d+ - guest init reached its end$/m, 'a guest that never finished fails');
($rc, $out) = parse('', ());
ok($rc == 1, 'an empty log fails');
($rc, $out) = parse('--shadow', map { s/mismatches 0/mismatches 3/r } @clean);
ok($rc == 1 && $out =~ /^not ok \d+ - shadow: no mismatch$/m, 'shadow mismatches counted in debugfs fail the run');
($rc, $out) = parse('--shadow', grep { !/GUEST-STAT/ } @clean);
ok($rc == 1 && $out =~ /^not ok \d+ - shadow: walks compared: at least 1$/m, '--shadow without counters fails');
($rc, $out) = parse('--shadow --min-walks 1200', @clean);
ok($rc == 0, 'as many walks as --min-walks asks pass');
($rc, $out) = parse('--shadow --min-walks 1201', @clean);
ok($rc == 1 && $out =~ /^not ok \d+ - shadow: walks compared: at least 1201$/m, 'fewer walks than --min-walks fail');
for my $c (['verify_count_mismatches', 'verifier: no count mismatch'],
	   ['verify_scan_mismatches', 'verifier: no scan mismatch'],
	   ['anon_vma_id_mismatches', 'anon_vma ids: no mismatch'],
	   ['mf_mismatches', 'memory failure: no mismatch']) {
	my ($stat, $name) = @$c;
	($rc, $out) = parse('--shadow', map { s/$stat 0/$stat 2/r } @clean);
	ok($rc == 1 && $out =~ /^not ok \d+ - \Q$name\E$/m, "$stat above 0 fails the run");
	($rc, $out) = parse('--shadow', grep { !/$stat/ } @clean);
	ok($rc == 1 && $out =~ /^not ok \d+ - \Q$name\E$/m, "a run without $stat fails");
}
($rc, $out) = parse('--shadow', map { s/verify_count_checked 900/verify_count_checked 0/r } @clean);
ok($rc == 1 && $out =~ /^not ok \d+ - verifier: walks count-checked: at least 1$/m, 'no walk count-checked fails --shadow');
($rc, $out) = parse('--shadow', map { s/anon_vma_id_checked 500/anon_vma_id_checked 0/r } @clean);
ok($rc == 1 && $out =~ /^not ok \d+ - anon_vma ids: merge rules checked: at least 1$/m, 'no merge rule asked of anon_vma ids fails --shadow');
($rc, $out) = parse('--shadow --min-counted 900 --min-scans 40', @clean);
ok($rc == 0, 'as many checks as --min-counted and --min-scans ask pass');
($rc, $out) = parse('--shadow --min-scans 41', @clean);
ok($rc == 1 && $out =~ /^not ok \d+ - verifier: walks scan-verified: at least 41$/m, 'fewer scans than --min-scans fail');
($rc, $out) = parse('--shadow', map { s/verify_scanned 40/verify_scanned 0/r } @clean);
ok($rc == 0, 'with no --min-scans, a run that scanned nothing passes');
($rc, $out) = (system("$parser --min-walks many $dir/log0 >/dev/null 2>&1") >> 8, '');
ok($rc == 2, 'a --min-walks that is not a number is a usage error');
($rc, $out) = parse('', (map { s/^GUEST-TAP ok - cow$/WARNING: printed by a test, not the kernel/r } @clean), 'GUEST-TAP ok - cow');
ok($rc == 0, 'a WARNING from userspace (no printk timestamp) is not a kernel report');
# a printk that lands inside init's line, as seen in a CI run
my @cut = map {
	s/^GUEST-PLAN setup-numa cow$/GUEST-PLAN setup-numa[    1.701390] input: ImExPS\/2 Generic Explorer Mouse as \/devices\/platform\/i8042\/serio1\/input\/input3/r
} @clean;
splice(@cut, 2, 0, ' cow');
($rc, $out) = parse('', @cut);
ok($rc == 0 && $out !~ /ImExPS|input3/, 'a printk inside the plan line is cut out, the plan kept whole');
@cut = map {
	s/^GUEST-TAP ok - cow$/GUEST-TAP ok - c[   12.000000] WARNING: CPU: 1 PID: 50 at mm\/rmap.c:100 foo+0x1\/0x2/r
} @clean;
splice(@cut, 5, 0, 'ow');
($rc, $out) = parse('', @cut);
ok($rc == 1 && $out =~ /^ok \d+ - guest: cow$/m &&
   $out =~ /^not ok \d+ - kernel log: no WARN$/m,
   'a WARN inside a result line still fails the run, and the result is read whole');
@cut = map {
	s/^GUEST-TAP ok - cow$/GUEST-TAP ok - c[   12.000000] WARNING: CPU: 1 PID: 50 at mm\/rmap.c:100 foo+0x1\/0x2/r
} @clean;
splice(@cut, 5, 0, '[   12.000001] Modules linked in:', 'ow');
($rc, $out) = parse('', @cut);
ok($rc == 1 && $out =~ /^ok \d+ - guest: cow$/m &&
   $out =~ /^not ok \d+ - kernel log: no WARN$/m,
   'a WARN inside a result line, more kernel lines after it: still judged, the result still read whole');
# --bench: the figures, rejoined where a printk cut their line
my $fig = "$dir/figures";
my @bench = @clean;
splice(@bench, 4, 0, 'GUEST-BENCH fork.v10.us 76.5 us',
       'GUEST-BENCH rmap.idle.k8.moved 1[    3.200000] random: crng init done',
       '234.25 ns');
($rc, $out) = parse("--bench $fig", @bench);
my $written = -r $fig ? do { local (@ARGV, $/) = ($fig); <> } : '';
ok($rc == 0 && $written eq "fork.v10.us 76.5 us\nrmap.idle.k8.moved 1234.25 ns\n",
   '--bench writes every figure, a cut one rejoined');
($rc, $out) = parse("--bench $fig", @clean);
ok($rc == 1 && $out =~ /^not ok \d+ - bench: figures reported$/m,
   '--bench fails a boot that reported no figure');
($rc, $out) = parse("--bench $dir/no/such/dir/figures", @bench);
ok($rc == 2 && $out =~ m{^\Q$dir\E/no/such/dir/figures:1: cannot write}m,
   '--bench to a file it cannot write is an error (exit 2)');

($rc, $out) = (system("$parser $dir/does-not-exist >/dev/null 2>&1") >> 8, '');
ok($rc == 2, 'an unreadable log is a usage error (exit 2)');

print "1..$t\n";
exit($failed ? 1 : 0);
