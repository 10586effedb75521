#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Off-CPU sampling with eBPF: lp-offcpu, and lp-record sampling on and off the
# CPU together, on real recordings of tests/workloads/blocking.c, whose own
# measurements of how long it blocked ("truth FUNCTION SECONDS" on stderr) are
# what the samples are checked against.

bats_require_minimum_version 1.5.0

setup() {
	load test_helper
	cd "$BATS_TEST_TMPDIR"
	W=$LP_BUILD/workloads
	[ -x "$W/blocking" ] || fail "workloads not built (make check builds them)"
	if ! lp-offcpu -q -o probe.lp -- true 2> probe.err; then
		skip "eBPF off-CPU sampling is not possible here: $(cat probe.err)"
	fi
}

# Off-CPU seconds in samples whose stack has FRAMES (an awk regex) ending the stack or before ';'.
offcpu_seconds() {
	lp_awk -v re="(^|;)$1(;|$)" '$1 == "S" && f("event") == "offcpu" && f("stack") ~ re { s += f("weight") } END { printf "%.6f\n", s / 1e9 }' "$2"
}

# The workload's own measurement of a function's blocked time.
truth() {
	awk -v f="$1" '$1 == "truth" && $2 == f { print $3 }' "$2"
}

# Fails unless measured is within pct per cent of truth, less up to allowance seconds
# (intervals the stream counted lost: see lost_allowance).
close_to() {
	awk -v m="$1" -v t="$2" -v p="$3" -v a="${5:-0}" 'BEGIN { exit !(t > 0 && m >= t * (1 - p / 100) - a && m <= t * (1 + p / 100)) }' ||
		fail "$4: sampled $1 s, truly $2 s: not within $3%${5:+ (less ${5} s counted lost)}"
}

# Seconds of a function's blocked time the stream FILE may lack: one of its intervals
# (LONGEST seconds at most) for each off-CPU interval it counted lost. Such losses are
# rare (a return to the CPU the kernel did not show) and are asserted few elsewhere.
lost_allowance() {
	lp_awk -v l="$2" 'END { lost = meta("lost", "offcpu"); if (lost != "") printf "%.6f\n", lost * l }' "$1"
}

# The off-CPU intervals the stream FILE counted lost ("" without the line).
offcpu_lost() {
	lp_meta lost offcpu "$1"
}

# Runs COMMAND (which records into FILE) once. CHECK FILE passes, or says how
# many of the intervals it looks for are missing ("N missing: ..."): where the
# workload has one interval of a kind, a loss the stream counted (see
# lost_allowance) may have taken it, so each one missing must be counted lost.
missing_only_if_lost() {
	local file=$1 check=$2 said lost
	shift 2
	"$@" 2> /dev/null || fail "$*: exit $?"
	said=$("$check" "$file") && return 0
	lost=$(offcpu_lost "$file")
	[ "${lost:-0}" -ge "${said%% *}" ] || fail "$check: $said, and ${lost:-0} counted lost"
	echo "# $check: $said, as many counted lost" >&3
}

# Whether the recording FILE of blocking has each kind of blocking in a stack; says which not.
every_kind() {
	local kind missing=
	lp-collapse "$1" > "$1.folded"
	for kind in do_read wait_lock nap reap; do
		grep -q ";$kind;" "$1.folded" || missing+=" $kind"
	done
	[ -z "$missing" ] || { echo "$(wc -w <<< "$missing") missing: no stack with$missing"; return 1; }
}

@test "switch-ins the kernel never traced lose no interval: the demo on and off the CPU, none lost" {
	# it lost 1 to 6 in each of 5 runs before: a thread seen leaving a CPU twice, its return unseen,
	# now ended by how long it ran since (sum_exec_runtime) at its next switch-out or call return
	lp-record -q -o demo.lp -- "$W/demo" > /dev/null
	assert_equal "$(offcpu_lost demo.lp)" 0
	grep -q $'^S\t.*\toffcpu\t' demo.lp
}

