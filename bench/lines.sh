#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark of lp-lines against perf report --sort srcline (which runs addr2line)
# on recordings of the same programs (-F 4999, on the CPU only): bench/workload.c
# (few distinct addresses: perf at its best) and lp-svg drawing 1M generated
# stacks (thousands of distinct addresses, as real programs). Samples per second
# each, and the top lines of both side by side.
#
#   bench/lines.sh
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${LP_BUILD:-$top/build}/bin
work=$(mktemp -d /tmp/lp-bench-lines.XXXXXX)
trap 'rm -rf "$work"' EXIT
[ -x "$bin/lp-lines" ] || { echo "bench: build lp first (make)" >&2; exit 1; }
gcc -O2 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls -pthread \
	-o "$work/workload" "$top/bench/workload.c"
awk -v n=1000000 -f "$top/bench/gen-stacks.awk" | LC_ALL=C sort > "$work/stacks.folded"
rate() { awk -v n="$1" -v t="$2" 'BEGIN { printf "%.0f", n / (t > 0 ? t : 0.001) }'; }

# compare NAME COMMAND...: the same command recorded by both, then each tool's per-line table.
compare() {
	local name=$1 n_lp n_perf t_lp t_perf
	shift
	"$bin/lp-record" -q --offcpu-freq 0 -F 4999 -o "$work/w.lp" "$@" > /dev/null
	perf record -q -F 4999 -o "$work/w.data" "$@" > /dev/null 2>&1
	n_lp=$(grep -c '^S' "$work/w.lp")
	n_perf=$(perf script -i "$work/w.data" -F ip 2> /dev/null | wc -l)
	/usr/bin/time -o "$work/t" -f '%e' "$bin/lp-lines" "$work/w.lp" > "$work/lp.txt" 2> /dev/null
	t_lp=$(cat "$work/t")
	/usr/bin/time -o "$work/t" -f '%e' perf report -i "$work/w.data" --sort srcline --stdio > "$work/perf.txt" 2> /dev/null
	t_perf=$(cat "$work/t")
	echo "== $name"
	echo "lp-lines: $n_lp samples in ${t_lp}s: $(rate "$n_lp" "$t_lp") samples/s"
	echo "perf report --sort srcline: $n_perf samples in ${t_perf}s: $(rate "$n_perf" "$t_perf") samples/s"
	echo "speed-up: $(awk -v a="$n_lp" -v ta="$t_lp" -v b="$n_perf" -v tb="$t_perf" \
		'BEGIN { printf "%.1f", (a / (ta > 0 ? ta : 0.001)) / (b / (tb > 0 ? tb : 0.001)) }')x (target 100x)"
	# per sample, apart from the fixed cost of opening the debug information (libc's is
	# compressed: inflating it is most of a short run): the same stream read 16 times
	# over costs the time of its samples only (16, so that /usr/bin/time's 10 ms do not matter)
	for i in $(seq 16); do cat "$work/w.lp"; done > "$work/w16.lp"
	/usr/bin/time -o "$work/t" -f '%e' "$bin/lp-lines" "$work/w16.lp" > /dev/null 2>&1
	t_lp16=$(cat "$work/t")
	echo "lp-lines per sample (16x the stream: $((16 * n_lp)) samples in ${t_lp16}s): $(rate $((15 * n_lp)) \
		"$(awk -v a="$t_lp16" -v b="$t_lp" 'BEGIN { print a - b }')") samples/s beyond the first pass;" \
		"speed-up per sample: $(awk -v a="$n_lp" -v t16="$t_lp16" -v t1="$t_lp" -v b="$n_perf" -v tb="$t_perf" \
		'BEGIN { d = t16 - t1; printf "%.1f", (15 * a / (d > 0 ? d : 0.001)) / (b / (tb > 0 ? tb : 0.001)) }')x (target 100x)"
	echo "top lines, lp-lines:"
	head -3 "$work/lp.txt" | awk -F'\t' '{ printf "  %s %s %s\n", $4, $1, $2 }'
	echo "top lines, perf:"
	grep -v '^#' "$work/perf.txt" | grep -v '^$' | head -3
}

compare "bench/workload.c, 2 threads, 3 s" "$work/workload" 3 2
compare "lp-svg drawing 1M generated stacks" "$bin/lp-svg" "$work/stacks.folded"
