#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What counting by emulation costs (lp-roofline record --emulate): each
# triad of tests/workloads/flopkinds.c (a[i] = b[i] + s * c[i], one ISA and
# precision each) natively, under plain qemu-user (-cpu max), under
# qemu-user with lp-count, lp's TCG plugin (bytes learned, then counted
# without callbacks), and with lp-count's exact=1 (a memory callback each
# access throughout); each the median of RUNS runs, in turn. Prints the
# times and the ratios: emulated to native (the issue's "30x"), lp-count to
# plain QEMU (what the plugin adds: DESIGN.md's "half again"), and the whole
# record --emulate against lp-record alone.
#
#   bench/roofline-emulate.sh          (RUNS=3 REPS=100000; bench/all.sh runs it too)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${LP_BUILD:-$top/build}
runs=${RUNS:-3}
reps=${REPS:-100000}
qemu=qemu-$(uname -m)
command -v "$qemu" > /dev/null || { echo "no $qemu: apt-get install qemu-user" >&2; exit 1; }
work=$(mktemp -d /tmp/lp-bench-emulate.XXXXXX)
trap 'rm -rf "$work"' EXIT
w=$build/workloads/flopkinds
plugin=$build/lib/lp/lp-count.so

now() { date +%s.%N; }
median() { sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
timed() { local t0 t1; t0=$(now); "$@" > /dev/null 2>&1; t1=$(now); echo "$t1 - $t0" | bc; }

kinds="scalar-dp sse-dp"
grep -qw avx2 /proc/cpuinfo && kinds="$kinds avx2-dp"
echo "== $qemu $("$qemu" --version | head -1 | sed 's/.*version //'): triads of $reps x 1024 doubles, median of $runs"
printf '%-10s %9s %9s %9s %9s %11s %13s %10s\n' kernel native qemu lp-count exact=1 "emu/native" "lp-count/qemu" "exact/qemu"
for k in $kinds; do
	: > "$work/n" ; : > "$work/q"; : > "$work/c"; : > "$work/x"
	for _ in $(seq "$runs"); do
		timed "$w" "$k" "$reps" >> "$work/n"
		timed "$qemu" -cpu max "$w" "$k" "$reps" >> "$work/q"
		timed "$qemu" -cpu max -plugin "$plugin,out=$work/count" "$w" "$k" "$reps" >> "$work/c"
		timed "$qemu" -cpu max -plugin "$plugin,out=$work/count,exact=1" "$w" "$k" "$reps" >> "$work/x"
		rm -f "$work"/count.*
	done
	n=$(median < "$work/n") q=$(median < "$work/q") c=$(median < "$work/c") x=$(median < "$work/x")
	printf '%-10s %8.3fs %8.3fs %8.3fs %8.3fs %10.1fx %12.2fx %9.2fx\n' "$k" "$n" "$q" "$c" "$x" "$(echo "$c / $n" | bc -l)" \
		"$(echo "$c / $q" | bc -l)" "$(echo "$x / $q" | bc -l)"
done
: > "$work/r"; : > "$work/e"
for _ in $(seq "$runs"); do
	timed "$build/bin/lp-record" -o "$work/r.lp" -- "$w" sse-dp "$reps" >> "$work/r"
	timed "$build/bin/lp-roofline" record --emulate -o "$work/e.lp" -- "$w" sse-dp "$reps" >> "$work/e"
done
r=$(median < "$work/r") e=$(median < "$work/e")
printf 'lp-record alone %.3fs, lp-roofline record --emulate %.3fs: %.1fx\n' "$r" "$e" "$(echo "$e / $r" | bc -l)"
