#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Usage: run-qemu.sh BZIMAGE INITRD LOG TIMEOUT SMP MEM [APPEND]
# Boots the guest under TCG (these machines have no usable KVM) with two
# fake NUMA nodes, writing the serial console to LOG. Exits with QEMU's
# status, or 124 when TIMEOUT seconds pass first. panic=-1 and
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
timeout -k 10 "$tmo" qemu-system-x86_64 -accel tcg \
	-smp "$smp" -m "$mem" -display none -serial stdio -monitor none \
	-no-reboot -kernel "$kernel" -initrd "$initrd" \
	-append "console=ttyS0 panic=-1 numa=fake=2 $append" \
	< /dev/null > "$log" 2>&1
