#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# lp-svg --timeline: the file, its options and errors; the picture in headless
# Chromium on a small stream, a real recording and streams of several ranks.

bats_require_minimum_version 1.5.0

setup() {
	load test_helper
	cd "$BATS_TEST_TMPDIR"
	W=$LP_BUILD/workloads
	SMALL=$DATA/timeline/small.lp
}

@test "the timeline is well-formed XML, the same bytes every time, its data embedded" {
	run --separate-stderr lp-svg --timeline "$SMALL"
	assert_success
	# the spawning stack's files are not on this machine: said once each, and drawn without lines
	[ "$stderr" = "lp-svg: warning: '/usr/lib/libc.so.6': cannot read it: spawning stacks without file:line
lp-svg: warning: '/usr/bin/app': cannot read it: spawning stacks without file:line" ]
	printf '%s\n' "$output" > one.svg
	xmllint --noout one.svg
	lp-svg --timeline "$SMALL" > two.svg 2> /dev/null
	cmp one.svg two.svg
	run --separate-stderr lp-svg --timeline --no-srclines "$SMALL"
	assert_success
	[ -z "$stderr" ]
	assert_output --partial '<metadata id="lp-timeline">'
	assert_output --partial '<text id="title" x="600.0" y="24">Timeline</text>'
}

@test "the title is escaped; --width and --height size the picture" {
	lp-svg --timeline --title '<b>&"run"' --width 800 --height 20 "$SMALL" > t.svg
	xmllint --noout t.svg
	grep -q '>&lt;b&gt;&amp;&quot;run&quot;</text>' t.svg
	# three rows and a band header of 20 px under the header, the margin below
	grep -q '<svg version="1.1" id="timeline" width="800" height="206" ' t.svg
}

@test "browser: rows nested by spawn tree, on/off-CPU drawn where they were, tooltip, zoom, search, flame graph" {
	lp-svg --timeline "$SMALL" > small.svg
	browser timeline small small.svg
}

@test "browser: a sample before its thread's spawn record still nests and draws the same" {
	# the worker's off-CPU sample first, then its spawn record
	lp_awk '$1 == "P" && f("what") == "spawn" && f("tid") == 101 { held = $0; next }
		{ print } $1 == "S" && f("tid") == 101 { print held }' "$SMALL" > early.lp
	[ "$(lp_awk '($1 == "S" || $1 == "P") && f("tid") == 101 { printf "%s", $1 }' early.lp)" = SP ]
	lp-svg --timeline early.lp > early.svg 2> /dev/null
	browser timeline small early.svg
}

@test "browser: renaming frames reaches the thread's flame graph and flame chart" {
	lp-svg --timeline "$SMALL" > small.svg
	browser rename timeline small.svg
}

@test "browser: streams of two ranks are bands on one wall clock (#lp.realtime)" {
	sed 's/^#lp.host\ttesthost/#lp.host\tnode1\n#lp.rank\t0/' "$SMALL" > r0.lp
	sed 's/^#lp.host\ttesthost/#lp.host\tnode2\n#lp.rank\t1/; s/^#lp.realtime\t1700000000000000000/#lp.realtime\t1700000000500000000/' "$SMALL" > r1.lp
	lp-svg --timeline r1.lp r0.lp > bands.svg
	browser timeline bands bands.svg
}

@test "browser: a real recording of threads and a child process, file:line in spawning stacks" {
	[ -x "$W/blocking" ] || fail "workloads not built (make check builds them)"
	lp-record -q -o b.lp -- "$W/blocking" 2> rec.err || skip "cannot record here: $(cat rec.err)"
	run --separate-stderr lp-svg --timeline b.lp
	assert_success
	printf '%s\n' "$output" > b.svg
	browser timeline recorded b.svg
}

# make [1000] running 60 sh [2000+i] at i x 10 ms, each running cc1 [3000+i] of (37 i mod 60 + 1) x 0.1 ms of CPU
many_processes() {
	awk 'BEGIN {
		print "#lp-stream 1"; print "#lp.start\t1000000000"
		print "P\t1000000000\t1000\t1000\texec\tmake\t/usr/bin/make"; n = 1
		for (i = 0; i < 60; i++) {
			t = 1000000000 + i * 10000000; sh = 2000 + i; cc = 3000 + i
			printf "P\t%d\t%d\t%d\tspawn\tmake\t1000\t1000\tmain;fork\t-\n", t, sh, sh
			printf "P\t%d\t%d\t%d\texec\tsh\t/bin/sh\n", t + 1, sh, sh
			printf "P\t%d\t%d\t%d\tspawn\tsh\t%d\t%d\tmain;fork\t-\n", t + 2, cc, cc, sh, sh
			printf "P\t%d\t%d\t%d\texec\tcc1\t/usr/lib/cc1\n", t + 3, cc, cc
			printf "S\t%d\t%d\t%d\tcc1\tcpu\t%d\tmain;compile\t-\n", t + 9000000, cc, cc, ((37 * i) % 60 + 1) * 100000
			printf "P\t%d\t%d\t%d\texit\tcc1\tstatus=0\n", t + 9500000, cc, cc
			printf "P\t%d\t%d\t%d\texit\tsh\tstatus=0\n", t + 9600000, sh, sh
			n += 7
		}
		print "P\t1700000000\t1000\t1000\texit\tmake\tstatus=0"
		print "#lp.end\t" n + 1
	}'
}

