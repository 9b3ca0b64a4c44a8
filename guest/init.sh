#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /init of the guest. Reports on the serial console in lines that start
# with GUEST- (the host's parse-log turns them into TAP; kernel messages
# interleave on the same console, so every line of ours is tagged), then
# powers the guest off. Kernel command-line words KEY=value arrive here
# as environment variables: TESTS (comma-separated selftests in /st), TMO
# (seconds each may take, unless /st/selftests.tab gives its runs their
# own arguments and limits), STORM_SECS (how long cowctx-storm runs; its
# limit is that plus TMO, since it stops by itself) and COWCTX_BREAK=1,
# which turns on the COW walk's debug knob that loses forked children's
# mappings, to show that the shadow check fails such a walk.
/bin/busybox --install -s /bin
export PATH=/bin:/st

result() {
	# $1: 0 for ok; $2: the test's name; $3: an optional directive
	if [ "$1" = 0 ]; then
		echo "GUEST-TAP ok - $2${3:+ # $3}"
	else
		echo "GUEST-TAP not ok - $2${3:+ # $3}"
	fi
}

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t debugfs debugfs /sys/kernel/debug
mount -t tmpfs tmpfs /tmp
# shm_open(), which rmap's selftest uses for its shared-memory case
mkdir -p /dev/shm
mount -t tmpfs tmpfs /dev/shm

# One address-space layout in every run, so that a run repeats:
# mremap_test's case 15 maps a 40 MB preamble below a destination of
# which it checked only the range above, and failed at random (1 run in
# 5) with EEXIST where ASLR had put a mapping in the preamble.
echo 0 > /proc/sys/kernel/randomize_va_space

tests=$(echo "${TESTS:-}" | tr , ' ')
echo "GUEST-PLAN setup-numa setup-swap setup-hugepages $tests"

nodes=$(ls -d /sys/devices/system/node/node* | wc -l)
[ "$nodes" -ge 2 ]
result $? setup-numa "$nodes nodes, $(nproc) CPUs"

mkswap /dev/ram0 > /dev/null 2>&1 && swapon /dev/ram0 && grep -q ram0 /proc/swaps
result $? setup-swap

echo 64 > /proc/sys/vm/nr_hugepages
echo madvise > /sys/kernel/mm/transparent_hugepage/enabled
[ "$(cat /proc/sys/vm/nr_hugepages)" -gt 0 ]
result $? setup-hugepages "$(cat /proc/sys/vm/nr_hugepages) huge pages"

knob=/sys/kernel/debug/cow_context/debug_drop_children
if [ "${COWCTX_BREAK:-0}" = 1 ]; then
	echo 1 > "$knob"
	echo "GUEST-DIAG COW walk broken on purpose: $knob = $(cat "$knob")"
fi

# After every test, so that a run cut short still says how far it got
# (parse-log keeps the last value of each).
shadow_stats() {
	[ -d /sys/kernel/debug/cow_context ] || return 0
	for f in /sys/kernel/debug/cow_context/*; do
		echo "GUEST-STAT $(basename "$f") $(cat "$f")"
	done
	# the processes with an address space, beside remap_entries_live:
	# every exec'd stack that relocate_vma_down() moved is an entry
	n=0
	for p in /proc/[0-9]*; do
		[ -n "$(head -c1 "$p/maps" 2> /dev/null)" ] && n=$((n + 1))
	done
	echo "GUEST-STAT user_processes $n"
}

# The runs of test $1, one "LIMIT [ARGUMENT...]" line each: its lines in
# selftests.tab (the file says why each is there), or else one run with no
# argument under TMO.
runs_of() {
	r=$(sed -n "s/^$1[[:space:]][[:space:]]*//p" selftests.tab 2> /dev/null)
	echo "${r:-${TMO:-600}}"
}

# The names of the TAP cases that failed in /tmp/$1.out, one per line.
failed_cases() {
	sed -n 's/^not ok [0-9][0-9]* \([^ #]*\).*/\1/p' "/tmp/$1.out"
}

# Whether every case that failed in /tmp/$1.out is one of $2 (comma
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
	timeout "$tmo" "./$t" "$@" < /dev/null > "/tmp/$t.out" 2>&1
	rc=$?
	e=$(cut -d' ' -f1 /proc/uptime)
	echo "GUEST-DIAG $t${1:+ $*}: rc=$rc, $s..$e s guest uptime (limit $tmo s)"
	grep -E '^# Totals|^not ok|^ok .*folio_refs back|^Testing |Userfaults unit tests|^# (storm|mutate|idle|migrate|pageout|compact|bulk|walks_compared|parent|child|corpus|generations|forkrace)' \
		"/tmp/$t.out" | grep -v '^# corpus: [0-9]' | head -40 |
		sed "s/^/GUEST-DIAG $t: /"
	# a summary comes last and must survive the cut above
	grep '^# corpus: [0-9]' "/tmp/$t.out" | sed "s/^/GUEST-DIAG $t: /"
	case $rc in
	0|4)	;;
	# the tail, then what led to each failed case (a TAP suite goes
	# on after it, so the tail alone rarely shows it), last so that a
	# console cut short keeps it
	*)	tail -30 "/tmp/$t.out" | sed "s/^/GUEST-DIAG $t: /"
		grep -B15 '^not ok' "/tmp/$t.out" | head -80 |
			sed "s/^/GUEST-DIAG $t: failed case: /" ;;
	esac
}

cd /st || exit 1
for t in $tests; do
	n=0
	fails=0
	skips=0
	reruns=
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
		if [ "$rc" != 0 ] && [ "$rc" != 4 ] && [ -n "$racy" ] &&
		   only_racy_failed "$t" "$racy"; then
			f=$(failed_cases "$t" | tr '\n' ' ')
			echo "GUEST-DIAG $t: run again: only ${f% } failed, which selftests.tab says may race"
			reruns="$reruns ${f% }"
			# shellcheck disable=SC2086
			run_once "$t" "$tmo" $args
		fi
		set +f
		case $rc in
		0)	;;
		# kselftest's KSFT_SKIP: the test decided it cannot run here.
		4)	skips=$((skips + 1))
			skip=$(grep -m1 -i skip "/tmp/$t.out") ;;
		*)	fails=$((fails + 1)) ;;
		esac
	done <<-EOF
	$(runs_of "$t")
	EOF
	if [ "$fails" -gt 0 ]; then
		result 1 "$t" "$fails of $n runs failed"
	elif [ -n "$reruns" ]; then
		result 0 "$t" "passed when run again after${reruns} failed"
	elif [ "$skips" = "$n" ]; then
		result 0 "$t" "SKIP $skip"
	else
		result 0 "$t"
	fi
	shadow_stats
done

shadow_stats
grep -E 'pgmigrate_success|pswpout|thp_split_page |pgsteal_anon|ksm' \
	/proc/vmstat | sed 's/^/GUEST-STAT vmstat_/'
echo "GUEST-DONE"
sync
poweroff -f
reboot -f
