#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark of counting: lp-stat against perf stat, in the same run, each with
# its default set of events (task-clock, context-switches, cpu-migrations,
# page-faults; the hardware ones where a PMU counts them), on a fork-heavy
# command (2000 /bin/true started by sh) and a syscall-heavy one (200000
# write(2) calls of tests/workloads/writes). Runs alternate plain, lp-stat,
# perf stat; the figures are medians of the wall times and their ratios.
# Needs root (or perf_event_paranoid <= 0) and perf.
#
#   bench/stat.sh     (RUNS=7 FORKS=2000 WRITES=200000 to change)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${LP_BUILD:-$top/build}/bin
runs=${RUNS:-7}
forks=${FORKS:-2000}
writes=${WRITES:-200000}
work=$(mktemp -d /tmp/lp-bench-stat.XXXXXX)
trap 'rm -rf "$work"' EXIT
[ -x "$bin/lp-stat" ] || { echo "bench: build lp first (make)" >&2; exit 1; }
command -v perf > /dev/null || { echo "bench: perf not found (apt-get install linux-perf)" >&2; exit 1; }
gcc -O2 -o "$work/writes" "$top/tests/workloads/writes.c"

now() { date +%s.%N; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / (b > 0 ? b : 0.000001) }'; }

# Seconds of wall time of "$@", its output dropped.
timed() {
	local t0 t1
	t0=$(now)
	"$@" > /dev/null 2>&1
	t1=$(now)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f\n", b - a }'
}

# One case: NAME COMMAND...: the medians and the ratios.
bench_case() {
	local name=$1
	shift
	: > "$work/plain" ; : > "$work/lp" ; : > "$work/perf"
	timed "$@" > /dev/null	# warm the caches
	for _ in $(seq "$runs"); do
		timed "$@" >> "$work/plain"
		timed "$bin/lp-stat" -x, -- "$@" >> "$work/lp"
		timed perf stat -x, -- "$@" >> "$work/perf"
	done
	local p l f
	p=$(median < "$work/plain")
	l=$(median < "$work/lp")
	f=$(median < "$work/perf")
	echo "== $name"
	echo "plain ${p} s, lp-stat ${l} s, perf stat ${f} s (medians of $runs)"
	echo "lp-stat/plain $(ratio "$l" "$p")x, perf stat/plain $(ratio "$f" "$p")x, lp-stat/perf stat $(ratio "$l" "$f")x (target: at most 1x)"
}

bench_case "fork-heavy: $forks /bin/true under sh" \
	sh -c "i=0; while [ \$i -lt $forks ]; do /bin/true; i=\$((i + 1)); done"
bench_case "syscall-heavy: $writes write(2)" "$work/writes" "$writes" 1
# counts agree: the writes seen by both
lp=$("$bin/lp-stat" -x, -e syscalls:sys_enter_write -- "$work/writes" "$writes" 1 2>&1 >/dev/null | awk -F, '$3 == "syscalls:sys_enter_write" { print $1 }')
pf=$(perf stat -x, -e syscalls:sys_enter_write -- "$work/writes" "$writes" 1 2>&1 >/dev/null | awk -F, '$3 == "syscalls:sys_enter_write" { print $1 }')
echo "== counts"
echo "syscalls:sys_enter_write: lp-stat $lp, perf stat $pf"
