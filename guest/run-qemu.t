#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# run-qemu.sh's retry of a boot that stalls before init, on a fake
# qemu-system-x86_64 that prints a line and then hangs, or boots: a stall
# before GUEST-PLAN is booted once more (its console kept as
# LOG.stalled), a second stall fails, and a stall after init started is
# left to the timeout.
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin"
# HANG_BEFORE_INIT, HANG_AFTER_INIT: the boots (1, 2, ...) that hang there
cat > "$tmp/bin/qemu-system-x86_64" <<'FAKE'
#!/bin/sh
n=$(($(cat "$FAKE_DIR/count" 2> /dev/null || echo 0) + 1))
echo "$n" > "$FAKE_DIR/count"
echo "boot $n"
case " $HANG_BEFORE_INIT " in *" $n "*) exec sleep 60 ;; esac
echo "GUEST-PLAN t"
case " $HANG_AFTER_INIT " in *" $n "*) exec sleep 60 ;; esac
echo "GUEST-DONE"
FAKE
chmod +x "$tmp/bin/qemu-system-x86_64"
echo "1..3"

run() {
	rm -f "$tmp/count" "$tmp/log" "$tmp/log.stalled"
	PATH="$tmp/bin:$PATH" FAKE_DIR=$tmp GUEST_BOOT_STALL=3 \
		sh "$dir/run-qemu.sh" /dev/null /dev/null "$tmp/log" 10 1 1G \
		2> "$tmp/err"
}

HANG_BEFORE_INIT=1 HANG_AFTER_INIT= run
rc=$?
if [ $rc = 0 ] && grep -q '^boot 2$' "$tmp/log" &&
   grep -q '^GUEST-DONE$' "$tmp/log" && grep -q '^boot 1$' "$tmp/log.stalled" &&
   grep -q 'booting once more' "$tmp/err"; then
	echo "ok 1 - a boot that stalls before init is booted once more"
else
	echo "not ok 1 - a boot that stalls before init is booted once more (exit $rc)"
fi

HANG_BEFORE_INIT="1 2" HANG_AFTER_INIT= run
rc=$?
if [ $rc != 0 ] && [ "$(cat "$tmp/count")" = 2 ] &&
   grep -q 'stalled again' "$tmp/err"; then
	echo "ok 2 - a second stall fails, with no third boot"
else
	echo "not ok 2 - a second stall fails, with no third boot (exit $rc)"
fi

HANG_BEFORE_INIT= HANG_AFTER_INIT=1 run
rc=$?
if [ $rc = 124 ] && [ "$(cat "$tmp/count")" = 1 ] && [ ! -e "$tmp/log.stalled" ]; then
	echo "ok 3 - a stall once init has started is left to the timeout"
else
	echo "not ok 3 - a stall once init has started is left to the timeout (exit $rc)"
fi
