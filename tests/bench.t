#!/usr/bin/env perl
# SPDX-License-Identifier: GPL-2.0
#
# cowctx bench at the tiny sizes: the JSON's shape, and relations that
# must hold whatever the machine's speed (no timings are compared):
# exact anon_vma counts from docs/real-kernel.md's fork tables,
# walks that miss nothing and agree across backends, no leaks, phase
# figures that add up, ratios that are the quotients they claim, times
# with their quartiles, callgrind counts that repeat exactly, the
# generated workloads valid under the oracle, the report and its plots
# written (targets named with their sources, losses only where worse,
# parameters defined), per-VMA fields charged alike and kept out of the
# object counts, the COW context's walk counters, the remap tree's
# curves (steps per operation growing like log n), the verdict on one
# screen, a user's scenario on three backends in three columns, bad
# input refused.

use strict;
use warnings;
use File::Temp qw(tempdir);
use JSON::PP;
use Test::More;

my $cowctx = $ENV{COWCTX} // 'build/cowctx';
my $tmp = tempdir(CLEANUP => 1);
sub run_json {
	my ($args) = @_;
	my $out = `$cowctx bench $args 2>$tmp/stderr`;
	my $rc = $? >> 8;
	my $data = eval { decode_json($out) };
	diag("cowctx bench $args: status $rc\n", `tail -5 $tmp/stderr`)
		if $rc || !$data;
	return ($rc, $data);
}

my @required = qw(bytes peak_bytes fork_allocs fork_ns walk_ns
		  examined_per_found family_lock_objects);
my %workload_names = map { $_ => 1 } qw(zygote chain realloc jit reclaim exit
					 realzygote daemon);

# ---- the default tiny run, without curves or callgrind (fast) --------
my ($rc, $j) = run_json("--tiny --no-curves --no-callgrind --json --out $tmp/r1");
ok($rc == 0, "bench --tiny --json exits 0");
ok(ref $j eq "HASH" && ref $j->{workloads} eq "ARRAY" && scalar(@{$j->{workloads}}),
   "JSON has a non-empty workloads array") or do { done_testing(); exit 1 };

my $have_cow = $j->{backends}{cow_context} ? 1 : 0;
diag("cow_context not built: its checks are skipped") unless $have_cow;
my %seen;
my $shape_ok = 1;
for my $w (@{$j->{workloads}}) {
	$seen{$w->{name}} = 1;
	$shape_ok &&= ref $w->{params} eq 'HASH' && %{$w->{params}};
	for my $col ('anon_vma', $have_cow ? ('cow_context', 'ratio') : ()) {
		my $m = $w->{$col};
		unless (ref $m eq 'HASH') { $shape_ok = 0; next }
		for (@required) {
			$shape_ok = 0, diag("$w->{label}: $col lacks $_")
				unless exists $m->{$_};
		}
	}
	$shape_ok &&= !defined $w->{cow_context} && !defined $w->{ratio}
		unless $have_cow;
}
ok($shape_ok, "every workload has params and anon_vma" .
   ($have_cow ? ", cow_context and ratio" : "") . " with the required metrics");
ok(!grep(!$seen{$_}, keys %workload_names),
   "every workload generator is in the defaults: " . join(',', sort keys %seen));
ok(!grep(defined $_->{error}, @{$j->{workloads}}), "no workload reported an error");

my @cols = ('anon_vma', $have_cow ? 'cow_context' : ());
my ($missed, $leaks, $peak, $epf, $walks_eq, $phase_sum) = (0, 0, 0, 0, 0, 0);
for my $w (@{$j->{workloads}}) {
	for my $c (@cols) {
		my $m = $w->{$c};
		$missed++ if $m->{walk_missed} != 0;
		$leaks++ if $m->{leak_bytes} != 0;
		$peak++ if $m->{peak_bytes} < $m->{bytes};
		$epf++ if $m->{examined_per_found} < 1;
		my ($objs, $acq) = (0, 0);
		for my $ph (qw(mmap fault fork mremap mprotect munmap exit walk full_walk)) {
			$objs += $m->{"${ph}_lock_objects"};
			$acq += $m->{"${ph}_lock_acquisitions"};
		}
		$phase_sum++ if $objs != $m->{family_lock_objects} ||
				$acq != $m->{family_lock_acquisitions};
	}
	$walks_eq++ if $have_cow &&
		($w->{anon_vma}{walks} != $w->{cow_context}{walks} ||
		 $w->{anon_vma}{anon_folios} != $w->{cow_context}{anon_folios});
}
ok(!$missed, "no walk missed a mapping (walk_missed 0 everywhere)");
ok(!$leaks, "no rmap bytes left after every exit (leak_bytes 0)");
ok(!$peak, "peak_bytes >= bytes");
ok(!$epf, "examined_per_found >= 1 (the physical limit)");
ok(!$phase_sum, "per-phase lock figures add up to the family-lock totals");
ok(!$walks_eq, "backends walked the same folios") if $have_cow;

