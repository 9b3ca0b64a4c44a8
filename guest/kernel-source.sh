#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Usage: kernel-source.sh PACKAGE SUITE
#
# Installs PACKAGE (linux-source-7.3) from the Debian suite SUITE
# (trixie-backports) and nothing else from it: the suite is added with
# the mirror that the machine's own apt sources use for Debian (this tree
# names no host), and pinned at priority 1 for every package but
# PACKAGE, so that no other package is ever installed or upgraded from
# it. Run as root; without apt-get or root it names what is missing and
# fails. The files it writes are named cowctx-SUITE so that they are easy
# to find and to remove.
set -eu
pkg=$1
suite=$2
name=cowctx-$suite
list=/etc/apt/sources.list.d/$name.sources
pin=/etc/apt/preferences.d/$name
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

fail() {
	echo "guest: $*" >&2
	echo "guest: the guest kernel is built from Debian's $pkg ($suite);" \
	     "install it, or run make guest-deps as root" >&2
	exit 1
}

command -v apt-get > /dev/null || fail "no apt-get to install $pkg with"
[ "$(id -u)" = 0 ] || fail "$pkg is not installed and we are not root"
[ -r "$keyring" ] || fail "no $keyring (package debian-archive-keyring)"

# The machine's Debian mirror: the first URI of a deb822 or one-line
# source that serves the main archive (not the security archive, whose
# path differs), in the order apt reads them.
mirror=$(
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] && [ "$f" != "$list" ] || continue
		sed -n 's/^URIs:[[:space:]]*//p' "$f" | tr ' ' '\n'
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -r "$f" ] || continue
		sed -n 's/^deb[[:space:]]\{1,\}\(\[[^]]*\][[:space:]]\{1,\}\)\{0,1\}\([^[:space:]]*\).*/\2/p' "$f"
	done
)
mirror=$(echo "$mirror" | grep -v -e security -e '^$' | grep '/debian/\{0,1\}$' | head -1 || true)
[ -n "$mirror" ] || fail "no Debian mirror found in /etc/apt/sources.list{,.d}"

cat > "$list" <<EOF
# Written by cowctx (guest/kernel-source.sh): $pkg only, see $pin
Types: deb
URIs: $mirror
Suites: $suite
Components: main
Signed-By: $keyring
EOF
cat > "$pin" <<EOF
# Written by cowctx (guest/kernel-source.sh): nothing from $suite but $pkg
Package: *
Pin: release n=$suite
Pin-Priority: 1

Package: $pkg
Pin: release n=$suite
Pin-Priority: 500
EOF
echo "guest: installing $pkg from $suite ($mirror)"
apt-get update -qq || fail "apt-get update failed with $suite added ($list)"
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$pkg" ||
	fail "apt-get install $pkg failed"
