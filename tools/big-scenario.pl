#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0
#
# big-scenario.pl STATEMENTS [SEED]: writes to stdout a valid scenario of
# about STATEMENTS statements shaped like a recording of a build (a
# process tree that forks, "execs" and exits for ever, each address space
# holding dozens of privately mapped libraries), to time `cowctx run` on
# large files. Recordings have no `check` but one at the end, once the
# tree has exited, so neither has this: what is timed is the replay, not
# the walks.
#
# Only version 1 of the language is used, so that the file runs on any
# build: a child "execs" by unmapping its whole inherited address space
# and mapping a fresh one, which frees its anon_vmas as exec does.
# The same STATEMENTS and SEED give the same file on any machine (the
# generator is our own xorshift, not perl's rand).
use strict;
use warnings;
no warnings "portable";	# 64-bit addresses: perl is 64-bit here

my $target = shift // die "usage: big-scenario.pl STATEMENTS [SEED]\n";
my $seed = shift // 1;
die "big-scenario.pl: STATEMENTS must be a positive number\n"
	unless $target =~ /^[1-9][0-9]*$/;
die "big-scenario.pl: SEED must be a number\n" unless $seed =~ /^[0-9]+$/;

my $state = ($seed * 2654435761 + 1) & 0xffffffff;
$state ||= 1;

sub rnd
{
	my ($n) = @_;

	$state ^= ($state << 13) & 0xffffffff;
	$state ^= $state >> 17;
	$state ^= ($state << 5) & 0xffffffff;
	return $state % $n;
}

use constant {
	PAGE => 4096,
	LIB_BASE => 0x7f0000000000,
	LIB_STRIDE => 0x100000,		# each library's span, with room
	LIBS => 40,
	SLOT_BASE => 0x100000000000,
	SLOT_STRIDE => 0x100000,	# 256 pages: an mremap grows in place
	SLOTS => 64,
	STACK_TOP => 0x7ffffff00000,
	STACK_PAGES => 32,
	MAX_LIVE => 24,
	TASK_SIZE => 0x7ffffffff000,
};

my $out = 0;
my $next = 1;
my %proc;	# name => { slots => { index => pages } }

sub say_
{
	print "@_\n";
	$out++;
}

sub hex_ { sprintf("%#x", $_[0]) }

# What ld.so and the kernel's exec build: text, relro, data and bss of
# every library, then a stack; some pages of each written
sub build_layout
{
	my ($p) = @_;
	my $nlibs = LIBS / 2 + rnd(LIBS / 2);

	for my $l (0 .. $nlibs - 1) {
		my $a = LIB_BASE + $l * LIB_STRIDE;
		my $f = "lib$l.so";

		say_("$p mmap", hex_($a), hex_(16 * PAGE), "rx",
		     "file=$f:0");
		say_("$p mmap", hex_($a + 16 * PAGE), hex_(2 * PAGE), "rw",
		     "file=$f:" . hex_(16 * PAGE));
		say_("$p touch", hex_($a + 16 * PAGE), hex_(2 * PAGE),
		     "write");
		say_("$p mprotect", hex_($a + 16 * PAGE), hex_(2 * PAGE), "r");
		say_("$p mmap", hex_($a + 18 * PAGE), hex_(4 * PAGE), "rw",
		     "file=$f:" . hex_(18 * PAGE));
		say_("$p mmap", hex_($a + 22 * PAGE), hex_(2 * PAGE), "rw");
		say_("$p touch", hex_($a + 18 * PAGE), hex_(6 * PAGE),
		     "write") if rnd(2);
		say_("$p touch", hex_($a), hex_(4 * PAGE), "read") if rnd(2);
	}
	say_("$p mmap", hex_(STACK_TOP - STACK_PAGES * PAGE),
	     hex_(STACK_PAGES * PAGE), "rw");
	say_("$p touch", hex_(STACK_TOP - 4 * PAGE), hex_(4 * PAGE), "write");
	$proc{$p} = { slots => {} };
}

sub pick_live
{
	my @names = sort keys %proc;

	return $names[rnd(scalar @names)];
}

sub slot_addr { SLOT_BASE + $_[0] * SLOT_STRIDE }

# A malloc arena's life: mapped, written, grown, read, freed
sub activity
{
	my ($p) = @_;
	my $slots = $proc{$p}{slots};
	my $i = rnd(SLOTS);
	my $a = slot_addr($i);

	if (!exists $slots->{$i}) {
		my $n = 1 + rnd(16);

		say_("$p mmap", hex_($a), hex_($n * PAGE), "rw");
		say_("$p touch", hex_($a), hex_($n * PAGE), "write");
		$slots->{$i} = $n;
		return;
	}
	my $n = $slots->{$i};
	my $r = rnd(10);
	if ($r < 4) {
		my $off = rnd($n);

		say_("$p touch", hex_($a + $off * PAGE), hex_(PAGE),
		     rnd(2) ? "write" : "read");
	} elsif ($r < 6 && $n < 128) {
		say_("$p mremap", hex_($a), hex_($n * PAGE),
		     hex_(2 * $n * PAGE));
		say_("$p touch", hex_($a + $n * PAGE), hex_($n * PAGE),
		     "write");
		$slots->{$i} = 2 * $n;
	} elsif ($r < 7 && $n > 2) {
		say_("$p mprotect", hex_($a), hex_(PAGE), "r");
		say_("$p mprotect", hex_($a), hex_(PAGE), "rw");
	} else {
		say_("$p munmap", hex_($a), hex_($n * PAGE));
		delete $slots->{$i};
	}
}

print "# big-scenario.pl $target $seed: a build-like process tree\n";
my $root = "p" . $next++;
say_("proc $root");
build_layout($root);

while ($out < $target) {
	my $r = rnd(100);
	my $live = keys %proc;

	if ($r < 3 && $live < MAX_LIVE) {
		my $p = pick_live();
		my $c = "p" . $next++;

		say_("$p fork $c");
		$proc{$c} = { slots => { %{$proc{$p}{slots}} } };
		say_("$c touch", hex_(STACK_TOP - PAGE), hex_(PAGE), "write");
		if (rnd(3)) {
			# exec: what the parent left is gone
			say_("$c munmap", hex_(PAGE), hex_(TASK_SIZE - PAGE));
			build_layout($c);
		}
	} elsif ($r < 5 && $live > 1) {
		my $p = pick_live();

		next if $p eq $root;
		say_("$p exit");
		delete $proc{$p};
	} else {
		activity(pick_live());
	}
}
# as a recorded tree ends: children first, the root last
say_("$_ exit") for grep { $_ ne $root } sort keys %proc;
say_("$root exit");
say_("check");