@test "lp-offcpu at 1000 Hz: off-CPU time per stack within 5% of what the workload measured" {
	run --separate-stderr lp-offcpu -o b.lp -- "$W/blocking"
	assert_success
	printf '%s\n' "$stderr" > truth.txt
	close_to "$(offcpu_seconds 'reader;do_read;read' b.lp)" "$(truth do_read truth.txt)" 5 "reader;do_read;read" "$(lost_allowance b.lp 0.31)"
	close_to "$(offcpu_seconds 'waiter;wait_lock;pthread_mutex_lock' b.lp)" "$(truth wait_lock truth.txt)" 5 "wait_lock" "$(lost_allowance b.lp 0.21)"
	close_to "$(offcpu_seconds 'locker;hold_lock' b.lp)" "$(truth hold_lock truth.txt)" 5 "hold_lock" "$(lost_allowance b.lp 0.21)"
	close_to "$(offcpu_seconds 'main;nap' b.lp)" "$(truth nap truth.txt)" 5 "nap" "$(lost_allowance b.lp 0.052)"
	close_to "$(offcpu_seconds 'main;reap' b.lp)" "$(truth reap truth.txt)" 5 "reap" "$(lost_allowance b.lp 0.11)"
	close_to "$(offcpu_seconds 'main;child_nap' b.lp)" "$(truth child_nap truth.txt)" 5 "child_nap (a child process)" "$(lost_allowance b.lp 0.11)"
	# weights are whole ticks of 1 ms, the real interval in dur=
	lp_awk '$1 == "S" && (f("weight") % 1000000 != 0 || attr("dur") !~ /^[0-9]+$/ || attr("state") !~ /^[A-Za-z?]$/) { bad++ } END { exit bad }' b.lp ||
		fail "a sample's weight is not whole ticks, or dur=/state= is missing"
	assert_equal "$(grep -P '^#lp.sampling\toffcpu' b.lp)" "$(printf '#lp.sampling\toffcpu\tsched_switch\tfreq=1000')"
	# nothing lost but, rarely, a return to the CPU the kernel did not show
	grep -qP '^#lp.lost\toffcpu\t[012]$' b.lp || fail "$(grep '^#lp.lost' b.lp)"
	# no on-CPU samples: lp-offcpu only follows tasks with perf
	! grep -qP '^S\t([^\t]*\t){4}cpu\t' b.lp
	[[ "$stderr" == *"lp-offcpu: "*" off-CPU samples ("*" s off the CPU; eBPF on tp_btf)"* ]]
}

# Whether the recording FILE of blocking has libc's read, futex and nanosleep under their callers.
callers_of_libc() {
	local missing=0 stack
	lp-collapse "$1" > "$1.folded"
	for stack in '^blocking;[^ ]*main;nap;__nanosleep;clock_nanosleep [0-9]+$' \
		'^reader;[^ ]*reader;do_read;read [0-9]+$' \
		'^waiter;[^ ]*waiter;wait_lock;pthread_mutex_lock;__GI___lll_lock_wait [0-9]+$'; do
		grep -qE "$stack" "$1.folded" || missing=$((missing + 1))
	done
	[ "$missing" -eq 0 ] ||
		{ echo "$missing missing: read, futex or nanosleep without its caller: $(grep -E ';(read|__GI___lll_lock_wait|clock_nanosleep) ' "$1.folded")"; return 1; }
}

@test "the caller of libc's read, futex and nanosleep is there (CFI recovery at switch-out)" {
	missing_only_if_lost b.lp callers_of_libc lp-offcpu -q -o b.lp -- "$W/blocking"
	# every user frame has its file (or the vdso, where a preempted clock_gettime is) and offset in
	# LOCS; only the root may be the [unwind stopped] marker (unwinding met stack data), located "-"
	lp_awk '$1 == "S" { n = split(f("stack"), s, ";"); m = split(f("locs"), l, ";"); if (n != m) bad++; for (i = 1; i <= m; i++) if (l[i] !~ /^(\/.*|\[vdso\])\+0x[0-9a-f]+$/ && !(i == 1 && s[1] == "[unwind stopped]" && l[1] == "-")) bad++ } END { exit bad }' b.lp
}

@test "lp-offcpu -F -1 reports every interval exactly: within 1% of the truth" {
	run --separate-stderr lp-offcpu -F -1 -o b.lp -- "$W/blocking"
	assert_success
	printf '%s\n' "$stderr" > truth.txt
	close_to "$(offcpu_seconds 'reader;do_read;read' b.lp)" "$(truth do_read truth.txt)" 1 "do_read" "$(lost_allowance b.lp 0.31)"
	close_to "$(offcpu_seconds 'waiter;wait_lock;pthread_mutex_lock' b.lp)" "$(truth wait_lock truth.txt)" 1 "wait_lock" "$(lost_allowance b.lp 0.21)"
	close_to "$(offcpu_seconds 'main;nap' b.lp)" "$(truth nap truth.txt)" 1 "nap" "$(lost_allowance b.lp 0.052)"
	close_to "$(offcpu_seconds 'main;child_nap' b.lp)" "$(truth child_nap truth.txt)" 1 "child_nap" "$(lost_allowance b.lp 0.11)"
	# each of the 20 naps, or counted lost (rarely, and few)
	grep -qP '^#lp.lost\toffcpu\t[012]$' b.lp || fail "$(grep '^#lp.lost' b.lp)"
	[ $(($(grep -c $'^S\t.*main;nap;' b.lp) + $(offcpu_lost b.lp))) -ge 20 ] ||
		fail "fewer than the 20 naps"
	# the weight is the interval itself
	lp_awk '$1 == "S" && attr("dur") != f("weight") { bad++ } END { exit bad }' b.lp
	grep -qP '^#lp.sampling\toffcpu\tsched_switch\tevery-interval$' b.lp
}

