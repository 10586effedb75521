#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# lp-export: each format read back by a real consumer, checked against lp-collapse of the
# same stream; a real recording (on-CPU, off-CPU, a tracepoint with fields, lifecycle).

bats_require_minimum_version 1.5.0

setup_file() {
	local w=$LP_BUILD/workloads
	export REC=$BATS_FILE_TMPDIR/rec.lp
	# two threads on and off the CPU, and 300 write(2) calls whose fields the tracepoint gives
	if lp-record -q -o "$REC" -e syscalls:sys_enter_write -- sh -c "$w/demo && $w/writes 300 10" \
		2> "$BATS_FILE_TMPDIR/rec.err"; then
		export REC_OK=1
	else
		export REC_OK=0
	fi
}

setup() {
	load test_helper
	cd "$BATS_TEST_TMPDIR"
}

recording() {
	[ "$REC_OK" = 1 ] || skip "cannot record here: $(cat "$BATS_FILE_TMPDIR/rec.err")"
}

# "EVENT TOTAL" for each event of an lp stream, from lp-collapse.
collapse_totals() {
	local ev
	for ev in "${@:2}"; do
		lp-collapse -e "$ev" "$1" | awk -v ev="$ev" '{ t += $NF } END { printf "%s %.0f\n", ev, t }'
	done
}

# Runs tests/browser/export.mjs MODE FILE; its output in $output.
consumer() {
	[ "$1" != speedscope-open ] || chromium_wanted
	command -v node > /dev/null || skip "no node"
	[ -d "$TOP/tests/browser/node_modules/pprof-format" ] || skip "no npm packages (make deps installs them)"
	run --separate-stderr env LP_SHOTS="$LP_BUILD/screenshots" node "$TOP/tests/browser/export.mjs" "$@"
	[ "$status" -eq 0 ] || fail "export.mjs $*: $stderr $output"
}

@test "perf-script: the text of a known stream, as perf script lays it out" {
	run --separate-stderr lp-export -f perf-script "$DATA/sample.lp"
	assert_success
	assert_output - < "$DATA/export/sample.perf-script"
	[ -z "$stderr" ]
}

@test "perf-script: stackcollapse-perf.pl's folding of it is lp-collapse's of the stream, per event" {
	for ev in cpu offcpu llc; do
		run --separate-stderr lp-collapse -e "$ev" "$DATA/sample.lp"
		assert_success
		assert_output - < "$DATA/export/sample.$ev.stackcollapse-perf.folded"
		lp-export -f perf-script "$DATA/sample.lp" > s.txt
		run --separate-stderr lp-collapse --event-filter "$ev" s.txt
		assert_success
		assert_output - < "$DATA/export/sample.$ev.stackcollapse-perf.folded"
	done
}

@test "perf-script of a recording folds back to the recording's own stacks, every event" {
	recording
	lp-export -f perf-script "$REC" > rec.txt
	for ev in cpu offcpu syscalls:sys_enter_write; do
		lp-collapse -e "$ev" "$REC" > want
		[ -s want ] || fail "the recording has no $ev samples"
		run --separate-stderr lp-collapse --event-filter "$ev" rec.txt
		assert_success
		assert_output - < want
	done
}

@test "pprof: pprof-format decodes it; totals per sample type are lp-collapse's; pid, tid, comm labels" {
	recording
	run --separate-stderr lp-export -f pprof -o rec.pb.gz "$REC"
	assert_success
	[ "$(head -c 2 rec.pb.gz | od -An -tx1 | tr -d ' ')" = 1f8b ] || fail "not gzipped"
	consumer pprof rec.pb.gz
	pprof=$output
	collapse_totals "$REC" cpu offcpu syscalls:sys_enter_write > want
	[ "$(awk '{ print $1, $2 }' <<<"$pprof" | grep -v '^labels\|^default\|^period')" = "$(cat want)" ] ||
		fail "totals differ: $pprof vs $(cat want)"
	assert_line --partial "cpu $(awk '$1 == "cpu" { print $2 }' want) nanoseconds"
	assert_line "syscalls:sys_enter_write $(awk '$1 == "syscalls:sys_enter_write" { print $2 }' want) count"
	assert_line "labels comm,host,pid,tid"
	assert_line "default cpu"
	# what a sample stands for, from #lp.sampling: at 999 Hz (lp-record's default) 1001001 ns
	hz=$(lp_awk '$1 == "#lp.sampling" && $2 == "cpu" && $4 ~ /^freq=/ { print substr($4, 6) }' "$REC")
	assert_line "period cpu nanoseconds $((1000000000 / hz))"
}

