#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Code regions (lp/region.h): USDT probes in a program, recorded by lp-record
# as C records, and samples placed in them (--by region). The workload,
# tests/workloads/regions.c, spins a known CPU time in each region:
#   setup 100 ms, solver 300 ms holding inner 100 ms, worker 150 ms (a second
#   thread, beside the solver), plugin 100 ms (a library loaded with dlopen),
#   io 50 ms (the function form, lp_region_begin("io")).

bats_require_minimum_version 1.5.0

setup() {
	load test_helper
	cd "$BATS_TEST_TMPDIR"
	W=$LP_BUILD/workloads
	[ -x "$W/regions" ] || fail "workloads not built (make check builds them)"
	[ -r /sys/bus/event_source/devices/uprobe/type ] || skip "the kernel has no uprobe PMU (CONFIG_UPROBE_EVENTS)"
}

# Each region's share of on-CPU time (its samples and those of regions inside it), "NAME PERCENT".
region_shares() {
	lp-collapse --by region -e cpu "$1" | awk '{
		n = split($0, w, " "); c = w[n]; all += c
		k = split($1, f, ";"); delete seen
		for (i = 1; i <= k; i++) if (f[i] ~ /^region=/ && !(f[i] in seen)) { seen[f[i]] = 1; in_r[substr(f[i], 8)] += c }
	} END { for (r in in_r) printf "%s %.1f\n", r, 100 * in_r[r] / all }' | sort
}

@test "the probes are in the program's notes, each a nop where it is" {
	run -0 readelf -n "$W/regions"
	for p in setup__begin setup__end solver__begin solver__end inner__begin inner__end worker__begin worker__end \
		region_begin region_end; do
		grep -q "Name: $p\$" <<< "$output" || fail "no probe lp:$p in the notes: $output"
	done
	grep -q 'Name: plugin__begin$' <<< "$(readelf -n "$W/libregions.so")"
	# a probe costs its nop: nothing else runs where nobody profiles
	for loc in $(readelf -n "$W/regions" | sed -n 's/^ *Location: \(0x[0-9a-f]*\),.*/\1/p'); do
		objdump -d --start-address="$loc" --stop-address=$((loc + 1)) "$W/regions" | grep -qP '^\s*[0-9a-f]+:\s+90\s+nop' ||
			fail "the probe at $loc is not a nop: $(objdump -d --start-address="$loc" --stop-address=$((loc + 1)) "$W/regions" | tail -2)"
	done
}

@test "lp-record writes each region's begin and end, nested, in the library loaded later and in the function form too" {
	run --separate-stderr lp-record -q -o r.lp -- "$W/regions"
	assert_success
	[ -z "$(without_copy_cut "$stderr")" ] || fail "$stderr"
	pid=$(lp_awk '$1 == "C" { print f("pid"); exit }' r.lp)
	run -0 lp_awk '$1 == "C" { print (f("tid") == f("pid") ? "main" : "thread"), f("what"), f("name") }' r.lp
	# (the worker's begin may come before or after the solver's: it starts beside it)
	assert_equal "$(grep main <<< "$output" | tr '\n' ' ')" \
		"main begin setup main end setup main begin solver main begin inner main end inner main end solver main begin plugin main end plugin main begin io main end io "
	assert_equal "$(grep thread <<< "$output" | tr '\n' ' ')" "thread begin worker thread end worker "
	[ "$(lp_awk -v p="$pid" '$1 == "C" && f("pid") != p' r.lp | wc -l)" -eq 0 ]
}

@test "--by region: each region's share of the CPU time within 2 points of what the workload spun" {
	lp-record -q -o r.lp -- "$W/regions"
	region_shares r.lp > shares
	# of 700 ms: setup 100, solver 300 (inner 100 in it), worker 150, plugin 100, io 50
	awk 'BEGIN { want["setup"] = 100; want["solver"] = 300; want["inner"] = 100; want["worker"] = 150; want["plugin"] = 100; want["io"] = 50 }
		{ got[$1] = $2 }
		END { for (r in want) { w = 100 * want[r] / 700; if (!(r in got) || got[r] < w - 2 || got[r] > w + 2) { printf "%s: %s%%, not %.1f%%\n", r, got[r], w; bad = 1 } } exit bad }' shares ||
		fail "$(cat shares)"
	# root frames: the regions, outermost first, then the thread
	lp-collapse --by region -e cpu r.lp | grep -q '^region=solver;region=inner;regions;'
	# with --by host too: host first
	lp-collapse --by host,region -e cpu r.lp | grep -qE '^host=[^;]+;region=solver;region=inner;regions;'
	# and drawn: lp-svg --by region
	run --separate-stderr lp-svg --by region r.lp
	assert_success
	grep -q 'region=inner' <<< "$output"
}