@test "--spill-after: records beyond it wait in an unlinked file beside the output, and all are written in time order" {
	mkdir out
	run --separate-stderr lp-record --offcpu-freq -1 --spill-after 64K -o out/b.lp -- "$W/blocking"
	assert_success
	[[ "$stderr" == *"lp-record: "*" MB of records went through a temporary file in 'out' (--spill-after)"* ]]
	# nothing is left beside the stream
	[ "$(ls -A out)" = b.lp ]
	printf '%s\n' "$stderr" > truth.txt
	close_to "$(offcpu_seconds 'main;nap' out/b.lp)" "$(truth nap truth.txt)" 1 "nap" "$(lost_allowance out/b.lp 0.052)"
	close_to "$(offcpu_seconds 'reader;do_read;read' out/b.lp)" "$(truth do_read truth.txt)" 1 "do_read" "$(lost_allowance out/b.lp 0.31)"
	[ $(($(grep -c $'^S\t.*main;nap;' out/b.lp) + $(offcpu_lost out/b.lp))) -ge 20 ] ||
		fail "fewer than the 20 naps"
	lp_awk '$1 == "S" || $1 == "P" { if (f("time") < last) exit 1; last = f("time") }' out/b.lp || fail "records out of time order"
	grep -qP '^S\t([^\t]*\t){4}cpu\t\d+\t[^\t]*main;spin' out/b.lp
	# a well-formed stream, to its trailer
	run -0 lp-collapse out/b.lp
	grep -q '^#lp.lost' out/b.lp
}

@test "--spill-after: a file that cannot be written is said, and the records stay in memory" {
	# TMPDIR for lp-record alone: bash puts a long "run" output it splits into lines in a file under TMPDIR
	run --separate-stderr env TMPDIR=$BATS_TEST_TMPDIR/none lp-record --offcpu-freq -1 --spill-after 64K -- "$W/blocking"
	assert_success
	[[ "$stderr" == *"lp-record: warning: cannot write a temporary file in '$BATS_TEST_TMPDIR/none' (No such file or directory): records were kept in memory"* ]]
	[ $(grep -c $'^S\t.*main;nap;' <<< "$output") -ge 19 ]
	# a full disk partway: what went to the file is read back, the rest stayed in memory
	mkdir small
	mount -t tmpfs -o size=128k tmpfs small 2> /dev/null || skip "cannot mount a small tmpfs here"
	# (half of it taken: the records outgrow the rest, some 1 MB of them with on-CPU samples at 4999 Hz,
	# their stack copies kept as differences; off the CPU alone, 1-2 chunks of 64 KB, which may fit)
	head -c 65536 /dev/zero > small/taken
	run --separate-stderr env TMPDIR=$PWD/small lp-record -F 4999 --offcpu-freq -1 --spill-after 64K -- "$W/blocking"
	umount small
	assert_success
	[[ "$stderr" == *"(No space left on device): records were kept in memory"* ]]
	[[ "$stderr" == *" MB of records went through a temporary file in '$PWD/small'"* ]]
	[ $(grep -c $'^S\t.*main;nap;' <<< "$output") -ge 19 ]
	lp_awk '$1 == "S" || $1 == "P" { if (f("time") < last) exit 1; last = f("time") }' <<< "$output" || fail "records out of time order"
	# full from the first write: nothing went to the file, all stayed in memory
	mount -t tmpfs -o size=4k tmpfs small
	head -c 4096 /dev/zero > small/taken 2> /dev/null || true
	run --separate-stderr env TMPDIR=$PWD/small lp-record --offcpu-freq -1 --spill-after 64K -- "$W/blocking"
	umount small
	assert_success
	[[ "$stderr" == *"(No space left on device): records were kept in memory"* ]]
	[[ "$stderr" != *"went through a temporary file"* ]]
	[ $(grep -c $'^S\t.*main;nap;' <<< "$output") -ge 19 ]
	run -2 lp-record --spill-after 12Q -- true
	[[ "$output" == *"--spill-after must be a size such as 16K, 8M or 1G, got '12Q'"* ]]
}