@test "pprof: go tool pprof reads it: the same totals, the first program as the main binary" {
	recording
	command -v go > /dev/null || skip "no go (make deps installs golang-go)"
	lp-export -f pprof -o rec.pb.gz "$REC"
	run --separate-stderr go tool pprof -raw rec.pb.gz
	assert_success
	# sample rows: one value per type, then ": LOCATIONS"
	awk '/^Samples:/ { getline; print; on = 1; next }
	     /^Locations/ { on = 0 }
	     on && /^ +[0-9][0-9 ]*:/ { sub(/:.*/, ""); for (i = 1; i <= NF; i++) t[i] += $i; n = NF }
	     END { for (i = 1; i <= n; i++) printf "%s%.0f", (i > 1 ? " " : ""), t[i]; print "" }' <<<"$output" > got
	collapse_totals "$REC" cpu offcpu syscalls:sys_enter_write | awk '{ printf "%s%s", (NR > 1 ? " " : ""), $2 } END { print "" }' > want
	[ "$(sed -n 1p got)" = "cpu/nanoseconds[dflt] offcpu/nanoseconds syscalls:sys_enter_write/count" ] ||
		fail "sample types: $(sed -n 1p got)"
	[ "$(sed -n 2p got | cut -d' ' -f1-3)" = "$(cat want)" ] || fail "totals $(sed -n 2p got) vs $(cat want)"
	run --separate-stderr go tool pprof -top rec.pb.gz
	assert_success
	main=$(grep -m1 -P '^P\t[0-9]+\t[0-9]+\t[0-9]+\texec\t' "$REC" | cut -f7)
	assert_line "File: $(basename "$(readlink -f "$main")")"
}

@test "pprof: -e keeps the events named; several inputs add up, each with its rank label" {
	recording
	sed '2i #lp.rank\t0' "$REC" > r0.lp
	sed '2i #lp.rank\t1' "$REC" > r1.lp
	read -r _ writes < <(collapse_totals "$REC" syscalls:sys_enter_write)
	run --separate-stderr lp-export -f pprof -e syscalls:sys_enter_write -o two.pb.gz r0.lp r1.lp
	assert_success
	consumer pprof two.pb.gz
	assert_output - <<-EOF
		syscalls:sys_enter_write $((2 * writes)) count
		labels comm,host,pid,rank,tid
		default -
		period -
	EOF
}

@test "speedscope: valid against speedscope's schema; sampled totals are lp-collapse's; evented profiles nest" {
	recording
	run --separate-stderr lp-export -f speedscope -o rec.speedscope.json "$REC"
	assert_success
	consumer speedscope rec.speedscope.json
	read -r _ cpu < <(collapse_totals "$REC" cpu)
	read -r _ off < <(collapse_totals "$REC" offcpu)
	assert_line "sampled on-CPU time $cpu nanoseconds"
	assert_line "sampled off-CPU time $off nanoseconds"
	read -r _ writes < <(collapse_totals "$REC" syscalls:sys_enter_write)
	# the workload's 300 and the lines the two programs print
	[ "$writes" -ge 300 ] && [ "$writes" -le 310 ] || fail "$writes writes"
	assert_line "sampled syscalls:sys_enter_write $writes none"
	# each thread of demo on the CPU, in time order: as long as its T record's exact cpu= (sampled: within 20%)
	n=$(grep -c '^evented demo [0-9]*/[0-9]* [0-9]*$' <<<"$output") || true
	[ "$n" -eq 2 ] || fail "expected demo's 2 threads on the CPU: $output"
	grep '^evented demo [0-9]*/[0-9]* [0-9]*$' <<<"$output" | while read -r _ _ id ns; do
		cpu=$(lp_awk -v tid="${id#*/}" '$1 == "T" && f("tid") == tid { print attr("cpu") }' "$REC")
		[ -n "$cpu" ] && [ "$ns" -gt $((cpu * 8 / 10)) ] && [ "$ns" -lt $((cpu * 12 / 10)) ] ||
			fail "thread $id: on-CPU time $ns ns, cpu=$cpu"
	done
}

