#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# What the first screen of lp's report and pictures says about real programs
# nobody here wrote, recorded at defaults: make -j2 of a small C project (make,
# sh, gcc's driver, cc1, as), node and python3. The work comes first; the waits
# for it (a driver's wait4 for cc1, idle worker threads woken by the main one)
# are told apart, named by what they waited for. Checked in Chromium.

bats_require_minimum_version 1.5.0

setup() {
	load test_helper
	cd "$BATS_TEST_TMPDIR"
	REPORT=$TOP/pipelines/lp-report
	lp-record -q -o probe.lp -- true 2> probe.err || skip "cannot record here: $(cat probe.err)"
	grep -q $'^#lp.sampling\toffcpu' probe.lp || skip "no off-CPU sampling here: $(cat probe.err)"
}

# A C project of 6 files, each a few hundred functions: a second or two of cc1 at -O2.
c_project() {
	mkdir -p proj
	for f in 1 2 3 4 5 6; do
		awk -v f="$f" 'BEGIN {
			for (i = 0; i < 300; i++) {
				printf "int f%d_%d(int *a, int n) { int s = 0; for (int i = 0; i < n; i++) s += a[i] * %d + (a[i] >> %d); return s; }\n", f, i, i, i % 7
				printf "double g%d_%d(double x) { double y = x; for (int k = 0; k < %d; k++) y = y * 0.5 + x / (k + 1); return y; }\n", f, i, i % 13 + 1
			}
		}' > "proj/f$f.c"
	done
	printf 'OBJS = f1.o f2.o f3.o f4.o f5.o f6.o\nall: $(OBJS)\n%%.o: %%.c\n\tgcc -O2 -c -o $@ $<\n' > proj/Makefile
}

# The report's first table's first row (function, self on-CPU, self off-CPU), from top.tsv.
first_function() {
	sed -n 2p "$1/top.tsv"
}

# Fails unless the report DIR ranks work first: its first function has more time on the CPU than
# blocked (off the CPU but not preempted, state=R: a busy machine adds as much of that as it likes).
first_is_work() {
	local fn on off blocked
	IFS=$'\t' read -r fn on off _ <<< "$(first_function "$1")"
	blocked=$(lp_awk -v fn="$fn" '$1 == "S" && f("event") == "offcpu" && attr("state") != "R" {
		n = split(f("stack"), fr, ";"); if (fr[n] == fn) ns += f("weight") } END { printf "%.6f", ns / 1e9 }' "$1/run.lp")
	awk -v on="$on" -v b="$blocked" 'BEGIN { exit !(on > 0 && on > b) }' ||
		fail "first function $fn: on-CPU $on s, off-CPU $off s of which blocked $blocked s"
}

@test "make -j2: the report ranks the compiler's work first; gcc's wait for cc1 and make's for gcc are their own table" {
	command -v gcc > /dev/null && command -v make > /dev/null || skip "no gcc or make"
	c_project
	"$REPORT" report -- make -s -j2 -C proj 2> report.err || fail "$(cat report.err)"
	# the heaviest function is cc1's, on the CPU, not a wait
	first_is_work report
	# the driver's wait4 for cc1, make's pselect for gcc: seconds, ended by a recorded child, so not ranked
	# (a sample on the CPU in them may be)
	awk -F'\t' '$1 ~ /^(wait4|__GI___wait4|pselect|__pselect|select)$/ && $3 > 0.1 { print; bad = 1 } END { exit bad }' report/top.tsv ||
		fail "waits for children ranked: $(grep -P '^(wait4|__GI___wait4|pselect|__pselect|select)\t' report/top.tsv)"
	grep -q '<td><code>cc1</code>' report/index.html || fail "no wait for cc1 in the waits table"
	# the flame graph: the driver's wait for cc1 is one frame
	grep -q '\[waiting for cc1\]' report/flamegraph.svg
	browser firstscreen report/index.html make
}

@test "node: the JavaScript's stacks and the idle workers' waits for the main thread, told apart" {
	command -v node > /dev/null || skip "no node"
	cat > work.js <<-'JS'
	let o = []; for (let i = 0; i < 2000; i++) o.push({ a: i, b: 'x'.repeat(i % 50), c: [i, i * 2] });
	let s = 0; for (let k = 0; k < 600; k++) s += JSON.stringify(o).length;
	console.log(s);
	JS
	"$REPORT" report -- node work.js > /dev/null 2> report.err || fail "$(cat report.err)"
	# (600 rounds: its heaviest function then has some 70 ms of the CPU, past any one wait of node's
	# start-up for the disk or for a CPU: a sanitizer run saw getenv wait 21 ms, over 150 rounds' 17 ms)
	first_is_work report
	! grep -qP '^(pthread_cond_wait|__futex_abstimed_wait_common)\t' report/top.tsv
	grep -q '\[waiting for node\]' report/flamegraph.svg
	browser firstscreen report/index.html node
}

@test "python3: the interpreter's work first" {
	command -v python3 > /dev/null || skip "no python3"
	"$REPORT" report -- python3 -c 'print(sum(i * i % 7 for i in range(6000000)))' > /dev/null 2> report.err || fail "$(cat report.err)"
	first_is_work report
	browser firstscreen report/index.html python3
}