@test "lp-record samples on and off the CPU: each thread's sampled time within 5% of its lifetime" {
	run --separate-stderr lp-record -o b.lp -- "$W/blocking"
	assert_success
	[[ "$stderr" == *"lp-record: "*" off-CPU samples ("* ]]
	# the summary lists on-CPU before off-CPU
	[[ "$stderr" == *" on-CPU samples, "*" off-CPU samples ("* ]]
	grep -qP '^S\t([^\t]*\t){4}cpu\t' b.lp
	grep -qP '^S\t([^\t]*\t){4}offcpu\t' b.lp
	# in time order
	lp_awk '$1 == "S" || $1 == "P" { if (f("time") < last) exit 1; last = f("time") }' b.lp || fail "records out of time order"
	# every thread, the early ones too: spawn (or exec) to exit, against on + off-CPU samples
	# (less, for an off-CPU interval counted lost, up to the longest the workload has: 0.31 s)
	lp_awk '
		$1 == "P" && (f("what") == "spawn" || f("what") == "exec") && !(f("tid") in b) { b[f("tid")] = f("time") }
		$1 == "P" && f("what") == "exit" { e[f("tid")] = f("time") }
		$1 == "S" { s[f("tid")] += f("weight") }
		END {
			lost = meta("lost", "offcpu") * 310000000
			for (t in b) {
				n++
				if (!(t in e)) { print "thread " t " has no exit"; bad++; continue }
				life = e[t] - b[t]; r = s[t] / life
				printf "thread %s: sampled %.3f s of %.3f s\n", t, s[t] / 1e9, life / 1e9
				if ((r < 0.95 && s[t] + lost < 0.95 * life) || r > 1.05) bad++
			}
			if (n < 5) { print "only " n " threads"; bad++ }
			exit bad
		}' b.lp > threads.txt || fail "$(cat threads.txt; grep '^#lp.lost' b.lp; echo "$stderr")"
	# the child process is followed, and its exec'd parent's threads
	child=$(lp_awk '$1 == "P" && f("what") == "spawn" && f("pid") == f("tid") && f("pid") != f("ppid") { print f("pid") }' b.lp)
	[ -n "$child" ]
	# its nap under child_nap, unless an interval was counted lost (rare: a
	# switch the kernel did not show us), which the lifetimes above allowed for
	grep -qP "^S\t\d+\t$child\t$child\tblocking\toffcpu\t\d+\t[^\t]*main;child_nap;" b.lp ||
		[ "$(offcpu_lost b.lp)" -gt 0 ] ||
		fail "no off-CPU sample of child $child under main;child_nap, and none lost: $(lp_awk -v c="$child" '($1 == "S" || $1 == "P") && f("tid") == c' b.lp | cut -c1-400)"
}

@test "only the command's process tree is sampled" {
	sleep 3 &
	stranger=$!
	lp-offcpu -q -F -1 -o b.lp -- "$W/blocking" 2> /dev/null
	kill "$stranger"
	pids=$(lp_awk '$1 == "P" { print f("pid") }' b.lp | sort -u)
	lp_awk '$1 == "S" { print f("pid") }' b.lp | sort -u > sampled
	[ -s sampled ]
	while read -r p; do
		grep -qx "$p" <<< "$pids" || fail "process $p was sampled, yet is not in the recorded tree"
	done < sampled
	! grep -q "^$stranger\$" sampled
	# lp-offcpu's own code between fork and exec is not the workload's
	! grep -qP '^S\t.*\tlp-offcpu\t' b.lp
}

@test "task records of the whole machine: the tree's are all kept, a stranger's left out" {
	# off the CPU alone, spawns, execs and exits come from events on every CPU for every task
	(while :; do /bin/echo stranger > /dev/null; done) &
	stranger=$!
	run --separate-stderr lp-offcpu -q -o t.lp -- sh -c 'for i in 1 2 3 4 5 6 7 8 9 10; do sh -c "/bin/true; /bin/true"; done'
	kill "$stranger"
	[ "$status" -eq 0 ]
	lp_awk '$1 == "P" && f("what") == "exec" { print f("comm") }' t.lp | sort | uniq -c > execs
	assert_equal "$(grep -w true execs)" "     20 true"
	assert_equal "$(grep -w sh execs)" "     11 sh"
	! grep -q echo execs
	# every process ends, and every one but the command was seen spawned by one the stream knows
	[ "$(lp_awk '$1 == "P" && f("what") == "exit" && f("pid") == f("tid")' t.lp | wc -l)" -eq 31 ]
	lp_awk '$1 == "P" { print f("pid") }' t.lp | sort -u > pids
	lp_awk '$1 == "P" && f("what") == "spawn" { print f("pid") }' t.lp | sort -u > spawned
	[ "$(comm -23 pids spawned | wc -l)" -eq 1 ]
	! grep -qP '^T\t.*\techo\t' t.lp
}

@test "waiting to run is kept and marked state=R" {
	lp-offcpu -q -F -1 -o c.lp -- "$W/blocking" contend
	lp_awk '$1 == "S" && attr("state") == "R" && f("stack") ~ /spinner;spin/ { n++ } END { exit !(n > 0) }' c.lp ||
		fail "no preempted spinner"
	# a user can separate them
	lp_awk '$1 == "S" && attr("state") != "R"' c.lp > blocked
	lp_awk '$1 == "S" && attr("state") == "R"' c.lp > waiting
	[ -s waiting ]
}

