#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Beyond one machine: output templates, ranks from the launchers' environments, merging the
# streams of a job per rank and host; a real mpirun (Open MPI) job.

bats_require_minimum_version 1.5.0

setup() {
	load test_helper
	cd "$BATS_TEST_TMPDIR"
	W=$LP_BUILD/workloads
}

recording() {
	lp-record -q -o probe.lp -- true 2> probe.err || skip "perf_event_open is not allowed here: $(cat probe.err)"
}

@test "-o template: %h, %r, %p and %t, the rank and job from each launcher's variables" {
	recording
	host=$(uname -n)
	OMPI_COMM_WORLD_RANK=3 OMPI_MCA_ess_base_jobid=2839216129 lp-record -q -o 'run.%h.%r.lp' -- true
	[ -f "run.$host.3.lp" ] || fail "no run.$host.3.lp: $(ls)"
	[ "$(lp_meta rank "run.$host.3.lp")" = 3 ] && [ "$(lp_meta host "run.$host.3.lp")" = "$host" ]
	[ "$(lp_meta job "run.$host.3.lp")" = 2839216129 ]
	PMI_RANK=5 lp-record -q -o 'hydra.%r.lp' -- true
	[ "$(lp_meta rank hydra.5.lp)" = 5 ] && [ -z "$(lp_meta job hydra.5.lp)" ]
	PMIX_RANK=7 PMIX_NAMESPACE=prterun-x@1 lp-record -q -o 'pmix.%r.lp' -- true
	[ "$(lp_meta rank pmix.7.lp)" = 7 ] && [ "$(lp_meta job pmix.7.lp)" = prterun-x@1 ]
	SLURM_PROCID=12 SLURM_JOB_ID=4711 lp-offcpu -q -o 'slurm.%r.lp' -- true
	[ "$(lp_meta rank slurm.12.lp)" = 12 ] && [ "$(lp_meta job slurm.12.lp)" = 4711 ]
	before=$(date -u +%Y%m%dT%H%M%S)
	lp-record -q -o 'at.%t.%p.100%%.lp' -- true
	after=$(date -u +%Y%m%dT%H%M%S)
	f=$(ls at.*.lp)
	[[ "$f" =~ ^at\.([0-9]{8}T[0-9]{6})\.[0-9]+\.100%\.lp$ ]] || fail "named $f"
	[[ ! "${BASH_REMATCH[1]}" < "$before" && ! "${BASH_REMATCH[1]}" > "$after" ]] || fail "time in $f"
	# outside a job: no rank, no job
	lp-record -q -o plain.lp -- true
	[ -z "$(lp_meta rank plain.lp)" ] && [ -z "$(lp_meta job plain.lp)" ]
}

@test "#lp.realtime is the wall clock at #lp.start" {
	recording
	t0=$(date +%s%N)
	lp-record -q -o r.lp -- true
	t1=$(date +%s%N)
	rt=$(lp_meta realtime r.lp)
	[ "$rt" -ge "$t0" ] && [ "$rt" -le "$t1" ] || fail "realtime $rt not within $t0..$t1"
}

@test "%r without a rank stops before the command starts; a rank that is not a number is named" {
	recording
	run -125 --separate-stderr lp-record -o 'run.%r.lp' -- touch started
	[ "$stderr" = "lp-record: '%r' in 'run.%r.lp' needs a rank, and no launcher says one (OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK, SLURM_PROCID)" ]
	[ ! -e started ] && [ -z "$(ls run.* 2> /dev/null)" ]
	run -125 --separate-stderr env PMI_RANK=first lp-record -o out.lp -- touch started
	[ "$stderr" = "lp-record: PMI_RANK='first' is not a rank (a number)" ]
	run -125 --separate-stderr lp-record -o 'run.%q.lp' -- touch started
	[ "$stderr" = "lp-record: unknown '%q' in 'run.%q.lp' (%h host, %r rank, %p pid, %t start time, %% a '%')" ]
	[ ! -e started ]
}

