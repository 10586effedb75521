#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# lp-roofline: the machine's roofs (carm/ kernels on this CPU), the CARM
# Tool's CSV, points from recordings with known counts, the no-PMU refusal,
# and lp-svg --roofline in Chromium.

bats_require_minimum_version 1.5.0

setup() {
	load test_helper
	cd "$BATS_TEST_TMPDIR"
	W=$LP_BUILD/workloads
}

# A record's value from a roofs stream: roof NAME ISA
roof() {
	lp_awk -v n="$1" -v isa="$2" '$1 == "R" && f("name") == n && attr("isa") == isa { print f("value") }' roofs.lp
}

widest() {
	lp_awk '$1 == "R" && attr("isa") != "" { isa = attr("isa") } END { print isa }' roofs.lp
}

# A fake sysfs with caches as a VM reports them: L1 instruction and data, L2, and the host's 480 MiB L3.
fake_sysfs() {
	local d=sys/devices/system/cpu/cpu0/cache i=0
	for c in "1 Instruction 64K 0" "1 Data 32K 0" "2 Unified 512K 0" "3 Unified 491520K 0-1"; do
		set -- $c
		mkdir -p "$d/index$i"
		echo "$1" > "$d/index$i/level"; echo "$2" > "$d/index$i/type"
		echo "$3" > "$d/index$i/size"; echo "$4" > "$d/index$i/shared_cpu_list"
		i=$((i + 1))
	done
}

@test "roofs: every level and FP roof of each ISA, L1 > L2 > L3 > DRAM, FMA about twice add" {
	run --separate-stderr lp-roofline roofs -r 21
	assert_success
	printf '%s\n' "$output" > roofs.lp
	[ "${lines[0]}" = "#lp-stream 1" ]
	isa=$(widest)
	[ -n "$isa" ] || fail "no roofs: $output"
	# this VM's L3 and DRAM are close (~40 against ~25 GB/s) and share the host: a busy
	# neighbour can bring one run's L3 down to DRAM's, so the order must hold in one of three
	seen=
	for attempt in 1 2 3; do
		l1=$(roof L1 "$isa") l2=$(roof L2 "$isa") l3=$(roof L3 "$isa") dram=$(roof DRAM "$isa")
		seen+="$isa: L1 $l1, L2 $l2, L3 $l3, DRAM $dram B/s; "
		awk -v a="$l1" -v b="$l2" -v c="$l3" -v d="$dram" 'BEGIN { exit !(a > b && b > c && c > d && d > 0) }' &&
			break
		[ "$attempt" -lt 3 ] || fail "$seen"
		lp-roofline roofs -q --isa "$isa" -r 21 > roofs.lp
	done
	add=$(roof "FP-$isa-dp-add" "$isa") fma=$(roof "FP-$isa-dp-fma" "$isa")
	if [ -n "$fma" ]; then
		# two FLOPs an instruction at the rate of one: 2x, give or take a busy host's noise
		awk -v a="$add" -v f="$fma" 'BEGIN { r = f / a; exit !(r > 1.5 && r < 3) }' || fail "fma $fma, add $add FLOP/s"
	fi
	# progress said on stderr, and every R record is one lp-svg reads
	[[ "$stderr" == *"lp-roofline: $isa L1: cache, "* ]] || fail "$stderr"
	lp-svg --roofline roofs.lp > r.svg
	xmllint --noout r.svg
}

