# SPDX-License-Identifier: GPL-2.0
# TAP for the shell tests, sourced by each tests/*.t (POSIX sh):
#
#   . "$(dirname "$0")/lib/tap.sh"
#   tap_setup		root, COWCTX made absolute, cd to root, the binary
#			checked, $tmp made and removed at exit
#   ok STATUS DESC [DIRECTIVE]
#			one test: passes when STATUS is 0 (a command's $?);
#			DIRECTIVE is e.g. "SKIP why"; returns whether it
#			passed, so "ok $? DESC || diag_file FILE" works
#   diag TEXT...	a "# " line
#   diag_file FILE [N]	FILE's first N lines (default 10) as diagnostics
#   tap_done		the plan, if none was printed, and the exit status
#   figure BACKEND PATH FILE
#			one value of `cowctx run --json` output in FILE:
#			PATH is dot-separated keys below the backend
#			(walk.vmas_examined); "missing" if absent
#   seed_test SEED OPS WHAT [OPTION...]
#			one test: `cowctx gen --seed SEED --ops OPS [OPTION...]`
#			run on every backend passes (WHAT says what that
#			proves)
#
# $tap_n is the number of the last test, $tap_failed how many failed.

tap_n=0
tap_failed=0
tap_planned=

tap_plan() {
	echo "1..$1"
	tap_planned=1
}

ok() {
	tap_n=$((tap_n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $tap_n - $2${3:+ # $3}"
	else
		echo "not ok $tap_n - $2${3:+ # $3}"
		# a TODO test may fail: a known, open problem
		case ${3-} in TODO*) ;; *) tap_failed=$((tap_failed + 1)) ;; esac
	fi
	[ "$1" = 0 ]
}

diag() {
	echo "# $*"
}

diag_file() {
	[ -s "$1" ] && head -n "${2:-10}" "$1" | sed 's/^/#   /'
	return 0
}

tap_done() {
	[ -n "$tap_planned" ] || echo "1..$tap_n"
	[ "$tap_failed" = 0 ]
	exit $?
}

figure() {
	perl -MJSON::PP -e '
		local $/; my $j = decode_json(<STDIN>);
		my ($b, $path) = @ARGV;
		my $v = $j->{backends}{$b};
		$v = $v->{$_} for split /\./, $path;
		print defined $v ? $v : "missing", "\n";
	' "$1" "$2" < "$3"
}

seed_test() {
	local seed=$1 ops=$2 what=$3

	shift 3
	if ! "$COWCTX" gen --seed "$seed" --ops "$ops" "$@" > "$tmp/s.scn" \
		2> "$tmp/err"
	then
		ok 1 "gen --seed $seed --ops $ops $* failed"
		diag_file "$tmp/err"
		return 1
	fi
	"$COWCTX" run "$tmp/s.scn" > "$tmp/out" 2>&1
	ok $? "seed $seed ($ops ops): $what" || diag_file "$tmp/out" 20
}

tap_setup() {
	root=$(cd "$(dirname "$0")/.." && pwd)
	COWCTX=${COWCTX:-$root/build/cowctx}
	# a relative binary path is relative to where we were started
	case $COWCTX in
	/*) ;;
	*/*) COWCTX=$PWD/$COWCTX ;;
	esac
	cd "$root" || exit 1
	if [ ! -x "$COWCTX" ]; then
		echo "Bail out! cowctx binary not found or not executable: $COWCTX"
		exit 1
	fi
	tmp=$(mktemp -d) || exit 1
	trap 'rm -rf "$tmp"' EXIT
}
