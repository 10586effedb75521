#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# lp-record --live: the stream written while the command runs, recorded from real
# programs with the real kernel.

bats_require_minimum_version 1.5.0

setup() {
	load test_helper
	cd "$BATS_TEST_TMPDIR"
	W=$LP_BUILD/workloads
	[ -x "$W/split" ] || fail "workloads not built (make check builds them)"
	if ! lp-record -q --live -o probe.lp "$W/split" --exit 0 2> probe.err; then
		skip "perf_event_open is not allowed here: $(cat probe.err)"
	fi
}

@test "--live: the records are in the stream while the command runs, in time order" {
	# the command reads its own stream once the workload is done: without --live it holds one line
	run --separate-stderr lp-record -q --live -F 4999 -o live.lp -- \
		sh -c "'$W/split'; sleep 0.3; grep -c '^S' live.lp > during.txt"
	assert_success
	during=$(cat during.txt)
	after=$(grep -c '^S' live.lp)
	# all but the last few hundred (written once the records near them have come)
	[ "$during" -ge $((after / 2)) ] && [ "$during" -le "$after" ] ||
		fail "$during samples in the stream while the command ran, $after at the end"
	lp_awk '$1 == "S" || $1 == "P" || $1 == "T" { if (f("time") < last) { print "line " NR " goes back in time"; exit 1 } last = f("time") }' live.lp
}

@test "--live: every thread and process with its spawning stack, exec, name, exit and summary" {
	run --separate-stderr lp-record --live -o split.lp "$W/split"
	assert_success
	[[ "$stderr" == *"1 processes and 2 threads spawned; symbolised and written while recording, the rest in "*" s ("*" callers in all stacks recovered from CFI)"* ]] ||
		fail "summary: $stderr"
	split_lifecycle split.lp
	for name in sixty thirty; do
		tid=$(lp_awk -v n="$name" '$1 == "P" && f("what") == "comm" && f("comm") == n { print f("tid") }' split.lp)
		grep -qP "^T\t\d+\t$root\t$tid\t$name\tstart=\d+\tend=\d+\tcpu=\d+\tsampled-cpu=\d+" split.lp ||
			fail "$name: no summary with its exact CPU time"
	done
	# a process's status comes from the off-CPU program, which --live goes without: the command's from waiting for it
	grep -qP "^P\t\d+\t$child\t$child\texit\ttenner\$" split.lp
	grep -qP "^P\t\d+\t$root\t$root\texit\tsplit\tstatus=0\$" split.lp
	lp-collapse -e cpu split.lp > split.folded
	grep -q '^sixty;.*;sixty_percent ' split.folded
	grep -q '^tenner;.*;ten_percent ' split.folded
}

@test "--live: lost counts and the rate achieved come after the last record, not in the header" {
	run --separate-stderr lp-record -q --live -o split.lp -e page-faults -- "$W/split"
	assert_success
	last_record=$(awk '!/^#/ { n = NR } END { print n }' split.lp)
	for key in 'lost\tcpu' 'lost\tpage-faults' 'achieved-hz\tcpu'; do
		at=$(grep -nP "^#lp\\.$key\t\\d+\$" split.lp | cut -d: -f1)
		[ -n "$at" ] && [ "$at" -gt "$last_record" ] || fail "#lp.$key at line '$at', the last record at $last_record"
	done
	# the header says what was sampled, before any record
	grep -nP '^#lp\.(sampling\tcpu\ttask-clock\tfreq=999|event\tpage-faults\t)' split.lp | cut -d: -f1 |
		awk -v first="$(awk '!/^#/ { print NR; exit }' split.lp)" '$1 > first { exit 1 }'
	[ "$(grep -c '^#lp\.sampling' split.lp)" -eq 1 ]
}

@test "--live into lp-svg: a flame graph of the command" {
	run --separate-stderr bash -o pipefail -c "lp-record -q --live '$W/demo' 0.3 | lp-svg > demo.svg"
	assert_success
	grep -q '>crunch_numbers</text>' demo.svg
	xmllint --noout demo.svg
}