@test "roofs: the cache sizes a VM reports are checked by a sweep; the L1 instruction cache is left out" {
	fake_sysfs
	run --separate-stderr lp-roofline roofs -q --isa sse -r 3 --sysfs "$PWD"
	assert_success
	printf '%s\n' "$output" > roofs.lp
	# 480 MiB of L3 is no VM's: its bandwidth falls far earlier, and the test is sized from that
	[[ "$stderr" == *"warning: L3: the machine says 480 MiB but bandwidth falls at "*": tests are sized from "* ]] ||
		fail "$stderr"
	grep -qP '^#lp.cache\tL3\tsysfs=503316480\tcpuid=\d+\tmeasured=\d+\tdisagrees$' roofs.lp || fail "$(grep cache roofs.lp)"
	grep -qP '^#lp.cache\tL1\tsysfs=32768\t' roofs.lp
	size=$(lp_awk '$1 == "R" && f("name") == "L3" && attr("size") != "" { print attr("size") }' roofs.lp)
	# far from 480 MiB: the sweep's knee on this host's 32 MiB L3 has come out at 64 MiB on a busy host
	[ "$size" -le $((64 << 20)) ] || fail "L3 tested over $size bytes"
	run -1 --separate-stderr lp-roofline roofs -q --sysfs "$PWD/none"
	[ "$stderr" = "lp-roofline: no caches in '$PWD/none/sys/devices/system/cpu/cpu0/cache'" ]
}

@test "roofs --csv: the CARM Tool's file, read back by its rules; a second run appends a row" {
	run --separate-stderr lp-roofline roofs -q --isa sse -r 3 --l1 16K --l2 256K --l3 4M --dram 64M --csv out --name vm
	assert_success
	f=out/roofline/vm_roofline.csv
	[ -f "$f" ]
	# CRLF, the two header rows as the CARM Tool writes them
	[ "$(head -c 2000 "$f" | tr -cd '\r' | wc -c)" -eq 3 ]
	head -1 "$f" | grep -qP '^Name:,vm,L1 Size:,\d+,L2 Size:,\d+,L3 Size:,\d+,,L1,L1,L2,L2,L3,L3,DRAM,DRAM,FP,FP,FP FMA,FP_FMA\r$'
	[ "$(sed -n 2p "$f")" = $'Date,ISA,Precision,Threads,Loads,Stores,Interleaved,DRAM Bytes,FP Inst.,GB/s,I/Cycle,GB/s,I/Cycle,GB/s,I/Cycle,GB/s,I/Cycle,Gflop/s,I/Cycle,Gflop/s,I/Cycle\r' ]
	lp-roofline roofs -q --isa sse -r 3 --l1 16K --l2 256K --l3 4M --dram 64M --csv out --name vm > /dev/null
	python3 - "$f" <<-'EOF'
		import csv, sys
		rows = list(csv.reader(open(sys.argv[1], newline='')))
		assert rows[0][0] == 'Name:' and rows[0][1] == 'vm', rows[0]
		assert len(rows) == 4 and all(len(r) == 21 for r in rows), [len(r) for r in rows]
		for r in rows[2:]:
		    assert r[1:9] == ['sse', 'dp', '1', '2', '1', 'No', '65536', 'add'], r
		    v = [float(x) for x in r[9:]]
		    # L1 > DRAM bandwidth; FP and FMA rates there; each as Python prints a float
		    assert v[0] > v[6] > 0 and v[8] > 0 and v[10] > 0, v
		    assert all(x == '0' or '.' in x or 'e' in x for x in r[9:]), r
	EOF
}

@test "arm64: the NEON and scalar kernels under qemu-user, and roofs of both" {
	# tools/cross-build aarch64 (CI runs it) builds them and installs qemu-user-static
	arm=$LP_BUILD/aarch64
	[ "$(basename "$LP_BUILD")" != asan ] || arm=$LP_BUILD/../aarch64
	[ -x "$arm/tests/test-carm" ] || skip "no arm64 build (tools/cross-build aarch64)"
	command -v qemu-aarch64-static > /dev/null || skip "no qemu-aarch64-static (apt-get install qemu-user-static)"
	run -0 qemu-aarch64-static "$arm/tests/test-carm"
	[[ "$output" != *"not ok"* ]] || fail "$output"
	# scalar and neon, each precision and operation, each ratio
	[ "$(grep -c '^ok .* neon ' <<< "$output")" -ge 20 ] || fail "$output"
	# timings under emulation mean nothing; what is measured and written does
	run -0 --separate-stderr qemu-aarch64-static "$arm/bin/lp-roofline" roofs -r 3 --l1 16K --l2 256K --l3 1M --dram 8M
	printf '%s\n' "$output" > roofs.lp
	[ "$(widest)" = neon ]
	for isa in scalar neon; do
		for r in L1 L2 L3 DRAM "FP-$isa-dp-add" "FP-$isa-dp-mul" "FP-$isa-dp-fma"; do
			v=$(roof "$r" "$isa")
			awk -v v="$v" 'BEGIN { exit !(v > 0) }' || fail "$isa $r: '$v' in $output"
		done
	done
	[[ "$stderr" == *"this CPU has no avx2: no roofs for it"* ]]
	lp-svg --roofline roofs.lp > r.svg
	xmllint --noout r.svg
}

