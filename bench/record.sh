#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark of lp-record against perf record -g on the same workload, in the
# same run: the workload's slowdown at 99, 999 and 4999 Hz (a fixed amount of
# work, bench/workload.c, 2 threads, best of RUNS), and the time to get a
# symbolised stream: lp-record's own symbolising vs perf script on the same
# number of samples. Needs root (or perf_event_paranoid <= 1) and perf.
#
#   bench/record.sh
#   SECTIONS="slowdown symbolise live nofp events" RUNS=5 bench/record.sh   (which parts)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${LP_BUILD:-$top/build}/bin
runs=${RUNS:-3}
work=$(mktemp -d /tmp/lp-bench-record.XXXXXX)
trap 'rm -rf "$work"' EXIT
[ -x "$bin/lp-record" ] || { echo "bench: build lp first (make)" >&2; exit 1; }
gcc -O2 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls -pthread \
	-o "$work/workload" "$top/bench/workload.c"
gcc -O2 -o "$work/sampleonly" "$top/bench/sampleonly.c"
iters=${ITERATIONS:-60000}

# Best wall time of $runs runs of the command.
best() {
	local b=
	for _ in $(seq "$runs"); do
		/usr/bin/time -o "$work/time" -f '%e' "$@" > /dev/null 2> "$work/err"
		t=$(cat "$work/time")
		if [ -z "$b" ] || awk "BEGIN { exit !($t < $b) }"; then b=$t; fi
	done
	echo "$b"
}
# wall seconds of a command writing its output to file $1 (time(1) gives hundredths: lp-svg takes a few)
seconds() {
	local start out=$1
	shift
	start=$(date +%s.%N)
	"$@" > "$out" 2> /dev/null
	awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.4f", b - a }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
sections=" ${SECTIONS:-slowdown stack-size symbolise live nofp events} "
want() { [[ $sections == *" $1 "* ]]; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / (b > 0 ? b : 0.001) }'; }

if want slowdown; then
echo "== workload slowdown (bench/workload.c n$iters, 2 threads, best of $runs)"
plain=$(best "$work/workload" "n$iters" 2)
echo "plain: ${plain}s"
for hz in 99 999 4999; do
	t_lp=$(best "$bin/lp-record" -q --offcpu-freq 0 -F "$hz" -o "$work/lp.lp" "$work/workload" "n$iters" 2)
	t_live=$(best "$bin/lp-record" -q --live -F "$hz" -o "$work/lp.lp" "$work/workload" "n$iters" 2)
	t_perf=$(best perf record -q -g -F "$hz" -o "$work/perf.data" "$work/workload" "n$iters" 2)
	echo "-F $hz: lp-record ${t_lp}s ($(ratio "$t_lp" "$plain")x), lp-record --live ${t_live}s ($(ratio "$t_live" "$plain")x), perf record -g ${t_perf}s ($(ratio "$t_perf" "$plain")x)"
	# the floor: what the machine charges for the interrupts alone, and for samples without a user stack
	t_timer=$(TIMER_HZ=$hz best "$work/workload" "n$iters" 2)
	t_kernel=$(best "$bin/lp-record" -q --offcpu-freq 0 --capture kernel -F "$hz" -o "$work/lp.lp" "$work/workload" "n$iters" 2)
	# the kernel's part of lp-record's default: task-clock samples with its stack copy, thrown away unread
	t_bare=$(best "$work/sampleonly" "$hz" 24576 "$work/workload" "n$iters" 2)
	t_bare0=$(best "$work/sampleonly" "$hz" 0 "$work/workload" "n$iters" 2)
	echo "   floor: an empty timer signal per thread at $hz Hz, no profiler ${t_timer}s ($(ratio "$t_timer" "$plain")x); lp-record --capture kernel (no user stack) ${t_kernel}s ($(ratio "$t_kernel" "$plain")x)"
	echo "   the kernel's sampling alone (bench/sampleonly, nothing read): with lp-record's 24 KB stack copy ${t_bare}s ($(ratio "$t_bare" "$plain")x), without ${t_bare0}s ($(ratio "$t_bare0" "$plain")x)"
done
echo "lp-record on /bin/true: $(best "$bin/lp-record" -q -o "$work/true.lp" /bin/true)s (on and off the CPU), perf record: $(best perf record -q -o "$work/true.data" /bin/true)s"

fi

if want stack-size; then
plain=${plain:-$(best "$work/workload" "n$iters" 2)}
echo "== --stack-size: the user stack copied with each sample (-F 999, best of $runs)"
for size in 2048 16384; do
	t_lp=$(best "$bin/lp-record" -q --offcpu-freq 0 -F 999 --stack-size "$size" -o "$work/ss.lp" \
		"$work/workload" "n$iters" 2)
	t_perf=$(best perf record -q -F 999 --call-graph "dwarf,$size" -o "$work/ss.data" "$work/workload" "n$iters" 2)
	echo "$size bytes: lp-record ${t_lp}s ($(ratio "$t_lp" "$plain")x, stream $(stat -c %s "$work/ss.lp") bytes), perf record --call-graph dwarf,$size ${t_perf}s ($(ratio "$t_perf" "$plain")x, perf.data $(stat -c %s "$work/ss.data") bytes)"
done

fi

if want symbolise; then
# Two shapes of stack: bench/workload.c LEVELS 10 (about 23 frames, the
# shape of issue #16's figures) and 25 (about 54 frames). Each side is run
# $runs times (alternated) and its median rate kept: this host's noise moves
# single runs by half (perf script 0.55-0.84 s for the same samples).
for levels in ${LEVELS:-10 25}; do
	shape="~$((2 * levels + 4)) frames a stack"
	echo "== a symbolised stream of the same samples (-F 4999, 2 threads, ${SECONDS_RECORDED:-4}s, $levels levels: $shape; median of $runs runs each)"
	perf record -q -g -F 4999 -o "$work/perf.data" "$work/workload" "${SECONDS_RECORDED:-4}" 2 "$levels" 2>/dev/null
	: > "$work/rates"
	for r in $(seq "$runs"); do
		# each timed side starts with the others' output written back: a flush of the last
		# side's 50-130 MB, on one of two CPUs, made single runs half again as slow
		sync
		"$bin/lp-record" --offcpu-freq 0 -F 4999 -o "$work/lp.lp" "$work/workload" "${SECONDS_RECORDED:-4}" 2 "$levels" 2> "$work/lp.err"
		n_lp=$(grep -c '^S' "$work/lp.lp")
		t_sym=$(sed -n 's/.*written in \([0-9.]*\) s.*/\1/p' "$work/lp.err")
		t_svg=$(seconds "$work/lp.svg" "$bin/lp-svg" "$work/lp.lp")
		# as a user runs it: lp-record | lp-svg, the two on both cores at once; post-processing is
		# lp-record's write phase (its own figure) and what lp-svg does after lp-record is done
		sync
		{ "$bin/lp-record" --offcpu-freq 0 -F 4999 "$work/workload" "${SECONDS_RECORDED:-4}" 2 "$levels" 2> "$work/pipe.err"
		  date +%s.%N > "$work/rec-end"; } | "$bin/lp-svg" > "$work/pipe.svg"
		svg_end=$(date +%s.%N)
		t_pipe_sym=$(sed -n 's/.*written in \([0-9.]*\) s.*/\1/p' "$work/pipe.err")
		n_pipe=$(sed -n 's/^lp-record: \([0-9]*\) on-CPU samples.*/\1/p' "$work/pipe.err")
		t_pipe=$(awk -v w="$t_pipe_sym" -v r="$(cat "$work/rec-end")" -v e="$svg_end" 'BEGIN { print w + (e - r) }')
		sync
		t_script=$(seconds "$work/perf.txt" perf script -i "$work/perf.data")
		n_perf=$(grep -c '^$' "$work/perf.txt" || true)
		t_fg=
		if [ -n "${FLAMEGRAPH:-}" ] && [ -f "$FLAMEGRAPH/flamegraph.pl" ]; then
			t_fg=$(seconds "$work/perf.svg" sh -c 'perf script -i "$1" | "$2/stackcollapse-perf.pl" | "$2/flamegraph.pl"' \
				sh "$work/perf.data" "$FLAMEGRAPH")
		fi
		echo "$r $n_lp $t_sym $t_svg $n_pipe $t_pipe_sym $t_pipe $n_perf $t_script ${t_fg:-0}" >> "$work/rates"
		echo "run $r: lp-record $n_lp samples written in ${t_sym}s, lp-svg ${t_svg}s; piped: write ${t_pipe_sym}s, all ${t_pipe}s; perf script $n_perf samples in ${t_script}s${t_fg:+, with FlameGraph ${t_fg}s}"
	done
	sym=$(awk '{ print $2 / ($3 > 0 ? $3 : 0.001) }' "$work/rates" | median)
	script=$(awk '{ print $8 / ($9 > 0 ? $9 : 0.001) }' "$work/rates" | median)
	echo "lp-record: $(printf '%.0f' "$sym") samples/s symbolised and written (median)"
	echo "perf script: $(printf '%.0f' "$script") samples/s (median)"
	echo "speed-up: $(awk -v a="$sym" -v b="$script" 'BEGIN { printf "%.1f", a / b }')x (target 10x)"

	echo "== recording -> flame graph, post-processing only (the streams above, $shape; FLAMEGRAPH for the peer)"
	# lp: lp-record's own symbolise-and-write phase, then lp-svg on its stream;
	# perf: perf script | stackcollapse-perf.pl | flamegraph.pl on perf.data of as many samples
	one=$(awk '{ print $2 / ($3 + $4 > 0 ? $3 + $4 : 0.001) }' "$work/rates" | median)
	two=$(awk '{ print $5 / ($7 > 0 ? $7 : 0.001) }' "$work/rates" | median)
	echo "lp: symbolise and write + lp-svg: $(printf '%.0f' "$one") samples/s (median)"
	echo "lp-record | lp-svg (two cores): write phase + lp-svg's rest: $(printf '%.0f' "$two") samples/s (median)"
	if [ -n "${FLAMEGRAPH:-}" ] && [ -f "$FLAMEGRAPH/flamegraph.pl" ]; then
		fg=$(awk '{ print $8 / ($10 > 0 ? $10 : 0.001) }' "$work/rates" | median)
		echo "perf script | stackcollapse-perf.pl | flamegraph.pl: $(printf '%.0f' "$fg") samples/s (median)"
		echo "speed-up: $(awk -v a="$one" -v b="$fg" 'BEGIN { printf "%.1f", a / b }')x (target 50x), one core"
		echo "speed-up: $(awk -v a="$two" -v b="$fg" 'BEGIN { printf "%.1f", a / b }')x (target 50x), lp-record | lp-svg on two cores (the peer's pipeline runs on both too)"
		# What the stream's bytes alone cost on this machine, next to what
		# 50x leaves for all of lp's work: a floor no parser can go under
		# (copies and pipes are far dearer in some VMs than on bare metal).
		: > "$work/floor"
		for _ in $(seq "$runs"); do
			echo "$(seconds /dev/null cat "$work/lp.lp") $(seconds /dev/null sh -c 'cat "$1" | cat' sh "$work/lp.lp")" >> "$work/floor"
		done
		n_last=$(grep -c '^S' "$work/lp.lp")
		echo "the stream alone ($(awk -v s="$(stat -c %s "$work/lp.lp")" 'BEGIN { printf "%.1f", s / 1e6 }') MB, $n_last samples):" \
			"read $(cut -d' ' -f1 "$work/floor" | median)s, through a pipe $(cut -d' ' -f2 "$work/floor" | median)s (medians);" \
			"the 50x target leaves $(awk -v n="$n_last" -v r="$fg" 'BEGIN { printf "%.4f", n / r / 50 }')s for these samples"
	else
		echo "(FLAMEGRAPH unset: the perf + FlameGraph side is skipped)"
	fi
done

fi

if want live; then
# lp-record --live | lp-svg against the peer streamed the same way (perf record
# -o - | perf script | stackcollapse-perf.pl | flamegraph.pl), and against
# lp-record | lp-svg: how long after the command ends its flame graph is
# done (the wait), and the CPU each whole pipeline spent (the workload's
# included: a fixed amount of work, so what differs is the tools'). The
# command is wrapped to note its end: sh -c 'workload ...; date > end'.
levels=${LEVELS_LIVE:-10}
live_iters=${LIVE_ITERATIONS:-160000}
printf '#!/bin/sh\n"$@"\nstatus=$?\ndate +%%s.%%N > "$MARK"\nexit $status\n' > "$work/marked.sh"
chmod +x "$work/marked.sh"
echo "== live: from the command's end to its flame graph (bench/workload.c n$live_iters, 2 threads, $levels levels, -F 4999; median of $runs runs each)"
ways="lp-live lp"
if [ -n "${FLAMEGRAPH:-}" ] && [ -f "$FLAMEGRAPH/flamegraph.pl" ]; then
	ways="$ways perf-stream perf"
else
	echo "(FLAMEGRAPH unset: the perf + FlameGraph side is skipped)"
fi
: > "$work/live"
for r in $(seq "$runs"); do
	for way in $ways; do
		case $way in
		lp-live) cmd='"$B/lp-record" -q --live -F 4999 "$D/marked.sh" "$D/workload" "$N" 2 "$L" | "$B/lp-svg" > "$D/out.svg"' ;;
		lp) cmd='"$B/lp-record" -q --offcpu-freq 0 -F 4999 "$D/marked.sh" "$D/workload" "$N" 2 "$L" | "$B/lp-svg" > "$D/out.svg"' ;;
		perf-stream) cmd='perf record -q -g -F 4999 -o - "$D/marked.sh" "$D/workload" "$N" 2 "$L" 2> /dev/null |
			perf script -i - 2> /dev/null | "$FG/stackcollapse-perf.pl" | "$FG/flamegraph.pl" > "$D/out.svg"' ;;
		perf) cmd='perf record -q -g -F 4999 -o "$D/live.data" "$D/marked.sh" "$D/workload" "$N" 2 "$L" 2> /dev/null &&
			perf script -i "$D/live.data" 2> /dev/null | "$FG/stackcollapse-perf.pl" | "$FG/flamegraph.pl" > "$D/out.svg"' ;;
		esac
		rm -f "$work/end" "$work/out.svg"
		MARK=$work/end B=$bin D=$work N=n$live_iters L=$levels FG=${FLAMEGRAPH:-} \
			/usr/bin/time -f '%e %U %S' -o "$work/t" bash -o pipefail -c "$cmd"
		done_at=$(date +%s.%N)
		read -r wall user sys < "$work/t"
		grep -q '<svg' "$work/out.svg" || { echo "bench: $way drew no SVG" >&2; exit 1; }
		echo "$way $(awk -v a="$(cat "$work/end")" -v b="$done_at" -v u="$user" -v s="$sys" -v w="$wall" \
			'BEGIN { printf "%.4f %.2f %.2f", b - a, w, u + s }')" >> "$work/live"
	done
	echo "run $r: $(tail -n "$(wc -w <<< "$ways")" "$work/live" | awk '{ printf "%s waited %ss (all %ss, CPU %ss); ", $1, $2, $3, $4 }')"