# sample.lp as recorded by rank N on HOST
as_rank() {
	{ echo '#lp-stream 1'; printf '#lp.host\t%s\n#lp.rank\t%s\n' "$2" "$1"; tail -n +2 "$DATA/sample.lp"; } > "$3"
}

@test "lp-collapse --by rank, host or both: a root frame per input's metadata" {
	as_rank 0 node1 r0.lp
	as_rank 1 node2 r1.lp
	run --separate-stderr lp-collapse -e cpu --by rank r0.lp r1.lp
	assert_success
	assert_output - <<-EOF
		rank=0;app;_start;main 1000000
		rank=0;app;_start;main;compute 2000000
		rank=0;app_worker;start_thread;work;jitted:code 1000000
		rank=0;app_worker;start_thread;work;memcpy 1000000
		rank=1;app;_start;main 1000000
		rank=1;app;_start;main;compute 2000000
		rank=1;app_worker;start_thread;work;jitted:code 1000000
		rank=1;app_worker;start_thread;work;memcpy 1000000
	EOF
	run --separate-stderr lp-collapse -e offcpu --by host,rank r0.lp r1.lp
	assert_success
	assert_output - <<-EOF
		host=node1;rank=0;app;_start;main;read;entry_SYSCALL_64;schedule 5000000
		host=node2;rank=1;app;_start;main;read;entry_SYSCALL_64;schedule 5000000
	EOF
	# streams put one after another keep their own ranks
	cat r0.lp r1.lp > both.lp
	run --separate-stderr lp-collapse -e offcpu --by rank both.lp
	assert_output - <<-EOF
		rank=0;app;_start;main;read;entry_SYSCALL_64;schedule 5000000
		rank=1;app;_start;main;read;entry_SYSCALL_64;schedule 5000000
	EOF
}

@test "--by with a key an input lacks names the input; --by takes host and rank only" {
	as_rank 0 node1 r0.lp
	run -1 --separate-stderr lp-collapse -e cpu --by rank r0.lp "$DATA/sample.lp"
	[ "$stderr" = "lp-collapse: $DATA/sample.lp:5: --by rank: the stream says no #lp.rank before its samples (it was not recorded under mpirun or srun)" ]
	run -1 --separate-stderr lp-svg --by host "$DATA/sample.lp"
	[ "$stderr" = "lp-svg: $DATA/sample.lp:5: --by host: the stream says no #lp.host before its samples" ]
	printf 'a;b 1\n' > f.folded
	run -1 --separate-stderr lp-collapse --by rank f.folded
	[ "$stderr" = "lp-collapse: f.folded: --by takes lp streams (their #lp.host, #lp.rank and C records), not folded stacks" ]
	run -2 --separate-stderr lp-collapse --by node r0.lp
	[ "${stderr%%$'\n'*}" = "lp-collapse: --by takes host, rank, region or several (host,rank), not 'node'" ]
}

@test "lp-svg --by rank: a tower per rank" {
	as_rank 0 node1 r0.lp
	as_rank 1 node1 r1.lp
	run --separate-stderr lp-svg -e cpu --by rank r0.lp r1.lp
	assert_success
	# the picture without its script: the two towers side by side under the root, half each
	grep -qP '<rect x="10.0" y="[0-9.]+" width="590.0" [^>]*/><text [^>]*>rank=0</text>' <<<"$output" ||
		fail "no rank=0 tower of half the width"
	grep -qP '<rect x="600.0" y="[0-9.]+" width="590.0" [^>]*/><text [^>]*>rank=1</text>' <<<"$output" ||
		fail "no rank=1 tower of half the width"
}

