#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Usage: run-qemu.sh BZIMAGE INITRD LOG TIMEOUT SMP MEM [APPEND]
# Boots the guest under TCG (these machines have no usable KVM) with two
# fake NUMA nodes, writing the serial console to LOG. Exits with QEMU's
# status, or 124 when TIMEOUT seconds pass first (143 when a stalled boot
# was killed twice, below). panic=-1 and
# -no-reboot turn a panic into QEMU's exit, so a crash ends the run
# instead of waiting for the timeout.
set -u
if [ $# -lt 6 ]; then
	echo "usage: run-qemu.sh BZIMAGE INITRD LOG TIMEOUT SMP MEM [APPEND]" >&2
	exit 2
fi
kernel=$1
initrd=$2
log=$3
tmo=$4
smp=$5
mem=$6
append=${7:-}
for f in "$kernel" "$initrd"; do
	if [ ! -r "$f" ]; then
		echo "guest: $f: not found" >&2
		exit 2
	fi
done
# A boot that goes silent before init starts (no console output for
# GUEST_BOOT_STALL seconds, 300 by default, and no GUEST-PLAN line yet)
# is killed and booted once more: TCG has been seen to hang a 3-vCPU
# guest at the switch to the tsc-early clocksource, 1.5 s into the boot
# (7 December 2026, once in dozens of boots), which would otherwise hold
# the run until TIMEOUT. The stalled boot's console is kept as
# LOG.stalled; a second stall, or any stall once init has started,
# fails as before.
stall=${GUEST_BOOT_STALL:-300}
step=5
[ "$stall" -lt 10 ] && step=1	# guest/run-qemu.t's short stalls
boot() {
	timeout -k 10 "$tmo" qemu-system-x86_64 -accel tcg \
		-smp "$smp" -m "$mem" -display none -serial stdio \
		-monitor none -no-reboot -kernel "$kernel" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 numa=fake=2 $append" \
		< /dev/null > "$log" 2>&1 &
	pid=$!
	size=-1
	quiet=0
	stalled=0
	while kill -0 "$pid" 2> /dev/null; do
		sleep "$step"
		now=$(stat -c %s "$log" 2> /dev/null || echo 0)
		if [ "$now" != "$size" ]; then
			size=$now
			quiet=0
			continue
		fi
		quiet=$((quiet + step))
		if [ "$quiet" -ge "$stall" ] &&
		   ! grep -q '^GUEST-PLAN' "$log" 2> /dev/null; then
			stalled=1
			kill "$pid" 2> /dev/null
			break
		fi
	done
	wait "$pid"
}
boot
rc=$?
if [ "$stalled" = 1 ]; then
	mv "$log" "$log.stalled"
	echo "guest: the boot stalled before init ($stall s without console output; $log.stalled): booting once more" >&2
	boot
	rc=$?
	[ "$stalled" = 1 ] && echo "guest: the boot stalled again" >&2
fi
exit $rc
