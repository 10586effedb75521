#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# lp-record -e: custom events (software, tracepoints, hardware where there is a PMU), recorded
# from real programs with the real kernel.

bats_require_minimum_version 1.5.0

setup() {
	load test_helper
	cd "$BATS_TEST_TMPDIR"
	W=$LP_BUILD/workloads
	[ -x "$W/writes" ] || fail "workloads not built (make check builds them)"
	if ! lp-record -q -o probe.lp -e page-faults -- true 2> probe.err; then
		skip "perf_event_open is not allowed here: $(cat probe.err)"
	fi
}

# The samples of event EV in FILE: "COUNT STACK" lines.
stacks_of() {
	lp_awk -v ev="$1" '$1 == "S" && f("event") == ev { n[f("stack")]++ } END { for (s in n) print n[s], s }' "$2" | sort -rn
}

@test "a tracepoint at period 1: one sample per write(2), under the function that called write, with its fields" {
	run --separate-stderr lp-record -q -o w.lp -e syscalls:sys_enter_write -- "$W/writes" 1000 10
	assert_success
	fd=$(awk '$1 == "writes" { print $4 }' <<< "$stderr")
	# exactly one sample per call, each with the caller of libc's write
	assert_equal "$(lp_awk '$1 == "S" && f("event") == "syscalls:sys_enter_write" && f("stack") ~ /;main;emit;write$/' w.lp | wc -l)" 1000
	# the tracepoint's own fields, decoded: fd and count of each of those writes
	assert_equal "$(lp_awk -v fd="$fd" '$1 == "S" && f("stack") ~ /;emit;write$/ && attr("fd") == fd && attr("count") == 5' w.lp | wc -l)" 1000
	grep -qxP '#lp.event\tsyscalls:sys_enter_write\tsyscalls:sys_enter_write\t1\tsyscalls:sys_enter_write\tevents' w.lp
	grep -qxP '#lp.lost\tsyscalls:sys_enter_write\t0' w.lp
	# and the readers select it
	run -0 lp-collapse -e syscalls:sys_enter_write w.lp
	assert_line --regexp '^writes;_start;.*;main;emit;write 1000$'
}

@test "a burst of 12345 write(2) samples at the defaults: every one kept or counted lost; the advice on losses helps" {
	run --separate-stderr lp-record -q -o w.lp -e syscalls:sys_enter_write,1 -- "$W/writes" 12345 10
	assert_success
	kept=$(lp_awk '$1 == "S" && f("event") == "syscalls:sys_enter_write"' w.lp | wc -l)
	lost=$(lp_meta lost syscalls:sys_enter_write w.lp)
	# the workload's writes and its one line on stderr
	assert_equal "$((kept + lost))" 12346
	# rings of one page lose most of them, and say what to do
	run --separate-stderr lp-record -q -m 1 -o small.lp -e syscalls:sys_enter_write,1 -- "$W/writes" 12345 10
	assert_success
	small=$(lp_meta lost syscalls:sys_enter_write small.lp)
	[ "$small" -gt 0 ] || fail "none lost with -m 1"
	[[ "$stderr" == *"warning: $small samples of 'syscalls:sys_enter_write' lost: the ring buffers filled up; use a bigger -m (now 1) or a bigger period"* ]] ||
		fail "$stderr"
	# the advice, followed (-m 256: the default), loses fewer
	[ "$lost" -lt "$small" ] || fail "-m 256: $lost lost, $small with -m 1"
}

@test "more than 256 rings (129 events: 258 on 2 CPUs): the last event's rings are waited on, none of its samples lost" {
	local tp=/sys/kernel/tracing/events/syscalls args=() t
	[ -d "$tp" ] || skip "no syscall tracepoints at $tp"
	# 128 tracepoints the workload never hits (their rings fill the first 256), then its getppid
	for t in $(ls "$tp" | grep '^sys_enter_' | grep -vE 'getppid|nanosleep|mmap|mprotect|rseq|close|munmap|arch_prctl|prlimit|robust|tid_address|read|brk|access|exec|open|stat|exit|write|ioctl|futex|poll|wait|kill|sig|clone|fork|sched|time|clock' | head -127); do
		args+=(-e "syscalls:$t")
	done
	[ "${#args[@]}" -eq 254 ] || skip "fewer than 127 syscall tracepoints here"
	# rings of 4 pages, a sample every ms: a ring nobody waits on fills before a poll's 100 ms timeout
	run --separate-stderr lp-record -q -m 1 --stack-size 1024 "${args[@]}" -e syscalls:sys_enter_getppid \
		-o many.lp -- "$W/paced" 400 1000
	assert_success
	assert_equal "$(lp_awk '$1 == "S" && f("event") == "syscalls:sys_enter_getppid"' many.lp | wc -l)" 400
	assert_equal "$(lp_meta lost syscalls:sys_enter_getppid many.lp)" 0
}