@test "a thousand streams merge in one pass, one file open at a time" {
	for i in $(seq 0 999); do
		as_rank "$i" node r.$i.lp
	done
	# far fewer descriptors than inputs
	run --separate-stderr bash -c 'ulimit -n 64 && lp-collapse -e offcpu --by rank r.*.lp'
	assert_success
	[ "${#lines[@]}" -eq 1000 ] || fail "${#lines[@]} lines"
	assert_line "rank=999;app;_start;main;read;entry_SYSCALL_64;schedule 5000000"
}

# A real job: mpirun -np 2 lp-record -o run.%r.lp, rank r burning (r + 1) * 300 ms.
mpi_job() {
	command -v mpirun > /dev/null || skip "no mpirun (make deps installs openmpi-bin)"
	[ -x "$W/mpi-ranks" ] || skip "no MPI workload (built when mpicc is there)"
	recording
	run --separate-stderr mpirun --allow-run-as-root --oversubscribe -np 2 \
		lp-record -q -o "$BATS_TEST_TMPDIR/run.%r.lp" -- "$W/mpi-ranks" 300
	assert_success
}

@test "mpirun -np 2 lp-record -o run.%r.lp: a stream per rank, and the ranks' known 1:2 work" {
	mpi_job
	for r in 0 1; do
		[ "$(lp_meta rank "run.$r.lp")" = "$r" ] || fail "run.$r.lp says rank $(lp_meta rank "run.$r.lp")"
		[ -n "$(lp_meta job "run.$r.lp")" ] || fail "run.$r.lp has no job id"
		# its own CPU clock, read after the loop: on a busy host it may overshoot a millisecond
		ms=$(sed -n "s/.*rank $r of 2 burnt \([0-9]*\) ms.*/\1/p" <<< "$stderr")
		[ -n "$ms" ] && awk -v m="$ms" -v w=$((300 * (r + 1))) 'BEGIN { exit !(m >= w && m <= w * 1.05) }' ||
			fail "rank $r: $stderr"
	done
	lp-collapse -e cpu --by rank run.0.lp run.1.lp > job.folded
	r0=$(awk '/^rank=0;.*;burn( |;)/ { s += $NF } END { print s + 0 }' job.folded)
	r1=$(awk '/^rank=1;.*;burn( |;)/ { s += $NF } END { print s + 0 }' job.folded)
	awk -v a="$r0" -v b="$r1" 'BEGIN { exit !(a > 0 && b / a > 1.8 && b / a < 2.2) }' ||
		fail "burn: rank 0 $r0 ns, rank 1 $r1 ns (want 1:2 within 10%)"
}

@test "mpirun job: lp-svg --timeline draws a band per rank on the wall clock, in rank order, the busier rank longer" {
	mpi_job
	# given in the wrong order: the bands still come by rank
	run --separate-stderr lp-svg --timeline run.1.lp run.0.lp
	assert_success
	printf '%s\n' "$output" > job.svg
	browser timeline ranks job.svg
}

@test "pipelines/lp-job-report: the job's timeline, towers per rank and host, pprof, an index" {
	sed 's/^#lp.host\ttesthost/#lp.host\tnode1\n#lp.rank\t0/' "$DATA/timeline/small.lp" > r0.lp
	sed 's/^#lp.host\ttesthost/#lp.host\tnode2\n#lp.rank\t1/' "$DATA/timeline/small.lp" > r1.lp
	run --separate-stderr "$TOP/pipelines/lp-job-report" report r0.lp r1.lp
	assert_success
	assert_output "lp-job-report: report/index.html"
	# nothing but the stream's made-up binaries, said missing
	[ -z "$(grep -v "cannot read it: spawning stacks without file:line" <<< "$stderr")" ] || fail "$stderr"
	for f in timeline.svg ranks.svg hosts.svg; do
		xmllint --noout "report/$f"
		grep -q "data=\"$f\"" report/index.html || fail "index.html does not show $f"
	done
	grep -q '<metadata id="lp-timeline">' report/timeline.svg
	grep -q '^rank=1;' report/ranks.folded
	[ -s report/job.pb.gz ]
}
