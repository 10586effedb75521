#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The rules of lp-stream(5) that every reader applies alike, through the one reader of
# lib/stream: each reader of lp streams on the same good and bad inputs gives the same
# verdict (exit status) and the same message after its own name.

bats_require_minimum_version 1.5.0

load test_helper

# Every program that reads lp streams, as a command line without its input.
READERS=(
	"lp-collapse -e cpu"
	"lp-svg -e cpu"
	"lp-svg --timeline"
	"lp-svg --roofline"
	"lp-filter deny:$DATA/stream/none.filter"
	"lp-lines"
	"lp-export -f pprof"
	"lp-export -f speedscope"
	"lp-export -f trace"
	"lp-export -f perf-script"
	"lp-roofline points"
)

setup() {
	cd "$BATS_TEST_TMPDIR"
	GOOD=$DATA/stream/good.lp
}

# The good stream with line N replaced by TEXT (N past the end: appended), as FILE.
variant() {
	awk -v n="$1" -v text="$2" 'NR == n { print text; next } { print } END { if (NR < n) print text }' \
		"$GOOD" > "$3"
}

# Runs every reader (options after the program's own: $2...) on FILE ($1); each must exit
# with STATUS and say MESSAGE after "PROG: " ('' for nothing on stderr).
each_reader() {
	local file=$1 want=$2 message=$3 r
	shift 3
	for r in "${READERS[@]}"; do
		# shellcheck disable=SC2086
		run --separate-stderr $r "$@" "$file"
		[ "$status" = "$want" ] || fail "$r: exit $status, not $want: $stderr"
		[ "${stderr#* }" = "$message" ] || fail "$r said: $stderr"
	done
}

@test "a complete stream with every record kind (and one of a later version) is read by every reader" {
	for r in "${READERS[@]}"; do
		# shellcheck disable=SC2086
		run --separate-stderr $r "$GOOD"
		[ "$status" -eq 0 ] || fail "$r: exit $status: $stderr"
		[ -z "$stderr" ] || fail "$r: $stderr"
		[ -n "$output" ] || fail "$r wrote nothing"
	done
}

@test "0 bytes, or comments alone, are no stream: the same error from every reader" {
	: > empty.lp
	each_reader empty.lp 1 "empty.lp: empty input: no records, stacks or samples"
	printf '# a comment\n# and another\n' > comments.lp
	each_reader comments.lp 1 "comments.lp: empty input: no records, stacks or samples"
}

@test "malformed P, T, R, Q and K records and #lp.event lines: the same error, file and line from every reader" {
	variant 4 $'P\t1\t2' p.lp
	each_reader p.lp 1 "p.lp:4: expected at least 6 fields in a P record, got 3"
	variant 12 $'T\t500\t10' t.lp
	each_reader t.lp 1 "t.lp:12: expected at least 5 fields in a T record, got 3"
	variant 8 $'R\tL1\tmemory\tfast\tB/s' r.lp
	each_reader r.lp 1 "r.lp:8: VALUE 'fast' is not a non-negative decimal number"
	variant 9 $'Q\tdot\tmany\t16\t1.5' q.lp
	each_reader q.lp 1 "q.lp:9: FLOPS 'many' is not a non-negative integer"
	variant 10 $'K\t10\t10\tdot\tmany\t1\t2\t3' k.lp
	each_reader k.lp 1 "k.lp:10: INSNS 'many' is not a non-negative integer"
	variant 10 $'K\t10\t10\tmain;dot\t1\t1\t2\t3' k.lp
	each_reader k.lp 1 "k.lp:10: a K record's NAME is one function, got 2 frames"
	variant 10 $'K\t10\t10\tdot\t1\t1' k.lp
	each_reader k.lp 1 "k.lp:10: expected at least 8 fields in a K record, got 6"
	variant 14 $'N\t500\t10\t10\tapp\tpage-faults\tmany\t400\t400' n.lp
	each_reader n.lp 1 "n.lp:14: VALUE 'many' is not a non-negative integer"
	variant 14 $'N\t500\t10\t10\tapp\tpage-faults\t120\t400\t500' n.lp
	each_reader n.lp 1 "n.lp:14: RUNNING 500 is more than ENABLED 400"
	variant 15 $'N\t500\t-\t-\t-\tcycles\t-\t0\t0' n.lp
	each_reader n.lp 1 "n.lp:15: VALUE '-' of an N record needs state="
	variant 14 $'N\t500\t10\t-\tapp\tpage-faults\t1\t4\t4' n.lp
	each_reader n.lp 1 "n.lp:14: PID and TID of an N record are both a thread's or both '-'"
	variant 2 $'#lp.event\tfl\tretired_sse_avx_flops:any' ev.lp
	each_reader ev.lp 1 "ev.lp:2: #lp.event needs KEY PERF-EVENT PERIOD TITLE UNIT, got 2 fields"
}

@test "#lp.host, #lp.rank, #lp.start and #lp.realtime are checked alike by every reader" {
	printf '#lp-stream 1\n#lp.host\n' > host.lp
	tail -n +2 "$GOOD" >> host.lp
	each_reader host.lp 1 "host.lp:2: #lp.host needs a value"
	variant 2 $'#lp.rank\tzero' rank.lp
	each_reader rank.lp 1 "rank.lp:2: #lp.rank 'zero' is not a non-negative integer"
	variant 3 $'#lp.start\t-5' start.lp
	each_reader start.lp 1 "start.lp:3: #lp.start '-5' is not a number of nanoseconds"
	variant 2 $'#lp.realtime\t1e9' real.lp
	each_reader real.lp 1 "real.lp:2: #lp.realtime '1e9' is not a number of nanoseconds"
}

