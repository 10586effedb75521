#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The build: installation layout and the missing-dependency message.

bats_require_minimum_version 1.5.0

setup() {
	load test_helper
}

@test "make install puts programs, man pages and data under DESTDIR/PREFIX" {
	run --separate-stderr make -C "$TOP" -s O="$LP_BUILD" install DESTDIR="$BATS_TEST_TMPDIR/root" PREFIX=/usr
	assert_success
	[ -x "$BATS_TEST_TMPDIR/root/usr/bin/lp-collapse" ]
	[ -f "$BATS_TEST_TMPDIR/root/usr/share/man/man1/lp-collapse.1" ]
	[ -f "$BATS_TEST_TMPDIR/root/usr/share/man/man5/lp-stream.5" ]
	[ -d "$BATS_TEST_TMPDIR/root/usr/share/lp/filters" ]
	[ -x "$BATS_TEST_TMPDIR/root/usr/bin/lp" ]
	[ -x "$BATS_TEST_TMPDIR/root/usr/bin/lp-report" ] && [ -x "$BATS_TEST_TMPDIR/root/usr/bin/lp-job-report" ]
	[ -f "$BATS_TEST_TMPDIR/root/usr/share/bash-completion/completions/lp" ]
	[ -L "$BATS_TEST_TMPDIR/root/usr/share/bash-completion/completions/lp-record" ]
	# the installed programs need nothing of the tree they were built in
	root=$BATS_TEST_TMPDIR/root
	if "$LP_BUILD/bin/lp-record" -q -o "$BATS_TEST_TMPDIR/probe.lp" -- true 2> /dev/null; then
		(cd / && env -i PATH=/usr/bin:/bin "$root/usr/bin/lp" record -q -o "$BATS_TEST_TMPDIR/i.lp" -- /bin/true)
		(cd / && env -i PATH=/usr/bin:/bin "$root/usr/bin/lp" svg "$BATS_TEST_TMPDIR/i.lp" > "$BATS_TEST_TMPDIR/i.svg")
		grep -q '<svg' "$BATS_TEST_TMPDIR/i.svg"
	fi
	# lp-count, lp's QEMU plugin, beside the programs: the installed lp-roofline finds it there
	[ -f "$root/usr/lib/lp/lp-count.so" ]
	if command -v "qemu-$(uname -m)" > /dev/null; then
		(cd / && env -i PATH=/usr/bin:/bin "$root/usr/bin/lp-roofline" record --emulate -q -o "$BATS_TEST_TMPDIR/e.lp" \
			-- "$LP_BUILD/workloads/flopkinds" sse-dp 10 2> /dev/null)
		grep -qP '^K\t.*\tsse_dp\t' "$BATS_TEST_TMPDIR/e.lp"
	fi
	run --separate-stderr env -i PATH=/usr/bin:/bin MANPATH="$root/usr/share/man" "$root/usr/bin/lp" help svg
	assert_success
	assert_line --regexp 'lp-svg +- '

	run --separate-stderr "$BATS_TEST_TMPDIR/root/usr/bin/lp-collapse" --version
	assert_success
	assert_output --regexp '^lp-collapse [0-9]+\.[0-9]+\.[0-9]+'
}

@test "one version: every program says it, a recording carries it, a release tarball has it in VERSION" {
	version=$("$LP_BUILD/bin/lp-collapse" --version | cut -d' ' -f2)
	[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+ ]] || fail "version '$version'"
	for p in lp-svg lp-filter lp-lines lp-export lp-record lp-offcpu lp-stat lp-roofline; do
		assert_equal "$("$LP_BUILD/bin/$p" --version)" "$p $version"
	done
	if "$LP_BUILD/bin/lp-record" -q -o "$BATS_TEST_TMPDIR/v.lp" -- true 2> /dev/null; then
		grep -qxP "#lp.version\t$version" "$BATS_TEST_TMPDIR/v.lp"
	fi
	run --separate-stderr make -C "$TOP" -s O="$BATS_TEST_TMPDIR/d" dist
	assert_success
	tar -xzf "$BATS_TEST_TMPDIR/d/lp-$version.tar.gz" -C "$BATS_TEST_TMPDIR" "lp-$version/VERSION" "lp-$version/COPYING"
	assert_equal "$(cat "$BATS_TEST_TMPDIR/lp-$version/VERSION")" "$version"
}

@test "a missing library is named with its Debian package" {
	run --separate-stderr env PKG_CONFIG_PATH=/nonexistent PKG_CONFIG_LIBDIR=/nonexistent \
		make -C "$TOP" -s O="$BATS_TEST_TMPDIR/b" all
	assert_failure
	[[ "$stderr" == *"pkg-config cannot find libpcre2-8: install the Debian package libpcre2-dev (or run 'make deps' as root)"* ]]
}

