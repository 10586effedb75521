#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark of lp-svg against FlameGraph's flamegraph.pl on the same folded
# inputs, in the same run: two generated inputs of 200,000 unique stacks
# (average depth ~30: "generated" shares long prefixes, a few hundred thousand
# frames; "wide" parts early over a call graph, 3.5 million frames), the
# first shuffled, and a real recording of 100k+ samples (bench/workload.c
# under perf record -g). Prints time, peak memory, file size and, in headless
# Chromium, the time to draw and to answer a zoom click.
#
#   FLAMEGRAPH=/path/to/FlameGraph bench/svg.sh
#
# FlameGraph is not part of lp: without FLAMEGRAPH its columns are skipped.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${LP_BUILD:-$top/build}/bin
work=$(mktemp -d /tmp/lp-bench-svg.XXXXXX)
trap 'rm -rf "$work"' EXIT
[ -x "$bin/lp-svg" ] || { echo "bench: build lp first (make)" >&2; exit 1; }

# "SECONDS PEAK_KB" of one run; stdout to $work/out.
measure() {
	/usr/bin/time -o "$work/time" -f '%e %M' "$@" > "$work/out" 2> /dev/null
	cat "$work/time"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / (b > 0 ? b : 0.001) }'; }

echo "== inputs"
# sorted, as every stackcollapse tool and lp-collapse write folded stacks
awk -v n=200000 -f "$top/bench/gen-stacks.awk" | LC_ALL=C sort > "$work/generated.folded"
awk -v n=200000 -f "$top/bench/gen-stacks-wide.awk" | LC_ALL=C sort > "$work/wide.folded"
gcc -O2 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls -pthread \
	-o "$work/workload" "$top/bench/workload.c"
perf record -q -g -F 10000 -o "$work/perf.data" -- "$work/workload" 8 2 2>/dev/null
perf script -i "$work/perf.data" 2>/dev/null | "$bin/lp-collapse" > "$work/recorded.folded"
for input in generated wide recorded; do
	f=$work/$input.folded
	echo "$input: $(wc -l < "$f") unique stacks, $(awk '{ s += $NF } END { print s }' "$f") samples, $(( $(stat -c %s "$f") / 1000000 )) MB"
done

shuf --random-source=<(yes) "$work/generated.folded" > "$work/shuffled.folded"
for input in ${INPUTS:-generated shuffled wide recorded}; do
	f=$work/$input.folded
	echo "== $input"
	# the median of three: on these VMs a first run may pay for memory the host took back (2 MB
	# pages faulted in 4 ms instead of 0.15): 1.07 s against 0.71-0.74 on the "wide" input
	runs=$(for run in 1 2 3; do measure "$bin/lp-svg" "$f"; done | sort -n)
	read -r t_lp kb_lp < <(sed -n 2p <<<"$runs")
	mv "$work/out" "$work/$input.lp.svg"
	size_lp=$(stat -c %s "$work/$input.lp.svg")
	echo "lp-svg: ${t_lp}s (median of $(tr '\n' ' ' <<<"$runs" | awk '{ printf "%s, %s, %s s", $1, $3, $5 }')), peak ${kb_lp} KB, file $((size_lp / 1000)) KB"
	if [ -n "${FLAMEGRAPH:-}" ] && [ -f "$FLAMEGRAPH/flamegraph.pl" ]; then
		read -r t_fg kb_fg < <(measure perl "$FLAMEGRAPH/flamegraph.pl" "$f")
		mv "$work/out" "$work/$input.fg.svg"
		size_fg=$(stat -c %s "$work/$input.fg.svg")
		echo "flamegraph.pl: ${t_fg}s, peak ${kb_fg} KB, file $((size_fg / 1000)) KB"
		echo "ratios: $(ratio "$t_fg" "$t_lp")x faster (target 30x), $(ratio "$kb_fg" "$kb_lp")x less memory (target 10x), file $(ratio "$size_lp" "$size_fg") of flamegraph.pl's (target <= 1)"
	fi
	if [ -x /usr/bin/chromium ] && [ -d "$top/tests/browser/node_modules/playwright-core" ]; then
		echo "chromium, lp-svg: $(node "$top/bench/svg-browser.mjs" "$work/$input.lp.svg")"
	fi
done
