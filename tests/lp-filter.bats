#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# lp-filter: every mode and statement, --mark, pass-through, bad filters.

bats_require_minimum_version 1.5.0

setup() {
	load test_helper
	cd "$BATS_TEST_TMPDIR"
	T=$'\t'
	# three frames of /app, one of libc, one of the kernel
	cat > in.lp <<-EOF
	#lp-stream 1
	#lp.command${T}./app
	P${T}5${T}10${T}11${T}spawn${T}app${T}10${T}10${T}_start;main;clone${T}/app+0x1;/app+0x2;/lib/libc.so.6+0x3
	S${T}10${T}10${T}10${T}app${T}cpu${T}100${T}_start;main;helper;memcpy;do_syscall_64${T}/app+0x10;/app+0x20;/app+0x30;/lib/libc.so.6+0x40;[kernel.kallsyms]+0xffffffff81000000${T}cpu=0
	X${T}unknown${T}record
	S${T}20${T}10${T}10${T}app${T}cpu${T}100${T}_start;main;B;B;C;B;D${T}-${T}cpu=1
	# a comment in the middle
	P${T}30${T}10${T}11${T}exit${T}app
	EOF
}

filter() {
	printf '%s\n' "$@" > f.txt
}

@test "deny:SYM cuts matching frames; STACK and LOCS stay in step; other lines pass unchanged" {
	filter 'SYM ^(memcpy|helper)$'
	run --separate-stderr lp-filter deny:f.txt in.lp
	assert_success
	assert_line "S${T}10${T}10${T}10${T}app${T}cpu${T}100${T}_start;main;do_syscall_64${T}/app+0x10;/app+0x20;[kernel.kallsyms]+0xffffffff81000000${T}cpu=0"
	assert_line --index 0 '#lp-stream 1'
	assert_line --index 1 "#lp.command${T}./app"
	assert_line --index 4 "X${T}unknown${T}record"
	assert_line --index 6 '# a comment in the middle'
	assert_line --index 7 "P${T}30${T}10${T}11${T}exit${T}app"
	[ "${#lines[@]}" -eq 8 ]
}

@test "an empty LOCS item keeps its place: STACK and LOCS stay in step" {
	printf '#lp-stream 1\nS\t1\t10\t10\tapp\tcpu\t100\t_start;main;read\t;/lib/x+0x1;/lib/y+0x2\n' > empty.lp
	filter 'SYM ^main$'
	run --separate-stderr lp-filter deny:f.txt empty.lp
	assert_success
	assert_output - <<-EOF
	#lp-stream 1
	S${T}1${T}10${T}10${T}app${T}cpu${T}100${T}_start;read${T};/lib/y+0x2
	EOF
}

@test "allow:EXEC keeps only the frames of matching executables" {
	filter 'EXEC ^/app$'
	run --separate-stderr lp-filter allow:f.txt in.lp
	assert_success
	assert_line "S${T}10${T}10${T}10${T}app${T}cpu${T}100${T}_start;main;helper${T}/app+0x10;/app+0x20;/app+0x30${T}cpu=0"
	# the second sample has no locations: nothing matches EXEC, the stack empties
	assert_line "S${T}20${T}10${T}10${T}app${T}cpu${T}100${T}${T}-${T}cpu=1"
}

@test "ANY matches symbol or executable; statements of a group must all match; OR joins groups" {
	filter 'ANY kallsyms'
	run --separate-stderr lp-filter deny:f.txt in.lp
	assert_line --partial "${T}_start;main;helper;memcpy${T}"
	filter 'SYM ^m' 'EXEC libc' 'OR' 'SYM ^_start$'
	run --separate-stderr lp-filter deny:f.txt in.lp
	assert_line --partial "${T}main;helper;do_syscall_64${T}/app+0x20;/app+0x30;[kernel"
}

@test "regexes search anywhere unless anchored" {
	filter 'SYM elp'
	run --separate-stderr lp-filter deny:f.txt in.lp
	assert_line --partial "${T}_start;main;memcpy;do_syscall_64${T}"
	filter 'SYM ^elp'
	run --separate-stderr lp-filter deny:f.txt in.lp
	assert_line --partial "${T}_start;main;helper;memcpy;do_syscall_64${T}"
}

@test "--mark squashes each run of cut frames into one (cut)" {
	filter 'SYM ^B$'
	run --separate-stderr lp-filter --mark deny:f.txt in.lp
	assert_success
	assert_line "S${T}20${T}10${T}10${T}app${T}cpu${T}100${T}_start;main;(cut);C;(cut);D${T}-${T}cpu=1"
	filter 'SYM ^(main|helper)$'
	run --separate-stderr lp-filter --mark deny:f.txt in.lp
	assert_line --partial "${T}_start;(cut);memcpy;do_syscall_64${T}/app+0x10;-;/lib/libc.so.6+0x40;[kernel"
}