# docs/real-kernel.md, per root VMA: fan of N children N anon_vmas and 2N AVCs,
# chain of depth N N anon_vmas and N(N+3)/2 AVCs; the root's own V of each.
my ($fan, $chain, $allocs, $fields_bad) = (0, 0, 0, 0);
for my $w (@{$j->{workloads}}) {
	my $p = $w->{params};
	my $a = $w->{anon_vma};
	if ($w->{name} eq 'zygote' && !$p->{F} && $p->{P} == 1) {
		my ($v, $k) = ($p->{V}, $p->{N});
		my $want = $v * (104 * (1 + $k) + 64 * (1 + 2 * $k));
		$fan++;
		ok($a->{object_bytes} == $want, "zygote V=$v N=$k: anon_vma object bytes $a->{object_bytes} == $want (kernel's fan counts)");
		ok($a->{objects} == $v * (2 + 3 * $k), "zygote: anon_vma objects == V(2+3N)");
		# per fork: one AVC to the parent's anon_vma, one anon_vma, its AVC
		ok($a->{fork_allocs} == 3 * $v, "zygote: anon_vma allocations per fork == 3V");
		ok($a->{family_lock_acquisitions} > 0, "zygote: anon_vma takes its family lock");
	}
	if ($w->{name} eq 'chain' && !$p->{exit} && $p->{P} == 1) {
		my ($v, $d) = ($p->{V}, $p->{D});
		my $want = $v * (104 * (1 + $d) + 64 * (1 + $d * ($d + 3) / 2));
		$chain++;
		ok($a->{object_bytes} == $want, "chain V=$v D=$d: anon_vma object bytes $a->{object_bytes} == $want (kernel's chain counts)");
	}
	# per-VMA fields: the same rule for both, apart from the objects
	for my $c (@cols) {
		my $m = $w->{$c};
		my $each = $c eq 'anon_vma' ? 24 : 16;
		$fields_bad++, diag("$w->{label} $c: fields $m->{vma_field_bytes}, objects $m->{object_bytes}, bytes $m->{bytes}, $m->{vmas} VMAs")
			unless $m->{vma_field_bytes} == $each * $m->{vmas} &&
			       $m->{bytes} == $m->{object_bytes} + $m->{vma_field_bytes} &&
			       abs($m->{rmap_to_vma_bytes} * $m->{vmas} * $j->{vm_area_struct_bytes} -
				   $m->{object_bytes}) <= 1e-3 * $m->{object_bytes};
	}
	if ($have_cow) {
		my $bad = 0;
		# every ratio, times too: the quotient of the figures shown
		for my $m (keys %{$w->{ratio}}) {
			my ($c, $b, $r) = ($w->{cow_context}{$m}, $a->{$m},
					   $w->{ratio}{$m});
			next unless defined $c && defined $b && $b != 0;
			$bad++ if !defined $r || abs($r - $c / $b) > 1e-3 * abs($c / $b) + 1e-12;
		}
		$allocs += $bad;
	}
}
ok($fan && $chain, "the tiny defaults include a plain zygote and chain");
ok(!$fields_bad, "per-VMA fields: anon_vma 24 and cow_context 16 bytes a VMA, in bytes, not in object_bytes nor rmap_to_vma_bytes");
ok(!$allocs, "ratios are cow_context / anon_vma") if $have_cow;

