#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# lp-stat: counting, beside perf stat on the same machine and the same programs (perf stat's
# output, CSV columns and counts are what it is held to).

bats_require_minimum_version 1.5.0

setup() {
	load test_helper
	cd "$BATS_TEST_TMPDIR"
	W=$LP_BUILD/workloads
	[ -x "$W/writes" ] || fail "workloads not built (make check builds them)"
	command -v perf > /dev/null || skip "no perf to compare with"
	if ! lp-stat -e page-faults -- true 2> probe.err; then
		skip "perf_event_open is not allowed here: $(cat probe.err)"
	fi
}

# The CSV lines of perf stat -x, (or lp-stat) without the values: "unit,event,...,metric unit".
csv_shape() {
	awk -F, 'NF >= 7 { v = $1 ~ /^</ ? $1 : "N"; print v "," $2 "," $3 "," $NF }' "$1"
}

@test "the default set is perf stat's on this machine, <not supported> exactly where perf says so, the same columns" {
	run -0 --separate-stderr lp-stat -- "$W/writes" 10 10
	perf stat -- "$W/writes" 10 10 2> perf.txt
	# event names and <not supported>/counted, in perf's order and columns
	diff <(grep -E '^ +(<|[0-9])' perf.txt | sed -E 's/^ *[0-9.]+ /N /; s/#.*//; s/ +$//') \
		<(grep -E '^ +(<|[0-9])' <<< "$stderr" | sed -E 's/^ *[0-9.]+ /N /; s/#.*//; s/ +$//')
	assert_equal "$(grep -c 'seconds time elapsed' <<< "$stderr")" 1
	grep -q 'seconds user$' <<< "$stderr"
	grep -q 'CPUs utilized' <<< "$stderr"
	# -x , : perf's columns in perf's order, the same events
	perf stat -x, -o perf.csv -- "$W/writes" 10 10
	lp-stat -x, -- "$W/writes" 10 10 2> lp.csv
	diff <(csv_shape perf.csv) <(csv_shape lp.csv)
	# no hardware counter here: never zeros presented as counts
	if grep -q 'not supported.*cycles' perf.txt; then
		grep -q '^<not supported>,,cycles,0,100.00,,$' lp.csv
	fi
}

@test "tracepoints and software events of a deterministic program: the counts perf stat gives" {
	ev=syscalls:sys_enter_write,syscalls:sys_enter_openat,sched:sched_process_fork,sched:sched_process_exec
	cmd=(sh -c "$W/writes 1500 1 2>/dev/null; for i in 1 2 3 4 5; do /bin/true; done; $W/writes 7 1 2>/dev/null")
	perf stat -x, -e "$ev" -o perf.csv -- "${cmd[@]}"
	run -0 --separate-stderr lp-stat -x, -e "$ev" -- "${cmd[@]}"
	perf_counts=$(awk -F, 'NF >= 7 { print $3, $1 }' perf.csv)
	lp_counts=$(awk -F, 'NF >= 7 { print $3, $1 }' <<< "$stderr")
	assert_equal "$lp_counts" "$perf_counts"
	# and they are what the program does: 1500 + 7 writes and each run's report line
	assert_equal "$(awk '$1 == "syscalls:sys_enter_write" { print $2 }' <<< "$lp_counts")" 1509
	assert_equal "$(awk '$1 == "sched:sched_process_fork" { print $2 }' <<< "$lp_counts")" 7
	assert_equal "$(awk '$1 == "sched:sched_process_exec" { print $2 }' <<< "$lp_counts")" 8
}

@test "page faults of a known pattern: 4000 fresh pages touched, as perf stat counts them" {
	run -0 --separate-stderr lp-stat -x, -e page-faults,minor-faults,major-faults -- "$W/writes" 1 4000
	lp=$(awk -F, '$3 == "page-faults" { print $1 }' <<< "$stderr")
	perf stat -x, -e page-faults -o perf.csv -- "$W/writes" 1 4000
	pf=$(awk -F, '$3 == "page-faults" { print $1 }' perf.csv)
	# the 4000 pages and the program's own start, which differs by a few pages a run (ASLR)
	[ "$lp" -ge 4000 ] || fail "lp-stat counted $lp page faults, fewer than the 4000 pages touched"
	[ $((lp > pf ? lp - pf : pf - lp)) -le 20 ] || fail "lp-stat $lp, perf stat $pf"
	assert_equal "$(awk -F, '$3 == "minor-faults" { m = $1 } $3 == "major-faults" { j = $1 } END { print m + j }' <<< "$stderr")" "$lp"
}