@test "browser: more rows than fit: the heaviest unfolded first, the rest folded into their row, a click unfolds" {
	many_processes > many.lp
	run --separate-stderr lp-svg --timeline many.lp
	assert_success
	printf '%s\n' "$output" > many.svg
	browser timeline many many.svg
}

@test "a stream without P records still draws, and says its threads are not nested" {
	grep -v '^P' "$SMALL" > noprocs.lp
	run --separate-stderr lp-svg --timeline noprocs.lp
	assert_success
	[ "$stderr" = "lp-svg: noprocs.lp: warning: no P records: threads are placed by their samples and not nested under their parents" ]
	assert_output --partial '<metadata id="lp-timeline">'
}

@test "what is not an lp stream is named; an empty input has nothing to draw" {
	printf 'a;b 1\n' > f.folded
	run -1 --separate-stderr lp-svg --timeline f.folded
	[ "$stderr" = "lp-svg: f.folded:1: not an lp stream: expected '#lp-stream 1' or a record" ]
	[ -z "$output" ]
	: > empty.lp
	run -1 --separate-stderr lp-svg --timeline empty.lp
	[ "$stderr" = "lp-svg: empty.lp: empty input: no records, stacks or samples" ]
	printf '#lp-stream 1\n#lp.end\t0\n' > nothreads.lp
	run -1 --separate-stderr lp-svg --timeline nothreads.lp
	[ "$stderr" = "lp-svg: no threads in the input: nothing to draw" ]
}

@test "a malformed record is named with its line, and nothing is written" {
	{ head -6 "$SMALL"; printf 'S\tnot-a-time\t1\t1\tx\tcpu\t1\ta\t-\n'; } > bad.lp
	run -1 --separate-stderr lp-svg --timeline bad.lp
	[[ "$stderr" == "lp-svg: bad.lp:7: "*TIME* ]] || fail "$stderr"
	[ -z "$output" ]
}

@test "--timeline takes the options that make sense for it only" {
	run -2 --separate-stderr lp-svg --timeline --flamechart "$SMALL"
	[ "${stderr%%$'\n'*}" = "lp-svg: --timeline goes with --title, --width, --height, --fonttype, --fontsize and --no-srclines only" ]
	run -2 --separate-stderr lp-svg --no-srclines "$SMALL"
	[ "${stderr%%$'\n'*}" = "lp-svg: --no-srclines goes with --timeline" ]
}

@test "a write error is said, not hidden" {
	[ -w /dev/full ] || skip "no /dev/full"
	run -1 --separate-stderr bash -c 'lp-svg --timeline "$0" > /dev/full' "$SMALL"
	[[ "$stderr" == "lp-svg: "*"o space left on device"* ]] || fail "$stderr"
}
