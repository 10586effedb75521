#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# lp-roofline record --emulate: the real qemu-user with lp-count, lp's TCG
# plugin, on workloads whose FLOPs and bytes are known (tests/workloads/
# flopkinds.c): exact FLOPs of each ISA and precision, bytes exact up to the
# 8 bytes a call's return loads, threads, fork and exec, a static binary, and
# what the emulator cannot run.

bats_require_minimum_version 1.5.0

setup() {
	load test_helper
	cd "$BATS_TEST_TMPDIR"
	W=$LP_BUILD/workloads
	QEMU=qemu-$(uname -m)
	command -v "$QEMU" > /dev/null || skip "no $QEMU (apt-get install qemu-user; make deps installs it)"
}

# The workload's truth for KIND run REPS times: "FUNCTION FLOPS LOADED STORED"
truth_of() {
	grep '^truth ' <<< "$1" | head -1 | cut -d' ' -f2-
}

# FUNCTION's K records in FILE summed: "INSNS FLOPS LOADED STORED" (tid given: that thread's only)
counts_of() {
	lp_awk -v fn="$1" -v tid="${3:-}" '$1 == "K" && f("name") == fn && (tid == "" || f("tid") == tid) {
		i += f("insns"); fl += f("flops"); l += f("loaded"); s += f("stored"); n++ }
		END { if (n) printf "%d %d %d %d\n", i, fl, l, s }' "$2"
}

has_cpu_flag() {
	grep -qw "$1" /proc/cpuinfo
}

@test "each ISA and precision: FLOPs exact, stores exact, loads exact but for the 8 bytes each return loads" {
	for kind in scalar-dp scalar-sp sse-dp sse-sp avx2-dp avx2-sp copy; do
		[[ $kind != avx2* ]] || has_cpu_flag avx2 || continue
		run --separate-stderr lp-roofline record --emulate -o "$kind.lp" -- "$W/flopkinds" "$kind" 3000
		assert_success
		[[ "$stderr" == *"lp-roofline: counting FLOPs and bytes: '$W/flopkinds' again, under $QEMU"* ]] || fail "$stderr"
		read -r fn flops loaded stored <<< "$(truth_of "$stderr")"
		read -r insns gflops gloaded gstored <<< "$(counts_of "$fn" "$kind.lp")"
		[ "$gflops" = "$flops" ] || fail "$kind: $gflops FLOPs in $fn, truth $flops"
		[ "$gstored" = "$stored" ] || fail "$kind: $gstored bytes stored, truth $stored"
		# each of the 3000 calls returns: 8 bytes of return address loaded
		[ "$gloaded" = $((loaded + 3000 * 8)) ] || fail "$kind: $gloaded bytes loaded, truth $loaded + 3000 returns"
		[ "$insns" -gt 0 ]
		# the FLOPs by ISA and precision: scalar-dp=N, sse-sp=N...
		if [ "$kind" != copy ]; then
			key=${kind/avx2/avx2}
			got=$(lp_awk -v fn="$fn" -v k="$key" '$1 == "K" && f("name") == fn { print attr(k) }' "$kind.lp")
			[ "$got" = "$flops" ] || fail "$kind: $key=$got"
		fi
	done
}

@test "points from the counts: exact FLOPs and bytes, the timed run's seconds, counts=emulated and the ISA" {
	has_cpu_flag avx2 || skip "this CPU has no AVX2"
	run --separate-stderr lp-roofline record --emulate -o run.lp -- "$W/flopkinds" avx2-dp 20000
	assert_success
	read -r fn flops loaded stored <<< "$(truth_of "$stderr")"
	# a stream of the timed run, then one of the counts: every reader takes both
	[ "$(grep -c '^#lp-stream 1$' run.lp)" = 2 ]
	[ "$(grep -c '^#lp.end' run.lp)" = 2 ]
	run -0 --separate-stderr lp-roofline points run.lp
	printf '%s\n' "$output" > points.lp
	lp_awk -v fn="$fn" '$1 == "Q" && f("name") == fn { print f("flops"), f("bytes"), attr("bytes"), attr("counts"), attr("isa"), attr("stored") }' points.lp > got.txt
	read -r qflops qbytes how counts isa qstored < got.txt
	[ "$qflops" = "$flops" ] || fail "$(cat got.txt)"
	[ "$qbytes" = $((loaded + stored + 20000 * 8)) ] || fail "$(cat got.txt)"
	[ "$how $counts $isa $qstored" = "exact emulated avx2 $stored" ] || fail "$(cat got.txt)"
	# its seconds are the timed run's samples of it
	secs=$(lp_awk -v fn="$fn" '$1 == "Q" && f("name") == fn { print f("seconds") }' points.lp)
	awk -v s="$secs" 'BEGIN { exit !(s > 0) }' || fail "no time for $fn: $secs"
	# a function doing no FLOPs is a point only where the timed run saw it on the CPU: the
	# loader's, unless one of the timed run's samples fell in it (a busy machine's slower start)
	sampled=$(lp_awk '$1 == "S" && f("event") == "cpu" && f("stack") ~ /(^|;)_dl_relocate_object$/ { n++ } END { print n + 0 }' run.lp)
	if [ "$sampled" -eq 0 ]; then
		! grep -q $'^Q\t_dl_relocate_object\t' points.lp
	else
		grep -q $'^Q\t_dl_relocate_object\t' points.lp
	fi
}

