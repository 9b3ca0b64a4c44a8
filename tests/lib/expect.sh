# SPDX-License-Identifier: GPL-2.0
# What a corpus scenario asks of `cowctx kernel`, for tests/kernel.t and
# the guest's cowctx-corpus (guest/corpus.sh, under busybox sh):
#
#   scn_expect FILE	sets $want: 2 for an error scenario (named err-*,
#			or with an "# expect-error: LINE" header, whose
#			LINE the first report must name, as tests/corpus.t
#			holds the model to), else 0; $line: that LINE or
#			empty; $todo: the "TODO reason" of a "# kernel:
#			TODO reason" line, a known, open disagreement, or
#			empty
#   kernel_skip RC ERRFILE
#			a skip plan and exit 0 when a `cowctx kernel` run
#			that exited RC (its stderr in ERRFILE) says this
#			machine cannot serve: 77, or an AddressSanitizer
#			build whose shadow lies where the corpus maps
scn_expect() {
	want=0
	case "$(basename "$1")" in err-*) want=2 ;; esac
	line=$(sed -n 's/^#[[:space:]]*expect-error:[[:space:]]*\([0-9]*\).*/\1/p' \
	       "$1" | head -1)
	[ -n "$line" ] && want=2
	todo=$(sed -n 's/^# kernel: \(TODO.*\)/\1/p' "$1" | head -1)
}

kernel_skip() {
	if [ "$1" = 77 ]; then
		echo "1..0 # SKIP $(tail -1 "$2")"
		exit 0
	fi
	if [ "$1" = 2 ] && grep -q 'AddressSanitizer build' "$2"; then
		echo "1..0 # SKIP an AddressSanitizer build: $(head -1 "$2")"
		exit 0
	fi
}