# every time has its spread, and a per-call time lies within its quartiles
my ($spread_bad, $spread_n) = (0, 0);
for my $w (@{$j->{workloads}}) {
	for my $c (@cols) {
		for my $m (qw(fork_ns walk_ns full_walk_ns exit_ns)) {
			my $v = $w->{$c}{$m};
			next unless defined $v;
			my $q = $w->{spread}{$c}{$m};
			$spread_n++;
			$spread_bad++, diag("$w->{label} $c $m: $v outside " . ($q ? "@$q" : "nothing"))
				unless ref $q eq 'ARRAY' && $q->[0] <= $v && $v <= $q->[1];
		}
	}
}
ok($spread_n && !$spread_bad, "$spread_n per-call times, each with quartiles around it (one replay)");

# issue 9's figures: the realistic zygote and the daemon are in the set
my %by = map { $_->{name} => $_ } @{$j->{workloads}};
ok($by{realzygote} && $by{realzygote}{params}{L} >= 1 &&
   $by{realzygote}{anon_vma}{examined_per_found_full} >= 1,
   "realzygote runs and reports VMAs examined per mapping found");
ok($by{daemon} && $by{daemon}{anon_vma}{main_objects} > 0 &&
   (!$have_cow || $by{daemon}{cow_context}{main_objects} > 0),
   "daemon reports its live main rmap objects (anon_vmas, contexts)");