@test "the man pages format without warnings" {
	for page in "$TOP"/share/man/man*/*.[0-9]; do
		run --separate-stderr env MANWIDTH=80 man --warnings -l "$page"
		assert_success
		[ -z "$stderr" ] || fail "$page: $stderr"
	done
}

@test "usage errors name the program, however it was run: not its path, not a subcommand" {
	for p in lp-collapse lp-svg lp-filter lp-lines lp-export lp-record lp-offcpu lp-stat; do
		run -2 --separate-stderr "$LP_BUILD/bin/$p" --bogus
		assert_equal "${stderr_lines[0]}" "$p: unrecognized option '--bogus'"
	done
	for c in roofs points; do
		run -2 --separate-stderr "$LP_BUILD/bin/lp-roofline" $c --bogus
		assert_equal "${stderr_lines[0]}" "lp-roofline: unrecognized option '--bogus'"
	done
}

@test "lib/ is layered: no include goes up or sideways, no private header crosses a folder" {
	run --separate-stderr "$TOP/tools/check-layers"
	assert_success
	assert_output ''
}

@test "check-layers refuses a bare header name, an include upwards and another folder's private header" {
	cd "$BATS_TEST_TMPDIR"
	mkdir -p tree/tools
	cp -r "$TOP/lib" "$TOP/bpf" "$TOP/carm" tree/
	cp "$TOP/tools/check-layers" tree/tools/
	printf '#include "error.h"\n#include "record/recorder.h"\n#include "record/recorder-int.h"\n' >> tree/lib/base/strbuf.c
	run -1 --separate-stderr tree/tools/check-layers
	assert_line 'lib/base/strbuf.c includes "error.h": name it by its folder ("folder/error.h")'
	assert_line --regexp '^lib/base/strbuf.c includes lib/record/recorder.h: base may not include record'
	assert_line 'lib/base/strbuf.c includes lib/record/recorder-int.h: another folder'"'"'s private header'
}

@test "tools/lint: nothing in the tree; a twice-named header, an unprefixed symbol, a test of a message's words, a warning as an error found" {
	run --separate-stderr "$TOP/tools/lint" "$LP_BUILD/liblp.a"
	assert_success
	assert_output ''
	cd "$BATS_TEST_TMPDIR"
	mkdir -p tree/tools
	cp -r "$TOP/lib" "$TOP/bpf" "$TOP/carm" "$TOP/qemu" "$TOP/cmd" tree/
	cp "$TOP/tools/check-layers" "$TOP/tools/lint" tree/tools/
	cp "$TOP/lib/base/hash.h" tree/cmd/
	printf 'int f(const struct lp_error *e) { return strcmp(e->msg, "exec") == 0; }\n' >> tree/lib/base/strbuf.c
	printf 'static void w(void) { error("warning: %%s", "x"); }\n' >> tree/cmd/lp-lines.c
	printf 'int bad_name(void) { return 0; }\n' > bad.c
	cc -c -o bad.o bad.c && ar rcs bad.a bad.o
	run -1 --separate-stderr tree/tools/lint bad.a
	assert_line --regexp "^header name 'hash.h' is there twice: "
	assert_line "bad.a: global symbol 'bad_name' is not named by its object (noun__verb)"
	assert_line --regexp "^lib/base/strbuf.c:[0-9]+:.*: a decision on a message's words; give the error a kind"
	assert_line --regexp "^cmd/lp-lines.c:[0-9]+:.*: a warning printed as an error; call warning\(\)$"
}

@test "lp, the umbrella: lists the commands, runs lp-COMMAND beside it, opens the manual, says its version" {
	run --separate-stderr "$LP_BUILD/bin/lp"
	assert_success
	assert_line --regexp '^  collapse +fold lp streams'
	assert_line --regexp '^  record +sample a command'
	version=$("$LP_BUILD/bin/lp-collapse" --version | cut -d' ' -f2)
	run --separate-stderr "$LP_BUILD/bin/lp" --version
	assert_output "lp $version"
	# lp-COMMAND beside lp comes first, whatever PATH says
	run --separate-stderr env PATH=/usr/bin:/bin "$LP_BUILD/bin/lp" collapse "$DATA/sample.lp"
	assert_success
	assert_line 'app;_start;main;compute 2000003'
	run -2 --separate-stderr "$LP_BUILD/bin/lp" bogus
	assert_equal "${stderr_lines[0]}" "lp: 'bogus' is not an lp command; 'lp' lists them"
	if command -v man > /dev/null && [ -e "$LP_BUILD/../share/man/man1/lp-collapse.1" ]; then
		run --separate-stderr "$LP_BUILD/bin/lp" help collapse
		assert_success
		assert_line --regexp 'lp-collapse - aggregate samples into folded stacks'
	fi
}

# COMPREPLY for the words of a command line, the cursor on the last.
complete_words() {
	# shellcheck disable=SC1091
	source "$TOP/share/bash-completion/lp"
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	_lp
	printf '%s\n' "${COMPREPLY[@]}"
}

@test "bash completion: commands, each program's options from its --help, event names, files" {
	PATH=$LP_BUILD/bin:$PATH
	run complete_words lp rec
	assert_output 'record'
	run complete_words lp svg --time
	assert_output '--timeline'
	run complete_words lp-collapse --ti
	assert_output "$(printf -- '--tid\n--time-ordered')"
	run complete_words lp-record -e page-fa
	assert_line 'page-faults'
	run complete_words lp stat -e sched:sched_process_exe
	assert_output 'sched:sched_process_exec'
	run complete_words lp-stat --per-
	assert_output "$(printf -- '--per-process\n--per-thread')"
	cd "$BATS_TEST_TMPDIR" && touch run.lp
	run complete_words lp-svg ru
	assert_output 'run.lp'
	run complete_words lp help col
	assert_output 'collapse'
}
