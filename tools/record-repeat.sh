#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Records one command many times and replays each recording with the
# model's counts held to the kernel's (docs/real-programs.md): what finds
# an ordering the recorder gets wrong once in hundreds of runs.
#
#   tools/record-repeat.sh [--cowctx BIN] [--keep DIR] N -- CMD [ARGS...]
#
# Each of N runs is `cowctx record -o FILE -- CMD...` then `cowctx run
# --fidelity=strict --rmap=anon_vma FILE`. A run whose replay differs is
# kept in DIR (default: a new directory under /tmp) as fail-K.scn with
# the replay's report in fail-K.out. Prints, at the end, the failures of
# N, and how many recordings said two threads acted at once (their
# counts are not written while that address space lives).
#
# Exit status: 0 no replay differed; 1 one did; 2 usage or a recording
# failed; 77 nothing could be recorded here (record's reason printed).

set -u

here=$(cd "$(dirname "$0")/.." && pwd)
cowctx=$here/build/cowctx
keep=

usage() {
	sed -n '4,18p' "$0" | sed 's/^# \{0,1\}//'
}

while [ $# -gt 0 ]; do
	case $1 in
	--cowctx) cowctx=$2; shift 2 ;;
	--keep) keep=$2; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	*) break ;;
	esac
done
if [ $# -lt 3 ] || [ "$2" != -- ]; then
	usage >&2
	exit 2
fi
n=$1
shift 2
case $n in
''|*[!0-9]*) echo "record-repeat.sh: N must be a number: '$n'" >&2; exit 2 ;;
esac
[ -n "$keep" ] || keep=$(mktemp -d /tmp/record-repeat.XXXXXX) || exit 2
mkdir -p "$keep" || exit 2

scn=$keep/run.scn
fails=0
marked=0
i=0
while [ "$i" -lt "$n" ]; do
	i=$((i + 1))
	"$cowctx" record -o "$scn" -- "$@" > /dev/null 2> "$keep/run.err"
	rc=$?
	if [ $rc = 77 ]; then
		tail -1 "$keep/run.err" >&2
		exit 77
	fi
	# 3: the recording does not replay, which the run below reports
	if [ $rc != 0 ] && [ $rc != 3 ]; then
		echo "run $i: cowctx record exited $rc" >&2
		tail -3 "$keep/run.err" >&2
		exit 2
	fi
	grep -q 'acted on it at once' "$scn" && marked=$((marked + 1))
	if ! "$cowctx" run --fidelity=strict --rmap=anon_vma "$scn" \
		> "$keep/run.out" 2>&1; then
		fails=$((fails + 1))
		cp "$scn" "$keep/fail-$fails.scn"
		cp "$keep/run.out" "$keep/fail-$fails.out"
	fi
done
rm -f "$scn" "$keep/run.err" "$keep/run.out"
echo "record-repeat: $fails of $n replays differed; $marked of $n recordings had threads at once; kept in $keep"
[ $fails = 0 ]