done
col() { awk -v w="$1" -v c="$2" '$1 == w { print $c }' "$work/live" | median; }
for way in $ways; do
	echo "$way: the wait after the command $(col "$way" 2)s, all $(col "$way" 3)s, CPU $(col "$way" 4)s (medians)"
done
if [[ $ways == *perf* ]]; then
	echo "the wait: lp-record --live | lp-svg $(awk -v a="$(col perf-stream 2)" -v b="$(col lp-live 2)" 'BEGIN { printf "%.1f", a / b }')x shorter than the peer streamed," \
		"$(awk -v a="$(col perf 2)" -v b="$(col lp-live 2)" 'BEGIN { printf "%.1f", a / b }')x shorter than perf record, then perf script | ... | flamegraph.pl"
	echo "CPU of the whole pipeline: lp --live $(col lp-live 4)s, lp $(col lp 4)s, the peer streamed $(col perf-stream 4)s, the peer $(col perf 4)s"
fi

fi

if want nofp; then
# The same workload built as most programs are, without frame pointers:
# every caller comes from CFI. lp-record unwinds the stack it copied with
# each sample (2 KB by default, enough here); perf record --call-graph dwarf
# copies 8 KB and perf script unwinds it with libdw or libunwind.
gcc -O2 -g -fomit-frame-pointer -pthread -o "$work/workload-nofp" "$top/bench/workload.c"
levels=${LEVELS_NOFP:-10}
echo "== without frame pointers: a symbolised stream by CFI (-F 4999, 2 threads, ${SECONDS_RECORDED:-4}s, $levels levels; median of $runs runs each)"
perf record -q -F 4999 --call-graph dwarf -o "$work/nofp.data" "$work/workload-nofp" "${SECONDS_RECORDED:-4}" 2 "$levels" 2> /dev/null
: > "$work/nofp-rates"
for r in $(seq "$runs"); do
	"$bin/lp-record" --offcpu-freq 0 -F 4999 -o "$work/nofp.lp" "$work/workload-nofp" "${SECONDS_RECORDED:-4}" 2 "$levels" 2> "$work/nofp.err"
	n_lp=$(grep -c '^S' "$work/nofp.lp")
	t_sym=$(sed -n 's/.*written in \([0-9.]*\) s.*/\1/p' "$work/nofp.err")
	stopped=$(awk -F'\t' '$1 == "S" && $8 ~ /^\[unwind stopped\]/ { n++ } END { print n + 0 }' "$work/nofp.lp")
	t_script=$(seconds "$work/nofp.txt" perf script -i "$work/nofp.data")
	n_perf=$(grep -c '^$' "$work/nofp.txt" || true)
	echo "$n_lp $t_sym $n_perf $t_script" >> "$work/nofp-rates"
	echo "run $r: lp-record $n_lp samples ($stopped [unwind stopped]) written in ${t_sym}s; perf script $n_perf samples in ${t_script}s"
