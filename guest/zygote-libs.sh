#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Usage: zygote-libs.sh DIR
# The real shared libraries that cowctx-bench-zygote (workload 1 of
# docs/kernel-results.md) dlopen()s, copied from this machine into
# DIR/lib under their sonames, with the dynamic loader and libc the
# zygote itself runs on; DIR/libs.list names them, one a line, in load
# order. They are every library that qemu-system-x86_64 loads, and the
# libraries of gnuplot-nox's line editing, Lua and image output with
# what those load: both programs come with make's guest-deps, so that a
# fresh machine finds the same set. Fails unless at least 50 are found.
set -eu
dir=$1
min=50
seeds="/usr/bin/qemu-system-x86_64"
for soname in libedit.so.2 liblua5.4.so.0 libfreetype.so.6 \
	      libfontconfig.so.1 libtiff.so.6 libjpeg.so.62 libXpm.so.4 \
	      libX11.so.6; do
	path=$(/sbin/ldconfig -p | awk -v n="$soname" '$1 == n { print $NF; exit }')
	if [ -z "$path" ]; then
		echo "guest: $soname not found (gnuplot-nox installs it)" >&2
		exit 1
	fi
	seeds="$seeds $path"
done
for f in $seeds; do
	if [ ! -e "$f" ]; then
		echo "guest: $f not found (run make guest-deps)" >&2
		exit 1
	fi
done

rm -rf "$dir"
mkdir -p "$dir/lib"
# "soname => path (address)" for every library the seeds load; the seeds
# that are libraries themselves too. The loader's line has no "=>".
for f in $seeds; do
	ldd "$f"
	case $f in
	*.so*) echo "	$(basename "$f") => $f (0)" ;;
	esac
done | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' | sort -u > "$dir/found"
loader=$(ldd /usr/bin/qemu-system-x86_64 | awk '$1 ~ /^\/.*ld-linux/ { print $1 }')
if [ -z "$loader" ]; then
	echo "guest: no dynamic loader in ldd's output" >&2
	exit 1
fi
cp -L "$loader" "$dir/lib/"
while read -r soname path; do
	cp -L "$path" "$dir/lib/$soname"
done < "$dir/found"
# libc is the zygote's own, loaded before main(): not in the list
awk '$1 != "libc.so.6" { print $1 }' "$dir/found" > "$dir/libs.list"
rm "$dir/found"
n=$(wc -l < "$dir/libs.list")
if [ "$n" -lt "$min" ]; then
	echo "guest: $n libraries for the zygote, fewer than $min" >&2
	exit 1
fi
echo "guest: $n libraries for the zygote, $(du -sh "$dir" | cut -f1)"
