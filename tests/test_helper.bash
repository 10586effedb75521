# SPDX-License-Identifier: GPL-2.0-or-later
# Shared set-up of the bats tests.
bats_load_library bats-support
bats_load_library bats-assert

TOP=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
DATA=$TOP/tests/data
CORPUS=${LP_CORPUS:-$TOP/../shared/corpus}

# Chromium's scenarios check what the pictures do in a browser, which the
# sanitizers' run (make asan-check sets LP_NO_CHROMIUM to why) does not
# need to repeat: the C that wrote them has run by then.
chromium_wanted() {
	[ -z "${LP_NO_CHROMIUM:-}" ] || skip "$LP_NO_CHROMIUM"
}

# Runs a browser scenario of tests/browser on an SVG.
browser() {
	chromium_wanted
	command -v node > /dev/null || skip "no node"
	[ -x /usr/bin/chromium ] || skip "no /usr/bin/chromium (make deps installs it)"
	[ -d "$TOP/tests/browser/node_modules/playwright-core" ] || skip "no playwright-core (make deps installs it)"
	run --separate-stderr env LP_SHOTS="$LP_BUILD/screenshots" node "$TOP/tests/browser/$1.mjs" "${@:2}"
	[ "$status" -eq 0 ] || fail "$1: $stderr $output"
}

# perf script text big enough to be read on two cores (32 MB or more):
# the demo's 340 times, as big.txt in the current directory. One cat of
# 340 names: a cat each takes seconds in a VM.
big_perf() {
	yes "$DATA/demo.perf-script.txt" | head -n 340 | xargs -d "\n" cat > big.txt
	[ "$(stat -c %s big.txt)" -ge $((32 << 20)) ]
}

# Fails unless FILE, a recording of tests/workloads/split (as $W/split), has
# its process tree: the root's child exec'd and named tenner, threads sixty
# and thirty spawned by the main thread from main;pthread_create;...;clone3
# and exited. Sets root and child (their pids).
split_lifecycle() {
	root=$(lp_awk '$1 == "P" && f("what") == "exec" && f("comm") == "split" { print f("pid"); exit }' "$1")
	[ -n "$root" ] || fail "no exec record of the workload"
	child=$(lp_awk -v r="$root" '$1 == "P" && f("what") == "spawn" && f("pid") != r && f("ppid") == r { print f("pid") }' "$1")
	[ -n "$child" ] || fail "no spawn record of the child process with its parent"
	grep -qP "^P\t\d+\t$child\t$child\texec\tsplit\t$W/split\$" "$1" || fail "no exec of the child with its path"
	grep -qP "^P\t\d+\t$child\t$child\tcomm\ttenner\$" "$1" || fail "the child's new name"
	local name tid
	for name in sixty thirty; do
		tid=$(lp_awk -v n="$name" '$1 == "P" && f("what") == "comm" && f("comm") == n { print f("tid") }' "$1")
		[ -n "$tid" ] || fail "no thread named $name"
		grep -qP "^P\t\d+\t$root\t$tid\tspawn\tsplit\t$root\t$root\t" "$1" || fail "$name: no spawn from the main thread"
		# clone3's syscall is outside its CFI: the caller is still found
		grep -qP "^P\t\d+\t$root\t$tid\tspawn\tsplit\t$root\t$root\t_start;[^\t]*;main;pthread_create;[^\t]*;clone3\t" "$1" ||
			fail "$name: spawning stack is not main;pthread_create;...;clone3"
		grep -qP "^P\t\d+\t$root\t$tid\texit\t$name\$" "$1" || fail "$name: no exit"
	done
}

# awk over lp streams with the fields named (tests/lp.awk): lp_awk [-v VAR=VALUE]... PROGRAM [FILE]...
#   lp_awk '$1 == "S" && f("event") == "cpu" { w += f("weight") } END { print w }' run.lp
lp_awk() {
	local vars=()
	while [ "$1" = -v ]; do
		vars+=(-v "$2")
		shift 2
	done
	awk -F'\t' "${vars[@]}" "$(cat "$TOP/tests/lp.awk")
$1" "${@:2}"
}

# lp-record's STDERR without its warnings of stacks that stopped where the kernel's copy of the
# stack did, short of its size (#lp.copy-cut: a stack page not touched yet, as a sample in the
# page fault of a program's first calls into fresh stack), when those are all the stacks that
# stopped: a test that wants no stack stopped holds to what the stream says of the others.
without_copy_cut() {
	local stopped cut
	stopped=$(sed -n 's/^lp-record: warning: \([0-9]*\) stacks start with \[unwind stopped\].*/\1/p' <<< "$1")
	cut=$(sed -n 's/^lp-record: warning: \([0-9]*\) of those stacks go on beyond what the kernel could copy.*/\1/p' <<< "$1")
	if [ -n "$stopped" ] && [ "$stopped" = "$cut" ]; then
		grep -v -e '^lp-record: warning: [0-9]* stacks start with \[unwind stopped\]' \
			-e '^lp-record: warning: [0-9]* of those stacks go on beyond what the kernel could copy' <<< "$1" || true
	else
		printf '%s' "$1"
	fi
}

# A metadata value of FILE: lp_meta lost cpu run.lp is the count of "#lp.lost<TAB>cpu<TAB>N";
# lp_meta rank run.lp the value of "#lp.rank<TAB>N"; nothing without one.
lp_meta() {
	if [ $# -eq 3 ]; then
		lp_awk -v key="$1" -v first="$2" 'END { print meta(key, first) }' "$3"
	else
		lp_awk -v key="$1" 'END { print meta(key) }' "$2"
	fi
}

# The records of one kind in FILE, as they are: lp_records S run.lp
lp_records() {
	awk -F'\t' -v kind="$1" '$1 == kind' "$2"
}