@test "threads handing one CPU to each other: each preempted one's stack is whole, with rseq or without" {
	# each write wakes the other thread, which takes the CPU as the call returns: state=R
	for tunables in "" glibc.pthread.rseq=0; do
		GLIBC_TUNABLES=$tunables lp-offcpu -q -F -1 -o pp.lp -- taskset -c 0 "$W/blocking" pingpong 2000
		lp_awk '$1 == "S" && (f("comm") == "blocking" || f("comm") == "server") && attr("state") == "R" && f("stack") ~ /(^|;)write$/' \
			pp.lp > preempted
		[ "$(wc -l < preempted)" -gt 100 ] || fail "rseq '$tunables': $(wc -l < preempted) preempted writes"
		# callers read as the thread returned to user mode (rseq) or as it left (without)
		run grep -vP '\t(_start;__libc_start_main;__libc_start_call_main;main;ask|clone3;start_thread;server;serve);write\t' preempted
		[ "$status" -eq 1 ] || fail "rseq '$tunables', writes without their callers: $output"
		# every switch of the two threads reported: two a round trip
		[ "$(lp_awk '$1 == "S" && (f("comm") == "blocking" || f("comm") == "server")' pp.lp | wc -l)" -ge 3990 ]
	done
}

# Whether the recording FILE has the reader's read with the kernel's frames under it (--capture both),
# or the marker of kernel frames not seen (its return to a CPU went unseen: rare, and said).
read_into_kernel() {
	grep -qP '^S\t.*\treader\toffcpu\t\d+\t[^\t]*do_read;read;([^\t]*(entry_SYSCALL_64|do_syscall_64)[^\t]*;[^\t]*\t[^\t]*\[kernel.kallsyms\]\+0x|\[kernel stack unseen\]\t)' "$1" ||
		{ echo "1 missing: no do_read;read;...entry_SYSCALL_64 with kernel locations"; return 1; }
}

# Whether the recording FILE has the reader in ksys_read (--capture kernel), or the marker alone.
read_in_kernel() {
	grep -qP '^S\t.*\treader\toffcpu\t\d+\t([^\t]*ksys_read|\[kernel stack unseen\]\t)' "$1" ||
		{ echo "1 missing: no reader in ksys_read"; return 1; }
}

# Whether each wait of the recording FILE of blocking names what ended it, and
# each its wait for a CPU; says which not ("N missing" where a kind has no interval).
wakers_named() {
	lp_awk '
	$1 == "P" && f("what") == "spawn" && f("pid") != f("ppid") { child = f("pid") }
	$1 == "T" && f("comm") == "locker" { locker = f("tid") }
	$1 == "S" {
		q = attr("queued")
		if (q == "" && attr("state") == "R" || q != "" && (q + 0 > attr("dur") + 0 || attr("state") == "R" && q != attr("dur")))
			bad = bad " queued=" q " of dur=" attr("dur") " (state " attr("state") ");"
		if (attr("state") == "R" && attr("waker") != "")
			bad = bad " a preempted interval with a waker;"
	}
	$1 == "S" && f("stack") ~ /;do_read;read$/ { n["read"]++; w["read"] = w["read"] " " attr("waker") "/" attr("wakerpid") "/" attr("wakercomm") "=" f("pid") }
	$1 == "S" && f("stack") ~ /;wait_lock;/ { n["lock"]++; w["lock"] = w["lock"] " " attr("waker") "/" attr("wakerpid") "/" attr("wakercomm") "=" f("pid") }
	$1 == "S" && f("stack") ~ /;reap;wait4$/ { n["reap"]++; w["reap"] = w["reap"] " " attr("waker") "/" attr("wakerpid") "/" attr("wakercomm") "=" f("pid") }
	# (a wake-up may go unseen: the program does not run inside itself, where an interrupt came)
	$1 == "S" && f("stack") ~ /;nap;/ { if (attr("waker") == "irq") n["nap"]++; else if (attr("waker") != "") bad = bad " a nap woken by " attr("wakercomm") ";" }
	END {
		# the pipe written by the main thread, the lock let go by locker, the child reaped by its exit
		for (k in w) {
			split(substr(w[k], 2), v, " ")
			for (i in v) {
				split(v[i], a, "[/=]")
				if (k == "read" && !(a[1] == a[4] && a[2] == a[4] && a[3] == "blocking") ||
				    k == "lock" && !(a[1] == locker && a[2] == a[4] && a[3] == "locker") ||
				    k == "reap" && !(a[1] == child && a[2] == child && a[3] == "blocking"))
					bad = bad " " k " woken by " v[i] " (locker " locker ", child " child ");"
			}
		}
		if (bad != "") { print "wrong:" bad; exit 1 }
		for (k in n) have++
		if (have < 4) { print 4 - have " missing: of read, lock, reap, nap only" (("read" in n) ? " read" : "") (("lock" in n) ? " lock" : "") (("reap" in n) ? " reap" : "") (("nap" in n) ? " nap" : ""); exit 1 }
	}' "$1"
}

