#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# guest/format-series.sh on a small git tree: the series is written again
# with the cover letter's subject and text kept and its shortlog and
# diffstat made new; old patch files go; a missing cover letter is an
# error that writes nothing.
set -u
. "$(dirname "$0")/../tests/lib/tap.sh"
script=$(cd "$(dirname "$0")" && pwd)/format-series.sh
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

g() {
	git -C dev -c user.name=t -c user.email=t@localhost "$@"
}
mkdir dev out
git -C dev init -q -b master
echo a > dev/a && g add a && g commit -q -m base && g tag base
echo b > dev/b && g add b && g commit -q -m "add b"

# no cover letter yet: refused, nothing written
"$script" dev out > err 2>&1
rc=$?
ok "$([ "$rc" = 2 ] && [ -z "$(ls out)" ] && echo 0)" \
   "no cover letter: exit 2, nothing written" || diag_file err

# a first cover letter, as format-patch writes it with a hand-written text
g format-patch -q --cover-letter --subject-prefix='RFC PATCH' -o ../out \
	base..HEAD
sed -i -e 's/\*\*\* SUBJECT HERE \*\*\*/a subject long enough to be folded by git when it writes the header/' \
       -e 's/\*\*\* BLURB HERE \*\*\*/First line of the text.\n\nSecond paragraph./' \
       out/0000-cover-letter.patch
echo c > dev/c && g add c && g commit -q -m "add c"
touch out/0009-stale.patch
"$script" dev out > err 2>&1
ok $? "runs" || diag_file err
c=out/0000-cover-letter.patch
ok "$(grep -q '^Subject: \[RFC PATCH 0/2\] a subject long enough' "$c" && echo 0)" \
   "subject kept, with the new count" || diag_file "$c" 20
ok "$(grep -q '^First line of the text\.$' "$c" &&
      grep -q '^Second paragraph\.$' "$c" && echo 0)" "text kept" ||
	diag_file "$c" 30
ok "$(grep -q '^  add c$' "$c" && grep -q '^t (2):$' "$c" &&
      [ "$(grep -c '^t ([0-9]*):$' "$c")" = 1 ] && echo 0)" \
   "shortlog made new, the old one gone" || diag_file "$c" 30
ok "$(grep -c 'SUBJECT HERE\|BLURB HERE' "$c" | grep -qx 0 && echo 0)" \
   "no placeholder left"
ok "$([ ! -e out/0009-stale.patch ] && [ -f out/0002-add-c.patch ] && echo 0)" \
   "old patches gone, the new ones written" || diag "$(ls out)"
tap_done
