#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Boots the patched guest once and reports its run as TAP (guest/parse-log).
# Run by make guest-check, which builds what it needs and sets
# GUEST_BZIMAGE, GUEST_INITRD, GUEST_LOG and the rest; without them there is
# nothing to boot, which is a skip, not a pass.
dir=$(dirname "$0")
if [ -z "${GUEST_BZIMAGE:-}" ] || [ -z "${GUEST_INITRD:-}" ]; then
	echo "1..0 # SKIP no guest built (run make guest-check)"
	exit 0
fi
tests=$(echo "${GUEST_TESTS:-}" | tr ' ' ,)
shadow=
case " ${GUEST_APPEND:-} " in
*" cow_context=shadow "*)
	shadow="--shadow --min-walks ${GUEST_MIN_WALKS:-1}"
	shadow="$shadow --min-counted ${GUEST_MIN_COUNTED:-1}"
	shadow="$shadow --min-scans ${GUEST_MIN_SCANS:-0}" ;;
esac
t0=$(date +%s)
"$dir/run-qemu.sh" "$GUEST_BZIMAGE" "$GUEST_INITRD" "$GUEST_LOG" \
	"${GUEST_TIMEOUT:-1500}" "${GUEST_SMP:-3}" "${GUEST_MEM:-2G}" \
	"TESTS=$tests ${GUEST_APPEND:-}"
rc=$?
took=$(( $(date +%s) - t0 ))
[ -n "${GUEST_TIMES:-}" ] && echo "boot+run $took" >> "$GUEST_TIMES"
echo "# qemu exit status $rc after $took s; console in $GUEST_LOG"
[ -r "${GUEST_SOURCE:-}" ] && echo "# kernel built from $(cat "$GUEST_SOURCE")"
"$dir/parse-log" $shadow "$GUEST_LOG"
