#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Usage: mkconfig.sh TREE OBJ FRAGMENT...
# Writes OBJ/.config: tinyconfig, the fragments merged in order, then
# olddefconfig. Fails naming the fragment line whose option did not come
# out as written (a missing dependency, or a name the kernel lacks). The
# result is built in OBJ.new and copied over OBJ/.config only if it differs.
set -eu
tree=$1
obj=$2
shift 2
scratch=$obj.cfg
kmake() {
	MAKEFLAGS= MAKELEVEL= make -s -C "$tree" O="$(realpath "$scratch")" "$@"
}

mkdir -p "$scratch" "$obj"
kmake tinyconfig > "$scratch/.log" 2>&1 || { cat "$scratch/.log" >&2; exit 1; }
"$tree/scripts/kconfig/merge_config.sh" -m -O "$scratch" "$scratch/.config" "$@" \
	> "$scratch/.log" 2>&1 || { cat "$scratch/.log" >&2; exit 1; }
kmake olddefconfig > "$scratch/.log" 2>&1 || { cat "$scratch/.log" >&2; exit 1; }

bad=0
for frag in "$@"; do
	n=0
	while IFS= read -r line; do
		n=$((n + 1))
		case $line in
		CONFIG_*=n)
			opt=${line%=n}
			if grep -q "^$opt=" "$scratch/.config"; then
				echo "$frag:$n: $line requested, got $(grep "^$opt=" "$scratch/.config")" >&2
				bad=1
			fi
			;;
		CONFIG_*=*)
			if ! grep -qx "$line" "$scratch/.config"; then
				opt=${line%%=*}
				got=$(grep "^$opt=" "$scratch/.config" || echo "$opt unset")
				echo "$frag:$n: $line requested, got $got" >&2
				bad=1
			fi
			;;
		esac
	done < "$frag"
done
[ $bad = 0 ] || exit 1

if ! cmp -s "$scratch/.config" "$obj/.config"; then
	cp "$scratch/.config" "$obj/.config"
	echo "guest: $obj/.config updated"
fi
