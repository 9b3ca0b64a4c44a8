#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Usage: copy-elf.sh DIR PROGRAM[:NAME]...
# Copies each dynamically linked PROGRAM of this machine into DIR, as
# NAME if given (redis-server is redis-tools' redis-check-rdb, which
# tells which to be by its name), and every library they load, with the
# dynamic loader, into DIR/lib: the guest runs them as
# DIR/lib/ld-linux-x86-64.so.2 --library-path DIR/lib DIR/NAME.
set -eu
dir=$1
shift
mkdir -p "$dir/lib"
for arg in "$@"; do
	prog=${arg%%:*}
	name=${arg#*:}
	path=$(command -v "$prog") || {
		echo "guest: $prog not found (run make guest-deps)" >&2
		exit 1
	}
	cp -L "$path" "$dir/$(basename "$name")"
	ldd "$path" | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' |
	while read -r soname lib; do
		cp -L "$lib" "$dir/lib/$soname"
	done
	loader=$(ldd "$path" | awk '$1 ~ /^\/.*ld-linux/ { print $1 }')
	if [ -z "$loader" ]; then
		echo "guest: $prog: no dynamic loader in ldd's output" >&2
		exit 1
	fi
	cp -L "$loader" "$dir/lib/"
done
