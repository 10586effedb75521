#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# pipelines/lp-report: a static report of a recording (or of a stream), on
# a real recording of tests/workloads/blocking, checked in Chromium.

bats_require_minimum_version 1.5.0

setup() {
	load test_helper
	cd "$BATS_TEST_TMPDIR"
	W=$LP_BUILD/workloads
	[ -x "$W/blocking" ] || fail "workloads not built (make check builds them)"
	REPORT=$TOP/pipelines/lp-report
}

recorded() {
	lp-record -q -o b.lp -- "$W/blocking" 2> rec.err || skip "cannot record here: $(cat rec.err)"
}

@test "a report of a command: every part written, the command's exit status passed on" {
	recorded
	run --separate-stderr "$REPORT" report -- "$W/blocking"
	assert_success
	[[ "$stderr" == *"lp-report: wrote report/index.html" ]] || fail "$stderr"
	# the workload's own messages and lp-record's still reach the terminal
	[[ "$stderr" == *"truth nap "* ]] && [[ "$stderr" == *"lp-record: "*"on-CPU samples"* ]] || fail "$stderr"
	for f in run.lp run.folded top.tsv index.html timeline.svg flamegraph.svg oncpu.svg offcpu.svg; do
		[ -s "report/$f" ] || fail "no report/$f"
	done
	xmllint --noout report/timeline.svg report/flamegraph.svg report/oncpu.svg report/offcpu.svg
	grep -q '<tr><th>Processes, threads</th><td>2, 5</td></tr>' report/index.html
	grep -q '<h3><code>nap</code></h3>' report/index.html
	! ls -d report.partial.* 2> /dev/null
	run -3 --separate-stderr "$REPORT" report3 -- sh -c 'exit 3'
	grep -q '<tr><th>Exit status</th><td>3</td></tr>' report3/index.html
}

@test "browser: the report's first screen, the thread picker, flame graphs and source views" {
	recorded
	"$REPORT" report --from b.lp 2> /dev/null
	browser report report/index.html
}

@test "--from a stream; its exit status comes from the stream; a second run replaces the report" {
	recorded
	run --separate-stderr "$REPORT" r --from b.lp
	assert_success
	grep -q '<tr><th>Exit status</th><td>0</td></tr>' r/index.html
	cmp b.lp r/run.lp
	touch r/stale
	run --separate-stderr "$REPORT" r --from b.lp
	assert_success
	[ ! -e r/stale ]
}

@test "--from a stream with -e events: each event's samples beside its exact count" {
	[ -x "$W/writes" ] || fail "workloads not built"
	lp-record -q -o w.lp -e syscalls:sys_enter_write -- "$W/writes" 300 10 2> rec.err || skip "cannot record here: $(cat rec.err)"
	run -0 --separate-stderr "$REPORT" r --from w.lp
	grep -q '<tr><th>syscalls:sys_enter_write</th><td>301 samples, 301 in all; 301 counted exactly</td></tr>' r/index.html ||
		fail "$(grep -o '<tr><th>syscalls[^/]*' r/index.html)"
}

@test "a recording whose source is not here: its functions are named with the files not found, not drawn" {
	# built here, its source beside it, then taken away: as a recording made on another machine
	cp "$TOP/tests/workloads/lines.c" here.c
	cc -O1 -g -fno-omit-frame-pointer -o here here.c
	lp-record -q -o h.lp -- ./here 1 2> rec.err || skip "cannot record here: $(cat rec.err)"
	rm here.c
	run --separate-stderr "$REPORT" r --from h.lp
	assert_success
	grep -q "<p class=\"note\">Source not found here for: loop ($PWD/here.c)" r/index.html ||
		fail "$(grep -o 'Source not found[^<]*' r/index.html)"
	run ! grep -q '<h3><code>loop</code></h3>' r/index.html
}

@test "what is not a stream, or a failing step, leaves no directory; nor is a directory of other files overwritten" {
	printf 'a;b 1\n' > f.folded
	run -1 --separate-stderr "$REPORT" r --from f.folded
	[ "$stderr" = "lp-report: 'f.folded' is not an lp stream" ]
	[ ! -e r ] && ! ls -d r.partial.* 2> /dev/null
	# a stream that lp-svg refuses midway (a malformed record)
	{ head -5 "$DATA/timeline/small.lp"; printf 'S\tbad\n'; } > bad.lp
	run ! --separate-stderr "$REPORT" r --from bad.lp
	[ ! -e r ] && ! ls -d r.partial.* 2> /dev/null
	mkdir mine && touch mine/notes.txt
	run -1 --separate-stderr "$REPORT" mine --from "$DATA/timeline/small.lp"
	[ "$stderr" = "lp-report: 'mine' exists and is not an lp report: give a new directory" ]
	[ -e mine/notes.txt ]
}

