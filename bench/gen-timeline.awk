# SPDX-License-Identifier: GPL-2.0-or-later
# An lp stream of many threads blocking and running, for the timeline's
# scale case: one process whose main thread spawns `threads` threads, each
# with `intervals` off-CPU intervals and an on-CPU sample between two of
# them, in time order, then its exit and T record.
#
#   awk -v threads=1000 -v intervals=1000 -f bench/gen-timeline.awk > big.lp
BEGIN {
	if (!threads) threads = 1000
	if (!intervals) intervals = 1000
	srand(7)
	t0 = 1000000000
	print "#lp-stream 1"
	print "#lp.command\tgenerated\tthreads=" threads "\tintervals=" intervals
	print "#lp.host\tbench"
	print "#lp.start\t" t0
	print "#lp.realtime\t1700000000000000000"
	pid = 1000
	t = t0
	for (i = 0; i < threads; i++) {
		tid = pid + 1 + i
		t += 1000
		printf "P\t%d\t%d\t%d\tspawn\tworker\t%d\t%d\tmain;start_workers;pthread_create;clone3\t-\n", t, pid, tid, pid, pid
		next_t[tid] = t + 1000
	}
	# round by round: each thread runs a little (one cpu sample) then blocks
	for (k = 0; k < intervals; k++) {
		for (i = 0; i < threads; i++) {
			tid = pid + 1 + i
			run = 50000 + int(rand() * 100000)
			blk = 100000 + int(rand() * 900000)
			s = next_t[tid] + run
			printf "S\t%d\t%d\t%d\tworker\tcpu\t%d\tmain;worker;compute;kernel_%d\t-\n", s, pid, tid, run, i % 7
			printf "S\t%d\t%d\t%d\tworker\toffcpu\t%d\tmain;worker;wait_for_work;futex_wait\t-\tdur=%d\tstate=S\n", s, pid, tid, blk, blk
			next_t[tid] = s + blk
			cpu[tid] += run
		}
	}
	for (i = 0; i < threads; i++) {
		tid = pid + 1 + i
		printf "P\t%d\t%d\t%d\texit\tworker\tstatus=0\n", next_t[tid], pid, tid
		printf "T\t%d\t%d\t%d\tworker\tstart=%d\tend=%d\tcpu=%d\n", next_t[tid], pid, tid, t0, next_t[tid], cpu[tid]
	}
	# spawn, exit and T of each thread, two samples a round
	printf "#lp.end\t%d\n", threads * (3 + 2 * intervals)
}