@test "a software event with title and unit: page faults of freshly touched pages within 1%" {
	run --separate-stderr lp-record -q -m 1024 -o pf.lp -e 'page-faults,1,Page faults,faults' -- "$W/writes" 10 4000
	assert_success
	faults=$(awk '$1 == "writes" { print $8 }' <<< "$stderr")
	sampled=$(lp_awk '$1 == "S" && f("event") == "page-faults" && f("stack") ~ /;main;touch$/ { n += f("weight") } END { print n + 0 }' pf.lp)
	# what a burst of faults overflowed is counted, never silently gone
	lost=$(lp_meta lost page-faults pf.lp)
	awk -v s="$sampled" -v l="$lost" -v f="$faults" 'BEGIN { exit !(f > 3900 && s + l >= f * 0.99 && s <= f * 1.01) }' ||
		fail "$sampled page faults sampled under touch and $lost lost, $faults taken"
	grep -qxP '#lp.event\tpage-faults\tpage-faults\t1\tPage faults\tfaults' pf.lp
}

@test "a period above 1 samples every PERIOD-th event, each sample weighing PERIOD" {
	# on one CPU: the kernel counts toward the period per CPU, and a migration leaves a count below it behind
	lp-record -q -o p.lp -e syscalls:sys_enter_write,100 -e page-faults,10 -- taskset -c 0 "$W/writes" 1000 1000 2> /dev/null
	assert_equal "$(stacks_of syscalls:sys_enter_write p.lp | awk '$2 ~ /;emit;write$/ { print $1 }')" 10
	assert_equal "$(lp_awk '$1 == "S" && f("event") == "syscalls:sys_enter_write" && f("stack") ~ /;emit;write$/ { w += f("weight") } END { print w }' p.lp)" 1000
	grep -qxP '#lp.event\tpage-faults\tpage-faults\t10\tpage-faults\tevents' p.lp
	run -0 lp_awk '$1 == "S" && f("event") == "page-faults" { print f("weight") }' p.lp
	assert_equal "$(sort -u <<< "$output")" 10
	[ "${#lines[@]}" -ge 100 ]
}

@test "PMU syntax with commas, and a hardware event: recorded where there is a PMU, a clear error where not" {
	if perf stat -e cycles -x, true 2>&1 | grep -q 'not supported'; then
		run --separate-stderr lp-record -o c.lp -e cycles -- "$W/writes" 10 10
		assert_failure 125
		[[ "$stderr" == "lp-record: perf_event_open of event 'cycles': "*"this machine has no PMU that counts it"* ]]
		# nothing recorded as if it were data
		run ! grep -q $'^S\t' c.lp
	else
		run --separate-stderr lp-record -q -o c.lp -e cycles,100003 -- "$W/writes" 100000 10
		assert_success
		grep -qP '^S\t([^\t]*\t){4}cycles\t100003\t[^\t]*;emit' c.lp
	fi
	# the software PMU by its sysfs name and terms: page faults (config 2 of type software)
	[ -d /sys/bus/event_source/devices/software ] || skip "no software PMU in sysfs"
	run --separate-stderr lp-record -q -o s.lp -e 'software/config=2/,1,faults by PMU syntax,faults' -- "$W/writes" 10 500
	assert_success
	grep -qxP '#lp.event\tsoftware_config_2_\tsoftware/config=2/\t1\tfaults by PMU syntax\tfaults' s.lp
	[ "$(lp_awk '$1 == "S" && f("event") == "software_config_2_" && f("stack") ~ /;touch$/' s.lp | wc -l)" -ge 495 ]
}

@test "--list-events: what this machine offers, and why what it lacks is missing" {
	run -0 lp-record --list-events
	assert_line --regexp '^page-faults +software$'
	assert_line --regexp '^syscalls:sys_enter_write +tracepoint$'
	# hardware events are there, available or said not to be
	assert_line --regexp '^cycles +hardware( \(not supported here: no PMU counts it\))?$'
	run -0 lp-record --list-events=sys_enter_writ
	assert_line --regexp '^syscalls:sys_enter_write +tracepoint$'
	refute_output --partial 'page-faults'
	run -0 lp-record --list-events 'sched:sched_process_e*'
	assert_line --regexp '^sched:sched_process_exec +tracepoint$'
	assert_line --regexp '^sched:sched_process_exit +tracepoint$'
}

