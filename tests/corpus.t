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
#   "# zero-page: TEXT (folios checked: on N, off M; peak rmap bytes:
#   on X, off Y)"                 the file's story depends on the kernel's
#                                 zero page: TEXT says how, and the figures
#                                 are those `cowctx run --json` gives in
#                                 each mode (the anon_vma backend's)
#
# Then each file runs again in the other zero-page mode (docs/scenario.md,
# `kernel zero_page=`): a file that states no mode must pass under
# --zero-page=off too (an error file: refused at the same line), and its
# figures (folios checked, peak rmap bytes, walks) differ between the
# modes exactly when its header has "# zero-page:". A file that states a
# mode must be refused under the other one.
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

# each file twice: as written (stock when it states no mode), then in
# the other zero-page mode (below)
tap_plan $((2 * ${#files[@]}))

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

# `cowctx run --json` figures that a read fault's kind changes
fingerprint() {
	perl -MJSON::PP -0777 -ne '
		my $j = eval { decode_json($_) } or exit 1;
		my $b = $j->{backends}{anon_vma} or exit 1;
		print join(" ", $b->{folios_checked}, $b->{peak_bytes},
			   $b->{walk}{walks}), "\n";
	' "$1"
}

# refused_in MODE PATTERN DESC: `cowctx run --zero-page=MODE "$f"` must
# exit 2 with PATTERN (a grep regex) on stderr
refused_in() {
	"$COWCTX" run --zero-page="$1" "$f" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc = 2 ] && grep -q -- "$2" "$tmp/err"; then
		ok 0 "$3"
	else
		not_ok "$3" "got exit $rc"
	fi
}

for f in "${files[@]}"; do
	stated=$(sed -n 's/#.*//; s/^[[:space:]]*kernel[[:space:]]\{1,\}zero_page=\([a-z]*\).*/\1/p' \
		 "$f" | head -n 1)
	if [ -n "$stated" ]; then
		other=on
		[ "$stated" = on ] && other=off
		refused_in $other "states zero_page=$stated" \
			"$f states zero_page=$stated: --zero-page=$other is refused"
		continue
	fi
	want_line=$(sed -n 's/^#[[:space:]]*expect-error:[[:space:]]*//p' "$f" |
		    head -n 1 | tr -d '[:space:]')
	if [ -n "$want_line" ]; then
		refused_in off "^$f:$want_line:" \
			"$f zero_page=off: refused at line $want_line too"
		continue
	fi
	"$COWCTX" run --json --zero-page=on "$f" >"$tmp/on" 2>"$tmp/err"
	rc_on=$?
	"$COWCTX" run --json --zero-page=off "$f" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc_on != 0 ] || [ $rc != 0 ]; then
		not_ok "$f zero_page=off: must exit 0 in both modes" \
			"got exit $rc_on (on) and $rc (off)"
		continue
	fi
	on=$(fingerprint "$tmp/on")
	off=$(fingerprint "$tmp/out")
	told=0
	grep -q '^#[[:space:]]*zero-page:' "$f" && told=1
	if [ "$on" != "$off" ] && [ $told = 0 ]; then
		not_ok "$f depends on the zero page: its header must say how (# zero-page:)" \
			"folios checked, peak bytes, walks: on $on, off $off"
	elif [ "$on" = "$off" ] && [ $told = 1 ]; then
		not_ok "$f: '# zero-page:' but both modes give the same figures ($on)"
	elif [ $told = 1 ] && ! grep -q "^#[[:space:]]*zero-page:.*(folios checked: on ${on% * *}, off ${off% * *}; peak rmap bytes: on $(echo $on | cut -d' ' -f2), off $(echo $off | cut -d' ' -f2))" "$f"; then
		not_ok "$f: its '# zero-page:' figures are not what the modes give" \
			"folios checked, peak bytes, walks: on $on, off $off"
	elif [ $told = 1 ]; then
		ok 0 "$f passes in both modes, and depends on the zero page as its header says ($on / $off)"
	else
		ok 0 "$f passes in both modes, the same figures"
	fi
done

tap_done