@test "browser: speedscope's own viewer opens the file from disk, aggregate and per thread" {
	recording
	lp-export -f speedscope -o rec.speedscope.json "$REC"
	SHOT_NAME=recording consumer speedscope-open rec.speedscope.json
	assert_output --regexp '^opened 1/[0-9]+$'
}

@test "trace: Trace Event JSON, slices in order per track, on- and off-CPU weights as in the stream" {
	recording
	run --separate-stderr lp-export -f trace -o rec.json "$REC"
	assert_success
	consumer trace rec.json
	read -r _ cpu < <(collapse_totals "$REC" cpu)
	read -r _ off < <(collapse_totals "$REC" offcpu)
	assert_line "on-CPU $cpu"
	assert_line "off-CPU $off"
	# instants: one per write(2) and each exec, spawn and exit of the stream
	read -r _ writes < <(collapse_totals "$REC" syscalls:sys_enter_write)
	procs=$(grep -c -P '^P\t[0-9]+\t[0-9]+\t[0-9]+\t(exec|spawn|exit)\t' "$REC")
	assert_line "instants $((writes + procs))"
	# the tracepoint's fields and the exit status are kept as arguments
	grep -q '"name":"syscalls:sys_enter_write","args":{.*"count":"5"' rec.json || fail "no count=5 argument"
	grep -q '"name":"exit","ts":[0-9.]*,"args":{"status":"0"}' rec.json || fail "no exit status"
}

@test "trace: names threads and processes, T records as thread metadata" {
	run --separate-stderr lp-export -f trace "$DATA/sample.lp"
	assert_success
	consumer trace /dev/stdin <<<"$output"
	assert_output - <<-EOF
		on-CPU 5000000
		off-CPU 5000000
		instants 3
		tracks 2
	EOF
	recording
	lp-export -f trace "$REC" > rec.json
	grep -q '"name":"thread_name","args":{"name":"demo","start":"[0-9]*","end":"[0-9]*","cpu":"[0-9]*"' rec.json ||
		fail "no T record in the thread metadata"
}

@test "comments, metadata and unknown record types are skipped; an empty input is an error, as everywhere" {
	run --separate-stderr lp-export -f perf-script "$DATA/sample.lp"
	assert_success
	refute_output --partial 'future'
	for f in perf-script trace; do
		run -1 --separate-stderr lp-export -f $f < /dev/null
		assert_output ''
		assert_equal "$stderr" "lp-export: stdin: empty input: no records, stacks or samples"
	done
	# a recording without samples is a stream all the same
	printf '#lp-stream 1\n#lp.end\t0\n' | lp-export -f trace > none.json
	consumer trace none.json
	assert_output - <<-EOF
		instants 0
		tracks 0
	EOF
}

