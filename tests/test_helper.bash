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