@test "spawning stacks are filtered too" {
	filter 'SYM ^clone$'
	run --separate-stderr lp-filter deny:f.txt in.lp
	assert_line "P${T}5${T}10${T}11${T}spawn${T}app${T}10${T}10${T}_start;main${T}/app+0x1;/app+0x2"
}

@test "folded input: frames cut, the thread root kept, EXEC refused" {
	printf 'app;_start;main;helper 5\napp;main;helper;helper 7 9\n' > in.folded
	filter 'SYM ^(helper|app|_start)$'
	run --separate-stderr lp-filter deny:f.txt in.folded
	assert_success
	assert_output $'app;main 5\napp;main 7 9'
	filter 'EXEC libc'
	run --separate-stderr lp-filter deny:f.txt in.folded
	assert_failure 1
	[ "$stderr" = "lp-filter: in.folded:1: EXEC statements need an lp stream: folded stacks have no executables" ]
}

@test "a stack seen again is cut the same way (the per-stack memo), in lp streams and folded input" {
	grep '^S' in.lp > once.lp
	for _ in 1 2 3; do cat once.lp; done > thrice.lp
	filter 'SYM ^(memcpy|B)$'
	lp-filter --mark deny:f.txt once.lp > once.out
	run --separate-stderr lp-filter --mark deny:f.txt thrice.lp
	assert_success
	assert_output - < <(cat once.out once.out once.out)
	assert_line --index 1 "S${T}20${T}10${T}10${T}app${T}cpu${T}100${T}_start;main;(cut);C;(cut);D${T}-${T}cpu=1"
	# the same text as a folded stack keeps its first frame, as an lp stack does not
	printf '_start;main;B 1\n' > f.folded
	printf 'S\t1\t1\t1\ta\tcpu\t1\t_start;main;B\t-\n' > f.lp
	filter 'SYM ^(_start|B)$'
	run --separate-stderr lp-filter deny:f.txt f.folded f.lp
	assert_success
	assert_output $'_start;main 1\nS\t1\t1\t1\ta\tcpu\t1\tmain\t-'
}

@test "bad filter files: unknown keyword, bad regex, missing regex, empty groups, unreadable" {
	filter 'SYM ok' 'FUNC main'
	run --separate-stderr lp-filter deny:f.txt in.lp
	assert_failure 1
	assert_output ''
	[ "$stderr" = "lp-filter: f.txt:2:1: unknown keyword 'FUNC' (SYM, EXEC, ANY or OR)" ]
	filter '# comment' 'SYM (unclosed'
	run --separate-stderr lp-filter deny:f.txt in.lp
	assert_failure 1
	[ "$stderr" = "lp-filter: f.txt:2:14: bad regex: missing closing parenthesis" ]
	filter 'EXEC'
	run --separate-stderr lp-filter deny:f.txt in.lp
	[ "$stderr" = "lp-filter: f.txt:1:5: expected a regex after the keyword" ]
	filter 'OR' 'SYM x'
	run --separate-stderr lp-filter deny:f.txt in.lp
	[ "$stderr" = "lp-filter: f.txt:1:1: OR with no statement before it" ]
	filter '# nothing'
	run --separate-stderr lp-filter deny:f.txt in.lp
	[ "$stderr" = "lp-filter: f.txt: no statements: a filter needs at least one SYM, EXEC or ANY line" ]
	run --separate-stderr lp-filter deny:/nonexistent/f.txt in.lp
	assert_failure 1
	[ "$stderr" = "lp-filter: cannot open '/nonexistent/f.txt': No such file or directory" ]
}

@test "python: process gets ((symbol, executable), offset) leaf first and its booleans cut" {
	cat > keep.py <<-'EOF'
	def setup():
	    global seen
	    seen = []

	def process(callchain):
	    seen.append(callchain)
	    if callchain[0][0][0] == 'do_syscall_64':
	        assert callchain[0] == (('do_syscall_64', '[kernel.kallsyms]'), 0xffffffff81000000), callchain[0]
	        assert callchain[-1] == (('_start', '/app'), 0x10), callchain[-1]
	    return [not exe.endswith('libc.so.6') for (sym, exe), off in callchain]
	EOF
	run --separate-stderr lp-filter python:keep.py in.lp
	assert_success
	assert_line --partial "${T}_start;main;helper;do_syscall_64${T}/app+0x10;/app+0x20;/app+0x30;[kernel"
	assert_line "P${T}5${T}10${T}11${T}spawn${T}app${T}10${T}10${T}_start;main${T}/app+0x1;/app+0x2"
}