@test "an end without its begin, and a region left open as its thread exits: said, and the stream stays nested" {
	run --separate-stderr lp-record -q -o b.lp -- "$W/regions" bad
	assert_success
	assert_equal "$(grep 'code region' <<< "$stderr")" "$(printf '%s\n' \
		"lp-record: warning: 1 code region ends without their begin (the first: 'orphan'): left out" \
		"lp-record: warning: 1 code regions still open as an outer one ended or their thread exited (the first: 'unclosed'): ended there")"
	! grep -qP '^C\t.*\torphan$' b.lp
	# unclosed ends as its thread exits, before the exit's P record
	run -0 lp_awk '$1 == "C" && f("name") == "unclosed" { print f("what") } $1 == "P" && f("what") == "exit" && seen { print "exit"; seen = 0 } $1 == "C" && f("name") == "unclosed" { seen = 1 }' b.lp
	assert_output - <<-'EOF'
	begin
	end
	exit
	EOF
	# readers warn about what a hand-made stream gets wrong
	printf '#lp-stream 1\nC\t1\t5\t5\tend\tnever\nS\t2\t5\t5\tapp\tcpu\t1\tmain\t-\n#lp.end\t2\n' > h.lp
	run --separate-stderr lp-collapse --by region h.lp
	assert_success
	assert_output 'app;main 1'
	[ "$stderr" = "lp-collapse: h.lp:2: warning: the end of region 'never', which thread 5 is not in: left out" ]
}

@test "regions of a running process (-p), of the whole system (-a) and of a live recording (--live)" {
	"$W/regions" late > out.txt &
	pid=$!
	for _ in $(seq 100); do grep -q ready out.txt && break; sleep 0.02; done
	lp-record -q -p "$pid" -o p.lp
	wait "$pid"
	[ "$(lp_awk '$1 == "C" && f("what") == "begin"' p.lp | wc -l)" -eq 6 ] || fail "$(grep '^C' p.lp)"
	lp-record -q --live -o l.lp -- "$W/regions"
	[ "$(lp_awk '$1 == "C" && f("what") == "begin"' l.lp | wc -l)" -eq 6 ] || fail "$(grep '^C' l.lp)"
	lp-record -q -a -o a.lp -- "$W/regions" 2> /dev/null
	[ "$(lp_awk '$1 == "C" && f("what") == "begin"' a.lp | wc -l)" -eq 6 ] || fail "$(grep '^C' a.lp)"
}

@test "malformed C records: the same error from every reader's parser" {
	printf '#lp-stream 1\nC\t1\t5\t5\tbegan\tx\n#lp.end\t1\n' > c.lp
	run -1 --separate-stderr lp-collapse c.lp
	[ "$stderr" = "lp-collapse: c.lp:2: a C record is a region's begin or end, not 'began'" ]
	printf '#lp-stream 1\nC\t1\t5\t5\tbegin\t\n#lp.end\t1\n' > e.lp
	run -1 --separate-stderr lp-svg e.lp
	[ "$stderr" = "lp-svg: e.lp:2: a region's NAME is empty" ]
}

@test "lp-report: a table of the regions, their time on and off the CPU and share" {
	run --separate-stderr "$TOP/pipelines/lp-report" report -- "$W/regions"
	assert_success
	sed -n 's|^<tr><td><code>\([a-z]*\)</code></td><td>[^<]*</td><td>[^<]*</td><td>\([0-9.]*\)%</td></tr>$|\1 \2|p' \
		report/index.html > shares
	awk 'BEGIN { want["setup"] = 100; want["solver"] = 300; want["inner"] = 100; want["worker"] = 150; want["plugin"] = 100; want["io"] = 50 }
		{ got[$1] = $2 }
		END { for (r in want) { w = 100 * want[r] / 700; if (!(r in got) || got[r] < w - 2 || got[r] > w + 2) { printf "%s: %s%%, not %.1f%%\n", r, got[r], w; bad = 1 } } exit bad }' shares ||
		fail "$(cat shares)"
	grep -q '<h3>Code regions</h3>' report/index.html
}

@test "browser: the timeline draws each region as a band on its thread's row; a click gives that region's flame graph" {
	lp-record -q -o r.lp -- "$W/regions"
	run --separate-stderr lp-svg --timeline r.lp
	assert_success
	printf '%s\n' "$output" > r.svg
	browser timeline regions r.svg
}

