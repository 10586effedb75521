#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# lp-collapse: every input format, every option, and bad input.

bats_require_minimum_version 1.5.0

setup() {
	load test_helper
	cd "$BATS_TEST_TMPDIR"
}

# Compares lp-collapse with the corpus' stackcollapse-perf.pl outputs for one option.
conforms() {
	local opt=$1 arg= n f
	[ -d "$CORPUS/collapse" ] || skip "no conformance corpus at $CORPUS/collapse"
	[ "$opt" = default ] || arg=--$opt
	for f in "$CORPUS"/collapse/perf-script/*.txt; do
		n=$(basename "$f" .txt)
		run --separate-stderr lp-collapse $arg "$f"
		assert_success
		sort -o "$BATS_TEST_TMPDIR/got" <<<"$output"
		sort "$CORPUS/collapse/expected/$n.$opt.folded" > "$BATS_TEST_TMPDIR/want"
		diff -u "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/got" ||
			fail "$n with ${arg:-no option} differs from stackcollapse-perf.pl"
	done
}

@test "perf script corpus: same lines as stackcollapse-perf.pl, no option" { conforms default; }
@test "perf script corpus: same lines as stackcollapse-perf.pl --pid" { conforms pid; }
@test "perf script corpus: same lines as stackcollapse-perf.pl --tid" { conforms tid; }
@test "perf script corpus: same lines as stackcollapse-perf.pl --kernel" { conforms kernel; }
@test "perf script corpus: same lines as stackcollapse-perf.pl --jit" { conforms jit; }
@test "perf script corpus: same lines as stackcollapse-perf.pl --all" { conforms all; }
@test "perf script corpus: same lines as stackcollapse-perf.pl --addrs" { conforms addrs; }

@test "perf script edge cases: inline frames, unknown frames, Go, C++, Java, quotes, periods" {
	for opt in default pid tid kernel jit all addrs; do
		arg=
		[ $opt = default ] || arg=--$opt
		run --separate-stderr lp-collapse $arg "$DATA/perf-edge.txt"
		assert_success
		assert_output - < "$DATA/perf-edge.$opt.folded"
	done
}

@test "perf script: a second event is skipped with a warning naming both" {
	run --separate-stderr lp-collapse "$DATA/perf-edge.txt"
	assert_success
	refute_output --partial 'instructions'
	[ "$stderr" = "lp-collapse: $DATA/perf-edge.txt:29: warning: counting only events of type 'cycles' (the first seen), skipping 'instructions'; choose with --event-filter" ]
}

@test "perf script: --event-filter picks the event, without a warning" {
	run --separate-stderr lp-collapse --event-filter=instructions "$DATA/perf-edge.txt"
	assert_success
	[ -z "$stderr" ]
	assert_line 'app;leaf 7'
	refute_line --partial 'app;do_syscall_64'
}

@test "perf script: a last sample without its blank line is dropped, with a warning" {
	printf 'app 1 1.0: 5 cycles:\n\t1 main (/a)\n\napp 1 2.0: 7 cycles:\n\t1 other (/a)\n' > "$BATS_TEST_TMPDIR/cut.txt"
	run --separate-stderr lp-collapse "$BATS_TEST_TMPDIR/cut.txt"
	assert_success
	assert_output 'app;main 5'
	[ "$stderr" = "lp-collapse: $BATS_TEST_TMPDIR/cut.txt:5: warning: the last sample has no blank line after it and is dropped, as stackcollapse-perf.pl does" ]
}

@test "perf script: an unrecognized line is an error naming file and line, with no output" {
	printf 'app 1 1.0: 5 cycles:\n\t1 main (/a)\n\tgarbage here\n\n' > "$BATS_TEST_TMPDIR/bad.txt"
	run --separate-stderr lp-collapse -f perf "$BATS_TEST_TMPDIR/bad.txt"
	assert_failure 1
	assert_output ''
	[ "$stderr" = "lp-collapse: $BATS_TEST_TMPDIR/bad.txt:3: unrecognized line: not a sample header, a stack frame or a blank line" ]
}

@test "lp stream: all events summed, names unescaped, sorted, with a units warning" {
	run --separate-stderr lp-collapse "$DATA/sample.lp"
	assert_success
	assert_output - <<-'EOF'
	app;_start;main 1000000
	app;_start;main;compute 2000003
	app;_start;main;read;entry_SYSCALL_64;schedule 5000000
	app_worker;start_thread;work;jitted:code 1000000
	app_worker;start_thread;work;memcpy 1000000
	EOF
	[ "$stderr" = "lp-collapse: $DATA/sample.lp:10: warning: summing events of different units ('llc' is not in the unit of the first event); choose events with --event" ]
}

@test "lp stream: --event selects events; on- and off-CPU time add up in ns" {
	run --separate-stderr lp-collapse --event cpu,offcpu "$DATA/sample.lp"
	assert_success
	[ -z "$stderr" ]
	assert_line 'app;_start;main;compute 2000000'
	assert_line 'app;_start;main;read;entry_SYSCALL_64;schedule 5000000'
	run --separate-stderr lp-collapse -e llc "$DATA/sample.lp"
	assert_success
	assert_output 'app;_start;main;compute 3'
}

@test "lp stream: --samples counts records" {
	run --separate-stderr lp-collapse --samples "$DATA/sample.lp"
	assert_success
	assert_line 'app;_start;main;compute 3'
	assert_line 'app_worker;start_thread;work;memcpy 1'
}

@test "lp stream: --pid and --tid name the threads" {
	run --separate-stderr lp-collapse --tid -e cpu "$DATA/sample.lp"
	assert_success
	assert_output - <<-'EOF'
	app-10/10;_start;main 1000000
	app-10/10;_start;main;compute 2000000
	app_worker-10/11;start_thread;work;jitted:code 1000000
	app_worker-10/11;start_thread;work;memcpy 1000000
	EOF
	run --separate-stderr lp-collapse --pid -e cpu "$DATA/sample.lp"
	assert_line 'app_worker-10;start_thread;work;memcpy 1000000'
}

@test "lp stream: --all marks kernel frames and JIT frames from LOCS" {
	run --separate-stderr lp-collapse --all -e cpu,offcpu "$DATA/sample.lp"
	assert_success
	assert_line 'app;_start;main;read;entry_SYSCALL_64_[k];schedule_[k] 5000000'
	assert_line 'app_worker;start_thread;work;jitted:code_[j] 1000000'
	assert_line 'app;_start;main;compute 2000000'
}

@test "lp stream: --time-ordered keeps each thread's order and merges only neighbours" {
	run --separate-stderr lp-collapse --time-ordered -e cpu,offcpu "$DATA/sample.lp"
	assert_success
	assert_output - <<-'EOF'
	app;_start;main;compute 2000000
	app;_start;main;read;entry_SYSCALL_64;schedule 5000000
	app;_start;main 1000000
	app_worker;start_thread;work;memcpy 1000000
	app_worker;start_thread;work;jitted:code 1000000
	EOF
}

@test "lp stream: --time-ordered sorts a thread's samples by TIME" {
	printf '#lp-stream 1\nS\t30\t1\t1\tx\tcpu\t1\ta;c\t-\nS\t10\t1\t1\tx\tcpu\t1\ta;b\t-\nS\t20\t1\t1\tx\tcpu\t1\ta;b\t-\n' > "$BATS_TEST_TMPDIR/t.lp"
	run --separate-stderr lp-collapse --time-ordered "$BATS_TEST_TMPDIR/t.lp"
	assert_success
	assert_output $'x;a;b 2\nx;a;c 1'
}

@test "lp stream: a newer version is refused" {
	printf '#lp-stream 2\n' > "$BATS_TEST_TMPDIR/v2.lp"
	run --separate-stderr lp-collapse "$BATS_TEST_TMPDIR/v2.lp"
	assert_failure 1
	[ "$stderr" = "lp-collapse: $BATS_TEST_TMPDIR/v2.lp:1: lp stream version 2 is newer than this program reads (1)" ]
}

@test "lp stream: malformed records are errors with file, line and the problem" {
	check() {
		printf '#lp-stream 1\nS\t1\t1\t1\tx\tcpu\t1\ta\t-\n%s\n' "$1" > "$BATS_TEST_TMPDIR/bad.lp"
		run --separate-stderr lp-collapse "$BATS_TEST_TMPDIR/bad.lp"
		assert_failure 1
		assert_output ''
		[ "$stderr" = "lp-collapse: $BATS_TEST_TMPDIR/bad.lp:3: $2" ] ||
			fail "for '$1' got: $stderr"
	}
	check $'S\t1\t2' 'expected 9 fields in an S record, got 3'
	check $'S\tnow\t1\t1\tx\tcpu\t1\ta\t-' "TIME 'now' is not a non-negative integer"
	check $'S\t1\t1\t1\tx\tcpu\t-5\ta\t-' "WEIGHT '-5' is not a non-negative integer"
	check $'S\t1\t1\t1\tx\tcpu\t1\ta;b\t-;-;-' 'LOCS has 3 entries but STACK has 2 frames'
	check $'S\t1\t1\t1\tx\tcpu\t1\ta%2\t-' "STACK: '%' at byte 2 is not followed by two hex digits"
	check '' 'empty line'
	check $'hello\tworld' "record type must be one capital letter, got 'hello'"
	check $'\x01\x02' "record type must be one capital letter, got '\\x01\\x02'"
	check $'#lp.event\tpf\tpage-faults' '#lp.event needs KEY PERF-EVENT PERIOD TITLE UNIT, got 2 fields'
}

@test "folded: several inputs are merged, counts summed, output sorted" {
	printf 'b;c 2\na 1\n' > "$BATS_TEST_TMPDIR/1.folded"
	printf 'a 4\nb;c 1\nb 9\n' > "$BATS_TEST_TMPDIR/2.folded"
	run --separate-stderr lp-collapse "$BATS_TEST_TMPDIR/1.folded" "$BATS_TEST_TMPDIR/2.folded"
	assert_success
	assert_output $'a 5\nb 9\nb;c 3'
}

@test "inputs of different formats merge into one profile" {
	run --separate-stderr lp-collapse -e cpu "$DATA/sample.lp" - < "$DATA/perf-edge.txt"
	assert_success
	assert_line 'app;_start;main;compute 2000000'
	assert_line 'java;Interpreter;org/mozilla/Foo:.call 5'
}

@test "--diff writes two columns like difffolded.pl, --normalize scales the first" {
	printf 'a;b 10\na;c 30\n' > "$BATS_TEST_TMPDIR/before"
	printf 'a;b 40\na;d 40\n' > "$BATS_TEST_TMPDIR/after"
	run --separate-stderr lp-collapse --diff "$BATS_TEST_TMPDIR/before" "$BATS_TEST_TMPDIR/after"
	assert_success
	assert_output $'a;b 10 40\na;c 30 0\na;d 0 40'
	run --separate-stderr lp-collapse -d -n "$BATS_TEST_TMPDIR/before" "$BATS_TEST_TMPDIR/after"
	assert_success
	assert_output $'a;b 20 40\na;c 60 0\na;d 0 40'
}

@test "--strip-hex folds addresses together" {
	printf 'x;0x7f00a 1\nx;0xdeadBEEF 2\n' > "$BATS_TEST_TMPDIR/hex"
	run --separate-stderr lp-collapse -s "$BATS_TEST_TMPDIR/hex"
	assert_success
	assert_output 'x;0x... 3'
}

@test "a differential line needs --diff; --diff reads it" {
	printf 'a;b 3 4\n' > "$BATS_TEST_TMPDIR/d"
	run --separate-stderr lp-collapse "$BATS_TEST_TMPDIR/d"
	assert_failure 1
	[ "$stderr" = "lp-collapse: $BATS_TEST_TMPDIR/d:1: a differential line (two counts) needs --diff" ]
	run --separate-stderr lp-collapse --diff "$BATS_TEST_TMPDIR/d"
	assert_success
	assert_output 'a;b 3 4'
}

@test "folded: a bad count is an error naming the line" {
	printf 'a 1\nb 2.5\n' > "$BATS_TEST_TMPDIR/f"
	run --separate-stderr lp-collapse "$BATS_TEST_TMPDIR/f"
	assert_failure 1
	assert_output ''
	[ "$stderr" = "lp-collapse: $BATS_TEST_TMPDIR/f:2: count '2.5' is not a non-negative integer" ]
}

@test "--format forces a format" {
	printf 'a 1\n' > "$BATS_TEST_TMPDIR/f"
	run --separate-stderr lp-collapse -f lp "$BATS_TEST_TMPDIR/f"
	assert_failure 1
	[ "$stderr" = "lp-collapse: $BATS_TEST_TMPDIR/f:1: not an lp stream: expected '#lp-stream 1' or a record" ]
	run --separate-stderr lp-collapse --format=folded "$BATS_TEST_TMPDIR/f"
	assert_success
	assert_output 'a 1'
}

@test "stdin is read with no file or '-'" {
	run --separate-stderr lp-collapse < "$DATA/perf-edge.txt"
	assert_success
	assert_output - < "$DATA/perf-edge.default.folded"
}

@test "a stack of 200000 frames goes through" {
	awk 'BEGIN { printf "#lp-stream 1\nS\t1\t1\t1\tdeep\tcpu\t7\tf0"; for (i = 1; i < 200000; i++) printf ";f%d", i; printf "\t-\n" }' > "$BATS_TEST_TMPDIR/deep.lp"
	run --separate-stderr lp-collapse "$BATS_TEST_TMPDIR/deep.lp"
	assert_success
	[ "${#output}" -gt 1200000 ]
	[[ "$output" == "deep;f0;f1;"*";f199999 7" ]]
}

@test "an input that cannot be opened is an error naming it" {
	run --separate-stderr lp-collapse /nonexistent/x.txt
	assert_failure 1
	[ "$stderr" = "lp-collapse: cannot open '/nonexistent/x.txt': No such file or directory" ]
}

@test "a full disk is an error, not a truncated output" {
	[ -w /dev/full ] || skip "no /dev/full"
	run --separate-stderr bash -o pipefail -c "lp-collapse --event-filter=cycles '$DATA/perf-edge.txt' > /dev/full"
	assert_failure 1
	[ "$stderr" = "lp-collapse: cannot write output: No space left on device" ]
}

@test "--waits: a wait another thread of the stream ended is one frame naming it; an interrupt's, or a stranger's, keeps its stack" {
	# (tests/data/waits/waits.lp: app waits for its child, its thread for it, a timer, sshd, and for a
	# grandchild born during the wait, whose first record comes after the wait's: wakerrecorded=1 says
	# it is ours; preempted once)
	run --separate-stderr lp-collapse --waits unexplained "$DATA/waits/waits.lp"
	assert_success
	assert_output - <<-'EOF'
	app;[waiting for app] 3000000
	app;[waiting for child] 9000000
	app;[waiting for sleep] 2500000
	app;main;poll 1000000
	app;main;read 2000000
	app;main;work 9000000
	child;main;crunch 8000000
	EOF
	run --separate-stderr lp-collapse --waits none "$DATA/waits/waits.lp"
	assert_output - <<-'EOF'
	app;main;work 5000000
	child;main;crunch 8000000
	EOF
	# by default every wait with its stack, as recorded
	run --separate-stderr lp-collapse "$DATA/waits/waits.lp"
	assert_line 'app;main;wait4 9000000'
	assert_line 'app;start_thread;worker;pthread_cond_wait 3000000'
	run --separate-stderr lp-collapse --waits=sometimes "$DATA/waits/waits.lp"
	assert_failure 2
	[[ "$stderr" == "lp-collapse: --waits takes all, unexplained or none, not 'sometimes'"* ]]
}

@test "usage errors exit 2" {
	run --separate-stderr lp-collapse --no-such-option
	assert_failure 2
	run --separate-stderr lp-collapse --format=xml
	assert_failure 2
	[[ "$stderr" == "lp-collapse: unknown format 'xml' (auto, lp, perf or folded)"* ]]
	run --separate-stderr lp-collapse --normalize a b
	assert_failure 2
	run --separate-stderr lp-collapse --diff a b c
	assert_failure 2
}

@test "--help describes the options" {
	run --separate-stderr lp-collapse --help
	assert_success
	assert_line --partial '--time-ordered'
	assert_line --partial '--event-filter'
}

@test "the format is told by the input's structure; what is none of them is refused with one message" {
	none="not an lp stream, folded stacks or perf script text with call stacks"
	# a bad count on line 1 of folded stacks gets the folded message, as on line 2
	printf 'a;b 1.5\nc 2\n' > "$BATS_TEST_TMPDIR/bad1.folded"
	run -1 --separate-stderr lp-collapse "$BATS_TEST_TMPDIR/bad1.folded"
	assert_equal "$stderr" "lp-collapse: $BATS_TEST_TMPDIR/bad1.folded:1: count '1.5' is not a non-negative integer"
	# a header without an event, a frame under it: perf script, as stackcollapse-perf.pl reads it
	printf 'zz 5 6:\n\tffff a (b)\n\n' > "$BATS_TEST_TMPDIR/zz.txt"
	run --separate-stderr lp-collapse "$BATS_TEST_TMPDIR/zz.txt"
	assert_success
	assert_output 'zz;a 1'
	# binary input is refused, and its bytes are quoted, not echoed
	head -c 100000 /dev/urandom > "$BATS_TEST_TMPDIR/random.bin"
	run -1 --separate-stderr lp-collapse "$BATS_TEST_TMPDIR/random.bin"
	assert_output ''
	[[ "$stderr" == "lp-collapse: $BATS_TEST_TMPDIR/random.bin:"* ]]
	if printf '%s' "$stderr" | LC_ALL=C grep -qP '[^\x09\x0a\x20-\x7e]'; then fail "raw bytes in: $stderr"; fi
	# a megabyte of bytes without a newline is none of them (it once passed as perf text)
	head -c 1000000 /dev/urandom | tr -d '\n' > "$BATS_TEST_TMPDIR/random1m.bin"
	run -1 --separate-stderr lp-collapse "$BATS_TEST_TMPDIR/random1m.bin"
	assert_output ''
	assert_equal "$stderr" "lp-collapse: $BATS_TEST_TMPDIR/random1m.bin:1: $none"
	printf 'a;b \x01\xff\n' > "$BATS_TEST_TMPDIR/binary.txt"
	run -1 --separate-stderr lp-collapse "$BATS_TEST_TMPDIR/binary.txt"
	assert_equal "$stderr" "lp-collapse: $BATS_TEST_TMPDIR/binary.txt:1: $none"
	# perf script of a recording without -g: headers and no stacks, named at the first line after the comments
	printf '# perf script\napp 10 [000] 1.000: 5 cycles:  400100 main+0x10 (/app)\napp 10 [000] 1.001: 5 cycles:  400100 main+0x10 (/app)\n' > "$BATS_TEST_TMPDIR/flat.perf"
	run -1 --separate-stderr lp-collapse "$BATS_TEST_TMPDIR/flat.perf"
	assert_equal "$stderr" "lp-collapse: $BATS_TEST_TMPDIR/flat.perf:2: $none"
	# a perf sample whose header has an event, and a frame after it, is still perf script
	printf 'app 10 [000] 1.000: 5 cycles:\n\t 400100 main+0x10 (/app)\n\n' > "$BATS_TEST_TMPDIR/one.perf"
	run --separate-stderr lp-collapse "$BATS_TEST_TMPDIR/one.perf"
	assert_success
	assert_output 'app;main 5'
}

@test "perf script: side-band lines are looked past, and a last one is not a cut sample" {
	# --show-mmap-events puts a program's mappings first: more of them than any look-ahead by lines
	{
		for i in $(seq 3000); do
			printf 'app 10 [000] 0.%06d: PERF_RECORD_MMAP2 10/10: [0x%x(0x1000) @ 0 fd:01 1 0]: r-xp /lib/l%d.so\n' "$i" "$i" "$i"
		done
		printf 'app 10 [000] 1.000: 5 cycles:\n\t 400100 main+0x10 (/app)\n\n'
		printf 'app 10 [000] 1.500: PERF_RECORD_EXIT(10:10):(1:1)\n'
	} > "$BATS_TEST_TMPDIR/side.perf"
	run --separate-stderr lp-collapse "$BATS_TEST_TMPDIR/side.perf"
	assert_success
	assert_output 'app;main 5'
	assert_equal "$stderr" ''
	[ -d "$CORPUS/collapse" ] || skip "no conformance corpus at $CORPUS/collapse"
	run --separate-stderr lp-collapse -f perf "$CORPUS/collapse/perf-script/lp-ls-task-events-61.txt"
	assert_success
	assert_equal "$stderr" ''
}

@test "perf script on two cores: the same folded stacks as on one, and as the counts say" {
	big_perf
	run --separate-stderr lp-collapse -j 2 big.txt
	assert_success
	[ -z "$stderr" ]
	printf '%s\n' "$output" > two.folded
	lp-collapse -j 1 big.txt > one.folded
	cmp one.folded two.folded
	# and what one copy gives, 340 times over
	lp-collapse "$DATA/demo.perf-script.txt" | awk '{ n = $NF; $NF = ""; printf "%s%.0f\n", $0, n * 340 }' > expected.folded
	cmp expected.folded two.folded
}

@test "perf script on two cores: a warning or an error in the second half reads as on one core" {
	big_perf
	# a sample of another event near the end: warned about once, with its line
	cat big.txt "$DATA/perf-edge.txt" > warn.txt
	run --separate-stderr lp-collapse -j 1 warn.txt
	assert_success
	one_err=$stderr one_out=$output
	run --separate-stderr lp-collapse -j 2 warn.txt
	assert_success
	[ "$stderr" = "$one_err" ] || fail "-j 2 said: $stderr; -j 1 said: $one_err"
	[[ "$stderr" == "lp-collapse: warn.txt:$(( $(wc -l < big.txt) + 4 )): warning: counting only events of type 'cpu-clock:pppH' (the first seen), skipping 'cycles'; choose with --event-filter" ]] ||
		fail "$stderr"
	[ "$output" = "$one_out" ]
	# a malformed line near the end: the same error, on the same line
	{ cat big.txt; printf 'demo 1 1.0: 1 cpu-clock:pppH:\n\tnot a frame line at all\n'; } > bad.txt
	run -1 --separate-stderr lp-collapse -j 2 bad.txt
	[[ "$stderr" == "lp-collapse: bad.txt:$(( $(wc -l < big.txt) + 2 )): "* ]] || fail "$stderr"
	two_err=$stderr
	run -1 --separate-stderr lp-collapse -j 1 bad.txt
	[ "$stderr" = "$two_err" ]
}
