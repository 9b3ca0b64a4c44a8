#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Records real programs with `cowctx record` (docs/real-programs.md):
#
#   tools/record-workloads.sh [--cowctx BIN] [--out DIR] [--no-record]
#                             [--deps] [--list] [WORKLOAD...]
#
# Each WORKLOAD (default: all, in the order of --list) runs in a scratch
# directory under DIR and is recorded to DIR/WORKLOAD.scn, with record's
# summary in DIR/WORKLOAD.log. --no-record runs the same commands without
# recording them (what the tests can do without root and tracefs).
# --deps installs the Debian packages the workloads need (python3,
# redis-server, redis-tools, git, make) with apt-get when one is
# missing, as root, and does nothing else.
#
# Exit status: 0 every workload recorded (or ran); 1 one failed (the
# others still run); 2 usage; 77 nothing could be recorded here (not
# root, no tracefs: record's reason is printed).

set -u

here=$(cd "$(dirname "$0")/.." && pwd)
cowctx=$here/build/cowctx
out=$here/build/recordings
record=1
all_workloads="pipeline make git python redis"

usage() {
	sed -n '4,20p' "$0" | sed 's/^# \{0,1\}//'
	exit "${1:-2}"
}

need() {
	# package: command that proves it is there
	local missing=
	command -v python3 > /dev/null || missing="$missing python3"
	command -v redis-server > /dev/null || missing="$missing redis-server"
	command -v redis-cli > /dev/null || missing="$missing redis-tools"
	command -v git > /dev/null || missing="$missing git"
	command -v make > /dev/null || missing="$missing make"
	echo "$missing"
}

deps() {
	local missing

	missing=$(need)
	[ -z "$missing" ] && return 0
	if [ "$(id -u)" != 0 ] || ! command -v apt-get > /dev/null; then
		echo "record-workloads: missing:$missing (install them, or run as root with apt-get)" >&2
		return 1
	fi
	echo "record-workloads: installing$missing" >&2
	# redis-server must not stay running as a service: we start our own
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		$missing > /dev/null || return 1
	if command -v systemctl > /dev/null; then
		systemctl disable --now redis-server > /dev/null 2>&1 || true
	fi
	[ -z "$(need)" ]
}

# ---- the workloads: prepare_W SCRATCH sets it up, unrecorded; cmd_W
# SCRATCH sets cmd, the command recorded ------------------------------

# The system's python, not a version manager's shim (which would add its
# own shells to the tree)
python_bin() {
	if [ -x /usr/bin/python3 ]; then
		echo /usr/bin/python3
	else
		command -v python3
	fi
}

prepare_pipeline() { :; }
cmd_pipeline() {
	cmd=(sh -c "seq 1 200000 | sed 's/0\$/zero/' | sort | uniq -c | sort -rn | head -n 3 | wc -l")
}

prepare_make() {
	# a scratch copy of the sources as they are: tracked and new files
	# (a file deleted but not yet committed is left out)
	mkdir -p "$1/src" &&
		(cd "$here" &&
		 git ls-files -z --cached --others --exclude-standard |
		 while IFS= read -r -d '' f; do
			[ -f "$f" ] && printf '%s\0' "$f"
		 done | xargs -0 cp --parents -t "$1/src")
}
cmd_make() {
	cmd=(make -C "$1/src" -j2 BUILD=build-rec build-rec/cowctx)
}

prepare_git() {
	git clone -q --no-local "$here" "$1/repo"
}
cmd_git() {
	cmd=(sh -c "cd '$1/repo' && git log --oneline | wc -l && git status --short | wc -l && git checkout -q HEAD~2 && git checkout -q - && git gc -q")
}

prepare_python() {
	cat > "$1/pool.py" <<'EOF'
# SPDX-License-Identifier: GPL-2.0
# A fork pool doing real work: each task hashes and sieves its share.
import hashlib
import multiprocessing


def work(n):
    h = hashlib.sha256()
    sieve = bytearray([1]) * 20000
    for i in range(2, 20000):
        if sieve[i]:
            sieve[i * i::i] = bytearray(len(sieve[i * i::i]))
    for i in range(n * 2000, n * 2000 + 2000):
        h.update(str(i).encode())
    return h.hexdigest()[:8], sum(sieve)


if __name__ == "__main__":
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(4) as pool:
        res = pool.map(work, range(32), chunksize=2)
    print(len(res), res[0])
EOF
}
cmd_python() {
	cmd=("$(python_bin)" "$1/pool.py")
}