@test "lp-roofline points --by region: a Q record per region, counting the regions inside it" {
	{
		printf '#lp-stream 1\n'
		printf '#lp.event\tfl\tretired_sse_avx_flops:any\t1000003\tflops\tevents\n'
		printf '#lp.event\tld\tls_dispatch:ld_dispatch\t1000003\tloads\tevents\n'
		printf '#lp.event\tst\tls_dispatch:store_dispatch\t1000003\tstores\tevents\n'
		printf 'C\t1\t1\t1\tbegin\tsolver\n'
		printf 'S\t2\t1\t1\tw\tcpu\t1500000000\tmain;dot\t-\n'
		printf 'S\t3\t1\t1\tw\tfl\t4000000000\tmain;dot\t-\n'
		printf 'S\t4\t1\t1\tw\tld\t1500000000\tmain;dot\t-\n'
		printf 'S\t5\t1\t1\tw\tst\t500000000\tmain;dot\t-\n'
		printf 'C\t6\t1\t1\tbegin\tinner\n'
		printf 'S\t7\t1\t1\tw\tcpu\t2500000000\tmain;mm\t-\n'
		printf 'S\t8\t1\t1\tw\tfl\t80000000000\tmain;mm\t-\n'
		printf 'S\t9\t1\t1\tw\tld\t400000000\tmain;mm\t-\n'
		printf 'C\t10\t1\t1\tend\tinner\n'
		printf 'C\t11\t1\t1\tend\tsolver\n'
		printf 'S\t12\t1\t1\tw\tcpu\t100000000\tmain\t-\n'
		printf '#lp.end\t13\n'
	} > zen.lp
	run --separate-stderr lp-roofline points --by region zen.lp
	assert_success
	c=$'counters=retired_sse_avx_flops:any,ls_dispatch:ld_dispatch,ls_dispatch:store_dispatch\tcounts=pmu'
	assert_output - <<-EOF
		#lp-stream 1
		Q	solver	84000000000	19200000000	4.000000000	bytes=width-8	loads=1900000000	stores=500000000	$c
		Q	inner	80000000000	3200000000	2.500000000	bytes=width-8	loads=400000000	stores=0	$c
		#lp.end	2
	EOF
	run -2 --separate-stderr lp-roofline points --by function zen.lp
	[ "${stderr_lines[0]}" = "lp-roofline: points --by takes region, not 'function'" ]
}

@test "lp-roofline record --emulate, points --by region: each region's exact counts, the regions inside it counted in it too" {
	command -v "qemu-$(uname -m)" > /dev/null || skip "no qemu-$(uname -m) (apt-get install qemu-user)"
	run --separate-stderr lp-roofline record --emulate -o run.lp -- "$W/regions"
	assert_success
	# the function form names its region in a register, which QEMU 7.2's plugins cannot read: said
	[[ "$stderr" == *"lp-roofline: warning: code regions of lp_region_begin/end in 'lp_region_begin' (pid "*"): QEMU 7.2's plugins cannot read the name they pass"* ]] ||
		fail "$stderr"
	# K records of code inside regions say which are open around it
	grep -qP '^K\t.*\tregions=solver;inner(\t|$)' run.lp || fail "$(grep '^K' run.lp | grep regions= | head)"
	run -0 --separate-stderr lp-roofline points --by region run.lp
	printf '%s\n' "$output" > points.lp
	for r in setup solver inner worker plugin; do
		got=$(lp_awk -v r="$r" '$1 == "Q" && f("name") == r { print attr("counts"), attr("insns") }' points.lp)
		[[ "$got" == "emulated "[1-9]* ]] || fail "$r: '$got' in $output"
	done
	# each spins on its thread's CPU clock: inner 100 ms of solver's 300, emulated as natively
	solver=$(lp_awk '$1 == "Q" && f("name") == "solver" { print attr("insns") }' points.lp)
	inner=$(lp_awk '$1 == "Q" && f("name") == "inner" { print attr("insns") }' points.lp)
	awk -v s="$solver" -v i="$inner" 'BEGIN { exit !(i / s > 0.2 && i / s < 0.5) }' || fail "inner $inner of solver $solver"
	! grep -qP '^Q\tio\t' points.lp
	run -1 --separate-stderr lp-roofline points --depth 2 run.lp
	[ "$stderr" = "lp-roofline: run.lp:$(grep -n -m1 '^K' run.lp | cut -d: -f1): emulated counts are per function: --depth needs the PMU's events" ]
}