@test "each wait names what ended it: the thread that wrote, unlocked or exited, or an interrupt; and how long it then waited for a CPU" {
	missing_only_if_lost b.lp wakers_named lp-offcpu -q -F -1 -o b.lp -- "$W/blocking"
	missing_only_if_lost r.lp wakers_named lp-offcpu -q -F -1 --raw-tp -o r.lp -- "$W/blocking"
	# preempted spinners waited for a CPU all the time they were off it
	lp-offcpu -q -F -1 -o c.lp -- "$W/blocking" contend
	lp_awk '$1 == "S" && attr("state") == "R" && attr("queued") == attr("dur") { n++ } END { exit !(n > 0) }' c.lp
	wakers_named c.lp | grep -q '^4 missing' || fail "contend: $(wakers_named c.lp)"
}

@test "a wait ended by a process born during it is explained: the recorder says the waker was recorded" {
	local tp
	for tp in "" --raw-tp; do
		# shellcheck disable=SC2086
		lp-offcpu -q -F -1 $tp -o g.lp -- "$W/blocking" grandchild
		# the grandchild's first record comes after the wait's (which is at its start); a
		# preemption on the way out of read (state=R, on a busy machine) was woken by no one
		lp_awk '$1 == "S" && f("stack") ~ /;await_grandchild;read$/ && attr("state") != "R" { wait = f("time"); waker = attr("waker"); rec = attr("wakerrecorded") }
			$1 == "P" && f("what") == "spawn" && f("pid") == waker && f("time") > wait { born = 1 }
			END { if (!wait || !born || rec != "1") { print "wait " wait ", waker " waker " born after it: " born + 0 ", wakerrecorded=" rec; exit 1 } }' g.lp ||
			fail "$tp"
		run --separate-stderr lp-collapse --waits unexplained g.lp
		assert_success
		assert_line --regexp '^blocking;\[waiting for blocking\] [0-9]+$'
		# the wait is not among the unexplained; a preemption there (no waker) is, weight for weight
		preempted=$(lp_awk '$1 == "S" && f("stack") ~ /;await_grandchild;read$/ && attr("state") == "R" { w += f("weight") } END { print w + 0 }' g.lp)
		if [ "$preempted" -eq 0 ]; then
			refute_line --partial 'await_grandchild'
		else
			assert_line --regexp ";await_grandchild;read $preempted\$"
		fi
	done
}

@test "a thread woken by another is named on every CPU, never taken for an interrupt" {
	# (a handler's start counted without its end once left a CPU "in an interrupt" for good)
	local cpu
	for cpu in $(seq 0 $(($(nproc) - 1))); do
		lp-offcpu -q -F -1 -o pp.lp -- taskset -c "$cpu" "$W/blocking" pingpong 500
		# each read that blocked was ended by the other thread's write
		lp_awk '$1 == "S" && attr("state") == "S" && f("stack") ~ /;read$/ {
			n++; if (attr("wakercomm") != (f("comm") == "server" ? "blocking" : "server") || attr("wakerpid") != f("pid")) { bad++; what = what " " attr("waker") "/" attr("wakercomm") }
		} END { if (n < 400 || bad) { print "CPU " cpu ": " n " reads, " bad + 0 " not ended by the other thread:" what; exit 1 } }' cpu="$cpu" pp.lp
	done
}

@test "--capture both adds kernel frames, taken when the thread comes back" {
	missing_only_if_lost b.lp read_into_kernel lp-offcpu -q --capture both -o b.lp -- "$W/blocking"
	missing_only_if_lost k.lp read_in_kernel lp-offcpu -q --capture kernel -o k.lp -- "$W/blocking"
	! grep -qP '^S\t([^\t]*\t){7}[^\t]*/' k.lp || fail "user frames with --capture kernel"
}

@test "the raw_tp fallback gives the same picture" {
	run --separate-stderr lp-offcpu --raw-tp -o b.lp -- "$W/blocking"
	assert_success
	printf '%s\n' "$stderr" > truth.txt
	[[ "$stderr" == *"eBPF on raw_tp)"* ]]
	close_to "$(offcpu_seconds 'reader;do_read;read' b.lp)" "$(truth do_read truth.txt)" 5 "do_read (raw_tp)" "$(lost_allowance b.lp 0.31)"
	close_to "$(offcpu_seconds 'main;nap' b.lp)" "$(truth nap truth.txt)" 5 "nap (raw_tp)" "$(lost_allowance b.lp 0.052)"
}

@test "--offcpu-buffer wakes the reader per N records, and nothing is lost" {
	run --separate-stderr lp-offcpu -q -F -1 --offcpu-buffer 1 -o b.lp -- "$W/blocking"
	assert_success
	# every one of the 20 naps reported, or counted lost (a rare switch-in the kernel did not show)
	naps=$(grep -c $'^S\t.*main;nap;' b.lp) || true
	lost=$(offcpu_lost b.lp)
	[ $((naps + lost)) -ge 20 ] && [ "$lost" -le 2 ] || fail "$naps nap intervals of 20, $lost lost; $(grep '^#' b.lp)"
}