@test "-e usage errors say what is wrong" {
	run -2 --separate-stderr lp-record -e no-such-event -- true
	[[ "$stderr" == "lp-record: -e 'no-such-event': unknown event 'no-such-event': "* ]]
	run -2 --separate-stderr lp-record -e page-faults,often -- true
	[[ "$stderr" == "lp-record: -e 'page-faults,often': the period of 'page-faults' must be a whole number of events from 1, got 'often'"* ]]
	run -2 --separate-stderr lp-record -e page-faults -e page-faults,10 -- true
	[[ "$stderr" == "lp-record: -e 'page-faults,10': event 'page-faults' is already recorded"* ]]
	run -2 --separate-stderr lp-record -e nosuchpmu/event=1/ -- true
	[[ "$stderr" == "lp-record: -e 'nosuchpmu/event=1/': no PMU 'nosuchpmu' on this machine"* ]]
	run -2 --separate-stderr lp-offcpu -e page-faults -- true
}

@test "the command inherits none of lp-record's descriptors (its output file)" {
	lp-record -q -o out.lp -- sh -c 'ls -l /proc/$$/fd/' > fds.txt
	run ! grep -q 'out.lp' fds.txt
	grep -q ' 0 -> ' fds.txt
}

@test "a tracepoint wildcard stands for each tracepoint it matches, as perf expands it" {
	run -0 --separate-stderr lp-record -q -o g.lp -e 'sched:sched_process_*' -- sh -c '/bin/true; /bin/true'
	# the six, in perf stat's order
	perf_list=$(perf stat -x, -e 'sched:sched_process_*' -- true 2>&1 | awk -F, 'NF >= 7 { print $3 }')
	assert_equal "$(awk -F'\t' '$1 == "#lp.event" { print $2 }' g.lp)" "$perf_list"
	# two forks and three execs, two exits of the children (the shell's own exit is after its samples end)
	assert_equal "$(lp_awk '$1 == "S" && f("event") == "sched:sched_process_fork"' g.lp | wc -l)" 2
	assert_equal "$(lp_awk '$1 == "S" && f("event") == "sched:sched_process_exec"' g.lp | wc -l)" 3
	run -2 --separate-stderr lp-record -q -o g.lp -e 'sched:nothing_*' -- true
	assert_equal "${stderr%%$'\n'*}" "lp-record: no tracepoint matches 'sched:nothing_*' (see --list-events)"
}

@test "each -e event's exact count beside its samples (an N record), and a warning when they stray" {
	run -0 --separate-stderr lp-record -q -o n.lp -e syscalls:sys_enter_write -e page-faults,100 -- "$W/writes" 1000 500
	# 1000 writes and the line the workload prints: every one sampled at period 1, counted exactly
	run -0 lp_awk '$1 == "N" { print f("event"), f("value") }
		$1 == "S" && f("event") == "syscalls:sys_enter_write" { w += f("weight") } END { print "sampled", w }' n.lp
	assert_output "syscalls:sys_enter_write 1001
page-faults $(lp_awk '$1 == "N" && f("event") == "page-faults" { print f("value") }' n.lp)
sampled 1001"
	# the exact page faults are what lp-stat counts of the same program, within its start's few pages
	faults=$(lp_awk '$1 == "N" && f("event") == "page-faults" { print f("value") }' n.lp)
	[ "$faults" -ge 500 ] && [ "$faults" -le 700 ] || fail "page-faults $faults"
	! grep -q '^#lp.warning' n.lp || fail "$(grep '^#lp.warning' n.lp)"
	# the flame graph of one event says how much of it its samples are
	lp-svg -e page-faults n.lp > pf.svg
	samples=$(lp_awk '$1 == "S" && f("event") == "page-faults"' n.lp | wc -l)
	grep -q ">$samples samples of $faults occurrences (counted exactly)<" pf.svg || fail "$(grep -o 'id="subtitle"[^<]*<' pf.svg)"
	# twenty short processes of ~50 faults each, sampled every 40th: each leaves up to 39 unsampled,
	# ~20% of the exact count in all, more than the 5% tolerance asked: said, on stderr and in the stream
	run -0 --separate-stderr lp-record -q --time-tolerance 5 -o s.lp -e page-faults,40 -- \
		sh -c 'for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do /bin/true; done'
	[[ "$stderr" =~ "warning: the samples of 'page-faults' stand for "[0-9]+" occurrences, its exact count is "[0-9]+": a smaller period samples more of them" ]] ||
		fail "$stderr"
	grep -q '^#lp.warning	the samples of .page-faults. stand for' s.lp
}