# the COW context's walk counters are in backend_figures; a replay runs
# no writer inside a walk, so no walk met a busy VMA or a moved folio
if ($have_cow) {
	my ($n, $bad) = (0, 0);
	for my $w (@{$j->{workloads}}) {
		my $f = $w->{backend_figures}{cow_context}{cow_context};
		$n++;
		$bad++, diag("$w->{label}: " . encode_json($f // {}))
			unless ref $f eq 'HASH' && $f->{contexts_visited} > 0 &&
			       !grep(!defined $f->{$_} || $f->{$_} != 0,
				     qw(vma_busy mm_retries root_retries));
	}
	ok($n && !$bad, "cow_context's walk counters vma_busy, mm_retries, root_retries are in backend_figures, 0 in $n replays");
}

# every walk is repeated to time it (bench/exec.c, time_one_walk()), and
# the counters put back after: the backends' own figures count each walk
# once. anon_vma takes its root lock once per walk, counted at the walk
# site and in the walk phases; a COW context walk visits each live mm
# once at most (no retries, above).
{
	my $bad = 0;
	for my $w (@{$j->{workloads}}) {
		my $bf = $w->{backend_figures};
		for my $c (@cols) {
			my $fam = $bf->{$c}{locks}{family};
			$bad++, diag("$w->{label}: $c: family locks in backend_figures differ from the phases'")
				unless $fam && $fam->{acquisitions} == $w->{$c}{family_lock_acquisitions} &&
				       $fam->{objects_touched} == $w->{$c}{family_lock_objects};
		}
		my $site = $bf->{anon_vma}{locks}{'anon_vma_root.walk'};
		my $a = $w->{anon_vma};
		$bad++, diag("$w->{label}: anon_vma's walk-site acquisitions are not its walks'")
			unless $site && $site->{read} + $site->{write} ==
				$a->{walk_lock_acquisitions} + $a->{full_walk_lock_acquisitions} &&
			       $a->{walk_lock_acquisitions} == $a->{walks};
		next unless $have_cow;
		my $f = $bf->{cow_context}{cow_context};
		my $cw = $w->{cow_context};
		$bad++, diag("$w->{label}: cow_context visited $f->{mms_visited} mms in 2 x $cw->{walks} walks of $cw->{mms}")
			unless $f->{mms_visited} <= 2 * $cw->{walks} * $cw->{mms};
	}
	ok(!$bad, "the backends' own counters count each walk once, the timing repeats left out");
}

# what the family lock figures count (report.md's "Lock scope" says it):
# anon_vma's root rwsem, and the COW context's two per-context locks
{
	my ($n, $bad) = (0, 0);
	sub acq { my ($l) = @_; return $l ? $l->{read} + $l->{write} : -1 }
	for my $w (@{$j->{workloads}}) {
		my $bf = $w->{backend_figures};
		$n++;
		$bad++, diag("$w->{label}: anon_vma's family locks are not its root rwsem's")
			unless acq($bf->{anon_vma}{locks}{anon_vma_root}) ==
			       $w->{anon_vma}{family_lock_acquisitions};
		next unless $have_cow;
		my $l = $bf->{cow_context}{locks};
		my $sum = acq($l->{'cow_context.lock'}) + acq($l->{'cow_context.remap_lock'});
		$bad++, diag("$w->{label}: cow_context's family locks $w->{cow_context}{family_lock_acquisitions}, its two locks $sum")
			unless $sum == $w->{cow_context}{family_lock_acquisitions} && $sum > 0;
	}
	ok($n && !$bad, "family_lock_acquisitions: anon_vma's root rwsem, and cow_context.lock with cow_context.remap_lock, in $n workloads");
}

# ---- callgrind: instruction counts exist and repeat exactly ----------
SKIP: {
	if (system("command -v valgrind >/dev/null 2>&1") != 0) {
		Test::More->builder->skip("valgrind not installed");
		last SKIP;
	}
	# valgrind 3.19 cannot read clang 14's DWARF 5: nothing to count then
	if (system("valgrind --tool=none -q $cowctx --help >/dev/null 2>&1") != 0) {
		Test::More->builder->skip("this valgrind cannot run $cowctx");
		last SKIP;
	}
	my @ir;
	for my $i (1, 2) {
		my ($rc2, $k) = run_json("--tiny --no-curves --json --out $tmp/cg$i zygote:V=30,N=4");
		my $x = $rc2 == 0 && $k ? $k->{workloads}[0]{anon_vma}{fork_instructions} : undef;
		push @ir, $x;
	}
	ok(defined $ir[0] && $ir[0] > 0, "callgrind counted anon_vma's fork instructions") &&
	ok($ir[0] == $ir[1], "fork_instructions are the same on a second run ($ir[0])");
}

# ---- the generated programs are valid and the backends agree with the oracle
my $scn_ok = 1;
for my $spec ('zygote:V=12,N=3,F=4', 'chain:D=4,V=6', 'chain:D=4,V=6,exit=1',
	      'realloc:N=2,B=3,G=3', 'jit:N=2,R=2,P=12,rounds=4', 'reclaim',
	      'exit:order=2', 'realzygote', 'daemon') {
	my $file = "$tmp/" . ($spec =~ tr/:=,/___/r) . ".scn";
	system("$cowctx bench --tiny --scenario $spec > $file") == 0 or do {
		$scn_ok = 0; diag("--scenario $spec failed"); next };
	my $out = `$cowctx run $file 2>&1`;
	if ($? != 0) { $scn_ok = 0; diag("cowctx run on $spec: status " . ($? >> 8) . "\n$out") }
}
ok($scn_ok, "every workload's program passes cowctx run (all backends against the oracle)");

# ---- the report, with curves and plots --------------------------------
($rc) = run_json("--tiny --json --no-callgrind --out $tmp/r2 zygote");
ok($rc == 0, "bench with curves exits 0");
my $report = do { local $/; open my $f, '<', "$tmp/r2/report.md" or die; <$f> } // '';
my $version = `$cowctx --version`;
chomp $version;
ok($report =~ /^- command: `cowctx bench /m && $report =~ /^- machine: /m &&
   $version =~ /^cowctx \S/ && $report =~ /^- build: \Q$version\E \(/m,
   "report.md starts with command, the binary's build ($version) and machine");
ok($report =~ /## Lock scope\n\nThe lock figures .* count every lock that more than one process of a fork family takes/ &&
   $report =~ /\| of which cow_context\.lock \| of which cow_context\.remap_lock \|/ &&
   $report !~ /takes no family-wide lock/,
   "report.md says the family lock figures count the COW context's locks, and shows them apart");
ok($report =~ /## Targets/ && $report =~ /## Where cow_context loses/ &&
   $report =~ /against the real kernel/ && $report =~ /Android/,
   "report.md has targets, losses and both anchors");
ok($report !~ /issue's/ && $report =~ m{docs/sources\.md} &&
   $report =~ /cowctx issue 6/ && $report =~ /cowctx issue 9/,
   "report.md names where its targets and external figures come from");
ok(scalar($report =~ /## Workloads and parameters/ && $report =~ /\*\*zygote\*\*:.* V: / &&
	  $report =~ /\*\*chain\*\*:.* D: /), "report.md defines the parameters its curves sweep");
# a loss is listed only where the figure shown is worse; one within the
# noise (quartiles overlapping, too few samples) is listed without a cause
my ($loss_rows, $loss_bad, $noise_rows, $noise_bad) = (0, 0, 0, 0);
if ($report =~ /## Where cow_context loses\n(.*?)\n## /s) {
	for (split /\n/, $1) {
		if (/^- .*?, (\w+): ([\d.e+-]+)(?: \[([\d.e+-]+)\.\.[\d.e+-]+\])? against ([\d.e+-]+)(?: \[[\d.e+-]+\.\.([\d.e+-]+)\])?, (.*)$/) {
			my ($c, $cq1, $a, $aq3, $why) = ($2, $3, $4, $5, $6);
			$noise_rows++;
			$noise_bad++, diag("within the noise but not worse, or given a cause: $_")
				unless $c >= $a && $why =~ /^(the quartiles overlap|fewer than 20 timed calls|fewer than 3 replays: no spread|no spread measured|a share of least times: no spread measured)$/;
			$noise_bad++, diag("quartiles apart, yet within the noise: $_")
				if $why eq 'the quartiles overlap' && !($cq1 <= $aq3);
			next;
		}
		# a time's quartiles follow its figure: "482 [400..632]"
		my @f = map { s/ \[.*\]$//r } split /\s*\|\s*/;
		next unless @f > 5 && $f[3] =~ /^-?[\d.e+]+$/ && $f[4] =~ /^-?[\d.e+]+$/;
		$loss_rows++;
		$loss_bad++, diag("listed but not worse: $_") unless $f[4] >= $f[3];
	}
}
ok($loss_rows + $noise_rows && !$loss_bad && !$noise_bad,
   "every one of $loss_rows rows of 'Where cow_context loses' shows a worse figure, " .
   "and each of $noise_rows within the noise too, with no cause");
ok(-s "$tmp/r2/results.json", "results.json written");
if (system("command -v gnuplot >/dev/null 2>&1") == 0) {
	my @svg = glob("$tmp/r2/*.svg");
	# the backends' curves name them; the remap tree's name its operations
	my $good = grep { my $s = do { local $/; open my $f, '<', $_; <$f> };
			  $s =~ /<svg/ && (m{/remap_[^/]*\.svg$} ? $s =~ /lookup/ : $s =~ /anon_vma/) } @svg;
	ok(@svg >= 12 && $good == @svg && grep(m{/remap_}, @svg) == 2,
	   scalar(@svg) . " SVG plots, the remap tree's 2 among them, each naming its series");
} else {
	Test::More->builder->skip("gnuplot not installed");
}

# the remap tree's curves: 4 series of n; times with their quartiles,
# and steps (a count, the same on any machine) that grow like log n
sub read_dat {
	my ($file) = @_;
	open my $f, '<', $file or return ();
	return map { [split] } grep { !/^#/ && /\S/ } <$f>;
}
my @ns = read_dat("$tmp/r2/remap_ns_vs_n.dat");
my @st = read_dat("$tmp/r2/remap_steps_vs_n.dat");
ok(@ns >= 3 && @st == @ns && !grep(@$_ != 13, @ns) && !grep(@$_ != 5, @st) &&
   !grep({ my $r = $_; grep { my $c = 1 + 3 * $_;
			      !($r->[$c + 1] <= $r->[$c] && $r->[$c] <= $r->[$c + 2]) } 0 .. 3 } @ns),
   "remap tree curves: " . scalar(@ns) . " sizes, 4 series, each time inside its quartiles")
	or diag(`cat $tmp/r2/remap_ns_vs_n.dat $tmp/r2/remap_steps_vs_n.dat`);
my ($log_bad, $grow_bad) = (0, 0);
for my $s (1 .. 4) {
	for my $i (0 .. $#st) {
		my ($n, $y) = ($st[$i][0], $st[$i][$s]);
		# a red-black tree's depth is at most 2 log2(n + 1)
		$log_bad++, diag("series $s, n=$n: $y steps") unless $y > 0 && $y <= 8 * log($n) / log(2);
		next unless $i;
		my $q = $y / $st[$i - 1][$s];
		my $lq = log($n) / log($st[$i - 1][0]);
		$grow_bad++, diag("series $s: $st[$i-1][$s] -> $y steps from n=$st[$i-1][0] to $n")
			unless $q >= 1 && $q <= 2 * $lq;
	}
}
ok(@st && !$log_bad, "remap tree: at most 8 log2(n) nodes stepped on per insert, remove and lookup");
ok(@st && !$grow_bad, "remap tree: steps grow with n, at most twice as fast as log n (n from " .
   (@st ? "$st[0][0] to $st[-1][0]" : "nothing") . ")");
ok($report =~ /### remap tree: time per operation/ && $report =~ /### remap tree: tree nodes stepped on/,
   "report.md has the remap tree's curves");

# ---- anon_vma alone: the cow_context columns say so, they do not lie ---
($rc, $j) = run_json("--tiny --no-curves --no-callgrind --json --cow none --out $tmp/r3 chain");
ok($rc == 0 && $j && !grep(defined $_->{cow_context} || defined $_->{ratio},
			   @{$j->{workloads}}) &&
   !$j->{backends}{cow_context} && @{$j->{notes}},
   "--cow none: cow_context and ratio are null, with a note");

# ---- the verdict: what make run leaves on the screen ------------------
my $verdict = `$cowctx bench --tiny --no-curves --no-callgrind --out $tmp/r4 2>/dev/null`;
my @vl = split /\n/, $verdict;
ok($? == 0 && @vl && @vl <= 15, "the verdict is " . scalar(@vl) . " lines (at most 15)");
ok(scalar(grep /^\[(met|NOT met|n\/a)\]/, @vl) == 8 && $verdict =~ /--full/,
   "the verdict gives each of the 8 targets, and where the whole table is");
# one name, one number: each figure of the verdict's headline is named by
# its metric, and report.md's headline shows the same figure under it
my $r4 = do { local $/; open my $f, '<', "$tmp/r4/report.md" or die; <$f> } // '';
my ($hl_label, $hl_figs) = $vl[0] =~ /^(.*?), cow_context against anon_vma: (.*)$/;
my ($hl_n, $hl_bad) = (0, 0);
for (split /; /, $hl_figs // '') {
	my ($m, $c, $a) = /^(\w+) (\S+(?: \[[^\]]*\])?)(?: \([^)]*\))? against (\S+(?: \[[^\]]*\])?)/
		or do { $hl_bad++; diag("verdict figure without a metric name: $_"); next };
	$hl_n++;
	my ($ra, $rc) = $r4 =~ /^\| [^|]+ \| \Q$m\E \| ([^|]+?) \| ([^|]+?) \|/m;
	$hl_bad++, diag("$m: verdict $c against $a, report.md " . ($rc // 'none') . " against " . ($ra // 'none'))
		unless defined $ra && $ra eq $a && $rc eq $c;
}
ok($hl_n >= 4 && !$hl_bad && $r4 =~ /^## Headline: \Q$hl_label\E$/m,
   "the verdict's $hl_n headline figures are report.md's headline figures under the same metric names");
my $table = `$cowctx bench --tiny --no-curves --no-callgrind --full --out $tmp/r4 chain 2>/dev/null`;
ok($table =~ /^\| workload \| metric \| anon_vma \| cow_context \| cow_context \/ anon_vma \|$/m,
   "--full prints the whole table");

# ---- a user's scenario, three backends, three columns -----------------
open my $scn, '>', "$tmp/mine.scn" or die;
print $scn "proc p\np mmap 0x100000000000 0x4000 rw\np touch 0x100000000000 0x4000 write\n",
	   "p fork c\nc touch 0x100000000000 0x1000 write\ncheck\n";
close $scn;
my @three = qw(anon_vma cow_context cow_context-noprune);
($rc, $j) = run_json("--tiny --no-callgrind --json --rmap=" . join(',', @three) .
		     " --out $tmp/r5 $tmp/mine.scn");
my $w = $j ? $j->{workloads}[0] : undef;
ok($rc == 0 && $w && $w->{path} eq "$tmp/mine.scn" && !defined $w->{error},
   "bench FILE.scn runs the user's scenario as a workload");
ok($w && join(',', @{$j->{columns}}) eq join(',', @three) &&
   !grep(ref $w->{$_} ne 'HASH', @three) &&
   join(',', sort keys %{$w->{ratios}}) eq 'cow_context,cow_context-noprune',
   "--rmap with three backends: three columns, each with its figures and its ratio to the first");
ok($w && !grep($w->{$_}{walks} != 10 || $w->{$_}{anon_folios} != 5 ||
	       $w->{$_}{walk_missed} != 0, @three),
   "each backend walked the scenario's 5 folios at its check and at the end, missing nothing");
ok($w && $w->{anon_vma}{objects} == 5 && $w->{anon_vma}{main_objects} == 2,
   "anon_vma's objects on the scenario are the kernel's (2 anon_vmas, 3 chains)");
ok($w && $w->{'cow_context-noprune'}{main_objects} == 2,
   "the third column is the third backend's (its 2 contexts)");
$table = `$cowctx bench --tiny --no-callgrind --full --rmap=@{[join(',', @three)]} --out $tmp/r5 $tmp/mine.scn 2>/dev/null`;
ok($table =~ /^\| workload \| metric \| anon_vma \| cow_context \| cow_context-noprune \| cow_context \/ anon_vma \| cow_context-noprune \/ anon_vma \|$/m,
   "the table has a column per backend, and a ratio column for each but the first");
open $scn, '>', "$tmp/bad.scn" or die;
print $scn "proc p\np mmap 0x100000000000 0x4000 rw\np munmap 0x100000008000 0x1000\np mprotect 0x100000010000 0x1000 r\n";
close $scn;
my $err = `$cowctx bench --tiny --no-callgrind --no-curves --out $tmp/r6 $tmp/bad.scn 2>&1 >/dev/null`;
ok($? >> 8 == 2 && $err =~ /^\Q$tmp\E\/bad\.scn:4: /m,
   "a statement the kernel refuses: FILE:LINE on stderr, status 2") or diag($err);

# a scenario that ends with its exits is measured at its busiest point
open $scn, '>', "$tmp/ends.scn" or die;
print $scn "proc p\np mmap 0x100000000000 0x4000 rw\np touch 0x100000000000 0x4000 write\n",
	   "p fork c\nc touch 0x100000000000 0x1000 write\ncheck\nc exit\np exit\n";
close $scn;
($rc, $j) = run_json("--tiny --no-callgrind --json --out $tmp/r8 $tmp/ends.scn");
$w = $j ? $j->{workloads}[0] : undef;
# after the check (line 6), the last with the fork's objects live: 2
# anon_vmas and 3 chains, 2 VMAs at 24 B; 2 contexts, 2 VMAs at 16 B
ok($rc == 0 && $w && $w->{snapshot_line} == 6 &&
   $w->{anon_vma}{bytes} == 2 * 104 + 3 * 64 + 2 * 24 &&
   $w->{cow_context}{bytes} == 2 * 128 + 2 * 16 && $w->{anon_vma}{mms} == 2,
   "a scenario ending with exits: measured after line 6, its busiest point, not at its empty end");
$verdict = `$cowctx bench --tiny --no-callgrind --out $tmp/r8 $tmp/ends.scn 2>/dev/null`;
my $r8 = do { local $/; open my $f, '<', "$tmp/r8/report.md" or die; <$f> } // '';
ok($verdict =~ /^\Q$tmp\E\/ends\.scn: measured after line 6, its busiest point/m &&
   $r8 =~ /^- \Q$tmp\E\/ends\.scn: measured after line 6, its busiest point/m,
   "the verdict and report.md say where it was measured");

# ---- bad input --------------------------------------------------------
system("$cowctx bench --tiny nosuchworkload >/dev/null 2>&1");
ok($? >> 8 == 2, "an unknown workload is refused with status 2");
system("$cowctx bench --tiny zygote:V=0 >/dev/null 2>&1");
ok($? >> 8 == 2, "a parameter out of range is refused with status 2");
system("$cowctx bench --tiny zygote:Q=1 >/dev/null 2>&1");
ok($? >> 8 == 2, "an unknown parameter is refused with status 2");
system("$cowctx bench --tiny --cow nosuchbackend >/dev/null 2>&1");
ok($? >> 8 == 2, "an unknown --cow backend is refused with status 2");
system("$cowctx bench --tiny --rmap=anon_vma,nosuch chain >/dev/null 2>&1");
ok($? >> 8 == 2, "an unknown --rmap backend is refused with status 2");
system("$cowctx bench --tiny --rmap=anon_vma,anon_vma chain >/dev/null 2>&1");
ok($? >> 8 == 2, "a backend listed twice is refused with status 2");

done_testing();
