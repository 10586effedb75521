#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark of lp-collapse against FlameGraph's stackcollapse-perf.pl and
# `perf script report stackcollapse`, on the same recording, in the same run.
#
#   FLAMEGRAPH=/path/to/FlameGraph bench/collapse.sh
#
# Records bench/workload.c (deep frame-pointer stacks, 2 threads) with
# `perf record -g`, writes its `perf script` text (at least MIN_MB, 200 by
# default, repeating the text if the recording is shorter), and prints times,
# throughputs, peak memory and ratios. Needs root (or perf_event_paranoid <= 1)
# and perf. FlameGraph is not part of lp: without FLAMEGRAPH that column is
# skipped.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
lp=${LP_BUILD:-$top/build}/bin/lp-collapse
svg=${LP_BUILD:-$top/build}/bin/lp-svg
min_mb=${MIN_MB:-200}
seconds=${SECONDS_RECORDED:-6}
work=$(mktemp -d /tmp/lp-bench-collapse.XXXXXX)
trap 'rm -rf "$work"' EXIT
[ -x "$lp" ] || { echo "bench: build lp first (make)" >&2; exit 1; }

# Prints "SECONDS PEAK_KB" of the best (fastest) of $1 runs of the rest.
measure() {
	local runs=$1 best= kb= t m
	shift
	for _ in $(seq "$runs"); do
		/usr/bin/time -o "$work/time" -f '%e %M' "$@" > "$work/out" 2> /dev/null
		read -r t m < "$work/time"
		if [ -z "$best" ] || awk "BEGIN { exit !($t < $best) }"; then best=$t kb=$m; fi
	done
	echo "$best $kb"
}
mbps() { awk -v b="$1" -v s="$2" 'BEGIN { printf "%.0f", b / 1e6 / (s > 0 ? s : 0.001) }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / (b > 0 ? b : 0.001) }'; }

echo "== recording bench/workload.c for ${seconds}s with perf record -g"
gcc -O2 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls -pthread \
	-o "$work/workload" "$top/bench/workload.c"
perf record -q -g -F 10000 -o "$work/perf.data" -- "$work/workload" "$seconds" 2 2>/dev/null
read -r t_script _ < <(measure 1 perf script -i "$work/perf.data")
mv "$work/out" "$work/one.txt"
: > "$work/perf.txt"
while [ "$(stat -c %s "$work/perf.txt")" -lt $((min_mb * 1000000)) ]; do
	cat "$work/one.txt" >> "$work/perf.txt"
done
bytes=$(stat -c %s "$work/perf.txt")
samples=$(grep -c '^$' "$work/perf.txt" || true)
echo "perf script text: $((bytes / 1000000)) MB, $samples samples (perf script wrote $(( $(stat -c %s "$work/one.txt") / 1000000 )) MB in ${t_script}s)"

echo "== lp-collapse (best of 3; -j 2 reads the two halves of the file on both cores, -j 1 one core)"
read -r t_lp kb_lp < <(measure 3 "$lp" -j 2 "$work/perf.txt")
sort "$work/out" > "$work/lp.folded"
echo "lp-collapse -j 2: ${t_lp}s, $(mbps "$bytes" "$t_lp") MB/s, peak ${kb_lp} KB, $(wc -l < "$work/lp.folded") unique stacks"
read -r t_lpj1 kb_lpj1 < <(measure 3 "$lp" -j 1 "$work/perf.txt")
sort "$work/out" | cmp -s - "$work/lp.folded" && same="the same output" || same="a DIFFERENT output"
echo "lp-collapse -j 1: ${t_lpj1}s, $(mbps "$bytes" "$t_lpj1") MB/s, peak ${kb_lpj1} KB, $same"
read -r t_lp1 kb_lp1 < <(measure 1 "$lp" "$work/one.txt")
echo "lp-collapse on the recording once ($(( $(stat -c %s "$work/one.txt") / 1000000 )) MB): peak ${kb_lp1} KB (memory follows unique stacks, not input size)"

