# SPDX-License-Identifier: GPL-2.0
# How the guest's init runs one test and reports it, sourced by init.sh
# (as /bin/runner.sh) and by guest/runner.t on the host, which runs it on
# fake tests. run_test TEST runs TEST from the current directory once per
# line of its table and prints what it said as GUEST-DIAG lines, its
# benchmark figures as GUEST-BENCH lines, and one GUEST-TAP result line.
# Environment: TAB (the table: selftests.tab unless set), TMO (the limit
# of a test the table has no line for: 600 s unless set), STORM_SECS,
# GUEST_OUT (where each test's output goes: /tmp unless set).
GUEST_OUT=${GUEST_OUT:-/tmp}

result() {
	# $1: 0 for ok; $2: the test's name; $3: an optional directive
	if [ "$1" = 0 ]; then
		echo "GUEST-TAP ok - $2${3:+ # $3}"
	else
		echo "GUEST-TAP not ok - $2${3:+ # $3}"
	fi
}

# The runs of test $1, one "LIMIT [ARGUMENT...]" line each: its lines in
# selftests.tab (the file says why each is there), or in the table TAB
# names (bench.tab, bench-smoke.tab: the benchmarks' parameters), or else
# one run with no argument under TMO.
runs_of() {
	r=$(sed -n "s/^$1[[:space:]][[:space:]]*//p" "${TAB:-selftests.tab}" 2> /dev/null)
	echo "${r:-${TMO:-600}}"
}

# The names of the TAP cases that failed in $GUEST_OUT/$1.out, one per line.
failed_cases() {
	sed -n 's/^not ok [0-9][0-9]* \([^ #]*\).*/\1/p' "$GUEST_OUT/$1.out"
}

# Whether every case that failed in $GUEST_OUT/$1.out is one of $2 (comma
# separated), so that the run may be repeated once (selftests.tab says
# which races of the selftests themselves earn this, and why).
only_racy_failed() {
	f=$(failed_cases "$1")
	[ -n "$f" ] || return 1
	for c in $f; do
		case ",$2," in
		*",$c,"*) ;;
		*)	return 1 ;;
		esac
	done
}

# Runs test $1 once with arguments $3... under limit $2, prints what it
# said and sets rc.
run_once() {
	t=$1
	tmo=$2
	shift 2
	s=$(cut -d' ' -f1 /proc/uptime)
	timeout "$tmo" "./$t" "$@" < /dev/null > "$GUEST_OUT/$t.out" 2>&1
	rc=$?
	e=$(cut -d' ' -f1 /proc/uptime)
	echo "GUEST-DIAG $t${1:+ $*}: rc=$rc, $s..$e s guest uptime (limit $tmo s)"
	grep -E '^# Totals|^not ok|^ok .*folio_refs back|^Testing |Userfaults unit tests|^# (storm|mutate|idle|migrate|pageout|compact|bulk|walks_compared|parent|child|remaps|corpus|generations|forkrace|scanrace|forkfail|zapfork|backlog|hwpoison)' \
		"$GUEST_OUT/$t.out" | grep -v '^# corpus: [0-9]' | head -40 |
		sed "s/^/GUEST-DIAG $t: /"
	# a summary comes last and must survive the cut above
	grep '^# corpus: [0-9]' "$GUEST_OUT/$t.out" | sed "s/^/GUEST-DIAG $t: /"
	# a benchmark's figures (guest/bench.h), every one
	sed -n 's/^bench: /GUEST-BENCH /p' "$GUEST_OUT/$t.out"
	case $rc in
	0|4)	;;
	# the tail, then what led to each failed case (a TAP suite goes
	# on after it, so the tail alone rarely shows it), last so that a
	# console cut short keeps it
	*)	tail -30 "$GUEST_OUT/$t.out" | sed "s/^/GUEST-DIAG $t: /"
		grep -B15 '^not ok' "$GUEST_OUT/$t.out" | head -80 |
			sed "s/^/GUEST-DIAG $t: failed case: /" ;;
	esac
}

# Every run of test $1 (runs_of), and its result line. A run in which
# only cases its table line names as racy failed runs again, up to
# RACY_RUNS runs in all, and the first that passes, or the last, decides:
# khugepaged's collapse_max_ptes_swap failed in two runs in a row on
# 7 December 2026, in a CI run whose host was not loaded.
RACY_RUNS=${RACY_RUNS:-5}
run_test() {
	t=$1
	n=0
	fails=0
	skips=0
	reruns=
	passed_on=
	while read -r tmo args; do
		n=$((n + 1))
		# LIMIT:CASE,...: those cases of the selftest race with
		# the kernel's own threads; selftests.tab says why
		racy=
		case $tmo in
		*:*)	racy=${tmo#*:}
			tmo=${tmo%%:*} ;;
		esac
		[ "$t" = cowctx-storm ] && tmo=$((tmo + ${STORM_SECS:-30}))
		# The table's arguments are split into words, never globbed.
		set -f
		# shellcheck disable=SC2086
		run_once "$t" "$tmo" $args
		# a failure the test reported (not a kill at the limit)
		runs=1
		while [ "$rc" = 1 ] && [ -n "$racy" ] &&
		      [ "$runs" -lt "$RACY_RUNS" ] &&
		      only_racy_failed "$t" "$racy"; do
			f=$(failed_cases "$t" | tr '\n' ' ')
			runs=$((runs + 1))
			echo "GUEST-DIAG $t: run again ($runs of at most $RACY_RUNS): only ${f% } failed, which its table says may race"
			for c in $f; do
				case " $reruns " in
				*" $c "*) ;;
				*)	reruns="$reruns $c" ;;
				esac
			done
			# shellcheck disable=SC2086
			run_once "$t" "$tmo" $args
		done
		[ "$runs" -gt 1 ] && [ "$rc" = 0 ] && passed_on=$runs
		set +f
		case $rc in
		0)	;;
		# kselftest's KSFT_SKIP: the test decided it cannot run here.
		4)	skips=$((skips + 1))
			skip=$(grep -m1 -i skip "$GUEST_OUT/$t.out") ;;
		*)	fails=$((fails + 1)) ;;
		esac
	done <<-EOF
	$(runs_of "$t")
	EOF
	if [ "$fails" -gt 0 ]; then
		result 1 "$t" "$fails of $n runs failed"
	elif [ -n "$reruns" ]; then
		result 0 "$t" "passed on run $passed_on after${reruns} failed"
	elif [ "$skips" = "$n" ]; then
		result 0 "$t" "SKIP $skip"
	else
		result 0 "$t"
	fi
}
