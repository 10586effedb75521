#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# How much of real programs' on-CPU time lp-record's stacks take to their
# root at defaults, next to perf record -g on the same command: Debian's
# bzip2 compressing 20 MB, Debian's python3 running Python, and make -j2 of
# lp itself (cc1, as and clang: Debian builds them without frame pointers).
# An lp stack reaches its root when it does not start with [unwind stopped];
# a perf sample, when its outermost frame is _start or clone (perf script).
# NO_PERF=1 leaves perf out.
#
#   bench/stacks.sh
#   LP_OPTS="--stack-size 16384" PROGRAMS="bzip2 python3" bench/stacks.sh
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${LP_BUILD:-$top/build}/bin
work=$(mktemp -d /tmp/lp-bench-stacks.XXXXXX)
trap 'rm -rf "$work"' EXIT
[ -x "$bin/lp-record" ] || { echo "bench: build lp first (make)" >&2; exit 1; }
read -r -a opts <<< "${LP_OPTS:-}"

head -c 15000000 /dev/urandom | base64 > "$work/text"
cat > "$work/deep.py" <<'PY'
import sys
def walk(n, acc):
    if n == 0:
        return sum(i * i for i in range(200)) + acc
    return walk(n - 1, acc + n)
total = 0
for i in range(150000):
    total += walk(40 + i % 30, i)
print(total)
PY

# The share of on-CPU weight of lp stream $1 whose stacks reach their root.
lp_share() {
	awk -F'\t' '$1 == "S" && $6 == "cpu" && $8 != "[not sampled]" {
		all += $7; if ($8 !~ /^\[unwind stopped\]/) whole += $7 }
		END { printf "%.1f%%", all ? 100 * whole / all : 0 }' "$1"
}

# The share of perf.data $1's samples whose outermost frame is a process's or thread's first
# (_start, clone, clone3; perf script prints a sample's frames leaf first, a blank line after).
perf_share() {
	perf script -i "$1" -F ip,sym 2> /dev/null | awk '
		NF == 0 { if (last != "") { n++; if (last ~ /^(_start|__clone3?|clone3?)$/) whole++ } last = ""; next }
		{ last = $2 }
		END { if (last != "") { n++; if (last ~ /^(_start|__clone3?|clone3?)$/) whole++ }
		      printf "%.1f%%", n ? 100 * whole / n : 0 }'
}

for p in ${PROGRAMS:-bzip2 python3 make}; do
	case $p in
	bzip2) cmd=(bzip2 -c "$work/text") ;;
	python3) cmd=(/usr/bin/python3 "$work/deep.py") ;;
	make) rm -rf "$work/build"; cmd=(make -s -C "$top" -j2 O="$work/build") ;;
	esac
	"$bin/lp-record" -q --offcpu-freq 0 "${opts[@]}" -o "$work/$p.lp" -- "${cmd[@]}" > /dev/null 2> "$work/$p.err" || {
		echo "bench: lp-record of $p failed: $(tail -1 "$work/$p.err")" >&2; exit 1; }
	echo "$p: lp-record ${LP_OPTS:-(defaults)}: $(lp_share "$work/$p.lp") of on-CPU weight reaches the root (target 95%)" \
		"($(grep -c '^S' "$work/$p.lp") samples, stream $(stat -c %s "$work/$p.lp") bytes)"
	[ "$p" = make ] && rm -rf "$work/build"
	if [ -z "${NO_PERF:-}" ] && perf record -q -g -o "$work/$p.data" -- "${cmd[@]}" > /dev/null 2>&1; then
		echo "$p: perf record -g: $(perf_share "$work/$p.data") of samples reach the root"
	fi
done
