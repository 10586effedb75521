#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# lp-svg: the SVG itself, options and errors; and the pictures in headless Chromium.

bats_require_minimum_version 1.5.0

setup() {
	load test_helper
	cd "$BATS_TEST_TMPDIR"
	printf 'a;b;c 30\na;b;d 20\na;x;c 10\ne;c 40\n' > basic.folded
}

@test "the SVG is well-formed XML and the same bytes every time" {
	run --separate-stderr lp-svg basic.folded
	assert_success
	printf '%s\n' "$output" > one.svg
	xmllint --noout one.svg
	lp-svg basic.folded > two.svg
	cmp one.svg two.svg
	[[ "$output" == *'<text x="'*'>c</text>'* ]]
	assert_output --partial '<metadata id="lp-data">'
}

@test "without scripts the file still holds the picture: every frame drawn, with its name" {
	lp-svg basic.folded > g.svg
	for name in all a b c d x e; do
		grep -q ">$name</text>" g.svg || fail "no frame named $name"
	done
	[ "$(grep -o '<rect [^>]*fill="#' g.svg | wc -l)" -eq 9 ]
}

@test "hostile names are escaped: the file stays well-formed and holds no markup from them" {
	printf 'x;<script>window.pwned=1</script> 10\nx;]]> 10\nx;"quoted'"'"' & <b> 10\nx;bad\377byte\001 10\n' > hostile.folded
	lp-svg --title '<script>t</script>' --subtitle '"&' --notes ']]><x>' hostile.folded > h.svg
	xmllint --noout h.svg
	[ "$(grep -c '<script' h.svg)" -eq 1 ]
	grep -q '&lt;script&gt;window.pwned=1&lt;/script&gt;' h.svg
	grep -q '&lt;script&gt;t&lt;/script&gt;' h.svg
	! grep -q '<b>' h.svg
	browser hostile h.svg
}

@test "browser: search highlights the right frames and reports their share" {
	lp-svg basic.folded > s.svg
	browser search s.svg
}

@test "browser: frames renamed by regular expressions, in the tooltip, search and URL; bad rules refused" {
	lp-svg basic.folded > r.svg
	browser rename flame r.svg
}

@test "lp-svg(1)'s sed one-liner renames on the stream, and frames renamed alike merge" {
	printf 'a;std::__cxx11::basic_string<char>::append;f 1\na;std::__cxx11::basic_string<wchar_t>::append;f 2\n' > s.folded
	sed -E 's/std::__cxx11::basic_string<[^;]*>/std::string/g' s.folded > renamed.folded
	run --separate-stderr lp-svg renamed.folded
	assert_success
	# one frame of both: before the renaming they were two
	[ "$(grep -c '>std::string::append</text>' <<< "$output")" -eq 1 ]
	[ "$(lp-svg s.folded | grep -c '>std::__cxx11::basic_string&lt;')" -eq 2 ]
}

@test "a label cut keeps three characters and '..' at least, or there is none" {
	# 1180 px across, 7.08 px a character: 2.7% of them is 4 characters, 5% is 8
	printf 'main;abcdefghijkl 27\nmain;other 973\n' > narrow.folded
	run --separate-stderr lp-svg narrow.folded
	assert_success
	[[ "$output" == *'>other</text>'* ]] || fail "no label for other"
	[[ "$output" != *'>ab'* ]] || fail "a label cut to less than three characters: $(grep -o '>ab[^<]*' <<< "$output")"
	printf 'main;abcdefghijkl 50\nmain;other 950\n' > wider.folded
	run --separate-stderr lp-svg wider.folded
	assert_output --partial '>abcdef..</text>'
}

@test "browser: a click zooms, reset restores, the URL keeps the zoom" {
	lp-svg basic.folded > z.svg
	browser zoom z.svg
}

@test "browser: a flame graph taller than the window opens at its base; one that fits, or inverted, at its top" {
	# 150 frames deep: 2400 px at 16 px a frame
	awk 'BEGIN { s = "main"; for (i = 1; i < 150; i++) s = s ";f" i; print s " 10"; print "main;g 5" }' > deep.folded
	lp-svg deep.folded > deep.svg
	browser base deep.svg base
	lp-svg --inverted deep.folded > inverted.svg
	browser base inverted.svg top
	lp-svg basic.folded > small.svg
	browser base small.svg top
}

@test "browser: the embedded data gives back every stack and value of the input" {
	# thousands of stacks over a call graph (names recur under many parents),
	# with recursion, stacks that end inside others, and odd names
	awk -v n=3000 -f "$TOP/bench/gen-stacks-wide.awk" > many.folded
	printf '%s\n' 'r;r;r 5' 'r;r 7' 'r 1' 'x;main;a 2' 'y;main;b 3' 'x;main 4' \
		'z;"q\\uote";\xc3\xa9t\xc3\xa9 6' >> many.folded
	lp-svg many.folded > many.svg
	browser decode many.svg many.folded
	# values with a common factor are stored divided by it
	printf '%s\n' 'a;b 3000' 'a;c 1000' 'a 2000' > factor.folded
	lp-svg factor.folded > factor.svg
	browser decode factor.svg factor.folded
}

@test "browser: narrow frames become a (compressed) block that expands on click" {
	{ echo 'p;big 1000'; for i in $(seq 0 499); do echo "p;n$i 1"; done; } > narrow.folded
	lp-svg narrow.folded > c.svg
	grep -q '>(compressed)</text>' c.svg
	browser compressed c.svg
}

@test "browser: the flame chart orders samples by time, one band per thread, its summary in the tooltip" {
	printf '#lp-stream 1\nS\t10\t7\t7\tapp\tcpu\t1000000\tmain;first\t-\nS\t15\t7\t8\tapp\tcpu\t1000000\twork;third\t-\nS\t20\t7\t7\tapp\tcpu\t1000000\tmain;second\t-\nS\t25\t7\t8\tapp\tcpu\t1000000\twork;fourth\t-\n' > chart.lp
	# thread 8's summary: the kernel says it ran 0.3 s, its samples stand for 2 ms; where it was spawned
	printf 'P\t12\t7\t8\tspawn\tapp\t7\t7\tmain;start_workers;pthread_create\t-\n' >> chart.lp
	printf 'T\t30\t7\t8\tapp\tstart=12\tend=30\tcpu=300000000\tsampled-cpu=2000000\tsampled-offcpu=0\n' >> chart.lp
	lp-svg --flamechart chart.lp > chart.svg
	grep -q '>Flame Chart</text>' chart.svg
	browser flamechart chart.svg
}

@test "--flamechart --tid draws one thread" {
	printf '#lp-stream 1\nS\t10\t7\t7\tapp\tcpu\t1000000\tmain;first\t-\nS\t15\t7\t8\tapp\tcpu\t1000000\twork;third\t-\n' > chart.lp
	run --separate-stderr lp-svg --flamechart --tid 8 chart.lp
	assert_success
	assert_output --partial '>third</text>'
	refute_output --partial '>first</text>'
}

@test "--flamechart --pid draws one process; several processes one after another are warned about" {
	printf '#lp-stream 1\nS\t10\t7\t7\tapp\tcpu\t1000000\tmain;first\t-\nS\t15\t7\t8\tapp\tcpu\t1000000\twork;third\t-\nS\t20\t9\t9\tcc\tcpu\t1000000\tmain;other\t-\n#lp.end\t3\n' > procs.lp
	run --separate-stderr lp-svg --flamechart --pid 7 procs.lp
	assert_success
	[ -z "$stderr" ]
	assert_output --partial '>third</text>'
	assert_output --partial '>first</text>'
	refute_output --partial '>other</text>'
	run --separate-stderr lp-svg --flamechart procs.lp
	assert_success
	assert_output --partial '>other</text>'
	[ "$stderr" = "lp-svg: warning: the flame chart puts the threads of several processes one after another: --pid PID or --tid TID draws one; --timeline draws them all on one time axis, each thread's flame chart a click away" ]
	run -1 --separate-stderr lp-svg --flamechart --pid 99 procs.lp
	[ "$stderr" = "lp-svg: no samples of process 99 in the input" ]
	run -2 --separate-stderr lp-svg --pid 7 procs.lp
	[ "${stderr%%$'\n'*}" = "lp-svg: --pid goes with --flamechart" ]
}

@test "browser: on- and off-CPU time blend from warm to blue, the tooltip shows both" {
	printf '#lp-stream 1\nS\t1\t1\t1\tapp\tcpu\t30000000\tmain;busy\t-\nS\t2\t1\t1\tapp\toffcpu\t10000000\tmain;sleepy\t-\tdur=10000000\n' > onoff.lp
	lp-svg onoff.lp > onoff.svg
	browser colors onoff.svg onoff
}

@test "browser: a differential graph is red for growth and blue for shrinkage" {
	printf 'r;grew 10\nr;shrank 50\nr;same 20\n' > before.folded
	printf 'r;grew 50\nr;shrank 10\nr;same 20\n' > after.folded
	lp-svg before.folded after.folded > diff.svg
	browser colors diff.svg diff
	lp-collapse --diff before.folded after.folded > d.folded
	lp-svg d.folded > diff2.svg
	browser colors diff2.svg diff
}

@test "--inverted, --reverse and the title" {
	run --separate-stderr lp-svg --inverted basic.folded
	assert_success
	assert_output --partial '>Icicle Graph</text>'
	lp-svg --reverse basic.folded > r.svg
	xmllint --noout r.svg
	# reversed, c is a child of the root: as wide as all stacks ending in c
	grep -q '>c</text>' r.svg
}

@test "--cp keeps colours in palette.map" {
	lp-svg --cp basic.folded > one.svg
	grep -q '^c->rgb(' palette.map
	sed -i 's/^c->rgb(.*/c->rgb(1,2,3)/' palette.map
	lp-svg --cp basic.folded > two.svg
	grep -q 'fill="#010203"' two.svg
	echo 'broken line' >> palette.map
	run --separate-stderr lp-svg --cp basic.folded
	assert_failure 1
	[ "$stderr" = "lp-svg: palette.map:8: expected 'NAME->rgb(R,G,B)'" ]
}

@test "lp stream input draws time; a perf script input draws its periods" {
	run --separate-stderr lp-svg -e cpu "$DATA/sample.lp"
	assert_success
	assert_output --partial '>compute</text>'
	run --separate-stderr lp-svg "$DATA/demo.perf-script.txt"
	assert_success
	assert_output --partial '>crunch_numbers</text>'
}

@test "bad input is an error naming file and line, with no SVG" {
	printf 'a;b 1\nbroken\n' > bad.folded
	run --separate-stderr lp-svg bad.folded
	assert_failure 1
	assert_output ''
	[ "$stderr" = "lp-svg: bad.folded:2: expected 'STACK COUNT', found no count" ]
}

@test "usage errors exit 2" {
	run --separate-stderr lp-svg --colors=rainbow basic.folded
	assert_failure 2
	[[ "$stderr" == "lp-svg: unknown palette 'rainbow'"* ]]
	run --separate-stderr lp-svg --minwidth=wide basic.folded
	assert_failure 2
	run --separate-stderr lp-svg --tid 5 basic.folded
	assert_failure 2
	run --separate-stderr lp-svg a b c
	assert_failure 2
}

@test "a full disk is an error" {
	run --separate-stderr bash -o pipefail -c "lp-svg basic.folded > /dev/full"
	assert_failure 1
	[ "$stderr" = "lp-svg: cannot write output: No space left on device" ]
}

@test "no stacks is an error, not an empty picture (as flamegraph.pl)" {
	run -1 --separate-stderr lp-svg /dev/null
	assert_equal "$stderr" "lp-svg: /dev/null: empty input: no records, stacks or samples"
	assert_output ''
	printf '#lp-stream 1\n# nothing sampled\n#lp.end\t0\n' > empty.lp
	run -1 --separate-stderr lp-svg empty.lp
	assert_equal "$stderr" "lp-svg: no stack counts found in the input"
}

@test "--flamechart --tid of a thread that is not in the input is an error" {
	run -1 --separate-stderr lp-svg --flamechart --tid 99999 "$DATA/sample.lp"
	assert_equal "$stderr" "lp-svg: no samples of thread 99999 in the input"
	assert_output ''
	run --separate-stderr lp-svg --flamechart --tid 11 "$DATA/sample.lp"
	assert_success
	assert_output --partial '<svg'
}

@test "a total that does not fit 64 bits names the input" {
	printf 'a;b 18446744073709551615\na;c 1\n' > big.folded
	run -1 --separate-stderr lp-svg big.folded
	assert_equal "$stderr" "lp-svg: big.folded: a frame's total does not fit 64 bits"
	assert_output ''
}

@test "deep stacks are drawn to --max-depth, the rest folded into one marked frame, with a warning" {
	awk 'BEGIN { printf "deep"; for (i = 0; i < 200000; i++) printf ";f%d", i; print " 3"; print "deep;g 1" }' > deep.folded
	run --separate-stderr lp-svg deep.folded
	assert_success
	assert_equal "$stderr" "lp-svg: warning: 1 stacks are deeper than 2048 frames: their deeper frames are drawn as one [deeper frames folded] frame (--max-depth)"
	grep -q '\[deeper frames folded\]' <<< "$output"
	# all 200000 frames drawn make some 25 MB
	[ "${#output}" -lt 2000000 ] || fail "the SVG has ${#output} bytes"
	run --separate-stderr lp-svg --max-depth 10 --flamechart deep.folded
	assert_success
	[[ "$stderr" == *"1 stacks are deeper than 10 frames"* ]]
	run -2 --separate-stderr lp-svg --max-depth many deep.folded
}

@test "perf script on two cores: the same picture as on one, the second half read by a thread" {
	big_perf
	run --separate-stderr lp-svg -j 2 big.txt
	assert_success
	[ -z "$stderr" ]
	printf '%s\n' "$output" > two.svg
	lp-svg -j 1 big.txt > one.svg
	cmp one.svg two.svg
	# a picture of what one copy says, 340 times over
	lp-collapse "$DATA/demo.perf-script.txt" | awk '{ n = $NF; $NF = ""; printf "%s%.0f\n", $0, n * 340 }' > expected.folded
	lp-svg expected.folded > expected.svg
	grep -o '<rect [^>]*>\|<text [^>]*>[^<]*</text>' expected.svg > expected.frames
	grep -o '<rect [^>]*>\|<text [^>]*>[^<]*</text>' two.svg > two.frames
	[ "$(wc -l < two.frames)" -gt 10 ]
	cmp expected.frames two.frames
	if command -v strace > /dev/null; then
		# (LeakSanitizer, in the sanitizer build, cannot work under ptrace)
		export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
		strace -f -e trace=clone3,clone -o two.trace lp-svg -j 2 big.txt > /dev/null
		grep -q 'clone' two.trace || fail "lp-svg -j 2 started no thread"
		strace -f -e trace=clone3,clone -o one.trace lp-svg -j 1 big.txt > /dev/null
		! grep -q 'clone' one.trace || fail "lp-svg -j 1 started a thread"
	fi
}

@test "perf script on two cores: --max-depth counts every sample it cuts, in both halves" {
	big_perf
	run --separate-stderr lp-svg -j 1 --max-depth 3 big.txt
	assert_success
	one_err=$stderr
	# the samples of four frames with the comm: the main thread's
	deep=$(awk '/^demo / { n = 0; next } /^\t/ { n++ } /^$/ && n == 3 { d++ } END { print d }' big.txt)
	assert_equal "$one_err" "lp-svg: warning: $deep stacks are deeper than 3 frames: their deeper frames are drawn as one [deeper frames folded] frame (--max-depth)"
	run --separate-stderr lp-svg -j 2 --max-depth 3 big.txt
	assert_success
	assert_equal "$stderr" "$one_err"
}

@test "perf script on two cores: an error in the second half is the one of one core, on its line" {
	big_perf
	{ cat big.txt; printf 'demo 1 1.0: 1 cpu-clock:pppH:\n\tnot a frame line at all\n'; } > bad.txt
	run -1 --separate-stderr lp-svg -j 2 bad.txt
	[[ "$stderr" == "lp-svg: bad.txt:$(( $(wc -l < big.txt) + 2 )): "* ]] || fail "$stderr"
	assert_output ''
	two_err=$stderr
	run -1 --separate-stderr lp-svg -j 1 bad.txt
	assert_equal "$stderr" "$two_err"
	run -2 --separate-stderr lp-svg -j 0 big.txt
	assert_equal "$stderr" "lp-svg: --jobs needs a number of cores from 1 to 1024, got '0'
Try 'lp-svg --help' for more information."
}
