#!/usr/bin/env perl
# SPDX-License-Identifier: GPL-2.0
#
# The numbers the documents quote are generated, or one dated run's: the
# targets table of bench/README.md is `cowctx bench --targets`'s output
# (bench/targets.c, names and thresholds).

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

done_testing();