done
sym=$(awk '{ print $1 / ($2 > 0 ? $2 : 0.001) }' "$work/nofp-rates" | median)
script=$(awk '{ print $3 / ($4 > 0 ? $4 : 0.001) }' "$work/nofp-rates" | median)
echo "lp-record: $(printf '%.0f' "$sym") samples/s symbolised and written by CFI (median); perf.data $(stat -c %s "$work/nofp.data") bytes, the lp stream $(stat -c %s "$work/nofp.lp")"
echo "perf script (--call-graph dwarf): $(printf '%.0f' "$script") samples/s (median)"
echo "speed-up: $(awk -v a="$sym" -v b="$script" 'BEGIN { printf "%.1f", a / b }')x"

fi

want events || exit 0
echo "== custom events: every write(2) and page fault (tests/workloads/writes.c, $runs runs of each, alternated)"
echo "(the workload times its own write loop and page touching: what recording adds to it, apart from either tool's start and end)"
gcc -O2 -g -fno-omit-frame-pointer -o "$work/writes" "$top/tests/workloads/writes.c"
# The workload's own figure KEY (emit_s, touch_s) under a command.
figure() {
	local key=$1
	shift
	"$@" > /dev/null 2> "$work/err"
	grep -o "$key [0-9.]*" "$work/err" | cut -d' ' -f2
}
# Best and median of a column of figures, and the median of paired ratios
# (this host's noise moves runs minutes apart more than it moves a pair).
best_of() { sort -g | head -1; }
median_of() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
for case in "syscalls:sys_enter_write 1000000 10 emit_s" "page-faults 10 200000 touch_s"; do
	set -- $case
	ev=$1 n=$2 pages=$3 key=$4
	: > "$work/pairs"
	# plain, perf, perf --user-callchains and lp-record alternated, run by run
	for _ in $(seq "$runs"); do
		echo "$(figure "$key" "$work/writes" "$n" "$pages")" \
			"$(figure "$key" perf record -q -g -m 1024 -e "$ev" -c 1 -o "$work/ev.data" "$work/writes" "$n" "$pages")" \
			"$(figure "$key" perf record -q -g --user-callchains -m 1024 -e "$ev" -c 1 -o "$work/ev.data" \
				"$work/writes" "$n" "$pages")" \
			"$(figure "$key" "$bin/lp-record" -q --offcpu-freq 0 -F 99 -m 1024 -e "$ev" -o "$work/ev.lp" \
				"$work/writes" "$n" "$pages")" >> "$work/pairs"
	done
	plain=$(cut -d' ' -f1 "$work/pairs" | best_of)
	t_perf=$(cut -d' ' -f2 "$work/pairs" | best_of)
	t_perf_user=$(cut -d' ' -f3 "$work/pairs" | best_of)
	t_lp=$(cut -d' ' -f4 "$work/pairs" | best_of)
	paired=$(awk '{ printf "%.4f\n", $4 / $2 }' "$work/pairs" | median_of)
	echo "-e $ev, period 1 ($n writes, $pages pages), the workload's $key, best of $runs: plain ${plain}s;" \
		"perf record -g -c 1 ${t_perf}s ($(ratio "$t_perf" "$plain")x), with --user-callchains ${t_perf_user}s" \
		"($(ratio "$t_perf_user" "$plain")x); lp-record ${t_lp}s ($(ratio "$t_lp" "$plain")x: $(ratio "$t_lp" "$t_perf")x perf's;" \
		"median of the $runs paired ratios $(printf '%.3f' "$paired")x)"
done
