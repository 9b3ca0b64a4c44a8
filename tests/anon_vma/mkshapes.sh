#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Write the fan and chain fork shapes of docs/real-kernel.md as
# scenarios: a root with V one-page anonymous VMAs, one-page holes
# between them (so no neighbour shares an anon_vma), each written once,
# then forks: N children of the root (fan) or a line of N descendants
# (chain), all alive at the end.
#
#   tests/anon_vma/mkshapes.sh DIR   writes DIR/fan-nN-vV.scn, DIR/chain-nN-vV.scn

set -eu
dir=${1:-$(dirname "$0")}

base=$((0x100000000000))

prologue() {	# V
	echo "proc R"
	i=0
	while [ "$i" -lt "$1" ]; do
		printf 'R mmap 0x%x 4K rw\n' $((base + i * 0x2000))
		i=$((i + 1))
	done
	i=0
	while [ "$i" -lt "$1" ]; do
		printf 'R touch 0x%x 4K write\n' $((base + i * 0x2000))
		i=$((i + 1))
	done
}

fan() {		# N V
	{
		echo "# SPDX-License-Identifier: GPL-2.0"
		echo "# fan: a root with $2 gap-separated written one-page VMAs forks $1 children"
		prologue "$2"
		i=1
		while [ "$i" -le "$1" ]; do
			echo "R fork c$i"
			i=$((i + 1))
		done
		echo "check"
	} > "$dir/fan-n$1-v$2.scn"
}

chain() {	# N V
	{
		echo "# SPDX-License-Identifier: GPL-2.0"
		echo "# chain: root -> c1 -> ... -> c$1, $2 gap-separated written one-page VMAs"
		prologue "$2"
		echo "R fork c1"
		i=1
		while [ "$i" -lt "$1" ]; do
			echo "c$i fork c$((i + 1))"
			i=$((i + 1))
		done
		echo "check"
	} > "$dir/chain-n$1-v$2.scn"
}

for nv in "1 1" "4 1" "4 3" "8 5" "16 10"; do
	fan $nv
done
for nv in "1 1" "3 1" "5 2" "8 3" "12 1"; do
	chain $nv
done