@test "roofs: usage errors name the option" {
	run -2 --separate-stderr lp-roofline roofs --isa avx9
	[ "${stderr_lines[0]}" = "lp-roofline: unknown ISA 'avx9' (scalar, sse, avx2, avx512, neon)" ]
	run -2 --separate-stderr lp-roofline roofs --ldst 5:3
	[ "${stderr_lines[0]}" = "lp-roofline: --ldst is one of 2:1, 1:0, 0:1, 1:1, 3:1, 4:1, 1:2, got '5:3'" ]
	run -2 --separate-stderr lp-roofline roofs --l2 12Q
	[ "${stderr_lines[0]}" = "lp-roofline: --l2 must be a size such as 16K, 8M or 1G, got '12Q'" ]
	run -1 --separate-stderr lp-roofline roofs -t 4000
	[[ "$stderr" == "lp-roofline: 4000 threads, but this process may run on "*" CPUs" ]]
	run -2 --separate-stderr lp-roofline frobnicate
	[ "${stderr_lines[0]}" = "lp-roofline: unknown command 'frobnicate': roofs, points or record" ]
}

# A recording as lp-roofline record writes it on an AMD Zen 3: FLOPs, loads and stores.
zen_stream() {
	printf '#lp-stream 1\n'
	printf '#lp.event\tfl\tretired_sse_avx_flops:any\t1000003\tflops\tevents\n'
	printf '#lp.event\tld\tls_dispatch:ld_dispatch\t1000003\tloads\tevents\n'
	printf '#lp.event\tst\tls_dispatch:store_dispatch\t1000003\tstores\tevents\n'
	printf 'S\t1\t1\t1\tw\tcpu\t1500000000\tmain;dot\t-\n'
	printf 'S\t2\t1\t1\tw\tfl\t4000000000\tmain;dot\t-\n'
	printf 'S\t3\t1\t1\tw\tld\t1500000000\tmain;dot\t-\n'
	printf 'S\t4\t1\t1\tw\tst\t500000000\tmain;dot\t-\n'
	printf 'S\t5\t1\t1\tw\tcpu\t2500000000\tmain;mm\t-\n'
	printf 'S\t6\t1\t1\tw\tfl\t80000000000\tmain;mm\t-\n'
	printf 'S\t7\t1\t1\tw\tld\t400000000\tmain;mm\t-\n'
	printf 'S\t8\t1\t1\tw\tcpu\t100000000\tmain\t-\n'
}

@test "points: FLOPs, bytes (8 a load or store) and seconds per function of a Zen recording" {
	zen_stream > zen.lp
	printf '#lp-stream 1\nR\tL1\tmemory\t100000000000\tB/s\tisa=avx2\n' > roofs.lp
	run --separate-stderr lp-roofline points roofs.lp zen.lp
	assert_success
	c=$'counters=retired_sse_avx_flops:any,ls_dispatch:ld_dispatch,ls_dispatch:store_dispatch\tcounts=pmu'
	assert_output - <<-EOF
		#lp-stream 1
		R	L1	memory	100000000000	B/s	isa=avx2
		Q	mm	80000000000	3200000000	2.500000000	bytes=width-8	loads=400000000	stores=0	$c
		Q	dot	4000000000	16000000000	1.500000000	bytes=width-8	loads=1500000000	stores=500000000	$c
		#lp.end	3
	EOF
	run --separate-stderr lp-roofline points --depth 1 zen.lp
	assert_success
	assert_line --index 1 $'Q\tmain\t84000000000\t19200000000\t4.100000000\tbytes=width-8\tloads=1900000000\tstores=500000000\t'"$c"
}

