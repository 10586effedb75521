#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What code region marks (lp/region.h) cost a program nobody records: a loop
# that enters and leaves a region at every step, built with the marks (a nop
# each) and without them (-DLP_REGION_NONE), timed alternately; then what
# they cost under lp-record, whose uprobes trap at each mark.
#
#   bench/regions.sh      (RUNS=7 STEPS=100000000 to change)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${LP_BUILD:-$top/build}/bin
runs=${RUNS:-7}
steps=${STEPS:-100000000}
work=$(mktemp -d /tmp/lp-bench-regions.XXXXXX)
trap 'rm -rf "$work"' EXIT
cc=${CC:-gcc}
$cc -O2 -I"$top/include" -o "$work/marked" "$top/bench/regions.c"
$cc -O2 -I"$top/include" -DLP_REGION_NONE -o "$work/plain" "$top/bench/regions.c"

elapsed() { "$@" | sed -n 's/^elapsed //p'; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

: > "$work/m"
: > "$work/p"
for _ in $(seq "$runs"); do
	elapsed "$work/plain" "$steps" >> "$work/p"
	elapsed "$work/marked" "$steps" >> "$work/m"
done
p=$(median < "$work/p")
m=$(median < "$work/m")
echo "== $steps region entries and exits, nobody recording (median of $runs)"
echo "without marks: ${p}s"
awk -v m="$m" -v p="$p" -v n="$steps" 'BEGIN { printf "with marks:    %ss (%.3fx; %.2f ns a begin and end)\n", m, m / p, (m - p) * 1e9 / n }'
if [ -x "$bin/lp-record" ]; then
	few=$((steps / 1000))
	rec=$(elapsed "$bin/lp-record" -q -o "$work/r.lp" -- "$work/marked" "$few")
	alone=$(elapsed "$work/marked" "$few")
	echo "== $few entries and exits under lp-record (each mark a uprobe trap)"
	awk -v r="$rec" -v a="$alone" -v n="$few" 'BEGIN { printf "lp-record: %ss, alone %ss: %.1f us a begin and end\n", r, a, (r - a) * 1e6 / n }'
	echo "C records: $(grep -c $'^C\t' "$work/r.lp" || true)"
fi
