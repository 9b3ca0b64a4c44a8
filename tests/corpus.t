#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The scenario corpus: run every tests/scenarios/**/*.scn through
# "$COWCTX run FILE" and hold it to its header.
#
#   no "# expect-error:" header   must exit 0 (every check passed)
#   "# expect-error: LINE"        must exit 2, print nothing on stdout, and
#                                 report "FILE:LINE:" on stderr, LINE exact
#   "# expect-message: TEXT"      that report must also contain TEXT (a
#                                 fixed string; several such lines: all)
#
# The same files run on the real kernel, so a scenario that fails here is
# either a model bug or a corpus bug; the diagnostics below say which file,
# what was expected and what came out.

set -u

. "$(dirname "$0")/lib/tap.sh"
tap_setup

run_limit=60
have_timeout=0
command -v timeout >/dev/null 2>&1 && have_timeout=1

mapfile -t files < <(find tests/scenarios -type f -name '*.scn' | LC_ALL=C sort)
if [ ${#files[@]} -eq 0 ]; then
	echo "Bail out! no scenarios under $root/tests/scenarios"
	exit 1
fi

tap_plan ${#files[@]}

# A failure, with what was wanted and what came out (a few lines each).
not_ok() {
	ok 1 "$1"
	shift
	local line
	for line in "$@"; do
		diag "  $line"
	done
	[ -s "$tmp/out" ] && diag "  stdout:" && diag_file "$tmp/out" 8
	[ -s "$tmp/err" ] && diag "  stderr:" && diag_file "$tmp/err" 8
}

for f in "${files[@]}"; do
	# Header: the first "expect-error" counts; every "expect-message"
	# must match.
	want_line=$(sed -n 's/^#[[:space:]]*expect-error:[[:space:]]*//p' "$f" |
		    head -n 1 | tr -d '[:space:]')
	mapfile -t want_msgs < <(sed -n \
		's/^#[[:space:]]*expect-message:[[:space:]]*//p' "$f" |
		sed 's/[[:space:]]*$//')
	has_header=0
	grep -q '^#[[:space:]]*expect-error:' "$f" && has_header=1

	: >"$tmp/out"
	: >"$tmp/err"

	if [ $has_header -eq 0 ] && [ ${#want_msgs[@]} -gt 0 ]; then
		not_ok "$f: '# expect-message:' without '# expect-error:'"
		continue
	fi
	if [ $has_header -eq 1 ]; then
		case $want_line in
		'' | *[!0-9]*)
			not_ok "$f: malformed '# expect-error:' header" \
				"got '$want_line', want a line number"
			continue
			;;
		esac
		# The line named must hold a statement, or the header has
		# drifted from the file.
		stmt=$(sed -n "${want_line}p" "$f" | sed 's/#.*//' |
		       tr -d '[:space:]')
		if [ -z "$stmt" ]; then
			not_ok "$f: '# expect-error: $want_line' names a blank or comment line"
			continue
		fi
	fi

	if [ $have_timeout -eq 1 ]; then
		timeout "$run_limit" "$COWCTX" run "$f" >"$tmp/out" 2>"$tmp/err"
	else
		"$COWCTX" run "$f" >"$tmp/out" 2>"$tmp/err"
	fi
	rc=$?

	if [ $rc -eq 124 ] && [ $have_timeout -eq 1 ]; then
		not_ok "$f: timed out after ${run_limit}s"
		continue
	fi

	if [ $has_header -eq 0 ]; then
		if [ $rc -eq 0 ]; then
			ok 0 "$f runs and every check passes (exit 0)"
		else
			not_ok "$f: valid scenario must exit 0" "got exit $rc"
		fi
		continue
	fi

	# An error scenario: exit 2, silence on stdout, FILE:LINE: on stderr.
	if [ $rc -ne 2 ]; then
		not_ok "$f: must be refused at line $want_line with exit 2" \
			"got exit $rc"
		continue
	fi
	if [ -s "$tmp/out" ]; then
		not_ok "$f: refused, but printed on stdout (must print nothing)"
		continue
	fi
	# The first "FILE:LINE:" at the start of a line is the report that
	# stopped the run (docs/scenario.md: "FILE:LINE: message" on stderr).
	report=$(awk -v f="$f:" '
		index($0, f) == 1 && substr($0, length(f) + 1) ~ /^[0-9]+:/ {
			print; exit
		}' "$tmp/err")
	got_line=$(printf '%s\n' "$report" | awk -v f="$f:" '{
		rest = substr($0, length(f) + 1)
		if (match(rest, /^[0-9]+:/))
			print substr(rest, 1, RLENGTH - 1)
		exit
	}')
	if [ -z "$got_line" ]; then
		not_ok "$f: exit 2 but no '$f:LINE:' report on stderr" \
			"want line $want_line"
		continue
	fi
	if [ "$got_line" != "$want_line" ]; then
		not_ok "$f: refused at the wrong line" \
			"want line $want_line, got line $got_line"
		continue
	fi
	missing=
	for m in "${want_msgs[@]}"; do
		[ -n "$m" ] || continue
		printf '%s\n' "$report" | grep -q -F -- "$m" && continue
		missing=$m
		break
	done
	if [ -n "$missing" ]; then
		not_ok "$f: refused at line $want_line, wrong message" \
			"want a message containing '$missing'" "got: $report"
		continue
	fi
	if [ ${#want_msgs[@]} -gt 0 ]; then
		ok 0 "$f refused at line $want_line: $(printf "'%s' " "${want_msgs[@]}")(exit 2)"
	else
		ok 0 "$f refused at line $want_line (exit 2)"
	fi
done

tap_done