# A fork server whose children live on: redis-server's BGSAVE child
# writes the snapshot while the parent goes on writing (COW)
prepare_redis() {
	cat > "$1/redis.sh" <<'EOF'
#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
set -e
dir=$1
sock=$dir/redis.sock
cli() { redis-cli -s "$sock" "$@"; }
redis-server --port 0 --unixsocket "$sock" --dir "$dir" --save '' \
	--appendonly no --daemonize no --logfile "$dir/redis.log" &
for i in $(seq 1 100); do
	cli ping > /dev/null 2>&1 && break
	sleep 0.1
done
fill='local v = string.rep("x", 200) for i = 1, tonumber(ARGV[1]) do redis.call("SET", KEYS[1] .. i, v) end return 1'
cli eval "$fill" 1 a 50000 > /dev/null
for round in 1 2 3; do
	cli bgsave > /dev/null
	# the parent writes while its child saves
	cli eval "$fill" 1 "r$round" 10000 > /dev/null
	while cli info persistence | grep -q 'rdb_bgsave_in_progress:1'; do
		sleep 0.1
	done
done
cli dbsize
cli shutdown nosave > /dev/null 2>&1 || true
wait
EOF
	chmod +x "$1/redis.sh"
}
cmd_redis() {
	cmd=("$1/redis.sh" "$1")
}

# ---- running them -----------------------------------------------------

run_one() {
	local w=$1 scratch=$out/scratch/$1 rc
	local -a cmd=()

	rm -rf "$scratch" && mkdir -p "$scratch" || return 1
	if ! "prepare_$w" "$scratch" > "$out/$w.log" 2>&1; then
		echo "record-workloads: $w: preparing failed (see $out/$w.log)" >&2
		return 1
	fi
	"cmd_$w" "$scratch"
	if [ $record = 1 ]; then
		"$cowctx" record -o "$out/$w.scn" -- "${cmd[@]}" \
			> "$out/$w.out" 2>> "$out/$w.log"
	else
		"${cmd[@]}" > "$out/$w.out" 2>> "$out/$w.log"
	fi
	rc=$?
	rm -rf "$scratch"
	case $rc in
	0)	echo "record-workloads: $w: ok" >&2 ;;
	77)	cat "$out/$w.log" >&2; return 77 ;;
	*)	echo "record-workloads: $w: exit $rc (see $out/$w.log)" >&2
		return 1 ;;
	esac
}

workloads=
while [ $# -gt 0 ]; do
	case $1 in
	--cowctx) cowctx=${2:?}; shift ;;
	--out) out=${2:?}; shift ;;
	--no-record) record=0 ;;
	--deps) deps; exit $? ;;
	--list) echo "$all_workloads"; exit 0 ;;
	-h | --help) usage 0 ;;
	-*) echo "record-workloads: unknown option $1" >&2; usage ;;
	*)
		case " $all_workloads " in
		*" $1 "*) workloads="$workloads $1" ;;
		*) echo "record-workloads: unknown workload '$1' (--list)" >&2
		   exit 2 ;;
		esac ;;
	esac
	shift
done
workloads=${workloads:-$all_workloads}

if [ -n "$(need)" ]; then
	echo "record-workloads: missing:$(need) (tools/record-workloads.sh --deps installs them)" >&2
	exit 2
fi
if [ $record = 1 ] && [ ! -x "$cowctx" ]; then
	echo "record-workloads: no $cowctx (build it, or --cowctx BIN)" >&2
	exit 2
fi
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)

failed=0
for w in $workloads; do
	run_one "$w"
	case $? in
	0) ;;
	77) exit 77 ;;
	*) failed=1 ;;
	esac
done
rmdir "$out/scratch" 2> /dev/null
exit $failed
