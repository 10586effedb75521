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
	root=$(awk -F'\t' '$1 == "P" && $5 == "exec" && $6 == "split" { print $3; exit }' "$1")
	[ -n "$root" ] || fail "no exec record of the workload"
	child=$(awk -F'\t' -v r="$root" '$1 == "P" && $5 == "spawn" && $3 != r && $7 == r { print $3 }' "$1")
	[ -n "$child" ] || fail "no spawn record of the child process with its parent"
	grep -qP "^P\t\d+\t$child\t$child\texec\tsplit\t$W/split\$" "$1" || fail "no exec of the child with its path"
	grep -qP "^P\t\d+\t$child\t$child\tcomm\ttenner\$" "$1" || fail "the child's new name"
	local name tid
	for name in sixty thirty; do
		tid=$(awk -F'\t' -v n="$name" '$1 == "P" && $5 == "comm" && $6 == n { print $4 }' "$1")
		[ -n "$tid" ] || fail "no thread named $name"
		grep -qP "^P\t\d+\t$root\t$tid\tspawn\tsplit\t$root\t$root\t" "$1" || fail "$name: no spawn from the main thread"
		# clone3's syscall is outside its CFI: the caller is still found
		grep -qP "^P\t\d+\t$root\t$tid\tspawn\tsplit\t$root\t$root\t_start;[^\t]*;main;pthread_create;[^\t]*;clone3\t" "$1" ||
			fail "$name: spawning stack is not main;pthread_create;...;clone3"
		grep -qP "^P\t\d+\t$root\t$tid\texit\t$name\$" "$1" || fail "$name: no exit"
	done
}

# awk over lp streams with the fields named (lp-stream(5)): an S record's field numbers
# are TIME PID TID COMM EVENT WEIGHT STACK LOCS, so a test reads $WEIGHT, not $7.
#   lp_awk '$1 == "S" && $EVENT == "cpu" { w += $WEIGHT } END { print w }' run.lp
lp_awk() {
	awk -F'\t' -v TIME=2 -v PID=3 -v TID=4 -v COMM=5 -v EVENT=6 -v WEIGHT=7 -v STACK=8 -v LOCS=9 "$@"
}

# The records of one kind in FILE, as they are: lp_records S run.lp
lp_records() {
	awk -F'\t' -v kind="$1" '$1 == kind' "$2"
}
