#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# lp-roofline roofs against the CARM Tool (github.com/champ-hub/carm-roofline,
# not part of lp) on the same settings: one thread, avx2 (or the ISA given),
# double precision, 2 loads to 1 store, 32 runs (the CARM Tool's -nr 32),
# each tool run ROUNDS times in turn. Prints each figure's median from both,
# the ratio, and each tool's time. The CARM Tool's L3 is left out of the
# comparison where it sized its L3 test from a VM's claimed L3 (it then runs
# in DRAM): lp-roofline says so on stderr as well.
#
#   CARM=/path/to/carm-roofline bench/roofline.sh     (ISA=avx2 ROUNDS=3)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${LP_BIN:-$top/build/bin}
isa=${ISA:-avx2}
rounds=${ROUNDS:-3}
: "${CARM:?set CARM to a checkout of the CARM Tool (github.com/champ-hub/carm-roofline)}"
work=$(mktemp -d /tmp/lp-bench-roofline.XXXXXX)
trap 'rm -rf "$work"' EXIT
cp -r "$CARM" "$work/carm"
(cd "$work/carm" && make > /dev/null 2>&1) || { echo "cannot build the CARM Tool in $work/carm" >&2; exit 1; }

now() { date +%s.%N; }
for r in $(seq "$rounds"); do
	t0=$(now)
	(cd "$work/carm" && python3 run.py --name bench --isa "$isa" -nr 32 > "$work/carm.$r.log" 2>&1)
	t1=$(now)
	"$bin/lp-roofline" roofs --isa "$isa" -r 32 --csv "$work/lp" --name bench > "$work/lp.$r.lp" 2> "$work/lp.$r.err"
	t2=$(now)
	echo "$r $(echo "$t1 - $t0" | bc) $(echo "$t2 - $t1" | bc)" >> "$work/times"
	echo "round $r: CARM Tool $(echo "$t1 - $t0" | bc) s, lp-roofline $(echo "$t2 - $t1" | bc) s" >&2
done
grep -h warning "$work"/lp.*.err | sort -u >&2 || true

# both CSVs have the same layout: GB/s of L1, L2, L3, DRAM in columns 10, 12, 14, 16; Gflop/s of add and fma in 18, 20
median() { sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
column() { awk -F, -v c="$2" 'NR > 2 { print $c }' "$1" | tr -d '\r' | median; }
carm_csv=$work/carm/carm_results/roofline/bench_roofline.csv
lp_csv=$work/lp/roofline/bench_roofline.csv
echo "== lp-roofline roofs vs the CARM Tool ($isa, dp, 1 thread, 2:1, 32 runs; median of $rounds rounds)"
printf '%-8s %12s %12s %8s\n' figure "CARM Tool" lp-roofline "lp/CARM"
for f in L1:10 L2:12 L3:14 DRAM:16 FP-add:18 FP-fma:20; do
	c=$(column "$carm_csv" "${f#*:}") l=$(column "$lp_csv" "${f#*:}")
	unit=GB/s; [[ $f == FP* ]] && unit=Gflop/s
	printf '%-8s %9.2f %s %9.2f %s %7.2fx\n' "${f%:*}" "$c" "$unit" "$l" "$unit" "$(echo "$l / $c" | bc -l)"
done
echo "CARM Tool's cache sizes: $(head -1 "$carm_csv" | tr -d '\r' | cut -d, -f3-8)"
echo "lp-roofline's: $(grep '^#lp.cache' "$work/lp.1.lp" | tr '\t' ' ' | paste -sd';')"
ct=$(awk '{ print $2 }' "$work/times" | median) lt=$(awk '{ print $3 }' "$work/times" | median)
echo "time: CARM Tool $ct s, lp-roofline $lt s: $(echo "$ct / $lt" | bc -l | xargs printf '%.1f')x faster"
