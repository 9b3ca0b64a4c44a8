#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make deps: find what the build and the tests need by trying it (the
# compiler, the headers and libraries by compiling against them, the
# commands by looking them up), not by asking a package manager, so a
# machine without dpkg that has everything passes. Only when something
# is missing is apt-get used, and only where it exists and we are root;
# otherwise the missing pieces are named and, if the build needs them,
# the step fails.
#
#   tools/deps.sh CC
#
# valgrind (instruction counts) and gnuplot (plots) are optional: the
# bench says what it leaves out without them.

set -u

cc=${1:?usage: $0 CC}
# the Debian package that provides this compiler: gcc, clang, gcc-14...
cc_name=$(basename "${cc##* }")
case $cc_name in
gcc* | clang*) cc_pkg=$cc_name ;;
cc) cc_pkg=gcc ;;
*) cc_pkg= ;;
esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cowctx-deps.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

need=		# Debian packages the build cannot do without
want=		# Debian packages that only improve the bench
unknown=	# missing, with no package we know of

# try_build NAME HEADER [LIBS]: does $cc compile and link against HEADER?
try_build()
{
	printf '#include <%s>\nint main(void) { return 0; }\n' "$2" \
		>"$tmp/$1.c"
	# shellcheck disable=SC2086 # $cc may be "ccache gcc", $3 a list
	$cc -o "$tmp/$1" "$tmp/$1.c" ${3:-} >/dev/null 2>&1
}

if ! command -v "${cc%% *}" >/dev/null 2>&1; then
	if [ -n "$cc_pkg" ]; then
		need="$need $cc_pkg"
	else
		unknown="$unknown $cc"
	fi
	# without a compiler the headers cannot be tried: ask for them too
	need="$need libc6-dev liburcu-dev"
else
	try_build libc stdio.h || need="$need libc6-dev"
	try_build urcu urcu.h "-lurcu" || need="$need liburcu-dev"
fi
command -v prove >/dev/null 2>&1 && perl -MJSON::PP -e 1 2>/dev/null ||
	need="$need perl"
command -v valgrind >/dev/null 2>&1 || want="$want valgrind"
command -v gnuplot >/dev/null 2>&1 || want="$want gnuplot-nox"

if [ -n "$unknown" ]; then
	echo "deps: missing$unknown; install it or choose another CC" >&2
	exit 1
fi
[ -z "$need$want" ] && exit 0

if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
	echo "deps: installing$need$want"
	apt-get update -qq &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			$need $want && exit 0
	echo "deps: apt-get failed" >&2
	[ -z "$need" ] && exit 0
	exit 1
fi

how="install them"
command -v apt-get >/dev/null 2>&1 && how="run make deps as root"
if [ -n "$need" ]; then
	echo "deps: missing (Debian package names):$need$want; $how" >&2
	exit 1
fi
echo "deps: optional, not installed:$want (the bench leaves out" \
	"instruction counts or plots without them)" >&2
exit 0