@test "python: an exception, a wrong length or a non-bool stops with the input line" {
	printf 'def process(c):\n    raise ValueError("no")\n' > raise.py
	run --separate-stderr lp-filter python:raise.py in.lp
	assert_failure 1
	[[ "$stderr" == "lp-filter: in.lp:3: Traceback (most recent call last):"*'raise.py", line 2, in process'*"ValueError: no"* ]]
	printf 'def process(c):\n    return [True]\n' > short.py
	run --separate-stderr lp-filter python:short.py in.lp
	assert_failure 1
	[ "$stderr" = "lp-filter: in.lp:3: process() returned 1 booleans for 3 frames" ]
	printf 'def process(c):\n    return [1] * len(c)\n' > ints.py
	run --separate-stderr lp-filter python:ints.py in.lp
	assert_failure 1
	[ "$stderr" = "lp-filter: in.lp:3: process() returned int at position 0, not a boolean" ]
	printf 'x = (\n' > syntax.py
	run --separate-stderr lp-filter python:syntax.py in.lp
	assert_failure 1
	[[ "$stderr" == "lp-filter: syntax.py: cannot start the Python filter:"*SyntaxError* ]]
}

@test "the bundled filters load and work" {
	run --separate-stderr lp-filter deny:"$TOP/filters/libc-internals.deny" in.lp
	assert_success
	assert_line --partial "${T}main;helper;do_syscall_64${T}"
	run --separate-stderr lp-filter deny:"$TOP/filters/kernel-entry.deny" in.lp
	assert_line --partial "${T}_start;main;helper;memcpy${T}"
	printf '#lp-stream 1\nS\t1\t1\t1\tx\tcpu\t1\tmain;f;f;f;f;f;g\t-\n' > rec.lp
	run --separate-stderr lp-filter python:"$TOP/filters/recursion.py" rec.lp
	assert_success
	assert_line "S${T}1${T}1${T}1${T}x${T}cpu${T}1${T}main;f;f;f;g${T}-"
}

@test "a pipeline: lp-record | lp-filter | lp-svg" {
	lp-record -q -o probe.lp "$LP_BUILD/workloads/split" --exit 0 2> /dev/null || skip "perf_event_open is not allowed here"
	run --separate-stderr bash -o pipefail -c "lp-record -q '$LP_BUILD/workloads/demo' 0.3 | lp-filter deny:'$TOP/filters/libc-internals.deny' | lp-svg > p.svg"
	assert_success
	grep -q '>worker</text>' p.svg
	! grep -q '>__libc_start_call_main</text>' p.svg
}

@test "usage errors exit 2" {
	run --separate-stderr lp-filter
	assert_failure 2
	run --separate-stderr lp-filter regex:f.txt
	assert_failure 2
	[[ "$stderr" == "lp-filter: unknown mode 'regex' (deny, allow or python)"* ]]
	run --separate-stderr lp-filter deny:
	assert_failure 2
}

# Golden files: tests/data/filter/cases names each case's arguments;
# tools/regen-golden rewrites expected/NAME.out on purpose.
golden() {
	local args
	args=$(awk -F'\t' -v n="$1" '$1 == n { print $2 }' "$DATA/filter/cases")
	[ -n "$args" ] || fail "no golden case '$1' in tests/data/filter/cases"
	cd "$TOP"
	# shellcheck disable=SC2086
	run --separate-stderr lp-filter $args
	assert_success
	assert_output - < "$DATA/filter/expected/$1.out"
	[ -z "$stderr" ]
}

@test "golden: deny libc internals (EXEC and SYM rules) on a stream with P, X and comment lines" {
	golden libc-deny
}

@test "golden: --mark deny of kernel entry frames leaves (cut) with an unknown location" {
	golden kernel-deny-mark
}

@test "golden: allow only the program's own executable; spawn stacks filtered too" {
	golden app-allow
}

@test "golden: --mark allow" {
	golden app-allow-mark
}

@test "golden: a Python filter cuts deep recursion in samples and spawn stacks" {
	golden recursion-python
}

@test "golden: folded stacks keep their first frame and counts" {
	golden folded-mark
}

@test "perf script text is refused with the way to fold it" {
	run -1 --separate-stderr lp-filter deny:"$TOP/filters/kernel-entry.deny" "$DATA/demo.perf-script.txt"
	assert_equal "$stderr" "lp-filter: $DATA/demo.perf-script.txt: this is perf script text, not an lp stream or folded stacks: fold it with lp-collapse first"
	assert_output ''
}

@test "streams of a newer or malformed version are refused" {
	filter 'SYM ^x$'
	printf '#lp-stream 99\n' > v99.lp
	run -1 --separate-stderr lp-filter deny:f.txt v99.lp
	assert_equal "$stderr" "lp-filter: v99.lp:1: lp stream version 99 is newer than this program reads (1)"
	printf '#lp-stream one\n' > vone.lp
	run -1 --separate-stderr lp-filter deny:f.txt vone.lp
	assert_equal "$stderr" "lp-filter: vone.lp:1: malformed version line, expected '#lp-stream 1'"
}