@test "two threads running the same code: each thread's counts exact, the point their sum" {
	has_cpu_flag avx2 || skip "this CPU has no AVX2"
	run --separate-stderr lp-roofline record --emulate -o run.lp -- "$W/flopkinds" threads 3000
	assert_success
	read -r fn flops loaded stored <<< "$(truth_of "$stderr")"
	tids=$(lp_awk -v fn="$fn" '$1 == "K" && f("name") == fn { print f("tid") }' run.lp | sort -u)
	[ "$(wc -l <<< "$tids")" = 2 ] || fail "threads: $tids"
	for t in $tids; do
		read -r _ gflops _ gstored <<< "$(counts_of "$fn" run.lp "$t")"
		[ "$gflops $gstored" = "$flops $stored" ] || fail "thread $t: $gflops FLOPs, $gstored stored"
	done
	lp-roofline points run.lp > points.lp
	got=$(lp_awk -v fn="$fn" '$1 == "Q" && f("name") == fn { print f("flops") }' points.lp)
	[ "$got" = $((2 * flops)) ] || fail "point: $got"
}

@test "a forked child is counted in its own process; a program run by execve is said, not counted" {
	run --separate-stderr lp-roofline record --emulate -o fork.lp -- "$W/flopkinds" fork 3000
	assert_success
	read -r fn flops _ stored <<< "$(truth_of "$stderr")"
	pids=$(lp_awk -v fn="$fn" '$1 == "K" && f("name") == fn { print f("pid") }' fork.lp | sort -u)
	[ "$(wc -l <<< "$pids")" = 1 ] || fail "sse_dp counted in: $pids"
	main=$(lp_awk '$1 == "K" && f("name") == "main" { print f("pid") }' fork.lp | sort -u)
	[ -n "$main" ] && [ "$main" != "$pids" ] || fail "the child ($pids) and the parent ($main) are one process"
	read -r _ gflops _ gstored <<< "$(counts_of "$fn" fork.lp)"
	[ "$gflops $gstored" = "$flops $stored" ] || fail "child: $gflops FLOPs, $gstored stored"
	# the shell is emulated, the program it execs runs natively
	run --separate-stderr lp-roofline record --emulate -o exec.lp -- sh -c "exec '$W/flopkinds' sse-dp 100"
	assert_success
	[[ "$stderr" == *"lp-roofline: warning: pid "*" exec'd '$W/flopkinds', which ran natively: what it did is not counted"* ]] ||
		fail "$stderr"
	! grep -qP '^K\t.*\tsse_dp\t' exec.lp
}

@test "a static binary is counted as a dynamic one" {
	cc -O2 -g -static -pthread -o flopkinds-static "$TOP/tests/workloads/flopkinds.c" 2> cc.err ||
		skip "cannot link statically here: $(head -1 cc.err)"
	run --separate-stderr lp-roofline record --emulate -o run.lp -- ./flopkinds-static sse-sp 3000
	assert_success
	read -r fn flops _ stored <<< "$(truth_of "$stderr")"
	read -r _ gflops _ gstored <<< "$(counts_of "$fn" run.lp)"
	[ "$gflops $gstored" = "$flops $stored" ] || fail "$gflops FLOPs, $gstored stored"
}

@test "AVX-512, which QEMU 7.2 cannot run: exit 125, the instruction set and its function named, nothing written" {
	has_cpu_flag avx512f || skip "this CPU has no AVX-512: the timed run would die first"
	run -125 --separate-stderr lp-roofline record --emulate -o run.lp -- "$W/flopkinds" avx512 10
	[[ "$stderr" == *"lp-roofline: warning: an AVX-512 instruction in 'avx512_dp' (pid "*"), which QEMU 7.2 cannot run"* ]] ||
		fail "$stderr"
	[[ "$stderr" == *"lp-roofline: '$W/flopkinds' uses AVX-512, which $QEMU (QEMU 7.2) cannot run: it died of SIGILL there; nothing recorded"* ]] ||
		fail "$stderr"
	[ ! -e run.lp ]
}

