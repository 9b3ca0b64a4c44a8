#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The build's promises: cowctx --version says the Makefile's version, each
# compiler and sanitiser gets its own build directory unless BUILD= says
# otherwise, and make deps finds what is installed by trying it, without
# dpkg, touching apt-get only for what is missing.
. "$(dirname "$0")/lib/tap.sh"
tap_setup
tap_plan 14

version=$(sed -n 's/^VERSION := //p' "$root/Makefile")
out=$("$COWCTX" --version)
rc=$?
[ $rc = 0 ] && [ -n "$version" ] && case $out in
	"cowctx $version" | "cowctx $version (git "*")") true ;;
	*) false ;;
esac
ok $? "cowctx --version prints the Makefile's VERSION ($out)"

# make check passes its variables down (MAKEFLAGS, and CC=, ASAN=1...
# in the environment); these calls must see only their own
mk() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u CC -u ASAN -u TSAN -u BUILD \
		make -s --no-print-directory -C "$root" "$@"
}

help=$(mk help)
ok $? "make help succeeds"
missing=
for word in all run check bench deps clean help CC= ASAN=1 TSAN=1 BUILD=; do
	case $help in *"$word"*) ;; *) missing="$missing $word" ;; esac
done
[ -z "$missing" ]
ok $? "make help names every target and variable${missing:+ (missing:$missing)}"

# where each variant builds: help's last line names the directory
dir_of() {
	mk help "$@" | sed -n 's/^ *Now: //p'
}
want() {	# want DIR MAKE_ARGS...
	local d=$1
	shift
	got=$(dir_of "$@")
	[ "$got" = "$d" ]
	ok $? "make $* builds in $d${got:+ (got $got)}"
}
want build
want build CC=gcc
want build-clang CC=clang
want build-asan ASAN=1
want build-clang-tsan CC=clang TSAN=1
want build-mine CC=clang ASAN=1 BUILD=build-mine

# make deps must never ask dpkg, and apt-get only when something is missing
mkdir "$tmp/bin"
for cmd in dpkg dpkg-query apt-get; do
	printf '#!/bin/sh\necho "%s $*" >> "%s/called"\nexit 1\n' \
		"$cmd" "$tmp" > "$tmp/bin/$cmd"
	chmod +x "$tmp/bin/$cmd"
done
cc=${CC:-gcc}
PATH="$tmp/bin:$PATH" "$root/tools/deps.sh" "$cc" > "$tmp/out" 2>&1
ok $? "deps passes with everything the build needs installed"
! grep -q '^dpkg' "$tmp/called" 2>/dev/null
ok $? "deps never runs dpkg"
if command -v valgrind >/dev/null && command -v gnuplot >/dev/null; then
	[ ! -e "$tmp/called" ]
	ok $? "deps runs no apt-get when nothing is missing"
else
	ok 0 "deps runs no apt-get when nothing is missing" \
		"SKIP valgrind or gnuplot not installed here"
fi

# a compiler that cannot find liburcu: deps must say so and fail
cat > "$tmp/bin/nourcu-cc" <<EOF
#!/bin/sh
for a; do case \$a in *.c) grep -q urcu "\$a" && exit 1 ;; esac; done
exec $cc "\$@"
EOF
chmod +x "$tmp/bin/nourcu-cc"
rm -f "$tmp/called"
PATH="$tmp/bin:$PATH" "$root/tools/deps.sh" nourcu-cc > "$tmp/out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q liburcu-dev "$tmp/out" "$tmp/called" 2>/dev/null
ok $? "deps finds liburcu missing by compiling against it, and fails"

rm -f "$tmp/called"
"$root/tools/deps.sh" no-such-compiler-xyz > "$tmp/out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q no-such-compiler-xyz "$tmp/out" &&
	[ ! -e "$tmp/called" ]
ok $? "deps names an unknown missing compiler and fails"
tap_done