@test "waits another recorded thread ended are told apart: top.tsv ranks the rest, a table names what was waited for" {
	run --separate-stderr "$REPORT" report --from "$DATA/waits/waits.lp"
	assert_success
	# (wait4 for the child, the thread's wait for the main thread and the pipe's for the grandchild are
	# theirs; sshd's poll is not ours)
	assert_equal "$(cat report/top.tsv)" "$(printf '%s\t%s\t%s\t%s\t%s\n' \
		function self_on_cpu_s self_off_cpu_s total_on_cpu_s total_off_cpu_s \
		work 0.005000 0.004000 0.005000 0.004000 \
		crunch 0.008000 0.000000 0.008000 0.000000 \
		read 0.000000 0.002000 0.000000 0.002000 \
		poll 0.000000 0.001000 0.000000 0.001000)"
	grep -q '<tr><td><code>app</code></td><td><code>child</code></td><td>9.0 ms</td><td>1</td></tr>' report/index.html
	grep -q '<tr><td><code>app</code></td><td><code>app</code></td><td>3.0 ms</td><td>1</td></tr>' report/index.html
	# (a grandchild born during the wait: its first record comes after the wait's, wakerrecorded=1 says it is ours)
	grep -q '<tr><td><code>app</code></td><td><code>sleep</code></td><td>2.5 ms</td><td>1</td></tr>' report/index.html
	! grep -qE '<code>(wait4|pipe_read)</code>' report/index.html
	# run-queue latency: 5 us, 20 us, 30 us, 40 us, 2 ms, 4 ms (preempted: all of its interval)
	grep -q '<tr><td><code>app \[10\]</code></td><td>1</td><td>3</td><td>0</td><td>2</td><td>0</td><td>6.1 ms</td></tr>' report/index.html
}

@test "a missing program is named, with the remedy" {
	mkdir bin
	run -1 --separate-stderr env LP_BIN="$PWD/bin" PATH=/usr/bin:/bin sh -c 'cp "$0" ./lp-report && ./lp-report r --from "$1"' \
		"$REPORT" "$DATA/timeline/small.lp"
	[ "$stderr" = "lp-report: cannot find 'lp-collapse': run make in lp's checkout, or put lp's programs on PATH (or LP_BIN)" ]
	[ ! -e r ]
}

@test "usage errors exit 2" {
	run -2 --separate-stderr "$REPORT" r
	[ "$stderr" = "usage: lp-report DIR [--roofs ROOFS] -- COMMAND [ARG]...  |  lp-report DIR [--roofs ROOFS] --from RUN.lp" ]
	run -2 --separate-stderr "$REPORT" r --from a b
	run -2 --separate-stderr "$REPORT" r --roofs x.lp --from
}

@test "--roofs: the functions of a stream with FLOP counters under the machine's roofs; without roofs, said" {
	recorded
	# FLOP and load/store samples as lp-roofline record writes them on a Zen 3, on the workload's spin
	{
		grep -v '^#lp\.end	' b.lp
		printf '#lp.event\tfl\tretired_sse_avx_flops:any\t1000003\tflops\tevents\n'
		printf '#lp.event\tld\tls_dispatch:ld_dispatch\t1000003\tloads\tevents\n'
		stack=$(lp_awk '$1 == "S" && f("event") == "cpu" && f("stack") ~ /spin/ { print f("stack") "\t" f("locs"); exit }' b.lp)
		printf 'S\t1\t1\t1\tw\tfl\t4000000000\t%s\n' "$stack"
		printf 'S\t2\t1\t1\tw\tld\t1000000000\t%s\n' "$stack"
		printf '#lp.end\t0\n'
	} > flops.lp
	lp-roofline roofs -q --isa sse -r 3 --l1 16K --l2 256K --l3 4M --dram 64M > roofs.lp
	run --separate-stderr "$REPORT" r --roofs roofs.lp --from flops.lp
	assert_success
	[ -s r/roofline.svg ] && xmllint --noout r/roofline.svg
	grep -q '<h2>Roofline</h2>' r/index.html
	grep -q '<object id="roofline" data="roofline.svg"' r/index.html
	grep -q 'class="point"' r/roofline.svg
	run --separate-stderr "$REPORT" r2 --from flops.lp
	assert_success
	[ ! -e r2/roofline.svg ]
	run -1 --separate-stderr "$REPORT" r3 --roofs nothing.lp --from flops.lp
	[ "$stderr" = "lp-report: cannot read 'nothing.lp'" ]
}

@test "--roofs with a command and no FLOP counters: counted by emulation under QEMU, and the report says so" {
	if lp-record -q -e cycles -o /dev/null -- true 2> /dev/null; then
		skip "this machine has hardware counters"
	fi
	command -v "qemu-$(uname -m)" > /dev/null || skip "no qemu-$(uname -m) (apt-get install qemu-user)"
	lp-roofline roofs -q --isa sse -r 3 --l1 16K --l2 256K --l3 4M --dram 64M > roofs.lp
	run --separate-stderr "$REPORT" r --roofs roofs.lp -- "$LP_BUILD/workloads/flopkinds" sse-dp 20000
	assert_success
	[[ "$stderr" == *"lp-report: no FLOP counters here: counting by emulation (lp-roofline record --emulate)"* ]] || fail "$stderr"
	grep -q 'the FLOPs and bytes were counted exactly by emulation' r/index.html
	xmllint --noout r/roofline.svg
	grep -q '<text[^>]*>sse_dp</text>' r/roofline.svg
	grep -q 'FLOPs and bytes counted exactly by emulation (QEMU)' r/roofline.svg
}