@test "a set-user-ID program, a missing QEMU or plugin: exit 125 before anything runs, said with what to do" {
	cp "$W/flopkinds" suid
	chown nobody suid
	chmod u+s suid
	run -125 --separate-stderr lp-roofline record --emulate -o run.lp -- ./suid sse-dp 10
	[ "$stderr" = "lp-roofline: './suid' is set-user-ID or set-group-ID: under QEMU it would run without its privileges, doing other work; nothing recorded" ]
	[ ! -e run.lp ]
	# no qemu on PATH (lp-record is found beside lp-roofline)
	run -125 --separate-stderr env PATH=/nonexistent "$LP_BUILD/bin/lp-roofline" record --emulate -o run.lp -- "$W/flopkinds" sse-dp 10
	[ "$stderr" = "lp-roofline: $QEMU is missing: install Debian's qemu-user (apt-get install qemu-user); nothing recorded" ]
	run -125 --separate-stderr env LP_COUNT_PLUGIN=/nonexistent/lp-count.so lp-roofline record --emulate -o run.lp -- "$W/flopkinds" sse-dp 10
	[ "$stderr" = "lp-roofline: cannot find lp-count, lp's QEMU plugin, at '/nonexistent/lp-count.so': No such file or directory (is lp installed whole?)" ]
	[ ! -e run.lp ]
}

@test "the plugin refuses a QEMU of another plugin API, a system emulator and an unknown target" {
	# QEMU's side of the handshake, as qemu-plugin.h documents it: the plugin's install call
	cat > host.c <<-'EOF2'
		#include <dlfcn.h>
		#include <stdbool.h>
		#include <stdint.h>
		#include <stdio.h>
		#include <stdlib.h>
		typedef struct { const char *target; struct { int min, cur; } version; bool system; int smp[2]; } info_t;
		int main(int argc, char **argv)
		{
			void *h = dlopen(argv[1], RTLD_LAZY);
			int (*install)(uint64_t, const info_t *, int, char **);
			info_t i = { argv[2], { atoi(argv[3]), atoi(argv[4]) }, atoi(argv[5]) };
			char *args[] = { "out=/tmp/none" };
			if (!h || !(install = (int (*)(uint64_t, const info_t *, int, char **))dlsym(h, "qemu_plugin_install")))
				return 3;
			printf("version %d\n", *(int *)dlsym(h, "qemu_plugin_version"));
			return install(1, &i, 1, args) ? 1 : 0;
		}
	EOF2
	cc -o host host.c -ldl
	plugin=$LP_BUILD/lib/lp/lp-count.so
	run -1 --separate-stderr ./host "$plugin" x86_64 2 3 0
	[ "$output" = "version 1" ]
	[ "$stderr" = "lp-count: this QEMU takes plugins of API versions 2 to 3; lp-count is built for version 1 (QEMU 7.2, Debian 12's qemu-user)" ]
	run -1 --separate-stderr ./host "$plugin" x86_64 0 1 1
	[ "$stderr" = "lp-count: counts programs under qemu-user, not a system under qemu-system" ]
	run -1 --separate-stderr ./host "$plugin" riscv64 0 1 0
	[ "$stderr" = "lp-count: cannot count code of 'riscv64': x86_64 and aarch64 only" ]
	# QEMU 7.2 itself takes it, and says nothing
	run -0 --separate-stderr "$QEMU" -plugin "$plugin,out=$PWD/c" "$W/flopkinds" copy 1
	ls c.[0-9]* > /dev/null
}

@test "bytes learned, then counted without callbacks: the same as counted with a callback each (--emulate=exact)" {
	has_cpu_flag avx2 || skip "this CPU has no AVX2"
	# 2 threads for over a second: lp-count has QEMU translate again at 0.1 and 1 s
	run -0 --separate-stderr lp-roofline record --emulate -o learned.lp -- "$W/flopkinds" threads 40000
	run -0 --separate-stderr lp-roofline record --emulate=exact -o exact.lp -- "$W/flopkinds" threads 40000
	# each thread's kernel as the workload counts it (the threads' start and end vary from run to run)
	kernel() {
		lp_awk '$1 == "K" && f("name") == "avx2_dp" { print f("insns"), f("flops"), f("loaded"), f("stored") }' "$1" | sort
	}
	[ "$(kernel learned.lp)" = "$(kernel exact.lp)" ] || fail "learned $(kernel learned.lp), exact $(kernel exact.lp)"
	[ "$(kernel learned.lp | wc -l)" = 2 ]
	# a program of one thread, every function: gzip of 2 MB
	head -c 2000000 /dev/urandom > in.bin
	every() {
		lp_awk '$1 == "K" { print f("name"), f("insns"), f("flops"), f("loaded"), f("stored") }' "$1" | sort
	}
	run -0 --separate-stderr lp-roofline record --emulate -o gl.lp -- gzip -k -f in.bin
	run -0 --separate-stderr lp-roofline record --emulate=exact -o ge.lp -- gzip -k -f in.bin
	diff <(every gl.lp) <(every ge.lp) || fail "gzip: learned and exact differ"
	run -2 --separate-stderr lp-roofline record --emulate=fast -- true
	[ "${stderr_lines[0]}" = "lp-roofline: --emulate takes nothing or 'exact', got 'fast'" ]
	run -1 --separate-stderr "$QEMU" -plugin "$LP_BUILD/lib/lp/lp-count.so,out=$PWD/x,fast=1" /bin/true
	[[ "$stderr" == *"lp-count: unknown argument 'fast=1' (out=PREFIX, exact=0|1)"* ]] || fail "$stderr"
}

