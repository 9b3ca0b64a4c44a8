#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Usage: kversion.sh TREE X.Y
# Fails unless the extracted tree's top Makefile says version X.Y.Z for
# some point release Z: the series is for one stable series, and which
# point release it was applied to is recorded by guest.mk.
set -eu
tree=$1
want=$2
mk=$tree/Makefile
if [ ! -r "$mk" ]; then
	echo "$mk:1: no kernel Makefile in the extracted tree" >&2
	exit 2
fi
v=$(sed -n 's/^VERSION = //p' "$mk" | head -1)
p=$(sed -n 's/^PATCHLEVEL = //p' "$mk" | head -1)
s=$(sed -n 's/^SUBLEVEL = //p' "$mk" | head -1)
case $s in
'' | *[!0-9]*) s=unknown ;;
esac
if [ "$v.$p" != "$want" ] || [ "$s" = unknown ]; then
	echo "$mk:1: the tree is Linux $v.$p.$s; the patches are for $want.x" >&2
	exit 1
fi
