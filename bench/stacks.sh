#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# How much of real programs' on-CPU time lp-record's stacks take to their
# root at defaults, next to perf record -g on the same command: Debian's
# bzip2 compressing 20 MB, Debian's python3 running recursive Python, and
# make -j2 of lp itself (cc1 and as: Debian builds them without frame pointers). A stack
# reaches its root when nothing was cut from its root side: lp's does not
# start with [unwind stopped], perf's (stackcollapse-style, from perf script)
# does not start with [unknown] or a frame that is not an entry.
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

for p in ${PROGRAMS:-bzip2 python3 make}; do
	case $p in
	bzip2) cmd=(bzip2 -c "$work/text") ;;
	python3) cmd=(/usr/bin/python3 "$work/deep.py") ;;
	make) rm -rf "$work/build"; cmd=(make -s -C "$top" -j2 O="$work/build") ;;
	esac
	"$bin/lp-record" -q --offcpu-freq 0 "${opts[@]}" -o "$work/$p.lp" -- "${cmd[@]}" > /dev/null 2> "$work/$p.err" || {
		echo "bench: lp-record of $p failed: $(tail -1 "$work/$p.err")" >&2; exit 1; }
	echo "$p: lp-record ${LP_OPTS:-(defaults)}: $(lp_share "$work/$p.lp") of on-CPU weight reaches the root" \
		"($(grep -c '^S' "$work/$p.lp") samples, stream $(stat -c %s "$work/$p.lp") bytes)"
done