@test "lp-svg --roofline says the counts came from emulation, on the picture and each point" {
	run --separate-stderr lp-roofline record --emulate -o run.lp -- "$W/flopkinds" sse-dp 20000
	assert_success
	lp-roofline roofs -q -r 3 --l1 16K --l2 256K --l3 4M --dram 64M > roofs.lp
	lp-roofline points roofs.lp run.lp > points.lp
	run -0 --separate-stderr lp-svg --roofline points.lp
	printf '%s\n' "$output" > roof.svg
	xmllint --noout roof.svg
	grep -q '<text id="details"[^>]*>FLOPs and bytes counted exactly by emulation (QEMU); time sampled on the CPU. ' roof.svg
	grep -q 'counted exactly by emulation (QEMU)' <<< "$(grep -A3 '<g class="point"' roof.svg)"
	browser roofline-emulated roof.svg sse_dp
}

@test "the counts of an emulated run of a Debian program (gzip): every byte it reads and writes is loaded and stored" {
	command -v gzip > /dev/null || skip "no gzip"
	head -c 300000 /dev/urandom > in.bin
	run --separate-stderr lp-roofline record --emulate -o run.lp -- gzip -k -f in.bin
	assert_success
	read -r _ _ loaded stored <<< "$(lp_awk '$1 == "K" { i += f("insns"); fl += f("flops"); l += f("loaded"); s += f("stored") } END { print i, fl, l, s }' run.lp)"
	# compressing 300 KB reads it (through its buffers) more than once: far more than the file
	[ "$loaded" -gt 300000 ] && [ "$stored" -gt 300000 ] || fail "loaded $loaded, stored $stored"
	# named by lp's symbolizer as lp-record names them: the deflate loop of a stripped binary
	lp_awk '$1 == "K" { print f("name") }' run.lp | grep -qx 'deflate\|longest_match\|fill_window\|\[gzip\]' ||
		fail "$(lp_awk '$1 == "K" { print f("name") }' run.lp | head)"
}

@test "with hardware counters: the PMU's FLOPs and instructions agree with the emulated counts" {
	lp-record -q -e cycles -o /dev/null -- true 2> /dev/null ||
		skip "no hardware counters here (perf stat -e cycles: not supported): nothing to compare the counts with"
	run --separate-stderr lp-roofline record -o pmu.lp -- "$W/flops" 100000
	assert_success
	run --separate-stderr lp-roofline record --emulate -o emu.lp -- "$W/flops" 100000
	assert_success
	lp-roofline points pmu.lp > pmu-points.lp
	lp-roofline points emu.lp > emu-points.lp
	pmu=$(lp_awk '$1 == "Q" && f("name") ~ /^triad/ { print f("flops") }' pmu-points.lp)
	emu=$(lp_awk '$1 == "Q" && f("name") ~ /^triad/ { print f("flops") }' emu-points.lp)
	awk -v p="$pmu" -v e="$emu" 'BEGIN { exit !(p > 0.9 * e && p < 1.1 * e) }' || fail "PMU $pmu FLOPs, emulated $emu"
	# every instruction of the program in user mode, as perf stat counts them
	perf stat -x, -e instructions:u -o stat.txt -- "$W/flops" 100000 2> /dev/null
	pmu=$(awk -F, '/instructions/ { print $1 }' stat.txt)
	emu=$(lp_awk '$1 == "K" { n += f("insns") } END { print n }' emu.lp)
	awk -v p="$pmu" -v e="$emu" 'BEGIN { exit !(p > 0.99 * e && p < 1.01 * e) }' || fail "perf stat $pmu instructions, emulated $emu"
}