@test "lp-offcpu -p follows a running process" {
	"$W/blocking" 2> /dev/null &
	pid=$!
	sleep 0.1
	lp-offcpu -q -o p.lp -p "$pid"
	wait "$pid" || true
	grep -qP "^S\t\d+\t$pid\t\d+\t[^\t]+\toffcpu\t\d+\t[^\t]*main;nap;" p.lp
}

@test "lp-record --offcpu-freq 0 samples on the CPU only" {
	lp-record -q --offcpu-freq 0 -o b.lp -- "$W/blocking" 2> /dev/null
	! grep -qP '^S\t([^\t]*\t){4}offcpu\t' b.lp
	! grep -q 'offcpu' b.lp
	grep -qP '^S\t([^\t]*\t){4}cpu\t' b.lp
}

@test "without BPF lp-record says why and samples on the CPU only; lp-offcpu fails" {
	command -v capsh > /dev/null || skip "capsh (libcap2-bin) is not installed"
	run --separate-stderr capsh --drop=cap_bpf,cap_sys_admin -- -c "lp-record -o b.lp -- '$W/blocking'"
	assert_success
	[[ "$stderr" == *"lp-record: warning: off-CPU sampling is off: loading the BPF program"*"Operation not permitted (it needs root or CAP_BPF and CAP_PERFMON)"* ]]
	grep -qP '^S\t([^\t]*\t){4}cpu\t' b.lp
	! grep -qP '^S\t([^\t]*\t){4}offcpu\t' b.lp
	run --separate-stderr capsh --drop=cap_bpf,cap_sys_admin -- -c "lp-offcpu -o c.lp -- true"
	assert_failure 125
	[[ "$stderr" == "lp-offcpu: loading the BPF program"*"Operation not permitted: run as root, or give lp-offcpu CAP_BPF and CAP_PERFMON" ]]
}

@test "lp-offcpu: bad options are usage errors" {
	run --separate-stderr lp-offcpu -F 0 -- true
	assert_failure 2
	[[ "$stderr" == "lp-offcpu: -F needs a whole number from 1 to 1000000, got '0'"* ]]
	run --separate-stderr lp-offcpu
	assert_failure 2
	[[ "$stderr" == "lp-offcpu: no command to record"* ]]
	run --separate-stderr lp-offcpu --period 1000 -- true
	assert_failure 2
	run --separate-stderr lp-offcpu --capture nothing -- true
	assert_failure 2
	run -127 --separate-stderr lp-offcpu -- /nonexistent/program
	assert_failure 127
	[[ "$stderr" == "lp-offcpu: cannot run '/nonexistent/program': No such file or directory"* ]]
	run lp-offcpu --help
	assert_success
	assert_output --partial "Usage: lp-offcpu"
}

@test "a recording on and off the CPU draws as one flame graph" {
	missing_only_if_lost b.lp every_kind lp-record -q -o b.lp -- "$W/blocking"
	run --separate-stderr lp-svg b.lp
	assert_success
	printf '%s\n' "$output" > b.svg
	xmllint --noout b.svg
	# the reader's wait, ended by the main thread's write, is that thread's doing
	grep -q '\[waiting for blocking\]' b.svg || ! grep -q ';do_read;' b.lp.folded
	! grep -q 'do_read' b.svg
	# its stack, when asked for (unless a counted loss took it)
	lp-svg --waits all b.lp > all.svg
	grep -q 'do_read' all.svg || ! grep -q ';do_read;' b.lp.folded
}

@test "browser: a recording on and off the CPU shows blocking blue and spinning warm" {
	missing_only_if_lost b.lp every_kind lp-record -q -o b.lp -- "$W/blocking"
	every_kind b.lp > /dev/null || skip "a loss the stream counted took a kind of blocking the picture is checked for"
	lp-svg --title "blocking, on and off the CPU" b.lp > b.svg
	# a wait another thread ended is one frame naming it; its function is drawn only where the
	# stream has weight of another kind in it (as the folding of the same waits has): a CI run's
	# busy machine gave reap a sample or a preemption of its own
	lp-collapse --waits unexplained b.lp > explained.folded
	only=
	for name in do_read wait_lock reap; do
		grep -q ";$name\(;\| \)" explained.folded || only+=${only:+,}$name
	done
	browser recorded b.svg "" "$only"
	lp-svg --waits all --title "blocking, on and off the CPU, every wait's stack" b.lp > all.svg
	browser recorded all.svg all
}