@test "an off-CPU sample's waker=, wakerrecorded= and queued= are checked alike by every reader" {
	local off=$'S\t250\t10\t10\tapp\toffcpu\t1000000\t_start;main;dot\t-\tdur=1000000\tstate=S'
	# the good stream with an off-CPU sample after its first
	with_off() {
		awk -v text="$1" '/^#lp.end/ { print "#lp.end\t" $2 + 1; next } { print } NR == 5 { print text }' "$GOOD" > "$2"
	}
	with_off "$off"$'\twaker=11\twakerpid=10\twakercomm=app\tqueued=2000' good.lp
	each_reader good.lp 0 ""
	with_off "$off"$'\twaker=irq\tqueued=2000' irq.lp
	each_reader irq.lp 0 ""
	with_off "$off"$'\twaker=x1\twakerpid=10' w.lp
	each_reader w.lp 1 "w.lp:6: waker= 'x1' is not a non-negative integer"
	with_off "$off"$'\twaker=11' nopid.lp
	each_reader nopid.lp 1 "nopid.lp:6: waker= without wakerpid="
	with_off "$off"$'\twaker=irq\tqueued=-3' q.lp
	each_reader q.lp 1 "q.lp:6: queued= '-3' is not a non-negative integer"
	with_off "$off"$'\twaker=11\twakerpid=10\twakerrecorded=1' rec.lp
	each_reader rec.lp 0 ""
	with_off "$off"$'\twaker=11\twakerpid=10\twakerrecorded=yes' badrec.lp
	each_reader badrec.lp 1 "badrec.lp:6: wakerrecorded= is 1 or absent, not 'yes'"
}

@test "a stream without its trailer may be cut: a warning, an error with --strict" {
	head -n -1 "$GOOD" > cut.lp
	for r in "${READERS[@]}"; do
		# shellcheck disable=SC2086
		run --separate-stderr $r cut.lp
		[ "$status" -eq 0 ] || fail "$r: exit $status: $stderr"
		[ "${stderr#* }" = "cut.lp:15: warning: the stream that starts at line 1 ends without its trailer (#lp.end): it may be cut" ] ||
			fail "$r said: $stderr"
	done
	each_reader cut.lp 1 "cut.lp:15: the stream that starts at line 1 ends without its trailer (#lp.end): it may be cut" --strict
	# streams one after another: each is checked at the next one's version line
	{ head -n -1 "$GOOD"; cat "$GOOD"; } > two.lp
	run --separate-stderr lp-collapse -e cpu two.lp
	assert_success
	assert_equal "$stderr" "lp-collapse: two.lp:15: warning: the stream that starts at line 1 ends without its trailer (#lp.end): it may be cut"
}

@test "a record after the trailer: the same error from every reader" {
	variant 17 $'S\t600\t10\t10\tapp\tcpu\t1000000\t_start;main\t-' after.lp
	each_reader after.lp 1 "after.lp:17: a record after the stream's trailer (#lp.end)"
}

@test "TIME going back: refused, with file and line, by the formats laid out in time; read by the others" {
	variant 6 $'S\t150\t10\t10\tapp\tfl\t4000\t_start;main;dot\t-' back.lp
	for f in trace speedscope; do
		run -1 --separate-stderr lp-export -f $f back.lp
		assert_equal "$stderr" "lp-export: back.lp:6: TIME 150 is before the previous record's (200): lp-export needs records in time order, as lp-record writes them"
		assert_output ''
	done
	for r in "lp-collapse -e cpu" "lp-svg --timeline" "lp-lines" "lp-export -f pprof" "lp-roofline points"; do
		# shellcheck disable=SC2086
		run --separate-stderr $r back.lp
		[ "$status" -eq 0 ] || fail "$r: exit $status: $stderr"
	done
}

@test "the tests' names of fields (tests/lp.awk) are lp-stream(5)'s, and a name a record lacks stops awk" {
	run -0 lp_awk '$1 == "S" && f("event") == "fl" { print f("time"), f("comm"), f("weight"), f("stack") }
		$1 == "P" { print f("what"), f("comm"), f("what") == "spawn" ? f("ppid") " " f("stack") : attr("status") }
		$1 == "T" { print f("comm"), attr("start"), attr("cpu") }
		$1 == "R" { print f("name"), f("value"), f("unit") }
		$1 == "Q" { print f("name"), f("flops"), f("seconds") }
		$1 == "K" { print f("tid"), f("name"), f("insns"), f("flops"), f("loaded"), f("stored"), attr("sse-dp") }
		END { print meta("event", "ld") }' "$GOOD"
	assert_output - <<-'EOF'
		spawn app 1 _start;main
		300 app 4000 _start;main;dot
		L1 100000000000 B/s
		dot 4000000 0.001
		10 dot 1000 400 800 400 400
		exit app 0
		app 100 1000000
		ls_dispatch:ld_dispatch
	EOF
	run -2 --separate-stderr lp_awk '$1 == "T" { print f("weight") }' "$GOOD"
	[ "$stderr" = "lp.awk: line 13: a T record has no field 'weight'" ]
}
