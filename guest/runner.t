#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# guest/runner.sh, which init uses to run each guest test, run here on
# fake tests: a pass, a skip, a failure, a timeout, the one rerun a racy
# case earns (and no more, and only for the cases its table line names),
# and the benchmark figures it must pass on.
set -u
. "$(dirname "$0")/../tests/lib/tap.sh"
runner=$(cd "$(dirname "$0")" && pwd)/runner.sh
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
mkdir out

# one test, with what the runner printed as its diagnostics on failure
check() {
	ok "$1" "$2" || printf '%s\n' "$3" | sed 's/^/#   /'
}

# A fake TAP test: fails case racy_one on its first $FAILS runs (the count
# kept in ./runs.NAME), fails case $OTHER too if set, exits $RC if set.
fake() {
	cat > "$1" <<-'FAKE'
	#!/bin/sh
	f=./runs.$(basename "$0")
	n=$(( $(cat "$f" 2> /dev/null || echo 0) + 1 ))
	echo "$n" > "$f"
	echo "ok 1 steady"
	[ -n "${RC:-}" ] && { echo "# exiting $RC"; exit "$RC"; }
	echo "bench: fake.key $n.5 us"
	[ "$n" -le "${FAILS:-0}" ] && echo "not ok 2 racy_one" && bad=1
	[ -n "${OTHER:-}" ] && echo "not ok 3 $OTHER" && bad=1
	exit ${bad:-0}
	FAKE
	chmod +x "$1"
	rm -f "runs.$1"
}

# run_test NAME under table TABLE ($2), in a subshell; prints its output
run() {
	printf '%s\n' "$2" > tab
	# shellcheck disable=SC1090,SC2034 # runner.sh reads them
	(TAB=tab GUEST_OUT=out TMO=${TMO:-60} && . "$runner" && run_test "$1") 2>&1
}

fake t1
o=$(run t1 "t1	60")
echo "$o" | grep -qx 'GUEST-TAP ok - t1'
check $? 'a test that passes is ok' "$o"
echo "$o" | grep -qx 'GUEST-BENCH fake.key 1.5 us'
check $? 'its benchmark figure is passed on as GUEST-BENCH' "$o"

fake t2
o=$(FAILS=1 run t2 "t2	60:racy_one,racy_two	-x")
echo "$o" | grep -q 'run again (2 of at most 5): only racy_one failed' &&
	echo "$o" | grep -qx 'GUEST-TAP ok - t2 # passed on run 2 after racy_one failed' &&
	[ "$(cat runs.t2)" = 2 ]
check $? 'only a racy case failed: run again, and the second run passes it' "$o"

fake t3
o=$(FAILS=5 run t3 "t3	60:racy_one")
echo "$o" | grep -qx 'GUEST-TAP not ok - t3 # 1 of 1 runs failed' &&
	[ "$(cat runs.t3)" = 5 ]
check $? 'the racy case fails in every run: not ok after 5 runs, no sixth' "$o"

fake t3b
o=$(FAILS=3 run t3b "t3b	60:racy_one")
echo "$o" | grep -qx 'GUEST-TAP ok - t3b # passed on run 4 after racy_one failed' &&
	[ "$(cat runs.t3b)" = 4 ]
check $? 'the racy case fails three times: the fourth run passes it' "$o"

fake t4
o=$(FAILS=1 OTHER=steady_two run t4 "t4	60:racy_one")
echo "$o" | grep -qx 'GUEST-TAP not ok - t4 # 1 of 1 runs failed' &&
	[ "$(cat runs.t4)" = 1 ] && ! echo "$o" | grep -q 'run again'
check $? 'a case the line does not name failed too: no second run' "$o"

fake t5
o=$(FAILS=1 run t5 "t5	60")
echo "$o" | grep -qx 'GUEST-TAP not ok - t5 # 1 of 1 runs failed' &&
	[ "$(cat runs.t5)" = 1 ]
check $? 'a line naming no racy case: a failure stands' "$o"
last_diag=$(echo "$o" | grep '^GUEST-DIAG' | tail -1)
echo "$o" | grep -q 'GUEST-DIAG t5: failed case: not ok 2 racy_one' &&
	[ "$last_diag" = 'GUEST-DIAG t5: failed case: not ok 2 racy_one' ]
check $? 'the failed case is said last, after the tail' "$o"

fake t6
o=$(RC=4 run t6 "t6	60")
echo "$o" | grep -q '^GUEST-TAP ok - t6 # SKIP'
check $? "kselftest's skip (exit 4) is a skip" "$o"

printf '#!/bin/sh\necho "not ok 1 racy_one"\nsleep 30\n' > t7
chmod +x t7
o=$(run t7 "t7	1:racy_one")
[ "$(echo "$o" | grep -c 'GUEST-DIAG t7: rc=124')" = 1 ] &&
	echo "$o" | grep -qx 'GUEST-TAP not ok - t7 # 1 of 1 runs failed'
check $? 'a run killed at its limit fails, racy case or not: no second run' "$o"

fake t8
o=$(TMO=60 run t8 "other	60")
echo "$o" | grep -qx 'GUEST-TAP ok - t8' && [ "$(cat runs.t8)" = 1 ]
check $? 'a test with no table line runs once under TMO' "$o"

fake t9
o=$(FAILS=1 run t9 "t9	60
t9	60:racy_one")
echo "$o" | grep -qx 'GUEST-TAP not ok - t9 # 1 of 2 runs failed' &&
	[ "$(cat runs.t9)" = 2 ]
check $? 'two lines: each its own run, the racy rule only where written' "$o"

tap_done