@test "--live lets records go as it writes them: its peak is under half of what it recorded" {
	# 3 s of CPU at 4999 Hz: some 15k samples of 8 KB of stack each (without --live: 140 MB)
	/usr/bin/time -f %M -o peak.txt lp-record -q --live -F 4999 --stack-size 8192 -o split.lp -- \
		env SPLIT_SECONDS=3 "$W/split"
	recorded_kb=$(( $(grep -c '^S' split.lp) * (8192 + 200) / 1024 ))
	peak_kb=$(cat peak.txt)
	[ "$recorded_kb" -gt 60000 ] || fail "only $recorded_kb KB of records: too few to tell"
	[ "$peak_kb" -lt $((recorded_kb / 2)) ] || fail "peak $peak_kb KB for $recorded_kb KB of records"
}

@test "--live with off-CPU sampling is a usage error naming the way out" {
	run -2 --separate-stderr lp-record --live --offcpu-freq 100 true
	assert_equal "${stderr%%$'\n'*}" "lp-record: --live writes no off-CPU samples (each is known only when its interval ends, after later records): give --offcpu-freq=0, or leave --live out"
	run -0 --separate-stderr lp-record -q --live --offcpu-freq 0 -o t.lp true
	run -2 --separate-stderr lp-offcpu --live true
}

@test "--live: a reader that goes away mid-stream (SIGPIPE ignored) is an error, exit 125" {
	run --separate-stderr bash -c "trap '' PIPE; lp-record -q --live -- '$W/lateroot' 0.5 | head -c 1 > /dev/null; exit \${PIPESTATUS[0]}"
	assert_equal "$status" 125
	assert_equal "$stderr" "lp-record: cannot write the stream to stdout: Broken pipe"
}

@test "--live: a thread whose stacks reach its root only 2.5 s in has it from its first sample: the writer waits for it" {
	run --separate-stderr lp-record -q --live -o late.lp -- "$W/lateroot" 2.5
	assert_success
	# frame pointers reach start_thread only; CFI reaches clone3 in the last 0.05 s
	# (what no sample stood for has no stack: [not sampled], unsampled=1)
	lp_awk '$1 == "S" && f("pid") != f("tid") && attr("unsampled") != 1 { n++; if (f("stack") ~ /^clone3;start_thread(;|$)/) m++
			if (f("stack") ~ /;deep_work(;|$)/) deep++ }
		END { if (deep < 100 || m < n) { print m " of " n " stacks of the thread (" deep " deep) start at clone3"; exit 1 } }' late.lp
	lp_awk '$1 == "S" || $1 == "P" || $1 == "T" { if (f("time") < last) { print "line " NR " goes back in time"; exit 1 } last = f("time") }' late.lp
}

@test "--live: JIT code compiled after the perf map was first read is named, not [anon]: the map is read again" {
	command -v node > /dev/null || skip "node is not installed"
	# fib runs hot from the start; 'late' is compiled 2.5 s in, long after the map was read for fib
	cat > late.js <<-'JS'
	function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
	const t0 = Date.now();
	while (Date.now() - t0 < 2500) fib(25);
	const late = new Function('n', 'let s = 0; for (let i = 0; i < n; i++) s += Math.sqrt(i) * 1.0001; return s');
	const t1 = Date.now();
	while (Date.now() - t1 < 1500) late(1e6);
	JS
	run --separate-stderr lp-record -q --live -o node.lp -- node --perf-basic-prof late.js
	assert_success
	rm -f "/tmp/perf-$(lp_awk '$1 == "P" && f("what") == "exec" { print f("pid"); exit }' node.lp).map"
	lp_awk '$1 == "S" { n = split(f("stack"), frame, ";"); leaf = frame[n]
			if (leaf ~ /^JS:\*fib /) fib++; else if (leaf ~ /^JS:.* :1:/) late++; else if (leaf == "[anon]") anon++ }
		END { if (fib < 500 || late < 500 || anon > 10) { print fib " in fib, " late " in late, " anon " [anon]"; exit 1 } }' node.lp
}

@test "--live: a program deleted as soon as it ran is named: it was held open from its mapping until read" {
	cp "$W/demo" prog
	run --separate-stderr lp-record -q --live -o gone.lp -- sh -c './prog 0.15 && rm prog'
	assert_success
	[ ! -e prog ]
	# its few hundred records come after the program is gone: read by path, it would be [prog]
	run -0 lp_awk '$1 == "S" && f("comm") == "prog" && f("stack") ~ /(^|;)main;worker;crunch_numbers$/ { n++ } END { print n + 0 }' gone.lp
	(( output > 20 )) || fail "$output samples of main;worker;crunch_numbers: $(cut -f8 gone.lp | sort | uniq -c | sort -rn | head -5)"
	run ! grep -q '\[prog\]' gone.lp
}