# Threads exit (and the kernel frees their task storage) on the CPUs where a
# sleeper wakes 3000 times: every time it really blocked (its own count of
# voluntary context switches) is an interval reported, or one counted lost.
@test "off-CPU intervals never vanish: blocked beside exiting threads, each reported or counted lost" {
	for raw in "" --raw-tp; do
		run --separate-stderr lp-offcpu -q -F -1 $raw -o c.lp -- "$W/churn" 3000
		assert_success
		blocked=$(awk '$1 == "naps" { print $4 }' <<< "$stderr")
		[ "${blocked:-0}" -gt 2500 ] || fail "the sleeper blocked only '${blocked}' times"
		reported=$(lp_awk '$1 == "S" && f("event") == "offcpu" && f("stack") ~ /(^|;)sleeper;nap(;|$)/' c.lp | wc -l)
		lost=$(offcpu_lost c.lp)
		[ $((reported + lost)) -ge "$blocked" ] ||
			fail "${raw:-tp_btf}: blocked $blocked times, $reported intervals reported, $lost counted lost"
	done
}

@test "off-CPU stacks 120 frames deep in code without frame pointers are whole, every frame there" {
	# (CFI takes 32 callers at a time; the previous build stopped every one of these stacks)
	lp-offcpu -q -F -1 -o dn.lp -- "$W/bigframe" deepnaps 20 > /dev/null 2>&1
	lp_awk '$1 == "S" && f("stack") ~ /;deep_down/ { n++
			s = f("stack"); levels = gsub(/;deep_down/, "", s)
			if (f("stack") !~ /^_start;(.*;)?main;deep_down;/ || levels != 121) { print "bad: " substr(f("stack"), 1, 200) " (" levels ")"; bad++ } }
		END { lost = meta("lost", "offcpu"); if (n + lost < 20) print n " intervals in deep_down, " lost + 0 " lost"; exit bad || n + lost < 20 }' dn.lp
}

@test "off-CPU stacks of code without frame pointers reach main through frames that outgrow a small snapshot" {
	[ "$(uname -m)" = x86_64 ] || skip "the nap workload clears %rbp with x86-64 assembly"
	# doze's 1.2 KB frame and %rbp at no frame record: only CFI on a big enough copy finds main
	# (every interval in doze: its 20 naps, and a rare second sleep or wait to run within one)
	# (a nap the kernel showed unseen, about one run in twelve, is counted lost in the stream)
	lp-offcpu -q -F -1 -o n.lp -- "$W/bigframe" nap 20 > /dev/null 2>&1
	lp_awk '$1 == "S" && f("stack") ~ /(^|;)doze;/ { n++; if (f("stack") ~ /^_start;__libc_start_main;__libc_start_call_main;main;doze;/) m++ }
		END { lost = meta("lost", "offcpu"); if (n + lost < 20 || m != n) { print m " of " n " intervals in doze reach main, " lost + 0 " lost"; exit 1 } }' n.lp
	# a copy smaller than the frame stops there, and says so
	lp-offcpu -q -F -1 --stack-size 512 -o s.lp -- "$W/bigframe" nap 20 > /dev/null 2>&1
	lp_awk '$1 == "S" && f("stack") ~ /(^|;)doze;/ { n++; if (f("stack") ~ /^\[unwind stopped\];doze;/) m++ }
		END { lost = meta("lost", "offcpu"); if (n + lost < 20 || m != n) { print m " of " n " intervals in doze stop at the marker, " lost + 0 " lost"; exit 1 } }' s.lp
}

@test "off-CPU stacks of a main thread 7 KB deep reach main: a 16 KB copy would run past the stack's end, the part that can be read is taken" {
	[ "$(uname -m)" = x86_64 ] || skip "the nap workload clears %rbp with x86-64 assembly"
	# doze_deep's 7 KB frame: past a copy of 4096 bytes, and under main's few KB of stack
	# (a read is all or nothing: the whole 16 KB fails, and so may one that meets the untouched
	# pages exec leaves between main's frames and the environment)
	lp-offcpu -q -F -1 -o d.lp -- "$W/bigframe" deepnap 20 > /dev/null 2>&1
	lp_awk '$1 == "S" && f("stack") ~ /(^|;)doze_deep;/ { n++; if (f("stack") ~ /^_start;__libc_start_main;__libc_start_call_main;main;doze_deep;/) m++ }
		END { lost = meta("lost", "offcpu"); if (n + lost < 20 || m != n) { print m " of " n " intervals in doze_deep reach main, " lost + 0 " lost"; exit 1 } }' d.lp
}

@test "a shell waiting in vfork for its child: the wait is under the shell's own callers (vfork keeps its return address in rdi)" {
	[ "$(uname -m)" = x86_64 ] || skip "glibc keeps vfork's return address in rdi on x86-64; $(uname -m) differs"
	command -v dash > /dev/null || skip "no dash here"
	lp-record -q -o vfork.lp -- dash -c 'i=0; while [ $i -lt 100 ]; do /bin/true; i=$((i + 1)); done'
	lp-collapse -e offcpu vfork.lp > vfork.folded
	grep -q ';__vfork ' vfork.folded || skip "this dash does not call vfork"
	run ! grep -F '[unwind stopped];__vfork ' vfork.folded
	grep -qE '^dash;.*__libc_start_main;.*;__vfork [0-9]+$' vfork.folded
}