# Waits until process $1 has a perf event open (it is counting).
counting() {
	for _ in $(seq 500); do
		ls -l "/proc/$1/fd" 2> /dev/null | grep -q 'perf_event' && return 0
		sleep 0.01
	done
	fail "process $1 opened no perf event"
}

@test "task-clock of a CPU-bound command within 1% of perf stat's, both counting the same run" {
	# both attached to a shell held on a fifo, which then execs a 0.4 s spin: the same CPU time
	mkfifo go
	sh -c "read _ < go; exec $W/descend 0.4 10" &
	target=$!
	lp-stat -p "$target" -x, -e task-clock 2> lp.csv &
	lp=$!
	perf stat -p "$target" -x, -e task-clock -o perf.csv &
	pf=$!
	counting "$lp"
	counting "$pf"
	echo > go
	wait "$target"
	wait "$lp" "$pf"
	p=$(awk -F, '$3 == "task-clock" { print $1 }' perf.csv)
	l=$(awk -F, '$3 == "task-clock" { print $1 }' lp.csv)
	awk -v p="$p" -v l="$l" 'BEGIN { d = l - p; exit !(p > 300 && (d < 0 ? -d : d) <= 0.01 * p) }' ||
		fail "task-clock: lp-stat $l ms, perf stat $p ms"
}

@test "-r 5: the mean and perf's spread ( +- x.xx% ) of each count and of the elapsed time" {
	run -0 --separate-stderr lp-stat -r 5 -e task-clock,page-faults -- "$W/writes" 10 100
	assert_equal "$(grep -c "Performance counter stats for '$W/writes 10 100' (5 runs):" <<< "$stderr")" 1
	grep -qE '^ +[0-9.]+ msec task-clock +# +[0-9.]+ CPUs utilized +\( \+- +[0-9.]+% \)$' <<< "$stderr"
	grep -qE '^ +[0-9.]+ \+- [0-9.]+ seconds time elapsed  \( \+- +[0-9.]+% \)$' <<< "$stderr"
	# the writes' own lines went to their stderr: 5 runs
	assert_equal "$(grep -c '^writes 10 ' <<< "$stderr")" 5
	# CSV: the spread is the column after the event's name, as perf's
	run -0 --separate-stderr lp-stat -x, -r 3 -e page-faults -- true
	assert_output ''
	[[ "$stderr" =~ ^[0-9]+,,page-faults,[0-9.]+%,[0-9]+,100.00,,$ ]] || fail "$stderr"
}

@test "--per-thread of -p sums to the total; --per-process too; each thread by its comm-tid" {
	"$W/churn" 5000 2> /dev/null &
	pid=$!
	sleep 0.1
	run -0 --separate-stderr lp-stat -p "$pid" --per-thread -e task-clock,cs -o t.lp -- sleep 0.2
	grep -qE "^ +churn-$pid +[0-9.]+ msec task-clock +# +[0-9.]+ CPUs utilized" <<< "$stderr"
	run -0 --separate-stderr lp-stat -x, -p "$pid" --per-process -e cs -- sleep 0.1
	kill "$pid"
	wait "$pid" || true
	# one process, the sum of its threads
	[[ "$stderr" =~ ^churn-$pid,[0-9]+,,cs,[0-9]+,100.00,,$ ]] || fail "$stderr"
	# each event's threads sum exactly to its total (the counters are stopped before they are read)
	run -0 lp_awk '$1 == "N" && f("pid") == "-" { total[f("event")] = f("value") }
		$1 == "N" && f("pid") != "-" && f("value") != "-" { sum[f("event")] += f("value"); n[f("event")]++ }
		END { for (e in total) print e, (total[e] == sum[e] ? "equal" : total[e] " != " sum[e]), (n[e] > 1 ? "threads" : "one") }' t.lp
	assert_line "task-clock equal threads"
	assert_line "cs equal threads"
}