@test "points: Intel's FP widths give the bytes of its loads and stores (width mix)" {
	{
		printf '#lp-stream 1\n'
		printf '#lp.event\tp256\tfp_arith_inst_retired.256b_packed_double\t1000\tp\tevents\n'
		printf '#lp.event\tsd\tfp_arith_inst_retired.scalar_double\t1000\ts\tevents\n'
		printf '#lp.event\tld\tmem_inst_retired.all_loads\t1000\tl\tevents\n'
		printf '#lp.event\tst\tmem_inst_retired.all_stores\t1000\ts\tevents\n'
		printf 'S\t1\t1\t1\tw\tcpu\t2000000000\tmain;axpy\t-\n'
		# 3000 256-bit instructions and 1000 scalar ones: 13000 FLOPs, a mean width of 26 bytes
		printf 'S\t2\t1\t1\tw\tp256\t3000\tmain;axpy\t-\n'
		printf 'S\t3\t1\t1\tw\tsd\t1000\tmain;axpy\t-\n'
		printf 'S\t4\t1\t1\tw\tld\t2000\tmain;axpy\t-\n'
		printf 'S\t5\t1\t1\tw\tst\t1000\tmain;axpy\t-\n'
	} > intel.lp
	run --separate-stderr lp-roofline points intel.lp
	assert_success
	assert_line --index 1 --regexp $'^Q\taxpy\t13000\t78000\t2.000000000\tbytes=width-mix-26.0\tloads=2000\tstores=1000\t'
}

@test "points: no FLOP events, or a bad record, is an error naming the file and line" {
	printf '#lp-stream 1\nS\t1\t1\t1\tw\tcpu\t100\tmain\t-\n#lp.end\t1\n' > plain.lp
	run -1 --separate-stderr lp-roofline points plain.lp
	[ "$stderr" = "lp-roofline: no FLOP or load/store events and no emulated counts in the input (lp-roofline record writes them, with --emulate where the PMU has no counters)" ]
	zen_stream > zen.lp
	printf 'R\tL1\tmemory\tfast\tB/s\n' >> zen.lp
	run -1 --separate-stderr lp-roofline points zen.lp
	[ "$stderr" = "lp-roofline: zen.lp:13: VALUE 'fast' is not a non-negative decimal number" ]
	[ -z "$output" ]
	# each weight fits, their product with the period does not (found by fuzz-roofline)
	printf '#lp-stream 1\n#lp.event\tld\tls_dispatch:ld_dispatch\t1000\tloads\tevents\n' > huge.lp
	printf 'S\t3\t1\t1\tw\tld\t15000000000000000000\tmain;copy\t-\n' >> huge.lp
	printf 'S\t4\t1\t1\tw\tld\t15\tmain;fits\t-\n#lp.end\t2\n' >> huge.lp
	run -1 --separate-stderr lp-roofline points huge.lp
	[ "$stderr" = "lp-roofline: 'copy': its FLOPs or bytes do not fit 64 bits" ] || fail "$stderr"
	# no part of a stream: the regions that fit are not written either
	[ -z "$output" ]
}

@test "record without hardware counters: exit 125, every missing counter named, nothing written" {
	if lp-record -q -e cycles -o /dev/null -- true 2> /dev/null; then
		skip "this machine has hardware counters"
	fi
	run -125 --separate-stderr lp-roofline record -o run.lp -- "$W/flops" 10
	[[ "$stderr" == *"this machine has no hardware counter for it"* ]] || fail "$stderr"
	[[ "$stderr" == *"a roofline needs these hardware counters, missing here: "*"; nothing recorded (lp-roofline roofs still measures the machine)"* ]] ||
		fail "$stderr"
	[ ! -e run.lp ]
	[[ "$stderr" != *"truth triad"* ]] || fail "the command ran: $stderr"
}

