#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark of lp-filter: throughput of a 20-rule deny filter and of a Python
# filter on an lp stream of MIN_MB (200 by default) made of a real recording
# (bench/workload.c under lp-record, repeated), with `cat` as the floor; then
# on that recording alone (stacks repeat less), and on its distinct stacks only
# (none repeats: the per-stack memo never helps, the worst case).
#
#   bench/filter.sh
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${LP_BUILD:-$top/build}/bin
min_mb=${MIN_MB:-200}
work=$(mktemp -d /tmp/lp-bench-filter.XXXXXX)
trap 'rm -rf "$work"' EXIT
[ -x "$bin/lp-filter" ] || { echo "bench: build lp first (make)" >&2; exit 1; }
gcc -O2 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls -pthread \
	-o "$work/workload" "$top/bench/workload.c"
"$bin/lp-record" -q -F 4999 -o "$work/one.lp" "$work/workload" 3 2
: > "$work/in.lp"
while [ "$(stat -c %s "$work/in.lp")" -lt $((min_mb * 1000000)) ]; do
	grep '^S' "$work/one.lp" >> "$work/in.lp"
done
bytes=$(stat -c %s "$work/in.lp")
echo "input: $((bytes / 1000000)) MB, $(grep -c '^S' "$work/in.lp") samples"

# 20 rules: a few that match (libc, the loader, two levels), the rest not
{
	echo 'EXEC /libc\.so'
	for i in $(seq 1 8); do echo OR; echo "SYM ^never_called_$i\$"; done
	echo OR; echo 'SYM ^level[37]$'
	echo OR; echo 'ANY ld-linux'
	for i in $(seq 1 4); do echo OR; echo "SYM absent_${i}_.*_suffix"; echo "EXEC /nowhere/$i"; done
	echo OR; echo 'SYM ^_start$'
} > "$work/deny.txt"
rules=$(grep -c -E '^(SYM|EXEC|ANY) ' "$work/deny.txt")
printf 'def process(callchain):\n    return [True] * len(callchain)\n' > "$work/keep.py"

# Best wall time of RUNS (3) runs: the host's noise only ever adds.
secs() {
	local b= t
	for _ in $(seq "${RUNS:-3}"); do
		/usr/bin/time -o "$work/time" -f '%e' "$@" > /dev/null 2>&1
		t=$(cat "$work/time")
		if [ -z "$b" ] || awk "BEGIN { exit !($t < $b) }"; then b=$t; fi
	done
	echo "$b"
}
mbps() { awk -v b="$bytes" -v s="$1" 'BEGIN { printf "%.0f", b / 1e6 / (s > 0 ? s : 0.001) }'; }

t_cat=$(secs cat "$work/in.lp")
t_deny=$(secs "$bin/lp-filter" deny:"$work/deny.txt" "$work/in.lp")
t_mark=$(secs "$bin/lp-filter" --mark deny:"$work/deny.txt" "$work/in.lp")
t_collapse=$(secs "$bin/lp-collapse" "$work/in.lp")
echo "cat: ${t_cat}s, $(mbps "$t_cat") MB/s"
echo "lp-collapse (parsing alone, for scale): ${t_collapse}s, $(mbps "$t_collapse") MB/s"
echo "lp-filter deny ($rules rules): ${t_deny}s, $(mbps "$t_deny") MB/s (target >= 300)"
echo "lp-filter --mark deny ($rules rules): ${t_mark}s, $(mbps "$t_mark") MB/s"
awk -F'\t' '!/^S/ || !seen[$8 FS $9]++' "$work/one.lp" > "$work/distinct.lp"
for f in one distinct; do
	b=$(stat -c %s "$work/$f.lp")
	t=$(secs "$bin/lp-filter" deny:"$work/deny.txt" "$work/$f.lp")
	echo "lp-filter deny ($rules rules) on $f.lp ($((b / 1000000)) MB, $(grep -c '^S' "$work/$f.lp") samples): ${t}s, $(awk -v b="$b" -v s="$t" 'BEGIN { printf "%.0f", b / 1e6 / (s > 0 ? s : 0.001) }') MB/s"
done
head -n 8000 "$work/in.lp" > "$work/small.lp"
small=$(stat -c %s "$work/small.lp")
t_py=$(secs "$bin/lp-filter" python:"$work/keep.py" "$work/small.lp")
echo "lp-filter python (keep all), on $((small / 1000000)) MB: ${t_py}s, $(awk -v b="$small" -v s="$t_py" 'BEGIN { printf "%.0f", b / 1e6 / (s > 0 ? s : 0.001) }') MB/s, $(awk -v n="$(wc -l < "$work/small.lp")" -v s="$t_py" 'BEGIN { printf "%.0f", n / (s > 0 ? s : 0.001) }') samples/s"
