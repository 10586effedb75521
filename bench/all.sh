#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every benchmark, each against its peer in the same run, then one table of
# what they measured: the lines that give a ratio, a rate or a target. The
# whole output of each goes to OUT (a fresh folder in /tmp by default).
# The FlameGraph columns need a checkout of it (not part of lp):
#
#   FLAMEGRAPH=/path/to/FlameGraph bench/all.sh      (or: make bench)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$(mktemp -d /tmp/lp-bench-all.XXXXXX)}
mkdir -p "$out"
failed=0
for b in collapse svg record stacks offcpu filter export lines roofline-emulate stat; do
	echo "bench/$b.sh ... (all of it in $out/$b.log)" >&2
	if ! "$top/bench/$b.sh" > "$out/$b.log" 2>&1; then
		echo "bench/$b.sh failed: $(tail -1 "$out/$b.log")" >&2
		failed=1
	fi
done
echo "| bench | case | what it measured |"
echo "|---|---|---|"
for b in collapse svg record stacks offcpu filter export lines roofline-emulate stat; do
	# the figures: ratios (2.5x), rates (MB/s, samples/s), the targets they are held to, each
	# under the section ("== ...") it is in
	awk -v b="$b" '
		/^== / { section = substr($0, 4); next }
		/[0-9.]+x([^a-z]|$)|MB\/s|samples\/s|target|reach the root/ {
			gsub(/\|/, "\\|"); sub(/^ +/, "")
			printf "| %s | %s | %s |\n", b, section, $0
		}' "$out/$b.log"
done
exit $failed
