#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Usage: mkinitramfs.sh GEN_INIT_CPIO OUT.cpio SELFTEST_DIR TEST...
# The guest's whole userspace: static busybox, guest/init.sh as /init and
# the static selftests under /st (with TEST.d/, a test's own files, where
# there is one). The list is given to the kernel's own
# gen_init_cpio, which writes /dev/console and root ownership without
# needing mknod or root on the host.
set -eu
gen=$1
out=$2
stdir=$3
shift 3
busybox=/bin/busybox
if ! file -L "$busybox" 2>/dev/null | grep -q 'statically linked' &&
   ldd "$busybox" > /dev/null 2>&1; then
	echo "guest: $busybox is not static; install busybox-static" >&2
	exit 1
fi
list=$out.list
{
	echo "dir /dev 0755 0 0"
	echo "nod /dev/console 0600 0 0 c 5 1"
	for d in /bin /proc /sys /tmp /st; do
		echo "dir $d 0755 0 0"
	done
	echo "file /bin/busybox $busybox 0755 0 0"
	# /init is a script: its #! needs /bin/sh before busybox --install
	echo "slink /bin/sh busybox 0777 0 0"
	echo "file /init $(dirname "$0")/init.sh 0755 0 0"
	echo "file /bin/runner.sh $(dirname "$0")/runner.sh 0644 0 0"
	# the tests' and the benchmarks' arguments and time limits, which
	# init reads
	for tab in selftests.tab bench.tab bench-smoke.tab; do
		echo "file /st/$tab $(dirname "$0")/$tab 0644 0 0"
	done
	for t in "$@"; do
		if [ ! -x "$stdir/$t" ]; then
			echo "guest: $stdir/$t was not built" >&2
			exit 1
		fi
		echo "file /st/$t $stdir/$t 0755 0 0"
		# a test's own files, if it has any, go in beside it
		[ -d "$stdir/$t.d" ] || continue
		(cd "$stdir" && find "$t.d" -type d) | while read -r d; do
			echo "dir /st/$d 0755 0 0"
		done
		(cd "$stdir" && find "$t.d" -type f) | while read -r f; do
			echo "file /st/$f $stdir/$f $(stat -c %a "$stdir/$f") 0 0"
		done
	done
} > "$list"
"$gen" "$list" > "$out.tmp"
mv "$out.tmp" "$out"