@test "tracepoint wildcards expand to perf's list, in perf's order" {
	for glob in 'sched:sched_process_*' 'syscalls:sys_enter_*' 'sched:sched_*wa[ik]*'; do
		perf stat -x, -e "$glob" -o perf.csv -- true
		lp-stat -x, -e "$glob" -- true 2> lp.csv
		diff <(awk -F, 'NF >= 7 { print $3 }' perf.csv) <(awk -F, 'NF >= 7 { print $3 }' lp.csv)
	done
	[ "$(wc -l < lp.csv)" -ge 1 ]
	run -2 --separate-stderr lp-stat -e 'sched:no_such_*' -- true
	assert_equal "${stderr%%$'\n'*}" "lp-stat: no tracepoint matches 'sched:no_such_*' (see --list-events)"
}

@test "-I: each interval's counts with its time, then the rest; -a counts every CPU" {
	run -0 --separate-stderr lp-stat -I 100 -x, -e task-clock,sched:sched_process_exec -- sh -c 'sleep 0.35; /bin/true'
	# 3 full intervals and the last part, each with both events, times going up
	assert_equal "$(awk -F, 'NF >= 8' <<< "$stderr" | wc -l)" 8
	awk -F, 'NF >= 8 { if ($1 + 0 < last) exit 1; last = $1 + 0 }' <<< "$stderr"
	assert_equal "$(awk -F, '$4 == "sched:sched_process_exec" { s += $2 } END { print s }' <<< "$stderr")" 3
	run -0 --separate-stderr lp-stat -a -x, -e cpu-clock -- sleep 0.2
	# every online CPU's clock: about 2 CPUs' worth of 200 ms here
	ms=$(awk -F, '$3 == "cpu-clock" { print $1 }' <<< "$stderr")
	n=$(getconf _NPROCESSORS_ONLN)
	awk -v ms="$ms" -v n="$n" 'BEGIN { exit !(ms > 0.9 * 200 * n && ms < 1.5 * 200 * n) }' || fail "cpu-clock $ms ms on $n CPUs"
}

@test "-o: the counts as N records of an lp stream, that every reader takes; replaced whole" {
	run -0 --separate-stderr lp-stat -o c.lp -e syscalls:sys_enter_write,cycles -- "$W/writes" 25 1
	head -1 c.lp | grep -qx '#lp-stream 1'
	run -0 lp_awk '$1 == "N" { print f("pid"), f("comm"), f("event"), f("value"), attr("state") }' c.lp
	assert_line "- - syscalls:sys_enter_write 26 "
	if grep -q 'not supported.*cycles' <<< "$stderr"; then
		assert_line "- - cycles - not-supported"
	fi
	tail -1 c.lp | grep -qxP '#lp.end\t2'
	run -0 lp-export -f perf-script c.lp
	# a failure leaves the old file as it was
	cp c.lp old.lp
	run -127 --separate-stderr lp-stat -o c.lp -e page-faults -- ./no-such-command
	assert_equal "$stderr" "lp-stat: cannot run './no-such-command': No such file or directory"
	cmp c.lp old.lp
}

@test "errors: an unknown event named with the way to the list; a command's own status; a usage error's" {
	run -2 --separate-stderr lp-stat -e no-such-event -- true
	[[ "$stderr" == "lp-stat: unknown event 'no-such-event'"*"--list-events"* ]] || fail "$stderr"
	run -3 --separate-stderr lp-stat -e page-faults -- sh -c 'exit 3'
	run -2 --separate-stderr lp-stat -e page-faults
	assert_equal "$stderr" "lp-stat: give a command to count, or -p PID, or -a
Try 'lp-stat --help' for more information."
	run -2 --separate-stderr lp-stat -r 0 -- true
	assert_equal "${stderr%%$'\n'*}" "lp-stat: --repeat needs a whole number from 1 to 100000, got '0'"
	run -0 lp-stat --list-events 'sched:sched_process_e*'
	assert_line --regexp '^sched:sched_process_exec +tracepoint$'
	run -0 lp stat -e page-faults -- true
}