echo "== lp-collapse on the same samples as an lp stream"
awk -f "$top/bench/perf2lp.awk" "$work/perf.txt" > "$work/perf.lp"
lpbytes=$(stat -c %s "$work/perf.lp")
read -r t_lpin kb_lpin < <(measure 3 "$lp" "$work/perf.lp")
echo "lp stream: $((lpbytes / 1000000)) MB in ${t_lpin}s, $(mbps "$lpbytes" "$t_lpin") MB/s, peak ${kb_lpin} KB"

echo "== perf script report stackcollapse (from perf.data, per copy of the text)"
read -r t_report kb_report < <(measure 1 perf script report stackcollapse -i "$work/perf.data")
copies=$((bytes / $(stat -c %s "$work/one.txt")))
echo "perf script report stackcollapse: ${t_report}s per recording, x$copies = $(awk -v t="$t_report" -v c="$copies" 'BEGIN { print t * c }')s, peak ${kb_report} KB"

t_pl=
if [ -n "${FLAMEGRAPH:-}" ] && [ -f "$FLAMEGRAPH/stackcollapse-perf.pl" ]; then
	echo "== stackcollapse-perf.pl"
	read -r t_pl kb_pl < <(measure 1 perl "$FLAMEGRAPH/stackcollapse-perf.pl" "$work/perf.txt")
	sort "$work/out" > "$work/pl.folded"
	echo "stackcollapse-perf.pl: ${t_pl}s, $(mbps "$bytes" "$t_pl") MB/s, peak ${kb_pl} KB"
	if cmp -s "$work/lp.folded" "$work/pl.folded"; then
		echo "outputs: identical"
	else
		echo "outputs: DIFFERENT"; diff "$work/pl.folded" "$work/lp.folded" | head -5
	fi
else
	echo "== stackcollapse-perf.pl skipped: set FLAMEGRAPH to a FlameGraph checkout"
fi

echo "== perf script text -> SVG (best of 3): lp-svg -j 2 and -j 1$([ -n "${FLAMEGRAPH:-}" ] && echo "; stackcollapse-perf.pl | flamegraph.pl")"
read -r t_svg kb_svg < <(measure 3 "$svg" -j 2 "$work/perf.txt")
cp "$work/out" "$work/two.svg"
read -r t_svg1 kb_svg1 < <(measure 3 "$svg" -j 1 "$work/perf.txt")
cmp -s "$work/out" "$work/two.svg" && same="the same SVG" || same="a DIFFERENT SVG"
echo "lp-svg -j 2: ${t_svg}s, peak ${kb_svg} KB; -j 1: ${t_svg1}s, peak ${kb_svg1} KB, $same"
t_fg=
if [ -n "${FLAMEGRAPH:-}" ] && [ -f "$FLAMEGRAPH/flamegraph.pl" ]; then
	read -r t_fg kb_fg < <(measure 1 sh -c 'perl "$1/stackcollapse-perf.pl" "$2" | perl "$1/flamegraph.pl"' sh \
		"$FLAMEGRAPH" "$work/perf.txt")
	echo "stackcollapse-perf.pl | flamegraph.pl: ${t_fg}s, peak ${kb_fg} KB"
fi

echo "== summary"
echo "lp-collapse throughput on perf script text: $(mbps "$bytes" "$t_lp") MB/s on 2 cores, $(mbps "$bytes" "$t_lpj1") MB/s on one (target >= 400; issue #16: about 1 GB/s)"
echo "lp-collapse throughput on lp stream: $(mbps "$lpbytes" "$t_lpin") MB/s"
[ -z "$t_pl" ] || echo "speed-up over stackcollapse-perf.pl: $(ratio "$t_pl" "$t_lp")x on 2 cores, $(ratio "$t_pl" "$t_lpj1")x on one (target >= 30x); memory: $(ratio "$kb_pl" "$kb_lp")x less"
[ -z "$t_fg" ] || echo "perf script text -> SVG: lp-svg $(ratio "$t_fg" "$t_svg")x faster than stackcollapse-perf.pl | flamegraph.pl on 2 cores, $(ratio "$t_fg" "$t_svg1")x on one"
echo "speed-up over perf script report stackcollapse: $(ratio "$(awk -v t="$t_report" -v c="$copies" 'BEGIN { print t * c }')" "$t_lp")x"
echo "speed-up over perf script alone (text generation): $(ratio "$(awk -v t="$t_script" -v c="$copies" 'BEGIN { print t * c }')" "$t_lp")x"