@test "bad input: not an lp stream, a malformed record: file and line named, exit 1, no file left" {
	printf 'a;b 1\n' > folded.txt
	run -1 --separate-stderr lp-export -f trace folded.txt
	[ "$stderr" = "lp-export: folded.txt:1: not an lp stream: expected '#lp-stream 1' or a record" ]
	printf '#lp-stream 1\nS\t1\t2\t3\tc\tcpu\tlots\ta\t-\n' > bad.lp
	for f in pprof speedscope trace perf-script; do
		run -1 --separate-stderr lp-export -f $f -o out bad.lp
		[ "$stderr" = "lp-export: bad.lp:2: WEIGHT 'lots' is not a non-negative integer" ] || fail "$f: $stderr"
		[ ! -e out ] || fail "$f left a half-written file"
	done
	run -1 --separate-stderr lp-export -f pprof missing.lp
	[ "$stderr" = "lp-export: cannot open 'missing.lp': No such file or directory" ]
}

@test "-o FILE: replaced only when the export is whole; a symlink stays and its target is replaced" {
	echo precious > keep.pb
	run -1 --separate-stderr lp-export -f pprof -o keep.pb /nonexistent
	assert_equal "$(cat keep.pb)" precious
	printf '#lp-stream 1\nS\t1\t2\t3\tc\tcpu\tlots\ta\t-\n' > bad.lp
	run -1 --separate-stderr lp-export -f perf-script -o keep.pb bad.lp
	assert_equal "$(cat keep.pb)" precious
	ln -s keep.pb link.pb
	run -1 --separate-stderr lp-export -f pprof -o link.pb /nonexistent
	[ -L link.pb ] || fail "the link was removed"
	assert_equal "$(cat keep.pb)" precious
	run --separate-stderr lp-export -f perf-script -o link.pb "$DATA/sample.lp"
	assert_success
	[ -L link.pb ] || fail "the link was replaced by a file"
	lp-export -f perf-script "$DATA/sample.lp" | cmp - keep.pb
	# nothing of ours is left beside it
	assert_equal "$(ls -A | grep -v '^separate-stderr-')" "$(printf 'bad.lp\nkeep.pb\nlink.pb')"
}

@test "nothing on stdout until the input is known good: a missing file, a directory, a bad stream" {
	mkdir dir
	printf '#lp-stream 1\nS\t1\t2\t3\tc\tcpu\t1\ta\t-\nS\t1\t2\t3\tc\tcpu\tlots\ta\t-\n' > bad.lp
	for f in trace perf-script speedscope pprof; do
		for input in /nonexistent dir bad.lp; do
			run -1 --separate-stderr lp-export -f $f "$input"
			assert_output ''
		done
	done
	# an error past what stdout holds says that what was written is incomplete
	{
		printf '#lp-stream 1\n'
		awk 'BEGIN { for (i = 1; i <= 40000; i++) printf "S\t%d\t2\t3\tc\tcpu\t1\tmain;work;leaf%d\t-\n", i, i }'
		printf 'S\t99999\t2\t3\tc\tcpu\tlots\ta\t-\n'
	} > late.lp
	run -1 --separate-stderr lp-export -f perf-script late.lp
	assert_equal "${stderr_lines[0]}" "lp-export: late.lp:40002: WEIGHT 'lots' is not a non-negative integer"
	assert_equal "${stderr_lines[1]}" "lp-export: the output written before that is incomplete"
}

@test "a full disk is an error, not a short file" {
	for f in pprof speedscope trace perf-script; do
		run -1 --separate-stderr lp-export -f $f "$DATA/sample.lp" -o /dev/full
		assert_equal "$stderr" "lp-export: cannot write the output: No space left on device"
	done
}

@test "usage: the format is required and checked" {
	run -2 --separate-stderr lp-export "$DATA/sample.lp"
	[ "${stderr%%$'\n'*}" = "lp-export: which format? -f pprof, speedscope, trace or perf-script" ]
	run -2 --separate-stderr lp-export -f svg "$DATA/sample.lp"
	[ "${stderr%%$'\n'*}" = "lp-export: unknown format 'svg' (pprof, speedscope, trace or perf-script)" ]
	run --separate-stderr lp-export --help
	assert_success
	assert_output --partial 'Usage: lp-export -f FORMAT'
}