@test "record with hardware counters: triad's FLOPs as the workload counts them, within 10%" {
	lp-record -q -e cycles -o /dev/null -- true 2> /dev/null || skip "no hardware counters here (perf stat -e cycles: not supported)"
	run --separate-stderr lp-roofline record -o run.lp -- "$W/flops" 100000
	assert_success
	read -r _ _ flops bytes < <(grep '^truth triad' <<<"$stderr")
	lp-roofline points run.lp > points.lp
	got=$(lp_awk '$1 == "Q" && f("name") ~ /^triad/ { print f("flops") }' points.lp)
	awk -v g="$got" -v w="$flops" 'BEGIN { exit !(g > 0.9 * w && g < 1.1 * w) }' || fail "triad: $got FLOPs, truth $flops"
}

@test "lp-svg --roofline: roofs and points in Chromium" {
	lp-roofline roofs -q -r 3 --l1 16K --l2 256K --l3 4M --dram 64M > roofs.lp
	printf '#lp-stream 1\n' > pts.lp
	printf 'Q\tmain;dot\t4000000000\t16000000000\t1.5\tbytes=width-8\tcounters=test\n' >> pts.lp
	printf 'Q\tmain;matmul\t80000000000\t4000000000\t2.5\tbytes=exact\n' >> pts.lp
	printf 'Q\tmain;stream\t1000000000\t24000000000\t2.0\n' >> pts.lp
	printf 'Q\tmain;idle\t0\t100\t0.3\n' >> pts.lp
	run --separate-stderr lp-svg --roofline --title "a <roofline>" roofs.lp pts.lp
	assert_success
	printf '%s\n' "$output" > roof.svg
	xmllint --noout roof.svg
	grep -q '<text id="title"[^>]*>a &lt;roofline&gt;</text>' roof.svg
	browser roofline roof.svg
}

@test "lp-svg --roofline: no roofs, or a bad point, is said" {
	printf '#lp-stream 1\nQ\tdot\t4\t16\t1.5\n#lp.end\t1\n' > pts.lp
	run -1 --separate-stderr lp-svg --roofline pts.lp
	[ "$stderr" = "lp-svg: no R records: nothing to draw the points against (lp-roofline roofs makes them)" ]
	printf '#lp-stream 1\nQ\tdot\tmany\t16\t1.5\n' > bad.lp
	run -1 --separate-stderr lp-svg --roofline bad.lp
	[ "$stderr" = "lp-svg: bad.lp:2: FLOPS 'many' is not a non-negative integer" ]
	run -2 --separate-stderr lp-svg --roofline --timeline bad.lp
	[ "${stderr_lines[0]}" = "lp-svg: --roofline goes with --title, --width, --fonttype and --fontsize only" ]
}

@test "pipelines/lp-roofline-svg: without hardware counters, counted by emulation; usage" {
	if lp-record -q -e cycles -o /dev/null -- true 2> /dev/null; then
		skip "this machine has hardware counters"
	fi
	command -v "qemu-$(uname -m)" > /dev/null || skip "no qemu-$(uname -m) (apt-get install qemu-user)"
	lp-roofline roofs -q -r 3 --l1 16K --l2 256K --l3 4M --dram 64M > roofs.lp
	run -0 --separate-stderr "$TOP/pipelines/lp-roofline-svg" out.svg --roofs roofs.lp -- "$W/flops" 20000
	[[ "$stderr" == *"a roofline needs these hardware counters, missing here"* ]] || fail "$stderr"
	[[ "$stderr" == *"lp-roofline-svg: no FLOP counters here: counting by emulation (lp-roofline record --emulate)"* ]] || fail "$stderr"
	xmllint --noout out.svg
	grep -q 'FLOPs and bytes counted exactly by emulation (QEMU)' out.svg
	grep -q '<text[^>]*>triad' out.svg
	run -2 --separate-stderr "$TOP/pipelines/lp-roofline-svg" out.svg "$W/flops"
	[ "$stderr" = "usage: lp-roofline-svg OUT.svg [--roofs ROOFS] -- COMMAND [ARG]..." ]
}
