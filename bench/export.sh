#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark of lp-export: each format on an lp stream of EXPORT_MB (1000 by
# default) made of a real recording (bench/workload.c under lp-record, on and
# off the CPU, at 4999 Hz) repeated with its times shifted, so the threads'
# samples go on in time order as in one long recording. Prints each format's
# best time of RUNS (3), its rate, its peak memory (which must not grow with
# the input: the same figures for a tenth of it are printed beside) and, as a
# floor, what `cat` and lp-collapse take on the same input.
#
#   bench/export.sh
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${LP_BUILD:-$top/build}/bin
mb=${EXPORT_MB:-1000}
runs=${RUNS:-3}
work=$(mktemp -d /tmp/lp-bench-export.XXXXXX)
trap 'rm -rf "$work"' EXIT
[ -x "$bin/lp-export" ] || { echo "bench: build lp first (make)" >&2; exit 1; }
command -v /usr/bin/time > /dev/null || { echo "bench: needs GNU time (apt-get install time)" >&2; exit 1; }
gcc -O2 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls -pthread \
	-o "$work/workload" "$top/bench/workload.c"
"$bin/lp-record" -q -F 4999 -o "$work/one.lp" "$work/workload" 3 2

# Copies of the recording's records, each shifted past the end of the one before.
make_input() {
	awk -F'\t' -v OFS='\t' -v want=$(($1 * 1000000)) '
		/^#/ { if (!copying) print; next }
		{ line[n++] = $0; if ($1 == "S" && $2 + 0 > last) last = $2 + 0; if (first == "" || $2 + 0 < first) first = $2 + 0 }
		END {
			span = last - first + 1000000
			for (k = 0; bytes < want; k++)
				for (i = 0; i < n && bytes < want; i++) {
					split(line[i], f, "\t")
					if (f[1] != "S" && f[1] != "P" && f[1] != "T") continue
					f[2] = sprintf("%.0f", f[2] + k * span)
					s = f[1]
					for (j = 2; j <= length(f); j++) s = s "\t" f[j]
					print s
					bytes += length(s) + 1
				}
		}' "$work/one.lp" > "$2"
}
make_input "$mb" "$work/big.lp"
make_input $((mb / 10)) "$work/small.lp"
echo "input: $(($(stat -c %s "$work/big.lp") / 1000000)) MB, $(grep -c '^S' "$work/big.lp") samples;" \
	"a tenth: $(($(stat -c %s "$work/small.lp") / 1000000)) MB"

# "SECONDS PEAK_KB" of the best run (memory of that run).
measure() {
	local best= t m
	for _ in $(seq "$runs"); do
		/usr/bin/time -f '%e %M' -o "$work/time" "$@" > "$work/out" 2> /dev/null
		read -r t m < "$work/time"
		if [ -z "$best" ] || awk -v a="$t" -v b="${best% *}" 'BEGIN { exit !(a < b) }'; then
			best="$t $m"
		fi
	done
	echo "$best"
}

bytes=$(stat -c %s "$work/big.lp")
read -r cat_s _ < <(measure cat "$work/big.lp")
read -r col_s col_kb < <(measure "$bin/lp-collapse" "$work/big.lp")
echo "== floor"
printf '  cat %.2f s; lp-collapse %.2f s (%.0f MB/s), peak %d MB\n' "$cat_s" "$col_s" \
	"$(awk -v b="$bytes" -v s="$col_s" 'BEGIN { print b / 1e6 / s }')" $((col_kb / 1024))
for f in perf-script trace speedscope pprof; do
	read -r s kb < <(measure "$bin/lp-export" -f "$f" "$work/big.lp")
	out=$(stat -c %s "$work/out")
	read -r _ small_kb < <(RUNS=1 measure "$bin/lp-export" -f "$f" "$work/small.lp")
	echo "== $f"
	printf '  %.2f s, %.0f MB/s; %.2fx lp-collapse; output %d MB\n' "$s" \
		"$(awk -v b="$bytes" -v s="$s" 'BEGIN { print b / 1e6 / s }')" \
		"$(awk -v a="$s" -v b="$col_s" 'BEGIN { print a / b }')" $((out / 1000000))
	printf '  peak memory %d MB for %d MB of input (%d MB for a tenth of it)\n' $((kb / 1024)) \
		$((bytes / 1000000)) $((small_kb / 1024))
done
