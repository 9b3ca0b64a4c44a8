#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /init of the guest. Reports on the serial console in lines that start
# with GUEST- (the host's parse-log turns them into TAP; kernel messages
# interleave on the same console, so every line of ours is tagged), then
# powers the guest off. Kernel command-line words KEY=value arrive here
# as environment variables: TESTS (comma-separated selftests in /st), TMO
# (seconds each may take, unless /st/selftests.tab gives its runs their
# own arguments and limits), TAB (another table than selftests.tab, for
# the benchmarks), STORM_SECS (how long cowctx-storm runs; its
# limit is that plus TMO, since it stops by itself) and COWCTX_BREAK=1,
# which turns on the COW walk's debug knob that loses forked children's
# mappings, to show that the shadow check fails such a walk.
/bin/busybox --install -s /bin
export PATH=/bin:/st
# run_test and result
. /bin/runner.sh

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

# Both of the COW context's debug knobs: its walk stops at the folio's own
# context, and fork children's anon_vma ids lose ANON_VMA_ID_FORKED.
if [ "${COWCTX_BREAK:-0}" = 1 ]; then
	for knob in debug_drop_children debug_anon_vma_id_unforked; do
		knob=/sys/kernel/debug/cow_context/$knob
		echo 1 > "$knob"
		echo "GUEST-DIAG COW context broken on purpose: $knob = $(cat "$knob")"
	done
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

cd /st || exit 1
for t in $tests; do
	run_test "$t"
	shadow_stats
done

shadow_stats
# the object sizes of the reverse maps' caches and of vm_area_struct,
# which the series' fields grow (slabinfo's objsize: the struct, aligned)
for c in vm_area_struct anon_vma anon_vma_chain cow_context; do
	awk -v c="$c" '$1 == c { print "GUEST-STAT objsize_" c, $4 }' /proc/slabinfo
done
grep -E 'pgmigrate_success|pswpout|thp_split_page |pgsteal_anon|ksm' \
	/proc/vmstat | sed 's/^/GUEST-STAT vmstat_/'
echo "GUEST-DONE"
sync
poweroff -f
reboot -f
