# SPDX-License-Identifier: GPL-2.0-or-later
# Cut recursion deeper than DEPTH: of consecutive frames of one function only
# the first DEPTH (from the root) stay, so deep recursive stacks fold together.
#   lp-filter python:filters/recursion.py run.lp | lp-svg > shallow.svg
# A Python filter runs arbitrary code: only use filters you trust.
DEPTH = 3


def process(callchain):
    # callchain is leaf first: ((symbol, executable), offset), ...
    names = [sym for (sym, exe), offset in callchain][::-1]
    keep = []
    run = 0
    for i, name in enumerate(names):
        run = run + 1 if i > 0 and names[i - 1] == name else 1
        keep.append(run <= DEPTH)
    return keep[::-1]
