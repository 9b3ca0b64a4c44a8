#!/usr/bin/env perl
# SPDX-License-Identifier: GPL-2.0
#
# The numbers the documents quote are generated, or one dated run's: the
# targets table of bench/README.md is `cowctx bench --targets`'s output
# (bench/targets.c, names and thresholds); every verdict line a document
# quotes ("[met] ...", "[NOT met] ...") names one of those targets as the
# verdict prints it; the README's first screen quotes one run's verdict,
# dated, with its build and command, and its prose and bench/README.md's
# account of the targets missed agree with that quote; the guest's lists
# and timings are in docs/guest.md, linked.

use strict;
use warnings;
use Test::More;

my $cowctx = $ENV{COWCTX} // 'build/cowctx';

sub slurp {
	my ($path) = @_;
	open my $f, '<', $path or die "$path: $!";
	local $/;
	return <$f>;
}

my $targets = `$cowctx bench --targets`;
ok($? == 0 && $targets =~ /^\| target \| set in \|\n\|---\|---\|\n/,
   "cowctx bench --targets prints the table") or diag($targets);
my @names = map { /^\| (.*) \| [^|]* \|$/ ? $1 : () }
	    grep { !/^\| target \||^\|---/ } split /\n/, $targets;
ok(@names >= 8, scalar(@names) . " targets");

# bench/README.md's copy: the table under "## Targets", line for line
my $breadme = slurp('bench/README.md');
my ($copy) = $breadme =~ /^## Targets\n[\s\S]*?\n(\| target \| set in \|\n(?:\|.*\n)+)/m;
is($copy // '', $targets, "bench/README.md's targets table is cowctx bench --targets's");

# every quoted verdict line names a target, exactly as it is printed
my ($quoted, @bad) = (0);
for my $doc ('README.md', 'bench/README.md', glob('docs/*.md')) {
	my $n = 0;
	for (split /\n/, slurp($doc)) {
		$n++;
		next unless /^\s*\[(met|NOT met|n\/a)\]\s+(.*)$/;
		my $line = $2;
		$quoted++;
		push @bad, "$doc:$n: $line"
			unless grep { $line eq $_ || index($line, "$_: ") == 0 } @names;
	}
}
ok(!@bad, "each of $quoted verdict lines quoted in the documents names a target of bench/targets.c")
	or diag(join("\n", @bad));


# the README's first screen: what was found, from one dated run
my $readme = slurp('README.md');
my @top = (split /\n/, $readme)[0 .. 39];
my $top = join("\n", @top) . "\n";
my ($date, $build) = $top =~ /`make run` on (\d{4}-\d\d-\d\d) \((cowctx \S+\s+\(git [0-9a-f]+\))/;
ok($top =~ /^## What it found$/m && $date && $build,
   "the README's first 40 lines say what was found, from \`make run\` on a date, with its build") or
	diag($top);
my @q = grep { /^    / } split /\n/, ($top =~ /\n\n((?:    .*\n)+)/)[0] // '';
my @qv = map { /^    \[(met|NOT met)\]\s+(.*)$/ ? [$1, $2] : () } @q;
my %tname = map { $_ => 1 } @names;
sub target_of { my ($l) = @_; my @t = grep { $l eq $_ || index($l, "$_: ") == 0 } @names; return $t[0] }
ok(@qv == @names && !grep(!target_of($_->[1]), @qv) && grep(/^    corpus: /, @q) &&
   grep(/^    anon_vma against cow_context, /, @q),
   "it quotes that run's verdict whole: the corpus line, all " . scalar(@names) . " targets, the last line");
my $met = grep { $_->[0] eq 'met' } @qv;
my ($says_met, $says_of) = $top =~ /meets (\d+) of the (\d+) targets/;
ok(defined $says_met && $says_met == $met && $says_of == @qv,
   "its prose counts the targets met as the quote does ($met of " . scalar(@qv) . ")");
my ($prose) = $top =~ /## What it found\n\n(.*?)\n\n/s;
my @figs = ($prose // '') =~ /(\d+(?:\.\d+)?(?:%|x(?!\w)))/g;
my $qtext = join("\n", @q);
my @missing = grep { my $f = $_; $f ne '1%' && index($qtext, $f) < 0 } @figs;
ok(@figs && !@missing, "each figure its prose gives (@figs) is in the quote")
	or diag("not in the quote: @missing");

# bench/README.md explains exactly the targets that run did not meet
my ($why) = $breadme =~ /^### The targets the COW context misses, and why\n(.*?)\n(?:##|`--scenario`)/ms;
$why //= '';
(my $flat = $why) =~ s/\n[ \t]+/ /g;
my @bullets = $flat =~ /^- \*\*(.*?)\.\*\*/mg;
my @missed = sort map { target_of($_->[1]) } grep { $_->[0] eq 'NOT met' } @qv;
is(join("\n", sort @bullets), join("\n", @missed),
   "bench/README.md's account of the targets missed names the quoted run's " . scalar(@missed));
ok(index($flat, $date) >= 0 && index($flat, $build =~ s/\s+/ /gr) >= 0,
   "and gives that run's date and build");

# the guest's test lists and timings: docs/guest.md, linked
my $guest = -f 'docs/guest.md' ? slurp('docs/guest.md') : '';
ok($guest =~ /\| uffd-unit-tests \|/ && $guest =~ /GUEST-DIAG uptime spans/ &&
   $readme !~ /\| uffd-unit-tests \|/ && $readme =~ /\]\(docs\/guest\.md\)/ &&
   slurp('docs/README.md') =~ /\]\(guest\.md\)/,
   "the guest's test lists and timing tables are in docs/guest.md, linked from README.md and docs/README.md");

done_testing();
